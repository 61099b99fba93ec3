//! `/api/toolkit/org/...`: the house's seats (in `seats.rs`) and handing the house over (§4.9).

mod seats;

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{TransferRequest, Transferred};

use crate::auth::SessionAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn transfer(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<TransferRequest>,
) -> Result<ApiJson<Transferred>, AppError> {
    Ok(ApiJson(state.studio.accounts().transfer_house(&caller, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/org/transfer",
            post_with(transfer, |op| {
                op.summary("Hand the house to another seat")
                    .description(
                        "The owner's session only (403). The outgoing owner becomes admin in the same write, so \
                         the house always has exactly one owner. 400 ALREADY_OWNER; 404 SEAT_NOT_FOUND; 409 \
                         OWNERSHIP_CHANGED when the seats changed meanwhile.",
                    )
                    .tag("seats")
            }),
        )
        .merge(seats::router())
}
