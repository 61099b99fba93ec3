//! JPEG output on several cores: the frame is cut into bands of whole MCU rows, each band is
//! encoded by the `image` crate's baseline encoder on its own thread, and the entropy-coded
//! scans are joined into one file with restart markers between them (a DRI segment declares the
//! band length). Restart intervals are plain baseline JPEG: every decoder reads them, and the
//! decoded pixels are exactly those of a single-threaded encode. The band height depends only
//! on the frame's width, never on the machine, so the bytes are the same everywhere.

use image::{ImageBuffer, Rgb, RgbImage};

use super::ops::{Result, rejected};

const SOF0: u8 = 0xC0;
const SOS: u8 = 0xDA;
const DRI: u8 = 0xDD;
const EOI: [u8; 2] = [0xFF, 0xD9];
/// Most bands encoded at once.
const MAX_THREADS: usize = 4;

/// Rows per band: whole 8-row MCU rows, at most 512, with the MCUs of a band within the 16-bit
/// restart interval.
fn band_rows(width: u32) -> u32 {
    let mcus_per_row = width.div_ceil(8).max(1);
    8 * (65_535 / mcus_per_row).clamp(1, 64)
}

fn encode_one(img: &ImageBuffer<Rgb<u8>, &[u8]>, quality: u8) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(img.as_raw().len() / 6);
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(img)
        .map_err(|e| rejected(format!("the frame could not be encoded: {e}")))?;
    Ok(out)
}

/// Where the parts of an encoded file are: the SOF0 height field, the SOS segment's start and the
/// first byte of entropy-coded data.
struct Layout {
    sof_height: usize,
    sos: usize,
    scan: usize,
}

fn layout(bytes: &[u8]) -> Option<Layout> {
    let mut i = 2; // after SOI
    let mut sof_height = None;
    while i + 4 <= bytes.len() {
        if bytes[i] != 0xFF {
            return None;
        }
        let marker = bytes[i + 1];
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        match marker {
            SOF0 => sof_height = Some(i + 5),
            SOS => return Some(Layout { sof_height: sof_height?, sos: i, scan: i + 2 + len }),
            _ => {}
        }
        i += 2 + len;
    }
    None
}

/// Encode `img` (sRGB) as baseline JPEG at `quality`, bands in parallel when the frame is tall
/// enough, with the sRGB profile embedded.
pub(crate) fn encode(img: &RgbImage, quality: u8) -> Result<Vec<u8>> {
    let plain = encode_plain(img, quality)?;
    Ok(crate::images::colour::embed_in_jpeg(plain, crate::images::colour::srgb_icc()))
}

/// [`encode`] written in `target`'s space (the sRGB pixels converted into it) with its profile.
pub(crate) fn encode_in(img: &RgbImage, quality: u8, target: &crate::images::colour::Target) -> Result<Vec<u8>> {
    if target.is_srgb() {
        return encode(img, quality);
    }
    let plain = if target.needs_conversion() {
        let mut converted = img.clone();
        target.convert(&mut converted);
        encode_plain(&converted, quality)?
    } else {
        encode_plain(img, quality)?
    };
    Ok(crate::images::colour::embed_in_jpeg(plain, &target.icc()))
}

/// [`encode`] without a profile.
fn encode_plain(img: &RgbImage, quality: u8) -> Result<Vec<u8>> {
    let (w, h) = img.dimensions();
    let rows = band_rows(w);
    let view = |y0: u32, y1: u32| {
        let raw = &img.as_raw()[(y0 * w * 3) as usize..(y1 * w * 3) as usize];
        ImageBuffer::<Rgb<u8>, &[u8]>::from_raw(w, y1 - y0, raw)
    };
    if h <= rows {
        let whole = view(0, h).ok_or_else(|| rejected("the frame buffer is short"))?;
        return encode_one(&whole, quality);
    }
    let bands: Vec<(u32, u32)> = (0..h.div_ceil(rows)).map(|i| (i * rows, ((i + 1) * rows).min(h))).collect();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, MAX_THREADS);
    let mut parts: Vec<Option<Result<Vec<u8>>>> = (0..bands.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(bands.len()))
            .map(|t| {
                let bands = &bands;
                let view = &view;
                scope.spawn(move || {
                    (t..bands.len())
                        .step_by(threads)
                        .map(|i| {
                            let (y0, y1) = bands[i];
                            let part = view(y0, y1)
                                .ok_or_else(|| rejected("the frame buffer is short"))
                                .and_then(|v| encode_one(&v, quality));
                            (i, part)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(done) => {
                    for (i, part) in done {
                        parts[i] = Some(part);
                    }
                }
                Err(_) => parts.iter_mut().for_each(|p| *p = Some(Err(rejected("the JPEG encoder failed")))),
            }
        }
    });
    let parts: Vec<Vec<u8>> = parts
        .into_iter()
        .map(|p| p.unwrap_or_else(|| Err(rejected("a band was not encoded"))))
        .collect::<Result<_>>()?;
    stitch(&parts, h, w.div_ceil(8) * rows / 8)
}

/// Join band files into one: the first band's headers with the full height and a DRI segment,
/// then each band's scan followed by the next restart marker, then EOI.
fn stitch(parts: &[Vec<u8>], height: u32, interval: u32) -> Result<Vec<u8>> {
    let broken = || rejected("the JPEG bands could not be joined");
    let first = parts.first().ok_or_else(broken)?;
    let head = layout(first).ok_or_else(broken)?;
    let height = u16::try_from(height).map_err(|_| broken())?;
    let interval = u16::try_from(interval).map_err(|_| broken())?;
    let total: usize = parts.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(total + 6 + 2 * parts.len());
    out.extend_from_slice(&first[..head.sos]);
    out[head.sof_height..head.sof_height + 2].copy_from_slice(&height.to_be_bytes());
    out.extend_from_slice(&[0xFF, DRI, 0x00, 0x04]);
    out.extend_from_slice(&interval.to_be_bytes());
    out.extend_from_slice(&first[head.sos..head.scan]);
    for (i, part) in parts.iter().enumerate() {
        let l = layout(part).ok_or_else(broken)?;
        let end = part.len().checked_sub(2).filter(|e| part[*e..] == EOI).ok_or_else(broken)?;
        out.extend_from_slice(&part[l.scan..end]);
        if i + 1 < parts.len() {
            out.extend_from_slice(&[0xFF, 0xD0 + (i % 8) as u8]);
        }
    }
    out.extend_from_slice(&EOI);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::local::ops;

    #[test]
    fn bands_decode_to_the_same_pixels_as_one_encode() {
        // 130 px wide: 17 MCUs a row, so bands are 512 rows; 1100 rows make three bands, the
        // last one partial and not a multiple of 8.
        let img = RgbImage::from_fn(130, 1100, |x, y| {
            let n = ops::noise(x, y, 4);
            Rgb([ops::to_u8(128.0 + 100.0 * n), (x * 2) as u8, (y % 256) as u8])
        });
        assert_eq!(band_rows(130), 512);
        let joined = encode(&img, 92).expect("encode");
        let view = ImageBuffer::<Rgb<u8>, &[u8]>::from_raw(130, 1100, img.as_raw()).expect("view");
        let single = encode_one(&view, 92).expect("encode");
        assert_ne!(joined, single, "the bands really were joined");
        let a = image::load_from_memory(&joined).expect("joined decodes").into_rgb8();
        let b = image::load_from_memory(&single).expect("single decodes").into_rgb8();
        assert_eq!(a.dimensions(), (130, 1100));
        assert_eq!(a, b, "restart markers do not change a pixel");
        assert_eq!(encode(&img, 92).expect("again"), joined, "deterministic");
    }

    #[test]
    fn band_height_follows_the_width_only() {
        assert_eq!(band_rows(4096), 512);
        assert_eq!(band_rows(8192), 504);
        assert_eq!(band_rows(16), 512);
        assert!(u32::from(u16::MAX) >= 8192u32.div_ceil(8) * band_rows(8192) / 8);
    }
}
