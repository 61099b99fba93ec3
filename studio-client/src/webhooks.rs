//! Webhook endpoints through the client (docs/webhooks.md): list, create (the signing secret is
//! answered once), read, change, delete and rotate a house's endpoints; read an endpoint's
//! delivery log, send it a `ping` now, and send one delivery again.
//!
//! A receiver checks a delivery with [`verify_webhook`](crate::verify_webhook).

use studio_core::api::{
    DeliveriesQuery, NewWebhook, Webhook, WebhookCreated, WebhookDeleted, WebhookDelivery, WebhookDeliveryPage,
    WebhookList, WebhookPatch, WebhookSecret,
};

use crate::client::{Client, encode};
use crate::error::Error;

/// The route group's root.
const ROOT: &str = "/api/toolkit/webhooks";

impl Client {
    /// `GET /api/toolkit/webhooks`: the house's endpoints, oldest first (any role).
    pub async fn webhooks(&self) -> Result<WebhookList, Error> {
        self.get(ROOT).await
    }

    /// `POST /api/toolkit/webhooks`: a new endpoint and its signing secret (`whsec_…`), shown
    /// this once. An owner's or admin's session. 400 `BAD_URL`, `UNKNOWN_EVENT`; 403
    /// `FORBIDDEN`.
    pub async fn create_webhook(&self, new: &NewWebhook) -> Result<WebhookCreated, Error> {
        self.post(ROOT, new).await
    }

    /// `GET /api/toolkit/webhooks/{id}`. 404 `NOT_FOUND`.
    pub async fn webhook(&self, id: &str) -> Result<Webhook, Error> {
        self.get(&format!("{ROOT}/{}", encode(id))).await
    }

    /// `PATCH /api/toolkit/webhooks/{id}`: each field given replaces the stored one; enabling
    /// clears `disabledReason`. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn patch_webhook(&self, id: &str, patch: &WebhookPatch) -> Result<Webhook, Error> {
        self.patch(&format!("{ROOT}/{}", encode(id)), patch).await
    }

    /// `DELETE /api/toolkit/webhooks/{id}`. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn delete_webhook(&self, id: &str) -> Result<WebhookDeleted, Error> {
        let path = format!("{ROOT}/{}", encode(id));
        let (deleted, _) = self.call(reqwest::Method::DELETE, &path, false, |r| std::future::ready(Ok(r))).await?;
        Ok(deleted)
    }

    /// `POST /api/toolkit/webhooks/{id}/rotate-secret`: a new signing secret, shown this once;
    /// the previous one keeps signing beside it for 24 hours. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn rotate_webhook_secret(&self, id: &str) -> Result<WebhookSecret, Error> {
        self.post(&format!("{ROOT}/{}/rotate-secret", encode(id)), &serde_json::json!({})).await
    }

    /// `GET /api/toolkit/webhooks/{id}/deliveries?limit=&cursor=`: one page of the endpoint's
    /// log, newest attempt first, one row per attempt (any role). 400 `BAD_LIMIT`, `BAD_CURSOR`;
    /// 404 `NOT_FOUND`.
    pub async fn webhook_deliveries(&self, id: &str, query: &DeliveriesQuery) -> Result<WebhookDeliveryPage, Error> {
        let mut params = Vec::new();
        if let Some(limit) = query.limit {
            params.push(format!("limit={limit}"));
        }
        if let Some(cursor) = &query.cursor {
            params.push(format!("cursor={}", encode(cursor)));
        }
        let path = format!("{ROOT}/{}/deliveries", encode(id));
        let path = if params.is_empty() { path } else { format!("{path}?{}", params.join("&")) };
        self.get(&path).await
    }

    /// `POST /api/toolkit/webhooks/{id}/test`: send a `ping` now and answer the attempt: what
    /// came back, or what went wrong. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn test_webhook(&self, id: &str) -> Result<WebhookDelivery, Error> {
        self.post(&format!("{ROOT}/{}/test", encode(id)), &serde_json::json!({})).await
    }

    /// `POST /api/toolkit/webhooks/{id}/deliveries/{deliveryId}/replay`: send one delivery again
    /// now, under its own `webhook-id`, and answer the attempt. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn replay_webhook_delivery(&self, id: &str, delivery_id: &str) -> Result<WebhookDelivery, Error> {
        let path = format!("{ROOT}/{}/deliveries/{}/replay", encode(id), encode(delivery_id));
        self.post(&path, &serde_json::json!({})).await
    }
}

/// Why [`verify_webhook`] refused a delivery.
pub use studio_core::WebhookError;

/// Check a delivery a Studio deployment sent to your endpoint: its `webhook-id`,
/// `webhook-timestamp` and `webhook-signature` headers against `secret` (the endpoint's
/// `whsec_…`) and the exact `body` bytes received, now. The timestamp must be within 5 minutes
/// of this machine's clock and one `v1` signature must match (during the 24 hours after a
/// rotation a delivery carries one per live secret; either secret verifies it). Answers the
/// `webhook-id`, the same on every attempt of one event: deduplicate on it.
pub fn verify_webhook(secret: &str, headers: &reqwest::header::HeaderMap, body: &[u8]) -> Result<String, WebhookError> {
    verify_webhook_at(secret, headers, body, chrono::Utc::now().timestamp())
}

/// [`verify_webhook`] at `now` (seconds since the epoch) instead of this machine's clock.
pub fn verify_webhook_at(
    secret: &str,
    headers: &reqwest::header::HeaderMap,
    body: &[u8],
    now: i64,
) -> Result<String, WebhookError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let received = studio_core::WebhookHeaders {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
    };
    studio_core::verify_webhook(secret, &received, body, now)
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;

    // The Standard Webhooks specification's own example.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TS: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn headers(signature: &str, ts: i64) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("webhook-id", HeaderValue::from_static(ID));
        h.insert("webhook-timestamp", HeaderValue::from_str(&ts.to_string()).unwrap());
        h.insert("webhook-signature", HeaderValue::from_str(signature).unwrap());
        h
    }

    #[test]
    fn the_specification_vector_verifies_and_tampering_does_not() {
        assert_eq!(verify_webhook_at(SECRET, &headers(SIGNATURE, TS), BODY, TS + 30).as_deref(), Ok(ID));
        // Two signatures after a rotation: the one that matches is enough.
        let rotated = format!("v1,{} {SIGNATURE}", "A".repeat(44));
        assert_eq!(verify_webhook_at(SECRET, &headers(&rotated, TS), BODY, TS).as_deref(), Ok(ID));
        assert_eq!(
            verify_webhook_at(SECRET, &headers(SIGNATURE, TS), br#"{"test": 2432232315}"#, TS),
            Err(WebhookError::NoMatch)
        );
        assert_eq!(verify_webhook_at(SECRET, &headers(SIGNATURE, TS), BODY, TS + 301), Err(WebhookError::Stale));
        assert_eq!(
            verify_webhook_at("whsec_b3RoZXIgc2VjcmV0", &headers(SIGNATURE, TS), BODY, TS),
            Err(WebhookError::NoMatch)
        );
        assert_eq!(
            verify_webhook_at(SECRET, &HeaderMap::new(), BODY, TS),
            Err(WebhookError::MissingHeader("webhook-id"))
        );
        // Today's clock: the 2021 example is long stale.
        assert_eq!(verify_webhook(SECRET, &headers(SIGNATURE, TS), BODY), Err(WebhookError::Stale));
    }
}
