//! The storage layer: every read and write the domain needs, and nothing else. All SQL of the
//! project lives under this folder.
//!
//! One trait per domain (`AccountStore`, `LibraryStore`, `ModelStore`, `JobStore`,
//! `LedgerStore`, `BillingStore`, `SeatStore`, `ProfileStore`, `MailStore`, `InvitationStore`, `LookbookStore`,
//! `PipelineStore`, `BrandStore`, `LaneStore`, `PostStore`, `AnalystStore`, `ConsoleStore`, `InternalStore`, `SupportStore`, `ChatStore`, `SearchStore`, `WebhookStore`), each
//! beside its row types in the file of its name, and
//! [`Storage`] as their union. Two real implementations share one body of SQL (`sql/`, one file
//! per domain): SQLite (the embedded default) and PostgreSQL (scale-out). Only `sql/tx.rs`, the
//! shared transaction helpers, writes the ledger and the running totals.

use std::sync::Arc;

mod accounts;
mod analyst;
mod billing;
mod brand;
mod chat;
mod console;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod group_commit;
mod internal;
mod invitations;
mod jobs;
mod lanes;
mod ledger;
mod library;
mod lookbook;
mod mail;
mod models;
mod pipelines;
mod posts;
mod profiles;
mod search;
mod seats;
mod sql;
mod status;
mod support;
mod webhooks;

#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use accounts::{
    AccountStore, HouseStamp, KeyRow, MembershipRow, NewAccount, OrgRow, SessionRow, SessionSeat, UserRow,
};
pub use analyst::{AnalystSettingsRow, AnalystStore, DigestRow, FindingRow, ObservationRow, PeriodCounts, ReviewRow};
pub use billing::{
    AutochargeOutcome, AutochargeSettings, BillingAccountRow, BillingStore, CheckoutRow, NewAutocharge, NewPayment,
    PaymentOutcome, RefillPack,
};
pub use brand::{BrandFields, BrandFieldsPatch, BrandMarkRow, BrandProfileRow, BrandStore};
pub use chat::{ChatActionRow, ChatSessionRow, ChatStore, ChatTurnRow, SessionChange};
pub use console::{
    ConsoleStore, CostRecordRow, FlowRow, FrameFilter, JobFilter, KeptRow, NamedCount, PlatformCounts, SettledHoldRow,
    VerdictFilter, VerdictRow,
};
pub use internal::{
    AiCallRow, AutonomyRow, CountRow, EvidenceRow, ExperimentRow, FlagRow, FunnelRow, InternalStore, PlatformTotals,
    RenderRow, ResearchRow, StampRow,
};
pub use invitations::{
    AcceptOutcome, InvitationRow, InvitationStore, InviteCodeRow, InviteRequestRow, InviteeRow, IssueOutcome,
    RedeemOutcome,
};
pub use jobs::{CancelOutcome, CreateJobsOutcome, JobEnd, JobRow, JobStore, SubmitChecks, TakeRecord};
pub use lanes::{LaneResultRow, LaneStore};
pub use ledger::{
    BalanceRow, Bucket, HoldRow, LedgerAudit, LedgerStore, NewCredit, NewHold, ReserveOutcome, ResolveOutcome,
};
pub use library::{AssetChanges, AssetRow, FolderRow, LibraryStore, PackRow};
pub use lookbook::{
    LockChange, LockOutcome, LookGuard, LookJobsOutcome, LookRow, LookbookStore, PresetRow, TemplateRow,
    TemplateShotRow,
};
pub use mail::{
    DripCandidate, EmailTokenRow, LetterFilter, LetterOutcome, LetterRow, MailEventOutcome, MailStore, TokenUse,
};
pub use models::{
    BoardModelRow, CatalogRow, ClaimOutcome, ClaimRow, EntitlementCaseRow, EntitlementRow, GrantOutcome, ModelRow,
    ModelStore, NewClaim,
};
pub use pipelines::{
    AdvanceOutcome, PipelinePresetRow, PipelineRunRow, PipelineStepRow, PipelineStore, RunCancelled, RunCreateOutcome,
    StepAdvance, StepEnd, StepState,
};
#[cfg(feature = "postgres")]
pub use postgres::PgStorage;
pub use posts::{PostRow, PostStore};
pub use profiles::{
    GrantedTool, MemoryRow, MemoryWrite, PlanRow, ProfileRow, ProfileStore, ToolGrantRow, ToolItemRow, UserListRow,
    WorkflowUsageRow,
};
pub use search::{SearchHitRow, SearchScope, SearchStore};
pub use seats::{AcceptSeat, EraseOutcome, SeatInvitationRow, SeatRow, SeatStore};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStorage;
pub use status::{
    CaseStatus, ChatActionStatus, ChatSessionStatus, CheckoutStatus, ClaimStatus, DeliveryStatus, ExperimentStatus,
    HoldStatus, InviteRequestStatus, LetterStatus, PackStatus, RenderStatus, RunStatus, SeatInvitationStatus,
    StepStatus, TicketStatus,
};
pub use support::{
    MessageEffect, ScreenshotRow, SupportReportRow, SupportStore, ThreadMessageRow, TicketFilter, TicketLineRow,
    TicketMessageRow, TicketRow,
};
pub use webhooks::{DeliveryFate, WebhookAttemptRow, WebhookChanges, WebhookDeliveryRow, WebhookRow, WebhookStore};

/// A storage failure. `Conflict` is a uniqueness rule the caller may turn into a 409.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A unique value is already taken (the string names it).
    #[error("conflict: {0}")]
    Conflict(&'static str),
    /// The database answered with an error.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// Migrations could not be applied.
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database URL names no backend this build has.
    #[error("unsupported database url: {0}")]
    Unsupported(String),
}

/// The stores the accounts view owns: people and houses, their profiles, their seats.
pub trait AccountsStores: AccountStore + ProfileStore + SeatStore {}
impl<T: AccountStore + ProfileStore + SeatStore + ?Sized> AccountsStores for T {}

/// The stores the admin console's view owns: its own figures and the analyst's.
pub trait AdminStores: ConsoleStore + AnalystStore {}
impl<T: ConsoleStore + AnalystStore + ?Sized> AdminStores for T {}

/// The stores the billing view owns: the ledger and its holds, and checkouts, plans, autocharge.
pub trait BillingStores: BillingStore + LedgerStore {}
impl<T: BillingStore + LedgerStore + ?Sized> BillingStores for T {}

/// Every read and write the domain needs: the union of the per-domain stores, so one
/// `Arc<dyn Storage>` serves every domain and one backend object can run a transaction that
/// crosses domains. Implementations apply their own migrations on open.
#[async_trait::async_trait]
pub trait Storage:
    AccountsStores
    + AdminStores
    + BillingStores
    + AccountStore
    + LibraryStore
    + ModelStore
    + JobStore
    + LedgerStore
    + BillingStore
    + SeatStore
    + ProfileStore
    + MailStore
    + InvitationStore
    + LookbookStore
    + PipelineStore
    + BrandStore
    + LaneStore
    + PostStore
    + AnalystStore
    + ConsoleStore
    + InternalStore
    + SupportStore
    + SearchStore
    + ChatStore
    + WebhookStore
    + Send
    + Sync
    + 'static
{
    /// Which backend this is (`sqlite` or `postgres`).
    fn backend(&self) -> &'static str;
    /// A round trip to the database (health checks).
    async fn ping(&self) -> Result<(), StorageError>;
}

/// Open the storage a database URL names and apply its migrations: `postgres://…` selects
/// PostgreSQL; `sqlite://PATH` or a bare path selects SQLite (the file is created if missing).
pub async fn open_storage(url: &str) -> Result<Arc<dyn Storage>, StorageError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Arc::new(PgStorage::connect(url).await?));
        #[cfg(not(feature = "postgres"))]
        return Err(StorageError::Unsupported(url.to_string()));
    }
    #[cfg(feature = "sqlite")]
    return Ok(Arc::new(SqliteStorage::open(url.strip_prefix("sqlite://").unwrap_or(url)).await?));
    #[cfg(not(feature = "sqlite"))]
    return Err(StorageError::Unsupported(url.to_string()));
}
