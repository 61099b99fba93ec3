//! The integration-test harness: boot the real server on 127.0.0.1:0 over a fresh SQLite file
//! or a fresh PostgreSQL database, and hand back a studio-client pointed at it.
//!
//! PostgreSQL runs when `STUDIO_TEST_POSTGRES_URL` names a server (for example
//! `postgres://postgres@127.0.0.1:5432`); every spawned app gets its own fresh database
//! (`studio-testdb`), so one test's job runner never claims another test's jobs, and the
//! database is dropped when the app is. Without it the PostgreSQL variants say so, record the
//! skip, and pass without running; `.ci/run`'s PostgreSQL step runs them.
//!
//! On a running app, [`House::new`] signs up a house with a member key, and [`images`] builds
//! the image files the tests upload; [`smtp::SmtpSink`] takes the letters the server sends.

use std::net::SocketAddr;
use std::path::PathBuf;

use studio_client::Client;
use studio_server::ServerConfig;
use studio_testdb::TestDatabase;
use tokio::sync::oneshot;

pub mod archives;
mod fixture;
pub mod images;
pub mod reader;
pub mod smtp;

pub use fixture::{House, PASSWORD, Person};

/// Which storage a test app runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file in a temporary data directory.
    Sqlite,
    /// A fresh PostgreSQL database of its own.
    Postgres,
}

pub use studio_testdb::POSTGRES_ENV;

/// A running server.
#[derive(Debug)]
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The bound address.
    pub addr: SocketAddr,
    /// A client with no credential.
    pub client: Client,
    /// The data directory (SQLite file, blobs).
    pub data_dir: PathBuf,
    /// The storage backend.
    pub backend: Backend,
    /// The database URL the server uses.
    pub database_url: String,
    /// The server's core, for what HTTP does not show (the event bus, the pack sweep).
    pub studio: studio_core::Studio,
    shutdown: Option<oneshot::Sender<()>>,
    _dir: tempfile::TempDir,
    /// Dropped last: the database goes once the server is told to stop.
    _database: Option<TestDatabase>,
}

impl TestApp {
    /// A second core on this server's database and blob directory: another replica, for tests
    /// that change something behind the server's back and check its next answer.
    pub async fn replica(&self) -> studio_core::Studio {
        studio_core::Studio::open(
            &self.database_url,
            &studio_core::BlobConfig::Local(self.data_dir.join("blobs")),
            studio_core::CoreConfig::default(),
        )
        .await
        .expect("a second core on the same database")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Whether a PostgreSQL server is configured; when not, the calling test's skip is recorded.
pub fn postgres_configured() -> bool {
    studio_testdb::server().is_some()
}

/// Start a server on `backend`, with `tweak` applied to its configuration. None when the
/// backend is PostgreSQL and none is configured (the caller skips).
pub async fn spawn(backend: Backend, tweak: impl FnOnce(&mut ServerConfig)) -> Option<TestApp> {
    let dir = tempfile::tempdir().expect("temp dir");
    let database = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(TestDatabase::create("api").await?),
    };
    let database_url = database.as_ref().map(|d| d.url.clone());
    let mut config = ServerConfig {
        listen: "127.0.0.1:0".into(),
        data_dir: dir.path().join("data"),
        database_url,
        // Every test signs up its houses from 127.0.0.1: a limit no suite reaches, so the
        // limiter still runs on every request. tests/api/ratelimit.rs lowers it.
        rate_limit_per_min: 60_000,
        rate_limit_burst: 10_000,
        ..ServerConfig::default()
    };
    tweak(&mut config);
    let (app, state) = studio_server::build_app(&config).await.expect("build app");
    let listener = tokio::net::TcpListener::bind(&config.listen).await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = studio_server::serve(listener, app, async move {
            let _ = rx.await;
        })
        .await;
    });
    let base = format!("http://{addr}");
    let client = Client::builder(&base).build().expect("client");
    Some(TestApp {
        base,
        addr,
        client,
        data_dir: config.data_dir.clone(),
        backend,
        database_url: config.database_url(),
        studio: state.studio.clone(),
        shutdown: Some(tx),
        _dir: dir,
        _database: database,
    })
}

/// A fault planted in a running app's own database: every insert into one table fails, as a
/// broken disk or a lost connection would fail it, until [`RefusedInserts::lift`].
pub struct RefusedInserts {
    db: Db,
    table: String,
}

enum Db {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection),
}

/// Make every insert into `table` of `app`'s database fail (a trigger, on either backend).
pub async fn refuse_inserts(app: &TestApp, table: &str) -> RefusedInserts {
    use sqlx::Connection;
    let db = match app.backend {
        Backend::Sqlite => {
            let mut db = sqlx::SqliteConnection::connect(&app.database_url).await.expect("open the server's file");
            let sql = format!(
                "CREATE TRIGGER refuse_inserts BEFORE INSERT ON {table} BEGIN SELECT RAISE(ABORT, 'refused'); END"
            );
            sqlx::query(&sql).execute(&mut db).await.expect("plant the trigger");
            Db::Sqlite(db)
        }
        Backend::Postgres => {
            let mut db = sqlx::PgConnection::connect(&app.database_url).await.expect("open the server's database");
            sqlx::query(
                "CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
            )
            .execute(&mut db)
            .await
            .expect("plant the function");
            let sql = format!(
                "CREATE TRIGGER refuse_inserts BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION refuse_insert()"
            );
            sqlx::query(&sql).execute(&mut db).await.expect("plant the trigger");
            Db::Postgres(db)
        }
    };
    RefusedInserts { db, table: table.to_string() }
}

impl RefusedInserts {
    /// Inserts work again.
    pub async fn lift(self) {
        let RefusedInserts { db, table } = self;
        match db {
            Db::Sqlite(mut db) => {
                sqlx::query("DROP TRIGGER refuse_inserts").execute(&mut db).await.expect("lift");
            }
            Db::Postgres(mut db) => {
                let sql = format!("DROP TRIGGER refuse_inserts ON {table}");
                sqlx::query(&sql).execute(&mut db).await.expect("lift");
                sqlx::query("DROP FUNCTION refuse_insert()").execute(&mut db).await.expect("lift");
            }
        }
    }
}

/// A fresh email, unique across runs and backends.
pub fn unique_email(tag: &str) -> String {
    format!("{tag}-{}@example.com", uuid::Uuid::new_v4().simple())
}

/// Run `body` once per backend as a separate test each: `backend_tests!(name1, name2)` expects
/// `async fn name1(backend: Backend)` in scope.
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::Backend::Sqlite).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if !$crate::postgres_configured() {
                        return;
                    }
                    super::$name($crate::Backend::Postgres).await
                }
            )*
        }
    };
}

/// POST `body` to the payment webhook signed with `secret` (Standard Webhooks) under webhook id
/// `id` at `timestamp`: the status and the JSON answer (null when not JSON).
pub async fn deliver_payment(
    app: &TestApp,
    secret: &str,
    id: &str,
    timestamp: i64,
    body: &str,
) -> (u16, serde_json::Value) {
    let signature = studio_core::sign_webhook(secret, id, timestamp, body.as_bytes()).expect("sign");
    let res = reqwest::Client::new()
        .post(format!("{}/api/toolkit/ai/billing/webhook/provider", app.base))
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("deliver");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(serde_json::Value::Null))
}
