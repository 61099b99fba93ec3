//! `GET /api/toolkit/admin/overview`: the platform's figures (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::Overview;

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn overview(State(state): State<AppState>, AdminAuth(admin): AdminAuth) -> Result<ApiJson<Overview>, AppError> {
    Ok(ApiJson(state.studio.admin().overview(&admin).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/overview",
        get_with(overview, |op| {
            op.summary("Platform figures")
                .description(
                    "Admin only. Houses, people, live assets, develops by status (today since UTC midnight, 7 and 30 \
                     days), tokens granted, bought, spent, expired, held and spendable, and paid revenue.",
                )
                .tag("admin")
        }),
    )
}
