//! `/api/toolkit/admin/tool-items`: list, add and remove the items of a tool's library.

use aide::axum::ApiRouter;
use aide::axum::routing::{delete_with, get_with};
use axum::extract::State;
use studio_core::api::{ToolItem, ToolItemDeleted, ToolItemRequest, ToolItems, ToolItemsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The item's id.
    id: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<ToolItemsQuery>,
) -> Result<ApiJson<ToolItems>, AppError> {
    Ok(ApiJson(state.studio.admin().tool_items(&admin, query.tool_id.as_deref()).await?))
}

async fn add(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<ToolItemRequest>,
) -> Result<Created<ToolItem>, AppError> {
    Ok(Created(state.studio.admin().add_tool_item(&admin, req).await?))
}

async fn remove(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<ToolItemDeleted>, AppError> {
    Ok(ApiJson(state.studio.admin().delete_tool_item(&admin, &studio_core::ToolItemId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/tool-items",
            get_with(list, |op| {
                op.summary("A tool's items")
                    .description("Admin only. `toolId` names the tool: 400 TOOL_REQUIRED; 404 TOOL_NOT_FOUND.")
                    .tag("admin")
            })
            .post_with(add, |op| {
                op.summary("Add an item to a tool's library")
                    .description("Admin only. 201. 400 BAD_CATEGORY, EMPTY_ITEM, FIELD_TOO_LONG; 404 TOOL_NOT_FOUND.")
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/tool-items/{id}",
            delete_with(remove, |op| {
                op.summary("Remove a tool item").description("Admin only. 404 ITEM_NOT_FOUND.").tag("admin")
            }),
        )
}
