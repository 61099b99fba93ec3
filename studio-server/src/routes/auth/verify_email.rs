//! `/api/auth/verify-email[/resend]`: prove an address with the link of the verification letter.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{EmailVerified, VerificationResent, VerifyEmailRequest};

use crate::auth::SessionAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn verify_email(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<VerifyEmailRequest>,
) -> Result<ApiJson<EmailVerified>, AppError> {
    Ok(ApiJson(state.studio.accounts().verify_email(req).await?))
}

async fn resend(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
) -> Result<ApiJson<VerificationResent>, AppError> {
    Ok(ApiJson(state.studio.accounts().resend_verification(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/auth/verify-email",
            post_with(verify_email, |op| {
                op.summary("Mark the email verified with the token of the verification letter")
                    .description(
                        "Public; the token is the authority. Single use; links work 48 hours. 400 INVALID_TOKEN; \
                         410 TOKEN_USED, TOKEN_REPLACED (a newer letter was sent), TOKEN_EXPIRED, TOKEN_STALE (the \
                         account's address changed).",
                    )
                    .tag("auth")
            }),
        )
        .api_route(
            "/api/auth/verify-email/resend",
            post_with(resend, |op| {
                op.summary("Send a new verification letter to the signed-in person")
                    .description(
                        "Session only (a key: 403 SESSION_REQUIRED). Earlier links stop working. \
                         `{sent: false, alreadyVerified: true}` when there is nothing to verify; 429 RATE_LIMITED \
                         past 3 letters an hour (with retryAfter).",
                    )
                    .tag("auth")
            }),
        )
}
