//! Thumbnails: renditions of a library asset no wider than one of a documented set of widths
//! (`GET /api/toolkit/assets/{id}/file?w=`), for grids and detail views that should not pull a
//! 12 MB original per tile. A rendition is made once, on first request, and kept in the blob
//! store beside the original (`orgs/{org}/renditions/{asset}/w{w}`); its ETag is the original's
//! hash and the width, so a client's cached copy stays valid exactly as long as the original.
//! An asset's renditions are removed when the asset is deleted. An image with transparency is
//! rendered as lossless WebP (so a cutout keeps its alpha), any other as JPEG.

use crate::ids::{AssetId, OrgId};
use crate::library::Library;
use bytes::Bytes;
use image::ImageEncoder;

use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::library::assets::AssetFile;

/// The widths a rendition may be asked for.
pub const RENDITION_WIDTHS: [u32; 3] = [256, 512, 1024];

/// JPEG quality of an opaque rendition.
const JPEG_QUALITY: u8 = 82;

/// Where rendition `w` of an asset lives.
fn rendition_key(org_id: &OrgId, asset_id: &str, w: u32) -> String {
    format!("orgs/{org_id}/renditions/{asset_id}/w{w}")
}

/// The content type of a stored rendition, read from its first bytes.
fn rendition_mime(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"RIFF") { "image/webp" } else { "image/jpeg" }
}

/// Decode (under the limits, upright by EXIF), fit within `w` wide (never enlarged), encode.
fn render(original: &[u8], w: u32) -> Result<Vec<u8>> {
    let img = crate::images::decode_upright(original)?;
    let img = if img.width() > w { img.thumbnail(w, u32::MAX) } else { img };
    let mut out = Vec::new();
    // Renditions are for screens: sRGB, with its profile.
    let icc = crate::images::colour::srgb_icc().to_vec();
    if img.color().has_alpha() {
        let rgba = img.to_rgba8();
        let mut encoder = image::codecs::webp::WebPEncoder::new_lossless(&mut out);
        encoder.set_icc_profile(icc).map_err(Error::internal)?;
        encoder
            .write_image(rgba.as_raw(), rgba.width(), rgba.height(), image::ExtendedColorType::Rgba8)
            .map_err(Error::internal)?;
    } else {
        let rgb = img.to_rgb8();
        let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY);
        encoder.set_icc_profile(icc).map_err(Error::internal)?;
        encoder.encode_image(&rgb).map_err(Error::internal)?;
    }
    Ok(out)
}

impl Library<'_> {
    /// The file route with an optional width: without `w` the original (as
    /// [`Studio::asset_file`]); with `w`, its rendition no wider than `w`, made and stored on
    /// first request. 400 `BAD_QUERY` for a width outside [`RENDITION_WIDTHS`]; 404 as the file
    /// route; 400 `BAD_IMAGE` when the original cannot be decoded.
    pub async fn asset_rendition(
        &self,
        caller: &Caller,
        id: &AssetId,
        w: Option<u32>,
        if_none_match: Option<&str>,
    ) -> Result<AssetFile> {
        let Some(w) = w else { return self.asset_file(caller, id, if_none_match).await };
        if !RENDITION_WIDTHS.contains(&w) {
            return Err(
                Error::invalid("BAD_QUERY", "w is one of 256, 512 or 1024.").with("widths", RENDITION_WIDTHS.to_vec())
            );
        }
        let row = self.own_asset(caller, id).await?;
        let etag = format!("\"{}-w{w}\"", row.sha256);
        if if_none_match.is_some_and(|h| h.split(',').any(|t| t.trim() == etag || t.trim() == "*")) {
            return Ok(AssetFile::NotModified { etag });
        }
        let key = rendition_key(&row.org_id, &row.id, w);
        let bytes = match self.studio.blobs.get_bytes(&key).await {
            Ok(bytes) => bytes,
            Err(_) => {
                let original = self.studio.blobs.get_bytes(&row.blob_key).await.map_err(Error::internal)?;
                let made =
                    tokio::task::spawn_blocking(move || render(&original, w)).await.map_err(Error::internal)??;
                let made = Bytes::from(made);
                // Two first requests at once both write the same bytes; either write stands.
                let stored = self.studio.blobs.put_bytes(&key, made.clone(), u64::MAX, |_| true).await;
                if let Err(e) = stored {
                    tracing::warn!(error = %e, key, "a rendition could not be kept; it is made again next time");
                }
                made
            }
        };
        let mime = rendition_mime(&bytes).to_string();
        let size = bytes.len() as u64;
        let stream = Box::pin(futures_util::stream::iter([Ok::<Bytes, crate::blobs::BlobError>(bytes)]));
        let reader = crate::blobs::BlobReader { size, stream };
        Ok(AssetFile::Body { asset: Box::new(self.asset_view(row)), etag, mime, reader })
    }

    /// Remove the renditions of assets just deleted (they are remade from nothing else, so a
    /// failure is only logged).
    pub(crate) async fn forget_renditions(&self, org_id: &OrgId, asset_ids: &[String]) {
        for id in asset_ids {
            for w in RENDITION_WIDTHS {
                if let Err(e) = self.studio.blobs.delete(&rendition_key(org_id, id, w)).await {
                    tracing::warn!(error = %e, asset = %id, w, "a deleted asset's rendition could not be removed");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32, alpha: bool) -> Vec<u8> {
        let mut out = Vec::new();
        let img: image::DynamicImage = if alpha {
            image::RgbaImage::from_fn(w, h, |x, _| image::Rgba([200, 10, 10, if x % 2 == 0 { 0 } else { 255 }])).into()
        } else {
            image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])).into()
        };
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).unwrap();
        out
    }

    #[test]
    fn a_rendition_is_no_wider_than_asked_and_never_enlarged() {
        let wide = render(&png(1200, 600, false), 256).unwrap();
        assert_eq!(rendition_mime(&wide), "image/jpeg");
        let img = image::load_from_memory(&wide).unwrap();
        assert_eq!((img.width(), img.height()), (256, 128));
        let small = image::load_from_memory(&render(&png(100, 50, false), 512).unwrap()).unwrap();
        assert_eq!((small.width(), small.height()), (100, 50));
    }

    #[test]
    fn transparency_is_kept_as_webp() {
        let cut = render(&png(600, 300, true), 256).unwrap();
        assert_eq!(rendition_mime(&cut), "image/webp");
        let img = image::load_from_memory(&cut).unwrap();
        assert!(img.color().has_alpha() && img.width() == 256);
        assert!(img.to_rgba8().pixels().any(|p| p[3] < 255), "some pixels stay see-through");
    }
}
