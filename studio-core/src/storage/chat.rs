//! The studio assistant as stored: chat sessions, their turns and proposed actions, and the
//! `ChatStore` trait (docs/assistant.md).

use crate::ids::{ChatActionId, ChatSessionId, OrgId, TicketId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A chat session as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ChatSessionRow {
    /// Id (`chat_…`).
    pub id: ChatSessionId,
    /// The house.
    pub org_id: OrgId,
    /// The person whose session it is.
    pub user_id: UserId,
    /// Through which credential: `session` (the person's browser session) or `key` (the keys
    /// the person minted).
    pub via: String,
    /// Its title.
    pub title: String,
    /// True once the title was given or taken from the first message.
    pub titled: bool,
    /// `open` or `escalated`.
    pub status: crate::storage::ChatSessionStatus,
    /// Person turns taken (the turn limit counts these).
    pub turns: i64,
    /// The last turn's sequence number.
    pub last_seq: i64,
    /// The support ticket an escalation made.
    pub ticket_id: Option<TicketId>,
    /// Why it was escalated.
    pub reason: Option<String>,
    /// The cached context (JSON), when warmed or used.
    pub context: Option<String>,
    /// When the cached context was built.
    pub context_built_at: Option<DateTime<Utc>>,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last turn or change.
    pub updated_at: DateTime<Utc>,
}

/// One turn as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ChatTurnRow {
    /// Id (`turn_…`).
    pub id: String,
    /// The session.
    pub session_id: ChatSessionId,
    /// Its place in the session, from 1 (assigned when stored).
    pub seq: i64,
    /// `person`, `assistant`, `action` or `notice`.
    pub role: String,
    /// What was said.
    pub content: String,
    /// Extra facts as JSON (an escalation, an applied action's result).
    pub data: String,
    /// Tokens the turn cost.
    pub tokens: i64,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A proposed action as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ChatActionRow {
    /// Id (`act_…`).
    pub id: ChatActionId,
    /// The session.
    pub session_id: ChatSessionId,
    /// The assistant turn that proposed it.
    pub turn_id: String,
    /// `develop`, `pack` or `look`.
    pub kind: String,
    /// One line saying what it does.
    pub summary: String,
    /// The core request it runs (JSON).
    pub request: String,
    /// Its price from the price book when proposed.
    pub price: i64,
    /// `proposed`, `applying` or `applied`.
    pub status: crate::storage::ChatActionStatus,
    /// When an apply claimed it.
    pub claimed_at: Option<DateTime<Utc>>,
    /// What applying it answered (JSON).
    pub result: Option<String>,
    /// When it was applied.
    pub applied_at: Option<DateTime<Utc>>,
    /// When it was proposed.
    pub created_at: DateTime<Utc>,
}

/// What appending turns changes on the session besides its sequence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionChange<'a> {
    /// A title taken from the first message (only when the session has none yet).
    pub title: Option<&'a str>,
    /// The ticket an escalation made (kept only when the session has none); the session was
    /// marked escalated, with its reason, by [`ChatStore::claim_escalation`].
    pub ticket: Option<&'a str>,
}

/// Chat sessions, turns and actions.
#[async_trait::async_trait]
pub trait ChatStore: Send + Sync {
    /// Write a new session.
    async fn insert_chat_session(&self, row: &ChatSessionRow) -> Result<(), StorageError>;
    /// The person's session in the house through `via`, if it is theirs.
    async fn chat_session(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        via: &str,
        id: &ChatSessionId,
    ) -> Result<Option<ChatSessionRow>, StorageError>;
    /// Up to `limit` of the person's sessions through `via`, latest change first, before
    /// `before` (`(updated_at, id)`) when given.
    async fn chat_sessions(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        via: &str,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<ChatSessionRow>, StorageError>;
    /// Take one person turn on an open session below `limit` turns: the count moves and the
    /// new count is answered; None when the session is escalated or at its limit.
    async fn take_chat_turn(&self, session_id: &ChatSessionId, limit: i64) -> Result<Option<i64>, StorageError>;
    /// Mark an open session escalated for `reason` (before its ticket is made); false when it
    /// is escalated already, so two escalations never make two tickets.
    async fn claim_escalation(&self, session_id: &ChatSessionId, reason: &str) -> Result<bool, StorageError>;
    /// Open again a session whose escalation made no ticket (the ticket could not be written).
    async fn drop_escalation(&self, session_id: &ChatSessionId) -> Result<(), StorageError>;
    /// Give back a turn [`ChatStore::take_chat_turn`] took for a turn that was refused.
    async fn return_chat_turn(&self, session_id: &ChatSessionId) -> Result<(), StorageError>;
    /// Append `turns` (their `seq` assigned in order after the last) and `actions` in one
    /// transaction with `change`; answers the turns as stored.
    async fn append_chat_turns(
        &self,
        session_id: &ChatSessionId,
        turns: Vec<ChatTurnRow>,
        actions: &[ChatActionRow],
        change: SessionChange<'_>,
        now: DateTime<Utc>,
    ) -> Result<Vec<ChatTurnRow>, StorageError>;
    /// Up to `limit` turns after `after_seq`, in order.
    async fn chat_turns(
        &self,
        session_id: &ChatSessionId,
        after_seq: i64,
        limit: i64,
    ) -> Result<Vec<ChatTurnRow>, StorageError>;
    /// The actions proposed in the session, oldest first.
    async fn chat_actions(&self, session_id: &ChatSessionId) -> Result<Vec<ChatActionRow>, StorageError>;
    /// Keep the context built for a session.
    async fn cache_chat_context(
        &self,
        session_id: &ChatSessionId,
        context: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StorageError>;
    /// One action of the session.
    async fn chat_action(
        &self,
        session_id: &ChatSessionId,
        id: &ChatActionId,
    ) -> Result<Option<ChatActionRow>, StorageError>;
    /// Claim an action to apply it: a proposed one, or one whose claim is older than
    /// `stale_before` (an apply that died). False when another apply holds it or it is applied.
    async fn claim_chat_action(
        &self,
        id: &ChatActionId,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Hand back the claim taken at `claimed` (the apply was refused): the action is proposed
    /// again, unless another apply has taken the claim over since.
    async fn unclaim_chat_action(&self, id: &ChatActionId, claimed: DateTime<Utc>) -> Result<(), StorageError>;
    /// Record the action claimed at `claimed` as applied with `result`, and append `turn` to its
    /// session, in one transaction. None when that claim is no longer held (nothing written).
    async fn finish_chat_action(
        &self,
        id: &ChatActionId,
        claimed: DateTime<Utc>,
        result: &str,
        turn: ChatTurnRow,
        now: DateTime<Utc>,
    ) -> Result<Option<ChatTurnRow>, StorageError>;
}
