//! `GET /api/toolkit/admin/users`: find people, a page at a time.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{UserPage, UsersQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn users(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<UsersQuery>,
) -> Result<ApiJson<UserPage>, AppError> {
    Ok(ApiJson(state.studio.admin().users(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/users",
        get_with(users, |op| {
            op.summary("People, newest first")
                .description(
                    "Admin only. `q` matches part of an email or name; `limit` 1 to 200 (default 50); `cursor` is \
                     the previous page's `nextCursor`. 400 BAD_LIMIT, BAD_CURSOR.",
                )
                .tag("admin")
        }),
    )
}
