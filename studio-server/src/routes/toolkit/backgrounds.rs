//! `/api/toolkit/backgrounds/...`: the built-in plain grounds with their swatches, and the
//! house's scenes.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::Error;
use studio_core::api::{Backgrounds, BackgroundsQuery};

use crate::auth::Auth;
use crate::docs::bytes_response;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one built-in ground.
#[derive(Debug, Deserialize, JsonSchema)]
struct GroundId {
    /// The ground's id, e.g. `white`.
    id: String,
}

async fn get_backgrounds(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: Result<Query<BackgroundsQuery>, QueryRejection>,
) -> Result<ApiJson<Backgrounds>, AppError> {
    let Query(query) = query.map_err(|e| Error::invalid("BAD_LIMIT", e.body_text()))?;
    Ok(ApiJson(state.studio.library().backgrounds(&caller, query).await?))
}

async fn get_ground_preview(
    State(state): State<AppState>,
    ApiPath(path): ApiPath<GroundId>,
) -> Result<Response, AppError> {
    let png = state.studio.library().ground_preview(&path.id)?;
    let mut res = Response::new(Body::from(png));
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/backgrounds",
            get_with(get_backgrounds, |op| {
                op.summary("Built-in plain grounds and a page of the house's scenes")
                    .description("Scenes newest first, `limit` 1-200 (default 200); `nextCursor` while more follow. 400 BAD_LIMIT, BAD_CURSOR.")
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/backgrounds/{id}/preview",
            get_with(get_ground_preview, |op| {
                bytes_response::<200>(
                    op.summary("A built-in ground's swatch (PNG)").tag("library"),
                    "The swatch",
                    &["image/png"],
                )
            }),
        )
}
