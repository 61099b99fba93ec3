//! Support: tickets, their thread messages (internal notes included), noted reports and the
//! screenshots people attach, as stored, with the `SupportStore` trait.

use crate::ids::{OrgId, ScreenshotId, TicketId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A ticket as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TicketRow {
    /// Id (`tkt_…`).
    pub id: TicketId,
    /// The house (None for a visitor's escalated chat).
    pub org_id: Option<OrgId>,
    /// The person whose thread it is (None for an escalation the bridge raised).
    pub user_id: Option<UserId>,
    /// `person` or `escalation`.
    pub source: String,
    /// new, open, pending, on_hold or resolved (a CHECK constraint).
    pub status: crate::storage::TicketStatus,
    /// The topic.
    pub topic: Option<String>,
    /// The subject given.
    pub subject: Option<String>,
    /// What lists show.
    pub summary: String,
    /// Where to answer.
    pub contact_email: Option<String>,
    /// The page the person was on.
    pub current_url: Option<String>,
    /// The screen they were on.
    pub screen: Option<String>,
    /// Their rating.
    pub rating: Option<i64>,
    /// Screenshot links, a JSON array of strings.
    pub screenshots: String,
    /// What the server read when it was raised, a JSON object.
    pub context: String,
    /// The escalation's reason.
    pub reason: Option<String>,
    /// The escalated chat's session.
    pub session_id: Option<String>,
    /// The escalated chat's transcript, a JSON array of objects.
    pub transcript: String,
    /// When it was raised.
    pub created_at: DateTime<Utc>,
    /// When its last visible message was written.
    pub last_message_at: DateTime<Utc>,
}

/// A ticket with what lists show beside it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TicketLineRow {
    /// The ticket.
    #[sqlx(flatten)]
    pub ticket: TicketRow,
    /// Visible messages.
    pub message_count: i64,
    /// Support replies the person has not read.
    pub unread_count: i64,
    /// Who wrote the last visible message.
    pub last_author: Option<String>,
    /// The house's name.
    pub house_name: Option<String>,
    /// The person's address.
    pub person_email: Option<String>,
    /// When support first answered.
    pub first_reply_at: Option<DateTime<Utc>>,
}

/// A thread message or internal note as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct TicketMessageRow {
    /// Id (`tmsg_…`).
    pub id: String,
    /// The ticket.
    pub ticket_id: TicketId,
    /// `person` or `support`.
    pub author: String,
    /// Who wrote it.
    pub author_id: Option<UserId>,
    /// An internal note (never shown to the person).
    pub internal: bool,
    /// The words.
    pub content: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// When the person read it (support replies).
    pub read_at: Option<DateTime<Utc>>,
}

/// A message with its author's name (read only).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ThreadMessageRow {
    /// The message.
    #[sqlx(flatten)]
    pub message: TicketMessageRow,
    /// The author's name, else their address.
    pub author_name: Option<String>,
}

/// A noted report (a ticket that asked no reply).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SupportReportRow {
    /// Id (`srep_…`).
    pub id: String,
    /// The house.
    pub org_id: OrgId,
    /// The person.
    pub user_id: UserId,
    /// The topic.
    pub topic: Option<String>,
    /// The subject.
    pub subject: Option<String>,
    /// The words.
    pub body: String,
    /// Where to answer.
    pub contact_email: Option<String>,
    /// The page.
    pub current_url: Option<String>,
    /// The screen.
    pub screen: Option<String>,
    /// The rating.
    pub rating: Option<i64>,
    /// Screenshot links, a JSON array.
    pub screenshots: String,
    /// What the server read, a JSON object.
    pub context: String,
    /// When it was noted.
    pub created_at: DateTime<Utc>,
}

/// A screenshot as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ScreenshotRow {
    /// Id (`shot_…`).
    pub id: ScreenshotId,
    /// The house it was sent from.
    pub org_id: OrgId,
    /// The person who sent it.
    pub user_id: UserId,
    /// The object name its links sign (`o`).
    pub object: String,
    /// Where the bytes are.
    pub blob_key: String,
    /// Their type.
    pub mime: String,
    /// Their size.
    pub bytes: i64,
    /// When it was sent.
    pub created_at: DateTime<Utc>,
    /// When the retention ends (the sweep deletes it after).
    pub expires_at: DateTime<Utc>,
}

/// Which tickets a queue read lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TicketFilter {
    /// One status.
    pub status: Option<String>,
    /// One house.
    pub org_id: Option<OrgId>,
    /// One topic.
    pub topic: Option<String>,
    /// One ticket.
    pub ticket_id: Option<String>,
    /// Raised at or after.
    pub since: Option<DateTime<Utc>>,
}

/// A change a new message brings to its ticket.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageEffect {
    /// The ticket's status after it (None: unchanged).
    pub status: Option<&'static str>,
    /// True when the message is visible (moves `last_message_at`).
    pub visible: bool,
}

/// Support.
#[async_trait::async_trait]
pub trait SupportStore: Send + Sync {
    /// Raise a ticket with its first message (one transaction).
    async fn insert_ticket(&self, ticket: &TicketRow, first: Option<&TicketMessageRow>) -> Result<(), StorageError>;
    /// One ticket with its list fields.
    async fn ticket_line(&self, id: &TicketId) -> Result<Option<TicketLineRow>, StorageError>;
    /// Up to `limit` tickets of a person in a house, newest message first, after `before` (its
    /// `(last_message_at, id)`) when given.
    async fn person_tickets(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<TicketLineRow>, StorageError>;
    /// Up to `limit` tickets of every house matching `filter`, newest message first, after
    /// `before` when given.
    async fn queue_tickets(
        &self,
        filter: &TicketFilter,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<TicketLineRow>, StorageError>;
    /// Every ticket matching `filter` (the analyst's window).
    async fn window_tickets(&self, filter: &TicketFilter) -> Result<Vec<TicketLineRow>, StorageError>;
    /// Add a message or note and apply its effect on the ticket (one transaction); false when
    /// there is no such ticket.
    async fn add_ticket_message(&self, row: &TicketMessageRow, effect: MessageEffect) -> Result<bool, StorageError>;
    /// A thread, oldest first, notes included only when `internal`.
    async fn ticket_messages(
        &self,
        ticket_id: &TicketId,
        internal: bool,
    ) -> Result<Vec<ThreadMessageRow>, StorageError>;
    /// Mark the support replies of a ticket read; how many were unread.
    async fn mark_support_read(&self, ticket_id: &TicketId, now: DateTime<Utc>) -> Result<u64, StorageError>;
    /// Set a ticket's status; false when there is no such ticket.
    async fn set_ticket_status(&self, id: &TicketId, status: &str) -> Result<bool, StorageError>;
    /// Note a report.
    async fn insert_support_report(&self, row: &SupportReportRow) -> Result<(), StorageError>;
    /// Noted reports since `since`.
    async fn support_reports_since(&self, since: DateTime<Utc>) -> Result<i64, StorageError>;
    /// Record a screenshot whose blob is written.
    async fn insert_screenshot(&self, row: &ScreenshotRow) -> Result<(), StorageError>;
    /// One screenshot, expired or not.
    async fn screenshot(&self, id: &ScreenshotId) -> Result<Option<ScreenshotRow>, StorageError>;
    /// Up to `limit` screenshots whose retention ended before `before`, oldest first.
    async fn expired_screenshots(&self, before: DateTime<Utc>, limit: i64) -> Result<Vec<ScreenshotRow>, StorageError>;
    /// Forget a screenshot (its blob is the caller's to delete); false when already gone.
    async fn delete_screenshot(&self, id: &ScreenshotId) -> Result<bool, StorageError>;
}
