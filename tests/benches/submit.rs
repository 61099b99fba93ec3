//! Submit-throughput benchmark (a report, not a timed test): develop submits per second (hold,
//! job and event in one transaction, through `Studio::start_develop`) against bare write
//! transactions per second on the same storage, both measured in this run.
//!
//! `cargo bench -p studio-tests --bench submit`. SQLite always; PostgreSQL too when
//! `STUDIO_TEST_POSTGRES_URL` names a server (a fresh database is created). Prints a markdown
//! table and exits 0; a missed target says MISS. `STUDIO_BENCH_SUBMITS` sets the count
//! (default 3000) and `STUDIO_BENCH_CONCURRENCY` the parallel submitters (default 8).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use futures_util::StreamExt;
use studio_core::api::{SignUpRequest, StartDevelop};
use studio_core::{BlobConfig, Caller, CoreConfig, Studio, UploadForm};

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

/// A house with plenty of tokens and one library image, ready to submit against.
async fn prepared(database_url: &str, blobs: &std::path::Path, submits: usize) -> (Studio, Caller, String) {
    let config = CoreConfig { signup_grant_tokens: (submits as i64 + 10) * 19, ..CoreConfig::default() };
    let studio = Studio::open(database_url, &BlobConfig::Local(blobs.to_path_buf()), config).await.expect("open");
    let req = SignUpRequest {
        email: format!("bench-{}@example.com", uuid::Uuid::new_v4().simple()),
        password: "a long enough password".into(),
        name: None,
    };
    let (_, token) = studio.sign_up(req).await.expect("sign up");
    let caller = studio.authenticate_session(&token).await.expect("caller");
    let mut png = Vec::new();
    image::RgbImage::from_pixel(64, 64, image::Rgb([120, 90, 60]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let body = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(bytes::Bytes::from(png))]).boxed();
    let pending = studio.stream_upload(&caller, body).await.expect("upload");
    let asset = studio.finish_upload(&caller, pending, UploadForm::default()).await.expect("file").asset.id;
    (studio, caller, asset)
}

/// Submits per second with `concurrency` submitters.
async fn submit_rate(studio: &Studio, caller: &Caller, asset: &str, total: usize, concurrency: usize) -> f64 {
    let started = Instant::now();
    let per = total / concurrency;
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (studio, caller, asset) = (studio.clone(), caller.clone(), asset.to_string());
        tasks.push(tokio::spawn(async move {
            for _ in 0..per {
                let req = StartDevelop {
                    tool: "upscale".into(),
                    inputs: BTreeMap::from([("image".to_string(), asset.clone())]),
                    quality: "1k".into(),
                    params: BTreeMap::new(),
                    idempotency_key: None,
                };
                studio.start_develop(&caller, req).await.expect("submit");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (per * concurrency) as f64 / started.elapsed().as_secs_f64()
}

/// Bare single-row write transactions per second on SQLite (WAL, synchronous NORMAL, the
/// storage's own settings), one writer at a time as the storage does.
async fn bare_sqlite_rate(path: &std::path::Path, total: usize) -> f64 {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal);
    let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await.unwrap();
    sqlx::query("CREATE TABLE t (id TEXT PRIMARY KEY, org TEXT, amount INTEGER, at TEXT)")
        .execute(&pool)
        .await
        .unwrap();
    let started = Instant::now();
    for i in 0..total {
        let mut tx = pool.begin().await.unwrap();
        sqlx::query("INSERT INTO t VALUES ($1, $2, $3, $4)")
            .bind(format!("row-{i}"))
            .bind("org")
            .bind(9_i64)
            .bind(chrono::Utc::now())
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }
    total as f64 / started.elapsed().as_secs_f64()
}

/// Bare single-row insert transactions per second on PostgreSQL with `concurrency` writers.
async fn bare_postgres_rate(url: &str, total: usize, concurrency: usize) -> f64 {
    let pool = sqlx::postgres::PgPoolOptions::new().max_connections(concurrency as u32).connect(url).await.unwrap();
    sqlx::query("CREATE TABLE bare_t (id TEXT PRIMARY KEY, org TEXT, amount BIGINT, at TIMESTAMPTZ)")
        .execute(&pool)
        .await
        .unwrap();
    let pool = Arc::new(pool);
    let per = total / concurrency;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..concurrency {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..per {
                let mut tx = pool.begin().await.unwrap();
                sqlx::query("INSERT INTO bare_t VALUES ($1, $2, $3, $4)")
                    .bind(format!("row-{w}-{i}"))
                    .bind("org")
                    .bind(9_i64)
                    .bind(chrono::Utc::now())
                    .execute(&mut *tx)
                    .await
                    .unwrap();
                tx.commit().await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    (per * concurrency) as f64 / started.elapsed().as_secs_f64()
}

fn row(name: &str, ours: f64, base: f64, floor: Option<f64>) {
    let ratio = ours / base;
    let floor_ok = floor.is_none_or(|f| ours >= f);
    let verdict = if ratio >= 0.5 && floor_ok { "ok" } else { "MISS" };
    let floor = floor.map(|f| format!(" and ≥ {f:.0}/s")).unwrap_or_default();
    println!("| {name} | {ours:.0}/s | {base:.0}/s | {ratio:.2}× | ≥ 0.5×{floor} | {verdict} |");
}

#[tokio::main]
async fn main() {
    let total = env_num("STUDIO_BENCH_SUBMITS", 3000);
    let concurrency = env_num("STUDIO_BENCH_CONCURRENCY", 8).max(1);
    let dir = tempfile::tempdir().unwrap();
    println!("| storage | develop submits | bare write transactions | ratio | target | |");
    println!("|---|---|---|---|---|---|");

    let db = dir.path().join("studio.db");
    let (studio, caller, asset) =
        prepared(&format!("sqlite://{}", db.display()), &dir.path().join("blobs"), total).await;
    let ours = submit_rate(&studio, &caller, &asset, total, concurrency).await;
    let base = bare_sqlite_rate(&dir.path().join("bare.db"), total).await;
    row("SQLite (same disk)", ours, base, Some(2000.0));

    if let Ok(server) = std::env::var("STUDIO_TEST_POSTGRES_URL") {
        use sqlx::Connection;
        let server = server.trim_end_matches('/').to_string();
        let name = format!("studio_bench_{}", uuid::Uuid::new_v4().simple());
        let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
        let url = format!("{server}/{name}");
        let (studio, caller, asset) = prepared(&url, &dir.path().join("pg-blobs"), total).await;
        let ours = submit_rate(&studio, &caller, &asset, total, concurrency).await;
        let base = bare_postgres_rate(&url, total, concurrency).await;
        row("PostgreSQL (one house)", ours, base, None);
        let _ = sqlx::query(&format!("DROP DATABASE {name} WITH (FORCE)")).execute(&mut admin).await;
    } else {
        println!("\nPostgreSQL skipped: set STUDIO_TEST_POSTGRES_URL to include it.");
    }
}
