//! `/api/toolkit/takes`: take landed frames again, every frame held before any is queued.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{TakesRequest, TakesResponse};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::respond::Accepted;
use crate::state::AppState;

async fn take_again(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<TakesRequest>,
) -> Result<Accepted<TakesResponse>, AppError> {
    let (response, replayed) = state.studio.develops().take_again(&caller, req).await?;
    Ok(Accepted(response, replayed))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/takes",
            post_with(take_again, |op| {
                op.summary("Take landed frames again, optionally with a direction")
                    .description("Every frame is held before any is queued; any refusal holds nothing. 202 new, 200 replay (same idempotencyKey and frames). 402; 403; 404; 409 NOT_DEVELOPED or IDEMPOTENCY_KEY_REUSED; 422.")
                    .tag("develops")
            }),
        )
}
