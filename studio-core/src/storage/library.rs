//! The library: folders, assets and packs: the rows and the `LibraryStore` trait.

use crate::ids::{AssetId, FolderId, GroupId, OrgId, PackId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A collection as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FolderRow {
    /// Id.
    pub id: FolderId,
    /// The owning house.
    pub org_id: OrgId,
    /// Name, 1 to 200 characters (a CHECK constraint).
    pub name: String,
    /// Parent collection, same house.
    pub parent_id: Option<FolderId>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// An asset as stored (deleted rows included; reads filter on `deleted_at`).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AssetRow {
    /// Id.
    pub id: AssetId,
    /// The owning house.
    pub org_id: OrgId,
    /// Who uploaded it.
    pub created_by: Option<UserId>,
    /// Display name.
    pub name: String,
    /// The brand's code.
    pub sku: Option<String>,
    /// Wardrobe bucket (a CHECK constraint).
    pub kind: String,
    /// Collection.
    pub folder_id: Option<FolderId>,
    /// Group stamp.
    pub group_id: Option<GroupId>,
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
    /// Its content credentials' summary (the API's `AssetProvenance` as JSON), read when it
    /// was stored; null for a row stored before credentials were read.
    pub provenance: Option<String>,
}

impl AssetRow {
    /// The row with `summary` as its provenance.
    pub fn with_provenance(self, summary: &crate::api::AssetProvenance) -> AssetRow {
        AssetRow { provenance: serde_json::to_string(summary).ok(), ..self }
    }

    /// Its provenance summary, when it was read.
    pub fn provenance_summary(&self) -> Option<crate::api::AssetProvenance> {
        self.provenance.as_deref().and_then(|p| serde_json::from_str(p).ok())
    }

    /// A new live asset of `org_id` over a stored blob, named `name`, of `kind`: an upload (no
    /// tool), with no sku, collection, group, fit, wearer, mark or approval, created now. Callers
    /// set what differs (a tool's result names its `tool`) with struct update syntax.
    pub fn over_blob(
        id: String,
        org_id: &OrgId,
        created_by: Option<String>,
        name: String,
        kind: &str,
        blob: &crate::blobs::StoredBlob,
        dims: Option<(u32, u32)>,
    ) -> AssetRow {
        AssetRow {
            id: AssetId::from(id),
            org_id: org_id.clone(),
            created_by: created_by.map(UserId::from),
            name,
            sku: None,
            kind: kind.to_string(),
            folder_id: None,
            group_id: None,
            fit: None,
            wearer: None,
            fit_guessed: false,
            wearer_guessed: false,
            carries_mark: false,
            mark_guessed: false,
            mime: blob.mime.clone(),
            tool: None,
            blob_key: blob.key.clone(),
            sha256: blob.sha256.clone(),
            bytes: blob.bytes as i64,
            width: dims.map(|d| i64::from(d.0)),
            height: dims.map(|d| i64::from(d.1)),
            approved_by: None,
            approved_at: None,
            created_at: crate::ids::now(),
            deleted_at: None,
            provenance: None,
        }
    }
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
    pub id: PackId,
    /// The owning house.
    pub org_id: OrgId,
    /// Who asked for it.
    pub created_by: Option<UserId>,
    /// The archive's file name.
    pub filename: String,
    /// The asset ids to pack, as a JSON array.
    pub asset_ids: String,
    /// The renditions, as a JSON array of `{name, width, height}`.
    pub sizes: String,
    /// instant or pack.
    pub mode: String,
    /// queued, building, ready, failed or expired.
    pub status: super::PackStatus,
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

/// Folders, assets (with their lists and library version) and packs.
#[async_trait::async_trait]
pub trait LibraryStore: Send + Sync {
    /// Store a new collection.
    async fn insert_folder(&self, folder: FolderRow) -> Result<(), StorageError>;
    /// A house's collections, oldest first.
    async fn list_folders(&self, org_id: &OrgId) -> Result<Vec<FolderRow>, StorageError>;
    /// One collection of a house.
    async fn folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<FolderRow>, StorageError>;
    /// Rename a collection of a house; None when not this house's.
    async fn rename_folder(&self, org_id: &OrgId, id: &FolderId, name: &str)
    -> Result<Option<FolderRow>, StorageError>;
    /// Delete a collection of a house in one transaction: its assets (live and deleted) and its
    /// sub-collections move up to its parent, the marks registered for it go, then it does.
    /// (live assets moved, sub-collections moved); None when not this house's.
    async fn delete_folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<(i64, i64)>, StorageError>;
    /// Store a new asset.
    async fn insert_asset(&self, asset: AssetRow) -> Result<(), StorageError>;
    /// A house's live assets, newest first, optionally in one collection.
    async fn list_assets(&self, org_id: &OrgId, folder_id: Option<&FolderId>) -> Result<Vec<AssetRow>, StorageError>;
    /// One page of [`Storage::list_assets`], optionally of one `kind` only (the scenes are the
    /// `background` kind): at most `limit` rows, starting after the asset at `after` (its
    /// `created_at` and id) in that order.
    async fn list_assets_page(
        &self,
        org_id: &OrgId,
        folder_id: Option<&FolderId>,
        kind: Option<&str>,
        limit: i64,
        after: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<AssetRow>, StorageError>;
    /// How many live assets a house has, optionally in one collection.
    async fn count_assets(&self, org_id: &OrgId, folder_id: Option<&FolderId>) -> Result<i64, StorageError>;
    /// The house's library version: moved (by triggers) in every transaction that inserts,
    /// updates or deletes one of its assets; 0 before the first.
    async fn library_version(&self, org_id: &OrgId) -> Result<i64, StorageError>;
    /// An asset by id, whatever its house and state (callers decide what to reveal).
    async fn asset_by_id(&self, id: &AssetId) -> Result<Option<AssetRow>, StorageError>;
    /// Soft-delete a house's live assets among `ids`; returns how many this call took out.
    async fn soft_delete_assets(&self, org_id: &OrgId, ids: &[String], now: DateTime<Utc>)
    -> Result<i64, StorageError>;
    /// Apply `changes` to the house's live assets among `ids`; returns how many rows matched.
    async fn update_assets(&self, org_id: &OrgId, ids: &[String], changes: &AssetChanges) -> Result<i64, StorageError>;
    /// Stamp `group_id` on every id, all or nothing: false (and no change) unless every id is a
    /// live asset of the house.
    async fn set_asset_group(&self, org_id: &OrgId, ids: &[String], group_id: &GroupId) -> Result<bool, StorageError>;
    /// Record an asset's content-credentials summary (JSON), read from its file.
    async fn set_asset_provenance(&self, org_id: &OrgId, id: &AssetId, provenance: &str) -> Result<(), StorageError>;
    /// How many of `ids` (taken as given) are live assets of the house.
    async fn count_live_assets(&self, org_id: &OrgId, ids: &[String]) -> Result<i64, StorageError>;
    /// Store a new pack.
    async fn insert_pack(&self, pack: PackRow) -> Result<(), StorageError>;
    /// A pack of a house.
    async fn pack(&self, org_id: &OrgId, id: &PackId) -> Result<Option<PackRow>, StorageError>;
    /// Claim the oldest queued pack, or one whose builder went quiet before `stale_before`;
    /// marks it building. Safe against other workers and replicas.
    async fn claim_pack(
        &self,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<PackRow>, StorageError>;
    /// Keep a build's claim fresh while it runs, so it is not taken over as stale.
    async fn renew_pack_claim(&self, id: &PackId, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// Record the end of a build: `ready` with its blob and size, or `failed` with a reason.
    async fn finish_pack(&self, pack: &PackRow) -> Result<(), StorageError>;
    /// Packs whose link has lapsed and are not yet swept.
    async fn lapsed_packs(&self, now: DateTime<Utc>) -> Result<Vec<PackRow>, StorageError>;
}
