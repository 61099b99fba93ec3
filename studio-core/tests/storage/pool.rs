//! PostgreSQL's pool: a connection that died while it sat idle is replaced before anyone gets
//! it. sqlx's ping on every hand-out is off (a round trip in front of every statement); a
//! connection idle for five seconds or more is still pinged, and a failed ping opens another.

use std::sync::Arc;
use std::time::Duration;

use sqlx::Connection;
use studio_core::Storage;

use studio_testdb::TestDatabase;

use crate::new_house;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_connection_killed_while_idle_is_replaced() {
    // A database of its own, so killing its connections touches no other test.
    let Some(database) = TestDatabase::create("pool").await else { return };
    let storage: Arc<dyn Storage> = Arc::new(studio_core::PgStorage::connect(&database.url).await.expect("connect"));
    let (_, org) = new_house(storage.as_ref(), 10).await;
    assert_eq!(storage.balance(&org).await.expect("balance").grant_tokens, 10);

    let server = database.url.rsplit_once('/').expect("server/name").0;
    let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.expect("admin");
    let killed: Vec<(bool,)> = sqlx::query_as(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database.name())
    .fetch_all(&mut admin)
    .await
    .expect("terminate");
    assert!(!killed.is_empty() && killed.iter().all(|(k,)| *k), "the pool's connections were killed: {killed:?}");

    tokio::time::sleep(Duration::from_millis(5_300)).await;
    let balance = storage.balance(&org).await.expect("a fresh connection answers");
    assert_eq!(balance.grant_tokens, 10);
}
