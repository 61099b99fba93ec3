//! Crash recovery: the real server is SIGKILLed in the middle of a mixed workload (uploads
//! large and small, develops, packs queued behind a building one), restarted on the same data
//! directory and database, and then: every upload that was answered 201 reads back
//! byte-identical, no asset row lacks its bytes (an upload cut off by the kill leaves nothing
//! or a whole frame), every job has ended (re-run after its lease lapsed) with its hold settled
//! or released and the ledger conserved, and every pack completes with all its entries.
//!
//!
//! A webhook delivery cut off by a kill (the receiver has the request, the server never hears
//! back) is made again by the restarted server once its claim's lease lapses, under the same
//! `webhook-id`, and recorded as delivered.
//!
//! `STUDIO_CRASH_ROUNDS` sets how many kill-and-restart rounds run (default 2) and
//! `STUDIO_CHAOS_SEED` replays a run's workload (sizes, tools and the moment of the kill).

use studio_core::{HoldStatus, PackId};
#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use studio_client::api::{JobStatus, PackRequest, PackSize, Quality};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};

use common::{Rng, Server, WAIT, fresh_postgres, house, storage};

/// Packs of this many frames or more are queued for the worker (the spec's instant limit).
const QUEUED_PACK_FRAMES: usize = 250;
/// The rendition every pack adds beside the originals.
const SIZES: [(&str, u32); 1] = [("thumb", 96)];
/// Claims before the runner gives a job up (`RunnerConfig::default().max_attempts`).
const MAX_ATTEMPTS: i64 = 3;

/// A PNG of noise (so it barely compresses): `w` × `h` pixels from `rng`.
fn noise(rng: &mut Rng, w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let pixels: Vec<u8> = (0..w * h * 3).map(|_| rng.next_u64() as u8).collect();
    image::RgbImage::from_raw(w, h, pixels)
        .expect("buffer")
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode");
    out
}

/// What the clients were answered, across rounds.
#[derive(Default)]
struct Answered {
    /// Uploads answered 201: asset id → the bytes sent.
    uploads: BTreeMap<String, Vec<u8>>,
    /// Jobs whose submit was answered.
    jobs: Vec<String>,
    /// Queued packs: id → entries expected.
    packs: BTreeMap<String, i64>,
}

/// One round's workload on a live process, until the process is killed.
struct Workload {
    key: Client,
    answered: Arc<Mutex<Answered>>,
    /// Set just before the SIGKILL: from then on a failed call is expected.
    killed: Arc<AtomicBool>,
}

impl Workload {
    /// A call failed: fine once the process was killed, a failure of the run before.
    fn failed(&self, what: &str, e: &studio_client::Error) {
        ensure!(self.killed.load(Ordering::SeqCst), "{what} failed while the server was up: {e}");
    }

    fn frames(&self) -> Vec<String> {
        self.answered.lock().unwrap().uploads.keys().cloned().collect()
    }

    /// Upload frames one after another, mostly small, one in ten about a megabyte (so an upload
    /// is often in flight when the process dies).
    async fn uploads(self, mut rng: Rng) {
        loop {
            let (w, h) =
                if rng.chance(10) { (600 + rng.below(200) as u32, 600) } else { (48, 32 + rng.below(64) as u32) };
            let bytes = noise(&mut rng, w, h);
            match self.key.upload_bytes("frame.png", bytes.clone(), &UploadOptions::default()).await {
                Ok(r) => {
                    self.answered.lock().unwrap().uploads.insert(r.asset.id, bytes);
                }
                Err(e) => return self.failed("an upload", &e),
            }
        }
    }

    /// Submit develops of library frames, one after another.
    async fn develops(self, mut rng: Rng) {
        loop {
            let frames = self.frames();
            let develop = DevelopSubmit::new("upscale")
                .input("image", InputSource::Asset(rng.pick(&frames).clone()))
                .quality(*rng.pick(&[Quality::K1, Quality::K2]));
            match self.key.submit_develop(&develop).await {
                Ok(r) => self.answered.lock().unwrap().jobs.push(r.job_id),
                Err(e) => return self.failed("a submit", &e),
            }
            tokio::time::sleep(Duration::from_millis(rng.below(200) as u64)).await;
        }
    }

    /// Ask for a pack of every frame (queued: it is over the instant limit).
    async fn pack(&self) -> Option<String> {
        let request = PackRequest {
            asset_ids: self.frames(),
            name: Some("crash".into()),
            sizes: SIZES
                .iter()
                .map(|(name, px)| PackSize { name: name.to_string(), width: *px, height: *px })
                .collect(),
        };
        match self.key.create_pack(&request).await {
            Ok(pack) => {
                ensure!(pack.mode == "pack", "a pack of {} frames is queued: {pack:?}", request.asset_ids.len());
                self.answered.lock().unwrap().packs.insert(pack.pack_id.clone(), pack.items);
                Some(pack.pack_id)
            }
            Err(e) => {
                self.failed("a pack", &e);
                None
            }
        }
    }

    fn clone_for(&self) -> Workload {
        Workload { key: self.key.clone(), answered: self.answered.clone(), killed: self.killed.clone() }
    }
}

/// Wait until one of `packs` is being built and a develop renders.
async fn busy(key: &Client, packs: &[String]) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let mut building = false;
        for pack in packs {
            building |= key.get_pack(pack).await.is_ok_and(|p| p.status == "building");
        }
        let running = key.jobs_since(0).await.is_ok_and(|l| l.jobs.iter().any(|j| j.status == JobStatus::Running));
        if building && running {
            return;
        }
        ensure!(tokio::time::Instant::now() < deadline, "the workload never got busy");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn crash_recovery(database_url: Option<String>) {
    let seed = common::seed();
    let rounds: u64 = std::env::var("STUDIO_CRASH_ROUNDS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(2);
    eprintln!("crash: {rounds} rounds, seed {seed} (reproduce with STUDIO_CHAOS_SEED={seed})");
    let dir = tempfile::tempdir().unwrap();
    let env = [("STUDIO_SIGNUP_GRANT_TOKENS", "1000000".to_string())];
    let start = || Server::start(dir.path(), database_url.as_deref(), 2, &env);
    let mut server = start().await;
    let h = house(&server).await;
    let secret = h.key.api_key().unwrap().to_string();
    let answered = Arc::new(Mutex::new(Answered::default()));
    let mut rng = Rng::new(seed, 0);

    // A library big enough that packing it is queued.
    for _ in 0..QUEUED_PACK_FRAMES {
        let tall = 16 + rng.below(16) as u32;
        let bytes = noise(&mut rng, 16, tall);
        let r = h.key.upload_bytes("frame.png", bytes.clone(), &UploadOptions::default()).await.expect("upload");
        answered.lock().unwrap().uploads.insert(r.asset.id, bytes);
    }

    for round in 0..rounds {
        let killed = Arc::new(AtomicBool::new(false));
        let work = Workload { key: server.with_key(&secret), answered: answered.clone(), killed: killed.clone() };
        // Two packs: the first is built while the second waits in the queue.
        let packs = vec![work.pack().await.expect("pack"), work.pack().await.expect("pack")];
        let uploads = tokio::spawn(work.clone_for().uploads(Rng::new(seed, 10 + round)));
        let develops = tokio::spawn(work.clone_for().develops(Rng::new(seed, 20 + round)));
        busy(&work.key, &packs).await;
        tokio::time::sleep(Duration::from_millis(rng.below(300) as u64)).await;
        killed.store(true, Ordering::SeqCst);
        drop(server); // SIGKILL
        uploads.await.expect("uploads");
        develops.await.expect("develops");
        server = start().await;
    }

    let key = server.with_key(&secret);
    let storage = storage(dir.path(), database_url.as_deref()).await;
    let answered = std::mem::take(&mut *answered.lock().unwrap());

    // Every pack completes, with every original and rendition.
    for (id, items) in &answered.packs {
        let pack = key.wait_for_pack(id, Duration::from_millis(200), WAIT).await.expect("pack");
        ensure!(pack.status == "ready", "pack {id} after the restart: {pack:?}");
        let file = dir.path().join(format!("{id}.zip"));
        key.download_pack(id, &file, |_, _| {}).await.expect("download");
        let archive = zip::ZipArchive::new(std::fs::File::open(&file).unwrap()).expect("a whole zip");
        ensure!(archive.len() as i64 == *items, "pack {id} holds {} of {items} entries", archive.len());
    }

    // Every job has ended, re-run if it was cut off, and its hold resolved the way it ended.
    for id in &answered.jobs {
        let status = key.wait_for(id, WAIT).await.expect("job");
        ensure!(status.status.is_terminal(), "{status:?}");
    }
    let jobs = storage.jobs_since(&h.org_id, 0, 1_000_000).await.unwrap();
    let mut settled = 0;
    for job in &jobs {
        let hold = storage.hold(&h.org_id, &job.hold_id).await.unwrap().expect("hold");
        let gave_up = job.status == JobStatus::Failed && job.attempts > MAX_ATTEMPTS;
        ensure!(job.status == JobStatus::Done || gave_up, "{job:?}");
        let expected = if job.status == JobStatus::Done { HoldStatus::Settled } else { HoldStatus::Released };
        ensure!(hold.status == expected, "{job:?}: {hold:?}");
        if job.status == JobStatus::Done {
            settled += job.tokens;
        }
    }
    let totals = storage.balance(&h.org_id).await.unwrap();
    let ledger = storage.audit(&h.org_id).await.unwrap();
    ensure!((totals.held, storage.open_holds(&h.org_id).await.unwrap().len()) == (0, 0), "stranded: {totals:?}");
    ensure!(totals.settled == settled, "settled {totals:?}, frames {settled}");
    ensure!(totals.spendable() + totals.settled == totals.credited, "conserved: {totals:?}");
    ensure!(
        (ledger.grant_tokens, ledger.topup_tokens, ledger.held, ledger.settled, ledger.credited)
            == (totals.grant_tokens, totals.topup_tokens, totals.held, totals.settled, totals.credited),
        "running totals {totals:?} against the ledger {ledger:?}"
    );

    // Every upload answered 201 reads back byte-identical.
    for (id, bytes) in &answered.uploads {
        let read = key.asset_bytes(id).await.unwrap_or_else(|e| fail!("{id}: {e}"));
        ensure!(read.as_ref() == bytes.as_slice(), "upload {id} reads back different bytes");
    }
    // No row without its bytes: uploads cut off by the kill and develops' results included.
    let rows = storage.list_assets(&h.org_id, None).await.unwrap();
    for row in &rows {
        let read = key.asset_bytes(&row.id).await.unwrap_or_else(|e| fail!("{}: {e}", row.id));
        ensure!(hex::encode(Sha256::digest(&read)) == row.sha256 && read.len() as i64 == row.bytes, "{row:?}");
    }
    let mut resumed = 0;
    for id in answered.packs.keys() {
        resumed +=
            usize::from(storage.pack(&h.org_id, &PackId::from(id)).await.unwrap().is_some_and(|p| p.attempts > 1));
    }
    // The kill always lands while a pack builds: that build was taken over after the restart.
    ensure!(resumed > 0, "no pack was resumed after a kill");
    eprintln!(
        "crash (seed {seed}): {} uploads answered ({} more filed whose answer the kill cut off), {} jobs ({} re-run), \
         {} packs ({resumed} resumed after a kill)",
        answered.uploads.len(),
        rows.iter().filter(|r| r.tool.is_none() && !answered.uploads.contains_key(r.id.as_str())).count(),
        jobs.len(),
        jobs.iter().filter(|j| j.attempts > 1).count(),
        answered.packs.len(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_sqlite_recovers_uploads_jobs_and_packs() {
    crash_recovery(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_postgres_recovers_uploads_jobs_and_packs() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    crash_recovery(Some(url)).await;
}

/// What a receiver got: the `webhook-id` of each request, in order.
type Ids = Arc<Mutex<Vec<String>>>;

/// A receiver on 127.0.0.1 that never answers its first request (the server is killed while it
/// waits) and answers 200 to every later one.
async fn hanging_receiver() -> (String, Ids, Arc<tokio::sync::Notify>) {
    let ids: Ids = Arc::default();
    let first = Arc::new(tokio::sync::Notify::new());
    let (log, told) = (ids.clone(), first.clone());
    let handler = move |headers: axum::http::HeaderMap| {
        let (log, told) = (log.clone(), told.clone());
        async move {
            let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            let n = {
                let mut seen = log.lock().unwrap();
                seen.push(id);
                seen.len()
            };
            if n == 1 {
                told.notify_one();
                std::future::pending::<()>().await;
            }
            "ok"
        }
    };
    let app = axum::Router::new().route("/hook", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (format!("http://{addr}/hook"), ids, first)
}

async fn webhook_cut_off_by_a_kill(database_url: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let env =
        [("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "1".to_string()), ("STUDIO_WEBHOOKS_LEASE_SECS", "3".to_string())];
    // No runner: the submit's `queued` is the one event.
    let start = || Server::start(dir.path(), database_url.as_deref(), 0, &env);
    let server = start().await;
    let h = house(&server).await;
    let (url, ids, first) = hanging_receiver().await;
    let owner = server.client().with_session(&h.session);
    let new = studio_client::api::NewWebhook { url, ..Default::default() };
    let endpoint = owner.create_webhook(&new).await.expect("create").webhook.id;
    let png = common::png(40, 30, 7);
    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png })
        .quality(Quality::K1);
    h.key.submit_develop(&submit).await.expect("submit");
    tokio::time::timeout(Duration::from_secs(30), first.notified())
        .await
        .expect("the first attempt reached the receiver");
    drop(server); // SIGKILL while the receiver holds the request

    let server = start().await;
    let storage = storage(dir.path(), database_url.as_deref()).await;
    let mut delivered = false;
    for _ in 0..300 {
        if storage.webhook_delivery_counts(&h.org_id).await.unwrap() == vec![("delivered".to_string(), 1)] {
            delivered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen = ids.lock().unwrap().clone();
    ensure!(delivered, "not delivered after the restart; the receiver saw {seen:?}");
    ensure!(seen.len() == 2 && seen[0] == seen[1] && seen[0].starts_with("msg_"), "{seen:?}");
    let log =
        server.client().with_session(&h.session).webhook_deliveries(&endpoint, &Default::default()).await.expect("log");
    // The cut-off attempt logged nothing (the server died waiting); the one after says 2.
    let attempts: Vec<(i32, bool)> = log.deliveries.iter().map(|d| (d.attempt, d.ok)).collect();
    ensure!(attempts == vec![(2, true)], "{attempts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_sqlite_webhook_cut_off_is_delivered_after_restart() {
    webhook_cut_off_by_a_kill(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_postgres_webhook_cut_off_is_delivered_after_restart() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    webhook_cut_off_by_a_kill(Some(url)).await;
}
