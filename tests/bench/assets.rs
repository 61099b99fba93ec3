//! Row 1: `GET /api/toolkit/assets` of a house with 50 assets, authenticated by an organization
//! key, against a minimal axum server inside the harness that serves the same 50 typed assets
//! (`studio_client::api::AssetList`, serialized per request by `axum::Json` as the server does)
//! from memory, with no authentication, on its own port and its own runtime threads. Both are
//! driven by the same load generator, through the same typed client call, at the same
//! concurrency, alternately.

use std::sync::Arc;

use axum::{Json, Router, response::IntoResponse, routing::get};
use studio_client::api::{AssetKind, AssetList};
use studio_client::{Client, UploadOptions};

use crate::common::{Options, Row, Server, Throughput, drive, median_rate, ms, ratio};

/// Assets in the house.
const ASSETS: usize = 50;
/// Requests in flight at once, for both servers.
const CONCURRENCY: usize = 16;
/// Target: at least this share of the baseline's requests per second.
const TARGET: f64 = 0.5;

/// Measure row 1.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let data = opts.work.join("assets");
    let server = Server::start(opts, &data, &[]).await?;
    let (client, _) = server.house("assets").await?;
    let kinds = [AssetKind::Clothes, AssetKind::Accessory, AssetKind::Jewelry, AssetKind::Model, AssetKind::Background];
    for i in 0..ASSETS {
        let options = UploadOptions {
            name: Some(format!("SS27 look {i:02}")),
            kind: Some(kinds[i % kinds.len()]),
            sku: (i % 2 == 0).then(|| format!("SS27-{i:03}")),
            ..UploadOptions::default()
        };
        client.upload_bytes(&format!("look-{i:02}.png"), studio_tests::images::padded_png(i, 4096), &options).await?;
    }
    let list = client.list_assets(None).await?;
    anyhow::ensure!(list.assets.len() == ASSETS, "the house lists {} assets, not {ASSETS}", list.assets.len());

    let baseline = serve_from_memory(list.clone())?;
    let plain = Client::builder(&baseline).build()?;
    anyhow::ensure!(plain.list_assets(None).await? == list, "the baseline does not serve the same list");

    let total = opts.size(20_000, 400);
    let rounds = opts.size(3, 1);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    list_rate(&client, CONCURRENCY * 20).await?;
    list_rate(&plain, CONCURRENCY * 20).await?;
    for _ in 0..rounds {
        ours.push(list_rate(&client, total).await?);
        theirs.push(list_rate(&plain, total).await?);
    }
    let (ours, theirs) = (median_rate(ours), median_rate(theirs));
    let r = ours.per_sec / theirs.per_sec;
    drop(server);
    std::fs::remove_dir_all(&data)?;
    Ok(vec![Row::new(
        format!(
            "1. GET /api/toolkit/assets, {ASSETS} assets, key auth, {CONCURRENCY} in flight (median of {rounds} × {total})"
        ),
        format!("{:.0} req/s (p50 {}, p99 {})", ours.per_sec, ms(ours.p50), ms(ours.p99)),
        format!(
            "{:.0} req/s (p50 {}, p99 {}; axum from memory, no auth)",
            theirs.per_sec,
            ms(theirs.p50),
            ms(theirs.p99)
        ),
        format!("{} / ≥ {TARGET}×", ratio(ours.per_sec, theirs.per_sec)),
        r >= TARGET,
    )])
}

/// `total` list calls through `client`, [`CONCURRENCY`] at a time.
async fn list_rate(client: &Client, total: usize) -> anyhow::Result<Throughput> {
    let client = client.clone();
    drive(total, CONCURRENCY, move |_| {
        let client = client.clone();
        async move {
            client.list_assets(None).await?;
            Ok(())
        }
    })
    .await
}

/// Serve `list` at `GET /api/toolkit/assets` on a free loopback port, from a runtime of its own
/// (two worker threads, like the server's on this machine) that lives as long as the harness.
/// Answers the base URL.
fn serve_from_memory(list: AssetList) -> anyhow::Result<String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let base = format!("http://{}", listener.local_addr()?);
    let list = Arc::new(list);
    let app = Router::new().route(
        "/api/toolkit/assets",
        get(move || {
            let list = list.clone();
            async move { Json(&*list).into_response() }
        }),
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, app).await.expect("baseline server");
        })
    });
    Ok(base)
}
