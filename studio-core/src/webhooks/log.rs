//! The delivery log and the two sends a person asks for (docs/webhooks.md, "Log and replay"):
//! `GET …/{id}/deliveries` (one row per attempt, newest first, paged by an opaque cursor),
//! `POST …/{id}/test` (a `ping` sent now, answering what came back) and
//! `POST …/{id}/deliveries/{deliveryId}/replay` (the same bytes under the same `webhook-id`,
//! logged as the next attempt). Every attempt goes through `deliver.rs`, so the target guard,
//! the signature, the timeouts and the 410 rule are the same for all of them.

use crate::ids::{DeliveryId, WebhookId};
use serde_json::json;

use crate::api::{DEFAULT_DELIVERIES_PAGE, DeliveriesQuery, MAX_DELIVERIES_PAGE, WebhookDelivery, WebhookDeliveryPage};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{new_id, now};
use crate::storage::{WebhookAttemptRow, WebhookRow};
use crate::webhooks::deliver::{self, Request};
use crate::webhooks::{Webhooks, not_found, require_manage};

/// The event a person's test sends.
pub(crate) const PING: &str = "ping";

pub(crate) fn attempt_view(row: &WebhookAttemptRow) -> WebhookDelivery {
    WebhookDelivery {
        id: row.id.clone(),
        delivery_id: row.delivery_id.to_string(),
        event: row.event.clone(),
        event_seq: row.event_seq,
        attempt: row.attempt,
        ok: row.ok,
        status: row.status.and_then(|s| u16::try_from(s).ok()),
        latency_ms: row.latency_ms,
        response: row.response.clone(),
        error: row.error.clone(),
        next_attempt_at: row.next_attempt_at,
        created_at: row.created_at,
        url: row.url.clone(),
    }
}

/// One attempt to send.
pub(crate) struct Send<'a> {
    pub(crate) delivery_id: &'a DeliveryId,
    pub(crate) event: &'a str,
    pub(crate) event_seq: Option<i64>,
    pub(crate) payload: &'a str,
    pub(crate) attempt: i32,
    /// A develop's own URL instead of the endpoint's (signed with the endpoint's secret).
    pub(crate) url: Option<&'a str>,
}

impl Webhooks<'_> {
    /// Make one attempt to `endpoint` and log it; a 410 disables the endpoint (and its owner is
    /// told). `retry_in` is the wait before the next attempt when this one fails: the row records
    /// the attempt's end plus that wait as `next_attempt_at`, which the outbox schedules.
    pub(crate) async fn send_logged(
        &self,
        endpoint: &WebhookRow,
        send: Send<'_>,
        retry_in: Option<chrono::Duration>,
    ) -> Result<WebhookAttemptRow> {
        let at = now();
        let secrets = self.signing_secrets(endpoint, at);
        let config = &self.studio.config;
        let outcome = deliver::attempt(
            &config.link_preview,
            config.webhooks.allow_http_loopback,
            Request {
                url: send.url.unwrap_or(&endpoint.url),
                secrets: &secrets,
                id: send.delivery_id.as_str(),
                timestamp: at.timestamp(),
                body: send.payload,
            },
        )
        .await;
        let mut error = outcome.error;
        if outcome.gone && send.url.is_some() {
            error = Some("410 Gone: this develop's URL is not tried again".into());
        }
        let row = WebhookAttemptRow {
            id: new_id("wha"),
            org_id: endpoint.org_id.clone(),
            endpoint_id: endpoint.id.clone(),
            delivery_id: send.delivery_id.clone(),
            event: send.event.to_string(),
            event_seq: send.event_seq,
            payload: send.payload.to_string(),
            attempt: send.attempt,
            ok: outcome.ok,
            status: outcome.status.map(i32::from),
            latency_ms: outcome.latency_ms,
            response: outcome.response,
            error,
            next_attempt_at: if outcome.ok || outcome.gone { None } else { retry_in.map(|wait| now() + wait) },
            created_at: at,
            url: send.url.map(str::to_string),
        };
        self.store.insert_webhook_attempt(&row).await?;
        // A 410 from a develop's own URL ends that delivery only; the endpoint is not its.
        if outcome.gone && send.url.is_none() {
            self.disable_and_tell(endpoint, "The receiver answered 410 Gone.").await;
        }
        Ok(row)
    }

    /// `GET /api/toolkit/webhooks/{id}/deliveries`: one page of the log, newest attempt first
    /// (any role). 400 `BAD_LIMIT`, `BAD_CURSOR`; 404 `NOT_FOUND`.
    pub async fn deliveries(
        &self,
        caller: &Caller,
        id: &WebhookId,
        query: DeliveriesQuery,
    ) -> Result<WebhookDeliveryPage> {
        let limit = query.limit.unwrap_or(DEFAULT_DELIVERIES_PAGE);
        if !(1..=MAX_DELIVERIES_PAGE).contains(&limit) {
            return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_DELIVERIES_PAGE}.")));
        }
        let cursor = query.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty());
        if cursor.is_some_and(|c| !c.starts_with("wha_")) {
            return Err(Error::invalid("BAD_CURSOR", "That cursor is not one we gave."));
        }
        self.store.webhook(&caller.org_id, id).await?.ok_or_else(not_found)?;
        let mut rows = self.store.webhook_attempts(&caller.org_id, id, i64::from(limit) + 1, cursor).await?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_cursor = if more { rows.last().map(|r| r.id.clone()) } else { None };
        Ok(WebhookDeliveryPage { deliveries: rows.iter().map(attempt_view).collect(), next_cursor })
    }

    /// `POST /api/toolkit/webhooks/{id}/test`: send a `ping` now (even to a disabled endpoint)
    /// and answer the attempt. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn test(&self, caller: &Caller, id: &WebhookId) -> Result<WebhookDelivery> {
        require_manage(caller)?;
        let endpoint = self.store.webhook(&caller.org_id, id).await?.ok_or_else(not_found)?;
        let delivery_id = DeliveryId::generate();
        let payload = json!({"type": PING, "webhookId": endpoint.id, "sentAt": now()}).to_string();
        let send =
            Send { delivery_id: &delivery_id, event: PING, event_seq: None, payload: &payload, attempt: 1, url: None };
        Ok(attempt_view(&self.send_logged(&endpoint, send, None).await?))
    }

    /// `POST /api/toolkit/webhooks/{id}/deliveries/{deliveryId}/replay`: send one delivery
    /// again now, the same bytes under the same `webhook-id`, logged as its next attempt.
    /// 403 `FORBIDDEN`; 404 `NOT_FOUND`, `DELIVERY_NOT_FOUND`.
    pub async fn replay(&self, caller: &Caller, id: &WebhookId, delivery_id: &DeliveryId) -> Result<WebhookDelivery> {
        require_manage(caller)?;
        let endpoint = self.store.webhook(&caller.org_id, id).await?.ok_or_else(not_found)?;
        let last = self.store.last_webhook_attempt(&caller.org_id, id, delivery_id).await?.ok_or_else(|| {
            Error::not_found("DELIVERY_NOT_FOUND", "No delivery with that id was made to this webhook.")
        })?;
        let send = Send {
            delivery_id: &last.delivery_id,
            event: &last.event,
            event_seq: last.event_seq,
            payload: &last.payload,
            attempt: last.attempt + 1,
            url: last.url.as_deref(),
        };
        Ok(attempt_view(&self.send_logged(&endpoint, send, None).await?))
    }
}
