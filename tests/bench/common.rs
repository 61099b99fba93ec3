//! What every row of studio-bench shares: the options, a real `studio-server` child process
//! (RSS and start-up measured from outside), a house with a key, the result rows and the
//! table they print as.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use studio_client::Client;
use studio_tests::House;

/// How the harness was invoked.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// A short run that only proves every row still works (CI); figures mean nothing.
    pub(crate) smoke: bool,
    /// The `studio-server` binary under test (a release build for real figures).
    pub(crate) server_bin: PathBuf,
    /// A scratch directory for data directories, frames and baselines.
    pub(crate) work: PathBuf,
    /// A PostgreSQL server URL without a database name, for the PostgreSQL rows.
    pub(crate) postgres: Option<String>,
}

impl Options {
    /// `full` in a real run, `smoke` in a smoke run.
    pub(crate) fn size<T>(&self, full: T, smoke: T) -> T {
        if self.smoke { smoke } else { full }
    }
}

/// A new PostgreSQL database on `server` for one measurement; [`FreshDatabase::drop`] removes it
/// (whatever the measurement's outcome, so call it before propagating that).
pub(crate) struct FreshDatabase {
    admin: sqlx::PgConnection,
    name: String,
    /// Its connection address.
    pub(crate) url: String,
}

impl FreshDatabase {
    /// Create one with a unique name.
    pub(crate) async fn create(server: &str) -> anyhow::Result<Self> {
        use sqlx::Connection;
        let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres")).await?;
        let name = format!("studio_bench_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await?;
        Ok(FreshDatabase { admin, url: format!("{server}/{name}"), name })
    }

    /// Drop it, with every connection still open to it.
    pub(crate) async fn drop(mut self) {
        let _ =
            sqlx::query(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(&mut self.admin).await;
    }
}

/// One line of the table.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// Row number of the list plus a short scenario name.
    pub(crate) scenario: String,
    /// Studio's figure with its unit.
    pub(crate) studio: String,
    /// The baseline's figure with its unit, or what stood in for it.
    pub(crate) baseline: String,
    /// The ratio or figure against its target, e.g. `0.47× / ≤ 1.2×`.
    pub(crate) versus: String,
    /// Some(true) PASS, Some(false) MISS, None for information rows.
    pub(crate) pass: Option<bool>,
}

impl Row {
    /// A row with a target.
    pub(crate) fn new(
        scenario: impl Into<String>,
        studio: impl Into<String>,
        baseline: impl Into<String>,
        versus: impl Into<String>,
        pass: bool,
    ) -> Row {
        Row {
            scenario: scenario.into(),
            studio: studio.into(),
            baseline: baseline.into(),
            versus: versus.into(),
            pass: Some(pass),
        }
    }

    /// A row reported for information, without a target.
    pub(crate) fn info(
        scenario: impl Into<String>,
        studio: impl Into<String>,
        baseline: impl Into<String>,
        versus: impl Into<String>,
    ) -> Row {
        Row { pass: None, ..Row::new(scenario, studio, baseline, versus, false) }
    }
}

/// Print the rows as one Markdown table.
pub(crate) fn print_table(rows: &[Row]) {
    println!("| scenario | studio | baseline | ratio / target | pass |");
    println!("|---|---|---|---|---|");
    for r in rows {
        let pass = match r.pass {
            Some(true) => "PASS",
            Some(false) => "MISS",
            None => "—",
        };
        println!("| {} | {} | {} | {} | {} |", r.scenario, r.studio, r.baseline, r.versus, pass);
    }
}

/// A running `studio-server` process, killed and reaped when dropped.
pub(crate) struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub(crate) base: String,
    /// The data directory it serves.
    pub(crate) data_dir: PathBuf,
    /// From spawn to the first successful `GET /health`.
    pub(crate) start_to_healthy: Duration,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

impl Server {
    /// Start `studio-server` on `data_dir` (SQLite and local blobs unless `env` says otherwise)
    /// and wait until it answers `/health`. `env` adds or overrides STUDIO_* settings.
    pub(crate) async fn start(opts: &Options, data_dir: &Path, env: &[(&str, String)]) -> anyhow::Result<Server> {
        let port = free_port();
        let mut cmd = Command::new(&opts.server_bin);
        cmd.env("STUDIO_LISTEN", format!("127.0.0.1:{port}"))
            .env("STUDIO_DATA_DIR", data_dir)
            .env("STUDIO_SIGNUP_GRANT_TOKENS", "100000000")
            .env("RUST_LOG", "warn")
            .env_remove("STUDIO_DATABASE_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let http = reqwest::Client::builder().timeout(Duration::from_millis(500)).build()?;
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let child = cmd.spawn().map_err(|e| anyhow::anyhow!("start {}: {e}", opts.server_bin.display()))?;
        let mut server = Server { child, base, data_dir: data_dir.to_path_buf(), start_to_healthy: Duration::ZERO };
        let deadline = started + Duration::from_secs(60);
        loop {
            if let Ok(r) = http.get(format!("{}/health", server.base)).send().await
                && r.status().is_success()
            {
                server.start_to_healthy = started.elapsed();
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                anyhow::bail!("studio-server exited during start-up: {status}");
            }
            if Instant::now() > deadline {
                anyhow::bail!("studio-server did not become healthy within 60 s");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory now, in KiB.
    pub(crate) fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    /// A client with no credential.
    pub(crate) fn client(&self) -> Client {
        Client::builder(&self.base).build().expect("client")
    }

    /// Sign up a new house (granted STUDIO_SIGNUP_GRANT_TOKENS) and mint a member key:
    /// (a client carrying the key, the key's secret).
    pub(crate) async fn house(&self, tag: &str) -> anyhow::Result<(Client, String)> {
        let email = format!("bench-{tag}-{}@example.com", uuid::Uuid::new_v4().simple());
        let house = House::sign_up(&self.client(), &email, "a long enough bench password", None, tag).await?;
        Ok((house.key, house.secret))
    }
}

/// `VmRSS` of process `pid` in KiB (0 when it cannot be read).
pub(crate) fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Samples a process's RSS every 5 ms on a thread until stopped; reports the peak.
pub(crate) struct RssSampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<u64>,
    /// RSS when sampling began, in KiB.
    pub(crate) before_kib: u64,
}

impl RssSampler {
    /// Start sampling `pid`.
    pub(crate) fn start(pid: u32) -> RssSampler {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let before_kib = rss_kib(pid);
        let handle = std::thread::spawn(move || {
            let mut peak = rss_kib(pid);
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_kib(pid));
                std::thread::sleep(Duration::from_millis(5));
            }
            peak.max(rss_kib(pid))
        });
        RssSampler { stop, handle, before_kib }
    }

    /// Stop and return (peak KiB, growth over the start KiB).
    pub(crate) fn finish(self) -> (u64, u64) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let peak = self.handle.join().unwrap_or(0);
        (peak, peak.saturating_sub(self.before_kib))
    }
}

/// Requests per second of `total` calls of `call`, `concurrency` at a time, with latencies.
pub(crate) async fn drive<F, Fut>(total: usize, concurrency: usize, call: F) -> anyhow::Result<Throughput>
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let next = next.clone();
        let call = call.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= total {
                    return Ok::<_, anyhow::Error>(lat);
                }
                let t = Instant::now();
                call(i).await?;
                lat.push(t.elapsed());
            }
        }));
    }
    let mut latencies = Vec::with_capacity(total);
    for t in tasks {
        latencies.extend(t.await??);
    }
    let wall = started.elapsed();
    latencies.sort();
    Ok(Throughput {
        per_sec: total as f64 / wall.as_secs_f64(),
        p50: percentile(&latencies, 0.50),
        p99: percentile(&latencies, 0.99),
    })
}

/// What [`drive`] measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Throughput {
    /// Completed calls per second of wall time.
    pub(crate) per_sec: f64,
    /// Median latency.
    pub(crate) p50: Duration,
    /// 99th-percentile latency.
    pub(crate) p99: Duration,
}

/// The `q` quantile of sorted durations (zero when empty).
pub(crate) fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// `a / b` formatted as a ratio.
pub(crate) fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 { format!("{:.2}×", a / b) } else { "n/a".into() }
}

/// Milliseconds with one decimal.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// KiB as MiB with one decimal.
pub(crate) fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// KiB as MB (10⁶ bytes) with one decimal, for the targets the issue states in MB.
pub(crate) fn mb(kib: u64) -> String {
    format!("{:.1} MB", kib as f64 * 1024.0 / 1e6)
}

/// Seconds with three decimals.
pub(crate) fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// The median of some durations (zero when empty).
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Wall time of one run of `cmd`; an error when it cannot start or fails.
pub(crate) fn time_command(cmd: &mut Command) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output()?;
    let took = started.elapsed();
    anyhow::ensure!(
        out.status.success(),
        "{:?} failed: {}",
        cmd.get_program(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(took)
}

/// Whether `program` runs (`program arg` exits 0).
pub(crate) fn have(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// The measurement with the median rate of several rounds (`rounds` must not be empty).
pub(crate) fn median_rate(mut rounds: Vec<Throughput>) -> Throughput {
    rounds.sort_by(|a, b| a.per_sec.total_cmp(&b.per_sec));
    rounds[rounds.len() / 2]
}
