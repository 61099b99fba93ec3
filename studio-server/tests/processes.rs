//! Real server processes: killed with SIGKILL mid-work and restarted on the same data (every
//! job ends terminal with its hold settled or released; a pipeline run killed mid-chain
//! finishes with nothing held), and two processes on one PostgreSQL
//! database (a job submitted on one and run by the other is seen on the sockets of both, and
//! every job runs exactly once).

use studio_core::JobId;
mod common;

use std::time::Duration;

use common::{Server, WAIT, fresh_postgres, house, png};
use studio_client::api::{JobStatus, Quality, SocketMessage};
use studio_client::{Client, DevelopSubmit, EventStream, InputSource};

async fn start(data_dir: &std::path::Path, database_url: Option<&str>, runners: usize) -> Server {
    Server::start(data_dir, database_url, runners, &[]).await
}

fn develop(seed: u8, quality: Quality) -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: format!("{seed}.png"), bytes: png(300, 200, seed) })
        .quality(quality)
}

/// Every hold resolved, and the balance is the grant less what the landed frames settled.
async fn assert_ledger_settled(key: &Client, ids: &[String]) {
    let mut settled = 0;
    for id in ids {
        let status = key.wait_for(id, WAIT).await.expect("wait");
        assert!(matches!(status.status, JobStatus::Done | JobStatus::Failed), "{status:?}");
        settled += status.tokens_settled.expect("settled or released");
        if status.status == JobStatus::Done {
            assert_eq!(status.tokens_settled, Some(status.tokens_estimated));
        }
    }
    let balance = key.balance().await.unwrap();
    assert_eq!((balance.held, balance.holds.len()), (0, 0), "no stranded hold");
    assert_eq!(balance.balance, 100 - settled);
}

async fn restart_recovers_every_job(database_url: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), database_url.as_deref(), 1).await;
    let key = house(&server).await.key;
    let mut ids = Vec::new();
    for seed in 0..5u8 {
        ids.push(key.submit_develop(&develop(seed, Quality::K4)).await.expect("submit").job_id);
    }
    // Kill the server while a frame renders and the rest wait in the queue.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let jobs = key.jobs_since(0).await.unwrap().jobs;
        if jobs.iter().any(|j| j.status == JobStatus::Running) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no job started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(server); // SIGKILL
    let before = key.balance().await;
    assert!(before.is_err(), "the server is gone");

    let server = start(dir.path(), database_url.as_deref(), 2).await;
    let key = server.with_key(key.api_key().unwrap());
    assert_ledger_settled(&key, &ids).await;
    let done = key.jobs_since(0).await.unwrap().jobs.iter().filter(|j| j.status == JobStatus::Done).count();
    assert_eq!(done, ids.len(), "the local provider lands every frame once recovered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_sqlite_recovers_every_job() {
    restart_recovers_every_job(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_postgres_recovers_every_job() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    restart_recovers_every_job(Some(url)).await;
}

/// A pipeline call with the house's key: status and body.
async fn pipeline_call(
    server: &Server,
    key: &Client,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let http = reqwest::Client::new();
    let url = format!("{}{path}", server.base);
    let req = match body {
        Some(b) => http.post(url).json(&b),
        None => http.get(url),
    };
    let res = req.bearer_auth(key.api_key().expect("a key")).send().await.expect("send");
    (res.status().as_u16(), res.json().await.unwrap_or_default())
}

async fn pipeline_survives_a_kill(database_url: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), database_url.as_deref(), 1).await;
    let key = house(&server).await.key;
    let mut items = Vec::new();
    for seed in 0..3u8 {
        let bytes = png(300, 200, seed);
        let asset = key.upload_bytes(&format!("{seed}.png"), bytes, &Default::default()).await.expect("upload");
        items.push(serde_json::json!({ "image": asset.asset.id }));
    }
    let plan = serde_json::json!({ "name": "enlarge, then square", "nodes": [
        { "id": "a", "tool": "upscale", "quality": "4k", "inputs": { "image": { "item": "image" } } },
        { "id": "b", "tool": "reframe", "quality": "2k", "params": { "aspect": "1:1" },
          "inputs": { "image": { "node": "a" } } }
    ] });
    let body = serde_json::json!({ "plan": plan, "items": items });
    let (status, started) = pipeline_call(&server, &key, "/api/toolkit/pipelines/runs", Some(body)).await;
    assert_eq!(status, 202, "{started}");
    let path = format!("/api/toolkit/pipelines/runs/{}", started["runId"].as_str().unwrap());
    let tokens = started["compiled"]["tokens"].as_i64().unwrap();
    // Kill the server while a frame of the chain renders.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let jobs = key.jobs_since(0).await.unwrap().jobs;
        if jobs.iter().any(|j| j.status == JobStatus::Running) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no step started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(server); // SIGKILL
    assert!(key.balance().await.is_err(), "the server is gone");

    let server = start(dir.path(), database_url.as_deref(), 2).await;
    let key = server.with_key(key.api_key().unwrap());
    let deadline = tokio::time::Instant::now() + WAIT;
    let run = loop {
        let (status, view) = pipeline_call(&server, &key, &path, None).await;
        assert_eq!(status, 200, "{view}");
        if view["run"]["status"] != "developing" {
            break view;
        }
        assert!(tokio::time::Instant::now() < deadline, "the run did not finish: {view}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(run["run"]["status"], "done", "{run}");
    assert_eq!(run["run"]["steps"]["done"], 6);
    assert_eq!((run["run"]["tokensSpent"].as_i64(), run["run"]["tokensHeld"].as_i64()), (Some(tokens), Some(0)));
    let balance = key.balance().await.unwrap();
    assert_eq!((balance.held, balance.holds.len(), balance.balance), (0, 0, 100 - tokens), "nothing held");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_survives_a_kill_sqlite() {
    pipeline_survives_a_kill(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_survives_a_kill_postgres() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    pipeline_survives_a_kill(Some(url)).await;
}

/// Collect job changes from a stream until every id in `ids` was seen done.
async fn until_all_done(stream: &mut EventStream, ids: &[String]) {
    let mut done = std::collections::HashSet::new();
    while done.len() < ids.len() {
        let event = tokio::time::timeout(WAIT, stream.next()).await.expect("events keep coming").expect("event");
        if let SocketMessage::Job { job } = event
            && job.status == JobStatus::Done
            && ids.contains(&job.id)
        {
            done.insert(job.id);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_processes_share_jobs_and_events() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    // One blob directory, as replicas share one object store.
    let dir = tempfile::tempdir().unwrap();
    let front = start(dir.path(), Some(&url), 0).await; // takes requests, runs nothing
    let back = start(dir.path(), Some(&url), 2).await; // runs the jobs
    let common::House { key, org_id, .. } = house(&front).await;
    let key_back = back.with_key(key.api_key().unwrap());
    let mut on_front = key.events(0);
    let mut on_back = key_back.events(0);
    // Open both sockets before submitting, so the socket (not only the backfill) is exercised.
    let first = key.submit_develop(&develop(200, Quality::K1)).await.unwrap().job_id;
    until_all_done(&mut on_front, std::slice::from_ref(&first)).await;
    until_all_done(&mut on_back, std::slice::from_ref(&first)).await;

    let mut more = Vec::new();
    for seed in 0..8u8 {
        more.push(key.submit_develop(&develop(seed, Quality::K1)).await.unwrap().job_id);
    }
    until_all_done(&mut on_front, &more).await;
    until_all_done(&mut on_back, &more).await;
    let mut ids = vec![first];
    ids.extend(more);
    assert_ledger_settled(&key, &ids).await;

    // Every job ran exactly once: claimed once, one result asset each.
    let storage = studio_core::open_storage(&url).await.expect("storage");
    for id in &ids {
        let job = storage.job(&org_id, &JobId::from(id)).await.unwrap().expect("job");
        assert_eq!((job.status.as_str(), job.attempts), ("done", 1), "{id}");
    }
    let results = storage.list_assets(&org_id, None).await.unwrap();
    assert_eq!(results.iter().filter(|a| a.tool.as_deref() == Some("upscale")).count(), ids.len());
}

/// Run `studio-server admin ARGS` on the data a running server uses; (exit code, stdout).
fn admin_command(data_dir: &std::path::Path, database_url: Option<&str>, args: &[&str]) -> (i32, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_studio-server"));
    cmd.arg("admin").args(args).env("STUDIO_DATA_DIR", data_dir).env("RUST_LOG", "error");
    match database_url {
        Some(url) => cmd.env("STUDIO_DATABASE_URL", url),
        None => cmd.env_remove("STUDIO_DATABASE_URL"),
    };
    let out = cmd.output().expect("run studio-server admin");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The operator's `admin add|list|remove` on the binary, while the server serves: add makes an
/// admin effective on the next request, remove takes it away on the next one, an unknown email
/// exits 2 and changes nothing.
async fn operator_admin_commands(database_url: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let db = database_url.as_deref();
    let server = start(dir.path(), db, 0).await;
    let anon = server.client();
    let email = format!("op-{}@example.com", common::unique());
    let signed = anon.sign_up(&email, "a long enough password", None).await.expect("sign up");
    let admin = anon.with_session(&signed.session);
    let grant = studio_client::api::GrantTokensRequest {
        user_id: Some(signed.account.user.id.clone()),
        tokens: Some(5.into()),
        ..Default::default()
    };
    assert_eq!(admin.admin_grant_tokens(&grant).await.unwrap_err().status(), Some(403), "not an admin yet");

    assert_eq!(admin_command(dir.path(), db, &["add", &email]), (0, signed.account.user.id.clone()));
    assert_eq!(admin.admin_grant_tokens(&grant).await.expect("admin now").granted, 5);
    let (code, listed) = admin_command(dir.path(), db, &["list"]);
    assert_eq!((code, listed), (0, format!("{}\t{email}", signed.account.user.id)));

    assert_eq!(admin_command(dir.path(), db, &["remove", &email]).0, 0);
    assert_eq!(admin.admin_grant_tokens(&grant).await.unwrap_err().status(), Some(403), "removed on the next call");
    assert_eq!(admin_command(dir.path(), db, &["add", "nobody@example.com"]), (2, String::new()));
    assert_eq!(admin_command(dir.path(), db, &["list"]), (0, String::new()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_commands_sqlite() {
    operator_admin_commands(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_commands_postgres() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    operator_admin_commands(Some(url)).await;
}
