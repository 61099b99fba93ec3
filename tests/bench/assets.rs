//! Row 1: `GET /api/toolkit/assets` of a house with 50 assets, authenticated by an organization
//! key, against a minimal axum server inside the harness that serves the same 50 typed assets
//! (`studio_client::api::AssetList`, serialized per request by `axum::Json` as the server does)
//! from memory, with no authentication, on its own port and its own runtime threads. Both are
//! driven alternately by the harness's own keep-alive load generator ([`crate::load`], like
//! `wrk -t1 -c32 -d5s`), which costs far less than either server: the baseline must reach
//! 15k req/s with it or the row says the generator, not the server, was measured.

use std::sync::Arc;

use axum::{Json, Router, response::IntoResponse, routing::get};
use studio_client::api::{AssetKind, AssetList};
use studio_client::{Client, UploadOptions};

use crate::common::{Options, Row, Server, median_rate, ms, ratio};
use crate::load::{get_request, hammer};

/// Assets in the house.
const ASSETS: usize = 50;
/// Keep-alive connections, each with one request in flight, for both servers.
const CONNECTIONS: usize = 32;
/// Target: at least this share of the baseline's requests per second.
const TARGET: f64 = 0.6;
/// What the baseline must reach for the generator not to be the bottleneck.
const BASELINE_FLOOR: f64 = 15_000.0;

/// Measure row 1.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let data = opts.work.join("assets");
    let server = Server::start(opts, &data, &[]).await?;
    let (client, secret) = server.house("assets").await?;
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
    let plain = Client::builder(format!("http://{baseline}")).build()?;
    anyhow::ensure!(plain.list_assets(None).await? == list, "the baseline does not serve the same list");

    let ours_addr: std::net::SocketAddr = server.base.trim_start_matches("http://").parse()?;
    let ours_request = get_request(ours_addr, "/api/toolkit/assets", Some(&secret));
    let theirs_request = get_request(baseline, "/api/toolkit/assets", None);
    let seconds = opts.size(5.0, 0.3);
    let window = std::time::Duration::from_secs_f64(seconds);
    let rounds = opts.size(3, 1);
    let warm = std::time::Duration::from_secs_f64(opts.size(1.0, 0.1));
    hammer(ours_addr, ours_request.clone(), CONNECTIONS, warm)?;
    hammer(baseline, theirs_request.clone(), CONNECTIONS, warm)?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        ours.push(hammer(ours_addr, ours_request.clone(), CONNECTIONS, window)?);
        theirs.push(hammer(baseline, theirs_request.clone(), CONNECTIONS, window)?);
    }
    let (ours, theirs) = (median_rate(ours), median_rate(theirs));
    let r = ours.per_sec / theirs.per_sec;
    // Where wrk is installed, it drives the same baseline once: the harness's generator should
    // reach what wrk reaches (both are one thread with the same connections).
    let wrk = if opts.smoke { None } else { wrk_rate(baseline, seconds) };
    // In a smoke run the windows are too short for the floor to mean anything.
    let generator_ok = opts.smoke || theirs.per_sec >= BASELINE_FLOOR;
    drop(server);
    std::fs::remove_dir_all(&data)?;
    let mut rows = vec![Row::new(
        format!(
            "1. GET /api/toolkit/assets, {ASSETS} assets, key auth, {CONNECTIONS} keep-alive connections (median of {rounds} × {seconds} s)"
        ),
        format!("{:.0} req/s (p50 {}, p99 {})", ours.per_sec, ms(ours.p50), ms(ours.p99)),
        format!(
            "{:.0} req/s (p50 {}, p99 {}; axum from memory, no auth; generator floor {BASELINE_FLOOR:.0}: {})",
            theirs.per_sec,
            ms(theirs.p50),
            ms(theirs.p99),
            if generator_ok { "reached" } else { "MISSED" }
        ),
        format!("{} / ≥ {TARGET}×", ratio(ours.per_sec, theirs.per_sec)),
        r >= TARGET && generator_ok,
    )];
    if let Some(wrk) = wrk {
        rows.push(Row::info(
            format!("1. the same baseline driven by wrk -t1 -c{CONNECTIONS} -d{seconds}s (information)"),
            format!("{wrk:.0} req/s"),
            format!("{:.0} req/s with the harness's generator", theirs.per_sec),
            format!("{} of wrk's rate", ratio(theirs.per_sec, wrk)),
        ));
    }
    Ok(rows)
}

/// Requests per second `wrk` reports against the baseline, when wrk is installed.
fn wrk_rate(baseline: std::net::SocketAddr, seconds: f64) -> Option<f64> {
    let out = std::process::Command::new("wrk")
        .args(["-t1", &format!("-c{CONNECTIONS}"), &format!("-d{}s", seconds.ceil() as u64)])
        .arg(format!("http://{baseline}/api/toolkit/assets"))
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("Requests/sec:")).and_then(|v| v.trim().parse().ok())
}

/// Serve `list` at `GET /api/toolkit/assets` on a free loopback port, from a runtime of its own
/// (two worker threads, like the server's on this machine) that lives as long as the harness.
/// Answers its address.
fn serve_from_memory(list: AssetList) -> anyhow::Result<std::net::SocketAddr> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let base = listener.local_addr()?;
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
