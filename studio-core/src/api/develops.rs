//! Develops on the wire: jobs (spec §2.4), develop status (§2.5), derived runs (§2.6), the
//! submit, cancel, duplicate and takes shapes of §4.3 and the socket messages of §6.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The state of a job (spec §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// Tokens are held; waiting for a runner.
    Queued,
    /// A runner is rendering it.
    Running,
    /// The frame landed; the hold settled.
    Done,
    /// The frame failed; the hold was released.
    Failed,
    /// Cancelled while queued; the hold was released.
    Cancelled,
}

impl JobStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [JobStatus; 5] =
        [JobStatus::Queued, JobStatus::Running, JobStatus::Done, JobStatus::Failed, JobStatus::Cancelled];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// True once the job can change no more (its hold is resolved).
    pub fn is_terminal(self) -> bool {
        matches!(self, JobStatus::Done | JobStatus::Failed | JobStatus::Cancelled)
    }
}

/// A job as pushed on the socket and returned by backfill (spec §2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// Opaque id.
    pub id: String,
    /// The tool that develops it.
    pub tool: String,
    /// Where it stands.
    pub status: JobStatus,
    /// The result's file route, once done.
    pub result_url: Option<String>,
    /// The result asset, once done.
    pub result_asset_id: Option<String>,
    /// Why it failed, when it failed.
    pub error: Option<String>,
    /// The brand it was submitted for, if any.
    pub brand_id: Option<String>,
    /// Submit time.
    pub created_at: DateTime<Utc>,
    /// Cursor: increases with every state change of the house's jobs.
    pub event_seq: i64,
}

/// `202` of `POST /api/toolkit/jobs/submit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubmitResponse {
    /// The job.
    pub job_id: String,
    /// Its status (queued when new; the existing status on an idempotent replay).
    pub status: JobStatus,
    /// Tokens this call held (0 on a replay).
    pub tokens_held: i64,
    /// True when the idempotency key matched an earlier submit: nothing new was held.
    #[serde(default)]
    pub replayed: bool,
}

/// `GET /api/toolkit/jobs?since=<eventSeq>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobsQuery {
    /// The highest eventSeq already seen; 0 returns everything.
    pub since: Option<String>,
}

/// The backfill: jobs changed after the cursor, ascending by eventSeq.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobList {
    /// The jobs.
    pub jobs: Vec<Job>,
}

/// Why a cancel changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CancelReason {
    /// The frame is rendering; it finishes and still costs.
    AlreadyRendering,
    /// The job had already ended.
    AlreadySettled,
}

/// `POST /api/toolkit/jobs/{id}/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelResponse {
    /// The job.
    pub id: String,
    /// True when this call cancelled it.
    pub cancelled: bool,
    /// Its status after the call.
    pub state: JobStatus,
    /// Tokens this call returned to the balance.
    pub tokens_released: i64,
    /// Why nothing changed, when nothing did.
    pub reason: Option<CancelReason>,
}

/// `POST /api/toolkit/jobs/{id}/duplicate`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateRequest {
    /// Replaying the same key returns the same duplicate and holds nothing more.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// `202` of a duplicate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateResponse {
    /// The new job.
    pub job_id: String,
    /// Its status.
    pub status: JobStatus,
    /// Tokens held for it (0 on a replay).
    pub cost: i64,
}

/// `GET /api/toolkit/develops?state=active|all&limit=N`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunsQuery {
    /// `active` (a frame still queued or rendering) or `all` (the default).
    pub state: Option<String>,
    /// 1 to 100 runs, newest first; default 20.
    pub limit: Option<String>,
}

/// Frame counts of a run; always over the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunCounts {
    /// Frames in the run.
    pub total: i64,
    /// Landed.
    pub done: i64,
    /// Failed.
    pub failed: i64,
    /// Cancelled.
    pub cancelled: i64,
    /// Still queued or rendering.
    pub active: i64,
}

/// A develop run: frames grouped by params.runId, else lookbook batch, else the same tool
/// within a time gap (spec §2.6). Derived on read, never stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopRun {
    /// `run.<id>` or `look.<lookId>.<stage>`.
    pub id: String,
    /// `run` (params.runId), `lookbook` (a look's batch) or `batch` (same tool, close in time).
    pub kind: String,
    /// The tool, or `mixed` when the run used several.
    pub tool: String,
    /// A label for people.
    pub title: String,
    /// The lookbook stage (params.stage), when a look's batch.
    pub stage: Option<String>,
    /// The look (params.lookId), when a look's batch.
    pub look_id: Option<String>,
    /// `queued`, `rendering`, `done`, `failed`, `cancelled` or `settled` (mixed endings).
    pub state: String,
    /// Frame counts.
    pub counts: RunCounts,
    /// The first frame's submit time.
    pub created_at: DateTime<Utc>,
    /// When the last frame ended, once none is active.
    pub finished_at: Option<DateTime<Utc>>,
    /// The newest landed frame's asset, for a thumbnail.
    pub thumb_asset_id: Option<String>,
    /// The frames, oldest first.
    pub job_ids: Vec<String>,
    /// What developing every frame again would cost at today's prices.
    pub again_cost: i64,
}

/// `{runs}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunList {
    /// Newest first.
    pub runs: Vec<DevelopRun>,
}

/// `POST /api/toolkit/develops/{id}/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCancelResponse {
    /// The run.
    pub id: String,
    /// True when at least one queued frame was cancelled.
    pub cancelled: bool,
    /// The frames this call cancelled.
    pub cancelled_job_ids: Vec<String>,
    /// Frames rendering now: they finish and cost.
    pub still_rendering: Vec<String>,
    /// Tokens returned to the balance.
    pub tokens_released: i64,
    /// The run after the call.
    pub run: DevelopRun,
}

/// `POST /api/toolkit/takes`: develop landed frames again.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakesRequest {
    /// The frames to take again (required, 1 to 100).
    #[serde(default)]
    pub job_ids: Option<Vec<String>>,
    /// A direction for the new takes; rides verbatim in params.direction.
    #[serde(default)]
    pub direction: Option<String>,
    /// Replaying the same key with the same frames returns the same takes.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// One new take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakeJob {
    /// The new job.
    pub job_id: String,
    /// The frame it takes again.
    pub source_job_id: String,
    /// Tokens held for it.
    pub tokens: i64,
}

/// A piece of evidence behind a retake offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfferEvidence {
    /// The frame taken again.
    pub job_id: String,
    /// Its tool.
    pub tool: String,
    /// The direction given.
    pub said: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The shoot (run) it belongs to, when known.
    pub shoot: Option<String>,
}

/// A standing instruction the house already keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StandingInstruction {
    /// Id.
    pub id: String,
    /// The instruction.
    pub text: String,
    /// Where it applies, in words.
    pub scope_phrase: String,
}

/// The retake offer: a direction given on a retake, offered back as a standing instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetakeOffer {
    /// The instruction offered.
    pub text: String,
    /// The tools it would apply to.
    pub scope_tools: Vec<String>,
    /// Why it is offered.
    pub evidence: Vec<OfferEvidence>,
    /// Instructions already standing for those tools.
    pub already_standing: Vec<StandingInstruction>,
}

/// `200` (replay) or `202` of `POST /api/toolkit/takes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TakesResponse {
    /// The new takes, in the order asked.
    pub jobs: Vec<TakeJob>,
    /// Present when a direction was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<RetakeOffer>,
    /// True on an idempotent replay (nothing new held).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
}

/// A develop's status as the agent endpoint reports it (spec §2.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopStatus {
    /// The job.
    pub job_id: String,
    /// Its tool.
    pub tool: String,
    /// Where it stands.
    pub status: JobStatus,
    /// The result's file route, once done.
    pub result_url: Option<String>,
    /// The result asset, once done.
    pub result_asset_id: Option<String>,
    /// Why it failed; null when none.
    pub error: Option<String>,
    /// Tokens held at submit.
    pub tokens_estimated: i64,
    /// Tokens charged, once settled (0 when released).
    pub tokens_settled: Option<i64>,
    /// Submit time.
    pub created_at: DateTime<Utc>,
    /// When it ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// Start a develop from library assets (the agent endpoint's start_develop; also usable by
/// embedding servers). Inputs map a role to one asset id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartDevelop {
    /// One of the slugs of the price book. `lookbook` with `params.lookId` develops a look: its
    /// develop-lock, or with `params.variation` one variation frame of a locked look
    /// (`params.destination`, `width`, `height` give the output; no inputs).
    pub tool: String,
    /// Role to asset id: `image`; `model` and `garment` (tryon); `image` and `mask` (cleanup);
    /// `image` and `background` (packshot on your own ground).
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
    /// 1k, 2k or 4k: decides the price.
    pub quality: String,
    /// String options; params.runId groups frames into one run.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
    /// The same key twice returns the existing develop with tokensHeld 0.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// A collection of the house to file the landed frame in (the library's root when absent).
    /// An unknown collection, or another house's, is refused 404 NOT_FOUND before anything is
    /// held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    /// An https URL this develop's own changes are delivered to, as webhooks signed with the
    /// house's default endpoint's secret (its oldest enabled one; docs/webhooks.md). Refused
    /// 400 `NO_WEBHOOK_ENDPOINT` when the house has none, and like an endpoint's URL when the
    /// target is not public https, before anything is held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_url: Option<String>,
}

/// The result of start_develop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartedDevelop {
    /// The job.
    pub job_id: String,
    /// queued when new; the existing status on a replay.
    pub status: JobStatus,
    /// Tokens held by this call (0 on a replay).
    pub tokens_held: i64,
    /// The key given, if any.
    pub idempotency_key: Option<String>,
}

/// A socket message (spec §6): a job change or a ready pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum SocketMessage {
    /// A job changed state.
    #[serde(rename = "job")]
    Job {
        /// The job after the change.
        job: Job,
    },
    /// A queued pack's archive is up.
    #[serde(rename = "pack.ready")]
    PackReady {
        /// The pack.
        pack: crate::api::Pack,
    },
}
