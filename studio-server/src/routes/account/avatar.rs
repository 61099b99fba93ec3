//! `/api/account/avatar...`: upload, delete and serve a person's picture (§4.8).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use studio_core::api::AvatarView;
use studio_core::{Error, ErrorKind};

use crate::auth::SessionAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::routes::toolkit::{bad_form, read_rest};
use crate::state::AppState;

/// The request body limit: above the core's 512 KB so an oversized picture is read far enough
/// to answer 413 with the envelope.
const AVATAR_BODY_LIMIT: usize = 2 * 1024 * 1024;

fn too_large() -> AppError {
    Error::new(ErrorKind::TooLarge, "AVATAR_TOO_LARGE", "An avatar is at most 512 KB.")
        .with("maxBytes", studio_core::MAX_AVATAR_BYTES)
        .into()
}

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct UserPath {
    /// The person's id.
    #[serde(rename = "userId")]
    user_id: studio_core::UserId,
}

async fn upload(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<ApiJson<AvatarView>, AppError> {
    let mut multipart = multipart.map_err(bad_form)?;
    match read_picture(&mut multipart).await {
        Ok(file) => Ok(ApiJson(state.studio.accounts().set_avatar(&caller, Bytes::from(file)).await?)),
        Err(e) => {
            read_rest(&mut multipart).await;
            Err(e)
        }
    }
}

/// The `file` part, refused with 413 past the core's 512 KB.
async fn read_picture(multipart: &mut Multipart) -> Result<Vec<u8>, AppError> {
    let mut file: Option<Vec<u8>> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
            Err(e) => return Err(bad_form(e)),
        };
        if field.name() != Some("file") {
            continue;
        }
        let mut field = field;
        let mut bytes = Vec::new();
        loop {
            match field.chunk().await {
                Ok(Some(chunk)) => {
                    bytes.extend_from_slice(&chunk);
                    if bytes.len() > studio_core::MAX_AVATAR_BYTES {
                        return Err(too_large());
                    }
                }
                Ok(None) => break,
                Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => return Err(too_large()),
                Err(e) => return Err(bad_form(e)),
            }
        }
        file = Some(bytes);
    }
    Ok(file.ok_or_else(|| Error::invalid("NO_FILE", "Send the picture in a multipart field named file."))?)
}

async fn delete(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
) -> Result<ApiJson<AvatarView>, AppError> {
    Ok(ApiJson(state.studio.accounts().delete_avatar(&caller).await?))
}

/// The picture's bytes; cacheable privately, since its URL carries a version stamp.
async fn serve(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiPath(UserPath { user_id }): ApiPath<UserPath>,
) -> Result<Response, AppError> {
    let (bytes, mime) = state.studio.accounts().avatar(&caller, &user_id).await?;
    let mut res = bytes.into_response();
    let headers = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&mime) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=86400"));
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/account/avatar",
            post_with(upload, |op| {
                op.summary("Upload the caller's picture")
                    .description(
                        "The person's own session (a key: 403 SESSION_REQUIRED). Multipart field `file`: WebP, PNG or JPEG, at most 512 KB, already square. 400 \
                         BAD_AVATAR_TYPE, NOT_SQUARE, NO_FILE; 413 AVATAR_TOO_LARGE. Answers the URL with a \
                         version stamp; the previous picture's bytes are removed.",
                    )
                    .tag("account")
            })
            .layer(DefaultBodyLimit::max(AVATAR_BODY_LIMIT))
            .delete_with(delete, |op| {
                op.summary("Remove the caller's picture").description("Its bytes are removed.").tag("account")
            }),
        )
        .api_route(
            "/api/account/avatar/{userId}",
            get_with(serve, |op| {
                op.summary("A person's picture")
                    .description(
                        "A signed-in person who shares a house with them (or themselves). 401 for a stranger; \
                         404 NO_AVATAR.",
                    )
                    .tag("account")
            }),
        )
}
