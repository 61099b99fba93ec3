//! The token ledger: balances, holds, entries: the rows and the `LedgerStore` trait.

use crate::ids::{HoldId, OrgId, UserId};
use chrono::{DateTime, Utc};

use super::HoldStatus;
use super::StorageError;

/// The running totals of a house's ledger, kept in the same transaction as every entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct BalanceRow {
    /// Grant bucket.
    pub grant_tokens: i64,
    /// Top-up bucket.
    pub topup_tokens: i64,
    /// On hold.
    pub held: i64,
    /// Settled (spent) over all time.
    pub settled: i64,
    /// Credited (granted + bought) over all time.
    pub credited: i64,
    /// The house's latest job event number (moves with job state changes, not tokens).
    pub job_event_seq: i64,
}

impl BalanceRow {
    /// Spendable tokens: both buckets.
    pub fn spendable(&self) -> i64 {
        self.grant_tokens + self.topup_tokens
    }
}

/// A hold as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct HoldRow {
    /// Id (idempotency: reserving the same id twice holds once).
    pub id: HoldId,
    /// The house.
    pub org_id: OrgId,
    /// Tokens held.
    pub amount: i64,
    /// Part taken from the grant bucket.
    pub from_grant: i64,
    /// Part taken from the top-up bucket.
    pub from_topup: i64,
    /// The develop the hold pays for.
    pub generation_id: Option<String>,
    /// held, settled or released.
    pub status: HoldStatus,
    /// Reservation time.
    pub created_at: DateTime<Utc>,
    /// Settle or release time.
    pub resolved_at: Option<DateTime<Utc>>,
}

/// Sums over a house's ledger entries (a history scan: for audits and tests, never for reads).
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct LedgerAudit {
    /// Σ grant-bucket deltas.
    pub grant_tokens: i64,
    /// Σ top-up-bucket deltas.
    pub topup_tokens: i64,
    /// Σ held deltas.
    pub held: i64,
    /// Σ settled deltas.
    pub settled: i64,
    /// Σ credits (grants and top-ups).
    pub credited: i64,
    /// Number of entries.
    pub entries: i64,
}

/// Which bucket a credit fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Grants, signup, subscription tokens: spent first.
    Grant,
    /// Bought tokens.
    Topup,
}

/// A credit to append.
#[derive(Debug, Clone)]
pub struct NewCredit {
    /// The house.
    pub org_id: OrgId,
    /// Bucket.
    pub bucket: Bucket,
    /// Tokens, positive.
    pub amount: i64,
    /// Who caused it, if a person.
    pub user_id: Option<UserId>,
    /// Why.
    pub reason: String,
    /// When the grant lapses, if ever.
    pub expires_at: Option<DateTime<Utc>>,
    /// Entry time.
    pub now: DateTime<Utc>,
}

/// A hold to take.
#[derive(Debug, Clone)]
pub struct NewHold {
    /// Hold id; reserving an id that exists returns the existing hold and charges nothing.
    pub id: HoldId,
    /// The house.
    pub org_id: OrgId,
    /// Tokens, positive.
    pub amount: i64,
    /// The develop it pays for.
    pub generation_id: Option<String>,
    /// Who asked.
    pub user_id: Option<UserId>,
    /// Entry time.
    pub now: DateTime<Utc>,
}

/// What a reserve did.
#[derive(Debug, Clone, PartialEq)]
pub enum ReserveOutcome {
    /// Tokens moved from the buckets to held.
    Reserved(HoldRow),
    /// The hold id already existed: nothing moved.
    Existing(HoldRow),
    /// Not enough spendable tokens: nothing was written.
    Insufficient {
        /// Tokens the hold needs.
        need: i64,
        /// Tokens the house could spend.
        spendable: i64,
    },
}

/// What a settle or release did. Each hold resolves exactly once.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolveOutcome {
    /// This call resolved the hold.
    Resolved(HoldRow),
    /// The hold was resolved before (by settle or release); nothing moved.
    AlreadyResolved(HoldRow),
    /// No such hold in this house.
    NotFound,
}

/// The token ledger: credits, holds (reserve, settle, release) and the running totals.
#[async_trait::async_trait]
pub trait LedgerStore: Send + Sync {
    /// Append a credit and raise the running totals.
    async fn credit(&self, credit: NewCredit) -> Result<BalanceRow, StorageError>;
    /// Reserve tokens (grant bucket first), atomically against concurrent reserves.
    async fn reserve(&self, hold: NewHold) -> Result<ReserveOutcome, StorageError>;
    /// Charge a held hold; a second resolve changes nothing.
    async fn settle(
        &self,
        org_id: &OrgId,
        hold_id: &HoldId,
        now: DateTime<Utc>,
    ) -> Result<ResolveOutcome, StorageError>;
    /// Return a held hold to its buckets; a second resolve changes nothing.
    async fn release(
        &self,
        org_id: &OrgId,
        hold_id: &HoldId,
        now: DateTime<Utc>,
    ) -> Result<ResolveOutcome, StorageError>;
    /// The running totals (zeros for a house with no ledger yet).
    async fn balance(&self, org_id: &OrgId) -> Result<BalanceRow, StorageError>;
    /// A hold by id within a house.
    async fn hold(&self, org_id: &OrgId, hold_id: &HoldId) -> Result<Option<HoldRow>, StorageError>;
    /// Open holds of a house, oldest first.
    async fn open_holds(&self, org_id: &OrgId) -> Result<Vec<HoldRow>, StorageError>;
    /// Every hold of a house, resolved or not, oldest first (a history scan: for audits and
    /// tests, never for reads).
    async fn holds(&self, org_id: &OrgId) -> Result<Vec<HoldRow>, StorageError>;
    /// Sums over the house's entries, for audits.
    async fn audit(&self, org_id: &OrgId) -> Result<LedgerAudit, StorageError>;
    /// Expire the grants due by `now` (of one house, or of every house): each due grant entry
    /// gets one `expire` entry taking what is left of it (at most the grant bucket) out of the
    /// grant bucket, in a transaction that locks the house's balance. Holds already taken are
    /// untouched. Answers the tokens expired.
    async fn expire_grants(&self, org_id: Option<&OrgId>, now: DateTime<Utc>) -> Result<i64, StorageError>;
}
