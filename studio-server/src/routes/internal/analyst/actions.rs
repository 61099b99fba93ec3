//! `/api/internal/analyst/actions/...`: the analyst's actions (action token): approve or
//! research a request to be let in, summarize a replay evidence.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{ApproveRequest, Approved, Research, SummarizeRequest, Summarized};

use crate::auth::{Action, MachineAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one record.
#[derive(Debug, Deserialize, JsonSchema)]
struct Id {
    /// The request's id (`ireq_…`) or the evidence's (`rev_…`).
    id: String,
}

async fn approve(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Action>,
    ApiPath(Id { id }): ApiPath<Id>,
    ApiJson(body): ApiJson<ApproveRequest>,
) -> Result<ApiJson<Approved>, AppError> {
    Ok(ApiJson(state.studio.internal().approve(&m, &studio_core::InviteRequestId::from(&id), body).await?))
}

async fn research(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Action>,
    ApiPath(Id { id }): ApiPath<Id>,
) -> Result<ApiJson<Research>, AppError> {
    Ok(ApiJson(state.studio.internal().research(&m, &studio_core::InviteRequestId::from(&id)).await?))
}

async fn summarize(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Action>,
    ApiPath(Id { id }): ApiPath<Id>,
    ApiJson(body): ApiJson<SummarizeRequest>,
) -> Result<ApiJson<Summarized>, AppError> {
    Ok(ApiJson(state.studio.internal().summarize(&m, &studio_core::EvidenceId::from(&id), body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/internal/analyst/actions/invitations/{id}/approve",
            post_with(approve, |op| {
                op.summary("Approve a pending request to be let in: its address is invited")
                    .description(
                        "Action token only. {reason} required (400 REASON_REQUIRED, TOO_LONG). The invitation goes \
                         through the admin's invite path and its letter is sent. 404 APPLICATION_NOT_FOUND; 409 \
                         NOT_PENDING.",
                    )
                    .tag("internal")
            }),
        )
        .api_route(
            "/api/internal/analyst/actions/invitations/{id}/research",
            post_with(research, |op| {
                op.summary("What the service knows about an applicant, stored as a note on the request")
                    .description("Action token only. 404 APPLICATION_NOT_FOUND.")
                    .tag("internal")
            }),
        )
        .api_route(
            "/api/internal/analyst/actions/recordings/{id}/summarize",
            post_with(summarize, |op| {
                op.summary("The AI reader's summary of a replay evidence, stored with it")
                    .description(
                        "Action token only. {focusArea} required (400 FOCUS_AREA_REQUIRED, TOO_LONG). 404 \
                         EVIDENCE_NOT_FOUND; 502 AI_FAILED; 503 AI_NOT_CONFIGURED.",
                    )
                    .tag("internal")
            }),
        )
}
