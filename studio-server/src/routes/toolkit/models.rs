//! `/api/toolkit/models/...`: the casting board, a model's frames and its checkout (§4.7).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::Response;
use studio_core::ModelId;
use studio_core::api::{CastModelRequest, ModelCheckout, ModelList, ModelPatch, ModelResponse};

use crate::auth::Auth;
use crate::docs::{IMAGE_TYPES, bytes_response};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::Created;
use crate::state::AppState;

use super::assets::file_response;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The model's id (`mdl_…`).
    id: String,
}

/// A model's frame.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct FramePath {
    /// The model's id (`mdl_…`).
    id: String,
    /// The identity frame, from 0 (collage, sheets, originals).
    n: usize,
}

async fn list(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<ModelList>, AppError> {
    Ok(ApiJson(state.studio.models().list_models(&caller).await?))
}

async fn show(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<ModelResponse>, AppError> {
    Ok(ApiJson(ModelResponse { model: state.studio.models().model(&caller, &ModelId::from(&id)).await? }))
}

async fn patch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(body): ApiJson<ModelPatch>,
) -> Result<ApiJson<ModelResponse>, AppError> {
    Ok(ApiJson(ModelResponse { model: state.studio.models().patch_model(&caller, &ModelId::from(&id), body).await? }))
}

async fn own(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<CastModelRequest>,
) -> Result<Created<ModelResponse>, AppError> {
    Ok(Created(ModelResponse { model: state.studio.models().cast_model(&caller, body).await? }))
}

async fn checkout(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<ModelCheckout>, AppError> {
    Ok(ApiJson(state.studio.models().checkout_model(&caller, &ModelId::from(&id)).await?))
}

async fn preview(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(FramePath { id, n }): ApiPath<FramePath>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let if_none_match = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    Ok(file_response(state.studio.models().model_preview(&caller, &ModelId::from(&id), n, if_none_match).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/models",
            get_with(list, |op| {
                op.summary("The casting board")
                    .description(
                        "The house's own models and what it holds, then free, sale and exclusive offerings, newest \
                         first within each. An exclusive face another house holds or is buying is absent.",
                    )
                    .tag("models")
            }),
        )
        .api_route(
            "/api/toolkit/models/own",
            post_with(own, |op| {
                op.summary("Keep a model of the house's own frames")
                    .description(
                        "Free; all or nothing. 201 {model}. 400 BAD_BODY, NAME_REQUIRED, BAD_ASSET_IDS; 403 viewer; \
                         404 ASSET_NOT_FOUND.",
                    )
                    .tag("models")
            }),
        )
        .api_route(
            "/api/toolkit/models/{id}",
            get_with(show, |op| op.summary("One model of the board").description("Out of scope is 404.").tag("models"))
                .patch_with(patch, |op| {
                    op.summary("Add identity sheets or merge traits (own models only)")
                        .description(
                            "Sheets go after the collage and before the originals; traits merge key by key (a blank \
                             text is a real correction). Free. 400 BAD_BODY, BAD_ASSET_IDS; 403 FORBIDDEN; 404.",
                        )
                        .tag("models")
                }),
        )
        .api_route(
            "/api/toolkit/models/{id}/checkout",
            post_with(checkout, |op| {
                op.summary("Open the house's checkout for a priced model (owner's session)")
                    .description(
                        "Claim, then the provider's checkout; the claim is released if the provider fails. Never \
                         grants: the signed payment webhook does. A double click answers the same url with pending \
                         true. 400 ALREADY_YOURS, FREE_MODEL, NOT_FOR_SALE; 403; 404; 409 TAKEN or CHECKOUT_PENDING; \
                         502 CHECKOUT_FAILED; 503 BILLING_NOT_CONFIGURED.",
                    )
                    .tag("models")
            }),
        )
        .api_route(
            "/api/toolkit/models/{id}/preview/{n}",
            get_with(preview, |op| {
                let op = op
                    .summary("A model's identity frame")
                    .description("Frame n (from 0) of a model on the house's board; 404 out of scope or no such frame.")
                    .tag("models");
                bytes_response::<200>(op, "The frame's bytes", &IMAGE_TYPES)
            }),
        )
}
