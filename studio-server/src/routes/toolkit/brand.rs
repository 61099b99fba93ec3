//! `/api/toolkit/brand/...`: the house's brand profile, its DNA read and its marks (§4.3).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with};
use axum::body::Bytes;
use axum::extract::multipart::Field;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::StatusCode;
use studio_core::MarkId;
use studio_core::api::{
    BrandDnaResponse, BrandPatch, BrandResponse, CreateMarkRequest, MarkDeleted, MarkList, MarkPatch, MarkResponse,
    MarksQuery,
};
use studio_core::{DnaForm, Error, ErrorKind, MAX_DNA_IMAGES, MAX_DNA_SET_MB, MAX_IMAGE_MB};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

use super::{bad_form, read_rest, text_field};

/// The largest image, in bytes.
const MAX_IMAGE_BYTES: usize = (MAX_IMAGE_MB * 1024 * 1024) as usize;
/// The most a read's images may weigh together.
const MAX_SET_BYTES: usize = (MAX_DNA_SET_MB * 1024 * 1024) as usize;
/// The body limit: the set plus slack for the form's framing and text fields, so a set just
/// over the limit is still read far enough to answer 413 `SET_TOO_LARGE` in the envelope.
const DNA_BODY_LIMIT: usize = MAX_SET_BYTES + 4 * 1024 * 1024;
/// The largest text field (`vibe`, `products`).
const MAX_FIELD_BYTES: usize = 8 * 1024;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The mark's id.
    id: String,
}

fn set_too_large() -> AppError {
    Error::new(
        ErrorKind::TooLarge,
        "SET_TOO_LARGE",
        format!("A read's images are at most {MAX_DNA_SET_MB} MB together."),
    )
    .with("maxMb", MAX_DNA_SET_MB)
    .into()
}

/// A multipart read failure: the body limit is the set's limit, anything else is `BAD_FORM`.
fn form_error(e: axum::extract::multipart::MultipartError) -> AppError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE { set_too_large() } else { bad_form(e) }
}

async fn read_image(mut field: Field<'_>, set_bytes: &mut usize) -> Result<Bytes, AppError> {
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(form_error)? {
        if buf.len() + chunk.len() > MAX_IMAGE_BYTES {
            return Err(studio_core::image_too_large().into());
        }
        *set_bytes += chunk.len();
        if *set_bytes > MAX_SET_BYTES {
            return Err(set_too_large());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

async fn read_form(multipart: &mut Multipart, form: &mut DnaForm) -> Result<(), AppError> {
    let mut set_bytes = 0usize;
    while let Some(field) = multipart.next_field().await.map_err(form_error)? {
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "image" | "image[]" => {
                if form.images.len() >= MAX_DNA_IMAGES {
                    return Err(Error::invalid("BAD_FORM", format!("At most {MAX_DNA_IMAGES} images per read."))
                        .with("max", MAX_DNA_IMAGES)
                        .into());
                }
                form.images.push(read_image(field, &mut set_bytes).await?);
            }
            "vibe" => form.vibe = Some(text_field(field, &name, MAX_FIELD_BYTES).await?),
            "products" => form.products = Some(text_field(field, &name, MAX_FIELD_BYTES).await?),
            _ if field.file_name().is_some() => {
                return Err(
                    Error::invalid("BAD_FORM", format!("{name:?} is not a field; images go in `image`.")).into()
                );
            }
            _ => {
                text_field(field, &name, MAX_FIELD_BYTES).await?;
            }
        }
    }
    Ok(())
}

async fn get_profile(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<BrandResponse>, AppError> {
    Ok(ApiJson(state.studio.brand().profile(&caller).await?))
}

async fn patch_profile(
    State(state): State<AppState>,
    Auth(caller): Auth,
    body: Result<ApiJson<BrandPatch>, AppError>,
) -> Result<ApiJson<BrandResponse>, AppError> {
    // A viewer is refused before the body is read; the spec names a malformed body BAD_JSON.
    studio_core::Brand::may_patch(&caller)?;
    let ApiJson(patch) = body.map_err(|AppError(e)| AppError(Error { code: "BAD_JSON", ..e }))?;
    Ok(ApiJson(state.studio.brand().patch(&caller, patch).await?))
}

async fn read_dna(
    State(state): State<AppState>,
    Auth(caller): Auth,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<ApiJson<BrandDnaResponse>, AppError> {
    caller.require_spend_tokens()?;
    let mut multipart = multipart.map_err(bad_form)?;
    let mut form = DnaForm::default();
    if let Err(e) = read_form(&mut multipart, &mut form).await {
        read_rest(&mut multipart).await;
        return Err(e);
    }
    Ok(ApiJson(state.studio.brand().read_dna(&caller, form).await?))
}

async fn list_marks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<MarksQuery>,
) -> Result<ApiJson<MarkList>, AppError> {
    Ok(ApiJson(state.studio.brand().marks(&caller, query).await?))
}

async fn create_mark(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<CreateMarkRequest>,
) -> Result<Created<MarkResponse>, AppError> {
    Ok(Created(state.studio.brand().create_mark(&caller, req).await?))
}

async fn update_mark(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(patch): ApiJson<MarkPatch>,
) -> Result<ApiJson<MarkResponse>, AppError> {
    Ok(ApiJson(state.studio.brand().update_mark(&caller, &MarkId::from(&id), patch).await?))
}

async fn delete_mark(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<MarkDeleted>, AppError> {
    Ok(ApiJson(state.studio.brand().delete_mark(&caller, &MarkId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/brand",
            get_with(get_profile, |op| {
                op.summary("The house's brand profile")
                    .description(
                        "Any role. {ok, profile {visionEn, vibe, palette, signatureKeywords, injectEnabled, dnaRuns, \
                         clause, colour {output}, metadata {output}}}; a house that never ran a read gets the empty defaults. clause is \
                         the exact text develops carry as their brandClause option (docs/brand.md); colour.output \
                         (srgb by default, or keep) is the space develops and packs' resized entries are written in \
                         (docs/colour.md); metadata.output (rights by default, all or none) is what they \
                         keep of their input's EXIF, IPTC and XMP (docs/colour.md).",
                    )
                    .tag("brand")
            })
            .patch_with(patch_profile, |op| {
                op.summary("Change the brand profile")
                    .description(
                        "JSON any of visionEn, vibe, palette, signatureKeywords, injectEnabled, colour {output: \
                         srgb|keep}, metadata {output: rights|all|none}: merged, then the whole profile is clamped as a read's answer is \
                         (docs/brand.md); dnaRuns is never touched. \
                         400 BAD_JSON, BAD_COLOUR_OUTPUT (colour.output neither srgb nor keep; nothing \
                         written), BAD_METADATA_OUTPUT (metadata.output not rights, all or none; nothing \
                         written); 403 FORBIDDEN for a viewer.",
                    )
                    .tag("brand")
            }),
        )
        .api_route(
            "/api/toolkit/brand/dna",
            post_with(read_dna, |op| {
                op.summary("Read the house's brand DNA from its images")
                    .description(
                        "Multipart: `image` file parts (1 to 10, 12 MB each, 32 MB together), `vibe` (a JSON array \
                         of strings), `products` (text). The AI reader's answer becomes the profile, clamped. The \
                         house's first successful read is free (charged 0); every later one holds 2 tokens before \
                         the read and settles them on success; a failed read charges nothing and leaves dnaRuns. \
                         400 NO_IMAGES, BAD_FORM; 402 INSUFFICIENT_TOKENS (need, spendable); 403 FORBIDDEN for a \
                         viewer; 413 IMAGE_TOO_LARGE or SET_TOO_LARGE (maxMb); 502 AI_FAILED, AI_BAD_OUTPUT; 503 \
                         AI_NOT_CONFIGURED.",
                    )
                    .tag("brand")
            })
            .layer(DefaultBodyLimit::max(DNA_BODY_LIMIT)),
        )
        .api_route(
            "/api/toolkit/brand/marks",
            get_with(list_marks, |op| {
                op.summary("The house's marks, and the collection's")
                    .description(
                        "Any role. {house, collection, riding}: a collection (library folder) whose set is not \
                         empty overrides the house's set whole (riding: collection). 404 COLLECTION_NOT_FOUND.",
                    )
                    .tag("brand")
            })
            .post_with(create_mark, |op| {
                op.summary("Register an uploaded image as a mark")
                    .description(
                        "JSON assetId (a live asset of the house, uploaded first), material (required), placement, \
                         note, sortOrder, collectionId. Free. 201 {mark}; 400 ASSET_REQUIRED, BAD_MATERIAL; 403 \
                         role_cannot_edit_marks; 404 ASSET_NOT_FOUND, COLLECTION_NOT_FOUND; 409 \
                         ALREADY_REGISTERED at this level.",
                    )
                    .tag("brand")
            }),
        )
        .api_route(
            "/api/toolkit/brand/marks/{id}",
            patch_with(update_mark, |op| {
                op.summary("Change a mark")
                    .description(
                        "JSON material (cannot be cleared), placement (string or null), note (string or null), \
                         sortOrder. 400 BAD_MATERIAL; 403 role_cannot_edit_marks; 404 NOT_FOUND.",
                    )
                    .tag("brand")
            })
            .delete_with(delete_mark, |op| {
                op.summary("Unregister a mark")
                    .description("The asset stays in the library. 403 role_cannot_edit_marks; 404 NOT_FOUND.")
                    .tag("brand")
            }),
        )
}
