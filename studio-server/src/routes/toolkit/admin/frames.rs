//! `/api/toolkit/admin/frames`: every house's frames, and a frame's bytes (admin console,
//! §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use axum::response::Response;
use studio_core::api::{AdminFramePage, FramesQuery};

use crate::auth::AdminAuth;
use crate::docs::{IMAGE_TYPES, bytes_response};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The frame (asset) id.
    id: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<FramesQuery>,
) -> Result<ApiJson<AdminFramePage>, AppError> {
    Ok(ApiJson(state.studio.admin().frames(&admin, query).await?))
}

async fn file(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<Response, AppError> {
    Ok(super::super::assets::file_response(
        state.studio.admin().frame_file(&admin, &studio_core::AssetId::from(&id)).await?,
    ))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/frames",
            get_with(list, |op| {
                op.summary("Frames of every house, newest first")
                    .description(
                        "Admin only. Live frames; filters `house`, `tool`, `age` (at most that many days old, 1 to \
                         3650), `origin` (`made`: a develop's output; `brought`: uploaded); `limit` 1 to 200, \
                         `cursor`. 400 BAD_ORIGIN, BAD_AGE, BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/frames/{id}/file",
            get_with(file, |op| {
                let op = op
                    .summary("A frame's bytes, whatever its house")
                    .description("Admin only. 404 NOT_FOUND for an unknown or deleted frame.")
                    .tag("admin");
                bytes_response::<200>(op, "The bytes, as the type sniffed at upload", &IMAGE_TYPES)
            }),
        )
}
