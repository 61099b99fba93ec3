//! Bad images at every door that takes one: decompression bombs (headers announcing far more
//! pixels than the limits allow, one of them backed by a real deflate stream), JPEG and PNG
//! files cut short inside the header and inside the pixel data, a zero-byte file and
//! non-images named like images, sent to the library upload, the develop submit and the
//! pre-flight. Each is a clean 4xx in the shared envelope with the route's code; nothing is
//! stored, held or charged; and a real bomb never makes the server's memory grow by anything
//! like its decoded size (measured in a process of its own, see `bombs_keep_memory_flat`).

use serde_json::Value;
use studio_client::Client;
use studio_tests::images::{jpeg, jpeg_claiming, png, png_bomb, png_claiming};
use studio_tests::{Backend, House, backend_tests, spawn};

use crate::assets::blob_files;

backend_tests!(bad_images_are_refused_cleanly, bombs_keep_memory_flat);

/// A route that takes image files: its path, the file part's name and the other fields.
type Route = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

const UPLOAD: Route = ("/api/toolkit/assets/upload", "file", &[]);
const SUBMIT: Route = ("/api/toolkit/jobs/submit", "image", &[("tool", "upscale"), ("quality", "1k")]);
const PREFLIGHT: Route = ("/api/toolkit/ai/preflight", "images", &[]);

/// POST one file (named `file_name`) to a route with the key; the status and the JSON body.
async fn send(key: &Client, route: Route, file_name: &str, bytes: &[u8]) -> (u16, Value) {
    let (path, part, fields) = route;
    let mut form = reqwest::multipart::Form::new();
    for (name, value) in fields {
        form = form.text(name.to_string(), value.to_string());
    }
    form =
        form.part(part.to_string(), reqwest::multipart::Part::bytes(bytes.to_vec()).file_name(file_name.to_string()));
    let res = reqwest::Client::new()
        .post(format!("{}{path}", key.base_url()))
        .bearer_auth(key.api_key().expect("a key client"))
        .multipart(form)
        .send()
        .await
        .expect("send");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or_default())
}

/// What a bad file is, its file name, its bytes, and the (status, code) that upload, submit and
/// pre-flight answer.
type Case = (&'static str, &'static str, Vec<u8>, [(u16, &'static str); 3]);

async fn bad_images_are_refused_cleanly(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "bad-images").await.key;
    let before = key.balance().await.expect("balance");
    let (whole_jpeg, whole_png) = (jpeg(96, 64), png(96, 64));
    let too_large = (413, "IMAGE_TOO_LARGE");
    let cut_short = (400, "BAD_FORM");
    let not_an_image = [(400, "UNSUPPORTED_TYPE"), (400, "BAD_FORM"), (400, "BAD_FORM")];
    let cases: Vec<Case> = vec![
        ("a PNG announcing 100000 × 100000", "bomb.png", png_claiming(100_000, 100_000), [too_large; 3]),
        ("a PNG announcing 16000 × 16000", "wide.png", png_claiming(16_000, 16_000), [too_large; 3]),
        ("a JPEG announcing 60000 × 60000", "bomb.jpg", jpeg_claiming(60_000, 60_000), [too_large; 3]),
        ("a JPEG cut in its pixel data", "half.jpg", whole_jpeg[..whole_jpeg.len() / 2].to_vec(), [cut_short; 3]),
        ("a JPEG cut in its header", "head.jpg", whole_jpeg[..40].to_vec(), [cut_short; 3]),
        ("a JPEG without its end marker", "eoi.jpg", whole_jpeg[..whole_jpeg.len() - 2].to_vec(), [cut_short; 3]),
        ("a PNG cut in its pixel data", "half.png", whole_png[..whole_png.len() / 2].to_vec(), [cut_short; 3]),
        ("a PNG cut in its header", "head.png", whole_png[..20].to_vec(), [cut_short; 3]),
        (
            "a zero-byte file",
            "empty.png",
            Vec::new(),
            [(400, "EMPTY_FILE"), (400, "EMPTY_IMAGE"), (400, "EMPTY_IMAGE")],
        ),
        (
            "text named .png",
            "notes.png",
            b"these are words, not pixels, and enough of them to sniff".repeat(2),
            not_an_image,
        ),
        (
            "SVG named .jpg",
            "logo.jpg",
            br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.to_vec(),
            not_an_image,
        ),
        (
            "HTML named .jpeg",
            "page.jpeg",
            b"<!DOCTYPE html><html><body>not a photograph at all</body></html>".to_vec(),
            not_an_image,
        ),
    ];
    for (what, file_name, bytes, expected) in &cases {
        for (route, (status, code)) in [UPLOAD, SUBMIT, PREFLIGHT].into_iter().zip(expected) {
            let (got, body) = send(&key, route, file_name, bytes).await;
            assert_eq!((got, body["error"].as_str()), (*status, Some(*code)), "{what} to {}: {body}", route.0);
            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{what} to {}: {body}", route.0);
            if *code == "IMAGE_TOO_LARGE" {
                assert_eq!(body["maxMb"], 12, "{what} to {}", route.0);
            }
        }
    }

    // The whole files the cut-short cases came from are taken.
    for (name, bytes) in [("whole.jpg", &whole_jpeg), ("whole.png", &whole_png)] {
        let (status, body) = send(&key, UPLOAD, name, bytes).await;
        assert_eq!(status, 201, "{name}: {body}");
        key.delete_assets(&[body["asset"]["id"].as_str().expect("asset id").to_string()]).await.expect("delete");
        let (status, body) = send(&key, PREFLIGHT, name, bytes).await;
        assert_eq!(status, 200, "{name}: {body}");
    }

    // Nothing stored, held or charged by any refusal.
    assert!(key.list_assets(None).await.expect("list").assets.is_empty(), "no refusal left an asset");
    assert_eq!(blob_files(&app), 2, "only the two whole uploads' bytes are stored (soft-deleted)");
    assert!(key.jobs_since(0).await.expect("jobs").jobs.is_empty(), "no develop was queued");
    let after = key.balance().await.expect("balance");
    assert_eq!((after.balance, after.held, after.holds.len()), (before.balance, 0, 0), "nothing held or charged");
}

/// This process's peak resident memory (VmHWM), in bytes.
fn peak_memory() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("a number of kB") * 1024
}

/// Set in the process that `bombs_keep_memory_flat` starts for itself.
const ALONE: &str = "STUDIO_TEST_BOMBS_ALONE";

/// A real bomb (16384 × 16384 grey, 268 MB of pixels in a 1.7 MB file) to every route: refused
/// 413 from its header, and the process's peak memory stays far below the decoded size. Run
/// in a process of its own (this test binary started again for this one test), so the peak is
/// the server's and this test's alone, not the other tests'.
async fn bombs_keep_memory_flat(backend: Backend) {
    let name = match backend {
        Backend::Sqlite => "bad_images::sqlite::bombs_keep_memory_flat",
        Backend::Postgres => "bad_images::postgres::bombs_keep_memory_flat",
    };
    if std::env::var_os(ALONE).is_none() {
        let exe = std::env::current_exe().expect("this test binary");
        let out = std::process::Command::new(exe)
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(ALONE, "1")
            .output()
            .expect("start the test alone");
        let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && printed.contains("1 passed"), "{name} alone:\n{printed}");
        return;
    }
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "bomb").await.key;
    let bomb = png_bomb(16_384);
    assert!(bomb.len() < 2 * 1024 * 1024, "the bomb is small: {} bytes", bomb.len());
    let decoded = 16_384u64 * 16_384;
    for route in [UPLOAD, SUBMIT, PREFLIGHT] {
        let (status, body) = send(&key, route, "bomb.png", &bomb).await;
        assert_eq!((status, body["error"].as_str()), (413, Some("IMAGE_TOO_LARGE")), "{}: {body}", route.0);
    }
    let peak = peak_memory();
    assert!(peak < decoded, "peak memory {peak} bytes against {decoded} bytes of decoded pixels");
    assert_eq!(blob_files(&app), 0, "nothing stored");
}
