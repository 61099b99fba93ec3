//! Develops over HTTP: every row of the job state table (spec §3.1), every documented code of
//! §4.3, runs, takes, the socket, and a concurrency test that ends with the ledger conserved.
//! Jobs are run in-process with `run_next_job` where a test needs to hold a job queued.

use std::collections::HashSet;
use std::time::Duration;
use studio_core::{HoldStatus, JobId};

use studio_client::api::{CancelReason, JobStatus, KeyRole, Quality, SocketMessage, TakesRequest};
use studio_client::{Client, DevelopSubmit, InputSource};
use studio_tests::images::png;
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};

backend_tests!(
    submit_runs_to_done_and_settles,
    failed_frame_releases,
    cancel_rows_of_the_state_table,
    submit_refusals,
    refused_submits_charge_nothing,
    duplicate_rules,
    runs_group_and_cancel,
    takes_rules,
    socket_pushes_job_changes,
    event_stream_reconnects_and_backfills,
    concurrent_clients_conserve_the_ledger,
    start_develop_follows_changes_made_by_another_replica,
);

const WAIT: Duration = Duration::from_secs(120);

fn upscale(bytes: Vec<u8>) -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes })
        .quality(Quality::K1)
}

/// GET a path with the client's key; the status and the envelope's code.
async fn raw(client: &Client, path: &str) -> (u16, String) {
    let res = reqwest::Client::new()
        .get(format!("{}{path}", client.base_url()))
        .bearer_auth(client.api_key().expect("a key client"))
        .send()
        .await
        .expect("send");
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap_or_default();
    (status, body["error"].as_str().unwrap_or("").to_string())
}

fn code(e: &studio_client::Error) -> (u16, String) {
    (e.status().unwrap_or(0), e.code().unwrap_or("").to_string())
}

/// Spendable + held + settled = credited, and the running totals equal the ledger's sums.
async fn assert_conserved(app: &TestApp, org_id: &str) {
    let storage = app.studio.storage();
    let totals = storage.balance(&org_id.into()).await.expect("balance");
    let audit = storage.audit(&org_id.into()).await.expect("audit");
    assert_eq!(totals.spendable() + totals.held + totals.settled, totals.credited, "tokens conserved");
    assert_eq!(
        (audit.grant_tokens, audit.topup_tokens, audit.held, audit.settled, audit.credited),
        (totals.grant_tokens, totals.topup_tokens, totals.held, totals.settled, totals.credited),
        "running totals match the ledger"
    );
}

async fn submit_runs_to_done_and_settles(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "done").await;
    let accepted = key.submit_develop(&upscale(png(120, 80))).await.expect("submit");
    assert_eq!((accepted.status, accepted.tokens_held, accepted.replayed), (JobStatus::Queued, 9, false));
    let before = key.balance().await.unwrap();
    assert_eq!((before.balance, before.held), (91, 9));
    assert_eq!(before.holds.len(), 1);

    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let status = key.job(&accepted.job_id).await.expect("status");
    assert_eq!(status.status, JobStatus::Done, "{:?}", status.error);
    assert_eq!((status.tokens_estimated, status.tokens_settled), (9, Some(9)));
    assert!(status.finished_at.is_some());
    let asset_id = status.result_asset_id.clone().expect("result asset");
    let asset = key.list_assets(None).await.unwrap().assets.into_iter().find(|a| a.id == asset_id).expect("filed");
    assert_eq!(asset.tool.as_deref(), Some("upscale"));
    assert_eq!((asset.width, asset.height), (Some(1024), Some(683)));
    let bytes = key.asset_bytes(&asset_id).await.expect("result bytes");
    let img = image::load_from_memory(&bytes).expect("a real image");
    assert_eq!((img.width(), img.height()), (1024, 683));

    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (91, 0));
    assert!(after.holds.is_empty());
    assert_conserved(&app, &org).await;

    // Backfill: queued, running and done each took the next eventSeq; the job shows its latest.
    let jobs = key.jobs_since(0).await.unwrap().jobs;
    assert_eq!(jobs.len(), 1);
    assert_eq!((jobs[0].status, jobs[0].event_seq), (JobStatus::Done, 3));
    assert!(
        jobs[0].result_url.as_deref().is_some_and(|u| u.ends_with(&format!("/api/toolkit/assets/{asset_id}/file")))
    );
    assert!(key.jobs_since(3).await.unwrap().jobs.is_empty());
    let bad = raw(&key, "/api/toolkit/jobs?since=-1").await;
    assert_eq!(bad, (400, "BAD_SINCE".to_string()));
    assert_eq!(raw(&key, "/api/toolkit/jobs?since=abc").await, (400, "BAD_SINCE".to_string()));

    // Idempotent per (person, key): the replay holds nothing and returns the same job.
    let keyed = upscale(png(40, 40)).idempotency_key("once");
    let first = key.submit_develop(&keyed).await.unwrap();
    let again = key.submit_develop(&keyed).await.unwrap();
    assert_eq!(again.job_id, first.job_id);
    assert_eq!((again.tokens_held, again.replayed), (0, true));
    assert_eq!(key.balance().await.unwrap().held, 9);
}

async fn failed_frame_releases(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "fail").await;
    // A PNG whose header and chunks are whole but whose pixel data is damaged (its CRC no longer
    // matches): accepted, then the develop fails.
    let mut broken = png(300, 300);
    broken[60..120].fill(0xFF);
    let accepted = key.submit_develop(&upscale(broken)).await.expect("submit");
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let status = key.job(&accepted.job_id).await.unwrap();
    assert_eq!(status.status, JobStatus::Failed);
    assert!(status.error.is_some());
    assert_eq!(status.tokens_settled, Some(0));
    let balance = key.balance().await.unwrap();
    assert_eq!((balance.balance, balance.held), (100, 0));
    assert_conserved(&app, &org).await;
}

async fn cancel_rows_of_the_state_table(backend: Backend) {
    let app = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.runner_lease_secs = 3;
    })
    .await
    .expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "cancel").await;

    // queued → cancelled, released.
    let queued = key.submit_develop(&upscale(png(50, 50))).await.unwrap();
    let c = key.cancel_job(&queued.job_id).await.unwrap();
    assert_eq!((c.cancelled, c.state, c.tokens_released, c.reason), (true, JobStatus::Cancelled, 9, None));
    assert_eq!(key.balance().await.unwrap().balance, 100);
    // cancelled → unchanged, ALREADY_SETTLED.
    let c = key.cancel_job(&queued.job_id).await.unwrap();
    assert_eq!((c.cancelled, c.reason), (false, Some(CancelReason::AlreadySettled)));

    // running → unchanged, ALREADY_RENDERING; it finishes and still costs.
    let running = key.submit_develop(&upscale(png(50, 50))).await.unwrap();
    let now = chrono::Utc::now();
    let claimed =
        app.studio.storage().claim_job(now, now - chrono::Duration::seconds(3)).await.unwrap().expect("claim");
    assert_eq!(claimed.id, running.job_id);
    let c = key.cancel_job(&running.job_id).await.unwrap();
    assert_eq!((c.cancelled, c.state, c.tokens_released), (false, JobStatus::Running, 0));
    assert_eq!(c.reason, Some(CancelReason::AlreadyRendering));
    // The claimer "died": after its lease lapses a runner takes the job over and lands it.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let status = key.job(&running.job_id).await.unwrap();
    assert_eq!((status.status, status.tokens_settled), (JobStatus::Done, Some(9)));
    // done → unchanged, ALREADY_SETTLED.
    let c = key.cancel_job(&running.job_id).await.unwrap();
    assert_eq!((c.cancelled, c.state, c.reason), (false, JobStatus::Done, Some(CancelReason::AlreadySettled)));
    assert_eq!(key.balance().await.unwrap().balance, 91);

    // Unknown or foreign: 404.
    let stranger = House::new(&app, "stranger").await.key;
    assert_eq!(code(&stranger.cancel_job(&running.job_id).await.unwrap_err()), (404, "NOT_FOUND".into()));
    assert_eq!(code(&key.cancel_job("job_missing").await.unwrap_err()), (404, "NOT_FOUND".into()));
    assert_eq!(code(&stranger.job(&running.job_id).await.unwrap_err()), (404, "NOT_FOUND".into()));
    assert_conserved(&app, &org).await;
}

async fn submit_refusals(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { session, key, org_id: org, .. } = House::new(&app, "refuse").await;
    let cases: Vec<(DevelopSubmit, u16, &str)> = vec![
        (
            DevelopSubmit::new("tryon")
                .input("model", InputSource::Bytes { file_name: "m.png".into(), bytes: png(9, 9) }),
            400,
            "UNKNOWN_TOOL",
        ),
        (DevelopSubmit::new("no-such-tool"), 400, "UNKNOWN_TOOL"),
        (DevelopSubmit::new("upscale"), 400, "NO_IMAGE"),
        (
            DevelopSubmit::new("cleanup")
                .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: png(9, 9) }),
            400,
            "NO_IMAGE",
        ),
        (
            DevelopSubmit::new("upscale")
                .input("image", InputSource::Bytes { file_name: "e.png".into(), bytes: Vec::new() }),
            400,
            "EMPTY_IMAGE",
        ),
        (upscale(png(9, 9)).param("output", "somewhere"), 400, "BAD_FORM"),
        (upscale(png(9, 9)).param("quality", "8k"), 400, "BAD_FORM"),
        (DevelopSubmit::new("upscale").input("image", InputSource::Asset("ast_missing".into())), 404, "NOT_FOUND"),
        (
            DevelopSubmit::new("upscale")
                .input("photo", InputSource::Bytes { file_name: "p.png".into(), bytes: png(9, 9) }),
            400,
            "BAD_FORM",
        ),
        (
            upscale(png(9, 9)).input("image", InputSource::Bytes { file_name: "b.png".into(), bytes: png(9, 9) }),
            400,
            "BAD_FORM",
        ),
    ];
    for (develop, status, expected) in cases {
        let err = key.submit_develop(&develop).await.expect_err(expected);
        assert_eq!(code(&err), (status, expected.to_string()), "{develop:?}");
    }
    // 413 with maxMb: 12 MB is the cap per image.
    let mut big = png(64, 64);
    big.resize(12 * 1024 * 1024 + 1, 0);
    let err = key.submit_develop(&upscale(big)).await.unwrap_err();
    assert_eq!(code(&err), (413, "IMAGE_TOO_LARGE".into()));
    assert_eq!(err.extra_i64("maxMb"), Some(12));
    // 403 for a viewer key; 401 without credentials.
    let viewer = app.client.with_api_key(session.mint_key("v", Some(KeyRole::Viewer)).await.unwrap().key.unwrap());
    assert_eq!(code(&viewer.submit_develop(&upscale(png(9, 9))).await.unwrap_err()).0, 403);
    assert_eq!(code(&app.client.submit_develop(&upscale(png(9, 9))).await.unwrap_err()).0, 401);
    // 402 with need and spendable: 4k costs 19; spend down to 10 first.
    for _ in 0..10 {
        key.submit_develop(&upscale(png(9, 9))).await.unwrap();
    }
    let err = key.submit_develop(&upscale(png(9, 9)).quality(Quality::K4)).await.unwrap_err();
    assert_eq!(code(&err), (402, "INSUFFICIENT_TOKENS".into()));
    assert_eq!((err.extra_i64("need"), err.extra_i64("spendable")), (Some(19), Some(10)));
    // A library asset works as an input by role.
    let asset = key.upload_bytes("p.png", png(30, 20), &Default::default()).await.unwrap().asset;
    let twice = DevelopSubmit::new("upscale")
        .input("image", InputSource::Asset(asset.id.clone()))
        .input("image", InputSource::Asset(asset.id.clone()));
    assert_eq!(code(&key.submit_develop(&twice).await.unwrap_err()), (400, "BAD_FORM".into()), "one image per role");
    let by_asset = DevelopSubmit::new("upscale").input("image", InputSource::Asset(asset.id)).quality(Quality::K1);
    assert_eq!(key.submit_develop(&by_asset).await.unwrap().tokens_held, 9);
    assert_conserved(&app, &org).await;
}

async fn refused_submits_charge_nothing(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "enqueue").await;
    // Make the queue step itself fail inside the transaction that holds the tokens.
    let fault = studio_tests::refuse_inserts(&app, "jobs").await;
    let err = key.submit_develop(&upscale(png(9, 9))).await.unwrap_err();
    assert_eq!(code(&err), (500, "ENQUEUE_FAILED".into()));
    let balance = key.balance().await.unwrap();
    assert_eq!((balance.balance, balance.held, balance.holds.len()), (100, 0, 0));
    assert!(key.jobs_since(0).await.unwrap().jobs.is_empty());
    fault.lift().await;
    // Safe to retry.
    assert_eq!(key.submit_develop(&upscale(png(9, 9))).await.unwrap().tokens_held, 9);
    assert_conserved(&app, &org).await;
}

async fn duplicate_rules(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { session, key, org_id: org, .. } = House::new(&app, "dup").await;
    let source =
        key.submit_develop(&upscale(png(40, 30)).param("runId", "r1").param("destination", "nowhere")).await.unwrap();
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let dup = key.duplicate_job(&source.job_id, None).await.expect("duplicate");
    assert_eq!((dup.status, dup.cost), (JobStatus::Queued, 9));
    // Params copied verbatim; the source is never billed again.
    let storage = app.studio.storage();
    let copy = storage.job(&org, &JobId::from(&dup.job_id)).await.unwrap().unwrap();
    let original = storage.job(&org, &JobId::from(&source.job_id)).await.unwrap().unwrap();
    assert_eq!(copy.params, original.params);
    assert_eq!(copy.source_job_id.as_deref(), Some(source.job_id.as_str()));
    assert_eq!(original.tokens_settled, Some(9));
    assert_eq!(key.balance().await.unwrap().balance, 100 - 9 - 9);
    // The same idempotency key twice: one duplicate.
    let a = key.duplicate_job(&source.job_id, Some("d1")).await.unwrap();
    let b = key.duplicate_job(&source.job_id, Some("d1")).await.unwrap();
    assert_eq!(a.job_id, b.job_id);
    assert_eq!(b.cost, 0);
    // 404 foreign; 403 viewer; 402 short.
    let stranger = House::new(&app, "dup-stranger").await.key;
    assert_eq!(code(&stranger.duplicate_job(&source.job_id, None).await.unwrap_err()), (404, "NOT_FOUND".into()));
    let viewer = app.client.with_api_key(session.mint_key("v", Some(KeyRole::Viewer)).await.unwrap().key.unwrap());
    assert_eq!(code(&viewer.duplicate_job(&source.job_id, None).await.unwrap_err()).0, 403);
    while key.balance().await.unwrap().balance >= 9 {
        key.duplicate_job(&source.job_id, None).await.unwrap();
    }
    let spendable = key.balance().await.unwrap().balance;
    let err = key.duplicate_job(&source.job_id, None).await.unwrap_err();
    assert_eq!(code(&err), (402, "INSUFFICIENT_TOKENS".into()));
    assert_eq!((err.extra_i64("need"), err.extra_i64("spendable")), (Some(9), Some(spendable)));
    assert_conserved(&app, &org).await;
}

async fn runs_group_and_cancel(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "runs").await;
    let mut run_jobs = Vec::new();
    for _ in 0..3 {
        run_jobs.push(key.submit_develop(&upscale(png(20, 20)).param("runId", "shoot-1")).await.unwrap().job_id);
    }
    let look = key.submit_develop(&upscale(png(20, 20)).param("lookId", "lk1").param("stage", "lock")).await.unwrap();
    let loose_a = key
        .submit_develop(
            &DevelopSubmit::new("iron")
                .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: png(20, 20) })
                .quality(Quality::K1),
        )
        .await
        .unwrap();
    let loose_b = key
        .submit_develop(
            &DevelopSubmit::new("iron")
                .input("image", InputSource::Bytes { file_name: "b.png".into(), bytes: png(20, 20) })
                .quality(Quality::K2),
        )
        .await
        .unwrap();
    // Land the first frame of the run.
    assert!(app.studio.develops().run_next_job().await.unwrap());

    let runs = key.list_runs(false, None).await.unwrap().runs;
    assert_eq!(runs.len(), 3, "{runs:#?}");
    let run = runs.iter().find(|r| r.id == "run.shoot-1").expect("params.runId group");
    assert_eq!((run.kind.as_str(), run.tool.as_str()), ("run", "upscale"));
    assert_eq!(run.job_ids, run_jobs);
    assert_eq!((run.counts.total, run.counts.done, run.counts.active), (3, 1, 2));
    assert_eq!(run.again_cost, 27);
    assert_eq!(run.state, "queued");
    let lookbook = runs.iter().find(|r| r.id == "look.lk1.lock").expect("lookbook batch");
    assert_eq!(
        (lookbook.kind.as_str(), lookbook.stage.as_deref(), lookbook.look_id.as_deref()),
        ("lookbook", Some("lock"), Some("lk1"))
    );
    assert_eq!(lookbook.job_ids, vec![look.job_id.clone()]);
    let batch = runs.iter().find(|r| r.kind == "batch").expect("same tool within the gap");
    assert_eq!(batch.job_ids, vec![loose_a.job_id.clone(), loose_b.job_id.clone()]);
    assert_eq!(batch.again_cost, 9 + 13);
    assert_eq!(key.list_runs(true, Some(1)).await.unwrap().runs.len(), 1);
    assert_eq!(raw(&key, "/api/toolkit/develops?state=soon").await, (400, "BAD_STATE".into()));
    assert_eq!(raw(&key, "/api/toolkit/develops?limit=0").await, (400, "BAD_LIMIT".into()));
    assert_eq!(raw(&key, "/api/toolkit/develops?limit=101").await, (400, "BAD_LIMIT".into()));

    // Run cancel: queued frames cancelled and released; the landed one stays.
    let c = key.cancel_run("run.shoot-1").await.unwrap();
    assert!(c.cancelled);
    assert_eq!(c.cancelled_job_ids, run_jobs[1..].to_vec());
    assert_eq!(c.tokens_released, 18);
    assert!(c.still_rendering.is_empty());
    assert_eq!((c.run.counts.done, c.run.counts.cancelled, c.run.counts.active), (1, 2, 0));
    assert_eq!(c.run.state, "settled");
    assert!(!key.list_runs(true, None).await.unwrap().runs.iter().any(|r| r.id == "run.shoot-1"));
    assert_eq!(code(&key.cancel_run("run.nope").await.unwrap_err()), (404, "NOT_FOUND".into()));
    let stranger = House::new(&app, "runs-stranger").await.key;
    assert_eq!(code(&stranger.cancel_run("run.shoot-1").await.unwrap_err()), (404, "NOT_FOUND".into()));
    assert_conserved(&app, &org).await;
}

async fn takes_rules(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "takes").await;
    let a = key.submit_develop(&upscale(png(30, 30)).param("runId", "look-book")).await.unwrap().job_id;
    let b = key.submit_develop(&upscale(png(30, 30))).await.unwrap().job_id;
    let pending = key.submit_develop(&upscale(png(30, 30))).await.unwrap().job_id;
    assert!(app.studio.develops().run_next_job().await.unwrap());
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let balance = key.balance().await.unwrap().balance;

    // A frame not developed yet: 409, nothing held.
    let req = |ids: &[&String], key: Option<&str>, direction: Option<&str>| TakesRequest {
        job_ids: Some(ids.iter().map(|s| s.to_string()).collect()),
        direction: direction.map(str::to_string),
        idempotency_key: key.map(str::to_string),
    };
    let err = key.take_again(&req(&[&a, &pending], None, None)).await.unwrap_err();
    assert_eq!(code(&err), (409, "NOT_DEVELOPED".into()));
    assert_eq!(key.balance().await.unwrap().balance, balance);

    let taken = key.take_again(&req(&[&a, &b], Some("t1"), Some("warmer light, tighter crop"))).await.unwrap();
    assert!(!taken.replayed);
    assert_eq!(taken.jobs.len(), 2);
    assert_eq!(taken.jobs.iter().map(|j| j.source_job_id.clone()).collect::<Vec<_>>(), vec![a.clone(), b.clone()]);
    assert!(taken.jobs.iter().all(|j| j.tokens == 9));
    let offer = taken.offer.expect("an offer when a direction is given");
    assert_eq!(offer.text, "warmer light, tighter crop");
    assert_eq!(offer.scope_tools, vec!["upscale".to_string()]);
    assert_eq!(offer.evidence.len(), 2);
    assert_eq!(key.balance().await.unwrap().balance, balance - 18);
    let storage = app.studio.storage();
    let take_a = storage.job(&org, &JobId::from(&taken.jobs[0].job_id)).await.unwrap().unwrap();
    assert_eq!(take_a.retry_of_job_id.as_deref(), Some(a.as_str()));
    assert_eq!(take_a.run_id.as_deref(), Some("look-book"), "inherits the source runId");
    let params: serde_json::Value = serde_json::from_str(&take_a.params).unwrap();
    assert_eq!(params["direction"], "warmer light, tighter crop");

    // Replay with the same key and frames: 200, the same jobs, nothing held.
    let again = key.take_again(&req(&[&b, &a], Some("t1"), Some("warmer light, tighter crop"))).await.unwrap();
    assert!(again.replayed);
    assert_eq!(
        again.jobs.iter().map(|j| &j.job_id).collect::<HashSet<_>>(),
        taken.jobs.iter().map(|j| &j.job_id).collect::<HashSet<_>>()
    );
    assert_eq!(key.balance().await.unwrap().balance, balance - 18);
    // The key reused for a different set: 409.
    let err = key.take_again(&req(&[&a], Some("t1"), None)).await.unwrap_err();
    assert_eq!(code(&err), (409, "IDEMPOTENCY_KEY_REUSED".into()));
    // Unknown frame: 404; empty: 400; foreign: 404.
    assert_eq!(code(&key.take_again(&req(&[&"job_nope".to_string()], None, None)).await.unwrap_err()).0, 404);
    assert_eq!(code(&key.take_again(&TakesRequest::default()).await.unwrap_err()), (400, "BAD_BODY".into()));
    let stranger = House::new(&app, "takes-stranger").await.key;
    assert_eq!(code(&stranger.take_again(&req(&[&a], None, None)).await.unwrap_err()).0, 404);

    // Short of tokens for all frames: 402 and no frame held, none queued.
    let queued_before = key.jobs_since(0).await.unwrap().jobs.len();
    while key.balance().await.unwrap().balance >= 9 {
        key.duplicate_job(&a, None).await.unwrap();
    }
    let left = key.balance().await.unwrap();
    let err = key.take_again(&req(&[&a, &b], None, None)).await.unwrap_err();
    assert_eq!(code(&err), (402, "INSUFFICIENT_TOKENS".into()));
    assert_eq!(err.extra_i64("need"), Some(18));
    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (left.balance, left.held));
    assert!(key.jobs_since(0).await.unwrap().jobs.len() >= queued_before);
    assert_conserved(&app, &org).await;
}

async fn socket_pushes_job_changes(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 1).await.expect("app");
    let House { session, key, .. } = House::new(&app, "socket").await;
    // Without credentials: 401; without an Upgrade header: 426.
    let http = reqwest::Client::new();
    let url = format!("{}/api/toolkit/jobs/ws", app.base);
    assert_eq!(http.get(&url).send().await.unwrap().status().as_u16(), 401);
    let plain = http.get(&url).bearer_auth(key.api_key().unwrap()).send().await.unwrap();
    assert_eq!(plain.status().as_u16(), 426);
    assert_eq!(plain.json::<serde_json::Value>().await.unwrap()["error"], "UPGRADE_REQUIRED");

    // Two sockets of the house (a key and a session) and one of another house.
    let mut by_key = key.events(0);
    let mut by_session = session.events(0);
    let stranger = House::new(&app, "socket-stranger").await.key;
    let mut foreign = stranger.events(0);
    let job = key.submit_develop(&upscale(png(30, 20))).await.unwrap().job_id;
    for stream in [&mut by_key, &mut by_session] {
        let mut seen = Vec::new();
        while seen.last() != Some(&JobStatus::Done) {
            match tokio::time::timeout(WAIT, stream.next()).await.expect("an event in time").expect("event") {
                SocketMessage::Job { job: j } => {
                    assert_eq!(j.id, job);
                    seen.push(j.status);
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        // Whatever interleaving of backfill and socket, each change arrives once and in order.
        let mut expected = vec![JobStatus::Queued, JobStatus::Running, JobStatus::Done];
        expected.retain(|s| seen.contains(s));
        assert_eq!(seen, expected);
    }
    // The other house sees nothing of it.
    assert!(tokio::time::timeout(Duration::from_millis(500), foreign.next()).await.is_err());
}

async fn event_stream_reconnects_and_backfills(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "reconnect").await;
    let mut stream = key.events(0);
    let a = key.submit_develop(&upscale(png(30, 20))).await.unwrap().job_id;
    let first = tokio::time::timeout(WAIT, stream.next()).await.expect("in time").expect("event");
    assert!(matches!(&first, SocketMessage::Job { job } if job.id == a && job.status == JobStatus::Queued));
    // The first event may have come from the backfill: wait until the server's end of the
    // socket is listening, so the drop below reaches it.
    for _ in 0..500 {
        if app.studio.events().subscribers() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(app.studio.events().subscribers(), 1, "the stream's socket is open");
    // The server drops every socket (as after a lost LISTEN connection); while this client is
    // away, A lands and B is submitted and lands.
    app.studio.events().publish(studio_core::HouseEvent::resync());
    let b = key.submit_develop(&upscale(png(20, 30))).await.unwrap().job_id;
    assert!(app.studio.develops().run_next_job().await.unwrap());
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let mut seen = HashSet::new();
    let mut done = HashSet::new();
    while done.len() < 2 {
        match tokio::time::timeout(WAIT, stream.next()).await.expect("in time").expect("event") {
            SocketMessage::Job { job } => {
                assert!(seen.insert((job.id.clone(), job.event_seq)), "delivered twice: {job:?}");
                if job.status == JobStatus::Done {
                    done.insert(job.id);
                }
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(done, HashSet::from([a, b]));
    assert!(stream.reconnects() >= 1, "the stream reconnected by itself");
    assert_eq!(stream.cursor(), app.studio.storage().balance(&org).await.unwrap().job_event_seq);
}

async fn concurrent_clients_conserve_the_ledger(backend: Backend) {
    let app = spawn(backend, |c| {
        c.runner_concurrency = 2;
        c.signup_grant_tokens = 400;
    })
    .await
    .expect("app");
    let House { key, org_id: org, .. } = House::new(&app, "storm").await;
    let seed = key.submit_develop(&upscale(png(24, 24))).await.unwrap().job_id;
    key.wait_for(&seed, WAIT).await.unwrap();
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let key = key.clone();
        let seed = seed.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            for step in 0..8 {
                let result = match (worker + step) % 4 {
                    0 | 1 => key.submit_develop(&upscale(png(16 + step as u32, 16))).await.map(|r| r.job_id),
                    2 => key.duplicate_job(&seed, None).await.map(|r| r.job_id),
                    _ => key
                        .take_again(&TakesRequest { job_ids: Some(vec![seed.clone()]), ..Default::default() })
                        .await
                        .map(|r| r.jobs[0].job_id.clone()),
                };
                match result {
                    Ok(id) => {
                        if step % 3 == 0 {
                            let _ = key.cancel_job(&id).await.unwrap();
                        }
                        mine.push(id);
                    }
                    Err(e) => assert_eq!(e.code(), Some("INSUFFICIENT_TOKENS"), "{e}"),
                }
            }
            mine
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.extend(t.await.unwrap());
    }
    for id in &ids {
        let status = key.wait_for(id, WAIT).await.unwrap();
        assert!(status.status.is_terminal());
    }
    let balance = key.balance().await.unwrap();
    assert_eq!((balance.held, balance.holds.len()), (0, 0), "every hold resolved");
    assert_conserved(&app, &org).await;
    // Every job's hold resolved exactly once, the way its ending says.
    let storage = app.studio.storage();
    let mut settled = 0;
    for id in ids.iter().chain([&seed]) {
        let job = storage.job(&org, &JobId::from(id)).await.unwrap().unwrap();
        let hold = storage.hold(&org, &job.hold_id).await.unwrap().unwrap();
        let expected = if job.status == JobStatus::Done { HoldStatus::Settled } else { HoldStatus::Released };
        assert_eq!(hold.status, expected, "{job:?}");
        if job.status == JobStatus::Done {
            settled += job.tokens;
        }
    }
    assert_eq!(storage.balance(&org).await.unwrap().settled, settled);
}

/// The agent endpoint's `start_develop` plans a submit on the core's submit cache (the input
/// image and the brand profile, no read of its own); the transaction that holds its tokens
/// confirms both. A profile patched and an image taken out through a second core on the same
/// database (another replica) show in this core's very next submit, and a submit refused for it
/// holds nothing.
async fn start_develop_follows_changes_made_by_another_replica(backend: Backend) {
    use studio_core::api::{AssetIds, BrandPatch, StartDevelop};
    // No runner: the balance moves only with what this test submits.
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "cached-submit").await;
    let caller = house.caller(&app).await;
    let asset = house.key.upload_bytes("s.png", png(24, 16), &Default::default()).await.expect("upload").asset.id;
    let start = || StartDevelop {
        tool: "upscale".into(),
        inputs: [("image".to_string(), asset.clone())].into(),
        quality: "1k".into(),
        params: Default::default(),
        idempotency_key: None,
        folder_id: None,
        webhook_url: None,
    };
    let clause_of = |job_id: String| {
        let storage = app.studio.storage();
        let org = house.org_id.clone();
        async move {
            let row = storage.job(&org, &JobId::from(&job_id)).await.unwrap().expect("the job");
            let params: serde_json::Value = serde_json::from_str(&row.params).unwrap();
            params["brandClause"].as_str().map(str::to_string)
        }
    };
    let quiet = BrandPatch { vision_en: Some("Quiet tailoring".into()), ..Default::default() };
    app.studio.brand().patch(&caller, quiet).await.expect("patch");
    // Twice: the second submit is planned on what the first read.
    for _ in 0..2 {
        let started = app.studio.develops().start_develop(&caller, start()).await.expect("start_develop");
        assert_eq!(clause_of(started.job_id).await.as_deref(), Some("Brand vision: Quiet tailoring."));
    }

    let replica = app.replica().await;
    let there = replica.accounts().authenticate_key(&house.secret).await.expect("the key on the replica");
    let loud = BrandPatch { vision_en: Some("Loud tailoring".into()), ..Default::default() };
    replica.brand().patch(&there, loud).await.expect("patched on the replica");
    let started = app.studio.develops().start_develop(&caller, start()).await.expect("start_develop");
    assert_eq!(clause_of(started.job_id).await.as_deref(), Some("Brand vision: Loud tailoring."), "the new profile");

    replica
        .library()
        .delete_assets(&there, AssetIds { asset_ids: vec![asset.clone()] })
        .await
        .expect("taken out on the replica");
    let held = app.studio.billing().balance(&caller).await.expect("balance");
    let refused = app.studio.develops().start_develop(&caller, start()).await.expect_err("the image is gone");
    assert_eq!(refused.code, "ASSET_NOT_FOUND", "{refused:?}");
    assert_eq!(app.studio.billing().balance(&caller).await.expect("balance"), held, "a refused submit holds nothing");
    let jobs = app.studio.storage().list_jobs(&house.org_id, None, 10).await.unwrap();
    assert_eq!(jobs.len(), 3, "three submits went through, the fourth wrote nothing");
}
