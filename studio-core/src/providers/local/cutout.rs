//! Cut-outs for the AI utility lanes, done locally: remove-background (the packshot tool's
//! subject mask, as a full-size RGBA cutout) and segment by a box or a point.
//!
//! Segment works at the analysis size ([`subject::WORK_EDGE`]) on the smoothed Oklab copy:
//!
//! - a **box** fits the smooth ground model of `subject.rs` to the ring around the box (and to the
//!   box's own border where it meets the frame's edge), marks the pixels inside the box that stand
//!   out from that ground by more than three times its noise, then grows them GrabCut-style with
//!   a colour model of the piece itself (pixels nearer the piece's own colours than the ground's,
//!   even faintly apart from the ground, join it), cleans up with morphology and keeps the
//!   component(s) that belong to the box (those cut by the box's edge count half);
//! - a **point** first grows a region in Oklab from a seed patch: a minimax flood from the seed
//!   orders every pixel by the largest colour step needed to reach it, and the threshold is the
//!   most stable one (the area grows least) between the seed's own noise and the level at which the
//!   flood reaches the frame's border (the surroundings). That region's padded bounds become a
//!   box, segmented as above, keeping the component under the point.
//!
//! Both answer a soft alpha at full size through [`Subject::alpha_for`] (the edge band refined
//! from the full-size pixels), with edge colours the piece's own ([`Subject::edge_foreground`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, GrayImage, ImageEncoder, RgbImage, RgbaImage};

use super::gate;
use super::ops::{self, Lab, Mask};
use super::subject::{self, CutError, Subject};
use super::{LocalProvider, decode};
use crate::providers::ProviderError;

/// What segment cuts, in pixels of the EXIF-applied frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SegmentTarget {
    /// A box `[x0, y0, x1, y1]` around the object.
    Box([f32; 4]),
    /// A point `[x, y]` on the object.
    Point([f32; 2]),
}

/// A cutout: an RGBA PNG the size of the (EXIF-applied) frame, transparent outside the object,
/// and the object's bounds in pixels [x0, y0, x1, y1] (x1, y1 exclusive).
#[derive(Debug, Clone)]
pub struct Cutout {
    /// The RGBA PNG.
    pub png: Vec<u8>,
    /// Its width in pixels (the EXIF-applied frame's).
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The object's bounds: pixels whose alpha is at least 128.
    pub bbox: [u32; 4],
}

/// Why a cutout could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CutoutError {
    /// The bytes are not an image this service decodes (message says why).
    #[error("{0}")]
    Undecodable(String),
    /// The box or point lies outside the frame (a box only partly outside is clipped, not refused).
    #[error("the target lies outside the {width} × {height} frame")]
    OutsideFrame {
        /// The frame's width in pixels.
        width: u32,
        /// The frame's height in pixels.
        height: u32,
    },
    /// No clear subject to cut (the subject gate's sentence, or what segment did not find):
    /// the lanes answer 422 `SUBJECT_NOT_FOUND`.
    #[error("{0}")]
    NothingFound(String),
}

/// A refusal's own words.
fn undecodable(e: ProviderError) -> CutoutError {
    match e {
        ProviderError::Rejected(m) | ProviderError::Unavailable(m) => CutoutError::Undecodable(m),
    }
}

fn nothing(message: &str) -> CutoutError {
    CutoutError::NothingFound(message.to_string())
}

impl LocalProvider {
    /// remove-background: the subject mask the packshot tool computes ([`Subject::cut`], the
    /// saliency-seeded segmentation behind the subject gate, the same code `compose/cut.rs`'s `Cut`
    /// uses), as a full-size RGBA cutout. A refusal by the gate is [`CutoutError::NothingFound`].
    pub fn remove_background_blocking(&self, bytes: &[u8]) -> Result<Cutout, CutoutError> {
        let frame = decode(bytes, "image").map_err(undecodable)?;
        let subject = Subject::cut(&frame.rgb, frame.alpha.as_ref()).map_err(|e| match e {
            CutError::NotFound(why) => CutoutError::NothingFound(why),
            CutError::Failed(e) => undecodable(e),
        })?;
        render(&frame.rgb, &subject, None)
    }

    /// A cutout of `bytes` by a mask found elsewhere (a hosted model's answer: its alpha when it
    /// has transparency, else its brightness; any size), behind the subject gate's mask-only
    /// measures (coverage, holes, border contact, sides, edge agreement). A refusal is
    /// [`CutoutError::NothingFound`].
    pub fn cutout_by_mask_blocking(&self, bytes: &[u8], mask: &[u8]) -> Result<Cutout, CutoutError> {
        let frame = decode(bytes, "image").map_err(undecodable)?;
        let answer = image::load_from_memory(mask)
            .map_err(|e| CutoutError::Undecodable(format!("the hosted model's mask is not an image: {e}")))?;
        let rgba = answer.to_rgba8();
        let gray = if rgba.pixels().any(|p| p.0[3] < 255) {
            GrayImage::from_fn(rgba.width(), rgba.height(), |x, y| image::Luma([rgba.get_pixel(x, y).0[3]]))
        } else {
            answer.to_luma8()
        };
        let (lab, w, h) = subject::working_lab(&frame.rgb).map_err(undecodable)?;
        let small = ops::resize_gray(&gray, w as u32, h as u32).map_err(undecodable)?;
        let solid = Mask { w, h, data: small.pixels().map(|p| u8::from(p.0[0] >= 128)).collect() };
        if let Some(why) = gate::check_mask(&solid, &subject::smoothed(&lab, w, h)) {
            return Err(CutoutError::NothingFound(why));
        }
        let (fw, fh) = frame.rgb.dimensions();
        let full = ops::resize_gray(&gray, fw, fh).map_err(undecodable)?;
        let alpha: Vec<f32> = full.pixels().map(|p| f32::from(p.0[0]) / 255.0).collect();
        encode(&frame.rgb, &alpha, frame.alpha.as_ref(), |_, _, own| own)
    }

    /// segment by box or point: a real local segmentation of the colour image.
    pub fn segment_blocking(&self, bytes: &[u8], target: SegmentTarget) -> Result<Cutout, CutoutError> {
        let frame = decode(bytes, "image").map_err(undecodable)?;
        let subject = segment(&frame.rgb, target)?;
        render(&frame.rgb, &subject, frame.alpha.as_ref())
    }
}

/// The full-size cutout of `img` by `subject`'s soft mask (times `keep`, an input's own alpha).
fn render(img: &RgbImage, subject: &Subject, keep: Option<&GrayImage>) -> Result<Cutout, CutoutError> {
    let (w, h) = img.dimensions();
    let alpha = subject.alpha_for([0.0, 0.0, 1.0, 1.0], img);
    encode(img, &alpha, keep, |x, y, _| {
        let uv = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
        subject.edge_foreground(img, &alpha, x, y, uv).map(ops::to_u8)
    })
}

/// The RGBA PNG of `img` under `alpha` (row-major, 0–1; times `keep`), a soft edge pixel taking
/// the colour `edge` gives it from its position and own colour, and the bounds of alpha ≥ ½.
fn encode(
    img: &RgbImage,
    alpha: &[f32],
    keep: Option<&GrayImage>,
    edge: impl Fn(u32, u32, [u8; 3]) -> [u8; 3],
) -> Result<Cutout, CutoutError> {
    let (w, h) = img.dimensions();
    let mut alpha = alpha.to_vec();
    if let Some(keep) = keep.filter(|k| k.dimensions() == (w, h)) {
        for (a, k) in alpha.iter_mut().zip(keep.as_raw()) {
            *a *= f32::from(*k) / 255.0;
        }
    }
    let mut out = RgbaImage::new(w, h);
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (i, (x, y, p)) in img.enumerate_pixels().enumerate() {
        let a = ops::to_u8(alpha[i] * 255.0);
        if a == 0 {
            continue;
        }
        let c = if a < 255 { edge(x, y, p.0) } else { p.0 };
        out.put_pixel(x, y, image::Rgba([c[0], c[1], c[2], a]));
        if a >= 128 {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
        }
    }
    if x0 == u32::MAX {
        return Err(nothing("nothing solid is left once the ground is taken away"));
    }
    let mut png = Vec::new();
    let mut encoder = PngEncoder::new_with_quality(&mut png, CompressionType::Fast, FilterType::Adaptive);
    // The cutout's colours are sRGB (decoded through images/colour.rs): say so.
    let _ = encoder.set_icc_profile(crate::images::colour::srgb_icc().to_vec());
    encoder
        .write_image(out.as_raw(), w, h, ExtendedColorType::Rgba8)
        .map_err(|e| CutoutError::Undecodable(format!("the cutout could not be encoded: {e}")))?;
    Ok(Cutout { png, width: w, height: h, bbox: [x0, y0, x1, y1] })
}

/// The analysis copy: smoothed Oklab at the working size.
struct Work {
    smooth: Vec<Lab>,
    w: usize,
    h: usize,
}

impl Work {
    fn uv(&self, x: usize, y: usize) -> (f32, f32) {
        ((x as f32 + 0.5) / self.w as f32, (y as f32 + 0.5) / self.h as f32)
    }
}

/// A rectangle of working pixels `[x0, y0, x1, y1]`, ends exclusive.
type Rect = [usize; 4];

/// Segment `img` by `target`: a subject whose coarse mask is the object.
fn segment(img: &RgbImage, target: SegmentTarget) -> Result<Subject, CutoutError> {
    let (fw, fh) = img.dimensions();
    let outside = CutoutError::OutsideFrame { width: fw, height: fh };
    let (lab, w, h) = subject::working_lab(img).map_err(undecodable)?;
    let work = Work { smooth: subject::smoothed(&lab, w, h), w, h };
    let (sx, sy) = (w as f32 / fw as f32, h as f32 / fh as f32);
    let (ground, noise, mask) = match target {
        SegmentTarget::Box(b) => {
            if !b.iter().all(|v| v.is_finite()) {
                return Err(outside);
            }
            let (x0, x1) = (b[0].min(b[2]).max(0.0), b[0].max(b[2]).min(fw as f32));
            let (y0, y1) = (b[1].min(b[3]).max(0.0), b[1].max(b[3]).min(fh as f32));
            if x0 >= fw as f32 || y0 >= fh as f32 || x1 <= 0.0 || y1 <= 0.0 {
                return Err(outside);
            }
            if x1 - x0 < 1.0 || y1 - y0 < 1.0 {
                return Err(nothing("the box holds no pixels"));
            }
            let rx0 = ((x0 * sx).floor() as usize).min(w - 1);
            let ry0 = ((y0 * sy).floor() as usize).min(h - 1);
            let rect = [
                rx0,
                ry0,
                ((x1 * sx).ceil() as usize).clamp(rx0 + 1, w),
                ((y1 * sy).ceil() as usize).clamp(ry0 + 1, h),
            ];
            cut_box(&work, rect, None)?
        }
        SegmentTarget::Point(p) => {
            let inside = |v: f32, side: u32| v.is_finite() && v >= 0.0 && v < side as f32;
            if !inside(p[0], fw) || !inside(p[1], fh) {
                return Err(outside);
            }
            let seed = (((p[0] * sx) as usize).min(w - 1), ((p[1] * sy) as usize).min(h - 1));
            let rect = grown_box(&work, seed)?;
            cut_box(&work, rect, Some(seed))?
        }
    };
    if let Some(why) = gate::check_mask(&mask, &work.smooth) {
        return Err(CutoutError::NothingFound(why));
    }
    let coarse = mask.to_plane().box_blur(1).box_blur(1);
    Ok(Subject::with_mask(ground, noise, coarse, lab))
}

/// Colour distance without the ground's asymmetry: chroma counts more than lightness.
fn apart(p: Lab, q: Lab) -> f32 {
    let (dl, da, db) = (p.l - q.l, p.a - q.a, p.b - q.b);
    (dl * dl + 2.25 * (da * da + db * db)).sqrt()
}

/// A few colour centres of `samples` (k-means, deterministic: seeded at lightness quantiles).
fn colour_centres(samples: &[Lab], k: usize) -> Vec<Lab> {
    let step = samples.len().div_ceil(4096).max(1);
    let mut pts: Vec<Lab> = samples.iter().step_by(step).copied().collect();
    if pts.is_empty() {
        return Vec::new();
    }
    pts.sort_by(|a, b| a.l.total_cmp(&b.l));
    let k = k.min(pts.len());
    let mut centres: Vec<Lab> = (0..k).map(|i| pts[(2 * i + 1) * pts.len() / (2 * k)]).collect();
    for _ in 0..6 {
        let mut sums = vec![([0.0f32; 3], 0.0f32); k];
        for p in &pts {
            let best = (0..k).min_by(|a, b| apart(*p, centres[*a]).total_cmp(&apart(*p, centres[*b])));
            let (sum, n) = &mut sums[best.unwrap_or(0)];
            for (s, v) in sum.iter_mut().zip(p.to_array()) {
                *s += v;
            }
            *n += 1.0;
        }
        for (c, (sum, n)) in centres.iter_mut().zip(sums) {
            if n > 0.0 {
                *c = Lab::from_array(sum.map(|s| s / n));
            }
        }
    }
    centres
}

/// Segment inside `rect`: the ground fitted around it, the pixels that stand apart from that
/// ground grown by the piece's own colours, cleaned, and the component(s) that belong (the one
/// under `seed` when given). Returns the ground model, its noise and the mask at working size.
fn cut_box(work: &Work, rect: Rect, seed: Option<(usize, usize)>) -> Result<([[f32; 6]; 3], f32, Mask), CutoutError> {
    let (w, h) = (work.w, work.h);
    let [x0, y0, x1, y1] = rect;
    let (bw, bh) = (x1 - x0, y1 - y0);
    let margin = ((0.1 * bw.max(bh) as f32).round() as usize).max(3);
    let band = ((0.03 * bw.min(bh) as f32).round() as usize).max(2);
    let (ox0, oy0, ox1, oy1) =
        (x0.saturating_sub(margin), y0.saturating_sub(margin), (x1 + margin).min(w), (y1 + margin).min(h));
    // The ring around the box; where a side of the box is the frame's edge, its inner band.
    let edge = [x0 == 0, y0 == 0, x1 == w, y1 == h];
    let mut samples = Vec::new();
    for y in oy0..oy1 {
        for x in ox0..ox1 {
            let in_box = (x0..x1).contains(&x) && (y0..y1).contains(&y);
            let on_edge = in_box
                && ((edge[0] && x < x0 + band)
                    || (edge[1] && y < y0 + band)
                    || (edge[2] && x + band >= x1)
                    || (edge[3] && y + band >= y1));
            if !in_box || on_edge {
                let (u, v) = work.uv(x, y);
                samples.push((u, v, work.smooth[y * w + x]));
            }
        }
    }
    if samples.len() < 8 {
        return Err(nothing("the box leaves no surroundings to tell the object from"));
    }
    let (ground, noise) = subject::fit_ground(&typical(samples));
    let threshold = (3.0 * noise).max(0.04);

    // Distance from the ground inside the box; the confident piece.
    let mut dist = vec![0.0f32; w * h];
    let mut fg = Mask { w, h, data: vec![0; w * h] };
    for y in y0..y1 {
        for x in x0..x1 {
            let (u, v) = work.uv(x, y);
            let i = y * w + x;
            dist[i] = subject::distance(work.smooth[i], subject::eval(&ground, u, v));
            fg.data[i] = u8::from(dist[i] > threshold);
        }
    }
    // GrabCut-style growth: a colour model of the piece; pixels faintly apart from the ground
    // that are nearer the piece's colours than the ground's join it (twice, the model refitted).
    for _ in 0..2 {
        let own: Vec<Lab> = (0..w * h).filter(|i| fg.data[*i] != 0).map(|i| work.smooth[i]).collect();
        let centres = colour_centres(&own, 6);
        if centres.is_empty() {
            break;
        }
        for y in y0..y1 {
            for x in x0..x1 {
                let i = y * w + x;
                if fg.data[i] == 0 && dist[i] > 0.5 * threshold {
                    let near = centres.iter().map(|c| apart(work.smooth[i], *c)).fold(f32::MAX, f32::min);
                    fg.data[i] = u8::from(near < dist[i]);
                }
            }
        }
    }
    let close = ((w.max(h) as f32 * 0.012).round() as usize).max(1);
    let mut cleaned = fg.open(1).close(close);
    for y in 0..h {
        for x in 0..w {
            if !((x0..x1).contains(&x) && (y0..y1).contains(&y)) {
                cleaned.data[y * w + x] = 0;
            }
        }
    }
    let kept = match seed {
        Some(s) => {
            under_seed(&cleaned, s).ok_or_else(|| nothing("nothing at the point stands out from what surrounds it"))?
        }
        None => belonging(&cleaned, rect, edge)
            .ok_or_else(|| nothing("nothing inside the box stands out from what surrounds it"))?,
    };
    let area = kept.count();
    Ok((ground, noise, kept.fill_holes(area / 33)))
}

/// The samples near their median colour: another object caught in the ring would bend the
/// least-squares ground before its robust rounds could drop it.
fn typical(mut samples: Vec<(f32, f32, Lab)>) -> Vec<(f32, f32, Lab)> {
    let median = |values: &mut Vec<f32>| {
        let mid = values.len() / 2;
        *values.select_nth_unstable_by(mid, f32::total_cmp).1
    };
    let centre = Lab::from_array([0, 1, 2].map(|k| median(&mut samples.iter().map(|s| s.2.to_array()[k]).collect())));
    let mut apart_from: Vec<f32> = samples.iter().map(|s| apart(s.2, centre)).collect();
    let cut = (4.0 * median(&mut apart_from.clone())).max(0.05);
    let mut d = apart_from.drain(..);
    samples.retain(|_| d.next().is_some_and(|d| d <= cut));
    samples
}

/// The components of `mask` that belong to the box `rect`: the best by area (a component cut by
/// a side of the box that is not the frame's edge counts half) and any other at least 0.3 of it.
fn belonging(mask: &Mask, rect: Rect, frame_edge: [bool; 4]) -> Option<Mask> {
    let (labels, sizes) = mask.components();
    let [x0, y0, x1, y1] = rect;
    let mut cut = vec![false; sizes.len()];
    for y in y0..y1 {
        for x in x0..x1 {
            let l = labels[y * mask.w + x];
            let on_side = (x == x0 && !frame_edge[0])
                || (y == y0 && !frame_edge[1])
                || (x + 1 == x1 && !frame_edge[2])
                || (y + 1 == y1 && !frame_edge[3]);
            if l != 0 && on_side {
                cut[l as usize - 1] = true;
            }
        }
    }
    let score: Vec<f32> = sizes.iter().zip(&cut).map(|(s, c)| *s as f32 * if *c { 0.5 } else { 1.0 }).collect();
    let best = score.iter().copied().fold(0.0f32, f32::max);
    if best < 4.0 {
        return None;
    }
    let data = labels.iter().map(|l| u8::from(*l != 0 && score[*l as usize - 1] >= 0.3 * best)).collect();
    Some(Mask { w: mask.w, h: mask.h, data })
}

/// The component of `mask` under `seed`, else the nearest one within a few pixels.
fn under_seed(mask: &Mask, (sx, sy): (usize, usize)) -> Option<Mask> {
    let (labels, _) = mask.components();
    let r = ((mask.w.max(mask.h) as f32 * 0.02).round() as usize).max(3);
    let mut best: Option<(usize, u32)> = None;
    for y in sy.saturating_sub(r)..(sy + r + 1).min(mask.h) {
        for x in sx.saturating_sub(r)..(sx + r + 1).min(mask.w) {
            let l = labels[y * mask.w + x];
            let d = x.abs_diff(sx).pow(2) + y.abs_diff(sy).pow(2);
            if l != 0 && d <= r * r && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, l));
            }
        }
    }
    let (_, label) = best?;
    Some(Mask { w: mask.w, h: mask.h, data: labels.iter().map(|l| u8::from(*l == label)).collect() })
}

/// Region growing from `seed`: the padded bounds of the most stable flood region (see the
/// module's docs), as a box to segment.
fn grown_box(work: &Work, (sx, sy): (usize, usize)) -> Result<Rect, CutoutError> {
    let (w, h) = (work.w, work.h);
    // The seed patch: its mean colour and how far its own pixels stray from it.
    let patch: Vec<Lab> = (sy.saturating_sub(2)..(sy + 3).min(h))
        .flat_map(|y| (sx.saturating_sub(2)..(sx + 3).min(w)).map(move |x| (x, y)))
        .map(|(x, y)| work.smooth[y * w + x])
        .collect();
    let n = patch.len() as f32;
    let mean = Lab::from_array([0, 1, 2].map(|k| patch.iter().map(|c| c.to_array()[k]).sum::<f32>() / n));
    let spread = patch.iter().map(|c| apart(*c, mean)).fold(0.0f32, f32::max);
    let floor = (2.0 * spread).max(0.02);

    // Minimax flood: each pixel's level is the largest distance from the seed colour on the
    // easiest path to it; pixels leave the queue in order of level.
    let border_total = 2 * (w + h) - 4;
    let mut level = vec![f32::INFINITY; w * h];
    let mut order: Vec<(usize, f32)> = Vec::with_capacity(w * h);
    let mut heap = BinaryHeap::new();
    let start = sy * w + sx;
    level[start] = apart(work.smooth[start], mean);
    heap.push(Reverse((level[start].to_bits(), start)));
    let (mut border, mut leak) = (0usize, f32::INFINITY);
    let mut done = vec![false; w * h];
    while let Some(Reverse((bits, i))) = heap.pop() {
        if done[i] {
            continue;
        }
        done[i] = true;
        let l = f32::from_bits(bits);
        let (x, y) = (i % w, i / w);
        if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            border += 1;
            if 2 * border > border_total {
                leak = l;
                break;
            }
        }
        order.push((i, l));
        let neighbours =
            [(x > 0).then(|| i - 1), (x + 1 < w).then(|| i + 1), (y > 0).then(|| i - w), (y + 1 < h).then(|| i + w)];
        for j in neighbours.into_iter().flatten() {
            let lj = l.max(apart(work.smooth[j], mean));
            if !done[j] && lj < level[j] {
                level[j] = lj;
                heap.push(Reverse((lj.to_bits(), j)));
            }
        }
    }
    // The most stable threshold between the seed's noise and the leak into the surroundings:
    // the one where the area grows least (relatively) over a 15 % step either way.
    let area = |t: f32| order.partition_point(|(_, l)| *l <= t) as f32;
    let top = if leak.is_finite() { leak } else { order.last().map_or(floor, |(_, l)| *l) };
    let mut chosen = floor.min(top);
    let mut best = f32::MAX;
    let mut t = floor;
    while t * 1.15 < top {
        let growth = (area(t * 1.15) - area(t / 1.15)) / area(t).max(1.0);
        if growth <= best {
            (best, chosen) = (growth, t);
        }
        t *= 1.1;
    }
    let count = order.partition_point(|(_, l)| *l <= chosen);
    if count as f32 > 0.9 * (w * h) as f32 {
        return Err(nothing("the point lies on the ground: nothing there stands apart"));
    }
    let mut region = Mask { w, h, data: vec![0u8; w * h] };
    for (i, _) in &order[..count] {
        region.data[*i] = 1;
    }
    let Some((x0, y0, x1, y1)) = region.bbox() else {
        return Err(nothing("nothing at the point stands out from what surrounds it"));
    };
    let pad = ((0.15 * (x1 - x0).max(y1 - y0) as f32).round() as usize).max(4);
    Ok([x0.saturating_sub(pad), y0.saturating_sub(pad), (x1 + pad).min(w), (y1 + pad).min(h)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, imageops};
    use std::io::Cursor;

    type Shape = Box<dyn Fn(f32, f32) -> bool>;

    /// A noisy plain ground of lightness `base` with a gentle gradient, and `pieces` (a shape
    /// tested at pixel centres, a colour) painted on it with a soft texture.
    fn paint(w: u32, h: u32, base: f32, pieces: &[(&Shape, [f32; 3])]) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let n = ops::noise(x, y, 11) * 4.0;
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            for (shape, colour) in pieces {
                if shape(px, py) {
                    let shade = 8.0 * (px * 0.2).sin() * (py * 0.15).cos() + n;
                    return Rgb(colour.map(|c| ops::to_u8(c + shade)));
                }
            }
            let g = base + 10.0 * x as f32 / w as f32 - 8.0 * y as f32 / h as f32 + n;
            Rgb([ops::to_u8(g), ops::to_u8(g), ops::to_u8(g - 3.0)])
        })
    }

    fn png_of(img: &RgbImage) -> Vec<u8> {
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
        out
    }

    #[test]
    fn a_hosted_mask_becomes_a_cutout_behind_the_gate() {
        let coat: Shape = Box::new(|x, y| (60.0..140.0).contains(&x) && (30.0..130.0).contains(&y));
        let src = png_of(&paint(200, 160, 230.0, &[(&coat, [150.0, 40.0, 40.0])]));
        let mask_png = |inside: &dyn Fn(u32, u32) -> bool, w: u32, h: u32| {
            let mask = GrayImage::from_fn(w, h, |x, y| image::Luma([if inside(x, y) { 255 } else { 0 }]));
            let mut out = Vec::new();
            mask.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
            out
        };
        // A mask at half the frame's size (hosted models answer their own size): scaled to fit.
        let good = mask_png(&|x, y| (30..70).contains(&x) && (15..65).contains(&y), 100, 80);
        let cut = LocalProvider.cutout_by_mask_blocking(&src, &good).expect("the coat passes the gate");
        assert_eq!((cut.width, cut.height), (200, 160));
        let [x0, y0, x1, y1] = cut.bbox;
        assert!(
            x0.abs_diff(60) <= 2 && y0.abs_diff(30) <= 2 && x1.abs_diff(140) <= 2 && y1.abs_diff(130) <= 2,
            "{:?}",
            cut.bbox
        );
        let img = rgba(&cut);
        assert_eq!((img.get_pixel(5, 5).0[3], img.get_pixel(100, 80).0[3]), (0, 255));

        // A cutout answered with alpha (as background removers do) reads its alpha.
        let mut with_alpha = RgbaImage::from_pixel(200, 160, image::Rgba([9, 9, 9, 0]));
        for (x, y, p) in with_alpha.enumerate_pixels_mut() {
            if coat(x as f32 + 0.5, y as f32 + 0.5) {
                *p = image::Rgba([150, 40, 40, 255]);
            }
        }
        let mut answer = Vec::new();
        with_alpha.write_to(&mut Cursor::new(&mut answer), image::ImageFormat::Png).expect("png");
        let cut = LocalProvider.cutout_by_mask_blocking(&src, &answer).expect("alpha read");
        let img = rgba(&cut);
        assert_eq!(
            (img.get_pixel(5, 5).0[3], img.get_pixel(100, 80).0[3]),
            (0, 255),
            "the answer's alpha, the source's colours"
        );
        assert_eq!(
            &img.get_pixel(100, 80).0[..3],
            &image::load_from_memory(&src).expect("src").to_rgb8().get_pixel(100, 80).0
        );

        // Nothing, everything, or a mask that follows no edge: refused in the gate's words.
        let refused = |mask: Vec<u8>| match LocalProvider.cutout_by_mask_blocking(&src, &mask) {
            Err(CutoutError::NothingFound(why)) => why,
            other => panic!("expected a refusal, got {:?}", other.map(|c| c.bbox)),
        };
        assert!(refused(mask_png(&|_, _| false, 50, 40)).contains("covers 0.0 %"));
        assert!(refused(mask_png(&|_, _| true, 50, 40)).contains("of the frame"));
        assert!(refused(mask_png(&|x, _| x < 90, 200, 160)).contains("border"));
        assert!(matches!(
            LocalProvider.cutout_by_mask_blocking(&src, b"not an image"),
            Err(CutoutError::Undecodable(m)) if m.contains("mask")
        ));
    }

    fn rgba(c: &Cutout) -> RgbaImage {
        let img = image::load_from_memory(&c.png).expect("the cutout decodes").into_rgba8();
        assert_eq!(img.dimensions(), (c.width, c.height));
        img
    }

    /// Intersection over union of the cutout's solid pixels (alpha >= 128) with `shape`.
    fn iou(img: &RgbaImage, shape: &Shape) -> f64 {
        let (mut both, mut either) = (0u32, 0u32);
        for (x, y, p) in img.enumerate_pixels() {
            let (a, b) = (p.0[3] >= 128, shape(x as f32 + 0.5, y as f32 + 0.5));
            both += u32::from(a && b);
            either += u32::from(a || b);
        }
        f64::from(both) / f64::from(either.max(1))
    }

    /// How many pixels farther than `r` px from `shape` are not fully transparent.
    fn ground_kept(img: &RgbaImage, shape: &Shape, r: usize) -> usize {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let data = (0..w * h).map(|i| u8::from(shape((i % w) as f32 + 0.5, (i / w) as f32 + 0.5))).collect();
        let near = Mask { w, h, data }.dilate(r);
        img.pixels().zip(&near.data).filter(|(p, n)| **n == 0 && p.0[3] != 0).count()
    }

    fn bounds(w: u32, h: u32, shape: &Shape) -> [u32; 4] {
        let data = (0..(w * h) as usize)
            .map(|i| u8::from(shape((i % w as usize) as f32 + 0.5, (i / w as usize) as f32 + 0.5)))
            .collect();
        let (x0, y0, x1, y1) = Mask { w: w as usize, h: h as usize, data }.bbox().expect("a shape");
        [x0, y0, x1, y1].map(|v| v as u32)
    }

    fn near_bounds(got: [u32; 4], want: [u32; 4]) {
        for k in 0..4 {
            assert!(got[k].abs_diff(want[k]) <= 3, "bbox {got:?} against the drawn {want:?}");
        }
    }

    fn tshirt() -> Shape {
        Box::new(|x, y| {
            let dx = (x - 160.0).abs();
            let body = dx < 60.0 && (80.0..250.0).contains(&y);
            let sleeve = (60.0..110.0).contains(&dx) && y >= 80.0 + 0.4 * (dx - 60.0) && y < 130.0 + 0.2 * (dx - 60.0);
            let neck = ((x - 160.0) / 25.0).powi(2) + ((y - 80.0) / 15.0).powi(2) < 1.0;
            (body || sleeve) && !neck
        })
    }

    fn dress() -> Shape {
        Box::new(|x, y| {
            let bodice = (130.0..190.0).contains(&x) && (40.0..140.0).contains(&y);
            let skirt = ((x - 160.0) / 80.0).powi(2) + ((y - 200.0) / 70.0).powi(2) < 1.0;
            bodice || skirt
        })
    }

    fn trousers() -> Shape {
        Box::new(|x, y| {
            let waist = (105.0..215.0).contains(&x) && (100.0..150.0).contains(&y);
            let legs = y >= 100.0 && ((105.0..152.0).contains(&x) || (168.0..215.0).contains(&x));
            waist || legs
        })
    }

    #[test]
    fn remove_background_cuts_the_drawn_garment() {
        let cases: [(&str, Shape, f32, [f32; 3]); 3] = [
            ("t-shirt on a light ground", tshirt(), 226.0, [180.0, 40.0, 50.0]),
            ("dress on a dark ground", dress(), 62.0, [215.0, 195.0, 160.0]),
            ("trousers touching the bottom edge", trousers(), 232.0, [40.0, 50.0, 90.0]),
        ];
        for (name, shape, base, colour) in &cases {
            let img = paint(320, 300, *base, &[(shape, *colour)]);
            let cut = LocalProvider.remove_background_blocking(&png_of(&img)).expect(name);
            let out = rgba(&cut);
            let score = iou(&out, shape);
            eprintln!("remove-background, {name}: IoU {score:.4}, bbox {:?}", cut.bbox);
            assert!(score >= 0.9, "{name}: IoU {score}");
            assert_eq!(ground_kept(&out, shape, 3), 0, "{name}: the ground is transparent");
            near_bounds(cut.bbox, bounds(320, 300, shape));
        }
    }

    fn two_objects() -> (RgbImage, Shape, Shape) {
        let a: Shape = Box::new(|x, y| ((x - 100.0) / 50.0).powi(2) + ((y - 120.0) / 70.0).powi(2) < 1.0);
        let b: Shape = Box::new(|x, y| (220.0..310.0).contains(&x) && (60.0..190.0).contains(&y));
        let img = paint(360, 240, 225.0, &[(&a, [40.0, 70.0, 160.0]), (&b, [220.0, 120.0, 40.0])]);
        (img, a, b)
    }

    #[test]
    fn segment_by_box_and_by_point_cuts_one_object() {
        let (img, a, b) = two_objects();
        let bytes = png_of(&img);
        let by_box =
            LocalProvider.segment_blocking(&bytes, SegmentTarget::Box([40.0, 40.0, 165.0, 205.0])).expect("box");
        let out = rgba(&by_box);
        let score = iou(&out, &a);
        eprintln!("segment box on A: IoU {score:.4}, bbox {:?}", by_box.bbox);
        assert!(score >= 0.9, "box on A: IoU {score}");
        assert_eq!(ground_kept(&out, &a, 3), 0, "only A is kept");
        near_bounds(by_box.bbox, bounds(360, 240, &a));

        let by_point = LocalProvider.segment_blocking(&bytes, SegmentTarget::Point([265.0, 125.0])).expect("point");
        let out = rgba(&by_point);
        let score = iou(&out, &b);
        eprintln!("segment point on B: IoU {score:.4}, bbox {:?}", by_point.bbox);
        assert!(score >= 0.9, "point on B: IoU {score}");
        assert_eq!(ground_kept(&out, &b, 3), 0, "only B is kept");
        near_bounds(by_point.bbox, bounds(360, 240, &b));

        // A box that also takes a strip of B (cut by the box's side) still answers A alone.
        let grazing =
            LocalProvider.segment_blocking(&bytes, SegmentTarget::Box([40.0, 40.0, 240.0, 205.0])).expect("wide");
        let out = rgba(&grazing);
        let score = iou(&out, &a);
        eprintln!("segment box on A grazing B: IoU {score:.4}");
        assert!(score >= 0.9, "box grazing B: IoU {score}");
        assert_eq!(ground_kept(&out, &a, 3), 0, "the strip of B stays transparent");

        // A box only partly outside is clipped; a tight box still finds A.
        let tight =
            LocalProvider.segment_blocking(&bytes, SegmentTarget::Box([-30.0, 48.0, 152.0, 192.0])).expect("tight");
        let score = iou(&rgba(&tight), &a);
        eprintln!("segment tight, clipped box on A: IoU {score:.4}");
        assert!(score >= 0.9, "tight box on A: IoU {score}");
    }

    #[test]
    fn bad_targets_and_inputs_are_refused() {
        let (img, _, _) = two_objects();
        let bytes = png_of(&img);
        let outside = CutoutError::OutsideFrame { width: 360, height: 240 };
        for target in [
            SegmentTarget::Box([400.0, 10.0, 500.0, 100.0]),
            SegmentTarget::Box([-50.0, -50.0, -1.0, 100.0]),
            SegmentTarget::Point([360.0, 10.0]),
            SegmentTarget::Point([f32::NAN, 10.0]),
        ] {
            assert_eq!(LocalProvider.segment_blocking(&bytes, target).unwrap_err(), outside, "{target:?}");
        }
        for junk in [&b"not an image"[..], &[]] {
            assert!(matches!(LocalProvider.remove_background_blocking(junk), Err(CutoutError::Undecodable(_))));
            let r = LocalProvider.segment_blocking(junk, SegmentTarget::Point([1.0, 1.0]));
            assert!(matches!(r, Err(CutoutError::Undecodable(_))), "{r:?}");
        }
        let flat = RgbImage::from_fn(200, 150, |x, y| {
            let v = ops::to_u8(200.0 + ops::noise(x, y, 3) * 2.0);
            Rgb([v, v, v])
        });
        let r = LocalProvider.remove_background_blocking(&png_of(&flat));
        assert!(matches!(r, Err(CutoutError::NothingFound(_))), "{r:?}");
        let r = LocalProvider.segment_blocking(&bytes, SegmentTarget::Point([180.0, 20.0]));
        assert!(matches!(r, Err(CutoutError::NothingFound(_))), "a point on the ground: {r:?}");
    }

    /// `jpeg` with an APP1 Exif segment right after its start marker whose one IFD entry says
    /// Orientation (0x0112) = 6: rotate 90° clockwise to display.
    fn with_orientation_6(jpeg: &[u8]) -> Vec<u8> {
        // Big-endian TIFF header, one IFD entry (tag 0x0112, type SHORT, count 1, value 6).
        let tiff = b"MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0";
        let payload: Vec<u8> = [b"Exif\0\0".as_slice(), tiff].concat();
        let mut out = vec![0xFF, 0xD8, 0xFF, 0xE1];
        out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(&payload);
        out.extend_from_slice(&jpeg[2..]);
        out
    }

    #[test]
    fn a_box_is_read_in_the_exif_applied_frame() {
        // Upright, 240 × 360: A (blue ellipse) above, B (orange box) below.
        let a: Shape = Box::new(|x, y| ((x - 120.0) / 70.0).powi(2) + ((y - 95.0) / 55.0).powi(2) < 1.0);
        let b: Shape = Box::new(|x, y| (60.0..180.0).contains(&x) && (210.0..320.0).contains(&y));
        let upright = paint(240, 360, 225.0, &[(&a, [40.0, 70.0, 160.0]), (&b, [220.0, 120.0, 40.0])]);
        // Stored turned a quarter left (360 × 240); orientation 6 turns it back.
        let stored = imageops::rotate270(&upright);
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95).encode_image(&stored).expect("jpeg");
        let bytes = with_orientation_6(&jpeg);
        let cut = LocalProvider.segment_blocking(&bytes, SegmentTarget::Box([30.0, 20.0, 210.0, 170.0])).expect("box");
        assert_eq!((cut.width, cut.height), (240, 360), "the upright frame");
        let out = rgba(&cut);
        let score = iou(&out, &a);
        eprintln!("segment box on A in an EXIF-rotated JPEG: IoU {score:.4}, bbox {:?}", cut.bbox);
        assert!(score >= 0.9, "IoU {score}");
        assert_eq!(ground_kept(&out, &a, 3), 0, "B stays transparent");
        near_bounds(cut.bbox, bounds(240, 360, &a));
    }

    #[test]
    fn an_input_with_transparency_keeps_it_as_the_mask() {
        let shape = dress();
        let (w, h) = (320, 300);
        let img = RgbaImage::from_fn(w, h, |x, y| {
            let inside = shape(x as f32 + 0.5, y as f32 + 0.5);
            image::Rgba([200, 60, 40, if inside { 255 } else { 0 }])
        });
        let mut bytes = Vec::new();
        img.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).expect("png");
        let cut = LocalProvider.remove_background_blocking(&bytes).expect("cut");
        let out = rgba(&cut);
        let score = iou(&out, &shape);
        eprintln!("remove-background of a transparent input: IoU {score:.4}");
        assert!(score >= 0.97, "IoU {score}");
        assert_eq!(ground_kept(&out, &shape, 2), 0);
    }
}
