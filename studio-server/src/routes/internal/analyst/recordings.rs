//! `/api/internal/analyst/recordings...`: replay evidence with its figures, and one
//! evidence's computed analysis (analyst token).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{EvidenceQuery, RecordingAnalysis, Recordings};

use crate::auth::{Analyst, MachineAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// Path of one evidence.
#[derive(Debug, Deserialize, JsonSchema)]
struct EvidenceId {
    /// The evidence's id (`rev_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiQuery(q): ApiQuery<EvidenceQuery>,
) -> Result<ApiJson<Recordings>, AppError> {
    Ok(ApiJson(state.studio.internal().recordings(&m, q).await?))
}

async fn analysis(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiPath(EvidenceId { id }): ApiPath<EvidenceId>,
) -> Result<ApiJson<RecordingAnalysis>, AppError> {
    Ok(ApiJson(state.studio.internal().analysis(&m, &studio_core::EvidenceId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/internal/analyst/recordings",
            get_with(list, |op| {
                op.summary("Replay evidence opened in the window, with figures")
                    .description(
                        "Analyst token only. `hours` (default 168, clamped 1-2160), `limit` (default 50, 1-200).",
                    )
                    .tag("internal")
            }),
        )
        .api_route(
            "/api/internal/analyst/recordings/{id}/analysis",
            get_with(analysis, |op| {
                op.summary("One evidence's durations, cost, retries and verdict")
                    .description("Analyst token only. 404 EVIDENCE_NOT_FOUND.")
                    .tag("internal")
            }),
        )
}
