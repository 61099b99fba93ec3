//! Packs: `POST /api/toolkit/assets/pack` and `/api/toolkit/packs/{id}[/file]`.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{Pack, PackRequest};

use crate::auth::Auth;
use crate::docs::bytes_response;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one pack.
#[derive(Debug, Deserialize, JsonSchema)]
struct PackId {
    /// The pack's id.
    id: String,
}

/// 200 when the archive was built inside the request, 202 when it is queued.
struct PackCreated(Pack);

impl IntoResponse for PackCreated {
    fn into_response(self) -> Response {
        let status = if self.0.status == "ready" { StatusCode::OK } else { StatusCode::ACCEPTED };
        (status, axum::Json(self.0)).into_response()
    }
}

impl aide::OperationOutput for PackCreated {
    type Inner = Pack;

    fn operation_response(
        ctx: &mut aide::generate::GenContext,
        operation: &mut aide::openapi::Operation,
    ) -> Option<aide::openapi::Response> {
        <axum::Json<Pack> as aide::OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(
        ctx: &mut aide::generate::GenContext,
        operation: &mut aide::openapi::Operation,
    ) -> Vec<(Option<aide::openapi::StatusCode>, aide::openapi::Response)> {
        let Some(res) = Self::operation_response(ctx, operation) else { return Vec::new() };
        vec![
            (Some(aide::openapi::StatusCode::Code(200)), res.clone()),
            (Some(aide::openapi::StatusCode::Code(202)), res),
        ]
    }
}

async fn create_pack(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<PackRequest>,
) -> Result<PackCreated, AppError> {
    Ok(PackCreated(state.studio.library().create_pack(&caller, req).await?))
}

async fn get_pack(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<PackId>,
) -> Result<ApiJson<Pack>, AppError> {
    Ok(ApiJson(state.studio.library().get_pack(&caller, &studio_core::PackId::from(&path.id)).await?))
}

/// `bytes=START-[END]` (one range); anything else is served whole.
fn parse_range(headers: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let value = headers.get(header::RANGE)?.to_str().ok()?;
    let spec = value.strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (start, end) = spec.split_once('-')?;
    let start = start.trim().parse().ok()?;
    let end = match end.trim() {
        "" => None,
        e => Some(e.parse().ok()?),
    };
    Some((start, end))
}

async fn get_pack_file(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<PackId>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let file =
        state.studio.library().pack_file(&caller, &studio_core::PackId::from(&path.id), parse_range(&headers)).await?;
    let length = file.reader.size;
    let mut res = Response::new(Body::from_stream(file.reader.stream));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/zip"));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-transform"));
    let disposition = format!("attachment; filename=\"{}\"", file.filename.replace(['"', '\\'], "_"));
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    if let Some((start, end)) = file.range {
        *res.status_mut() = StatusCode::PARTIAL_CONTENT;
        if let Ok(v) = HeaderValue::from_str(&format!("bytes {start}-{end}/{}", file.size)) {
            res.headers_mut().insert(header::CONTENT_RANGE, v);
        }
    }
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/assets/pack",
            post_with(create_pack, |op| {
                op.summary("Pack frames into a zip (free)")
                    .description(
                        "Under 250 frames and 256 MiB: built now, 200 `status: ready`. Larger: 202 `mode: pack, status: queued`, \
                         then `pack.ready` on the house's event bus. Above 700 frames or 4 GiB: 413 PACK_TOO_LARGE with frames \
                         and max. 404 when none of the assets is this house's. sizes add resized renditions.",
                    )
                    .tag("library")
            }),
        )
        .api_route("/api/toolkit/packs/{id}", get_with(get_pack, |op| op.summary("A pack's state").tag("library")))
        .api_route(
            "/api/toolkit/packs/{id}/file",
            get_with(get_pack_file, |op| {
                let op = op
                    .summary("The archive, streamed")
                    .description(
                        "Content-Length and single byte ranges (206). 409 PACK_NOT_READY while building, \
                         404 PACK_EXPIRED after 7 days.",
                    )
                    .tag("library");
                let op = bytes_response::<200>(op, "The whole archive", &["application/zip"]);
                bytes_response::<206>(op, "The requested byte range (Content-Range)", &["application/zip"])
            }),
        )
}
