//! Row 8: what an idle server costs. Each start is a fresh `studio-server` on an empty data
//! directory (a new SQLite file, every migration applied, local blobs): the time from spawn to
//! the first successful `GET /health`, and the resident memory one second after that.

use std::time::Duration;

use crate::common::{Options, Row, Server, mb, median, ms};

/// Target: idle RSS under 40 MB.
const RSS_TARGET_KIB: u64 = 40_000_000 / 1024;
/// Target: start to healthy under 500 ms.
const START_TARGET: Duration = Duration::from_millis(500);

/// Measure row 8.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let starts = opts.size(7, 2);
    let (mut times, mut rss) = (Vec::new(), Vec::new());
    for i in 0..starts {
        let data = opts.work.join(format!("idle-{i}"));
        let server = Server::start(opts, &data, &[]).await?;
        times.push(server.start_to_healthy);
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss.push(server.rss_kib());
        drop(server);
        std::fs::remove_dir_all(&data)?;
    }
    let start = median(times.clone());
    rss.sort();
    let idle = rss[rss.len() / 2];
    let range = |lo: String, hi: String| format!("— (median of {starts} starts; range {lo} – {hi})");
    Ok(vec![
        Row::new(
            "8. idle RSS, 1 s after healthy, empty data directory",
            mb(idle),
            range(mb(rss[0]), mb(rss[rss.len() - 1])),
            format!("< {}", mb(RSS_TARGET_KIB)),
            idle < RSS_TARGET_KIB,
        ),
        Row::new(
            "8. start → healthy, empty data directory",
            ms(start),
            range(ms(*times.iter().min().unwrap_or(&start)), ms(*times.iter().max().unwrap_or(&start))),
            format!("< {}", ms(START_TARGET)),
            start < START_TARGET,
        ),
    ])
}
