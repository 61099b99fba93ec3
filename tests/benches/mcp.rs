//! Agent-endpoint benchmark (a report, not a timed test): `tools/call check_balance` over
//! `POST /api/mcp` against the same core call over REST (`GET /api/toolkit/ai/billing/balance`),
//! both through HTTP to one server booted in-process, both measured in this run.
//!
//! `cargo bench -p studio-tests --bench mcp`. SQLite, one house, one member key. Each side is
//! warmed up, then measured twice (MCP, REST, MCP, REST) and the better round is kept. Prints a
//! markdown table and exits 0. `STUDIO_BENCH_REQUESTS` sets the count per round (default 20000)
//! and `STUDIO_BENCH_CONCURRENCY` the parallel clients (default 16).

use std::sync::Arc;
use std::time::{Duration, Instant};

use studio_tests::{Backend, spawn, unique_email};

const CHECK_BALANCE: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_balance","arguments":{}}}"#;

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).filter(|n| *n > 0).unwrap_or(default)
}

/// One of the two ways to ask for the balance.
#[derive(Clone, Copy)]
enum Way {
    Mcp,
    Rest,
}

impl Way {
    fn request(self, http: &reqwest::Client, base: &str, key: &str) -> reqwest::RequestBuilder {
        match self {
            Way::Mcp => http
                .post(format!("{base}/api/mcp"))
                .bearer_auth(key)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-06-18")
                .body(CHECK_BALANCE),
            Way::Rest => http.get(format!("{base}/api/toolkit/ai/billing/balance")).bearer_auth(key),
        }
    }

    /// Whether a body is the answer wanted (the house's 100 tokens, and for MCP a success).
    fn answered(self, body: &[u8]) -> bool {
        let text = String::from_utf8_lossy(body);
        match self {
            Way::Mcp => text.contains(r#""isError":false"#) && text.contains(r#""balance":100"#),
            Way::Rest => text.contains(r#""balance":100"#),
        }
    }
}

/// One round: requests per second and every request's latency, sorted.
struct Round {
    rate: f64,
    latencies: Vec<Duration>,
}

impl Round {
    fn percentile(&self, p: f64) -> Duration {
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[i.min(self.latencies.len() - 1)]
    }
}

/// `total` requests of `way` from `concurrency` clients sharing one connection pool.
async fn round(way: Way, http: &reqwest::Client, base: &str, key: &str, total: usize, concurrency: usize) -> Round {
    let per = total.div_ceil(concurrency);
    let base: Arc<str> = base.into();
    let key: Arc<str> = key.into();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (http, base, key) = (http.clone(), base.clone(), key.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per);
            for _ in 0..per {
                let sent = Instant::now();
                let response = way.request(&http, &base, &key).send().await.expect("send");
                assert_eq!(response.status().as_u16(), 200);
                let body = response.bytes().await.expect("body");
                assert!(way.answered(&body), "{}", String::from_utf8_lossy(&body));
                latencies.push(sent.elapsed());
            }
            latencies
        }));
    }
    let mut latencies = Vec::with_capacity(per * concurrency);
    for task in tasks {
        latencies.extend(task.await.expect("join"));
    }
    let rate = latencies.len() as f64 / started.elapsed().as_secs_f64();
    latencies.sort();
    Round { rate, latencies }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let total = env_num("STUDIO_BENCH_REQUESTS", 20_000);
    let concurrency = env_num("STUDIO_BENCH_CONCURRENCY", 16);
    let app = spawn(Backend::Sqlite, |c| c.runner_concurrency = 0).await.expect("sqlite app");
    let signed = app.client.sign_up(&unique_email("bench-mcp"), "a long enough password", None).await.expect("sign up");
    let minted = app.client.with_session(&signed.session).mint_key("bench", None).await.expect("mint");
    let key = minted.key.expect("secret");
    let http = reqwest::Client::builder().pool_max_idle_per_host(concurrency).build().expect("http client");

    let warm = (total / 10).max(concurrency);
    round(Way::Mcp, &http, &app.base, &key, warm, concurrency).await;
    round(Way::Rest, &http, &app.base, &key, warm, concurrency).await;
    let mut best: [Option<Round>; 2] = [None, None];
    for _ in 0..2 {
        for (i, way) in [Way::Mcp, Way::Rest].into_iter().enumerate() {
            let r = round(way, &http, &app.base, &key, total, concurrency).await;
            if best[i].as_ref().is_none_or(|b| r.rate > b.rate) {
                best[i] = Some(r);
            }
        }
    }
    let [Some(mcp), Some(rest)] = best else { unreachable!("both measured") };

    println!(
        "{} requests per round, {concurrency} concurrent clients, SQLite, best of 2 rounds after a warm-up\n",
        mcp.latencies.len()
    );
    println!("| call | requests/s | p50 | p99 |");
    println!("|---|---|---|---|");
    for (name, r) in
        [("`tools/call check_balance` (POST /api/mcp)", &mcp), ("`GET /api/toolkit/ai/billing/balance`", &rest)]
    {
        println!("| {name} | {:.0} | {} | {} |", r.rate, ms(r.percentile(0.5)), ms(r.percentile(0.99)));
    }
    println!("\nMCP / REST: {:.2}×", mcp.rate / rest.rate);
}
