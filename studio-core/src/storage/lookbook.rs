//! Looks, shot templates and the standing preset: the rows and the `LookbookStore` trait.

use crate::ids::{AssetId, JobId, LookId, OrgId, TemplateId, UserId};
use chrono::{DateTime, Utc};

use super::{CreateJobsOutcome, JobRow, StorageError};

/// A look as stored. `items`, `background` are JSON text.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct LookRow {
    /// Id.
    pub id: LookId,
    /// The house.
    pub org_id: OrgId,
    /// Who made it.
    pub created_by: UserId,
    /// The brand it is for.
    pub brand_id: Option<String>,
    /// Name.
    pub name: String,
    /// The model's asset.
    pub model_asset_id: AssetId,
    /// `[{assetId, role}]` as JSON.
    pub items: String,
    /// The background object as JSON.
    pub background: String,
    /// The composer's preset key.
    pub aesthetic: String,
    /// draft or locked.
    pub status: crate::api::LookStatus,
    /// The locked frame.
    pub look_base_asset_id: Option<AssetId>,
    /// The job that developed it.
    pub look_base_job_id: Option<JobId>,
    /// The factory batch, if any.
    pub batch_id: Option<String>,
    /// When made.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The Look Base's parent asset (the model collage), recorded at lock.
    pub look_base_parent_id: Option<AssetId>,
    /// A factory look's planned variation keys (JSON array); None for a look made by hand.
    pub planned_keys: Option<String>,
    /// A factory look's planned quality tier.
    pub planned_quality: Option<String>,
}

/// A shot template; `slots` is a JSON array of item roles.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TemplateRow {
    /// Id.
    pub id: TemplateId,
    /// The house, or None for a built-in.
    pub org_id: Option<OrgId>,
    /// Name.
    pub name: String,
    /// JSON array of item roles.
    pub slots: String,
    /// How many shots it holds.
    pub shot_count: i64,
    /// When made.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// A shot of a template.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TemplateShotRow {
    /// Id.
    pub id: String,
    /// still or motion.
    pub kind: String,
    /// A variation key.
    pub framing: String,
    /// The pose.
    pub pose: String,
    /// The expression.
    pub expression: String,
    /// Order.
    pub sort_order: i64,
}

/// A house's standing preset; `background`, `variation_keys` and `sizes` are JSON text.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PresetRow {
    /// The house.
    pub org_id: OrgId,
    /// The default model.
    pub model_asset_id: Option<AssetId>,
    /// The background object.
    pub background: String,
    /// The aesthetic.
    pub aesthetic: String,
    /// JSON array of variation keys.
    pub variation_keys: String,
    /// 1k, 2k or 4k.
    pub quality: String,
    /// JSON array of `{name, width, height}`.
    pub sizes: String,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// The look a develop-lock or variations request queues jobs on, and the state it must be in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookGuard {
    /// The house.
    pub org_id: OrgId,
    /// The look.
    pub look_id: LookId,
    /// `draft` for a develop-lock, `locked` for variations.
    pub status: &'static str,
}

/// What queueing jobs on a look did.
#[derive(Debug, Clone, PartialEq)]
pub enum LookJobsOutcome {
    /// The look was in the state asked and nothing of it was in flight (or the request was a
    /// replay): what creating the jobs did.
    Jobs(CreateJobsOutcome),
    /// No such look in the house: nothing written.
    NotFound,
    /// The look is in another state (carried): nothing written.
    WrongStatus(String),
    /// A develop of the look is queued or rendering: nothing written.
    InFlight,
}

/// A lock or an unlock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockChange {
    /// Lock on this frame; the Look Base's parent is recorded as `parent_id`.
    Lock {
        /// The frame.
        asset_id: String,
        /// The model collage it grew from.
        parent_id: Option<AssetId>,
    },
    /// Back to draft; the look-base fields stay.
    Unlock,
}

/// What a lock or an unlock did.
#[derive(Debug, Clone, PartialEq)]
pub enum LockOutcome {
    /// The look as it now is.
    Changed(LookRow),
    /// An unlock of a draft: nothing to do.
    Unchanged(LookRow),
    /// No such look in the house.
    NotFound,
    /// A develop of the look is queued or rendering.
    InFlight,
    /// The asset is not the landed result of one of this look's develops.
    NotAFrame,
}

/// Looks, templates and the standing preset.
#[async_trait::async_trait]
pub trait LookbookStore: Send + Sync {
    /// Store new looks in one transaction (one for a look, several for a factory batch).
    async fn insert_looks(&self, looks: Vec<LookRow>) -> Result<(), StorageError>;
    /// A house's looks, newest first.
    async fn looks(&self, org_id: &OrgId, limit: i64) -> Result<Vec<LookRow>, StorageError>;
    /// A look of the house.
    async fn look(&self, org_id: &OrgId, id: &LookId) -> Result<Option<LookRow>, StorageError>;
    /// Hold and queue `jobs` on a look in one transaction that locks the house's balance and the
    /// look's row: an earlier request with the same idempotency keys answers first; then the
    /// look must exist, be in `guard.status` and have nothing in flight. Anything refused writes
    /// nothing, so of two concurrent develop-locks exactly one is queued.
    async fn create_look_jobs(&self, guard: LookGuard, jobs: Vec<JobRow>) -> Result<LookJobsOutcome, StorageError>;
    /// Lock a look on one of its landed frames, or unlock it, refused while anything of the look
    /// is in flight (checked under the look's row lock).
    async fn set_look_lock(
        &self,
        org_id: &OrgId,
        look_id: &LookId,
        change: LockChange,
        now: DateTime<Utc>,
    ) -> Result<LockOutcome, StorageError>;
    /// The develop jobs of a look, oldest first.
    async fn look_jobs(&self, org_id: &OrgId, look_id: &LookId) -> Result<Vec<JobRow>, StorageError>;
    /// The built-in templates, then the house's, each group oldest first.
    async fn templates(&self, org_id: &OrgId) -> Result<Vec<TemplateRow>, StorageError>;
    /// A built-in template or one of the house's.
    async fn template(&self, org_id: &OrgId, id: &TemplateId) -> Result<Option<TemplateRow>, StorageError>;
    /// A template's shots in order.
    async fn template_shots(&self, template_id: &TemplateId) -> Result<Vec<TemplateShotRow>, StorageError>;
    /// The house's standing preset, if saved.
    async fn preset(&self, org_id: &OrgId) -> Result<Option<PresetRow>, StorageError>;
    /// Save the standing preset. With `keep_sizes` the stored list of sizes stays (the row's own
    /// `sizes` is used only when none is stored yet).
    async fn save_preset(&self, preset: PresetRow, keep_sizes: bool) -> Result<PresetRow, StorageError>;
}
