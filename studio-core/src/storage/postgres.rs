//! PostgreSQL storage for scale-out: several replicas share one database. Ledger writes lock
//! the house's balance row (`FOR UPDATE`), so concurrent reserves on any replica serialise per house.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgPool, Postgres};

use super::sql::{Entry, hold_columns, impl_storage, key_columns, unique_as};
use super::{
    BalanceRow, Bucket, HoldRow, HoldStatus, KeyRow, LedgerAudit, MembershipRow, NewAccount, NewCredit, NewHold,
    OrgRow, ReserveOutcome, ResolveOutcome, SessionRow, StorageError, UserRow,
};

type Tx = sqlx::Transaction<'static, Postgres>;

/// Storage on a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PgStorage {
    pool: PgPool,
}

impl PgStorage {
    /// Connect and apply the PostgreSQL migrations.
    pub async fn connect(url: &str) -> Result<Self, StorageError> {
        let pool =
            PgPoolOptions::new().max_connections(16).acquire_timeout(Duration::from_secs(10)).connect(url).await?;
        sqlx::migrate!("./migrations/postgres").run(&pool).await?;
        Ok(PgStorage { pool })
    }

    /// Row locks do the serialising on PostgreSQL; there is no process-wide writer lock.
    async fn write_lock(&self) {}
}

impl_storage!(PgStorage, "postgres", " FOR UPDATE");
