//! `/api/internal/replay-renders/...`: the replay renderers' queue (renderer credential):
//! claim, complete with the file's bytes, fail with a code.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{InternalOk, RenderClaim, RenderFail};

use crate::auth::{MachineAuth, Renderer};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one render.
#[derive(Debug, Deserialize, JsonSchema)]
struct RenderId {
    /// The render's id (`rrn_…`).
    id: String,
}

async fn claim(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Renderer>,
) -> Result<ApiJson<RenderClaim>, AppError> {
    Ok(ApiJson(state.studio.internal().claim_render(&m).await?))
}

async fn complete(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Renderer>,
    ApiPath(RenderId { id }): ApiPath<RenderId>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<ApiJson<InternalOk>, AppError> {
    let body = body.map_err(|_| studio_core::render_too_large())?;
    Ok(ApiJson(state.studio.internal().complete_render(&m, &studio_core::RenderId::from(&id), body).await?))
}

async fn fail(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Renderer>,
    ApiPath(RenderId { id }): ApiPath<RenderId>,
    ApiJson(body): ApiJson<RenderFail>,
) -> Result<ApiJson<InternalOk>, AppError> {
    Ok(ApiJson(state.studio.internal().fail_render(&m, &studio_core::RenderId::from(&id), body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/internal/replay-renders/claim",
            post_with(claim, |op| {
                op.summary("Claim the oldest waiting replay render, with its evidence inline")
                    .description(
                        "Renderer credential only. {job: {id, evidenceId, format, archive}} or {job: null}. A claim \
                         neither completed nor failed within the lease (300 s) is handed to the next claimer.",
                    )
                    .tag("internal")
            }),
        )
        .api_route(
            "/api/internal/replay-renders/{id}/complete",
            post_with(complete, |op| {
                op.summary("Complete a claimed render with its bytes (the raw body)")
                    .description(
                        "Renderer credential only. 400 EMPTY_RENDER, RENDER_TOO_LARGE (over 32 MiB, with maxBytes); \
                         404 RENDER_NOT_FOUND when unknown or not claimed.",
                    )
                    .tag("internal")
            })
            .layer(DefaultBodyLimit::max(studio_core::MAX_RENDER_BYTES + 1)),
        )
        .api_route(
            "/api/internal/replay-renders/{id}/fail",
            post_with(fail, |op| {
                op.summary("Fail a claimed render with a code")
                    .description(
                        "Renderer credential only. {code} required (400 CODE_REQUIRED, BAD_CODE); 404 \
                         RENDER_NOT_FOUND when unknown or not claimed.",
                    )
                    .tag("internal")
            }),
        )
}
