//! Brand: the house's profile row and its marks as stored, and the `BrandStore` trait. The
//! free-first-read rule rests on one conditional write (`claim_free_brand_read`), so two first
//! reads at once cannot both be free on either backend.

use crate::ids::{AssetId, FolderId, MarkId, OrgId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A house's brand profile as stored; lists are JSON text.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, serde::Deserialize)]
pub struct BrandProfileRow {
    /// The house.
    pub org_id: OrgId,
    /// The vision in English.
    pub vision_en: String,
    /// JSON array of strings.
    pub vibe: String,
    /// JSON array of strings.
    pub palette: String,
    /// JSON array of `{category, phrase}`.
    pub signature_keywords: String,
    /// Whether develops carry the clause.
    pub inject_enabled: bool,
    /// Successful DNA reads.
    pub dna_runs: i64,
    /// Set while a free first read is under way.
    pub free_read_at: Option<DateTime<Utc>>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The colour policy: `srgb` or `keep` (docs/colour.md).
    #[serde(default)]
    pub colour_output: String,
    /// The metadata policy: `rights`, `all` or `none` (docs/colour.md).
    #[serde(default)]
    pub metadata_output: String,
}

/// The fields a patch or a read writes (never `dna_runs`, which only a read moves).
#[derive(Debug, Clone, PartialEq)]
pub struct BrandFields {
    /// The vision in English.
    pub vision_en: String,
    /// JSON array of strings.
    pub vibe: String,
    /// JSON array of strings.
    pub palette: String,
    /// JSON array of `{category, phrase}`.
    pub signature_keywords: String,
    /// Whether develops carry the clause.
    pub inject_enabled: bool,
}

/// The fields a patch sets; `None` keeps the stored value (so two patches of different fields
/// never undo each other).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrandFieldsPatch {
    /// The vision in English.
    pub vision_en: Option<String>,
    /// JSON array of strings.
    pub vibe: Option<String>,
    /// JSON array of strings.
    pub palette: Option<String>,
    /// JSON array of `{category, phrase}`.
    pub signature_keywords: Option<String>,
    /// Whether develops carry the clause.
    pub inject_enabled: Option<bool>,
    /// The colour policy: `srgb` or `keep`.
    pub colour_output: Option<String>,
    /// The metadata policy: `rights`, `all` or `none`.
    pub metadata_output: Option<String>,
}

/// A registered mark, with its asset's name.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BrandMarkRow {
    /// Id (`mark_…`).
    pub id: MarkId,
    /// The house.
    pub org_id: OrgId,
    /// The asset.
    pub asset_id: AssetId,
    /// The collection (folder) id, or '' at house level.
    pub collection_id: String,
    /// Material.
    pub material: String,
    /// Placement.
    pub placement: Option<String>,
    /// Note.
    pub note: Option<String>,
    /// Lower rides first.
    pub sort_order: i64,
    /// Who registered it.
    pub created_by: Option<UserId>,
    /// When.
    pub created_at: DateTime<Utc>,
    /// The asset's name (read from `assets`; ignored on insert).
    pub filename: String,
}

/// Brand profiles and marks.
#[async_trait::async_trait]
pub trait BrandStore: Send + Sync {
    /// The house's profile, if it has one.
    async fn brand_profile(&self, org_id: &OrgId) -> Result<Option<BrandProfileRow>, StorageError>;
    /// Write the fields a patch sets in one statement (creating the row with the defaults when
    /// missing); the others and `dna_runs` are untouched.
    async fn save_brand_profile(
        &self,
        org_id: &OrgId,
        fields: &BrandFieldsPatch,
        now: DateTime<Utc>,
    ) -> Result<BrandProfileRow, StorageError>;
    /// A successful DNA read: write the fields (keeping `inject_enabled`), add one to
    /// `dna_runs` and drop the free-read claim, in one statement.
    async fn record_brand_read(
        &self,
        org_id: &OrgId,
        fields: &BrandFields,
        now: DateTime<Utc>,
    ) -> Result<BrandProfileRow, StorageError>;
    /// Take the house's free first read: true only when no read has succeeded yet and no other
    /// claim newer than `stale_before` is open. One conditional write, so of two concurrent
    /// callers at most one gets true.
    async fn claim_free_brand_read(
        &self,
        org_id: &OrgId,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Give a free-read claim back (the read failed), so the next read is free again.
    async fn release_free_brand_read(&self, org_id: &OrgId) -> Result<(), StorageError>;
    /// Register a mark; `Conflict("mark")` when the asset is already one at that level.
    async fn insert_brand_mark(&self, row: &BrandMarkRow) -> Result<(), StorageError>;
    /// One mark of the house (its asset live).
    async fn brand_mark(&self, org_id: &OrgId, id: &MarkId) -> Result<Option<BrandMarkRow>, StorageError>;
    /// The marks of one level ('' for the house), whose assets are live, by sortOrder then
    /// registration time.
    async fn brand_marks(&self, org_id: &OrgId, collection_id: &FolderId) -> Result<Vec<BrandMarkRow>, StorageError>;
    /// Change a mark; false when it is not the house's.
    async fn update_brand_mark(
        &self,
        org_id: &OrgId,
        id: &MarkId,
        material: &str,
        placement: Option<&str>,
        note: Option<&str>,
        sort_order: i64,
    ) -> Result<bool, StorageError>;
    /// Unregister a mark; false when it is not the house's.
    async fn delete_brand_mark(&self, org_id: &OrgId, id: &MarkId) -> Result<bool, StorageError>;
}
