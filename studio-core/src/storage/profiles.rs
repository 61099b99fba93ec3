//! What is kept about a person and what they know: profile fields (avatar, verification),
//! memories, onboarding steps, intake answers, tool access grants and tool items, the people
//! list for admins, and what the account page reads. The rows and the `ProfileStore` trait.

use crate::api::MemoryStatus;
use crate::ids::{IntakeId, MemoryId, OrgId, ToolId, ToolItemId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A person's profile as the account page shows it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ProfileRow {
    /// Id.
    pub id: UserId,
    /// Lowercased email.
    pub email: String,
    /// Display name.
    pub name: Option<String>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// When the address was proven.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// Blob key of the avatar, if any.
    pub avatar_key: Option<String>,
    /// Bumped on every avatar change (the URL's version stamp).
    pub avatar_version: i64,
    /// Marked platform admin by an operator.
    pub platform_admin: bool,
}

/// A memory as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct MemoryRow {
    /// Id.
    pub id: MemoryId,
    /// The house.
    pub org_id: OrgId,
    /// house or person.
    pub scope: String,
    /// The person, for a personal memory.
    pub user_id: Option<UserId>,
    /// fact, preference, lesson, playbook, outcome_pattern or image_reading.
    pub memory_class: String,
    /// A free label (defaults to `statement`).
    pub kind: String,
    /// What is remembered.
    pub statement: String,
    /// 0 to 1.
    pub confidence: f64,
    /// active, corrected or retired.
    pub status: MemoryStatus,
    /// How many observations support it.
    pub evidence_count: i64,
    /// The memory this one corrects.
    pub supersedes_id: Option<MemoryId>,
    /// Projected into the assistant's context (only active ones ever are).
    pub projected: bool,
    /// Who wrote it.
    pub created_by: UserId,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// Last status change.
    pub updated_at: DateTime<Utc>,
}

/// How writing a memory went.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryWrite {
    /// Stored (and the predecessor, if any, marked corrected).
    Stored,
    /// The predecessor is not an active memory of that scope the writer may see.
    PredecessorNotActive,
}

/// What a grant opens: a whole toolkit or one tool (catalogue slugs), never both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantedTool<'a> {
    /// A toolkit by its id.
    Toolkit(&'a str),
    /// One tool by its id.
    Tool(&'a str),
}

/// A grant of a toolkit or a tool, to a person or to an address.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ToolGrantRow {
    /// Id.
    pub id: String,
    /// The person, when granted by id.
    pub user_id: Option<UserId>,
    /// The address, when granted by email.
    pub email: Option<String>,
    /// A whole toolkit.
    pub toolkit_id: Option<String>,
    /// One tool.
    pub tool_id: Option<ToolId>,
    /// The admin who granted it.
    pub granted_by: String,
    /// When.
    pub created_at: DateTime<Utc>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A piece of a tool's library (a prompt, a reference, a note).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ToolItemRow {
    /// Id.
    pub id: ToolItemId,
    /// The tool's slug.
    pub tool_id: ToolId,
    /// Grouping inside the tool.
    pub category: String,
    /// Title (Hebrew).
    pub title_he: Option<String>,
    /// Label (Hebrew).
    pub label_he: Option<String>,
    /// Content (English).
    pub content_en: Option<String>,
    /// An illustrating image.
    pub image_url: Option<String>,
    /// Notes (Hebrew).
    pub notes_he: Option<String>,
    /// Order inside the category.
    pub sort_order: i64,
    /// When it was added.
    pub created_at: DateTime<Utc>,
}

/// A person in the admin people list.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct UserListRow {
    /// Id.
    pub id: UserId,
    /// Address.
    pub email: String,
    /// Name.
    pub name: Option<String>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// When the address was proven.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// Platform admin.
    pub platform_admin: bool,
    /// How many seats they have.
    pub houses: i64,
}

/// Tokens one workflow (a develop tool) settled in a window.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct WorkflowUsageRow {
    /// The tool.
    pub workflow: String,
    /// Tokens settled.
    pub tokens: i64,
    /// Finished jobs.
    pub runs: i64,
    /// The latest finish.
    pub last_at: Option<DateTime<Utc>>,
}

/// A house's subscription plan: its latest paid subscription checkout.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PlanRow {
    /// The checkout reference.
    pub reference: String,
    /// The tier's slug.
    pub item: String,
    /// Tokens a month.
    pub tokens: i64,
    /// Price in cents.
    pub amount_cents: i64,
    /// The latest payment (first or renewal).
    pub last_paid_at: DateTime<Utc>,
    /// When the owner canceled it.
    pub canceled_at: Option<DateTime<Utc>>,
}

/// Profiles, memories, onboarding, intake, tool access and the account page's reads.
#[async_trait::async_trait]
pub trait ProfileStore: Send + Sync {
    /// A person's profile (None when unknown or erased).
    async fn profile(&self, user_id: &UserId) -> Result<Option<ProfileRow>, StorageError>;
    /// Change a person's display name.
    async fn set_user_name(&self, user_id: &UserId, name: &str) -> Result<(), StorageError>;
    /// Record that the person proved their address (keeps the first time).
    async fn set_email_verified(&self, user_id: &UserId, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// Do two people share a house?
    async fn share_house(&self, a: &UserId, b: &UserId) -> Result<bool, StorageError>;
    /// Point the avatar at `key` (or none) and bump its version; the previous key, if any.
    async fn set_avatar(&self, user_id: &UserId, key: Option<&str>) -> Result<Option<String>, StorageError>;
    /// Set the house's billing contact.
    async fn set_billing_email(&self, org_id: &OrgId, email: &str) -> Result<(), StorageError>;
    /// The house's billing contact.
    async fn billing_email(&self, org_id: &OrgId) -> Result<Option<String>, StorageError>;
    /// Tokens settled per develop tool by the house's finished jobs since `since`, most first.
    async fn workflow_usage(&self, org_id: &OrgId, since: DateTime<Utc>)
    -> Result<Vec<WorkflowUsageRow>, StorageError>;
    /// Tokens the house's ledger settled since `since` (jobs and charged reads alike).
    async fn settled_since(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError>;
    /// The house's latest paid subscription, if any.
    async fn current_plan(&self, org_id: &OrgId) -> Result<Option<PlanRow>, StorageError>;
    /// Mark a plan canceled (keeps the first time); false when it is not this house's.
    async fn cancel_plan(&self, org_id: &OrgId, reference: &str, now: DateTime<Utc>) -> Result<bool, StorageError>;
    /// Paid checkouts of a house, newest first.
    async fn invoices(&self, org_id: &OrgId, limit: i64) -> Result<Vec<super::CheckoutRow>, StorageError>;

    /// Write a memory; with `replaces`, mark that predecessor corrected in the same transaction,
    /// only if it is active, in the same house and scope, and (for a personal memory) the
    /// writer's own.
    async fn write_memory(&self, memory: MemoryRow, replaces: Option<&str>) -> Result<MemoryWrite, StorageError>;
    /// The house's memories plus the person's own personal ones, newest first.
    async fn memories(&self, org_id: &OrgId, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError>;
    /// A person's personal memories in every house (their export).
    async fn personal_memories(&self, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError>;
    /// Retire an active memory the person may see; the retired row, or None.
    async fn retire_memory(
        &self,
        org_id: &OrgId,
        user_id: &UserId,
        id: &MemoryId,
        now: DateTime<Utc>,
    ) -> Result<Option<MemoryRow>, StorageError>;

    /// The onboarding steps a person has completed, with their times.
    async fn onboarding_steps(&self, user_id: &UserId) -> Result<Vec<(String, DateTime<Utc>)>, StorageError>;
    /// Mark a step completed (keeps the first completion time); true when it is new.
    async fn complete_onboarding_step(
        &self,
        user_id: &UserId,
        step: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Completed steps counted by step, over everyone (admin).
    async fn onboarding_counts(&self) -> Result<Vec<(String, i64)>, StorageError>;
    /// Record intake answers (JSON text).
    async fn record_intake(
        &self,
        id: &IntakeId,
        user_id: &UserId,
        org_id: &OrgId,
        answers: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StorageError>;
    /// A person's intake answers, oldest first: (id, house, JSON, time).
    async fn intakes(&self, user_id: &UserId) -> Result<Vec<(String, String, String, DateTime<Utc>)>, StorageError>;

    /// Store a grant (unless an equal live one exists); true when a new row was written.
    async fn grant_tool_access(&self, grant: ToolGrantRow) -> Result<bool, StorageError>;
    /// Revoke live grants to the person (by id) or the address, of the toolkit or tool; how many.
    async fn revoke_tool_access(
        &self,
        user_id: Option<&UserId>,
        email: Option<&str>,
        what: GrantedTool<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StorageError>;
    /// Live grants to a person by id, or by their address once they have proven it.
    async fn tool_grants(&self, user_id: &UserId, email: &str) -> Result<Vec<ToolGrantRow>, StorageError>;
    /// A tool's items, by category then sort order.
    async fn tool_items(&self, tool_id: &ToolId) -> Result<Vec<ToolItemRow>, StorageError>;
    /// Store a tool item.
    async fn insert_tool_item(&self, item: ToolItemRow) -> Result<(), StorageError>;
    /// Delete a tool item; false when there is none.
    async fn delete_tool_item(&self, id: &ToolItemId) -> Result<bool, StorageError>;

    /// People, newest first, optionally only those whose email or name contains `query`
    /// (case-insensitive); keyset page after (created_at, id).
    async fn list_users(
        &self,
        query: Option<&str>,
        limit: i64,
        after: Option<(DateTime<Utc>, String)>,
    ) -> Result<Vec<UserListRow>, StorageError>;
}
