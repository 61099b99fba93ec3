//! The lane pipeline every AI utility lane and text tool shares (`02-route-groups.md` §4.1–4.2):
//! check the upload, hold the flat charge, run, settle or release; and the unkept results
//! (a depth map, a segment cutout) served from short-lived signed URLs.
//!
//! Order, the same for every paid lane: a viewer is 403 → the input is checked (400 with the
//! lane's code; 413 `IMAGE_TOO_LARGE` with `maxMb`) → a lane whose upstream is not configured
//! is 503 (nothing held) → the price book's utility charge (1 token) is held through the
//! ledger's hold helpers (402 with `need` and `spendable`) → the work runs → its answer is
//! validated → the hold settles; any failure on the way releases it. The hold is taken and
//! resolved in a task of its own ([`Studio::charged`]), so a caller who hangs up mid-lane never
//! strands it. read_model and read_build go through the same helper.
//!
//! An unkept result is a PNG blob under `orgs/{org}/lanes/` with a `lane_results` row; its URL
//! is `/api/toolkit/ai/results/{id}?e=EXPIRY&s=SIGNATURE` (links.rs), good for
//! [`LANE_RESULT_SECS`]; the pack worker's sweep deletes expired rows and blobs.

use crate::ai::Ai;
use crate::ids::{HoldId, LaneResultId, OrgId};
use std::future::Future;

use futures_util::FutureExt;
use std::io::Cursor;

use bytes::Bytes;
use chrono::{Duration, Utc};
use image::metadata::Orientation;
use image::{DynamicImage, ImageEncoder};

use crate::api::LANE_RESULT_SECS;
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::images::{self, MAX_IMAGE_MB};
use crate::providers::ai::AiImage;
use crate::storage::{AssetRow, LaneResultRow};

/// The signed-link scope of lane results.
const RESULT_SCOPE: &str = "lane-result";
/// The largest image a lane takes, in bytes (spec §8: 12 MB).
pub(crate) const MAX_LANE_IMAGE_BYTES: usize = (MAX_IMAGE_MB * 1024 * 1024) as usize;
/// The long edge images are scaled down to before a reader or fal sees them.
const SEND_EDGE: u32 = 1536;
/// Expired results deleted per sweep pass.
const SWEEP_PAGE: i64 = 200;

/// An image uploaded to a lane, as sent.
#[derive(Debug, Clone)]
pub struct LaneImage {
    /// The file's bytes.
    pub bytes: Bytes,
    /// The file name the form gave, if any (names a kept result).
    pub file_name: Option<String>,
}

/// A decoded upload ready for a reader or fal: the picture as displayed (EXIF orientation
/// applied, scaled to [`SEND_EDGE`]) and the orientation that was applied.
pub(crate) struct Prepared {
    pub(crate) image: AiImage,
    pub(crate) orientation: Orientation,
}

/// A 502 for a lane whose work failed; nothing was charged.
pub(crate) fn lane_failed(code: &'static str, detail: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Upstream, code, format!("{detail}; nothing was charged."))
}

/// A result that could not be stored: past the blob cap it is the lane's 502 `code` (the
/// frame was too large to answer), anything else our own fault.
pub(crate) fn stored_failed(e: crate::blobs::BlobError, code: &'static str) -> Error {
    match e {
        crate::blobs::BlobError::TooLarge { .. } => lane_failed(code, "the result is larger than this studio keeps"),
        e => Error::internal(e),
    }
}

/// Check an upload: present (400 `missing`), not empty (`EMPTY_IMAGE`), at most 12 MB (413),
/// a JPEG, PNG, WebP or GIF (`BAD_FORM`), whole (`BAD_FORM`) and within the decode limits
/// (413).
pub(crate) fn check_upload(image: Option<&LaneImage>, missing: &'static str) -> Result<()> {
    let Some(image) = image else {
        return Err(Error::invalid(missing, "Send the image as a file part named `image`."));
    };
    images::check_sent(&image.bytes, "The image")?;
    // More pixels than the service decodes is 413 now, before anything is held.
    images::header_dimensions(&image.bytes)?;
    Ok(())
}

/// Decode `bytes` under the service's limits with EXIF orientation applied; the orientation
/// is returned beside the picture. 400 `BAD_FORM` when it does not decode; 413
/// `IMAGE_TOO_LARGE` past the decode limits.
pub(crate) fn decode_oriented(bytes: &[u8]) -> Result<(DynamicImage, Orientation)> {
    let bad = |e: image::ImageError| match e {
        image::ImageError::Limits(_) => images::too_many_pixels(),
        e => Error::invalid("BAD_FORM", format!("The image could not be decoded: {e}.")),
    };
    // Colour-managed: the picture in sRGB whatever profile it carries (images/colour.rs).
    let managed = images::colour::decode(bytes).map_err(bad)?;
    let (img, orientation) = (managed.image, managed.orientation);
    if img.width() == 0 || img.height() == 0 {
        return Err(Error::invalid("BAD_FORM", "The image has no pixels."));
    }
    Ok((img, orientation))
}

/// The picture as displayed, scaled to [`SEND_EDGE`] on its long edge, as a JPEG (or a PNG when
/// it has transparency), for a reader or fal.
pub(crate) fn prepare(bytes: &[u8]) -> Result<Prepared> {
    let (img, orientation) = decode_oriented(bytes)?;
    let img = if img.width().max(img.height()) > SEND_EDGE { img.thumbnail(SEND_EDGE, SEND_EDGE) } else { img };
    let mut out = Cursor::new(Vec::new());
    let icc = images::colour::srgb_icc().to_vec();
    let mime = if img.color().has_alpha() {
        let rgba = img.into_rgba8();
        let mut encoder = image::codecs::png::PngEncoder::new(&mut out);
        encoder.set_icc_profile(icc).map_err(Error::internal)?;
        encoder
            .write_image(rgba.as_raw(), rgba.width(), rgba.height(), image::ExtendedColorType::Rgba8)
            .map_err(Error::internal)?;
        "image/png"
    } else {
        let rgb = DynamicImage::ImageRgb8(img.into_rgb8());
        let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90);
        encoder.set_icc_profile(icc).map_err(Error::internal)?;
        encoder.encode_image(&rgb).map_err(Error::internal)?;
        "image/jpeg"
    };
    Ok(Prepared { image: AiImage { mime: mime.to_string(), bytes: out.into_inner().into() }, orientation })
}

/// [`prepare`] off the async threads.
pub(crate) async fn prepare_async(bytes: Bytes) -> Result<Prepared> {
    tokio::task::spawn_blocking(move || prepare(&bytes)).await.map_err(Error::internal)?
}

impl Ai<'_> {
    /// Run `work` under the utility charge: hold it for the caller (402 with `need` and
    /// `spendable`, its code `code_402` when given), run, settle on `Ok` and release on `Err`.
    /// Returns the work's value and the tokens charged. `lane` is `(tool, provider)`, what the
    /// settled charge's cost record names (`admin/costs.rs`). The whole of it runs in a task of its
    /// own, so the hold is settled or released even when the caller goes away.
    pub(crate) async fn charged<T, F>(
        &self,
        caller: &Caller,
        lane: (&'static str, &'static str),
        code_402: Option<&'static str>,
        work: F,
    ) -> Result<(T, i64)>
    where
        T: Send + 'static,
        F: Future<Output = Result<T>> + Send + 'static,
    {
        self.charged_at(caller, lane, self.studio.config.prices.utility_charge, code_402, work).await
    }

    /// [`Studio::charged`] at `price` tokens rather than the utility charge (a priced chat turn).
    pub(crate) async fn charged_at<T, F>(
        &self,
        caller: &Caller,
        lane: (&'static str, &'static str),
        price: i64,
        code_402: Option<&'static str>,
        work: F,
    ) -> Result<(T, i64)>
    where
        T: Send + 'static,
        F: Future<Output = Result<T>> + Send + 'static,
    {
        caller.require_spend_tokens()?;
        let (studio, caller) = (self.studio.clone(), caller.clone());
        tokio::spawn(async move {
            if price <= 0 {
                return Ok((work.await?, 0));
            }
            let hold = match studio.billing().reserve_tokens(&caller, price, None, None).await {
                Ok(reservation) => reservation.hold,
                Err(mut e) => {
                    if let (Some(code), ErrorKind::InsufficientTokens) = (code_402, e.kind) {
                        e.code = code;
                    }
                    return Err(e);
                }
            };
            // A panic in the work is a failure like any other: the hold is released.
            let outcome = match std::panic::AssertUnwindSafe(work).catch_unwind().await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::internal("a lane's work panicked")),
            };
            let settle = outcome.is_ok();
            if let Err(e) = studio.ai().resolve_with_retries(&caller.org_id, &HoldId::from(&hold.id), settle).await {
                tracing::error!(error = %e, hold = %hold.id, settle, "a lane's hold could not be resolved");
                if settle {
                    // The work is done but the charge is not recorded: answer the failure
                    // rather than hand out what was not paid for.
                    return Err(e);
                }
            } else if settle {
                // Settled: what the provider's call cost, recorded after the ledger moved.
                let (tool, provider) = lane;
                studio.admin().record_cost(&caller.org_id, &hold.id, None, tool, provider, price).await;
            }
            outcome.map(|value| (value, price))
        })
        .await
        .map_err(Error::internal)?
    }

    /// Settle (or release) a hold, trying again after 100 ms, 400 ms and 1.6 s on a storage
    /// failure: both are idempotent by hold id, so a retry after a lost answer is safe.
    async fn resolve_with_retries(&self, org_id: &OrgId, hold_id: &HoldId, settle: bool) -> Result<()> {
        let mut wait = std::time::Duration::from_millis(100);
        let mut attempt = 1;
        loop {
            let done = if settle {
                self.studio.billing().settle_hold(org_id, hold_id).await.map(drop)
            } else {
                self.studio.billing().release_hold(org_id, hold_id).await.map(drop)
            };
            match done {
                Err(e) if attempt < 4 => {
                    tracing::warn!(error = %e, hold = %hold_id, attempt, "resolving a lane's hold failed; trying again");
                }
                done => return done,
            }
            tokio::time::sleep(wait).await;
            wait *= 4;
            attempt += 1;
        }
    }

    /// The 402 code describe-item answers: `AI_NEEDS_BILLING` when nothing refills the house (it
    /// has never paid the payment provider, so it has no customer there), else
    /// `INSUFFICIENT_TOKENS` (a top-up will do).
    pub(crate) async fn needs_billing_code(&self, org_id: &OrgId) -> Result<&'static str> {
        let account = self.studio.billing().account_of(org_id).await?;
        let customer = account.and_then(|a| a.customer_id).is_some_and(|c| !c.trim().is_empty());
        Ok(if customer { "INSUFFICIENT_TOKENS" } else { "AI_NEEDS_BILLING" })
    }

    /// Keep a lane's unkept result (a PNG) and answer its signed URL; a result past the blob
    /// cap is the lane's 502 `code`.
    pub(crate) async fn keep_lane_result(
        &self,
        org_id: &OrgId,
        lane: &str,
        code: &'static str,
        png: Vec<u8>,
    ) -> Result<String> {
        let id = LaneResultId::generate();
        let key = format!("orgs/{org_id}/lanes/{id}.png");
        let size = png.len() as i64;
        let blob = self
            .studio
            .blobs
            .put_bytes(&key, png, (MAX_LANE_IMAGE_BYTES * 8) as u64, |mime| mime == "image/png")
            .await
            .map_err(|e| stored_failed(e, code))?;
        let now = crate::ids::now();
        let expires_at = now + Duration::seconds(LANE_RESULT_SECS);
        let row = LaneResultRow {
            id: id.clone(),
            org_id: org_id.clone(),
            lane: lane.to_string(),
            blob_key: blob.key,
            mime: "image/png".to_string(),
            bytes: size,
            expires_at,
            created_at: now,
        };
        self.store.insert_lane_result(&row).await?;
        Ok(self.lane_result_url(&id, expires_at.timestamp()))
    }

    fn lane_result_url(&self, id: &str, expires: i64) -> String {
        let signature = self.studio.library().sign_link(RESULT_SCOPE, id, expires);
        format!("{}/api/toolkit/ai/results/{id}?e={expires}&s={signature}", self.studio.config.public_url)
    }

    /// A lane result a signed link names: 403 `BAD_SIGNATURE`, 410 `LINK_EXPIRED`, 404
    /// `NOT_FOUND` once swept. Answers the row (its house is the caller's to check) and bytes.
    pub(crate) async fn signed_lane_result(
        &self,
        id: &str,
        expires: i64,
        signature: &str,
    ) -> Result<(LaneResultRow, Bytes)> {
        self.studio
            .library()
            .check_link(RESULT_SCOPE, id, expires, signature, Utc::now().timestamp())
            .map_err(|refused| refused.into_error(crate::error::ErrorKind::Gone))?;
        let gone = || Error::not_found("NOT_FOUND", "This result is no longer kept; ask for it again.");
        let row = self.store.lane_result(&LaneResultId::from(id)).await?.ok_or_else(gone)?;
        let bytes = self.studio.blobs.get_bytes(&row.blob_key).await.map_err(|_| gone())?;
        Ok((row, bytes))
    }

    /// `GET /api/toolkit/ai/results/{id}?e=&s=`: the PNG a lane answered, by its signed link
    /// alone (no session: the signature is the authority). Answers the bytes and the seconds
    /// the link has left.
    pub async fn lane_result_file(&self, id: &LaneResultId, expires: i64, signature: &str) -> Result<(Bytes, i64)> {
        let (_, bytes) = self.signed_lane_result(id, expires, signature).await?;
        Ok((bytes, (expires - Utc::now().timestamp()).max(0)))
    }

    /// Delete expired lane results and their blobs (the pack worker calls this every minute).
    /// Answers how many went.
    pub async fn sweep_lane_results(&self) -> Result<usize> {
        let expired = self.store.expired_lane_results(crate::ids::now(), SWEEP_PAGE).await?;
        let mut swept = 0;
        for row in expired {
            if let Err(e) = self.studio.blobs.delete(&row.blob_key).await {
                tracing::warn!(error = %e, key = %row.blob_key, "could not delete an expired lane result");
                continue;
            }
            if self.store.delete_lane_result(&row.id).await? {
                swept += 1;
            }
        }
        Ok(swept)
    }

    /// The image a JSON lane names by `imageUrl`: an asset id (`ast_…`), this house's asset
    /// file URL (`…/api/toolkit/assets/{id}/file`), or a signed result URL a lane of this house
    /// answered. Nothing is fetched from the network. 400 `IMAGE_REQUIRED`, `BAD_IMAGE_URL`;
    /// 404 `ASSET_NOT_FOUND`; a result link's own refusals.
    pub(crate) async fn lane_source(&self, caller: &Caller, image_url: &str) -> Result<LaneImage> {
        let raw = image_url.trim();
        if raw.is_empty() {
            return Err(Error::invalid("IMAGE_REQUIRED", "Name the image in imageUrl."));
        }
        let not_ours = || {
            Error::invalid(
                "BAD_IMAGE_URL",
                "imageUrl is an asset of this house (its id or file URL) or a result URL a lane answered; other \
                 addresses are never fetched.",
            )
        };
        let (path, query) = match raw.find("/api/") {
            _ if raw.starts_with("ast_") => (String::new(), String::new()),
            Some(at) => {
                let rest = &raw[at..];
                let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
                (path.to_string(), query.to_string())
            }
            None => return Err(not_ours()),
        };
        let asset_id = if raw.starts_with("ast_") {
            Some(raw.to_string())
        } else {
            path.strip_prefix("/api/toolkit/assets/")
                .and_then(|r| r.strip_suffix("/file"))
                .filter(|id| id.starts_with("ast_") && !id.contains('/'))
                .map(str::to_string)
        };
        if let Some(id) = asset_id {
            let asset = self.house_asset(caller, &id).await?;
            let bytes = self.studio.blobs.get_bytes(&asset.blob_key).await.map_err(|e| {
                tracing::warn!(error = %e, asset = %asset.id, "an asset's bytes are missing");
                Error::not_found("ASSET_NOT_FOUND", "This image's file is no longer stored.")
            })?;
            return Ok(LaneImage { bytes, file_name: Some(asset.name) });
        }
        let Some(id) = path.strip_prefix("/api/toolkit/ai/results/").filter(|id| !id.contains('/')) else {
            return Err(not_ours());
        };
        let param = |name: &str| {
            query.split('&').find_map(|pair| pair.strip_prefix(name).and_then(|v| v.strip_prefix('='))).unwrap_or("")
        };
        let expires: i64 = param("e").parse().map_err(|_| not_ours())?;
        let (row, bytes) = self.signed_lane_result(id, expires, param("s")).await?;
        if row.org_id != caller.org_id {
            return Err(not_ours());
        }
        Ok(LaneImage { bytes, file_name: None })
    }

    async fn house_asset(&self, caller: &Caller, id: &str) -> Result<AssetRow> {
        let mut rows = self.studio.models().live_assets(caller, &[id.to_string()], "ASSET_NOT_FOUND").await?;
        rows.pop().ok_or_else(|| Error::not_found("ASSET_NOT_FOUND", "No such image in this house."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uploads_are_checked_before_anything_is_held() {
        let code = |image: Option<&LaneImage>| check_upload(image, "NO_IMAGE").unwrap_err().code;
        assert_eq!(code(None), "NO_IMAGE");
        let image = |bytes: &[u8]| LaneImage { bytes: Bytes::copy_from_slice(bytes), file_name: None };
        assert_eq!(code(Some(&image(b""))), "EMPTY_IMAGE");
        assert_eq!(code(Some(&image(b"plain text, not a picture"))), "BAD_FORM");
        let big = LaneImage { bytes: Bytes::from(vec![0u8; MAX_LANE_IMAGE_BYTES + 1]), file_name: None };
        assert_eq!(code(Some(&big)), "IMAGE_TOO_LARGE");
    }
}
