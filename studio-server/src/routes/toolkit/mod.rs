//! `/api/toolkit/...` route groups.

mod admin;
mod ai;
mod assets;
mod backgrounds;
mod brand;
mod chat;
mod check_email;
mod develops;
mod entitlements;
mod explore;
mod factory;
mod folders;
mod invite;
mod invites;
mod jobs;
mod lookbook;
mod models;
mod my_access;
mod org;
mod packs;
mod pipelines;
mod presets;
mod search;
mod support;
mod takes;
mod tools;
mod webhooks;

use aide::axum::ApiRouter;
use axum::extract::Multipart;
use axum::extract::multipart::Field;
use studio_core::Error;

use crate::error::AppError;
use crate::state::AppState;

/// 400 `BAD_FORM` for a multipart body that cannot be read.
pub(super) fn bad_form(detail: impl std::fmt::Display) -> AppError {
    Error::invalid("BAD_FORM", format!("The multipart form could not be read: {detail}")).into()
}

/// Read what is left of a refused multipart request (bounded by the route's body limit) before
/// answering. A handler that answers mid-upload would otherwise close a connection the client is
/// still writing to, and the client would see a reset instead of the refusal.
pub(super) async fn read_rest(multipart: &mut Multipart) {
    while let Ok(Some(_)) = multipart.next_field().await {}
}

/// A multipart text field, refused with `BAD_FORM` past `max` bytes.
async fn text_field(field: Field<'_>, name: &str, max: usize) -> Result<String, AppError> {
    let value = field.text().await.map_err(bad_form)?;
    if value.len() > max {
        return Err(Error::invalid("BAD_FORM", format!("The field {name} is longer than {max} bytes.")).into());
    }
    Ok(value)
}

/// One image part read whole, refused with 413 `IMAGE_TOO_LARGE` as soon as it passes
/// [`studio_core::MAX_IMAGE_MB`]; the core checks what the bytes are.
async fn image_part(mut field: Field<'_>) -> Result<axum::body::Bytes, AppError> {
    let max = (studio_core::MAX_IMAGE_MB * 1024 * 1024) as usize;
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(bad_form)? {
        if buf.len() + chunk.len() > max {
            return Err(studio_core::image_too_large().into());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.into())
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(check_email::router())
        .merge(my_access::router())
        .merge(org::router())
        .merge(tools::router())
        .merge(webhooks::router())
        .merge(lookbook::router())
        .merge(factory::router())
        .merge(presets::router())
        .merge(pipelines::router())
        .merge(models::router())
        .merge(entitlements::router())
        .merge(explore::router())
        .merge(brand::router())
        .merge(ai::router())
        .merge(admin::router())
        .merge(folders::router())
        .merge(assets::router())
        .merge(backgrounds::router())
        .merge(packs::router())
        .merge(jobs::router())
        .merge(develops::router())
        .merge(takes::router())
        .merge(support::router())
        .merge(search::router())
        .merge(chat::router())
        .merge(invite::router())
        .merge(invites::router())
}
