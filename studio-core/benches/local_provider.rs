//! Benchmark of the local provider (a report, not a timed test): upscale 1024 → 4096 through the
//! provider's own path against `vips resize … --kernel lanczos3` on the same image, then every
//! other local tool at 2k. Prints a Markdown table and exits 0.
//!
//! `cargo bench -p studio-core --bench local_provider`. Environment: `STUDIO_BENCH_RUNS`
//! (timed runs per row, default 5), `STUDIO_BENCH_TIER` (`1k`, `2k` or `4k`: the tier of the
//! every-tool table, default `2k`), `STUDIO_BENCH_SAVE` (a directory to write each tool's output
//! to, for looking at).

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bytes::Bytes;
use image::{Rgb, RgbImage};
use studio_core::api::Quality;
use studio_core::{DevelopInput, DevelopOutput, DevelopRequest, LocalProvider};

/// Deterministic noise in -1..1.
fn noise(x: u32, y: u32, seed: u32) -> f32 {
    let mut h = x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ seed.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297A_2D39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 23) as f32 - 1.0
}

fn byte(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// A photo-like frame: sky and floor gradients, shaded discs, striped cloth, fine diagonal lines
/// and sensor noise.
fn photo_like(w: u32, h: u32) -> RgbImage {
    let (fw, fh) = (w as f32, h as f32);
    RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / fw, y as f32 / fh);
        let mut c = if v < 0.6 {
            [90.0 + 120.0 * v, 140.0 + 90.0 * v, 220.0 - 40.0 * v]
        } else {
            [150.0 + 60.0 * u, 120.0 + 30.0 * u, 90.0 - 20.0 * v]
        };
        for (cx, cy, r, tint) in [(0.3, 0.35, 0.16, [200.0, 60.0, 50.0]), (0.72, 0.55, 0.2, [40.0, 150.0, 90.0])] {
            let d = ((u - cx).powi(2) + (v - cy).powi(2)).sqrt() / r;
            if d < 1.0 {
                let shade = 1.0 - 0.5 * d * d;
                c = tint.map(|t| t * shade + 20.0);
            }
        }
        if (0.08..0.45).contains(&u) && (0.65..0.95).contains(&v) {
            let stripe = if ((u * 60.0).floor() as i32) % 2 == 0 { 40.0 } else { -40.0 };
            c = [120.0 + stripe, 110.0 + stripe * 0.5, 160.0];
        }
        if (0.55..0.95).contains(&u) && (0.08..0.3).contains(&v) && ((x + y) / 3) % 4 == 0 {
            c = [30.0, 30.0, 40.0];
        }
        let n = 6.0 * noise(x, y, 1);
        Rgb(c.map(|v| byte(v + n)))
    })
}

/// A product shot: a light sweep with a textured, folded dress in the middle.
fn product_shot(w: u32, h: u32) -> RgbImage {
    let (fw, fh) = (w as f32, h as f32);
    RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / fw, y as f32 / fh);
        let n = 2.5 * noise(x, y, 2);
        // Dress: a bodice (0.4..0.6 wide) widening into a skirt down to 0.88.
        let half = if v < 0.45 { 0.1 } else { 0.1 + (v - 0.45) * 0.45 };
        let inside = (0.14..0.88).contains(&v) && (u - 0.5).abs() < half;
        if inside {
            let fold = 18.0 * ((u * 70.0).sin() * (1.0 + v)).abs() + 8.0 * (v * 30.0).sin();
            Rgb([byte(150.0 + fold + n), byte(30.0 + 0.3 * fold + n), byte(60.0 + 0.2 * fold + n)])
        } else {
            let g = 238.0 - 14.0 * v - 6.0 * (u - 0.5).abs();
            Rgb([byte(g + n), byte(g + n), byte(g - 2.0 + n)])
        }
    })
}

fn png(img: &RgbImage) -> Bytes {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
    Bytes::from(out)
}

fn request(tool: &str, quality: Quality, inputs: Vec<(&str, Bytes)>, params: &[(&str, &str)]) -> DevelopRequest {
    DevelopRequest {
        job_id: format!("bench_{tool}"),
        tool: tool.to_string(),
        quality,
        inputs: inputs
            .into_iter()
            .map(|(role, bytes)| DevelopInput { role: role.to_string(), bytes, mime: "image/png".to_string() })
            .collect(),
        params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>(),
    }
}

/// Median wall time of `runs` calls (after one untimed warm-up).
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Median time of a `vips` command line, or why it could not run.
fn vips(runs: usize, args: &[&str], envs: &[(&str, &str)]) -> Result<Duration, String> {
    let run = || -> Result<(), String> {
        let out = Command::new("vips")
            .args(args)
            .envs(envs.iter().copied())
            .output()
            .map_err(|e| format!("vips could not start: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("vips failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
        }
    };
    run()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        run()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn vips_version() -> Option<String> {
    let out = Command::new("vips").arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn save(dir: &Option<PathBuf>, name: &str, out: &DevelopOutput) {
    if let Some(dir) = dir {
        std::fs::write(dir.join(format!("{name}.jpg")), &out.bytes).expect("save output");
    }
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("studio-bench-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

fn main() {
    let runs: usize = std::env::var("STUDIO_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let save_dir = std::env::var_os("STUDIO_BENCH_SAVE").map(PathBuf::from);
    if let Some(dir) = &save_dir {
        std::fs::create_dir_all(dir).expect("save dir");
    }
    let provider = LocalProvider;
    let tmp = temp_dir();

    // ---- Upscale 1024 → 4096 ------------------------------------------------------------------
    let photo = photo_like(1024, 1024);
    let photo_png = png(&photo);
    std::fs::write(tmp.join("in.png"), &photo_png).expect("write input");
    let upscale = request("upscale", Quality::K4, vec![("image", photo_png.clone())], &[]);

    let t_resize = median(runs, || {
        let out = provider.upscale_rgb(&photo, 4096).expect("resize");
        assert_eq!(out.dimensions(), (4096, 4096));
    });
    let t_decode = median(runs, || {
        image::load_from_memory(&photo_png).expect("decode");
    });
    let big = provider.upscale_rgb(&photo, 4096).expect("resize");
    // The image crate's encoder on one thread (what the provider used first) and the provider's
    // own banded encoder (the same encoder, bands on several threads, joined by restart markers).
    let t_encode_single = median(runs, || {
        let mut out = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92).encode_image(&big).expect("encode");
    });
    let t_encode = median(runs, || {
        provider.encode_jpeg(&big).expect("encode");
    });
    let mut last = None;
    let t_develop = median(runs, || {
        last = Some(provider.develop_blocking(&upscale).expect("develop"));
    });
    let develop_out = last.expect("ran");
    assert_eq!((develop_out.width, develop_out.height), (4096, 4096));
    save(&save_dir, "upscale-4k", &develop_out);

    let input = path(&tmp, "in.png");
    let vips_rows: Vec<(&str, Result<Duration, String>)> = match vips_version() {
        Some(_) => {
            let to_v = path(&tmp, "out.v");
            let to_jpg = format!("{}[Q=92]", path(&tmp, "out.jpg"));
            let to_png = path(&tmp, "out.png");
            let args = |out: &str| {
                vec![
                    "resize".to_string(),
                    input.clone(),
                    out.to_string(),
                    "4".into(),
                    "--kernel".into(),
                    "lanczos3".into(),
                ]
            };
            let call = |out: &str, envs: &[(&str, &str)]| {
                let a = args(out);
                let refs: Vec<&str> = a.iter().map(String::as_str).collect();
                vips(runs, &refs, envs)
            };
            vec![
                ("vips → .v (decode + resize, raw write), default threads", call(&to_v, &[])),
                ("vips → .v, one thread (VIPS_CONCURRENCY=1)", call(&to_v, &[("VIPS_CONCURRENCY", "1")])),
                ("vips → JPEG Q=92, default threads", call(&to_jpg, &[])),
                ("vips → PNG (`vips resize in.png out.png 4 --kernel lanczos3`)", call(&to_png, &[])),
            ]
        }
        None => Vec::new(),
    };

    println!();
    println!("## Local provider benchmark");
    println!();
    println!(
        "runs per row: {runs} (median, after one warm-up); cores: {}; vips: {}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        vips_version().unwrap_or_else(|| "not found".to_string())
    );
    println!();
    println!("### Upscale 1024 × 1024 → 4096 × 4096 (Lanczos3)");
    println!();
    println!("| measurement | studio (local) | baseline | ratio |");
    println!("|---|---|---|---|");
    let ours_decode_resize = t_decode + t_resize;
    println!("| resize only: `upscale_rgb` (fast_image_resize U8x3, one thread) | {} | — | — |", secs(t_resize));
    println!("| decode PNG 1024² (image crate) | {} | — | — |", secs(t_decode));
    println!("| encode JPEG q92 4096²: image crate, one thread (before) | {} | — | — |", secs(t_encode_single));
    println!("| encode JPEG q92 4096²: `encode_jpeg`, bands in parallel (after) | {} | — | — |", secs(t_encode));
    if vips_rows.is_empty() {
        println!("| decode + resize | {} | vips not on PATH | — |", secs(ours_decode_resize));
        println!(
            "| full develop (PNG in → JPEG q92 out) | {} | vips not on PATH (install: `apt-get install libvips-tools`) | — |",
            secs(t_develop)
        );
    } else {
        let ratio = |ours: Duration, base: &Result<Duration, String>| match base {
            Ok(b) => (secs(*b), format!("{:.2}×", ours.as_secs_f64() / b.as_secs_f64())),
            Err(e) => (e.clone(), "—".to_string()),
        };
        let pairs: [(&str, Duration, usize); 4] = [
            ("decode + resize (ours, one thread)", ours_decode_resize, 0),
            ("decode + resize (ours, one thread) vs one-thread vips", ours_decode_resize, 1),
            ("full develop: PNG in → JPEG q92 out", t_develop, 2),
            ("full develop vs the PNG command line", t_develop, 3),
        ];
        for (label, ours, k) in pairs {
            let (name, base) = (&vips_rows[k].0, &vips_rows[k].1);
            let (b, r) = ratio(ours, base);
            println!("| {label} | {} | {b} ({name}) | {r} |", secs(ours));
        }
    }
    println!();

    // ---- Every other tool at 2k (or STUDIO_BENCH_TIER) ----------------------------------------------
    let (tier, tier_name) = match std::env::var("STUDIO_BENCH_TIER").as_deref() {
        Ok("1k") => (Quality::K1, "1k"),
        Ok("4k") => (Quality::K4, "4k"),
        _ => (Quality::K2, "2k"),
    };
    let product = product_shot(1200, 1600);
    let product_png = png(&product);
    let mask = RgbImage::from_fn(1200, 1600, |x, y| {
        let spot = (x as f32 - 300.0).powi(2) + (y as f32 - 400.0).powi(2) < 60.0f32.powi(2);
        let logo = (560..700).contains(&x) && (520..600).contains(&y);
        if spot || logo { Rgb([255, 255, 255]) } else { Rgb([0, 0, 0]) }
    });
    let mask_png = png(&mask);
    let scene = png(&photo_like(1600, 1200));
    let cases: Vec<(&str, DevelopRequest)> = vec![
        ("upscale", request("upscale", tier, vec![("image", product_png.clone())], &[])),
        (
            "reframe 1:1, mode crop",
            request("reframe", tier, vec![("image", product_png.clone())], &[("aspect", "1:1"), ("mode", "crop")]),
        ),
        (
            "reframe 16:9 (extend)",
            request("reframe", tier, vec![("image", product_png.clone())], &[("aspect", "16:9")]),
        ),
        ("packshot", request("packshot", tier, vec![("image", product_png.clone())], &[])),
        (
            "packshot on a background",
            request(
                "packshot",
                tier,
                vec![("image", product_png.clone()), ("background", scene.clone())],
                &[("bg", "image")],
            ),
        ),
        ("harmonize", request("harmonize", tier, vec![("image", product_png.clone())], &[])),
        (
            "harmonize onto a background",
            request("harmonize", tier, vec![("image", product_png.clone()), ("background", scene)], &[]),
        ),
        (
            "color-change navy",
            request("color-change", tier, vec![("image", product_png.clone())], &[("color", "navy")]),
        ),
        ("iron", request("iron", tier, vec![("image", product_png.clone())], &[])),
        ("cleanup", request("cleanup", tier, vec![("image", product_png.clone()), ("mask", mask_png)], &[])),
        ("camera-lens", request("camera-lens", tier, vec![("image", product_png)], &[])),
    ];
    let tool_runs = runs.min(3);
    println!("### Every tool at {tier_name} (1200 × 1600 PNG in, JPEG q92 out; median of {tool_runs})");
    println!();
    println!("| tool | output | time |");
    println!("|---|---|---|");
    for (label, req) in &cases {
        let mut out = None;
        let t = median(tool_runs, || out = Some(provider.develop_blocking(req).expect(label)));
        let out = out.expect("ran");
        save(&save_dir, &label.replace([' ', '(', ')', ':'], "_"), &out);
        println!("| {label} | {} × {} | {} |", out.width, out.height, secs(t));
    }
    println!();
    std::fs::remove_dir_all(&tmp).ok();
}
