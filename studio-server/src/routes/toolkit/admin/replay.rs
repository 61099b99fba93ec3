//! `/api/toolkit/admin/replay/...`: replay evidence (open, list, read) and its renders
//! (request, status, download).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{Evidence, EvidenceList, EvidenceOpen, EvidenceOpened, EvidenceQuery, Render, RenderRequest};
use studio_core::{EvidenceId, RenderId};

use crate::auth::AdminAuth;
use crate::docs::bytes_response;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one evidence or render.
#[derive(Debug, Deserialize, JsonSchema)]
struct Id {
    /// The id (`rev_…` or `rrn_…`).
    id: String,
}

async fn open(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<EvidenceOpen>,
) -> Result<ApiJson<EvidenceOpened>, AppError> {
    Ok(ApiJson(state.studio.internal().open_evidence(&admin, body).await?))
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(q): ApiQuery<EvidenceQuery>,
) -> Result<ApiJson<EvidenceList>, AppError> {
    Ok(ApiJson(state.studio.internal().evidence_list(&admin, q).await?))
}

async fn read(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(Id { id }): ApiPath<Id>,
) -> Result<ApiJson<Evidence>, AppError> {
    Ok(ApiJson(state.studio.internal().evidence(&admin, &EvidenceId::from(&id)).await?))
}

async fn request(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<RenderRequest>,
) -> Result<Created<Render>, AppError> {
    Ok(Created(state.studio.internal().request_render(&admin, body).await?))
}

async fn status(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(Id { id }): ApiPath<Id>,
) -> Result<ApiJson<Render>, AppError> {
    Ok(ApiJson(state.studio.internal().render(&admin, &RenderId::from(&id)).await?))
}

async fn download(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(Id { id }): ApiPath<Id>,
) -> Result<Response, AppError> {
    let (mime, bytes) = state.studio.internal().render_file(&admin, &RenderId::from(&id)).await?;
    let mut res = Response::new(Body::from(bytes));
    let mime = HeaderValue::from_str(&mime).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    res.headers_mut().insert(header::CONTENT_TYPE, mime);
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/replay/evidence",
            post_with(open, |op| {
                op.summary("Open the replay evidence of a develop (or answer the one it has)")
                    .description("Admin session only. {jobId}. 400 JOB_REQUIRED; 404 JOB_NOT_FOUND.")
                    .tag("admin")
            })
            .get_with(list, |op| {
                op.summary("Replay evidence, newest first, paged")
                    .description(
                        "Admin session only. `limit` (default 50, 1-200), `before` an evidence id (400 BAD_CURSOR).",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/replay/evidence/{id}",
            get_with(read, |op| {
                op.summary("One replay evidence with its renders")
                    .description("Admin session only. 404 EVIDENCE_NOT_FOUND.")
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/replay/renders",
            post_with(request, |op| {
                op.summary("Request a render of a replay evidence")
                    .description(
                        "Admin session only. {evidenceId, format: contact-sheet or timeline}. 201 the queued render. \
                         400 EVIDENCE_REQUIRED, FORMAT_REQUIRED, BAD_FORMAT; 404 EVIDENCE_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/replay/renders/{id}",
            get_with(status, |op| {
                op.summary("A render's status").description("Admin session only. 404 RENDER_NOT_FOUND.").tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/replay/renders/{id}/file",
            get_with(download, |op| {
                bytes_response::<200>(
                    op.summary("Download a complete render")
                        .description("Admin session only. 404 RENDER_NOT_FOUND until it is complete.")
                        .tag("admin"),
                    "The render's file, as the renderer sent it",
                    &["application/octet-stream"],
                )
            }),
        )
}
