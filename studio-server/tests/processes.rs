//! Real server processes: killed with SIGKILL mid-work and restarted on the same data (every
//! job ends terminal with its hold settled or released), and two processes on one PostgreSQL
//! database (a job submitted on one and run by the other is seen on the sockets of both, and
//! every job runs exactly once).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use studio_client::api::{JobStatus, Quality, SocketMessage};
use studio_client::{Client, DevelopSubmit, EventStream, InputSource};

const WAIT: Duration = Duration::from_secs(180);

/// A `studio-server` process.
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

async fn start(data_dir: &Path, database_url: Option<&str>, runners: usize) -> Server {
    let port = free_port();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_studio-server"));
    cmd.env("STUDIO_LISTEN", format!("127.0.0.1:{port}"))
        .env("STUDIO_DATA_DIR", data_dir)
        .env("STUDIO_RUNNER_CONCURRENCY", runners.to_string())
        .env("STUDIO_RUNNER_LEASE_SECS", "3")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    match database_url {
        Some(url) => cmd.env("STUDIO_DATABASE_URL", url),
        None => cmd.env_remove("STUDIO_DATABASE_URL"),
    };
    let base = format!("http://127.0.0.1:{port}");
    // Dropping the Server kills and reaps the process on every path, the panic below included.
    let server = Server { child: cmd.spawn().expect("start studio-server"), base };
    let client = Client::builder(&server.base).build().expect("client");
    for _ in 0..300 {
        if client.health().await.is_ok() {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("studio-server did not become healthy on {}", server.base);
}

fn png(w: u32, h: u32, seed: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x as u8).wrapping_add(seed), (y % 251) as u8, seed]))
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode");
    out
}

/// Sign up on `server` and mint a member key: a key client and the house id.
async fn house(server: &Server) -> (Client, String) {
    let anon = Client::builder(&server.base).build().unwrap();
    let email = format!("proc-{}@example.com", uuid_like());
    let signed = anon.sign_up(&email, "a long enough password", None).await.expect("sign up");
    let key = anon.with_session(&signed.session).mint_key("proc", None).await.expect("mint").key.expect("secret");
    (anon.with_api_key(key), signed.account.organization.id)
}

fn uuid_like() -> String {
    format!(
        "{:x}{:x}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
    )
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
    let (key, _) = house(&server).await;
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
    let key = Client::builder(&server.base).api_key(key.api_key().unwrap()).build().unwrap();
    assert_ledger_settled(&key, &ids).await;
    let done = key.jobs_since(0).await.unwrap().jobs.iter().filter(|j| j.status == JobStatus::Done).count();
    assert_eq!(done, ids.len(), "the local provider lands every frame once recovered");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_sqlite_recovers_every_job() {
    restart_recovers_every_job(None).await;
}

/// A fresh database on the server `STUDIO_TEST_POSTGRES_URL` names; None when unset.
async fn fresh_postgres() -> Option<String> {
    use sqlx::Connection;
    let server = std::env::var("STUDIO_TEST_POSTGRES_URL").ok().filter(|s| !s.trim().is_empty())?;
    let server = server.trim_end_matches('/').to_string();
    let name = format!("studio_proc_{}", uuid_like());
    let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres")).await.expect("postgres reachable");
    sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.expect("create database");
    Some(format!("{server}/{name}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_postgres_recovers_every_job() {
    let Some(url) = fresh_postgres().await else {
        eprintln!("skipped: STUDIO_TEST_POSTGRES_URL not set");
        return;
    };
    restart_recovers_every_job(Some(url)).await;
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
    let Some(url) = fresh_postgres().await else {
        eprintln!("skipped: STUDIO_TEST_POSTGRES_URL not set");
        return;
    };
    // One blob directory, as replicas share one object store.
    let dir = tempfile::tempdir().unwrap();
    let front = start(dir.path(), Some(&url), 0).await; // takes requests, runs nothing
    let back = start(dir.path(), Some(&url), 2).await; // runs the jobs
    let (key, org_id) = house(&front).await;
    let key_back = Client::builder(&back.base).api_key(key.api_key().unwrap()).build().unwrap();
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
        let job = storage.job(&org_id, id).await.unwrap().expect("job");
        assert_eq!((job.status.as_str(), job.attempts), ("done", 1), "{id}");
    }
    let results = storage.list_assets(&org_id, None).await.unwrap();
    assert_eq!(results.iter().filter(|a| a.tool.as_deref() == Some("upscale")).count(), ids.len());
}
