//! `/api/toolkit/folders`: the library's collections.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{CreateFolderRequest, FolderDeleted, FolderList, FolderResponse, RenameFolderRequest};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one collection.
#[derive(Debug, Deserialize, JsonSchema)]
struct FolderId {
    /// The collection's id.
    id: String,
}

async fn list_folders(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<FolderList>, AppError> {
    Ok(ApiJson(state.studio.library().list_folders(&caller).await?))
}

async fn create_folder(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<CreateFolderRequest>,
) -> Result<Created<FolderResponse>, AppError> {
    Ok(Created(state.studio.library().create_folder(&caller, req).await?))
}

async fn rename_folder(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<FolderId>,
    ApiJson(req): ApiJson<RenameFolderRequest>,
) -> Result<ApiJson<FolderResponse>, AppError> {
    Ok(ApiJson(state.studio.library().rename_folder(&caller, &studio_core::FolderId::from(&path.id), req).await?))
}

async fn delete_folder(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<FolderId>,
) -> Result<ApiJson<FolderDeleted>, AppError> {
    Ok(ApiJson(state.studio.library().delete_folder(&caller, &studio_core::FolderId::from(&path.id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/folders",
            get_with(list_folders, |op| op.summary("Every collection of the house, oldest first").tag("library"))
                .post_with(create_folder, |op| {
                    op.summary("Create a collection")
                        .description(
                            "201 `{folder}`. 400 BAD_BODY, NAME_REQUIRED; 404 when parentId is not this house's.",
                        )
                        .tag("library")
                }),
        )
        .api_route(
            "/api/toolkit/folders/{id}",
            patch_with(rename_folder, |op| {
                op.summary("Rename a collection")
                    .description("An empty or unchanged name is a 200 no-op. 400 BAD_BODY; 404.")
                    .tag("library")
            })
            .delete_with(delete_folder, |op| {
                op.summary("Delete a collection; nothing in it is lost")
                    .description(
                        "`{id, deleted, movedAssets, movedFolders}`: its images and sub-collections move up to its \
                         parent (the root when it had none) and the marks registered for it go. Not for viewers \
                         (403); 404 when not this house's.",
                    )
                    .tag("library")
            }),
        )
}
