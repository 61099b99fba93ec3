//! The admin console's reads across houses and its two tables (provider cost records and stored
//! verdicts): the rows and the `ConsoleStore` trait.

use crate::ids::{AssetId, HoldId, JobId, OrgId};
use chrono::{DateTime, Utc};

use super::{AssetRow, CheckoutRow, JobRow, StorageError};

/// What one settled charge cost at the provider.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CostRecordRow {
    /// Id (`pcs_…`).
    pub id: String,
    /// The settled hold (one record per hold).
    pub hold_id: HoldId,
    /// The house charged.
    pub org_id: OrgId,
    /// The develop, when a develop was charged.
    pub job_id: Option<JobId>,
    /// The tool or lane.
    pub tool: String,
    /// Who did the work (`local`, `fal`, `ai-reader`).
    pub provider: String,
    /// Tokens settled.
    pub tokens: i64,
    /// What the call cost in US dollars.
    pub cost_usd: f64,
    /// True when `cost_usd` is the documented estimate rather than the provider's figure.
    pub estimated: bool,
    /// When it was recorded.
    pub created_at: DateTime<Utc>,
}

/// A settled hold with what it paid for, where known.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SettledHoldRow {
    /// The hold.
    pub hold_id: HoldId,
    /// Tokens settled.
    pub amount: i64,
    /// When it settled.
    pub resolved_at: DateTime<Utc>,
    /// The develop's tool, else the cost record's tool.
    pub tool: Option<String>,
    /// The cost record's dollars.
    pub cost_usd: Option<f64>,
    /// The cost record's estimate flag.
    pub estimated: Option<bool>,
}

/// A stored verdict.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct VerdictRow {
    /// Id (`vrd_…`).
    pub id: String,
    /// The develop judged.
    pub job_id: JobId,
    /// Its frame (the result asset), when it landed.
    pub frame_id: Option<AssetId>,
    /// The house.
    pub org_id: OrgId,
    /// The develop's tool.
    pub tool: String,
    /// The judge that computed it.
    pub model: String,
    /// The rubric version.
    pub rubric: i64,
    /// 0 to 100.
    pub score: i64,
    /// False when there was no frame to judge.
    pub readable: bool,
    /// Readable and at or above the pass score.
    pub passed: bool,
    /// The marks as a JSON array.
    pub marks: String,
    /// When it was computed.
    pub created_at: DateTime<Utc>,
}

/// Filters on develops across houses.
#[derive(Debug, Clone, Default)]
pub struct JobFilter<'a> {
    /// One house.
    pub org_id: Option<&'a str>,
    /// One tool.
    pub tool: Option<&'a str>,
    /// One status.
    pub status: Option<&'a str>,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    /// Created before this `(created_at, id)`.
    pub before: Option<(DateTime<Utc>, &'a str)>,
    /// Page size.
    pub limit: i64,
}

/// Filters on frames (assets) across houses.
#[derive(Debug, Clone, Default)]
pub struct FrameFilter<'a> {
    /// One house.
    pub org_id: Option<&'a str>,
    /// Frames made by one tool.
    pub tool: Option<&'a str>,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    /// Some(true): made by a develop (a tool is recorded); Some(false): brought (uploaded).
    pub made: Option<bool>,
    /// Created before this `(created_at, id)`.
    pub before: Option<(DateTime<Utc>, &'a str)>,
    /// Page size.
    pub limit: i64,
}

/// Filters on stored verdicts.
#[derive(Debug, Clone, Default)]
pub struct VerdictFilter<'a> {
    /// One house.
    pub org_id: Option<&'a str>,
    /// One tool.
    pub tool: Option<&'a str>,
    /// One rubric version.
    pub rubric: Option<i64>,
    /// One judge.
    pub model: Option<&'a str>,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    /// Created before this `(created_at, id)`.
    pub before: Option<(DateTime<Utc>, &'a str)>,
    /// Page size.
    pub limit: i64,
}

/// Tokens a tool's landed frames settled, split by whether the frame is still in the library.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct KeptRow {
    /// The tool.
    pub tool: String,
    /// True: the frame is still live; false: deleted (or gone).
    pub kept: bool,
    /// How many frames.
    pub frames: i64,
    /// Tokens settled for them.
    pub tokens: i64,
}

/// One movement of tokens for the tokenomics view.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FlowRow {
    /// grant, topup, settled or expire.
    pub kind: String,
    /// Tokens moved (positive).
    pub amount: i64,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A count under a name (a status, a kind).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct NamedCount {
    /// The name.
    pub name: String,
    /// How many.
    pub n: i64,
    /// A sum beside it (tokens, cents), 0 where none applies.
    pub total: i64,
}

/// Platform-wide counts.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct PlatformCounts {
    /// Houses.
    pub houses: i64,
    /// People.
    pub people: i64,
    /// Live assets.
    pub assets: i64,
    /// Tokens held right now, every house.
    pub held: i64,
    /// Tokens spendable right now, every house.
    pub spendable: i64,
}

/// The admin console's reads and records.
#[async_trait::async_trait]
pub trait ConsoleStore: Send + Sync {
    /// Record a settled charge's provider cost (once per hold; a second record is ignored).
    async fn insert_cost_record(&self, row: &CostRecordRow) -> Result<(), StorageError>;
    /// Settled holds since `since`, with the tool and cost they carry where known.
    async fn settled_holds(&self, since: DateTime<Utc>) -> Result<Vec<SettledHoldRow>, StorageError>;
    /// Any house's job.
    async fn any_job(&self, id: &JobId) -> Result<Option<JobRow>, StorageError>;
    /// Develops across houses, newest first.
    async fn console_jobs(&self, filter: &JobFilter<'_>) -> Result<Vec<JobRow>, StorageError>;
    /// Frames across houses, newest first.
    async fn console_frames(&self, filter: &FrameFilter<'_>) -> Result<Vec<AssetRow>, StorageError>;
    /// Tokens settled for landed frames since `since`, by tool and kept or deleted.
    async fn kept_cost(&self, since: DateTime<Utc>) -> Result<Vec<KeptRow>, StorageError>;
    /// Token movements (grant, topup, settled, expire) since `since`.
    async fn token_flows(&self, since: DateTime<Utc>) -> Result<Vec<FlowRow>, StorageError>;
    /// Sums of token movements of all time, by kind (`n` entries, `total` tokens).
    async fn flow_totals(&self) -> Result<Vec<NamedCount>, StorageError>;
    /// Platform counts and the balances' sums.
    async fn platform_counts(&self) -> Result<PlatformCounts, StorageError>;
    /// Develops created since `since`, counted by status.
    async fn jobs_by_status(&self, since: DateTime<Utc>) -> Result<Vec<NamedCount>, StorageError>;
    /// Payments (billing checkouts) newest first, optionally of one house and status.
    async fn payments(
        &self,
        org_id: Option<&OrgId>,
        status: Option<&str>,
        before: Option<(DateTime<Utc>, &str)>,
        limit: i64,
    ) -> Result<Vec<CheckoutRow>, StorageError>;
    /// Payments counted by status (`total` cents), optionally of one house.
    async fn payment_totals(&self, org_id: Option<&OrgId>) -> Result<Vec<NamedCount>, StorageError>;
    /// Keep a verdict unless one of the same job and rubric is kept already; the kept one.
    async fn keep_verdict(&self, row: &VerdictRow) -> Result<VerdictRow, StorageError>;
    /// The kept verdict of a job under a rubric.
    async fn verdict_of(&self, job_id: &JobId, rubric: i64) -> Result<Option<VerdictRow>, StorageError>;
    /// Kept verdicts, newest first.
    async fn verdicts(&self, filter: &VerdictFilter<'_>) -> Result<Vec<VerdictRow>, StorageError>;
}
