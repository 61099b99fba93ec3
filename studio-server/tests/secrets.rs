//! No secret reaches the log: the real `studio-server` binary runs at `RUST_LOG=debug` (trace for
//! our crates and the HTTP trace layer) with its output captured, a full workload goes through
//! it (sign-up and sign-in with a password, a wrong password, the session cookie, keys minted,
//! used by bearer, revoked and used again, a made-up key, an upload, a develop run to its end,
//! the agent endpoint with a key, a test-mode payment signed with the configured webhook secret,
//! a forged webhook, the AI reader's key on a failing call), and then the log is searched for
//! every secret of the run: none may appear.
//!
//! The server is started by a small spawn of its own here (the other process tests share theirs
//! in `tests/common`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use studio_client::api::{JobStatus, KeyRole, Quality};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};

/// The log filter: everything at debug, our crates and the request trace at trace.
const LOG_FILTER: &str = "debug,studio_server=trace,studio_core=trace,studio_mcp=trace,tower_http=trace";

/// A running `studio-server` whose stdout and stderr go to one file.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

async fn start(data_dir: &Path, log: &Path, env: &[(&str, &str)]) -> Server {
    let port = free_port();
    let out = std::fs::File::create(log).expect("log file");
    let err = out.try_clone().expect("log file");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_studio-server"));
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("STUDIO_")) {
        cmd.env_remove(name);
    }
    cmd.env("STUDIO_LISTEN", format!("127.0.0.1:{port}"))
        .env("STUDIO_DATA_DIR", data_dir)
        .env("RUST_LOG", LOG_FILTER)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err));
    let server = Server { child: cmd.spawn().expect("start studio-server"), base: format!("http://127.0.0.1:{port}") };
    let client = Client::builder(&server.base).build().expect("client");
    for _ in 0..300 {
        if client.health().await.is_ok() {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("studio-server did not become healthy on {}", server.base);
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 251) as u8, (y % 251) as u8, 77]))
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode");
    out
}

/// 64 random hex characters.
fn random_hex() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": arguments } })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let webhook_secret = format!("whsec_{}", "c2VjcmV0LXdlYmhvb2stc2lnbmluZy1rZXktZm9yLXRlc3Rz");
    let ai_key = format!("sk-ai-{}", random_hex());
    // The AI reader points at a port nothing listens on: its call fails after the key is sent.
    let ai_url = format!("http://127.0.0.1:{}/v1", free_port());
    let env = [
        ("STUDIO_BILLING", "test"),
        ("STUDIO_PAYMENTS_WEBHOOK_SECRET", webhook_secret.as_str()),
        ("STUDIO_AI_URL", ai_url.as_str()),
        ("STUDIO_AI_KEY", ai_key.as_str()),
        ("STUDIO_AI_MODEL", "vision-test"),
        ("STUDIO_RATE_LIMIT_PER_MIN", "600"),
        ("STUDIO_RATE_LIMIT_BURST", "100"),
    ];
    let server = start(&dir.path().join("data"), &log, &env).await;
    let anon = Client::builder(&server.base).build().unwrap();

    let email = format!("secrets-{}@example.com", &random_hex()[..16]);
    let password = format!("pw-{}", &random_hex()[..40]);
    let wrong_password = format!("wrong-{}", &random_hex()[..40]);
    let signed_up = anon.sign_up(&email, &password, Some("Secret Keeper")).await.expect("sign up");
    let wrong = anon.sign_in(&email, &wrong_password).await.expect_err("wrong password");
    assert_eq!(wrong.status(), Some(401));
    let signed_in = anon.sign_in(&email, &password).await.expect("sign in");
    let session = anon.with_session(&signed_in.session);
    assert!(anon.check_email(&email).await.expect("check-email").exists);
    assert_eq!(session.session().await.expect("the cookie works").organization.id, signed_up.account.organization.id);

    let member = session.mint_key("member", None).await.expect("mint").key.expect("secret");
    let viewer = session.mint_key("viewer", Some(KeyRole::Viewer)).await.expect("mint").key.expect("secret");
    let doomed = session.mint_key("doomed", None).await.expect("mint");
    let doomed_secret = doomed.key.clone().expect("secret");
    let key = anon.with_api_key(&member);
    assert!(anon.with_api_key(&doomed_secret).balance().await.is_ok());
    session.revoke_key(&doomed.id).await.expect("revoke");
    assert_eq!(anon.with_api_key(&doomed_secret).balance().await.expect_err("revoked").status(), Some(401));
    let made_up = format!("studio_sk_{}", random_hex());
    assert_eq!(anon.with_api_key(&made_up).balance().await.expect_err("made up").status(), Some(401));
    let as_viewer = anon.with_api_key(&viewer);
    assert!(as_viewer.list_assets(None).await.is_ok());

    let asset = key.upload_bytes("look.png", png(96, 64), &UploadOptions::default()).await.expect("upload").asset.id;
    let develop = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(64, 64) })
        .quality(Quality::K1);
    let job = key.submit_develop(&develop).await.expect("submit").job_id;
    let done = key.wait_for(&job, Duration::from_secs(120)).await.expect("develop");
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!(as_viewer.submit_develop(&develop).await.expect_err("viewer").status(), Some(403));

    let init =
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "protocolVersion": "2025-06-18" } });
    key.mcp(&init).await.expect("initialize");
    let balance = key.mcp(&tool_call(1, "check_balance", json!({}))).await.expect("mcp").expect("answer");
    assert_eq!(balance["result"]["isError"], json!(false), "{balance}");
    let start = tool_call(
        2,
        "start_develop",
        json!({ "tool": "upscale", "inputs": { "image": asset }, "quality": "1k", "idempotencyKey": "secrets-1" }),
    );
    let started = key.mcp(&start).await.expect("mcp").expect("answer");
    assert_eq!(started["result"]["isError"], json!(false), "{started}");
    let read = key.mcp(&tool_call(3, "read_build", json!({ "assetId": asset }))).await.expect("mcp").expect("answer");
    assert_eq!(read["result"]["isError"], json!(true), "the AI reader is unreachable: {read}");

    // A test-mode payment: the core signs payment.succeeded with the webhook secret and checks it.
    let url = session.checkout_topup("pack_250").await.expect("checkout").url;
    let http = reqwest::Client::new();
    let url = if url.starts_with("http") { url } else { format!("{}{url}", server.base) };
    let paid = http.post(url).send().await.unwrap();
    assert_eq!(paid.status(), 200, "the test checkout confirms");
    assert_eq!(key.balance().await.unwrap().topup, 250, "the signed delivery granted");
    let forged = http
        .post(format!("{}/api/toolkit/ai/billing/webhook/provider", server.base))
        .header("webhook-id", "msg_forged")
        .header("webhook-timestamp", chrono::Utc::now().timestamp().to_string())
        .header("webhook-signature", format!("v1,{}", &webhook_secret["whsec_".len()..]))
        .body(r#"{"type":"payment.succeeded"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 401);

    session.sign_out().await.expect("sign out");
    assert_eq!(session.session().await.expect_err("signed out").status(), Some(401));
    drop(server);

    let text = std::fs::read_to_string(&log).expect("read the log");
    // The log really is at debug and really saw the workload, so an empty search means something.
    for seen in ["DEBUG", "/api/auth/sign-in", "/api/mcp", "/api/toolkit/jobs/submit", job.as_str()] {
        assert!(text.contains(seen), "the log shows {seen:?}; it has {} lines", text.lines().count());
    }
    let hex = |secret: &str| secret.trim_start_matches("studio_sk_").to_string();
    let secrets = [
        ("the password", password.clone()),
        ("the wrong password", wrong_password.clone()),
        ("the sign-up session", signed_up.session.clone()),
        ("the sign-in session", signed_in.session.clone()),
        ("the member key", member.clone()),
        ("the member key's random part", hex(&member)),
        ("the viewer key", viewer.clone()),
        ("the revoked key", doomed_secret.clone()),
        ("the made-up key", made_up.clone()),
        ("the webhook secret", webhook_secret.clone()),
        ("the webhook secret's key part", webhook_secret["whsec_".len()..].to_string()),
        ("the AI key", ai_key.clone()),
    ];
    let leaks: Vec<String> = secrets
        .iter()
        .flat_map(|(what, secret)| {
            text.lines().filter(move |line| line.contains(secret.as_str())).map(move |line| format!("{what}: {line}"))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets in the log:\n{}", leaks.join("\n"));
}
