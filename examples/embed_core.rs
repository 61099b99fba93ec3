//! Embed the core: another axum application that runs studio-core in-process with its own
//! configuration, without studio-server. The same `Studio` methods studio-server and the agent
//! endpoint call are called here directly, so every rule (authorization, holds before queueing,
//! settlement) is the same.
//!
//! This example needs no running server and no key: it opens its own SQLite database and blob
//! directory in a temporary directory (removed on exit), grants 25 tokens at sign-up, and prices
//! develops at 3 / 5 / 8 tokens for 1k / 2k / 4k. Run it:
//!
//! ```text
//! cargo run -p studio-examples --example embed_core            # listens on 127.0.0.1:8790
//! curl http://127.0.0.1:8790/                                   # health, tools and prices
//! curl -X POST http://127.0.0.1:8790/demo                       # sign up, upload, develop
//! ```
//!
//! `EMBED_LISTEN` changes the address. (To drive a full studio-server instead, run
//! `cargo run -p studio-server`, get a key from `studio signup` or the `first_key` example, and use
//! the other examples with `STUDIO_URL=http://127.0.0.1:8787 STUDIO_API_KEY=studio_sk_...`.)
//!
//! `POST /demo` signs up a fresh demo house (`Studio::sign_up`), turns its session into a
//! `Caller`, uploads a generated 640 × 480 PNG (`stream_upload` then `finish_upload`), starts an
//! `upscale` develop at 1k from that asset (`start_develop`), lets this process's job runner
//! develop it, and answers the develop status and the house's balance as JSON.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::Bytes;
use serde_json::{Value, json};
use studio_core::api::{SignUpRequest, StartDevelop};
use studio_core::{BlobConfig, CoreConfig, PriceBookConfig, QualityPrices, RunnerConfig, Studio, UploadForm};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let listen = std::env::var("EMBED_LISTEN").unwrap_or_else(|_| "127.0.0.1:8790".to_string());
    let dir = tempfile::tempdir()?;
    let database_url = format!("sqlite://{}", dir.path().join("embedded.db").display());
    let blobs = BlobConfig::Local(dir.path().join("blobs"));

    // This application's own settings: the core never reads the environment or a file.
    let config = CoreConfig {
        signup_grant_tokens: 25,
        prices: PriceBookConfig { develop: QualityPrices { k1: 3, k2: 5, k4: 8 }, ..PriceBookConfig::default() },
        runner: RunnerConfig { concurrency: 1, ..RunnerConfig::default() },
        ..CoreConfig::default()
    };
    let studio = Studio::open(&database_url, &blobs, config).await?;

    // The event relay matters on PostgreSQL (events from every replica); on SQLite it reports
    // false and events stay in-process. The job runner develops queued jobs until told to stop.
    let relaying = studio.start_event_relay().await?;
    let (stop_runner, runner_stopped) = tokio::sync::oneshot::channel::<()>();
    let runner = tokio::spawn({
        let studio = studio.clone();
        async move {
            studio
                .develops()
                .run_job_runner(async move {
                    let _ = runner_stopped.await;
                })
                .await
        }
    });

    let app = Router::new().route("/", get(health)).route("/demo", post(demo)).with_state(studio);
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    println!(
        "embedded Studio on http://{} (data in {}, relay {relaying})",
        listener.local_addr()?,
        dir.path().display()
    );
    println!("try: curl -X POST http://{}/demo", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;

    let _ = stop_runner.send(());
    let _ = runner.await;
    println!("stopped");
    Ok(())
}

/// `GET /`: the core's health, and the tools and prices this application configured.
async fn health(State(studio): State<Studio>) -> Result<Json<Value>, AppError> {
    let backend = studio.health().await?;
    let develops = studio.develops();
    let tools = develops.runnable_tools();
    Ok(Json(json!({
        "ok": true,
        "service": "an application embedding studio-core",
        "storage": backend,
        "signupGrantTokens": studio.config().signup_grant_tokens,
        "prices": studio.config().prices.book(&tools),
    })))
}

/// `POST /demo`: a demo house, an upload, a develop run to the end; the develop status as JSON.
async fn demo(State(studio): State<Studio>) -> Result<Json<Value>, AppError> {
    static DEMOS: AtomicU64 = AtomicU64::new(0);
    let n = DEMOS.fetch_add(1, Ordering::Relaxed);
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_millis();
    let email = format!("demo-{stamp}-{n}@example.com");

    // 1. A house, and a session turned into a Caller: who asks decides what is allowed.
    let (account, session) = studio
        .accounts()
        .sign_up(SignUpRequest { email, password: "a demo password".into(), name: Some(format!("Demo {n}")) })
        .await?;
    let caller = studio.accounts().authenticate_session(&session).await?;

    // 2. Upload: stream the bytes into the blob store, then file them with the form's fields.
    let png = Bytes::from(demo_png(640, 480));
    let body = futures_util::stream::iter([Ok::<Bytes, Infallible>(png)]);
    let pending = studio.library().stream_upload(&caller, body).await?;
    let form =
        UploadForm { file_name: Some("demo.png".into()), name: Some("Demo garment".into()), ..UploadForm::default() };
    let asset = studio.library().finish_upload(&caller, pending, form).await?.asset;

    // 3. Develop from the library asset: the price is held before the job is queued.
    let started = studio
        .develops()
        .start_develop(
            &caller,
            StartDevelop {
                tool: "upscale".into(),
                inputs: BTreeMap::from([("image".to_string(), asset.id.clone())]),
                quality: "1k".into(),
                params: BTreeMap::new(),
                idempotency_key: Some(format!("demo-{}", asset.id)),
                folder_id: None,
                webhook_url: None,
            },
        )
        .await?;

    // 4. The job runner started in main develops it; poll its status until it ends.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let status = loop {
        let status = studio.develops().get_develop(&caller, &studio_core::JobId::from(&started.job_id)).await?;
        if status.status.is_terminal() || tokio::time::Instant::now() >= deadline {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let balance = studio.billing().balance(&caller).await?;
    Ok(Json(json!({
        "house": account.organization,
        "asset": asset,
        "started": started,
        "develop": status,
        "balance": balance,
    })))
}

/// A PNG of `width` × `height`: a colour gradient, so the develop has real pixels to work on.
fn demo_png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 255 / width) as u8, (y * 255 / height) as u8, ((x + y) % 256) as u8])
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png).expect("encoding a PNG in memory");
    out
}

/// This application's error response: the core's refusal mapped to a status, with its code.
struct AppError(studio_core::Error);

impl From<studio_core::Error> for AppError {
    fn from(e: studio_core::Error) -> Self {
        AppError(e)
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let e = self.0;
        let status = StatusCode::from_u16(e.kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut body = e.extra;
        body.insert("error".into(), e.code.into());
        body.insert("message".into(), e.message.into());
        (status, Json(Value::Object(body))).into_response()
    }
}
