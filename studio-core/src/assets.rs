//! The library's images: streamed uploads into the blob store, listing, the file routes and
//! soft deletion. An asset of another house is never revealed (404), except on the legacy
//! bytes route, which the spec has answer 403.

use bytes::Bytes;
use chrono::Utc;
use futures_util::Stream;

use crate::api::{Asset, AssetIds, AssetKind, AssetList, AssetQuery, ClassifyResult, Deleted, UploadResponse};
use crate::blobs::{BlobError, BlobReader, StoredBlob};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::new_id;
use crate::images;
use crate::storage::AssetRow;
use crate::studio::Studio;

/// The largest image accepted, in megabytes (spec §8).
pub const MAX_IMAGE_MB: u64 = 12;
const MAX_IMAGE_BYTES: u64 = MAX_IMAGE_MB * 1024 * 1024;
/// Longest name and SKU.
const MAX_NAME_CHARS: usize = 200;
const MAX_SKU_CHARS: usize = 64;
/// Most ids one batch call takes.
const MAX_BATCH: usize = 1000;

/// The content types the library takes (sniffed from the bytes).
pub(crate) fn accepted_image(mime: &str) -> bool {
    matches!(mime, "image/jpeg" | "image/png" | "image/webp" | "image/gif")
}

/// The text fields of an upload form, as sent (validated by [`Studio::finish_upload`]).
#[derive(Debug, Clone, Default)]
pub struct UploadForm {
    /// `folderId`.
    pub folder_id: Option<String>,
    /// `name`; defaults to the file name without its extension.
    pub name: Option<String>,
    /// `kind`; defaults to `clothes`.
    pub kind: Option<String>,
    /// `sku`.
    pub sku: Option<String>,
    /// `classify` (1, true, on / 0, false, off).
    pub classify: Option<String>,
    /// The file part's file name.
    pub file_name: Option<String>,
}

/// A blob streamed in by [`Studio::stream_upload`], waiting for its form.
#[derive(Debug)]
pub struct PendingUpload {
    blob: StoredBlob,
    asset_id: String,
}

/// What the file route sends.
#[derive(Debug)]
pub enum AssetFile {
    /// The client's copy is current (`If-None-Match` matched).
    NotModified {
        /// The quoted ETag.
        etag: String,
    },
    /// The bytes.
    Body {
        /// The asset.
        asset: Box<Asset>,
        /// The quoted ETag.
        etag: String,
        /// The bytes, streamed.
        reader: BlobReader,
    },
}

fn too_large() -> Error {
    Error::new(ErrorKind::TooLarge, "IMAGE_TOO_LARGE", format!("An image may be at most {MAX_IMAGE_MB} MB."))
        .with("maxMb", MAX_IMAGE_MB)
}

fn blob_error(e: BlobError) -> Error {
    match e {
        BlobError::TooLarge { .. } => too_large(),
        BlobError::Empty => Error::invalid("EMPTY_FILE", "The file is empty."),
        BlobError::Unsupported(mime) => Error::invalid(
            "UNSUPPORTED_TYPE",
            format!("Only JPEG, PNG, WebP and GIF images are accepted; this is {mime}."),
        ),
        BlobError::Stream(detail) => Error::invalid("BAD_FORM", format!("The upload did not arrive whole: {detail}")),
        other => Error::internal(other),
    }
}

fn not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such asset in this house.")
}

fn etag_of(row: &AssetRow) -> String {
    format!("\"{}\"", row.sha256)
}

fn parse_flag(raw: Option<&str>) -> Result<bool> {
    match raw.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "0" | "false" | "off") => Ok(false),
        Some("1" | "true" | "on") => Ok(true),
        Some(_) => Err(Error::invalid("BAD_FORM", "classify is one of 1, true, on, 0, false, off.")),
    }
}

/// A SKU as given (trimmed) or None; never invented.
pub(crate) fn clean_sku(raw: Option<&str>) -> Result<Option<String>> {
    let Some(sku) = raw.map(str::trim).filter(|s| !s.is_empty()) else { return Ok(None) };
    let ok = sku.chars().count() <= MAX_SKU_CHARS && sku.chars().all(|c| c.is_ascii_graphic() || c == ' ');
    if !ok {
        return Err(Error::invalid("BAD_SKU", format!("A SKU is up to {MAX_SKU_CHARS} printable ASCII characters.")));
    }
    Ok(Some(sku.to_string()))
}

pub(crate) fn parse_kind(raw: &str) -> Result<AssetKind> {
    AssetKind::parse(raw.trim())
        .ok_or_else(|| Error::invalid("BAD_KIND", "kind is one of clothes, accessory, jewelry, model, background."))
}

impl Studio {
    pub(crate) fn asset_view(&self, row: AssetRow) -> Asset {
        Asset {
            url: format!("{}/api/toolkit/assets/{}/file", self.config.public_url, row.id),
            kind: AssetKind::parse(&row.kind).unwrap_or(AssetKind::Clothes),
            id: row.id,
            name: row.name,
            sku: row.sku,
            folder_id: row.folder_id,
            group_id: row.group_id,
            fit: row.fit,
            wearer: row.wearer,
            fit_guessed: row.fit_guessed,
            wearer_guessed: row.wearer_guessed,
            carries_mark: row.carries_mark,
            mark_guessed: row.mark_guessed,
            mime: row.mime,
            tool: row.tool,
            bytes: row.bytes,
            width: row.width,
            height: row.height,
            sha256: row.sha256,
            created_at: row.created_at,
        }
    }

    /// A live asset of the caller's house.
    async fn own_asset(&self, caller: &Caller, id: &str) -> Result<AssetRow> {
        match self.storage.asset_by_id(id).await? {
            Some(row) if row.org_id == caller.org_id && row.deleted_at.is_none() => Ok(row),
            _ => Err(not_found()),
        }
    }

    /// The house's live assets, newest first; `folderId` narrows to one collection.
    pub async fn list_assets(&self, caller: &Caller, query: AssetQuery) -> Result<AssetList> {
        if let Some(folder) = &query.folder_id {
            self.storage
                .folder(&caller.org_id, folder)
                .await?
                .ok_or_else(|| Error::not_found("NOT_FOUND", "No such collection in this house."))?;
        }
        let rows = self.storage.list_assets(&caller.org_id, query.folder_id.as_deref()).await?;
        Ok(AssetList { assets: rows.into_iter().map(|r| self.asset_view(r)).collect() })
    }

    /// Stream an upload's file into the blob store: sniffed, hashed and size-capped as it
    /// arrives. Viewers are refused before a byte is stored.
    pub async fn stream_upload<S, E>(&self, caller: &Caller, body: S) -> Result<PendingUpload>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        caller.require_write_library()?;
        let asset_id = new_id("ast");
        let key = format!("orgs/{}/assets/{asset_id}", caller.org_id);
        let blob = self.blobs.put_stream(&key, body, MAX_IMAGE_BYTES, accepted_image).await.map_err(blob_error)?;
        Ok(PendingUpload { blob, asset_id })
    }

    /// Forget a streamed upload whose request failed before [`Studio::finish_upload`].
    pub async fn abandon_upload(&self, pending: PendingUpload) {
        if let Err(e) = self.blobs.delete(&pending.blob.key).await {
            tracing::warn!(error = %e, key = %pending.blob.key, "could not remove an abandoned upload");
        }
    }

    /// Validate the form and file the streamed upload as an asset. A refusal removes the bytes.
    pub async fn finish_upload(
        &self,
        caller: &Caller,
        pending: PendingUpload,
        form: UploadForm,
    ) -> Result<UploadResponse> {
        match self.file_upload(caller, &pending, form).await {
            Ok(done) => Ok(done),
            Err(e) => {
                self.abandon_upload(pending).await;
                Err(e)
            }
        }
    }

    async fn file_upload(&self, caller: &Caller, pending: &PendingUpload, form: UploadForm) -> Result<UploadResponse> {
        caller.require_write_library()?;
        let kind = match form.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => parse_kind(k)?,
            None => AssetKind::Clothes,
        };
        let sku = clean_sku(form.sku.as_deref())?;
        let classify = parse_flag(form.classify.as_deref())?;
        let folder_id = form.folder_id.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
        if let Some(folder) = &folder_id {
            self.storage
                .folder(&caller.org_id, folder)
                .await?
                .ok_or_else(|| Error::not_found("NOT_FOUND", "No such collection in this house."))?;
        }
        let name = form
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .or_else(|| form.file_name.as_deref().map(images::display_name))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "Untitled".to_string());
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(Error::invalid("BAD_FORM", format!("A name is at most {MAX_NAME_CHARS} characters.")));
        }
        let dims = images::header_dimensions(&pending.blob.head)?;
        let row = AssetRow {
            id: pending.asset_id.clone(),
            org_id: caller.org_id.clone(),
            created_by: Some(caller.user_id.clone()),
            name,
            sku,
            kind: kind.as_str().to_string(),
            folder_id,
            group_id: None,
            fit: None,
            wearer: None,
            fit_guessed: false,
            wearer_guessed: false,
            carries_mark: false,
            mark_guessed: false,
            mime: pending.blob.mime.clone(),
            tool: None,
            blob_key: pending.blob.key.clone(),
            sha256: pending.blob.sha256.clone(),
            bytes: pending.blob.bytes as i64,
            width: dims.map(|d| i64::from(d.0)),
            height: dims.map(|d| i64::from(d.1)),
            approved_by: None,
            approved_at: None,
            created_at: Utc::now(),
            deleted_at: None,
        };
        self.storage.insert_asset(row.clone()).await?;
        // Classification is an opt-in read through an AI provider; none is configured in this
        // build, so it never runs and never charges, and the upload stands.
        let classify = classify.then(|| ClassifyResult {
            ok: false,
            name_en: None,
            kind: None,
            error: Some("AI_NOT_CONFIGURED".to_string()),
            tokens: 0,
        });
        Ok(UploadResponse { asset: self.asset_view(row), classify })
    }

    /// The file route: a live asset of the caller's house (404 otherwise), or "not modified"
    /// when `if_none_match` names its current ETag.
    pub async fn asset_file(&self, caller: &Caller, id: &str, if_none_match: Option<&str>) -> Result<AssetFile> {
        let row = self.own_asset(caller, id).await?;
        self.file_of(row, if_none_match).await
    }

    /// The legacy bytes route: 404 for unknown or deleted, 403 for another house's asset.
    pub async fn legacy_asset_file(&self, caller: &Caller, id: &str) -> Result<AssetFile> {
        let row = match self.storage.asset_by_id(id).await? {
            Some(row) if row.deleted_at.is_none() => row,
            _ => return Err(Error::not_found("NOT_FOUND", "No such asset.")),
        };
        if row.org_id != caller.org_id {
            return Err(Error::forbidden("FORBIDDEN", "That asset belongs to another house."));
        }
        self.file_of(row, None).await
    }

    async fn file_of(&self, row: AssetRow, if_none_match: Option<&str>) -> Result<AssetFile> {
        let etag = etag_of(&row);
        let matches = if_none_match.is_some_and(|h| h.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
        if matches {
            return Ok(AssetFile::NotModified { etag });
        }
        let reader = self.blobs.get(&row.blob_key).await.map_err(Error::internal)?;
        Ok(AssetFile::Body { asset: Box::new(self.asset_view(row)), etag, reader })
    }

    /// Soft-delete assets of the caller's house; foreign, unknown and already-deleted ids are
    /// skipped and not counted. Viewers are refused.
    pub async fn delete_assets(&self, caller: &Caller, req: AssetIds) -> Result<Deleted> {
        caller.require_write_library()?;
        if req.asset_ids.len() > MAX_BATCH {
            return Err(
                Error::invalid("BAD_ASSET_IDS", format!("At most {MAX_BATCH} ids per call.")).with("max", MAX_BATCH)
            );
        }
        let deleted = self.storage.soft_delete_assets(&caller.org_id, &req.asset_ids, Utc::now()).await?;
        Ok(Deleted { deleted })
    }
}
