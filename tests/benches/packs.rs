//! Pack benchmark (a report, not a timed test): builds packs through the real server and compares
//! them with `zip -0` (or Python's `zipfile` with ZIP_STORED when `zip` is missing) measured in
//! the same run, and samples the resident memory of the process that builds each pack.
//!
//! `cargo bench -p studio-tests --bench packs`; prints a markdown table and always exits 0 (a
//! target missed is reported as MISS, not as a failure). Each measurement runs in a fresh child
//! process (this executable again, booting the server on the prepared data directory), so the
//! memory figures are not hidden by a heap that the uploads already grew.
//!
//! Quick runs: `STUDIO_BENCH_FRAMES` (instant pack, default 249), `STUDIO_BENCH_MIB` (MiB per
//! frame, default 1), `STUDIO_BENCH_QUEUED_FRAMES` (queued pack, default 700; 0 skips it) and
//! `STUDIO_BENCH_RUNS` (runs of the instant pack and of the baseline, default 3).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use studio_client::api::PackRequest;
use studio_client::{Client, UploadOptions};
use studio_core::HouseEvent;
use studio_tests::{Backend, TestApp, spawn, unique_email};
use tokio::sync::broadcast::Receiver;

const MIB: u64 = 1024 * 1024;
/// Target: the instant pack takes at most this many times the baseline.
const TIME_TARGET: f64 = 1.2;
/// Target: resident memory grows by less than this while a pack is built.
const RSS_TARGET: u64 = 64 * MIB;

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        _ => default,
    }
}

/// Write `count` frames of `len` bytes into `dir` (one at a time; nothing kept in memory).
fn write_frames(dir: &Path, first: usize, count: usize, len: usize) -> Vec<String> {
    (first..first + count)
        .map(|i| {
            let name = format!("frame-{i:04}.png");
            std::fs::write(dir.join(&name), studio_tests::padded_png(i, len)).expect("write frame");
            name
        })
        .collect()
}

/// Resident set size of this process, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Samples VmRSS every 5 ms on its own thread until finished.
struct RssProbe {
    base: u64,
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl RssProbe {
    fn start() -> Self {
        let base = rss();
        let peak = Arc::new(AtomicU64::new(base));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (peak, stop) = (peak.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(rss(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        RssProbe { base, peak, stop, thread }
    }

    /// (peak − baseline, peak), in bytes.
    fn finish(self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("rss sampler");
        let peak = self.peak.load(Ordering::Relaxed).max(rss());
        (peak.saturating_sub(self.base), peak)
    }
}

/// The baseline archiver: `zip -0`, or Python's zipfile (ZIP_STORED) when `zip` is missing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Baseline {
    Zip,
    Python,
}

impl Baseline {
    fn detect() -> Self {
        match Command::new("zip").arg("-v").output() {
            Ok(out) if out.status.success() => Baseline::Zip,
            _ => {
                println!("note: `zip` is not on PATH; falling back to Python zipfile (ZIP_STORED) as the baseline");
                Baseline::Python
            }
        }
    }

    fn label(self) -> &'static str {
        match self {
            Baseline::Zip => "zip -0",
            Baseline::Python => "python zipfile STORED",
        }
    }

    /// Archive `names` (relative to `dir`) into `dir/out`; the wall time.
    fn run(self, dir: &Path, names: &[String], out: &str) -> Duration {
        let _ = std::fs::remove_file(dir.join(out));
        let mut cmd = match self {
            Baseline::Zip => {
                let mut c = Command::new("zip");
                c.arg("-0").arg("-q").arg(out);
                c
            }
            Baseline::Python => {
                let mut c = Command::new("python3");
                c.arg("-c")
                    .arg(
                        "import sys, zipfile\n\
                         with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED, allowZip64=True) as z:\n    \
                         for f in sys.argv[2:]:\n        z.write(f)\n",
                    )
                    .arg(out);
                c
            }
        };
        cmd.args(names).current_dir(dir);
        let started = Instant::now();
        let status = cmd.status().expect("baseline archiver runs");
        let took = started.elapsed();
        assert!(status.success(), "{} failed", self.label());
        let _ = std::fs::remove_file(dir.join(out));
        took
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB as f64)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "MISS" }
}

/// The knobs, read from the environment (children inherit them).
#[derive(Clone, Copy)]
struct Settings {
    frames: usize,
    frame_mib: u64,
    queued_frames: usize,
    runs: usize,
}

impl Settings {
    fn from_env() -> Self {
        Settings {
            frames: env_num("STUDIO_BENCH_FRAMES", 249) as usize,
            frame_mib: env_num("STUDIO_BENCH_MIB", 1).max(1),
            queued_frames: env_num("STUDIO_BENCH_QUEUED_FRAMES", 700) as usize,
            runs: env_num("STUDIO_BENCH_RUNS", 3).max(1) as usize,
        }
    }

    fn len(&self) -> usize {
        (self.frame_mib * MIB) as usize
    }
}

/// Which part of the bench a process plays: the parent orchestrates; children boot a server on
/// a shared data directory, so each measurement starts from a freshly booted process whose heap
/// the uploads have not already grown.
const ROLE: &str = "STUDIO_BENCH_ROLE";
const DATA: &str = "STUDIO_BENCH_DATA";
const FILES: &str = "STUDIO_BENCH_FILES";
const FIRST: &str = "STUDIO_BENCH_FIRST";
const STATE: &str = "bench-state.txt";

fn frame_name(i: usize) -> String {
    format!("frame-{i:04}.png")
}

/// Boot the real server on `data` with limits under which `frames` frames pack instantly or,
/// with `queued`, go to the worker.
async fn boot(data: PathBuf, frames: usize, total: u64, queued: bool) -> TestApp {
    spawn(Backend::Sqlite, move |c| {
        c.data_dir = data;
        c.packs.max_frames = c.packs.max_frames.max(frames);
        c.packs.max_bytes = c.packs.max_bytes.max(total);
        let instant = frames < c.packs.instant_frames && total < c.packs.instant_bytes;
        if queued && instant {
            c.packs.instant_frames = 1;
        }
        if !queued && !instant {
            c.packs.instant_frames = frames + 1;
            c.packs.instant_bytes = total + 1;
        }
    })
    .await
    .expect("app")
}

fn key_client(app: &TestApp, key: &str) -> Client {
    Client::builder(&app.base).api_key(key).timeout(Duration::from_secs(3600)).build().expect("client")
}

/// Child: sign a house up, upload its frames (streamed from disk) and note the key, the house and
/// the asset ids in the data directory.
async fn prepare(settings: Settings, queued: bool) {
    let data = PathBuf::from(std::env::var(DATA).expect(DATA));
    let files = PathBuf::from(std::env::var(FILES).expect(FILES));
    let first = env_num(FIRST, 0) as usize;
    let frames = if queued { settings.queued_frames } else { settings.frames };
    let len = settings.len();
    let app = boot(data.clone(), frames, frames as u64 * len as u64, queued).await;
    let signed = app.client.sign_up(&unique_email("bench"), "a long enough password", None).await.expect("sign up");
    let key =
        app.client.with_session(&signed.session).mint_key("bench", None).await.expect("mint").key.expect("secret");
    let client = key_client(&app, &key);
    let org = client.session().await.expect("session").organization.id;
    let started = Instant::now();
    let mut state = vec![key, org];
    for i in first..first + frames {
        let name = frame_name(i);
        let opts = UploadOptions { name: Some(name.trim_end_matches(".png").to_string()), ..UploadOptions::default() };
        let up = client.upload_file(&files.join(&name), &opts).await.unwrap_or_else(|e| panic!("upload {name}: {e}"));
        assert_eq!((up.asset.mime.as_str(), up.asset.bytes), ("image/png", len as i64), "{name} stored whole");
        state.push(up.asset.id);
    }
    println!("uploaded {frames} frames in {}", secs(started.elapsed()));
    std::fs::write(data.join(STATE), state.join("\n")).expect("write state");
}

/// What one pack needs.
struct Ctx {
    client: Client,
    req: PackRequest,
    org: String,
    app: TestApp,
    queued: bool,
    frames: usize,
}

/// One pack, request to ready (the time returned); then its archive is checked by Python's zipfile
/// (another process: outside this one's RSS) and removed.
async fn pack_once(ctx: &Ctx, events: &mut Receiver<HouseEvent>) -> Duration {
    let started = Instant::now();
    let pack = ctx.client.create_pack(&ctx.req).await.expect("pack");
    if ctx.queued {
        assert_eq!(pack.mode, "pack", "queued, not instant");
        loop {
            let e = events.recv().await.expect("event bus open");
            if e.message["type"] == "pack.ready" && e.message["pack"]["packId"] == pack.pack_id.as_str() {
                break;
            }
        }
    }
    let took = started.elapsed();
    let pack = ctx.client.get_pack(&pack.pack_id).await.expect("pack");
    assert_eq!(pack.status, "ready", "built: {:?}", pack.error);
    let mode = if ctx.queued { "pack" } else { "instant" };
    assert_eq!((pack.mode.as_str(), pack.items), (mode, ctx.frames as i64));
    let archive = ctx.app.data_dir.join("blobs").join(format!("orgs/{}/packs/{}.zip", ctx.org, pack.pack_id));
    check_archive(&archive, ctx.frames);
    std::fs::remove_file(&archive).expect("remove the archive");
    took
}

/// Child: boot on the prepared data directory. First one pack from the freshly booted process,
/// sampling its RSS (`RSS <growth> <peak> <seconds>`); then, for the instant pack, `runs` timed
/// packs of the now warm server, each followed by one baseline run (`RUN <studio> <baseline>`).
async fn measure(settings: Settings, queued: bool) {
    let data = PathBuf::from(std::env::var(DATA).expect(DATA));
    let files = PathBuf::from(std::env::var(FILES).expect(FILES));
    let first = env_num(FIRST, 0) as usize;
    let state = std::fs::read_to_string(data.join(STATE)).expect("prepared state");
    let mut lines = state.lines().map(str::to_string);
    let (key, org) = (lines.next().expect("key"), lines.next().expect("org"));
    let ids: Vec<String> = lines.collect();
    let frames = ids.len();
    let names: Vec<String> = (first..first + frames).map(frame_name).collect();
    let app = boot(data, frames, frames as u64 * settings.len() as u64, queued).await;
    let client = key_client(&app, &key);
    client.balance().await.expect("warm-up request");
    let mut events = app.studio.events().subscribe();
    let ctx = Ctx { client, req: PackRequest { asset_ids: ids, ..PackRequest::default() }, org, app, queued, frames };

    let probe = RssProbe::start();
    let (growth, peak, took) = {
        let took = pack_once(&ctx, &mut events).await;
        let (growth, peak) = probe.finish();
        (growth, peak, took)
    };
    println!("RSS {growth} {peak} {}", took.as_secs_f64());
    let baseline = Baseline::detect();
    let runs = if queued { 1 } else { settings.runs };
    for _ in 0..runs {
        let studio = if queued { took } else { pack_once(&ctx, &mut events).await };
        let base = baseline.run(&files, &names, "baseline.zip");
        println!("RUN {} {}", studio.as_secs_f64(), base.as_secs_f64());
    }
}

/// Python's zipfile: every entry's CRC checked, all Stored, `count` entries.
fn check_archive(path: &Path, count: usize) {
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n\
                  assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())\nprint(len(z.infolist()))\n";
    let out = Command::new("python3").arg("-c").arg(script).arg(path).output().expect("python3 runs");
    assert!(out.status.success(), "zipfile refused {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), count.to_string(), "entries in {}", path.display());
}

/// What a measuring child reported.
#[derive(Default)]
struct Measured {
    /// RSS growth and peak (bytes) and wall time of the first pack of a freshly booted process.
    growth: u64,
    peak: u64,
    cold: Duration,
    /// (studio, baseline) per run.
    runs: Vec<(Duration, Duration)>,
}

/// Parent: run this executable in `role` with `env`, echoing its other output.
fn child(role: &str, env: &[(&str, String)]) -> Measured {
    let exe = std::env::current_exe().expect("current exe");
    let mut cmd = Command::new(exe);
    cmd.env(ROLE, role);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{role} child failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let mut m = Measured::default();
    let secs_of = |s: &str| Duration::from_secs_f64(s.parse().expect("seconds"));
    for line in stdout.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["RSS", growth, peak, cold] => {
                (m.growth, m.peak) = (growth.parse().expect("growth"), peak.parse().expect("peak"));
                m.cold = secs_of(cold);
            }
            ["RUN", studio, base] => m.runs.push((secs_of(studio), secs_of(base))),
            _ => println!("  [{role}] {line}"),
        }
    }
    m
}

struct Row {
    scenario: String,
    studio: String,
    baseline: String,
    ratio: String,
    pass: &'static str,
}

fn main() {
    let settings = Settings::from_env();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    match std::env::var(ROLE).ok().as_deref() {
        Some("prepare-instant") => rt.block_on(prepare(settings, false)),
        Some("prepare-queued") => rt.block_on(prepare(settings, true)),
        Some("instant") => rt.block_on(measure(settings, false)),
        Some("queued") => rt.block_on(measure(settings, true)),
        Some(other) => panic!("{ROLE}={other:?} is not a role"),
        None => {
            let rows = orchestrate(settings);
            println!();
            println!("| scenario | studio | baseline | ratio / target | pass |");
            println!("|---|---|---|---|---|");
            for r in rows {
                println!("| {} | {} | {} | {} | {} |", r.scenario, r.studio, r.baseline, r.ratio, r.pass);
            }
        }
    }
}

fn orchestrate(settings: Settings) -> Vec<Row> {
    let Settings { frames, frame_mib, queued_frames, runs } = settings;
    let len = settings.len();
    let baseline = Baseline::detect();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "packs bench: instant {frames} x {frame_mib} MiB ({runs} runs), queued {queued_frames} x {frame_mib} MiB; \
         baseline {}; {cpus} CPUs",
        baseline.label()
    );
    let work = tempfile::tempdir().expect("temp dir");
    let files = work.path().join("files");
    std::fs::create_dir_all(&files).expect("files dir");
    let mut rows = Vec::new();
    let rss_row = |scenario: String, m: &Measured| Row {
        scenario,
        studio: mib(m.growth),
        baseline: format!("— (process peak {})", mib(m.peak)),
        ratio: format!("< {}", mib(RSS_TARGET)),
        pass: verdict(m.growth < RSS_TARGET),
    };

    for (queued, count, first) in [(false, frames, 0), (true, queued_frames, 10_000)] {
        if count == 0 {
            continue;
        }
        let (kind, role) = if queued { ("queued", "queued") } else { ("instant", "instant") };
        let data = work.path().join(kind);
        let names = write_frames(&files, first, count, len);
        let env =
            vec![(DATA, data.display().to_string()), (FILES, files.display().to_string()), (FIRST, first.to_string())];
        child(&format!("prepare-{kind}"), &env);
        let m = child(role, &env);
        println!(
            "{kind}: first pack of a fresh process {} (RSS +{}, peak {})",
            secs(m.cold),
            mib(m.growth),
            mib(m.peak)
        );
        for (i, (studio, base)) in m.runs.iter().enumerate() {
            let rate = (count as u64 * frame_mib) as f64 / studio.as_secs_f64();
            println!(
                "{kind} run {}: studio {} ({rate:.0} MiB/s); {} {}",
                i + 1,
                secs(*studio),
                baseline.label(),
                secs(*base)
            );
        }
        let studio = median(m.runs.iter().map(|r| r.0).collect());
        let base = median(m.runs.iter().map(|r| r.1).collect());
        let ratio = studio.as_secs_f64() / base.as_secs_f64();
        if queued {
            rows.push(rss_row(
                format!("queued pack, {count} × {frame_mib} MiB: peak RSS growth, request → pack.ready"),
                &m,
            ));
            rows.push(Row {
                scenario: format!("queued pack, {count} × {frame_mib} MiB: request → pack.ready (information)"),
                studio: secs(studio),
                baseline: format!("{} ({}, 1 run)", secs(base), baseline.label()),
                ratio: format!("{ratio:.2}× / no target"),
                pass: "—",
            });
        } else {
            let n = m.runs.len();
            rows.push(Row {
                scenario: format!("instant pack, {count} × {frame_mib} MiB: wall time of create_pack (median of {n})"),
                studio: secs(studio),
                baseline: format!("{} ({}, median of {n})", secs(base), baseline.label()),
                ratio: format!("{ratio:.2}× / ≤ {TIME_TARGET}×"),
                pass: verdict(ratio <= TIME_TARGET),
            });
            rows.push(rss_row(
                format!("instant pack, {count} × {frame_mib} MiB: peak RSS growth (first pack after boot)"),
                &m,
            ));
            rows.push(Row {
                scenario: format!("instant pack, {count} × {frame_mib} MiB: first pack after boot (information)"),
                studio: secs(m.cold),
                baseline: format!("{} ({}, median)", secs(base), baseline.label()),
                ratio: format!("{:.2}× / no target", m.cold.as_secs_f64() / base.as_secs_f64()),
                pass: "—",
            });
        }
        for name in &names {
            let _ = std::fs::remove_file(files.join(name));
        }
        let _ = std::fs::remove_dir_all(&data);
    }
    rows
}
