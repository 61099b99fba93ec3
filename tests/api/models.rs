//! Casting: read_model and read_build against a stand-in AI reader (wiremock) — 1 token on an
//! answer, nothing on a failure, 503 without a reader, 403 for a viewer, 402 when short — and
//! cast_model, whose kept models later develops cast by id.

use serde_json::{Value, json};
use studio_client::api::{
    CastModelRequest, JobStatus, KeyRole, Quality, ReadBuildRequest, ReadModelRequest, SeatRole, TraitValue,
};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_core::{Caller, ErrorKind};
use studio_tests::images::png;
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    reads_without_a_reader_charge_nothing,
    reads_charge_one_token_on_an_answer,
    failed_reads_charge_nothing,
    reads_refuse_viewers_and_the_short,
    cast_models_and_develop_with_them,
    classify_on_upload_reads_through_the_reader,
);

/// Upload a `w` × `h` PNG with the house's key; the asset id.
async fn upload(house: &House, w: u32, h: u32) -> String {
    house.key.upload_bytes("frame.png", png(w, h), &UploadOptions::default()).await.expect("upload").asset.id
}

/// A viewer key of the house, as a core caller.
async fn viewer_caller(app: &TestApp, house: &House) -> Caller {
    let secret = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.expect("mint").key.expect("secret");
    let viewer = app.studio.accounts().authenticate_key(&secret).await.expect("viewer");
    assert_eq!(viewer.role, SeatRole::Viewer);
    viewer
}

/// The caller's house's tokens: (spendable, held, open holds).
async fn tokens(app: &TestApp, caller: &Caller) -> (i64, i64, usize) {
    let b = app.studio.billing().balance(caller).await.expect("balance");
    (b.balance, b.held, b.holds.len())
}

/// Spendable + held + settled = credited, and the running totals equal the ledger's sums.
async fn assert_conserved(app: &TestApp, org_id: &str) {
    let storage = app.studio.storage();
    let totals = storage.balance(&org_id.into()).await.expect("balance");
    let audit = storage.audit(&org_id.into()).await.expect("audit");
    assert_eq!(totals.spendable() + totals.held + totals.settled, totals.credited, "tokens conserved");
    assert_eq!((audit.held, audit.settled, audit.credited), (totals.held, totals.settled, totals.credited));
}

fn read_model_of(ids: &[&String]) -> ReadModelRequest {
    ReadModelRequest { asset_ids: ids.iter().map(|s| s.to_string()).collect() }
}

fn code_of(e: &studio_core::Error) -> (ErrorKind, &'static str) {
    (e.kind, e.code)
}

async fn reads_without_a_reader_charge_nothing(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "no-ai").await;
    let me = house.caller(&app).await;
    let a = upload(&house, 16, 24).await;
    let b = upload(&house, 24, 16).await;

    let e = app.studio.ai().read_model(&me, read_model_of(&[&a, &b])).await.expect_err("no reader");
    assert_eq!(code_of(&e), (ErrorKind::NotConfigured, "AI_NOT_CONFIGURED"));
    let e = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: a.clone() }).await.expect_err("no reader");
    assert_eq!(code_of(&e), (ErrorKind::NotConfigured, "AI_NOT_CONFIGURED"));
    assert_eq!(tokens(&app, &me).await, (100, 0, 0), "nothing charged, nothing held");

    // Input is checked before the reader: 400 for bad ids, 404 for another house's asset.
    let seven: Vec<String> = (0..7).map(|i| format!("ast_{i}")).collect();
    for ids in [vec![], vec![a.clone(), a.clone()], seven] {
        let e = app.studio.ai().read_model(&me, ReadModelRequest { asset_ids: ids }).await.expect_err("bad ids");
        assert_eq!(code_of(&e), (ErrorKind::Invalid, "BAD_ASSET_IDS"));
    }
    let e = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: " ".into() }).await.expect_err("none");
    assert_eq!(code_of(&e), (ErrorKind::Invalid, "IMAGE_REQUIRED"));
    let stranger = House::new(&app, "no-ai-stranger").await.caller(&app).await;
    let e = app.studio.ai().read_model(&stranger, read_model_of(&[&a])).await.expect_err("foreign");
    assert_eq!(code_of(&e), (ErrorKind::NotFound, "ASSET_NOT_FOUND"));
    let e = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: "ast_nope".into() }).await.unwrap_err();
    assert_eq!(code_of(&e), (ErrorKind::NotFound, "ASSET_NOT_FOUND"));
    assert_eq!(tokens(&app, &me).await, (100, 0, 0));
    assert_conserved(&app, &house.org_id).await;
}

async fn reads_charge_one_token_on_an_answer(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", "Bearer k"))
        .respond_with(completion(
            r#"{"age": "late 20s", "skin": "deep brown, warm undertone", "eyes": "dark brown, almond",
                "hair": "short black coils", "extras": ["freckles", "small nose ring"],
                "height": "tall", "build": "lean", "presence": "calm", "posture": "upright"}"#,
        ))
        .mount(&server)
        .await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "read").await;
    let me = house.caller(&app).await;
    let a = upload(&house, 16, 24).await;
    let b = upload(&house, 24, 16).await;

    let reading = app.studio.ai().read_model(&me, read_model_of(&[&a, &b])).await.expect("read_model");
    assert_eq!(
        (reading.age.as_str(), reading.skin.as_str(), reading.eyes.as_str(), reading.hair.as_str()),
        ("late 20s", "deep brown, warm undertone", "dark brown, almond", "short black coils")
    );
    assert_eq!(reading.extras, vec!["freckles".to_string(), "small nose ring".to_string()]);
    assert_eq!(reading.tokens, 1);
    assert_eq!(tokens(&app, &me).await, (99, 0, 0), "exactly one token, settled");

    // The reader saw both frames as data URIs, with the configured model and JSON mode.
    let sent = server.received_requests().await.expect("recorded");
    let body: Value = serde_json::from_slice(&sent[0].body).expect("json");
    assert_eq!((body["model"].as_str(), body["response_format"]["type"].as_str()), (Some("m"), Some("json_object")));
    let parts = body["messages"][1]["content"].as_array().expect("parts");
    let images: Vec<&str> = parts.iter().filter_map(|p| p["image_url"]["url"].as_str()).collect();
    assert_eq!(images.len(), 2);
    assert!(images.iter().all(|u| u.starts_with("data:image/png;base64,")), "{images:?}");

    // read_build: a field the reader left out (hands) is empty, not a failure.
    let build = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: a.clone() }).await.expect("build");
    assert_eq!(
        (build.height.as_str(), build.build.as_str(), build.presence.as_str(), build.posture.as_str()),
        ("tall", "lean", "calm", "upright")
    );
    assert_eq!((build.hands.as_str(), build.tokens), ("", 1));
    assert_eq!(tokens(&app, &me).await, (98, 0, 0));
    assert_conserved(&app, &house.org_id).await;
}

async fn failed_reads_charge_nothing(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "fail").await;
    let me = house.caller(&app).await;
    let a = upload(&house, 16, 16).await;

    let answers = [
        ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "upstream exploded"}})),
        ResponseTemplate::new(429).set_body_string("slow down"),
        ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "bad image for k"}})),
        completion("I would rather not say."),
        completion("[1, 2, 3]"),
    ];
    for answer in answers {
        server.reset().await;
        Mock::given(method("POST")).respond_with(answer).expect(2).mount(&server).await;
        let e = app.studio.ai().read_model(&me, read_model_of(&[&a])).await.expect_err("fails");
        assert_eq!(code_of(&e), (ErrorKind::Upstream, "AI_FAILED"), "{e}");
        assert!(!e.message.contains("for k"), "the key never shows: {}", e.message);
        let e = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: a.clone() }).await.unwrap_err();
        assert_eq!(code_of(&e), (ErrorKind::Upstream, "AI_FAILED"));
        assert_eq!(tokens(&app, &me).await, (100, 0, 0), "released, never charged");
    }
    assert_conserved(&app, &house.org_id).await;
}

async fn reads_refuse_viewers_and_the_short(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(completion(r#"{"age": "30s"}"#)).expect(0).mount(&server).await;
    let Some(app) = app_with_reader(backend, &server, |c| c.signup_grant_tokens = 0).await else { return };
    let house = House::new(&app, "short").await;
    let me = house.caller(&app).await;
    let a = upload(&house, 16, 16).await;

    let viewer = viewer_caller(&app, &house).await;
    let e = app.studio.ai().read_model(&viewer, read_model_of(&[&a])).await.expect_err("viewer");
    assert_eq!(code_of(&e), (ErrorKind::Forbidden, "FORBIDDEN"));
    let e = app.studio.ai().read_build(&viewer, ReadBuildRequest { asset_id: a.clone() }).await.expect_err("viewer");
    assert_eq!(e.kind, ErrorKind::Forbidden);

    let e = app.studio.ai().read_model(&me, read_model_of(&[&a])).await.expect_err("short");
    assert_eq!(code_of(&e), (ErrorKind::InsufficientTokens, "INSUFFICIENT_TOKENS"));
    assert_eq!((e.extra.get("need"), e.extra.get("spendable")), (Some(&json!(1)), Some(&json!(0))));
    let e = app.studio.ai().read_build(&me, ReadBuildRequest { asset_id: a }).await.expect_err("short");
    assert_eq!(e.kind, ErrorKind::InsufficientTokens);
    assert_eq!(tokens(&app, &me).await, (0, 0, 0));
    // The reader was never asked (the mock expects no call; verified on drop).
}

async fn cast_models_and_develop_with_them(backend: Backend) {
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.public_url = Some("https://studio.example".into());
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "cast").await;
    let me = house.caller(&app).await;
    let face = upload(&house, 32, 48).await;
    let side = upload(&house, 48, 32).await;
    let cast = |name: &str, ids: &[&String]| CastModelRequest {
        name: name.into(),
        asset_ids: ids.iter().map(|s| s.to_string()).collect(),
        traits: None,
        collage_asset_id: None,
    };

    let mut request = cast("  Ines  ", &[&face, &side]);
    request.traits = Some(
        [("age".to_string(), TraitValue::Text("late 20s".into())), ("hands".into(), TraitValue::Text(String::new()))]
            .into(),
    );
    let model = app.studio.models().cast_model(&me, request).await.expect("cast");
    assert!(model.id.starts_with("mdl_"), "{}", model.id);
    assert_eq!((model.name.as_str(), model.tier.as_str()), ("Ines", "yours"));
    assert_eq!(model.asset_ids, vec![face.clone(), side.clone()]);
    assert_eq!(model.cover_url, format!("https://studio.example/api/toolkit/assets/{face}/file"));
    assert_eq!(model.traits.get("age"), Some(&TraitValue::Text("late 20s".into())));
    assert_eq!(model.traits.get("hands"), Some(&TraitValue::Text(String::new())));
    assert_eq!(tokens(&app, &me).await, (100, 0, 0), "casting is free");

    let second = app.studio.models().cast_model(&me, cast("Side only", &[&side])).await.expect("cast");
    let listed = app.studio.models().list_models(&me).await.expect("list").models;
    assert_eq!(listed.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), vec![second.id.as_str(), model.id.as_str()]);
    assert_eq!(listed[1], model);
    assert_eq!(app.studio.models().model(&me, &studio_core::ModelId::from(&model.id)).await.expect("one"), model);

    // Refusals: 400, 403 for a viewer, 404 for another house's asset; nothing stored.
    let refusals = [
        (cast("  ", &[&face]), (ErrorKind::Invalid, "NAME_REQUIRED")),
        (cast(&"n".repeat(201), &[&face]), (ErrorKind::Invalid, "BAD_BODY")),
        (cast("No frames", &[]), (ErrorKind::Invalid, "BAD_ASSET_IDS")),
        (cast("Twice", &[&face, &face]), (ErrorKind::Invalid, "BAD_ASSET_IDS")),
    ];
    for (request, expected) in refusals {
        let e = app.studio.models().cast_model(&me, request).await.expect_err("refused");
        assert_eq!(code_of(&e), expected);
    }
    let viewer = viewer_caller(&app, &house).await;
    let e = app.studio.models().cast_model(&viewer, cast("Viewer", &[&face])).await.expect_err("viewer");
    assert_eq!(e.kind, ErrorKind::Forbidden);
    assert_eq!(app.studio.models().list_models(&viewer).await.expect("a viewer reads").models.len(), 2);
    let stranger = House::new(&app, "cast-stranger").await;
    let them = stranger.caller(&app).await;
    let e = app.studio.models().cast_model(&them, cast("Borrowed", &[&face])).await.expect_err("foreign asset");
    assert_eq!(code_of(&e), (ErrorKind::NotFound, "ASSET_NOT_FOUND"));
    assert!(app.studio.models().list_models(&them).await.expect("list").models.is_empty());
    let e = app.studio.models().model(&them, &studio_core::ModelId::from(&model.id)).await.expect_err("foreign model");
    assert_eq!(code_of(&e), (ErrorKind::NotFound, "NOT_FOUND"));
    assert_eq!(app.studio.models().list_models(&me).await.expect("list").models.len(), 2);

    // A develop casts the kept model by id: accepted, the price held, and it develops.
    let develop = |id: &str| {
        DevelopSubmit::new("upscale").input("image", InputSource::Asset(id.to_string())).quality(Quality::K1)
    };
    let accepted = house.key.submit_develop(&develop(&model.id)).await.expect("submit with a model");
    assert_eq!((accepted.status, accepted.tokens_held), (JobStatus::Queued, 9));
    assert_eq!(tokens(&app, &me).await, (91, 9, 1));
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let done = house.key.job(&accepted.job_id).await.expect("status");
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);

    // Another house's model id is 404, as an unknown one is; nothing is held.
    let e = stranger.key.submit_develop(&develop(&model.id)).await.expect_err("foreign model");
    assert_eq!((e.status(), e.code()), (Some(404), Some("NOT_FOUND")));
    let e = house.key.submit_develop(&develop("mdl_unknown")).await.expect_err("unknown model");
    assert_eq!(e.status(), Some(404));
    assert_eq!(tokens(&app, &them).await, (100, 0, 0));
    assert_conserved(&app, &house.org_id).await;
}

/// `classify=1` files the piece through the AI reader for 1 token; a supplied name or kind is
/// kept; a failed read keeps the upload and charges nothing.
async fn classify_on_upload_reads_through_the_reader(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(completion(r#"{"kind": "accessory", "nameEn": "tan leather belt with a brass buckle, narrow"}"#))
        .expect(2)
        .mount(&server)
        .await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "classify").await;
    let me = house.caller(&app).await;
    let ask = UploadOptions { classify: true, ..UploadOptions::default() };

    let filed = house.key.upload_bytes("IMG_0001.png", png(32, 32), &ask).await.expect("upload");
    let result = filed.classify.expect("a classify result");
    assert!(result.ok && result.error.is_none(), "{result:?}");
    assert_eq!((result.tokens, result.kind), (1, Some(studio_client::api::AssetKind::Accessory)));
    assert_eq!(result.name_en.as_deref(), Some("tan leather belt with a brass buckle, na"), "nameEn is cut to 40");
    assert_eq!(filed.asset.kind, studio_client::api::AssetKind::Accessory, "the kind is filed");
    assert_eq!(filed.asset.name, "tan leather belt with a brass buckle, na", "the name is filed");
    assert!(filed.asset.sku.is_none(), "a SKU is never invented");
    assert_eq!(tokens(&app, &me).await, (99, 0, 0), "one token, settled");

    let kept = UploadOptions {
        classify: true,
        name: Some("Belt 7".into()),
        kind: Some(studio_client::api::AssetKind::Clothes),
        ..UploadOptions::default()
    };
    let filed = house.key.upload_bytes("b.png", png(32, 32), &kept).await.expect("upload");
    assert_eq!((filed.asset.name.as_str(), filed.asset.kind), ("Belt 7", studio_client::api::AssetKind::Clothes));
    assert_eq!(filed.classify.expect("result").tokens, 1, "the read still ran and was charged");
    let listed = house.key.list_assets(None).await.expect("list");
    let stored = listed.assets.iter().find(|a| a.id == filed.asset.id).expect("stored");
    assert_eq!(stored.name, "Belt 7", "a supplied name is never overwritten");
    assert_eq!(tokens(&app, &me).await, (98, 0, 0));

    server.reset().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500)).mount(&server).await;
    let failed = house.key.upload_bytes("c.png", png(32, 32), &ask).await.expect("the upload stands");
    let result = failed.classify.expect("result");
    assert_eq!((result.ok, result.error.as_deref(), result.tokens), (false, Some("AI_FAILED"), 0));
    let listed = house.key.list_assets(None).await.expect("list");
    assert!(listed.assets.iter().any(|a| a.id == failed.asset.id), "a failed read never loses the upload");
    assert_eq!(tokens(&app, &me).await, (98, 0, 0), "a failed read charges nothing");
    assert_conserved(&app, &house.org_id).await;
}
