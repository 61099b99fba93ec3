//! Developing looks end to end (§4.4, §3.2 of the core document): every transition and refusal
//! of the look state table, variations all-or-nothing against a balance that covers only some
//! frames, concurrent develop-locks (exactly one queued), a frame of another look refused,
//! output destinations priced and composed at the tier's pixels, runs and their cancel, and the
//! agent endpoint's start_develop of the lookbook tool, and frames filed into a collection. Jobs run by hand (runner off) so the
//! in-flight states are held still.

use serde_json::{Value, json};
use studio_client::api::{
    CreateLookRequest, DevelopLockRequest, KeyRole, LookStatus, OutputRequest, Quality, VariationsRequest,
};
use studio_client::{Client, UploadOptions};
use studio_core::LookId;
use studio_tests::{Backend, House, TestApp, backend_tests, images, spawn};

backend_tests!(
    the_look_state_table,
    variations_hold_all_or_nothing,
    concurrent_develop_locks_queue_one,
    a_frame_of_another_look_is_refused,
    outputs_are_checked_priced_and_composed,
    look_runs_cancel_and_agents_develop_looks,
    a_looks_frames_file_into_a_collection,
);

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn upload(key: &Client, name: &str, bytes: Vec<u8>) -> String {
    key.upload_bytes(name, bytes, &UploadOptions::default()).await.expect("upload").asset.id
}

/// A draft look of a model, a top and shoes on the bone ground.
async fn look(key: &Client, name: &str) -> String {
    let model = upload(key, "model.png", images::shot(96, 160, 235, [0.3, 0.1, 0.7, 0.95])).await;
    let top = upload(key, "top.png", images::garment_shot(80, 80)).await;
    let shoes = upload(key, "shoes.png", images::shot(60, 36, 235, [0.15, 0.2, 0.85, 0.8])).await;
    let req = CreateLookRequest {
        name: Some(name.into()),
        model_asset_id: Some(model),
        item_asset_ids: Some(vec![json!({"assetId": top, "role": "top"}), json!({"assetId": shoes, "role": "shoes"})]),
        background: Some(json!({"kind": "preset", "value": "bone"})),
        aesthetic: Some("editorial".into()),
        brand_id: None,
    };
    key.create_look(&req).await.expect("create look").look.id
}

fn at(quality: Quality, destination: &str) -> DevelopLockRequest {
    DevelopLockRequest {
        quality: Some(quality.as_str().into()),
        output: Some(OutputRequest { destination: Some(destination.into()), width: None, height: None }),
        idempotency_key: None,
        folder_id: None,
    }
}

/// A develop-lock of the frame itself (4:5 at the tier's pixels).
fn plain(quality: Quality) -> DevelopLockRequest {
    DevelopLockRequest { quality: Some(quality.as_str().into()), output: None, idempotency_key: None, folder_id: None }
}

fn frames(keys: &[&str]) -> VariationsRequest {
    VariationsRequest {
        keys: Some(keys.iter().map(|k| k.to_string()).collect()),
        quality: Some("1k".into()),
        output: None,
        idempotency_key: None,
        folder_id: None,
    }
}

/// Run every queued job to its end.
async fn run_all(app: &TestApp) {
    while app.studio.develops().run_next_job().await.expect("run") {}
}

async fn spendable(key: &Client) -> (i64, i64) {
    let b = key.balance().await.expect("balance");
    (b.balance, b.held)
}

async fn the_look_state_table(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "states").await;
    let key = &house.key;
    let id = look(key, "Spring").await;
    let stray = upload(key, "stray.png", images::png(20, 20)).await;

    // Draft: variations need a lock; unlock is answered unchanged; lock needs a look frame.
    assert_eq!(
        code(&key.look_variations(&id, &frames(&["back"])).await.unwrap_err()),
        (Some(409), Some("LOCK_REQUIRED"))
    );
    let same = key.unlock_look(&id).await.expect("unlock a draft").look;
    assert_eq!(same.status, LookStatus::Draft);
    let err = key.lock_look(&id, " ").await.unwrap_err();
    assert_eq!(code(&err), (Some(400), Some("ASSET_REQUIRED")));
    assert_eq!(code(&key.lock_look(&id, &stray).await.unwrap_err()), (Some(422), Some("NOT_A_LOOK_FRAME")));

    // Develop-lock: the tier is held at once; a replay answers the same job.
    let mut req = at(Quality::K2, "story");
    req.idempotency_key = Some("spring-lock".into());
    let first = key.develop_look(&id, &req).await.expect("develop-lock");
    assert_eq!((first.tokens_held, first.replayed), (13, false));
    assert_eq!((first.output.frame_width, first.output.frame_height), (1152, 2048));
    let again = key.develop_look(&id, &req).await.expect("replay");
    assert_eq!((again.job_id.as_str(), again.tokens_held, again.replayed), (first.job_id.as_str(), 0, true));
    assert_eq!(spendable(key).await.1, 13, "one hold");

    // In flight: nothing else moves the look.
    let in_flight = Some("DEVELOP_IN_FLIGHT");
    assert_eq!(code(&key.develop_look(&id, &plain(Quality::K1)).await.unwrap_err()).1, in_flight);
    assert_eq!(code(&key.lock_look(&id, &stray).await.unwrap_err()), (Some(409), in_flight));
    assert_eq!(code(&key.unlock_look(&id).await.unwrap_err()), (Some(409), in_flight));

    // The run is look.<id>.lock of kind lookbook.
    let runs = key.list_runs(false, None).await.expect("runs").runs;
    let run = runs.iter().find(|r| r.id == format!("look.{id}.lock")).expect("the lock run");
    assert_eq!(
        (run.kind.as_str(), run.stage.as_deref(), run.look_id.as_deref()),
        ("lookbook", Some("lock"), Some(id.as_str()))
    );

    run_all(&app).await;
    let detail = key.look(&id).await.expect("detail");
    let lock = detail.lock_develop.expect("lockDevelop");
    assert_eq!((lock.id.as_str(), lock.status.as_str()), (first.job_id.as_str(), "done"));
    let frame = lock.result_asset_id.expect("the frame");
    let pixels = image::load_from_memory(&key.asset_bytes(&frame).await.unwrap()).unwrap();
    assert_eq!((pixels.width(), pixels.height()), (1152, 2048), "composed 9:16 at the 2k tier");

    // Lock: the frame is the base; its parent is the model collage.
    let locked = key.lock_look(&id, &frame).await.expect("lock").look;
    assert_eq!(locked.status, LookStatus::Locked);
    assert_eq!(locked.look_base_asset_id.as_deref(), Some(frame.as_str()));
    assert_eq!(locked.look_base_job_id.as_deref(), Some(first.job_id.as_str()));
    assert_eq!(locked.look_base_parent_asset_id.as_deref(), Some(locked.model_asset_id.as_str()));
    assert_eq!(code(&key.develop_look(&id, &plain(Quality::K1)).await.unwrap_err()), (Some(409), Some("LOOK_LOCKED")));

    // Variations: one job per key; while they run the look stays put.
    let v = key.look_variations(&id, &frames(&["back", "detail"])).await.expect("variations");
    assert_eq!(v.jobs.iter().map(|j| j.key.as_str()).collect::<Vec<_>>(), ["back", "detail"]);
    assert_eq!(v.tokens_held, 2 * 9);
    assert_eq!(code(&key.unlock_look(&id).await.unwrap_err()).1, in_flight);
    assert_eq!(code(&key.look_variations(&id, &frames(&["seated"])).await.unwrap_err()).1, in_flight);
    run_all(&app).await;
    let detail = key.look(&id).await.unwrap();
    assert_eq!(detail.variations.len(), 2);
    let back = &detail.variations[0];
    assert_eq!((back.key.as_str(), back.status.as_str(), back.locked), ("back", "done", false));
    assert!(back.framing.contains("behind"), "{}", back.framing);
    // Locking a locked look on a variation frame moves its base there.
    let moved = key.lock_look(&id, back.asset_id.as_deref().unwrap()).await.unwrap().look;
    assert_eq!(moved.look_base_job_id.as_deref(), Some(back.job_id.as_str()));
    assert!(key.look(&id).await.unwrap().variations[0].locked);

    // Unlock keeps the base fields; the draft can be developed again.
    let unlocked = key.unlock_look(&id).await.expect("unlock").look;
    assert_eq!(unlocked.status, LookStatus::Draft);
    assert_eq!(unlocked.look_base_asset_id, moved.look_base_asset_id);
    assert!(key.develop_look(&id, &plain(Quality::K1)).await.is_ok());

    // Strangers and viewers.
    let other = House::new(&app, "states-other").await;
    assert_eq!(code(&other.key.look(&id).await.unwrap_err()).0, Some(404));
    assert_eq!(code(&other.key.lock_look(&id, &frame).await.unwrap_err()), (Some(404), Some("NOT_FOUND")));
    assert_eq!(code(&other.key.unlock_look(&id).await.unwrap_err()).0, Some(404));
    assert_eq!(code(&other.key.develop_look(&id, &plain(Quality::K1)).await.unwrap_err()).0, Some(404));
    let viewer = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = app.client.with_api_key(viewer);
    assert_eq!(code(&viewer.develop_look(&id, &plain(Quality::K1)).await.unwrap_err()).0, Some(403));
    assert_eq!(code(&viewer.unlock_look(&id).await.unwrap_err()).0, Some(403));
}

async fn variations_hold_all_or_nothing(backend: Backend) {
    // 9 for the lock at 1k, then 2 × 9 for variations: a third frame is one too many.
    let app = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.signup_grant_tokens = 27;
    })
    .await
    .expect("app");
    let house = House::new(&app, "all-or-nothing").await;
    let key = &house.key;
    let id = look(key, "Tight").await;
    key.develop_look(&id, &plain(Quality::K1)).await.expect("lock develop");
    run_all(&app).await;
    let frame = key.look(&id).await.unwrap().lock_develop.unwrap().result_asset_id.unwrap();
    key.lock_look(&id, &frame).await.expect("lock");
    assert_eq!(spendable(key).await, (18, 0));

    let err = key.look_variations(&id, &frames(&["back", "detail", "walking"])).await.unwrap_err();
    assert_eq!(code(&err), (Some(402), Some("INSUFFICIENT_TOKENS")));
    assert_eq!((err.extra_i64("need"), err.extra_i64("spendable")), (Some(27), Some(18)));
    assert_eq!(spendable(key).await, (18, 0), "no hold taken, balance unchanged");
    assert!(key.look(&id).await.unwrap().variations.is_empty(), "no job created");
    let storage = app.studio.storage();
    assert_eq!(storage.look_jobs(&house.org_id, &LookId::from(&id)).await.unwrap().len(), 1, "only the develop-lock");

    // Concurrent requests that each fit alone: together they cannot overspend.
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let key = key.clone();
        let id = id.clone();
        tasks.push(tokio::spawn(async move { key.look_variations(&id, &frames(&["back", "seated"])).await }));
    }
    let mut accepted = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(v) => {
                accepted += 1;
                assert_eq!(v.jobs.len(), 2);
            }
            Err(e) => assert!(matches!(e.code(), Some("DEVELOP_IN_FLIGHT" | "INSUFFICIENT_TOKENS")), "{e}"),
        }
    }
    assert_eq!(accepted, 1);
    assert_eq!(spendable(key).await, (0, 18));
    run_all(&app).await;
    assert_eq!(spendable(key).await, (0, 0), "settled exactly once");
}

async fn concurrent_develop_locks_queue_one(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "race").await.key;
    let id = look(&key, "Raced").await;
    let before = spendable(&key).await.0;
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let key = key.clone();
        let id = id.clone();
        tasks.push(tokio::spawn(async move { key.develop_look(&id, &at(Quality::K2, "square")).await }));
    }
    let mut jobs = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(r) => jobs.push(r.job_id),
            Err(e) => assert_eq!(code(&e), (Some(409), Some("DEVELOP_IN_FLIGHT"))),
        }
    }
    assert_eq!(jobs.len(), 1, "exactly one develop-lock is queued");
    assert_eq!(spendable(&key).await, (before - 13, 13), "one 2k frame held");
    let detail = key.look(&id).await.unwrap();
    assert_eq!(detail.lock_develop.map(|l| l.id), Some(jobs[0].clone()));
}

async fn a_frame_of_another_look_is_refused(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "frames").await.key;
    let a = look(&key, "A").await;
    let b = look(&key, "B").await;
    key.develop_look(&a, &plain(Quality::K1)).await.unwrap();
    key.develop_look(&b, &plain(Quality::K1)).await.unwrap();
    run_all(&app).await;
    let frame_b = key.look(&b).await.unwrap().lock_develop.unwrap().result_asset_id.unwrap();
    assert_eq!(code(&key.lock_look(&a, &frame_b).await.unwrap_err()), (Some(422), Some("NOT_A_LOOK_FRAME")));
    assert_eq!(key.look(&a).await.unwrap().look.status, LookStatus::Draft);
    // A develop of another tool that claims the look is not one of its frames either.
    let forged = studio_client::DevelopSubmit::new("upscale")
        .input("image", studio_client::InputSource::Asset(frame_b.clone()))
        .param("lookId", &a);
    let job = key.submit_develop(&forged).await.unwrap().job_id;
    run_all(&app).await;
    let forged_frame = key.job(&job).await.unwrap().result_asset_id.unwrap();
    assert_eq!(code(&key.lock_look(&a, &forged_frame).await.unwrap_err()).1, Some("NOT_A_LOOK_FRAME"));
    // Its own frame locks.
    let frame_a = key.look(&a).await.unwrap().lock_develop.unwrap().result_asset_id.unwrap();
    assert_eq!(key.lock_look(&a, &frame_a).await.unwrap().look.status, LookStatus::Locked);
}

async fn outputs_are_checked_priced_and_composed(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "outputs").await.key;
    let id = look(&key, "Out").await;
    let out = |d: &str, w: Option<i64>, h: Option<i64>, q: &str| DevelopLockRequest {
        quality: Some(q.into()),
        output: Some(OutputRequest { destination: Some(d.into()), width: w, height: h }),
        idempotency_key: None,
        folder_id: None,
    };
    let before = spendable(&key).await;
    let cases: Vec<(DevelopLockRequest, &str)> = vec![
        (out("poster", None, None, "2k"), "UNKNOWN_DESTINATION"),
        (out("custom", Some(800), None, "2k"), "BAD_DIMENSIONS"),
        (out("story", Some(100), Some(100), "2k"), "BAD_DIMENSIONS"),
        (out("custom", Some(9000), Some(9000), "4k"), "OUTPUT_TOO_LARGE"),
        (out("a4-print", None, None, "2k"), "QUALITY_TOO_LOW_FOR_OUTPUT"),
        (out("web-tile", None, None, "8k"), "BAD_BODY"),
    ];
    for (req, expected) in cases {
        let err = key.develop_look(&id, &req).await.unwrap_err();
        assert_eq!(code(&err), (Some(400), Some(expected)), "{req:?}");
        if expected == "UNKNOWN_DESTINATION" {
            let places = err.extra("destinations").and_then(Value::as_array).map(Vec::len);
            assert_eq!(places, Some(7));
        }
        if expected == "QUALITY_TOO_LOW_FOR_OUTPUT" {
            assert!(err.to_string().contains("Choose 4k"), "{err}");
        }
    }
    for (keys, expected) in
        [(vec![], "KEYS_REQUIRED"), (vec!["upside-down"], "UNKNOWN_VARIATION"), (vec!["back"; 25], "TOO_MANY_FRAMES")]
    {
        let err = key.look_variations(&id, &frames(&keys)).await.unwrap_err();
        assert_eq!(code(&err), (Some(400), Some(expected)));
    }
    assert_eq!(spendable(&key).await, before, "no refusal held anything");

    // A3 at 4k: the tier plus the restoration pass (priced as a 4k upscale) held as one frame.
    let a3 = key.develop_look(&id, &out("a3-print", None, None, "4k")).await.expect("a3");
    assert_eq!((a3.output.tier_tokens, a3.output.restoration_tokens, a3.output.tokens_per_frame), (19, 19, 38));
    assert_eq!(a3.tokens_held, 38);
    assert_eq!(a3.output.composed_aspect, "2:3");
    assert_eq!(a3.output.trim_percent, 5.7);
    assert!(a3.output.frame_height > 4096 && a3.output.frame_width >= 3508);
    assert_eq!(key.cancel_job(&a3.job_id).await.unwrap().tokens_released, 38);

    // A custom place: the frame takes its shape at the tier's pixels, never its width × height.
    key.develop_look(&id, &out("custom", Some(600), Some(300), "1k")).await.expect("custom");
    run_all(&app).await;
    let frame = key.look(&id).await.unwrap().lock_develop.unwrap().result_asset_id.unwrap();
    let pixels = image::load_from_memory(&key.asset_bytes(&frame).await.unwrap()).unwrap();
    assert_eq!((pixels.width(), pixels.height()), (1024, 512));
}

async fn look_runs_cancel_and_agents_develop_looks(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "runs").await;
    let key = &house.key;
    let id = look(key, "Runs").await;
    let before = spendable(key).await;
    key.develop_look(&id, &at(Quality::K2, "banner")).await.unwrap();
    let cancelled = key.cancel_run(&format!("look.{id}.lock")).await.expect("cancel the run");
    assert_eq!((cancelled.cancelled_job_ids.len(), cancelled.tokens_released), (1, 13));
    assert_eq!(spendable(key).await, before, "released");
    assert_eq!(key.look(&id).await.unwrap().lock_develop.unwrap().status, "cancelled");

    // The agent endpoint develops the look with the lookbook tool.
    let call = |arguments: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "start_develop", "arguments": arguments}});
    let answer = key
        .mcp(&call(json!({"tool": "lookbook", "quality": "1k", "params": {"lookId": id, "destination": "custom", "width": "800", "height": "800"}})))
        .await
        .unwrap()
        .unwrap();
    let started = &answer["result"]["structuredContent"];
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(started["tokensHeld"], 9);
    let job_id = started["jobId"].as_str().unwrap().to_string();
    assert_eq!(key.look(&id).await.unwrap().lock_develop.unwrap().id, job_id);
    let refused = key
        .mcp(&call(json!({"tool": "lookbook", "quality": "1k", "params": {"lookId": id, "style": "x"}})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(refused["result"]["isError"], true);
    assert!(refused["result"]["structuredContent"]["error"].as_str().unwrap().starts_with("BAD_PARAMS"));
    run_all(&app).await;
    let frame = key.look(&id).await.unwrap().lock_develop.unwrap().result_asset_id.unwrap();
    key.lock_look(&id, &frame).await.unwrap();
    let variation = key
        .mcp(&call(json!({"tool": "lookbook", "quality": "1k", "params": {"lookId": id, "variation": "walking"}})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(variation["result"]["isError"], false, "{variation}");
    let detail = key.look(&id).await.unwrap();
    assert_eq!(detail.variations.iter().map(|v| v.key.as_str()).collect::<Vec<_>>(), ["walking"]);
    let runs = key.list_runs(true, None).await.unwrap().runs;
    assert!(runs.iter().any(|r| r.id == format!("look.{id}.variations")), "{runs:?}");
}

async fn a_looks_frames_file_into_a_collection(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let key = House::new(&app, "look-folder").await.key;
    let id = look(&key, "Filed").await;
    let folder = key.create_folder("SS27 looks", None).await.expect("folder").folder.id;

    // A collection that is not the house's: 404 before anything is held.
    let before = spendable(&key).await;
    let stray = DevelopLockRequest { folder_id: Some("fld_missing".into()), ..plain(Quality::K1) };
    assert_eq!(code(&key.develop_look(&id, &stray).await.unwrap_err()), (Some(404), Some("NOT_FOUND")));
    assert_eq!(spendable(&key).await, before, "nothing held");

    let lock = DevelopLockRequest { folder_id: Some(folder.clone()), ..plain(Quality::K1) };
    let job = key.develop_look(&id, &lock).await.expect("develop-lock").job_id;
    run_all(&app).await;
    let frame = key.job(&job).await.expect("status").result_asset_id.expect("a frame");
    let filed = key.list_assets(Some(&folder)).await.expect("list").assets;
    assert_eq!(filed.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [frame.as_str()], "filed in the collection");
    key.lock_look(&id, &frame).await.expect("lock");

    let more = VariationsRequest { folder_id: Some(folder.clone()), ..frames(&["back", "detail"]) };
    let jobs = key.look_variations(&id, &more).await.expect("variations").jobs;
    run_all(&app).await;
    let filed = key.list_assets(Some(&folder)).await.expect("list").assets;
    assert_eq!(filed.len(), 1 + jobs.len(), "every variation beside the base frame");
}
