//! The `Storage` trait: every read and write the domain needs, and nothing else.
//! All SQL of the project lives under this folder. Two real implementations share one body of
//! SQL (`sql.rs`): SQLite (the embedded default) and PostgreSQL (scale-out).

use std::sync::Arc;

use chrono::{DateTime, Utc};

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod group_commit;
mod sql;

#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(feature = "postgres")]
pub use postgres::PgStorage;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStorage;

/// A storage failure. `Conflict` is a uniqueness rule the caller may turn into a 409.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A unique value is already taken (the string names it).
    #[error("conflict: {0}")]
    Conflict(&'static str),
    /// The database answered with an error.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// Migrations could not be applied.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database URL names no backend this build has.
    #[error("unsupported database url: {0}")]
    Unsupported(String),
}

/// A person as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct UserRow {
    /// Id.
    pub id: String,
    /// Lowercased email.
    pub email: String,
    /// Display name.
    pub name: Option<String>,
    /// Argon2id PHC string, if the person has a password.
    pub password_hash: Option<String>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
}

/// A house as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct OrgRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// A seat: a person's role in a house.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct MembershipRow {
    /// The house.
    pub org_id: String,
    /// The person.
    pub user_id: String,
    /// owner, admin, member or viewer (a CHECK constraint in both schemas).
    pub role: String,
    /// When the seat was given.
    pub created_at: DateTime<Utc>,
}

/// A browser session as stored: only the SHA-256 of the cookie value.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SessionRow {
    /// SHA-256 hex of the cookie value.
    pub token_hash: String,
    /// The person.
    pub user_id: String,
    /// The house the session acts for.
    pub org_id: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// After this the session is refused.
    pub expires_at: DateTime<Utc>,
}

/// What a request with a session cookie needs, read in one query: the session's person and
/// house, their seat's role there and their email.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SessionSeat {
    /// The person.
    pub user_id: String,
    /// The house the session acts for.
    pub org_id: String,
    /// The seat's role in that house.
    pub role: String,
    /// The person's email (for the admin allowlist).
    pub email: String,
}

/// An organization key as stored: only the SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct KeyRow {
    /// Id.
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// The person who minted it.
    pub created_by: String,
    /// Label.
    pub name: String,
    /// viewer or member (a CHECK constraint in both schemas).
    pub role: String,
    /// Shown prefix of the secret.
    pub prefix: String,
    /// SHA-256 hex of the secret.
    pub secret_hash: String,
    /// Last use, kept to the minute.
    pub last_used_at: Option<DateTime<Utc>>,
    /// Revocation time.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Mint time.
    pub created_at: DateTime<Utc>,
}

/// A collection as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FolderRow {
    /// Id.
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Name, 1 to 200 characters (a CHECK constraint).
    pub name: String,
    /// Parent collection, same house.
    pub parent_id: Option<String>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// An asset as stored (deleted rows included; reads filter on `deleted_at`).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AssetRow {
    /// Id.
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Who uploaded it.
    pub created_by: Option<String>,
    /// Display name.
    pub name: String,
    /// The brand's code.
    pub sku: Option<String>,
    /// Wardrobe bucket (a CHECK constraint).
    pub kind: String,
    /// Collection.
    pub folder_id: Option<String>,
    /// Group stamp.
    pub group_id: Option<String>,
    /// Fit (a CHECK constraint).
    pub fit: Option<String>,
    /// Wearer (a CHECK constraint).
    pub wearer: Option<String>,
    /// Fit was guessed.
    pub fit_guessed: bool,
    /// Wearer was guessed.
    pub wearer_guessed: bool,
    /// Carries a brand mark.
    pub carries_mark: bool,
    /// Mark was guessed.
    pub mark_guessed: bool,
    /// Sniffed content type.
    pub mime: String,
    /// Producing tool.
    pub tool: Option<String>,
    /// Key in the blob store.
    pub blob_key: String,
    /// SHA-256 of the bytes.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: i64,
    /// Pixel width.
    pub width: Option<i64>,
    /// Pixel height.
    pub height: Option<i64>,
    /// Who approved it.
    pub approved_by: Option<String>,
    /// When it was approved.
    pub approved_at: Option<DateTime<Utc>>,
    /// Upload time.
    pub created_at: DateTime<Utc>,
    /// Soft-deletion time.
    pub deleted_at: Option<DateTime<Utc>>,
}

/// Changes to apply to assets; each `Some` sets that column, `None` leaves it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssetChanges {
    /// Name.
    pub name: Option<String>,
    /// SKU (inner None clears).
    pub sku: Option<Option<String>>,
    /// Kind.
    pub kind: Option<String>,
    /// Collection (inner None: the root).
    pub folder_id: Option<Option<String>>,
    /// Fit (inner None: unread); a person set it, so `fit_guessed` becomes false.
    pub fit: Option<Option<String>>,
    /// Wearer (inner None clears); `wearer_guessed` becomes false.
    pub wearer: Option<Option<String>>,
    /// Approval: who and when (inner None clears both).
    pub approval: Option<Option<(String, DateTime<Utc>)>>,
}

/// A pack as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PackRow {
    /// Id.
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Who asked for it.
    pub created_by: Option<String>,
    /// The archive's file name.
    pub filename: String,
    /// The asset ids to pack, as a JSON array.
    pub asset_ids: String,
    /// The renditions, as a JSON array of `{name, width, height}`.
    pub sizes: String,
    /// instant or pack.
    pub mode: String,
    /// queued, building, ready, failed or expired.
    pub status: String,
    /// Entries in the archive.
    pub items: i64,
    /// Archive size once ready; before, the originals' total.
    pub bytes: i64,
    /// Estimated build time in seconds.
    pub seconds: i64,
    /// The archive's key in the blob store, once ready.
    pub blob_key: Option<String>,
    /// Why building failed.
    pub error: Option<String>,
    /// How many times a worker claimed it.
    pub attempts: i64,
    /// Request time.
    pub created_at: DateTime<Utc>,
    /// When a worker last claimed it.
    pub claimed_at: Option<DateTime<Utc>>,
    /// When it became ready.
    pub ready_at: Option<DateTime<Utc>>,
    /// When the link stops working.
    pub expires_at: DateTime<Utc>,
}

/// A model a house keeps (cast from its own reference frames).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ModelRow {
    /// Id (`mdl_…`).
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Who cast it.
    pub created_by: Option<String>,
    /// Name, 1 to 200 characters (a CHECK constraint).
    pub name: String,
    /// The reference frames (asset ids of the house), as a JSON array; the first is cast.
    pub asset_ids: String,
    /// Traits, as a JSON object of strings.
    pub traits: String,
    /// Cast time.
    pub created_at: DateTime<Utc>,
}

/// A develop job as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct JobRow {
    /// Id.
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Who submitted it.
    pub user_id: Option<String>,
    /// Tool slug.
    pub tool: String,
    /// 1k, 2k or 4k (a CHECK constraint).
    pub quality: String,
    /// String options as a JSON object.
    pub params: String,
    /// Inputs as a JSON array of `{role, blobKey, mime, assetId}`.
    pub inputs: String,
    /// queued, running, done, failed or cancelled (a CHECK constraint).
    pub status: String,
    /// The hold that pays for it (one hold per job).
    pub hold_id: String,
    /// Tokens held.
    pub tokens: i64,
    /// Tokens charged once settled (0 when released).
    pub tokens_settled: Option<i64>,
    /// Idempotency key, unique per person (duplicates and takes prefix theirs).
    pub idempotency_key: Option<String>,
    /// Brand it was submitted for.
    pub brand_id: Option<String>,
    /// params.runId.
    pub run_id: Option<String>,
    /// params.lookId.
    pub look_id: Option<String>,
    /// params.stage.
    pub stage: Option<String>,
    /// The job this duplicates.
    pub source_job_id: Option<String>,
    /// The frame this takes again.
    pub retry_of_job_id: Option<String>,
    /// The result asset, once done.
    pub result_asset_id: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// The house's event number of its latest state change.
    pub event_seq: i64,
    /// How many times a runner claimed it.
    pub attempts: i64,
    /// When a runner last claimed or renewed it (the lease).
    pub claimed_at: Option<DateTime<Utc>>,
    /// Submit time.
    pub created_at: DateTime<Utc>,
    /// First claim time.
    pub started_at: Option<DateTime<Utc>>,
    /// End time.
    pub finished_at: Option<DateTime<Utc>>,
}

/// A takes request remembered by idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct TakeRecord {
    /// Who asked.
    pub user_id: String,
    /// Their key.
    pub idempotency_key: String,
    /// The frames taken again, sorted, as a JSON array.
    pub source_ids: String,
}

/// What creating jobs did.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateJobsOutcome {
    /// Holds taken and jobs queued, all of them.
    Created(Vec<JobRow>),
    /// The idempotency key was used before for the same request: the existing jobs; nothing held.
    Existing(Vec<JobRow>),
    /// A takes key was used before for a different set of frames: nothing written.
    KeyReused,
    /// Not enough spendable tokens for all of them: nothing written.
    Insufficient {
        /// Tokens the jobs need together.
        need: i64,
        /// Tokens the house could spend.
        spendable: i64,
    },
}

/// How a job ends.
#[derive(Debug, Clone, PartialEq)]
pub enum JobEnd {
    /// The frame landed: store the asset and settle the hold.
    Done(Box<AssetRow>),
    /// The frame failed: release the hold.
    Failed(String),
}

/// What a cancel did.
#[derive(Debug, Clone, PartialEq)]
pub enum CancelOutcome {
    /// The job was queued: it is cancelled and its hold released.
    Cancelled(JobRow),
    /// The job was running or had ended: unchanged.
    Unchanged(JobRow),
    /// No such job in this house.
    NotFound,
}

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

/// The state of a hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldStatus {
    /// Reserved, not yet resolved.
    Held,
    /// Charged.
    Settled,
    /// Returned to the buckets it came from.
    Released,
}

impl HoldStatus {
    pub(crate) fn parse(s: &str) -> HoldStatus {
        match s {
            "settled" => HoldStatus::Settled,
            "released" => HoldStatus::Released,
            _ => HoldStatus::Held,
        }
    }
}

/// A hold as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct HoldRow {
    /// Id (idempotency: reserving the same id twice holds once).
    pub id: String,
    /// The house.
    pub org_id: String,
    /// Tokens held.
    pub amount: i64,
    /// Part taken from the grant bucket.
    pub from_grant: i64,
    /// Part taken from the top-up bucket.
    pub from_topup: i64,
    /// The develop the hold pays for.
    pub generation_id: Option<String>,
    /// held, settled or released.
    pub status: String,
    /// Reservation time.
    pub created_at: DateTime<Utc>,
    /// Settle or release time.
    pub resolved_at: Option<DateTime<Utc>>,
}

impl HoldRow {
    /// The parsed status.
    pub fn status(&self) -> HoldStatus {
        HoldStatus::parse(&self.status)
    }
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

/// A new person with their personal house, owner seat and sign-up grant, written atomically.
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// The person.
    pub user: UserRow,
    /// Their house.
    pub org: OrgRow,
    /// Sign-up grant (0 for none).
    pub grant_tokens: i64,
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
    pub org_id: String,
    /// Bucket.
    pub bucket: Bucket,
    /// Tokens, positive.
    pub amount: i64,
    /// Who caused it, if a person.
    pub user_id: Option<String>,
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
    pub id: String,
    /// The house.
    pub org_id: String,
    /// Tokens, positive.
    pub amount: i64,
    /// The develop it pays for.
    pub generation_id: Option<String>,
    /// Who asked.
    pub user_id: Option<String>,
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

/// A checkout, or an auto top-up charge, as stored: what was sold and whether it was paid.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CheckoutRow {
    /// Our reference (`chk_…` for checkouts, `chg_…` for auto top-up charges).
    pub reference: String,
    /// The house that pays and receives the tokens.
    pub org_id: String,
    /// Who asked (the owner, or the member whose run charged).
    pub user_id: Option<String>,
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
    pub status: String,
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
    pub org_id: String,
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
    pub org_id: String,
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
    pub org_id: String,
    /// Who ran it.
    pub user_id: Option<String>,
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
    /// This payment of this reference was granted before: nothing moved.
    AlreadyGranted,
    /// This webhook id was applied before: nothing moved.
    Duplicate,
    /// Recorded, nothing granted: why (`event_type`, `unknown_reference`).
    Ignored(&'static str),
}

/// Every read and write the domain needs. Implementations apply their own migrations on open.
#[async_trait::async_trait]
pub trait Storage: Send + Sync + 'static {
    /// Which backend this is (`sqlite` or `postgres`).
    fn backend(&self) -> &'static str;

    /// A round trip to the database (health checks).
    async fn ping(&self) -> Result<(), StorageError>;
    /// How many people have signed up (the first-run hint).
    async fn user_count(&self) -> Result<i64, StorageError>;

    /// Person, house, owner seat, balance row and sign-up grant in one transaction.
    /// `Conflict("email")` when the email is taken.
    async fn create_account(&self, account: NewAccount) -> Result<(), StorageError>;
    /// A person by lowercased email.
    async fn user_by_email(&self, email: &str) -> Result<Option<UserRow>, StorageError>;
    /// A person by id.
    async fn user_by_id(&self, id: &str) -> Result<Option<UserRow>, StorageError>;
    /// A house by id.
    async fn org_by_id(&self, id: &str) -> Result<Option<OrgRow>, StorageError>;
    /// Give a person a seat (or change its role).
    async fn upsert_membership(&self, seat: MembershipRow) -> Result<(), StorageError>;
    /// A person's seat in a house.
    async fn membership(&self, org_id: &str, user_id: &str) -> Result<Option<MembershipRow>, StorageError>;
    /// The house a person signs into: the oldest they own, else their oldest seat.
    async fn home_membership(&self, user_id: &str) -> Result<Option<MembershipRow>, StorageError>;

    /// Store a new session.
    async fn insert_session(&self, session: SessionRow) -> Result<(), StorageError>;
    /// A session by token hash, if not expired at `now`.
    async fn session_by_hash(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionRow>, StorageError>;
    /// The live session's person, house, seat role and email; None when the session is unknown,
    /// expired, or the seat is gone.
    async fn session_seat(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionSeat>, StorageError>;
    /// Forget a session (sign-out); harmless when absent.
    async fn delete_session(&self, token_hash: &str) -> Result<(), StorageError>;

    /// Store a newly minted key.
    async fn insert_key(&self, key: KeyRow) -> Result<(), StorageError>;
    /// Every key of a house, revoked included, newest first.
    async fn list_keys(&self, org_id: &str) -> Result<Vec<KeyRow>, StorageError>;
    /// A key by secret hash (revoked or not).
    async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<KeyRow>, StorageError>;
    /// Revoke a key of this house (keeps the first revocation time). None when not this house's.
    async fn revoke_key(&self, org_id: &str, key_id: &str, now: DateTime<Utc>) -> Result<Option<KeyRow>, StorageError>;
    /// Record a use of a key, unless one at or after `stale_before` is already recorded.
    async fn touch_key(
        &self,
        key_id: &str,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<(), StorageError>;

    /// Store a new collection.
    async fn insert_folder(&self, folder: FolderRow) -> Result<(), StorageError>;
    /// A house's collections, oldest first.
    async fn list_folders(&self, org_id: &str) -> Result<Vec<FolderRow>, StorageError>;
    /// One collection of a house.
    async fn folder(&self, org_id: &str, id: &str) -> Result<Option<FolderRow>, StorageError>;
    /// Rename a collection of a house; None when not this house's.
    async fn rename_folder(&self, org_id: &str, id: &str, name: &str) -> Result<Option<FolderRow>, StorageError>;

    /// Store a new asset.
    async fn insert_asset(&self, asset: AssetRow) -> Result<(), StorageError>;
    /// A house's live assets, newest first, optionally in one collection.
    async fn list_assets(&self, org_id: &str, folder_id: Option<&str>) -> Result<Vec<AssetRow>, StorageError>;
    /// One page of [`Storage::list_assets`]: at most `limit` rows, starting after the asset at
    /// `after` (its `created_at` and id) in that order.
    async fn list_assets_page(
        &self,
        org_id: &str,
        folder_id: Option<&str>,
        limit: i64,
        after: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<AssetRow>, StorageError>;
    /// How many live assets a house has, optionally in one collection.
    async fn count_assets(&self, org_id: &str, folder_id: Option<&str>) -> Result<i64, StorageError>;
    /// The house's library version: moved (by triggers) in every transaction that inserts,
    /// updates or deletes one of its assets; 0 before the first.
    async fn library_version(&self, org_id: &str) -> Result<i64, StorageError>;
    /// An asset by id, whatever its house and state (callers decide what to reveal).
    async fn asset_by_id(&self, id: &str) -> Result<Option<AssetRow>, StorageError>;
    /// Soft-delete a house's live assets among `ids`; returns how many this call took out.
    async fn soft_delete_assets(&self, org_id: &str, ids: &[String], now: DateTime<Utc>) -> Result<i64, StorageError>;

    /// Apply `changes` to the house's live assets among `ids`; returns how many rows matched.
    async fn update_assets(&self, org_id: &str, ids: &[String], changes: &AssetChanges) -> Result<i64, StorageError>;
    /// Stamp `group_id` on every id, all or nothing: false (and no change) unless every id is a
    /// live asset of the house.
    async fn set_asset_group(&self, org_id: &str, ids: &[String], group_id: &str) -> Result<bool, StorageError>;
    /// How many of `ids` (taken as given) are live assets of the house.
    async fn count_live_assets(&self, org_id: &str, ids: &[String]) -> Result<i64, StorageError>;

    /// Store a new pack.
    async fn insert_pack(&self, pack: PackRow) -> Result<(), StorageError>;
    /// A pack of a house.
    async fn pack(&self, org_id: &str, id: &str) -> Result<Option<PackRow>, StorageError>;
    /// Claim the oldest queued pack, or one whose builder went quiet before `stale_before`;
    /// marks it building. Safe against other workers and replicas.
    async fn claim_pack(
        &self,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<PackRow>, StorageError>;
    /// Keep a build's claim fresh while it runs, so it is not taken over as stale.
    async fn renew_pack_claim(&self, id: &str, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// Record the end of a build: `ready` with its blob and size, or `failed` with a reason.
    async fn finish_pack(&self, pack: &PackRow) -> Result<(), StorageError>;
    /// Packs whose link has lapsed and are not yet swept.
    async fn lapsed_packs(&self, now: DateTime<Utc>) -> Result<Vec<PackRow>, StorageError>;

    /// Store a newly cast model.
    async fn insert_model(&self, model: ModelRow) -> Result<(), StorageError>;
    /// A house's models, newest first.
    async fn list_models(&self, org_id: &str) -> Result<Vec<ModelRow>, StorageError>;
    /// One model of a house.
    async fn model(&self, org_id: &str, id: &str) -> Result<Option<ModelRow>, StorageError>;

    /// Reserve a hold for each job and insert the jobs as queued, all in one transaction: every
    /// frame is held before any is queued, and a shortfall writes nothing. With an idempotency
    /// key (on the first job, or `take` for a takes request) an earlier identical request's jobs
    /// come back instead.
    async fn create_jobs(&self, jobs: Vec<JobRow>, take: Option<TakeRecord>)
    -> Result<CreateJobsOutcome, StorageError>;
    /// A job of a house.
    async fn job(&self, org_id: &str, id: &str) -> Result<Option<JobRow>, StorageError>;
    /// A house's jobs whose latest change is after `since`, ascending by event_seq.
    async fn jobs_since(&self, org_id: &str, since: i64, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// A house's jobs submitted at or after `after`, newest first (runs are derived from these).
    async fn recent_jobs(&self, org_id: &str, after: DateTime<Utc>, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// A house's jobs, newest first, optionally of one status.
    async fn list_jobs(&self, org_id: &str, status: Option<&str>, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// Claim the oldest queued job, or a running one whose lease lapsed before `stale_before`;
    /// marks it running. Safe against other runners and replicas.
    async fn claim_job(&self, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<Option<JobRow>, StorageError>;
    /// Keep a running job's lease fresh.
    async fn renew_job_claim(&self, id: &str, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// End a queued or running job: done (asset stored, hold settled) or failed (hold released),
    /// in one transaction. None when it had already ended (nothing changes).
    async fn finish_job(
        &self,
        org_id: &str,
        id: &str,
        end: JobEnd,
        now: DateTime<Utc>,
    ) -> Result<Option<JobRow>, StorageError>;
    /// Cancel a queued job of a house and release its hold, in one transaction.
    async fn cancel_job(&self, org_id: &str, id: &str, now: DateTime<Utc>) -> Result<CancelOutcome, StorageError>;

    /// Announce a house event to every process on this database. False when the backend has no
    /// shared channel (the caller delivers in-process instead).
    async fn announce(&self, org_id: &str, message: &str) -> Result<bool, StorageError>;
    /// Announcements from every process sharing the database (PostgreSQL LISTEN), as
    /// `(org_id, message)`; None when the backend has no shared channel.
    async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError>;

    /// Append a credit and raise the running totals.
    async fn credit(&self, credit: NewCredit) -> Result<BalanceRow, StorageError>;
    /// Reserve tokens (grant bucket first), atomically against concurrent reserves.
    async fn reserve(&self, hold: NewHold) -> Result<ReserveOutcome, StorageError>;
    /// Charge a held hold; a second resolve changes nothing.
    async fn settle(&self, org_id: &str, hold_id: &str, now: DateTime<Utc>) -> Result<ResolveOutcome, StorageError>;
    /// Return a held hold to its buckets; a second resolve changes nothing.
    async fn release(&self, org_id: &str, hold_id: &str, now: DateTime<Utc>) -> Result<ResolveOutcome, StorageError>;
    /// The running totals (zeros for a house with no ledger yet).
    async fn balance(&self, org_id: &str) -> Result<BalanceRow, StorageError>;
    /// A hold by id within a house.
    async fn hold(&self, org_id: &str, hold_id: &str) -> Result<Option<HoldRow>, StorageError>;
    /// Open holds of a house, oldest first.
    async fn open_holds(&self, org_id: &str) -> Result<Vec<HoldRow>, StorageError>;
    /// Sums over the house's entries, for audits.
    async fn audit(&self, org_id: &str) -> Result<LedgerAudit, StorageError>;

    /// Store a new checkout (status `open`).
    async fn insert_checkout(&self, checkout: CheckoutRow) -> Result<(), StorageError>;
    /// Record the provider's answer for a checkout: its id (`open`), or `failed`.
    async fn checkout_created(&self, reference: &str, provider_id: Option<&str>) -> Result<(), StorageError>;
    /// A checkout or charge by reference.
    async fn checkout(&self, reference: &str) -> Result<Option<CheckoutRow>, StorageError>;
    /// A house's billing account, if it has one.
    async fn billing_account(&self, org_id: &str) -> Result<Option<BillingAccountRow>, StorageError>;
    /// Save a house's auto top-up settings (creating its account row).
    async fn save_autocharge(&self, settings: AutochargeSettings) -> Result<BillingAccountRow, StorageError>;
    /// In one transaction, locked against every other ledger write of the house: re-check that
    /// auto top-up is armed with a card and an active pack, that no charge is in the debounce
    /// window, that the month's charges plus this one stay under the ceiling and that the live
    /// spendable balance is below the threshold; then record the pending charge.
    async fn reserve_autocharge(&self, request: NewAutocharge) -> Result<AutochargeOutcome, StorageError>;
    /// The provider accepted a pending charge: mark it `charged` with its payment id.
    async fn autocharge_charged(&self, reference: &str, payment_id: &str) -> Result<(), StorageError>;
    /// The provider refused a pending charge: mark it `failed`, so it counts for neither the
    /// debounce nor the ceiling (the reservation is rolled back).
    async fn autocharge_failed(&self, reference: &str) -> Result<(), StorageError>;
    /// A house's auto top-up charges that did not fail, newest first.
    async fn autocharges(&self, org_id: &str, limit: i64) -> Result<Vec<CheckoutRow>, StorageError>;
    /// Cents of auto top-up charges (not failed) made at or after `since`.
    async fn autocharge_spent(&self, org_id: &str, since: DateTime<Utc>) -> Result<i64, StorageError>;
    /// Apply a verified payment event in one transaction: record its webhook id (a repeat is
    /// `Duplicate`), and for `payment.succeeded` grant the checkout's tokens once per payment
    /// (top-ups into the top-up bucket; subscriptions into the grant bucket, up to the
    /// checkout's `grant_cap`), mark it paid and remember the customer.
    async fn apply_payment(&self, payment: NewPayment) -> Result<PaymentOutcome, StorageError>;
}

/// Open the storage a database URL names and apply its migrations: `postgres://…` selects
/// PostgreSQL; `sqlite://PATH` or a bare path selects SQLite (the file is created if missing).
pub async fn open_storage(url: &str) -> Result<Arc<dyn Storage>, StorageError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Arc::new(PgStorage::connect(url).await?));
        #[cfg(not(feature = "postgres"))]
        return Err(StorageError::Unsupported(url.to_string()));
    }
    #[cfg(feature = "sqlite")]
    return Ok(Arc::new(SqliteStorage::open(url.strip_prefix("sqlite://").unwrap_or(url)).await?));
    #[cfg(not(feature = "sqlite"))]
    return Err(StorageError::Unsupported(url.to_string()));
}
