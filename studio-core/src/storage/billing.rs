//! Checkouts, billing accounts, auto top-up and payments: the rows and the `BillingStore` trait.

use crate::ids::{OrgId, ProviderRef, UserId};
use chrono::{DateTime, Utc};

use super::{BalanceRow, Bucket, StorageError};

/// A checkout, or an auto top-up charge, as stored: what was sold and whether it was paid.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CheckoutRow {
    /// Our reference (`chk_…` for checkouts, `chg_…` for auto top-up charges).
    pub reference: String,
    /// The house that pays and receives the tokens.
    pub org_id: OrgId,
    /// Who asked (the owner, or the member whose run charged).
    pub user_id: Option<UserId>,
    /// topup, subscription, custom or autocharge (a CHECK constraint).
    pub kind: String,
    /// The pack or tier slug (`custom` for a custom amount).
    pub item: String,
    /// Tokens delivered when paid (monthly tokens for a subscription).
    pub tokens: i64,
    /// The charge, in US cents.
    pub amount_cents: i64,
    /// Subscriptions: the most the grant bucket may hold after a grant (monthly × rollover).
    pub grant_cap: Option<i64>,
    /// open, charged, paid or failed (a CHECK constraint).
    pub status: crate::storage::CheckoutStatus,
    /// The provider's id for the checkout.
    pub provider_id: Option<String>,
    /// The provider's payment id, once charged or paid.
    pub payment_id: Option<String>,
    /// Creation time (for auto top-up: the reservation time).
    pub created_at: DateTime<Utc>,
    /// When the first payment was granted.
    pub paid_at: Option<DateTime<Utc>>,
}

/// A house's billing account: its provider customer and auto top-up settings.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BillingAccountRow {
    /// The house.
    pub org_id: OrgId,
    /// The provider's customer, once the house has paid.
    pub customer_id: Option<String>,
    /// True once a payment saved a card for off-session charges.
    pub has_card: bool,
    /// Auto top-up armed.
    pub autocharge_enabled: bool,
    /// Charge when spendable tokens fall below this.
    pub threshold_tokens: i64,
    /// The pack bought on each refill.
    pub refill_pack: Option<String>,
    /// The most auto top-up may charge in a calendar month (UTC), in cents.
    pub monthly_cap_cents: i64,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// Auto top-up settings to save.
#[derive(Debug, Clone, PartialEq)]
pub struct AutochargeSettings {
    /// The house.
    pub org_id: OrgId,
    /// Armed.
    pub enabled: bool,
    /// Charge below this many spendable tokens.
    pub threshold_tokens: i64,
    /// The refill pack's slug.
    pub refill_pack: String,
    /// The monthly ceiling in cents.
    pub monthly_cap_cents: i64,
    /// Save time.
    pub now: DateTime<Utc>,
}

/// An active pack offered to auto top-up: slug, tokens and price in cents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefillPack {
    /// Slug.
    pub slug: String,
    /// Tokens.
    pub tokens: i64,
    /// Price in cents.
    pub price_cents: i64,
}

/// An auto top-up reservation to attempt.
#[derive(Debug, Clone)]
pub struct NewAutocharge {
    /// The charge's reference (`chg_…`).
    pub reference: String,
    /// The house.
    pub org_id: OrgId,
    /// Who ran it.
    pub user_id: Option<UserId>,
    /// The packs active now (the saved refill pack must be one of them).
    pub packs: Vec<RefillPack>,
    /// Start of the current month (UTC): charges since count against the ceiling.
    pub month_start: DateTime<Utc>,
    /// A charge at or after this blocks a new one (the debounce).
    pub debounce_since: DateTime<Utc>,
    /// Reservation time.
    pub now: DateTime<Utc>,
}

/// What an auto top-up reservation did.
#[derive(Debug, Clone, PartialEq)]
pub enum AutochargeOutcome {
    /// A pending charge is recorded (status `open`); the caller charges the customer.
    Reserved {
        /// The pending charge.
        charge: Box<CheckoutRow>,
        /// The customer to charge.
        customer_id: String,
    },
    /// No charge: why (`disabled`, `no_card`, `pack_unavailable`, `debounced`, `monthly_cap`,
    /// `above_threshold`).
    Refused(&'static str),
}

/// A verified payment event to apply.
#[derive(Debug, Clone)]
pub struct NewPayment {
    /// `webhook-id`: each is applied once.
    pub webhook_id: String,
    /// The event type; only `payment.succeeded` grants.
    pub event_type: String,
    /// Our checkout or charge reference.
    pub reference: Option<String>,
    /// The provider's payment id.
    pub payment_id: Option<String>,
    /// The provider's customer.
    pub customer_id: Option<String>,
    /// What was paid, in cents, when the event says.
    pub amount_cents: Option<i64>,
    /// The currency paid in, when the event says.
    pub currency: Option<String>,
    /// Arrival time.
    pub now: DateTime<Utc>,
}

/// What applying a payment event did.
#[derive(Debug, Clone, PartialEq)]
pub enum PaymentOutcome {
    /// Tokens were credited (possibly 0 for a subscription whose bucket is at its cap).
    Granted {
        /// The house.
        org_id: String,
        /// Tokens credited.
        tokens: i64,
        /// The bucket.
        bucket: Bucket,
        /// Totals after.
        balance: BalanceRow,
    },
    /// A claim's payment became a holding (an offering bought).
    Entitled {
        /// The house.
        org_id: String,
        /// The holding.
        holding: Box<super::EntitlementRow>,
    },
    /// A claim's payment could not become a holding: the case to refund or review.
    Lapsed(Box<super::EntitlementCaseRow>),
    /// This payment of this reference was granted before: nothing moved.
    AlreadyGranted,
    /// This webhook id was applied before: nothing moved.
    Duplicate,
    /// Recorded, nothing granted: why (`event_type`, `unknown_reference`).
    Ignored(&'static str),
}

/// Checkouts, billing accounts, auto top-up and payments.
#[async_trait::async_trait]
pub trait BillingStore: Send + Sync {
    /// Store a new checkout (status `open`).
    async fn insert_checkout(&self, checkout: CheckoutRow) -> Result<(), StorageError>;
    /// Record the provider's answer for a checkout: its id (`open`), or `failed`.
    async fn checkout_created(&self, reference: &str, provider_id: Option<&ProviderRef>) -> Result<(), StorageError>;
    /// A checkout or charge by reference.
    async fn checkout(&self, reference: &str) -> Result<Option<CheckoutRow>, StorageError>;
    /// A house's billing account, if it has one.
    async fn billing_account(&self, org_id: &OrgId) -> Result<Option<BillingAccountRow>, StorageError>;
    /// Save a house's auto top-up settings (creating its account row).
    async fn save_autocharge(&self, settings: AutochargeSettings) -> Result<BillingAccountRow, StorageError>;
    /// In one transaction, locked against every other ledger write of the house: re-check that
    /// auto top-up is armed with a card and an active pack, that no charge is in the debounce
    /// window, that the month's charges plus this one stay under the ceiling and that the live
    /// spendable balance is below the threshold; then record the pending charge.
    async fn reserve_autocharge(&self, request: NewAutocharge) -> Result<AutochargeOutcome, StorageError>;
    /// The provider accepted a pending charge: mark it `charged` with its payment id.
    async fn autocharge_charged(&self, reference: &str, payment_id: &ProviderRef) -> Result<(), StorageError>;
    /// The provider refused a pending charge: mark it `failed`, so it counts for neither the
    /// debounce nor the ceiling (the reservation is rolled back).
    async fn autocharge_failed(&self, reference: &str) -> Result<(), StorageError>;
    /// A house's auto top-up charges that did not fail, newest first.
    async fn autocharges(&self, org_id: &OrgId, limit: i64) -> Result<Vec<CheckoutRow>, StorageError>;
    /// Cents of auto top-up charges (not failed) made at or after `since`.
    async fn autocharge_spent(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError>;
    /// Apply a verified payment event in one transaction: record its webhook id (a repeat is
    /// `Duplicate`), and for `payment.succeeded` grant the checkout's tokens once per payment
    /// (top-ups into the top-up bucket; subscriptions into the grant bucket, up to the
    /// checkout's `grant_cap`), mark it paid and remember the customer.
    async fn apply_payment(&self, payment: NewPayment) -> Result<PaymentOutcome, StorageError>;
}
