//! The studio assistant on the wire (`02-route-groups.md` §4.15, designed in
//! docs/assistant.md): a person's chat sessions, their turns, the actions an answer proposes
//! with their price, applying one, and warming a session's context.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest message a person sends, in characters.
pub const MAX_CHAT_MESSAGE: usize = 4_000;
/// Longest session title, in characters.
pub const MAX_CHAT_TITLE: usize = 120;
/// Sessions (or turns) one page lists by default, and the most.
pub const DEFAULT_CHAT_PAGE: u32 = 20;
/// The most sessions or turns one page lists.
pub const MAX_CHAT_PAGE: u32 = 100;

/// `POST /api/toolkit/chat/sessions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NewChatSession {
    /// A title (at most 120 characters); absent, the first message names the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// A chat session: one person's conversation with the assistant in one house.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatSession {
    /// Id (`chat_…`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// `open`, or `escalated` (handed to support: it takes no more turns).
    pub status: String,
    /// Turns the person has taken.
    pub turns: i64,
    /// Turns a session may take before it is handed to support.
    pub turn_limit: i64,
    /// The support ticket it was handed to, once escalated.
    pub ticket_id: Option<String>,
    /// Why it was escalated: handoff, turn_limit, ai_down, leak_guard or requested.
    pub escalation_reason: Option<String>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last turn.
    pub updated_at: DateTime<Utc>,
}

/// `GET /api/toolkit/chat/sessions`: one page, latest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatSessionsQuery {
    /// 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// `nextCursor` of the page before.
    pub cursor: Option<String>,
}

/// One page of sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatSessionList {
    /// Latest change first.
    pub sessions: Vec<ChatSession>,
    /// Where the next page starts; null on the last.
    pub next_cursor: Option<String>,
}

/// `POST /api/toolkit/chat/sessions/{id}/turns`: one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnRequest {
    /// What the person says (1 to 4,000 characters; 400 `MESSAGE_REQUIRED`, `TOO_LONG`).
    #[serde(default)]
    pub message: String,
    /// True to talk to a person: the session is handed to support (reason `requested`)
    /// without asking the assistant.
    #[serde(default)]
    pub to_person: bool,
}

/// An action an answer proposes. Nothing runs until it is applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatAction {
    /// Id (`act_…`), what apply names.
    pub id: String,
    /// `develop` (the agent endpoint's start_develop request), `pack` (a pack request) or
    /// `look` (a create-look request).
    pub kind: String,
    /// One line saying what it does.
    pub summary: String,
    /// The request it runs, exactly as the matching route takes it.
    pub request: serde_json::Value,
    /// Tokens it holds, from the price book when proposed (0 for packs and looks).
    pub price: i64,
    /// `proposed`, `applying` or `applied`.
    pub status: String,
    /// What applying it answered (the route's own answer), once applied.
    pub result: Option<serde_json::Value>,
    /// When it was applied.
    pub applied_at: Option<DateTime<Utc>>,
}

/// A session handed to support.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatEscalation {
    /// handoff, turn_limit, ai_down, leak_guard or requested.
    pub reason: String,
    /// The ticket (`tkt_…`); the person's support thread.
    pub ticket_id: String,
}

/// One turn of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurn {
    /// Id (`turn_…`).
    pub id: String,
    /// Its place in the session, from 1.
    pub seq: i64,
    /// `person`, `assistant`, `action` (an applied action's result) or `notice` (the studio
    /// speaking: an escalation, a withheld answer).
    pub role: String,
    /// What was said.
    pub text: String,
    /// The actions an assistant turn proposed.
    pub actions: Vec<ChatAction>,
    /// For an `action` turn: the action applied.
    pub action_id: Option<String>,
    /// For a `notice` that handed the session to support.
    pub escalation: Option<ChatEscalation>,
    /// Tokens the turn cost (0 unless the deployment prices turns).
    pub tokens: i64,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// The answer to one turn: the turns it added, in order, and the session after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnResponse {
    /// The session after the turn.
    pub session: ChatSession,
    /// The person's turn and what answered it.
    pub turns: Vec<ChatTurn>,
}

/// `GET /api/toolkit/chat/sessions/{id}/turns`: turns in order, after a place.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatTurnsQuery {
    /// Only turns after this `seq` (default 0: from the start).
    pub after: Option<i64>,
    /// 1 to 100 (default 20).
    pub limit: Option<u32>,
}

/// One page of turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnList {
    /// The session.
    pub session: ChatSession,
    /// Oldest first.
    pub turns: Vec<ChatTurn>,
    /// The `after` of the next page; null on the last.
    pub next_after: Option<i64>,
}

/// `POST /api/toolkit/chat/apply`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatApplyRequest {
    /// The session (`chat_…`).
    #[serde(default)]
    pub session_id: String,
    /// The proposed action (`act_…`).
    #[serde(default)]
    pub action_id: String,
}

/// What applying an action did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatApplied {
    /// The action, now applied, with the route's answer as `result`.
    pub action: ChatAction,
    /// The `action` turn that records it.
    pub turn: ChatTurn,
    /// True when an earlier apply ran it and this one only read the result.
    pub replayed: bool,
}

/// `POST /api/toolkit/chat/context/warm`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatWarmRequest {
    /// The session (`chat_…`).
    #[serde(default)]
    pub session_id: String,
}

/// A session's context, built and kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatWarm {
    /// The session.
    pub session_id: String,
    /// When the kept context was built.
    pub built_at: DateTime<Utc>,
    /// True when a fresh context was already kept and nothing was rebuilt.
    pub cached: bool,
    /// Until when a turn uses it without rebuilding.
    pub fresh_until: DateTime<Utc>,
    /// Active memories it holds (the house's and the caller's own).
    pub memories: i64,
    /// Recent develops it holds.
    pub recent_develops: i64,
    /// Library assets it names.
    pub assets: i64,
}
