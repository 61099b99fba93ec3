//! Webhook endpoints on the wire (docs/webhooks.md): a house's own URLs its events are delivered
//! to, signed as Standard Webhooks. Owners and admins write them; every role reads them.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The event kinds an endpoint may subscribe to: the job socket's own kinds (`job`: a develop
/// changed state; `pack.ready`: a pack can be downloaded). `*` subscribes to all of them,
/// including kinds added later. `ping` is sent only by `POST …/{id}/test`.
pub const WEBHOOK_EVENTS: [&str; 2] = ["job", "pack.ready"];
/// The subscription to every event kind.
pub const ALL_EVENTS: &str = "*";
/// The most endpoints a house may keep.
pub const MAX_WEBHOOKS: usize = 20;
/// The longest URL, in bytes.
pub const MAX_WEBHOOK_URL: usize = 2048;
/// The longest description, in characters.
pub const MAX_WEBHOOK_DESCRIPTION: usize = 500;
/// How long a rotated-out secret keeps signing beside the new one, in hours.
pub const ROTATION_OVERLAP_HOURS: i64 = 24;

/// A webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    /// Id (`whk_…`).
    pub id: String,
    /// Where deliveries go (https; http only to loopback when the operator allows it).
    pub url: String,
    /// A note for people (may be empty).
    pub description: String,
    /// The event kinds delivered (see [`WEBHOOK_EVENTS`]), or `["*"]` for all.
    pub events: Vec<String>,
    /// False once disabled, by a person or by the delivery rules (`disabledReason` says which).
    pub enabled: bool,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Why deliveries stopped, when the delivery rules disabled it (a 410, a run of failures);
    /// null while enabled or when a person disabled it.
    pub disabled_reason: Option<String>,
}

/// `POST /api/toolkit/webhooks`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewWebhook {
    /// Required: `https://…` (at most 2048 bytes).
    #[serde(default)]
    pub url: String,
    /// At most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Event kinds; `["*"]` (the default) for all. An unknown kind is 400 `UNKNOWN_EVENT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    /// Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// `PATCH /api/toolkit/webhooks/{id}`: each field given replaces the stored one. Enabling an
/// endpoint clears its `disabledReason`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookPatch {
    /// A new URL, checked as on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// New event kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    /// Enable or disable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// `GET /api/toolkit/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookList {
    /// The house's endpoints, oldest first.
    pub webhooks: Vec<Webhook>,
}

/// A new endpoint with its signing secret, answered once (`POST /api/toolkit/webhooks`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookCreated {
    /// The endpoint.
    #[serde(flatten)]
    pub webhook: Webhook,
    /// The signing secret (`whsec_<base64>`). It is shown here and after a rotation only.
    pub secret: String,
}

/// `POST /api/toolkit/webhooks/{id}/rotate-secret`: the new secret, answered once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookSecret {
    /// The endpoint's id.
    pub id: String,
    /// The new signing secret (`whsec_<base64>`).
    pub secret: String,
    /// Until when the previous secret also signs every delivery (24 hours from now).
    pub previous_secret_expires_at: DateTime<Utc>,
}

/// `DELETE /api/toolkit/webhooks/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeleted {
    /// The endpoint removed.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}

/// Deliveries one page lists by default, and the most.
pub const DEFAULT_DELIVERIES_PAGE: u32 = 50;
/// The most deliveries one page lists.
pub const MAX_DELIVERIES_PAGE: u32 = 100;
/// The most of a receiver's answer kept in the log, in bytes.
pub const MAX_LOGGED_RESPONSE: usize = 1024;

/// One attempt to deliver one event to one endpoint, as the log shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    /// The attempt's id (`wha_…`).
    pub id: String,
    /// The delivery's id (`msg_…`): the `webhook-id` header, the same on every attempt of one
    /// event to one endpoint (deduplicate on it); what `…/deliveries/{deliveryId}/replay` names.
    pub delivery_id: String,
    /// The event kind (`job`, `pack.ready`, `ping`).
    pub event: String,
    /// The house event number the event carries (null for `ping`).
    pub event_seq: Option<i64>,
    /// 1 for the first attempt, then 2, 3, …
    pub attempt: i32,
    /// True when the receiver answered 2xx.
    pub ok: bool,
    /// The receiver's HTTP status; null when none came (refused target, timeout, connection).
    pub status: Option<u16>,
    /// How long the attempt took, in milliseconds.
    pub latency_ms: i64,
    /// The first 1 KB of the receiver's answer (UTF-8, lossy).
    pub response: Option<String>,
    /// What went wrong, in words (`redirect to …`, `timed out after 10 s`, …); null on success.
    pub error: Option<String>,
    /// When the next attempt of this delivery is due; null when none will be made.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When the attempt was made.
    pub created_at: DateTime<Utc>,
    /// The URL the attempt went to when it was not the endpoint's own: a develop's `webhookUrl`
    /// (signed with this endpoint's secret); absent for the endpoint's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `GET /api/toolkit/webhooks/{id}/deliveries?limit=&cursor=`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveriesQuery {
    /// 1 to 100 (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of an endpoint's delivery log, newest attempt first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveryPage {
    /// One row per attempt.
    pub deliveries: Vec<WebhookDelivery>,
    /// The cursor of the next page; null on the last.
    pub next_cursor: Option<String>,
}
