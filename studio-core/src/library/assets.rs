//! The library's images: streamed uploads into the blob store, listing, the file routes and
//! soft deletion. An asset of another house is never revealed (404), except on the legacy
//! bytes route, which the spec has answer 403.

use crate::ids::{AssetId, FolderId, GroupId, OrgId};
use crate::library::Library;
use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures_util::{Stream, TryStreamExt};

use crate::api::{
    Asset, AssetBatchPatch, AssetDetail, AssetIds, AssetKind, AssetList, AssetOrigin, AssetPatch, AssetProvenance,
    AssetQuery, AssetResponse, Backgrounds, BackgroundsQuery, Deleted, Ground, GroupRequest, GroupResponse,
    OriginInput, ProvenanceReport, Quality, Quote, QuoteRequest, Scene, Updated, UploadResponse,
};
use crate::blobs::{BlobError, BlobReader, StoredBlob};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::images;
use crate::library::asset_lists::{KeptList, ListKey};
use crate::provenance::read_credentials;
use crate::providers::DEVELOP_TOOLS;
use crate::storage::{AssetChanges, AssetRow};

use crate::ai::classify::Supplied;
use crate::api::MAX_ASSET_PAGE;
use crate::images::MAX_IMAGE_MB;
const MAX_IMAGE_BYTES: u64 = MAX_IMAGE_MB * 1024 * 1024;
/// Longest name and SKU.
const MAX_NAME_CHARS: usize = 200;
const MAX_SKU_CHARS: usize = 64;
/// Most ids one batch call takes.
const MAX_BATCH: usize = 1000;

pub(crate) use crate::images::accepted_image;

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
        /// The type of the bytes served (the asset's own, or its rendition's).
        mime: String,
        /// The bytes, streamed.
        reader: BlobReader,
    },
}

fn blob_error(e: BlobError) -> Error {
    match e {
        BlobError::TooLarge { .. } => images::image_too_large(),
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

pub(crate) use crate::api::vocabulary::GROUNDS;

/// Distinct ids, in first-seen order.
fn dedup(ids: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    ids.iter().filter(|id| seen.insert(id.as_str())).cloned().collect()
}

fn check_batch(ids: &[String]) -> Result<()> {
    if ids.len() > MAX_BATCH {
        return Err(
            Error::invalid("BAD_ASSET_IDS", format!("At most {MAX_BATCH} ids per call.")).with("max", MAX_BATCH)
        );
    }
    Ok(())
}

/// A closed-vocabulary value or null.
fn one_of(value: Option<String>, allowed: &[&str], field: &str) -> Result<Option<String>> {
    match value {
        None => Ok(None),
        Some(v) if allowed.contains(&v.trim()) => Ok(Some(v.trim().to_string())),
        Some(_) => Err(Error::invalid("BAD_BODY", format!("{field} is one of {} or null.", allowed.join(", ")))),
    }
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

/// A page size: 1 to [`MAX_ASSET_PAGE`], and [`MAX_ASSET_PAGE`] when left out, so no list route
/// reads a whole library into memory.
fn page_limit(raw: Option<&str>) -> Result<i64> {
    match raw.map(str::trim) {
        None | Some("") => Ok(MAX_ASSET_PAGE),
        Some(l) => l.parse::<i64>().ok().filter(|n| (1..=MAX_ASSET_PAGE).contains(n)).ok_or_else(|| {
            Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_ASSET_PAGE}.")).with("max", MAX_ASSET_PAGE)
        }),
    }
}

pub(crate) fn parse_kind(raw: &str) -> Result<AssetKind> {
    AssetKind::parse(raw.trim())
        .ok_or_else(|| Error::invalid("BAD_KIND", "kind is one of clothes, accessory, jewelry, model, background."))
}

impl Library<'_> {
    /// The file route of asset `id`, as clients fetch it.
    pub(crate) fn asset_file_url(&self, id: &str) -> String {
        format!("{}/api/toolkit/assets/{id}/file", self.studio.config.public_url)
    }

    pub(crate) fn asset_view(&self, row: AssetRow) -> Asset {
        let provenance = row.provenance_summary();
        Asset {
            url: self.asset_file_url(&row.id),
            kind: AssetKind::parse(&row.kind).unwrap_or(AssetKind::Clothes),
            id: row.id.into(),
            name: row.name,
            sku: row.sku,
            folder_id: row.folder_id.map(String::from),
            group_id: row.group_id.map(String::from),
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
            approved_by: row.approved_by,
            approved_at: row.approved_at,
            created_at: row.created_at,
            provenance,
        }
    }

    /// What an upload's content credentials say. Only a file whose first 512 KiB (the head
    /// the blob store keeps while it streams) hold the C2PA manifest store's label is read in full
    /// (an embedded manifest sits before the image data in every format Studio takes); any
    /// other reads as carrying none. Null when the file could not be read back.
    async fn upload_provenance(&self, blob: &StoredBlob) -> Option<AssetProvenance> {
        if !blob.head.windows(4).any(|w| w == b"c2pa") {
            return Some(AssetProvenance::none());
        }
        let bytes = self.studio.blobs.get_bytes(&blob.key).await.ok()?;
        let (mime, anchor) = (blob.mime.clone(), self.studio.config.credentials.trust_anchor().to_string());
        let read = tokio::task::spawn_blocking(move || read_credentials(&bytes, &mime, Some(&anchor)));
        read.await.ok().map(|report| report.summary)
    }

    /// `GET /api/toolkit/assets/{id}/provenance`: the content credentials of a live asset of
    /// the caller's house, read from its file now (any role; 404 otherwise). The asset's
    /// summary is brought up to date with what was read.
    pub async fn asset_provenance(&self, caller: &Caller, id: &AssetId) -> Result<ProvenanceReport> {
        let row = self.own_asset(caller, &AssetId::from(id.trim())).await?;
        let bytes = self.studio.blobs.get_bytes(&row.blob_key).await.map_err(Error::internal)?;
        let (mime, anchor) = (row.mime.clone(), self.studio.config.credentials.trust_anchor().to_string());
        let report = tokio::task::spawn_blocking(move || read_credentials(&bytes, &mime, Some(&anchor)))
            .await
            .map_err(Error::internal)?;
        if row.provenance_summary().as_ref() != Some(&report.summary) {
            let summary = serde_json::to_string(&report.summary).map_err(Error::internal)?;
            self.store.set_asset_provenance(&caller.org_id, &row.id, &summary).await?;
        }
        Ok(report)
    }

    /// An asset by id, whatever its house and state (the caller decides what to reveal).
    pub(crate) async fn asset(&self, id: &AssetId) -> Result<Option<AssetRow>> {
        Ok(self.store.asset_by_id(id).await?)
    }

    /// Store a new asset row (its blob already stored).
    pub(crate) async fn add_asset(&self, row: AssetRow) -> Result<()> {
        self.store.insert_asset(row).await?;
        Ok(())
    }

    /// Apply `changes` to the house's live assets among `ids`; how many rows matched.
    pub(crate) async fn change_assets(&self, org_id: &OrgId, ids: &[String], changes: &AssetChanges) -> Result<i64> {
        Ok(self.store.update_assets(org_id, ids, changes).await?)
    }

    /// The house's newest live assets, at most `limit`, any collection and kind.
    pub(crate) async fn recent_assets(&self, org_id: &OrgId, limit: i64) -> Result<Vec<AssetRow>> {
        Ok(self.store.list_assets_page(org_id, None, None, limit, None).await?)
    }

    /// A live asset of the caller's house.
    pub(crate) async fn own_asset(&self, caller: &Caller, id: &AssetId) -> Result<AssetRow> {
        match self.store.asset_by_id(id).await? {
            Some(row) if row.org_id == caller.org_id && row.deleted_at.is_none() => Ok(row),
            _ => Err(not_found()),
        }
    }

    /// One page of the house's live assets, newest first; `folderId` narrows to one collection.
    /// At most `limit` (1 to [`MAX_ASSET_PAGE`], which is also the default) after `cursor`, and
    /// `nextCursor` when more remain.
    pub async fn list_assets(&self, caller: &Caller, query: AssetQuery) -> Result<AssetList> {
        Ok(self.kept_asset_list(caller, query).await?.list.clone())
    }

    /// The same page as [`Studio::list_assets`], as its JSON document: serialized once per
    /// kept answer and then the same bytes, for frontends that answer JSON.
    pub async fn list_assets_json(&self, caller: &Caller, query: AssetQuery) -> Result<Bytes> {
        Ok(self.kept_asset_list(caller, query).await?.json())
    }

    /// The page asked for, from the cache while the house's library version is unchanged.
    async fn kept_asset_list(&self, caller: &Caller, query: AssetQuery) -> Result<Arc<KeptList>> {
        let folder = query.folder_id.as_deref();
        if let Some(folder) = folder {
            self.store
                .folder(&caller.org_id, &FolderId::from(folder))
                .await?
                .ok_or_else(|| Error::not_found("NOT_FOUND", "No such collection in this house."))?;
        }
        let limit = page_limit(query.limit.as_deref())?;
        let after = self.page_cursor(caller, query.cursor.as_deref()).await?;
        // The version first, then the list (see asset_lists.rs); a key's check has just read it.
        let version = match caller.library_version {
            Some(version) => version,
            None => self.store.library_version(&caller.org_id).await?,
        };
        let key = ListKey {
            org_id: caller.org_id.to_string(),
            folder_id: folder.map(str::to_string),
            limit,
            cursor: after.as_ref().map(|(_, id)| id.clone()),
        };
        if let Some(kept) = self.studio.asset_lists.get(&key, version) {
            return Ok(kept);
        }
        let (rows, next_cursor) = self.asset_page(&caller.org_id, folder, None, limit, after).await?;
        let list = AssetList { assets: rows.into_iter().map(|r| self.asset_view(r)).collect(), next_cursor };
        let kept = Arc::new(KeptList::new(list));
        self.studio.asset_lists.put(key, version, kept.clone());
        Ok(kept)
    }

    /// One page of live assets, newest first (of one collection or kind when given), and the
    /// cursor of the next page when another follows.
    async fn asset_page(
        &self,
        org_id: &OrgId,
        folder: Option<&str>,
        kind: Option<AssetKind>,
        limit: i64,
        after: Option<(DateTime<Utc>, String)>,
    ) -> Result<(Vec<AssetRow>, Option<String>)> {
        let after = after.as_ref().map(|(at, id)| (*at, id.as_str()));
        let kind = kind.map(AssetKind::as_str);
        // One more than the page, to know whether another follows.
        let mut rows =
            self.store.list_assets_page(org_id, folder.map(FolderId::from).as_ref(), kind, limit + 1, after).await?;
        let next_cursor = if rows.len() as i64 > limit {
            rows.truncate(limit as usize);
            rows.last().map(|r| r.id.clone())
        } else {
            None
        };
        Ok((rows, next_cursor.map(String::from)))
    }

    /// How many live assets the house has, optionally in one collection.
    pub async fn count_assets(&self, caller: &Caller, folder_id: Option<&str>) -> Result<i64> {
        Ok(self.store.count_assets(&caller.org_id, folder_id.map(FolderId::from).as_ref()).await?)
    }

    /// Stream an upload's file into the blob store: sniffed, hashed, size-capped and followed to
    /// its end (a file cut short is removed and refused) as it arrives. Viewers are refused
    /// before a byte is stored.
    pub async fn stream_upload<S, E>(&self, caller: &Caller, body: S) -> Result<PendingUpload>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        caller.require_write_library()?;
        let asset_id = new_id("ast");
        let key = format!("orgs/{}/assets/{asset_id}", caller.org_id);
        let mut whole = images::Whole::default();
        let body = body.inspect_ok(|chunk| whole.feed(chunk));
        let blob =
            self.studio.blobs.put_stream(&key, body, MAX_IMAGE_BYTES, accepted_image).await.map_err(blob_error)?;
        let pending = PendingUpload { blob, asset_id };
        if !whole.is_whole() {
            self.abandon_upload(pending).await;
            return Err(images::cut_short("The image"));
        }
        Ok(pending)
    }

    /// Forget a streamed upload whose request failed before [`Studio::finish_upload`].
    pub async fn abandon_upload(&self, pending: PendingUpload) {
        if let Err(e) = self.studio.blobs.delete(&pending.blob.key).await {
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
        let kind_given = form.kind.as_deref().is_some_and(|k| !k.trim().is_empty());
        let name_given = form.name.as_deref().is_some_and(|n| !n.trim().is_empty());
        let kind = match form.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => parse_kind(k)?,
            None => AssetKind::Clothes,
        };
        let sku = clean_sku(form.sku.as_deref())?;
        let classify = parse_flag(form.classify.as_deref())?;
        let folder_id = form.folder_id.map(|f| f.trim().to_string()).filter(|f| !f.is_empty());
        if let Some(folder) = &folder_id {
            self.store
                .folder(&caller.org_id, &FolderId::from(folder))
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
        let filed = AssetRow::over_blob(
            pending.asset_id.clone(),
            &caller.org_id,
            Some(caller.user_id.to_string()),
            name,
            kind.as_str(),
            &pending.blob,
            dims,
        );
        let provenance = self.upload_provenance(&pending.blob).await;
        let row = AssetRow { sku, folder_id: folder_id.map(FolderId::from), ..filed };
        let row = match &provenance {
            Some(summary) => row.with_provenance(summary),
            None => row,
        };
        self.store.insert_asset(row.clone()).await?;
        if !classify {
            return Ok(UploadResponse { asset: self.asset_view(row), classify: None });
        }
        // The upload stands whatever the read does: a failure is reported, never thrown.
        let supplied = Supplied { name: name_given, kind: kind_given };
        let (row, result) = self.studio.ai().classify_upload(caller, row, supplied).await?;
        Ok(UploadResponse { asset: self.asset_view(row), classify: Some(result) })
    }

    /// The file route: a live asset of the caller's house (404 otherwise), or "not modified"
    /// when `if_none_match` names its current ETag.
    pub async fn asset_file(&self, caller: &Caller, id: &AssetId, if_none_match: Option<&str>) -> Result<AssetFile> {
        let row = self.own_asset(caller, id).await?;
        self.file_of(row, if_none_match).await
    }

    /// One live asset of the caller's house as JSON and, when a develop made it, that develop
    /// and its inputs (a fresh upload's input has no asset; an input deleted since keeps its id
    /// but not its name or link). Any role; 404 when it is not this house's.
    pub async fn asset_detail(&self, caller: &Caller, id: &AssetId) -> Result<AssetDetail> {
        let row = self.own_asset(caller, &AssetId::from(id.trim())).await?;
        let origin = match self.studio.develops().origin_job(&caller.org_id, &row.id).await? {
            None => None,
            Some(job) => {
                let mut inputs = Vec::new();
                for input in job.input_list() {
                    let live = match &input.asset_id {
                        Some(asset_id) => match self.store.asset_by_id(&AssetId::from(asset_id)).await? {
                            Some(a) if a.org_id == caller.org_id && a.deleted_at.is_none() => Some(a),
                            _ => None,
                        },
                        None => None,
                    };
                    inputs.push(OriginInput {
                        role: input.role,
                        asset_id: input.asset_id,
                        url: live.as_ref().map(|a| self.asset_file_url(&a.id)),
                        name: live.map(|a| a.name),
                    });
                }
                Some(AssetOrigin {
                    job_id: job.id.into(),
                    tool: job.tool,
                    quality: job.quality,
                    status: job.status.to_string(),
                    created_at: job.created_at,
                    inputs,
                })
            }
        };
        Ok(AssetDetail { asset: self.asset_view(row), origin })
    }

    /// The legacy bytes route: 404 for unknown or deleted, 403 for another house's asset.
    pub async fn legacy_asset_file(&self, caller: &Caller, id: &AssetId) -> Result<AssetFile> {
        let row = match self.store.asset_by_id(id).await? {
            Some(row) if row.deleted_at.is_none() => row,
            _ => return Err(Error::not_found("NOT_FOUND", "No such asset.")),
        };
        if row.org_id != caller.org_id {
            return Err(Error::forbidden("FORBIDDEN", "That asset belongs to another house."));
        }
        self.file_of(row, None).await
    }

    pub(crate) async fn file_of(&self, row: AssetRow, if_none_match: Option<&str>) -> Result<AssetFile> {
        let etag = etag_of(&row);
        let matches = if_none_match.is_some_and(|h| h.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
        if matches {
            return Ok(AssetFile::NotModified { etag });
        }
        let reader = self.studio.blobs.get(&row.blob_key).await.map_err(Error::internal)?;
        let asset = self.asset_view(row);
        Ok(AssetFile::Body { mime: asset.mime.clone(), asset: Box::new(asset), etag, reader })
    }

    /// Edit one asset. Absent fields stay; `sku`, `folderId`, `fit` and `wearer` take null; an
    /// empty patch changes nothing and answers the asset.
    pub async fn patch_asset(&self, caller: &Caller, id: &AssetId, patch: AssetPatch) -> Result<AssetResponse> {
        caller.require_write_library()?;
        self.own_asset(caller, id).await?;
        let mut changes = AssetChanges::default();
        if let Some(name) = patch.name {
            let name = name
                .as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| Error::invalid("BAD_BODY", "name cannot be empty or null."))?;
            if name.chars().count() > MAX_NAME_CHARS {
                return Err(Error::invalid("BAD_BODY", format!("A name is at most {MAX_NAME_CHARS} characters.")));
            }
            changes.name = Some(name.to_string());
        }
        if let Some(sku) = patch.sku {
            changes.sku = Some(clean_sku(sku.as_deref())?);
        }
        if let Some(kind) = patch.kind {
            let kind = kind.ok_or_else(|| Error::invalid("BAD_KIND", "kind cannot be null."))?;
            changes.kind = Some(parse_kind(&kind)?.as_str().to_string());
        }
        if let Some(folder) = patch.folder_id {
            changes.folder_id = Some(self.target_folder(caller, folder, "BAD_FOLDER").await?);
        }
        if let Some(fit) = patch.fit {
            changes.fit = Some(one_of(fit, &["auto", "fitted", "regular", "loose", "oversized"], "fit")?);
        }
        if let Some(wearer) = patch.wearer {
            changes.wearer = Some(one_of(wearer, &["women", "men", "unisex"], "wearer")?);
        }
        if changes != AssetChanges::default() {
            self.store.update_assets(&caller.org_id, &[id.to_string()], &changes).await?;
        }
        Ok(AssetResponse { asset: self.asset_view(self.own_asset(caller, id).await?) })
    }

    /// A collection of the caller's house to move into (None: the root); `code` when it is not.
    async fn target_folder(
        &self,
        caller: &Caller,
        folder: Option<String>,
        code: &'static str,
    ) -> Result<Option<String>> {
        let Some(folder) = folder.map(|f| f.trim().to_string()).filter(|f| !f.is_empty()) else { return Ok(None) };
        match self.store.folder(&caller.org_id, &FolderId::from(&folder)).await? {
            Some(_) => Ok(Some(folder)),
            None if code == "NOT_FOUND" => Err(Error::not_found(code, "No such collection in this house.")),
            None => Err(Error::invalid(code, "No such collection in this house.")),
        }
    }

    /// Move, re-file or approve many assets at once; foreign and deleted ids are skipped.
    /// `approved: true` stamps the caller's name and the time; false clears both.
    pub async fn patch_assets_batch(&self, caller: &Caller, req: AssetBatchPatch) -> Result<Updated> {
        caller.require_write_library()?;
        check_batch(&req.asset_ids)?;
        let kind = req.kind.flatten();
        if req.folder_id.is_none() && kind.is_none() && req.approved.is_none() {
            return Err(Error::invalid("BAD_BODY", "Give at least one of folderId, kind or approved."));
        }
        let mut changes = AssetChanges::default();
        if let Some(kind) = kind {
            changes.kind = Some(parse_kind(&kind)?.as_str().to_string());
        }
        if let Some(folder) = req.folder_id {
            changes.folder_id = Some(self.target_folder(caller, folder, "NOT_FOUND").await?);
        }
        if let Some(approved) = req.approved {
            changes.approval = Some(match approved {
                true => {
                    let person = self.studio.accounts().user(&caller.user_id).await?;
                    let director =
                        person.map(|u| u.name.unwrap_or(u.email)).unwrap_or_else(|| caller.user_id.to_string());
                    Some((director, crate::ids::now()))
                }
                false => None,
            });
        }
        let updated = self.store.update_assets(&caller.org_id, &dedup(&req.asset_ids), &changes).await?;
        Ok(Updated { updated })
    }

    /// What an operation on these assets would cost now. Spends and reserves nothing.
    pub async fn quote_assets(&self, caller: &Caller, req: QuoteRequest) -> Result<Quote> {
        check_batch(&req.asset_ids)?;
        let prices = &self.studio.config.prices;
        let operation = req.operation.as_deref().map(str::trim).unwrap_or_default().to_string();
        let per_item = match operation.as_str() {
            "remove-background" => prices.utility_charge,
            "packshot" => {
                let quality = match req.quality.as_deref() {
                    None => Quality::K1,
                    Some(q) => q.parse().map_err(|_| Error::invalid("BAD_QUALITY", "quality is one of 1k, 2k, 4k."))?,
                };
                let extra = if req.also_remove_background { prices.utility_charge } else { 0 };
                prices.price("packshot", quality, &DEVELOP_TOOLS) + extra
            }
            _ => return Err(Error::invalid("BAD_OPERATION", "operation is remove-background or packshot.")),
        };
        let items = self.store.count_live_assets(&caller.org_id, &dedup(&req.asset_ids)).await?;
        let spendable = self.studio.billing().totals(&caller.org_id).await?.spendable();
        let tokens = items * per_item;
        Ok(Quote { operation, items, per_item, tokens, spendable, affordable: spendable >= tokens })
    }

    /// Give assets one new shared group stamp, replacing any group they had. All or nothing:
    /// every id must be a live asset of this house.
    pub async fn group_assets(&self, caller: &Caller, req: GroupRequest) -> Result<GroupResponse> {
        caller.require_write_library()?;
        let unique = dedup(&req.asset_ids);
        if req.asset_ids.is_empty()
            || unique.len() != req.asset_ids.len()
            || req.asset_ids.iter().any(|i| i.trim().is_empty())
        {
            return Err(Error::invalid("BAD_ASSET_IDS", "assetIds must be a non-empty list of distinct ids."));
        }
        check_batch(&req.asset_ids)?;
        let group_id = new_id("grp");
        if !self.store.set_asset_group(&caller.org_id, &unique, &GroupId::from(&group_id)).await? {
            return Err(Error::not_found(
                "NOT_FOUND",
                "Some of those assets are not in this house; nothing was grouped.",
            ));
        }
        Ok(GroupResponse { group_id })
    }

    /// A page's cursor: an asset of this house, live or since taken out, as (`created_at`, id).
    async fn page_cursor(&self, caller: &Caller, cursor: Option<&str>) -> Result<Option<(DateTime<Utc>, String)>> {
        match cursor.map(str::trim).filter(|c| !c.is_empty()) {
            None => Ok(None),
            Some(id) => match self.store.asset_by_id(&AssetId::from(id)).await? {
                Some(row) if row.org_id == caller.org_id => Ok(Some((row.created_at, row.id.into()))),
                _ => Err(Error::invalid("BAD_CURSOR", "cursor is the nextCursor of an earlier page.")),
            },
        }
    }

    /// The built-in plain grounds and one page of the house's own scenes (assets of kind
    /// background), newest first: `limit` (default and most [`MAX_ASSET_PAGE`]) after `cursor`.
    pub async fn backgrounds(&self, caller: &Caller, query: BackgroundsQuery) -> Result<Backgrounds> {
        let limit = page_limit(query.limit.as_deref())?;
        let after = self.page_cursor(caller, query.cursor.as_deref()).await?;
        let grounds = GROUNDS
            .iter()
            .map(|(id, name, tone, note)| Ground {
                id: id.to_string(),
                kind: "plain".to_string(),
                name: name.to_string(),
                note: note.to_string(),
                tone: tone.to_string(),
                preview_url: format!("{}/api/toolkit/backgrounds/{id}/preview", self.studio.config.public_url),
            })
            .collect();
        let (rows, next_cursor) =
            self.asset_page(&caller.org_id, None, Some(AssetKind::Background), limit, after).await?;
        let scenes = rows
            .into_iter()
            .map(|a| {
                let view = self.asset_view(a);
                Scene { id: view.id, name: view.name, url: view.url, created_at: view.created_at }
            })
            .collect();
        Ok(Backgrounds { grounds, scenes, next_cursor })
    }

    /// A built-in ground's swatch as a small PNG.
    pub fn ground_preview(&self, id: &str) -> Result<Vec<u8>> {
        let (_, _, tone, _) =
            GROUNDS.iter().find(|g| g.0 == id).ok_or_else(|| Error::not_found("NOT_FOUND", "No such ground."))?;
        images::swatch_png(tone)
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
        let ids = dedup(&req.asset_ids);
        let deleted = self.store.soft_delete_assets(&caller.org_id, &ids, crate::ids::now()).await?;
        if deleted > 0 {
            // Keys are under the caller's own house, so a foreign id removes nothing.
            self.forget_renditions(&caller.org_id, &ids).await;
        }
        Ok(Deleted { deleted })
    }
}
