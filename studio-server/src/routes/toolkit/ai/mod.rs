//! `/api/toolkit/ai/...` route groups: billing, pre-flight, the AI utility lanes (one file per
//! lane, each a line of [`image_lane!`] or [`json_lane!`]), the text tools, and the signed
//! results the lanes answer (`results.rs`).

mod billing;
mod depth;
mod describe_item;
mod detect_items;
mod extract_build;
mod extract_character;
mod face_features;
mod imagemodel_prompts;
mod inspiration_keywords;
mod preflight;
mod prompt_builder;
mod prompt_enhancer;
mod remove_background;
mod results;
mod segment;

use aide::axum::ApiRouter;
use aide::axum::routing::ApiMethodRouter;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart};
use studio_core::{Error, LaneImage, MAX_IMAGE_MB};

use crate::error::AppError;
use crate::state::AppState;

use super::{bad_form, image_part, read_rest};

/// The largest image a lane takes, in bytes (spec §8).
const MAX_IMAGE_BYTES: usize = (MAX_IMAGE_MB * 1024 * 1024) as usize;
/// A lane's body: one image plus slack for the form, so an oversized image is read to its end
/// and refused with 413 rather than cut off.
const LANE_BODY_LIMIT: usize = 2 * MAX_IMAGE_BYTES;
/// The largest text field a lane form may carry (they are ignored).
const MAX_FIELD_BYTES: usize = 4 * 1024;

pub(super) async fn read_lane_form(multipart: &mut Multipart) -> Result<Option<LaneImage>, AppError> {
    let mut image = None;
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_string();
        if name != "image" {
            if field.file_name().is_some() {
                return Err(
                    Error::invalid("BAD_FORM", format!("{name:?} is not a field; the image goes in `image`.")).into()
                );
            }
            super::text_field(field, &name, MAX_FIELD_BYTES).await?;
            continue;
        }
        if image.is_some() {
            return Err(Error::invalid("BAD_FORM", "A lane takes one image.").into());
        }
        let file_name = field.file_name().map(str::to_string);
        image = Some(LaneImage { bytes: image_part(field).await?, file_name });
    }
    Ok(image)
}

/// The one `image` part of a lane's multipart form (None when it has none; the core answers
/// the lane's code). 400 `BAD_FORM` for an unreadable form, another file part or two images;
/// 413 `IMAGE_TOO_LARGE` with `maxMb`.
pub(super) async fn lane_image(
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Option<LaneImage>, AppError> {
    let mut multipart = multipart.map_err(bad_form)?;
    match read_lane_form(&mut multipart).await {
        Ok(image) => Ok(image),
        Err(e) => {
            read_rest(&mut multipart).await;
            Err(e)
        }
    }
}

/// Mount one lane at `path` with the lanes' body limit.
pub(super) fn lane_route(path: &str, method: ApiMethodRouter<AppState>) -> ApiRouter<AppState> {
    ApiRouter::new().api_route(path, method.layer(DefaultBodyLimit::max(LANE_BODY_LIMIT)))
}

/// A multipart image lane: `POST $path` reads the `image` part and answers `$method`'s value.
macro_rules! image_lane {
    ($path:literal, $method:ident, $answer:ty, $summary:literal, $description:literal) => {
        async fn handler(
            axum::extract::State(state): axum::extract::State<crate::state::AppState>,
            crate::auth::Auth(caller): crate::auth::Auth,
            multipart: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
        ) -> Result<crate::extract::ApiJson<$answer>, crate::error::AppError> {
            let image = super::lane_image(multipart).await?;
            Ok(crate::extract::ApiJson(state.studio.ai().$method(&caller, image).await?))
        }

        pub(super) fn router() -> aide::axum::ApiRouter<crate::state::AppState> {
            super::lane_route(
                $path,
                aide::axum::routing::post_with(handler, |op| op.summary($summary).description($description).tag("ai")),
            )
        }
    };
}

/// A JSON lane or text tool: `POST $path` reads `$request` (400 `BAD_JSON` when it does not
/// fit) and answers `$method`'s value.
macro_rules! json_lane {
    ($path:literal, $method:ident, $request:ty, $answer:ty, $summary:literal, $description:literal) => {
        async fn handler(
            axum::extract::State(state): axum::extract::State<crate::state::AppState>,
            crate::auth::Auth(caller): crate::auth::Auth,
            crate::extract::LaneJson(body): crate::extract::LaneJson<$request>,
        ) -> Result<crate::extract::ApiJson<$answer>, crate::error::AppError> {
            Ok(crate::extract::ApiJson(state.studio.ai().$method(&caller, body).await?))
        }

        pub(super) fn router() -> aide::axum::ApiRouter<crate::state::AppState> {
            aide::axum::ApiRouter::new().api_route(
                $path,
                aide::axum::routing::post_with(handler, |op| op.summary($summary).description($description).tag("ai")),
            )
        }
    };
}

use {image_lane, json_lane};

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(billing::router())
        .merge(preflight::router())
        .merge(depth::router())
        .merge(describe_item::router())
        .merge(detect_items::router())
        .merge(segment::router())
        .merge(extract_build::router())
        .merge(extract_character::router())
        .merge(remove_background::router())
        .merge(face_features::router())
        .merge(inspiration_keywords::router())
        .merge(imagemodel_prompts::router())
        .merge(prompt_builder::router())
        .merge(prompt_enhancer::router())
        .merge(results::router())
}
