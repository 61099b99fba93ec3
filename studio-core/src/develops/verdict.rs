//! Verdicts on developed frames (the agent tool `get_verdict`) and redraws (`redraw`).
//!
//! A verdict is free and reads pixels only: the frame is decoded under the decode limits and
//! measured for sharpness (the Laplacian's spread on edges, normalised by their slope, judged at
//! 1,024 px), exposure and clipping (the pre-flight's measurements), and framing against what
//! the develop asked for (the tier's long edge; the piece running into the border). A redraw is
//! refused when the verdict says it cannot help (`REDRAW_FUTILE`) or there is no frame to judge
//! (`VERDICT_UNREADABLE`), charging nothing; otherwise it is exactly a take of that one frame
//! ([`Studio::take_again`]), so its price, hold and rules are the develops' own.

use crate::ids::JobId;

use crate::develops::Develops;
use image::RgbImage;

use crate::api::{
    FrameMeasures, JobStatus, MarkSeverity, Quality, RedrawRequest, TakesRequest, TakesResponse, Verdict, VerdictMark,
    VerdictRequest,
};
use crate::caller::Caller;
use crate::develops::preflight::{Exposure, Facts, decode_small, exposure_issues, measure};
use crate::error::{Error, ErrorKind, Result};
use crate::storage::{JobRow, VerdictRow};

/// The judge that computes verdicts: this file's pixel measurements.
pub(crate) const JUDGE_MODEL: &str = "pixel-judge";
/// The version of the scoring rules above; raise it when the marks or penalties change, so
/// stored verdicts of different rules are never rolled up as one.
pub(crate) const VERDICT_RUBRIC: i64 = 1;
/// A readable verdict at or above this score passes.
pub(crate) const PASS_SCORE: i64 = 70;

/// Long edge at which sharpness is judged, whatever the tier.
const JUDGE_EDGE: u32 = 1024;
/// A lightness slope (per pixel, 0..1 luma) that counts as an edge.
const EDGE_SLOPE: f32 = 0.02;
/// Fewer edge pixels than this share of the frame: nothing crisp to judge.
const MIN_EDGES: f32 = 0.0005;
/// The ratio of RMS Laplacian to mean slope on edges that counts as fully crisp: a clean edge
/// at the judging size reaches about 2; one enlarged 2× about 1.3, 2.5× about 1, 5× about 0.4.
const CRISP: f32 = 2.0;
/// Sharpness under which a frame is soft, and very soft.
const SOFT: f64 = 0.5;
const VERY_SOFT: f64 = 0.25;
/// The most the main input may be enlarged to reach the tier before the detail is invented.
const MAX_ENLARGEMENT: f32 = 2.0;
/// The frame's long edge may fall this short of the tier's and still count as full size.
const SIZE_TOLERANCE: f32 = 0.99;

/// What became of the develop's main input.
#[derive(Debug, Clone, PartialEq)]
enum Input {
    /// Decoded; its long edge.
    Read(u32),
    /// Gone or undecodable, and why.
    Unreadable(String),
}

/// What the developed frame measured.
#[derive(Debug, Clone, PartialEq)]
struct Frame {
    facts: Facts,
    sharpness: f64,
}

fn mark(code: &str, severity: MarkSeverity, says: impl Into<String>) -> VerdictMark {
    VerdictMark { code: code.to_string(), says: says.into(), severity }
}

fn rounded(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// Edge crispness, 0..1: on pixels whose luma slope passes [`EDGE_SLOPE`], the RMS of the
/// 4-neighbour Laplacian over the mean slope (a blur of σ pixels divides it by about σ),
/// scaled by [`CRISP`]. 0 when the frame has almost no edges.
fn sharpness(img: &RgbImage) -> f64 {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < 3 || h < 3 {
        return 0.0;
    }
    let l: Vec<f32> = img
        .pixels()
        .map(|p| (0.2126 * f32::from(p.0[0]) + 0.7152 * f32::from(p.0[1]) + 0.0722 * f32::from(p.0[2])) / 255.0)
        .collect();
    let (mut lap2, mut slope, mut n) = (0.0f64, 0.0f64, 0usize);
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            let g = (0.5 * (l[i + 1] - l[i - 1])).hypot(0.5 * (l[i + w] - l[i - w]));
            if g < EDGE_SLOPE {
                continue;
            }
            let lap = l[i + 1] + l[i - 1] + l[i + w] + l[i - w] - 4.0 * l[i];
            lap2 += f64::from(lap * lap);
            slope += f64::from(g);
            n += 1;
        }
    }
    if (n as f32) < MIN_EDGES * (w * h) as f32 {
        return 0.0;
    }
    let ratio = (lap2 / n as f64).sqrt() / (slope / n as f64);
    (ratio / f64::from(CRISP)).clamp(0.0, 1.0)
}

/// Decode and measure a developed frame (blocking).
fn measure_frame(bytes: &[u8]) -> Result<Frame> {
    let decoded = decode_small(bytes, JUDGE_EDGE, "RESULT_UNREADABLE", "result")?;
    let sharpness = sharpness(&decoded.small);
    Ok(Frame { facts: measure(&decoded)?, sharpness })
}

/// Decode the main input (blocking): its long edge, or why it cannot be read.
fn read_input(bytes: &[u8]) -> Input {
    match decode_small(bytes, 64, "INPUT_UNREADABLE", "input") {
        Ok(d) => Input::Read(d.long_edge),
        Err(e) => Input::Unreadable(e.message),
    }
}

/// Marks and score for a landed frame.
fn assess(job_id: &str, tier: Quality, frame: &Frame, input: &Input) -> Verdict {
    let f = &frame.facts;
    let expected = tier.long_edge();
    let mut marks = Vec::new();
    let mut penalty = 0.0f64;
    let mut futile = false;
    let input_long_edge = match input {
        Input::Read(edge) => Some(*edge),
        Input::Unreadable(why) => {
            futile = true;
            marks.push(mark(
                "input-unreadable",
                MarkSeverity::High,
                format!("The develop's input cannot be read ({why}), so a redraw has nothing to start from."),
            ));
            None
        }
    };
    if let Some(edge) = input_long_edge
        && (edge as f32) * MAX_ENLARGEMENT < expected as f32
    {
        futile = true;
        penalty += 20.0;
        marks.push(mark(
            "input-too-small",
            MarkSeverity::High,
            format!(
                "The input is {edge} px on the long edge, {:.1}× short of the {expected} px this quality asks for: \
                 the detail was never captured, and a redraw cannot add it.",
                expected as f32 / edge.max(1) as f32
            ),
        ));
    }
    let ratio = f.long_edge as f32 / expected as f32;
    if ratio < SIZE_TOLERANCE {
        penalty += 30.0 * f64::from(1.0 - ratio);
        let severity = if ratio < 0.75 { MarkSeverity::High } else { MarkSeverity::Medium };
        marks.push(mark(
            "undersized",
            severity,
            format!("The frame is {} px on the long edge where {tier} asks for {expected}.", f.long_edge),
        ));
    }
    if frame.sharpness < SOFT {
        penalty += 40.0 * (SOFT - frame.sharpness) / SOFT;
        let severity = if frame.sharpness < VERY_SOFT { MarkSeverity::High } else { MarkSeverity::Medium };
        marks.push(mark(
            "soft",
            severity,
            format!(
                "Edges are soft (sharpness {:.2} of 1): the piece's texture and stitching will not read.",
                frame.sharpness
            ),
        ));
    }
    for (issue, m) in exposure_issues(f) {
        let m = f64::from(m);
        let severe = if m > 0.5 { MarkSeverity::High } else { MarkSeverity::Medium };
        let (code, says) = match issue {
            Exposure::ClippedHighlights(s) => {
                ("clipped-highlights", format!("{:.0}% of the piece is blown to white.", s * 100.0))
            }
            Exposure::ClippedShadows(s) => {
                ("clipped-shadows", format!("{:.0}% of the piece is crushed to black.", s * 100.0))
            }
            Exposure::Dark => ("too-dark", "The frame is underexposed: nothing in it reaches near white.".to_string()),
            Exposure::Bright => {
                ("too-bright", "The frame is washed out: nothing in it is darker than light grey.".to_string())
            }
        };
        penalty += 10.0 + 15.0 * m;
        marks.push(mark(code, severe, says));
    }
    let touches_edge = f.found && f.touches_edge();
    if touches_edge {
        penalty += 5.0;
        marks.push(mark("cropped-edge", MarkSeverity::Low, "The piece runs into the frame's border."));
    }
    marks.sort_by_key(|m| match m.severity {
        MarkSeverity::High => 0,
        MarkSeverity::Medium => 1,
        MarkSeverity::Low => 2,
    });
    Verdict {
        job_id: job_id.to_string(),
        score: (100.0 - penalty).round().clamp(0.0, 100.0) as u32,
        marks,
        retry_futile: futile,
        readable: true,
        measured: Some(FrameMeasures {
            sharpness: rounded(frame.sharpness),
            exposure: rounded(f64::from(f.mean_l)),
            clipped_shadows: rounded(f64::from(f.clipped_shadows)),
            clipped_highlights: rounded(f64::from(f.clipped_highlights)),
            long_edge: f.long_edge,
            expected_long_edge: expected,
            input_long_edge,
            touches_edge,
        }),
    }
}

/// A verdict with no frame to judge.
fn unreadable(job_id: &str, marks: Vec<VerdictMark>, retry_futile: bool) -> Verdict {
    Verdict { job_id: job_id.to_string(), score: 0, marks, retry_futile, readable: false, measured: None }
}

/// The direction a redraw carries: what the verdict marked, in one line.
fn direction(verdict: &Verdict) -> Option<String> {
    if verdict.marks.is_empty() {
        return None;
    }
    let said: Vec<String> = verdict.marks.iter().map(|m| format!("{} ({})", m.code, m.says)).collect();
    let text = format!("Redraw after a verdict of {}/100; fix: {}", verdict.score, said.join("; "));
    Some(text.chars().take(1000).collect())
}

impl Develops<'_> {
    /// The develop's main input (role `image`, else the first): its long edge or why it cannot
    /// be read.
    async fn main_input(&self, job: &JobRow) -> Input {
        let inputs = job.input_list();
        let Some(input) = inputs.iter().find(|i| i.role == "image").or(inputs.first()) else {
            return Input::Unreadable("the develop has no input".into());
        };
        let bytes = match self.studio.blobs.get_bytes(&input.blob_key).await {
            Ok(b) => b,
            Err(e) => return Input::Unreadable(format!("its bytes are gone: {e}")),
        };
        tokio::task::spawn_blocking(move || read_input(&bytes))
            .await
            .unwrap_or_else(|e| Input::Unreadable(format!("reading it failed: {e}")))
    }

    /// The agent tool `get_verdict`: how good a develop's frame is, and whether a redraw can
    /// help. Free. A develop that has not landed is `readable: false` with score 0 and a mark
    /// saying why. 404 `NOT_FOUND` for an unknown or foreign job.
    pub async fn verdict(&self, caller: &Caller, req: VerdictRequest) -> Result<Verdict> {
        let job = self.own_job(caller, &JobId::from(req.job_id.trim())).await?;
        let verdict = self.judge(&job).await?;
        if job.job_status() == JobStatus::Done {
            self.keep_verdict(&job, &verdict).await?;
        }
        Ok(verdict)
    }

    /// Keep a verdict on a landed frame (once per job and rubric: a verdict is a pure function
    /// of the frame and its input, so the first one kept stands).
    pub(crate) async fn keep_verdict(&self, job: &JobRow, verdict: &Verdict) -> Result<VerdictRow> {
        let score = i64::from(verdict.score);
        let row = VerdictRow {
            id: crate::ids::new_id("vrd"),
            job_id: job.id.clone(),
            frame_id: job.result_asset_id.clone(),
            org_id: job.org_id.clone(),
            tool: job.tool.clone(),
            model: JUDGE_MODEL.to_string(),
            rubric: VERDICT_RUBRIC,
            score,
            readable: verdict.readable,
            passed: verdict.readable && score >= PASS_SCORE,
            marks: serde_json::to_string(&verdict.marks).map_err(Error::internal)?,
            created_at: crate::ids::now(),
        };
        self.studio.admin().store_verdict(&row).await
    }

    /// The verdict on a job of any house (computed; kept by the caller when it landed).
    pub(crate) async fn judge(&self, job: &JobRow) -> Result<Verdict> {
        let id = job.id.as_str();
        match job.job_status() {
            status @ (JobStatus::Queued | JobStatus::Running) => Ok(unreadable(
                id,
                vec![mark(
                    "not-developed",
                    MarkSeverity::High,
                    format!("The develop is still {}; there is no frame to judge yet.", status.as_str()),
                )],
                false,
            )),
            JobStatus::Cancelled => Ok(unreadable(
                id,
                vec![mark(
                    "cancelled",
                    MarkSeverity::High,
                    "The develop was cancelled before it landed; there is no frame.",
                )],
                false,
            )),
            JobStatus::Failed => {
                let why = job.error.clone().unwrap_or_else(|| "no reason was recorded".into());
                let mut marks =
                    vec![mark("failed", MarkSeverity::High, format!("The develop failed ({why}); there is no frame."))];
                // Only a refusal of the inputs ends a job before its last attempt; an outage
                // ends it on the last one.
                let mut futile = job.attempts < self.studio.config.runner.max_attempts;
                if let Input::Unreadable(reason) = self.main_input(job).await {
                    futile = true;
                    marks.push(mark(
                        "input-unreadable",
                        MarkSeverity::High,
                        format!("The develop's input cannot be read ({reason}); a redraw would fail the same way."),
                    ));
                }
                Ok(unreadable(id, marks, futile))
            }
            JobStatus::Done => {
                let result = match &job.result_asset_id {
                    Some(asset) => self.studio.library().asset(asset).await?.filter(|a| a.org_id == job.org_id),
                    None => None,
                };
                let bytes = match result {
                    Some(a) => self.studio.blobs.get_bytes(&a.blob_key).await.ok(),
                    None => None,
                };
                let Some(bytes) = bytes else {
                    let says = "The frame landed but its file cannot be found.";
                    return Ok(unreadable(id, vec![mark("result-unreadable", MarkSeverity::High, says)], false));
                };
                let input = self.main_input(job).await;
                let frame =
                    tokio::task::spawn_blocking(move || measure_frame(&bytes)).await.map_err(Error::internal)?;
                match frame {
                    Ok(frame) => Ok(assess(id, job.quality_tier(), &frame, &input)),
                    Err(e) => {
                        let says = format!("The frame cannot be decoded: {}", e.message);
                        Ok(unreadable(id, vec![mark("result-unreadable", MarkSeverity::High, says)], false))
                    }
                }
            }
        }
    }

    /// The agent tool `redraw`: develop a flagged frame again, as a take of that one frame (its
    /// price held, `retryOfJobId` linking it, the marks as its direction). Refused, charging
    /// nothing: 403 for a viewer; 404 `NOT_FOUND`; 422 `REDRAW_FUTILE` when the verdict says a
    /// redraw cannot help; 422 `VERDICT_UNREADABLE` when there is no frame to judge; and every
    /// refusal of [`Studio::take_again`] (402 with need and spendable, ...).
    pub async fn redraw(&self, caller: &Caller, req: RedrawRequest) -> Result<TakesResponse> {
        caller.require_spend_tokens()?;
        let verdict = self.verdict(caller, VerdictRequest { job_id: req.job_id }).await?;
        if verdict.retry_futile {
            let why: Vec<&str> = verdict.marks.iter().map(|m| m.says.as_str()).collect();
            return Err(Error::new(
                ErrorKind::Unprocessable,
                "REDRAW_FUTILE",
                format!("A redraw cannot help this frame: {}", why.join(" ")),
            ));
        }
        if !verdict.readable {
            let why: Vec<&str> = verdict.marks.iter().map(|m| m.says.as_str()).collect();
            return Err(Error::new(
                ErrorKind::Unprocessable,
                "VERDICT_UNREADABLE",
                format!("There is no frame to redraw: {}", why.join(" ")),
            ));
        }
        let key = req
            .idempotency_key
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .map(|k| format!("redraw:{}:{k}", verdict.job_id));
        let takes = TakesRequest {
            job_ids: Some(vec![verdict.job_id.clone()]),
            direction: direction(&verdict),
            idempotency_key: key,
        };
        Ok(self.take_again(caller, takes).await?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::develops::preflight::tests::{CENTRED, GREY, clean, png, scene};
    use crate::providers::local::ops;

    fn frame_of(img: &RgbImage) -> Frame {
        measure_frame(&png(img)).expect("frame")
    }

    #[test]
    fn sharpness_tells_a_crisp_frame_from_an_enlarged_thumbnail() {
        let crisp = ops::resize_rgb(&clean(), 1024, 768).expect("down");
        let thumb = ops::resize_rgb(&scene(40, 30, GREY, CENTRED), 1024, 768).expect("up");
        let (a, b) = (sharpness(&crisp), sharpness(&thumb));
        assert!(a >= SOFT && b < VERY_SOFT, "crisp {a}, enlarged {b}");
        assert_eq!(sharpness(&RgbImage::from_pixel(200, 100, image::Rgb([128, 128, 128]))), 0.0, "nothing to judge");
    }

    #[test]
    fn a_good_frame_scores_high_and_can_be_redrawn() {
        let frame = frame_of(&ops::resize_rgb(&clean(), 1024, 768).expect("down"));
        let v = assess("job_1", Quality::K1, &frame, &Input::Read(1600));
        assert!(v.readable && !v.retry_futile, "{v:#?}");
        assert!(v.score >= 85, "{v:#?}");
        assert!(v.marks.iter().all(|m| m.severity == MarkSeverity::Low), "{v:#?}");
        let m = v.measured.expect("measured");
        assert_eq!((m.long_edge, m.expected_long_edge, m.input_long_edge), (1024, 1024, Some(1600)));
        assert!(m.exposure > 0.5 && m.clipped_shadows < 0.01 && !m.touches_edge, "{m:?}");
    }

    #[test]
    fn an_enlarged_thumbnail_is_futile_to_redraw() {
        let frame = frame_of(&ops::resize_rgb(&scene(40, 30, GREY, CENTRED), 1024, 768).expect("up"));
        let v = assess("job_2", Quality::K1, &frame, &Input::Read(40));
        assert!(v.readable && v.retry_futile, "{v:#?}");
        let codes: Vec<&str> = v.marks.iter().map(|m| m.code.as_str()).collect();
        assert!(codes.contains(&"input-too-small") && codes.contains(&"soft"), "{codes:?}");
        assert!(v.score < 60, "{v:#?}");
        assert!(direction(&v).is_some_and(|d| d.contains("soft")));
        // An unreadable input is futile too; an undersized frame is marked.
        let v = assess("job_3", Quality::K2, &frame, &Input::Unreadable("gone".into()));
        assert!(v.retry_futile);
        assert!(v.marks.iter().any(|m| m.code == "undersized"), "{v:#?}");
    }

    #[test]
    fn every_mark_is_in_the_vocabulary() {
        let frame =
            frame_of(&ops::resize_rgb(&scene(40, 30, [30.0, 30.0, 30.0], [0.5, 0.2, 1.0, 0.8]), 1024, 768).unwrap());
        let v = assess("job_4", Quality::K4, &frame, &Input::Unreadable("gone".into()));
        assert!(!v.marks.is_empty());
        for m in &v.marks {
            assert!(crate::api::VERDICT_MARK_CODES.contains(&m.code.as_str()), "{}", m.code);
        }
        assert!(read_input(b"nope") != Input::Read(0));
        assert!(matches!(read_input(&png(&clean())), Input::Read(1600)));
    }
}
