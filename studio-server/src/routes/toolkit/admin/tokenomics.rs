//! `GET /api/toolkit/admin/tokenomics`: Tokens granted, bought, spent and expired over time (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{Tokenomics, TokenomicsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn tokenomics(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<TokenomicsQuery>,
) -> Result<ApiJson<Tokenomics>, AppError> {
    Ok(ApiJson(state.studio.admin().tokenomics(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/tokenomics",
        get_with(tokenomics, |op| {
            op.summary("Tokens granted, bought, spent and expired over time")
                .description("Admin only. From the ledger: `bucket` day, week (from Monday) or month (default day), `since` days 1 to 366 (default 30). 400 BAD_BUCKET, BAD_SINCE.")
                .tag("admin")
        }),
    )
}
