//! `GET /health`: liveness, including a storage round trip.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

/// Liveness answer.
#[derive(Debug, Serialize, JsonSchema)]
struct Health {
    /// Always `ok` when the server and its storage answer.
    status: &'static str,
    /// `sqlite` or `postgres`.
    storage: &'static str,
}

async fn get_health(State(state): State<AppState>) -> Result<ApiJson<Health>, AppError> {
    Ok(ApiJson(Health { status: "ok", storage: state.studio.health().await? }))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route("/health", get_with(get_health, |op| op.summary("Liveness check").tag("meta")))
}
