//! The subject gate (issue 40): measures a cutout mask before any frame lands, and refuses an
//! implausible one with `SUBJECT_NOT_FOUND` and a sentence saying what was measured. Every
//! threshold lives here, as a named constant; docs/providers.md lists them.
//!
//! What is measured, at the analysis size ([`super::subject::WORK_EDGE`]):
//!
//! - **coverage**: the share of the frame the subject covers;
//! - **components**: how many separate pieces the segmentation's own answer broke into (before
//!   clean-up, pieces of at least [`SPECK`] of the frame), and the share of the kept subject the
//!   largest piece holds;
//! - **holes**: the share of the subject's outline (holes filled) that is holes;
//! - **border contact**: the share of the frame's perimeter the subject runs along;
//! - **edge agreement**: the mean colour contrast across the subject's outline, against the frame's
//!   mean contrast between neighbours (an outline that follows real edges scores well above 1);
//! - **saliency**: how far the subject stands from the border's colours, inside against outside
//!   (in units of the seed threshold), and the share of the frame seeded as sure subject.

use super::grabcut::Cut;
use super::ops::{Lab, Mask};

/// Least share of the frame a subject covers.
pub(crate) const MIN_COVERAGE: f32 = 0.005;
/// Most share of the frame a subject covers (more is the whole frame, not a subject).
pub(crate) const MAX_COVERAGE: f32 = 0.92;
/// A piece smaller than this share of the frame is a speck and is not counted.
pub(crate) const SPECK: f32 = 0.0005;
/// Most separate pieces the segmentation may break into.
pub(crate) const MAX_PIECES: usize = 45;
/// Most share of the subject's filled outline that may be holes.
pub(crate) const MAX_HOLES: f32 = 0.35;
/// Most share of the frame's perimeter the subject may run along.
pub(crate) const MAX_BORDER: f32 = 0.3;
/// A side of the frame counts as touched when the subject runs along this share of it...
pub(crate) const SIDE_TOUCH: f32 = 0.05;
/// ...and a subject that touches this many sides fills the frame like a pattern: refused.
pub(crate) const MAX_SIDES: usize = 3;
/// Least contrast across the outline, as a multiple of the frame's mean neighbour contrast.
pub(crate) const MIN_EDGE: f32 = 2.0;
/// Least saliency inside the subject minus outside (units of the seed threshold).
pub(crate) const MIN_SALIENCY: f32 = 0.6;
/// Least share of the frame seeded as sure subject.
pub(crate) const MIN_SEEDS: f32 = 0.002;
/// A learned mask replaces the classical one when it passes the gate and the model is this sure
/// of it: saliency inside minus outside (the learned saliency is twice the probability, so 1.2
/// is a probability 0.6 higher inside than outside).
pub(crate) const LEARNED_CONFIDENCE: f32 = 1.2;

/// What the gate measured on one mask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Measures {
    /// Share of the frame the subject covers.
    pub(crate) coverage: f32,
    /// Pieces of the raw segmentation (at least [`SPECK`] of the frame).
    pub(crate) pieces: usize,
    /// Share of the subject's filled outline that is holes.
    pub(crate) holes: f32,
    /// Share of the frame's perimeter the subject runs along.
    pub(crate) border: f32,
    /// Sides of the frame the subject runs along for at least [`SIDE_TOUCH`] of their length.
    pub(crate) sides: usize,
    /// Contrast across the outline over the frame's mean neighbour contrast.
    pub(crate) edge: f32,
    /// Mean saliency inside minus outside.
    pub(crate) saliency: f32,
    /// Share of the frame seeded as sure subject.
    pub(crate) seeds: f32,
    /// Whether saliency and seeds are the learned segmenter's probability (else colour saliency).
    pub(crate) learned: bool,
}

/// The gate's answer on a mask: its measures, and the refusal when it is implausible.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    /// What was measured.
    pub(crate) measures: Measures,
    /// Why the mask is refused (a sentence naming the measurement); None when it passes.
    pub(crate) refusal: Option<String>,
}

fn dist(a: Lab, b: Lab) -> f32 {
    ((a.l - b.l).powi(2) + 2.25 * ((a.a - b.a).powi(2) + (a.b - b.b).powi(2))).sqrt()
}

/// Measure `cut` on `work` (the smoothed Oklab copy it was segmented from).
pub(crate) fn measure(cut: &Cut, work: &[Lab]) -> Measures {
    let (_, sizes) = cut.raw.components();
    let n = (cut.mask.w * cut.mask.h) as f32;
    let pieces = sizes.iter().filter(|s| **s as f32 >= SPECK * n).count();
    let (mut sin, mut nin, mut sout, mut nout) = (0.0f64, 0usize, 0.0f64, 0usize);
    for (s, m) in cut.saliency.data.iter().zip(&cut.mask.data) {
        if *m != 0 {
            sin += f64::from(*s);
            nin += 1;
        } else {
            sout += f64::from(*s);
            nout += 1;
        }
    }
    let saliency = if nin == 0 { 0.0 } else { (sin / nin as f64 - sout / nout.max(1) as f64) as f32 };
    Measures { pieces, saliency, seeds: cut.seeds as f32 / n, learned: cut.learned, ..measure_mask(&cut.mask, work) }
}

/// What a mask alone tells (coverage, holes, border contact, edge agreement), with the
/// measures that need the segmentation's own data (pieces, saliency, seeds) set so they pass:
/// segment by a box or a point grows its mask from the caller's target, not from saliency.
pub(crate) fn measure_mask(mask: &Mask, work: &[Lab]) -> Measures {
    let (w, h) = (mask.w, mask.h);
    let n = (w * h) as f32;
    let area = mask.count();
    let coverage = area as f32 / n;

    let filled = mask.fill_holes(usize::MAX);
    let holes = if filled.count() == 0 { 0.0 } else { 1.0 - area as f32 / filled.count() as f32 };

    let mut on_border = 0usize;
    let mut per_side = [0usize; 4];
    let perimeter = 2 * (w + h) - 4;
    for y in 0..h {
        for x in 0..w {
            if mask.data[y * w + x] == 0 {
                continue;
            }
            on_border += usize::from(x == 0 || y == 0 || x + 1 == w || y + 1 == h);
            for (k, on) in [x == 0, y == 0, x + 1 == w, y + 1 == h].into_iter().enumerate() {
                per_side[k] += usize::from(on);
            }
        }
    }
    let border = on_border as f32 / perimeter.max(1) as f32;
    let lengths = [h, w, h, w];
    let sides = (0..4).filter(|k| per_side[*k] as f32 >= SIDE_TOUCH * lengths[*k] as f32).count();

    // Contrast across the outline (pairs of 4-neighbours on either side) against all pairs.
    let (mut edge_sum, mut edge_n, mut all_sum, mut all_n) = (0.0f64, 0usize, 0.0f64, 0usize);
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            for j in [(x + 1 < w).then(|| i + 1), (y + 1 < h).then(|| i + w)].into_iter().flatten() {
                let d = f64::from(dist(work[i], work[j]));
                all_sum += d;
                all_n += 1;
                if mask.data[i] != mask.data[j] {
                    edge_sum += d;
                    edge_n += 1;
                }
            }
        }
    }
    let mean_all = all_sum / all_n.max(1) as f64;
    let edge = if edge_n == 0 || mean_all <= 0.0 { 0.0 } else { (edge_sum / edge_n as f64 / mean_all) as f32 };

    Measures { coverage, pieces: 0, holes, border, sides, edge, saliency: f32::INFINITY, seeds: 1.0, learned: false }
}

/// Judge `m`: the first implausibility found, in words, or None.
pub(crate) fn judge(m: &Measures) -> Option<String> {
    let pct = |v: f32| format!("{:.1} %", v * 100.0);
    if m.seeds < MIN_SEEDS && m.learned {
        return Some(format!(
            "the learned segmenter sees no subject (probability over one half on {} of the frame, at least {} needed)",
            pct(m.seeds),
            pct(MIN_SEEDS)
        ));
    }
    if m.seeds < MIN_SEEDS {
        return Some(format!(
            "nothing in the frame stands apart from the colours along its border (sure subject {} of the frame, at least {} needed)",
            pct(m.seeds),
            pct(MIN_SEEDS)
        ));
    }
    if m.coverage < MIN_COVERAGE {
        return Some(format!(
            "the subject found covers {} of the frame, less than the {} a subject needs",
            pct(m.coverage),
            pct(MIN_COVERAGE)
        ));
    }
    if m.coverage > MAX_COVERAGE {
        return Some(format!(
            "the subject found covers {} of the frame (at most {}): nothing is set apart from a ground",
            pct(m.coverage),
            pct(MAX_COVERAGE)
        ));
    }
    if m.pieces > MAX_PIECES {
        return Some(format!(
            "the segmentation broke into {} separate pieces (at most {}): a texture or a scatter, not one subject",
            m.pieces, MAX_PIECES
        ));
    }
    if m.holes > MAX_HOLES {
        return Some(format!(
            "{} of the subject's outline is holes (at most {}): the mask is riddled, not a subject",
            pct(m.holes),
            pct(MAX_HOLES)
        ));
    }
    if m.border > MAX_BORDER {
        return Some(format!(
            "the subject runs along {} of the frame's border (at most {}): it is the ground, not a subject",
            pct(m.border),
            pct(MAX_BORDER)
        ));
    }
    if m.sides > MAX_SIDES {
        return Some(format!(
            "the subject runs off all {} sides of the frame: a pattern filling it, not a subject",
            m.sides
        ));
    }
    if m.saliency < MIN_SALIENCY && m.learned {
        return Some(format!(
            "the learned segmenter is unsure of the subject (probability inside minus outside {:.2}, at least {:.2} needed)",
            m.saliency / 2.0,
            MIN_SALIENCY / 2.0
        ));
    }
    if m.saliency < MIN_SALIENCY {
        return Some(format!(
            "the subject stands only {:.2} apart from its surroundings in colour (at least {:.2} needed)",
            m.saliency, MIN_SALIENCY
        ));
    }
    // A learned outline follows the object the network recognises, not colour contrast (a cat's
    // fur over a blurred ground of its own colours): edge agreement judges classical guesses only.
    if m.edge < MIN_EDGE && !m.learned {
        return Some(format!(
            "the outline follows no edge of the photograph (contrast across it {:.2}× the frame's mean, at least {:.2}× needed)",
            m.edge, MIN_EDGE
        ));
    }
    None
}

/// Measure and judge `cut`.
pub(crate) fn check(cut: &Cut, work: &[Lab]) -> Verdict {
    let measures = measure(cut, work);
    Verdict { refusal: judge(&measures), measures }
}

/// Which mask the cutout tools use when both segmenters ran on a frame the classical gate
/// accepted: the learned one when it passes the gate too and its model is at least
/// [`LEARNED_CONFIDENCE`] sure of it; otherwise the classical one. (The classical gate decides
/// whether the frame has a subject at all: a learned network finds something salient in nearly
/// any frame, even a texture.)
pub(crate) fn prefer(learned: Cut, classical: Cut, work: &[Lab]) -> Cut {
    let verdict = check(&learned, work);
    if verdict.refusal.is_none() && verdict.measures.saliency >= LEARNED_CONFIDENCE { learned } else { classical }
}

/// The gate on the mask of segment by a box or a point (see [`measure_mask`]).
pub(crate) fn check_mask(mask: &Mask, work: &[Lab]) -> Option<String> {
    judge(&measure_mask(mask, work))
}

/// The gate on a mask known exactly (an input's alpha or a supplied mask, at the analysis size):
/// only its coverage is judged, since it was drawn, not guessed.
pub(crate) fn check_exact(mask: &Mask) -> Option<String> {
    let coverage = mask.count() as f32 / (mask.w * mask.h).max(1) as f32;
    if coverage < MIN_COVERAGE {
        return Some(format!(
            "the mask given covers {:.1} % of the frame, less than the {:.1} % a subject needs",
            coverage * 100.0,
            MIN_COVERAGE * 100.0
        ));
    }
    None
}
