//! `/api/toolkit/webhooks/...`: a house's webhook endpoints (docs/webhooks.md): list, create
//! (the secret answered once), read, change, delete, rotate the secret. Owners and admins
//! write; every role reads.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::DeliveryId;
use studio_core::api::{
    DeliveriesQuery, NewWebhook, Webhook, WebhookCreated, WebhookDeleted, WebhookDelivery, WebhookDeliveryPage,
    WebhookList, WebhookPatch, WebhookSecret,
};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one endpoint.
#[derive(Debug, Deserialize, JsonSchema)]
struct WebhookId {
    /// The endpoint's id (`whk_…`).
    id: String,
}

/// Path of one delivery of one endpoint.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DeliveryPath {
    /// The endpoint's id (`whk_…`).
    id: String,
    /// The delivery's id (`msg_…`, its `webhook-id`).
    delivery_id: String,
}

const WRITERS: &str = "Owner or admin (a session: keys are at most members).";

async fn list(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<WebhookList>, AppError> {
    Ok(ApiJson(state.studio.webhooks().list(&caller).await?))
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<NewWebhook>,
) -> Result<Created<WebhookCreated>, AppError> {
    Ok(Created(state.studio.webhooks().create(&caller, body).await?))
}

async fn read(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
) -> Result<ApiJson<Webhook>, AppError> {
    Ok(ApiJson(state.studio.webhooks().get(&caller, &studio_core::WebhookId::from(&id)).await?))
}

async fn patch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
    ApiJson(body): ApiJson<WebhookPatch>,
) -> Result<ApiJson<Webhook>, AppError> {
    Ok(ApiJson(state.studio.webhooks().patch(&caller, &studio_core::WebhookId::from(&id), body).await?))
}

async fn delete(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
) -> Result<ApiJson<WebhookDeleted>, AppError> {
    Ok(ApiJson(state.studio.webhooks().delete(&caller, &studio_core::WebhookId::from(&id)).await?))
}

async fn rotate(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
) -> Result<ApiJson<WebhookSecret>, AppError> {
    Ok(ApiJson(state.studio.webhooks().rotate_secret(&caller, &studio_core::WebhookId::from(&id)).await?))
}

async fn deliveries(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
    ApiQuery(query): ApiQuery<DeliveriesQuery>,
) -> Result<ApiJson<WebhookDeliveryPage>, AppError> {
    Ok(ApiJson(state.studio.webhooks().deliveries(&caller, &studio_core::WebhookId::from(&id), query).await?))
}

async fn test(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(WebhookId { id }): ApiPath<WebhookId>,
) -> Result<ApiJson<WebhookDelivery>, AppError> {
    Ok(ApiJson(state.studio.webhooks().test(&caller, &studio_core::WebhookId::from(&id)).await?))
}

async fn replay(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(DeliveryPath { id, delivery_id }): ApiPath<DeliveryPath>,
) -> Result<ApiJson<WebhookDelivery>, AppError> {
    Ok(ApiJson(
        state
            .studio
            .webhooks()
            .replay(&caller, &studio_core::WebhookId::from(&id), &DeliveryId::from(&delivery_id))
            .await?,
    ))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/webhooks",
            get_with(list, |op| {
                op.summary("The house's webhook endpoints")
                    .description(
                        "{webhooks: [{id, url, description, events, enabled, createdAt, disabledReason}]}, oldest \
                         first. Any role. Codes: 401.",
                    )
                    .tag("webhooks")
            })
            .post_with(create, |op| {
                op.summary("Add a webhook endpoint")
                    .description(&format!(
                        "JSON {{url (https; http only to loopback when the operator allows it), description, \
                         events (job, pack.ready, or * for all; default [\"*\"]), enabled}}. 201 with the \
                         endpoint and its signing secret `secret` (whsec_…), shown this once. {WRITERS} Codes: \
                         400 BAD_BODY, BAD_WEBHOOK_URL, WEBHOOK_TARGET_REFUSED (a private, loopback, link-local \
                         or metadata address), UNKNOWN_EVENT (known), TOO_LONG; 401; 403 FORBIDDEN; 409 \
                         TOO_MANY_WEBHOOKS (max)."
                    ))
                    .tag("webhooks")
            }),
        )
        .api_route(
            "/api/toolkit/webhooks/{id}",
            get_with(read, |op| {
                op.summary("One webhook endpoint")
                    .description("Any role. Codes: 401; 404 NOT_FOUND (not an endpoint of this house).")
                    .tag("webhooks")
            })
            .patch_with(patch, |op| {
                op.summary("Change a webhook endpoint")
                    .description(&format!(
                        "JSON {{url, description, events, enabled}}, each optional; enabling clears \
                         disabledReason. {WRITERS} Codes: 400 as on create; 401; 403 FORBIDDEN; 404 NOT_FOUND."
                    ))
                    .tag("webhooks")
            })
            .delete_with(delete, |op| {
                op.summary("Remove a webhook endpoint")
                    .description(&format!("{{id, deleted: true}}. {WRITERS} Codes: 401; 403 FORBIDDEN; 404 NOT_FOUND."))
                    .tag("webhooks")
            }),
        )
        .api_route(
            "/api/toolkit/webhooks/{id}/rotate-secret",
            post_with(rotate, |op| {
                op.summary("Issue a new signing secret")
                    .description(&format!(
                        "{{id, secret, previousSecretExpiresAt}}: the new secret, shown this once. For 24 hours \
                         every delivery carries a signature under each secret. {WRITERS} Codes: 401; 403 \
                         FORBIDDEN; 404 NOT_FOUND."
                    ))
                    .tag("webhooks")
            }),
        )
        .api_route(
            "/api/toolkit/webhooks/{id}/deliveries",
            get_with(deliveries, |op| {
                op.summary("The endpoint's delivery log")
                    .description(
                        "{deliveries: [{id, deliveryId, event, eventSeq, attempt, ok, status, latencyMs, response \
                         (first 1 KB), error (in words), nextAttemptAt, createdAt}], nextCursor}: one row per \
                         attempt, newest first. `limit` 1-100 (default 50); `cursor` the previous page's \
                         nextCursor. Any role. Codes: 400 BAD_LIMIT, BAD_CURSOR, BAD_QUERY; 401; 404 NOT_FOUND.",
                    )
                    .tag("webhooks")
            }),
        )
        .api_route(
            "/api/toolkit/webhooks/{id}/test",
            post_with(test, |op| {
                op.summary("Send a ping now")
                    .description(&format!(
                        "Sends {{type: \"ping\", webhookId, sentAt}} signed, now (a disabled endpoint too), and \
                         answers the attempt as the log shows it: ok, status, latencyMs, response, error. A 410 \
                         disables the endpoint. {WRITERS} Codes: 401; 403 FORBIDDEN; 404 NOT_FOUND."
                    ))
                    .tag("webhooks")
            }),
        )
        .api_route(
            "/api/toolkit/webhooks/{id}/deliveries/{deliveryId}/replay",
            post_with(replay, |op| {
                op.summary("Send one delivery again")
                    .description(&format!(
                        "Resends the delivery's exact body under its own webhook-id (a receiver deduplicates on \
                         it), now, logged as its next attempt, and answers that attempt. {WRITERS} Codes: 401; \
                         403 FORBIDDEN; 404 NOT_FOUND, DELIVERY_NOT_FOUND."
                    ))
                    .tag("webhooks")
            }),
        )
}
