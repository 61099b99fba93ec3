//! Row 9: does a house's history slow its everyday reads? A house's balance
//! (`GET /api/toolkit/ai/billing/balance`) and first asset page (`GET /api/toolkit/assets?limit=50`,
//! the list_assets tool's default page) with 100 ledger rows and 100 assets, against another's with 1,000,000 of each (10,000 in a
//! smoke run).
//!
//! Each house has its own server and data directory. The server is started once on the empty
//! directory (so the migrations ran) and the house signs up; then, with the server stopped, rows
//! are written straight into its SQLite file in the shape the storage writes them
//! (studio-core/migrations/sqlite): settled holds, each with its `reserve` and `settled` ledger
//! entries (the running totals in `balances` moved to match), and assets older than any real
//! upload; then the server starts again. Both servers run at once and are asked in turn, so a
//! change in the shared machine's load touches both sides alike (see [`alternate`]).

use std::time::{Duration, Instant};

use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};

use crate::common::{Options, Row, RssSampler, Server, median, mib, ms, ratio};

/// Target: the large house's read takes at most this many times the small one's.
const TARGET: f64 = 1.5;

/// Measure row 9.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let (small, large) = (100, opts.size(1_000_000, 10_000));
    let houses = [House::seeded(opts, small).await?, House::seeded(opts, large).await?];
    let balance = alternate(opts, &houses, "/api/toolkit/ai/billing/balance").await?;
    let samplers = houses.each_ref().map(|h| RssSampler::start(h.server.pid()));
    let assets = alternate(opts, &houses, "/api/toolkit/assets?limit=50").await?;
    let [p0, p1] = samplers.map(|s| s.finish().0);
    for house in houses {
        let data = house.server.data_dir.clone();
        drop(house);
        std::fs::remove_dir_all(data)?;
    }
    let row = |what: &str, [(t0, n0, bytes0), (t1, n1, bytes1)]: [(Duration, usize, usize); 2]| {
        let r = t1.as_secs_f64() / t0.as_secs_f64();
        Row::new(
            format!("9. {what}: {large} against {small} ledger rows and assets (median latency)"),
            format!("{} (median of {n1}; {} body)", ms(t1), body(bytes1)),
            format!("{} (median of {n0}; {} body)", ms(t0), body(bytes0)),
            format!("{} / ≤ {TARGET}×", ratio(t1.as_secs_f64(), t0.as_secs_f64())),
            r <= TARGET,
        )
    };
    Ok(vec![
        row("GET balance", balance),
        row("GET /api/toolkit/assets?limit=50 (first page)", assets),
        Row::info(
            format!("9. server peak RSS while listing the assets, {large} against {small} (information)"),
            mib(p1),
            mib(p0),
            "no target",
        ),
    ])
}

/// A server on its own data directory whose one house has `rows` seeded ledger rows and assets.
struct House {
    server: Server,
    key: String,
}

impl House {
    /// Start a server on an empty data directory (the migrations run), sign a house up, stop
    /// the server, seed the house and start the server again.
    async fn seeded(opts: &Options, rows: usize) -> anyhow::Result<House> {
        let data = opts.work.join(format!("growth-{rows}"));
        let server = Server::start(opts, &data, &[]).await?;
        let (client, key) = server.house("growth").await?;
        let org = client.session().await?.organization.id;
        drop(server);
        seed(&data, &org, rows).await?;
        Ok(House { server: Server::start(opts, &data, &[]).await?, key })
    }
}

/// `GET path` on both houses in turn: untimed warm-up rounds (so every pooled connection of
/// both servers has read its pages), as many as fit in 3 s, at least one; then 1,000 timed rounds
/// (20 in a smoke run), or as many as fit in 30 s (5 s), at least three. Per house: (median
/// latency, timed calls, body length); the body is read whole and dropped.
async fn alternate(opts: &Options, houses: &[House; 2], path: &str) -> anyhow::Result<[(Duration, usize, usize); 2]> {
    let (rounds, budget) = opts.size((1000, Duration::from_secs(30)), (20, Duration::from_secs(5)));
    let http = reqwest::Client::builder().timeout(Duration::from_secs(600)).build()?;
    let get = |house: &House| {
        let request = http.get(format!("{}{path}", house.server.base)).bearer_auth(&house.key);
        async move {
            let started = Instant::now();
            let len = request.send().await?.error_for_status()?.bytes().await?.len();
            anyhow::Ok((started.elapsed(), len))
        }
    };
    let mut lens = [0; 2];
    let started = Instant::now();
    while lens[0] == 0 || (started.elapsed() < Duration::from_secs(3) && !opts.smoke) {
        for (house, len) in houses.iter().zip(&mut lens) {
            *len = get(house).await?.1;
        }
    }
    let started = Instant::now();
    let mut times = [Vec::new(), Vec::new()];
    while times[0].len() < rounds && (times[0].len() < 3 || started.elapsed() < budget) {
        for (house, times) in houses.iter().zip(&mut times) {
            times.push(get(house).await?.0);
        }
    }
    let n = times[0].len();
    let [t0, t1] = times.map(median);
    Ok([(t0, n, lens[0]), (t1, n, lens[1])])
}

fn body(bytes: usize) -> String {
    if bytes >= 1 << 20 { format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64) } else { format!("{bytes} B") }
}

/// Seed the house `org` in the SQLite file of `data` with `rows` ledger rows and assets (the
/// server must be stopped).
async fn seed(data: &std::path::Path, org: &str, rows: usize) -> anyhow::Result<()> {
    let started = Instant::now();
    let options = SqliteConnectOptions::new().filename(data.join("studio.db")).foreign_keys(true);
    let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await?;
    let mut tx = pool.begin().await?;
    // Rows i in 1..=rows: one asset each; one settled hold per two, with its two entries.
    // Timestamps count seconds from 2025-01-01, before anything the server wrote.
    let series = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) ";
    let at = "strftime('%Y-%m-%dT%H:%M:%S+00:00', '2025-01-01', '+' || i || ' seconds')";
    sqlx::query(&format!(
        "{series} INSERT INTO assets (id, org_id, name, sku, kind, mime, blob_key, sha256, bytes, width, height, created_at) \
         SELECT printf('ast_seed%08d', i), $2, printf('SS27 look %d', i), printf('SS27-%06d', i), 'clothes', 'image/png', \
         printf('orgs/%s/assets/ast_seed%08d', $2, i), printf('%064x', i), 4096, 8, 8, {at} FROM n"
    ))
    .bind(rows as i64)
    .bind(org)
    .execute(&mut *tx)
    .await?;
    let holds = format!("{series} SELECT i, printf('hold_seed%08d', i) AS hold, {at} AS at FROM n WHERE i % 2 = 0");
    sqlx::query(&format!(
        "INSERT INTO holds (id, org_id, amount, from_grant, from_topup, status, created_at, resolved_at) \
         SELECT hold, $2, 1, 1, 0, 'settled', at, at FROM ({holds})"
    ))
    .bind(rows as i64)
    .bind(org)
    .execute(&mut *tx)
    .await?;
    for (kind, deltas) in [("reserve", "-1, 0, 1, 0, 0"), ("settled", "0, 0, -1, 1, 0")] {
        sqlx::query(&format!(
            "INSERT INTO ledger_entries (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, \
             credited_delta, hold_id, created_at) \
             SELECT printf('led_seed%08d_{kind}', i), $2, '{kind}', {deltas}, hold, at FROM ({holds})"
        ))
        .bind(rows as i64)
        .bind(org)
        .execute(&mut *tx)
        .await?;
    }
    let settled = (rows / 2) as i64;
    sqlx::query("UPDATE balances SET grant_tokens = grant_tokens - $1, settled = settled + $1 WHERE org_id = $2")
        .bind(settled)
        .bind(org)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&pool).await?;
    pool.close().await;
    eprintln!("  seeded {} ledger rows and {rows} assets in {:.1} s", 2 * settled, started.elapsed().as_secs_f64());
    Ok(())
}
