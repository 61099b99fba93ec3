//! `/api/toolkit/lookbook/...`: looks, shot templates and the composer's vocabulary (§4.4).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{
    CreateLookRequest, DevelopLockRequest, DevelopLockResponse, LockRequest, LookDetail, LookList, LookResponse,
    TemplateDetail, TemplateList, VariationsRequest, VariationsResponse, Vocabulary,
};
use studio_core::{LookId, TemplateId};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::{Accepted, Created};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The look's or template's id.
    id: String,
}

async fn list_looks(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<LookList>, AppError> {
    Ok(ApiJson(state.studio.lookbook().looks(&caller).await?))
}

async fn create_look(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<CreateLookRequest>,
) -> Result<Created<LookResponse>, AppError> {
    Ok(Created(LookResponse { look: state.studio.lookbook().create_look(&caller, req).await? }))
}

async fn get_look(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<LookDetail>, AppError> {
    Ok(ApiJson(state.studio.lookbook().look(&caller, &LookId::from(&id)).await?))
}

async fn develop_lock(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(req): ApiJson<DevelopLockRequest>,
) -> Result<Accepted<DevelopLockResponse>, AppError> {
    Ok(Accepted(state.studio.lookbook().develop_lock(&caller, &id, req).await?, false))
}

async fn lock(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(req): ApiJson<LockRequest>,
) -> Result<ApiJson<LookResponse>, AppError> {
    Ok(ApiJson(state.studio.lookbook().lock(&caller, &LookId::from(&id), req).await?))
}

async fn unlock(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<LookResponse>, AppError> {
    Ok(ApiJson(state.studio.lookbook().unlock(&caller, &LookId::from(&id)).await?))
}

async fn variations(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(req): ApiJson<VariationsRequest>,
) -> Result<Accepted<VariationsResponse>, AppError> {
    Ok(Accepted(state.studio.lookbook().variations(&caller, &LookId::from(&id), req).await?, false))
}

async fn list_templates(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<TemplateList>, AppError> {
    Ok(ApiJson(state.studio.lookbook().templates(&caller).await?))
}

async fn get_template(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<TemplateDetail>, AppError> {
    Ok(ApiJson(state.studio.lookbook().template(&caller, &TemplateId::from(&id)).await?))
}

/// A `Result` although it cannot fail: the key or session is still refused (401, the envelope),
/// and the document lists that refusal from the error type.
async fn vocabulary(State(state): State<AppState>, Auth(_caller): Auth) -> Result<ApiJson<Vocabulary>, AppError> {
    Ok(ApiJson(state.studio.lookbook().vocabulary()))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/lookbook/looks",
            get_with(list_looks, |op| op.summary("The house's looks, newest first (50)").tag("lookbook")).post_with(
                create_look,
                |op| {
                    op.summary("Create a draft look from selections")
                        .description(
                            "Nothing develops and nothing is charged. Any role but viewer. 400 BAD_BODY, \
                             NAME_REQUIRED, MODEL_REQUIRED, ITEMS_REQUIRED, TOO_MANY_ITEMS, BAD_ITEM (with the legal \
                             roles), BAD_BACKGROUND (with the ground presets), BAD_AESTHETIC (with the presets); 404 \
                             ASSET_NOT_FOUND when an asset is not a live asset of the house.",
                        )
                        .tag("lookbook")
                },
            ),
        )
        .api_route(
            "/api/toolkit/lookbook/looks/{id}",
            get_with(get_look, |op| {
                op.summary("A look with its variation frames and latest develop-lock")
                    .description("404 NOT_FOUND for a look that is not the house's.")
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/looks/{id}/develop-lock",
            post_with(develop_lock, |op| {
                op.summary("Develop the look's base frame")
                    .description(
                        "Draft looks only. quality 1k, 2k or 4k (the standing preset's when absent); output \
                         {destination, width, height} (web-tile when absent): the frame is composed for the \
                         destination's shape at the tier's pixels, A-series prints at 2:3 with a 5.7 % trim, and a \
                         place that needs more pixels than 4k gives adds a priced restoration pass. The whole cost is \
                         held before the job is queued (run look.<id>.lock). idempotencyKey is generated when absent. \
                         400 BAD_BODY, UNKNOWN_DESTINATION, BAD_DIMENSIONS, OUTPUT_TOO_LARGE, \
                         QUALITY_TOO_LOW_FOR_OUTPUT; 402 INSUFFICIENT_TOKENS; 403 viewer; 404 NOT_FOUND or \
                         ASSET_NOT_FOUND; 409 DEVELOP_IN_FLIGHT, LOOK_LOCKED or IDEMPOTENCY_KEY_REUSED.",
                    )
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/looks/{id}/lock",
            post_with(lock, |op| {
                op.summary("Lock the look on one of its landed frames")
                    .description(
                        "The frame becomes the Look Base (lookBaseAssetId, lookBaseJobId); its parent is recorded as \
                         the model collage. Locking a locked look moves its base. 400 BAD_BODY, ASSET_REQUIRED; 404; \
                         409 DEVELOP_IN_FLIGHT; 422 NOT_A_LOOK_FRAME when the asset did not develop from this look.",
                    )
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/looks/{id}/unlock",
            post_with(unlock, |op| {
                op.summary("Back to draft")
                    .description(
                        "The look-base fields stay until the next lock supersedes them; a draft is answered \
                         unchanged. 404; 409 DEVELOP_IN_FLIGHT.",
                    )
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/looks/{id}/variations",
            post_with(variations, |op| {
                op.summary("Develop variation frames of a locked look")
                    .description(
                        "One job per key (run look.<id>.variations), all held together or none: the first \
                         shortfall holds nothing and creates no job. output applies to every frame and is priced per \
                         frame. 400 BAD_BODY, KEYS_REQUIRED, TOO_MANY_FRAMES, UNKNOWN_VARIATION, UNKNOWN_DESTINATION, \
                         BAD_DIMENSIONS, OUTPUT_TOO_LARGE, QUALITY_TOO_LOW_FOR_OUTPUT; 402; 404; 409 \
                         DEVELOP_IN_FLIGHT or LOCK_REQUIRED.",
                    )
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/templates",
            get_with(list_templates, |op| {
                op.summary("Shot templates: the built-ins (organizationId null), then the house's").tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/templates/{id}",
            get_with(get_template, |op| {
                op.summary("A shot template with its shots").description("404 NOT_FOUND.").tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/lookbook/vocabulary",
            get_with(vocabulary, |op| {
                op.summary("The composer's vocabulary")
                    .description(
                        "Every legal item role, aesthetic, ground preset, variation key and output destination, \
                         with the caps; the values the lookbook, factory and preset routes check against.",
                    )
                    .tag("lookbook")
            }),
        )
}
