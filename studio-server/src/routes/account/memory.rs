//! `/api/account/memory...`: the house's and the person's memories (§2.8, §4.8).

use aide::axum::ApiRouter;
use aide::axum::routing::{delete_with, get_with};
use axum::extract::State;
use studio_core::MemoryId;
use studio_core::api::{Memory, MemoryList, MemoryRequest};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::CreatedOrAmended;
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The memory's id.
    id: String,
}

async fn list(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<MemoryList>, AppError> {
    Ok(ApiJson(state.studio.accounts().memories(&caller).await?))
}

async fn write(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<MemoryRequest>,
) -> Result<CreatedOrAmended<Memory>, AppError> {
    let (memory, corrected) = state.studio.accounts().remember(&caller, req).await?;
    Ok(CreatedOrAmended(memory, corrected))
}

async fn retire(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<Memory>, AppError> {
    Ok(ApiJson(state.studio.accounts().retire_memory(&caller, &MemoryId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/account/memory",
            get_with(list, |op| {
                op.summary("Memories: the house's plus the caller's own personal ones")
                    .description("Newest first; corrected and retired memories stay listed with their status.")
                    .tag("account")
            })
            .post_with(write, |op| {
                op.summary("Remember a statement, or correct one")
                    .description(
                        "201 for a new memory; 200 when `replacesMemoryId` corrects an active memory of the same \
                         scope (the predecessor is kept, marked corrected). 400 BAD_STATEMENT, BAD_CONFIDENCE; \
                         403 for a viewer; 404 MEMORY_NOT_FOUND when the predecessor is not active in that scope.",
                    )
                    .tag("account")
            }),
        )
        .api_route(
            "/api/account/memory/{id}",
            delete_with(retire, |op| {
                op.summary("Retire a memory")
                    .description("History is kept (status retired). 403 for a viewer; 404 MEMORY_NOT_FOUND.")
                    .tag("account")
            }),
        )
}
