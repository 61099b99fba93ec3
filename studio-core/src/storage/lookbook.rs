//! Looks, shot templates and the standing preset: the rows and the `LookbookStore` trait.

use chrono::{DateTime, Utc};

use super::{JobRow, StorageError};

/// A look as stored. `items`, `background` are JSON text.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct LookRow {
    /// Id.
    pub id: String,
    /// The house.
    pub org_id: String,
    /// Who made it.
    pub created_by: String,
    /// The brand it is for.
    pub brand_id: Option<String>,
    /// Name.
    pub name: String,
    /// The model's asset.
    pub model_asset_id: String,
    /// `[{assetId, role}]` as JSON.
    pub items: String,
    /// The background object as JSON.
    pub background: String,
    /// The composer's preset key.
    pub aesthetic: String,
    /// draft or locked.
    pub status: String,
    /// The locked frame.
    pub look_base_asset_id: Option<String>,
    /// The job that developed it.
    pub look_base_job_id: Option<String>,
    /// The factory batch, if any.
    pub batch_id: Option<String>,
    /// When made.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// A shot template; `slots` is a JSON array of item roles.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TemplateRow {
    /// Id.
    pub id: String,
    /// The house, or None for a built-in.
    pub org_id: Option<String>,
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
    pub org_id: String,
    /// The default model.
    pub model_asset_id: Option<String>,
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

/// Looks, templates and the standing preset.
#[async_trait::async_trait]
pub trait LookbookStore: Send + Sync {
    /// Store new looks in one transaction (one for a look, several for a factory batch).
    async fn insert_looks(&self, looks: Vec<LookRow>) -> Result<(), StorageError>;
    /// A house's looks, newest first.
    async fn looks(&self, org_id: &str, limit: i64) -> Result<Vec<LookRow>, StorageError>;
    /// A look of the house.
    async fn look(&self, org_id: &str, id: &str) -> Result<Option<LookRow>, StorageError>;
    /// The develop jobs of a look, oldest first.
    async fn look_jobs(&self, org_id: &str, look_id: &str) -> Result<Vec<JobRow>, StorageError>;
    /// The built-in templates, then the house's, each group oldest first.
    async fn templates(&self, org_id: &str) -> Result<Vec<TemplateRow>, StorageError>;
    /// A built-in template or one of the house's.
    async fn template(&self, org_id: &str, id: &str) -> Result<Option<TemplateRow>, StorageError>;
    /// A template's shots in order.
    async fn template_shots(&self, template_id: &str) -> Result<Vec<TemplateShotRow>, StorageError>;
    /// The house's standing preset, if saved.
    async fn preset(&self, org_id: &str) -> Result<Option<PresetRow>, StorageError>;
    /// Save the standing preset. With `keep_sizes` the stored list of sizes stays (the row's own
    /// `sizes` is used only when none is stored yet).
    async fn save_preset(&self, preset: PresetRow, keep_sizes: bool) -> Result<PresetRow, StorageError>;
}
