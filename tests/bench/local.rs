//! Row 5: the local provider, called in this process through its own develop path (the code the
//! server's runner calls; a release build of the harness runs it as the release server would).
//!
//! Upscale 1024 → 4096 (Lanczos3), a photo-like PNG in and a JPEG q92 out, against
//! `vips resize in.png out.jpg[Q=92] 4 --kernel lanczos3` on the same file: the same input,
//! kernel, output format and quality, vips with its default threads and its process start
//! included. For information, the decode and resize alone (`upscale_rgb`, one thread) against
//! vips writing its raw `.v` format, and the literal `vips resize in.png out.png` (which pays for
//! a zlib encode of the large frame). The five take turns, run after run, and each figure is a
//! median. Then every local tool's time at 2k on a 1200 × 1600 product shot, and the AI lane's
//! local remove-background (a full-size RGBA cutout) beside packshot on a 2,000 × 2,500 one, and
//! what colour management and the metadata policy add to a 2k develop. Inputs are
//! deterministic. When `vips` is not installed the baselines are skipped with a row that says how
//! to install it.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::process::Command;
use std::time::{Duration, Instant};

use bytes::Bytes;
use image::{Rgb, RgbImage};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use studio_core::api::Quality;
use studio_core::{DevelopInput, DevelopRequest, LocalProvider};

use crate::common::{Options, Row, have, median, ratio, secs, time_command};

/// Target: at most this many times vips' time.
const TARGET: f64 = 1.0;

/// Measure row 5.
pub(crate) async fn run(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let opts = opts.clone();
    tokio::task::spawn_blocking(move || measure(&opts)).await?
}

fn measure(opts: &Options) -> anyhow::Result<Vec<Row>> {
    let runs = opts.size(5, 1);
    let (edge, quality) = opts.size((1024, Quality::K4), (256, Quality::K1));
    let out_edge = edge * 4;
    let provider = LocalProvider;
    let dir = opts.work.join("local");
    std::fs::create_dir_all(&dir)?;
    let mut rows = Vec::new();

    let photo = photo_like(edge, edge);
    let photo_png = png(&photo)?;
    let input = dir.join("in.png");
    std::fs::write(&input, &photo_png)?;
    let upscale = request("upscale", quality, vec![("image", photo_png.clone())], &[]);
    let mut develop = || {
        let out = provider.develop_blocking(&upscale)?;
        anyhow::ensure!((out.width, out.height) == (out_edge, out_edge), "upscaled to {} × {}", out.width, out.height);
        Ok(())
    };
    let mut decode_resize = || {
        let decoded = image::load_from_memory(&photo_png)?.to_rgb8();
        provider.upscale_rgb(&decoded, out_edge)?;
        Ok(())
    };
    let what = format!("{edge} → {out_edge}");
    if have("vips", "--version") {
        let vips = |out: &str| {
            let (input, out) = (input.display().to_string(), dir.join(out).display().to_string());
            move || {
                time_command(Command::new("vips").args(["resize", &input, &out, "4", "--kernel", "lanczos3"])).map(drop)
            }
        };
        let (mut jpeg, mut raw, mut literal) = (vips("out.jpg[Q=92]"), vips("out.v"), vips("out.png"));
        let [develop, jpeg, decode_resize, raw, literal] =
            timed(runs, [&mut develop, &mut jpeg, &mut decode_resize, &mut raw, &mut literal])?;
        rows.push(Row::new(
            format!("5. local upscale {what}, PNG in → JPEG q92 out (median of {runs})"),
            secs(develop),
            format!("{} (vips resize → out.jpg[Q=92], Lanczos3)", secs(jpeg)),
            format!("{} / ≤ {TARGET}×", ratio(develop.as_secs_f64(), jpeg.as_secs_f64())),
            develop.as_secs_f64() <= TARGET * jpeg.as_secs_f64(),
        ));
        rows.push(Row::info(
            format!("5. local upscale {what}: decode + resize only, one thread (information)"),
            secs(decode_resize),
            format!("{} (vips resize → out.v, raw pixels)", secs(raw)),
            format!("{} / no target", ratio(decode_resize.as_secs_f64(), raw.as_secs_f64())),
        ));
        rows.push(Row::info(
            format!("5. local upscale {what} against the literal `vips resize in.png out.png` (information)"),
            secs(develop),
            format!("{} (vips resize → out.png)", secs(literal)),
            format!("{} / no target", ratio(develop.as_secs_f64(), literal.as_secs_f64())),
        ));
    } else {
        let [develop, decode_resize] = timed(runs, [&mut develop, &mut decode_resize])?;
        rows.push(Row::info(
            format!("5. local upscale {what}, PNG in → JPEG q92 out (median of {runs})"),
            secs(develop),
            "vips not installed: baseline skipped (apt-get install -y libvips-tools)",
            "no baseline",
        ));
        rows.push(Row::info(
            format!("5. local upscale {what}: decode + resize only, one thread (information)"),
            secs(decode_resize),
            "—",
            "",
        ));
    }

    let tier = opts.size(Quality::K2, Quality::K1);
    let (w, h) = opts.size((1200, 1600), (300, 400));
    let product = png(&product_shot(w, h))?;
    let scene = png(&photo_like(h, w))?;
    let mask = png(&RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
        let spot = (u - 0.25).powi(2) + ((v - 0.25) * h as f32 / w as f32).powi(2) < 0.05f32.powi(2);
        let logo = (0.4667..0.5833).contains(&u) && (0.325..0.375).contains(&v);
        if spot || logo { Rgb([255, 255, 255]) } else { Rgb([0, 0, 0]) }
    }))?;
    let one = |p: &Bytes| vec![("image", p.clone())];
    let cases: Vec<(&str, DevelopRequest)> = vec![
        ("upscale", request("upscale", tier, one(&product), &[])),
        ("reframe 1:1, mode crop", request("reframe", tier, one(&product), &[("aspect", "1:1"), ("mode", "crop")])),
        ("reframe 16:9 (extend)", request("reframe", tier, one(&product), &[("aspect", "16:9")])),
        ("packshot", request("packshot", tier, one(&product), &[])),
        (
            "packshot on a background",
            request(
                "packshot",
                tier,
                vec![("image", product.clone()), ("background", scene.clone())],
                &[("bg", "image")],
            ),
        ),
        ("harmonize", request("harmonize", tier, one(&product), &[])),
        (
            "harmonize onto a background",
            request("harmonize", tier, vec![("image", product.clone()), ("background", scene)], &[]),
        ),
        ("color-change navy", request("color-change", tier, one(&product), &[("color", "navy")])),
        ("iron", request("iron", tier, one(&product), &[])),
        ("cleanup", request("cleanup", tier, vec![("image", product.clone()), ("mask", mask)], &[])),
        ("camera-lens", request("camera-lens", tier, one(&product), &[])),
    ];
    let tool_runs = runs.min(3);
    let tier_name = opts.size("2k", "1k");
    for (label, req) in &cases {
        let mut size = (0, 0);
        let [t] = timed(
            tool_runs,
            [&mut || {
                let out = provider.develop_blocking(req)?;
                size = (out.width, out.height);
                Ok(())
            }],
        )?;
        rows.push(Row::info(
            format!("5. local {label} at {tier_name}, {w} × {h} PNG in (median of {tool_runs})"),
            secs(t),
            format!("— (out {} × {} JPEG q92)", size.0, size.1),
            "no target",
        ));
    }

    // remove-background (the AI lane's local cutout: subject mask, soft edges, RGBA PNG) beside
    // the packshot tool, which finds the same subject mask, on the same large product shot.
    let (bw, bh) = opts.size((2000, 2500), (200, 250));
    let shot = png(&product_shot(bw, bh))?;
    let packshot = request("packshot", tier, one(&shot), &[]);
    let mut cut_box = [0u32; 4];
    let [cut, pack] = timed(
        tool_runs,
        [
            &mut || {
                let out = provider.remove_background_blocking(&shot)?;
                anyhow::ensure!((out.width, out.height) == (bw, bh), "cut at {} × {}", out.width, out.height);
                cut_box = out.bbox;
                Ok(())
            },
            &mut || provider.develop_blocking(&packshot).map(drop).map_err(Into::into),
        ],
    )?;
    rows.push(Row::info(
        format!("5. local remove-background, {bw} × {bh} PNG in → full-size RGBA PNG out (median of {tool_runs})"),
        format!("{} (bbox {cut_box:?})", secs(cut)),
        format!("{} (packshot at {tier_name} on the same image)", secs(pack)),
        format!("{} / no target", ratio(cut.as_secs_f64(), pack.as_secs_f64())),
    ));
    rows.extend(colour_and_metadata_cost(opts, opts.size(11, 1))?);
    std::fs::remove_dir_all(&dir)?;
    Ok(rows)
}

/// Target for the colour, metadata and credentials row: at most this many times the plain
/// develop.
const MANAGED_TARGET: f64 = 1.10;

/// What colour management, the metadata policy and content credentials cost a develop
/// (docs/colour.md, docs/provenance.md): a 2k upscale of an Adobe RGB JPEG with a camera's EXIF,
/// written back in Adobe RGB (`keep`, two conversions) with its rights carried (`rights`) and
/// signed with a C2PA manifest naming the input as its parent (and read back, as the runner
/// does), against the same pixels as an untagged JPEG with no metadata, nothing carried, nothing
/// signed; a third turn does all but the signing. The three take turns; medians.
fn colour_and_metadata_cost(opts: &Options, runs: usize) -> anyhow::Result<Vec<Row>> {
    use studio_core::api::MetadataOutput;
    use studio_core::provenance::{ContentCredentials, Develop, SignedInput, sign_kept_frame};
    let provider = LocalProvider;
    let tier = opts.size(Quality::K2, Quality::K1);
    let (w, h) = opts.size((1200, 1600), (300, 400));
    let pixels = photo_like(w, h);
    let (tagged, plain) = (camera_jpeg(&pixels, true)?, camera_jpeg(&pixels, false)?);
    let managed = request("upscale", tier, vec![("image", tagged.clone())], &[("colourOutput", "keep")]);
    let unmanaged = request("upscale", tier, vec![("image", plain.clone())], &[]);
    let credentials = ContentCredentials::ephemeral("Bench")?;
    let develop = Develop {
        tool: "upscale".into(),
        quality: tier.to_string(),
        provider: "local".into(),
        job_id: "job_bench".into(),
        house_id: "org_bench".into(),
        house_name: "Bench".into(),
    };
    let inputs = [SignedInput { title: "ast_bench (image)".into(), mime: "image/jpeg".into(), bytes: tagged.clone() }];
    let [all, unsigned, without] = timed(
        runs,
        [
            &mut || {
                let out = provider.develop_blocking(&managed)?;
                let out = studio_core::carry_metadata(out.bytes, &tagged, MetadataOutput::Rights);
                let (signed, summary) =
                    sign_kept_frame(&credentials, &out, "image/jpeg", &develop, &inputs).map_err(anyhow::Error::msg)?;
                anyhow::ensure!(signed.windows(6).any(|w| w == b"Exif\0\0"), "the rights were not carried");
                anyhow::ensure!(summary.has_credentials, "the frame was not signed");
                Ok(())
            },
            &mut || {
                let out = provider.develop_blocking(&managed)?;
                studio_core::carry_metadata(out.bytes, &tagged, MetadataOutput::Rights);
                Ok(())
            },
            &mut || {
                let out = provider.develop_blocking(&unmanaged)?;
                studio_core::carry_metadata(out.bytes, &plain, MetadataOutput::None);
                Ok(())
            },
        ],
    )?;
    let tier_name = opts.size("2k", "1k");
    let baseline = format!("{} (the same pixels untagged, no metadata, unsigned)", secs(without));
    Ok(vec![
        Row::new(
            format!(
                "5. colour + metadata + content credentials: upscale at {tier_name} of a {w} × {h} Adobe RGB JPEG with EXIF, keep + rights + a signed C2PA manifest (median of {})",
                runs.max(3)
            ),
            secs(all),
            baseline.clone(),
            format!("{} / ≤ {MANAGED_TARGET}×", ratio(all.as_secs_f64(), without.as_secs_f64())),
            all.as_secs_f64() <= MANAGED_TARGET * without.as_secs_f64(),
        ),
        Row::info(
            "5. the same, colour + metadata alone, unsigned: the credentials cost the difference (information)",
            secs(unsigned),
            baseline,
            format!("{} / no target", ratio(unsigned.as_secs_f64(), without.as_secs_f64())),
        ),
    ])
}

/// `pixels` as a JPEG q92; `tagged` embeds Adobe RGB (1998) and a camera's EXIF (creator,
/// copyright, GPS).
fn camera_jpeg(pixels: &RgbImage, tagged: bool) -> anyhow::Result<Bytes> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92);
    if tagged {
        encoder.set_icc_profile(moxcms::ColorProfile::new_adobe_rgb().encode()?)?;
    }
    encoder.write_image(pixels.as_raw(), pixels.width(), pixels.height(), image::ExtendedColorType::Rgb8)?;
    if !tagged {
        return Ok(Bytes::from(out));
    }
    use exif::{Field, In, Tag, Value};
    let ascii = |tag, v: &str| Field { tag, ifd_num: In::PRIMARY, value: Value::Ascii(vec![v.as_bytes().to_vec()]) };
    let fields = [
        ascii(Tag::Artist, "Ines Calder"),
        ascii(Tag::Copyright, "(c) 2026 Maison Calder"),
        ascii(Tag::GPSLatitudeRef, "N"),
    ];
    let mut writer = exif::experimental::Writer::new();
    for f in &fields {
        writer.push_field(f);
    }
    let mut tiff = Cursor::new(Vec::new());
    writer.write(&mut tiff, false)?;
    let payload = [b"Exif\0\0".as_slice(), tiff.get_ref()].concat();
    let mut app1 = vec![0xFF, 0xE1];
    app1.extend_from_slice(&u16::try_from(payload.len() + 2)?.to_be_bytes());
    app1.extend_from_slice(&payload);
    Ok(Bytes::from([&out[..2], &app1, &out[2..]].concat()))
}

/// Median wall time of `runs` calls of each of `calls`, which take turns (one round after
/// another, so a change in the machine's load touches them alike), after one untimed warm-up
/// round (none in a one-run smoke).
fn timed<const N: usize>(
    runs: usize,
    mut calls: [&mut dyn FnMut() -> anyhow::Result<()>; N],
) -> anyhow::Result<[Duration; N]> {
    if runs > 1 {
        for call in calls.iter_mut() {
            call()?;
        }
    }
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(runs));
    for _ in 0..runs {
        for (call, times) in calls.iter_mut().zip(&mut times) {
            let started = Instant::now();
            call()?;
            times.push(started.elapsed());
        }
    }
    Ok(times.map(median))
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

fn png(img: &RgbImage) -> anyhow::Result<Bytes> {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)?;
    Ok(Bytes::from(out))
}

fn byte(v: f32) -> u8 {
    v.round().clamp(0.0, 255.0) as u8
}

/// A photo-like frame: sky and floor gradients, shaded discs, striped cloth, fine diagonal lines
/// and sensor noise.
fn photo_like(w: u32, h: u32) -> RgbImage {
    let (fw, fh) = (w as f32, h as f32);
    let mut rng = StdRng::seed_from_u64(1);
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
        let n = 6.0 * rng.random_range(-1.0f32..1.0);
        Rgb(c.map(|v| byte(v + n)))
    })
}

/// A product shot: a light sweep with a textured, folded dress in the middle.
fn product_shot(w: u32, h: u32) -> RgbImage {
    let (fw, fh) = (w as f32, h as f32);
    let mut rng = StdRng::seed_from_u64(2);
    RgbImage::from_fn(w, h, |x, y| {
        let (u, v) = (x as f32 / fw, y as f32 / fh);
        let n = 2.5 * rng.random_range(-1.0f32..1.0);
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
