//! Row 3: packs. A house's frames are uploaded over HTTP (`upload_file`, streamed from disk) to a
//! spawned server, which is then stopped; each measurement boots a fresh server on that data
//! directory, so its memory figure is not hidden by a heap the uploads already grew.
//!
//! Instant pack (built inside the request): the server's RSS is sampled from outside
//! (`/proc/<pid>/status`, every 5 ms) during the first pack after boot; then the pack is built
//! again `runs` times on the warm server, each run followed by one run of the baseline,
//! `zip -0 -q out.zip <the same files>` from the frames' directory (Python's `zipfile` with
//! ZIP_STORED when `zip` is missing, labelled as such). Queued pack (built by the worker): RSS
//! sampled from the request until `GET /api/toolkit/packs/{id}` says ready. Every archive is
//! checked with Python's `zipfile` (`testzip()`, all entries Stored, the entry count) and removed.
//!
//! Frames are real 8 × 8 PNGs padded with their own pseudo-random bytes to their size. The
//! server's pack limits are its defaults, which fit the full sizes (249 × 1 MiB is under 250
//! frames and 256 MiB, so instant; 700 × 1 MiB is over 256 MiB and at the 700-frame maximum, so
//! queued); they are not configurable from the environment, so the smoke run queues its pack
//! with 250 small frames.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use studio_client::api::PackRequest;
use studio_client::{Client, UploadOptions};

use crate::common::{Options, Row, RssSampler, Server, have, median, mib, secs, time_command};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
/// Target: the instant pack takes at most this many times the baseline.
const TIME_TARGET: f64 = 1.2;
/// Target: the server's RSS grows by less than this (KiB) while a pack is built.
const RSS_TARGET_KIB: u64 = 64 * 1024;

/// Measure row 3.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let archiver = Archiver::detect();
    let mut rows = Vec::new();

    let (count, len) = (opts.size(249, 12), opts.size(MIB, 64 * KIB));
    let runs = opts.size(3, 1);
    let set = Frames::prepare(opts, "instant", count, len).await?;
    let server = Server::start(opts, &set.data, &[]).await?;
    let client = set.client(&server)?;
    client.balance().await?;
    let sampler = RssSampler::start(server.pid());
    let cold = set.pack(&server, &client, false).await?;
    let (peak, growth) = sampler.finish();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ours.push(set.pack(&server, &client, false).await?);
        theirs.push(archiver.run(&set.dir, &set.names)?);
    }
    drop(server);
    let (ours, theirs) = (median(ours), median(theirs));
    let what = format!("{count} × {}", size(len));
    let r = ours.as_secs_f64() / theirs.as_secs_f64();
    rows.push(Row::new(
        format!("3. instant pack, {what}: wall time of create_pack (median of {runs})"),
        secs(ours),
        format!("{} ({}, median of {runs})", secs(theirs), archiver.label()),
        format!("{r:.2}× / ≤ {TIME_TARGET}×"),
        r <= TIME_TARGET,
    ));
    rows.push(rss_row(format!("3. instant pack, {what}: peak RSS growth (first pack after boot)"), growth, peak));
    rows.push(Row::info(
        format!("3. instant pack, {what}: first pack after boot (information)"),
        secs(cold),
        format!("{} ({}, median)", secs(theirs), archiver.label()),
        format!("{:.2}× / no target", cold.as_secs_f64() / theirs.as_secs_f64()),
    ));
    set.remove()?;

    let (count, len) = (opts.size(700, 250), opts.size(MIB, 4 * KIB));
    let set = Frames::prepare(opts, "queued", count, len).await?;
    let server = Server::start(opts, &set.data, &[]).await?;
    let client = set.client(&server)?;
    client.balance().await?;
    let sampler = RssSampler::start(server.pid());
    let took = set.pack(&server, &client, true).await?;
    let (peak, growth) = sampler.finish();
    drop(server);
    let theirs = archiver.run(&set.dir, &set.names)?;
    let what = format!("{count} × {}", size(len));
    rows.push(rss_row(format!("3. queued pack, {what}: peak RSS growth, request → ready"), growth, peak));
    rows.push(Row::info(
        format!("3. queued pack, {what}: request → ready (information)"),
        secs(took),
        format!("{} ({}, 1 run)", secs(theirs), archiver.label()),
        format!("{:.2}× / no target", took.as_secs_f64() / theirs.as_secs_f64()),
    ));
    set.remove()?;
    Ok(rows)
}

fn size(len: usize) -> String {
    if len >= MIB { format!("{} MiB", len / MIB) } else { format!("{} KiB", len / KIB) }
}

fn rss_row(scenario: String, growth: u64, peak: u64) -> Row {
    Row::new(
        scenario,
        mib(growth),
        format!("— (process peak {})", mib(peak)),
        format!("< {}", mib(RSS_TARGET_KIB)),
        growth < RSS_TARGET_KIB,
    )
}

/// A house's frames: on disk in `dir`, uploaded into the data directory `data`.
struct Frames {
    dir: PathBuf,
    data: PathBuf,
    names: Vec<String>,
    key: String,
    org: String,
    ids: Vec<String>,
}

impl Frames {
    /// Write `count` frames of `len` bytes, upload them (four at a time) to a server on a new
    /// data directory, and stop that server.
    async fn prepare(opts: &Options, tag: &str, count: usize, len: usize) -> anyhow::Result<Frames> {
        let dir = opts.work.join(format!("pack-{tag}-frames"));
        let data = opts.work.join(format!("pack-{tag}"));
        std::fs::create_dir_all(&dir)?;
        let names: Vec<String> = (0..count).map(|i| format!("frame-{i:04}.png")).collect();
        for (i, name) in names.iter().enumerate() {
            std::fs::write(dir.join(name), studio_tests::images::padded_png(i, len))?;
        }
        let server = Server::start(opts, &data, &[]).await?;
        let (client, key) = server.house(&format!("pack-{tag}")).await?;
        let org = client.session().await?.organization.id;
        let started = Instant::now();
        let ids: Vec<String> = futures_util::stream::iter(names.iter())
            .map(|name| {
                let (client, path) = (client.clone(), dir.join(name));
                async move {
                    let up = client.upload_file(&path, &UploadOptions::default()).await?;
                    anyhow::ensure!(
                        up.asset.bytes == len as i64,
                        "{} stored with {} bytes",
                        path.display(),
                        up.asset.bytes
                    );
                    Ok(up.asset.id)
                }
            })
            .buffered(4)
            .try_collect()
            .await?;
        eprintln!("  uploaded {count} frames of {} in {}", size(len), secs(started.elapsed()));
        Ok(Frames { dir, data, names, key, org, ids })
    }

    /// The house's key on `server`, with no request timeout short of a pack's.
    fn client(&self, server: &Server) -> anyhow::Result<Client> {
        Ok(Client::builder(&server.base).api_key(&self.key).timeout(Duration::from_secs(3600)).build()?)
    }

    /// One pack of every frame, request to ready; its archive is then checked and removed.
    async fn pack(&self, server: &Server, client: &Client, queued: bool) -> anyhow::Result<Duration> {
        let req = PackRequest { asset_ids: self.ids.clone(), ..PackRequest::default() };
        let started = Instant::now();
        let mut pack = client.create_pack(&req).await?;
        anyhow::ensure!(pack.mode == if queued { "pack" } else { "instant" }, "pack mode {}", pack.mode);
        while pack.status == "queued" || pack.status == "building" {
            tokio::time::sleep(Duration::from_millis(10)).await;
            pack = client.get_pack(&pack.pack_id).await?;
        }
        let took = started.elapsed();
        anyhow::ensure!(pack.status == "ready", "pack {}: {:?}", pack.status, pack.error);
        anyhow::ensure!(pack.items == self.ids.len() as i64, "{} items packed of {}", pack.items, self.ids.len());
        let archive = server.data_dir.join("blobs").join(format!("orgs/{}/packs/{}.zip", self.org, pack.pack_id));
        check_archive(&archive, self.ids.len())?;
        std::fs::remove_file(&archive)?;
        Ok(took)
    }

    fn remove(self) -> anyhow::Result<()> {
        std::fs::remove_dir_all(&self.dir)?;
        std::fs::remove_dir_all(&self.data)?;
        Ok(())
    }
}

/// Python's zipfile: every entry's CRC checked, all Stored, `count` entries.
fn check_archive(path: &Path, count: usize) -> anyhow::Result<()> {
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n\
                  assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())\nprint(len(z.infolist()))\n";
    let out = Command::new("python3").arg("-c").arg(script).arg(path).output()?;
    anyhow::ensure!(
        out.status.success(),
        "zipfile refused {}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let entries = String::from_utf8_lossy(&out.stdout).trim().to_string();
    anyhow::ensure!(entries == count.to_string(), "{} has {entries} entries, not {count}", path.display());
    Ok(())
}

/// The baseline archiver: `zip -0`, or Python's zipfile (ZIP_STORED) when `zip` is missing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Archiver {
    Zip,
    Python,
}

impl Archiver {
    fn detect() -> Archiver {
        if have("zip", "-v") { Archiver::Zip } else { Archiver::Python }
    }

    fn label(self) -> &'static str {
        match self {
            Archiver::Zip => "zip -0",
            Archiver::Python => "python zipfile STORED: zip not installed",
        }
    }

    /// Archive `names` (in `dir`) into `dir/baseline.zip`, check it, remove it; the wall time.
    fn run(self, dir: &Path, names: &[String]) -> anyhow::Result<Duration> {
        let out = "baseline.zip";
        let mut cmd = match self {
            Archiver::Zip => {
                let mut c = Command::new("zip");
                c.args(["-0", "-q", out]);
                c
            }
            Archiver::Python => {
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
        let took = time_command(&mut cmd)?;
        check_archive(&dir.join(out), names.len())?;
        std::fs::remove_file(dir.join(out))?;
        Ok(took)
    }
}
