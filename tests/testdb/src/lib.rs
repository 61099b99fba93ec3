//! Throwaway PostgreSQL databases for the test suites, and the record of every test that
//! skipped for want of one.
//!
//! - [`server`] is the one place a test reads `STUDIO_TEST_POSTGRES_URL`. When it is unset the
//!   test skips, and the skip is appended, under the test's own name, to the file
//!   `STUDIO_TEST_SKIP_LOG` names (when set). CI's first run sets it; `.ci/invariants` then
//!   checks that every name in it matches the filter of CI's PostgreSQL step (`postgres` or
//!   `s3::`), so a PostgreSQL test whose name would fall through that step fails CI instead of
//!   never running.
//! - [`TestDatabase`] is a fresh, empty database on that server, dropped (`WITH (FORCE)`) when
//!   the value is dropped: at the end of the test, on success and on panic alike, so a full
//!   test run leaves no database behind.

use std::io::Write as _;

use sqlx::Connection as _;

/// The environment variable naming the PostgreSQL server for tests.
pub const POSTGRES_ENV: &str = "STUDIO_TEST_POSTGRES_URL";
/// The environment variable naming the file skips are recorded in.
pub const SKIP_LOG_ENV: &str = "STUDIO_TEST_SKIP_LOG";
/// What every database made here is named after, so a stray one is recognisable.
pub const NAME_PREFIX: &str = "studio_t_";

/// The configured server (`postgres://user@host:port`, no trailing slash), or None after
/// recording that the calling test skipped.
pub fn server() -> Option<String> {
    match std::env::var(POSTGRES_ENV).ok().map(|s| s.trim().trim_end_matches('/').to_string()) {
        Some(url) if !url.is_empty() => Some(url),
        _ => {
            skipped();
            None
        }
    }
}

/// Record the calling test as skipped for want of PostgreSQL (its thread's name is the
/// test's path), and say so on stderr.
fn skipped() {
    let name = std::thread::current().name().unwrap_or("<a test on an unnamed thread>").to_string();
    eprintln!("skipped: {POSTGRES_ENV} not set");
    let Ok(path) = std::env::var(SKIP_LOG_ENV) else { return };
    // The test binary, then the test's name last (what .ci/invariants reads, whatever the path holds).
    let line = format!("{} {name}\n", std::env::args().next().unwrap_or_default());
    let written = std::fs::OpenOptions::new().create(true).append(true).open(&path).and_then(|mut f| {
        // One write per line: appends from parallel tests do not interleave.
        f.write_all(line.as_bytes())
    });
    if let Err(e) = written {
        panic!("{SKIP_LOG_ENV}={path} cannot be written: {e}");
    }
}

/// A fresh database on the configured server, dropped with the value.
#[derive(Debug)]
pub struct TestDatabase {
    /// Its URL, for a storage, a server or a process.
    pub url: String,
    server: String,
    name: String,
}

impl TestDatabase {
    /// Make a fresh database (its name starts with [`NAME_PREFIX`] and `tag`); None, with the
    /// skip recorded, when no server is configured. Panics when one is configured but cannot
    /// be reached: a configured run never skips silently.
    pub async fn create(tag: &str) -> Option<TestDatabase> {
        let server = server()?;
        let name = format!("{NAME_PREFIX}{tag}_{}", uuid::Uuid::new_v4().simple());
        let mut admin = admin(&server).await;
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.expect("create a test database");
        let _ = admin.close().await;
        Some(TestDatabase { url: format!("{server}/{name}"), server, name })
    }

    /// Its name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }
}

async fn admin(server: &str) -> sqlx::PgConnection {
    sqlx::PgConnection::connect(&format!("{server}/postgres"))
        .await
        .unwrap_or_else(|e| panic!("{POSTGRES_ENV} is set but PostgreSQL is unreachable: {e}"))
}

impl Drop for TestDatabase {
    /// Drop the database, ending whatever connections are still open on it. Runs on a thread
    /// of its own with its own runtime, so it works inside and outside an async test alike.
    fn drop(&mut self) {
        let (server, name) = (self.server.clone(), self.name.clone());
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let mut admin = admin(&server).await;
                let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                let result = sqlx::query(&sql).execute(&mut admin).await.map(|_| ());
                let _ = admin.close().await;
                result
            })
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("the test database {} could not be dropped: {e}", self.name),
            Err(_) => eprintln!("dropping the test database {} panicked", self.name),
        }
    }
}
