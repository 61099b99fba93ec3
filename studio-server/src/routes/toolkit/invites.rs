//! `/api/toolkit/invites/...`: a person's own invite code (`02-route-groups.md` §4.10).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::InvitesMine;

use crate::auth::SessionAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn my_invites(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
) -> Result<ApiJson<InvitesMine>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().mine(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/invites/mine",
        get_with(my_invites, |op| {
            op.summary("The signed-in person's own invite code and its invitees")
                .description(
                    "Session only (a key is 403 `SESSION_REQUIRED`). Mints the code on first read. Also pays the \
                     person's house for invitees whose subscription stood `holdDays`, once each.",
                )
                .tag("invitations")
        }),
    )
}
