//! `/api/toolkit/admin/experiments...`: the platform's experiments: list, create, move status.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{Experiment, ExperimentCreate, ExperimentList, ExperimentPatch, ExperimentsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one experiment.
#[derive(Debug, Deserialize, JsonSchema)]
struct ExperimentId {
    /// The experiment's id (`exp_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(q): ApiQuery<ExperimentsQuery>,
) -> Result<ApiJson<ExperimentList>, AppError> {
    Ok(ApiJson(state.studio.internal().experiments(&admin, q).await?))
}

async fn create(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<ExperimentCreate>,
) -> Result<Created<Experiment>, AppError> {
    Ok(Created(state.studio.internal().create_experiment(&admin, body).await?))
}

async fn patch(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(ExperimentId { id }): ApiPath<ExperimentId>,
    ApiJson(body): ApiJson<ExperimentPatch>,
) -> Result<ApiJson<Experiment>, AppError> {
    Ok(ApiJson(state.studio.internal().patch_experiment(&admin, &studio_core::ExperimentId::from(&id), body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/experiments",
            get_with(list, |op| {
                op.summary("The experiments, newest first, paged")
                    .description(
                        "Admin session only. `limit`, `status`, `experimentId`, `before` as the analyst's read.",
                    )
                    .tag("admin")
            })
            .post_with(create, |op| {
                op.summary("Create an experiment (a draft)")
                    .description(
                        "Admin session only. {key, name, description, variants}. 400 BAD_KEY, NAME_REQUIRED, \
                         TOO_LONG, BAD_VARIANTS; 409 EXPERIMENT_KEY_TAKEN.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/experiments/{id}",
            patch_with(patch, |op| {
                op.summary("Move an experiment's status")
                    .description(
                        "Admin session only. {status}: draft → running or stopped; running → paused, \
                         exposure_frozen, stopped or complete; paused → running or stopped; exposure_frozen → \
                         running, stopped or complete. 400 STATUS_REQUIRED, BAD_STATUS; 404 EXPERIMENT_NOT_FOUND; \
                         409 BAD_TRANSITION.",
                    )
                    .tag("admin")
            }),
        )
}
