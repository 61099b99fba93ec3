//! The fuzz targets' shared harness: one real Studio per fuzzing process, the server's own
//! router over a fresh SQLite file and local blobs in a temporary directory, with a house and a
//! member key made on first use. Requests go through the router in process
//! (`tower::ServiceExt::oneshot`), so every layer a client's bytes meet runs: the extractors,
//! authentication, the handlers, the core and the storage. The job runner is off, so nothing a
//! target submits is developed; the sign-up grant is large, so holds keep succeeding.
//!
//! Temporary files go under `TMPDIR`; `tests/fuzz/run.sh` points it at a directory it removes.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use studio_core::Studio;
use studio_core::api::{MintKeyRequest, SignUpRequest};
use studio_server::ServerConfig;
use tower::ServiceExt;

/// A running Studio and a key of one of its houses.
pub struct Harness {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    /// The core behind the router.
    pub studio: Studio,
    /// The house's member key (`studio_sk_…`).
    pub key: String,
    blob_dir: PathBuf,
    _dir: tempfile::TempDir,
}

/// The process's harness, made on first use.
pub fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(Harness::new)
}

impl Harness {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
        let config = ServerConfig {
            listen: "127.0.0.1:0".into(),
            data_dir: dir.path().join("data"),
            runner_concurrency: 0,
            signup_grant_tokens: 1_000_000_000,
            ..ServerConfig::default()
        };
        let blob_dir = dir.path().join("data").join("blobs");
        let (router, studio, key) = runtime.block_on(async {
            let (router, state) = studio_server::build_app(&config).await.expect("build app");
            let studio = state.studio.clone();
            let signup =
                SignUpRequest { email: "fuzz@example.com".into(), password: "a fuzzing password".into(), name: None };
            let (_, session) = studio.accounts().sign_up(signup).await.expect("sign up");
            let owner = studio.accounts().authenticate_session(&session).await.expect("session");
            let minted = studio.accounts().mint_key(&owner, MintKeyRequest { name: "fuzz".into(), role: None }).await;
            (router, studio, minted.expect("mint").key.expect("the secret"))
        });
        Harness { runtime, router, studio, key, blob_dir, _dir: dir }
    }

    /// Send one request through the router; its status and whole body.
    pub fn send(&self, request: Request<Body>) -> (StatusCode, Vec<u8>) {
        self.runtime.block_on(async {
            let Ok(response) = self.router.clone().oneshot(request).await;
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("read the body");
            (status, body.to_vec())
        })
    }

    /// Run a future on the harness's runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// How many files the blob store holds (finished objects and any half-written part).
    pub fn stored_files(&self) -> usize {
        fn walk(dir: &Path) -> usize {
            std::fs::read_dir(dir)
                .map(|entries| entries.flatten().map(|e| if e.path().is_dir() { walk(&e.path()) } else { 1 }).sum())
                .unwrap_or(0)
        }
        walk(&self.blob_dir)
    }

    /// Forget every stored file, so [`Harness::stored_files`] stays cheap over a long run. The
    /// rows that name them stay; the targets never read those bytes back.
    pub fn clear_blobs(&self) {
        if let Ok(entries) = std::fs::read_dir(&self.blob_dir) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Assert the shared error envelope: a JSON object with an `error` code (upper-case letters,
/// digits and `_`) and a `message` string.
pub fn assert_envelope(status: StatusCode, body: &[u8]) -> Value {
    let value: Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{status}: the body is not JSON ({e}): {:?}", String::from_utf8_lossy(body)));
    let code = value["error"].as_str().unwrap_or_else(|| panic!("{status}: no error code in {value}"));
    assert!(
        !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
        "{status}: error code {code:?}"
    );
    assert!(value["message"].is_string(), "{status}: no message in {value}");
    value
}

/// A real RGB image of `width` × `height` (each at least 1) encoded as PNG or JPEG.
pub fn image(width: u32, height: u32, format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width.max(1), height.max(1), |x, y| {
        image::Rgb([(x * 37 % 256) as u8, (y * 59 % 256) as u8, ((x + y) % 256) as u8])
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), format).expect("encode");
    out
}
