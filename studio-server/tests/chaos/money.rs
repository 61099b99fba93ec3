//! Chaos on the money paths of the route groups: look variations (and the lock they grow from),
//! pipeline runs and their cancels, the AI lanes (reader lanes, text tools, remove-background),
//! priced chat turns and the concurrent apply of what a turn proposed, and exclusive model
//! checkouts raced by two houses, paid by webhooks delivered more than once (some short) and
//! now and then revoked by the platform admin (so a face changes hands) — mixed with the
//! develops, cancels, duplicates, takes, top-ups and auto top-ups of the ledger chaos, on one
//! process over SQLite and on two over one PostgreSQL database.
//!
//! The fal queue and the AI reader are local fakes that fail on demand (a variation key, a
//! pipeline step's `chaos` option, a lane's image width or text, a chat message), so holds are
//! released as well as settled, and the houses live near zero so 402s race with holds. Then
//! every house passes the ledger audit of `chaos.rs` (which also counts the holds of lanes and
//! chat turns as the clients saw them end, and every pipeline step's hold), every applied chat
//! action made exactly one job, and the market holds: no exclusive face has two live owners,
//! every holding is a claim the clients paid once, every lapsed payment is one case.
//!
//! `STUDIO_CHAOS_OPS` sets the operations per backend here too (default [`DEFAULT_OPS`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use studio_client::api::{
    CreateLookRequest, DevelopLockRequest, LookStatus, OfferingCreate, PipelineRunRequest, PromptBuilderRequest,
    PromptEnhancerRequest, RevokeEntitlement, VariationsRequest,
};
use studio_client::{Client, InputSource, UploadOptions};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::common::{self, Rng, Server, WAIT, fresh_postgres, png, storage, unique};
use super::{
    Actor, CLIENTS_PER_HOUSE, FAL_MODEL, FAL_TOOL, HOUSES, HouseRun, LANE_PRICE, SECRET, SIGNUP_GRANT, Shared,
    TURN_PRICE, audit, drain, fal_queue, open_house, shortfall,
};

/// Operations per backend unless `STUDIO_CHAOS_OPS` says otherwise.
const DEFAULT_OPS: usize = 300;
/// Person turns a chat session takes before it is handed to support.
const TURN_LIMIT: i64 = 5;
/// Exclusive faces on the board (each one owner at most), and what each costs.
const EXCLUSIVE_FACES: usize = 5;
const FACE_PRICE: i64 = 4_900;
/// One face for sale to every house.
const SALE_PRICE: i64 = 1_500;
/// A lane image this wide makes the reader answer 503 (`AI_FAILED`), this wide prose
/// (`AI_BAD_OUTPUT`).
const DOWN_WIDTH: u32 = 61;
const GARBAGE_WIDTH: u32 = 62;
/// The variation keys (`chaos.rs`'s fal queue fails `back`, `detail` and `seated` on demand).
const VARIATIONS: [&str; 6] = ["full-front", "three-quarter", "back", "detail", "walking", "seated"];

/// A chat completion whose message content is `content`.
fn completion(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }))
}

/// The width of the image in a `data:` URI.
fn image_width(uri: &str) -> Option<u32> {
    use base64::Engine;
    let (_, data) = uri.split_once("base64,")?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).ok()?;
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format().ok()?;
    reader.into_dimensions().ok().map(|(w, _)| w)
}

/// The AI reader. A chat turn answers what the person's message asks (`chaos {"mode", "actions"}`):
/// `down` is a 503 and `garbage` prose (the session goes to support, `ai_down`), `handoff` asks
/// for a person, anything else is a reply proposing `actions`. A lane's read answers one object
/// every lane reads, unless its text says `chaos=down` / `chaos=garbage` or its image is
/// [`DOWN_WIDTH`] / [`GARBAGE_WIDTH`] pixels wide.
struct Reader;

impl Respond for Reader {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        let parts = body["messages"][1]["content"].as_array().cloned().unwrap_or_default();
        let text: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        let text = text.join("\n");
        let width = parts.iter().find_map(|p| p["image_url"]["url"].as_str()).and_then(image_width);
        let down = ResponseTemplate::new(503).set_body_json(json!({"error": {"message": "chaos: the reader is down"}}));
        let garbage = completion("The reader rambles on and answers no JSON at all.");
        if system.contains("studio assistant") {
            let said = text.rsplit("The person says: ").next().unwrap_or_default();
            let asked: Value =
                said.strip_prefix("chaos ").and_then(|j| serde_json::from_str(j).ok()).unwrap_or_default();
            return match asked["mode"].as_str() {
                Some("down") => down,
                Some("garbage") => garbage,
                Some("handoff") => {
                    completion(&json!({"reply": "A person will take this.", "handoff": true}).to_string())
                }
                _ => completion(&json!({"reply": "Here is what I would do.", "actions": asked["actions"]}).to_string()),
            };
        }
        if text.contains("chaos=down") || width == Some(DOWN_WIDTH) {
            return down;
        }
        if text.contains("chaos=garbage") || width == Some(GARBAGE_WIDTH) {
            return garbage;
        }
        completion(
            &json!({
                "nameEn": "Chaos wool coat", "kind": "outerwear",
                "figureDetected": true, "faceDetected": false, "fields": {"height": "tall", "build": "slim"},
                "prompt": "A wool coat in soft light", "improved": "A charcoal wool coat in soft window light",
                "notes": ["the light is named"],
            })
            .to_string(),
        )
    }
}

async fn reader() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/v1/chat/completions")).respond_with(Reader).mount(&server).await;
    server
}

/// A face of the catalog.
#[derive(Debug, Clone)]
struct Face {
    id: String,
    price_cents: i64,
    exclusive: bool,
}

/// What a claim's first payment did.
#[derive(Debug, Clone, PartialEq)]
enum Paid {
    /// It became this holding.
    Holding(String),
    /// It became a case (the claim had expired, or the payment was short), refunded or left
    /// for review.
    Lapsed(String),
}

/// A claim a checkout answered.
#[derive(Debug, Clone)]
struct Claim {
    face: String,
    paid: Option<Paid>,
    /// Its holding was revoked by the platform admin (the face is free again).
    revoked: bool,
}

/// What the clients know of one house beyond the ledger book.
#[derive(Debug, Default)]
struct MoneyBook {
    /// Chat sessions of the house (its key's person).
    sessions: BTreeSet<String>,
    /// Actions the assistant proposed: (session, action).
    proposed: Vec<(String, String)>,
    /// Applied actions: the one job each made, and how many applies answered "not replayed".
    applied: BTreeMap<String, (String, u32)>,
    /// Claims by reference.
    claims: BTreeMap<String, Claim>,
}

/// One house on the money paths.
struct MoneyHouse {
    run: Arc<HouseRun>,
    /// Looks locked at the start (variations grow from them).
    looks: Vec<String>,
    book: Mutex<MoneyBook>,
}

/// Everything the clients share.
struct World {
    shared: Arc<Shared>,
    houses: Vec<Arc<MoneyHouse>>,
    faces: Vec<Face>,
    /// The platform admin's session on each process.
    admin: Vec<Client>,
}

/// One client on the money paths: the ledger chaos's client (its operations, seeded generator
/// and tally) with the route groups' operations beside.
struct MoneyActor {
    base: Actor,
    world: Arc<World>,
    /// This client's house, and its place in the world.
    me: Arc<MoneyHouse>,
    at: usize,
    /// The chat session this client talks in (a new one after a hand-over to support).
    session: Option<String>,
    /// The last variations answered, to send again: (look, request, its frames).
    last_variations: Option<(String, VariationsRequest, Vec<String>)>,
    /// The last pipeline run started, to send again.
    last_run: Option<(PipelineRunRequest, String)>,
}

impl MoneyActor {
    async fn run(mut self, ops: usize) -> BTreeMap<&'static str, u64> {
        for _ in 0..ops {
            match self.base.rng.below(100) {
                0..8 => self.base.submit().await,
                8..10 => self.base.burst().await,
                10..14 => self.base.cancel().await,
                14..16 => self.base.duplicate().await,
                16..18 => self.base.takes().await,
                18..23 if self.base.house.buys => {
                    let (shared, house) = (self.base.shared.clone(), self.base.house.clone());
                    shared.top_up(&house, &mut self.base.rng).await;
                    self.base.saw("top-up");
                }
                18..23 => self.base.autocharge().await,
                23..25 => self.base.balance().await,
                25..35 => self.variations().await,
                35..39 => self.relock().await,
                39..49 => self.pipeline().await,
                49..53 => self.run_again().await,
                53..65 => self.lanes().await,
                65..73 => self.chat().await,
                73..81 => self.apply().await,
                81..89 => self.checkout().await,
                89..94 => self.pay().await,
                94..96 => self.revoke().await,
                _ => self.base.wait().await,
            }
        }
        self.base.seen
    }

    fn saw(&mut self, what: &'static str) {
        self.base.saw(what);
    }

    /// An error `op` may meet (see [`shortfall`]), tallied by path: `"<op> short"` for a 402,
    /// `"<op> refused"` for one of `also`.
    fn refused(&mut self, op: &'static str, e: &studio_client::Error, also: &[&'static str]) {
        let (short, refused) = match op {
            "variations" => ("variations short", "variations refused"),
            "develop-lock" => ("develop-lock short", "develop-lock refused"),
            "lock" => ("lock short", "lock refused"),
            "unlock" => ("unlock short", "unlock refused"),
            "pipeline run" => ("run short", "run refused"),
            "lane" => ("lane short", "lane refused"),
            "chat turn" => ("turn short", "turn refused"),
            "apply" => ("apply short", "apply refused"),
            _ => ("insufficient", "refused"),
        };
        self.saw(if shortfall(op, e, also) { short } else { refused });
    }

    /// Variations of a locked look: one to three frames (now and then a sheet of four to eight,
    /// held all or none), sometimes the last request again (the same frames, nothing held),
    /// sometimes one request from two clients at once (one holds, the other answers its
    /// frames). A look with frames in flight, or unlocked by a client beside, refuses.
    async fn variations(&mut self) {
        let rng = &mut self.base.rng;
        let again = self.last_variations.clone().filter(|_| rng.chance(25));
        let (look, req) = match &again {
            Some((look, req, _)) => (look.clone(), req.clone()),
            None => {
                let look = rng.pick(&self.me.looks).clone();
                // Now and then a whole sheet at once, which a house near zero cannot hold.
                let frames = if rng.chance(20) { 4 + rng.below(5) } else { 1 + rng.below(3) };
                let keys = (0..frames).map(|_| rng.pick(&VARIATIONS).to_string()).collect();
                let req = VariationsRequest {
                    keys: Some(keys),
                    quality: Some(rng.pick(&["1k", "2k", "4k", "4k"]).to_string()),
                    output: None,
                    idempotency_key: Some(format!("vary-{}", unique())),
                    folder_id: None,
                };
                (look, req)
            }
        };
        let senders: Vec<Client> = (0..if rng.chance(20) { 2 } else { 1 }).map(|_| self.base.key()).collect();
        let answers = futures_util::future::join_all(senders.iter().map(|c| c.look_variations(&look, &req))).await;
        let frames = req.keys.as_ref().map_or(0, Vec::len);
        let (mut fresh, mut answered) = (0, None::<Vec<String>>);
        for answer in answers {
            match answer {
                Ok(r) => {
                    let ids: Vec<String> = r.jobs.iter().map(|j| j.job_id.clone()).collect();
                    ensure!(r.replayed == (r.tokens_held == 0) && ids.len() == frames, "variations of {look}: {r:?}");
                    if let Some((_, _, before)) = &again {
                        ensure!(r.replayed && &ids == before, "variations sent again: {r:?}, first {before:?}");
                    }
                    if let Some(other) = &answered {
                        ensure_eq!(other, &ids, "one request, one set of frames");
                    }
                    fresh += u32::from(!r.replayed);
                    for id in &ids {
                        self.me.run.record(id);
                    }
                    answered = Some(ids);
                    self.saw(if r.replayed { "variations replayed" } else { "variations" });
                }
                Err(e) => self.refused("variations", &e, &["DEVELOP_IN_FLIGHT", "LOCK_REQUIRED"]),
            }
        }
        ensure!(fresh <= 1, "variations {req:?} held twice");
        if let Some(ids) = answered {
            self.last_variations = Some((look, req, ids));
        }
    }

    /// Unlock a locked look and lock it again on its base (variations beside meet
    /// `LOCK_REQUIRED`), or develop its base again first (a new hold); lock a draft look on its
    /// newest landed base.
    async fn relock(&mut self) {
        let look = self.base.rng.pick(&self.me.looks).clone();
        let key = self.base.key();
        let detail = key.look(&look).await.unwrap_or_else(|e| fail!("look {look}: {e}"));
        match detail.look.status {
            LookStatus::Locked => match key.unlock_look(&look).await {
                Ok(_) if self.base.rng.chance(35) => {
                    let req = DevelopLockRequest {
                        quality: Some("1k".into()),
                        output: None,
                        idempotency_key: None,
                        folder_id: None,
                    };
                    match key.develop_look(&look, &req).await {
                        Ok(r) => {
                            ensure!(!r.replayed && r.tokens_held > 0, "develop-lock of {look}: {r:?}");
                            self.me.run.record(&r.job_id);
                            self.saw("develop-lock");
                        }
                        Err(e) => self.refused("develop-lock", &e, &["DEVELOP_IN_FLIGHT", "LOOK_LOCKED"]),
                    }
                }
                Ok(_) => self.lock(&key, &look, detail.look.look_base_asset_id.as_deref()).await,
                Err(e) => self.refused("unlock", &e, &["DEVELOP_IN_FLIGHT"]),
            },
            LookStatus::Draft => {
                let frame = match &detail.lock_develop {
                    Some(d) if d.status == "queued" || d.status == "running" => return self.saw("lock waits"),
                    Some(d) if d.status == "done" => d.result_asset_id.clone(),
                    _ => detail.look.look_base_asset_id.clone(),
                };
                self.lock(&key, &look, frame.as_deref()).await;
            }
        }
    }

    async fn lock(&mut self, key: &Client, look: &str, frame: Option<&str>) {
        let frame = frame.unwrap_or_else(|| fail!("look {look} has no base frame"));
        match key.lock_look(look, frame).await {
            Ok(r) => {
                ensure!(r.look.status == LookStatus::Locked, "locked {look}: {r:?}");
                self.saw("locked");
            }
            Err(e) => self.refused("lock", &e, &["DEVELOP_IN_FLIGHT"]),
        }
    }

    /// One step of a line: the fal queue in a mode (at any tier), or a local upscale.
    fn node(&mut self, id: &str, input: Value, hosted: bool) -> Value {
        let rng = &mut self.base.rng;
        if hosted {
            let mode = *rng.pick(&["ok", "ok", "ok", "flaky", "reject", "down"]);
            let quality = *rng.pick(&["1k", "2k", "4k"]);
            json!({"id": id, "tool": FAL_TOOL, "quality": quality, "params": {"chaos": mode}, "inputs": {"image": input}})
        } else {
            json!({"id": id, "tool": "upscale", "quality": "1k", "inputs": {"image": input}})
        }
    }

    /// A run request: one to three steps over one or two library frames.
    fn line(&mut self) -> PipelineRunRequest {
        let item = json!({"item": "image"});
        let nodes = match self.base.rng.below(3) {
            0 => vec![self.node("a", item, true)],
            1 => vec![self.node("a", item, true), self.node("b", json!({"node": "a"}), false)],
            _ => vec![
                self.node("a", item, false),
                self.node("b", json!({"node": "a"}), true),
                self.node("c", json!({"node": "b"}), true),
            ],
        };
        let inputs = &self.base.house.inputs;
        let items: Vec<Value> =
            (0..1 + self.base.rng.below(2)).map(|i| json!({"image": inputs[i % inputs.len()]})).collect();
        PipelineRunRequest {
            plan: Some(json!({"name": "chaos line", "nodes": nodes})),
            plan_id: None,
            items: json!(items),
            brand_id: None,
            idempotency_key: Some(format!("line-{}", unique())),
        }
    }

    /// Start a pipeline run (every step held at once, or 402 and nothing): sometimes the last
    /// request again (the same run, nothing held), sometimes one request from two clients at
    /// once, sometimes the last key for another line (409, nothing held).
    async fn pipeline(&mut self) {
        let last = self.last_run.clone();
        if let Some((req, _)) = last.as_ref().filter(|_| self.base.rng.chance(8)) {
            let mut other = req.clone();
            other.plan =
                Some(json!({"name": "another line", "nodes": [self.node("a", json!({"item": "image"}), true)]}));
            match self.base.key().start_pipeline_run(other).await {
                Err(e) if e.code() == Some("IDEMPOTENCY_KEY_REUSED") => self.saw("run key reused"),
                other => fail!("a reused key for another line: {other:?}"),
            }
            return;
        }
        let again = last.filter(|_| self.base.rng.chance(25));
        let req = match &again {
            Some((req, _)) => req.clone(),
            None => self.line(),
        };
        let senders: Vec<Client> = (0..if self.base.rng.chance(20) { 2 } else { 1 }).map(|_| self.base.key()).collect();
        let answers = futures_util::future::join_all(senders.iter().map(|c| c.start_pipeline_run(req.clone()))).await;
        let (mut fresh, mut run) = (0, None::<String>);
        for answer in answers {
            match answer {
                Ok(r) => {
                    ensure!(r.replayed == (r.started == 0), "a new run starts its first steps: {r:?}");
                    if let Some((_, first)) = &again {
                        ensure!(r.replayed && &r.run_id == first, "a run sent again: {r:?}, first {first}");
                    }
                    if let Some(other) = &run {
                        ensure_eq!(other, &r.run_id, "one request, one run");
                    }
                    fresh += u32::from(!r.replayed);
                    self.base.house.book.lock().unwrap().runs.insert(r.run_id.clone());
                    run = Some(r.run_id);
                    self.saw(if r.replayed { "run replayed" } else { "run started" });
                }
                Err(e) => self.refused("pipeline run", &e, &[]),
            }
        }
        ensure!(fresh <= 1, "run {req:?} held twice");
        if let Some(run) = run {
            self.last_run = Some((req, run));
        }
    }

    /// Read a run from any process, or cancel it (waiting and queued steps are released;
    /// rendering frames finish and cost).
    async fn run_again(&mut self) {
        let runs: Vec<String> = self.base.house.book.lock().unwrap().runs.iter().cloned().collect();
        if runs.is_empty() {
            return;
        }
        let id = self.base.rng.pick(&runs).clone();
        let key = self.base.key();
        if self.base.rng.chance(40) {
            let d = key.pipeline_run(&id).await.unwrap_or_else(|e| fail!("run {id}: {e}"));
            let r = &d.run;
            ensure!(
                r.tokens_held >= 0 && r.tokens_spent <= r.tokens_planned && r.steps.total == d.steps.len() as i64,
                "run {id}: {d:?}"
            );
            self.saw("run read");
            return;
        }
        let r = key.cancel_pipeline_run(&id).await.unwrap_or_else(|e| fail!("cancel of run {id}: {e}"));
        let ended = r.cancelled_job_ids.len() + r.cancelled_step_ids.len();
        ensure!(r.cancelled == (ended > 0) && (r.tokens_released > 0) == (ended > 0), "cancel of run {id}: {r:?}");
        self.saw(if r.cancelled { "run cancelled" } else { "run not cancelled" });
    }

    /// One to five AI lanes at once (a burst races for the last tokens): the reader lanes and
    /// text tools in a mode the reader fails on demand, and remove-background. An answer
    /// settles one token, an upstream failure releases it.
    async fn lanes(&mut self) {
        let n = if self.base.rng.chance(30) { 2 + self.base.rng.below(4) } else { 1 };
        let calls: Vec<(Lane, &'static str, Client, u32)> = (0..n)
            .map(|_| {
                let lane =
                    *self.base.rng.pick(&[Lane::Describe, Lane::Build, Lane::Cutout, Lane::Enhance, Lane::Builder]);
                let mode = if lane == Lane::Cutout {
                    "any"
                } else {
                    *self.base.rng.pick(&["ok", "ok", "ok", "down", "garbage"])
                };
                (lane, mode, self.base.key(), 64 + self.base.rng.below(40) as u32)
            })
            .collect();
        let answers =
            futures_util::future::join_all(calls.iter().map(|(lane, mode, key, w)| lane.call(key, mode, *w))).await;
        for ((lane, mode, _, _), answer) in calls.iter().zip(answers) {
            match answer {
                Ok(spent) => {
                    ensure!(spent == LANE_PRICE && *mode != "down" && *mode != "garbage", "{lane:?} {mode}: {spent}");
                    let mut book = self.base.house.book.lock().unwrap();
                    book.lanes.settled += 1;
                    book.cutouts += usize::from(*lane == Lane::Cutout);
                    drop(book);
                    self.saw("lane settled");
                }
                // The cutout's subject gate refuses a picture without a clear subject (422) after
                // the hold was taken: released like an upstream failure.
                Err(e) if e.status() == Some(502) || (*mode == "any" && e.status() == Some(422)) => {
                    let want = match *mode {
                        "down" => "AI_FAILED",
                        "garbage" => "AI_BAD_OUTPUT",
                        "any" if e.status() == Some(422) => "SUBJECT_NOT_FOUND",
                        "any" => "REMOVE_BG_FAILED",
                        _ => fail!("{lane:?} failed unexpectedly: {e}"),
                    };
                    ensure_eq!(e.code(), Some(want), "{lane:?} {mode}: {e}");
                    self.base.house.book.lock().unwrap().lanes.released += 1;
                    self.saw("lane released");
                }
                Err(e) => self.refused("lane", &e, &[]),
            }
        }
    }

    /// A develop the assistant may propose: the fal queue in a mode, or a local upscale.
    fn proposal(&mut self) -> Value {
        let rng = &mut self.base.rng;
        let image = rng.pick(&self.base.house.inputs).clone();
        let request = if rng.chance(70) {
            let mode = *rng.pick(&["ok", "ok", "flaky", "reject"]);
            let quality = *rng.pick(&["1k", "2k", "4k"]);
            json!({"tool": FAL_TOOL, "quality": quality, "inputs": {"image": image}, "params": {"chaos": mode}})
        } else {
            json!({"tool": "upscale", "quality": "1k", "inputs": {"image": image}})
        };
        json!({"kind": "develop", "summary": "Develop it", "request": request})
    }

    /// One priced turn in this client's session: answered (settled, its proposals kept for
    /// apply), or handed to support because the reader failed or asked for a person
    /// (released), or at the session's limit (nothing held).
    async fn chat(&mut self) {
        let key = self.base.key();
        let session = match self.session.clone() {
            Some(s) => s,
            None => {
                let s = key.chat_start(Some("chaos")).await.unwrap_or_else(|e| fail!("chat start: {e}")).id;
                self.me.book.lock().unwrap().sessions.insert(s.clone());
                self.session = Some(s.clone());
                s
            }
        };
        let mode = *self.base.rng.pick(&["propose", "propose", "propose", "propose", "down", "garbage", "handoff"]);
        let count = if mode == "propose" { 1 + self.base.rng.below(2) } else { 0 };
        let actions: Vec<Value> = (0..count).map(|_| self.proposal()).collect();
        let message = format!("chaos {}", json!({"mode": mode, "actions": actions}));
        match key.chat_say(&session, &message).await {
            Ok(r) => {
                if let Some(handed) = r.turns.iter().find_map(|t| t.escalation.clone()) {
                    let want = match mode {
                        "down" | "garbage" => "ai_down",
                        "handoff" => "handoff",
                        _ => "turn_limit",
                    };
                    ensure!(handed.reason == want || handed.reason == "turn_limit", "{mode} turn: {r:?}");
                    if handed.reason != "turn_limit" {
                        self.base.house.book.lock().unwrap().turns.released += 1;
                    }
                    self.session = None;
                    self.saw("chat handed over");
                    return;
                }
                ensure_eq!(mode, "propose", "{r:?}");
                let reply = r.turns.iter().find(|t| t.role == "assistant").unwrap_or_else(|| fail!("no reply: {r:?}"));
                ensure!(reply.tokens == TURN_PRICE && reply.actions.len() == actions.len(), "{r:?}");
                self.base.house.book.lock().unwrap().turns.settled += 1;
                let mut book = self.me.book.lock().unwrap();
                for a in &reply.actions {
                    ensure!(a.status == "proposed" && a.price > 0, "{a:?}");
                    book.proposed.push((session.clone(), a.id.clone()));
                }
                drop(book);
                self.saw("chat answered");
            }
            Err(e) => self.refused("chat turn", &e, &[]),
        }
    }

    /// Apply one proposed action from one to four clients at once, on any process: it runs
    /// once (one job, one hold), the other applies answer it replayed; a shortfall hands the
    /// action back.
    async fn apply(&mut self) {
        let proposed = self.me.book.lock().unwrap().proposed.clone();
        if proposed.is_empty() {
            return;
        }
        let (session, action) = self.base.rng.pick(&proposed).clone();
        let clients: Vec<Client> = (0..1 + self.base.rng.below(4)).map(|_| self.base.key()).collect();
        let answers = futures_util::future::join_all(clients.iter().map(|c| c.chat_apply(&session, &action))).await;
        for answer in answers {
            match answer {
                Ok(applied) => {
                    let job = applied.action.result.as_ref().and_then(|r| r["jobId"].as_str()).map(str::to_string);
                    let job = job.unwrap_or_else(|| fail!("apply of {action} made no job: {applied:?}"));
                    ensure!(
                        applied.action.status == "applied"
                            && applied.turn.action_id.as_deref() == Some(action.as_str()),
                        "{applied:?}"
                    );
                    self.me.run.record(&job);
                    let mut book = self.me.book.lock().unwrap();
                    let (known, fresh) = book.applied.entry(action.clone()).or_insert_with(|| (job.clone(), 0));
                    ensure_eq!(known, &job, "{action} made two jobs");
                    *fresh += u32::from(!applied.replayed);
                    ensure!(*fresh <= 1, "{action} applied twice");
                    drop(book);
                    self.saw(if applied.replayed { "apply replayed" } else { "applied" });
                }
                Err(e) => self.refused("apply", &e, &["ACTION_IN_PROGRESS"]),
            }
        }
    }

    /// An owner's checkout of a face (the model route, or explore's take), often raced by
    /// another house's owner for the same face, or double clicked: at most one new claim on an
    /// exclusive face; the others are `TAKEN`, hidden (404), already held, or the same claim.
    async fn checkout(&mut self) {
        let world = self.world.clone();
        let face = self.base.rng.pick(&world.faces).clone();
        let mut bidders = vec![self.at];
        if self.base.rng.chance(50) {
            bidders.push((self.at + 1 + self.base.rng.below(world.houses.len() - 1)) % world.houses.len());
        } else if self.base.rng.chance(30) {
            bidders.push(self.at);
        }
        let asks: Vec<(usize, Client, bool)> = bidders
            .into_iter()
            .map(|h| (h, self.base.rng.pick(&world.houses[h].run.owners).clone(), self.base.rng.chance(30)))
            .collect();
        let answers = futures_util::future::join_all(asks.iter().map(|(_, owner, take)| {
            let face = &face.id;
            async move {
                if *take {
                    owner.take_offering("model", face).await.map(|t| (t.url, None))
                } else {
                    owner.checkout_model(face).await.map(|c| (c.url, Some(c.pending)))
                }
            }
        }))
        .await;
        let mut fresh = 0;
        for ((h, _, _), answer) in asks.iter().zip(answers) {
            match answer {
                // explore's take of a face the house holds.
                Ok((url, None)) if url.is_empty() => self.saw("already held"),
                Ok((url, pending)) => {
                    fresh += u32::from(pending == Some(false));
                    let reference = url.rsplit('/').next().unwrap_or_default().to_string();
                    ensure!(reference.starts_with("clm_"), "a checkout of {}: {url}", face.id);
                    let claim = Claim { face: face.id.clone(), paid: None, revoked: false };
                    let mut book = world.houses[*h].book.lock().unwrap();
                    let known = book.claims.entry(reference).or_insert(claim);
                    ensure_eq!(known.face, face.id, "one claim, one face");
                    drop(book);
                    self.saw("claimed");
                }
                Err(e) => {
                    let refused = matches!(
                        (e.status(), e.code()),
                        (Some(409), Some("TAKEN" | "CHECKOUT_PENDING"))
                            | (Some(404), _)
                            | (Some(400), Some("ALREADY_YOURS"))
                    );
                    ensure!(refused, "a checkout of {} failed unexpectedly: {e}", face.id);
                    self.saw("not claimed");
                }
            }
        }
        ensure!(!face.exclusive || fresh <= 1, "{fresh} new claims at once on the exclusive face {}", face.id);
    }

    /// Pay one of the house's claims (mostly an unpaid one; now and then short): the signed
    /// payment delivered one to three times, at once and to any process. The first delivery
    /// makes a holding (or, for a claim that expired or a short payment, a case); every other
    /// is a duplicate, now and later.
    async fn pay(&mut self) {
        let claims: Vec<(String, Claim)> =
            self.me.book.lock().unwrap().claims.iter().map(|(r, c)| (r.clone(), c.clone())).collect();
        if claims.is_empty() {
            return;
        }
        let unpaid: Vec<(String, Claim)> = claims.iter().filter(|(_, c)| c.paid.is_none()).cloned().collect();
        let (reference, claim) = if !unpaid.is_empty() && self.base.rng.chance(80) {
            self.base.rng.pick(&unpaid).clone()
        } else {
            self.base.rng.pick(&claims).clone()
        };
        let price = self.world.faces.iter().find(|f| f.id == claim.face).map_or(0, |f| f.price_cents);
        let short = self.base.rng.chance(25);
        let mut body = json!({"type": "payment.succeeded", "data": {"payment_id": format!("pay_{reference}"),
            "customer": {"customer_id": self.base.house.customer()}, "metadata": {"reference": reference}}});
        if short {
            body["data"]["total_amount"] = json!(price - 100);
        }
        let body = body.to_string();
        let first = format!("msg_{}", unique());
        let mut ids = vec![first.clone()];
        for _ in 0..self.base.rng.below(3) {
            ids.push(if self.base.rng.chance(50) { first.clone() } else { format!("msg_{}", unique()) });
        }
        let shared = self.world.shared.clone();
        let deliveries: Vec<_> = ids
            .iter()
            .map(|id| {
                let base = self.base.rng.pick(&shared.bases).clone();
                let (shared, body) = (&shared, &body);
                async move { shared.deliver(&base, id, body).await }
            })
            .collect();
        let answers = futures_util::future::join_all(deliveries).await;
        let firsts: Vec<&Value> = answers.iter().filter(|a| a["duplicate"] != json!(true)).collect();
        ensure!(firsts.len() <= 1, "one payment of {reference} applied more than once: {answers:?}");
        let Some(answer) = firsts.first() else {
            return self.saw("payment repeated");
        };
        let paid = match (answer["entitlement"].as_str(), answer["lapsed"].as_str()) {
            (Some(holding), None) if !short => Paid::Holding(holding.to_string()),
            (None, Some(case)) => Paid::Lapsed(case.to_string()),
            _ => fail!("a payment of {reference} (short: {short}) answered {answer}"),
        };
        self.saw(if matches!(paid, Paid::Holding(_)) { "face bought" } else { "payment lapsed" });
        let mut book = self.me.book.lock().unwrap();
        let known = book.claims.get_mut(&reference).unwrap_or_else(|| fail!("{reference} is not a claim"));
        ensure!(known.paid.is_none(), "{reference} paid twice: {:?} then {paid:?}", known.paid);
        known.paid = Some(paid);
    }

    /// The platform admin revokes one of the house's holdings: its face is free again (for a
    /// race, and a second owner after the first, never beside it).
    async fn revoke(&mut self) {
        let held: Vec<(String, String)> = self
            .me
            .book
            .lock()
            .unwrap()
            .claims
            .iter()
            .filter_map(|(r, c)| match &c.paid {
                Some(Paid::Holding(id)) if !c.revoked => Some((r.clone(), id.clone())),
                _ => None,
            })
            .collect();
        if held.is_empty() {
            return;
        }
        let (reference, holding) = self.base.rng.pick(&held).clone();
        let admin = self.base.rng.pick(&self.world.admin).clone();
        let req = RevokeEntitlement { id: holding.clone(), reason: Some("chaos".into()) };
        match admin.admin_revoke_entitlement(&req).await {
            Ok(r) => {
                ensure!(r.ok, "revoke of {holding}: {r:?}");
                let mut book = self.me.book.lock().unwrap();
                book.claims.get_mut(&reference).unwrap_or_else(|| fail!("{reference} is gone")).revoked = true;
                drop(book);
                self.saw("holding revoked");
            }
            // Another client revoked it first.
            Err(e) if e.status() == Some(404) => self.saw("holding gone"),
            Err(e) => fail!("revoke of {holding} failed: {e}"),
        }
    }
}

/// The AI lanes the clients call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    Describe,
    Build,
    Cutout,
    Enhance,
    Builder,
}

impl Lane {
    /// Call the lane in `mode` (an image `w` pixels wide unless the mode sets the width);
    /// the tokens it charged.
    async fn call(self, key: &Client, mode: &str, w: u32) -> Result<i64, studio_client::Error> {
        let width = match mode {
            "down" => DOWN_WIDTH,
            "garbage" => GARBAGE_WIDTH,
            _ => w,
        };
        let image = InputSource::Bytes { file_name: "piece.png".into(), bytes: png(width, 48, 90) };
        let text = format!("a charcoal coat, chaos={mode}");
        match self {
            Lane::Describe => key.describe_item(&image).await.map(|r| r.spent),
            Lane::Build => key.extract_build(&image).await.map(|r| r.spent),
            Lane::Cutout => key.remove_background(&image).await.map(|r| r.spent),
            Lane::Enhance => {
                key.prompt_enhancer(&PromptEnhancerRequest { prompt: text, intent: None }).await.map(|r| r.spent)
            }
            Lane::Builder => {
                key.prompt_builder(&PromptBuilderRequest { subject: text, vibe: None }).await.map(|r| r.spent)
            }
        }
    }
}

/// Three looks of the house, each developed (on the fal queue) and locked on its frame.
async fn locked_looks(run: &HouseRun) -> Vec<String> {
    let key = &run.keys[0];
    let mut started = Vec::new();
    for name in ["Chaos look 1", "Chaos look 2", "Chaos look 3"] {
        let req = CreateLookRequest {
            name: Some(name.into()),
            model_asset_id: Some(run.inputs[0].clone()),
            item_asset_ids: Some(vec![
                json!({"assetId": run.inputs[1], "role": "top"}),
                json!({"assetId": run.inputs[2], "role": "shoes"}),
            ]),
            background: Some(json!({"kind": "preset", "value": "bone"})),
            aesthetic: Some("editorial".into()),
            brand_id: None,
        };
        let look = key.create_look(&req).await.expect("create a look").look.id;
        let lock =
            DevelopLockRequest { quality: Some("1k".into()), output: None, idempotency_key: None, folder_id: None };
        let job = key.develop_look(&look, &lock).await.expect("develop-lock").job_id;
        run.record(&job);
        started.push((look, job));
    }
    let mut looks = Vec::new();
    for (look, job) in started {
        let landed = key.wait_for(&job, WAIT).await.expect("the lock develop ends");
        let frame =
            landed.result_asset_id.clone().unwrap_or_else(|| fail!("the lock develop of {look} failed: {landed:?}"));
        key.lock_look(&look, &frame).await.expect("lock");
        looks.push(look);
    }
    looks
}

/// A platform admin (marked in the database, as the operator's command does) publishes the
/// exclusive faces and the face for sale; the faces and the admin's session on each process.
async fn publish_faces(servers: &[Server], store: &dyn studio_core::Storage) -> (Vec<Face>, Vec<Client>) {
    let email = format!("catalog-{}@example.com", unique());
    let anon = servers[0].client();
    let signed = anon.sign_up(&email, "a long enough password", None).await.expect("admin sign up");
    store.set_platform_admin(&email, true).await.expect("mark admin").expect("the admin exists");
    let admin = anon.with_session(&signed.session);
    let mut faces = Vec::new();
    for i in 0..=EXCLUSIVE_FACES {
        let exclusive = i < EXCLUSIVE_FACES;
        let frame = admin.upload_bytes("face.png", png(40, 52, 30 * i as u8), &UploadOptions::default()).await;
        let req = OfferingCreate {
            kind: "model".into(),
            name: format!("Chaos face {i}"),
            price_cents: if exclusive { FACE_PRICE } else { SALE_PRICE },
            exclusive,
            asset_ids: vec![frame.expect("upload a face").asset.id],
            ..OfferingCreate::default()
        };
        let created = admin.admin_create_offering(&req).await.expect("publish");
        faces.push(Face { id: created.offering.id, price_cents: req.price_cents, exclusive });
    }
    (faces, servers.iter().map(|s| s.client().with_session(&signed.session)).collect())
}

/// Every applied chat action of the house made exactly one job (under its key `chat-<action>`),
/// and every action the store says is applied is one a client was answered for.
async fn audit_chat(store: &dyn studio_core::Storage, h: &MoneyHouse) {
    let (sessions, applied) = {
        let book = h.book.lock().unwrap();
        (book.sessions.clone(), book.applied.clone())
    };
    let mut stored = BTreeMap::new();
    for session in &sessions {
        for action in store.chat_actions(&session.as_str().into()).await.unwrap() {
            if action.status == studio_core::ChatActionStatus::Applied {
                let result: Value = serde_json::from_str(action.result.as_deref().unwrap_or("null")).unwrap();
                stored.insert(action.id.to_string(), result["jobId"].as_str().unwrap_or_default().to_string());
            } else {
                ensure_eq!(action.status.as_str(), "proposed", "{action:?} ended half applied");
            }
        }
    }
    for (action, (_, fresh)) in &applied {
        ensure_eq!(*fresh, 1, "{action} was answered applied (not replayed) once");
    }
    let answered: BTreeMap<String, String> = applied.into_iter().map(|(a, (job, _))| (a, job)).collect();
    ensure_eq!(stored, answered, "the applied actions are those the clients were answered for");
    let jobs = store.jobs_since(&h.run.org_id, 0, 1_000_000).await.unwrap();
    let by_key: BTreeMap<String, String> = jobs
        .iter()
        .filter_map(|j| j.idempotency_key.as_deref()?.strip_prefix("chat-").map(|a| (a.to_string(), j.id.to_string())))
        .collect();
    let keyed = jobs.iter().filter(|j| j.idempotency_key.as_deref().is_some_and(|k| k.starts_with("chat-"))).count();
    ensure_eq!((by_key, keyed), (stored.clone(), stored.len()), "one job per applied action");
}

/// The market: no exclusive face has two live owners and no house holds a face twice; every
/// live holding of a house is a claim its clients paid (its payment, granted once); every
/// claim is where its payments left it, and every lapsed payment is exactly one case.
async fn audit_market(store: &dyn studio_core::Storage, world: &World) {
    let holdings = store.all_entitlements(None, None, 100_000).await.unwrap();
    let live: Vec<_> = holdings.iter().filter(|e| e.revoked_at.is_none()).collect();
    let mut sold = 0;
    ensure!(holdings.iter().all(|e| e.source == "purchase"), "every holding was bought: {holdings:?}");
    for face in &world.faces {
        let owners: Vec<&str> = live.iter().filter(|e| e.offering_id == face.id).map(|e| e.org_id.as_str()).collect();
        let houses: BTreeSet<&str> = owners.iter().copied().collect();
        ensure_eq!(houses.len(), owners.len(), "a house holds {} once: {owners:?}", face.id);
        ensure!(!face.exclusive || owners.len() <= 1, "the exclusive face {} has owners {owners:?}", face.id);
        sold += owners.len();
    }
    ensure_eq!(sold, live.len(), "every holding is of a published face");
    let cases = store.entitlement_cases(100_000).await.unwrap();
    let (mut bought, mut lapsed, mut open) = (0, 0, 0);
    for h in &world.houses {
        let org = &h.run.org_id;
        let claims = h.book.lock().unwrap().claims.clone();
        let held: BTreeMap<String, (Option<String>, bool)> = holdings
            .iter()
            .filter(|e| e.org_id == org)
            .map(|e| (e.id.to_string(), (e.payment_ref.clone(), e.revoked_at.is_some())))
            .collect();
        let paid: BTreeMap<String, (Option<String>, bool)> = claims
            .iter()
            .filter_map(|(r, c)| match &c.paid {
                Some(Paid::Holding(id)) => Some((id.clone(), (Some(format!("pay_{r}")), c.revoked))),
                _ => None,
            })
            .collect();
        ensure_eq!(held, paid, "the holdings of {org} (and their revocations) are the claims its clients paid");
        for (reference, claim) in &claims {
            let row = store.claim(reference).await.unwrap().unwrap_or_else(|| fail!("{reference} is gone"));
            ensure_eq!((row.org_id.as_str(), row.offering_id.as_str()), (org.as_str(), claim.face.as_str()), "{row:?}");
            let filed = cases.iter().filter(|c| &c.reference == reference).count();
            match &claim.paid {
                Some(Paid::Holding(_)) => ensure_eq!((row.status.as_str(), filed), ("paid", 0), "{row:?}"),
                Some(Paid::Lapsed(_)) => ensure_eq!((row.status.as_str(), filed), ("lapsed", 1), "{row:?}"),
                None => ensure!(
                    ["pending", "expired", "released"].contains(&row.status.as_str()) && filed == 0,
                    "{reference} was never paid: {row:?}"
                ),
            }
            match &claim.paid {
                Some(Paid::Holding(_)) => bought += 1,
                Some(Paid::Lapsed(_)) => lapsed += 1,
                None => open += 1,
            }
        }
    }
    eprintln!("chaos: market: {bought} faces bought, {lapsed} payments lapsed, {open} claims unpaid");
}

async fn money_chaos(database_url: Option<String>, processes: usize) {
    let seed = common::seed();
    let ops: usize = std::env::var("STUDIO_CHAOS_OPS").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_OPS);
    eprintln!("money chaos: {ops} operations, seed {seed} (reproduce with STUDIO_CHAOS_SEED={seed})");
    let began = std::time::Instant::now();
    let (fal, reader) = (fal_queue().await, reader().await);
    let env = [
        ("STUDIO_SIGNUP_GRANT_TOKENS", SIGNUP_GRANT.to_string()),
        ("STUDIO_BILLING", "test".to_string()),
        ("STUDIO_PAYMENTS_WEBHOOK_SECRET", SECRET.to_string()),
        ("STUDIO_FAL_KEY", "chaos-key".to_string()),
        ("STUDIO_FAL_URL", fal.uri()),
        // Looks develop on the fake queue too: their frames fail by variation key.
        ("STUDIO_FAL_MODELS", format!("{FAL_TOOL}={FAL_MODEL},lookbook={FAL_MODEL}")),
        ("STUDIO_AI_URL", format!("{}/v1", reader.uri())),
        ("STUDIO_AI_KEY", "chaos-reader".to_string()),
        ("STUDIO_AI_MODEL", "chaos".to_string()),
        ("STUDIO_CHAT_TURN_PRICE", TURN_PRICE.to_string()),
        ("STUDIO_CHAT_TURN_LIMIT", TURN_LIMIT.to_string()),
        // The shortest claim: an unpaid checkout lapses within the run, and a late payment for
        // it becomes a case.
        ("STUDIO_CLAIM_SECS", "60".to_string()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    for _ in 0..processes {
        servers.push(Server::start(dir.path(), database_url.as_deref(), 6 / processes, &env).await);
    }
    let store = storage(dir.path(), database_url.as_deref()).await;
    let shared =
        Arc::new(Shared { bases: servers.iter().map(|s| s.base.clone()).collect(), http: reqwest::Client::new() });
    let mut rng = Rng::new(seed, 0);
    // As in the ledger chaos: the first house buys packs, the second lives on auto top-up, the
    // third's card declines.
    let mut runs = Vec::new();
    for i in 0..HOUSES {
        runs.push(open_house(&shared, &servers, i == 0, i == HOUSES - 1, &mut rng).await);
    }
    let mut houses = Vec::new();
    for run in &runs {
        let looks = locked_looks(run).await;
        houses.push(Arc::new(MoneyHouse { run: run.clone(), looks, book: Mutex::new(MoneyBook::default()) }));
    }
    let (faces, admin) = publish_faces(&servers, store.as_ref()).await;
    let world = Arc::new(World { shared: shared.clone(), houses, faces, admin });
    eprintln!("money chaos: houses, looks and faces ready after {:?}", began.elapsed());
    let actors = HOUSES * CLIENTS_PER_HOUSE;
    let tasks: Vec<_> = (0..actors)
        .map(|index| {
            let at = index % HOUSES;
            let actor = MoneyActor {
                base: Actor {
                    shared: shared.clone(),
                    house: runs[at].clone(),
                    index,
                    rng: Rng::new(seed, 1 + index as u64),
                    submits: 0,
                    last: None,
                    seen: BTreeMap::new(),
                },
                world: world.clone(),
                me: world.houses[at].clone(),
                at,
                session: None,
                last_variations: None,
                last_run: None,
            };
            tokio::spawn(actor.run(ops.div_ceil(actors)))
        })
        .collect();
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for task in tasks {
        let counts = task.await.unwrap_or_else(|e| fail!("a client failed: {e}"));
        for (what, n) in counts {
            *seen.entry(what).or_default() += n;
        }
    }
    eprintln!("money chaos outcomes after {:?} (seed {seed}): {seen:?}", began.elapsed());
    drain(store.as_ref(), &runs).await;
    eprintln!("money chaos: every job and run ended after {:?}", began.elapsed());
    for h in &world.houses {
        audit(store.as_ref(), &h.run).await;
        audit_chat(store.as_ref(), h).await;
    }
    audit_market(store.as_ref(), &world).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_money_paths_sqlite_one_process() {
    money_chaos(None, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_money_paths_postgres_two_processes() {
    let Some(database) = fresh_postgres().await else { return };
    let url = database.url.clone();
    money_chaos(Some(url), 2).await;
}
