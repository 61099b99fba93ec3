//! Pre-flight: free pixel checks on images before a develop is paid for (the agent tool
//! `preflight` over library assets, and `POST /api/toolkit/ai/preflight` over uploaded bytes).
//!
//! Nothing here touches the ledger. Each image is decoded under the service's decode limits
//! (EXIF orientation applied), reduced to the local provider's analysis size and segmented
//! with the local provider's ground model ([`Subject`], checked against a flat ground where it
//! does not explain the border); every finding comes from a
//! measurement on those pixels, and its `sure` from how far the measurement passed its
//! threshold. Questions that cannot be measured on pixels (part-hidden, mixed-subject,
//! face-unreadable) are never answered: a lens that names them asks only the rest and lists
//! them in `notAsked`, so `clear` means every question asked was answered and nothing was
//! found, and a code the caller says it fixed is never reported cleared unless it was looked
//! at. The finding vocabulary is closed
//! ([`FINDING_CODES`]): anything outside it is dropped before answering.

use crate::develops::Develops;
use crate::ids::AssetId;
use bytes::Bytes;
use image::{GrayImage, RgbImage};

use crate::api::{
    FINDING_CODES, Finding, FixBy, MAX_PREFLIGHT_IMAGES, PREFLIGHT_LENSES, PreflightRequest, PreflightResult,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::images;
use crate::images::MAX_IMAGE_MB;
use crate::providers::local;
use crate::providers::local::ops::{self, Lab, Mask};
use crate::providers::local::subject::{CutError, Subject, WORK_EDGE};

/// The garment questions (no lens).
const GARMENT: [&str; 9] = [
    "no-clear-subject",
    "too-small",
    "colour-cast",
    "exposure",
    "light-mismatch",
    "cropped-edge",
    "busy-background",
    "hard-shadow",
    "part-hidden",
];
/// The `casting look` lens.
const CASTING: [&str; 5] = ["mixed-subject", "face-unreadable", "too-small", "part-hidden", "light-mismatch"];
/// The `build sheet` lens.
const BUILD: [&str; 1] = ["not-full-length"];
/// Questions no measurement here answers: asked of no image, listed as not asked.
const UNANSWERED: [&str; 3] = ["part-hidden", "mixed-subject", "face-unreadable"];

const MAX_IMAGE_BYTES: usize = (MAX_IMAGE_MB * 1024 * 1024) as usize;

/// Long edge (px) under which an image is too small to develop from.
const MIN_LONG_EDGE: u32 = 1024;
/// Mean Oklab chroma of the ground above which it carries a cast...
const CAST_CHROMA: f32 = 0.02;
/// ...fully sure from here...
const CAST_SURE: f32 = 0.05;
/// ...fixable in the house's own editor below here (a paid harmonize above)...
const CAST_HOUSE_MAX: f32 = 0.04;
/// ...and above here the ground is a deliberately coloured set, not a cast.
const CAST_BACKDROP: f32 = 0.12;
/// Share of the piece's pixels blown to white (all channels ≥ 250) or crushed to black (all
/// channels ≤ 5) that counts as clipping.
const CLIP_SHARE: f32 = 0.10;
/// Underexposed: mean Oklab lightness below this and the brightest 1% below [`DARK_P99`].
const DARK_MEAN: f32 = 0.35;
const DARK_P99: f32 = 0.70;
/// Washed out: mean lightness above this and even the darkest 1% above [`BRIGHT_P01`].
const BRIGHT_MEAN: f32 = 0.90;
const BRIGHT_P01: f32 = 0.80;
/// Across a set: spread of the grounds' mean lightness, and of their blue–yellow axis (Oklab b,
/// the colour-temperature direction), beyond which the light does not match.
const LIGHT_SPREAD: f32 = 0.10;
const TEMP_SPREAD: f32 = 0.03;
/// Share of one side of the frame the piece must run along to count as cut by the border.
const CONTACT_SHARE: f32 = 0.03;
/// A ground pixel is an edge when its lightness changes by this much across two pixels.
const BUSY_EDGE: f32 = 0.08;
/// Share of the ground's pixels that are edges beyond which the ground is busy.
const BUSY_SHARE: f32 = 0.12;
/// Hard shadow: a neutral darkening of the ground of at least [`SHADOW_DARKEN`] lightness
/// (keeping between [`SHADOW_RATIO`] of the ground's lightness), adjoining the piece, covering
/// at least [`SHADOW_AREA`] of the frame, whose outer edge falls at least [`SHADOW_HARD`] of its
/// depth per pixel (a diffuse shadow fades over many pixels).
const SHADOW_DARKEN: f32 = 0.08;
const SHADOW_RATIO: (f32, f32) = (0.45, 0.93);
const SHADOW_CHROMA: f32 = 0.03;
const SHADOW_AREA: f32 = 0.01;
const SHADOW_HARD: f32 = 0.3;
/// ...and whose lightness differs from the piece beside it by at least this much.
const SHADOW_STEP: f32 = 0.1;

/// What one image measured (at the analysis size unless said).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Facts {
    /// The image's long edge at full size, upright.
    pub(crate) long_edge: u32,
    /// Whether a piece stands apart from the ground.
    pub(crate) found: bool,
    /// Mean Oklab `[l, a, b]` of the ground (the whole frame when too little ground shows).
    pub(crate) ground: [f32; 3],
    /// Mean, 1st and 99th percentile Oklab lightness of the frame.
    pub(crate) mean_l: f32,
    pub(crate) p01_l: f32,
    pub(crate) p99_l: f32,
    /// Share of the piece's pixels (the frame's when none is found) crushed to black.
    pub(crate) clipped_shadows: f32,
    /// Share of the piece's pixels (the frame's when none is found) blown to white.
    pub(crate) clipped_highlights: f32,
    /// Share of each side (left, top, right, bottom) the piece runs along; zeros when none.
    pub(crate) contact: [f32; 4],
    /// Share of the ground's pixels that are edges.
    pub(crate) busy: f32,
    /// The shadow adjoining the piece: (share of the frame, edge hardness); None when none.
    pub(crate) shadow: Option<(f32, f32)>,
    /// Why the subject gate of the cutout tools would refuse this image (None when it passes).
    pub(crate) no_subject: Option<String>,
}

impl Facts {
    /// True when the piece runs into a border.
    pub(crate) fn touches_edge(&self) -> bool {
        self.contact.iter().any(|c| *c >= CONTACT_SHARE)
    }
}

/// What is wrong with the exposure, worst first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Exposure {
    /// Highlights blown on the piece.
    ClippedHighlights(f32),
    /// Shadows crushed on the piece.
    ClippedShadows(f32),
    /// Too dark overall, nothing near white.
    Dark,
    /// Washed out, nothing darker than light grey.
    Bright,
}

/// An image decoded under the limits, upright, and reduced for analysis.
pub(crate) struct Decoded {
    /// Full-size long edge.
    pub(crate) long_edge: u32,
    /// The reduced copy.
    pub(crate) small: RgbImage,
    /// Its alpha, when the image has real transparency.
    pub(crate) alpha: Option<GrayImage>,
}

/// Decode `bytes` under the decode limits (413 for a decompression bomb), turn it upright and
/// reduce it to at most `edge` on the long side. A refusal with `code` when it will not decode.
pub(crate) fn decode_small(bytes: &[u8], edge: u32, code: &'static str, what: &str) -> Result<Decoded> {
    images::header_dimensions(bytes)?;
    let frame = local::decode(bytes, what).map_err(|e| Error::invalid(code, format!("{e}.")))?;
    let long_edge = frame.rgb.width().max(frame.rgb.height());
    let small = ops::working_copy(&frame.rgb, edge).map_err(|e| Error::invalid(code, e.to_string()))?;
    let alpha = match &frame.alpha {
        Some(a) => Some(ops::resize_gray(a, small.width(), small.height()).map_err(Error::internal)?),
        None => None,
    };
    Ok(Decoded { long_edge, small, alpha })
}

/// Measure one decoded image.
pub(crate) fn measure(decoded: &Decoded) -> Result<Facts> {
    let small = ops::working_copy(&decoded.small, WORK_EDGE).map_err(Error::internal)?;
    let alpha = match &decoded.alpha {
        Some(a) => Some(ops::resize_gray(a, small.width(), small.height()).map_err(Error::internal)?),
        None => None,
    };
    let labs: Vec<Lab> = small.pixels().map(|p| ops::rgb_to_lab(p.0)).collect();
    let scene = segment(&small, alpha.as_ref(), &labs)?;
    let mut facts = facts_of(decoded.long_edge, &small, &labs, &scene);
    // What the cutout tools (packshot, remove-background, color-change, ...) would answer. Only
    // the classical segmentation and its gate decide whether a frame has a subject (a learned
    // segmenter only redraws where), so this free check never runs a network.
    facts.no_subject = match Subject::cut_by(&small, alpha.as_ref(), None) {
        Ok(_) => None,
        Err(CutError::NotFound(why)) => Some(why),
        Err(CutError::Failed(e)) => return Err(Error::internal(e)),
    };
    Ok(facts)
}

/// The ground's colour across the frame.
enum Ground {
    /// The local provider's smooth (quadratic) ground model.
    Model(Box<Subject>),
    /// One colour: the border's median.
    Flat(Lab),
}

impl Ground {
    /// The ground's colour at normalised coordinates.
    fn at(&self, u: f32, v: f32) -> Lab {
        match self {
            Ground::Model(s) => s.ground_lab(u, v),
            Ground::Flat(c) => *c,
        }
    }
}

/// The piece and the ground, as the checks see them.
struct Segmented {
    /// Whether a piece stands apart from the ground.
    found: bool,
    /// The piece's solid pixels (empty when none is found).
    piece: Mask,
    /// The ground's colour.
    ground: Ground,
}

/// Colour distance between a pixel and the ground (chroma counts more than lightness), the
/// measure the local provider's segmentation uses.
fn distance(p: Lab, g: Lab) -> f32 {
    ((p.l - g.l).powi(2) + 2.25 * ((p.a - g.a).powi(2) + (p.b - g.b).powi(2))).sqrt()
}

/// Share of border pixels a ground model explains (within [`BORDER_FIT`]).
const BORDER_FIT: f32 = 0.05;

/// Find the piece with the local provider's [`Subject`] analysis. Its ground model is a smooth
/// surface fitted to the frame's border; when a large piece covers much of one side that fit can
/// bend into the piece, so it is checked against a flat ground (the border's median colour) and,
/// when the flat ground explains the border clearly better, the piece is found against that
/// instead, with the same threshold-and-morphology steps.
fn segment(small: &RgbImage, alpha: Option<&GrayImage>, labs: &[Lab]) -> Result<Segmented> {
    let subject = Subject::find(small, alpha).map_err(Error::internal)?;
    let (w, h) = (small.width() as usize, small.height() as usize);
    let uv = |i: usize| (((i % w) as f32 + 0.5) / w as f32, ((i / w) as f32 + 0.5) / h as f32);
    let band = ((w.min(h) as f32 * 0.03).round() as usize).clamp(1, (w.min(h) / 2).max(1));
    let border: Vec<usize> = (0..w * h)
        .filter(|i| {
            let (x, y) = (i % w, i / w);
            x < band || y < band || x >= w - band || y >= h - band
        })
        .collect();
    let flat = {
        let channel = |k: usize| {
            let mut v: Vec<f32> = border.iter().map(|i| labs[*i].to_array()[k]).collect();
            v.sort_by(f32::total_cmp);
            v[v.len() / 2]
        };
        Lab { l: channel(0), a: channel(1), b: channel(2) }
    };
    let explained = |g: &dyn Fn(usize) -> Lab| {
        border.iter().filter(|i| distance(labs[**i], g(**i)) < BORDER_FIT).count() as f32 / border.len() as f32
    };
    let model_fit = explained(&|i| {
        let (u, v) = uv(i);
        subject.ground_lab(u, v)
    });
    let flat_fit = explained(&|_| flat);
    if alpha.is_some() || model_fit + 0.1 >= flat_fit {
        let found = subject.found();
        let piece = Mask { w, h, data: subject.coarse.data.iter().map(|a| u8::from(found && *a >= 0.5)).collect() };
        return Ok(Segmented { found, piece, ground: Ground::Model(Box::new(subject)) });
    }
    let dist: Vec<f32> = labs.iter().map(|c| distance(*c, flat)).collect();
    let mut ground_dist: Vec<f32> = border.iter().map(|i| dist[*i]).filter(|d| *d < BORDER_FIT).collect();
    ground_dist.sort_by(f32::total_cmp);
    let noise = ground_dist.get(ground_dist.len() / 2).copied().unwrap_or(0.0);
    let threshold = (3.0 * noise).max(0.04);
    let binary = Mask { w, h, data: dist.iter().map(|d| u8::from(*d > threshold)).collect() };
    let close = ((w.max(h) as f32 * 0.012).round() as usize).max(1);
    let cleaned = binary.open(1).close(close).keep_largest(0.3);
    let piece = cleaned.fill_holes(cleaned.count() / 33);
    let coverage = piece.count() as f32 / (w * h) as f32;
    let found = (0.002..=0.97).contains(&coverage);
    let piece = if found { piece } else { Mask { w, h, data: vec![0; w * h] } };
    Ok(Segmented { found, piece, ground: Ground::Flat(flat) })
}

fn mean_lab(labs: &[Lab], mask: &Mask) -> [f32; 3] {
    let mut sum = [0.0f64; 3];
    let mut n = 0.0f64;
    for (c, m) in labs.iter().zip(&mask.data) {
        if *m != 0 {
            for (s, v) in sum.iter_mut().zip(c.to_array()) {
                *s += f64::from(v);
            }
            n += 1.0;
        }
    }
    sum.map(|s| (s / n.max(1.0)) as f32)
}

/// Lightness slope at an interior pixel: central differences each way, per pixel.
fn slope(l: &[f32], w: usize, x: usize, y: usize) -> f32 {
    let i = y * w + x;
    let gx = 0.5 * (l[i + 1] - l[i - 1]);
    let gy = 0.5 * (l[i + w] - l[i - w]);
    gx.hypot(gy)
}

fn facts_of(long_edge: u32, small: &RgbImage, labs: &[Lab], scene: &Segmented) -> Facts {
    let (w, h) = (small.width() as usize, small.height() as usize);
    let n = (w * h) as f32;
    let light: Vec<f32> = labs.iter().map(|c| c.l).collect();
    let found = scene.found;
    let piece = &scene.piece;
    let piece_count = piece.count();

    // The ground: a few pixels away from the piece; the whole frame when little of it shows.
    let away = Mask { w, h, data: piece.data.iter().map(|v| 1 - v).collect() }.erode(3);
    let ground_mask = if away.count() as f32 >= 0.05 * n { away } else { Mask { w, h, data: vec![1; w * h] } };
    let ground = mean_lab(labs, &ground_mask);

    let mut sorted = light.clone();
    sorted.sort_by(f32::total_cmp);
    let pct = |q: f32| sorted[((sorted.len() - 1) as f32 * q).round() as usize];
    let mean_l = light.iter().sum::<f32>() / n;

    // Clipping on the piece (the frame when no piece is found).
    let on_piece = piece_count as f32 >= 0.01 * n;
    let (mut crushed, mut blown, mut counted) = (0usize, 0usize, 0usize);
    for (p, m) in small.pixels().zip(&piece.data) {
        if on_piece && *m == 0 {
            continue;
        }
        counted += 1;
        crushed += usize::from(p.0.iter().all(|c| *c <= 5));
        blown += usize::from(p.0.iter().all(|c| *c >= 250));
    }
    let counted = counted.max(1) as f32;

    // Where the piece runs along the border (the outer two pixels of each side).
    let mut contact = [0.0f32; 4];
    if found {
        let strip = 2.min(w).min(h);
        let mut hits = [0usize; 4];
        for y in 0..h {
            for x in 0..w {
                if piece.data[y * w + x] == 0 {
                    continue;
                }
                hits[0] += usize::from(x < strip);
                hits[1] += usize::from(y < strip);
                hits[2] += usize::from(x >= w - strip);
                hits[3] += usize::from(y >= h - strip);
            }
        }
        contact = [
            hits[0] as f32 / (strip * h) as f32,
            hits[1] as f32 / (strip * w) as f32,
            hits[2] as f32 / (strip * h) as f32,
            hits[3] as f32 / (strip * w) as f32,
        ];
    }

    // Busy ground: the share of ground pixels where lightness changes sharply.
    let (mut edges, mut seen) = (0usize, 0usize);
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            if ground_mask.data[y * w + x] == 0 {
                continue;
            }
            seen += 1;
            edges += usize::from(2.0 * slope(&light, w, x, y) > BUSY_EDGE);
        }
    }
    let busy = edges as f32 / seen.max(1) as f32;

    let shadow = if found { hard_shadow(labs, &light, piece, &scene.ground) } else { None };
    Facts {
        long_edge,
        found,
        ground,
        mean_l,
        p01_l: pct(0.01),
        p99_l: pct(0.99),
        clipped_shadows: crushed as f32 / counted,
        clipped_highlights: blown as f32 / counted,
        contact,
        busy,
        shadow,
        no_subject: None,
    }
}

/// The shadow cast on the ground next to the piece: a neutral darkening of the ground model,
/// touching the piece. Answers its share of the frame and how hard its outer edge is (the
/// lightness slope across the edge over the shadow's depth).
fn hard_shadow(labs: &[Lab], light: &[f32], piece: &Mask, ground: &Ground) -> Option<(f32, f32)> {
    let (w, h) = (piece.w, piece.h);
    let n = (w * h) as f32;
    let mut darkening = vec![0.0f32; w * h];
    let mut ground_like = vec![false; w * h];
    let mut data = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let g = ground.at((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
            let c = labs[i];
            let ratio = c.l / g.l.max(1e-3);
            darkening[i] = g.l - c.l;
            let neutral = (c.a - g.a).hypot(c.b - g.b) < SHADOW_CHROMA;
            ground_like[i] = neutral && darkening[i].abs() < SHADOW_DARKEN;
            data[i] = u8::from(
                darkening[i] >= SHADOW_DARKEN && (SHADOW_RATIO.0..=SHADOW_RATIO.1).contains(&ratio) && neutral,
            );
        }
    }
    // Opening drops the thin ring of mixed pixels around a dark piece.
    let cast = Mask { w, h, data }.open(2);
    // The piece proper: neither shadow-like nor ground-like. A piece that is itself a neutral
    // darkening of the ground (a grey piece on a grey ground) cannot be told from its shadow,
    // and is not judged.
    let core = Mask {
        w,
        h,
        data: (0..w * h).map(|i| u8::from(piece.data[i] != 0 && cast.data[i] == 0 && !ground_like[i])).collect(),
    }
    .open(1);
    if (core.count() as f32) < 0.005 * n {
        return None;
    }
    let near = core.dilate(2);
    let (labels, sizes) = cast.components();
    let mut touches = vec![false; sizes.len()];
    for (l, m) in labels.iter().zip(&near.data) {
        if *l != 0 && *m != 0 {
            touches[*l as usize - 1] = true;
        }
    }
    // Each region's lightness against the piece's within a few pixels of it: a shadow is a
    // clear step away from the piece it adjoins, not the piece's own shading.
    let mut region_l = vec![(0.0f32, 0usize); sizes.len()];
    let mut piece_l = vec![(0.0f32, 0usize); sizes.len()];
    const R: usize = 3;
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if labels[i] != 0 {
                let e = &mut region_l[labels[i] as usize - 1];
                *e = (e.0 + light[i], e.1 + 1);
            }
            if core.data[i] == 0 {
                continue;
            }
            let mut seen: [u32; 4] = [0; 4];
            for ny in y.saturating_sub(R)..(y + R + 1).min(h) {
                for nx in x.saturating_sub(R)..(x + R + 1).min(w) {
                    let l = labels[ny * w + nx];
                    if l == 0 || seen.contains(&l) {
                        continue;
                    }
                    if let Some(slot) = seen.iter_mut().find(|s| **s == 0) {
                        *slot = l;
                    }
                    let e = &mut piece_l[l as usize - 1];
                    *e = (e.0 + light[i], e.1 + 1);
                }
            }
        }
    }
    let keep: Vec<bool> = (0..sizes.len())
        .map(|k| {
            let step = match (region_l[k], piece_l[k]) {
                ((rl, rn), (pl, pn)) if rn > 0 && pn > 0 => (rl / rn as f32 - pl / pn as f32).abs(),
                _ => 0.0,
            };
            touches[k] && sizes[k] as f32 >= 0.005 * n && step >= SHADOW_STEP
        })
        .collect();
    let kept = |i: usize| labels[i] != 0 && keep[labels[i] as usize - 1];
    let (mut area, mut depth) = (0usize, 0.0f32);
    let (mut edge_slope, mut edge_count) = (0.0f32, 0usize);
    for y in 1..h.saturating_sub(1) {
        for x in 1..w.saturating_sub(1) {
            let i = y * w + x;
            if !kept(i) {
                continue;
            }
            area += 1;
            depth += darkening[i];
            let ground_next = [i - 1, i + 1, i - w, i + w].iter().any(|j| cast.data[*j] == 0 && core.data[*j] == 0);
            if ground_next {
                edge_slope += slope(light, w, x, y);
                edge_count += 1;
            }
        }
    }
    if area == 0 || edge_count == 0 {
        return None;
    }
    let depth = depth / area as f32;
    Some((area as f32 / n, (edge_slope / edge_count as f32) / depth.max(1e-3)))
}

/// Confidence from how far past its threshold a measurement went: 0.5 at the threshold, 1 at
/// `margin` 1 (the measurement as far as the "certain" point), rounded to hundredths.
fn sure(margin: f32) -> f64 {
    let s = 0.5 + 0.5 * ops::smoothstep(0.0, 1.0, margin);
    (f64::from(s) * 100.0).round() / 100.0
}

/// How far `value` went from `threshold` toward `certain` (either direction), as 0..1.
fn margin(value: f32, threshold: f32, certain: f32) -> f32 {
    ((value - threshold) / (certain - threshold)).clamp(0.0, 1.0)
}

/// Every exposure problem of an image with its margin, worst first.
pub(crate) fn exposure_issues(f: &Facts) -> Vec<(Exposure, f32)> {
    let mut out = Vec::new();
    if f.clipped_highlights > CLIP_SHARE {
        out.push((Exposure::ClippedHighlights(f.clipped_highlights), margin(f.clipped_highlights, CLIP_SHARE, 0.3)));
    }
    if f.clipped_shadows > CLIP_SHARE {
        out.push((Exposure::ClippedShadows(f.clipped_shadows), margin(f.clipped_shadows, CLIP_SHARE, 0.3)));
    }
    if f.mean_l < DARK_MEAN && f.p99_l < DARK_P99 {
        out.push((Exposure::Dark, margin(f.p99_l, DARK_P99, 0.4).min(margin(f.mean_l, DARK_MEAN, 0.15))));
    }
    if f.mean_l > BRIGHT_MEAN && f.p01_l > BRIGHT_P01 {
        out.push((Exposure::Bright, margin(f.p01_l, BRIGHT_P01, 0.95)));
    }
    out
}

fn finding(code: &str, images: Vec<u32>, says: String, fix: &str, by: FixBy, sure: f64) -> Finding {
    Finding { code: code.to_string(), images, says, fix: fix.to_string(), by, sure }
}

/// Every finding one image's measurements support (any lens; [`answer`] narrows them).
fn image_findings(index: u32, f: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    let one = vec![index];
    if let Some(why) = &f.no_subject {
        out.push(finding(
            "no-clear-subject",
            one.clone(),
            format!(
                "No clear subject: {why}. Packshot, remove-background, segment, color-change, harmonize and lookbook would refuse it (SUBJECT_NOT_FOUND, nothing charged)."
            ),
            "Use a photograph with one piece set apart from a plainer ground, or give color-change a mask input.",
            FixBy::Swap,
            0.9,
        ));
    }
    if f.long_edge < MIN_LONG_EDGE {
        out.push(finding(
            "too-small",
            one.clone(),
            format!(
                "At {} px on the long edge it holds too little detail: any develop at 1k or above has to invent it.",
                f.long_edge
            ),
            "Use an original of at least 1,024 px on the long edge; enlarging cannot recover detail that was never captured.",
            FixBy::Swap,
            sure(1.0 - f.long_edge as f32 / MIN_LONG_EDGE as f32),
        ));
    }
    let chroma = f.ground[1].hypot(f.ground[2]);
    if (CAST_CHROMA..CAST_BACKDROP).contains(&chroma) {
        let tint = tint_name(f.ground[1], f.ground[2]);
        let (fix, by) = if chroma < CAST_HOUSE_MAX {
            ("Neutralise the white balance on the ground in your own editor before developing.", FixBy::House)
        } else {
            ("Develop with harmonize to neutralise the light (quoted before it runs).", FixBy::Paid)
        };
        out.push(finding(
            "colour-cast",
            one.clone(),
            format!("The neutral ground reads {tint}, so the piece's colour will not be true in the develop."),
            fix,
            by,
            sure(margin(chroma, CAST_CHROMA, CAST_SURE)),
        ));
    }
    if let Some((issue, m)) = exposure_issues(f).into_iter().next() {
        let (says, fix, by) = match issue {
            Exposure::ClippedHighlights(s) => (
                format!("{:.0}% of the piece is blown to white; that detail was never captured.", s * 100.0),
                "Reshoot with less exposure on the piece.",
                FixBy::Swap,
            ),
            Exposure::ClippedShadows(s) => (
                format!("{:.0}% of the piece is crushed to black; that detail was never captured.", s * 100.0),
                "Reshoot with more light on the piece.",
                FixBy::Swap,
            ),
            Exposure::Dark => (
                "The image is underexposed: nothing in it reaches near white, so the develop starts from murky tones."
                    .to_string(),
                "Lift the exposure in your own editor before developing.",
                FixBy::House,
            ),
            Exposure::Bright => (
                "The image is washed out: nothing in it is darker than light grey, so the piece loses its shape."
                    .to_string(),
                "Lower the exposure in your own editor before developing.",
                FixBy::House,
            ),
        };
        out.push(finding("exposure", one.clone(), says, fix, by, sure(m)));
    }
    let sides = ["left", "top", "right", "bottom"];
    let cut: Vec<usize> = (0..4).filter(|k| f.contact[*k] >= CONTACT_SHARE).collect();
    if !cut.is_empty() {
        let most = cut.iter().map(|k| f.contact[*k]).fold(0.0f32, f32::max);
        let names: Vec<&str> = cut.iter().map(|k| sides[*k]).collect();
        out.push(finding(
            "cropped-edge",
            one.clone(),
            format!(
                "The piece runs off the {} edge, so part of it is missing from every develop.",
                names.join(" and ")
            ),
            "Use a shot with space around the whole piece; the cut part was never captured.",
            FixBy::Swap,
            sure(margin(most, CONTACT_SHARE, 0.2)),
        ));
        // A figure cut at the top or the bottom is not full length.
        let vertical: Vec<f32> = [1, 3].iter().map(|k| f.contact[*k]).filter(|c| *c >= CONTACT_SHARE).collect();
        if let Some(m) = vertical.iter().copied().reduce(f32::max) {
            out.push(finding(
                "not-full-length",
                one.clone(),
                "The figure runs off the top or bottom of the frame, so the build cannot be read head to foot.".into(),
                "Use a photograph that shows the whole figure, head to feet, with space around it.",
                FixBy::Swap,
                sure(margin(m, CONTACT_SHARE, 0.2)),
            ));
        }
    }
    if f.busy > BUSY_SHARE {
        out.push(finding(
            "busy-background",
            one.clone(),
            format!(
                "The background is busy ({:.0}% of it is edges), so it competes with the piece and muddies its outline.",
                f.busy * 100.0
            ),
            "Develop a packshot to set the piece on a clean ground (quoted before it runs).",
            FixBy::Paid,
            sure(margin(f.busy, BUSY_SHARE, 0.35)),
        ));
    }
    if let Some((area, hardness)) = f.shadow
        && area >= SHADOW_AREA
        && hardness >= SHADOW_HARD
    {
        out.push(finding(
            "hard-shadow",
            one,
            "A hard-edged shadow falls on the ground beside the piece and reads as part of its outline.".into(),
            "Develop a packshot to lift the piece onto a clean ground (quoted before it runs); light through a diffuser next time.",
            FixBy::Paid,
            sure(margin(hardness, SHADOW_HARD, 0.6).min(margin(area, SHADOW_AREA, 0.05)).max(0.0)),
        ));
    }
    out
}

fn tint_name(a: f32, b: f32) -> &'static str {
    let hue = b.atan2(a).to_degrees();
    match hue {
        h if (-45.0..45.0).contains(&h) => "pink",
        h if (45.0..110.0).contains(&h) => "warm yellow",
        h if (110.0..200.0).contains(&h) || h < -160.0 => "green",
        _ => "cool blue",
    }
}

fn median(values: &[f32]) -> f32 {
    let mut v = values.to_vec();
    v.sort_by(f32::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) { 0.5 * (v[mid - 1] + v[mid]) } else { v[mid] }
}

/// Findings across the set: the light differs between images (ground lightness or colour
/// temperature). Lists the images that stray from the set's median.
fn set_findings(facts: &[Facts]) -> Vec<Finding> {
    if facts.len() < 2 {
        return Vec::new();
    }
    let ls: Vec<f32> = facts.iter().map(|f| f.ground[0]).collect();
    let bs: Vec<f32> = facts.iter().map(|f| f.ground[2]).collect();
    let spread = |v: &[f32]| v.iter().copied().fold(f32::MIN, f32::max) - v.iter().copied().fold(f32::MAX, f32::min);
    let (l_spread, b_spread) = (spread(&ls), spread(&bs));
    if l_spread <= LIGHT_SPREAD && b_spread <= TEMP_SPREAD {
        return Vec::new();
    }
    let (ml, mb) = (median(&ls), median(&bs));
    let images: Vec<u32> = (0..facts.len())
        .filter(|i| {
            (l_spread > LIGHT_SPREAD && (ls[*i] - ml).abs() > 0.5 * LIGHT_SPREAD)
                || (b_spread > TEMP_SPREAD && (bs[*i] - mb).abs() > 0.5 * TEMP_SPREAD)
        })
        .map(|i| i as u32 + 1)
        .collect();
    let what = match (l_spread > LIGHT_SPREAD, b_spread > TEMP_SPREAD) {
        (true, true) => "brightness and colour temperature",
        (true, false) => "brightness",
        _ => "colour temperature",
    };
    let m = margin(l_spread, LIGHT_SPREAD, 2.0 * LIGHT_SPREAD).max(margin(b_spread, TEMP_SPREAD, 2.0 * TEMP_SPREAD));
    vec![finding(
        "light-mismatch",
        images,
        format!("The light differs in {what} across the set, so the develops will not sit together."),
        "Harmonize the set to one reference image (quoted before it runs), or reshoot under one light.",
        FixBy::Paid,
        sure(m),
    )]
}

/// The questions a lens asks; none (or an empty list) asks the garment questions. A lens
/// outside [`PREFLIGHT_LENSES`] is refused with `code`.
fn asked(lens: Option<&[String]>, code: &'static str) -> Result<Vec<&'static str>> {
    let lenses: Vec<String> = lens
        .unwrap_or_default()
        .iter()
        .map(|l| l.trim().to_lowercase().replace(['-', '_'], " ").split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    if lenses.is_empty() {
        return Ok(GARMENT.to_vec());
    }
    let mut codes: Vec<&'static str> = Vec::new();
    for lens in &lenses {
        let set: &[&'static str] = match lens.as_str() {
            "casting look" => &CASTING,
            "build sheet" => &BUILD,
            other => {
                return Err(Error::invalid(
                    code,
                    format!("Unknown lens {other:?}; a lens is one of {}.", PREFLIGHT_LENSES.join(", ")),
                ));
            }
        };
        for c in set {
            if !codes.contains(c) {
                codes.push(c);
            }
        }
    }
    Ok(codes)
}

/// The closed vocabulary and the lens, applied: a finding whose code is not in
/// [`FINDING_CODES`], or not asked, is dropped. Order: one-image findings by image, then by
/// vocabulary; findings across images last.
fn answer(mut findings: Vec<Finding>, asked: &[&str]) -> Vec<Finding> {
    findings.retain(|f| FINDING_CODES.contains(&f.code.as_str()) && asked.contains(&f.code.as_str()));
    let rank = |c: &str| FINDING_CODES.iter().position(|k| *k == c).unwrap_or(usize::MAX);
    findings.sort_by_key(|f| (f.images.len() > 1, f.images.first().copied().unwrap_or(u32::MAX), rank(&f.code)));
    findings
}

/// The answer: findings, and which of the codes the caller says it fixed are cleared or remain
/// (codes outside the vocabulary are ignored, each code once).
fn result(findings: Vec<Finding>, clearing: &[String], asked: &[&str]) -> PreflightResult {
    let mut cleared = Vec::new();
    let mut remaining = Vec::new();
    let not_asked: Vec<String> = asked.iter().filter(|c| UNANSWERED.contains(c)).map(|c| c.to_string()).collect();
    for code in clearing.iter().map(|c| c.trim().to_lowercase()) {
        let looked_at = asked.contains(&code.as_str()) && !UNANSWERED.contains(&code.as_str());
        if !looked_at || cleared.contains(&code) || remaining.contains(&code) {
            continue;
        }
        if findings.iter().any(|f| f.code == code) {
            remaining.push(code);
        } else {
            cleared.push(code);
        }
    }
    PreflightResult { ok: true, clear: findings.is_empty(), cleared, remaining, findings, not_asked }
}

/// Measure every image and answer (runs on the calling thread).
fn check_all(images: &[Bytes], asked: &[&str], clearing: &[String], code: &'static str) -> Result<PreflightResult> {
    let mut facts = Vec::with_capacity(images.len());
    for (i, bytes) in images.iter().enumerate() {
        let decoded = decode_small(bytes, WORK_EDGE, code, &format!("#{}", i + 1))?;
        facts.push(measure(&decoded)?);
    }
    let mut findings: Vec<Finding> =
        facts.iter().enumerate().flat_map(|(i, f)| image_findings(i as u32 + 1, f)).collect();
    findings.extend(set_findings(&facts));
    Ok(result(answer(findings, asked), clearing, asked))
}

fn count_check(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid("IMAGES_REQUIRED", "Send at least one image to check."));
    }
    if n > MAX_PREFLIGHT_IMAGES {
        return Err(Error::invalid(
            "TOO_MANY_IMAGES",
            format!("A pre-flight checks at most {MAX_PREFLIGHT_IMAGES} images."),
        )
        .with("max", MAX_PREFLIGHT_IMAGES));
    }
    Ok(())
}

impl Develops<'_> {
    /// The agent tool `preflight`: check up to six library images of the caller's house before
    /// a develop. Free: nothing is held or charged. 400 `IMAGES_REQUIRED`, `TOO_MANY_IMAGES`
    /// (with `max`), `BAD_LENS` or `BAD_IMAGE`; 404 `ASSET_NOT_FOUND` for an unknown or foreign
    /// id; 413 `IMAGE_TOO_LARGE`.
    pub async fn preflight(&self, caller: &Caller, req: PreflightRequest) -> Result<PreflightResult> {
        let ids: Vec<String> = req.asset_ids.iter().map(|i| i.trim().to_string()).collect();
        count_check(ids.len())?;
        let asked = asked(req.lens.as_deref(), "BAD_LENS")?;
        let mut blobs = Vec::with_capacity(ids.len());
        for id in &ids {
            match self.studio.library().asset(&AssetId::from(id)).await? {
                Some(a) if a.org_id == caller.org_id && a.deleted_at.is_none() => {
                    if a.bytes as u64 > MAX_IMAGE_BYTES as u64 {
                        return Err(images::image_too_large());
                    }
                    blobs.push(a.blob_key);
                }
                _ => return Err(Error::not_found("ASSET_NOT_FOUND", format!("No asset {id:?} in this house."))),
            }
        }
        let mut images = Vec::with_capacity(blobs.len());
        for key in &blobs {
            images.push(self.studio.blobs.get_bytes(key).await.map_err(Error::internal)?);
        }
        self.run_checks(caller, images, asked, Vec::new(), "BAD_IMAGE").await
    }

    /// `POST /api/toolkit/ai/preflight`: check up to six uploaded images. `lens` narrows the
    /// question (as [`Studio::preflight`]); `clearing` names codes the caller says it fixed,
    /// answered back as `cleared` (no longer found) or `remaining` (still found). Free. 400
    /// `IMAGES_REQUIRED`, `TOO_MANY_IMAGES` (with `max`), `EMPTY_IMAGE`, `BAD_FORM` (not an
    /// image, cut short, undecodable, unknown lens); 413 `IMAGE_TOO_LARGE` (with `maxMb`).
    pub async fn preflight_images(
        &self,
        caller: &Caller,
        images: Vec<Bytes>,
        lens: Option<Vec<String>>,
        clearing: Vec<String>,
    ) -> Result<PreflightResult> {
        count_check(images.len())?;
        let asked = asked(lens.as_deref(), "BAD_FORM")?;
        for (i, bytes) in images.iter().enumerate() {
            images::check_sent(bytes, &format!("Image number {}", i + 1))?;
        }
        self.run_checks(caller, images, asked, clearing, "BAD_FORM").await
    }

    async fn run_checks(
        &self,
        caller: &Caller,
        images: Vec<Bytes>,
        asked: Vec<&'static str>,
        clearing: Vec<String>,
        code: &'static str,
    ) -> Result<PreflightResult> {
        tracing::debug!(org = %caller.org_id, images = images.len(), "pre-flight");
        tokio::task::spawn_blocking(move || check_all(&images, &asked, &clearing, code))
            .await
            .map_err(Error::internal)?
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use image::Rgb;

    /// A garment scene: a light ground (`ground`, with a little noise) and a dark piece covering
    /// the normalised box `piece` (`[x0, y0, x1, y1]`).
    pub(crate) fn scene(w: u32, h: u32, ground: [f32; 3], piece: [f32; 4]) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let n = ops::noise(x, y, 3) * 2.0;
            if (piece[0]..piece[2]).contains(&u) && (piece[1]..piece[3]).contains(&v) {
                let fold = 8.0 * (u * 40.0).sin();
                Rgb([ops::to_u8(46.0 + fold + n), ops::to_u8(42.0 + fold + n), ops::to_u8(40.0 + fold + n)])
            } else {
                Rgb(ground.map(|c| ops::to_u8(c + n)))
            }
        })
    }

    pub(crate) const GREY: [f32; 3] = [224.0, 224.0, 222.0];
    pub(crate) const CENTRED: [f32; 4] = [0.32, 0.2, 0.68, 0.8];

    pub(crate) fn clean() -> RgbImage {
        scene(1600, 1200, GREY, CENTRED)
    }

    pub(crate) fn png(img: &RgbImage) -> Bytes {
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
        Bytes::from(out)
    }

    fn facts(img: &RgbImage) -> Facts {
        let small = ops::working_copy(img, WORK_EDGE).expect("small");
        measure(&Decoded { long_edge: img.width().max(img.height()), small, alpha: None }).expect("measure")
    }

    fn codes(img: &RgbImage) -> Vec<String> {
        image_findings(1, &facts(img)).into_iter().map(|f| f.code).collect()
    }

    fn check(images: &[RgbImage], lens: Option<&[&str]>) -> PreflightResult {
        let bytes: Vec<Bytes> = images.iter().map(png).collect();
        let lens: Option<Vec<String>> = lens.map(|l| l.iter().map(|s| s.to_string()).collect());
        let asked = asked(lens.as_deref(), "BAD_FORM").expect("lens");
        check_all(&bytes, &asked, &[], "BAD_FORM").expect("check")
    }

    #[test]
    fn a_clean_garment_shot_is_clear() {
        let f = facts(&clean());
        assert!(f.found, "the piece is found");
        let found = image_findings(1, &f);
        assert!(found.is_empty(), "{found:#?}\n{f:#?}");
        let r = check(&[clean()], None);
        assert!(r.ok && r.clear && r.findings.is_empty(), "{r:#?}");
    }

    #[test]
    fn a_small_image_is_too_small_and_nothing_else() {
        let small = scene(600, 400, GREY, CENTRED);
        assert_eq!(codes(&small), ["too-small"]);
        let r = check(&[small], None);
        let f = &r.findings[0];
        assert_eq!((f.code.as_str(), f.images.as_slice(), f.by), ("too-small", &[1u32][..], FixBy::Swap));
        assert!(f.sure > 0.5 && f.sure <= 1.0 && !r.clear);
    }

    #[test]
    fn a_tinted_ground_is_a_colour_cast() {
        let blue = scene(1600, 1200, [200.0, 214.0, 242.0], CENTRED);
        let found = image_findings(1, &facts(&blue));
        let cast = found.iter().find(|f| f.code == "colour-cast").unwrap_or_else(|| panic!("{found:#?}"));
        assert!(cast.says.contains("blue"), "{}", cast.says);
        assert!(matches!(cast.by, FixBy::House | FixBy::Paid));
        assert!(found.iter().all(|f| f.code == "colour-cast"), "{found:#?}");
        // A faint warm tint under the threshold stays quiet; a strong one is for a paid pass.
        let faint = scene(1600, 1200, [226.0, 224.0, 219.0], CENTRED);
        assert!(codes(&faint).is_empty());
        let strong = image_findings(1, &facts(&scene(1600, 1200, [240.0, 214.0, 170.0], CENTRED)));
        assert_eq!(strong.iter().find(|f| f.code == "colour-cast").map(|f| f.by), Some(FixBy::Paid), "{strong:#?}");
    }

    #[test]
    fn a_piece_touching_the_border_is_cropped() {
        let cut = scene(1600, 1200, GREY, [0.6, 0.25, 1.0, 0.75]);
        let found = image_findings(1, &facts(&cut));
        let f = found.iter().find(|f| f.code == "cropped-edge").unwrap_or_else(|| panic!("{found:#?}"));
        assert!(f.says.contains("right") && f.by == FixBy::Swap, "{f:?}");
        assert!(!found.iter().any(|f| f.code == "not-full-length"), "cut at the side only");
        // On a perfectly flat ground, where a large piece on one side bends the smooth ground
        // model, the flat ground takes over and the answer is the same.
        let flat = RgbImage::from_fn(1600, 1200, |x, y| {
            let (u, v) = (x as f32 / 1600.0, y as f32 / 1200.0);
            if (0.6..1.0).contains(&u) && (0.25..0.75).contains(&v) { Rgb([46, 42, 40]) } else { Rgb([224, 224, 222]) }
        });
        assert_eq!(codes(&flat), ["cropped-edge"]);
    }

    #[test]
    fn a_busy_ground_is_flagged() {
        let busy = RgbImage::from_fn(1600, 1200, |x, y| {
            let (u, v) = (x as f32 / 1600.0, y as f32 / 1200.0);
            if (CENTRED[0]..CENTRED[2]).contains(&u) && (CENTRED[1]..CENTRED[3]).contains(&v) {
                Rgb([40, 38, 36])
            } else {
                let block = ops::noise(x / 14, y / 14, 11);
                let g = ops::to_u8(195.0 + 50.0 * block);
                Rgb([g, g, g])
            }
        });
        let found = image_findings(1, &facts(&busy));
        let f = found.iter().find(|f| f.code == "busy-background").unwrap_or_else(|| panic!("{found:#?}"));
        assert_eq!(f.by, FixBy::Paid);
        assert!(f.fix.contains("packshot"));
    }

    /// The clean scene with a shadow to the lower right of the piece; `soft` blurs its edge
    /// over `soft` pixels.
    fn shadowed(soft: f32) -> RgbImage {
        let (w, h) = (1600.0f32, 1200.0f32);
        let (px0, py0, px1, py1) = (CENTRED[0] * w, CENTRED[1] * h, CENTRED[2] * w, CENTRED[3] * h);
        let base = clean();
        RgbImage::from_fn(1600, 1200, |x, y| {
            let p = *base.get_pixel(x, y);
            let (fx, fy) = (x as f32, y as f32);
            if fx >= px0 && fx < px1 && fy >= py0 && fy < py1 {
                return p;
            }
            // The shadow: the piece's box moved 90 px right and down.
            let inside = |x: f32, y: f32| {
                let dx = (px0 + 90.0 - x).max(x - (px1 + 90.0));
                let dy = (py0 + 90.0 - y).max(y - (py1 + 90.0));
                dx.max(dy)
            };
            let d = inside(fx, fy);
            let depth =
                if soft <= 0.0 { if d < 0.0 { 1.0 } else { 0.0 } } else { 1.0 - ops::smoothstep(-soft, soft, d) };
            Rgb(p.0.map(|c| ops::to_u8(f32::from(c) * (1.0 - 0.38 * depth))))
        })
    }

    #[test]
    fn a_hard_shadow_is_flagged_and_a_soft_one_is_not() {
        let hard = facts(&shadowed(0.0));
        let found = image_findings(1, &hard);
        let f = found.iter().find(|f| f.code == "hard-shadow").unwrap_or_else(|| panic!("{found:#?}\n{hard:#?}"));
        assert_eq!(f.by, FixBy::Paid);
        let soft = facts(&shadowed(120.0));
        let found = image_findings(1, &soft);
        assert!(!found.iter().any(|f| f.code == "hard-shadow"), "{found:#?}\n{soft:#?}");
        // A dark grey piece on a mid-grey ground is a neutral darkening too, but not a shadow.
        let grey = facts(&scene(1600, 1200, [120.0, 120.0, 119.0], CENTRED));
        assert!(!image_findings(1, &grey).iter().any(|f| f.code == "hard-shadow"), "{grey:#?}");
    }

    #[test]
    fn exposure_problems_are_flagged() {
        let dark = scene(1600, 1200, [70.0, 70.0, 69.0], CENTRED);
        let dark = RgbImage::from_fn(1600, 1200, |x, y| Rgb(dark.get_pixel(x, y).0.map(|c| c / 2)));
        let found = image_findings(1, &facts(&dark));
        let f = found.iter().find(|f| f.code == "exposure").unwrap_or_else(|| panic!("{found:#?}"));
        assert!(f.says.contains("underexposed") || f.says.contains("crushed"), "{}", f.says);
        let blown = scene(1600, 1200, [150.0, 150.0, 150.0], CENTRED);
        let blown = RgbImage::from_fn(1600, 1200, |x, y| {
            let p = *blown.get_pixel(x, y);
            if p.0[0] < 100 { Rgb([255, 255, 255]) } else { p }
        });
        let found = image_findings(1, &facts(&blown));
        let f = found.iter().find(|f| f.code == "exposure").unwrap_or_else(|| panic!("{found:#?}"));
        assert!(f.says.contains("blown") && f.by == FixBy::Swap, "{f:?}");
    }

    #[test]
    fn light_mismatch_lists_the_images_that_differ() {
        let r = check(&[clean(), scene(1600, 1200, [128.0, 128.0, 127.0], CENTRED)], None);
        let f = r.findings.iter().find(|f| f.code == "light-mismatch").unwrap_or_else(|| panic!("{r:#?}"));
        assert_eq!(f.images, [1, 2]);
        assert_eq!(f.by, FixBy::Paid);
        // Two matching images and one that strays: only the stray is listed.
        let r = check(&[clean(), clean(), scene(1600, 1200, [128.0, 128.0, 127.0], CENTRED)], None);
        let f = r.findings.iter().find(|f| f.code == "light-mismatch").unwrap_or_else(|| panic!("{r:#?}"));
        assert_eq!(f.images, [3]);
        // Matching light: quiet.
        assert!(check(&[clean(), clean()], None).clear);
    }

    #[test]
    fn the_vocabulary_is_closed() {
        let made_up = Finding {
            code: "looks-cheap".into(),
            images: vec![1],
            says: "x".into(),
            fix: "y".into(),
            by: FixBy::House,
            sure: 0.9,
        };
        let real = Finding { code: "too-small".into(), ..made_up.clone() };
        let kept = answer(vec![made_up.clone(), real.clone()], &GARMENT);
        assert_eq!(kept, vec![real.clone()]);
        // Even a lens that asked for it cannot let an unknown code through.
        assert!(answer(vec![made_up], &["looks-cheap"]).is_empty());
        // Clearing ignores unknown codes; clear is exactly findings being empty.
        let r = result(kept, &["too-small".into(), "colour-cast".into(), "looks-cheap".into()], &GARMENT);
        assert_eq!(
            (r.remaining, r.cleared, r.clear),
            (vec!["too-small".to_string()], vec!["colour-cast".to_string()], false)
        );
        let r = result(Vec::new(), &[], &GARMENT);
        assert!(r.clear && r.ok);
    }

    #[test]
    fn a_question_nobody_looked_at_is_never_reported_clear() {
        // The casting lens names three questions no measurement answers: they are listed as
        // not asked, and claiming to have fixed one reports it neither cleared nor remaining.
        let r = check(&[clean()], Some(&["casting look"][..]));
        assert_eq!(r.not_asked, ["mixed-subject", "face-unreadable", "part-hidden"]);
        assert!(r.findings.iter().all(|f| !UNANSWERED.contains(&f.code.as_str())));
        let claimed: Vec<String> = ["part-hidden", "face-unreadable", "too-small"].map(String::from).to_vec();
        let r = result(Vec::new(), &claimed, &CASTING);
        assert_eq!(r.cleared, ["too-small"], "only a question looked at can be cleared");
        assert!(r.remaining.is_empty());
        // The garment questions include part-hidden: not asked either.
        assert_eq!(check(&[clean()], None).not_asked, ["part-hidden"]);
        assert!(check(&[clean()], Some(&["build sheet"][..])).not_asked.is_empty());
    }

    #[test]
    fn lenses_narrow_the_question() {
        assert_eq!(asked(None, "X").unwrap(), GARMENT);
        assert_eq!(asked(Some(&[][..]), "X").unwrap(), GARMENT);
        assert_eq!(asked(Some(&["Build-Sheet".to_string()][..]), "X").unwrap(), BUILD);
        assert_eq!(asked(Some(&["nonsense".to_string()][..]), "BAD_LENS").unwrap_err().code, "BAD_LENS");
        // A small image cut at the bottom, in a set of two with different light.
        let cut = scene(800, 600, GREY, [0.35, 0.3, 0.65, 1.0]);
        let dark = scene(1600, 1200, [120.0, 120.0, 119.0], CENTRED);
        let garment = check(&[cut.clone(), dark.clone()], None);
        let codes = |r: &PreflightResult| r.findings.iter().map(|f| f.code.clone()).collect::<Vec<_>>();
        assert_eq!(codes(&garment), ["too-small", "cropped-edge", "light-mismatch"], "{garment:#?}");
        let casting = check(&[cut.clone(), dark.clone()], Some(&["casting look"][..]));
        assert_eq!(codes(&casting), ["too-small", "light-mismatch"]);
        let build = check(&[cut.clone(), dark], Some(&["build sheet"][..]));
        assert_eq!(codes(&build), ["not-full-length"]);
        assert_eq!(build.findings[0].images, [1]);
        // A figure clear of the frame's top and bottom is not flagged.
        assert!(check(&[clean()], Some(&["build sheet"][..])).clear);
    }

    #[test]
    fn images_are_decoded_upright_and_refused_when_broken() {
        let err = decode_small(b"not an image at all", WORK_EDGE, "BAD_FORM", "number 1").map(|_| ()).unwrap_err();
        assert_eq!(err.code, "BAD_FORM");
        let d = decode_small(&png(&scene(2000, 500, GREY, CENTRED)), WORK_EDGE, "BAD_FORM", "x").expect("decode");
        assert_eq!((d.long_edge, d.small.width(), d.small.height()), (2000, 384, 96));
    }
}
