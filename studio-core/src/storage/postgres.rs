//! PostgreSQL storage for scale-out: several replicas share one database. Ledger writes lock
//! the house's balance row (`FOR UPDATE`), so concurrent reserves on any replica serialise per house.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgPool, Postgres};

use super::sql::{Entry, asset_columns, hold_columns, impl_storage, key_columns, pack_columns, unique_as};
use super::{
    AssetChanges, AssetRow, BalanceRow, Bucket, FolderRow, HoldRow, HoldStatus, KeyRow, LedgerAudit, MembershipRow,
    NewAccount, NewCredit, NewHold, OrgRow, PackRow, ReserveOutcome, ResolveOutcome, SessionRow, SessionSeat,
    StorageError, UserRow,
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

impl_storage!(PgStorage, "postgres", " FOR UPDATE", " FOR UPDATE SKIP LOCKED");

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs when `STUDIO_TEST_POSTGRES_URL` names a server; creates its own database.
    #[tokio::test]
    async fn ledger_entries_refuse_update_and_delete() {
        let Ok(server) = std::env::var("STUDIO_TEST_POSTGRES_URL") else {
            eprintln!("skipped: STUDIO_TEST_POSTGRES_URL not set");
            return;
        };
        let server = server.trim_end_matches('/');
        let name = format!("studio_trigger_test_{}", uuid::Uuid::new_v4().simple());
        let admin =
            PgPoolOptions::new().max_connections(1).connect(&format!("{server}/postgres")).await.expect("admin");
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&admin).await.expect("create database");
        let storage = PgStorage::connect(&format!("{server}/{name}")).await.expect("connect");
        let pool = storage.pool.clone();
        super::super::sql::assert_ledger_append_only(&storage, |sql| {
            let pool = pool.clone();
            async move { sqlx::query(sql).execute(&pool).await.map(|r| r.rows_affected()) }
        })
        .await;
        storage.pool.close().await;
        let _ = sqlx::query(&format!("DROP DATABASE {name}")).execute(&admin).await;
    }
}
