//! Tokens on the wire: the balance, holds, the price book and admin grants.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The house's balance (spec §2.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Balance {
    /// Spendable tokens: grant + topup.
    pub balance: i64,
    /// Tokens in the grant bucket (signup, subscription, admin grants); spent first.
    pub grant: i64,
    /// Tokens in the top-up bucket (bought).
    pub topup: i64,
    /// Tokens on hold for work in flight.
    pub held: i64,
    /// The open holds.
    pub holds: Vec<HoldView>,
}

/// One open hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoldView {
    /// Hold id.
    pub id: String,
    /// Tokens held.
    pub amount: i64,
    /// The develop (job) the hold pays for, if any.
    pub generation_id: Option<String>,
    /// When the tokens were reserved.
    pub created_at: DateTime<Utc>,
}

/// The price book (spec §2.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PriceBook {
    /// Every priced tool.
    pub tools: Vec<ToolPrice>,
    /// How to read the book.
    pub note: String,
}

/// One tool's prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolPrice {
    /// Tool slug.
    pub tool: String,
    /// One row per quality.
    pub prices: Vec<Price>,
}

/// One price row: what settles for a develop at this quality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Price {
    /// `1k`, `2k` or `4k`.
    pub resolution: String,
    /// Tokens charged.
    pub tokens: i64,
}

/// `POST /api/toolkit/admin/grant-tokens`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantTokensRequest {
    /// The person whose house receives the grant.
    #[serde(default)]
    pub user_id: Option<String>,
    /// A whole number of tokens, 1 to the maximum the error names.
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub tokens: Option<serde_json::Value>,
    /// Days until the grant lapses; null or absent for never.
    #[serde(default)]
    pub expiry_days: Option<i64>,
    /// Why, for the ledger.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Answer of an admin grant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantTokensResponse {
    /// Always true.
    pub ok: bool,
    /// Tokens granted by this call.
    pub granted: i64,
    /// The house's spendable balance after the grant.
    pub tokens: i64,
    /// When the grant lapses, if ever.
    pub expires_at: Option<DateTime<Utc>>,
}
