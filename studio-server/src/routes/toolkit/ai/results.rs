//! `GET /api/toolkit/ai/results/{id}`: a lane's unkept result (a depth map, a segment cutout)
//! by its signed link alone; the signature scoped to the one result is the authority.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::docs::bytes_response;
use crate::error::AppError;
use crate::extract::{ApiPath, ApiQuery};
use crate::state::AppState;

/// Path of one result.
#[derive(Debug, Deserialize, JsonSchema)]
struct ResultId {
    /// The result's id (`lres_…`).
    id: String,
}

/// The signed link's query.
#[derive(Debug, Deserialize, JsonSchema)]
struct Signed {
    /// Expiry, Unix seconds.
    e: i64,
    /// The signature.
    s: String,
}

async fn get_result(
    State(state): State<AppState>,
    ApiPath(path): ApiPath<ResultId>,
    ApiQuery(query): ApiQuery<Signed>,
) -> Result<Response, AppError> {
    let (png, left) =
        state.studio.ai().lane_result_file(&studio_core::LaneResultId::from(&path.id), query.e, &query.s).await?;
    let mut res = Response::new(Body::from(png));
    res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    let cache = HeaderValue::from_str(&format!("private, max-age={left}")).map_err(studio_core::Error::internal)?;
    res.headers_mut().insert(header::CACHE_CONTROL, cache);
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/ai/results/{id}",
        get_with(get_result, |op| {
            bytes_response::<200>(
                op.summary("A lane's result by its signed link (PNG)")
                    .description(
                        "No session: the link's signature (query `e` expiry, `s` signature, scoped to this one \
                         result) is the authority. Links live 15 minutes; an expired result is swept. Codes: 400 \
                         BAD_QUERY; 403 BAD_SIGNATURE; 404 NOT_FOUND (swept); 410 LINK_EXPIRED.",
                    )
                    .tag("ai"),
                "The result",
                &["image/png"],
            )
        }),
    )
}
