//! `/api/auth/password-reset[/confirm]`: a reset letter on request, a new password with its link.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{PasswordResetConfirm, PasswordResetDone, PasswordResetRequest, PasswordResetRequested};

use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn request(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<PasswordResetRequest>,
) -> Result<ApiJson<PasswordResetRequested>, AppError> {
    Ok(ApiJson(state.studio.accounts().request_password_reset(req).await?))
}

async fn confirm(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<PasswordResetConfirm>,
) -> Result<ApiJson<PasswordResetDone>, AppError> {
    Ok(ApiJson(state.studio.accounts().confirm_password_reset(req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/auth/password-reset",
            post_with(request, |op| {
                op.summary("Ask for a password-reset letter")
                    .description(
                        "Public. Always 200 `{ok: true}`, whether or not the address has an account: the letter is \
                         posted in the background when it does (at most 3 an hour per person).",
                    )
                    .tag("auth")
            }),
        )
        .api_route(
            "/api/auth/password-reset/confirm",
            post_with(confirm, |op| {
                op.summary("Set a new password with the token of the reset letter; ends every session")
                    .description(
                        "Public; the token is the authority. Single use; links work 1 hour. 400 WEAK_PASSWORD, \
                         INVALID_TOKEN; 410 TOKEN_USED, TOKEN_REPLACED, TOKEN_EXPIRED, TOKEN_STALE.",
                    )
                    .tag("auth")
            }),
        )
}
