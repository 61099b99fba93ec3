//! Develop jobs and their events: the rows, the `JobStore` trait, and the shared event channel.

use crate::ids::{AssetId, HoldId, JobId, LookId, OrgId, RunId, UserId};
use chrono::{DateTime, Utc};

use super::{AssetRow, StorageError};

/// A develop job as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct JobRow {
    /// Id.
    pub id: JobId,
    /// The owning house.
    pub org_id: OrgId,
    /// Who submitted it.
    pub user_id: Option<UserId>,
    /// Tool slug.
    pub tool: String,
    /// 1k, 2k or 4k (a CHECK constraint).
    pub quality: String,
    /// String options as a JSON object.
    pub params: String,
    /// Inputs as a JSON array of `{role, blobKey, mime, assetId}`.
    pub inputs: String,
    /// queued, running, done, failed or cancelled (a CHECK constraint).
    pub status: crate::api::JobStatus,
    /// The hold that pays for it (one hold per job).
    pub hold_id: HoldId,
    /// Tokens held.
    pub tokens: i64,
    /// Tokens charged once settled (0 when released).
    pub tokens_settled: Option<i64>,
    /// Idempotency key, unique per person (duplicates and takes prefix theirs).
    pub idempotency_key: Option<String>,
    /// Brand it was submitted for.
    pub brand_id: Option<String>,
    /// params.runId.
    pub run_id: Option<RunId>,
    /// params.lookId.
    pub look_id: Option<LookId>,
    /// params.stage.
    pub stage: Option<String>,
    /// The job this duplicates.
    pub source_job_id: Option<JobId>,
    /// The frame this takes again.
    pub retry_of_job_id: Option<JobId>,
    /// The result asset, once done.
    pub result_asset_id: Option<AssetId>,
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

impl JobRow {
    /// A new job as a submit writes it: queued, unclaimed, unsettled and not yet numbered,
    /// paid by the hold named after it, with no options, inputs or links (set those with
    /// struct update syntax).
    pub fn queued(
        id: String,
        org_id: &OrgId,
        user_id: Option<UserId>,
        tool: &str,
        quality: &str,
        tokens: i64,
    ) -> JobRow {
        JobRow {
            hold_id: HoldId::from(format!("hold_{id}")),
            org_id: org_id.clone(),
            user_id,
            tool: tool.to_string(),
            quality: quality.to_string(),
            params: "{}".into(),
            inputs: "[]".into(),
            status: crate::api::JobStatus::Queued,
            tokens,
            tokens_settled: None,
            idempotency_key: None,
            brand_id: None,
            run_id: None,
            look_id: None,
            stage: None,
            source_job_id: None,
            retry_of_job_id: None,
            result_asset_id: None,
            error: None,
            event_seq: 0,
            attempts: 0,
            claimed_at: None,
            created_at: Utc::now(),
            started_at: None,
            finished_at: None,
            id: JobId::from(id),
        }
    }
}

/// A takes request remembered by idempotency key.
#[derive(Debug, Clone, PartialEq)]
pub struct TakeRecord {
    /// Who asked.
    pub user_id: UserId,
    /// Their key.
    pub idempotency_key: String,
    /// The frames taken again, sorted, as a JSON array.
    pub source_ids: String,
}

/// What a submit was planned on, to be confirmed inside the transaction that writes it
/// (docs/performance.md, row 2): a submit may be planned on cached reads, and these checks make
/// the cache exact across replicas. Empty (the default) checks nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubmitChecks {
    /// The house's brand profile the jobs' clause was made from (`Some(None)`: it had none);
    /// `None` checks nothing.
    pub brand: Option<Option<super::BrandProfileRow>>,
    /// Library images of the house the jobs take as inputs, each still live (not deleted).
    pub live_assets: Vec<String>,
}

impl SubmitChecks {
    /// Whether the house as read in the transaction (`brand`, and which of the asked images are
    /// `live`) is what the submit was planned on.
    pub fn hold(&self, brand: &Option<super::BrandProfileRow>, live: &std::collections::HashSet<String>) -> bool {
        self.brand.as_ref().is_none_or(|b| b == brand) && self.live_assets.iter().all(|id| live.contains(id))
    }
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
    /// A [`SubmitChecks`] failed: the house changed since the reads the submit was planned on.
    /// Nothing written; plan it again from fresh reads.
    Stale,
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

/// Develop jobs: created with their holds, claimed, finished, cancelled; and the shared event channel their changes travel on.
#[async_trait::async_trait]
pub trait JobStore: Send + Sync {
    /// Reserve a hold for each job and insert the jobs as queued, all in one transaction: every
    /// frame is held before any is queued, and a shortfall writes nothing. With an idempotency
    /// key (on the first job, or `take` for a takes request) an earlier identical request's jobs
    /// come back instead. `checks` are confirmed in the same transaction, after the replay and
    /// before anything is held: when one fails, the outcome is `Stale` and nothing is written.
    async fn create_jobs(
        &self,
        jobs: Vec<JobRow>,
        take: Option<TakeRecord>,
        checks: SubmitChecks,
    ) -> Result<CreateJobsOutcome, StorageError>;
    /// A job of a house.
    async fn job(&self, org_id: &OrgId, id: &JobId) -> Result<Option<JobRow>, StorageError>;
    /// The job of a house that made asset `asset_id` (its result), if a develop made it.
    async fn job_made(&self, org_id: &OrgId, asset_id: &AssetId) -> Result<Option<JobRow>, StorageError>;
    /// A house's jobs whose latest change is after `since`, ascending by event_seq.
    async fn jobs_since(&self, org_id: &OrgId, since: i64, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// A house's jobs submitted at or after `after`, newest first (runs are derived from these).
    async fn recent_jobs(&self, org_id: &OrgId, after: DateTime<Utc>, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// A house's jobs, newest first, optionally of one status.
    async fn list_jobs(&self, org_id: &OrgId, status: Option<&str>, limit: i64) -> Result<Vec<JobRow>, StorageError>;
    /// Claim the oldest queued job, or a running one whose lease lapsed before `stale_before`;
    /// marks it running. Safe against other runners and replicas.
    async fn claim_job(&self, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<Option<JobRow>, StorageError>;
    /// Keep a running job's lease fresh.
    async fn renew_job_claim(&self, id: &JobId, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// End a queued or running job: done (asset stored, hold settled) or failed (hold released),
    /// in one transaction. None when it had already ended (nothing changes).
    async fn finish_job(
        &self,
        org_id: &OrgId,
        id: &JobId,
        end: JobEnd,
        now: DateTime<Utc>,
    ) -> Result<Option<JobRow>, StorageError>;
    /// Cancel a queued job of a house and release its hold, in one transaction.
    async fn cancel_job(&self, org_id: &OrgId, id: &JobId, now: DateTime<Utc>) -> Result<CancelOutcome, StorageError>;
    /// Announce a house event to every process on this database. False when the backend has no
    /// shared channel (the caller delivers in-process instead).
    async fn announce(&self, org_id: &OrgId, message: &str) -> Result<bool, StorageError>;
    /// Announcements from every process sharing the database (PostgreSQL LISTEN), as
    /// `(org_id, message)`; None when the backend has no shared channel.
    async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError>;
}
