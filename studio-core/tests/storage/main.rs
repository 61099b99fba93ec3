//! The storage conformance suite: the same checks against SQLite and PostgreSQL, through the
//! `Storage` trait and the `Studio` facade. PostgreSQL runs when `STUDIO_TEST_POSTGRES_URL` is
//! set (a fresh database per test, dropped with it: `studio-testdb`); every PostgreSQL test has
//! `postgres` in its name, so `.ci/run`'s PostgreSQL step runs it.

mod accounts;
mod brand;
mod concurrency;
mod events;
mod invitations;
mod ledger;
mod library;
mod mail;
mod packs;
mod pool;
mod submit_checks;
mod submits;

use std::sync::Arc;

use chrono::Utc;
use studio_core::{NewAccount, OrgId, OrgRow, Storage, UserId, UserRow};
use studio_testdb::TestDatabase;

/// A storage under test, with whatever keeps it alive (dropped after it: a PostgreSQL subject's
/// database goes with it).
pub(crate) struct Subject {
    pub(crate) storage: Arc<dyn Storage>,
    _dir: Option<tempfile::TempDir>,
    database: Option<TestDatabase>,
}

/// A fresh SQLite file, or a fresh PostgreSQL database of the test's own (None, with the skip
/// recorded, when no server is configured).
pub(crate) async fn subject(backend: &str) -> Option<Subject> {
    match backend {
        "sqlite" => {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("studio.db");
            let storage =
                studio_core::SqliteStorage::open(path.to_str().expect("utf-8 path")).await.expect("open sqlite");
            Some(Subject { storage: Arc::new(storage), _dir: Some(dir), database: None })
        }
        _ => {
            let database = TestDatabase::create("core").await?;
            let storage = studio_core::PgStorage::connect(&database.url).await.expect("connect postgres");
            Some(Subject { storage: Arc::new(storage), _dir: None, database: Some(database) })
        }
    }
}

/// PostgreSQL's subject and a second storage on its database, as two replicas are; None (the
/// skip recorded) when PostgreSQL is not configured.
pub(crate) async fn two_replicas() -> Option<(Subject, Arc<dyn Storage>)> {
    let s = subject("postgres").await?;
    let url = &s.database.as_ref().expect("a PostgreSQL subject").url;
    let replica = studio_core::PgStorage::connect(url).await.expect("connect the second replica");
    Some((s, Arc::new(replica)))
}

/// A small deterministic generator (xorshift64*) for the concurrency tests, one seed per task.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A new person with a house and `grant` tokens; returns (user id, org id).
pub(crate) async fn new_house(storage: &dyn Storage, grant: i64) -> (UserId, OrgId) {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let now = Utc::now();
    let user = UserRow {
        id: format!("usr_{tag}").into(),
        email: format!("{tag}@example.com"),
        name: None,
        password_hash: None,
        created_at: now,
    };
    let org = OrgRow { id: format!("org_{tag}").into(), name: "House".into(), created_at: now };
    storage
        .create_account(NewAccount { user: user.clone(), org: org.clone(), grant_tokens: grant })
        .await
        .expect("create account");
    (user.id, org.id)
}

/// A queued upscale of `tokens` for `user` of house `org`, as `create_jobs` takes it.
pub(crate) fn queued_job(org: &OrgId, user: &UserId, tokens: i64, key: Option<String>) -> studio_core::JobRow {
    let id = format!("job_{}", uuid::Uuid::new_v4().simple());
    studio_core::JobRow {
        idempotency_key: key,
        ..studio_core::JobRow::queued(id, org, Some(user.clone()), "upscale", "1k", tokens)
    }
}

/// Run each listed `async fn name(storage: Arc<dyn Storage>)` once per backend.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let s = crate::subject("sqlite").await.expect("sqlite is always available");
                    super::$name(s.storage.clone()).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(s) = crate::subject("postgres").await else { return };
                    super::$name(s.storage.clone()).await
                }
            )*
        }
    };
}
pub(crate) use conformance;
