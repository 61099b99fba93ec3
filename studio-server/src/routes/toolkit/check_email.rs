//! `POST /api/toolkit/check-email`: public; never a 4xx. An address past the rate limit is not
//! refused (the spec forbids a 4xx here): it is answered `{exists: false, hasPassword: false}`
//! without a lookup, so a burst learns nothing (docs/decisions.md, "check-email under load").

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use studio_core::api::{CheckEmailRequest, CheckEmailResponse};

use crate::error::AppError;
use crate::extract::ApiJson;
use crate::ratelimit::Throttled;
use crate::state::AppState;

/// Any body is accepted: a malformed one reads as "no email" and answers false, false.
async fn check_email(
    State(state): State<AppState>,
    throttled: Option<Extension<Throttled>>,
    body: Bytes,
) -> Result<ApiJson<CheckEmailResponse>, AppError> {
    if throttled.is_some() {
        return Ok(ApiJson(CheckEmailResponse { exists: false, has_password: false }));
    }
    let req: CheckEmailRequest = serde_json::from_slice(&body).unwrap_or_default();
    Ok(ApiJson(state.studio.accounts().check_email(req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/check-email",
        post_with(check_email, |op| {
            op.summary("Does a person with this email exist, and do they have a password?")
                .description(
                    "Public. Never 4xx: an unknown or missing email answers `{exists: false, hasPassword: false}`, \
                     and so does every call from an address past the rate limit (no lookup is made).",
                )
                .tag("account")
                .input::<ApiJson<CheckEmailRequest>>()
        }),
    )
}
