//! `POST /api/toolkit/ai/preflight`: free pixel checks on up to six uploaded images before a
//! develop (multipart `images`, optional `lens` and `clearing`).

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use studio_core::Error;
use studio_core::api::{MAX_PREFLIGHT_IMAGES, PreflightResult};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

use super::super::{bad_form, image_part, read_rest, text_field};
use super::MAX_IMAGE_BYTES;

/// The most a pre-flight request may send: six images at 12 MB each plus slack, so an oversized
/// image is read to its end and refused with 413 rather than cut off.
const PREFLIGHT_BODY_LIMIT: usize = (MAX_PREFLIGHT_IMAGES + 2) * MAX_IMAGE_BYTES;
/// The largest text field.
const MAX_FIELD_BYTES: usize = 4 * 1024;
/// File part names that carry images.
const IMAGE_FIELDS: [&str; 2] = ["images", "images[]"];

/// The form as read: the images in order, the lenses and the codes the caller says it fixed.
#[derive(Default)]
struct PreflightForm {
    images: Vec<Bytes>,
    lens: Vec<String>,
    clearing: Vec<String>,
}

/// Split a repeatable, comma-separated text field into its values.
fn values(raw: &str) -> impl Iterator<Item = String> + '_ {
    raw.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
}

async fn read_form(multipart: &mut Multipart, form: &mut PreflightForm) -> Result<(), AppError> {
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        let name = field.name().unwrap_or_default().to_string();
        if field.file_name().is_some() || IMAGE_FIELDS.contains(&name.as_str()) {
            if !IMAGE_FIELDS.contains(&name.as_str()) {
                return Err(
                    Error::invalid("BAD_FORM", format!("{name:?} is not a field; images go in `images`.")).into()
                );
            }
            if form.images.len() >= MAX_PREFLIGHT_IMAGES {
                return Err(Error::invalid(
                    "TOO_MANY_IMAGES",
                    format!("A pre-flight checks at most {MAX_PREFLIGHT_IMAGES} images."),
                )
                .with("max", MAX_PREFLIGHT_IMAGES)
                .into());
            }
            form.images.push(image_part(field).await?);
            continue;
        }
        let value = text_field(field, &name, MAX_FIELD_BYTES).await?;
        match name.as_str() {
            "lens" | "lens[]" => form.lens.extend(values(&value)),
            "clearing" | "clearing[]" => form.clearing.extend(values(&value)),
            _ => {}
        }
    }
    Ok(())
}

async fn preflight(
    State(state): State<AppState>,
    Auth(caller): Auth,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<ApiJson<PreflightResult>, AppError> {
    let mut multipart = multipart.map_err(bad_form)?;
    let mut form = PreflightForm::default();
    if let Err(e) = read_form(&mut multipart, &mut form).await {
        read_rest(&mut multipart).await;
        return Err(e);
    }
    let lens = (!form.lens.is_empty()).then_some(form.lens);
    Ok(ApiJson(state.studio.develops().preflight_images(&caller, form.images, lens, form.clearing).await?))
}

pub(in crate::routes) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/ai/preflight",
        post_with(preflight, |op| {
            op.summary("Pre-flight: free pixel checks on up to six images before a develop")
                .description(
                    "Multipart: `images` file parts (1 to 6, 12 MB each), optional `lens` (`casting look` or \
                     `build sheet`) and `clearing` (finding codes the caller says it fixed), each repeatable or \
                     comma-separated. Free: nothing is held or charged. Answers {ok, clear, cleared, remaining, \
                     findings [{code, images (1-based), says, fix, by (house, paid, swap), sure}]}; clear is \
                     exactly findings being empty. Without a lens only garment questions are asked (no-clear-subject, too-small, \
                     colour-cast, exposure, light-mismatch, cropped-edge, busy-background, hard-shadow); casting \
                     look answers too-small and light-mismatch; build sheet answers not-full-length. Codes: 400 \
                     IMAGES_REQUIRED, TOO_MANY_IMAGES (max), EMPTY_IMAGE, BAD_FORM (not an image, cut short, \
                     undecodable, unknown lens); 401; 413 IMAGE_TOO_LARGE (maxMb).",
                )
                .tag("ai")
        })
        .layer(DefaultBodyLimit::max(PREFLIGHT_BODY_LIMIT)),
    )
}
