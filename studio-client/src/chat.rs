//! The studio assistant through the client (`02-route-groups.md` §4.15, docs/assistant.md):
//! sessions, one turn, the turns so far, applying a proposed action, warming a context. A
//! turn and an apply are sent once (never retried: a turn asks the reader, and an apply that
//! lost its answer is safe to send again by hand, since it runs its action at most once).

use studio_core::api::{
    ChatApplied, ChatApplyRequest, ChatSession, ChatSessionList, ChatSessionsQuery, ChatTurnList, ChatTurnRequest,
    ChatTurnResponse, ChatTurnsQuery, ChatWarm, ChatWarmRequest, NewChatSession,
};

use crate::client::{Client, encode, query};
use crate::error::Error;

impl Client {
    /// `POST /api/toolkit/chat/sessions`: a new session of the caller's (its title optional).
    pub async fn chat_start(&self, title: Option<&str>) -> Result<ChatSession, Error> {
        self.post("/api/toolkit/chat/sessions", &NewChatSession { title: title.map(str::to_string) }).await
    }

    /// `GET /api/toolkit/chat/sessions`: the caller's sessions, latest first.
    pub async fn chat_sessions(&self, page: &ChatSessionsQuery) -> Result<ChatSessionList, Error> {
        let q = query(&[("limit", page.limit.map(|l| l.to_string())), ("cursor", page.cursor.clone())]);
        self.get(&format!("/api/toolkit/chat/sessions{q}")).await
    }

    /// `POST /api/toolkit/chat/sessions/{id}/turns`: say `message`, get the answer (and any
    /// proposed actions, or an escalation). 409 `SESSION_ESCALATED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn chat_say(&self, session_id: &str, message: &str) -> Result<ChatTurnResponse, Error> {
        let turn = ChatTurnRequest { message: message.to_string(), to_person: false };
        self.chat_turn(session_id, &turn).await
    }

    /// `POST /api/toolkit/chat/sessions/{id}/turns` with the whole request (`toPerson` hands
    /// the session to support).
    pub async fn chat_turn(&self, session_id: &str, turn: &ChatTurnRequest) -> Result<ChatTurnResponse, Error> {
        self.post(&format!("/api/toolkit/chat/sessions/{}/turns", encode(session_id)), turn).await
    }

    /// `GET /api/toolkit/chat/sessions/{id}/turns`: turns after `after`, oldest first.
    pub async fn chat_turns(&self, session_id: &str, page: &ChatTurnsQuery) -> Result<ChatTurnList, Error> {
        let q = query(&[("after", page.after.map(|a| a.to_string())), ("limit", page.limit.map(|l| l.to_string()))]);
        self.get(&format!("/api/toolkit/chat/sessions/{}/turns{q}", encode(session_id))).await
    }

    /// `POST /api/toolkit/chat/apply`: run a proposed action (at most once, whoever asks how
    /// often). 402, 403 and the action's own refusals pass through.
    pub async fn chat_apply(&self, session_id: &str, action_id: &str) -> Result<ChatApplied, Error> {
        let req = ChatApplyRequest { session_id: session_id.to_string(), action_id: action_id.to_string() };
        self.post("/api/toolkit/chat/apply", &req).await
    }

    /// `POST /api/toolkit/chat/context/warm`: build and keep the session's context.
    pub async fn chat_warm(&self, session_id: &str) -> Result<ChatWarm, Error> {
        self.post("/api/toolkit/chat/context/warm", &ChatWarmRequest { session_id: session_id.to_string() }).await
    }
}
