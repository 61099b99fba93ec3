//! `GET /api/toolkit/my-access`: the tool catalogue with the caller's access and trial window.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::MyAccess;

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn my_access(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<MyAccess>, AppError> {
    Ok(ApiJson(state.studio.accounts().my_access(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/my-access",
        get_with(my_access, |op| {
            op.summary("Which toolkits and tools the caller may open")
                .description(
                    "Open during the trial window after sign-up, while the house pays for a plan, or by an \
                     admin's grant of the tool or its toolkit (docs/access.md).",
                )
                .tag("account")
        }),
    )
}
