//! `/api/toolkit/ai/billing/...`: the token balance.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::Balance;

use crate::auth::Auth;
use crate::error::{ApiJson, AppError};
use crate::state::AppState;

async fn get_balance(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<Balance>, AppError> {
    Ok(ApiJson(state.studio.balance(&caller).await?))
}

pub(in crate::routes) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/ai/billing/balance",
        get_with(get_balance, |op| op.summary("The house's token balance and open holds").tag("billing")),
    )
}
