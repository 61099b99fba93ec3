//! PostgreSQL storage for scale-out: several replicas share one database. Ledger writes lock
//! the house's balance row (`FOR UPDATE`), so concurrent reserves on any replica serialise per house.

use super::RunStatus;
use crate::api::{JobStatus, LookStatus};
use crate::ids::{
    AssetId, CaseId, ChatActionId, ChatSessionId, CodeId, DeliveryId, EntitlementId, EntryId, EvidenceId, ExperimentId,
    FindingId, FolderId, GroupId, HoldId, IntakeId, InvitationId, InviteRequestId, JobId, KeyId, LaneResultId,
    LetterId, LookId, MarkId, MemoryId, ModelId, OrgId, PackId, PostId, PresetId, ProviderRef, RenderId, RunId,
    ScreenshotId, TemplateId, TicketId, ToolId, ToolItemId, UserId, WebhookId,
};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::{PgListener, PgPoolOptions};
use sqlx::{PgPool, Postgres};

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

type Tx = sqlx::Transaction<'static, Postgres>;
type Db = Postgres;

/// A pooled connection idle this long is pinged before it is handed out again.
const PING_IDLE_AFTER: Duration = Duration::from_secs(5);

/// The NOTIFY channel house events travel on between replicas.
const EVENT_CHANNEL: &str = "studio_events";

/// Storage on a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PgStorage {
    pool: PgPool,
    job_queue: Arc<JobQueue>,
}

impl PgStorage {
    /// Connect and apply the PostgreSQL migrations.
    ///
    /// sqlx pings a connection when it goes back to the pool and, by default, again when it is
    /// taken out: a second round trip in front of every statement and transaction. Here a
    /// connection is pinged on the way out only when it sat idle for [`PING_IDLE_AFTER`] or more
    /// (the pool then opens another if the ping fails); one in steady use was proven by the
    /// release ping moments before (docs/performance.md, "The pool's second ping").
    pub async fn connect(url: &str) -> Result<Self, StorageError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .test_before_acquire(false)
            .before_acquire(|conn, meta| {
                Box::pin(async move {
                    if meta.idle_for >= PING_IDLE_AFTER {
                        sqlx::Connection::ping(conn).await?;
                    }
                    Ok(true)
                })
            })
            .connect(url)
            .await?;
        sqlx::migrate!("./migrations/postgres").run(&pool).await?;
        Ok(PgStorage { pool, job_queue: Arc::default() })
    }

    /// Row locks do the serialising on PostgreSQL; there is no process-wide writer lock.
    async fn write_lock(&self) {}

    /// A transaction (row locks do the serialising; see SQLite's `begin_write` for why it differs).
    async fn begin_write(&self) -> Result<Tx, sqlx::Error> {
        self.pool.begin().await
    }

    /// NOTIFY every process listening on this database (itself included).
    async fn announce_event(&self, org_id: &OrgId, message: &str) -> Result<bool, StorageError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(EVENT_CHANNEL)
            .bind(format!("{org_id}\n{message}"))
            .execute(&self.pool)
            .await?;
        Ok(true)
    }

    /// LISTEN on the event channel; a task forwards each notification until the receiver is
    /// dropped. The listener reconnects by itself after a lost connection.
    async fn listen_events(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(EVENT_CHANNEL).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(1024);
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(note) => {
                        let Some((org_id, message)) = note.payload().split_once('\n') else { continue };
                        if tx.send((org_id.to_string(), message.to_string())).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "event listener lost its connection; retrying");
                        // Notifications sent meanwhile are lost: an empty house tells the
                        // relay to have every socket resynchronise.
                        if tx.send((String::new(), String::new())).await.is_err() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                }
            }
        });
        Ok(Some(rx))
    }
}

impl_storage!(PgStorage, "postgres", " FOR UPDATE", " FOR UPDATE SKIP LOCKED", true, true);

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs when `STUDIO_TEST_POSTGRES_URL` names a server, on a database of its own.
    #[tokio::test]
    async fn postgres_ledger_entries_refuse_update_and_delete() {
        let Some((storage, _database)) = fresh().await else { return };
        let pool = storage.pool.clone();
        crate::storage::sql::assert_ledger_append_only(&storage, |sql| {
            let pool = pool.clone();
            async move { sqlx::query(sql).execute(&pool).await.map(|r| r.rows_affected()) }
        })
        .await;
        storage.pool.close().await;
    }

    /// A storage on a fresh database (dropped with the second value), or None (the skip
    /// recorded) without a server.
    async fn fresh() -> Option<(PgStorage, studio_testdb::TestDatabase)> {
        let database = studio_testdb::TestDatabase::create("storage").await?;
        let storage = PgStorage::connect(&database.url).await.expect("connect");
        Some((storage, database))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn postgres_concurrent_submits_share_transactions_and_stay_exact() {
        let Some((storage, _database)) = fresh().await else { return };
        let pool = storage.pool.clone();
        crate::storage::sql::assert_grouped_submits(std::sync::Arc::new(storage)).await;
        pool.close().await;
    }
}
