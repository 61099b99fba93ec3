//! Pipelines: presets, runs and their steps as stored, and the `PipelineStore` trait. A run's
//! every step is held when the run is created; a step gets its job row (reusing its hold) when
//! its inputs have landed. Every change to a run's steps takes the run's row lock first.

use crate::ids::{AssetId, FolderId, HoldId, JobId, OrgId, PresetId, RunId, UserId};
use chrono::{DateTime, Utc};

use super::{JobRow, StorageError};

/// A saved plan.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PipelinePresetRow {
    /// Id.
    pub id: PresetId,
    /// The house.
    pub org_id: OrgId,
    /// Who saved it.
    pub created_by: Option<UserId>,
    /// Name.
    pub name: String,
    /// The plan as JSON.
    pub plan: String,
    /// The plan's sink folder.
    pub sink_folder_id: Option<FolderId>,
    /// When saved first.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// A run as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PipelineRunRow {
    /// Id (`run_<uuid>`).
    pub id: RunId,
    /// The house.
    pub org_id: OrgId,
    /// Who started it.
    pub user_id: Option<UserId>,
    /// The plan's name.
    pub name: String,
    /// The plan's id, when it had one.
    pub plan_id: Option<String>,
    /// The plan as JSON.
    pub plan: String,
    /// The brand.
    pub brand_id: Option<String>,
    /// Its idempotency key (unique per person).
    pub idempotency_key: Option<String>,
    /// SHA-256 of the plan and items, to tell a replay from a reused key.
    pub request_hash: String,
    /// developing, done, settled, failed or cancelled (a CHECK constraint).
    pub status: super::RunStatus,
    /// Set first by a cancel: nothing more is queued.
    pub cancel_requested: bool,
    /// Frames held at the start.
    pub frames_planned: i64,
    /// Frames left out at compile.
    pub frames_skipped: i64,
    /// Tokens held at the start.
    pub tokens_planned: i64,
    /// Start time.
    pub created_at: DateTime<Utc>,
    /// When the last step ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// A step as stored. `inputs` is a JSON array of `{role, assetId, blobKey, mime}` (from the
/// item) or `{role, step}` (an upstream step's frame); `upstream` a JSON array of step indexes.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PipelineStepRow {
    /// Id.
    pub id: String,
    /// The run.
    pub run_id: RunId,
    /// The house.
    pub org_id: OrgId,
    /// Position in the line.
    pub idx: i64,
    /// The item.
    pub item: i64,
    /// The node.
    pub node_id: String,
    /// The tool.
    pub tool: String,
    /// The tier.
    pub quality: String,
    /// Options as a JSON object.
    pub params: String,
    /// Inputs (see the type's doc).
    pub inputs: String,
    /// Upstream step indexes.
    pub upstream: String,
    /// Where its frame is filed.
    pub sink_folder_id: Option<FolderId>,
    /// Its hold (reserved with the run).
    pub hold_id: HoldId,
    /// Tokens held.
    pub tokens: i64,
    /// waiting, started (a job exists), failed or cancelled (never started).
    pub status: super::StepStatus,
    /// Its job, once started.
    pub job_id: Option<JobId>,
    /// Why it never started.
    pub error: Option<String>,
    /// Created with the run.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// A step with its job's state (when it has a job) and its frame's bytes (when landed).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct StepState {
    /// The step.
    #[sqlx(flatten)]
    pub step: PipelineStepRow,
    /// The job's status.
    pub job_status: Option<String>,
    /// Tokens the job settled.
    pub job_tokens_settled: Option<i64>,
    /// The job's frame.
    pub job_result_asset_id: Option<AssetId>,
    /// Why the job failed.
    pub job_error: Option<String>,
    /// The frame's blob.
    pub result_blob_key: Option<String>,
    /// The frame's type.
    pub result_mime: Option<String>,
}

/// What creating a run did.
#[derive(Debug, Clone, PartialEq)]
pub enum RunCreateOutcome {
    /// Every step held; the first steps' jobs queued.
    Created(PipelineRunRow, Vec<JobRow>),
    /// The person's idempotency key named an earlier run: nothing written.
    Existing(PipelineRunRow),
    /// The balance cannot cover the whole line: nothing written.
    Insufficient {
        /// Tokens the line needs.
        need: i64,
        /// Tokens the house could spend.
        spendable: i64,
    },
}

/// A step that will never start, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct StepEnd {
    /// The step.
    pub step_id: String,
    /// failed or cancelled.
    pub status: &'static str,
    /// Why.
    pub error: String,
}

/// What one pass of the scheduler asks: steps whose inputs landed get jobs (their holds
/// reused); steps behind a failed or cancelled one end and release.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepAdvance {
    /// Step id and the job to queue for it.
    pub queue: Vec<(String, JobRow)>,
    /// Steps that end without a job.
    pub end: Vec<StepEnd>,
}

/// What a pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdvanceOutcome {
    /// Jobs queued.
    pub queued: Vec<JobRow>,
    /// Steps ended (their holds released).
    pub ended: usize,
}

/// What cancelling a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCancelled {
    /// The run, flagged.
    pub run: PipelineRunRow,
    /// Waiting steps cancelled by this call and the tokens each released.
    pub steps: Vec<(String, i64)>,
}

/// Pipelines: presets, runs and the scheduler's guarded writes.
#[async_trait::async_trait]
pub trait PipelineStore: Send + Sync {
    /// Save a preset.
    async fn insert_pipeline_preset(&self, row: PipelinePresetRow) -> Result<(), StorageError>;
    /// A house's presets, newest first.
    async fn pipeline_presets(&self, org_id: &OrgId, limit: i64) -> Result<Vec<PipelinePresetRow>, StorageError>;
    /// One preset of a house.
    async fn pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<Option<PipelinePresetRow>, StorageError>;
    /// Replace a preset's plan; None when the house has no such preset.
    async fn update_pipeline_preset(
        &self,
        org_id: &OrgId,
        id: &PresetId,
        name: &str,
        plan: &str,
        sink_folder_id: Option<&FolderId>,
        now: DateTime<Utc>,
    ) -> Result<Option<PipelinePresetRow>, StorageError>;
    /// Delete a preset; false when the house has no such preset.
    async fn delete_pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<bool, StorageError>;
    /// In one transaction that holds the house's balance row: answer an earlier run with the
    /// same person and key, or refuse a line the balance cannot cover, or reserve one hold per
    /// step, insert the run and its steps and queue `jobs` (the steps that can start now, each
    /// reusing its step's hold). All or nothing.
    async fn create_pipeline_run(
        &self,
        run: PipelineRunRow,
        steps: Vec<PipelineStepRow>,
        jobs: Vec<JobRow>,
    ) -> Result<RunCreateOutcome, StorageError>;
    /// One run of a house.
    async fn pipeline_run(&self, org_id: &OrgId, id: &RunId) -> Result<Option<PipelineRunRow>, StorageError>;
    /// A house's runs, newest first.
    async fn pipeline_runs(&self, org_id: &OrgId, limit: i64) -> Result<Vec<PipelineRunRow>, StorageError>;
    /// The house's runs among `ids`.
    async fn pipeline_runs_in(&self, org_id: &OrgId, ids: &[String]) -> Result<Vec<PipelineRunRow>, StorageError>;
    /// A run's steps in line order, with their jobs' state.
    async fn pipeline_steps(&self, run_id: &RunId) -> Result<Vec<StepState>, StorageError>;
    /// Runs still developing with an id after `after` (ids are time-ordered: oldest first), as
    /// `(org_id, id)`; page with the last id.
    async fn open_pipeline_runs(&self, after: &str, limit: i64) -> Result<Vec<(String, String)>, StorageError>;
    /// Apply one scheduler pass under the run's row lock: a step still waiting is queued
    /// (unless a cancel was asked) or ended with its hold released; a step no longer waiting
    /// is left alone, so concurrent passes on several replicas cannot queue a step twice.
    async fn advance_pipeline(
        &self,
        org_id: &OrgId,
        run_id: &RunId,
        advance: StepAdvance,
        now: DateTime<Utc>,
    ) -> Result<AdvanceOutcome, StorageError>;
    /// Record a run's ending once no step is active; false when it had already ended.
    async fn finish_pipeline_run(
        &self,
        org_id: &OrgId,
        run_id: &RunId,
        status: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Flag a developing run cancelled (nothing more is queued) and cancel its waiting steps,
    /// releasing their holds, in one transaction; a run that has ended is answered unchanged.
    /// None when the house has no such run.
    async fn cancel_pipeline(
        &self,
        org_id: &OrgId,
        run_id: &RunId,
        now: DateTime<Utc>,
    ) -> Result<Option<RunCancelled>, StorageError>;
}
