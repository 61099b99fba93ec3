//! `GET /api/toolkit/admin/invite-requests`: the requests to be let in.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::InviteRequestList;

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn list_requests(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
) -> Result<ApiJson<InviteRequestList>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().admin_requests(&admin).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/invite-requests",
        get_with(list_requests, |op| {
            op.summary("Every request to be let in, newest first")
                .description(
                    "Admin session only. `status` is `pending`, or `invited` once the address has an invitation.",
                )
                .tag("admin")
        }),
    )
}
