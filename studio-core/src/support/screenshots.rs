//! Support screenshots: an image a person sends with a ticket, kept in the blob store for
//! [`SCREENSHOT_RETENTION_DAYS`] and read through a signed link that needs no session. The
//! link is `/api/toolkit/support/screenshots/{id}?o=OBJECT&e=EXPIRY&s=SIGNATURE`: `s` signs
//! `{id}/{o}` and `e` (links.rs), lives [`SCREENSHOT_LINK_DAYS`], and a forged, altered or
//! expired one is 403; once the sweep has deleted a screenshot its links answer 404.

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};

use crate::api::{SCREENSHOT_LINK_DAYS, SCREENSHOT_RETENTION_DAYS, ScreenshotLink, ScreenshotQuery};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::ScreenshotId;
use crate::images;
use crate::storage::ScreenshotRow;

use super::Support;

/// The scope screenshot links are signed in (never a lane result's).
const SCOPE: &str = "support-screenshot";
/// The path of a screenshot's link.
pub(crate) const SCREENSHOT_PATH: &str = "/api/toolkit/support/screenshots/";
/// Screenshots the sweep deletes in one pass.
const SWEEP_PAGE: i64 = 200;

fn gone() -> Error {
    Error::not_found("SCREENSHOT_GONE", "This screenshot is no longer kept (screenshots are kept 30 days).")
}

/// Check a sent screenshot: not empty (400 `EMPTY_IMAGE`), at most 12 MB (413
/// `IMAGE_TOO_LARGE` with `maxMb`), an image by its bytes (415 `UNSUPPORTED_MEDIA_TYPE`), whole
/// (400 `BAD_FORM`) and within the decode limits (413). Answers its type.
fn check_image(bytes: &[u8]) -> Result<&'static str> {
    if bytes.is_empty() {
        return Err(Error::invalid("EMPTY_IMAGE", "The screenshot is empty."));
    }
    if bytes.len() as u64 > images::MAX_IMAGE_MB * 1024 * 1024 {
        return Err(images::image_too_large());
    }
    let mime = infer::get(bytes).map(|t| t.mime_type()).unwrap_or("application/octet-stream");
    if !images::accepted_image(mime) {
        return Err(Error::unsupported_media(
            "UNSUPPORTED_MEDIA_TYPE",
            format!("A screenshot is a JPEG, PNG, WebP or GIF image; this is {mime}."),
        ));
    }
    images::check_sent(bytes, "The screenshot")?;
    images::header_dimensions(bytes)?;
    Ok(mime)
}

impl Support<'_> {
    /// A screenshot's signed link until `expires` (Unix seconds). Public so an embedding
    /// server (and the tests) can mint a link of any life; the route mints 7-day links.
    pub fn screenshot_url(&self, id: &str, object: &str, expires: i64) -> String {
        let signature = self.studio.library().sign_link(SCOPE, &format!("{id}/{object}"), expires);
        format!("{}{SCREENSHOT_PATH}{id}?o={object}&e={expires}&s={signature}", self.studio.config.public_url)
    }

    /// A fresh link of a kept screenshot, living [`SCREENSHOT_LINK_DAYS`] from `now`.
    pub(crate) fn fresh_link(&self, row: &ScreenshotRow, now: DateTime<Utc>) -> ScreenshotLink {
        let expires_at = now + Duration::days(SCREENSHOT_LINK_DAYS);
        let expires_at = DateTime::from_timestamp(expires_at.timestamp(), 0).unwrap_or(expires_at);
        ScreenshotLink {
            id: row.id.to_string(),
            url: self.screenshot_url(&row.id, &row.object, expires_at.timestamp()),
            expires_at,
        }
    }

    /// `POST /api/toolkit/support/screenshots`: keep an image for a ticket. Any role. 400
    /// `EMPTY_IMAGE`, `BAD_FORM`; 413 `IMAGE_TOO_LARGE`; 415 `UNSUPPORTED_MEDIA_TYPE`.
    pub async fn upload_screenshot(&self, caller: &Caller, bytes: Bytes) -> Result<ScreenshotLink> {
        let mime = check_image(&bytes)?;
        let id = ScreenshotId::generate();
        let object = crate::ids::random_secret()[..32].to_string();
        let ext = mime.trim_start_matches("image/");
        let key = format!("orgs/{}/support/{id}.{ext}", caller.org_id);
        let size = bytes.len() as i64;
        let max = images::MAX_IMAGE_MB * 1024 * 1024;
        let blob =
            self.studio.blobs.put_bytes(&key, bytes, max, images::accepted_image).await.map_err(|e| match e {
                crate::blobs::BlobError::TooLarge { .. } => images::image_too_large(),
                e => Error::internal(e),
            })?;
        let now = crate::ids::now();
        let row = ScreenshotRow {
            id,
            org_id: caller.org_id.clone(),
            user_id: caller.user_id.clone(),
            object,
            blob_key: blob.key,
            mime: mime.to_string(),
            bytes: size,
            created_at: now,
            expires_at: now + Duration::days(SCREENSHOT_RETENTION_DAYS),
        };
        self.store.insert_screenshot(&row).await?;
        Ok(self.fresh_link(&row, now))
    }

    /// `GET /api/toolkit/support/screenshots/{id}?o&e&s`: the image by its signed link alone,
    /// checked at `now` (o, e and s are required by the query's type: 400 `BAD_QUERY`); 403 `BAD_SIGNATURE` (forged or
    /// altered), `LINK_EXPIRED`; 404 `SCREENSHOT_GONE` (past its retention). Answers the bytes,
    /// their type and the seconds the link has left.
    pub async fn screenshot_file(
        &self,
        id: &str,
        query: &ScreenshotQuery,
        now: DateTime<Utc>,
    ) -> Result<(Bytes, String, i64)> {
        let (object, expires, signature) = (query.o.as_str(), query.e, query.s.as_str());
        self.studio
            .library()
            .check_link(SCOPE, &format!("{id}/{object}"), expires, signature, now.timestamp())
            .map_err(|refused| refused.into_error(ErrorKind::Forbidden))?;
        let row = self.store.screenshot(&ScreenshotId::from(id)).await?.ok_or_else(gone)?;
        if row.object != object || row.expires_at < now {
            return Err(gone());
        }
        let bytes = self.studio.blobs.get_bytes(&row.blob_key).await.map_err(|_| gone())?;
        Ok((bytes, row.mime, (expires - now.timestamp()).max(0)))
    }

    /// Delete the screenshots whose retention ended before `now`, rows and blobs (the pack
    /// worker's minute sweep calls this). Answers how many went.
    pub async fn sweep_screenshots(&self, now: DateTime<Utc>) -> Result<usize> {
        let expired = self.store.expired_screenshots(now, SWEEP_PAGE).await?;
        let mut swept = 0;
        for row in expired {
            if let Err(e) = self.studio.blobs.delete(&row.blob_key).await {
                tracing::warn!(error = %e, key = %row.blob_key, "could not delete an expired screenshot");
                continue;
            }
            if self.store.delete_screenshot(&row.id).await? {
                swept += 1;
            }
        }
        Ok(swept)
    }

    /// The id a link of ours names (`…/api/toolkit/support/screenshots/{id}?…`).
    pub(crate) fn screenshot_id(link: &str) -> Option<&str> {
        let (_, rest) = link.split_once(SCREENSHOT_PATH)?;
        let id = rest.split(['?', '#', '/']).next()?;
        id.starts_with("shot_").then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_of_ours_name_their_screenshot() {
        assert_eq!(Support::screenshot_id("/api/toolkit/support/screenshots/shot_1?o=a&e=1&s=x"), Some("shot_1"));
        assert_eq!(Support::screenshot_id("https://h.example/api/toolkit/support/screenshots/shot_2"), Some("shot_2"));
        assert_eq!(Support::screenshot_id("https://elsewhere.example/a.png"), None);
        assert_eq!(Support::screenshot_id("/api/toolkit/support/screenshots/../x"), None);
    }

    #[test]
    fn only_images_are_kept() {
        assert_eq!(check_image(b"").unwrap_err().code, "EMPTY_IMAGE");
        let text = check_image(b"just some words, not a picture").unwrap_err();
        assert_eq!((text.kind, text.code), (ErrorKind::UnsupportedMedia, "UNSUPPORTED_MEDIA_TYPE"));
        let big = vec![0u8; (images::MAX_IMAGE_MB * 1024 * 1024 + 1) as usize];
        assert_eq!(check_image(&big).unwrap_err().code, "IMAGE_TOO_LARGE");
    }
}
