//! Support on the wire (`02-route-groups.md` §2.9, §4.11, §4.13): tickets, threads, noted
//! reports, screenshots, escalations from the support bridge, the admin support queue and the
//! analyst's support aggregates. Designed in docs/support.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The fewest characters (whitespace not counted) a new ticket's or report's body carries;
/// fewer is 400 `TOO_LITTLE_SAID`.
pub const MIN_SUPPORT_BODY_CHARS: usize = 10;
/// The most characters a body, a reply or a note carries.
pub const MAX_SUPPORT_BODY_CHARS: usize = 10_000;
/// The most screenshots one ticket carries.
pub const MAX_TICKET_SCREENSHOTS: usize = 6;
/// Tickets one page lists when `limit` is not given.
pub const DEFAULT_TICKETS_PAGE: u32 = 20;
/// The most tickets one page lists.
pub const MAX_TICKETS_PAGE: u32 = 100;
/// How long a screenshot is kept (then swept: its link answers 404).
pub const SCREENSHOT_RETENTION_DAYS: i64 = 30;
/// How long a screenshot's signed link lives.
pub const SCREENSHOT_LINK_DAYS: i64 = 7;

/// What a ticket is about (§4.11).
pub const SUPPORT_TOPICS: [&str; 7] = ["develop", "billing", "identity", "quality", "access", "api", "other"];
/// Where a ticket stands.
pub const TICKET_STATUSES: [&str; 5] = ["new", "open", "pending", "on_hold", "resolved"];
/// Why the support bridge escalated a chat.
pub const ESCALATION_REASONS: [&str; 5] = ["handoff", "turn_limit", "ai_down", "leak_guard", "requested"];

/// A topic (documentation of the accepted values; the route reads a string and answers 400
/// `BAD_TOPIC` for anything else).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SupportTopic {
    /// A develop.
    Develop,
    /// Money and tokens.
    Billing,
    /// Sign-in, the account.
    Identity,
    /// A frame's quality.
    Quality,
    /// Who may open what.
    Access,
    /// Keys and the API.
    Api,
    /// Anything else.
    Other,
}

/// A ticket's status (documentation of the accepted values; 400 `BAD_STATUS` otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    /// Nobody from support has looked yet.
    New,
    /// Support is on it (or the person wrote again).
    Open,
    /// Support answered and waits on the person.
    Pending,
    /// Waiting on something outside the thread.
    OnHold,
    /// Done.
    Resolved,
}

/// An escalation's reason (documentation; 400 `BAD_REASON` otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EscalationReason {
    /// The assistant handed the person over.
    Handoff,
    /// The chat ran out of turns.
    TurnLimit,
    /// The assistant's model was unavailable.
    AiDown,
    /// The assistant stopped an answer that would have leaked something.
    LeakGuard,
    /// The person asked for a human.
    Requested,
}

/// `POST /api/toolkit/support/tickets`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewTicket {
    /// A subject line (at most 200 characters); the summary is taken from it, else from the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// What happened. Required: at least 10 characters (whitespace not counted) for a new ticket
    /// or report, at least one for a reply on a thread; at most 10,000.
    #[serde(default)]
    pub body: String,
    /// develop, billing, identity, quality, access, api or other (400 `BAD_TOPIC` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<SupportTopic>")]
    pub topic: Option<String>,
    /// Where to answer besides the thread (400 `BAD_EMAIL` when not an address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_email: Option<String>,
    /// The page the person was on (at most 2,048 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_url: Option<String>,
    /// Screenshot links (the `url` of `POST /api/toolkit/support/screenshots`, or any link), at
    /// most 6 of at most 2,048 characters each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
    /// Reply on this thread of the caller's instead of raising a new ticket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket_id: Option<String>,
    /// A rating, 1 to 5 (400 `BAD_RATING` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// The screen of the app the person was on (at most 200 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    /// False: no reply wanted; the words are kept as a noted report (answered with a null id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs_reply: Option<bool>,
}

/// A ticket (§2.9), as its person and the admin queue see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    /// Id (`tkt_…`).
    pub id: String,
    /// new, open, pending, on_hold or resolved.
    pub status: String,
    /// The subject, else the start of the first message (at most 120 characters).
    pub summary: String,
    /// Messages in the thread (internal notes not counted).
    pub message_count: i64,
    /// Support replies the person has not read yet.
    pub unread_count: i64,
    /// When it was raised.
    pub created_at: DateTime<Utc>,
    /// When the last message was written.
    pub last_message_at: DateTime<Utc>,
}

/// The answer of `POST /api/toolkit/support/tickets`: a ticket, or a noted report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TicketCreated {
    /// A ticket (new or replied on).
    Ticket(Ticket),
    /// No reply was asked: the words are noted, and there is no thread.
    Noted(NotedReport),
}

/// A report kept without a thread (`needsReply: false`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotedReport {
    /// Always null: there is no thread to open.
    pub id: Option<String>,
    /// Always true.
    pub noted: bool,
    /// The report's own reference (`srep_…`), for the support team.
    pub report_id: String,
    /// When it was noted.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/support/tickets` and `GET /api/toolkit/admin/support`: one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketsQuery {
    /// 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// A ticket id: list only the tickets after it in the order (the last id of the previous page).
    pub cursor: Option<String>,
}

/// `GET /api/toolkit/support/tickets`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketList {
    /// The caller's tickets, newest message first.
    pub tickets: Vec<Ticket>,
    /// The cursor of the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// A thread message (§2.9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThreadMessage {
    /// Id (`tmsg_…`).
    pub id: String,
    /// The words.
    pub content: String,
    /// `person` (who raised the ticket) or `support`.
    pub author: String,
    /// The person's name (else their address), or "Studio support".
    pub author_name: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/support/tickets/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketThread {
    /// The ticket's status.
    pub status: String,
    /// Oldest first; internal notes are never shown.
    pub messages: Vec<ThreadMessage>,
}

/// `POST /api/toolkit/support/screenshots`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotLink {
    /// Id (`shot_…`).
    pub id: String,
    /// `/api/toolkit/support/screenshots/{id}?o=…&e=…&s=…`: readable with no session until
    /// `expiresAt`.
    pub url: String,
    /// When the link stops working (7 days; the image itself is kept 30 days).
    pub expires_at: DateTime<Utc>,
}

/// `GET /api/toolkit/support/screenshots/{id}`: the signed link's query, every part required
/// (400 `BAD_QUERY` when one is missing).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScreenshotQuery {
    /// The object.
    pub o: String,
    /// Expiry, Unix seconds.
    pub e: i64,
    /// The signature.
    pub s: String,
}

/// `POST /api/support/escalations` (the support bridge).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Escalation {
    /// handoff, turn_limit, ai_down, leak_guard or requested (400 `BAD_REASON` otherwise).
    #[serde(default)]
    #[schemars(with = "Option<EscalationReason>")]
    pub reason: Option<String>,
    /// The chat session escalated (required, at most 200 characters).
    #[serde(default)]
    pub session_id: String,
    /// The house (`org_…`); 404 `HOUSE_NOT_FOUND` when unknown. Absent: a visitor's chat,
    /// filed with no house.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization_id: Option<String>,
    /// Where to answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_email: Option<String>,
    /// The chat so far, as the bridge holds it (objects, kept as given; at most 200 items and
    /// 256 KB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<serde_json::Map<String, serde_json::Value>>>,
}

/// `GET /api/toolkit/admin/support`: filters and one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminTicketsQuery {
    /// new, open, pending, on_hold or resolved.
    pub status: Option<String>,
    /// A house id (`org_…`).
    pub house: Option<String>,
    /// A topic.
    pub topic: Option<String>,
    /// 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// The last id of the previous page.
    pub cursor: Option<String>,
}

/// A ticket in the admin queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminTicket {
    /// The ticket as its person sees it.
    #[serde(flatten)]
    pub ticket: Ticket,
    /// `person` (raised in the app) or `escalation` (the support bridge).
    pub source: String,
    /// The topic, when given.
    pub topic: Option<String>,
    /// The escalation's reason.
    pub reason: Option<String>,
    /// The house (null for a visitor's escalated chat).
    pub house_id: Option<String>,
    /// The house's name.
    pub house_name: Option<String>,
    /// The person who raised it.
    pub person_id: Option<String>,
    /// Their address.
    pub person_email: Option<String>,
    /// The contact address given.
    pub contact_email: Option<String>,
    /// Who wrote last: `person` or `support`.
    pub last_author: Option<String>,
}

/// `GET /api/toolkit/admin/support`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminTicketList {
    /// Every house's tickets, newest message first.
    pub tickets: Vec<AdminTicket>,
    /// The cursor of the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// A message as the admin queue sees it (notes included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminThreadMessage {
    /// The message as the person sees it (notes never reach them).
    #[serde(flatten)]
    pub message: ThreadMessage,
    /// True for an internal note.
    pub internal: bool,
    /// Who wrote it (a person id; null for the bridge).
    pub author_id: Option<String>,
    /// When the person read it (support replies only).
    pub read_at: Option<DateTime<Utc>>,
}

/// A screenshot attached to a ticket, with a fresh link when it is one of ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminScreenshot {
    /// The screenshot's id when the link was one of ours and it is still kept.
    pub id: Option<String>,
    /// A fresh signed link (ours), else the link as given.
    pub url: String,
    /// When the fresh link stops working.
    pub expires_at: Option<DateTime<Utc>>,
}

/// `GET /api/toolkit/admin/support/{id}`: the whole ticket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminThread {
    /// The queue's line.
    #[serde(flatten)]
    pub ticket: AdminTicket,
    /// The subject given.
    pub subject: Option<String>,
    /// The page the person was on.
    pub current_url: Option<String>,
    /// The screen they were on.
    pub screen: Option<String>,
    /// Their rating.
    pub rating: Option<i64>,
    /// What the server read when the ticket was raised: `plan`, `spendable`, `lastDevelop`.
    pub context: serde_json::Value,
    /// The escalated chat's session.
    pub session_id: Option<String>,
    /// The escalated chat's transcript, as the bridge sent it.
    pub transcript: Vec<serde_json::Value>,
    /// Screenshots, with fresh links.
    pub screenshots: Vec<AdminScreenshot>,
    /// Every message and note, oldest first.
    pub messages: Vec<AdminThreadMessage>,
}

/// `POST /api/toolkit/admin/support/{id}/reply` and `.../notes`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SupportWords {
    /// The words (1 to 10,000 characters).
    #[serde(default)]
    pub content: String,
}

/// `PATCH /api/toolkit/admin/support/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TicketStatusChange {
    /// new, open, pending, on_hold or resolved (400 `BAD_STATUS` otherwise).
    #[serde(default)]
    #[schemars(with = "Option<TicketStatus>")]
    pub status: Option<String>,
}

/// `GET /api/internal/analyst/support`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalystSupportQuery {
    /// The window: tickets raised in the last `hours` (1 to 2,160; default 168).
    pub hours: Option<i64>,
    /// Tickets listed (1 to 200; default 50).
    pub limit: Option<i64>,
    /// Only this ticket.
    pub ticket_id: Option<String>,
    /// Only tickets in this status.
    pub status: Option<String>,
}

/// One count in the analyst's support aggregates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SupportCount {
    /// The value counted (a status, topic or reason; `none` when absent).
    pub key: String,
    /// How many tickets.
    pub count: i64,
}

/// `GET /api/internal/analyst/support`: the window's real figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalystSupport {
    /// The window, in hours.
    pub hours: i64,
    /// Its start.
    pub since: DateTime<Utc>,
    /// Tickets raised in the window (after the status and ticket filters).
    pub tickets_raised: i64,
    /// Noted reports (no reply asked) in the window.
    pub reports_noted: i64,
    /// By status.
    pub by_status: Vec<SupportCount>,
    /// By topic.
    pub by_topic: Vec<SupportCount>,
    /// Escalations by reason.
    pub by_reason: Vec<SupportCount>,
    /// Tickets of the window that support answered.
    pub answered: i64,
    /// The median time from raising to support's first reply, in seconds (null when none was
    /// answered).
    pub median_first_reply_secs: Option<i64>,
    /// The window's tickets, newest message first, at most `limit`.
    pub tickets: Vec<AdminTicket>,
}
