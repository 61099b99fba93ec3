//! `POST /api/toolkit/admin/access`: open or close a toolkit or a tool for a person or address.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{AccessChanged, AccessRequest};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn access(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<AccessRequest>,
) -> Result<ApiJson<AccessChanged>, AppError> {
    Ok(ApiJson(state.studio.admin().access(&admin, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/access",
        post_with(access, |op| {
            op.summary("Grant or revoke a toolkit or tool")
                .description(
                    "Admin only. `action` grant_toolkit, revoke_toolkit, grant_tool or revoke_tool; the person by \
                     `userId` or `email` (an address not signed up yet gets it at sign-up). 400 TARGET_REQUIRED, \
                     UNKNOWN_TOOLKIT, UNKNOWN_TOOL; 404 USER_NOT_FOUND. `count` is how many grants changed.",
                )
                .tag("admin")
        }),
    )
}
