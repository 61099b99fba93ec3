//! Packs: zip archives (store mode) of a house's frames, written as a stream into the blob
//! store. Small packs are built inside the request; larger ones are queued, claimed by a
//! worker that survives restarts, and announced with `pack.ready` on the event bus. Links
//! live seven days, then a sweep removes the archive.

use crate::ids::{AssetId, OrgId, PackId};
use crate::library::Library;
use std::collections::HashSet;
use std::io::Write;

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use tokio::sync::mpsc;

use crate::api::{Pack, PackRequest, PackSize};
use crate::blobs::BlobReader;
use crate::caller::Caller;
use crate::config::PackLimits;
use crate::error::{Error, ErrorKind, Result};
use crate::events::HouseEvent;
use crate::images;
use crate::storage::PackStatus;
use crate::storage::{AssetRow, PackRow};

/// Most renditions per pack, and their bounds.
const MAX_SIZES: usize = 8;
const SIZE_BOUNDS: std::ops::RangeInclusive<u32> = 16..=8192;
/// Bytes the zip writer hands over at a time.
const CHUNK: usize = 256 * 1024;
/// Originals are read in pieces of this size, one call each. A streamed read hands a local file
/// over in 8 KiB pieces, each a hop to another blocking thread (for 1 MiB frames those hops cost
/// more than the copy); a whole-file read of a 12 MiB frame left glibc holding several such
/// buffers at once. Fixed-size ranged reads are fast and keep memory flat for any frame size;
/// see docs/performance.md.
const READ_PIECE: u64 = 2 * 1024 * 1024;
/// Throughput assumed for the `seconds` estimate (bytes per second), and per-frame overhead.
const ESTIMATE_BYTES_PER_SEC: i64 = 150 * 1024 * 1024;

/// A pack's archive being read: the whole or one byte range.
#[derive(Debug)]
pub struct PackFile {
    /// The archive's file name.
    pub filename: String,
    /// The archive's full size.
    pub size: u64,
    /// The byte range sent (inclusive), when a range was asked for.
    pub range: Option<(u64, u64)>,
    /// The bytes.
    pub reader: BlobReader,
}

fn sanitize(raw: &str, fallback: &str) -> String {
    let cleaned: String =
        raw.chars()
            .map(|c| {
                if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
    let cleaned = cleaned.replace("..", "_");
    let trimmed = cleaned.trim().trim_start_matches(['.', ' ']).trim();
    let short: String = trimmed.chars().take(120).collect();
    if short.chars().any(char::is_alphanumeric) { short } else { fallback.to_string() }
}

fn extension(mime: &str) -> &'static str {
    match mime {
        "image/jpeg" => "jpg",
        "image/png" => "png",
        "image/webp" => "webp",
        "image/gif" => "gif",
        _ => "bin",
    }
}

/// Entry names: sanitised, relative, and never two alike (case-insensitively).
#[derive(Default)]
struct EntryNames(HashSet<String>);

impl EntryNames {
    fn claim(&mut self, folder: Option<&str>, stem: &str, ext: &str) -> String {
        let prefix = folder.map(|f| format!("{f}/")).unwrap_or_default();
        let mut n = 1;
        loop {
            let name = if n == 1 { format!("{prefix}{stem}.{ext}") } else { format!("{prefix}{stem} ({n}).{ext}") };
            if self.0.insert(name.to_lowercase()) {
                return name;
            }
            n += 1;
        }
    }
}

/// The plan of one archive: which entry names hold which frames.
struct Plan {
    originals: Vec<(String, AssetRow)>,
    renditions: Vec<(String, AssetRow, PackSize)>,
}

fn plan(assets: &[AssetRow], sizes: &[PackSize]) -> Plan {
    let mut names = EntryNames::default();
    let originals = assets
        .iter()
        .map(|a| (names.claim(None, &sanitize(&a.name, "frame"), extension(&a.mime)), a.clone()))
        .collect();
    let mut renditions = Vec::new();
    for size in sizes {
        for a in assets {
            let name = names.claim(Some(&size.name), &sanitize(&a.name, "frame"), "jpg");
            renditions.push((name, a.clone(), size.clone()));
        }
    }
    Plan { originals, renditions }
}

/// A `Write` that hands full chunks to the async side through a bounded channel.
struct ChannelWriter {
    tx: mpsc::Sender<std::result::Result<Bytes, String>>,
    buf: Vec<u8>,
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx.blocking_send(Ok(chunk)).map_err(|_| std::io::Error::other("archive upload stopped"))
    }
}

impl Write for ChannelWriter {
    /// Takes at most what fills the current chunk, so no chunk in the channel outgrows `CHUNK`
    /// however large the slice (`write_all` loops over the rest).
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let take = data.len().min(CHUNK - self.buf.len());
        self.buf.extend_from_slice(&data[..take]);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(take)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

impl Library<'_> {
    fn pack_view(&self, row: &PackRow) -> Pack {
        Pack {
            pack_id: row.id.clone().into(),
            mode: row.mode.clone(),
            status: row.status.clone().to_string(),
            items: row.items,
            bytes: row.bytes,
            href: format!("{}/api/toolkit/packs/{}/file", self.studio.config.public_url, row.id),
            filename: row.filename.clone(),
            seconds: if row.status == PackStatus::Ready { 0 } else { row.seconds },
            error: row.error.clone(),
            created_at: row.created_at,
            expires_at: Some(row.expires_at),
        }
    }

    /// Pack frames of the caller's house into a zip. Free; reserves nothing.
    pub async fn create_pack(&self, caller: &Caller, req: PackRequest) -> Result<Pack> {
        let limits = &self.studio.config.packs;
        let mut seen = HashSet::new();
        let ids: Vec<&String> = req.asset_ids.iter().filter(|id| seen.insert(id.as_str())).collect();
        if ids.is_empty() {
            return Err(Error::invalid("BAD_ASSET_IDS", "assetIds must name at least one asset."));
        }
        if ids.len() > limits.max_frames {
            return Err(too_large(ids.len(), limits));
        }
        if req.sizes.len() > MAX_SIZES {
            return Err(Error::invalid("BAD_SIZES", format!("At most {MAX_SIZES} sizes.")).with("max", MAX_SIZES));
        }
        let mut sizes = Vec::new();
        let mut size_names = HashSet::new();
        for s in &req.sizes {
            let name = sanitize(&s.name, "");
            if name.is_empty() || !SIZE_BOUNDS.contains(&s.width) || !SIZE_BOUNDS.contains(&s.height) {
                return Err(Error::invalid(
                    "BAD_SIZES",
                    "Each size needs a name and a width and height of 16 to 8192 px.",
                ));
            }
            if !size_names.insert(name.to_lowercase()) {
                return Err(Error::invalid("BAD_SIZES", "Size names must differ."));
            }
            sizes.push(PackSize { name, width: s.width, height: s.height });
        }
        let mut assets = Vec::new();
        for id in ids {
            if let Some(row) = self.store.asset_by_id(&AssetId::from(id)).await?
                && row.org_id == caller.org_id
                && row.deleted_at.is_none()
            {
                assets.push(row);
            }
        }
        if assets.is_empty() {
            return Err(Error::not_found("NOT_FOUND", "None of those assets is in this house."));
        }
        let bytes: i64 = assets.iter().map(|a| a.bytes).sum();
        if bytes as u64 > limits.max_bytes {
            return Err(too_large(assets.len(), limits).with("bytes", bytes).with("maxBytes", limits.max_bytes));
        }
        let now = crate::ids::now();
        let instant = assets.len() < limits.instant_frames && (bytes as u64) < limits.instant_bytes;
        let stem =
            sanitize(req.name.as_deref().unwrap_or_default(), &format!("studio-pack-{}", now.format("%Y%m%d-%H%M")));
        let mut row = PackRow {
            id: PackId::generate(),
            org_id: caller.org_id.clone(),
            created_by: Some(caller.user_id.clone()),
            filename: format!("{stem}.zip"),
            asset_ids: serde_json::to_string(&assets.iter().map(|a| &a.id).collect::<Vec<_>>())
                .map_err(Error::internal)?,
            sizes: serde_json::to_string(&sizes).map_err(Error::internal)?,
            mode: if instant { "instant" } else { "pack" }.to_string(),
            status: PackStatus::Queued,
            items: (assets.len() * (1 + sizes.len())) as i64,
            bytes,
            seconds: estimate_seconds(bytes, assets.len(), sizes.len()),
            blob_key: None,
            error: None,
            attempts: 0,
            created_at: now,
            claimed_at: None,
            ready_at: None,
            expires_at: now + Duration::days(limits.link_days),
        };
        if !instant {
            self.store.insert_pack(row.clone()).await?;
            self.studio.pack_wakeup.notify_one();
            return Ok(self.pack_view(&row));
        }
        let (key, size) = self.build_archive(&row.org_id, &row.id, &assets, &sizes).await?;
        row.status = PackStatus::Ready;
        row.blob_key = Some(key);
        row.bytes = size as i64;
        row.ready_at = Some(crate::ids::now());
        row.attempts = 1;
        self.store.insert_pack(row.clone()).await?;
        Ok(self.pack_view(&row))
    }

    /// A pack of the caller's house.
    pub async fn get_pack(&self, caller: &Caller, id: &PackId) -> Result<Pack> {
        let row = self.store.pack(&caller.org_id, id).await?.ok_or_else(pack_not_found)?;
        Ok(self.pack_view(&row))
    }

    /// The archive of a ready pack, whole or one byte range (`start`, optional inclusive `end`).
    pub async fn pack_file(&self, caller: &Caller, id: &PackId, range: Option<(u64, Option<u64>)>) -> Result<PackFile> {
        let row = self.store.pack(&caller.org_id, id).await?.ok_or_else(pack_not_found)?;
        let key = match (row.status.as_str(), &row.blob_key) {
            ("ready", Some(key)) if row.expires_at > crate::ids::now() => key.clone(),
            ("expired", _) => return Err(Error::not_found("PACK_EXPIRED", "This pack's link has lapsed; pack again.")),
            ("ready", _) => return Err(Error::not_found("PACK_EXPIRED", "This pack's link has lapsed; pack again.")),
            ("failed", _) => {
                return Err(Error::conflict("PACK_FAILED", row.error.unwrap_or_else(|| "The pack failed.".into())));
            }
            _ => return Err(Error::conflict("PACK_NOT_READY", "The pack is still being built; wait for pack.ready.")),
        };
        let size = row.bytes as u64;
        match range {
            None => Ok(PackFile {
                filename: row.filename,
                size,
                range: None,
                reader: self.studio.blobs.get(&key).await.map_err(Error::internal)?,
            }),
            Some((start, end)) => {
                let end = end.unwrap_or(size.saturating_sub(1)).min(size.saturating_sub(1));
                if start > end || start >= size {
                    return Err(Error::new(ErrorKind::Invalid, "BAD_RANGE", "The range is outside the archive.")
                        .with("size", size));
                }
                let reader = self.studio.blobs.get_range(&key, start..end + 1).await.map_err(Error::internal)?;
                Ok(PackFile { filename: row.filename, size, range: Some((start, end)), reader })
            }
        }
    }

    /// Build the archive for these frames into the blob store; returns its key and size.
    async fn build_archive(
        &self,
        org_id: &OrgId,
        pack_id: &str,
        assets: &[AssetRow],
        sizes: &[PackSize],
    ) -> Result<(String, u64)> {
        let key = format!("orgs/{org_id}/packs/{pack_id}.zip");
        let plan = plan(assets, sizes);
        // Resized entries follow the house's colour and metadata policies, read once per pack.
        let space = self.studio.brand().output_space_for(org_id).await?;
        let kept = self.studio.brand().metadata_for(org_id).await?;
        let (tx, mut rx) = mpsc::channel::<std::result::Result<Bytes, String>>(8);
        let blobs = self.studio.blobs.clone();
        let handle = tokio::runtime::Handle::current();
        let writer = tokio::task::spawn_blocking(move || {
            let error_tx = tx.clone();
            let out = ChannelWriter { tx, buf: Vec::with_capacity(CHUNK) };
            let result = write_zip(&handle, &blobs, plan, (space, kept), out);
            if let Err(e) = &result {
                let _ = error_tx.blocking_send(Err(e.clone()));
            }
            result
        });
        let body = Box::pin(futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)));
        let max = self.studio.config.packs.max_bytes * 2 + 64 * 1024 * 1024;
        let stored = self.studio.blobs.put_stream(&key, body, max, |mime| mime == "application/zip").await;
        let written = writer.await.map_err(Error::internal)?;
        match (stored, written) {
            (Ok(blob), Ok(())) => Ok((key, blob.bytes)),
            (_, Err(e)) => Err(Error::internal(format!("pack {pack_id}: {e}"))),
            (Err(e), Ok(())) => Err(Error::internal(format!("pack {pack_id}: {e}"))),
        }
    }

    /// Build queued packs and sweep lapsed ones (and expired lane results, and the analyst's
    /// cadence, and support screenshots) until `shutdown` resolves. Safe to run on every
    /// replica: claims go through storage.
    pub async fn run_pack_worker(&self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let mut last_sweep = DateTime::<Utc>::MIN_UTC;
        // The analyst's run may wait on the AI reader: it runs beside the packs, one at a time.
        let mut analyst: Option<tokio::task::JoinHandle<()>> = None;
        loop {
            let now = crate::ids::now();
            if now - last_sweep > Duration::minutes(1) {
                last_sweep = now;
                if let Err(e) = self.sweep_packs().await {
                    tracing::warn!(error = %e, "pack sweep failed");
                }
                if let Err(e) = self.studio.ai().sweep_lane_results().await {
                    tracing::warn!(error = %e, "lane result sweep failed");
                }
                if analyst.as_ref().is_none_or(|run| run.is_finished()) {
                    let studio = self.studio.clone();
                    analyst = Some(tokio::spawn(async move {
                        if let Err(e) = studio.admin().analyst_tick(now).await {
                            tracing::warn!(error = %e, "the analyst's cadence run failed");
                        }
                    }));
                }
                if let Err(e) = self.studio.support().sweep_screenshots(now).await {
                    tracing::warn!(error = %e, "support screenshot sweep failed");
                }
            }
            let worked = match self.build_next_pack().await {
                Ok(worked) => worked,
                Err(e) => {
                    tracing::warn!(error = %e, "pack build failed");
                    true
                }
            };
            if worked {
                continue;
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = self.studio.pack_wakeup.notified() => {}
                () = tokio::time::sleep(std::time::Duration::from_secs(5)) => {}
            }
        }
    }

    /// Claim and build one queued pack; false when there was none.
    pub async fn build_next_pack(&self) -> Result<bool> {
        let limits = &self.studio.config.packs;
        let now = crate::ids::now();
        let Some(mut row) = self.store.claim_pack(now, now - Duration::seconds(limits.stale_after_secs)).await? else {
            return Ok(false);
        };
        let outcome = if row.attempts > limits.max_attempts {
            Err(Error::internal(format!("pack {} gave up after {} attempts", row.id, limits.max_attempts)))
        } else {
            let ids: Vec<String> = serde_json::from_str(&row.asset_ids).map_err(Error::internal)?;
            let sizes: Vec<PackSize> = serde_json::from_str(&row.sizes).map_err(Error::internal)?;
            let mut assets = Vec::new();
            for id in &ids {
                if let Some(a) = self.store.asset_by_id(&AssetId::from(id)).await?
                    && a.org_id == row.org_id
                    && a.deleted_at.is_none()
                {
                    assets.push(a);
                }
            }
            let build = self.build_archive(&row.org_id, &row.id, &assets, &sizes);
            tokio::pin!(build);
            // Renew the claim while building, so a long build is never taken over as stale.
            let every = std::time::Duration::from_secs((limits.stale_after_secs / 4).max(1) as u64);
            loop {
                tokio::select! {
                    done = &mut build => break done,
                    () = tokio::time::sleep(every) => {
                        if let Err(e) = self.store.renew_pack_claim(&row.id, crate::ids::now()).await {
                            tracing::warn!(pack = %row.id, error = %e, "could not renew the pack claim");
                        }
                    }
                }
            }
        };
        match outcome {
            Ok((key, size)) => {
                row.status = PackStatus::Ready;
                row.blob_key = Some(key);
                row.bytes = size as i64;
                row.ready_at = Some(crate::ids::now());
            }
            Err(e) => {
                row.status = PackStatus::Failed;
                row.error = Some("The archive could not be built; pack again.".into());
                tracing::error!(pack = %row.id, error = %e, "pack failed");
            }
        }
        self.store.finish_pack(&row).await?;
        let pack = self.pack_view(&row);
        self.studio.publish(HouseEvent::new(&row.org_id, &json!({"type": "pack.ready", "pack": pack}))).await;
        Ok(true)
    }

    /// Remove the archives of packs whose link has lapsed.
    pub async fn sweep_packs(&self) -> Result<usize> {
        let lapsed = self.store.lapsed_packs(crate::ids::now()).await?;
        for mut row in lapsed.iter().cloned() {
            if let Some(key) = &row.blob_key {
                self.studio.blobs.delete(key).await.map_err(Error::internal)?;
            }
            row.status = PackStatus::Expired;
            self.store.finish_pack(&row).await?;
        }
        Ok(lapsed.len())
    }
}

fn pack_not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such pack in this house.")
}

fn too_large(frames: usize, limits: &PackLimits) -> Error {
    Error::new(
        ErrorKind::TooLarge,
        "PACK_TOO_LARGE",
        format!("A pack holds at most {} frames and 4 GiB; split the selection.", limits.max_frames),
    )
    .with("frames", frames)
    .with("max", limits.max_frames)
}

fn estimate_seconds(bytes: i64, frames: usize, sizes: usize) -> i64 {
    (bytes / ESTIMATE_BYTES_PER_SEC + (frames * (1 + 2 * sizes)) as i64 / 20).max(1)
}

/// Write the archive (on a blocking thread): originals one at a time in `READ_PIECE` ranged
/// reads; renditions decoded under limits, turned upright (EXIF), resized one at a time and
/// written under the house's colour and metadata policies.
fn write_zip(
    rt: &tokio::runtime::Handle,
    blobs: &crate::blobs::Blobs,
    plan: Plan,
    (space, kept): (images::OutputSpace, crate::api::MetadataOutput),
    out: ChannelWriter,
) -> std::result::Result<(), String> {
    use zip::write::SimpleFileOptions;
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored).large_file(true);
    let mut zip = zip::ZipWriter::new_stream(out);
    for (name, asset) in &plan.originals {
        zip.start_file(name.as_str(), options).map_err(|e| e.to_string())?;
        let size = asset.bytes as u64;
        let mut offset = 0;
        while offset < size {
            let end = (offset + READ_PIECE).min(size);
            let piece = rt.block_on(blobs.read_range(&asset.blob_key, offset..end)).map_err(|e| e.to_string())?;
            zip.write_all(&piece).map_err(|e| e.to_string())?;
            offset = end;
        }
    }
    for (name, asset, size) in &plan.renditions {
        let bytes = rt.block_on(blobs.get_bytes(&asset.blob_key)).map_err(|e| e.to_string())?;
        let jpeg = images::rendition_jpeg_in(&bytes, size.width, size.height, space, kept).map_err(|e| e.message)?;
        zip.start_file(name.as_str(), options).map_err(|e| e.to_string())?;
        zip.write_all(&jpeg).map_err(|e| e.to_string())?;
    }
    let mut out = zip.finish().map_err(|e| e.to_string())?.into_inner();
    out.flush().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_safe_and_distinct() {
        for hostile in ["../../etc/passwd", "/abs/path", "..\\win", "C:\\x", ".hidden"] {
            let name = sanitize(hostile, "frame");
            assert!(
                !name.contains('/') && !name.contains('\\') && !name.contains("..") && !name.starts_with('.'),
                "{hostile} -> {name}"
            );
        }
        assert_eq!(sanitize("  ..  ", "frame"), "frame");
        assert_eq!(sanitize("coat\u{0}front", "frame"), "coat_front");
        let mut names = EntryNames::default();
        assert_eq!(names.claim(None, "Coat", "jpg"), "Coat.jpg");
        assert_eq!(names.claim(None, "coat", "jpg"), "coat (2).jpg");
        assert_eq!(names.claim(None, "Coat", "jpg"), "Coat (3).jpg");
        assert_eq!(names.claim(Some("web"), "Coat", "jpg"), "web/Coat.jpg");
    }

    #[test]
    fn estimates_grow_with_work() {
        assert_eq!(estimate_seconds(0, 1, 0), 1);
        assert!(estimate_seconds(2 * 1024 * 1024 * 1024, 600, 2) > estimate_seconds(100 * 1024 * 1024, 300, 0));
    }
}
