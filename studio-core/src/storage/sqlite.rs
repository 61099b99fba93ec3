//! SQLite storage, the embedded default: one WAL-mode file under the data directory.
//!
//! SQLite allows one writer at a time. Rather than let concurrent write transactions fail with
//! `SQLITE_BUSY` half way, every write takes an in-process async mutex first, so ledger
//! transactions run one after another and readers (WAL) are never blocked. One process owns the
//! file; scale-out deployments use PostgreSQL.

use super::RunStatus;
use crate::api::{JobStatus, LookStatus};
use crate::ids::{
    AssetId, CaseId, ChatActionId, ChatSessionId, CodeId, DeliveryId, EntitlementId, EntryId, EvidenceId, ExperimentId,
    FindingId, FolderId, GroupId, HoldId, IntakeId, InvitationId, InviteRequestId, JobId, KeyId, LaneResultId,
    LetterId, LookId, MarkId, MemoryId, ModelId, OrgId, PackId, PostId, PresetId, ProviderRef, RenderId, RunId,
    ScreenshotId, TemplateId, TicketId, ToolId, ToolItemId, UserId, WebhookId,
};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool};
use tokio::sync::{Mutex, MutexGuard};

use super::group_commit::{DrainGuard, JobQueue, PendingJobs};
use super::sql::q;
use super::sql::{Entry, impl_storage, job_columns, unique_as};
use super::{
    AcceptSeat, AssetChanges, AssetRow, AutochargeOutcome, AutochargeSettings, BalanceRow, BillingAccountRow, Bucket,
    CancelOutcome, CheckoutRow, CreateJobsOutcome, EraseOutcome, FolderRow, HoldRow, HoldStatus, HouseStamp, JobEnd,
    JobRow, KeyRow, LedgerAudit, LockChange, LockOutcome, LookGuard, LookJobsOutcome, LookRow, MembershipRow,
    MemoryRow, MemoryWrite, ModelRow, NewAccount, NewAutocharge, NewCredit, NewHold, NewPayment, OrgRow, PackRow,
    PaymentOutcome, PlanRow, PresetRow, ProfileRow, ReserveOutcome, ResolveOutcome, SeatInvitationRow, SeatRow,
    SessionRow, SessionSeat, StorageError, TakeRecord, TemplateRow, TemplateShotRow, ToolGrantRow, ToolItemRow,
    UserListRow, UserRow, WorkflowUsageRow,
};

type Tx = sqlx::Transaction<'static, Sqlite>;
type Db = Sqlite;

/// Storage on one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStorage {
    pool: SqlitePool,
    writer: Arc<Mutex<()>>,
    job_queue: Arc<JobQueue>,
}

impl SqliteStorage {
    /// Open (creating if missing) the database file at `path` and apply the SQLite migrations.
    pub async fn open(path: &str) -> Result<Self, StorageError> {
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // A connection is a handle on a file in this process, checked when it goes back to the
        // pool: testing it again on the way out would only add a hop to its thread.
        let pool = SqlitePoolOptions::new().max_connections(8).test_before_acquire(false).connect_with(options).await?;
        sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
        Ok(SqliteStorage { pool, writer: Arc::new(Mutex::new(())), job_queue: Arc::default() })
    }

    async fn write_lock(&self) -> MutexGuard<'_, ()> {
        self.writer.lock().await
    }

    /// A transaction that is SQLite's writer from its first statement (`BEGIN IMMEDIATE`), so
    /// it waits out (busy timeout) a write still finishing on another connection. One can be: a
    /// transaction dropped without commit is rolled back by sqlx after the function that began
    /// it (and released the writer lock) returned, and it keeps SQLite's write lock until then.
    /// A deferred transaction that read first and then met that lock failed at once with
    /// "database is locked" (SQLite does not wait when a reader asks to become the writer); the
    /// money chaos suite caught it as a 500 on a look's unlock.
    async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        self.pool.begin_with("BEGIN IMMEDIATE").await
    }

    /// One process owns the file, so there is nobody else to tell: events stay in-process.
    async fn announce_event(&self, _org_id: &OrgId, _message: &str) -> Result<bool, StorageError> {
        Ok(false)
    }

    /// No shared channel on SQLite.
    async fn listen_events(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError> {
        Ok(None)
    }
}

impl_storage!(SqliteStorage, "sqlite", "", "", false, false);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn ledger_entries_refuse_update_and_delete() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = SqliteStorage::open(dir.path().join("t.db").to_str().expect("path")).await.expect("open");
        let pool = storage.pool.clone();
        crate::storage::sql::assert_ledger_append_only(&storage, |sql| {
            let pool = pool.clone();
            async move { sqlx::query(sql).execute(&pool).await.map(|r| r.rows_affected()) }
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_submits_share_transactions_and_stay_exact() {
        let dir = tempfile::tempdir().expect("temp dir");
        let storage = SqliteStorage::open(dir.path().join("g.db").to_str().expect("path")).await.expect("open");
        crate::storage::sql::assert_grouped_submits(std::sync::Arc::new(storage)).await;
    }
}
