//! The studio assistant (`02-route-groups.md` §4.15, docs/assistant.md) on the view
//! `studio.chat()`: a person's sessions and their turns (this file), the context the core
//! builds for the reader (`context.rs`), the actions an answer proposes and applying them
//! once (`actions.rs`), and the guard over what an answer may say (`guard.rs`).
//!
//! A session is a person's in a house: the caller's house and person (for a key, the person
//! who minted it). Any other session is 404 `CHAT_SESSION_NOT_FOUND`, whoever asks. A turn:
//! the message is checked (400) → no reader is 503 `AI_NOT_CONFIGURED` with nothing stored →
//! an escalated session is 409 `SESSION_ESCALATED` → the turn is counted against the limit
//! (at the limit the session is handed to support, reason `turn_limit`) → the reader is asked
//! with the context and the recent turns → its answer passes the leak guard (else handed to
//! support, `leak_guard`) → the answer and its proposed actions are stored with the person's
//! turn in one transaction. A reader that fails hands the session to support (`ai_down`); a
//! person who asks for one with `toPerson` is handed over at once (`requested`), and so is an
//! answer that asks for it (`handoff`). The assistant never spends: only apply does.

use crate::ids::{ChatActionId, ChatSessionId};
mod actions;
mod context;
mod guard;

use serde_json::{Value, json};

use crate::admin::window::{cursor, next_cursor};
use crate::ai::vision::tidy;
use crate::api::{
    ChatEscalation, ChatSession, ChatSessionList, ChatSessionsQuery, ChatTurn, ChatTurnList, ChatTurnRequest,
    ChatTurnResponse, ChatTurnsQuery, DEFAULT_CHAT_PAGE, Escalation, MAX_CHAT_MESSAGE, MAX_CHAT_PAGE, MAX_CHAT_TITLE,
    NewChatSession,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{new_id, now};
use crate::storage::{ChatActionRow, ChatSessionRow, ChatTurnRow, SessionChange};
use crate::support::Escalator;

pub(crate) use actions::action_view;

/// The title a session has until it is given one or its first message names it.
const UNTITLED: &str = "New chat";
/// The most turns the reader is shown, newest kept.
const TRANSCRIPT_TURNS: i64 = 20;

crate::studio::view! {
    /// The studio assistant, borrowed from a [`Studio`].
    Chat over ChatStore
}

impl<'a> crate::ai::Ai<'a> {
    /// The studio assistant's operations.
    pub fn chat(&self) -> Chat<'a> {
        crate::studio::chat(self.studio)
    }
}

/// Which of the person's credentials a session is kept under: the browser session's chats may
/// carry the person's own memories, which a key (the house's) never reads.
fn via(caller: &Caller) -> &'static str {
    if caller.is_session() { "session" } else { "key" }
}

fn session_not_found() -> Error {
    Error::not_found("CHAT_SESSION_NOT_FOUND", "No chat session of yours has that id.")
}

/// A page size: 1 to [`MAX_CHAT_PAGE`], default [`DEFAULT_CHAT_PAGE`].
fn page(limit: Option<u32>) -> Result<i64> {
    let limit = limit.unwrap_or(DEFAULT_CHAT_PAGE);
    if !(1..=MAX_CHAT_PAGE).contains(&limit) {
        return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_CHAT_PAGE}.")).with("max", MAX_CHAT_PAGE));
    }
    Ok(i64::from(limit))
}

impl Chat<'_> {
    fn session_view(&self, row: &ChatSessionRow) -> ChatSession {
        ChatSession {
            id: row.id.to_string(),
            title: row.title.clone(),
            status: row.status.to_string(),
            turns: row.turns,
            turn_limit: self.studio.config.chat.turn_limit,
            ticket_id: row.ticket_id.clone().map(String::from),
            escalation_reason: row.reason.clone(),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }

    /// The caller's own session, else 404.
    pub(crate) async fn own(&self, caller: &Caller, id: &ChatSessionId) -> Result<ChatSessionRow> {
        let found = self
            .store
            .chat_session(&caller.org_id, &caller.user_id, via(caller), &ChatSessionId::from(id.trim()))
            .await?;
        found.ok_or_else(session_not_found)
    }

    /// `POST /api/toolkit/chat/sessions`: a new session of the caller's. Any role. 400
    /// `TOO_LONG` for a title past 120 characters.
    pub async fn create(&self, caller: &Caller, req: NewChatSession) -> Result<ChatSession> {
        let title = req.title.as_deref().map(|t| tidy(t, usize::MAX)).filter(|t| !t.is_empty());
        if title.as_ref().is_some_and(|t| t.chars().count() > MAX_CHAT_TITLE) {
            return Err(Error::invalid("TOO_LONG", format!("A title is at most {MAX_CHAT_TITLE} characters."))
                .with("max", MAX_CHAT_TITLE));
        }
        let at = now();
        let row = ChatSessionRow {
            id: ChatSessionId::generate(),
            org_id: caller.org_id.clone(),
            user_id: caller.user_id.clone(),
            via: via(caller).to_string(),
            titled: title.is_some(),
            title: title.unwrap_or_else(|| UNTITLED.to_string()),
            status: crate::storage::ChatSessionStatus::Open,
            turns: 0,
            last_seq: 0,
            ticket_id: None,
            reason: None,
            context: None,
            context_built_at: None,
            created_at: at,
            updated_at: at,
        };
        self.store.insert_chat_session(&row).await?;
        Ok(self.session_view(&row))
    }

    /// `GET /api/toolkit/chat/sessions`: the caller's sessions, latest change first. 400
    /// `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn sessions(&self, caller: &Caller, query: ChatSessionsQuery) -> Result<ChatSessionList> {
        let limit = page(query.limit)?;
        let after = cursor(query.cursor.as_deref())?;
        let mut rows = self
            .store
            .chat_sessions(
                &caller.org_id,
                &caller.user_id,
                via(caller),
                limit + 1,
                after.as_ref().map(|(t, id)| (*t, id.as_str())),
            )
            .await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = more.then(|| rows.last().map(|r| next_cursor(r.updated_at, &r.id))).flatten();
        Ok(ChatSessionList { sessions: rows.iter().map(|r| self.session_view(r)).collect(), next_cursor })
    }

    /// `GET /api/toolkit/chat/sessions/{id}/turns`: turns in order after `after`. 404 for a
    /// session not the caller's; 400 `BAD_LIMIT`, `BAD_AFTER`.
    pub async fn turns(&self, caller: &Caller, id: &ChatSessionId, query: ChatTurnsQuery) -> Result<ChatTurnList> {
        let session = self.own(caller, id).await?;
        let limit = page(query.limit)?;
        let after = query.after.unwrap_or(0);
        if after < 0 {
            return Err(Error::invalid("BAD_AFTER", "after is a turn's seq, 0 or more."));
        }
        let mut rows = self.store.chat_turns(&session.id, after, limit + 1).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let actions = self.store.chat_actions(&session.id).await?;
        let next_after = more.then(|| rows.last().map(|t| t.seq)).flatten();
        Ok(ChatTurnList {
            session: self.session_view(&session),
            turns: rows.iter().map(|t| turn_view(t, &actions)).collect::<Result<_>>()?,
            next_after,
        })
    }

    /// `POST /api/toolkit/chat/sessions/{id}/turns`: one turn (see the module's order). 400
    /// `MESSAGE_REQUIRED`, `TOO_LONG`; 404 `CHAT_SESSION_NOT_FOUND`; 409 `SESSION_ESCALATED`
    /// (with `ticketId`); 503 `AI_NOT_CONFIGURED`; 402 and 403 only when the deployment prices
    /// turns.
    pub async fn turn(&self, caller: &Caller, id: &ChatSessionId, req: ChatTurnRequest) -> Result<ChatTurnResponse> {
        // In a task of its own: a caller who hangs up never leaves a counted turn unstored.
        let (studio, caller, id) = (self.studio.clone(), caller.clone(), id.clone());
        tokio::spawn(async move { studio.ai().chat().take_turn(&caller, &id, req).await })
            .await
            .map_err(Error::internal)?
    }

    async fn take_turn(&self, caller: &Caller, id: &ChatSessionId, req: ChatTurnRequest) -> Result<ChatTurnResponse> {
        let message = req.message.trim();
        if message.is_empty() {
            return Err(Error::invalid("MESSAGE_REQUIRED", "Say something: message is required."));
        }
        if message.chars().count() > MAX_CHAT_MESSAGE {
            return Err(Error::invalid("TOO_LONG", format!("A message is at most {MAX_CHAT_MESSAGE} characters."))
                .with("max", MAX_CHAT_MESSAGE));
        }
        let session = self.own(caller, id).await?;
        let client = if req.to_person { None } else { Some(self.studio.ai().ai_client()?) };
        if session.status != crate::storage::ChatSessionStatus::Open {
            return Err(escalated(&session));
        }
        let person = turn_row(&session.id, "person", message, Value::Null, 0);
        if req.to_person {
            return self
                .escalate(caller, &session, person, Handover::new("requested", "You asked for a person."))
                .await;
        }
        let limit = self.studio.config.chat.turn_limit;
        if self.store.take_chat_turn(&session.id, limit).await?.is_none() {
            // At the limit (or escalated by a turn running beside this one: the claim says).
            let note = format!("This conversation reached its limit of {limit} turns.");
            return self.escalate(caller, &session, person, Handover::new("turn_limit", &note)).await;
        }
        let (answer, tokens) = match self.answered(caller, &session, client, message).await {
            Ok(answered) => answered,
            Err(e) => {
                let handover = match (e.code, e.kind) {
                    (context::WITHHELD, _) => Handover::new(
                        "leak_guard",
                        "The assistant's answer was withheld because it quoted something private.",
                    ),
                    (context::HANDOFF, _) => {
                        Handover::new("handoff", "The assistant asked a person from support to take over.")
                    }
                    (_, ErrorKind::Upstream) => Handover::new("ai_down", "The assistant could not answer just now."),
                    _ => {
                        // Refused (a priced turn's 402 or 403) or failed before the reader: the
                        // turn is given back and nothing is stored.
                        self.store.return_chat_turn(&session.id).await?;
                        return Err(e);
                    }
                };
                return self.escalate(caller, &session, person, Handover { counted: true, ..handover }).await;
            }
        };
        let reply = turn_row(&session.id, "assistant", &answer.reply, Value::Null, tokens);
        let proposed: Vec<ChatActionRow> = answer
            .actions
            .into_iter()
            .map(|a| ChatActionRow {
                id: ChatActionId::generate(),
                session_id: session.id.clone(),
                turn_id: reply.id.clone(),
                kind: a.kind,
                summary: a.summary,
                request: a.request.to_string(),
                price: a.price,
                status: crate::storage::ChatActionStatus::Proposed,
                claimed_at: None,
                result: None,
                applied_at: None,
                created_at: reply.created_at,
            })
            .collect();
        let title = (!session.titled).then(|| tidy(message, 60));
        let change = SessionChange { title: title.as_deref(), ticket: None };
        let stored = self.store.append_chat_turns(&session.id, vec![person, reply], &proposed, change, now()).await?;
        self.answer(caller, &session.id, stored, &proposed).await
    }

    /// The reader's answer to `message` with the session's context and recent turns.
    async fn answered(
        &self,
        caller: &Caller,
        session: &ChatSessionRow,
        client: Option<crate::providers::ai::AiClient>,
        message: &str,
    ) -> Result<(context::Answer, i64)> {
        let client = client.ok_or_else(crate::ai::reads::not_configured)?;
        let context = self.context_for(caller, session).await?;
        let transcript = self.transcript(&session.id).await?;
        self.ask(caller, client, context, transcript, message.to_string()).await
    }

    /// Hand the session to support: claim the escalation (so two never make two tickets),
    /// make a ticket carrying the newest turns that fit, then store the person's turn and a
    /// `notice` turn naming the ticket in one write. A ticket that cannot be written opens the
    /// session again and gives back a counted turn.
    async fn escalate(
        &self,
        caller: &Caller,
        session: &ChatSessionRow,
        person: ChatTurnRow,
        handover: Handover<'_>,
    ) -> Result<ChatTurnResponse> {
        let reason = handover.reason;
        if !self.store.claim_escalation(&session.id, reason).await? {
            if handover.counted {
                self.store.return_chat_turn(&session.id).await?;
            }
            return Err(escalated(&self.own(caller, &session.id).await?));
        }
        let turns = self.store.chat_turns(&session.id, 0, i64::MAX).await?;
        let escalation = Escalation {
            reason: Some(reason.to_string()),
            session_id: session.id.to_string(),
            organization_id: None,
            contact_email: None,
            transcript: Some(transcript_for_support(&turns, &person)),
        };
        let ticket = match self.studio.support().escalate(Escalator::Chat(caller), escalation).await {
            Ok(ticket) => ticket,
            Err(e) => {
                self.store.drop_escalation(&session.id).await?;
                if handover.counted {
                    self.store.return_chat_turn(&session.id).await?;
                }
                return Err(e);
            }
        };
        let text = format!("{} A person from support will answer on ticket {}.", handover.note, ticket.id);
        let data = json!({ "escalation": { "reason": reason, "ticketId": ticket.id } });
        let notice = turn_row(&session.id, "notice", &text, data, 0);
        let title = (!session.titled).then(|| tidy(&person.content, 60));
        let change = SessionChange { title: title.as_deref(), ticket: Some(&ticket.id) };
        let stored = self.store.append_chat_turns(&session.id, vec![person, notice], &[], change, now()).await?;
        self.answer(caller, &session.id, stored, &[]).await
    }

    async fn answer(
        &self,
        caller: &Caller,
        id: &ChatSessionId,
        stored: Vec<ChatTurnRow>,
        actions: &[ChatActionRow],
    ) -> Result<ChatTurnResponse> {
        let session = self.own(caller, id).await?;
        Ok(ChatTurnResponse {
            session: self.session_view(&session),
            turns: stored.iter().map(|t| turn_view(t, actions)).collect::<Result<_>>()?,
        })
    }

    /// The last [`TRANSCRIPT_TURNS`] turns as the reader is shown them.
    async fn transcript(&self, session_id: &ChatSessionId) -> Result<Vec<(String, String)>> {
        let session_turns = self.store.chat_turns(session_id, 0, i64::MAX).await?;
        let skip = session_turns.len().saturating_sub(TRANSCRIPT_TURNS as usize);
        Ok(session_turns.into_iter().skip(skip).map(|t| (t.role, t.content)).collect())
    }
}

/// Why and how a session is handed to support.
struct Handover<'a> {
    reason: &'static str,
    note: &'a str,
    /// Whether the turn was counted against the limit (given back if no ticket is made).
    counted: bool,
}

impl<'a> Handover<'a> {
    fn new(reason: &'static str, note: &'a str) -> Self {
        Handover { reason, note, counted: false }
    }
}

/// The newest turns (and the person's message) that fit a ticket's transcript: at most 150
/// items and 200 KB (support takes 200 and 256 KB), oldest first.
fn transcript_for_support(turns: &[ChatTurnRow], person: &ChatTurnRow) -> Vec<serde_json::Map<String, Value>> {
    const ITEMS: usize = 150;
    const BYTES: usize = 200 * 1024;
    let mut kept = Vec::new();
    let mut bytes = 0;
    for t in std::iter::once(person).chain(turns.iter().rev()) {
        let item = transcript_item(&t.role, &t.content, t.created_at);
        bytes += Value::Object(item.clone()).to_string().len() + 1;
        if kept.len() == ITEMS || bytes > BYTES {
            break;
        }
        kept.push(item);
    }
    kept.reverse();
    kept
}

/// 409 `SESSION_ESCALATED` with the ticket.
fn escalated(session: &ChatSessionRow) -> Error {
    Error::conflict(
        "SESSION_ESCALATED",
        "This session was handed to support; answer on the ticket, or start a new session.",
    )
    .with("ticketId", session.ticket_id.clone().map(String::from).unwrap_or_default())
}

fn transcript_item(role: &str, text: &str, at: chrono::DateTime<chrono::Utc>) -> serde_json::Map<String, Value> {
    let mut item = serde_json::Map::new();
    item.insert("role".into(), role.into());
    item.insert("text".into(), text.into());
    item.insert("at".into(), at.to_rfc3339().into());
    item
}

/// A new turn (its `seq` is assigned when stored).
fn turn_row(session_id: &ChatSessionId, role: &str, content: &str, data: Value, tokens: i64) -> ChatTurnRow {
    ChatTurnRow {
        id: new_id("turn"),
        session_id: session_id.clone(),
        seq: 0,
        role: role.to_string(),
        content: content.to_string(),
        data: if data.is_null() { "{}".into() } else { data.to_string() },
        tokens,
        created_at: now(),
    }
}

/// A stored turn on the wire, with the actions it proposed.
fn turn_view(t: &ChatTurnRow, actions: &[ChatActionRow]) -> Result<ChatTurn> {
    let data: Value = serde_json::from_str(&t.data).map_err(Error::internal)?;
    let escalation = data.get("escalation").and_then(|e| serde_json::from_value::<ChatEscalation>(e.clone()).ok());
    Ok(ChatTurn {
        id: t.id.clone(),
        seq: t.seq,
        role: t.role.clone(),
        text: t.content.clone(),
        actions: actions.iter().filter(|a| a.turn_id == t.id).map(action_view).collect::<Result<_>>()?,
        action_id: data.get("actionId").and_then(Value::as_str).map(str::to_string),
        escalation,
        tokens: t.tokens,
        created_at: t.created_at,
    })
}
