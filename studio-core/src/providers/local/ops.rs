//! Shared pixel machinery for the local tools: the SIMD resizer, float planes with box blurs and
//! bilinear sampling, sRGB ↔ linear ↔ Oklab, binary morphology, connected components and a
//! deterministic noise hash.

use std::sync::OnceLock;

use fast_image_resize as fr;
use image::{GrayImage, RgbImage, RgbaImage};

use crate::providers::ProviderError;

/// The result type of every local operation.
pub(crate) type Result<T> = std::result::Result<T, ProviderError>;

/// A refusal of the inputs.
pub(crate) fn rejected(message: impl Into<String>) -> ProviderError {
    ProviderError::Rejected(message.into())
}

// ---------------------------------------------------------------------------------------------
// Geometry and resizing
// ---------------------------------------------------------------------------------------------

/// `(width, height)` scaled so the long edge is exactly `long_edge`, keeping the aspect.
pub(crate) fn fit_long_edge(width: u32, height: u32, long_edge: u32) -> (u32, u32) {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    if w >= h {
        (long_edge, ((h * f64::from(long_edge) / w).round() as u32).clamp(1, long_edge))
    } else {
        (((w * f64::from(long_edge) / h).round() as u32).clamp(1, long_edge), long_edge)
    }
}

/// `(width, height)` of aspect `ratio` (width / height) whose long edge is `long_edge`.
pub(crate) fn aspect_size(ratio: f64, long_edge: u32) -> (u32, u32) {
    let l = f64::from(long_edge);
    if ratio >= 1.0 {
        (long_edge, ((l / ratio).round() as u32).clamp(1, long_edge))
    } else {
        (((l * ratio).round() as u32).clamp(1, long_edge), long_edge)
    }
}

/// A source rectangle in pixels (fractional), for cropping while resizing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Region {
    /// Left edge.
    pub(crate) left: f64,
    /// Top edge.
    pub(crate) top: f64,
    /// Width.
    pub(crate) width: f64,
    /// Height.
    pub(crate) height: f64,
}

impl Region {
    /// The region kept inside an image of `image_w` × `image_h`: the left and top edges at
    /// least a thousandth of a pixel short of the far side, the width and height no further
    /// than it. A region
    /// already inside comes back unchanged. A box computed in `f32` from a piece that runs to
    /// the frame's edge (`x1 = w`, then `x1 - x0` rounded up) can end a few millionths of a
    /// pixel outside, which the resizer refuses ("Size of the crop box is out of the image
    /// boundaries").
    pub(crate) fn within(self, image_w: u32, image_h: u32) -> Region {
        if image_w == 0 || image_h == 0 {
            return self;
        }
        let fit = |start: f64, len: f64, full: f64| {
            let start = if start.is_finite() { start.clamp(0.0, full - 1e-3) } else { 0.0 };
            let len = if len.is_finite() { len.clamp(1e-6, full - start) } else { full - start };
            (start, len)
        };
        let (left, width) = fit(self.left, self.width, f64::from(image_w));
        let (top, height) = fit(self.top, self.height, f64::from(image_h));
        Region { left, top, width, height }
    }

    /// The region in coordinates normalised to the image (0..1): `[x0, y0, x1, y1]`.
    pub(crate) fn normalized(&self, image_w: u32, image_h: u32) -> [f32; 4] {
        let (w, h) = (f64::from(image_w), f64::from(image_h));
        [
            (self.left / w) as f32,
            (self.top / h) as f32,
            ((self.left + self.width) / w) as f32,
            ((self.top + self.height) / h) as f32,
        ]
    }
}

fn fir_resize(
    src: &[u8],
    (sw, sh): (u32, u32),
    pixel: fr::PixelType,
    (dw, dh): (u32, u32),
    options: &fr::ResizeOptions,
) -> Result<Vec<u8>> {
    if dw == 0 || dh == 0 || sw == 0 || sh == 0 {
        return Err(rejected("an image has no pixels"));
    }
    let source = fr::images::ImageRef::new(sw, sh, src, pixel).map_err(|e| rejected(format!("resize: {e}")))?;
    let mut target = fr::images::Image::new(dw, dh, pixel);
    fr::Resizer::new().resize(&source, &mut target, options).map_err(|e| rejected(format!("resize: {e}")))?;
    Ok(target.into_vec())
}

fn lanczos() -> fr::ResizeOptions {
    fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3))
}

fn rgb_from(width: u32, height: u32, raw: Vec<u8>) -> Result<RgbImage> {
    RgbImage::from_raw(width, height, raw).ok_or_else(|| rejected("resize produced a short buffer"))
}

/// Lanczos3 resize of an RGB image (SIMD, 8-bit, no intermediate copies).
pub(crate) fn resize_rgb(src: &RgbImage, width: u32, height: u32) -> Result<RgbImage> {
    if src.dimensions() == (width, height) {
        return Ok(src.clone());
    }
    let raw = fir_resize(src.as_raw(), src.dimensions(), fr::PixelType::U8x3, (width, height), &lanczos())?;
    rgb_from(width, height, raw)
}

/// Lanczos3 resize of the `region` of `src` to `width` × `height` (crop and scale in one pass).
pub(crate) fn resize_rgb_region(src: &RgbImage, region: Region, width: u32, height: u32) -> Result<RgbImage> {
    let region = region.within(src.width(), src.height());
    let options = lanczos().crop(region.left, region.top, region.width, region.height);
    let raw = fir_resize(src.as_raw(), src.dimensions(), fr::PixelType::U8x3, (width, height), &options)?;
    rgb_from(width, height, raw)
}

/// Lanczos3 resize of `src` so it covers `width` × `height`, cropping the overflow evenly.
pub(crate) fn resize_rgb_cover(src: &RgbImage, width: u32, height: u32) -> Result<RgbImage> {
    let options = lanczos().fit_into_destination(Some((0.5, 0.5)));
    let raw = fir_resize(src.as_raw(), src.dimensions(), fr::PixelType::U8x3, (width, height), &options)?;
    rgb_from(width, height, raw)
}

/// Lanczos3 resize of an RGBA image. Colour is filtered premultiplied by alpha, so transparent
/// pixels lend no colour to the edges.
pub(crate) fn resize_rgba(src: &RgbaImage, width: u32, height: u32) -> Result<RgbaImage> {
    if src.dimensions() == (width, height) {
        return Ok(src.clone());
    }
    let options = lanczos().use_alpha(true);
    let raw = fir_resize(src.as_raw(), src.dimensions(), fr::PixelType::U8x4, (width, height), &options)?;
    RgbaImage::from_raw(width, height, raw).ok_or_else(|| rejected("resize produced a short buffer"))
}

/// Lanczos3 resize of a one-channel image.
pub(crate) fn resize_gray(src: &GrayImage, width: u32, height: u32) -> Result<GrayImage> {
    if src.dimensions() == (width, height) {
        return Ok(src.clone());
    }
    let raw = fir_resize(src.as_raw(), src.dimensions(), fr::PixelType::U8, (width, height), &lanczos())?;
    GrayImage::from_raw(width, height, raw).ok_or_else(|| rejected("resize produced a short buffer"))
}

/// A copy at most `long_edge` on its long side (cheap bilinear reduction), for analysis.
pub(crate) fn working_copy(src: &RgbImage, long_edge: u32) -> Result<RgbImage> {
    let (w, h) = src.dimensions();
    if w.max(h) <= long_edge {
        return Ok(src.clone());
    }
    let (tw, th) = fit_long_edge(w, h, long_edge);
    let options = fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Bilinear));
    let raw = fir_resize(src.as_raw(), (w, h), fr::PixelType::U8x3, (tw, th), &options)?;
    rgb_from(tw, th, raw)
}

// ---------------------------------------------------------------------------------------------
// Float planes
// ---------------------------------------------------------------------------------------------

/// A single-channel float image.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plane {
    /// Width in pixels.
    pub(crate) w: usize,
    /// Height in pixels.
    pub(crate) h: usize,
    /// Row-major values.
    pub(crate) data: Vec<f32>,
}

impl Plane {
    /// A plane filled with `value`.
    pub(crate) fn new(w: usize, h: usize, value: f32) -> Self {
        Plane { w, h, data: vec![value; w * h] }
    }

    /// The value at `(x, y)`.
    pub(crate) fn get(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.w + x]
    }

    /// Bilinear sample at pixel coordinates (pixel centres at `i + 0.5`), clamped at the edges.
    pub(crate) fn sample(&self, x: f32, y: f32) -> f32 {
        let fx = (x - 0.5).clamp(0.0, (self.w - 1) as f32);
        let fy = (y - 0.5).clamp(0.0, (self.h - 1) as f32);
        let (x0, y0) = (fx as usize, fy as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let row0 = y0 * self.w;
        let row1 = y1 * self.w;
        let top = self.data[row0 + x0] + (self.data[row0 + x1] - self.data[row0 + x0]) * tx;
        let bottom = self.data[row1 + x0] + (self.data[row1 + x1] - self.data[row1 + x0]) * tx;
        top + (bottom - top) * ty
    }

    /// Bilinear sample at coordinates normalised to the plane (0..1 across).
    pub(crate) fn sample_norm(&self, u: f32, v: f32) -> f32 {
        self.sample(u * self.w as f32, v * self.h as f32)
    }

    /// Box blur of radius `r` (window `2r + 1`), separable, edges clamped.
    pub(crate) fn box_blur(&self, r: usize) -> Plane {
        if r == 0 {
            return self.clone();
        }
        let mut tmp = vec![0.0f32; self.data.len()];
        let mut line = Vec::new();
        for y in 0..self.h {
            let row = &self.data[y * self.w..(y + 1) * self.w];
            box_line(row, r, &mut line);
            tmp[y * self.w..(y + 1) * self.w].copy_from_slice(&line);
        }
        // Vertical pass with one running sum per column.
        let (w, h) = (self.w, self.h);
        let mut out = vec![0.0f32; self.data.len()];
        let mut sums = vec![0.0f64; w];
        let clamp = |i: isize| i.clamp(0, h as isize - 1) as usize;
        for k in -(r as isize)..=(r as isize) {
            let row = &tmp[clamp(k) * w..(clamp(k) + 1) * w];
            for (s, v) in sums.iter_mut().zip(row) {
                *s += f64::from(*v);
            }
        }
        let norm = 1.0 / (2 * r + 1) as f64;
        for y in 0..h {
            for (o, s) in out[y * w..(y + 1) * w].iter_mut().zip(&sums) {
                *o = (*s * norm) as f32;
            }
            let add = clamp(y as isize + r as isize + 1);
            let sub = clamp(y as isize - r as isize);
            let (add_row, sub_row) = (&tmp[add * w..(add + 1) * w], &tmp[sub * w..(sub + 1) * w]);
            for ((s, a), b) in sums.iter_mut().zip(add_row).zip(sub_row) {
                *s += f64::from(*a) - f64::from(*b);
            }
        }
        Plane { w, h, data: out }
    }

    /// An approximately Gaussian blur: three box passes of radius `r`.
    pub(crate) fn blur(&self, r: usize) -> Plane {
        self.box_blur(r).box_blur(r).box_blur(r)
    }

    /// Half size, each value the mean of a 2 × 2 block (the odd last row or column repeats).
    pub(crate) fn half(&self) -> Plane {
        let (w, h) = (self.w.div_ceil(2), self.h.div_ceil(2));
        let mut out = Plane::new(w, h, 0.0);
        for y in 0..h {
            let (y0, y1) = (2 * y, (2 * y + 1).min(self.h - 1));
            for x in 0..w {
                let (x0, x1) = (2 * x, (2 * x + 1).min(self.w - 1));
                out.data[y * w + x] =
                    0.25 * (self.get(x0, y0) + self.get(x1, y0) + self.get(x0, y1) + self.get(x1, y1));
            }
        }
        out
    }
}

/// Box filter of one line into `out`, edges clamped.
fn box_line(row: &[f32], r: usize, out: &mut Vec<f32>) {
    let n = row.len();
    out.clear();
    out.resize(n, 0.0);
    let at = |i: isize| row[i.clamp(0, n as isize - 1) as usize];
    let mut sum: f64 = (-(r as isize)..=(r as isize)).map(|k| f64::from(at(k))).sum();
    let norm = 1.0 / (2 * r + 1) as f64;
    for (x, o) in out.iter_mut().enumerate() {
        *o = (sum * norm) as f32;
        let x = x as isize;
        sum += f64::from(at(x + r as isize + 1)) - f64::from(at(x - r as isize));
    }
}

/// A three-channel float image (sRGB values 0..255), for pyramids.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColourPlane {
    /// Width in pixels.
    pub(crate) w: usize,
    /// Height in pixels.
    pub(crate) h: usize,
    /// Row-major pixels.
    pub(crate) data: Vec<[f32; 3]>,
}

impl ColourPlane {
    /// Half size with a `[1 3 3 1] / 8` filter each way (the usual pyramid reduction), then a
    /// `[1 2 1] / 4` smoothing at the new size so bilinear reads of it stay soft.
    pub(crate) fn reduce(&self) -> ColourPlane {
        Self::reduce_with(self.w, self.h, |i| self.data[i])
    }

    /// [`ColourPlane::reduce`] straight from an 8-bit image (no full-size float copy).
    pub(crate) fn reduce_rgb(img: &RgbImage) -> ColourPlane {
        let raw = img.as_raw();
        Self::reduce_with(img.width() as usize, img.height() as usize, |i| {
            [f32::from(raw[3 * i]), f32::from(raw[3 * i + 1]), f32::from(raw[3 * i + 2])]
        })
    }

    fn reduce_with(sw: usize, sh: usize, at: impl Fn(usize) -> [f32; 3]) -> ColourPlane {
        const K: [f32; 4] = [0.125, 0.375, 0.375, 0.125];
        let (w, h) = (sw.div_ceil(2), sh.div_ceil(2));
        let cx = |x: isize| x.clamp(0, sw as isize - 1) as usize;
        let cy = |y: isize| y.clamp(0, sh as isize - 1) as usize;
        // Horizontal reduce into a w × sh buffer, then vertical.
        let mut tmp = vec![[0.0f32; 3]; w * sh];
        for y in 0..sh {
            for x in 0..w {
                let mut acc = [0.0f32; 3];
                for (t, k) in K.iter().enumerate() {
                    let p = at(y * sw + cx(2 * x as isize - 1 + t as isize));
                    for c in 0..3 {
                        acc[c] += k * p[c];
                    }
                }
                tmp[y * w + x] = acc;
            }
        }
        let mut half = vec![[0.0f32; 3]; w * h];
        for y in 0..h {
            for (t, k) in K.iter().enumerate() {
                let src = cy(2 * y as isize - 1 + t as isize);
                for x in 0..w {
                    let p = tmp[src * w + x];
                    let o = &mut half[y * w + x];
                    for c in 0..3 {
                        o[c] += k * p[c];
                    }
                }
            }
        }
        ColourPlane { w, h, data: half }.smooth()
    }

    /// A `[1 2 1] / 4` blur each way, edges clamped.
    pub(crate) fn smooth(&self) -> ColourPlane {
        let (w, h) = (self.w, self.h);
        let mut tmp = self.data.clone();
        for y in 0..h {
            for x in 0..w {
                let (l, r) = (self.data[y * w + x.saturating_sub(1)], self.data[y * w + (x + 1).min(w - 1)]);
                let m = self.data[y * w + x];
                tmp[y * w + x] = [0, 1, 2].map(|c| 0.25 * l[c] + 0.5 * m[c] + 0.25 * r[c]);
            }
        }
        let mut out = tmp.clone();
        for y in 0..h {
            let (up, down) = (y.saturating_sub(1), (y + 1).min(h - 1));
            for x in 0..w {
                let (a, m, b) = (tmp[up * w + x], tmp[y * w + x], tmp[down * w + x]);
                out[y * w + x] = [0, 1, 2].map(|c| 0.25 * a[c] + 0.5 * m[c] + 0.25 * b[c]);
            }
        }
        ColourPlane { w, h, data: out }
    }

    /// Bilinear sample at pixel coordinates (centres at `i + 0.5`), clamped at the edges.
    pub(crate) fn sample(&self, x: f32, y: f32) -> [f32; 3] {
        let fx = (x - 0.5).clamp(0.0, (self.w - 1) as f32);
        let fy = (y - 0.5).clamp(0.0, (self.h - 1) as f32);
        let (x0, y0) = (fx as usize, fy as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let (a, b) = (self.data[y0 * self.w + x0], self.data[y0 * self.w + x1]);
        let (c, d) = (self.data[y1 * self.w + x0], self.data[y1 * self.w + x1]);
        [0, 1, 2].map(|k| {
            let top = a[k] + (b[k] - a[k]) * tx;
            let bottom = c[k] + (d[k] - c[k]) * tx;
            top + (bottom - top) * ty
        })
    }
}

/// Smooth step from 0 at `e0` to 1 at `e1`.
/// The scale a contact shadow is drawn at before it is blurred and multiplied in.
pub(crate) const SHADOW_SCALE: usize = 4;

/// Multiply a soft elliptical shadow into `canvas`: a hard ellipse of centre `(ex, ey)` and radii
/// `(rx, ry)`, all in [`SHADOW_SCALE`]-reduced pixels, blurred there (by 0.8 `ry`) and darkening
/// the canvas by up to `opacity`.
pub(crate) fn contact_shadow(canvas: &mut RgbImage, (ex, ey): (f32, f32), (rx, ry): (f32, f32), opacity: f32) {
    let q = SHADOW_SCALE;
    let (cw, ch) = canvas.dimensions();
    let (sw, sh) = ((cw as usize).div_ceil(q), (ch as usize).div_ceil(q));
    let mut shadow = Plane::new(sw, sh, 0.0);
    for y in 0..sh {
        for x in 0..sw {
            let (dx, dy) = ((x as f32 + 0.5 - ex) / rx, (y as f32 + 0.5 - ey) / ry);
            if dx * dx + dy * dy <= 1.0 {
                shadow.data[y * sw + x] = 1.0;
            }
        }
    }
    let shadow = shadow.blur(((ry * 0.8).round() as usize).max(1));
    for (x, y, p) in canvas.enumerate_pixels_mut() {
        let s = shadow.sample((x as f32 + 0.5) / q as f32, (y as f32 + 0.5) / q as f32) * opacity;
        if s > 0.0005 {
            p.0 = p.0.map(|c| to_u8(f32::from(c) * (1.0 - s)));
        }
    }
}

pub(crate) fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Linear blend.
pub(crate) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// A float to a byte, rounded and clamped.
pub(crate) fn to_u8(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// Deterministic noise in `-1..1` for a pixel and a seed (integer hash, no state).
pub(crate) fn noise(x: u32, y: u32, seed: u32) -> f32 {
    let mut h = x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ seed.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297A_2D39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 23) as f32 - 1.0
}

// ---------------------------------------------------------------------------------------------
// Colour
// ---------------------------------------------------------------------------------------------

/// A colour in Oklab: lightness 0..1 and two opponent axes (about ±0.4).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Lab {
    /// Lightness.
    pub(crate) l: f32,
    /// Green–red axis.
    pub(crate) a: f32,
    /// Blue–yellow axis.
    pub(crate) b: f32,
}

impl Lab {
    /// The colour as an array `[l, a, b]`.
    pub(crate) fn to_array(self) -> [f32; 3] {
        [self.l, self.a, self.b]
    }

    /// From an array `[l, a, b]`.
    pub(crate) fn from_array(v: [f32; 3]) -> Lab {
        Lab { l: v[0], a: v[1], b: v[2] }
    }

    /// Chroma (distance from the grey axis).
    #[cfg(test)]
    pub(crate) fn chroma(self) -> f32 {
        self.a.hypot(self.b)
    }

    /// Hue angle in radians.
    #[cfg(test)]
    pub(crate) fn hue(self) -> f32 {
        self.b.atan2(self.a)
    }
}

fn srgb_decode_table() -> &'static [f32; 256] {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0.0f32; 256];
        for (i, v) in t.iter_mut().enumerate() {
            let c = i as f64 / 255.0;
            *v = if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) } as f32;
        }
        t
    })
}

const ENCODE_STEPS: usize = 16_384;

fn srgb_encode_table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=ENCODE_STEPS)
            .map(|i| {
                let l = i as f64 / ENCODE_STEPS as f64;
                let c = if l <= 0.003_130_8 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 };
                (c * 255.0).round().clamp(0.0, 255.0) as u8
            })
            .collect()
    })
}

/// An sRGB byte to linear light (0..1).
pub(crate) fn to_linear(c: u8) -> f32 {
    srgb_decode_table()[c as usize]
}

/// Linear light (clamped to 0..1) to an sRGB byte.
pub(crate) fn to_srgb(l: f32) -> u8 {
    let i = (l.clamp(0.0, 1.0) * ENCODE_STEPS as f32 + 0.5) as usize;
    srgb_encode_table()[i.min(ENCODE_STEPS)]
}

/// Linear RGB to Oklab.
pub(crate) fn linear_to_lab([r, g, b]: [f32; 3]) -> Lab {
    let l = (0.412_221_46 * r + 0.536_332_55 * g + 0.051_445_995 * b).max(0.0).cbrt();
    let m = (0.211_903_5 * r + 0.680_699_5 * g + 0.107_396_96 * b).max(0.0).cbrt();
    let s = (0.088_302_46 * r + 0.281_718_85 * g + 0.629_978_7 * b).max(0.0).cbrt();
    Lab {
        l: 0.210_454_26 * l + 0.793_617_8 * m - 0.004_072_047 * s,
        a: 1.977_998_5 * l - 2.428_592_2 * m + 0.450_593_7 * s,
        b: 0.025_904_037 * l + 0.782_771_77 * m - 0.808_675_77 * s,
    }
}

/// Oklab to linear RGB (may fall outside 0..1 for colours out of gamut).
pub(crate) fn lab_to_linear(c: Lab) -> [f32; 3] {
    let l = c.l + 0.396_337_78 * c.a + 0.215_803_76 * c.b;
    let m = c.l - 0.105_561_346 * c.a - 0.063_854_17 * c.b;
    let s = c.l - 0.089_484_18 * c.a - 1.291_485_5 * c.b;
    let (l, m, s) = (l * l * l, m * m * m, s * s * s);
    [
        4.076_741_7 * l - 3.307_711_6 * m + 0.230_969_94 * s,
        -1.268_438 * l + 2.609_757_4 * m - 0.341_319_38 * s,
        -0.004_196_086_3 * l - 0.703_418_6 * m + 1.707_614_7 * s,
    ]
}

/// An sRGB pixel to Oklab.
pub(crate) fn rgb_to_lab(p: [u8; 3]) -> Lab {
    linear_to_lab([to_linear(p[0]), to_linear(p[1]), to_linear(p[2])])
}

/// Oklab to an sRGB pixel; out-of-gamut colours are pulled toward grey at the same lightness
/// until they fit, then clamped.
pub(crate) fn lab_to_rgb(c: Lab) -> [u8; 3] {
    let mut lin = lab_to_linear(c);
    if lin.iter().any(|v| !(-0.001..=1.001).contains(v)) {
        // Reduce chroma (bisection, a few steps) so the hue and lightness survive.
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        for _ in 0..8 {
            let mid = 0.5 * (lo + hi);
            let t = lab_to_linear(Lab { l: c.l, a: c.a * mid, b: c.b * mid });
            if t.iter().all(|v| (-0.001..=1.001).contains(v)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lin = lab_to_linear(Lab { l: c.l, a: c.a * lo, b: c.b * lo });
    }
    [to_srgb(lin[0]), to_srgb(lin[1]), to_srgb(lin[2])]
}

/// The colour names [`parse_color`] knows, with their sRGB values.
pub(crate) const COLOUR_NAMES: [(&str, [u8; 3]); 21] = [
    ("black", [20, 20, 22]),
    ("white", [245, 245, 243]),
    ("ivory", [240, 234, 218]),
    ("cream", [236, 226, 200]),
    ("beige", [214, 196, 166]),
    ("camel", [193, 154, 107]),
    ("brown", [110, 72, 46]),
    ("grey", [128, 128, 128]),
    ("gray", [128, 128, 128]),
    ("charcoal", [60, 62, 66]),
    ("red", [190, 30, 45]),
    ("burgundy", [110, 24, 42]),
    ("pink", [232, 150, 175]),
    ("orange", [230, 120, 40]),
    ("yellow", [235, 200, 50]),
    ("olive", [110, 110, 50]),
    ("green", [40, 130, 70]),
    ("teal", [20, 120, 125]),
    ("blue", [40, 80, 180]),
    ("navy", [25, 35, 75]),
    ("purple", [110, 50, 140]),
];

/// The forms [`parse_color`] accepts, in words, for a refusal.
pub(crate) fn colour_forms() -> String {
    let names: Vec<&str> = COLOUR_NAMES.iter().map(|(n, _)| *n).collect();
    format!("#rrggbb, #rgb or one of {}", names.join(", "))
}

/// A `#rrggbb` or `#rgb` colour (the `#` optional), or one of [`COLOUR_NAMES`].
pub(crate) fn parse_color(text: &str) -> Option<[u8; 3]> {
    let t = text.trim().to_ascii_lowercase();
    let named = COLOUR_NAMES.iter().find(|(n, _)| *n == t).map(|(_, c)| *c);
    if named.is_some() {
        return named;
    }
    let hex = t.strip_prefix('#').unwrap_or(&t);
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |s: &str| u8::from_str_radix(s, 16).ok();
    match hex.len() {
        6 => Some([byte(&hex[0..2])?, byte(&hex[2..4])?, byte(&hex[4..6])?]),
        3 => {
            let d = |i: usize| byte(&hex[i..i + 1]).map(|v| v * 17);
            Some([d(0)?, d(1)?, d(2)?])
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Binary masks
// ---------------------------------------------------------------------------------------------

/// A binary mask: one byte per pixel, 0 or 1.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mask {
    /// Width in pixels.
    pub(crate) w: usize,
    /// Height in pixels.
    pub(crate) h: usize,
    /// Row-major 0/1 values.
    pub(crate) data: Vec<u8>,
}

impl Mask {
    /// How many pixels are set.
    pub(crate) fn count(&self) -> usize {
        self.data.iter().filter(|v| **v != 0).count()
    }

    /// Grow the set pixels by a square of radius `r`.
    pub(crate) fn dilate(&self, r: usize) -> Mask {
        self.square_any(r)
    }

    /// Shrink the set pixels by a square of radius `r`.
    pub(crate) fn erode(&self, r: usize) -> Mask {
        let inverted = Mask { w: self.w, h: self.h, data: self.data.iter().map(|v| 1 - v).collect() };
        let grown = inverted.square_any(r);
        Mask { w: self.w, h: self.h, data: grown.data.iter().map(|v| 1 - v).collect() }
    }

    /// Opening (erode then dilate): removes specks smaller than the radius.
    pub(crate) fn open(&self, r: usize) -> Mask {
        self.erode(r).dilate(r)
    }

    /// Closing (dilate then erode): bridges gaps narrower than the radius.
    pub(crate) fn close(&self, r: usize) -> Mask {
        self.dilate(r).erode(r)
    }

    /// Pixels with any set pixel within the `(2r+1)²` square (out of bounds counts as unset).
    fn square_any(&self, r: usize) -> Mask {
        if r == 0 {
            return self.clone();
        }
        let (w, h) = (self.w, self.h);
        let mut tmp = vec![0u8; w * h];
        for y in 0..h {
            let row = &self.data[y * w..(y + 1) * w];
            let mut count: usize = row[..r.min(w)].iter().map(|v| *v as usize).sum();
            for x in 0..w {
                if x + r < w {
                    count += row[x + r] as usize;
                }
                if x > r {
                    count -= row[x - r - 1] as usize;
                }
                tmp[y * w + x] = u8::from(count > 0);
            }
        }
        let mut out = vec![0u8; w * h];
        let mut counts = vec![0usize; w];
        for row in tmp.chunks(w).take(r.min(h)) {
            for (c, v) in counts.iter_mut().zip(row) {
                *c += *v as usize;
            }
        }
        for y in 0..h {
            if y + r < h {
                for (c, v) in counts.iter_mut().zip(&tmp[(y + r) * w..(y + r + 1) * w]) {
                    *c += *v as usize;
                }
            }
            if y > r {
                for (c, v) in counts.iter_mut().zip(&tmp[(y - r - 1) * w..(y - r) * w]) {
                    *c -= *v as usize;
                }
            }
            for (o, c) in out[y * w..(y + 1) * w].iter_mut().zip(&counts) {
                *o = u8::from(*c > 0);
            }
        }
        Mask { w, h, data: out }
    }

    /// Label 8-connected components of set pixels: labels (0 = unset, 1.. = component) and the
    /// size of each component (index `label - 1`).
    pub(crate) fn components(&self) -> (Vec<u32>, Vec<usize>) {
        flood_labels(self.w, self.h, |i| self.data[i] != 0, true)
    }

    /// Keep the largest component and any other at least `share` of its size.
    pub(crate) fn keep_largest(&self, share: f32) -> Mask {
        let (labels, sizes) = self.components();
        let Some(&largest) = sizes.iter().max() else { return self.clone() };
        let keep: Vec<bool> = sizes.iter().map(|s| *s as f32 >= largest as f32 * share).collect();
        let data = labels.iter().map(|l| u8::from(*l != 0 && keep[*l as usize - 1])).collect();
        Mask { w: self.w, h: self.h, data }
    }

    /// Fill holes (unset regions not reaching the border) of at most `max_area` pixels.
    pub(crate) fn fill_holes(&self, max_area: usize) -> Mask {
        let (labels, sizes) = flood_labels(self.w, self.h, |i| self.data[i] == 0, false);
        let mut touches = vec![false; sizes.len()];
        let (w, h) = (self.w, self.h);
        for x in 0..w {
            for y in [0, h - 1] {
                let l = labels[y * w + x];
                if l != 0 {
                    touches[l as usize - 1] = true;
                }
            }
        }
        for y in 0..h {
            for x in [0, w - 1] {
                let l = labels[y * w + x];
                if l != 0 {
                    touches[l as usize - 1] = true;
                }
            }
        }
        let data = self
            .data
            .iter()
            .zip(&labels)
            .map(|(v, l)| {
                if *v != 0 {
                    1
                } else {
                    let k = *l as usize - 1;
                    u8::from(!touches[k] && sizes[k] <= max_area)
                }
            })
            .collect();
        Mask { w, h, data }
    }

    /// The bounding box of set pixels: `(x0, y0, x1, y1)` with `x1`, `y1` exclusive.
    pub(crate) fn bbox(&self) -> Option<(usize, usize, usize, usize)> {
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for y in 0..self.h {
            for x in 0..self.w {
                if self.data[y * self.w + x] != 0 {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x + 1);
                    y1 = y1.max(y + 1);
                }
            }
        }
        (x0 != usize::MAX).then_some((x0, y0, x1, y1))
    }

    /// The mask as a float plane (0.0 or 1.0).
    pub(crate) fn to_plane(&self) -> Plane {
        Plane { w: self.w, h: self.h, data: self.data.iter().map(|v| f32::from(*v)).collect() }
    }
}

/// Connected-component labelling of the pixels where `inside(i)` holds (iterative flood fill).
fn flood_labels(w: usize, h: usize, inside: impl Fn(usize) -> bool, diagonal: bool) -> (Vec<u32>, Vec<usize>) {
    let mut labels = vec![0u32; w * h];
    let mut sizes = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if labels[start] != 0 || !inside(start) {
            continue;
        }
        let label = sizes.len() as u32 + 1;
        labels[start] = label;
        stack.push(start);
        let mut size = 0;
        while let Some(i) = stack.pop() {
            size += 1;
            let (x, y) = ((i % w) as isize, (i / w) as isize);
            for dy in -1isize..=1 {
                for dx in -1isize..=1 {
                    if (dx == 0 && dy == 0) || (!diagonal && dx != 0 && dy != 0) {
                        continue;
                    }
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if labels[j] == 0 && inside(j) {
                        labels[j] = label;
                        stack.push(j);
                    }
                }
            }
        }
        sizes.push(size);
    }
    (labels, sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_the_aspect() {
        assert_eq!(fit_long_edge(200, 150, 1024), (1024, 768));
        assert_eq!(fit_long_edge(150, 200, 2048), (1536, 2048));
        assert_eq!(aspect_size(4.0 / 5.0, 1024), (819, 1024));
        assert_eq!(aspect_size(16.0 / 9.0, 1024), (1024, 576));
    }

    #[test]
    fn oklab_round_trips() {
        for p in [[0u8, 0, 0], [255, 255, 255], [200, 30, 60], [12, 90, 180], [128, 128, 128]] {
            let back = lab_to_rgb(rgb_to_lab(p));
            for k in 0..3 {
                assert!((i32::from(back[k]) - i32::from(p[k])).abs() <= 1, "{p:?} -> {back:?}");
            }
        }
        let white = rgb_to_lab([255, 255, 255]);
        assert!((white.l - 1.0).abs() < 1e-3 && white.chroma() < 1e-3);
    }

    #[test]
    fn box_blur_keeps_the_mean_and_flattens() {
        let mut p = Plane::new(9, 7, 0.0);
        p.data[3 * 9 + 4] = 63.0;
        let b = p.box_blur(1);
        let sum: f32 = b.data.iter().sum();
        assert!((sum - 63.0).abs() < 1e-3);
        assert!((b.get(4, 3) - 7.0).abs() < 1e-4);
    }

    #[test]
    fn morphology_cleans_specks_and_fills_holes() {
        let (w, h) = (20, 20);
        let mut data = vec![0u8; w * h];
        for y in 5..15 {
            for x in 5..15 {
                data[y * w + x] = 1;
            }
        }
        data[9 * w + 9] = 0; // a hole
        data[w + 1] = 1; // a speck
        let m = Mask { w, h, data };
        let opened = m.open(1);
        assert_eq!(opened.data[w + 1], 0);
        let filled = m.fill_holes(4);
        assert_eq!(filled.data[9 * w + 9], 1);
        assert_eq!(m.keep_largest(0.5).count(), 99);
        assert_eq!(m.bbox(), Some((1, 1, 15, 15)));
    }

    #[test]
    fn colors_parse_by_hex_or_name() {
        assert_eq!(parse_color("#aa3355"), Some([0xaa, 0x33, 0x55]));
        assert_eq!(parse_color("a35"), Some([0xaa, 0x33, 0x55]));
        assert_eq!(parse_color("Navy"), Some([25, 35, 75]));
        assert_eq!(parse_color("#12345"), None);
        assert_eq!(parse_color("mauvish"), None);
    }
}
