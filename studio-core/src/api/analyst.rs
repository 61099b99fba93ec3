//! The analyst and the memory desk on the wire (`02-route-groups.md` §4.12, admin only): digests
//! of a period's figures with their cadence and runs, the reflection findings a digest raises and
//! the admins' decisions, and the observation and review of the houses' memories. Designed in
//! docs/analyst.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Memory;

/// The shortest cadence, in hours.
pub const MIN_CADENCE_HOURS: i64 = 1;
/// The longest cadence, in hours (four weeks).
pub const MAX_CADENCE_HOURS: i64 = 672;
/// The cadence before an admin sets one, in hours.
pub const DEFAULT_CADENCE_HOURS: i64 = 24;
/// The most digests `?history=` returns.
pub const MAX_DIGEST_HISTORY: u32 = 50;

/// The analyst's cadence: how often it writes a digest by itself, and whether it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalystCadence {
    /// Hours between digests, and the length of the period a digest covers (1 to 672).
    pub hours: i64,
    /// Whether the analyst writes digests by itself (off until an admin turns it on).
    pub enabled: bool,
    /// When an admin last changed it (null: never, the defaults are in force).
    pub updated_at: Option<DateTime<Utc>>,
}

/// `PATCH /api/toolkit/admin/analyst/cadence`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CadenceRequest {
    /// Required: hours between digests, 1 to 672 (400 `BAD_HOURS` outside, with min and max).
    #[serde(default)]
    pub hours: Option<i64>,
    /// Turn the analyst's own runs on or off (unchanged when absent).
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// `GET /api/toolkit/admin/analyst` query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DigestQuery {
    /// Also list up to this many earlier digests, newest first (at most 50).
    pub history: Option<u32>,
}

/// Who wrote a digest's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DigestWriter {
    /// The plain figures, written out (no AI reader, or too little to read).
    Figures,
    /// The AI reader, from the figures.
    Reader,
}

/// What started a digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DigestTrigger {
    /// An admin's run.
    Admin,
    /// The cadence.
    Cadence,
}

/// One tool's develops over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolFigures {
    /// The tool.
    pub tool: String,
    /// Develops queued in the period.
    pub total: i64,
    /// Of which landed.
    pub done: i64,
    /// Failed.
    pub failed: i64,
    /// Cancelled.
    pub cancelled: i64,
    /// Still queued or running.
    pub open: i64,
}

/// The tokens that moved over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenFigures {
    /// Granted (sign-up, admin and invitation grants).
    pub granted: i64,
    /// Bought (top-ups and plans).
    pub topped_up: i64,
    /// Spent (settled holds).
    pub settled: i64,
    /// Holds released (refused, failed or cancelled work).
    pub releases: i64,
}

/// The platform's figures over one period: what a digest is written from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DigestFigures {
    /// Houses opened.
    pub houses: i64,
    /// People signed up.
    pub people: i64,
    /// Images uploaded.
    pub uploads: i64,
    /// Develops queued in the period.
    pub develops: i64,
    /// Per tool.
    pub by_tool: Vec<ToolFigures>,
    /// Develops that landed a frame in the period.
    pub readable_frames: i64,
    /// Verdicts judged in the period that could read their frame: the reader writes the digest
    /// only when there are at least 5.
    pub readable_verdicts: i64,
    /// Tokens.
    pub tokens: TokenFigures,
    /// Holds open for more than an hour at the period's end.
    pub stale_holds: i64,
}

/// A digest: one period's figures and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// Id (`dig_…`).
    pub id: String,
    /// The period's start.
    pub period_start: DateTime<Utc>,
    /// The period's end.
    pub period_end: DateTime<Utc>,
    /// The figures.
    pub figures: DigestFigures,
    /// The summary in words.
    pub summary: String,
    /// Who wrote the words.
    pub writer: DigestWriter,
    /// What started it.
    pub trigger: DigestTrigger,
    /// The admin who asked, for an admin run.
    pub requested_by: Option<String>,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/admin/analyst`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalystView {
    /// The latest digest (null before the first).
    pub digest: Option<Digest>,
    /// Earlier digests, newest first, when `history` asked for them.
    pub history: Vec<Digest>,
    /// The cadence.
    pub cadence: AnalystCadence,
    /// Findings waiting for a decision.
    pub open_findings: i64,
}

/// `POST /api/toolkit/admin/analyst/run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalystRun {
    /// The digest: the one already written inside the cadence window, or a new one.
    pub digest: Digest,
    /// True when the digest was already there and nothing was run.
    pub reused: bool,
    /// True when the AI reader was asked to write it (never below the readable floor).
    pub model_called: bool,
    /// The findings this run raised (empty when reused).
    pub findings: Vec<ReflectionFinding>,
}

/// A finding's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FindingStatus {
    /// Waiting for a decision.
    Open,
    /// An admin accepted it (it is worth acting on).
    Accepted,
    /// An admin dismissed it.
    Dismissed,
}

impl FindingStatus {
    /// Every status.
    pub const ALL: [FindingStatus; 3] = [FindingStatus::Open, FindingStatus::Accepted, FindingStatus::Dismissed];

    /// The wire name (what the column holds).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingStatus::Open => "open",
            FindingStatus::Accepted => "accepted",
            FindingStatus::Dismissed => "dismissed",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<FindingStatus> {
        FindingStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// A reflection finding: something a digest's figures say deserves a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReflectionFinding {
    /// Id (`fnd_…`).
    pub id: String,
    /// The digest that raised it.
    pub digest_id: String,
    /// The rule: `failure_rate`, `no_landing`, `stale_holds` or `spend_drop`.
    pub rule: String,
    /// What it is about: a tool, or `platform`.
    pub subject: String,
    /// The finding in words.
    pub statement: String,
    /// The figures behind it.
    pub figures: Value,
    /// Its state.
    pub status: FindingStatus,
    /// The decider's note.
    pub note: Option<String>,
    /// Who decided.
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<DateTime<Utc>>,
    /// When it was raised.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/admin/reflection/findings` query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FindingsQuery {
    /// Only findings in this state.
    pub status: Option<FindingStatus>,
    /// Page size (default 50, at most 200).
    pub limit: Option<i64>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A page of findings, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReflectionFindingList {
    /// The findings.
    pub findings: Vec<ReflectionFinding>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// A decision on a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FindingDecision {
    /// Worth acting on.
    Accept,
    /// Not worth acting on.
    Dismiss,
}

/// `POST /api/toolkit/admin/reflection/findings/{id}/decision`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecideFindingRequest {
    /// Required: `accept` or `dismiss` (400 `DECISION_REQUIRED`).
    #[serde(default)]
    pub decision: Option<FindingDecision>,
    /// Why (at most 2,000 characters).
    #[serde(default)]
    pub note: Option<String>,
}

/// An admin's observation of a memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemoryObservation {
    /// Id (`obs_…`).
    pub id: String,
    /// The memory.
    pub memory_id: String,
    /// Whether what was seen bears the memory out.
    pub supports: bool,
    /// What was seen.
    pub note: String,
    /// The memory's confidence before.
    pub confidence_before: f64,
    /// And after.
    pub confidence_after: f64,
    /// The admin.
    pub observed_by: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// `POST /api/toolkit/admin/memory/observations`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObserveMemoryRequest {
    /// Required: the memory (any house's; 404 `MEMORY_NOT_FOUND`).
    #[serde(default)]
    pub memory_id: Option<String>,
    /// Required: whether what was seen bears the memory out (400 `SUPPORTS_REQUIRED`).
    #[serde(default)]
    pub supports: Option<bool>,
    /// Required: what was seen, 1 to 2,000 characters (400 `NOTE_REQUIRED`).
    #[serde(default)]
    pub note: Option<String>,
}

/// The memory after an observation, with the observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObservedMemory {
    /// The memory, its confidence and evidence count moved.
    pub memory: Memory,
    /// The observation.
    pub observation: MemoryObservation,
}

/// `GET /api/toolkit/admin/memory/review` query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewQueueQuery {
    /// Page size (default 50, at most 200).
    pub limit: Option<i64>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A memory waiting for review, with its house and what was observed of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewItem {
    /// The house.
    pub organization_id: String,
    /// The memory.
    pub memory: Memory,
    /// Its observations, oldest first.
    pub observations: Vec<MemoryObservation>,
}

/// The review queue: active memories below the review confidence that no review has seen since
/// they last changed, least confident first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewQueue {
    /// The memories.
    pub items: Vec<ReviewItem>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// A review's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReviewDecision {
    /// The memory stands as it is.
    Keep,
    /// The memory is retired (never again given to the assistant).
    Retire,
}

/// `POST /api/toolkit/admin/memory/review`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewMemoryRequest {
    /// Required: the memory (404 `MEMORY_NOT_FOUND`; 409 `MEMORY_NOT_ACTIVE` once corrected or
    /// retired).
    #[serde(default)]
    pub memory_id: Option<String>,
    /// Required: `keep` or `retire` (400 `DECISION_REQUIRED`).
    #[serde(default)]
    pub decision: Option<ReviewDecision>,
    /// Why (at most 2,000 characters).
    #[serde(default)]
    pub note: Option<String>,
}

/// A memory after review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewedMemory {
    /// The memory as it now stands.
    pub memory: Memory,
    /// The decision recorded.
    pub decision: ReviewDecision,
    /// When.
    pub reviewed_at: DateTime<Utc>,
}
