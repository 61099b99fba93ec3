//! `GET /api/toolkit/admin/failures`: Failed develops grouped by tool and error code (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{FailurePage, FailuresQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn failures(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<FailuresQuery>,
) -> Result<ApiJson<FailurePage>, AppError> {
    Ok(ApiJson(state.studio.admin().failures(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/failures",
        get_with(failures, |op| {
            op.summary("Failed develops grouped by tool and error code")
                .description("Admin only. `since` days (default 30), `limit` groups per page 1 to 200 (default 50), `cursor` the previous page's nextCursor. Each group carries up to five newest examples. 400 BAD_SINCE, BAD_LIMIT, BAD_CURSOR.")
                .tag("admin")
        }),
    )
}
