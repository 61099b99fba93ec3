//! Row S: house-wide search (`GET /api/toolkit/search`) in a house of 1,000,000 assets (2,000 in
//! a smoke run), beside the same house's first asset page (`GET /api/toolkit/assets?limit=50`)
//! asked in turn in the same run, on SQLite and (when configured) PostgreSQL.
//!
//! The server starts once on an empty data directory (the migrations run) and a house signs up;
//! with the server stopped, the assets are written straight into storage by
//! `SearchStore::seed_assets` (one INSERT … SELECT over a recursive CTE or `generate_series`,
//! so the search index's triggers fill the index as they would for any write); then the server
//! starts again. Names come from a small vocabulary (`SS27 silk dress ivory 42`, sku
//! `SS27-0000042`), so each query below has a known share of the house: a sku prefix (100
//! assets), three words together (1 in 1,820), and one fabric (1 in 7, the worst case:
//! every match is ranked). Calls are made one at a time, search and list alternating.

use std::path::Path;
use std::time::{Duration, Instant};

use studio_client::Client;
use studio_client::api::SearchQuery;

use crate::common::{FreshDatabase, Options, Row, Server, ms, percentile};

/// The queries: (what it shows, q).
const QUERIES: [(&str, &str); 3] =
    [("sku prefix", "SS27-00012"), ("three words", "silk dress ivory"), ("one common word", "silk")];

/// Measure row S on each backend.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let count = opts.size(1_000_000, 2_000);
    let dir = opts.work.join("search");
    let sqlite_data = dir.join("sqlite");
    let mut rows = measure(
        opts,
        "SQLite",
        &sqlite_data,
        &[],
        &format!("sqlite://{}", sqlite_data.join("studio.db").display()),
        count,
    )
    .await?;
    match &opts.postgres {
        Some(server) => {
            let db = FreshDatabase::create(server).await?;
            let measured = measure(
                opts,
                "PostgreSQL",
                &dir.join("pg"),
                &[("STUDIO_DATABASE_URL", db.url.clone())],
                &db.url,
                count,
            )
            .await;
            db.drop().await;
            rows.extend(measured?);
        }
        None => rows.push(Row::info(
            "S. search, PostgreSQL",
            "skipped",
            "set STUDIO_BENCH_POSTGRES_URL or STUDIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432)",
            "",
        )),
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(rows)
}

/// Seed a house of `count` assets on one backend and time each query beside the asset list.
async fn measure(
    opts: &Options,
    backend: &str,
    data: &Path,
    env: &[(&str, String)],
    database_url: &str,
    count: usize,
) -> anyhow::Result<Vec<Row>> {
    let server = Server::start(opts, data, env).await?;
    let (client, key) = server.house("search").await?;
    let org = client.session().await?.organization.id;
    drop(server);
    let started = Instant::now();
    let storage = studio_core::open_storage(database_url).await?;
    let written = storage.seed_assets(&org.as_str().into(), count as i64).await?;
    anyhow::ensure!(written == count as u64, "seeded {written} assets, not {count}");
    drop(storage);
    let seeded = started.elapsed();
    eprintln!("  {backend}: seeded and indexed {count} assets in {:.1} s", seeded.as_secs_f64());
    let server = Server::start(opts, data, env).await?;
    let client = server.client().with_api_key(key);

    let mut rows = Vec::new();
    for (what, q) in QUERIES {
        let query = SearchQuery { q: Some(q.into()), ..SearchQuery::default() };
        let first = client.search(&query).await?;
        anyhow::ensure!(!first.results.is_empty(), "{q:?} found nothing in the seeded house");
        let (search, list) = alternate(opts, &client, &query).await?;
        rows.push(Row::info(
            format!(
                "S. search {what} (q={q:?}), {count} assets, {backend} (one call at a time; {} calls)",
                search.len()
            ),
            format!("p50 {}, p99 {}", ms(percentile(&search, 0.5)), ms(percentile(&search, 0.99))),
            format!(
                "p50 {}, p99 {} (GET /api/toolkit/assets?limit=50, same house, in turn)",
                ms(percentile(&list, 0.5)),
                ms(percentile(&list, 0.99))
            ),
            format!("seeded and indexed in {:.0} s; no target", seeded.as_secs_f64()),
        ));
    }
    drop(server);
    std::fs::remove_dir_all(data)?;
    Ok(rows)
}

/// The search and the first asset page in turn: three untimed rounds, then up to 200 timed ones
/// (5 in a smoke run) or as many as fit in 30 s (3 s), at least 3. Both sides sorted.
async fn alternate(
    opts: &Options,
    client: &Client,
    query: &SearchQuery,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let (rounds, budget) = opts.size((200, Duration::from_secs(30)), (5, Duration::from_secs(3)));
    for _ in 0..3 {
        client.search(query).await?;
        client.list_assets_page(None, 50, None).await?;
    }
    let (mut search, mut list) = (Vec::new(), Vec::new());
    let started = Instant::now();
    while search.len() < rounds && (search.len() < 3 || started.elapsed() < budget) {
        let t = Instant::now();
        client.search(query).await?;
        search.push(t.elapsed());
        let t = Instant::now();
        client.list_assets_page(None, 50, None).await?;
        list.push(t.elapsed());
    }
    search.sort();
    list.sort();
    Ok((search, list))
}
