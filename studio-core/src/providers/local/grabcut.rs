//! The whole-frame subject segmentation of the cutout tools (issue 40): saliency seeding from the
//! frame's border, then GrabCut-style iterations (a colour model of the subject and one of the
//! ground, refitted each round, with a contrast-sensitive smoothness term solved by mean-field
//! updates), then morphology, the components that belong and hole filling that keeps real holes.
//! Runs at the analysis size on the smoothed Oklab copy; [`super::gate`] judges the result.
//!
//! 1. **Ground colours.** The border band (3 % of the short side) of the top, left and right sides
//!    is clustered into a few colours (k-means). The bottom band joins only where it looks like
//!    those: a subject standing in a frame is cut by the bottom edge far more often than by the
//!    others (portraits, a piece on a table).
//! 2. **Saliency.** Each pixel's distance to the nearest ground colour (clusters holding at least
//!    [`MIN_CLUSTER_SHARE`] of the border whose boundary connectivity is at least
//!    [`MIN_CONNECTIVITY`]: a subject's colour touching the edge covers far more than it touches),
//!    blurred lightly: what looks like nothing on the border.
//! 3. **Trimap.** Sure subject: saliency above [`SEED_HIGH`] times the ground's own spread (and at
//!    least [`SEED_FLOOR`]); sure ground: the border band where it is not salient, and every pixel
//!    below [`SEED_LOW`] of that threshold; the rest is unknown.
//! 4. **Iterations** ([`ROUNDS`]): Gaussian mixtures (diagonal, k-means initialised) for the subject
//!    and the ground; each pixel's log-likelihood ratio is its data term, clamped; a Potts term
//!    between 8-neighbours weighted `γ·exp(−β‖Δc‖²)` (β from the frame's mean contrast) pulls
//!    labels together except across colour edges; [`MEAN_FIELD_STEPS`] mean-field updates per round
//!    give each unknown pixel its probability; sure pixels keep their label.
//! 5. **Clean-up.** An opening removes specks; the largest component and those at least
//!    [`KEEP_SHARE`] of it stay; a hole is filled when it is small ([`SMALL_HOLE`] of the piece)
//!    or its pixels do not clearly belong to the ground model, so a handle's gap showing the
//!    saucer closes while the field seen between a photographer's arm and his tripod stays open.

use super::ops::{Lab, Mask, Plane};

/// Border clusters holding less than this share of the border are ignored as ground colours.
const MIN_CLUSTER_SHARE: f32 = 0.02;
/// Least boundary connectivity (pixels on the frame's edge over the square root of the area
/// within the seed threshold) of a border colour that counts as ground.
const MIN_CONNECTIVITY: f32 = 1.5;
/// Ground colours: clusters of the border.
const GROUND_CLUSTERS: usize = 8;
/// Subject colours: clusters of the current subject.
const SUBJECT_CLUSTERS: usize = 5;
/// Sure subject: saliency above this multiple of the border's own spread...
const SEED_HIGH: f32 = 4.0;
/// ...and at least this colour distance (Oklab ΔE, chroma counted 1.5×).
const SEED_FLOOR: f32 = 0.06;
/// Sure ground: saliency below this share of the subject threshold.
const SEED_LOW: f32 = 0.35;
/// GrabCut rounds (models refitted each round).
const ROUNDS: usize = 4;
/// Mean-field updates per round.
const MEAN_FIELD_STEPS: usize = 6;
/// Weight of the smoothness term per neighbour (in log-likelihood units).
const SMOOTHNESS: f32 = 1.2;
/// Largest magnitude of a pixel's data term.
const DATA_CLAMP: f32 = 6.0;
/// Components at least this share of the largest are kept (a pair of shoes, 24 coins).
const KEEP_SHARE: f32 = 0.2;
/// Holes smaller than this share of the piece are always filled.
const SMALL_HOLE: f32 = 0.01;
/// A larger hole stays open when its mean subject probability is below this...
const HOLE_GROUND: f32 = 0.2;
/// ...and it is smaller than this share of the piece: an enclosed region larger than that is the
/// subject's own surface in another colour (a cup's crema, a print), not ground seen through it.
const LARGE_HOLE: f32 = 0.06;

/// What the segmentation found, at the analysis size, with what the gate measures it by.
#[derive(Debug, Clone)]
pub(crate) struct Cut {
    /// The subject, cleaned (0/1).
    pub(crate) mask: Mask,
    /// The subject before clean-up (0/1): the iterations' own answer.
    pub(crate) raw: Mask,
    /// Saliency: distance from the nearest ground colour, in units of the seed threshold.
    pub(crate) saliency: Plane,
    /// Pixels seeded as sure subject.
    pub(crate) seeds: usize,
    /// Whether the learned segmenter made it (saliency is then its probability, see
    /// `learned.rs`), not the colour saliency above.
    pub(crate) learned: bool,
}

/// Colour features: Oklab with chroma counted 1.5× (the distance the local provider uses).
fn feature(c: Lab) -> [f32; 3] {
    [c.l, 1.5 * c.a, 1.5 * c.b]
}

fn dist2(a: [f32; 3], b: [f32; 3]) -> f32 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// A Gaussian mixture with diagonal covariances.
#[derive(Debug, Clone)]
struct Mixture {
    /// `(weight, mean, variance)` per component.
    parts: Vec<(f32, [f32; 3], [f32; 3])>,
}

/// Smallest variance per channel (keeps flat grounds from becoming infinitely sure).
const MIN_VAR: f32 = 0.0004;

impl Mixture {
    /// Fit `k` components to `pts` (k-means seeded at lightness quantiles, six rounds).
    fn fit(pts: &[[f32; 3]], k: usize) -> Option<Mixture> {
        let step = pts.len().div_ceil(6000).max(1);
        let mut sample: Vec<[f32; 3]> = pts.iter().step_by(step).copied().collect();
        if sample.is_empty() {
            return None;
        }
        sample.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
        let k = k.min(sample.len());
        let mut centres: Vec<[f32; 3]> = (0..k).map(|i| sample[(2 * i + 1) * sample.len() / (2 * k)]).collect();
        let mut assign = vec![0usize; sample.len()];
        for _ in 0..6 {
            for (a, p) in assign.iter_mut().zip(&sample) {
                *a = (0..k).min_by(|x, y| dist2(*p, centres[*x]).total_cmp(&dist2(*p, centres[*y]))).unwrap_or(0);
            }
            let mut sums = vec![([0.0f32; 3], 0usize); k];
            for (a, p) in assign.iter().zip(&sample) {
                for (s, v) in sums[*a].0.iter_mut().zip(p) {
                    *s += v;
                }
                sums[*a].1 += 1;
            }
            for (c, (s, n)) in centres.iter_mut().zip(&sums) {
                if *n > 0 {
                    *c = s.map(|v| v / *n as f32);
                }
            }
        }
        let mut parts = Vec::with_capacity(k);
        let n = sample.len() as f32;
        for (j, mean) in centres.iter().enumerate() {
            let (mut var, mut count) = ([0.0f32; 3], 0usize);
            for (a, p) in assign.iter().zip(&sample) {
                if *a == j {
                    for ((v, x), m) in var.iter_mut().zip(p).zip(mean) {
                        *v += (x - m).powi(2);
                    }
                    count += 1;
                }
            }
            if count == 0 {
                continue;
            }
            let var = var.map(|v| (v / count as f32).max(MIN_VAR));
            parts.push((count as f32 / n, *mean, var));
        }
        Some(Mixture { parts })
    }

    /// Log-likelihood of `p`.
    fn log_likelihood(&self, p: [f32; 3]) -> f32 {
        let mut best = f32::NEG_INFINITY;
        let terms: Vec<f32> = self
            .parts
            .iter()
            .map(|(w, m, v)| {
                let mut s = w.max(1e-6).ln();
                for c in 0..3 {
                    s -= 0.5 * ((p[c] - m[c]).powi(2) / v[c] + v[c].ln());
                }
                best = best.max(s);
                s
            })
            .collect();
        best + terms.iter().map(|t| (t - best).exp()).sum::<f32>().ln()
    }
}

/// The border band's pixel indices for the top, left and right sides, and for the bottom.
fn border_bands(w: usize, h: usize) -> (Vec<usize>, Vec<usize>) {
    let band = ((w.min(h) as f32 * 0.03).round() as usize).clamp(2, (w.min(h) / 2).max(2));
    let mut sides = Vec::new();
    let mut bottom = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if y + band >= h {
                bottom.push(y * w + x);
            } else if x < band || y < band || x + band >= w {
                sides.push(y * w + x);
            }
        }
    }
    (sides, bottom)
}

/// Segment the subject of `work` (smoothed Oklab, row-major `w × h`).
pub(crate) fn segment(work: &[Lab], w: usize, h: usize) -> Cut {
    let n = w * h;
    let feats: Vec<[f32; 3]> = work.iter().map(|c| feature(*c)).collect();

    // 1. Ground colours from the top, left and right bands; the bottom where it matches them.
    let (sides, bottom) = border_bands(w, h);
    let side_pts: Vec<[f32; 3]> = sides.iter().map(|i| feats[*i]).collect();
    let ground0 = Mixture::fit(&side_pts, GROUND_CLUSTERS).unwrap_or(Mixture { parts: Vec::new() });
    let all: Vec<[f32; 3]> =
        ground0.parts.iter().filter(|(wt, _, _)| *wt >= MIN_CLUSTER_SHARE).map(|(_, m, _)| *m).collect();
    let nearest_of = |cs: &[[f32; 3]], p: [f32; 3]| {
        cs.iter()
            .enumerate()
            .map(|(k, c)| (k, dist2(p, *c)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(k, d)| (k, d.sqrt()))
    };
    // The border's own spread: the median distance of side pixels from their nearest colour.
    let mut spread: Vec<f32> = side_pts.iter().filter_map(|p| nearest_of(&all, *p).map(|(_, d)| d)).collect();
    let mid = spread.len() / 2;
    let spread = if spread.is_empty() { 0.0 } else { *spread.select_nth_unstable_by(mid, f32::total_cmp).1 };
    let threshold = (SEED_HIGH * spread).max(SEED_FLOOR);
    // Boundary connectivity: a ground colour runs along the frame's edge in proportion to its
    // area; a subject's colour that touches the edge somewhere covers far more than it touches.
    let (mut area, mut touch) = (vec![0usize; all.len()], vec![0usize; all.len()]);
    for y in 0..h {
        for x in 0..w {
            if let Some((k, d)) = nearest_of(&all, feats[y * w + x])
                && d < threshold
            {
                area[k] += 1;
                touch[k] += usize::from(x == 0 || y == 0 || x + 1 == w || y + 1 == h);
            }
        }
    }
    let centres: Vec<[f32; 3]> = (0..all.len())
        .filter(|k| area[*k] > 0 && touch[*k] as f32 / (area[*k] as f32).sqrt() >= MIN_CONNECTIVITY)
        .map(|k| all[k])
        .collect();
    let centres = if centres.is_empty() { all } else { centres };
    let nearest = |p: [f32; 3]| nearest_of(&centres, p).map_or(f32::MAX, |(_, d)| d);

    // 2. Saliency.
    let raw_sal = Plane { w, h, data: feats.iter().map(|p| nearest(*p) / threshold).collect() };
    let saliency = raw_sal.box_blur(1);

    // 3. Trimap: 1 sure subject, 0 sure ground, 2 unknown.
    let mut trimap = vec![2u8; n];
    for (t, s) in trimap.iter_mut().zip(&saliency.data) {
        if *s >= 1.0 {
            *t = 1;
        } else if *s < SEED_LOW {
            *t = 0;
        }
    }
    for i in sides.iter().chain(bottom.iter()) {
        if saliency.data[*i] < 1.0 {
            trimap[*i] = 0;
        }
    }
    let seeds = trimap.iter().filter(|t| **t == 1).count();

    // 4. GrabCut-style rounds.
    let mut prob = Plane { w, h, data: trimap.iter().map(|t| if *t == 1 { 1.0 } else { 0.0 }).collect() };
    let beta = {
        let (mut sum, mut count) = (0.0f64, 0usize);
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                if x + 1 < w {
                    sum += f64::from(dist2(feats[i], feats[i + 1]));
                    count += 1;
                }
                if y + 1 < h {
                    sum += f64::from(dist2(feats[i], feats[i + w]));
                    count += 1;
                }
            }
        }
        let mean = (sum / count.max(1) as f64) as f32;
        if mean > 0.0 { 1.0 / (2.0 * mean) } else { 0.0 }
    };
    // Neighbour weights: right, down, down-right, down-left (symmetric).
    let offsets: [(isize, isize, f32); 4] =
        [(1, 0, 1.0), (0, 1, 1.0), (1, 1, std::f32::consts::FRAC_1_SQRT_2), (-1, 1, std::f32::consts::FRAC_1_SQRT_2)];
    let mut weights = vec![[0.0f32; 4]; n];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            for (k, (dx, dy, f)) in offsets.iter().enumerate() {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                    continue;
                }
                let j = ny as usize * w + nx as usize;
                weights[i][k] = SMOOTHNESS * f * (-beta * dist2(feats[i], feats[j])).exp();
            }
        }
    }
    let mut data = vec![0.0f32; n];
    if seeds > 0 {
        for _round in 0..ROUNDS {
            let fg_pts: Vec<[f32; 3]> = (0..n).filter(|i| prob.data[*i] >= 0.5).map(|i| feats[i]).collect();
            let bg_pts: Vec<[f32; 3]> = (0..n).filter(|i| prob.data[*i] < 0.5).map(|i| feats[i]).collect();
            let (Some(fg), Some(bg)) =
                (Mixture::fit(&fg_pts, SUBJECT_CLUSTERS), Mixture::fit(&bg_pts, GROUND_CLUSTERS))
            else {
                break;
            };
            for (d, p) in data.iter_mut().zip(&feats) {
                *d = (fg.log_likelihood(*p) - bg.log_likelihood(*p)).clamp(-DATA_CLAMP, DATA_CLAMP);
            }
            for _ in 0..MEAN_FIELD_STEPS {
                let spin: Vec<f32> = prob.data.iter().map(|q| 2.0 * q - 1.0).collect();
                let mut field = data.clone();
                for y in 0..h {
                    for x in 0..w {
                        let i = y * w + x;
                        for (k, (dx, dy, _)) in offsets.iter().enumerate() {
                            let wt = weights[i][k];
                            if wt == 0.0 {
                                continue;
                            }
                            let j = (y as isize + dy) as usize * w + (x as isize + dx) as usize;
                            field[i] += wt * spin[j];
                            field[j] += wt * spin[i];
                        }
                    }
                }
                for ((q, f), t) in prob.data.iter_mut().zip(&field).zip(&trimap) {
                    *q = match t {
                        0 => 0.0,
                        1 => 1.0,
                        _ => 1.0 / (1.0 + (-f).exp()),
                    };
                }
            }
        }
    }
    let raw = Mask { w, h, data: prob.data.iter().map(|q| u8::from(*q >= 0.5)).collect() };

    let mask = clean(&raw, &prob);
    Cut { mask, raw, saliency, seeds, learned: false }
}

/// Step 5, the clean-up of a raw segmentation (shared with the learned segmenter): an opening
/// (radius 1), the largest component and any at least [`KEEP_SHARE`] of it, and the holes filled
/// except those large enough and clearly ground by `prob` (the subject probability).
pub(crate) fn clean(raw: &Mask, prob: &Plane) -> Mask {
    let opened = raw.open(1);
    let kept = if opened.count() == 0 { opened } else { opened.keep_largest(KEEP_SHARE) };
    fill_holes_keeping_real(&kept, prob)
}

/// Fill the holes of `mask` except those large enough and clearly ground by `prob`.
fn fill_holes_keeping_real(mask: &Mask, prob: &Plane) -> Mask {
    let (w, h) = (mask.w, mask.h);
    let area = mask.count();
    let inverse = Mask { w, h, data: mask.data.iter().map(|v| 1 - v).collect() };
    let (labels, sizes) = inverse.components();
    let mut touches = vec![false; sizes.len()];
    let mut sum = vec![0.0f32; sizes.len()];
    for y in 0..h {
        for x in 0..w {
            let l = labels[y * w + x];
            if l == 0 {
                continue;
            }
            sum[l as usize - 1] += prob.data[y * w + x];
            if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
                touches[l as usize - 1] = true;
            }
        }
    }
    let fill: Vec<bool> = (0..sizes.len())
        .map(|k| {
            let size = sizes[k] as f32;
            !touches[k]
                && (size < SMALL_HOLE * area as f32 || size > LARGE_HOLE * area as f32 || sum[k] / size >= HOLE_GROUND)
        })
        .collect();
    let data =
        mask.data.iter().zip(&labels).map(|(v, l)| u8::from(*v != 0 || (*l != 0 && fill[*l as usize - 1]))).collect();
    Mask { w, h, data }
}
