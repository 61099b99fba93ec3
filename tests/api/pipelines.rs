//! Pipelines end to end (§2.7, §4.6): a three-step chain over four items settles every hold
//! exactly once; a failing middle step releases its dependents; two runs racing for one balance
//! never leave a partial charge (20 times); cancel during execution; plans, items and presets
//! checked with the spec's codes; idempotent starts; the run as `run.<uuid>` among develops.
//! Jobs run by hand (runner off) so in-flight states hold still.

use serde_json::{Value, json};
use studio_client::UploadOptions;
use studio_tests::{Backend, House, TestApp, backend_tests, images, spawn};

backend_tests!(
    a_chain_settles_every_hold_once,
    a_failing_step_releases_its_dependents,
    racing_runs_never_charge_partly,
    cancel_during_execution,
    plans_and_items_are_checked,
    presets_and_idempotent_starts,
);

/// A raw call with the house's key: the status and the JSON body.
async fn call(app: &TestApp, house: &House, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let http = reqwest::Client::new();
    let url = format!("{}{path}", app.base);
    let req = match method {
        "GET" => http.get(url),
        "PATCH" => http.patch(url),
        "DELETE" => http.delete(url),
        _ => http.post(url),
    };
    let req = req.bearer_auth(&house.secret);
    let req = match body {
        Some(b) => req.json(&b),
        None => req,
    };
    let res = req.send().await.expect("send");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn upload(house: &House, name: &str, seed: u8) -> String {
    let bytes = images::solid_png(64 + u32::from(seed), 48, [200, 40 + seed, 90]);
    house.key.upload_bytes(name, bytes, &UploadOptions::default()).await.expect("upload").asset.id
}

/// upscale 1k → reframe 4:5 in `reframe_mode` → upscale 2k.
fn chain(reframe_mode: &str, sink: Option<&str>) -> Value {
    json!({
        "name": "Cut, frame, enlarge",
        "sinkFolderId": sink,
        "nodes": [
            {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}},
            {"id": "b", "tool": "reframe", "quality": "1k", "params": {"aspect": "4:5", "mode": reframe_mode},
             "inputs": {"image": {"node": "a"}}},
            {"id": "c", "tool": "upscale", "quality": "2k", "inputs": {"image": {"node": "b"}}}
        ]
    })
}

async fn items(house: &House, n: u8) -> Value {
    let mut rows = Vec::new();
    for i in 0..n {
        rows.push(json!({"image": upload(house, &format!("piece-{i}.png"), i).await}));
    }
    Value::Array(rows)
}

async fn balance(house: &House) -> (i64, i64) {
    let b = house.key.balance().await.expect("balance");
    (b.balance, b.held)
}

/// Run every queued job to its end (each end passes over its run, queueing what it feeds).
async fn run_all(app: &TestApp) {
    while app.studio.develops().run_next_job().await.expect("run") {}
}

async fn run(app: &TestApp, house: &House, id: &str) -> Value {
    let (status, body) = call(app, house, "GET", &format!("/api/toolkit/pipelines/runs/{id}"), None).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Spendable + held + settled = credited, and the running totals equal the ledger's sums.
async fn assert_conserved(app: &TestApp, org_id: &str) {
    let storage = app.studio.storage();
    let totals = storage.balance(&org_id.into()).await.expect("balance");
    let audit = storage.audit(&org_id.into()).await.expect("audit");
    assert_eq!(totals.spendable() + totals.held + totals.settled, totals.credited, "tokens conserved");
    assert_eq!((audit.held, audit.settled), (totals.held, totals.settled), "running totals match the ledger");
}

async fn a_chain_settles_every_hold_once(backend: Backend) {
    let app = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.signup_grant_tokens = 400;
    })
    .await
    .expect("app");
    let house = House::new(&app, "chain").await;
    let folder = house.key.create_folder("finished", None).await.expect("folder").folder.id;
    let items = items(&house, 4).await;
    let plan = chain("crop", Some(&folder));
    let (before, _) = balance(&house).await;

    let (status, preview) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/preview", Some(json!({"plan": plan, "items": items}))).await;
    assert_eq!(status, 200, "{preview}");
    let line = &preview["compiled"];
    assert_eq!((line["frames"].as_i64(), line["items"].as_i64()), (Some(12), Some(4)));
    let tokens = line["tokens"].as_i64().unwrap();
    let each: i64 = line["nodes"].as_array().unwrap().iter().map(|n| n["tokensEach"].as_i64().unwrap()).sum();
    assert_eq!(tokens, 4 * each, "the line is priced per step from the price book");
    assert_eq!((preview["spendable"].as_i64(), preview["affordable"].as_bool()), (Some(before), Some(true)));
    assert_eq!(balance(&house).await, (before, 0), "a preview reserves nothing");
    // Upstream first, and each later step waits for its own item's frame.
    let steps = line["steps"].as_array().unwrap();
    assert_eq!(steps[1]["after"], json!([0]));
    assert_eq!(steps[2]["after"], json!([1]));
    assert_eq!(steps[2]["sinkFolderId"].as_str(), Some(folder.as_str()), "leaves file into the sink");
    assert!(steps[0]["sinkFolderId"].is_null());

    let body = json!({"plan": plan, "items": items, "idempotencyKey": "chain-1"});
    let (status, started) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(body)).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!((started["started"].as_i64(), started["replayed"].as_bool()), (Some(4), Some(false)));
    let id = started["runId"].as_str().unwrap().to_string();
    assert_eq!(started["developId"].as_str().unwrap(), id.replacen("run_", "run.", 1));
    assert_eq!(balance(&house).await, (before - tokens, tokens), "every step held before any ran");
    let view = run(&app, &house, &id).await;
    assert_eq!(view["run"]["status"], "developing");
    assert_eq!(view["run"]["steps"], json!({"done": 0, "failed": 0, "cancelled": 0, "active": 12, "total": 12}));
    let waiting = view["steps"].as_array().unwrap().iter().filter(|s| s["status"] == "waiting").count();
    assert_eq!(waiting, 8, "downstream steps wait with their holds, no job yet");

    // The develops list shows the run with its steps' counts, waiting ones active.
    let runs = house.key.list_runs(false, None).await.expect("runs").runs;
    let listed = runs.iter().find(|r| r.id == started["developId"].as_str().unwrap()).expect("the run");
    assert_eq!((listed.kind.as_str(), listed.counts.total, listed.counts.active), ("pipeline", 12, 12));

    run_all(&app).await;
    let view = run(&app, &house, &id).await;
    let r = &view["run"];
    assert_eq!(r["status"], "done", "{view}");
    assert_eq!(r["steps"], json!({"done": 12, "failed": 0, "cancelled": 0, "active": 0, "total": 12}));
    assert_eq!((r["tokensSpent"].as_i64(), r["tokensHeld"].as_i64()), (Some(tokens), Some(0)));
    let settled: i64 = view["steps"].as_array().unwrap().iter().map(|s| s["tokensSettled"].as_i64().unwrap()).sum();
    assert_eq!(settled, tokens, "tokensSpent is the sum of the steps' settlements");
    assert_eq!(balance(&house).await, (before - tokens, 0), "every hold settled, none twice");
    assert!(app.studio.storage().open_holds(&house.org_id).await.unwrap().is_empty());
    assert_conserved(&app, &house.org_id).await;
    // Each item's last frame is filed in the sink, developed from its own chain.
    let filed: Vec<String> =
        house.key.list_assets(Some(&folder)).await.expect("folder assets").assets.into_iter().map(|a| a.id).collect();
    assert_eq!(filed.len(), 4);
    for step in view["steps"].as_array().unwrap().iter().filter(|s| s["node"] == "c") {
        let asset = step["resultAssetId"].as_str().unwrap();
        assert!(filed.iter().any(|a| a == asset));
        let upstream = &view["steps"][step["after"][0].as_u64().unwrap() as usize];
        assert_eq!(step["inputs"]["image"]["step"], upstream["index"]);
        assert_eq!(upstream["item"], step["item"]);
    }
    let runs = house.key.list_runs(false, None).await.expect("runs").runs;
    let listed = runs.iter().find(|r| r.id == started["developId"].as_str().unwrap()).expect("the run");
    assert_eq!((listed.state.as_str(), listed.counts.done), ("done", 12));

    // Cancelling a run that ended changes nothing.
    let (status, out) = call(&app, &house, "POST", &format!("/api/toolkit/pipelines/runs/{id}/cancel"), None).await;
    assert_eq!((status, out["cancelled"].as_bool(), out["tokensReleased"].as_i64()), (200, Some(false), Some(0)));
    assert_eq!((out["run"]["status"].as_str(), out["run"]["cancelRequested"].as_bool()), (Some("done"), Some(false)));
    // A duplicate of a step's frame is a develop of its own, not a step of the run.
    let step_job = view["steps"][0]["jobId"].as_str().unwrap();
    let copy = house.key.duplicate_job(step_job, None).await.expect("duplicate").job_id;
    let runs = house.key.list_runs(false, None).await.expect("runs").runs;
    let listed = runs.iter().find(|r| r.id == started["developId"].as_str().unwrap()).expect("the run");
    assert!(!listed.job_ids.contains(&copy), "the copy left the pipeline run");
    assert_eq!(listed.job_ids.len(), 12);
}

async fn a_failing_step_releases_its_dependents(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "fails").await;
    let items = items(&house, 2).await;
    let (before, _) = balance(&house).await;
    // The items are flat colour fields, so the packshot in the middle finds no subject when it
    // runs and fails (its options are fine: a plan with options a tool cannot read is refused
    // before it starts, see plans_and_items_are_checked).
    let mut plan = chain("auto", None);
    plan["nodes"][1] = json!({"id": "b", "tool": "packshot", "quality": "1k", "inputs": {"image": {"node": "a"}}});
    let body = json!({"plan": plan, "items": items});
    let (status, started) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(body)).await;
    assert_eq!(status, 202, "{started}");
    let id = started["runId"].as_str().unwrap();
    let nodes = started["compiled"]["nodes"].as_array().unwrap();
    let first_each = nodes[0]["tokensEach"].as_i64().unwrap();

    run_all(&app).await;
    let view = run(&app, &house, id).await;
    let by_node = |n: &str| -> Vec<Value> {
        view["steps"].as_array().unwrap().iter().filter(|s| s["node"] == n).cloned().collect()
    };
    assert!(by_node("a").iter().all(|s| s["status"] == "done"));
    assert!(by_node("b").iter().all(|s| s["status"] == "failed" && s["tokensSettled"] == 0));
    for step in by_node("c") {
        assert_eq!((step["status"].as_str(), step["tokensSettled"].as_i64()), (Some("failed"), Some(0)));
        assert!(step["jobId"].is_null(), "a step behind a failure never gets a job");
        assert!(step["error"].as_str().unwrap().contains("Upstream step"), "{step}");
    }
    let r = &view["run"];
    assert_eq!(r["status"], "settled");
    assert_eq!(r["steps"], json!({"done": 2, "failed": 4, "cancelled": 0, "active": 0, "total": 6}));
    assert_eq!(r["tokensSpent"].as_i64(), Some(2 * first_each));
    assert_eq!(balance(&house).await, (before - 2 * first_each, 0), "only landed frames cost");
    assert_conserved(&app, &house.org_id).await;
}

async fn racing_runs_never_charge_partly(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "race").await;
    let items = items(&house, 3).await;
    let (start, _) = balance(&house).await;
    // Two lines each priced over half the balance: both cannot be held.
    let plan = json!({"name": "big", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "4k", "inputs": {"image": {"item": "image"}}},
        {"id": "b", "tool": "reframe", "quality": "2k", "params": {"aspect": "1:1"}, "inputs": {"image": {"node": "a"}}}
    ]});
    let (_, preview) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/preview", Some(json!({"plan": plan, "items": items}))).await;
    let tokens = preview["compiled"]["tokens"].as_i64().unwrap();
    assert!(
        tokens * 2 > start && tokens <= start,
        "the race needs one line to fit and two not to ({tokens} of {start})"
    );
    for round in 0..20 {
        let body = json!({"plan": plan, "items": items});
        let (a, b) = tokio::join!(
            call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(body.clone())),
            call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(body)),
        );
        let mut statuses = [a.0, b.0];
        statuses.sort_unstable();
        assert_eq!(statuses, [202, 402], "round {round}: one whole run and one refusal ({a:?} {b:?})");
        let (winner, loser) = if a.0 == 202 { (a.1, b.1) } else { (b.1, a.1) };
        assert_eq!((loser["error"].as_str(), loser["need"].as_i64()), (Some("INSUFFICIENT_TOKENS"), Some(tokens)));
        assert_eq!(balance(&house).await, (start - tokens, tokens), "round {round}: exactly one line held");
        let id = winner["runId"].as_str().unwrap();
        let (status, cancelled) =
            call(&app, &house, "POST", &format!("/api/toolkit/pipelines/runs/{id}/cancel"), None).await;
        assert_eq!((status, cancelled["tokensReleased"].as_i64()), (200, Some(tokens)), "{cancelled}");
        assert_eq!(balance(&house).await, (start, 0), "round {round}: everything released");
    }
    let (_, runs) = call(&app, &house, "GET", "/api/toolkit/pipelines/runs", None).await;
    assert_eq!(runs["runs"].as_array().unwrap().len(), 20, "a refused start creates nothing");
    assert_conserved(&app, &house.org_id).await;
}

async fn cancel_during_execution(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "cancel").await;
    let items = items(&house, 3).await;
    let (before, _) = balance(&house).await;
    let plan = json!({"name": "two", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}},
        {"id": "b", "tool": "upscale", "quality": "2k", "inputs": {"image": {"node": "a"}}}
    ]});
    let (_, started) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(json!({"plan": plan, "items": items}))).await;
    let id = started["runId"].as_str().unwrap().to_string();
    let tokens = started["compiled"]["tokens"].as_i64().unwrap();
    // One frame lands: its dependent is queued; two roots still queued; two dependents wait.
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let view = run(&app, &house, &id).await;
    let count = |s: &str| view["steps"].as_array().unwrap().iter().filter(|x| x["status"] == s).count();
    assert_eq!((count("done"), count("queued"), count("waiting")), (1, 3, 2), "{view}");
    let spent = view["run"]["tokensSpent"].as_i64().unwrap();

    let (status, out) = call(&app, &house, "POST", &format!("/api/toolkit/pipelines/runs/{id}/cancel"), None).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["cancelled"], true);
    assert_eq!(out["cancelledJobIds"].as_array().unwrap().len(), 3);
    assert_eq!(out["cancelledStepIds"].as_array().unwrap().len(), 2);
    assert_eq!(out["tokensReleased"].as_i64(), Some(tokens - spent));
    assert_eq!(out["run"]["status"], "cancelled");
    assert_eq!(out["run"]["cancelRequested"], true);
    assert_eq!(out["run"]["steps"], json!({"done": 1, "failed": 0, "cancelled": 5, "active": 0, "total": 6}));
    assert!(!app.studio.develops().run_next_job().await.unwrap(), "nothing more is queued");
    assert_eq!(balance(&house).await, (before - spent, 0));
    // Cancelling again releases nothing more.
    let (_, again) = call(&app, &house, "POST", &format!("/api/toolkit/pipelines/runs/{id}/cancel"), None).await;
    assert_eq!((again["cancelled"].as_bool(), again["tokensReleased"].as_i64()), (Some(false), Some(0)));

    // The develops route cancels a pipeline run the same way.
    let (_, second) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(json!({"plan": plan, "items": items}))).await;
    let develop_id = second["developId"].as_str().unwrap();
    let out = house.key.cancel_run(develop_id).await.expect("develop-run cancel");
    assert!(out.cancelled);
    assert_eq!(out.tokens_released, tokens, "queued roots and waiting dependents released");
    assert_eq!((out.run.state.as_str(), out.run.counts.cancelled), ("cancelled", 6));
    assert_eq!(balance(&house).await, (before - spent, 0));
    assert_conserved(&app, &house.org_id).await;
}

async fn plans_and_items_are_checked(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "checks").await;
    let other = House::new(&app, "checks-other").await;
    let mine = upload(&house, "mine.png", 1).await;
    let theirs = upload(&other, "theirs.png", 2).await;
    let node = |id: &str, tool: &str, inputs: Value| json!({"id": id, "tool": tool, "inputs": inputs});
    let preview = |plan: Value, items: Value| {
        let app = &app;
        let house = &house;
        async move {
            call(app, house, "POST", "/api/toolkit/pipelines/preview", Some(json!({"plan": plan, "items": items})))
                .await
        }
    };
    let one = json!([{"image": mine}]);
    let bad = [
        (
            json!({"name": "cycle", "nodes": [
            node("a", "upscale", json!({"image": {"node": "b"}})),
            node("b", "upscale", json!({"image": {"node": "a"}}))]}),
            Some("a"),
        ),
        (json!({"name": "tool", "nodes": [node("a", "teleport", json!({"image": {"item": "image"}}))]}), Some("a")),
        (json!({"name": "needs", "nodes": [node("a", "cleanup", json!({"image": {"item": "image"}}))]}), Some("a")),
        (json!({"name": "ghost", "nodes": [node("a", "upscale", json!({"image": {"node": "z"}}))]}), Some("a")),
        (
            json!({"name": "twice", "nodes": [
            node("a", "upscale", json!({"image": {"item": "image"}})),
            node("a", "upscale", json!({"image": {"item": "image"}}))]}),
            Some("a"),
        ),
        (
            json!({"name": "both", "nodes": [node("a", "upscale", json!({"image": {"item": "image", "node": "a"}}))]}),
            Some("a"),
        ),
        (
            json!({"name": "reserved", "nodes": [{"id": "a", "tool": "upscale", "params": {"runId": "x"},
            "inputs": {"image": {"item": "image"}}}]}),
            Some("a"),
        ),
        (
            json!({"name": "ground", "nodes": [{"id": "a", "tool": "packshot", "params": {"ground": "bone"},
            "inputs": {"image": {"item": "image"}}}]}),
            Some("a"),
        ),
        (json!({"name": "typo", "nodes": [{"id": "a", "tool": "upscale", "input": {}}]}), None),
        (json!({"name": "", "nodes": [node("a", "upscale", json!({"image": {"item": "image"}}))]}), None),
        (json!({"name": "none", "nodes": []}), None),
        (
            json!({"name": "sink", "sinkFolderId": "fld_nowhere",
            "nodes": [node("a", "upscale", json!({"image": {"item": "image"}}))]}),
            None,
        ),
    ];
    for (plan, named) in bad {
        let (status, body) = preview(plan.clone(), one.clone()).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("BAD_PLAN")), "{plan} → {body}");
        assert_eq!(body["node"].as_str(), named, "{body}");
        if plan["name"] == "ground" {
            let message = body["message"].as_str().unwrap_or_default();
            assert!(message.contains("params.ground") && message.contains("#rrggbb"), "{body}");
        }
    }
    let good = json!({"name": "up", "nodes": [node("a", "upscale", json!({"image": {"item": "image"}}))]});
    for items in [json!([]), json!({"image": mine}), json!([["x"]]), json!([{"image": 3}]), json!([{}])] {
        let (status, body) = preview(good.clone(), items.clone()).await;
        assert_eq!((status, body["error"].as_str()), (400, Some("BAD_ITEMS")), "{items} → {body}");
    }
    let (status, body) = preview(good.clone(), json!([{"image": mine}, {"image": theirs}])).await;
    assert_eq!((status, body["error"].as_str(), body["item"].as_i64()), (404, Some("ASSET_NOT_FOUND"), Some(1)));
    // An item without the input skips its step; an item feeding nothing at all is refused.
    let (status, body) = preview(good.clone(), json!([{"image": mine}, {"other": mine}])).await;
    assert_eq!(
        (status, body["compiled"]["frames"].as_i64(), body["compiled"]["framesSkipped"].as_i64()),
        (200, Some(1), Some(1))
    );
    assert_eq!(body["compiled"]["skipped"][0]["item"], 1);
    let (status, body) = preview(good.clone(), json!([{"other": mine}])).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("BAD_ITEMS")));
    // 351 items × 2 nodes is past the 700-frame cap.
    let wide = json!({"name": "wide", "nodes": [
        node("a", "upscale", json!({"image": {"item": "image"}})),
        node("b", "upscale", json!({"image": {"node": "a"}}))]});
    let many: Vec<Value> = (0..351).map(|_| json!({"image": mine})).collect();
    let (status, body) = preview(wide.clone(), Value::Array(many.clone())).await;
    assert_eq!((status, body["error"].as_str()), (422, Some("LINE_TOO_WIDE")), "{body}");
    assert_eq!((body["frames"].as_i64(), body["max"].as_i64()), (Some(702), Some(700)));
    let (status, body) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(json!({"plan": wide, "items": many}))).await;
    assert_eq!((status, body["error"].as_str()), (422, Some("LINE_TOO_WIDE")));
    let many: Vec<Value> = (0..701).map(|_| json!({"image": mine})).collect();
    let (status, body) = preview(good.clone(), Value::Array(many)).await;
    assert_eq!((status, body["error"].as_str(), body["frames"].as_i64()), (422, Some("LINE_TOO_WIDE"), Some(701)));
    // Missing pieces of the body.
    let (status, body) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/preview", Some(json!({"plan": good}))).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("BAD_BODY")));
    let (status, body) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(json!({"items": one}))).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("BAD_BODY")));
    // A line the balance cannot cover: 402 and nothing created.
    let dear = json!({"name": "dear", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "4k", "inputs": {"image": {"item": "image"}}}]});
    let lots: Vec<Value> = (0..40).map(|_| json!({"image": mine})).collect();
    let (before, _) = balance(&house).await;
    let (status, body) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(json!({"plan": dear, "items": lots}))).await;
    assert_eq!(
        (status, body["error"].as_str(), body["spendable"].as_i64()),
        (402, Some("INSUFFICIENT_TOKENS"), Some(before))
    );
    assert_eq!(balance(&house).await, (before, 0));
    let (_, runs) = call(&app, &house, "GET", "/api/toolkit/pipelines/runs", None).await;
    assert_eq!(runs["runs"], json!([]));
    assert!(house.key.jobs_since(0).await.unwrap().jobs.is_empty(), "no job row");
}

async fn presets_and_idempotent_starts(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "presets").await;
    let other = House::new(&app, "presets-other").await;
    let image = upload(&house, "p.png", 3).await;
    let plan = json!({"name": "Enlarge", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}}]});
    let (status, wrapped) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/presets", Some(json!({"plan": plan}))).await;
    assert_eq!(status, 201, "{wrapped}");
    let mut bare_plan = plan.clone();
    bare_plan["name"] = json!("Bare");
    let (status, bare) = call(&app, &house, "POST", "/api/toolkit/pipelines/presets", Some(bare_plan)).await;
    assert_eq!(status, 201, "{bare}");
    let (status, body) =
        call(&app, &house, "POST", "/api/toolkit/pipelines/presets", Some(json!({"plan": {"name": "x", "nodes": []}})))
            .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("BAD_PLAN")));
    let (_, list) = call(&app, &house, "GET", "/api/toolkit/pipelines/presets", None).await;
    let names: Vec<&str> = list["presets"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Bare", "Enlarge"], "newest first");
    let id = wrapped["preset"]["id"].as_str().unwrap();
    let mut renamed = plan.clone();
    renamed["name"] = json!("Enlarge, kept");
    let (status, patched) =
        call(&app, &house, "PATCH", &format!("/api/toolkit/pipelines/presets/{id}"), Some(json!({"plan": renamed})))
            .await;
    assert_eq!((status, patched["preset"]["name"].as_str()), (200, Some("Enlarge, kept")));
    // Another house's preset is not found by any route.
    let path = format!("/api/toolkit/pipelines/presets/{id}");
    assert_eq!(call(&app, &other, "PATCH", &path, Some(json!({"plan": plan}))).await.0, 404);
    assert_eq!(call(&app, &other, "DELETE", &path, None).await.0, 404);
    let body = json!({"planId": id, "items": [{"image": image}]});
    let (status, err) = call(&app, &other, "POST", "/api/toolkit/pipelines/runs", Some(body.clone())).await;
    assert_eq!((status, err["error"].as_str()), (404, Some("PRESET_NOT_FOUND")));

    // A preset runs by id; the same key and body answer the first run; another body is 409.
    let mut keyed = body.clone();
    keyed["idempotencyKey"] = json!("preset-run");
    let (status, first) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(keyed.clone())).await;
    assert_eq!(status, 202, "{first}");
    let (status, again) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(keyed.clone())).await;
    assert_eq!((status, again["replayed"].as_bool(), again["started"].as_i64()), (202, Some(true), Some(0)));
    assert_eq!(again["runId"], first["runId"]);
    let (_, held) = balance(&house).await;
    assert_eq!(held, first["compiled"]["tokens"].as_i64().unwrap(), "a replay holds nothing more");
    keyed["brandId"] = json!("another");
    let (status, err) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(keyed)).await;
    assert_eq!((status, err["error"].as_str()), (409, Some("IDEMPOTENCY_KEY_REUSED")));
    let run = run(&app, &house, first["runId"].as_str().unwrap()).await;
    assert_eq!(run["run"]["planId"].as_str(), Some(id));
    assert_eq!(run["plan"]["name"], "Enlarge, kept");

    let (status, deleted) = call(&app, &house, "DELETE", &path, None).await;
    assert_eq!((status, deleted), (200, json!({"id": id, "deleted": true})));
    assert_eq!(call(&app, &house, "DELETE", &path, None).await.0, 404);
    let (status, err) = call(&app, &house, "POST", "/api/toolkit/pipelines/runs", Some(body)).await;
    assert_eq!((status, err["error"].as_str()), (404, Some("PRESET_NOT_FOUND")));
    // The run keeps the plan it ran.
    let run = self::run(&app, &house, first["runId"].as_str().unwrap()).await;
    assert_eq!(run["plan"]["nodes"][0]["tool"], "upscale");
}
