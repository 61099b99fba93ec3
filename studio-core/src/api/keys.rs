//! Organization keys on the wire.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::KeyRole;

/// `POST /api/keys` (session only).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MintKeyRequest {
    /// A label for people; 1 to 100 characters.
    pub name: String,
    /// `viewer` or `member` (the default).
    #[serde(default)]
    pub role: Option<KeyRole>,
}

/// An organization key (spec §2.1). `key` is present only in the mint answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    /// Opaque id.
    pub id: String,
    /// Label given at mint.
    pub name: String,
    /// `viewer` or `member`.
    pub role: KeyRole,
    /// First characters of the secret, beginning `studio_sk_`.
    pub prefix: String,
    /// Last time a request used the key (kept to the minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When the key was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// When the key was minted.
    pub created_at: DateTime<Utc>,
    /// The full secret: only in the mint answer, never again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `GET /api/keys`: every key the house minted, revoked included, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KeyList {
    /// The keys, without secrets.
    pub keys: Vec<ApiKey>,
}

/// `DELETE /api/keys/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RevokedKey {
    /// Always true; revoking twice is harmless.
    pub revoked: bool,
    /// The key's id.
    pub id: String,
}
