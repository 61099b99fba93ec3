//! Row 6: `tools/call check_balance` over `POST /api/mcp` in requests per second, beside a
//! stateless Streamable HTTP server of the official TypeScript MCP SDK answering a trivial tool
//! (tests/bench/mcp-ts/, target ≥ 3×), and beside the same core call over REST
//! (`GET /api/toolkit/ai/billing/balance`, for information: what the agent door costs).
//!
//! All three are driven by the same load generator ([`drive`]) at the same concurrency through
//! one keep-alive connection pool. Each is warmed up, then measured twice in turn and the better
//! round is kept. The TypeScript server is installed with `npm ci` from the pinned lockfile into
//! `target/bench-mcp-ts/` in a full run; a smoke run uses it only when already installed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use studio_client::MCP_PROTOCOL_VERSION;

use crate::common::{Options, Row, Server, Throughput, drive, free_port, ms, ratio};

const CHECK_BALANCE: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_balance","arguments":{}}}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
const CONCURRENCY: usize = 16;

/// The baseline's files, written into its install directory at run time.
const TS_FILES: [(&str, &str); 3] = [
    ("package.json", include_str!("mcp-ts/package.json")),
    ("package-lock.json", include_str!("mcp-ts/package-lock.json")),
    ("server.mjs", include_str!("mcp-ts/server.mjs")),
];

/// One way to ask for a balance.
#[derive(Clone)]
enum Way {
    /// Studio's agent endpoint with the house's key.
    Mcp { url: Arc<str>, key: Arc<str> },
    /// Studio's REST route for the same core call.
    Rest { url: Arc<str>, key: Arc<str> },
    /// The TypeScript SDK's server.
    TsSdk { url: Arc<str> },
}

impl Way {
    /// Send one request and check that it was answered with what was asked.
    async fn call(&self, http: &reqwest::Client) -> anyhow::Result<()> {
        let request = match self {
            Way::Mcp { url, key } => mcp_post(http, url, CHECK_BALANCE).bearer_auth(key),
            Way::TsSdk { url } => mcp_post(http, url, CHECK_BALANCE),
            Way::Rest { url, key } => http.get(&**url).bearer_auth(key),
        };
        let response = request.send().await?;
        let status = response.status();
        let body = response.bytes().await?;
        let text = String::from_utf8_lossy(&body);
        let answered = match self {
            Way::Mcp { .. } => text.contains(r#""isError":false"#) && text.contains(r#""balance":"#),
            Way::TsSdk { .. } => text.contains(r#""structuredContent":{"balance":100"#),
            Way::Rest { .. } => text.contains(r#""balance":"#),
        };
        anyhow::ensure!(status.is_success() && answered, "unexpected answer {status}: {text}");
        Ok(())
    }
}

/// A JSON-RPC POST with the headers the official MCP clients send.
fn mcp_post(http: &reqwest::Client, url: &str, body: &'static str) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MCP_PROTOCOL_VERSION)
        .body(body)
}

/// `total` calls of `way` at [`CONCURRENCY`].
async fn round(way: &Way, http: &reqwest::Client, total: usize) -> anyhow::Result<Throughput> {
    let (way, http) = (way.clone(), http.clone());
    drive(total, CONCURRENCY, move |_| {
        let (way, http) = (way.clone(), http.clone());
        async move { way.call(&http).await }
    })
    .await
}

/// A figure with its latencies.
fn rate(t: &Throughput) -> String {
    format!("{:.0} req/s (p50 {}, p99 {})", t.per_sec, ms(t.p50), ms(t.p99))
}

pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let data = opts.work.join("mcp");
    let server = Server::start(opts, &data, &[("STUDIO_RUNNER_CONCURRENCY", "0".into())]).await?;
    let (_, key) = server.house("mcp").await?;
    let key: Arc<str> = key.into();
    let http = reqwest::Client::builder().pool_max_idle_per_host(CONCURRENCY).build()?;
    let baseline = TsServer::prepare(opts).await?;
    let mut ways = vec![
        Way::Mcp { url: format!("{}/api/mcp", server.base).into(), key: key.clone() },
        Way::Rest { url: format!("{}/api/toolkit/ai/billing/balance", server.base).into(), key },
    ];
    if let Ok(ts) = &baseline {
        ways.push(Way::TsSdk { url: ts.url.clone().into() });
    }

    let total = opts.size(20_000, 200);
    for way in &ways {
        round(way, &http, (total / 10).max(CONCURRENCY)).await?;
    }
    let mut best: Vec<Option<Throughput>> = vec![None; ways.len()];
    for _ in 0..opts.size(2, 1) {
        for (way, best) in ways.iter().zip(&mut best) {
            let t = round(way, &http, total).await?;
            if best.is_none_or(|b| t.per_sec > b.per_sec) {
                *best = Some(t);
            }
        }
    }
    let [Some(mcp), Some(rest), ts @ ..] = best.as_slice() else { unreachable!("both Studio ways measured") };

    let scenario = format!("6 MCP tools/call check_balance ({CONCURRENCY} concurrent)");
    let mut rows = vec![match (ts.first().copied().flatten(), baseline) {
        (Some(ts), _) => Row::new(
            scenario,
            rate(mcp),
            format!("{} — TS SDK {} stateless", rate(&ts), TsServer::sdk_version()),
            format!("{} / ≥ 3×", ratio(mcp.per_sec, ts.per_sec)),
            mcp.per_sec >= 3.0 * ts.per_sec,
        ),
        (_, why) => {
            Row::info(scenario, rate(mcp), format!("TS SDK baseline skipped: {}", why.err().unwrap_or_default()), "")
        }
    }];
    rows.push(Row::info(
        "6 MCP vs REST, same core call (balance)",
        rate(mcp),
        format!("{} — GET /api/toolkit/ai/billing/balance", rate(rest)),
        format!("{} MCP / REST", ratio(mcp.per_sec, rest.per_sec)),
    ));
    Ok(rows)
}

/// The TypeScript SDK's server, a `node` child process killed when dropped.
struct TsServer {
    child: Child,
    url: String,
}

impl Drop for TsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TsServer {
    /// The SDK version pinned in tests/bench/mcp-ts/package.json.
    fn sdk_version() -> String {
        let manifest: serde_json::Value = serde_json::from_str(TS_FILES[0].1).expect("package.json is JSON");
        manifest["dependencies"]["@modelcontextprotocol/sdk"].as_str().unwrap_or("?").to_string()
    }

    /// Install (full mode) and start the baseline. `Ok(Err(why))` when it is skipped.
    async fn prepare(opts: &Options) -> anyhow::Result<Result<TsServer, String>> {
        if Command::new("node").arg("--version").stdout(Stdio::null()).status().is_err() {
            return Ok(Err("node is not installed".into()));
        }
        let dir = install_dir()?;
        if !installed(&dir) {
            if opts.smoke {
                return Ok(Err(format!("not installed (a full run installs it: npm ci in {})", dir.display())));
            }
            eprintln!("installing the TypeScript MCP SDK {} into {}", Self::sdk_version(), dir.display());
            let status = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&dir)
                .stdout(Stdio::null())
                .status()
                .map_err(|e| anyhow::anyhow!("npm: {e}"))?;
            anyhow::ensure!(status.success() && installed(&dir), "npm ci in {} failed: {status}", dir.display());
        }
        let port = free_port();
        let child = Command::new("node")
            .arg("server.mjs")
            .env("PORT", port.to_string())
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| anyhow::anyhow!("start node: {e}"))?;
        let mut server = TsServer { child, url: format!("http://127.0.0.1:{port}/mcp") };
        let http = reqwest::Client::builder().timeout(Duration::from_millis(500)).build()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = mcp_post(&http, &server.url, PING).send().await
                && r.status().is_success()
            {
                return Ok(Ok(server));
            }
            if let Some(status) = server.child.try_wait()? {
                anyhow::bail!("the TypeScript MCP server exited during start-up: {status}");
            }
            anyhow::ensure!(Instant::now() < deadline, "the TypeScript MCP server did not answer within 30 s");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `target/bench-mcp-ts/` (beside the harness's own profile directory), with the baseline's
/// files written fresh; node_modules stays between runs.
fn install_dir() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let target = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| anyhow::anyhow!("no target directory above {}", exe.display()))?;
    let dir = target.join("bench-mcp-ts");
    std::fs::create_dir_all(&dir)?;
    for (name, text) in TS_FILES {
        if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text) {
            std::fs::write(dir.join(name), text)?;
        }
    }
    Ok(dir)
}

/// Whether `dir/node_modules` holds the pinned SDK version.
fn installed(dir: &Path) -> bool {
    let manifest = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|m| m["version"].as_str() == Some(TsServer::sdk_version().as_str()))
}
