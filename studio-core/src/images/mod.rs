//! Image facts read without decoding pixels: dimensions from the header (with EXIF orientation
//! applied) and refusal of decompression bombs before any pixel buffer exists.

pub(crate) mod colour;
pub(crate) mod metadata;
mod whole;

use std::io::Cursor;

use image::{ImageDecoder, ImageEncoder, ImageReader, Limits};

use crate::error::{Error, ErrorKind, Result};

/// The largest image accepted, in megabytes (spec §8).
pub const MAX_IMAGE_MB: u64 = 12;

pub use colour::OutputSpace;
pub(crate) use whole::Whole;

/// Widest or tallest image accepted, in pixels.
pub(crate) const MAX_SIDE: u32 = 16_384;
/// Most pixels accepted (width × height).
pub(crate) const MAX_PIXELS: u64 = 120_000_000;

/// Decode limits for any pixel work: the bounds above, and an allocation cap that a
/// decompression bomb cannot pass.
pub(crate) fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4 + 64 * 1024 * 1024);
    limits
}

/// Width and height as displayed (EXIF orientation applied), read from the first bytes of the
/// file. None when the header is not within those bytes; a refusal (413) when the image is
/// larger than the limits.
pub(crate) fn header_dimensions(head: &[u8]) -> Result<Option<(u32, u32)>> {
    let Ok(mut reader) = ImageReader::new(Cursor::new(head)).with_guessed_format() else { return Ok(None) };
    reader.limits(limits());
    let mut decoder = match reader.into_decoder() {
        Ok(decoder) => decoder,
        Err(image::ImageError::Limits(_)) => return Err(too_many_pixels()),
        Err(_) => return Ok(None),
    };
    let (w, h) = decoder.dimensions();
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(too_many_pixels());
    }
    let turned = decoder.orientation().map(|o| {
        use image::metadata::Orientation::*;
        matches!(o, Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH)
    });
    Ok(Some(if turned.unwrap_or(false) { (h, w) } else { (w, h) }))
}

/// The content types the service takes (sniffed from the bytes).
pub(crate) fn accepted_image(mime: &str) -> bool {
    matches!(mime, "image/jpeg" | "image/png" | "image/webp" | "image/gif")
}

/// 413 `IMAGE_TOO_LARGE` (with `maxMb`) for one image over [`MAX_IMAGE_MB`]: the one refusal
/// every route that takes an image answers, in the core and in the server's form readers.
pub fn image_too_large() -> Error {
    Error::new(ErrorKind::TooLarge, "IMAGE_TOO_LARGE", format!("Each image is at most {MAX_IMAGE_MB} MB."))
        .with("maxMb", MAX_IMAGE_MB)
}

/// Check one sent image before any work: not empty (400 `EMPTY_IMAGE`), at most
/// [`MAX_IMAGE_MB`] (413), a JPEG, PNG, WebP or GIF by its bytes (400 `BAD_FORM`) and whole (400
/// `BAD_FORM`, [`cut_short`]). `what` names it in the messages ("The image", "Image number 2").
pub(crate) fn check_sent(bytes: &[u8], what: &str) -> Result<()> {
    if bytes.is_empty() {
        return Err(Error::invalid("EMPTY_IMAGE", format!("{what} is empty.")));
    }
    if bytes.len() as u64 > MAX_IMAGE_MB * 1024 * 1024 {
        return Err(image_too_large());
    }
    let mime = infer::get(bytes).map(|t| t.mime_type()).unwrap_or("application/octet-stream");
    if !accepted_image(mime) {
        return Err(Error::invalid("BAD_FORM", format!("Images are JPEG, PNG, WebP or GIF; {what} is {mime}.")));
    }
    if !Whole::of(bytes).is_whole() {
        return Err(cut_short(what));
    }
    Ok(())
}

/// 400 `BAD_FORM` for an image file that ends before its own structure does (cut short in
/// transfer or on disk, see [`Whole`]); `what` names it ("The image", "Image number 2").
pub(crate) fn cut_short(what: &str) -> Error {
    Error::invalid("BAD_FORM", format!("{what} is cut short or damaged: the file ends before its image data does."))
}

pub(crate) fn too_many_pixels() -> Error {
    Error::new(
        ErrorKind::TooLarge,
        "IMAGE_TOO_LARGE",
        format!(
            "The image has more pixels than this service decodes (at most {MAX_SIDE} px a side, {MAX_PIXELS} pixels)."
        ),
    )
    .with("maxMb", crate::images::MAX_IMAGE_MB)
    .with("maxSide", MAX_SIDE)
    .with("maxPixels", MAX_PIXELS)
}

/// Decode (under the limits), convert to sRGB through the embedded profile ([`colour`]) and turn
/// upright by the EXIF orientation. 400 `BAD_IMAGE` when the bytes do not decode.
pub(crate) fn decode_upright(bytes: &[u8]) -> Result<image::DynamicImage> {
    decode_managed(bytes).map(|m| m.image)
}

/// [`decode_upright`] with where the colour came from, for outputs that may keep the input's space.
pub(crate) fn decode_managed(bytes: &[u8]) -> Result<colour::Managed> {
    colour::decode(bytes).map_err(|e| Error::invalid("BAD_IMAGE", format!("The image could not be decoded: {e}")))
}

/// Decode (under the limits, colour-managed), turn upright by the EXIF orientation, fit inside
/// `width` × `height` keeping proportions (Lanczos3) and encode as JPEG at quality 90 with the
/// sRGB profile embedded; no other metadata.
pub(crate) fn rendition_jpeg(bytes: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    rendition_jpeg_in(bytes, width, height, OutputSpace::Srgb, metadata::MetadataOutput::None)
}

/// [`rendition_jpeg`] written in `space`, carrying what `kept` keeps of the input's metadata: under
/// [`OutputSpace::Keep`] an input with its own RGB profile comes out in that space with that
/// profile (a pack's resized entries follow the house's `colour.output` and `metadata.output`).
pub(crate) fn rendition_jpeg_in(
    bytes: &[u8],
    width: u32,
    height: u32,
    space: OutputSpace,
    kept: metadata::MetadataOutput,
) -> Result<Vec<u8>> {
    let managed = decode_managed(bytes)?;
    let target = colour::Target::of(space, &managed.source);
    let mut fitted = managed.image.resize(width, height, image::imageops::FilterType::Lanczos3).to_rgb8();
    target.convert(&mut fitted);
    let mut out = Vec::new();
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90);
    encoder.set_icc_profile(target.icc()).map_err(Error::internal)?;
    encoder.encode_image(&fitted).map_err(Error::internal)?;
    Ok(metadata::carry(out, bytes, kept))
}

/// A 64 × 64 PNG of one `#RRGGBB` colour.
pub(crate) fn swatch_png(tone: &str) -> Result<Vec<u8>> {
    let hex = tone.trim_start_matches('#');
    let channel = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0);
    let img = image::RgbImage::from_pixel(64, 64, image::Rgb([channel(0), channel(2), channel(4)]));
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).map_err(Error::internal)?;
    Ok(out)
}

/// A display name from a file name: the base name without its extension.
pub(crate) fn display_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => base,
    };
    stem.trim().chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        image::RgbImage::new(w, h).write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
        out
    }

    #[test]
    fn dimensions_come_from_the_header() {
        assert_eq!(header_dimensions(&png(30, 20)).expect("ok"), Some((30, 20)));
        assert_eq!(header_dimensions(b"not an image").expect("ok"), None);
    }

    #[test]
    fn a_bomb_header_is_refused_before_decoding() {
        // A valid PNG header announcing 60000 × 60000 pixels, with no pixel data behind it.
        let mut bomb = png(1, 1);
        bomb[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        bomb[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        let crc = crc32(&bomb[12..29]);
        bomb[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = header_dimensions(&bomb).expect_err("refused");
        assert_eq!((err.kind, err.code), (ErrorKind::TooLarge, "IMAGE_TOO_LARGE"));
        let decoded = ImageReader::new(Cursor::new(&bomb)).with_guessed_format().map(|mut r| {
            r.limits(limits());
            r.decode()
        });
        assert!(matches!(decoded, Ok(Err(_))), "decoding under the limits fails instead of allocating");
    }

    /// CRC-32 (IEEE), as PNG chunks carry it.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn names_drop_paths_and_extensions() {
        assert_eq!(display_name("shoots/2027/look-01.final.JPG"), "look-01.final");
        assert_eq!(display_name(".hidden"), ".hidden");
        assert_eq!(display_name("C:\\\\photos\\\\coat.png"), "coat");
    }
}
