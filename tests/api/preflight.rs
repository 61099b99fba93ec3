//! Pre-flight over HTTP (`POST /api/toolkit/ai/preflight`: its codes, a clean and a flagged
//! image, never a charge), pre-flight over library assets, and verdicts and redraws through the
//! core with a key's `Caller` (a redraw is a take at the frame's price; a futile or unreadable
//! one is refused and charges nothing).

use reqwest::multipart::{Form, Part};
use studio_client::api::{
    FixBy, JobStatus, KeyRole, PreflightRequest, PreflightResult, Quality, RedrawRequest, VerdictRequest,
};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};
use studio_core::JobId;
use studio_tests::images::{CENTRED, LIGHT_GROUND, garment_shot, shot};
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};

backend_tests!(
    preflight_route_codes,
    preflight_answers_and_is_free,
    preflight_over_library_assets,
    verdicts_and_redraws
);

/// A frame pre-flight finds nothing wrong with.
fn clean() -> Vec<u8> {
    garment_shot(1600, 1200)
}

fn image(bytes: Vec<u8>) -> Part {
    Part::bytes(bytes).file_name("look.png")
}

/// POST the pre-flight form with the key; the status and the JSON body.
async fn post(client: &Client, form: Form) -> (u16, serde_json::Value) {
    let mut req = reqwest::Client::new().post(format!("{}/api/toolkit/ai/preflight", client.base_url()));
    if let Some(key) = client.api_key() {
        req = req.bearer_auth(key);
    }
    let res = req.multipart(form).send().await.expect("send");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or_default())
}

async fn refused(client: &Client, form: Form) -> (u16, String) {
    let (status, body) = post(client, form).await;
    (status, body["error"].as_str().unwrap_or("").to_string())
}

async fn answered(client: &Client, form: Form) -> PreflightResult {
    let (status, body) = post(client, form).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).expect("a PreflightResult")
}

fn codes(r: &PreflightResult) -> Vec<&str> {
    r.findings.iter().map(|f| f.code.as_str()).collect()
}

async fn preflight_route_codes(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let key = House::new(&app, "pf-codes").await.key;
    assert_eq!(refused(&key, Form::new().text("lens", "build sheet")).await, (400, "IMAGES_REQUIRED".into()));
    assert_eq!(refused(&key, Form::new().part("images", image(Vec::new()))).await, (400, "EMPTY_IMAGE".into()));
    let mut seven = Form::new();
    for _ in 0..7 {
        seven = seven.part("images", image(garment_shot(64, 48)));
    }
    let (status, body) = post(&key, seven).await;
    assert_eq!((status, body["error"].as_str(), body["max"].as_u64()), (400, Some("TOO_MANY_IMAGES"), Some(6)));
    let text = Part::bytes(b"just some words, not a picture".to_vec()).file_name("a.png");
    assert_eq!(refused(&key, Form::new().part("images", text)).await, (400, "BAD_FORM".into()));
    let form = Form::new().part("images", image(clean())).text("lens", "mood board");
    assert_eq!(refused(&key, form).await, (400, "BAD_FORM".into()));
    let form = Form::new().part("photo", image(clean()));
    assert_eq!(refused(&key, form).await, (400, "BAD_FORM".into()));
    // Over 12 MB: 413 with maxMb, read to the end rather than cut off.
    let mut big = clean();
    big.resize(12 * 1024 * 1024 + 1, 0);
    let (status, body) = post(&key, Form::new().part("images", image(big))).await;
    assert_eq!((status, body["error"].as_str(), body["maxMb"].as_u64()), (413, Some("IMAGE_TOO_LARGE"), Some(12)));
    // Not multipart at all; no credential.
    let res = reqwest::Client::new()
        .post(format!("{}/api/toolkit/ai/preflight", app.base))
        .bearer_auth(key.api_key().unwrap())
        .json(&serde_json::json!({"images": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 400);
    assert_eq!(refused(&app.client, Form::new().part("images", image(clean()))).await.0, 401);
}

async fn preflight_answers_and_is_free(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, key, .. } = House::new(&app, "pf-free").await;
    let before = key.balance().await.unwrap();

    let r = answered(&key, Form::new().part("images", image(clean()))).await;
    assert!(r.ok && r.clear && r.findings.is_empty(), "{r:#?}");

    let r = answered(&key, Form::new().part("images", image(garment_shot(600, 400)))).await;
    assert_eq!(codes(&r), ["too-small"], "{r:#?}");
    let f = &r.findings[0];
    assert_eq!((f.images.as_slice(), f.by), (&[1u32][..], FixBy::Swap));
    assert!(f.sure > 0.5 && f.sure <= 1.0 && !f.says.is_empty() && !f.fix.is_empty());
    assert!(!r.clear);

    // Two images under different light: light-mismatch names both.
    let form = Form::new().part("images", image(clean())).part("images", image(shot(1600, 1200, 120, CENTRED)));
    let r = answered(&key, form).await;
    let f = r.findings.iter().find(|f| f.code == "light-mismatch").unwrap_or_else(|| panic!("{r:#?}"));
    assert_eq!(f.images, [1, 2]);

    // A piece cut by the right edge.
    let r =
        answered(&key, Form::new().part("images", image(shot(1600, 1200, LIGHT_GROUND, [0.6, 0.25, 1.0, 0.75])))).await;
    assert_eq!(codes(&r), ["cropped-edge"], "{r:#?}");

    // clearing: what was fixed and what remains; comma-separated and repeated fields both read.
    let form = Form::new()
        .part("images", image(garment_shot(600, 400)))
        .text("clearing", "too-small, colour-cast")
        .text("clearing", "not-a-code");
    let r = answered(&key, form).await;
    assert_eq!(
        (r.remaining.clone(), r.cleared.clone()),
        (vec!["too-small".to_string()], vec!["colour-cast".to_string()])
    );

    // A lens narrows the question: a small image is still too small for casting, but a build
    // sheet asks only whether the figure is full length.
    let small = || image(garment_shot(600, 400));
    let r = answered(&key, Form::new().part("images", small()).text("lens", "casting look")).await;
    assert_eq!(codes(&r), ["too-small"]);
    let r = answered(&key, Form::new().part("images", small()).text("lens", "build sheet")).await;
    assert!(r.clear, "{r:#?}");

    // A viewer key may ask too; nothing was ever held or charged.
    let viewer = app.client.with_api_key(session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap());
    assert!(answered(&viewer, Form::new().part("images", image(clean()))).await.clear);
    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held, after.holds.len()), (before.balance, 0, 0));
}

async fn preflight_over_library_assets(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "pf-lib").await;
    let me = house.caller(&app).await;
    let key = house.key;
    let clean_id = key.upload_bytes("clean.png", clean(), &UploadOptions::default()).await.unwrap().asset.id;
    let small_id =
        key.upload_bytes("small.png", garment_shot(600, 400), &UploadOptions::default()).await.unwrap().asset.id;
    let before = key.balance().await.unwrap().balance;

    let ask = |ids: Vec<String>, lens: Option<Vec<String>>| PreflightRequest { asset_ids: ids, lens };
    let r = app.studio.develops().preflight(&me, ask(vec![clean_id.clone()], None)).await.expect("preflight");
    assert!(r.clear, "{r:#?}");
    let r = app.studio.develops().preflight(&me, ask(vec![clean_id.clone(), small_id.clone()], None)).await.unwrap();
    assert_eq!(codes(&r), ["too-small"]);
    assert_eq!(r.findings[0].images, [2]);
    let r = app
        .studio
        .develops()
        .preflight(&me, ask(vec![small_id.clone()], Some(vec!["build sheet".into()])))
        .await
        .unwrap();
    assert!(r.clear);

    let err = app.studio.develops().preflight(&me, ask(Vec::new(), None)).await.unwrap_err();
    assert_eq!(err.code, "IMAGES_REQUIRED");
    let err = app.studio.develops().preflight(&me, ask(vec![clean_id.clone(); 7], None)).await.unwrap_err();
    assert_eq!((err.code, err.extra.get("max").and_then(|v| v.as_u64())), ("TOO_MANY_IMAGES", Some(6)));
    let err = app.studio.develops().preflight(&me, ask(vec!["ast_missing".into()], None)).await.unwrap_err();
    assert_eq!(err.code, "ASSET_NOT_FOUND");
    let err = app
        .studio
        .develops()
        .preflight(&me, ask(vec![clean_id.clone()], Some(vec!["moodboard".into()])))
        .await
        .unwrap_err();
    assert_eq!(err.code, "BAD_LENS");
    // Another house's asset is unknown here.
    let stranger = House::new(&app, "pf-lib-stranger").await.caller(&app).await;
    let err = app.studio.develops().preflight(&stranger, ask(vec![clean_id], None)).await.unwrap_err();
    assert_eq!(err.code, "ASSET_NOT_FOUND");
    assert_eq!(key.balance().await.unwrap().balance, before, "pre-flight is free");
}

fn upscale(bytes: Vec<u8>) -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes })
        .quality(Quality::K1)
}

/// Run every queued job in-process.
async fn run_all(app: &TestApp) {
    while app.studio.develops().run_next_job().await.expect("run") {}
}

async fn verdicts_and_redraws(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let house = House::new(&app, "verdict").await;
    let me = house.caller(&app).await;
    let House { session, key, org_id: org, .. } = house;
    let good = key.submit_develop(&upscale(clean())).await.unwrap().job_id;
    let tiny = key.submit_develop(&upscale(garment_shot(40, 30))).await.unwrap().job_id;
    run_all(&app).await;
    assert_eq!(key.job(&good).await.unwrap().status, JobStatus::Done);
    assert_eq!(key.job(&tiny).await.unwrap().status, JobStatus::Done);

    // A good frame: readable, scored, worth redrawing.
    let v = app.studio.develops().verdict(&me, VerdictRequest { job_id: good.clone() }).await.expect("verdict");
    assert!(v.readable && !v.retry_futile, "{v:#?}");
    assert!(v.score >= 80, "{v:#?}");
    let m = v.measured.as_ref().expect("measured");
    assert_eq!((m.long_edge, m.expected_long_edge, m.input_long_edge), (1024, 1024, Some(1600)));

    // Redrawing it holds the frame's price and links the take to its source.
    let before = key.balance().await.unwrap().balance;
    let redraw = RedrawRequest { job_id: good.clone(), idempotency_key: Some("again-1".into()) };
    let taken = app.studio.develops().redraw(&me, redraw.clone()).await.expect("redraw");
    assert_eq!(taken.jobs.len(), 1);
    assert_eq!((taken.jobs[0].source_job_id.as_str(), taken.jobs[0].tokens), (good.as_str(), 9));
    assert_eq!(key.balance().await.unwrap().balance, before - 9);
    let row = app.studio.storage().job(&org, &JobId::from(&taken.jobs[0].job_id)).await.unwrap().expect("the take");
    assert_eq!(row.retry_of_job_id.as_deref(), Some(good.as_str()));
    // The same key again: the same take, nothing more held.
    let again = app.studio.develops().redraw(&me, redraw).await.expect("replay");
    assert_eq!(again.jobs[0].job_id, taken.jobs[0].job_id);
    assert!(again.replayed);
    assert_eq!(key.balance().await.unwrap().balance, before - 9);

    // A frame enlarged from a 40 × 30 input: a redraw cannot help; refused, nothing charged.
    let v = app.studio.develops().verdict(&me, VerdictRequest { job_id: tiny.clone() }).await.unwrap();
    assert!(v.readable && v.retry_futile, "{v:#?}");
    assert!(v.marks.iter().any(|m| m.code == "input-too-small"), "{v:#?}");
    let balance = key.balance().await.unwrap().balance;
    let err = app
        .studio
        .develops()
        .redraw(&me, RedrawRequest { job_id: tiny.clone(), idempotency_key: None })
        .await
        .unwrap_err();
    assert_eq!((err.kind, err.code), (studio_core::ErrorKind::Unprocessable, "REDRAW_FUTILE"));
    assert_eq!(key.balance().await.unwrap().balance, balance);

    // A queued frame: nothing to judge; a redraw is refused, nothing charged.
    let queued = key.submit_develop(&upscale(clean())).await.unwrap().job_id;
    let balance = key.balance().await.unwrap().balance;
    let v = app.studio.develops().verdict(&me, VerdictRequest { job_id: queued.clone() }).await.unwrap();
    assert!(!v.readable && !v.retry_futile && v.score == 0 && v.measured.is_none(), "{v:#?}");
    assert_eq!(v.marks[0].code, "not-developed");
    let err = app
        .studio
        .develops()
        .redraw(&me, RedrawRequest { job_id: queued.clone(), idempotency_key: None })
        .await
        .unwrap_err();
    assert_eq!((err.kind, err.code), (studio_core::ErrorKind::Unprocessable, "VERDICT_UNREADABLE"));
    assert_eq!(key.balance().await.unwrap().balance, balance);

    // A failed frame whose input was refused: futile.
    let mut broken = garment_shot(300, 300);
    broken[60..120].fill(0xFF); // pixel data damaged, chunks whole: accepted, then undecodable
    let failed = key.submit_develop(&upscale(broken)).await.unwrap().job_id;
    run_all(&app).await;
    assert_eq!(key.job(&failed).await.unwrap().status, JobStatus::Failed);
    let v = app.studio.develops().verdict(&me, VerdictRequest { job_id: failed.clone() }).await.unwrap();
    assert!(!v.readable && v.retry_futile, "{v:#?}");
    let err =
        app.studio.develops().redraw(&me, RedrawRequest { job_id: failed, idempotency_key: None }).await.unwrap_err();
    assert_eq!(err.code, "REDRAW_FUTILE");

    // Another house's job is unknown; a viewer may read a verdict but not redraw.
    let stranger = House::new(&app, "verdict-stranger").await.caller(&app).await;
    let err = app.studio.develops().verdict(&stranger, VerdictRequest { job_id: good.clone() }).await.unwrap_err();
    assert_eq!((err.kind, err.code), (studio_core::ErrorKind::NotFound, "NOT_FOUND"));
    let viewer_secret = session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = app.studio.accounts().authenticate_key(&viewer_secret).await.expect("a caller for the key");
    assert!(app.studio.develops().verdict(&viewer, VerdictRequest { job_id: good.clone() }).await.unwrap().readable);
    let err =
        app.studio.develops().redraw(&viewer, RedrawRequest { job_id: good, idempotency_key: None }).await.unwrap_err();
    assert_eq!(err.code, "FORBIDDEN");
}
