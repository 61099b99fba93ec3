//! Row 2: develop submits per second against bare write transactions per second on the same
//! storage, measured in the same run.
//!
//! A submit is `Studio::start_develop` called in this process on the storage the server would
//! use: the whole path after the HTTP layer (asset look-up, price, the transaction that locks the
//! balance row, inserts the hold, appends the ledger entry, moves the running totals and the
//! eventSeq and inserts the job, group-committed with the house's other waiting submits; then
//! the event is published). The baseline is `BEGIN; INSERT; COMMIT` of one row with the
//! storage's own settings, on a SQLite file in the same directory (one writer at a time, as the
//! storage writes) and on a fresh PostgreSQL database of the same server (as many writers as
//! submitters). The submits and the baselines take turns in rounds (see [`take_turns`]).
//! Information rows: the same transaction with [`SUBMIT_WRITES`] inserts, and the
//! submits through the spawned release server's `POST /api/toolkit/jobs/submit` (multipart, with
//! the idempotency key the client adds), HTTP and key authentication included.

use std::collections::BTreeMap;
use std::path::Path;

use futures_util::StreamExt;
use studio_client::api::Quality;
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_core::api::{SignUpRequest, StartDevelop};
use studio_core::{BlobConfig, Caller, CoreConfig, Studio, UploadForm};

use crate::common::{FreshDatabase, Options, Row, Server, Throughput, drive, median_rate, ms, ratio};

/// Submitters at once.
const CONCURRENCY: usize = 8;
/// Target: at least this share of the bare transactions per second.
const TARGET: f64 = 0.5;
/// Target on PostgreSQL (issue 24): at least this share of its bare transactions per second.
const PG_TARGET: f64 = 0.6;
/// Target on SQLite: at least this many submits per second.
const FLOOR: f64 = 2_000.0;
/// The writes of a lone submit's transaction: the balance row's lock-and-create upsert, the
/// hold, the ledger entry, the running totals, the job (`create_jobs` in studio-core's storage).
const SUBMIT_WRITES: usize = 5;

/// Measure row 2.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let total = opts.size(3_000, 200);
    let dir = opts.work.join("submit");
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();

    let rounds = opts.size(3, 1);
    let submits = prepared(&format!("sqlite://{}", dir.join("studio.db").display()), &dir, total).await?;
    let bare = sqlite_pool(&dir.join("bare.db")).await?;
    create_bare_table(&bare, "TEXT", "INTEGER").await?;
    let [ours, one, many] = take_turns(rounds, total, &submits, &bare, 1).await?;
    drop(submits);
    let r = ours.per_sec / one.per_sec;
    rows.push(Row::new(
        format!("2. develop submit, SQLite, {CONCURRENCY} submitters (median of {rounds} × {})", total / rounds),
        rate(&ours),
        format!("{} (BEGIN; INSERT; COMMIT, same directory)", rate(&one)),
        format!("{} / ≥ {TARGET}× and ≥ {FLOOR:.0}/s", ratio(ours.per_sec, one.per_sec)),
        r >= TARGET && ours.per_sec >= FLOOR,
    ));
    rows.push(Row::info(
        format!("2. develop submit, SQLite, against {SUBMIT_WRITES} inserts per transaction (information)"),
        format!("{:.0}/s", ours.per_sec),
        format!("{} (BEGIN; {SUBMIT_WRITES} × INSERT; COMMIT)", rate(&many)),
        format!("{} / no target", ratio(ours.per_sec, many.per_sec)),
    ));
    rows.push(http_row(opts, total, None).await?);

    match &opts.postgres {
        Some(server) => {
            rows.extend(postgres_rows(server, &dir, rounds, total).await?);
            rows.push(http_postgres_row(opts, server, total).await?);
        }
        None => rows.push(Row::info(
            "2. develop submit, PostgreSQL",
            "skipped",
            "set STUDIO_BENCH_POSTGRES_URL or STUDIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432)",
            "",
        )),
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(rows)
}

/// Submits and bare transactions on fresh PostgreSQL databases, dropped afterwards.
async fn postgres_rows(server: &str, dir: &Path, rounds: usize, total: usize) -> anyhow::Result<Vec<Row>> {
    let (studio_db, bare_db) = (FreshDatabase::create(server).await?, FreshDatabase::create(server).await?);
    let measured = async {
        let submits = prepared(&studio_db.url, &dir.join("pg"), total).await?;
        let pool =
            sqlx::postgres::PgPoolOptions::new().max_connections(CONCURRENCY as u32).connect(&bare_db.url).await?;
        create_bare_table(&pool, "TEXT", "BIGINT").await?;
        let measured = take_turns(rounds, total, &submits, &pool, CONCURRENCY).await;
        drop(submits);
        pool.close().await;
        measured
    }
    .await;
    studio_db.drop().await;
    bare_db.drop().await;
    let [ours, one, many] = measured?;
    Ok(vec![
        Row::new(
            format!(
                "2. develop submit, PostgreSQL, {CONCURRENCY} submitters (median of {rounds} × {})",
                total / rounds
            ),
            rate(&ours),
            format!("{} (BEGIN; INSERT; COMMIT, {CONCURRENCY} writers)", rate(&one)),
            format!("{} / ≥ {PG_TARGET}×", ratio(ours.per_sec, one.per_sec)),
            ours.per_sec / one.per_sec >= PG_TARGET,
        ),
        Row::info(
            format!("2. develop submit, PostgreSQL, against {SUBMIT_WRITES} inserts per transaction (information)"),
            format!("{:.0}/s", ours.per_sec),
            format!("{} (BEGIN; {SUBMIT_WRITES} × INSERT; COMMIT)", rate(&many)),
            format!("{} / no target", ratio(ours.per_sec, many.per_sec)),
        ),
    ])
}

/// Submits over HTTP to a spawned server on a fresh PostgreSQL database, dropped afterwards: as
/// the SQLite row, plus what only a PostgreSQL server does, such as announcing every job event to
/// the other replicas (NOTIFY).
async fn http_postgres_row(opts: &Options, server: &str, total: usize) -> anyhow::Result<Row> {
    let db = FreshDatabase::create(server).await?;
    let row = http_row(opts, total, Some(db.url.clone())).await;
    db.drop().await;
    row
}

/// Submits through the spawned server (SQLite, or the PostgreSQL `database`; no runner, so the
/// jobs stay queued): HTTP, key authentication and JSON included; for information.
async fn http_row(opts: &Options, total: usize, database: Option<String>) -> anyhow::Result<Row> {
    let data = opts.work.join("submit-http");
    let mut env = vec![("STUDIO_RUNNER_CONCURRENCY", "0".to_string())];
    let backend = match database {
        Some(url) => {
            env.push(("STUDIO_DATABASE_URL", url));
            "PostgreSQL"
        }
        None => "SQLite",
    };
    let server = Server::start(opts, &data, &env).await?;
    let (client, _) = server.house("submit").await?;
    let asset = client
        .upload_bytes("look.png", studio_tests::images::padded_png(0, 4096), &UploadOptions::default())
        .await?
        .asset
        .id;
    let develop = DevelopSubmit::new("upscale").input("image", InputSource::Asset(asset)).quality(Quality::K1);
    let submitted = drive(total, CONCURRENCY, move |_| {
        let (client, develop) = (client.clone(), develop.clone());
        async move {
            client.submit_develop(&develop).await?;
            Ok(())
        }
    })
    .await?;
    drop(server);
    std::fs::remove_dir_all(&data)?;
    Ok(Row::info(
        format!(
            "2. develop submit over HTTP (POST /api/toolkit/jobs/submit), {backend}, {CONCURRENCY} in flight (information)"
        ),
        rate(&submitted),
        format!("— (compare with the in-process {backend} row)"),
        "no target",
    ))
}

fn rate(t: &Throughput) -> String {
    format!("{:.0}/s (p50 {}, p99 {})", t.per_sec, ms(t.p50), ms(t.p99))
}

/// A `Studio` with a house to submit for and the library image to submit.
struct Submits {
    studio: Studio,
    caller: Caller,
    asset: String,
}

/// A `Studio` on `database_url` with a house holding enough tokens and one library image.
async fn prepared(database_url: &str, blobs: &Path, submits: usize) -> anyhow::Result<Submits> {
    let config = CoreConfig { signup_grant_tokens: (submits as i64 + 10) * 100, ..CoreConfig::default() };
    let studio = Studio::open(database_url, &BlobConfig::Local(blobs.join("blobs")), config).await?;
    let req = SignUpRequest {
        email: format!("bench-{}@example.com", uuid::Uuid::new_v4().simple()),
        password: "a long enough bench password".into(),
        name: None,
    };
    let (_, token) = studio.accounts().sign_up(req).await?;
    let caller = studio.accounts().authenticate_session(&token).await?;
    let body = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(bytes::Bytes::from(
        studio_tests::images::padded_png(0, 4096),
    ))])
    .boxed();
    let pending = studio.library().stream_upload(&caller, body).await?;
    let asset = studio.library().finish_upload(&caller, pending, UploadForm::default()).await?.asset.id;
    Ok(Submits { studio, caller, asset })
}

/// `total` submits and as many of each bare transaction (one insert, then [`SUBMIT_WRITES`]) from
/// `writers` tasks, in `rounds` rounds that take turns, so a change in the shared machine's load
/// touches all three alike; the median round of each.
async fn take_turns<DB: sqlx::Database>(
    rounds: usize,
    total: usize,
    submits: &Submits,
    pool: &sqlx::Pool<DB>,
    writers: usize,
) -> anyhow::Result<[Throughput; 3]>
where
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    for<'q> <DB as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
    for<'q> String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let per = total / rounds;
    let mut measured = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..rounds {
        measured[0].push(submit_rate(submits, per).await?);
        measured[1].push(bare_rate(pool, per, writers, 1).await?);
        measured[2].push(bare_rate(pool, per, writers, SUBMIT_WRITES).await?);
    }
    Ok(measured.map(median_rate))
}

/// `total` calls of `start_develop`, [`CONCURRENCY`] at a time.
async fn submit_rate(submits: &Submits, total: usize) -> anyhow::Result<Throughput> {
    let (studio, caller, asset) = (submits.studio.clone(), submits.caller.clone(), submits.asset.clone());
    drive(total, CONCURRENCY, move |_| {
        let (studio, caller) = (studio.clone(), caller.clone());
        let req = StartDevelop {
            tool: "upscale".into(),
            inputs: BTreeMap::from([("image".to_string(), asset.clone())]),
            quality: "1k".into(),
            params: BTreeMap::new(),
            idempotency_key: None,
            folder_id: None,
            webhook_url: None,
        };
        async move {
            studio.develops().start_develop(&caller, req).await?;
            Ok(())
        }
    })
    .await
}

/// A pool on a new SQLite file with the storage's settings (WAL, `synchronous = NORMAL`).
async fn sqlite_pool(path: &Path) -> anyhow::Result<sqlx::SqlitePool> {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal);
    Ok(SqlitePoolOptions::new().max_connections(1).connect_with(options).await?)
}

async fn create_bare_table<DB: sqlx::Database>(pool: &sqlx::Pool<DB>, text: &str, int: &str) -> anyhow::Result<()>
where
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    for<'q> <DB as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
{
    sqlx::query(&format!("CREATE TABLE bare (id {text} PRIMARY KEY, org {text}, amount {int}, at {text})"))
        .execute(&mut *pool.acquire().await?)
        .await?;
    Ok(())
}

/// `total` transactions of `writes` single-row inserts each, from `writers` tasks.
async fn bare_rate<DB: sqlx::Database>(
    pool: &sqlx::Pool<DB>,
    total: usize,
    writers: usize,
    writes: usize,
) -> anyhow::Result<Throughput>
where
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    for<'q> <DB as sqlx::Database>::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
    for<'q> String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let pool = pool.clone();
    let run = uuid::Uuid::new_v4().simple().to_string();
    drive(total, writers, move |i| {
        let (pool, run) = (pool.clone(), run.clone());
        async move {
            let mut tx = pool.begin().await?;
            for w in 0..writes {
                sqlx::query("INSERT INTO bare VALUES ($1, $2, $3, $4)")
                    .bind(format!("{run}-{i}-{w}"))
                    .bind("org".to_string())
                    .bind(9_i64)
                    .bind(chrono::Utc::now().to_rfc3339())
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(())
        }
    })
    .await
}
