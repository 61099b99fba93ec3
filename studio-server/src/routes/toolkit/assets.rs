//! `/api/toolkit/assets/...`: the library's images — list, upload (streamed multipart), the
//! file routes and batch delete.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with};
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Multipart, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::TryStreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{
    AssetBatchPatch, AssetDetail, AssetIds, AssetList, AssetPatch, AssetQuery, AssetResponse, Deleted, GroupRequest,
    GroupResponse, ProvenanceReport, Quote, QuoteRequest, Updated, UploadResponse,
};
use studio_core::{AssetFile, Error, UploadForm};

use crate::auth::Auth;
use crate::docs::{IMAGE_TYPES, bytes_response};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::{Created, JsonBytes};
use crate::state::AppState;

use super::{bad_form, read_rest, text_field};

/// Path of one asset.
#[derive(Debug, Deserialize, JsonSchema)]
struct AssetId {
    /// The asset's id.
    id: String,
}

/// The most an upload request may send: the 12 MB image, its form fields and generous slack,
/// so an oversized image is read to its end and refused with 413 rather than cut off.
const UPLOAD_BODY_LIMIT: usize = 48 * 1024 * 1024;

/// The largest text field of an upload form.
const MAX_FIELD_BYTES: usize = 4 * 1024;

async fn list_assets(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Query(query): Query<AssetQuery>,
) -> Result<JsonBytes<AssetList>, AppError> {
    Ok(JsonBytes::new(state.studio.library().list_assets_json(&caller, query).await?))
}

/// Stream the `file` part into the blob store as it arrives; collect the text fields around it.
async fn upload_asset(
    State(state): State<AppState>,
    Auth(caller): Auth,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<Created<UploadResponse>, AppError> {
    let mut multipart = multipart.map_err(bad_form)?;
    let mut form = UploadForm::default();
    let mut pending = None;
    let read = read_form(&state, &caller, &mut multipart, &mut form, &mut pending).await;
    if let Err(e) = read {
        // The client sees the refusal; any stored bytes are forgotten.
        read_rest(&mut multipart).await;
        if let Some(p) = pending {
            state.studio.library().abandon_upload(p).await;
        }
        return Err(e);
    }
    let Some(pending) = pending else {
        return Err(Error::invalid("NO_FILE", "Send the image in a multipart field named file.").into());
    };
    Ok(Created(state.studio.library().finish_upload(&caller, pending, form).await?))
}

/// Read every part: the file streams into the blob store, text fields fill `form`.
async fn read_form(
    state: &AppState,
    caller: &studio_core::Caller,
    multipart: &mut Multipart,
    form: &mut UploadForm,
    pending: &mut Option<studio_core::PendingUpload>,
) -> Result<(), AppError> {
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" {
            if pending.is_some() {
                return Err(Error::invalid("BAD_FORM", "Send one file per upload.").into());
            }
            form.file_name = field.file_name().map(str::to_string);
            let stream = field.map_err(|e| e.body_text());
            *pending = Some(state.studio.library().stream_upload(caller, Box::pin(stream)).await?);
            continue;
        }
        let value = text_field(field, &name, MAX_FIELD_BYTES).await?;
        match name.as_str() {
            "folderId" => form.folder_id = Some(value),
            "name" => form.name = Some(value),
            "kind" => form.kind = Some(value),
            "sku" => form.sku = Some(value),
            "classify" => form.classify = Some(value),
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn file_response(file: AssetFile) -> Response {
    match file {
        AssetFile::NotModified { etag } => {
            let mut res = StatusCode::NOT_MODIFIED.into_response();
            set_cache_headers(res.headers_mut(), &etag);
            res
        }
        AssetFile::Body { etag, mime, reader, .. } => {
            let mut res = Response::new(Body::from_stream(reader.stream));
            let headers = res.headers_mut();
            set_cache_headers(headers, &etag);
            if let Ok(v) = HeaderValue::from_str(&mime) {
                headers.insert(header::CONTENT_TYPE, v);
            }
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(reader.size));
            headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            res
        }
    }
}

fn set_cache_headers(headers: &mut HeaderMap, etag: &str) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=3600"));
    if let Ok(v) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, v);
    }
}

/// `GET /api/toolkit/assets/{id}/file?w=`.
#[derive(Deserialize, JsonSchema)]
struct FileQuery {
    /// A rendition no wider than this many pixels: 256, 512 or 1024. Without it, the original.
    w: Option<u32>,
}

async fn get_asset_file(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<AssetId>,
    ApiQuery(q): ApiQuery<FileQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let if_none_match = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    Ok(file_response(
        state
            .studio
            .library()
            .asset_rendition(&caller, &studio_core::AssetId::from(&path.id), q.w, if_none_match)
            .await?,
    ))
}

async fn get_asset_detail(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<AssetId>,
) -> Result<ApiJson<AssetDetail>, AppError> {
    Ok(ApiJson(state.studio.library().asset_detail(&caller, &studio_core::AssetId::from(&path.id)).await?))
}

async fn get_asset_provenance(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<AssetId>,
) -> Result<ApiJson<ProvenanceReport>, AppError> {
    Ok(ApiJson(state.studio.library().asset_provenance(&caller, &studio_core::AssetId::from(&path.id)).await?))
}

async fn get_asset_legacy(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<AssetId>,
) -> Result<Response, AppError> {
    Ok(file_response(state.studio.library().legacy_asset_file(&caller, &studio_core::AssetId::from(&path.id)).await?))
}

async fn delete_assets(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<AssetIds>,
) -> Result<ApiJson<Deleted>, AppError> {
    Ok(ApiJson(state.studio.library().delete_assets(&caller, req).await?))
}

async fn patch_asset(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(path): ApiPath<AssetId>,
    ApiJson(patch): ApiJson<AssetPatch>,
) -> Result<ApiJson<AssetResponse>, AppError> {
    Ok(ApiJson(state.studio.library().patch_asset(&caller, &studio_core::AssetId::from(&path.id), patch).await?))
}

async fn patch_assets_batch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<AssetBatchPatch>,
) -> Result<ApiJson<Updated>, AppError> {
    Ok(ApiJson(state.studio.library().patch_assets_batch(&caller, req).await?))
}

async fn quote_assets(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<QuoteRequest>,
) -> Result<ApiJson<Quote>, AppError> {
    Ok(ApiJson(state.studio.library().quote_assets(&caller, req).await?))
}

async fn group_assets(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<GroupRequest>,
) -> Result<Created<GroupResponse>, AppError> {
    Ok(Created(state.studio.library().group_assets(&caller, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/assets",
            get_with(list_assets, |op| {
                op.summary("A page of the house's assets, newest first; folderId narrows")
                    .description("`limit` 1-200 (default 200: no answer holds a whole large library); `nextCursor` while more follow. 400 BAD_LIMIT, BAD_CURSOR; 404 unknown folderId.")
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/upload",
            post_with(upload_asset, |op| {
                op.summary("Upload an image (multipart: file, folderId, name, kind, sku, classify)")
                    .description(
                        "201 `{asset, classify?}`. The file streams to storage; its type is sniffed from the bytes. \
                         400 NO_FILE, UNSUPPORTED_TYPE, EMPTY_FILE, BAD_KIND, BAD_SKU, BAD_FORM; 404 bad folderId; \
                         413 IMAGE_TOO_LARGE with maxMb.",
                    )
                    .tag("library")
            })
            .layer(DefaultBodyLimit::max(UPLOAD_BODY_LIMIT)),
        )
        .api_route(
            "/api/toolkit/assets/{id}/file",
            get_with(get_asset_file, |op| {
                let op = op
                    .summary("The asset's bytes, or a thumbnail of them (w)")
                    .description("Cache-Control private, max-age=3600 and an ETag; If-None-Match answers 304. Another house's id is 404. With `w` (256, 512 or 1024): a rendition no wider than w (never enlarged), JPEG, or lossless WebP when the image has transparency, with its own ETag; made once and kept until the asset is deleted. 400 BAD_QUERY for another w, BAD_IMAGE when the original does not decode.")
                    .tag("library");
                let op = bytes_response::<200>(op, "The bytes, as the type sniffed at upload", &IMAGE_TYPES);
                bytes_response::<304>(op, "Not modified: the If-None-Match ETag is current; no body", &[])
            }),
        )
        .api_route(
            "/api/toolkit/assets/{id}/detail",
            get_with(get_asset_detail, |op| {
                op.summary("One asset as JSON, and the develop that made it")
                    .description(
                        "`{asset, origin}`: origin is null for an upload; for a develop's frame, `{jobId, tool, \
                         quality, status, createdAt, inputs: [{role, assetId, name, url}]}` (assetId null for a file \
                         sent with the submit; name and url null for an input deleted since). Any role. 404 for \
                         another house's or a deleted asset.",
                    )
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/{id}/provenance",
            get_with(get_asset_provenance, |op| {
                op.summary("The asset's content credentials (C2PA), read from its file now")
                    .description(
                        "`{hasCredentials, digitalSourceType, signer, validation, title, claimGenerator, issuer, \
                         signedAt, house, actions, ingredients, findings, error}`. validation is trusted (signed \
                         under this deployment's certificate), valid (intact, signer not on a trust list) or invalid \
                         (tampered or malformed; findings name what failed); null without credentials. Refreshes the \
                         asset's `provenance` summary. Any role. 404 for another house's or a deleted asset.",
                    )
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/{id}",
            get_with(get_asset_legacy, |op| {
                let op = op
                    .summary("Legacy bytes route")
                    .description("403 for another house's asset; 404 unknown or deleted.")
                    .tag("library");
                bytes_response::<200>(op, "The bytes, as the type sniffed at upload", &IMAGE_TYPES)
            })
            .patch_with(patch_asset, |op| {
                op.summary("Edit an asset: name, sku, kind, folderId, fit, wearer")
                    .description(
                        "Absent fields stay; null clears sku, fit and wearer and moves folderId to the root. \
                         An empty patch is a 200 no-op. 400 BAD_BODY, BAD_KIND, BAD_SKU, BAD_FOLDER; 404.",
                    )
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/batch",
            patch_with(patch_assets_batch, |op| {
                op.summary("Move, re-file or approve many assets")
                    .description(
                        "At least one of folderId, kind, approved. approved true stamps the director's name and time; \
                         false clears both. Foreign or deleted ids are skipped. 404 when the collection is not this house's.",
                    )
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/batch/quote",
            post_with(quote_assets, |op| {
                op.summary("What remove-background or packshot would cost; spends and reserves nothing").tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/group",
            post_with(group_assets, |op| {
                op.summary("Give assets one shared group stamp, replacing any prior group")
                    .description("201 `{groupId}`. All or nothing. 400 BAD_BODY, BAD_ASSET_IDS; 404.")
                    .tag("library")
            }),
        )
        .api_route(
            "/api/toolkit/assets/batch/delete",
            post_with(delete_assets, |op| {
                op.summary("Soft-delete assets").description("`{deleted}` counted server-side; 403 for a viewer.").tag("library")
            }),
        )
}
