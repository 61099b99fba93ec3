//! `/api/email/...` (§4.15 `email`): the mail provider's signed delivery webhook and the
//! admin's drip trigger.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use studio_core::api::{DripRun, MailWebhookAck};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, webhook_headers};
use crate::state::AppState;

async fn webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<ApiJson<MailWebhookAck>, AppError> {
    Ok(ApiJson(state.studio.mail().webhook(&webhook_headers(&headers), &body).await?))
}

async fn drip(State(state): State<AppState>, AdminAuth(admin): AdminAuth) -> Result<ApiJson<DripRun>, AppError> {
    Ok(ApiJson(state.studio.mail().drip(&admin).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/email/webhook",
            post_with(webhook, |op| {
                op.summary("The mail provider's signed delivery report (Standard Webhooks)")
                    .description(
                        "The signature (webhook-id, webhook-timestamp, webhook-signature, under \
                         STUDIO_MAIL_WEBHOOK_SECRET) is the only authority. Body `{type, data: {letterId | messageId}}` \
                         with type delivered, bounced or complained (an `email.` prefix is accepted); other types \
                         are acknowledged and ignored. Recorded once per webhook-id (a replay answers \
                         `duplicate: true`). 401 BAD_SIGNATURE; 400 UNPARSEABLE; 503 MAIL_WEBHOOK_NOT_CONFIGURED.",
                    )
                    .tag("email")
            }),
        )
        .api_route(
            "/api/email/drip",
            post_with(drip, |op| {
                op.summary("Queue the onboarding letters that are due")
                    .description(
                        "Platform admin session only (403 otherwise); a scheduler calls it, e.g. hourly. \
                         `{queued, checked}`. Each letter goes to a person at most once; see docs/mail.md.",
                    )
                    .tag("email")
            }),
        )
}
