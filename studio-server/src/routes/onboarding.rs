//! `/api/onboarding`: the onboarding steps and completing one (§4.15).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::OnboardingView;

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct StepPath {
    /// The step's key.
    step: String,
}

async fn read(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<OnboardingView>, AppError> {
    Ok(ApiJson(state.studio.accounts().onboarding(&caller).await?))
}

async fn complete(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(StepPath { step }): ApiPath<StepPath>,
) -> Result<ApiJson<OnboardingView>, AppError> {
    Ok(ApiJson(state.studio.accounts().complete_onboarding_step(&caller, &step).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/onboarding",
            get_with(read, |op| op.summary("The onboarding steps and the caller's progress").tag("account")),
        )
        .api_route(
            "/api/onboarding/steps/{step}/complete",
            post_with(complete, |op| {
                op.summary("Complete an onboarding step")
                    .description("Idempotent: the first completion time is kept. 404 UNKNOWN_STEP lists the steps.")
                    .tag("account")
            }),
        )
}
