//! `GET /api/toolkit/entitlements`: what the house holds and its open checkouts (§4.7).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::Entitlements;

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn entitlements(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<Entitlements>, AppError> {
    Ok(ApiJson(state.studio.models().entitlements(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/entitlements",
        get_with(entitlements, |op| {
            op.summary("What the house holds and its open checkouts")
                .description("Holdings are granted only; open checkouts are pending and unexpired.")
                .tag("models")
        }),
    )
}
