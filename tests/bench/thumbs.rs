//! Thumbnails (the console's grids): 100 reads of `GET /api/toolkit/assets/{id}/file?w=256`
//! served from the kept renditions, beside 100 reads of the same assets' originals on the same
//! server in the same run (camera-sized JPEGs). The target: reading a grid of thumbnails from
//! cache is at least as fast as reading the originals, with far fewer bytes. An information row
//! gives what the first read of each rendition costs (it is made then, once).

use std::sync::Arc;
use std::time::Instant;

use studio_client::UploadOptions;

use crate::common::{Options, Row, Server, drive, ms, ratio};

/// Reads in each measured pass.
const READS: usize = 100;
/// Reads in flight at once (a browser's connections to one origin).
const CONCURRENCY: usize = 6;

/// A camera-sized JPEG with sensor-like noise, so it weighs what a photograph weighs.
fn photo(w: u32, h: u32, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let n = (s % 48) as u32;
        image::Rgb([((x * 255 / w + n) % 256) as u8, ((y * 255 / h + n) % 256) as u8, (120 + n) as u8])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90).encode_image(&img).expect("encode");
    out
}

/// Measure the thumbnail row.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let data = opts.work.join("thumbs");
    let server = Server::start(opts, &data, &[]).await?;
    let (client, _) = server.house("thumbs").await?;
    let assets = opts.size(20, 3);
    let (w, h) = opts.size((2400, 1600), (600, 400));
    let mut ids = Vec::new();
    let mut original_bytes = 0;
    for i in 0..assets {
        let bytes = photo(w, h, i as u64 + 1);
        original_bytes += bytes.len();
        ids.push(client.upload_bytes(&format!("shot-{i:03}.jpg"), bytes, &UploadOptions::default()).await?.asset.id);
    }
    let ids = Arc::new(ids);

    // First reads make the renditions: what that costs, once per asset.
    let started = Instant::now();
    let mut thumb_bytes = 0;
    for id in ids.iter() {
        thumb_bytes += client.asset_thumbnail(id, 256).await?.len();
    }
    let first = started.elapsed() / assets as u32;

    let reads = opts.size(READS, 12);
    let pass = |thumb: bool| {
        let (client, ids) = (client.clone(), ids.clone());
        drive(reads, CONCURRENCY, move |i| {
            let (client, ids) = (client.clone(), ids.clone());
            async move {
                let id = &ids[i % ids.len()];
                let body = if thumb { client.asset_thumbnail(id, 256).await? } else { client.asset_bytes(id).await? };
                anyhow::ensure!(!body.is_empty(), "an empty answer");
                Ok(())
            }
        })
    };
    let originals = pass(false).await?;
    let thumbs = pass(true).await?;
    drop(server);
    std::fs::remove_dir_all(&data)?;
    let (avg_original, avg_thumb) = (original_bytes / assets, thumb_bytes / assets);
    Ok(vec![
        Row::new(
            format!(
                "T. {reads} thumbnail reads (w=256, kept renditions) vs {reads} original reads, {CONCURRENCY} at a time"
            ),
            format!(
                "{:.0} reads/s (p50 {}, p99 {}; {} KB each)",
                thumbs.per_sec,
                ms(thumbs.p50),
                ms(thumbs.p99),
                avg_thumb / 1024
            ),
            format!(
                "{:.0} reads/s (p50 {}, p99 {}; {w}×{h} JPEG originals, {} KB each)",
                originals.per_sec,
                ms(originals.p50),
                ms(originals.p99),
                avg_original / 1024
            ),
            format!("{} / ≥ 1×", ratio(thumbs.per_sec, originals.per_sec)),
            thumbs.per_sec >= originals.per_sec,
        ),
        Row::info(
            "T. the first read of a rendition (made then, once, and kept)",
            format!("{} per asset", ms(first)),
            format!("{} per cached read", ms(thumbs.p50)),
            format!("{:.2} % of an original's bytes", 100.0 * avg_thumb as f64 / avg_original.max(1) as f64),
        ),
    ])
}
