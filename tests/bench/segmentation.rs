//! Row S: the cutout segmentation on the evaluation set of issue 40 (`tests/data/segmentation`:
//! 14 real photographs, 9 with hand-drawn subject polygons, 5 without a subject). For each photo
//! the IoU of the legacy segmenter (border threshold, no gate) and of the current one (saliency
//! seeding, GrabCut-style iterations, subject gate) with the drawn mask; the means over the nine;
//! and whether every photo without a subject is refused. Targets: current mean IoU ≥ 0.8, all five
//! refused. In-process (studio-core's `evaluate_segmentation`); the smoke run is the same run.

use std::path::Path;

use studio_core::{Segmenter, evaluate_segmentation, mean_iou};

use crate::common::{Options, Row};

/// Target mean IoU over the photos with a subject.
const TARGET: f64 = 0.8;

/// Measure row S.
pub(crate) async fn run(_opts: &Options) -> anyhow::Result<Vec<Row>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/segmentation");
    let (old, new) = tokio::task::spawn_blocking(move || {
        let old = evaluate_segmentation(&dir, Segmenter::Legacy);
        let new = evaluate_segmentation(&dir, Segmenter::Current);
        (old, new)
    })
    .await?;
    let (old, new) = (old.map_err(anyhow::Error::msg)?, new.map_err(anyhow::Error::msg)?);
    let mut rows = Vec::new();
    for (a, b) in old.iter().zip(&new) {
        let show = |s: &studio_core::SegmentationScore| match (s.iou, &s.refused) {
            (Some(v), None) => format!("IoU {v:.3}"),
            (Some(v), Some(_)) => format!("IoU {v:.3} (refused)"),
            (None, Some(_)) => "refused".to_string(),
            (None, None) => "accepted".to_string(),
        };
        let what = if b.has_subject { "with a subject" } else { "no subject: refusal expected" };
        rows.push(Row::info(
            format!("S. segmentation, {} ({what})", b.name),
            show(b),
            format!("legacy {}", show(a)),
            "",
        ));
    }
    let (old_mean, new_mean) = (mean_iou(&old), mean_iou(&new));
    rows.push(Row::new(
        "S. segmentation, mean IoU over the 9 photos with a subject",
        format!("{new_mean:.3}"),
        format!("legacy {old_mean:.3}"),
        format!("{new_mean:.3} / ≥ {TARGET}"),
        new_mean >= TARGET,
    ));
    let empty: Vec<_> = new.iter().filter(|s| !s.has_subject).collect();
    let refused = empty.iter().filter(|s| s.refused.is_some()).count();
    let legacy_refused = old.iter().filter(|s| !s.has_subject && s.refused.is_some()).count();
    rows.push(Row::new(
        "S. segmentation, photos without a subject refused",
        format!("{refused} of {}", empty.len()),
        format!("legacy {legacy_refused} of {}", empty.len()),
        format!("{refused} / {}", empty.len()),
        refused == empty.len(),
    ));
    Ok(rows)
}
