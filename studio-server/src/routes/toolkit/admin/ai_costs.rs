//! `GET /api/toolkit/admin/ai-costs`: Tokens settled and provider cost, by tool and by day (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{AiCosts, SinceQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn ai_costs(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<SinceQuery>,
) -> Result<ApiJson<AiCosts>, AppError> {
    Ok(ApiJson(state.studio.admin().ai_costs(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/ai-costs",
        get_with(ai_costs, |op| {
            op.summary("Tokens settled and provider cost, by tool and by day")
                .description("Admin only (403 otherwise). `since` days back, 1 to 366 (default 30); 400 BAD_SINCE. Tokens are the settled holds of the window; cost_usd sums the provider cost records (the documented estimate where the provider reports none, flagged `estimated`).")
                .tag("admin")
        }),
    )
}
