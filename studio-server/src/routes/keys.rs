//! `/api/keys`: mint (session only), list, revoke organization keys.

use aide::axum::ApiRouter;
use aide::axum::routing::{delete_with, post_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{ApiKey, KeyList, MintKeyRequest, RevokedKey};

use crate::auth::{Auth, SessionAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// Path of one key.
#[derive(Debug, Deserialize, JsonSchema)]
struct KeyId {
    /// The key's id.
    id: String,
}

async fn mint_key(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<MintKeyRequest>,
) -> Result<ApiJson<ApiKey>, AppError> {
    Ok(ApiJson(state.studio.accounts().mint_key(&caller, req).await?))
}

async fn list_keys(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<KeyList>, AppError> {
    Ok(ApiJson(state.studio.accounts().list_keys(&caller).await?))
}

async fn revoke_key(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiPath(path): ApiPath<KeyId>,
) -> Result<ApiJson<RevokedKey>, AppError> {
    Ok(ApiJson(state.studio.accounts().revoke_key(&caller, &studio_core::KeyId::from(&path.id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/keys",
            post_with(mint_key, |op| {
                op.summary("Mint an organization key (session only; the secret is shown once)")
                    .description("Owner or admin session. 403 SESSION_REQUIRED when called with a key.")
                    .tag("keys")
            })
            .get_with(list_keys, |op| {
                op.summary("Every key the house minted, revoked included; never a secret").tag("keys")
            }),
        )
        .api_route(
            "/api/keys/{id}",
            delete_with(revoke_key, |op| {
                op.summary("Revoke a key; effective on the next request")
                    .description("Idempotent. 404 for another house's key.")
                    .tag("keys")
            }),
        )
}
