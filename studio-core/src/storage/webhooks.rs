//! Webhook endpoints as stored, and the `WebhookStore` trait (docs/webhooks.md). The signing
//! secrets are stored sealed (`webhooks/seal.rs`); this layer never sees them in clear.

use crate::ids::{DeliveryId, OrgId, UserId, WebhookId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// An endpoint as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WebhookRow {
    /// Id (`whk_…`).
    pub id: WebhookId,
    /// The house.
    pub org_id: OrgId,
    /// Where deliveries go.
    pub url: String,
    /// A note for people.
    pub description: String,
    /// The event kinds as a JSON array of strings.
    pub events: String,
    /// False once disabled.
    pub enabled: bool,
    /// The current signing secret, sealed.
    pub secret_sealed: String,
    /// The rotated-out secret, sealed, while it still signs.
    pub previous_sealed: Option<String>,
    /// Until when the rotated-out secret signs.
    pub previous_expires_at: Option<DateTime<Utc>>,
    /// Why the delivery rules disabled it.
    pub disabled_reason: Option<String>,
    /// Who created it.
    pub created_by: UserId,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// The changes of a patch; `None` keeps the stored value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WebhookChanges {
    /// A new URL.
    pub url: Option<String>,
    /// A new description.
    pub description: Option<String>,
    /// New event kinds (JSON array text).
    pub events: Option<String>,
    /// Enable (clears `disabled_reason`) or disable.
    pub enabled: Option<bool>,
}

/// One delivery attempt as logged.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WebhookAttemptRow {
    /// Id (`wha_…`, time-ordered).
    pub id: String,
    /// The house.
    pub org_id: OrgId,
    /// The endpoint.
    pub endpoint_id: WebhookId,
    /// The delivery (`msg_…`): the `webhook-id` of every attempt of one event.
    pub delivery_id: DeliveryId,
    /// The event kind.
    pub event: String,
    /// The house event number, when the event has one.
    pub event_seq: Option<i64>,
    /// The exact body sent.
    pub payload: String,
    /// 1, 2, 3, …
    pub attempt: i32,
    /// A 2xx answer.
    pub ok: bool,
    /// The receiver's status.
    pub status: Option<i32>,
    /// How long it took.
    pub latency_ms: i64,
    /// The first 1 KB of the answer.
    pub response: Option<String>,
    /// What went wrong, in words.
    pub error: Option<String>,
    /// When the next attempt is due.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// The URL it went to when not the endpoint's own (a develop's `webhookUrl`).
    pub url: Option<String>,
}

/// One event waiting for (or done with) delivery to one endpoint: a row of the outbox.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WebhookDeliveryRow {
    /// Id (`msg_…`, time-ordered): the `webhook-id` of every attempt.
    pub id: DeliveryId,
    /// The house.
    pub org_id: OrgId,
    /// The endpoint.
    pub endpoint_id: WebhookId,
    /// The event kind.
    pub event: String,
    /// The house event number, when the event has one.
    pub event_seq: Option<i64>,
    /// The exact body every attempt sends.
    pub payload: String,
    /// A develop's own `webhookUrl`, signed with the endpoint's secret; None for the endpoint's URL.
    pub url: Option<String>,
    /// Attempts claimed so far (the claim counts the one it starts).
    pub attempts: i32,
    /// `pending`, `delivered`, `failed` or `dropped`.
    pub status: crate::storage::DeliveryStatus,
    /// When the next attempt is due.
    pub next_attempt_at: DateTime<Utc>,
    /// The claim of the worker making an attempt now.
    pub claim_token: Option<String>,
    /// Until when that claim holds.
    pub lease_until: Option<DateTime<Utc>>,
    /// When the event was published.
    pub created_at: DateTime<Utc>,
    /// When the row last changed.
    pub updated_at: DateTime<Utc>,
}

impl WebhookDeliveryRow {
    /// A new outbox row for `endpoint` (`url` for a develop's own URL under it), pending and never
    /// attempted, published at `at` and due at `due`, under a fresh `msg_` id.
    pub fn pending(
        endpoint: (&OrgId, &WebhookId, Option<String>),
        event: (&str, Option<i64>, String),
        at: DateTime<Utc>,
        due: DateTime<Utc>,
    ) -> Self {
        let ((org_id, endpoint_id, url), (kind, event_seq, payload)) = (endpoint, event);
        WebhookDeliveryRow {
            id: DeliveryId::generate(),
            org_id: org_id.clone(),
            endpoint_id: endpoint_id.clone(),
            event: kind.to_string(),
            event_seq,
            payload,
            url,
            attempts: 0,
            status: crate::storage::DeliveryStatus::Pending,
            next_attempt_at: due,
            claim_token: None,
            lease_until: None,
            created_at: at,
            updated_at: at,
        }
    }
}

/// What became of a claimed delivery.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeliveryFate {
    /// A 2xx: done.
    Delivered,
    /// Failed, to be tried again at this time.
    Retry(DateTime<Utc>),
    /// Failed for good (the schedule ran out, or 410).
    Failed,
    /// Not sent: the endpoint was disabled or deleted.
    Dropped,
}

/// Webhook endpoints.
#[async_trait::async_trait]
pub trait WebhookStore: Send + Sync {
    /// Insert a new endpoint unless the house already keeps `max` of them; false when it does.
    async fn insert_webhook(&self, row: &WebhookRow, max: i64) -> Result<bool, StorageError>;
    /// One endpoint of the house.
    async fn webhook(&self, org_id: &OrgId, id: &WebhookId) -> Result<Option<WebhookRow>, StorageError>;
    /// Every endpoint of the house, oldest first.
    async fn webhooks(&self, org_id: &OrgId) -> Result<Vec<WebhookRow>, StorageError>;
    /// Apply a patch; None when there is no such endpoint.
    async fn update_webhook(
        &self,
        org_id: &OrgId,
        id: &WebhookId,
        changes: &WebhookChanges,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookRow>, StorageError>;
    /// Replace the signing secret, keeping the current one as the previous until `until`;
    /// None when there is no such endpoint.
    async fn rotate_webhook_secret(
        &self,
        org_id: &OrgId,
        id: &WebhookId,
        sealed: &str,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Option<WebhookRow>, StorageError>;
    /// Delete an endpoint and its log; false when there is no such endpoint.
    async fn delete_webhook(&self, org_id: &OrgId, id: &WebhookId) -> Result<bool, StorageError>;
    /// Disable an enabled endpoint for `reason` (the delivery rules: a 410, a run of failures);
    /// false when it was already disabled (or is gone), so the rules act once.
    async fn disable_webhook(
        &self,
        org_id: &OrgId,
        id: &WebhookId,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Log one attempt.
    async fn insert_webhook_attempt(&self, row: &WebhookAttemptRow) -> Result<(), StorageError>;
    /// Up to `limit` attempts of an endpoint, newest first, older than the attempt `before`.
    async fn webhook_attempts(
        &self,
        org_id: &OrgId,
        endpoint_id: &WebhookId,
        limit: i64,
        before: Option<&str>,
    ) -> Result<Vec<WebhookAttemptRow>, StorageError>;
    /// The latest attempt of one delivery of an endpoint.
    async fn last_webhook_attempt(
        &self,
        org_id: &OrgId,
        endpoint_id: &WebhookId,
        delivery_id: &DeliveryId,
    ) -> Result<Option<WebhookAttemptRow>, StorageError>;
    /// Queue deliveries (the outbox), each `pending` and due at its `next_attempt_at`; a job
    /// change already queued for an endpoint (same endpoint, same event number) is skipped.
    async fn enqueue_webhook_deliveries(&self, rows: &[WebhookDeliveryRow]) -> Result<(), StorageError>;
    /// Claim the oldest due pending delivery whose endpoint has no other attempt in flight, until
    /// `lease_until`, counting the attempt it starts; None when none is due. A delivery whose
    /// lease lapsed (its worker died) is due again.
    async fn claim_webhook_delivery(
        &self,
        claim_token: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<WebhookDeliveryRow>, StorageError>;
    /// Record what became of a claimed delivery and release the claim; false when the claim
    /// was taken over meanwhile (nothing is changed then).
    async fn finish_webhook_delivery(
        &self,
        id: &DeliveryId,
        claim_token: &str,
        fate: DeliveryFate,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Every enabled endpoint of every house (the catch-up at a process's start).
    async fn enabled_webhooks(&self) -> Result<Vec<WebhookRow>, StorageError>;
    /// The newest job change (event number) queued for an endpoint's own URL; None when none was.
    async fn newest_queued_job_change(
        &self,
        org_id: &OrgId,
        endpoint_id: &WebhookId,
    ) -> Result<Option<i64>, StorageError>;
    /// How many deliveries of the house are in each status, as (status, count).
    async fn webhook_delivery_counts(&self, org_id: &OrgId) -> Result<Vec<(String, i64)>, StorageError>;
}
