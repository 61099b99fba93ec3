//! `GET /api/internal/analyst/assets/{id}/preview`: any asset's thumbnail (analyst token).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::auth::{Analyst, MachineAuth};
use crate::docs::bytes_response;
use crate::error::AppError;
use crate::extract::ApiPath;
use crate::state::AppState;

/// Path of one asset.
#[derive(Debug, Deserialize, JsonSchema)]
struct AssetId {
    /// The asset's id.
    id: String,
}

async fn preview(
    State(state): State<AppState>,
    MachineAuth(m, _): MachineAuth<Analyst>,
    ApiPath(AssetId { id }): ApiPath<AssetId>,
) -> Result<Response, AppError> {
    let jpeg = state.studio.internal().asset_preview(&m, &studio_core::AssetId::from(&id)).await?;
    let mut res = Response::new(Body::from(jpeg));
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("image/jpeg"));
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/internal/analyst/assets/{id}/preview",
        get_with(preview, |op| {
            bytes_response::<200>(
                op.summary("A JPEG thumbnail of any live asset (256 px a side at most)")
                    .description("Analyst token only. 404 ASSET_NOT_FOUND.")
                    .tag("internal"),
                "The thumbnail",
                &["image/jpeg"],
            )
        }),
    )
}
