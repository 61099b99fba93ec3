//! The admin console's figures on the wire (`02-route-groups.md` §4.12): AI costs, develops
//! across houses and the retry/cancel action, failures, frames, the judge's stored verdicts and
//! rollup, kept cost, the overview, payments and tokenomics. Designed in docs/admin.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::VerdictMark;

/// `?since=` (days back, 1 to 366; 30 when left out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SinceQuery {
    /// Days back, 1 to 366 (default 30).
    pub since: Option<i64>,
}

/// One tool's settled tokens and provider cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCost {
    /// The tool or lane (`other` for a settled hold nothing names).
    pub tool: String,
    /// Tokens settled.
    pub tokens: i64,
    /// Provider cost in US dollars (recorded or estimated).
    pub cost_usd: f64,
    /// Settled charges.
    pub n: i64,
    /// True when any of the cost is the documented estimate.
    pub estimated: bool,
}

/// One day's settled tokens and provider cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DayCost {
    /// The UTC day, `YYYY-MM-DD`.
    pub day: String,
    /// Tokens settled that day.
    pub tokens: i64,
    /// Provider cost that day in US dollars.
    pub cost_usd: f64,
}

/// `GET /api/toolkit/admin/ai-costs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AiCosts {
    /// By tool, most tokens first.
    pub by_tool: Vec<ToolCost>,
    /// By UTC day, oldest first (days with a settled charge).
    pub daily: Vec<DayCost>,
    /// Tokens of every settled hold in the window.
    pub total_tokens_settled: i64,
    /// Provider cost of the window in US dollars.
    pub total_cost_usd: f64,
    /// True when any of the cost is the documented estimate.
    pub estimated: bool,
    /// The window, in days.
    pub since_days: i64,
}

/// `GET /api/toolkit/admin/develops`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminDevelopsQuery {
    /// One house (organization id).
    pub house: Option<String>,
    /// One tool.
    pub tool: Option<String>,
    /// queued, running, done, failed or cancelled.
    pub status: Option<String>,
    /// Days back, 1 to 366 (all time when left out).
    pub since: Option<i64>,
    /// Page size, 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// A develop as the console lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminDevelop {
    /// The job.
    pub id: String,
    /// Its house.
    pub house_id: String,
    /// Who submitted it.
    pub user_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// 1k, 2k or 4k.
    pub quality: String,
    /// queued, running, done, failed or cancelled.
    pub status: String,
    /// Tokens held for it.
    pub tokens: i64,
    /// Tokens charged once it ended (0 when released).
    pub tokens_settled: Option<i64>,
    /// Why it failed.
    pub error: Option<String>,
    /// The frame it made.
    pub result_asset_id: Option<String>,
    /// The job it repeats (duplicates and admin retries).
    pub source_job_id: Option<String>,
    /// Runner claims.
    pub attempts: i64,
    /// Submitted.
    pub created_at: DateTime<Utc>,
    /// Ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// A page of develops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminDevelopPage {
    /// Newest first.
    pub develops: Vec<AdminDevelop>,
    /// The next page, while there is one.
    pub next_cursor: Option<String>,
}

/// What the console does to a develop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DevelopAction {
    /// A new develop of the same request for the same house (failed or cancelled only).
    Retry,
    /// Cancel a queued develop, releasing its hold.
    Cancel,
}

/// `POST /api/toolkit/admin/develops/action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopActionRequest {
    /// The develop.
    pub job_id: String,
    /// retry or cancel.
    pub action: DevelopAction,
}

/// What the action did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopActionResult {
    /// The develop acted on.
    pub job_id: String,
    /// What was done.
    pub action: DevelopAction,
    /// The new develop a retry queued.
    pub new_job_id: Option<String>,
    /// The state of the acted-on develop (cancel) or of the new one (retry).
    pub status: String,
    /// Tokens the retry holds.
    pub tokens_held: i64,
    /// Tokens the cancel released.
    pub tokens_released: i64,
}

/// `GET /api/toolkit/admin/failures` and other paged, windowed reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FailuresQuery {
    /// Days back, 1 to 366 (default 30).
    pub since: Option<i64>,
    /// Groups per page, 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// One failed develop shown as an example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailureExample {
    /// The job.
    pub job_id: String,
    /// Its house.
    pub house_id: String,
    /// The recorded reason.
    pub error: String,
    /// When it failed.
    pub at: DateTime<Utc>,
}

/// Failed develops of one tool and one error code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailureGroup {
    /// The tool.
    pub tool: String,
    /// The error code (docs/admin.md lists how a reason is classified).
    pub code: String,
    /// How many failed in the window.
    pub count: i64,
    /// The latest.
    pub last_at: DateTime<Utc>,
    /// Up to five, newest first.
    pub examples: Vec<FailureExample>,
}

/// `GET /api/toolkit/admin/failures`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailurePage {
    /// Largest groups first.
    pub groups: Vec<FailureGroup>,
    /// Failed develops in the window.
    pub total_failed: i64,
    /// The next page, while there is one.
    pub next_cursor: Option<String>,
}

/// `GET /api/toolkit/admin/frames`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FramesQuery {
    /// One house.
    pub house: Option<String>,
    /// Frames made by one tool.
    pub tool: Option<String>,
    /// At most this many days old (1 to 3,650).
    pub age: Option<i64>,
    /// `made` (a develop's output) or `brought` (uploaded).
    pub origin: Option<String>,
    /// Page size, 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// A frame as the console lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminFrame {
    /// The asset.
    pub id: String,
    /// Its house.
    pub house_id: String,
    /// Its name.
    pub name: String,
    /// `made` or `brought`.
    pub origin: String,
    /// The tool that made it.
    pub tool: Option<String>,
    /// Its type.
    pub mime: String,
    /// Its size.
    pub bytes: i64,
    /// Pixels.
    pub width: Option<i64>,
    /// Pixels.
    pub height: Option<i64>,
    /// Filed.
    pub created_at: DateTime<Utc>,
}

/// A page of frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminFramePage {
    /// Newest first.
    pub frames: Vec<AdminFrame>,
    /// The next page, while there is one.
    pub next_cursor: Option<String>,
}

/// `GET /api/toolkit/admin/judge/verdicts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VerdictsQuery {
    /// One house.
    pub house: Option<String>,
    /// One tool.
    pub tool: Option<String>,
    /// One rubric version.
    pub rubric: Option<i64>,
    /// One judge.
    pub model: Option<String>,
    /// Days back, 1 to 366 (all time when left out).
    pub since: Option<i64>,
    /// Page size, 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// A verdict as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredVerdict {
    /// Id.
    pub id: String,
    /// The develop judged.
    pub job_id: String,
    /// Its frame.
    pub frame_id: Option<String>,
    /// Its house.
    pub house_id: String,
    /// Its tool.
    pub tool: String,
    /// The judge.
    pub model: String,
    /// The rubric version.
    pub rubric: i64,
    /// 0 to 100.
    pub score: i64,
    /// False when there was no frame to judge.
    pub readable: bool,
    /// Readable and at or above the pass score.
    pub passed: bool,
    /// What was noticed.
    pub marks: Vec<VerdictMark>,
    /// When it was computed.
    pub created_at: DateTime<Utc>,
}

/// A page of verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerdictPage {
    /// Newest first.
    pub verdicts: Vec<StoredVerdict>,
    /// The next page, while there is one.
    pub next_cursor: Option<String>,
}

/// `GET /api/toolkit/admin/judge/rollup`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RollupQuery {
    /// One house.
    pub house: Option<String>,
    /// One tool.
    pub tool: Option<String>,
    /// One rubric version.
    pub rubric: Option<i64>,
    /// One judge.
    pub model: Option<String>,
    /// day, week or month (default day).
    pub bucket: Option<String>,
    /// Days back, 1 to 366 (default 30).
    pub since: Option<i64>,
    /// The most buckets, newest kept, 1 to 400 (default all in the window).
    pub limit: Option<i64>,
}

/// One bucket of the rollup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RollupBucket {
    /// The bucket's first UTC day, `YYYY-MM-DD` (weeks start on Monday).
    pub start: String,
    /// Verdicts.
    pub count: i64,
    /// Verdicts on a readable frame.
    pub readable: i64,
    /// Verdicts that passed.
    pub passed: i64,
    /// passed / count.
    pub pass_rate: f64,
    /// Mean score of the readable ones (0 when none).
    pub mean_score: f64,
}

/// The judge rollup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgeRollup {
    /// day, week or month.
    pub bucket: String,
    /// The window, in days.
    pub since_days: i64,
    /// The score at or above which a readable verdict passes.
    pub pass_score: i64,
    /// Oldest first.
    pub buckets: Vec<RollupBucket>,
    /// Verdicts in the window.
    pub total: i64,
    /// Passed in the window.
    pub passed: i64,
}

/// One tool's tokens on kept and deleted frames.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolKept {
    /// The tool.
    pub tool: String,
    /// Frames still in a library.
    pub kept_frames: i64,
    /// Tokens settled for them.
    pub kept_tokens: i64,
    /// Frames deleted.
    pub deleted_frames: i64,
    /// Tokens settled for them.
    pub deleted_tokens: i64,
}

/// `GET /api/toolkit/admin/kept-cost`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptCost {
    /// By tool.
    pub by_tool: Vec<ToolKept>,
    /// Tokens on kept frames.
    pub kept_tokens: i64,
    /// Tokens on deleted frames.
    pub deleted_tokens: i64,
    /// The window (frames landed in it), in days.
    pub since_days: i64,
}

/// Develops created in a window, by status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusCounts {
    /// Waiting.
    pub queued: i64,
    /// Rendering.
    pub running: i64,
    /// Landed.
    pub done: i64,
    /// Failed.
    pub failed: i64,
    /// Cancelled.
    pub cancelled: i64,
    /// All of them.
    pub total: i64,
}

/// Develops today (since UTC midnight), in 7 days and in 30 days.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopCounts {
    /// Since UTC midnight.
    pub today: StatusCounts,
    /// The last 7 days.
    pub week: StatusCounts,
    /// The last 30 days.
    pub month: StatusCounts,
}

/// Tokens of all time and right now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    /// Granted (sign-up, admin, subscription and invitation grants).
    pub granted: i64,
    /// Bought (top-ups).
    pub bought: i64,
    /// Spent (settled).
    pub spent: i64,
    /// Expired grants.
    pub expired: i64,
    /// Held right now.
    pub held: i64,
    /// Spendable right now.
    pub spendable: i64,
}

/// `GET /api/toolkit/admin/overview`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// Houses.
    pub houses: i64,
    /// People.
    pub people: i64,
    /// Live assets.
    pub assets: i64,
    /// Develops by status.
    pub develops: DevelopCounts,
    /// Tokens.
    pub tokens: TokenTotals,
    /// Paid payments, US cents.
    pub revenue_cents: i64,
    /// Paid payments.
    pub paid_payments: i64,
}

/// `GET /api/toolkit/admin/payments`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PaymentsQuery {
    /// One house.
    pub house: Option<String>,
    /// open, charged, paid or failed.
    pub status: Option<String>,
    /// Page size, 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// A payment (a checkout or an auto top-up charge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminPayment {
    /// Our reference.
    pub reference: String,
    /// The house.
    pub house_id: String,
    /// Who asked.
    pub user_id: Option<String>,
    /// topup, subscription, custom or autocharge.
    pub kind: String,
    /// The pack or tier.
    pub item: String,
    /// Tokens it delivers.
    pub tokens: i64,
    /// US cents.
    pub amount_cents: i64,
    /// open, charged, paid or failed.
    pub status: String,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Paid.
    pub paid_at: Option<DateTime<Utc>>,
}

/// Payments of one status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentStatusTotal {
    /// The status.
    pub status: String,
    /// How many.
    pub count: i64,
    /// Their sum, US cents.
    pub amount_cents: i64,
}

/// A page of payments with the totals of the filter's house.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPage {
    /// Newest first.
    pub payments: Vec<AdminPayment>,
    /// The next page, while there is one.
    pub next_cursor: Option<String>,
    /// By status (every status, the house filter applied).
    pub totals: Vec<PaymentStatusTotal>,
    /// Paid, US cents.
    pub paid_cents: i64,
}

/// `GET /api/toolkit/admin/tokenomics`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TokenomicsQuery {
    /// day, week or month (default day).
    pub bucket: Option<String>,
    /// Days back, 1 to 366 (default 30).
    pub since: Option<i64>,
}

/// One bucket of token movements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenFlow {
    /// The bucket's first UTC day, `YYYY-MM-DD`.
    pub start: String,
    /// Granted.
    pub granted: i64,
    /// Bought.
    pub bought: i64,
    /// Spent.
    pub spent: i64,
    /// Expired.
    pub expired: i64,
}

/// Grants against top-ups against spend over time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tokenomics {
    /// day, week or month.
    pub bucket: String,
    /// The window, in days.
    pub since_days: i64,
    /// Oldest first (buckets with a movement).
    pub series: Vec<TokenFlow>,
    /// The window's sums.
    pub totals: TokenFlow,
}
