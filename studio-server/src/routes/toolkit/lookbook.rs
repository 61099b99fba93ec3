//! `/api/toolkit/lookbook/...`: looks, shot templates and the composer's vocabulary (§4.4).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{
    CreateLookRequest, LookDetail, LookList, LookResponse, TemplateDetail, TemplateList, Vocabulary,
};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::Created;
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
    Ok(ApiJson(state.studio.lookbook().look(&caller, &id).await?))
}

async fn list_templates(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<TemplateList>, AppError> {
    Ok(ApiJson(state.studio.lookbook().templates(&caller).await?))
}

async fn get_template(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<TemplateDetail>, AppError> {
    Ok(ApiJson(state.studio.lookbook().template(&caller, &id).await?))
}

async fn vocabulary(State(state): State<AppState>, Auth(_caller): Auth) -> ApiJson<Vocabulary> {
    ApiJson(state.studio.lookbook().vocabulary())
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
