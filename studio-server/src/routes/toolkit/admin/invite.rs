//! `POST /api/toolkit/admin/invite`: an admin invites an address to the platform.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{AdminInviteRequest, AdminInviteResponse};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn invite(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<AdminInviteRequest>,
) -> Result<ApiJson<AdminInviteResponse>, AppError> {
    let invited = state.studio.accounts().invitations().admin_invite(&admin, req).await?;
    Ok(ApiJson(invited.answer))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/invite",
        post_with(invite, |op| {
            op.summary("Invite an address to the platform")
                .description(
                    "Admin session only (403 otherwise). `status` is `invited`, `reissued` (the pending invitation \
                     has this new token; the old link stops working) or `accepted` (token and url null). The token \
                     is shown once. 400 `EMAIL_REQUIRED`, `BAD_EMAIL`.",
                )
                .tag("admin")
        }),
    )
}
