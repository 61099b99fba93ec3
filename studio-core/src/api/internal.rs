//! The internal machine routes on the wire (`02-route-groups.md` §4.13) and their admin twins
//! (§4.12): the analyst's aggregate reads, replay evidence and renders, experiments, feature
//! flags, long-horizon autonomy and the analyst's actions. Designed in docs/internal.md.

use chrono::{DateTime, NaiveDate, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{IntakeAnswer, InviteRequestView, Verdict};

/// The analyst's window when `hours` is not given: one week.
pub const DEFAULT_WINDOW_HOURS: i64 = 168;
/// The longest window, in hours: 90 days (longer is clamped to it).
pub const MAX_WINDOW_HOURS: i64 = 2160;
/// Rows a list answers when `limit` is not given.
pub const DEFAULT_INTERNAL_LIMIT: i64 = 50;
/// The most rows a list answers (more is clamped to it).
pub const MAX_INTERNAL_LIMIT: i64 = 200;

macro_rules! wire {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name { $($(#[$fm])* pub $field: $ty),* }
    };
}

macro_rules! query {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name { $($(#[$fm])* pub $field: $ty),* }
    };
}

query!(
    /// `hours` (default 168, clamped to 1..=2160) and `limit` (default 50, clamped to 1..=200).
    AnalystQuery {
        /// The window, in hours back from now.
        hours: Option<i64>,
        /// At most this many rows where the answer lists rows.
        limit: Option<i64>,
    }
);

query!(
    /// `longhorizon`: one house over a window (default 12 weeks here).
    LongHorizonQuery {
        /// The house (required: 400 `ORGANIZATION_REQUIRED`). An `Option` so that a missing
        /// one reaches the handler's own refusal; the document still marks it required.
        #[schemars(required)]
        organization_id: Option<String>,
        /// The window, in hours (default 2016, clamped to 1..=2160).
        hours: Option<i64>,
    }
);

query!(
    /// `invitations`: the platform gate's requests.
    AnalystInvitationsQuery {
        /// The window, in hours.
        hours: Option<i64>,
        /// At most this many requests.
        limit: Option<i64>,
        /// `pending`, `invited`, `declined` or `all` (default).
        status: Option<String>,
    }
);

query!(
    /// Experiments: analyst and admin lists.
    ExperimentsQuery {
        /// At most this many.
        limit: Option<i64>,
        /// `all` (default), `draft`, `running`, `paused`, `exposure_frozen`, `stopped`, `complete`.
        status: Option<String>,
        /// Only this experiment.
        experiment_id: Option<String>,
        /// The page after this experiment id.
        before: Option<String>,
    }
);

query!(
    /// Feature flags: analyst and admin lists.
    FlagsQuery {
        /// At most this many.
        limit: Option<i64>,
        /// `true`, `false` or `all` (default).
        active: Option<String>,
        /// The page after this key.
        after: Option<String>,
    }
);

query!(
    /// A page of evidence (admin) or recordings (analyst).
    EvidenceQuery {
        /// The window, in hours (recordings only; the admin list reads all).
        hours: Option<i64>,
        /// At most this many.
        limit: Option<i64>,
        /// The page after this evidence id.
        before: Option<String>,
    }
);

query!(
    /// `GET /api/toolkit/admin/longhorizon`.
    AutonomyQuery {
        /// The house (required: 400 `ORGANIZATION_REQUIRED`). An `Option` so that a missing
        /// one reaches the handler's own refusal; the document still marks it required.
        #[schemars(required)]
        organization_id: Option<String>,
    }
);

wire!(
    /// The window an aggregate covers.
    Window {
        /// Hours back from `until`.
        hours: i64,
        /// Start (inclusive).
        since: DateTime<Utc>,
        /// When it was read.
        until: DateTime<Utc>,
    }
);

wire!(
    /// A key and a count.
    KeyCount {
        /// What was counted.
        key: String,
        /// How many.
        n: i64,
    }
);

wire!(
    /// Tokens across the platform.
    PlatformTokens {
        /// Spendable now (grant + top-up) summed over every house.
        spendable: i64,
        /// Held by open holds.
        held: i64,
        /// Settled ever.
        settled: i64,
        /// Credited ever.
        credited: i64,
    }
);

wire!(
    /// `GET /api/internal/analyst/snapshot`.
    AnalystSnapshot {
        /// The window of the `inWindow` figures.
        window: Window,
        /// Houses.
        houses: i64,
        /// People (not erased).
        people: i64,
        /// Live organization keys.
        live_keys: i64,
        /// Live assets.
        assets: i64,
        /// Jobs by status, all time.
        jobs_by_status: Vec<KeyCount>,
        /// Develops queued in the window.
        develops_in_window: i64,
        /// Uploads in the window.
        uploads_in_window: i64,
        /// Tokens.
        tokens: PlatformTokens,
    }
);

wire!(
    /// `GET /api/internal/analyst/funnel`: of the people who signed up in the window, how
    /// many went on to each step (ever since).
    AnalystFunnel {
        /// The window.
        window: Window,
        /// Signed up in the window.
        signed_up: i64,
        /// ... then created an organization key.
        first_key: i64,
        /// ... uploaded an asset.
        first_upload: i64,
        /// ... started a develop.
        first_develop: i64,
        /// ... paid a checkout.
        first_purchase: i64,
    }
);

wire!(
    /// One day of product usage.
    UsageDay {
        /// The UTC day.
        day: NaiveDate,
        /// Develops queued.
        develops: i64,
        /// Uploads.
        uploads: i64,
        /// Packs requested.
        packs: i64,
        /// AI lane results made.
        lanes: i64,
    }
);

wire!(
    /// `GET /api/internal/analyst/product-usage`.
    ProductUsage {
        /// The window.
        window: Window,
        /// Develops by tool.
        develops_by_tool: Vec<KeyCount>,
        /// Lane results by lane.
        lanes_by_lane: Vec<KeyCount>,
        /// Totals.
        develops: i64,
        /// Uploads in the window.
        uploads: i64,
        /// Packs in the window.
        packs: i64,
        /// Lane results in the window.
        lanes: i64,
        /// Per UTC day, oldest first (days with nothing are left out).
        days: Vec<UsageDay>,
    }
);

wire!(
    /// Failed develops of one tool with one stored reason.
    ToolFailureGroup {
        /// The tool.
        tool: String,
        /// The reason the runner stored (its failure code and message).
        reason: String,
        /// How many.
        n: i64,
        /// The latest.
        last_at: DateTime<Utc>,
    }
);

wire!(
    /// `GET /api/internal/analyst/failures`.
    AnalystFailures {
        /// The window.
        window: Window,
        /// Failed develops in the window (of the groups listed).
        total: i64,
        /// By tool and reason, most first.
        groups: Vec<ToolFailureGroup>,
    }
);

wire!(
    /// Letters by outcome.
    MailCounts {
        /// Archived.
        written: i64,
        /// Still queued.
        queued: i64,
        /// Handed to the mail server and not heard of since.
        sent: i64,
        /// Reported delivered.
        delivered: i64,
        /// Reported bounced.
        bounced: i64,
        /// Reported as spam.
        complained: i64,
        /// Given up after the retries.
        failed: i64,
    }
);

wire!(
    /// Letters of one kind.
    MailKind {
        /// The letter kind.
        kind: String,
        /// Its counts.
        counts: MailCounts,
    }
);

wire!(
    /// Letters of one day.
    MailDay {
        /// The UTC day.
        day: NaiveDate,
        /// Its counts.
        counts: MailCounts,
    }
);

wire!(
    /// `GET /api/internal/analyst/deliverability`: from the mail archive.
    Deliverability {
        /// The window.
        window: Window,
        /// Every letter written in the window.
        totals: MailCounts,
        /// By kind.
        by_kind: Vec<MailKind>,
        /// By day, oldest first.
        by_day: Vec<MailDay>,
    }
);

wire!(
    /// AI reader calls by outcome.
    ReaderCalls {
        /// Calls.
        calls: i64,
        /// Answered with a usable answer.
        answered: i64,
        /// Answered, but not with what was asked (no JSON, wrong shape).
        unusable: i64,
        /// The reader refused (a 4xx).
        rejected: i64,
        /// Could not answer (timeout, 5xx, 429, no connection).
        unavailable: i64,
        /// Median call time, milliseconds (0 without calls).
        median_millis: i64,
    }
);

wire!(
    /// Calls of one purpose.
    ReaderPurpose {
        /// What asked.
        purpose: String,
        /// Its calls.
        calls: ReaderCalls,
    }
);

wire!(
    /// `GET /api/internal/analyst/chat-quality`: the AI reader's recorded outcomes.
    ChatQuality {
        /// The window.
        window: Window,
        /// Every call.
        totals: ReaderCalls,
        /// By purpose.
        by_purpose: Vec<ReaderPurpose>,
    }
);

wire!(
    /// Memory changes of one class.
    LearningClass {
        /// The memory class.
        memory_class: String,
        /// Created.
        created: i64,
        /// Corrected.
        corrected: i64,
        /// Retired.
        retired: i64,
    }
);

wire!(
    /// `GET /api/internal/analyst/learnings`.
    Learnings {
        /// The window.
        window: Window,
        /// Memories created in the window.
        created: i64,
        /// Memories corrected (replaced by a newer statement) in the window.
        corrected: i64,
        /// Memories retired in the window.
        retired: i64,
        /// By class.
        by_class: Vec<LearningClass>,
    }
);

wire!(
    /// `GET /api/internal/analyst/rejections`: frames taken again (takes and redraws).
    Rejections {
        /// The window.
        window: Window,
        /// Frames taken again.
        retakes: i64,
        /// By tool.
        by_tool: Vec<KeyCount>,
        /// By UTC day (`YYYY-MM-DD`), oldest first.
        by_day: Vec<KeyCount>,
    }
);

wire!(
    /// A house's long-horizon autonomy.
    Autonomy {
        /// The house.
        organization_id: String,
        /// `manual`, `suggest`, `supervised` or `autonomous`.
        level: String,
        /// Why.
        note: String,
        /// 0 until first revised.
        revision: i64,
        /// The admin who revised it.
        revised_by: Option<String>,
        /// When.
        revised_at: Option<DateTime<Utc>>,
    }
);

wire!(
    /// `POST /api/toolkit/admin/longhorizon/revise`.
    AutonomyRevision {
        /// The house.
        organization_id: Option<String>,
        /// The new level.
        level: Option<String>,
        /// Why.
        note: Option<String>,
        /// The revision the admin read (0 when never revised).
        expected_revision: Option<i64>,
    }
);

wire!(
    /// One week of a house.
    HouseWeek {
        /// The Monday (UTC) the week starts.
        week_start: NaiveDate,
        /// Tokens settled.
        spend: i64,
        /// Develops queued.
        develops: i64,
        /// Uploads.
        uploads: i64,
    }
);

wire!(
    /// `GET /api/internal/analyst/longhorizon`.
    LongHorizon {
        /// The house.
        organization_id: String,
        /// The window.
        window: Window,
        /// Its autonomy.
        autonomy: Autonomy,
        /// Weekly, oldest first, every week of the window.
        weeks: Vec<HouseWeek>,
    }
);

wire!(
    /// Requests by status.
    RequestCounts {
        /// Not yet invited.
        pending: i64,
        /// Invited.
        invited: i64,
        /// Declined (nothing declines a request yet: always 0; docs/internal.md).
        declined: i64,
    }
);

wire!(
    /// A request as the analyst sees it.
    AnalystInviteRequest {
        /// The request.
        request: InviteRequestView,
        /// Research notes stored on it.
        research_notes: i64,
    }
);

wire!(
    /// `GET /api/internal/analyst/invitations`.
    AnalystInvitations {
        /// The window.
        window: Window,
        /// The filter applied.
        status: String,
        /// Every request of the window by status.
        counts: RequestCounts,
        /// The requests, newest first.
        requests: Vec<AnalystInviteRequest>,
    }
);

wire!(
    /// An experiment.
    Experiment {
        /// Id (`exp_…`).
        id: String,
        /// Unique key.
        key: String,
        /// Name.
        name: String,
        /// Description.
        description: String,
        /// Status.
        status: String,
        /// Variant names.
        variants: Vec<String>,
        /// Created.
        created_at: DateTime<Utc>,
        /// Last changed.
        updated_at: DateTime<Utc>,
        /// First set running.
        started_at: Option<DateTime<Utc>>,
        /// Stopped or completed.
        ended_at: Option<DateTime<Utc>>,
    }
);

wire!(
    /// `POST /api/toolkit/admin/experiments`.
    ExperimentCreate {
        /// Unique key: 2-64 of `a-z0-9_-.`.
        key: Option<String>,
        /// Name (required, at most 200 characters).
        name: Option<String>,
        /// Description (at most 2000 characters).
        description: Option<String>,
        /// 2-10 variant names (default `control`, `treatment`).
        variants: Option<Vec<String>>,
    }
);

wire!(
    /// `PATCH /api/toolkit/admin/experiments/{id}`.
    ExperimentPatch {
        /// The status to move to.
        status: Option<String>,
    }
);

wire!(
    /// A page of experiments.
    ExperimentList {
        /// Newest first.
        experiments: Vec<Experiment>,
        /// Pass as `before` for the next page; null at the end.
        next_cursor: Option<String>,
    }
);

wire!(
    /// A feature flag.
    FeatureFlag {
        /// Key.
        key: String,
        /// Description.
        description: String,
        /// On or off.
        active: bool,
        /// Share of houses it applies to when on, 0 to 100.
        rollout_percent: i64,
        /// The admin who set it last.
        updated_by: Option<String>,
        /// Created.
        created_at: DateTime<Utc>,
        /// Last set.
        updated_at: DateTime<Utc>,
    }
);

wire!(
    /// `PUT /api/toolkit/admin/feature-flags/{key}`.
    FlagPut {
        /// On or off (required).
        active: Option<bool>,
        /// Description (kept when absent).
        description: Option<String>,
        /// 0 to 100 (default 100).
        rollout_percent: Option<i64>,
    }
);

wire!(
    /// A page of flags.
    FlagList {
        /// By key.
        flags: Vec<FeatureFlag>,
        /// Pass as `after` for the next page; null at the end.
        next_cursor: Option<String>,
    }
);

wire!(
    /// The develop as the evidence froze it.
    ReplayJob {
        /// Job id.
        id: String,
        /// The house.
        organization_id: String,
        /// Who asked.
        user_id: Option<String>,
        /// Tool.
        tool: String,
        /// Quality.
        quality: String,
        /// The request's parameters.
        params: serde_json::Value,
        /// Status.
        status: String,
        /// The stored failure reason.
        error: Option<String>,
        /// Claims by the runner.
        attempts: i64,
        /// Tokens held.
        tokens: i64,
        /// Tokens settled.
        tokens_settled: Option<i64>,
        /// The frame it took again.
        retry_of_job_id: Option<String>,
        /// The develop it duplicated.
        source_job_id: Option<String>,
    }
);

wire!(
    /// One input.
    ReplayInput {
        /// Its role.
        role: String,
        /// The library asset, when from the library.
        asset_id: Option<String>,
        /// Its type.
        mime: String,
    }
);

wire!(
    /// The output frame.
    ReplayOutput {
        /// The asset.
        asset_id: String,
        /// Type.
        mime: String,
        /// Bytes.
        bytes: i64,
        /// Width.
        width: Option<i64>,
        /// Height.
        height: Option<i64>,
    }
);

wire!(
    /// One moment of the develop.
    ReplayMoment {
        /// When.
        at: DateTime<Utc>,
        /// `queued`, `held`, `started`, `done`, `failed`, `cancelled`, `settled`, `released`.
        event: String,
    }
);

wire!(
    /// The develop's hold.
    ReplayHold {
        /// Hold id.
        id: String,
        /// Tokens.
        amount: i64,
        /// From the grant balance.
        from_grant: i64,
        /// From the top-up balance.
        from_topup: i64,
        /// `held`, `settled` or `released`.
        status: String,
        /// Reserved.
        created_at: DateTime<Utc>,
        /// Settled or released.
        resolved_at: Option<DateTime<Utc>>,
    }
);

wire!(
    /// What a replay evidence froze of one develop.
    ReplaySnapshot {
        /// The request and its state.
        job: ReplayJob,
        /// Its inputs.
        inputs: Vec<ReplayInput>,
        /// Its frame, once landed.
        output: Option<ReplayOutput>,
        /// Oldest first.
        timeline: Vec<ReplayMoment>,
        /// The hold.
        hold: Option<ReplayHold>,
        /// The free verdict on its frame.
        verdict: Option<Verdict>,
    }
);

wire!(
    /// `POST /api/toolkit/admin/replay/evidence`.
    EvidenceOpen {
        /// The develop.
        job_id: Option<String>,
    }
);

wire!(
    /// A replay evidence record.
    Evidence {
        /// Id (`rev_…`).
        id: String,
        /// The develop.
        job_id: String,
        /// Its house.
        organization_id: String,
        /// Its tool.
        tool: String,
        /// Its status when opened.
        job_status: String,
        /// What was frozen.
        snapshot: ReplaySnapshot,
        /// The AI reader's summary.
        summary: Option<String>,
        /// Its focus.
        summary_focus: Option<String>,
        /// When summarized.
        summarized_at: Option<DateTime<Utc>>,
        /// When opened.
        created_at: DateTime<Utc>,
        /// Its renders, oldest first.
        renders: Vec<Render>,
    }
);

wire!(
    /// `POST /api/toolkit/admin/replay/evidence`'s answer.
    EvidenceOpened {
        /// True when opened now, false when the job already had it.
        created: bool,
        /// The evidence.
        evidence: Evidence,
    }
);

wire!(
    /// A line of the evidence list.
    EvidenceItem {
        /// Id.
        id: String,
        /// The develop.
        job_id: String,
        /// Its house.
        organization_id: String,
        /// Its tool.
        tool: String,
        /// Its status when opened.
        job_status: String,
        /// Summarized yet.
        summarized: bool,
        /// When opened.
        created_at: DateTime<Utc>,
    }
);

wire!(
    /// A page of evidence.
    EvidenceList {
        /// Newest first.
        evidence: Vec<EvidenceItem>,
        /// Pass as `before` for the next page; null at the end.
        next_cursor: Option<String>,
    }
);

wire!(
    /// `POST /api/toolkit/admin/replay/renders`.
    RenderRequest {
        /// The evidence.
        evidence_id: Option<String>,
        /// `contact-sheet` or `timeline`.
        format: Option<String>,
    }
);

wire!(
    /// A render.
    Render {
        /// Id (`rrn_…`).
        id: String,
        /// The evidence.
        evidence_id: String,
        /// Format.
        format: String,
        /// `queued`, `rendering`, `complete` or `failed`.
        status: String,
        /// Claims so far.
        attempts: i64,
        /// The file's type once complete.
        mime: Option<String>,
        /// Its length.
        bytes: Option<i64>,
        /// The renderer's failure code.
        error_code: Option<String>,
        /// Asked.
        created_at: DateTime<Utc>,
        /// Completed or failed.
        finished_at: Option<DateTime<Utc>>,
    }
);

wire!(
    /// A claimed render and what the renderer needs.
    RenderJob {
        /// The render.
        id: String,
        /// The evidence.
        evidence_id: String,
        /// Format.
        format: String,
        /// The evidence, inline.
        archive: Evidence,
    }
);

wire!(
    /// `POST /api/internal/replay-renders/claim`.
    RenderClaim {
        /// The claimed render, or null when none waits.
        job: Option<RenderJob>,
    }
);

wire!(
    /// `POST /api/internal/replay-renders/{id}/fail`.
    RenderFail {
        /// The renderer's failure code (required).
        code: Option<String>,
    }
);

wire!(
    /// `{ok: true}`.
    InternalOk {
        /// Always true.
        ok: bool,
    }
);

wire!(
    /// One recording with its figures.
    Recording {
        /// The evidence.
        id: String,
        /// The develop.
        job_id: String,
        /// Its house.
        organization_id: String,
        /// Tool.
        tool: String,
        /// Status when opened.
        job_status: String,
        /// Tokens held.
        tokens_held: i64,
        /// Tokens settled.
        tokens_settled: i64,
        /// Runner claims.
        attempts: i64,
        /// Queued to finished, milliseconds (null while unfinished).
        total_millis: Option<i64>,
        /// The verdict's score.
        verdict_score: Option<u32>,
        /// Summarized yet.
        summarized: bool,
        /// When opened.
        created_at: DateTime<Utc>,
    }
);

wire!(
    /// `GET /api/internal/analyst/recordings`.
    Recordings {
        /// The window.
        window: Window,
        /// Newest first.
        recordings: Vec<Recording>,
    }
);

wire!(
    /// `GET /api/internal/analyst/recordings/{id}/analysis`.
    RecordingAnalysis {
        /// The evidence.
        evidence_id: String,
        /// The develop.
        job_id: String,
        /// Tool.
        tool: String,
        /// Status when opened.
        job_status: String,
        /// Queued to started, milliseconds.
        wait_millis: Option<i64>,
        /// Started to finished, milliseconds.
        run_millis: Option<i64>,
        /// Queued to finished, milliseconds.
        total_millis: Option<i64>,
        /// Runner claims.
        attempts: i64,
        /// Claims beyond the first.
        retries: i64,
        /// Tokens held.
        tokens_held: i64,
        /// Tokens settled.
        tokens_settled: i64,
        /// The hold's end.
        hold_status: Option<String>,
        /// Hold reserved to resolved, milliseconds.
        hold_millis: Option<i64>,
        /// The verdict's score.
        verdict_score: Option<u32>,
        /// Whether there was a readable frame.
        verdict_readable: Option<bool>,
        /// Whether a redraw could help.
        retry_futile: Option<bool>,
        /// The verdict's marks' codes.
        marks: Vec<String>,
        /// Renders by status.
        renders: Vec<KeyCount>,
        /// The AI reader's summary, when made.
        summary: Option<String>,
    }
);

wire!(
    /// `POST .../invitations/{id}/approve`.
    ApproveRequest {
        /// Why (required, at most 1000 characters).
        reason: Option<String>,
    }
);

wire!(
    /// The approval.
    Approved {
        /// The request.
        request_id: String,
        /// Its address.
        email: String,
        /// `invited`.
        status: String,
        /// The reason, as stored on the request.
        reason: String,
    }
);

wire!(
    /// What the service knows about an applicant.
    ResearchFindings {
        /// The address's domain.
        email_domain: String,
        /// A throwaway-mail domain.
        throwaway_domain: bool,
        /// An account exists for the address.
        existing_account: bool,
        /// When that account was made.
        account_created_at: Option<DateTime<Utc>>,
        /// An invitation exists for the address.
        invited: bool,
        /// Other requests from the same domain, newest first (at most 20).
        same_domain_requests: Vec<InviteRequestView>,
        /// Research notes stored earlier.
        earlier_notes: i64,
        /// The intake answers.
        answers: Vec<IntakeAnswer>,
        /// The links given.
        links: Vec<String>,
        /// The website given.
        website: Option<String>,
    }
);

wire!(
    /// `POST .../invitations/{id}/research`.
    Research {
        /// The note's id (`irr_…`).
        note_id: String,
        /// The request.
        request_id: String,
        /// Its address.
        email: String,
        /// Its derived status.
        status: String,
        /// What was found.
        findings: ResearchFindings,
        /// When.
        created_at: DateTime<Utc>,
    }
);

wire!(
    /// `POST .../recordings/{id}/summarize`.
    SummarizeRequest {
        /// What to focus on (required, at most 500 characters).
        focus_area: Option<String>,
    }
);

wire!(
    /// The summary stored with the evidence.
    Summarized {
        /// The evidence.
        evidence_id: String,
        /// The focus.
        focus_area: String,
        /// The AI reader's summary.
        summary: String,
        /// When.
        summarized_at: DateTime<Utc>,
    }
);
