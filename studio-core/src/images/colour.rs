//! Colour management: every decode reads the image's embedded ICC profile and converts its pixels
//! into sRGB, the working space (CMYK and YCCK JPEGs through their profile, or the default press
//! profile when they carry none); every encode can embed the profile of the space it writes in,
//! sRGB by default or, with [`OutputSpace::Keep`], the input's own RGB profile. `docs/colour.md`
//! gives the decisions and the measured figures.
//!
//! The engine is `moxcms` (pure Rust; the `image` crate builds on it too). An image without a
//! profile, or with a profile that is sRGB in all but name, is taken as sRGB and left untouched.
//! Intent: relative colorimetric everywhere (a garment's colour as measured, paper or display white
//! mapped to white; colours outside sRGB are clipped, not compressed).

use std::io::Cursor;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::{Arc, OnceLock};

use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageError, ImageReader, RgbImage};
use moxcms::{
    ColorProfile, DataColorSpace, Layout, LutMultidimensionalType, LutStore, LutWarehouse, Matrix3d, ProfileClass,
    RenderingIntent, ToneReprCurve, TransformExecutor, TransformOptions, Vector3d,
};

use super::{MAX_PIXELS, MAX_SIDE, limits};

/// The space an output is written in. The brand profile's `colour.output` chooses it per house
/// (`"srgb"` or `"keep"`): develops get it as their `colourOutput` option, packs' resized
/// entries through `rendition_jpeg_in`; every other output is sRGB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OutputSpace {
    /// Pixels in sRGB with the sRGB profile embedded (the default).
    #[default]
    Srgb,
    /// The input's space when it was RGB with its own profile (Adobe RGB, Display P3, ...): the
    /// pixels are converted back into it and its profile embedded. A CMYK, grey or unprofiled input
    /// is written as sRGB.
    Keep,
}

impl OutputSpace {
    /// The policy from the brand profile's spelling: `"keep"` keeps, anything else is sRGB.
    pub fn from_policy(value: &str) -> Self {
        if value.trim().eq_ignore_ascii_case("keep") { OutputSpace::Keep } else { OutputSpace::Srgb }
    }
}

/// Where a decoded image's colours came from.
#[derive(Debug, Clone, Default)]
pub(crate) enum Source {
    /// No profile, a profile that is sRGB, or one that could not be used: the pixels as stored.
    #[default]
    Srgb,
    /// An RGB image with its own profile (the bytes), converted to sRGB.
    Rgb(Arc<[u8]>),
    /// A CMYK or YCCK JPEG, converted through its embedded profile or the default.
    Cmyk,
}

/// A decoded image: sRGB pixels, upright by the EXIF orientation, and where its colour came from.
pub(crate) struct Managed {
    /// The pixels, in sRGB.
    pub(crate) image: DynamicImage,
    /// The EXIF orientation that was applied.
    pub(crate) orientation: Orientation,
    /// The input's colour space.
    pub(crate) source: Source,
}

/// Decode `bytes` under the service's limits (the image's sides, [`MAX_PIXELS`] and the allocation
/// cap), convert to sRGB through the embedded profile and turn upright by the EXIF orientation.
/// Errors are the `image` crate's, `ImageError::Limits` past the limits, so each caller keeps its
/// own wording.
pub(crate) fn decode(bytes: &[u8]) -> Result<Managed, ImageError> {
    decode_in(bytes, true)
}

/// [`decode`], except that an RGB image with a profile of its own keeps its pixels as stored
/// (its `source` still names the profile): for a tool that only resamples, writing back in the
/// input's space under [`OutputSpace::Keep`], so nothing is converted twice and no colour outside
/// sRGB is clipped on the way. Every other image is read as [`decode`] reads it.
pub(crate) fn decode_native(bytes: &[u8]) -> Result<Managed, ImageError> {
    decode_in(bytes, false)
}

fn decode_in(bytes: &[u8], to_working_space: bool) -> Result<Managed, ImageError> {
    if let Some(jpeg) = jpeg_facts(bytes)
        && jpeg.components == 4
    {
        return decode_cmyk(bytes, jpeg.adobe);
    }
    let mut reader = ImageReader::new(Cursor::new(bytes)).with_guessed_format()?;
    reader.limits(limits());
    let mut decoder = reader.into_decoder()?;
    let (w, h) = decoder.dimensions();
    check_size(w, h)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let icc = decoder.icc_profile().ok().flatten();
    let mut image = DynamicImage::from_decoder(decoder)?;
    let source = match icc {
        Some(icc) if to_working_space => to_srgb(&mut image, icc),
        Some(icc) => match ColorProfile::new_from_slice(&icc) {
            Ok(p) if p.color_space == DataColorSpace::Rgb && image.color().has_color() && !is_srgb(&p) => {
                Source::Rgb(icc.into())
            }
            _ => Source::Srgb,
        },
        None => Source::Srgb,
    };
    image.apply_orientation(orientation);
    Ok(Managed { image, orientation, source })
}

/// Where the colour of the image in `bytes` comes from, read from its header alone (no pixels
/// decoded): what an output under [`OutputSpace::Keep`] needs to know of its input.
pub(crate) fn source_of(bytes: &[u8]) -> Source {
    if jpeg_facts(bytes).is_some_and(|f| f.components == 4) {
        return Source::Cmyk;
    }
    let Ok(reader) = ImageReader::new(Cursor::new(bytes)).with_guessed_format() else { return Source::Srgb };
    let Ok(mut decoder) = reader.into_decoder() else { return Source::Srgb };
    if !decoder.color_type().has_color() {
        return Source::Srgb;
    }
    match decoder.icc_profile().ok().flatten() {
        Some(icc) => match ColorProfile::new_from_slice(&icc) {
            Ok(p) if p.color_space == DataColorSpace::Rgb && !is_srgb(&p) => Source::Rgb(icc.into()),
            _ => Source::Srgb,
        },
        None => Source::Srgb,
    }
}

/// The sRGB profile every output embeds by default (an ICC v4 matrix/shaper profile).
pub(crate) fn srgb_icc() -> &'static [u8] {
    static ICC: OnceLock<Vec<u8>> = OnceLock::new();
    ICC.get_or_init(|| encode_fixed(&ColorProfile::new_srgb()))
}

/// `profile`'s ICC bytes with a fixed creation date (the engine stamps the time of encoding in
/// the header's bytes 24..36), so that the same output is the same bytes on every run and every
/// machine. Empty if the profile cannot be encoded.
pub(crate) fn encode_fixed(profile: &ColorProfile) -> Vec<u8> {
    let mut icc = profile.encode().unwrap_or_default();
    if let Some(date) = icc.get_mut(24..36) {
        // 2026-01-01 00:00:00, as six big-endian u16.
        date.copy_from_slice(&[0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]);
    }
    icc
}

/// The space one output is written in: sRGB, or under [`OutputSpace::Keep`] the input's RGB
/// profile.
#[derive(Debug, Clone, Default)]
pub(crate) struct Target {
    /// The RGB profile kept from the input; None is sRGB.
    kept: Option<Arc<[u8]>>,
    /// The pixels are already in the kept space ([`decode_native`]): embed, do not convert.
    native: bool,
}

impl Target {
    /// sRGB.
    pub(crate) fn srgb() -> Self {
        Target { kept: None, native: false }
    }

    /// What `space` asks for an input of `source`.
    pub(crate) fn of(space: OutputSpace, source: &Source) -> Self {
        match (space, source) {
            (OutputSpace::Keep, Source::Rgb(icc)) => Target { kept: Some(icc.clone()), native: false },
            _ => Target::srgb(),
        }
    }

    /// The same space, for pixels that are in it already (read with [`decode_native`]).
    pub(crate) fn already_in_space(self) -> Self {
        Target { native: self.kept.is_some(), ..self }
    }

    /// Whether the target is sRGB.
    pub(crate) fn is_srgb(&self) -> bool {
        self.kept.is_none()
    }

    /// Whether the pixels need converting into the target space before they are written.
    pub(crate) fn needs_conversion(&self) -> bool {
        self.kept.is_some() && !self.native
    }

    /// The profile to embed in the output.
    pub(crate) fn icc(&self) -> Vec<u8> {
        match &self.kept {
            Some(icc) => icc.to_vec(),
            None => srgb_icc().to_vec(),
        }
    }

    /// Convert sRGB pixels into the target space (nothing to do for sRGB).
    pub(crate) fn convert(&self, img: &mut RgbImage) {
        let Some(icc) = self.kept.as_ref().filter(|_| !self.native) else { return };
        let Ok(profile) = ColorProfile::new_from_slice(icc) else { return };
        let Ok(t) = ColorProfile::new_srgb().create_transform_8bit(Layout::Rgb, &profile, Layout::Rgb, options())
        else {
            return;
        };
        transform_in_place(t.as_ref(), img, 3);
    }
}

/// A hosted provider's frame in the space `space` asks for of its principal `input`: under
/// [`OutputSpace::Keep`], with an RGB input of its own profile, a frame not already in that space
/// (sRGB, or no profile) is converted into it and written again in its own format (JPEG at
/// quality 92, or PNG) with the profile embedded. None when there is nothing to do (the frame
/// stays as it came) or the frame cannot be read (it stays too, in its own space).
pub(crate) fn into_kept_space(frame: &[u8], input: &[u8], space: OutputSpace) -> Option<Vec<u8>> {
    use image::ImageEncoder;
    if space != OutputSpace::Keep {
        return None;
    }
    let target = Target::of(space, &source_of(input));
    let kept = target.kept.clone()?;
    let reader = ImageReader::new(Cursor::new(frame)).with_guessed_format().ok()?;
    let format = reader.format()?;
    if reader.into_decoder().ok()?.icc_profile().ok().flatten().as_deref() == Some(&kept[..]) {
        return None;
    }
    let image = decode(frame).ok()?.image;
    let mut out = Vec::new();
    match format {
        image::ImageFormat::Jpeg => {
            let mut rgb = image.into_rgb8();
            target.convert(&mut rgb);
            let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92);
            encoder.set_icc_profile(kept.to_vec()).ok()?;
            encoder.write_image(rgb.as_raw(), rgb.width(), rgb.height(), image::ExtendedColorType::Rgb8).ok()?;
        }
        image::ImageFormat::Png => {
            let mut rgba = image.into_rgba8();
            let profile = ColorProfile::new_from_slice(&kept).ok()?;
            convert8(&ColorProfile::new_srgb(), &profile, Layout::Rgba, &mut rgba).then_some(())?;
            let mut encoder = image::codecs::png::PngEncoder::new(&mut out);
            encoder.set_icc_profile(kept.to_vec()).ok()?;
            encoder.write_image(rgba.as_raw(), rgba.width(), rgba.height(), image::ExtendedColorType::Rgba8).ok()?;
        }
        _ => return None,
    }
    Some(out)
}

/// `jpeg` with `icc` embedded as APP2 `ICC_PROFILE` segments right after the start marker (and
/// after a JFIF APP0 when there is one), for JPEGs assembled without the `image` crate's encoder.
/// A file that already carries a profile, or that is not a JPEG, is returned as it was.
pub(crate) fn embed_in_jpeg(jpeg: Vec<u8>, icc: &[u8]) -> Vec<u8> {
    const CHUNK: usize = 65_519; // 65535 - 2 (length) - 12 ("ICC_PROFILE\0") - 2 (sequence)
    if icc.is_empty() || !jpeg.starts_with(&[0xFF, 0xD8]) || jpeg_facts(&jpeg).is_some_and(|f| f.icc) {
        return jpeg;
    }
    let chunks: Vec<&[u8]> = icc.chunks(CHUNK).collect();
    if chunks.len() > 255 {
        return jpeg;
    }
    let mut at = 2;
    if jpeg.len() > 6 && jpeg[2] == 0xFF && jpeg[3] == 0xE0 {
        at = 4 + usize::from(u16::from_be_bytes([jpeg[4], jpeg[5]]));
    }
    let mut out = Vec::with_capacity(jpeg.len() + icc.len() + 18 * chunks.len());
    out.extend_from_slice(&jpeg[..at.min(jpeg.len())]);
    for (i, chunk) in chunks.iter().enumerate() {
        out.extend_from_slice(&[0xFF, 0xE2]);
        out.extend_from_slice(&((chunk.len() + 16) as u16).to_be_bytes());
        out.extend_from_slice(b"ICC_PROFILE\0");
        out.extend_from_slice(&[(i + 1) as u8, chunks.len() as u8]);
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&jpeg[at.min(jpeg.len())..]);
    out
}

#[cfg(test)]
mod tests;

/// The transform options: relative colorimetric, fixed point where the engine has it.
fn options() -> TransformOptions {
    TransformOptions { rendering_intent: RenderingIntent::RelativeColorimetric, ..TransformOptions::default() }
}

fn check_size(w: u32, h: u32) -> Result<(), ImageError> {
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(ImageError::Limits(image::error::LimitError::from_kind(
            image::error::LimitErrorKind::DimensionError,
        )));
    }
    Ok(())
}

/// Convert `image` from the RGB profile `icc` to sRGB in place. A profile that does not parse, is
/// not RGB, belongs to a grey image, or is sRGB already leaves the pixels as they are.
fn to_srgb(image: &mut DynamicImage, icc: Vec<u8>) -> Source {
    let Ok(profile) = ColorProfile::new_from_slice(&icc) else { return Source::Srgb };
    if profile.color_space != DataColorSpace::Rgb || !image.color().has_color() || is_srgb(&profile) {
        return Source::Srgb;
    }
    let srgb = ColorProfile::new_srgb();
    let done = match image {
        DynamicImage::ImageRgb8(buf) => convert8(&profile, &srgb, Layout::Rgb, buf),
        DynamicImage::ImageRgba8(buf) => convert8(&profile, &srgb, Layout::Rgba, buf),
        DynamicImage::ImageRgb16(buf) => convert16(&profile, &srgb, Layout::Rgb, buf),
        DynamicImage::ImageRgba16(buf) => convert16(&profile, &srgb, Layout::Rgba, buf),
        other => {
            let mut rgba = other.to_rgba16();
            let done = convert16(&profile, &srgb, Layout::Rgba, &mut rgba);
            *other = DynamicImage::ImageRgba16(rgba);
            done
        }
    };
    if done { Source::Rgb(icc.into()) } else { Source::Srgb }
}

fn convert8(from: &ColorProfile, to: &ColorProfile, layout: Layout, buf: &mut [u8]) -> bool {
    let Ok(t) = from.create_transform_8bit(layout, to, layout, options()) else { return false };
    transform_in_place(t.as_ref(), buf, layout.channels())
}

fn convert16(from: &ColorProfile, to: &ColorProfile, layout: Layout, buf: &mut [u16]) -> bool {
    let Ok(t) = from.create_transform_16bit(layout, to, layout, options()) else { return false };
    transform_in_place(t.as_ref(), buf, layout.channels())
}

/// Run `t` over `buf` (pixels of `channels` samples) in place: in pieces of 16 Ki pixels, each
/// copied aside and converted back into place (a piece stays in cache, and no second frame is
/// allocated), the pieces shared among up to four threads. False when the engine refused.
fn transform_in_place<T: Copy + Default + Send + Sync>(
    t: &(dyn TransformExecutor<T> + Send + Sync),
    buf: &mut [T],
    channels: usize,
) -> bool {
    let piece = 16 * 1024 * channels;
    let failed = AtomicBool::new(false);
    let run = |part: &mut [T]| {
        let mut scratch = vec![T::default(); piece.min(part.len())];
        for p in part.chunks_mut(piece) {
            let src = &mut scratch[..p.len()];
            src.copy_from_slice(p);
            if t.transform(src, p).is_err() {
                failed.store(true, AtomicOrdering::Relaxed);
            }
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
    if threads == 1 || buf.len() <= piece {
        run(buf);
    } else {
        // Whole pieces per thread, so every piece holds whole pixels.
        let per_thread = buf.len().div_ceil(threads).div_ceil(piece) * piece;
        let run = &run;
        std::thread::scope(|s| {
            for part in buf.chunks_mut(per_thread) {
                s.spawn(move || run(part));
            }
        });
    }
    !failed.load(AtomicOrdering::Relaxed)
}

/// Whether an RGB profile is sRGB in all but name: a grid of colours through it lands within one
/// level of where it started. Cheap (216 colours), and it spares every sRGB-tagged upload a
/// full-frame conversion.
fn is_srgb(profile: &ColorProfile) -> bool {
    let Ok(t) = profile.create_transform_8bit(Layout::Rgb, &ColorProfile::new_srgb(), Layout::Rgb, options()) else {
        return false;
    };
    let levels = [0u8, 51, 102, 153, 204, 255];
    let mut probe = Vec::with_capacity(levels.len().pow(3) * 3);
    for r in levels {
        for g in levels {
            for b in levels {
                probe.extend_from_slice(&[r, g, b]);
            }
        }
    }
    let mut out = vec![0u8; probe.len()];
    t.transform(&probe, &mut out).is_ok() && probe.iter().zip(&out).all(|(a, b)| a.abs_diff(*b) <= 1)
}

/// What the markers before a JPEG's frame header say.
#[derive(Debug, Clone, Copy, Default)]
struct JpegFacts {
    /// Components in the frame (4: CMYK or YCCK).
    components: u8,
    /// An Adobe APP14 segment is present (its CMYK values are stored inverted).
    adobe: bool,
    /// An APP2 ICC profile is present.
    icc: bool,
}

/// Walk a JPEG's markers to its frame header. None when `bytes` is not a JPEG or ends first.
fn jpeg_facts(bytes: &[u8]) -> Option<JpegFacts> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut facts = JpegFacts::default();
    let mut i = 2;
    while i + 4 <= bytes.len() {
        if bytes[i] != 0xFF {
            return None;
        }
        let marker = bytes[i + 1];
        if marker == 0xFF {
            i += 1;
            continue;
        }
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        let body = bytes.get(i + 4..i + 2 + len)?;
        match marker {
            0xEE if body.starts_with(b"Adobe") => facts.adobe = true,
            0xE2 if body.starts_with(b"ICC_PROFILE\0") => facts.icc = true,
            0xC0..=0xCF if !matches!(marker, 0xC4 | 0xC8 | 0xCC) => {
                facts.components = *body.get(5)?;
                return Some(facts);
            }
            0xDA | 0xD9 => return Some(facts),
            _ => {}
        }
        i += 2 + len;
    }
    None
}

/// Decode a four-component JPEG through its profile: the raw inks from the JPEG decoder (which
/// `image` would turn into RGB by a naive formula), then the embedded CMYK profile, or the default
/// press profile ([`default_cmyk`]) when there is none, to sRGB.
fn decode_cmyk(bytes: &[u8], adobe: bool) -> Result<Managed, ImageError> {
    use zune_core::bytestream::ZCursor;
    use zune_core::colorspace::ColorSpace;
    use zune_core::options::DecoderOptions;

    let failed = |e: zune_jpeg::errors::DecodeErrors| {
        ImageError::Decoding(image::error::DecodingError::new(image::ImageFormat::Jpeg.into(), e))
    };
    let head_options = DecoderOptions::default()
        .set_strict_mode(false)
        .set_max_width(MAX_SIDE as usize)
        .set_max_height(MAX_SIDE as usize);
    let mut head = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), head_options);
    head.decode_headers().map_err(|e| match e {
        zune_jpeg::errors::DecodeErrors::LargeDimensions(_) => {
            ImageError::Limits(image::error::LimitError::from_kind(image::error::LimitErrorKind::DimensionError))
        }
        e => failed(e),
    })?;
    let (w, h) = head.dimensions().unwrap_or((0, 0));
    check_size(w as u32, h as u32)?;
    // The inks (4 bytes a pixel) are held beside the RGB result: the same allocation cap as any
    // other decode bounds them.
    if limits().max_alloc.is_some_and(|cap| (w as u64) * (h as u64) * 4 > cap) {
        return Err(ImageError::Limits(image::error::LimitError::from_kind(
            image::error::LimitErrorKind::InsufficientMemory,
        )));
    }
    let stored = head.input_colorspace().unwrap_or(ColorSpace::CMYK);
    let ycck = stored == ColorSpace::YCCK;
    let out_space = if ycck { ColorSpace::YCCK } else { ColorSpace::CMYK };
    let mut decoder =
        zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), head_options.jpeg_set_out_colorspace(out_space));
    let mut raw = decoder.decode().map_err(failed)?;
    if raw.len() != w * h * 4 {
        return Err(failed(zune_jpeg::errors::DecodeErrors::Format("unexpected sample count".into())));
    }
    let orientation = decoder.exif().and_then(|e| Orientation::from_exif_chunk(e)).unwrap_or(Orientation::NoTransforms);
    // Inks as ICC profiles read them: 0 no ink, 255 full ink.
    for px in raw.chunks_exact_mut(4) {
        if ycck {
            let (y, cb, cr) = (f32::from(px[0]), f32::from(px[1]) - 128.0, f32::from(px[2]) - 128.0);
            // YCbCr to RGB gives the complement of the stored (inverted) C, M, Y: the inks.
            let r = y + 1.402 * cr;
            let g = y - 0.344_136 * cb - 0.714_136 * cr;
            let b = y + 1.772 * cb;
            px[0] = r.round().clamp(0.0, 255.0) as u8;
            px[1] = g.round().clamp(0.0, 255.0) as u8;
            px[2] = b.round().clamp(0.0, 255.0) as u8;
            px[3] = 255 - px[3];
        } else if adobe {
            px.iter_mut().for_each(|v| *v = 255 - *v);
        }
    }
    let embedded = decoder.icc_profile().and_then(|icc| ColorProfile::new_from_slice(&icc).ok());
    let embedded = embedded.filter(|p| p.color_space == DataColorSpace::Cmyk);
    let profile = match &embedded {
        Some(p) => p,
        None => default_cmyk(),
    };
    let t = profile.create_transform_8bit(Layout::Rgba, &ColorProfile::new_srgb(), Layout::Rgb, options()).map_err(
        |e| failed(zune_jpeg::errors::DecodeErrors::Format(format!("the CMYK profile cannot be used: {e}"))),
    )?;
    let mut rgb = RgbImage::new(w as u32, h as u32);
    t.transform(&raw, &mut rgb)
        .map_err(|e| failed(zune_jpeg::errors::DecodeErrors::Format(format!("CMYK conversion failed: {e}"))))?;
    let mut image = DynamicImage::ImageRgb8(rgb);
    image.apply_orientation(orientation);
    Ok(Managed { image, orientation, source: Source::Cmyk })
}

/// The CMYK profile a CMYK JPEG without its own is read through: coated offset printing to ISO
/// 12647-2 (FOGRA39), modelled from FOGRA39's sixteen measured solid overprints (the
/// characterisation data `FOGRA39L.ti3`, Zlib licence, as Debian's `icc-profiles-free` ships it)
/// by the Yule–Nielsen modified Neugebauer model with n = 2. Built once, in memory.
pub(crate) fn default_cmyk() -> &'static ColorProfile {
    static PROFILE: OnceLock<ColorProfile> = OnceLock::new();
    PROFILE.get_or_init(|| neugebauer_profile(&FOGRA39_SOLIDS, 2.0, 17))
}

/// FOGRA39's solid overprints: XYZ (D50, 2°, Y of the perfect diffuser 100) of each combination
/// of full C, M, Y and K, indexed by the bits C=8, M=4, Y=2, K=1. Index 0 is the paper.
pub(crate) const FOGRA39_SOLIDS: [[f64; 3]; 16] = [
    [84.48, 87.62, 74.57], // paper
    [2.02, 2.10, 1.73],    // K
    [69.17, 74.16, 7.04],  // Y
    [1.84, 2.04, 0.82],    // YK
    [33.03, 16.79, 15.01], // M
    [1.61, 1.18, 0.89],    // MK
    [30.20, 16.02, 2.30],  // MY
    [1.56, 1.31, 0.65],    // MYK
    [15.02, 22.93, 52.85], // C
    [0.91, 1.18, 1.79],    // CK
    [8.16, 18.42, 6.74],   // CY
    [0.89, 1.31, 0.85],    // CYK
    [5.67, 4.10, 15.67],   // CM
    [0.99, 0.87, 1.08],    // CMK
    [3.66, 3.80, 3.13],    // CMY
    [0.93, 0.97, 0.69],    // CMYK
];

/// D50 in XYZ, Y = 100.
const D50: [f64; 3] = [96.42, 100.0, 82.49];

/// Media-relative CIE Lab (D50) of ink coverage `cmyk` (0..1 each) printed with `solids` under
/// the Yule–Nielsen modified Neugebauer model of factor `n`: paper white is L* 100.
pub(crate) fn neugebauer_lab(solids: &[[f64; 3]; 16], n: f64, cmyk: [f64; 4]) -> [f64; 3] {
    let mut sum = [0.0f64; 3];
    for (i, xyz) in solids.iter().enumerate() {
        let w: f64 = (0..4).map(|k| if i & (8 >> k) != 0 { cmyk[k] } else { 1.0 - cmyk[k] }).product();
        for c in 0..3 {
            sum[c] += w * xyz[c].powf(1.0 / n);
        }
    }
    let paper = solids[0];
    let xyz = [0, 1, 2].map(|c| sum[c].powf(n) * D50[c] / paper[c]);
    xyz_to_lab(xyz)
}

/// CIE Lab (D50) of XYZ with Y = 100 for the white.
pub(crate) fn xyz_to_lab(xyz: [f64; 3]) -> [f64; 3] {
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    let [fx, fy, fz] = [0, 1, 2].map(|c| f(xyz[c] / D50[c]));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// An output-class CMYK profile whose device-to-PCS tables (lutAtoB, every intent) sample
/// [`neugebauer_lab`] on a `grid`⁴ lattice, PCS Lab.
pub(crate) fn neugebauer_profile(solids: &[[f64; 3]; 16], n: f64, grid: u8) -> ColorProfile {
    let g = usize::from(grid);
    let step = 1.0 / (g - 1) as f64;
    let mut clut = Vec::with_capacity(g * g * g * g * 3);
    for c in 0..g {
        for m in 0..g {
            for y in 0..g {
                for k in 0..g {
                    let lab = neugebauer_lab(solids, n, [c, m, y, k].map(|v| v as f64 * step));
                    let enc = [lab[0] / 100.0, (lab[1] + 128.0) / 255.0, (lab[2] + 128.0) / 255.0];
                    clut.extend(enc.map(|v| (v.clamp(0.0, 1.0) * 65535.0).round() as u16));
                }
            }
        }
    }
    let mut grid_points = [0u8; 16];
    grid_points[..4].fill(grid);
    let identity = || ToneReprCurve::Lut(vec![]);
    let a_to_b = LutWarehouse::Multidimensional(LutMultidimensionalType {
        num_input_channels: 4,
        num_output_channels: 3,
        grid_points,
        clut: Some(LutStore::Store16(clut)),
        a_curves: vec![identity(), identity(), identity(), identity()],
        b_curves: vec![identity(), identity(), identity()],
        m_curves: vec![],
        matrix: Matrix3d::IDENTITY,
        bias: Vector3d::default(),
    });
    let white = ColorProfile::new_srgb().white_point;
    let mut profile = ColorProfile::default();
    profile.profile_class = ProfileClass::OutputDevice;
    profile.color_space = DataColorSpace::Cmyk;
    profile.pcs = DataColorSpace::Lab;
    profile.rendering_intent = RenderingIntent::RelativeColorimetric;
    profile.white_point = white;
    profile.media_white_point = Some(white);
    profile.lut_a_to_b_perceptual = Some(a_to_b.clone());
    profile.lut_a_to_b_colorimetric = Some(a_to_b.clone());
    profile.lut_a_to_b_saturation = Some(a_to_b);
    profile
}
