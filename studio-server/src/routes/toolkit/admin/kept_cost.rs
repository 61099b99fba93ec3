//! `GET /api/toolkit/admin/kept-cost`: Tokens spent on frames kept against frames deleted, by tool (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{KeptCost, SinceQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn kept_cost(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<SinceQuery>,
) -> Result<ApiJson<KeptCost>, AppError> {
    Ok(ApiJson(state.studio.admin().kept_cost(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/kept-cost",
        get_with(kept_cost, |op| {
            op.summary("Tokens spent on frames kept against frames deleted, by tool")
                .description("Admin only. Develops that landed in the last `since` days (1 to 366, default 30): the tokens settled for frames still in a library against those of frames since deleted. 400 BAD_SINCE.")
                .tag("admin")
        }),
    )
}
