//! The library on the wire: collections (folders) and assets.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A collection (spec §2.3). The list is flat; the client builds the tree from `parentId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Folder {
    /// Opaque id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The parent collection; null at the root.
    pub parent_id: Option<String>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/folders`: every collection of the house, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FolderList {
    /// The collections.
    pub folders: Vec<Folder>,
}

/// One collection, as created or renamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FolderResponse {
    /// The collection.
    pub folder: Folder,
}

/// `POST /api/toolkit/folders`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateFolderRequest {
    /// Required; 1 to 200 characters after trimming.
    #[serde(default)]
    pub name: Option<String>,
    /// The parent collection (this house's); null or absent for the root.
    #[serde(default)]
    pub parent_id: Option<String>,
}

/// `PATCH /api/toolkit/folders/{id}`. An empty or unchanged name is a 200 no-op.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RenameFolderRequest {
    /// The new name.
    #[serde(default)]
    pub name: Option<String>,
}

/// `DELETE /api/toolkit/folders/{id}`: what the delete moved (nothing in the collection is
/// deleted; it moves up to the collection's parent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderDeleted {
    /// The collection.
    pub id: String,
    /// Always true.
    pub deleted: bool,
    /// Live images that moved up to its parent.
    pub moved_assets: i64,
    /// Sub-collections that moved up to its parent.
    pub moved_folders: i64,
}

/// `GET /api/toolkit/assets/{id}/detail`: one asset as JSON and, when a develop made it, where
/// it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AssetDetail {
    /// The asset, as lists show it.
    pub asset: Asset,
    /// The develop that made it; null for an upload.
    pub origin: Option<AssetOrigin>,
}

/// The develop that made an asset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetOrigin {
    /// The develop.
    pub job_id: String,
    /// Its tool.
    pub tool: String,
    /// Its quality (`1k`, `2k`, `4k`).
    pub quality: String,
    /// Its state (done, once an asset exists).
    pub status: String,
    /// When it was submitted.
    pub created_at: DateTime<Utc>,
    /// Its inputs, in the order submitted.
    pub inputs: Vec<OriginInput>,
}

/// One input of the develop that made an asset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OriginInput {
    /// Its role (`image`, `garment`, ...).
    pub role: String,
    /// The library asset it was; null for a file sent with the submit.
    pub asset_id: Option<String>,
    /// That asset's name; null for a fresh upload or an asset deleted since.
    pub name: Option<String>,
    /// That asset's file route; null for a fresh upload or an asset deleted since.
    pub url: Option<String>,
}

/// Wardrobe bucket of an asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AssetKind {
    /// Garments.
    Clothes,
    /// Bags, belts, shoes, ...
    Accessory,
    /// Jewellery.
    Jewelry,
    /// A model (person) photograph.
    Model,
    /// A ground or scene.
    Background,
}

impl AssetKind {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            AssetKind::Clothes => "clothes",
            AssetKind::Accessory => "accessory",
            AssetKind::Jewelry => "jewelry",
            AssetKind::Model => "model",
            AssetKind::Background => "background",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<AssetKind> {
        [AssetKind::Clothes, AssetKind::Accessory, AssetKind::Jewelry, AssetKind::Model, AssetKind::Background]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// An image in the library (spec §2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Asset {
    /// Opaque id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The brand's own code; never invented by the service.
    pub sku: Option<String>,
    /// Wardrobe bucket.
    pub kind: AssetKind,
    /// The file route of this asset.
    pub url: String,
    /// The collection; null at the root.
    pub folder_id: Option<String>,
    /// Shared group stamp.
    pub group_id: Option<String>,
    /// How the garment is cut to be worn; null means unread.
    pub fit: Option<String>,
    /// The body the garment is cut for; null when unknown.
    pub wearer: Option<String>,
    /// The fit was guessed by a model, not set by a person.
    pub fit_guessed: bool,
    /// The wearer was guessed by a model.
    pub wearer_guessed: bool,
    /// The piece carries a visible brand mark.
    pub carries_mark: bool,
    /// The mark reading was guessed by a model.
    pub mark_guessed: bool,
    /// Sniffed content type.
    pub mime: String,
    /// The tool that produced it, if any.
    pub tool: Option<String>,
    /// Size in bytes.
    pub bytes: i64,
    /// Pixel width, when the header could be read.
    pub width: Option<i64>,
    /// Pixel height, when the header could be read.
    pub height: Option<i64>,
    /// SHA-256 of the bytes (also the file route's ETag).
    pub sha256: String,
    /// The art director who approved the frame (name or email).
    pub approved_by: Option<String>,
    /// When it was approved.
    pub approved_at: Option<DateTime<Utc>>,
    /// Upload time.
    pub created_at: DateTime<Utc>,
    /// Its content credentials, as read when it was stored; null for an asset stored before
    /// credentials were read (its provenance route reads the file and fills this in).
    #[serde(default)]
    pub provenance: Option<super::AssetProvenance>,
}

/// `GET /api/toolkit/assets`: newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetList {
    /// The assets.
    pub assets: Vec<Asset>,
    /// With `limit`: the cursor of the next page (pass it as `cursor`), absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The largest page of assets or scenes one request answers (`limit` of `GET /api/toolkit/assets`,
/// of `GET /api/toolkit/backgrounds` and of the list_assets tool), and the page size when `limit`
/// is left out.
pub const MAX_ASSET_PAGE: i64 = 200;

/// `GET /api/toolkit/assets` query. Every answer is one page, newest first: `limit` assets (1 to
/// 200; 200 when left out), and `nextCursor` leads to the next page while there is one.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetQuery {
    /// Narrow to one collection.
    pub folder_id: Option<String>,
    /// Page size, 1 to 200 (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The `nextCursor` of the previous page: the assets older than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `GET /api/toolkit/backgrounds` query: the scenes come a page at a time, like assets.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackgroundsQuery {
    /// Scenes per page, 1 to 200 (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The `nextCursor` of the previous page: the scenes older than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The answer of a classification read on upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClassifyResult {
    /// True when the read ran and filed the piece.
    pub ok: bool,
    /// The English name read from the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_en: Option<String>,
    /// The kind read from the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<AssetKind>,
    /// Why the read did not run (`AI_NOT_CONFIGURED`, `INSUFFICIENT_TOKENS`, `AI_FAILED`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Tokens charged (0 on any failure).
    pub tokens: i64,
}

/// `201` answer of an upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UploadResponse {
    /// The stored asset.
    pub asset: Asset,
    /// Present when `classify` was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classify: Option<ClassifyResult>,
}

/// `POST /api/toolkit/assets/batch/delete`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetIds {
    /// The assets to act on.
    #[serde(default)]
    pub asset_ids: Vec<String>,
}

/// Answer of a batch delete: how many assets this call took out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Deleted {
    /// Counted server-side; foreign, unknown and already-deleted ids do not count.
    pub deleted: i64,
}

/// Deserialise a field that may be absent (None), null (Some(None)) or a value (Some(Some)).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `PATCH /api/toolkit/assets/{id}`: absent fields stay; null clears where the spec allows.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetPatch {
    /// New name (not null, not empty).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub name: Option<Option<String>>,
    /// New SKU; null clears it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub sku: Option<Option<String>>,
    /// New wardrobe bucket (not null).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Option<String>>,
    /// New collection; null moves the asset to the root.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<Option<String>>,
    /// auto, fitted, regular, loose or oversized; null marks it unread.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub fit: Option<Option<String>>,
    /// women, men or unisex; null clears it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub wearer: Option<Option<String>>,
}

/// One asset, as patched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AssetResponse {
    /// The asset.
    pub asset: Asset,
}

/// `PATCH /api/toolkit/assets/batch`: at least one of folderId, kind, approved.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetBatchPatch {
    /// The assets; foreign or deleted ids are skipped.
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// Move to this collection; null moves to the root.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<Option<String>>,
    /// New wardrobe bucket; null leaves it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Option<String>>,
    /// True stamps the director's name and time on every frame; false clears both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
}

/// Answer of a batch patch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Updated {
    /// Assets this call changed.
    pub updated: i64,
}

/// `POST /api/toolkit/assets/batch/quote`: what an operation on these assets would cost.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteRequest {
    /// The assets.
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// `remove-background` or `packshot`.
    #[serde(default)]
    pub operation: Option<String>,
    /// `1k`, `2k` or `4k` (read only for packshot; default 1k).
    #[serde(default)]
    pub quality: Option<String>,
    /// Packshot also removes the background first.
    #[serde(default)]
    pub also_remove_background: bool,
}

/// A quote. Spends and reserves nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// The operation quoted.
    pub operation: String,
    /// Live assets of this house among the ids (each counted once).
    pub items: i64,
    /// Tokens per item.
    pub per_item: i64,
    /// Tokens in all.
    pub tokens: i64,
    /// The house's spendable tokens now.
    pub spendable: i64,
    /// The house can afford it now.
    pub affordable: bool,
}

/// `POST /api/toolkit/assets/group`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupRequest {
    /// Unique, non-empty; every one a live asset of this house.
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// Accepted, unused.
    #[serde(default)]
    pub name: Option<String>,
}

/// `201` answer of grouping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupResponse {
    /// The new shared group stamp.
    pub group_id: String,
}

/// A built-in plain ground.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ground {
    /// Stable id.
    pub id: String,
    /// `plain`.
    pub kind: String,
    /// Display name.
    pub name: String,
    /// What it suits.
    pub note: String,
    /// The colour as `#RRGGBB`.
    pub tone: String,
    /// A small swatch image.
    pub preview_url: String,
}

/// A house's own scene: an asset of kind background.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scene {
    /// The asset id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its file route.
    pub url: String,
    /// Upload time.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/backgrounds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Backgrounds {
    /// Built-in plain grounds.
    pub grounds: Vec<Ground>,
    /// The house's background assets, newest first: one page.
    pub scenes: Vec<Scene>,
    /// The cursor of the next page of scenes, absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A resized rendition to add to a pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PackSize {
    /// Folder name inside the archive (sanitised), e.g. `web`.
    pub name: String,
    /// Box width in pixels; the frame fits inside, keeping its proportions.
    pub width: u32,
    /// Box height in pixels.
    pub height: u32,
}

/// `POST /api/toolkit/assets/pack`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackRequest {
    /// The assets to pack (this house's live ones are packed; others are skipped).
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// The archive's name (its file name without `.zip`).
    #[serde(default)]
    pub name: Option<String>,
    /// Resized renditions to add beside the originals.
    #[serde(default)]
    pub sizes: Vec<PackSize>,
}

/// A batch download (spec §2.9).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pack {
    /// Opaque id.
    pub pack_id: String,
    /// `instant` (built inside the request) or `pack` (built in the background).
    pub mode: String,
    /// `queued`, `building`, `ready`, `failed` or `expired`.
    pub status: String,
    /// Entries in the archive (originals and renditions).
    pub items: i64,
    /// Archive size once ready; before that, the originals' total.
    pub bytes: i64,
    /// Where the archive is fetched; the same URL before and after it is ready. Lives 7 days.
    pub href: String,
    /// The archive's file name.
    pub filename: String,
    /// Estimated seconds until ready (0 once ready).
    pub seconds: i64,
    /// Why building failed.
    pub error: Option<String>,
    /// When the request was made.
    pub created_at: DateTime<Utc>,
    /// When the link stops working.
    pub expires_at: Option<DateTime<Utc>>,
}
