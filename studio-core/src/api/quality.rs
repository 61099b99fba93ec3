//! Quality on the wire: pre-flight checks on images before a develop (the agent tool
//! `preflight` and `POST /api/toolkit/ai/preflight`), the verdict on a developed frame
//! (`get_verdict`) and its redraw (`redraw`). Both vocabularies are closed and listed here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Every code a pre-flight finding may carry; anything else is dropped before answering.
pub const FINDING_CODES: [&str; 12] = [
    "too-small",
    "colour-cast",
    "exposure",
    "light-mismatch",
    "cropped-edge",
    "busy-background",
    "hard-shadow",
    "part-hidden",
    "mixed-subject",
    "face-unreadable",
    "not-full-length",
    "no-clear-subject",
];

/// The lenses a pre-flight may look through; without one only garment questions are asked.
pub const PREFLIGHT_LENSES: [&str; 2] = ["casting look", "build sheet"];

/// Most images one pre-flight checks (spec §8).
pub const MAX_PREFLIGHT_IMAGES: usize = 6;

/// Every code a verdict mark may carry.
pub const VERDICT_MARK_CODES: [&str; 13] = [
    "not-developed",
    "cancelled",
    "failed",
    "result-unreadable",
    "input-unreadable",
    "input-too-small",
    "undersized",
    "soft",
    "too-dark",
    "too-bright",
    "clipped-shadows",
    "clipped-highlights",
    "cropped-edge",
];

/// The agent tool `preflight`: check library images before paying for a develop. Free.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreflightRequest {
    /// Library asset ids of this house, 1 to 6, in order; findings name them by 1-based position.
    pub asset_ids: Vec<String>,
    /// Narrow the question: `casting look` (mixed-subject, face-unreadable, too-small,
    /// part-hidden, light-mismatch) or `build sheet` (not-full-length). Absent or empty asks the
    /// garment questions (light, colour, crop, shadow, background, size, hidden parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lens: Option<Vec<String>>,
}

/// Who can fix a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FixBy {
    /// The house itself, free, client-side (its own editor, a re-export).
    House,
    /// A develop pass, quoted before it runs.
    Paid,
    /// Nobody: the pixels were never captured; use another image.
    Swap,
}

/// One problem a pre-flight found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The problem, one of the closed vocabulary (`too-small`, `colour-cast`, `exposure`,
    /// `light-mismatch`, `cropped-edge`, `busy-background`, `hard-shadow`, `part-hidden`,
    /// `mixed-subject`, `face-unreadable`, `not-full-length`).
    pub code: String,
    /// The images it concerns, by 1-based position in the request.
    pub images: Vec<u32>,
    /// The consequence, in one sentence.
    pub says: String,
    /// What to do about it.
    pub fix: String,
    /// Who can fix it: `house` (free, client-side), `paid` (a develop pass) or `swap` (nobody).
    pub by: FixBy,
    /// Confidence from 0 to 1, from how far the measurement passed its threshold.
    pub sure: f64,
}

/// What a pre-flight answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreflightResult {
    /// Always true on an answer.
    pub ok: bool,
    /// Exactly `findings` being empty.
    pub clear: bool,
    /// Codes the caller said it fixed (`clearing`) that are no longer found.
    pub cleared: Vec<String>,
    /// Codes the caller said it fixed (`clearing`) that are still found.
    pub remaining: Vec<String>,
    /// The problems found, by image then by code; empty is the common answer.
    pub findings: Vec<Finding>,
    /// Questions of the lens nobody looked at: this deployment cannot answer them on pixels
    /// (`part-hidden`, `mixed-subject`, `face-unreadable`), so `clear` says nothing about them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_asked: Vec<String>,
}

/// The agent tool `get_verdict`: how good a developed frame is. Free.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictRequest {
    /// The develop (job) whose frame is judged.
    pub job_id: String,
}

/// How much a verdict mark weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MarkSeverity {
    /// Worth knowing; the frame is usable.
    Low,
    /// Visible in use.
    Medium,
    /// The frame is not fit for use, or there is no frame to judge.
    High,
}

/// One thing a verdict noticed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictMark {
    /// What was noticed, one of a closed vocabulary (`not-developed`, `cancelled`, `failed`,
    /// `result-unreadable`, `input-unreadable`, `input-too-small`, `undersized`, `soft`,
    /// `too-dark`, `too-bright`, `clipped-shadows`, `clipped-highlights`, `cropped-edge`).
    pub code: String,
    /// The consequence, in one sentence.
    pub says: String,
    /// How much it weighs.
    pub severity: MarkSeverity,
}

/// What a verdict measured on the developed frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FrameMeasures {
    /// Edge crispness from 0 (smeared) to 1 (crisp): the Laplacian's spread on edges,
    /// normalised by their gradient, judged at 1,024 px on the long edge.
    pub sharpness: f64,
    /// Mean lightness of the frame from 0 (black) to 1 (white).
    pub exposure: f64,
    /// Share of the piece's pixels (the frame's when no piece stands out) crushed to black.
    pub clipped_shadows: f64,
    /// Share of the piece's pixels (the frame's when no piece stands out) blown to white.
    pub clipped_highlights: f64,
    /// The frame's long edge in pixels.
    pub long_edge: u32,
    /// The long edge the develop's quality asks for (1k 1,024; 2k 2,048; 4k 4,096).
    pub expected_long_edge: u32,
    /// The long edge of the develop's main input, when it could be read.
    pub input_long_edge: Option<u32>,
    /// True when the piece runs into the frame's border.
    pub touches_edge: bool,
}

/// The answer of `get_verdict`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The develop judged.
    pub job_id: String,
    /// 0 to 100; 0 when there is no readable frame.
    pub score: u32,
    /// What was noticed, worst first.
    pub marks: Vec<VerdictMark>,
    /// True when a redraw cannot help (the input is too small or unreadable, or the develop
    /// was refused its inputs); `redraw` refuses it, charging nothing.
    pub retry_futile: bool,
    /// False when there is no developed frame to judge (queued, running, failed, cancelled or
    /// unreadable); `redraw` refuses it, charging nothing.
    pub readable: bool,
    /// The measurements behind the score; absent when not readable.
    pub measured: Option<FrameMeasures>,
}

/// The agent tool `redraw`: develop a flagged frame again at its own price.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedrawRequest {
    /// The develop (job) whose frame is redrawn.
    pub job_id: String,
    /// The same key for the same frame returns the existing redraw, holding nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}
