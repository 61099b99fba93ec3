//! Tokens and money on the wire: the balance, holds, the price book, admin grants, the billing
//! catalog, checkouts, the portal, auto top-up and the payment webhook's answer.

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
    /// The input roles a develop of this tool must send (each at least once), in order: what
    /// a form asks for before anything is held.
    #[serde(default)]
    pub roles: Vec<String>,
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

/// One subscription tier (spec §2.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tier {
    /// `studio`, `editorial` or `couture`.
    pub slug: String,
    /// A name for people.
    pub name: String,
    /// Monthly price in US dollars.
    pub price_usd: f64,
    /// Tokens granted into the grant bucket each paid month.
    pub monthly_tokens: i64,
    /// The grant bucket may hold at most this many months of tokens after a grant.
    pub rollover_multiple: i64,
    /// Highlighted in the catalog.
    pub featured: bool,
}

/// One token pack (spec §2.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenPack {
    /// `pack_250`, `pack_1000` or `pack_3000`.
    pub slug: String,
    /// Tokens delivered into the top-up bucket.
    pub tokens: i64,
    /// Price in US dollars.
    pub price_usd: f64,
}

/// `GET /api/toolkit/ai/billing/catalog`: what can be bought (public).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BillingCatalog {
    /// The payment provider in use (`test` for test mode); null when billing is off.
    pub provider: Option<String>,
    /// Active subscription tiers.
    pub tiers: Vec<Tier>,
    /// Active token packs.
    pub packs: Vec<TokenPack>,
}

/// `POST /api/toolkit/ai/billing/checkout/topup`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct TopupCheckoutRequest {
    /// The pack slug.
    #[serde(default)]
    pub pack: Option<String>,
}

/// `POST /api/toolkit/ai/billing/checkout/subscription`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct SubscriptionCheckoutRequest {
    /// The tier slug.
    #[serde(default)]
    pub tier: Option<String>,
}

/// `POST /api/toolkit/ai/billing/checkout/custom`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomCheckoutRequest {
    /// Dollars to spend, in whole cents; quantised down to whole tokens.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    pub amount_usd: Option<serde_json::Value>,
}

/// A created checkout: where the owner pays. Nothing is credited until the provider's signed
/// `payment.succeeded` arrives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckoutResponse {
    /// The payment page.
    pub url: String,
}

/// A created custom checkout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomCheckoutResponse {
    /// The payment page.
    pub url: String,
    /// Tokens delivered when paid.
    pub tokens: i64,
    /// The charge, in cents (the quantised amount).
    pub amount_cents: i64,
}

/// `POST /api/toolkit/ai/billing/portal`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PortalResponse {
    /// The provider's billing portal for this house.
    pub url: String,
}

/// Auto top-up settings as shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeSettingsView {
    /// Armed.
    pub enabled: bool,
    /// Charge when spendable tokens fall below this.
    pub threshold_tokens: i64,
    /// The refill pack's price in cents.
    pub refill_cents: i64,
    /// The refill pack's slug.
    pub refill_pack: String,
    /// The most charged in a calendar month (UTC), in cents.
    pub monthly_cap_cents: i64,
}

/// This month's auto top-up spending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeMonth {
    /// `YYYY-MM` (UTC).
    pub period: String,
    /// Cents charged this month.
    pub spent_cents: i64,
}

/// A pack as auto top-up offers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargePack {
    /// Slug.
    pub slug: String,
    /// Tokens.
    pub tokens: i64,
    /// Price in cents.
    pub price_cents: i64,
}

/// Auto top-up limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeLimits {
    /// Minutes between two charges.
    pub debounce_minutes: i64,
    /// Largest threshold.
    pub max_threshold_tokens: i64,
    /// Largest monthly ceiling, in cents.
    pub max_cap_cents: i64,
}

/// One auto top-up charge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeCharge {
    /// When it was charged.
    pub at: DateTime<Utc>,
    /// Cents.
    pub amount_cents: i64,
    /// `usd`.
    pub currency: String,
    /// Our reference (`chg_…`).
    pub reference: String,
}

/// `GET /api/toolkit/ai/billing/autocharge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeView {
    /// Billing is configured.
    pub available: bool,
    /// The caller may arm it now (an owner's session, billing configured, a saved card).
    pub can_arm: bool,
    /// A payment saved a card.
    pub has_card: bool,
    /// The house has a provider customer.
    pub has_customer: bool,
    /// The settings (defaults when never saved).
    pub settings: AutochargeSettingsView,
    /// This month.
    pub this_month: AutochargeMonth,
    /// The latest charge, if any.
    pub last_charge_at: Option<DateTime<Utc>>,
    /// Packs a refill may buy.
    pub packs: Vec<AutochargePack>,
    /// Limits.
    pub limits: AutochargeLimits,
    /// Recent charges, newest first.
    pub charges: Vec<AutochargeCharge>,
}

/// `PUT /api/toolkit/ai/billing/autocharge`: every field required.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeUpdate {
    /// Arm or disarm.
    #[serde(default)]
    #[schemars(with = "Option<bool>")]
    pub enabled: Option<serde_json::Value>,
    /// Charge when spendable tokens fall below this (1 to the limit).
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub threshold_tokens: Option<serde_json::Value>,
    /// The refill pack's slug.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub pack: Option<serde_json::Value>,
    /// The monthly ceiling in dollars; never below one refill.
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    pub monthly_cap_usd: Option<serde_json::Value>,
}

/// Answer of a settings save.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AutochargeSaved {
    /// Always true.
    pub ok: bool,
    /// The saved settings.
    pub settings: AutochargeSettingsView,
}

/// `POST /api/toolkit/ai/billing/autocharge/run`: 200 whether or not it charged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutochargeRun {
    /// True when this call charged the card.
    pub charged: bool,
    /// Why not (`disabled`, `no_card`, `pack_unavailable`, `debounced`, `monthly_cap`,
    /// `above_threshold`); null when charged.
    pub reason: Option<String>,
    /// The pack bought.
    pub pack: Option<String>,
    /// Tokens bought.
    pub tokens: Option<i64>,
    /// Cents charged.
    pub amount_cents: Option<i64>,
    /// The provider's payment id.
    pub payment_id: Option<String>,
}

/// Answer to a payment provider's webhook delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookAck {
    /// Always true (the delivery was verified and recorded).
    pub ok: bool,
    /// True when this webhook id, or this payment, was applied before: nothing moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
    /// True when the event grants nothing (another event type, or not our reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<bool>,
    /// Tokens this delivery granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<i64>,
    /// The holding this delivery granted (an offering bought).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entitlement: Option<String>,
    /// A paid claim that could not become a holding: `refunded` through the provider, or
    /// `review` (a person refunds it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lapsed: Option<String>,
}
