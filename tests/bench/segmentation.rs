//! Row S: the cutout segmentation on the evaluation set of issue 40 (`tests/data/segmentation`:
//! 14 real photographs, 9 with hand-drawn subject polygons, 5 without a subject). For each photo
//! the IoU with the drawn mask of the legacy segmenter (border threshold, no gate), the classical
//! one (saliency seeding, GrabCut-style iterations, subject gate) and, when `STUDIO_BENCH_U2NET`
//! names the weights `studio-server models fetch` installs, the learned one (U²-Net behind the
//! same gate, what the cutout tools run with those weights); the means over the nine; and whether
//! every photo without a subject is refused. Targets (on the learned segmenter when it is measured,
//! else the classical): mean IoU ≥ 0.8, all five refused. In-process (studio-core's
//! `evaluate_segmentation`); the smoke run is the same run.

use std::path::{Path, PathBuf};
use std::time::Instant;

use studio_core::{LearnedSegmenter, SegmentationScore, Segmenter, evaluate_segmentation, mean_iou};

use crate::common::{Options, Row};

/// Target mean IoU over the photos with a subject.
const TARGET: f64 = 0.8;

/// The three evaluations: legacy, classical and (when the weights are named) learned, with the
/// learned one's wall time per photo in milliseconds.
type Scores = (Vec<SegmentationScore>, Vec<SegmentationScore>, Option<(Vec<SegmentationScore>, f64)>);

fn evaluate(dir: &Path, weights: Option<PathBuf>) -> Result<Scores, String> {
    let old = evaluate_segmentation(dir, Segmenter::Legacy)?;
    let classical = evaluate_segmentation(dir, Segmenter::Current)?;
    let learned = match weights {
        Some(path) => {
            let model = LearnedSegmenter::load(&path)?;
            let started = Instant::now();
            let scores = evaluate_segmentation(dir, Segmenter::Learned(&model))?;
            let per_photo = started.elapsed().as_secs_f64() * 1000.0 / scores.len().max(1) as f64;
            Some((scores, per_photo))
        }
        None => None,
    };
    Ok((old, classical, learned))
}

fn show(s: &SegmentationScore) -> String {
    match (s.iou, &s.refused) {
        (Some(v), None) => format!("IoU {v:.3}"),
        (Some(v), Some(_)) => format!("IoU {v:.3} (refused)"),
        (None, Some(_)) => "refused".to_string(),
        (None, None) => "accepted".to_string(),
    }
}

/// Measure row S.
pub(crate) async fn run(_opts: &Options) -> anyhow::Result<Vec<Row>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/segmentation");
    let weights = std::env::var("STUDIO_BENCH_U2NET").ok().filter(|v| !v.trim().is_empty()).map(PathBuf::from);
    let (old, classical, learned) =
        tokio::task::spawn_blocking(move || evaluate(&dir, weights)).await?.map_err(anyhow::Error::msg)?;
    let mut rows = Vec::new();
    for (k, (a, b)) in old.iter().zip(&classical).enumerate() {
        let what = if b.has_subject { "with a subject" } else { "no subject: refusal expected" };
        let (studio, baseline) = match &learned {
            Some((l, _)) => (format!("learned {}", show(&l[k])), format!("classical {}, legacy {}", show(b), show(a))),
            None => (format!("classical {}", show(b)), format!("legacy {}", show(a))),
        };
        rows.push(Row::info(format!("S. segmentation, {} ({what})", b.name), studio, baseline, ""));
    }
    let (old_mean, classical_mean) = (mean_iou(&old), mean_iou(&classical));
    let judged = learned.as_ref().map_or(&classical, |(l, _)| l);
    let mean = mean_iou(judged);
    let (label, baseline) = match &learned {
        Some(_) => ("learned", format!("classical {classical_mean:.3}, legacy {old_mean:.3}")),
        None => ("classical", format!("legacy {old_mean:.3} (learned not measured: set STUDIO_BENCH_U2NET)")),
    };
    rows.push(Row::new(
        "S. segmentation, mean IoU over the 9 photos with a subject",
        format!("{label} {mean:.3}"),
        baseline,
        format!("{mean:.3} / ≥ {TARGET}"),
        mean >= TARGET,
    ));
    let empty: Vec<_> = judged.iter().filter(|s| !s.has_subject).collect();
    let refused = empty.iter().filter(|s| s.refused.is_some()).count();
    let legacy_refused = old.iter().filter(|s| !s.has_subject && s.refused.is_some()).count();
    rows.push(Row::new(
        "S. segmentation, photos without a subject refused",
        format!("{label} {refused} of {}", empty.len()),
        format!("legacy {legacy_refused} of {}", empty.len()),
        format!("{refused} / {}", empty.len()),
        refused == empty.len(),
    ));
    if let Some((_, per_photo)) = &learned {
        rows.push(Row::info(
            "S. segmentation, learned: wall time per photo (both segmenters and the gate)",
            format!("{per_photo:.0} ms"),
            "",
            "",
        ));
    }
    Ok(rows)
}
