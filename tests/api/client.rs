//! studio-client against the real server: the methods that cover the last routes (pre-flight,
//! the legacy bytes route, a ground's swatch, the docs page, the raw agent endpoint) and the
//! idempotency keys the client generates for spending calls.

use serde_json::json;
use studio_client::api::{JobStatus, Quality};
use studio_client::{DevelopSubmit, InputSource, PreflightCheck, UploadOptions};
use studio_tests::images::{garment_shot, png};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(
    preflight_through_the_client,
    bytes_routes_through_the_client,
    mcp_and_docs_through_the_client,
    spending_calls_get_their_own_keys
);

fn bytes(name: &str, bytes: Vec<u8>) -> InputSource {
    InputSource::Bytes { file_name: name.into(), bytes }
}

async fn preflight_through_the_client(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let key = House::new(&app, "client-pf").await.key;
    let before = key.balance().await.unwrap();

    let clean =
        key.preflight(&PreflightCheck::new().image(bytes("clean.png", garment_shot(1600, 1200)))).await.expect("clean");
    assert!(clean.ok && clean.clear && clean.findings.is_empty(), "{clean:#?}");

    // A small image from disk and one from the library: the asset is fetched and sent as bytes.
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.png");
    std::fs::write(&small, garment_shot(600, 400)).unwrap();
    let asset = key.upload_bytes("clean.png", garment_shot(1600, 1200), &UploadOptions::default()).await.unwrap().asset;
    let check = PreflightCheck::new()
        .image(InputSource::Asset(asset.id.clone()))
        .image(InputSource::Path(small.clone()))
        .clearing("too-small")
        .clearing("colour-cast");
    let flagged = key.preflight(&check).await.expect("flagged");
    assert!(!flagged.clear);
    let too_small = flagged.findings.iter().find(|f| f.code == "too-small").unwrap_or_else(|| panic!("{flagged:#?}"));
    assert_eq!(too_small.images, [2]);
    assert_eq!(
        (flagged.remaining.as_slice(), flagged.cleared.as_slice()),
        (&["too-small".to_string()][..], &["colour-cast".to_string()][..])
    );

    // A lens narrows the question: a build sheet asks only about full length.
    let sheet =
        key.preflight(&PreflightCheck::new().image(InputSource::Path(small)).lens("build sheet")).await.unwrap();
    assert!(sheet.clear, "{sheet:#?}");

    // Refusals come back typed, with their extras.
    let none = key.preflight(&PreflightCheck::new().lens("build sheet")).await.expect_err("no images");
    assert_eq!((none.status(), none.code()), (Some(400), Some("IMAGES_REQUIRED")));
    let mut seven = PreflightCheck::new();
    for i in 0..7 {
        seven = seven.image(bytes(&format!("{i}.png"), garment_shot(64, 48)));
    }
    let err = key.preflight(&seven).await.expect_err("seven images");
    assert_eq!((err.code(), err.extra_i64("max")), (Some("TOO_MANY_IMAGES"), Some(6)));
    let err =
        app.client.preflight(&PreflightCheck::new().image(bytes("a.png", garment_shot(64, 48)))).await.unwrap_err();
    assert_eq!(err.status(), Some(401));

    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, 0), "pre-flight is free");
}

async fn bytes_routes_through_the_client(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let key = House::new(&app, "client-bytes").await.key;
    let stranger = House::new(&app, "client-bytes-stranger").await.key;
    let image = png(32, 24);
    let asset = key.upload_bytes("look.png", image.clone(), &UploadOptions::default()).await.unwrap().asset;

    // The legacy bytes route: the same bytes; 403 for another house's asset, 404 unknown.
    let legacy = key.legacy_asset_bytes(&asset.id).await.expect("legacy bytes");
    assert_eq!(legacy.as_ref(), image.as_slice());
    assert_eq!(legacy, key.asset_bytes(&asset.id).await.unwrap());
    let foreign = stranger.legacy_asset_bytes(&asset.id).await.expect_err("foreign");
    assert_eq!(foreign.status(), Some(403));
    assert_eq!(stranger.asset_bytes(&asset.id).await.expect_err("foreign").status(), Some(404));
    assert_eq!(key.legacy_asset_bytes("ast_missing").await.expect_err("unknown").status(), Some(404));

    // A built-in ground's swatch is a PNG, public.
    let grounds = key.backgrounds().await.unwrap().grounds;
    let ground = grounds.first().expect("built-in grounds");
    let swatch = app.client.ground_preview(&ground.id).await.expect("swatch");
    let decoded = image::load_from_memory(&swatch).expect("a real image");
    assert!(swatch.starts_with(b"\x89PNG") && decoded.width() > 0);
    assert!(ground.preview_url.ends_with(&format!("/api/toolkit/backgrounds/{}/preview", ground.id)));
    assert_eq!(app.client.ground_preview("no-such-ground").await.expect_err("unknown").status(), Some(404));
}

async fn mcp_and_docs_through_the_client(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let key = House::new(&app, "client-mcp").await.key;

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": studio_client::MCP_PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "studio-tests", "version": "1"}}});
    let answer = app.client.mcp(&init).await.expect("initialize needs no key").expect("a body");
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(answer["result"]["serverInfo"]["version"], "1.0.0");
    assert_eq!(answer["result"]["capabilities"]["tools"]["listChanged"], false);

    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert!(key.mcp(&note).await.expect("accepted").is_none(), "a notification gets 202 and no body");

    let list = json!({"jsonrpc": "2.0", "id": "t", "method": "tools/list"});
    let err = app.client.mcp(&list).await.expect_err("tools/list needs a key");
    assert_eq!((err.status(), err.code()), (Some(401), Some("UNAUTHORIZED")));
    assert!(err.extra_i64("rpcCode").is_some());
    let tools = key.mcp(&list).await.expect("tools/list").expect("a body");
    assert_eq!(tools["id"], "t");
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(names.contains(&"start_develop") && names.contains(&"preflight"));

    let unknown = key.mcp(&json!({"jsonrpc": "2.0", "id": 9, "method": "resources/list"})).await.unwrap().unwrap();
    assert_eq!(unknown["error"]["code"], -32601, "a JSON-RPC error with 200 is returned as the body");
    let batch = key.mcp(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])).await.expect_err("a batch");
    assert_eq!((err_status(&batch), batch.code()), (400, Some("INVALID_REQUEST")));

    let html = app.client.docs_html().await.expect("docs page");
    assert!(html.contains("SwaggerUIBundle") && html.contains("/openapi.json"));
}

fn err_status(e: &studio_client::Error) -> u16 {
    e.status().unwrap_or(0)
}

async fn spending_calls_get_their_own_keys(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "client-keys").await.key;
    let develop = DevelopSubmit::new("upscale").input("image", bytes("in.png", png(40, 40))).quality(Quality::K1);

    // Without a key each call generates its own: two calls are two develops.
    let first = key.submit_develop(&develop).await.expect("first");
    let second = key.submit_develop(&develop).await.expect("second");
    assert_ne!(first.job_id, second.job_id);
    assert_eq!((first.tokens_held, second.tokens_held, second.replayed), (9, 9, false));

    // The caller's key makes a replay the same develop, holding nothing more.
    let own = studio_client::new_idempotency_key();
    let keyed = develop.clone().idempotency_key(own.clone());
    let a = key.submit_develop(&keyed).await.unwrap();
    let b = key.submit_develop(&keyed).await.unwrap();
    assert_eq!((a.job_id == b.job_id, b.tokens_held, b.replayed), (true, 0, true));

    // Duplicates: a generated key per call, or the caller's for a replay.
    let d1 = key.duplicate_job(&first.job_id, None).await.expect("duplicate");
    let d2 = key.duplicate_job(&first.job_id, None).await.expect("duplicate again");
    assert_ne!(d1.job_id, d2.job_id);
    assert_eq!((d1.status, d1.cost, d2.cost), (JobStatus::Queued, 9, 9));
    let k1 = key.duplicate_job(&first.job_id, Some(&own)).await.unwrap();
    let k2 = key.duplicate_job(&first.job_id, Some(&own)).await.unwrap();
    assert_eq!((k1.job_id == k2.job_id, k2.cost), (true, 0));
    // first, second, the keyed pair (held once), two duplicates, the keyed duplicate pair (held once).
    assert_eq!(key.balance().await.unwrap().held, 9 * 6);
}
