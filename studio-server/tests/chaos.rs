//! Ledger chaos: concurrent clients throw seeded random operations at real server processes
//! (one over SQLite; two over one PostgreSQL database) — submits, idempotent replays, cancels,
//! duplicates, takes, develops on a fal queue that fails on demand, signed payment webhooks
//! delivered more than once, auto top-up runs and balance reads — and then every house must
//! balance: Σ credits = spendable + held + settled, the running totals equal the ledger's
//! entries, spendable never went negative, every hold was reserved once and resolved once the
//! way its job ended, every job is terminal, and every credit is one the clients were granted.
//!
//! The money paths of the route groups (look variations, pipeline runs, AI lanes, priced chat
//! turns and chat apply, exclusive model checkouts) have their own tests in `chaos/money.rs`,
//! under the same audit.
//!
//! `STUDIO_CHAOS_OPS` sets the number of operations per backend (default 200) and
//! `STUDIO_CHAOS_SEED` replays a run: the seed decides every client's sequence of operations
//! (the interleaving is the machine's). Every failure names the seed.

use studio_core::{HoldStatus, JobId, RunId, RunStatus};
#[macro_use]
mod common;
#[path = "chaos/money.rs"]
mod money;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use studio_client::api::{JobStatus, Quality, SubmitResponse, TakesRequest};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use common::{Rng, Server, WAIT, fresh_postgres, house, png, storage, unique};

/// The webhook secret every process verifies (and test mode signs auto top-ups with).
const SECRET: &str = "whsec_Y2hhb3MgaW4gdGhlIGxlZGdlcg==";
const WEBHOOK: &str = "/api/toolkit/ai/billing/webhook/provider";
const SIGNUP_GRANT: i64 = 20;
/// The refill pack: what every top-up and auto top-up buys.
const PACK: &str = "pack_250";
const PACK_TOKENS: i64 = 250;
/// Auto top-up charges below this many spendable tokens.
const THRESHOLD: i64 = 100;
/// The tool routed to the fake fal queue; its `chaos` option says how the queue answers.
const FAL_TOOL: &str = "fit-adjust";
const FAL_MODEL: &str = "chaos/fit";
/// What one AI lane holds (the price book's utility charge).
const LANE_PRICE: i64 = 1;
/// What one chat turn holds (`STUDIO_CHAT_TURN_PRICE` of the money paths' servers).
const TURN_PRICE: i64 = 2;
const HOUSES: usize = 3;
const CLIENTS_PER_HOUSE: usize = 2;
const DEFAULT_OPS: usize = 200;

/// The fal queue's submit: `chaos=reject` is refused (422: the job fails), `chaos=down` is
/// unavailable (503: retried, then failed), `chaos=flaky` is unavailable every other time, and
/// anything else is queued. A look's frame (no `chaos` option: the look names its own) answers
/// by its variation key: `back` is refused, `detail` is flaky, `seated` is down.
struct FalSubmit {
    calls: AtomicU64,
}

impl Respond for FalSubmit {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let input: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let down = ResponseTemplate::new(503).set_body_json(json!({"detail": "chaos: the queue is down"}));
        let by_variation = match input["variation"].as_str() {
            Some("back") => Some("reject"),
            Some("detail") => Some("flaky"),
            Some("seated") => Some("down"),
            _ => None,
        };
        match input["chaos"].as_str().or(by_variation) {
            Some("reject") => ResponseTemplate::new(422).set_body_json(json!({"detail": "chaos: refused"})),
            Some("down") => down,
            Some("flaky") if n.is_multiple_of(2) => down,
            _ => ResponseTemplate::new(200).set_body_json(json!({"request_id": format!("req_{n}")})),
        }
    }
}

/// A fake fal queue for [`FAL_MODEL`]: submits answer as [`FalSubmit`] says, every status is
/// `COMPLETED` and every result is one small PNG.
async fn fal_queue() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{FAL_MODEL}")))
        .respond_with(FalSubmit { calls: AtomicU64::new(0) })
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path_regex(format!("^/{FAL_MODEL}/requests/[^/]+/status$")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "COMPLETED"})))
        .mount(&server)
        .await;
    let image = {
        use base64::Engine;
        format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png(48, 64, 7)))
    };
    Mock::given(method("GET"))
        .and(path_regex(format!("^/{FAL_MODEL}/requests/[^/]+$")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"images": [{"url": image}]})))
        .mount(&server)
        .await;
    Mock::given(method("PUT")).respond_with(ResponseTemplate::new(200).set_body_json(json!({}))).mount(&server).await;
    server
}

/// What the clients were told about one house.
#[derive(Debug, Default)]
struct Book {
    /// Every job a submit, duplicate or takes answered with.
    jobs: BTreeSet<String>,
    /// Jobs a client saw land.
    landed: Vec<String>,
    /// Tokens granted by webhooks and auto top-ups (the sign-up grant aside).
    credited: i64,
    /// How many grants those were.
    credits: i64,
    /// Pipeline runs the clients started (their steps' jobs are the scheduler's).
    runs: BTreeSet<String>,
    /// AI lanes answered (settled) and failed upstream (released): one [`LANE_PRICE`] hold each.
    lanes: Charges,
    /// Priced chat turns answered (settled) and handed to support because the reader failed
    /// (released): one [`TURN_PRICE`] hold each.
    turns: Charges,
    /// Cutouts remove-background filed in the library (assets with a tool but no job).
    cutouts: usize,
}

/// Holds of one kind that pays for no job, as the clients saw them end.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Charges {
    settled: i64,
    released: i64,
}

/// One house under chaos.
struct HouseRun {
    org_id: studio_core::OrgId,
    /// A member key's client on each process.
    keys: Vec<Client>,
    /// The owner's session on each process.
    owners: Vec<Client>,
    /// Library frames to develop.
    inputs: Vec<String>,
    /// Its owner buys packs now and then (the others live on auto top-up, or run dry).
    buys: bool,
    /// Its saved card refuses off-session charges.
    declines: bool,
    book: Mutex<Book>,
}

impl HouseRun {
    fn customer(&self) -> String {
        let decline = if self.declines { "decline_" } else { "" };
        format!("cus_chaos_{decline}{}", self.org_id)
    }

    fn jobs(&self) -> Vec<String> {
        self.book.lock().unwrap().jobs.iter().cloned().collect()
    }

    fn record(&self, job_id: &str) {
        self.book.lock().unwrap().jobs.insert(job_id.to_string());
    }

    fn credit(&self, tokens: i64) {
        let mut book = self.book.lock().unwrap();
        book.credited += tokens;
        book.credits += 1;
    }
}

/// A `payment.succeeded` event body for our `reference`.
fn payment(reference: &str, payment_id: &str, customer: &str) -> String {
    json!({"type": "payment.succeeded", "data": {"payment_id": payment_id,
        "customer": {"customer_id": customer}, "metadata": {"reference": reference}}})
    .to_string()
}

/// What every client shares.
struct Shared {
    /// The processes' base URLs.
    bases: Vec<String>,
    http: reqwest::Client,
}

impl Shared {
    /// Deliver `body` to `base`, signed as webhook `id`; the answer (always 200).
    async fn deliver(&self, base: &str, id: &str, body: &str) -> Value {
        let now = chrono::Utc::now().timestamp();
        let signature = studio_core::sign_webhook(SECRET, id, now, body.as_bytes()).unwrap();
        let res = self
            .http
            .post(format!("{base}{WEBHOOK}"))
            .header("webhook-id", id)
            .header("webhook-timestamp", now.to_string())
            .header("webhook-signature", signature)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap_or_else(|e| fail!("webhook not delivered: {e}"));
        let status = res.status().as_u16();
        let answer: Value = res.json().await.unwrap_or(Value::Null);
        ensure_eq!(status, 200, "webhook {id} answered {answer}");
        answer
    }

    /// Buy [`PACK`] for `house`: a checkout on one process, then its payment delivered one to
    /// three times (the same webhook id again, or the same payment under a new id), at once and
    /// to any process. Exactly one delivery grants.
    async fn top_up(&self, house: &HouseRun, rng: &mut Rng) {
        let owner = rng.pick(&house.owners);
        let url = match owner.checkout_topup(PACK).await {
            Ok(c) => c.url,
            Err(e) => fail!("checkout refused: {e}"),
        };
        let reference = url.rsplit('/').next().unwrap().to_string();
        let first = format!("msg_{}", unique());
        let mut ids = vec![first.clone()];
        for _ in 0..rng.below(3) {
            ids.push(if rng.chance(50) { first.clone() } else { format!("msg_{}", unique()) });
        }
        let body = payment(&reference, &format!("pay_{reference}"), &house.customer());
        let deliveries = ids.iter().map(|id| {
            let base = rng.pick(&self.bases).clone();
            let body = &body;
            async move { self.deliver(&base, id, body).await }
        });
        let answers = futures_util::future::join_all(deliveries.collect::<Vec<_>>()).await;
        let granted: Vec<&Value> = answers.iter().filter(|a| a.get("granted").is_some()).collect();
        ensure_eq!(granted.len(), 1, "one of {answers:?} grants");
        ensure_eq!(granted[0]["granted"], json!(PACK_TOKENS), "{answers:?}");
        let repeats = answers.iter().filter(|a| a["duplicate"] == json!(true)).count();
        ensure_eq!(repeats, answers.len() - 1, "every other delivery is a duplicate: {answers:?}");
        house.credit(PACK_TOKENS);
    }
}

/// One client: a seeded sequence of operations on one house, each sent to any process.
struct Actor {
    shared: Arc<Shared>,
    house: Arc<HouseRun>,
    index: usize,
    rng: Rng,
    submits: u64,
    /// The last accepted submit and its job, to replay.
    last: Option<(DevelopSubmit, String)>,
    /// Outcomes seen, by name (printed at the end).
    seen: BTreeMap<&'static str, u64>,
}

impl Actor {
    fn key(&mut self) -> Client {
        self.rng.pick(&self.house.keys).clone()
    }

    fn saw(&mut self, what: &'static str) {
        *self.seen.entry(what).or_default() += 1;
    }

    /// An error the operation may meet: not enough tokens (then `need` exceeds `spendable`,
    /// which is never negative), or one of `also`. Anything else fails the run.
    fn allowed(&mut self, op: &str, e: &studio_client::Error, also: &[&'static str]) {
        let short = shortfall(op, e, also);
        self.saw(if short { "insufficient" } else { "refused" });
    }

    async fn run(mut self, ops: usize) -> BTreeMap<&'static str, u64> {
        for _ in 0..ops {
            match self.rng.below(100) {
                0..30 => self.submit().await,
                30..35 => self.burst().await,
                35..39 => self.replay().await,
                39..52 => self.cancel().await,
                52..61 => self.duplicate().await,
                61..69 => self.takes().await,
                69..72 if self.house.buys => {
                    let (shared, house) = (self.shared.clone(), self.house.clone());
                    shared.top_up(&house, &mut self.rng).await;
                    self.saw("top-up");
                }
                69..78 => self.autocharge().await,
                78..88 => self.balance().await,
                _ => self.wait().await,
            }
        }
        self.seen
    }

    fn develop(&mut self) -> DevelopSubmit {
        let image = if self.rng.chance(80) {
            InputSource::Asset(self.rng.pick(&self.house.inputs).clone())
        } else {
            let (w, shade) = (24 + self.rng.below(40) as u32, self.rng.below(256) as u8);
            InputSource::Bytes { file_name: "look.png".into(), bytes: png(w, 24, shade) }
        };
        // Local develops cost the machine real work (upscales at 1k only), so two in five submits
        // go to the fal queue and some are colour changes without a colour, which the submit
        // refuses before any hold (400 BAD_PARAMS; the run's closing audit proves nothing was
        // held for them); those two spend at any tier.
        let any_tier = *self.rng.pick(&[Quality::K1, Quality::K2, Quality::K4, Quality::K4]);
        let (develop, quality) = match self.rng.below(100) {
            0..40 => {
                let mode = *self.rng.pick(&["ok", "ok", "ok", "flaky", "flaky", "reject", "down"]);
                (DevelopSubmit::new(FAL_TOOL).param("chaos", mode), any_tier)
            }
            40..55 => (DevelopSubmit::new("color-change"), any_tier),
            _ => (DevelopSubmit::new("upscale"), Quality::K1),
        };
        self.submits += 1;
        develop.input("image", image).quality(quality).idempotency_key(format!("chaos-{}-{}", self.index, self.submits))
    }

    async fn submit(&mut self) {
        let develop = self.develop();
        let answer = self.key().submit_develop(&develop).await;
        self.submitted(develop, answer);
    }

    /// Two to five submits at once, to any process: they race for the house's last tokens.
    async fn burst(&mut self) {
        let sends: Vec<(Client, DevelopSubmit)> =
            (0..2 + self.rng.below(4)).map(|_| (self.key(), self.develop())).collect();
        let answers = futures_util::future::join_all(sends.iter().map(|(key, d)| key.submit_develop(d))).await;
        for ((_, develop), answer) in sends.into_iter().zip(answers) {
            self.submitted(develop, answer);
        }
    }

    fn submitted(&mut self, develop: DevelopSubmit, answer: Result<SubmitResponse, studio_client::Error>) {
        match answer {
            Ok(r) => {
                // A replay here is the client's own retry of a submit whose answer was lost.
                ensure!(r.replayed == (r.tokens_held == 0), "a new submit holds its price: {r:?}");
                self.house.record(&r.job_id);
                self.last = Some((develop, r.job_id));
                self.saw("submitted");
            }
            Err(e) => {
                let colourless = develop.tool == "color-change" && !develop.params.contains_key("color");
                self.allowed("submit", &e, if colourless { &["BAD_PARAMS"] } else { &[] })
            }
        }
    }

    /// The last accepted submit again, same idempotency key: the same job, nothing held.
    async fn replay(&mut self) {
        let Some((develop, job_id)) = self.last.clone() else { return };
        match self.key().submit_develop(&develop).await {
            Ok(r) => {
                ensure!(r.replayed && r.job_id == job_id && r.tokens_held == 0, "replay of {job_id}: {r:?}");
                self.saw("replayed");
            }
            Err(e) => fail!("replay of {job_id} failed: {e}"),
        }
    }

    fn some_job(&mut self) -> Option<String> {
        let jobs = self.house.jobs();
        (!jobs.is_empty()).then(|| self.rng.pick(&jobs).clone())
    }

    async fn cancel(&mut self) {
        let Some(id) = self.some_job() else { return };
        match self.key().cancel_job(&id).await {
            Ok(r) if r.cancelled => {
                ensure!(r.state == JobStatus::Cancelled && r.tokens_released > 0, "cancel of {id}: {r:?}");
                self.saw("cancelled");
            }
            Ok(r) => {
                ensure!(r.state != JobStatus::Queued && r.tokens_released == 0, "cancel of {id}: {r:?}");
                self.saw("not cancelled");
            }
            Err(e) => fail!("cancel of {id} failed: {e}"),
        }
    }

    /// Duplicate a job, sometimes with a key sent twice (the second answer is the same job).
    async fn duplicate(&mut self) {
        let Some(id) = self.some_job() else { return };
        let key = self.rng.chance(40).then(|| format!("dup-{}", self.rng.next_u64()));
        match self.key().duplicate_job(&id, key.as_deref()).await {
            Ok(r) => {
                self.house.record(&r.job_id);
                self.saw("duplicated");
                if key.is_some() {
                    let again = self.key().duplicate_job(&id, key.as_deref()).await;
                    let same = again.as_ref().is_ok_and(|a| a.job_id == r.job_id && a.cost == 0);
                    ensure!(same, "duplicate of {id} sent again: {again:?} after {r:?}");
                }
            }
            Err(e) => self.allowed("duplicate", &e, &[]),
        }
    }

    /// Take one to three frames again, mostly landed ones; frames not yet developed are
    /// refused, all or nothing.
    async fn takes(&mut self) {
        let landed = self.house.book.lock().unwrap().landed.clone();
        let jobs = if landed.is_empty() || self.rng.chance(20) { self.house.jobs() } else { landed };
        let mut ids = BTreeSet::new();
        for _ in 0..1 + self.rng.below(3) {
            if !jobs.is_empty() {
                ids.insert(self.rng.pick(&jobs).clone());
            }
        }
        if ids.is_empty() {
            return;
        }
        let req = TakesRequest {
            job_ids: Some(ids.iter().cloned().collect()),
            direction: self.rng.chance(50).then(|| "warmer light".to_string()),
            idempotency_key: self.rng.chance(40).then(|| format!("takes-{}", self.rng.next_u64())),
        };
        match self.key().take_again(&req).await {
            Ok(r) => {
                ensure!(r.jobs.len() == ids.len(), "takes of {ids:?}: {r:?}");
                for job in &r.jobs {
                    self.house.record(&job.job_id);
                }
                self.saw("taken");
                if req.idempotency_key.is_some() {
                    let again = self.key().take_again(&req).await;
                    let same = again.as_ref().is_ok_and(|a| a.replayed && a.jobs == r.jobs);
                    ensure!(same, "takes of {ids:?} sent again: {again:?} after {r:?}");
                }
            }
            Err(e) => self.allowed("takes", &e, &["NOT_DEVELOPED"]),
        }
    }

    /// Run auto top-up: it charges (once per debounce window) below the threshold, and the
    /// house whose card declines gets `charge_failed` and nothing.
    async fn autocharge(&mut self) {
        match self.key().run_autocharge().await {
            Ok(run) if run.charged => {
                ensure!(!self.house.declines && run.tokens == Some(PACK_TOKENS), "{run:?}");
                self.house.credit(PACK_TOKENS);
                self.saw("auto top-up");
                // The provider delivering the same payment again grants nothing.
                let payment_id = run.payment_id.clone().unwrap_or_default();
                let reference = payment_id.strip_prefix("pay_test_").unwrap_or_default().to_string();
                let base = self.rng.pick(&self.shared.bases).clone();
                let id = format!("msg_{}", unique());
                let body = payment(&reference, &payment_id, &self.house.customer());
                let answer = self.shared.deliver(&base, &id, &body).await;
                ensure_eq!(answer, json!({"ok": true, "duplicate": true}), "redelivered {run:?}");
            }
            Ok(run) => {
                let reason = run.reason.as_deref().unwrap_or_default();
                ensure!(["debounced", "above_threshold", "monthly_cap"].contains(&reason), "{run:?}");
                self.saw("no auto top-up");
            }
            Err(e) if self.house.declines && e.code() == Some("charge_failed") => self.saw("declined"),
            Err(e) => fail!("auto top-up failed: {e}"),
        }
    }

    /// Wait for one of the house's jobs to end, as a client watching its work does (this also
    /// keeps the clients at the runners' pace, so takes find landed frames).
    async fn wait(&mut self) {
        let Some(id) = self.some_job() else { return };
        match self.key().wait_for(&id, 2 * WAIT).await {
            Ok(status) => {
                ensure!(status.status.is_terminal(), "{id} never ended: {status:?}");
                if status.status == JobStatus::Done {
                    self.house.book.lock().unwrap().landed.push(id);
                }
                self.saw("waited");
            }
            Err(e) => fail!("waiting for {id} failed: {e}"),
        }
    }

    async fn balance(&mut self) {
        let b = match self.key().balance().await {
            Ok(b) => b,
            Err(e) => fail!("balance failed: {e}"),
        };
        ensure!(
            b.grant >= 0 && b.topup >= 0 && b.held >= 0 && b.balance == b.grant + b.topup,
            "spendable never negative: {b:?}"
        );
        self.saw("balance");
    }
}

/// Check an error an operation may meet: true for a shortfall (402 with `need` over
/// `spendable`, which is never negative), false for one of `also`; anything else fails the run.
fn shortfall(op: &str, e: &studio_client::Error, also: &[&'static str]) -> bool {
    match e.code() {
        // A lane of a house that never paid names its shortfall AI_NEEDS_BILLING.
        Some("INSUFFICIENT_TOKENS" | "AI_NEEDS_BILLING") => {
            let (need, spendable) = (e.extra_i64("need"), e.extra_i64("spendable"));
            ensure!(
                e.status() == Some(402) && matches!((need, spendable), (Some(n), Some(s)) if s >= 0 && n > s),
                "{op}: a shortfall of {need:?} over {spendable:?}"
            );
            true
        }
        Some(code) if also.contains(&code) => false,
        _ => fail!("{op} failed unexpectedly: {e}"),
    }
}

/// Sign up a house on the first process, give it library frames, buy a pack (which saves its
/// card) and arm auto top-up.
async fn open_house(shared: &Shared, servers: &[Server], buys: bool, declines: bool, rng: &mut Rng) -> Arc<HouseRun> {
    let h = house(&servers[0]).await;
    let secret = h.key.api_key().unwrap().to_string();
    let mut inputs = Vec::new();
    for i in 0..3u8 {
        let uploaded = h.key.upload_bytes("look.png", png(40, 30, i * 50), &UploadOptions::default()).await;
        inputs.push(uploaded.expect("upload").asset.id);
    }
    let run = Arc::new(HouseRun {
        org_id: h.org_id,
        keys: servers.iter().map(|s| s.with_key(&secret)).collect(),
        owners: servers.iter().map(|s| s.client().with_session(&h.session)).collect(),
        inputs,
        buys,
        declines,
        book: Mutex::new(Book::default()),
    });
    shared.top_up(&run, rng).await;
    run.owners[0].set_autocharge(true, THRESHOLD, PACK, 500.0).await.expect("arm auto top-up");
    run
}

/// Wait until every job and every pipeline run of every house has ended (the fal retries take
/// a few seconds each; a run's later steps are queued as its earlier ones land).
async fn drain(storage: &dyn studio_core::Storage, houses: &[Arc<HouseRun>]) {
    let deadline = tokio::time::Instant::now() + 2 * WAIT;
    for h in houses {
        loop {
            let jobs = storage.jobs_since(&h.org_id, 0, 1_000_000).await.unwrap();
            let open: Vec<_> = jobs.iter().filter(|j| !j.status.is_terminal()).collect();
            let runs = storage.pipeline_runs(&h.org_id, 1_000_000).await.unwrap();
            let developing: Vec<_> = runs.iter().filter(|r| r.status == RunStatus::Developing).map(|r| &r.id).collect();
            if open.is_empty() && developing.is_empty() {
                break;
            }
            ensure!(
                tokio::time::Instant::now() < deadline,
                "{} jobs and runs {developing:?} never ended: {open:?}",
                open.len()
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

/// The invariants of one house, read from its database: its jobs and runs are the clients',
/// every job ended and its hold ended the way the job did, every step of a run that never
/// started released its hold, the holds that pay for no job (lanes, chat turns) ended as the
/// clients saw, every hold was reserved once and resolved once, and the running totals balance
/// and are the ledger's sums.
async fn audit(storage: &dyn studio_core::Storage, h: &HouseRun) {
    let org = &h.org_id;
    let (book, runs, credited, credits, lanes, turns, cutouts) = {
        let b = h.book.lock().unwrap();
        (b.jobs.clone(), b.runs.clone(), b.credited, b.credits, b.lanes, b.turns, b.cutouts)
    };
    // Every run the clients started, ended; each step either started (its job is the house's)
    // or ended without a job.
    let stored_runs: BTreeSet<String> =
        storage.pipeline_runs(org, 1_000_000).await.unwrap().into_iter().map(|r| r.id.into()).collect();
    ensure_eq!(stored_runs, runs, "the house's pipeline runs are exactly those the clients started");
    let mut expected = book;
    let mut unstarted = BTreeSet::new();
    for id in &runs {
        let run = storage.pipeline_run(org, &RunId::from(id)).await.unwrap().unwrap_or_else(|| fail!("{id} is gone"));
        ensure!(run.status != RunStatus::Developing, "{id} never ended: {run:?}");
        let steps = storage.pipeline_steps(&RunId::from(id)).await.unwrap();
        ensure_eq!(steps.iter().map(|s| s.step.tokens).sum::<i64>(), run.tokens_planned, "{id} held its line");
        for s in &steps {
            match (s.step.status.as_str(), &s.step.job_id) {
                ("started", Some(job)) => expected.insert(job.clone().into()),
                ("failed" | "cancelled", None) => unstarted.insert(s.step.hold_id.clone()),
                other => fail!("step {} of {id} ended {other:?}", s.step.id),
            };
        }
    }
    let jobs = storage.jobs_since(org, 0, 1_000_000).await.unwrap();
    let stored: BTreeSet<String> = jobs.iter().map(|j| j.id.to_string()).collect();
    ensure_eq!(
        stored,
        expected,
        "the house's jobs are exactly those the clients were answered with (and their runs' steps)"
    );
    let mut settled = 0;
    let mut done = BTreeSet::new();
    let mut job_holds = BTreeSet::new();
    for job in &jobs {
        ensure!(job_holds.insert(job.hold_id.clone()), "{} shares its hold with another job", job.id);
        let hold = storage.hold(org, &job.hold_id).await.unwrap();
        let hold = hold.unwrap_or_else(|| fail!("{} has no hold", job.id));
        let (want_hold, want_settled) = match job.status.as_str() {
            "done" => ("settled", job.tokens),
            "failed" | "cancelled" => ("released", 0),
            other => fail!("{} ended {other}", job.id),
        };
        ensure_eq!((hold.status.as_str(), hold.amount), (want_hold, job.tokens), "hold of {job:?}");
        ensure_eq!(job.tokens_settled, Some(want_settled), "{job:?}");
        if job.status == JobStatus::Done {
            settled += job.tokens;
            done.insert(job.result_asset_id.clone().expect("a landed frame has its asset"));
        }
    }
    // Every hold of the house: a job's, a step's that never started (released), or one that
    // pays for no job, which ended as the clients were told.
    let holds = storage.holds(org).await.unwrap();
    let (mut seen_lanes, mut seen_turns) = (Charges::default(), Charges::default());
    let mut settled_holds = 0;
    for hold in &holds {
        if hold.status == HoldStatus::Settled {
            settled_holds += hold.amount;
        }
        if job_holds.contains(&hold.id) {
            continue;
        }
        if unstarted.remove(&hold.id) {
            ensure_eq!(hold.status.as_str(), "released", "the hold of a step that never started: {hold:?}");
            continue;
        }
        let charges = match hold.amount {
            LANE_PRICE => &mut seen_lanes,
            TURN_PRICE => &mut seen_turns,
            _ => fail!("a hold that pays for nothing the clients asked: {hold:?}"),
        };
        match hold.status.as_str() {
            "settled" => charges.settled += 1,
            "released" => charges.released += 1,
            _ => fail!("a stranded hold: {hold:?}"),
        }
    }
    ensure!(unstarted.is_empty(), "steps whose holds are gone: {unstarted:?}");
    ensure_eq!((seen_lanes, seen_turns), (lanes, turns), "lanes and chat turns ended as the clients were answered");
    settled += lanes.settled * LANE_PRICE + turns.settled * TURN_PRICE;
    let totals = storage.balance(org).await.unwrap();
    let ledger = storage.audit(org).await.unwrap();
    ensure_eq!(
        totals.spendable() + totals.held + totals.settled,
        totals.credited,
        "Σ credits = spendable + held + settled: {totals:?}"
    );
    ensure_eq!(
        (ledger.grant_tokens, ledger.topup_tokens, ledger.held, ledger.settled, ledger.credited),
        (totals.grant_tokens, totals.topup_tokens, totals.held, totals.settled, totals.credited),
        "the running totals are the sums of the ledger's entries"
    );
    ensure!(totals.grant_tokens >= 0 && totals.topup_tokens >= 0, "no bucket below zero: {totals:?}");
    ensure_eq!((totals.held, storage.open_holds(org).await.unwrap().len()), (0, 0), "no stranded hold");
    ensure_eq!(
        (totals.settled, settled_holds),
        (settled, settled),
        "settled is what the landed frames and charges cost"
    );
    ensure_eq!(totals.credited, SIGNUP_GRANT + credited, "every credit is one a client was granted");
    // One entry per credit, and per hold one reserve and one resolve: no hold resolved twice.
    ensure_eq!(ledger.entries, 1 + credits + 2 * holds.len() as i64, "ledger entries");
    // Each landed frame filed exactly one result, whichever runner (or retry) developed it, and
    // each cutout remove-background charged for is in the library.
    let (mut results, mut cut) = (BTreeSet::new(), 0);
    for asset in storage.list_assets(org, None).await.unwrap() {
        match asset.tool.as_deref() {
            Some("remove-background") => cut += 1,
            Some(_) => {
                results.insert(asset.id);
            }
            None => {}
        }
    }
    ensure_eq!(results, done, "one result asset per landed frame");
    ensure_eq!(cut, cutouts, "one cutout per remove-background answered");
    eprintln!(
        "chaos: house {org}: {} jobs ({} landed), {} runs, {} holds, credited {}, settled {}, spendable {}",
        jobs.len(),
        done.len(),
        runs.len(),
        holds.len(),
        totals.credited,
        totals.settled,
        totals.spendable()
    );
}

async fn chaos(database_url: Option<String>, processes: usize) {
    let seed = common::seed();
    let ops: usize = std::env::var("STUDIO_CHAOS_OPS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_OPS);
    eprintln!("chaos: {ops} operations, seed {seed} (reproduce with STUDIO_CHAOS_SEED={seed})");
    let began = std::time::Instant::now();
    let fal = fal_queue().await;
    let env = [
        ("STUDIO_SIGNUP_GRANT_TOKENS", SIGNUP_GRANT.to_string()),
        ("STUDIO_BILLING", "test".to_string()),
        ("STUDIO_PAYMENTS_WEBHOOK_SECRET", SECRET.to_string()),
        ("STUDIO_FAL_KEY", "chaos-key".to_string()),
        ("STUDIO_FAL_URL", fal.uri()),
        ("STUDIO_FAL_MODELS", format!("{FAL_TOOL}={FAL_MODEL}")),
    ];
    // One blob directory, as replicas share one object store; six develops at once in all
    // (a fal develop mostly waits on its queue).
    let dir = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    for _ in 0..processes {
        servers.push(Server::start(dir.path(), database_url.as_deref(), 6 / processes, &env).await);
    }
    let shared =
        Arc::new(Shared { bases: servers.iter().map(|s| s.base.clone()).collect(), http: reqwest::Client::new() });
    let mut rng = Rng::new(seed, 0);
    let mut houses = Vec::new();
    // The first house buys packs, the second lives on auto top-up, the third's card declines.
    for i in 0..HOUSES {
        houses.push(open_house(&shared, &servers, i == 0, i == HOUSES - 1, &mut rng).await);
    }
    let actors = HOUSES * CLIENTS_PER_HOUSE;
    let tasks: Vec<_> = (0..actors)
        .map(|index| {
            let actor = Actor {
                shared: shared.clone(),
                house: houses[index % HOUSES].clone(),
                index,
                rng: Rng::new(seed, 1 + index as u64),
                submits: 0,
                last: None,
                seen: BTreeMap::new(),
            };
            tokio::spawn(actor.run(ops.div_ceil(actors)))
        })
        .collect();
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for task in tasks {
        let outcome = task.await;
        let counts = outcome.unwrap_or_else(|e| fail!("a client failed: {e}"));
        for (what, n) in counts {
            *seen.entry(what).or_default() += n;
        }
    }
    eprintln!("chaos outcomes after {:?} (seed {seed}): {seen:?}", began.elapsed());
    let storage = storage(dir.path(), database_url.as_deref()).await;
    drain(storage.as_ref(), &houses).await;
    eprintln!("chaos: every job ended after {:?}", began.elapsed());
    for h in &houses {
        audit(storage.as_ref(), h).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_sqlite_one_process() {
    chaos(None, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chaos_postgres_two_processes() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    chaos(Some(url), 2).await;
}

/// A pipeline whose middle step develops on a queue that is down every other call: only that
/// step is retried (landed upstream frames are kept, never developed again), the run lands
/// whole, every hold settles once; on PostgreSQL two processes share the run's steps.
async fn pipeline_on_a_flaky_queue(database_url: Option<String>, processes: usize) {
    let fal = fal_queue().await;
    let env = [
        ("STUDIO_FAL_KEY", "chaos-key".to_string()),
        ("STUDIO_FAL_URL", fal.uri()),
        ("STUDIO_FAL_MODELS", format!("{FAL_TOOL}={FAL_MODEL}")),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    for _ in 0..processes {
        servers.push(Server::start(dir.path(), database_url.as_deref(), 2, &env).await);
    }
    let house = house(&servers[0]).await;
    let secret = house.key.api_key().expect("key").to_string();
    let mut items = Vec::new();
    for seed in 0..2u8 {
        let asset =
            house.key.upload_bytes("p.png", png(64, 48, seed), &UploadOptions::default()).await.expect("upload");
        items.push(json!({ "image": asset.asset.id }));
    }
    let plan = json!({ "name": "local, hosted, local", "nodes": [
        { "id": "a", "tool": "upscale", "quality": "1k", "inputs": { "image": { "item": "image" } } },
        { "id": "b", "tool": FAL_TOOL, "quality": "1k", "params": { "chaos": "flaky" },
          "inputs": { "image": { "node": "a" } } },
        { "id": "c", "tool": "upscale", "quality": "1k", "inputs": { "image": { "node": "b" } } }
    ] });
    let http = reqwest::Client::new();
    let started: Value = http
        .post(format!("{}/api/toolkit/pipelines/runs", servers[0].base))
        .bearer_auth(&secret)
        .json(&json!({ "plan": plan, "items": items }))
        .send()
        .await
        .expect("start")
        .json()
        .await
        .expect("started");
    let run_id = started["runId"].as_str().expect("a run").to_string();
    let tokens = started["compiled"]["tokens"].as_i64().unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    let view = loop {
        // Any replica answers for the run.
        let base = &servers[rand_index(processes)].base;
        let view: Value = http
            .get(format!("{base}/api/toolkit/pipelines/runs/{run_id}"))
            .bearer_auth(&secret)
            .send()
            .await
            .expect("get")
            .json()
            .await
            .expect("view");
        if view["run"]["status"] != "developing" {
            break view;
        }
        assert!(tokio::time::Instant::now() < deadline, "the run did not finish: {view}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(view["run"]["status"], "done", "{view}");
    assert_eq!((view["run"]["tokensSpent"].as_i64(), view["run"]["tokensHeld"].as_i64()), (Some(tokens), Some(0)));
    let store = storage(dir.path(), database_url.as_deref()).await;
    let mut hosted_attempts = 0;
    for step in view["steps"].as_array().unwrap() {
        let job = store.job(&house.org_id, &JobId::from(step["jobId"].as_str().unwrap())).await.unwrap().expect("job");
        if step["node"] == "b" {
            hosted_attempts += job.attempts;
        } else {
            assert_eq!(job.attempts, 1, "a local step is developed once: {step}");
        }
    }
    assert!(hosted_attempts > 2, "the hosted steps were retried ({hosted_attempts} attempts for 2 frames)");
    let balance = house.key.balance().await.unwrap();
    assert_eq!((balance.held, balance.holds.len()), (0, 0));
    assert_eq!(balance.balance, 100 - tokens);
}

/// A replica index that moves between calls.
fn rand_index(n: usize) -> usize {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as usize) % n
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_on_a_flaky_queue_sqlite() {
    pipeline_on_a_flaky_queue(None, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipeline_on_a_flaky_queue_postgres_two_processes() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    pipeline_on_a_flaky_queue(Some(url), 2).await;
}
