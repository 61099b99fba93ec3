//! `/api/toolkit/develops/...`: derived runs and run cancel.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::{Query, State};
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::Error;
use studio_core::api::{RunCancelResponse, RunList, RunsQuery};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one run.
#[derive(Debug, Deserialize, JsonSchema)]
struct RunId {
    /// `run.<id>` or `look.<lookId>.<stage>`.
    id: String,
}

async fn list_runs(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: Result<Query<RunsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<ApiJson<RunList>, AppError> {
    let Query(query) = query.map_err(|e| Error::invalid("BAD_STATE", e.body_text()))?;
    Ok(ApiJson(state.studio.develops().list_runs(&caller, query).await?))
}

async fn cancel_run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<RunId>,
) -> Result<ApiJson<RunCancelResponse>, AppError> {
    Ok(ApiJson(state.studio.develops().cancel_run(&caller, &path.id).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/develops",
            get_with(list_runs, |op| {
                op.summary("Develop runs, newest first (state=active|all, limit 1-100, default 20)")
                    .description("Frames grouped by params.runId, else lookbook batch, else the same tool within 10 minutes. 400 BAD_STATE, BAD_LIMIT.")
                    .tag("develops")
            }),
        )
        .api_route(
            "/api/toolkit/develops/{id}/cancel",
            post_with(cancel_run, |op| {
                op.summary("Cancel a run's queued frames (released); rendering frames finish and cost")
                    .description("404 for an unknown, foreign or aged-out run (30 days).")
                    .tag("develops")
            }),
        )
}
