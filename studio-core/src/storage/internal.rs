//! The internal machine routes' storage (`InternalStore`): replay evidence and its claimed
//! render queue, experiments, feature flags, each house's autonomy level, research notes on
//! invite requests, AI reader outcomes, and the platform-wide aggregates the analyst reads.

use crate::ids::{EvidenceId, ExperimentId, InviteRequestId, JobId, OrgId, RenderId, UserId};
use chrono::{DateTime, Utc};

use super::{ExperimentStatus, InviteRequestRow, InviteRequestStatus, RenderStatus, StorageError};

/// A replay evidence record: one develop snapshotted for review.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct EvidenceRow {
    /// Id (`rev_…`).
    pub id: EvidenceId,
    /// The develop (one evidence per job).
    pub job_id: JobId,
    /// The develop's house.
    pub org_id: OrgId,
    /// The develop's tool.
    pub tool: String,
    /// The job's status when the evidence was opened.
    pub job_status: String,
    /// The snapshot, JSON ([`crate::api::ReplaySnapshot`]).
    pub snapshot: String,
    /// The AI reader's summary, once asked for.
    pub summary: Option<String>,
    /// What the summary focused on.
    pub summary_focus: Option<String>,
    /// When it was summarized.
    pub summarized_at: Option<DateTime<Utc>>,
    /// The admin who opened it.
    pub opened_by: Option<String>,
    /// When it was opened.
    pub created_at: DateTime<Utc>,
}

/// A render of one evidence, queued for the renderers.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct RenderRow {
    /// Id (`rrn_…`).
    pub id: RenderId,
    /// The evidence rendered.
    pub evidence_id: EvidenceId,
    /// `contact-sheet` or `timeline`.
    pub format: String,
    /// `queued`, `rendering`, `complete` or `failed`.
    pub status: RenderStatus,
    /// Claims so far.
    pub attempts: i64,
    /// When the current claim was taken.
    pub claimed_at: Option<DateTime<Utc>>,
    /// Where the bytes are, once complete.
    pub blob_key: Option<String>,
    /// The bytes' sniffed type.
    pub mime: Option<String>,
    /// Their length.
    pub bytes: Option<i64>,
    /// The renderer's failure code.
    pub error_code: Option<String>,
    /// The admin who asked.
    pub requested_by: Option<String>,
    /// When it was asked.
    pub created_at: DateTime<Utc>,
    /// When it completed or failed.
    pub finished_at: Option<DateTime<Utc>>,
}

/// An experiment.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ExperimentRow {
    /// Id (`exp_…`).
    pub id: ExperimentId,
    /// Unique key.
    pub key: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Status (see docs/internal.md for the transitions).
    pub status: ExperimentStatus,
    /// The variants, a JSON array of strings.
    pub variants: String,
    /// The admin who created it.
    pub created_by: Option<UserId>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last changed.
    pub updated_at: DateTime<Utc>,
    /// First set running.
    pub started_at: Option<DateTime<Utc>>,
    /// Stopped or completed.
    pub ended_at: Option<DateTime<Utc>>,
}

/// A feature flag.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FlagRow {
    /// Key.
    pub key: String,
    /// Description.
    pub description: String,
    /// On or off.
    pub active: bool,
    /// Share of houses it applies to when active, 0 to 100.
    pub rollout_percent: i64,
    /// The admin who last set it.
    pub updated_by: Option<String>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last set.
    pub updated_at: DateTime<Utc>,
}

/// A house's long-horizon autonomy level.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AutonomyRow {
    /// The house.
    pub org_id: OrgId,
    /// `manual`, `suggest`, `supervised` or `autonomous`.
    pub level: String,
    /// Why.
    pub note: String,
    /// 1 for the first revision, one more each time.
    pub revision: i64,
    /// The admin who revised it.
    pub revised_by: String,
    /// When.
    pub revised_at: DateTime<Utc>,
}

/// A research note on an invite request.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ResearchRow {
    /// Id (`irr_…`).
    pub id: String,
    /// The request.
    pub request_id: InviteRequestId,
    /// The findings, JSON.
    pub findings: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// One AI reader call's outcome.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AiCallRow {
    /// Id (`aic_…`).
    pub id: String,
    /// The house it was for, when one.
    pub org_id: Option<OrgId>,
    /// What asked (`read_model`, `describe_item`, `replay_summary`, ...).
    pub purpose: String,
    /// `answered`, `unusable`, `rejected` or `unavailable`.
    pub outcome: String,
    /// How long the call took.
    pub millis: i64,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A key and a count.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CountRow {
    /// What was counted.
    pub key: String,
    /// How many.
    pub n: i64,
}

/// Something that happened, with a key (a tool, a lane, a kind) and a time.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct StampRow {
    /// The key.
    pub key: String,
    /// A second key where one applies (a letter's status, a memory's status), else empty.
    pub detail: String,
    /// An amount where one applies (tokens), else 1.
    pub amount: i64,
    /// When.
    pub at: DateTime<Utc>,
}

/// The platform's totals right now.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct PlatformTotals {
    /// Houses.
    pub houses: i64,
    /// People (not erased).
    pub people: i64,
    /// Live organization keys.
    pub live_keys: i64,
    /// Live assets.
    pub assets: i64,
    /// Tokens spendable across houses (grant + top-up).
    pub spendable: i64,
    /// Tokens held by open holds.
    pub held: i64,
    /// Tokens settled ever.
    pub settled: i64,
    /// Tokens credited ever.
    pub credited: i64,
}

/// The sign-up funnel over a window.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct FunnelRow {
    /// People who signed up in the window.
    pub signed_up: i64,
    /// Of them, who created a key.
    pub first_key: i64,
    /// ... uploaded an asset.
    pub first_upload: i64,
    /// ... started a develop.
    pub first_develop: i64,
    /// ... paid a checkout.
    pub first_purchase: i64,
}

/// The internal routes' storage.
#[async_trait::async_trait]
pub trait InternalStore: Send + Sync {
    /// Insert the evidence of its job unless the job has one; the job's evidence either way and
    /// whether it was created now.
    async fn open_evidence(&self, row: &EvidenceRow) -> Result<(EvidenceRow, bool), StorageError>;
    /// One evidence.
    async fn evidence(&self, id: &EvidenceId) -> Result<Option<EvidenceRow>, StorageError>;
    /// Evidence newest first, opened at or after `since`, before the cursor `(created_at, id)`.
    async fn evidence_page(
        &self,
        since: DateTime<Utc>,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<EvidenceRow>, StorageError>;
    /// Store a summary on an evidence.
    async fn summarize_evidence(
        &self,
        id: &EvidenceId,
        focus: &str,
        summary: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Queue a render.
    async fn insert_render(&self, row: &RenderRow) -> Result<(), StorageError>;
    /// One render.
    async fn render(&self, id: &RenderId) -> Result<Option<RenderRow>, StorageError>;
    /// The renders of an evidence, oldest first.
    async fn renders_of(&self, evidence_id: &EvidenceId) -> Result<Vec<RenderRow>, StorageError>;
    /// Claim the oldest queued render, or one whose claim was taken before `stale_before`.
    async fn claim_render(
        &self,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<RenderRow>, StorageError>;
    /// Complete a claimed render; false unless it is rendering.
    async fn complete_render(
        &self,
        id: &RenderId,
        blob_key: &str,
        mime: &str,
        bytes: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Fail a claimed render; false unless it is rendering.
    async fn fail_render(&self, id: &RenderId, code: &str, now: DateTime<Utc>) -> Result<bool, StorageError>;
    /// Create an experiment (`Conflict` on a taken key).
    async fn insert_experiment(&self, row: &ExperimentRow) -> Result<(), StorageError>;
    /// One experiment.
    async fn experiment(&self, id: &ExperimentId) -> Result<Option<ExperimentRow>, StorageError>;
    /// Experiments newest first, of `status` when given, before the cursor.
    async fn experiments(
        &self,
        status: Option<ExperimentStatus>,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<ExperimentRow>, StorageError>;
    /// Move an experiment from `from` to `to`; None when it is no longer in `from`.
    async fn move_experiment(
        &self,
        id: &ExperimentId,
        from: ExperimentStatus,
        to: ExperimentStatus,
        now: DateTime<Utc>,
    ) -> Result<Option<ExperimentRow>, StorageError>;
    /// Create or replace a flag (its creation time kept).
    async fn put_flag(&self, row: &FlagRow) -> Result<FlagRow, StorageError>;
    /// Flags by key, after `after`, `active` when given.
    async fn flags(&self, active: Option<bool>, limit: i64, after: Option<&str>) -> Result<Vec<FlagRow>, StorageError>;
    /// A house's autonomy, when ever revised.
    async fn autonomy(&self, org_id: &OrgId) -> Result<Option<AutonomyRow>, StorageError>;
    /// Revise a house's autonomy from revision `expected` (0: never revised); None when stale.
    async fn revise_autonomy(&self, row: &AutonomyRow, expected: i64) -> Result<Option<AutonomyRow>, StorageError>;
    /// True when the house exists.
    async fn house_exists(&self, org_id: &OrgId) -> Result<bool, StorageError>;
    /// One invite request with its derived status.
    async fn invite_request(&self, id: &InviteRequestId) -> Result<Option<InviteRequestRow>, StorageError>;
    /// Invite requests asked at or after `since` (of `status` when given), newest first, with
    /// their derived status.
    async fn invite_requests_since(
        &self,
        since: DateTime<Utc>,
        status: Option<InviteRequestStatus>,
        limit: i64,
    ) -> Result<Vec<InviteRequestRow>, StorageError>;
    /// Other requests from addresses ending in `@domain`, newest first.
    async fn requests_from_domain(&self, domain: &str, except: &str) -> Result<Vec<InviteRequestRow>, StorageError>;
    /// Store a research note.
    async fn insert_research(&self, row: &ResearchRow) -> Result<(), StorageError>;
    /// The research notes of a request, oldest first.
    async fn research_of(&self, request_id: &InviteRequestId) -> Result<Vec<ResearchRow>, StorageError>;
    /// Record an AI reader call.
    async fn record_ai_call(&self, row: &AiCallRow) -> Result<(), StorageError>;
    /// AI reader calls since `since` (key: purpose, detail: outcome, amount: millis).
    async fn ai_calls_since(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// The platform's totals.
    async fn platform_totals(&self) -> Result<PlatformTotals, StorageError>;
    /// Jobs by status (all time).
    async fn jobs_by_status_ever(&self) -> Result<Vec<CountRow>, StorageError>;
    /// The funnel of people who signed up at or after `since`.
    async fn funnel(&self, since: DateTime<Utc>) -> Result<FunnelRow, StorageError>;
    /// Develops queued since (key: tool), or of one house.
    async fn develop_stamps(&self, since: DateTime<Utc>, org_id: Option<&OrgId>)
    -> Result<Vec<StampRow>, StorageError>;
    /// Uploads since (key: `upload`), or of one house.
    async fn upload_stamps(&self, since: DateTime<Utc>, org_id: Option<&OrgId>) -> Result<Vec<StampRow>, StorageError>;
    /// Packs requested since (key: `pack`).
    async fn pack_stamps(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// AI lane results since (key: the lane).
    async fn lane_stamps(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// Tokens settled by one house's holds since (amount: tokens, at: settled).
    async fn spend_stamps(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// Failed jobs since, by tool (key) and stored reason (detail).
    async fn failure_counts(&self, since: DateTime<Utc>, limit: i64) -> Result<Vec<StampRow>, StorageError>;
    /// Letters written since (key: kind, detail: status).
    async fn letter_stamps(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// Memories created or changed since (key: memory class, detail: `created`, `corrected` or
    /// `retired`; at: when).
    async fn memory_stamps(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
    /// Frames taken again since (key: tool).
    async fn retake_stamps(&self, since: DateTime<Utc>) -> Result<Vec<StampRow>, StorageError>;
}
