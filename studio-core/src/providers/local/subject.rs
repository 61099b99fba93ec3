//! Finding the piece on a plain ground: a smooth ground model fitted to the border (robust
//! quadratic in Oklab), a colour-distance threshold from the ground's own noise, morphology and
//! the largest components. Analysis runs at a small working size; [`Subject::alpha_for`] turns
//! the result into a soft alpha at any output size, refining the edge band from the full-size
//! pixels.

use image::{GrayImage, RgbImage};

use super::learned::{self, LearnedSegmenter};
use super::ops::{self, Lab, Mask, Plane, Result};
use super::{gate, grabcut};
use crate::providers::ProviderError;

/// The code a develop fails with (in its error, before the sentence) and a lane answers (422)
/// when the subject gate refuses a mask.
pub(crate) const SUBJECT_NOT_FOUND: &str = "SUBJECT_NOT_FOUND";

/// Why the cutout tools have no subject to work on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CutError {
    /// The input could not be analysed (undecodable, a resize failed).
    Failed(ProviderError),
    /// The subject gate refused the mask; the sentence says what was measured.
    NotFound(String),
}

impl std::fmt::Display for CutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CutError::Failed(e) => write!(f, "{e}"),
            CutError::NotFound(why) => write!(f, "{SUBJECT_NOT_FOUND}: no clear subject: {why}"),
        }
    }
}

impl From<CutError> for ProviderError {
    /// A refusal by the gate fails the job (its hold released) with the code and the sentence.
    fn from(e: CutError) -> ProviderError {
        match e {
            CutError::Failed(e) => e,
            CutError::NotFound(_) => ProviderError::Rejected(e.to_string()),
        }
    }
}

impl From<ProviderError> for CutError {
    fn from(e: ProviderError) -> CutError {
        CutError::Failed(e)
    }
}

/// Long edge of the analysis copy.
pub(crate) const WORK_EDGE: u32 = 384;

/// Smallest and largest share of the frame a subject may cover to count as found.
const MIN_COVERAGE: f32 = 0.002;
const MAX_COVERAGE: f32 = 0.97;

/// Mean and standard deviation of Oklab channels over a region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stats {
    /// Per-channel mean `[l, a, b]`.
    pub(crate) mean: [f32; 3],
    /// Per-channel standard deviation.
    pub(crate) std: [f32; 3],
    /// Total weight (pixels) behind the figures.
    pub(crate) weight: f32,
}

/// What the analysis found: the ground, the subject's soft mask and where it sits.
#[derive(Debug, Clone)]
pub(crate) struct Subject {
    /// Ground model: per Oklab channel, coefficients of `1, u, v, u², v², uv` (u, v centred).
    ground: [[f32; 6]; 3],
    /// Colour distance above which a pixel belongs to the subject.
    threshold: f32,
    /// Typical distance of ground pixels from the model (the ground's noise).
    pub(crate) noise: f32,
    /// Soft alpha at the working size.
    pub(crate) coarse: Plane,
    /// Alpha known exactly (a transparent input or a supplied mask), at its own resolution.
    exact: Option<GrayImage>,
    /// Subject bounds normalised to the frame: `[x0, y0, x1, y1]`; None when nothing stands out.
    pub(crate) bbox: Option<[f32; 4]>,
    /// Where the eye goes: the subject's centre, else the saliency centroid.
    pub(crate) focus: (f32, f32),
    /// The working copy in Oklab, row-major `coarse.w × coarse.h`.
    work: Vec<Lab>,
}

fn basis(u: f32, v: f32) -> [f32; 6] {
    let (u, v) = (u - 0.5, v - 0.5);
    [1.0, u, v, u * u, v * v, u * v]
}

/// Distance between a pixel and the ground: chroma counts more than lightness, and darkening
/// (shadows on the ground) counts less than lightening.
pub(crate) fn distance(p: Lab, g: [f32; 3]) -> f32 {
    let dl = p.l - g[0];
    let wl = if dl < 0.0 { 0.6 } else { 1.0 };
    let (da, db) = (p.a - g[1], p.b - g[2]);
    ((dl * wl).powi(2) + 2.25 * (da * da + db * db)).sqrt()
}

/// Solve the 6 × 6 system `m x = r` (Gaussian elimination with partial pivoting).
fn solve6(mut m: [[f64; 6]; 6], mut r: [f64; 6]) -> Option<[f64; 6]> {
    for col in 0..6 {
        let pivot = (col..6).max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        r.swap(col, pivot);
        for row in col + 1..6 {
            let f = m[row][col] / m[col][col];
            let pivot_row = m[col];
            for (dst, src) in m[row].iter_mut().zip(pivot_row).skip(col) {
                *dst -= f * src;
            }
            r[row] -= f * r[col];
        }
    }
    let mut x = [0.0f64; 6];
    for row in (0..6).rev() {
        let s: f64 = (row + 1..6).map(|k| m[row][k] * x[k]).sum();
        x[row] = (r[row] - s) / m[row][row];
    }
    Some(x)
}

fn median(values: &mut [f32]) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let mid = values.len() / 2;
    *values.select_nth_unstable_by(mid, f32::total_cmp).1
}

/// Fit the ground model to border samples `(u, v, lab)`, dropping outliers (a subject that
/// touches the frame) over three rounds. Returns the coefficients and the inliers' median
/// distance.
pub(crate) fn fit_ground(samples: &[(f32, f32, Lab)]) -> ([[f32; 6]; 3], f32) {
    let mut keep = vec![true; samples.len()];
    let mut coef = [[0.0f32; 6]; 3];
    let mut noise = 0.0;
    for _round in 0..3 {
        let mut m = [[0.0f64; 6]; 6];
        let mut rhs = [[0.0f64; 6]; 3];
        let mut mean = [0.0f64; 3];
        let mut n = 0.0f64;
        for ((u, v, c), k) in samples.iter().zip(&keep) {
            if !*k {
                continue;
            }
            let b = basis(*u, *v);
            let ch = c.to_array();
            for i in 0..6 {
                for j in 0..6 {
                    m[i][j] += f64::from(b[i] * b[j]);
                }
                for (c, r) in ch.iter().zip(rhs.iter_mut()) {
                    r[i] += f64::from(b[i] * c);
                }
            }
            for (acc, c) in mean.iter_mut().zip(ch) {
                *acc += f64::from(c);
            }
            n += 1.0;
        }
        if n < 1.0 {
            break;
        }
        for (i, row) in m.iter_mut().enumerate() {
            row[i] += 1e-6 * n; // a touch of ridge keeps thin borders well posed
        }
        for (ch, r) in rhs.iter().enumerate() {
            coef[ch] = match solve6(m, *r) {
                Some(x) => x.map(|v| v as f32),
                None => [(mean[ch] / n) as f32, 0.0, 0.0, 0.0, 0.0, 0.0],
            };
        }
        let mut dists: Vec<f32> = samples.iter().map(|(u, v, c)| distance(*c, eval(&coef, *u, *v))).collect::<Vec<_>>();
        let mut inliers: Vec<f32> = dists.iter().zip(&keep).filter(|(_, k)| **k).map(|(d, _)| *d).collect();
        noise = median(&mut inliers);
        let cut = (3.0 * noise).max(0.02);
        for (k, d) in keep.iter_mut().zip(dists.iter_mut()) {
            *k = *d <= cut;
        }
    }
    (coef, noise)
}

/// The ground model's colour (Oklab array) at normalised coordinates.
pub(crate) fn eval(coef: &[[f32; 6]; 3], u: f32, v: f32) -> [f32; 3] {
    let b = basis(u.clamp(0.0, 1.0), v.clamp(0.0, 1.0));
    let dot = |c: &[f32; 6]| c.iter().zip(b).map(|(c, b)| c * b).sum::<f32>();
    [dot(&coef[0]), dot(&coef[1]), dot(&coef[2])]
}

/// Bilinear sample of a grey image at normalised coordinates, as 0..1.
fn sample_gray(img: &GrayImage, u: f32, v: f32) -> f32 {
    let (w, h) = img.dimensions();
    let fx = (u * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
    let fy = (v * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (fx as u32, fy as u32);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let p = |x, y| f32::from(img.get_pixel(x, y).0[0]);
    let top = ops::lerp(p(x0, y0), p(x1, y0), tx);
    let bottom = ops::lerp(p(x0, y1), p(x1, y1), tx);
    ops::lerp(top, bottom, ty) / 255.0
}

impl Subject {
    /// Analyse `img`. With `exact` (an alpha channel or a supplied mask, any resolution) the
    /// subject is that mask; otherwise it is segmented from the ground.
    pub(crate) fn find(img: &RgbImage, exact: Option<&GrayImage>) -> Result<Subject> {
        let (work, w, h) = working_lab(img)?;
        let smooth = smoothed(&work, w, h);
        let at = |i: usize| smooth[i];
        let (ground, noise) = fit_ground(&border_samples(&smooth, w, h));
        let threshold = (3.0 * noise).max(0.04);

        let mut dist = Plane::new(w, h, 0.0);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                dist.data[y * w + x] = distance(at(y * w + x), eval(&ground, u, v));
            }
        }

        let coarse = match exact {
            Some(mask) => {
                let m = ops::resize_gray(mask, w as u32, h as u32)?;
                Plane { w, h, data: m.as_raw().iter().map(|v| f32::from(*v) / 255.0).collect() }
            }
            None => {
                let binary = Mask { w, h, data: dist.data.iter().map(|d| u8::from(*d > threshold)).collect() };
                let close = ((w.max(h) as f32 * 0.012).round() as usize).max(1);
                let cleaned = binary.open(1).close(close).keep_largest(0.3);
                let area = cleaned.count();
                let filled = cleaned.fill_holes(area / 33);
                filled.to_plane().box_blur(1).box_blur(1)
            }
        };

        let (bbox, focus) = Self::placed(&coarse, &dist, threshold);
        Ok(Subject { ground, threshold, noise, coarse, exact: exact.cloned(), bbox, focus, work })
    }

    /// The subject of the cutout tools (packshot, remove-background, color-change, harmonize,
    /// the lookbook compositor): with `exact` (an alpha channel or a supplied mask) that mask;
    /// otherwise the saliency-seeded segmentation of [`grabcut`], which the subject gate
    /// ([`gate`]) measures first and refuses when implausible; when this process has a learned
    /// segmenter installed ([`learned`]), its mask replaces the classical one where the gate
    /// prefers it ([`gate::prefer`]).
    pub(crate) fn cut(img: &RgbImage, exact: Option<&GrayImage>) -> std::result::Result<Subject, CutError> {
        Subject::cut_by(img, exact, learned::active())
    }

    /// [`Subject::cut`] with the segmenter named: `model`, or the classical path when None.
    pub(crate) fn cut_by(
        img: &RgbImage,
        exact: Option<&GrayImage>,
        model: Option<&LearnedSegmenter>,
    ) -> std::result::Result<Subject, CutError> {
        if let Some(mask) = exact {
            let subject = Subject::find(img, Some(mask))?;
            let solid = Mask {
                w: subject.coarse.w,
                h: subject.coarse.h,
                data: subject.coarse.data.iter().map(|a| u8::from(*a >= 0.5)).collect(),
            };
            if let Some(why) = gate::check_exact(&solid) {
                return Err(CutError::NotFound(why));
            }
            return Ok(subject);
        }
        let (work, w, h) = working_lab(img)?;
        let smooth = smoothed(&work, w, h);
        let classical = grabcut::segment(&smooth, w, h);
        if let Some(why) = gate::check(&classical, &smooth).refusal {
            return Err(CutError::NotFound(why));
        }
        let cut = match model {
            Some(model) => match model.segment(img, w, h) {
                Ok(learned) => gate::prefer(learned, classical, &smooth),
                Err(e) => {
                    tracing::warn!("{e}; this cutout uses the classical mask");
                    classical
                }
            },
            None => classical,
        };
        let (ground, noise) = fit_ground(&border_samples(&smooth, w, h));
        let coarse = cut.mask.to_plane().box_blur(1).box_blur(1);
        Ok(Subject::with_mask(ground, noise, coarse, work))
    }

    /// A subject whose mask was found elsewhere (a segmentation seeded by a box or a point):
    /// `ground` and `noise` from [`fit_ground`], `coarse` the soft mask at the size of `work`
    /// (the working copy in Oklab, see [`working_lab`]).
    pub(crate) fn with_mask(ground: [[f32; 6]; 3], noise: f32, coarse: Plane, work: Vec<Lab>) -> Subject {
        let threshold = (3.0 * noise).max(0.04);
        let dist = Plane::new(coarse.w, coarse.h, 0.0);
        let (bbox, focus) = Self::placed(&coarse, &dist, threshold);
        Subject { ground, threshold, noise, coarse, exact: None, bbox, focus, work }
    }

    /// The subject's normalised bounds (None when its coverage is implausible) and the focus.
    fn placed(coarse: &Plane, dist: &Plane, threshold: f32) -> (Option<[f32; 4]>, (f32, f32)) {
        let (w, h) = (coarse.w, coarse.h);
        let n = (w * h) as f32;
        let coverage = coarse.data.iter().sum::<f32>() / n;
        let solid = Mask { w, h, data: coarse.data.iter().map(|a| u8::from(*a >= 0.5)).collect() };
        let bbox = match solid.bbox() {
            Some((x0, y0, x1, y1)) if (MIN_COVERAGE..=MAX_COVERAGE).contains(&coverage) => {
                Some([x0 as f32 / w as f32, y0 as f32 / h as f32, x1 as f32 / w as f32, y1 as f32 / h as f32])
            }
            _ => None,
        };
        let focus = match bbox {
            Some(b) => (0.5 * (b[0] + b[2]), 0.5 * (b[1] + b[3])),
            None => saliency_centroid(dist, threshold),
        };
        (bbox, focus)
    }

    /// Whether a subject stands apart from the ground.
    pub(crate) fn found(&self) -> bool {
        self.bbox.is_some()
    }

    /// The ground's colour (Oklab) at normalised coordinates.
    pub(crate) fn ground_lab(&self, u: f32, v: f32) -> Lab {
        Lab::from_array(eval(&self.ground, u, v))
    }

    /// The ground's colour as sRGB floats (0..255) at normalised coordinates.
    pub(crate) fn ground_rgb(&self, u: f32, v: f32) -> [f32; 3] {
        ops::lab_to_rgb(self.ground_lab(u, v)).map(f32::from)
    }

    /// Soft alpha (0..1, row-major) for `pixels`, which show the normalised `region`
    /// (`[x0, y0, x1, y1]`) of the analysed frame at any resolution.
    ///
    /// Away from the edge the coarse mask decides. In the edge band the full-size pixels do, in
    /// two passes: first by colour distance from the ground (the coarse mask only keeps
    /// ground-coloured pixels deep inside), then each band pixel is projected on the line from
    /// the local ground colour to the nearby solid subject colour, which gives mixed edge pixels
    /// their true share and drops resampling ringing (it points away from the subject).
    pub(crate) fn alpha_for(&self, region: [f32; 4], pixels: &RgbImage) -> Vec<f32> {
        let (w, h) = pixels.dimensions();
        let (sx, sy) = ((region[2] - region[0]) / w as f32, (region[3] - region[1]) / h as f32);
        let uv = |x: u32, y: u32| (region[0] + (x as f32 + 0.5) * sx, region[1] + (y as f32 + 0.5) * sy);
        let mut out = Vec::with_capacity(w as usize * h as usize);
        let mut band = Vec::new();
        for (y, row) in pixels.rows().enumerate() {
            for (x, p) in row.enumerate() {
                let (u, v) = uv(x as u32, y as u32);
                let a = match &self.exact {
                    Some(mask) => sample_gray(mask, u, v),
                    None => {
                        let c = self.coarse.sample_norm(u, v);
                        if c <= 0.01 {
                            0.0
                        } else if c >= 0.99 {
                            1.0
                        } else {
                            band.push((x as u32, y as u32));
                            let d = distance(ops::rgb_to_lab(p.0), eval(&self.ground, u, v));
                            let by_colour = ops::smoothstep(0.5 * self.threshold, 1.5 * self.threshold, d);
                            if c >= 0.9 { by_colour.max((c - 0.9) * 10.0) } else { by_colour }
                        }
                    }
                };
                out.push(a.clamp(0.0, 1.0));
            }
        }
        let first = out.clone();
        for (x, y) in band {
            let Some(f) = solid_colour_near(pixels, &first, x, y) else { continue };
            let (u, v) = uv(x, y);
            let g = self.ground_rgb(u, v);
            let c = pixels.get_pixel(x, y).0.map(f32::from);
            let fg = [f[0] - g[0], f[1] - g[1], f[2] - g[2]];
            let len2 = fg.iter().map(|d| d * d).sum::<f32>();
            if len2 < 900.0 {
                continue; // subject and ground too alike here for a colour line
            }
            let t = (0..3).map(|k| (c[k] - g[k]) * fg[k]).sum::<f32>() / len2;
            out[(y * w + x) as usize] = ((t - 0.05) / 0.9).clamp(0.0, 1.0);
        }
        out
    }

    /// The subject's colour at a soft-edge pixel `(x, y)` of `pixels` (whose alpha is `alpha`
    /// and which sits at normalised `uv` in the analysed frame): the nearby solid colour, else
    /// the pixel with the ground's share taken out.
    pub(crate) fn edge_foreground(&self, pixels: &RgbImage, alpha: &[f32], x: u32, y: u32, uv: (f32, f32)) -> [f32; 3] {
        if let Some(c) = solid_colour_near(pixels, alpha, x, y) {
            return c;
        }
        let c = pixels.get_pixel(x, y).0.map(f32::from);
        let a = alpha[(y * pixels.width() + x) as usize];
        if a < 0.25 {
            return c;
        }
        let g = self.ground_rgb(uv.0, uv.1);
        [0, 1, 2].map(|k| ((c[k] - (1.0 - a) * g[k]) / a).clamp(0.0, 255.0))
    }

    /// Oklab statistics of the working copy over pixels whose alpha passes `select`.
    pub(crate) fn stats(&self, select: impl Fn(f32) -> bool) -> Stats {
        let mut sum = [0.0f64; 3];
        let mut sq = [0.0f64; 3];
        let mut n = 0.0f64;
        for (c, a) in self.work.iter().zip(&self.coarse.data) {
            if select(*a) {
                for (k, v) in c.to_array().into_iter().enumerate() {
                    sum[k] += f64::from(v);
                    sq[k] += f64::from(v) * f64::from(v);
                }
                n += 1.0;
            }
        }
        let n1 = n.max(1.0);
        let mean = sum.map(|s| (s / n1) as f32);
        let std = [0, 1, 2].map(|k| ((sq[k] / n1 - (sum[k] / n1).powi(2)).max(0.0)).sqrt() as f32);
        Stats { mean, std, weight: n as f32 }
    }

    /// Oklab lightness percentiles (`p` in 0..1 each) over the solid subject.
    pub(crate) fn subject_lightness_percentiles<const N: usize>(&self, p: [f32; N]) -> [f32; N] {
        let mut ls: Vec<f32> =
            self.work.iter().zip(&self.coarse.data).filter(|(_, a)| **a > 0.9).map(|(c, _)| c.l).collect();
        if ls.is_empty() {
            return [0.5; N];
        }
        ls.sort_by(f32::total_cmp);
        p.map(|q| ls[((ls.len() - 1) as f32 * q.clamp(0.0, 1.0)).round() as usize])
    }
}

/// The border band (3 % of the short side) of `smooth` as ground-model samples `(u, v, colour)`.
fn border_samples(smooth: &[Lab], w: usize, h: usize) -> Vec<(f32, f32, Lab)> {
    let band = ((w.min(h) as f32 * 0.03).round() as usize).max(2).min(w.min(h) / 2).max(1);
    let mut samples = Vec::with_capacity(2 * band * (w + h));
    for y in 0..h {
        for x in 0..w {
            if x < band || y < band || x >= w - band || y >= h - band {
                let (u, v) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                samples.push((u, v, smooth[y * w + x]));
            }
        }
    }
    samples
}

/// The working copy of `img` (long edge [`WORK_EDGE`]) in Oklab, with its size.
pub(crate) fn working_lab(img: &RgbImage) -> Result<(Vec<Lab>, usize, usize)> {
    let small = ops::working_copy(img, WORK_EDGE)?;
    let (w, h) = (small.width() as usize, small.height() as usize);
    Ok((small.pixels().map(|p| ops::rgb_to_lab(p.0)).collect(), w, h))
}

/// `work` (row-major `w × h`) lightly smoothed per channel, which suppresses sensor noise in
/// colour distances.
pub(crate) fn smoothed(work: &[Lab], w: usize, h: usize) -> Vec<Lab> {
    let channel = |k: usize| Plane { w, h, data: work.iter().map(|c| c.to_array()[k]).collect() };
    let smooth: Vec<Plane> = (0..3).map(|k| channel(k).box_blur(1).box_blur(1)).collect();
    (0..w * h).map(|i| Lab { l: smooth[0].data[i], a: smooth[1].data[i], b: smooth[2].data[i] }).collect()
}

/// The subject's own colour at a soft-edge pixel: the mean of solid subject pixels (alpha at
/// least 0.98) within 4 px, nearer ones counting more, so neither the old ground nor resampling
/// ringing travels with the edge. `alpha` is row-major for `pixels`. None when no solid pixel is
/// near.
pub(crate) fn solid_colour_near(pixels: &RgbImage, alpha: &[f32], x: u32, y: u32) -> Option<[f32; 3]> {
    const R: i64 = 4;
    let (w, h) = (i64::from(pixels.width()), i64::from(pixels.height()));
    let (mut sum, mut weight) = ([0.0f32; 3], 0.0f32);
    for dy in -R..=R {
        let ny = i64::from(y) + dy;
        if ny < 0 || ny >= h {
            continue;
        }
        for dx in -R..=R {
            let nx = i64::from(x) + dx;
            if nx < 0 || nx >= w || alpha[(ny * w + nx) as usize] < 0.98 {
                continue;
            }
            let k = 1.0 / (1 + dx * dx + dy * dy) as f32;
            let p = pixels.get_pixel(nx as u32, ny as u32).0;
            for c in 0..3 {
                sum[c] += k * f32::from(p[c]);
            }
            weight += k;
        }
    }
    (weight > 0.0).then(|| sum.map(|s| s / weight))
}

/// Where the colour difference from the ground concentrates, pulled halfway to the centre; the
/// centre itself when nothing differs.
fn saliency_centroid(dist: &Plane, threshold: f32) -> (f32, f32) {
    let (mut sx, mut sy, mut sw) = (0.0f64, 0.0f64, 0.0f64);
    for y in 0..dist.h {
        for x in 0..dist.w {
            let wgt = f64::from((dist.get(x, y) - 0.5 * threshold).max(0.0));
            sx += wgt * (x as f64 + 0.5) / dist.w as f64;
            sy += wgt * (y as f64 + 0.5) / dist.h as f64;
            sw += wgt;
        }
    }
    if sw < 1e-6 {
        return (0.5, 0.5);
    }
    (0.5 * (0.5 + (sx / sw) as f32), 0.5 * (0.5 + (sy / sw) as f32))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A 200 × 150 frame: a light grey sweep (slight vertical gradient and noise) with a
    /// textured red garment shape in the middle (x 70..130, y 35..120).
    pub(crate) fn garment_on_ground() -> RgbImage {
        RgbImage::from_fn(200, 150, |x, y| {
            let n = ops::noise(x, y, 7) * 3.0;
            if (70..130).contains(&x) && (35..120).contains(&y) {
                let shade = 20.0 * ((x as f32 * 0.3).sin() * (y as f32 * 0.2).cos());
                image::Rgb([ops::to_u8(180.0 + shade + n), ops::to_u8(40.0 + shade * 0.3 + n), ops::to_u8(50.0 + n)])
            } else {
                let g = 236.0 - y as f32 * 0.08 + n;
                image::Rgb([ops::to_u8(g), ops::to_u8(g), ops::to_u8(g - 2.0)])
            }
        })
    }

    #[test]
    fn the_garment_is_found_on_its_ground() {
        let img = garment_on_ground();
        let s = Subject::find(&img, None).expect("analysis");
        let b = s.bbox.expect("found");
        let expect = [70.0 / 200.0, 35.0 / 150.0, 130.0 / 200.0, 120.0 / 150.0];
        for k in 0..4 {
            assert!((b[k] - expect[k]).abs() < 0.03, "bbox {b:?} vs {expect:?}");
        }
        let alpha = s.alpha_for([0.0, 0.0, 1.0, 1.0], &img);
        assert!(alpha[75 * 200 + 100] > 0.99, "inside");
        assert!(alpha[10 * 200 + 10] < 0.01, "ground");
        let g = s.ground_lab(0.5, 0.5);
        assert!(g.chroma() < 0.02 && (g.l - 0.93).abs() < 0.04, "ground {g:?}");
    }

    #[test]
    fn a_plain_frame_has_no_subject() {
        let img = RgbImage::from_fn(120, 90, |x, y| {
            let n = ops::to_u8(200.0 + ops::noise(x, y, 1) * 2.0);
            image::Rgb([n, n, n])
        });
        let s = Subject::find(&img, None).expect("analysis");
        assert!(!s.found());
        assert_eq!(s.focus, (0.5, 0.5));
    }
}
