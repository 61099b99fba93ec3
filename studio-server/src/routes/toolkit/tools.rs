//! `GET /api/toolkit/tools/{slug}/items`: a tool's library of items.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::ToolItems;

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct SlugPath {
    /// The tool's slug.
    slug: String,
}

async fn items(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(SlugPath { slug }): ApiPath<SlugPath>,
) -> Result<ApiJson<ToolItems>, AppError> {
    Ok(ApiJson(state.studio.accounts().tool_items(&caller, &slug).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/tools/{slug}/items",
        get_with(items, |op| {
            op.summary("A tool's items, per category by sort order")
                .description("404 TOOL_NOT_FOUND; 403 TOOL_LOCKED for a tool the caller may not open.")
                .tag("account")
        }),
    )
}
