//! Row 4: eight concurrent 12 MB uploads (`POST /api/toolkit/assets/upload`, each streamed from
//! disk by `upload_file`) to a freshly started server: the throughput, and the growth of the
//! server's RSS (sampled from outside every 5 ms over every round, against its level just
//! before the first). The baseline for the throughput is eight concurrent `cp` of the same files
//! into a directory on the same file system (the server's blob store writes there too), median
//! of the same number of rounds, alternating with the uploads.

use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::future::try_join_all;
use studio_client::UploadOptions;

use crate::common::{Options, Row, RssSampler, Server, mb, median, secs};

/// Uploads at once.
const CONCURRENT: usize = 8;
/// Target: the server's RSS grows by less than 24 MB (in KiB).
const RSS_TARGET_KIB: u64 = 24_000_000 / 1024;

/// Measure row 4.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let len = opts.size(12_000_000, 1_000_000);
    let rounds = opts.size(3, 1);
    let files = opts.work.join("upload-files");
    let copies = opts.work.join("upload-copies");
    std::fs::create_dir_all(&files)?;
    let paths: Vec<_> = (0..CONCURRENT).map(|i| files.join(format!("frame-{i}.png"))).collect();
    for (i, path) in paths.iter().enumerate() {
        std::fs::write(path, studio_tests::images::padded_png(i, len))?;
    }
    let data = opts.work.join("uploads");
    let server = Server::start(opts, &data, &[]).await?;
    let (client, _) = server.house("uploads").await?;
    client.balance().await?;

    let options = UploadOptions::default();
    let sampler = RssSampler::start(server.pid());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let uploads = paths.iter().map(|path| client.upload_file(path, &options));
        for up in try_join_all(uploads).await? {
            anyhow::ensure!(up.asset.bytes == len as i64, "stored {} bytes of {len}", up.asset.bytes);
        }
        ours.push(started.elapsed());
        theirs.push(copy_all(&paths, &copies)?);
    }
    let (peak, growth) = sampler.finish();
    drop(server);
    std::fs::remove_dir_all(&files)?;
    std::fs::remove_dir_all(&data)?;

    let (ours, theirs) = (median(ours), median(theirs));
    let megabytes = (CONCURRENT * len) as f64 / 1e6;
    let rate = |d: Duration| format!("{:.0} MB/s ({} for {megabytes:.0} MB)", megabytes / d.as_secs_f64(), secs(d));
    let what = format!("{CONCURRENT} concurrent uploads of {:.0} MB", len as f64 / 1e6);
    Ok(vec![
        Row::info(
            format!("4. {what}: throughput (median of {rounds})"),
            rate(ours),
            format!("{} ({CONCURRENT} concurrent cp, same file system)", rate(theirs)),
            format!("{:.2}× of cp / no target", theirs.as_secs_f64() / ours.as_secs_f64()),
        ),
        Row::new(
            format!("4. {what}: peak RSS growth ({rounds} rounds)"),
            mb(growth),
            format!("— (process peak {})", mb(peak)),
            format!("< {}", mb(RSS_TARGET_KIB)),
            growth < RSS_TARGET_KIB,
        ),
    ])
}

/// `cp` every file into `to` at once (one process each); the wall time of all of them.
fn copy_all(paths: &[std::path::PathBuf], to: &std::path::Path) -> anyhow::Result<Duration> {
    std::fs::create_dir_all(to)?;
    let started = Instant::now();
    let children = paths.iter().map(|p| Command::new("cp").arg(p).arg(to).spawn()).collect::<Result<Vec<_>, _>>()?;
    for mut child in children {
        anyhow::ensure!(child.wait()?.success(), "cp failed");
    }
    let took = started.elapsed();
    std::fs::remove_dir_all(to)?;
    Ok(took)
}
