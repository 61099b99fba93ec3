//! `GET /api/toolkit/admin/onboarding`: how far people get through onboarding.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::OnboardingFunnel;

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn funnel(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
) -> Result<ApiJson<OnboardingFunnel>, AppError> {
    Ok(ApiJson(state.studio.admin().onboarding(&admin).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/onboarding",
        get_with(funnel, |op| {
            op.summary("The onboarding funnel")
                .description("Admin only. People signed up, and per step in order how many completed it.")
                .tag("admin")
        }),
    )
}
