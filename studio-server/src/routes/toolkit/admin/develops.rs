//! `/api/toolkit/admin/develops`: every house's develops, and `develops/action` (retry or
//! cancel through the develops' own paths) (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{AdminDevelopPage, AdminDevelopsQuery, DevelopActionRequest, DevelopActionResult};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<AdminDevelopsQuery>,
) -> Result<ApiJson<AdminDevelopPage>, AppError> {
    Ok(ApiJson(state.studio.admin().develops(&admin, query).await?))
}

async fn action(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<DevelopActionRequest>,
) -> Result<ApiJson<DevelopActionResult>, AppError> {
    Ok(ApiJson(state.studio.admin().develop_action(&admin, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/develops",
            get_with(list, |op| {
                op.summary("Develops of every house, newest first")
                    .description(
                        "Admin only. Filters `house`, `tool`, `status` (queued, running, done, failed, cancelled), \
                         `since` days (1 to 366); `limit` 1 to 200 (default 50), `cursor`. 400 BAD_STATUS, BAD_SINCE, \
                         BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/develops/action",
            post_with(action, |op| {
                op.summary("Retry or cancel a develop")
                    .description(
                        "Admin only. `cancel`: a queued develop through the house's own cancel (its hold released \
                         once). `retry`: a failed or cancelled develop developed again for the same house (today's \
                         price, a new hold; 402 INSUFFICIENT_TOKENS when the house cannot pay). 404 NOT_FOUND; 409 \
                         JOB_NOT_CANCELLABLE or JOB_NOT_RETRYABLE; 422 when the inputs are gone.",
                    )
                    .tag("admin")
            }),
        )
}
