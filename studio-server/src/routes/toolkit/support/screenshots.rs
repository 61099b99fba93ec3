//! `/api/toolkit/support/screenshots...`: keep a screenshot for a ticket (multipart `file`) and
//! read it back by its signed link alone, with no session (§4.11, §5.5; docs/support.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::body::Body;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{ScreenshotLink, ScreenshotQuery};
use studio_core::{Error, MAX_IMAGE_MB};

use crate::auth::Auth;
use crate::docs::{IMAGE_TYPES, bytes_response};
use crate::error::AppError;
use crate::extract::{ApiPath, ApiQuery};
use crate::respond::Created;
use crate::routes::toolkit::{bad_form, image_part, read_rest, text_field};
use crate::state::AppState;

/// One image plus slack, so an image past 12 MB is read far enough to answer 413.
const SCREENSHOT_BODY_LIMIT: usize = 2 * (MAX_IMAGE_MB * 1024 * 1024) as usize;

/// Path of one screenshot.
#[derive(Debug, Deserialize, JsonSchema)]
struct ShotId {
    /// The screenshot's id (`shot_…`).
    id: String,
}

async fn upload(
    State(state): State<AppState>,
    Auth(caller): Auth,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Created<ScreenshotLink>, AppError> {
    let mut multipart = multipart.map_err(bad_form)?;
    let file = match read_shot(&mut multipart).await {
        Ok(file) => file,
        Err(e) => {
            read_rest(&mut multipart).await;
            return Err(e);
        }
    };
    let file = file.ok_or_else(|| Error::invalid("NO_FILE", "Send the screenshot in a multipart field named file."))?;
    Ok(Created(state.studio.support().upload_screenshot(&caller, file).await?))
}

/// The first `file` part; other fields are read and dropped.
async fn read_shot(multipart: &mut Multipart) -> Result<Option<axum::body::Bytes>, AppError> {
    let mut file = None;
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" && file.is_none() {
            file = Some(image_part(field).await?);
        } else {
            text_field(field, &name, 4 * 1024).await?;
        }
    }
    Ok(file)
}

async fn read(
    State(state): State<AppState>,
    ApiPath(ShotId { id }): ApiPath<ShotId>,
    ApiQuery(query): ApiQuery<ScreenshotQuery>,
) -> Result<Response, AppError> {
    let (bytes, mime, left) = state.studio.support().screenshot_file(&id, &query, chrono::Utc::now()).await?;
    let mut res = Response::new(Body::from(bytes));
    if let Ok(v) = HeaderValue::from_str(&mime) {
        res.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    let cache = HeaderValue::from_str(&format!("private, max-age={left}")).map_err(Error::internal)?;
    res.headers_mut().insert(header::CACHE_CONTROL, cache);
    Ok(res)
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/support/screenshots",
            post_with(upload, |op| {
                op.summary("Keep a screenshot for a support ticket")
                    .description(
                        "Any role, key or session. Multipart field `file`: a JPEG, PNG, WebP or GIF image of at most \
                         12 MB. 201 {id, url, expiresAt}: `url` is a signed link (query o, e, s) readable with no \
                         session for 7 days; the image is kept 30 days. Codes: 400 NO_FILE, EMPTY_IMAGE, BAD_FORM; \
                         413 IMAGE_TOO_LARGE (maxMb); 415 UNSUPPORTED_MEDIA_TYPE.",
                    )
                    .tag("support")
            })
            .layer(DefaultBodyLimit::max(SCREENSHOT_BODY_LIMIT)),
        )
        .api_route(
            "/api/toolkit/support/screenshots/{id}",
            get_with(read, |op| {
                bytes_response::<200>(
                    op.summary("A support screenshot by its signed link")
                        .description(
                            "No session: the signature over the object `o` and the expiry `e` (query `s`, scoped to \
                             this one screenshot) is the authority. Codes: 400 BAD_QUERY (o, e or s missing); 403 \
                             BAD_SIGNATURE (forged or altered), LINK_EXPIRED; 404 SCREENSHOT_GONE (past the 30-day \
                             retention).",
                        )
                        .tag("support"),
                    "The screenshot",
                    &IMAGE_TYPES,
                )
            }),
        )
}
