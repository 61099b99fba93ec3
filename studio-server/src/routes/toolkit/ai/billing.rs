//! `/api/toolkit/ai/billing/...`: the token balance and the price book.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{Balance, PriceBook};

use crate::auth::Auth;
use crate::error::{ApiJson, AppError};
use crate::state::AppState;

async fn get_balance(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<Balance>, AppError> {
    Ok(ApiJson(state.studio.balance(&caller).await?))
}

async fn get_prices(State(state): State<AppState>, Auth(_caller): Auth) -> ApiJson<PriceBook> {
    ApiJson(state.studio.price_book(&state.studio.runnable_tools()))
}

pub(in crate::routes) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/ai/billing/balance",
            get_with(get_balance, |op| op.summary("The house's token balance and open holds").tag("billing")),
        )
        .api_route(
            "/api/toolkit/ai/billing/prices",
            get_with(get_prices, |op| {
                op.summary("The live price book: exactly the tools this deployment runs, per quality")
                    .description("The same book the agent endpoint's list_capabilities returns (spec §2.8).")
                    .tag("billing")
            }),
        )
}
