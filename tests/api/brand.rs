//! Brand (§4.3): the profile's defaults, patch, clamps and clause; develops carrying the clause
//! into their frame's metadata; the DNA read against a stand-in AI reader (wiremock) — first
//! free, then 2 tokens, failures charging nothing, two first reads at once charging exactly one —
//! marks (register, 409, change, unregister, collection override, riding renditions), and the
//! colour policy (patched and read, refused when bad, followed by develops, duplicates and packs'
//! resized entries: an Adobe RGB input's profile under `keep`, sRGB's under `srgb`), and the
//! metadata policy (a camera JPEG's creator and copyright kept and its GPS dropped by default,
//! everything under `all`, nothing under `none`, in develops and packs alike).

use std::time::Duration;
use studio_core::JobId;

use serde_json::{Value, json};
use studio_client::api::{
    BrandColourPatch, BrandMetadataPatch, BrandPatch, ColourOutput, CreateMarkRequest, JobStatus, KeyRole, MarkPatch,
    MetadataOutput, PackRequest, PackSize, Quality, Riding, SignatureKeyword,
};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::{padded_png, png};
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    profile_defaults_patch_and_clamps,
    develops_carry_the_clause_in_metadata,
    dna_without_a_reader_charges_nothing,
    dna_first_read_free_then_two_tokens,
    dna_failures_charge_nothing,
    concurrent_first_reads_charge_once,
    marks_register_change_and_unregister,
    collection_marks_override_the_house,
    develops_asking_for_marks_take_the_riding_ones,
    colour_policy_is_patched_and_read,
    develops_follow_the_colour_policy,
    a_hosted_frame_follows_keep,
    packs_follow_the_colour_policy,
    develops_and_packs_follow_the_metadata_policy,
);

const WAIT: Duration = Duration::from_secs(30);

/// A viewer key of the house, as a client.
async fn viewer(app: &TestApp, house: &House) -> Client {
    let secret = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.expect("mint").key.expect("secret");
    app.client.with_api_key(secret)
}

/// (status, code) of a refusal.
fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

/// The house's (spendable, held).
async fn tokens(house: &House) -> (i64, i64) {
    let b = house.key.balance().await.expect("balance");
    (b.balance, b.held)
}

const ANSWER: &str = r##"{"visionEn": "Quiet tailoring in  natural light", "vibe": ["calm", "Austere", "calm"],
    "palette": ["#F0EAD6", "charcoal", "not a colour!"],
    "signatureKeywords": [{"category": "Cut", "phrase": "raw hems"}, {"category": "", "phrase": "horn buttons"}]}"##;

fn image(i: usize) -> InputSource {
    InputSource::Bytes { file_name: format!("look-{i}.png"), bytes: png(24 + i as u32, 32) }
}

/// `PATCH /api/toolkit/brand` with `body` sent as it is, as the house's key: what the typed
/// client cannot send (malformed JSON, read-only fields).
fn raw_patch(
    http: &reqwest::Client,
    app: &TestApp,
    house: &House,
    body: &'static str,
) -> impl std::future::Future<Output = reqwest::Result<reqwest::Response>> {
    http.patch(format!("{}/api/toolkit/brand", app.base))
        .bearer_auth(&house.secret)
        .header("content-type", "application/json")
        .body(body)
        .send()
}

async fn profile_defaults_patch_and_clamps(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-profile").await;

    let got = house.key.brand_profile().await.expect("defaults, never 404");
    assert!(got.ok);
    let p = got.profile;
    assert_eq!((p.vision_en.as_str(), p.vibe.len(), p.palette.len(), p.signature_keywords.len()), ("", 0, 0, 0));
    assert_eq!((p.inject_enabled, p.dna_runs, p.clause.as_str()), (true, 0, ""));
    assert_eq!(p.colour.output, ColourOutput::Srgb, "sRGB by default");

    let patch = BrandPatch {
        vision_en: Some(format!("  Quiet   tailoring. {}", "x".repeat(600))),
        vibe: Some((0..12).map(|i| format!(" mood {i} ")).chain(["MOOD 1".into(), "".into()]).collect()),
        palette: Some(vec!["#ABC".into(), " Ivory ".into(), "ivory".into(), "#12345".into(), "red!".into()]),
        signature_keywords: Some(vec![
            SignatureKeyword { category: "Cut".into(), phrase: " raw  hems ".into() },
            SignatureKeyword { category: "cut".into(), phrase: "raw hems".into() },
            SignatureKeyword { category: "".into(), phrase: "horn buttons".into() },
            SignatureKeyword { category: "x".into(), phrase: "  ".into() },
        ]),
        inject_enabled: None,
        colour: None,
        metadata: None,
    };
    let p = house.key.patch_brand(&patch).await.expect("patch").profile;
    assert_eq!(p.vision_en.chars().count(), 500);
    assert!(p.vision_en.starts_with("Quiet tailoring. xxx"));
    assert_eq!(p.vibe, (0..8).map(|i| format!("mood {i}")).collect::<Vec<_>>());
    assert_eq!(p.palette, vec!["#aabbcc".to_string(), "ivory".into()]);
    assert_eq!(
        p.signature_keywords,
        vec![
            SignatureKeyword { category: "cut".into(), phrase: "raw hems".into() },
            SignatureKeyword { category: "signature".into(), phrase: "horn buttons".into() },
        ]
    );
    assert!(p.clause.starts_with("Brand vision: Quiet tailoring. xxx"), "{}", p.clause);
    assert!(p.clause.ends_with("Vibe: mood 0, mood 1, mood 2, mood 3, mood 4, mood 5, mood 6, mood 7. Palette: #aabbcc, ivory. Signature details: cut: raw hems; signature: horn buttons."), "{}", p.clause);

    // A patch merges: only the given field changes; injectEnabled false empties the clause.
    let short = BrandPatch { vision_en: Some("Quiet tailoring".into()), ..Default::default() };
    let p = house.key.patch_brand(&short).await.expect("patch").profile;
    assert_eq!((p.vision_en.as_str(), p.vibe.len(), p.palette.len()), ("Quiet tailoring", 8, 2));
    let off = BrandPatch { inject_enabled: Some(false), ..Default::default() };
    let p = house.key.patch_brand(&off).await.expect("off").profile;
    assert_eq!((p.inject_enabled, p.clause.as_str(), p.vision_en.as_str()), (false, "", "Quiet tailoring"));
    assert_eq!(house.key.brand_profile().await.unwrap().profile, p, "stored as answered");

    // dnaRuns and clause are not patchable; bad JSON is BAD_JSON; a viewer reads but cannot patch.
    let http = reqwest::Client::new();
    let send = |body: &'static str| raw_patch(&http, &app, &house, body);
    let res = send(r#"{"dnaRuns": 7, "clause": "mine", "injectEnabled": true}"#).await.unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        (body["profile"]["dnaRuns"].as_i64(), body["profile"]["injectEnabled"].as_bool()),
        (Some(0), Some(true))
    );
    assert_eq!(
        body["profile"]["clause"],
        json!(
            "Brand vision: Quiet tailoring. Vibe: mood 0, mood 1, mood 2, mood 3, mood 4, mood 5, mood 6, mood 7. Palette: #aabbcc, ivory. Signature details: cut: raw hems; signature: horn buttons."
        )
    );
    for bad in [r#"{"vibe": ["#, r#"{"vibe": "calm"}"#, "[]", r#"{"injectEnabled": "yes"}"#] {
        let res = send(bad).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], json!("BAD_JSON"), "{bad}");
    }
    let viewer = viewer(&app, &house).await;
    assert_eq!(viewer.brand_profile().await.expect("a viewer reads").profile.vision_en, "Quiet tailoring");
    let e = viewer.patch_brand(&short).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));

    // Another house sees its own empty profile.
    let other = House::new(&app, "brand-other").await;
    assert_eq!(other.key.brand_profile().await.unwrap().profile.vision_en, "");
}

async fn develops_carry_the_clause_in_metadata(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 1).await else { return };
    let house = House::new(&app, "brand-develop").await;
    let on = BrandPatch {
        vision_en: Some("Quiet tailoring".into()),
        vibe: Some(vec!["calm".into()]),
        inject_enabled: Some(true),
        ..Default::default()
    };
    let clause = house.key.patch_brand(&on).await.expect("patch").profile.clause;
    assert_eq!(clause, "Brand vision: Quiet tailoring. Vibe: calm.");

    let develop = |options: Vec<(&str, &str)>| {
        let mut d = DevelopSubmit::new("upscale")
            .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: png(24, 16) })
            .quality(Quality::K1);
        for (k, v) in options {
            d = d.param(k, v);
        }
        d
    };
    let storage = app.studio.storage();
    // A caller's own brandClause never survives: the house's clause replaces it.
    let job = house.key.submit_develop(&develop(vec![("brandClause", "forged")])).await.expect("submit").job_id;
    let done = house.key.wait_for(&job, WAIT).await.expect("done");
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
    let row = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().unwrap();
    let params: Value = serde_json::from_str(&row.params).unwrap();
    assert_eq!(params["brandClause"], json!(clause));
    let bytes = house.key.asset_bytes(done.result_asset_id.as_deref().unwrap()).await.expect("frame");
    let needle = format!("brandClause: {clause}");
    assert!(bytes.windows(needle.len()).any(|w| w == needle.as_bytes()), "the clause rides in the frame's metadata");
    assert!(!bytes.windows(6).any(|w| w == b"forged"));

    // The agent endpoint's start_develop (library inputs, the clause read beside them) carries
    // the clause as it stands now too, and a caller's own never survives.
    let caller = house.caller(&app).await;
    let asset = house.key.upload_bytes("s.png", png(24, 16), &Default::default()).await.expect("upload").asset.id;
    let start = studio_core::api::StartDevelop {
        tool: "upscale".into(),
        inputs: [("image".to_string(), asset)].into(),
        quality: "1k".into(),
        params: [("brandClause".to_string(), "forged".to_string())].into(),
        idempotency_key: None,
        folder_id: None,
        webhook_url: None,
    };
    let started = app.studio.develops().start_develop(&caller, start).await.expect("start_develop");
    let row = storage.job(&house.org_id, &JobId::from(&started.job_id)).await.unwrap().unwrap();
    let params: Value = serde_json::from_str(&row.params).unwrap();
    assert_eq!(params["brandClause"], json!(clause), "start_develop carries the house's clause");

    // A pipeline's chained steps carry it too: the first when the run starts, the second when
    // the scheduler queues it.
    let item = house.key.upload_bytes("p.png", png(24, 16), &Default::default()).await.expect("upload").asset.id;
    let plan = json!({"name": "two", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}},
        {"id": "b", "tool": "upscale", "quality": "1k", "inputs": {"image": {"node": "a"}}}]});
    let request = studio_client::api::PipelineRunRequest {
        plan: Some(plan),
        items: json!([{ "image": item }]),
        ..Default::default()
    };
    let run = house.key.start_pipeline_run(request).await.expect("run").run_id;
    let mut steps = Vec::new();
    for _ in 0..200 {
        steps = house.key.pipeline_run(&run).await.expect("detail").steps;
        if steps.iter().all(|s| s.status == "done") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(steps.len() == 2 && steps.iter().all(|s| s.status == "done"), "{steps:?}");
    for step in &steps {
        let row = storage.job(&house.org_id, &JobId::from(step.job_id.as_deref().unwrap())).await.unwrap().unwrap();
        let params: Value = serde_json::from_str(&row.params).unwrap();
        assert_eq!(params["brandClause"], json!(clause), "step {}", step.node);
    }

    let off = BrandPatch { inject_enabled: Some(false), ..Default::default() };
    house.key.patch_brand(&off).await.expect("off");
    let job = house.key.submit_develop(&develop(vec![("brandClause", "forged")])).await.expect("submit").job_id;
    let done = house.key.wait_for(&job, WAIT).await.expect("done");
    assert_eq!(done.status, JobStatus::Done);
    let row = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().unwrap();
    let params: Value = serde_json::from_str(&row.params).unwrap();
    assert!(params.get("brandClause").is_none(), "{params}");
    let bytes = house.key.asset_bytes(done.result_asset_id.as_deref().unwrap()).await.expect("frame");
    assert!(!bytes.windows(11).any(|w| w == b"brandClause"), "nothing rides when injection is off");
}

async fn dna_without_a_reader_charges_nothing(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-no-ai").await;
    let e = house.key.brand_dna(&[image(1)], &[], None).await.expect_err("no reader");
    assert_eq!(refused(e), (Some(503), "AI_NOT_CONFIGURED".into()));
    let e = viewer(&app, &house).await.brand_dna(&[image(1)], &[], None).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));
    // The form is checked before the reader is looked for.
    let e = house.key.brand_dna(&[], &["calm".into()], Some("coats")).await.expect_err("no images");
    assert_eq!(refused(e), (Some(400), "NO_IMAGES".into()));
    let eleven: Vec<InputSource> = (0..11).map(image).collect();
    let e = house.key.brand_dna(&eleven, &[], None).await.expect_err("eleven");
    assert_eq!(refused(e), (Some(400), "BAD_FORM".into()));
    let text = InputSource::Bytes { file_name: "a.txt".into(), bytes: b"not an image".to_vec() };
    let e = house.key.brand_dna(&[text], &[], None).await.expect_err("not an image");
    assert_eq!(refused(e), (Some(400), "BAD_FORM".into()));
    let http = reqwest::Client::new();
    let form = reqwest::multipart::Form::new()
        .part("image", reqwest::multipart::Part::bytes(png(8, 8)).file_name("a.png"))
        .text("vibe", "calm, sharp");
    let res = http
        .post(format!("{}/api/toolkit/brand/dna", app.base))
        .bearer_auth(&house.secret)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap()["error"], json!("BAD_FORM"), "vibe is a JSON array");
    let big =
        |i: usize, mb: usize| InputSource::Bytes { file_name: format!("{i}.png"), bytes: padded_png(i, mb << 20) };
    let e = house.key.brand_dna(&[big(1, 13)], &[], None).await.expect_err("one too large");
    assert_eq!((e.status(), e.code(), e.extra_i64("maxMb")), (Some(413), Some("IMAGE_TOO_LARGE"), Some(12)));
    let e = house.key.brand_dna(&[big(1, 11), big(2, 11), big(3, 11)], &[], None).await.expect_err("set");
    assert_eq!((e.status(), e.code(), e.extra_i64("maxMb")), (Some(413), Some("SET_TOO_LARGE"), Some(32)));
    assert_eq!(tokens(&house).await, (100, 0), "nothing charged");
    assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 0);
}

async fn dna_first_read_free_then_two_tokens(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path("/v1/chat/completions")).respond_with(completion(ANSWER)).mount(&server).await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "brand-dna").await;
    house.key.patch_brand(&BrandPatch { inject_enabled: Some(false), ..Default::default() }).await.unwrap();

    let read = house.key.brand_dna(&[image(1), image(2)], &["sharp".into()], Some("wool coats")).await.expect("read");
    assert_eq!((read.ok, read.charged, read.profile.dna_runs), (true, 0, 1));
    let p = &read.profile;
    assert_eq!(p.vision_en, "Quiet tailoring in natural light");
    assert_eq!(p.vibe, vec!["sharp".to_string(), "calm".into(), "Austere".into()]);
    assert_eq!(p.palette, vec!["#f0ead6".to_string(), "charcoal".into()]);
    assert_eq!(
        p.signature_keywords[1],
        SignatureKeyword { category: "signature".into(), phrase: "horn buttons".into() }
    );
    assert_eq!((p.inject_enabled, p.clause.as_str()), (false, ""), "a read keeps the injection switch");
    assert_eq!(tokens(&house).await, (100, 0), "the first read is free");

    // The reader saw both images, the house's words and what it makes.
    let sent = server.received_requests().await.expect("recorded");
    let body: Value = serde_json::from_slice(&sent[0].body).expect("json");
    let parts = body["messages"][1]["content"].as_array().expect("parts");
    assert_eq!(parts.iter().filter(|p| p["type"] == json!("image_url")).count(), 2);
    let prompt = parts[0]["text"].as_str().unwrap();
    assert!(prompt.contains("sharp") && prompt.contains("wool coats") && prompt.contains("signatureKeywords"));

    let again = house.key.brand_dna(&[image(3)], &[], None).await.expect("re-read");
    assert_eq!((again.charged, again.profile.dna_runs), (2, 2));
    assert_eq!(tokens(&house).await, (98, 0), "a re-read costs 2, settled");
    assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 2);
}

async fn dna_failures_charge_nothing(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.signup_grant_tokens = 3).await else { return };
    let house = House::new(&app, "brand-fail").await;
    let failures = [
        (ResponseTemplate::new(500).set_body_json(json!({"error": {"message": "exploded"}})), "AI_FAILED"),
        (completion("not json at all"), "AI_FAILED"),
        (completion("[1, 2]"), "AI_BAD_OUTPUT"),
        (completion(r#"{"visionEn": 5, "vibe": [], "palette": [], "signatureKeywords": []}"#), "AI_BAD_OUTPUT"),
        (completion(r#"{"visionEn": "x"}"#), "AI_BAD_OUTPUT"),
    ];
    // Failed first reads: nothing charged, dnaRuns unmoved, and the next read is still free.
    for (answer, code) in failures.clone() {
        server.reset().await;
        Mock::given(method("POST")).respond_with(answer).mount(&server).await;
        let e = house.key.brand_dna(&[image(1)], &[], None).await.expect_err("fails");
        assert_eq!(refused(e), (Some(502), code.to_string()));
        assert_eq!(tokens(&house).await, (3, 0));
        assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 0);
    }
    server.reset().await;
    Mock::given(method("POST")).respond_with(completion(ANSWER)).mount(&server).await;
    assert_eq!(house.key.brand_dna(&[image(1)], &[], None).await.expect("free").charged, 0);

    // Failed re-reads: the hold is released.
    for (answer, code) in failures {
        server.reset().await;
        Mock::given(method("POST")).respond_with(answer).mount(&server).await;
        let e = house.key.brand_dna(&[image(1)], &[], None).await.expect_err("fails");
        assert_eq!(refused(e), (Some(502), code.to_string()));
        assert_eq!(tokens(&house).await, (3, 0), "released, never charged");
        assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 1);
    }
    server.reset().await;
    Mock::given(method("POST")).respond_with(completion(ANSWER)).mount(&server).await;
    assert_eq!(house.key.brand_dna(&[image(1)], &[], None).await.expect("paid").charged, 2);
    assert_eq!(tokens(&house).await, (1, 0));
    let e = house.key.brand_dna(&[image(1)], &[], None).await.expect_err("short");
    assert_eq!((e.status(), e.code()), (Some(402), Some("INSUFFICIENT_TOKENS")));
    assert_eq!((e.extra_i64("need"), e.extra_i64("spendable")), (Some(2), Some(1)));
    assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 2);
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "a short house is refused before the read");
}

async fn concurrent_first_reads_charge_once(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(completion(ANSWER).set_delay(Duration::from_millis(400)))
        .mount(&server)
        .await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "brand-race").await;
    let reads = (0..2).map(|i| {
        let key = house.key.clone();
        tokio::spawn(async move { key.brand_dna(&[image(i)], &[], None).await.expect("read").charged })
    });
    let mut charged = Vec::new();
    for r in reads.collect::<Vec<_>>() {
        charged.push(r.await.unwrap());
    }
    charged.sort();
    assert_eq!(charged, vec![0, 2], "exactly one of two simultaneous first reads is free");
    assert_eq!(tokens(&house).await, (98, 0));
    assert_eq!(house.key.brand_profile().await.unwrap().profile.dna_runs, 2);
}

fn mark(asset: &str, material: &str) -> CreateMarkRequest {
    CreateMarkRequest { asset_id: Some(asset.into()), material: Some(material.into()), ..Default::default() }
}

async fn upload(house: &House, name: &str) -> String {
    house.key.upload_bytes(name, png(20, 10), &UploadOptions::default()).await.expect("upload").asset.id
}

async fn marks_register_change_and_unregister(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-marks").await;
    let key = &house.key;
    let logo = upload(&house, "logo.png").await;

    let created = key
        .create_mark(&CreateMarkRequest {
            placement: Some("chest, left".into()),
            note: Some("embroidered".into()),
            sort_order: Some(5),
            ..mark(&logo, " woven label ")
        })
        .await
        .expect("201")
        .mark;
    assert_eq!(
        (created.asset_id.as_str(), created.material.as_str(), created.sort_order),
        (logo.as_str(), "woven label", 5)
    );
    assert_eq!((created.filename.as_str(), created.collection_id.as_ref()), ("logo", None));
    assert!(created.id.starts_with("mark_"));

    let e = key.create_mark(&mark(&logo, "foil")).await.expect_err("twice at house level");
    assert_eq!(refused(e), (Some(409), "ALREADY_REGISTERED".into()));
    let e = key.create_mark(&CreateMarkRequest { material: Some("foil".into()), ..Default::default() }).await;
    assert_eq!(refused(e.expect_err("no asset")), (Some(400), "ASSET_REQUIRED".into()));
    let e = key.create_mark(&CreateMarkRequest { asset_id: Some(logo.clone()), ..Default::default() }).await;
    assert_eq!(refused(e.expect_err("no material")), (Some(400), "BAD_MATERIAL".into()));
    let e = key.create_mark(&mark("ast_nope", "foil")).await.expect_err("unknown asset");
    assert_eq!(refused(e), (Some(404), "ASSET_NOT_FOUND".into()));
    let e = key.create_mark(&CreateMarkRequest { collection_id: Some("fld_nope".into()), ..mark(&logo, "foil") }).await;
    assert_eq!(refused(e.expect_err("unknown collection")), (Some(404), "COLLECTION_NOT_FOUND".into()));
    let viewer = viewer(&app, &house).await;
    let e = viewer.create_mark(&mark(&logo, "foil")).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "role_cannot_edit_marks".into()));
    let other = House::new(&app, "brand-marks-other").await;
    let e = other.key.create_mark(&mark(&logo, "foil")).await.expect_err("another house's asset");
    assert_eq!(refused(e), (Some(404), "ASSET_NOT_FOUND".into()));

    // Patch: material cannot be cleared; placement and note clear with null; sortOrder moves.
    for bad in [
        MarkPatch { material: Some(None), ..Default::default() },
        MarkPatch { material: Some(Some("  ".into())), ..Default::default() },
    ] {
        let e = key.update_mark(&created.id, &bad).await.expect_err("material cleared");
        assert_eq!(refused(e), (Some(400), "BAD_MATERIAL".into()));
    }
    let changed = key
        .update_mark(&created.id, &MarkPatch { placement: Some(None), sort_order: Some(-1), ..Default::default() })
        .await
        .expect("patch")
        .mark;
    assert_eq!((changed.placement, changed.note.as_deref(), changed.sort_order), (None, Some("embroidered"), -1));
    assert_eq!(changed.material, "woven label");
    let e = viewer.update_mark(&created.id, &MarkPatch::default()).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "role_cannot_edit_marks".into()));
    let e = other.key.update_mark(&created.id, &MarkPatch::default()).await.expect_err("foreign");
    assert_eq!(refused(e), (Some(404), "NOT_FOUND".into()));
    let e = other.key.delete_mark(&created.id).await.expect_err("foreign");
    assert_eq!(refused(e), (Some(404), "NOT_FOUND".into()));
    assert!(other.key.brand_marks(None).await.unwrap().house.is_empty(), "another house sees none");

    let list = viewer.brand_marks(None).await.expect("a viewer lists");
    assert_eq!((list.house.len(), list.collection.len(), list.riding), (1, 0, Riding::House));

    // Unregistering leaves the asset in the library.
    let gone = key.delete_mark(&created.id).await.expect("delete");
    assert_eq!((gone.ok, gone.id.as_str()), (true, created.id.as_str()));
    assert!(!key.asset_bytes(&logo).await.expect("the asset survives").is_empty());
    assert!(key.brand_marks(None).await.unwrap().house.is_empty());
    let e = key.delete_mark(&created.id).await.expect_err("already gone");
    assert_eq!(refused(e), (Some(404), "NOT_FOUND".into()));
    key.create_mark(&mark(&logo, "foil")).await.expect("registered again after delete");
}

async fn collection_marks_override_the_house(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-riding").await;
    let key = &house.key;
    let folder = key.create_folder("AW26", None).await.expect("folder").folder.id;
    let a = upload(&house, "a.png").await;
    let b = upload(&house, "b.png").await;
    let c = upload(&house, "c.png").await;
    for (asset, sort) in [(&a, 3), (&b, 1), (&c, 2)] {
        key.create_mark(&CreateMarkRequest { sort_order: Some(sort), ..mark(asset, "print") }).await.expect("house");
    }
    let list = key.brand_marks(Some(&folder)).await.expect("list");
    assert_eq!((list.riding, list.collection.len()), (Riding::House, 0), "an empty collection set rides the house's");
    let order: Vec<&str> = list.house.iter().map(|m| m.asset_id.as_str()).collect();
    assert_eq!(order, vec![b.as_str(), c.as_str(), a.as_str()], "lowest sortOrder first");
    let e = key.brand_marks(Some("fld_nope")).await.expect_err("unknown collection");
    assert_eq!(refused(e), (Some(404), "COLLECTION_NOT_FOUND".into()));

    let studio = &app.studio;
    let riding: Vec<String> = studio
        .brand()
        .riding_marks(&house.org_id, Some(&folder))
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.asset_id)
        .collect();
    assert_eq!(riding, vec![b.clone(), c.clone()], "up to two ride, lowest sortOrder first");

    // The same asset may be a mark at house level and for a collection; the collection's set
    // then overrides the house's whole.
    let in_collection = key
        .create_mark(&CreateMarkRequest { collection_id: Some(folder.clone()), ..mark(&a, "gold foil") })
        .await
        .expect("collection level")
        .mark;
    assert_eq!(in_collection.collection_id.as_deref(), Some(folder.as_str()));
    let e = key.create_mark(&CreateMarkRequest { collection_id: Some(folder.clone()), ..mark(&a, "foil") }).await;
    assert_eq!(refused(e.expect_err("twice in the collection")), (Some(409), "ALREADY_REGISTERED".into()));
    let list = key.brand_marks(Some(&folder)).await.expect("list");
    assert_eq!((list.riding, list.collection.len(), list.house.len()), (Riding::Collection, 1, 3));
    let riding: Vec<String> = studio
        .brand()
        .riding_marks(&house.org_id, Some(&folder))
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.asset_id)
        .collect();
    assert_eq!(riding, vec![a.clone()], "never merged with the house's");
    let riding = studio.brand().riding_marks(&house.org_id, None).await.unwrap();
    assert_eq!(riding.len(), 2);
}

async fn develops_asking_for_marks_take_the_riding_ones(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 1).await else { return };
    let house = House::new(&app, "brand-place").await;
    let key = &house.key;
    let folder = key.create_folder("SS27", None).await.expect("folder").folder.id;
    let a = upload(&house, "a.png").await;
    let b = upload(&house, "b.png").await;
    let c = upload(&house, "c.png").await;
    for (asset, sort) in [(&a, 3), (&b, 1), (&c, 2)] {
        key.create_mark(&CreateMarkRequest { sort_order: Some(sort), ..mark(asset, "print") }).await.expect("house");
    }
    key.create_mark(&CreateMarkRequest { collection_id: Some(folder.clone()), ..mark(&c, "foil") }).await.unwrap();
    let develop = |place: &str| {
        DevelopSubmit::new("upscale")
            .input("image", InputSource::Bytes { file_name: "s.png".into(), bytes: png(24, 16) })
            .quality(Quality::K1)
            .param("placeMarks", place)
    };
    let storage = app.studio.storage();
    let marks_of = |inputs: &str| -> Vec<String> {
        let inputs: Value = serde_json::from_str(inputs).unwrap();
        let inputs = inputs.as_array().unwrap().iter();
        inputs.filter(|i| i["role"] == json!("mark")).map(|i| i["assetId"].as_str().unwrap().to_string()).collect()
    };

    let job = key.submit_develop(&develop("1")).await.expect("house marks").job_id;
    let row = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().unwrap();
    assert_eq!(marks_of(&row.inputs), vec![b.clone(), c.clone()], "two ride, lowest sortOrder first");
    let done = key.wait_for(&job, WAIT).await.expect("done");
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);

    let job = key.submit_develop(&develop(&folder)).await.expect("collection marks").job_id;
    let row = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().unwrap();
    assert_eq!(marks_of(&row.inputs), vec![c.clone()], "the collection's set overrides the house's");
    let unmarked = key.submit_develop(&develop("0")).await.expect("no marks").job_id;
    let row = storage.job(&house.org_id, &JobId::from(&unmarked)).await.unwrap().unwrap();
    assert!(marks_of(&row.inputs).is_empty());

    // The two develops above settle their holds first, so the books stand still while the
    // refusal below is checked.
    for id in [&job, &unmarked] {
        key.wait_for(id, WAIT).await.expect("done");
    }
    let before = tokens(&house).await;
    let e = key.submit_develop(&develop("fld_nope")).await.expect_err("unknown collection");
    assert_eq!(refused(e), (Some(404), "COLLECTION_NOT_FOUND".into()));
    assert_eq!(tokens(&house).await, before, "nothing held");
}

/// A patch of the colour policy alone.
fn colour_patch(output: ColourOutput) -> BrandPatch {
    BrandPatch { colour: Some(BrandColourPatch::from(output)), ..Default::default() }
}

async fn colour_policy_is_patched_and_read(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-colour").await;
    let got = house.key.brand_profile().await.expect("defaults").profile;
    assert_eq!(got.colour.output, ColourOutput::Srgb);
    let quiet = BrandPatch { vision_en: Some("Quiet tailoring".into()), ..Default::default() };
    house.key.patch_brand(&quiet).await.expect("patch");

    // PATCH sets keep, GET reads it back; the other fields stand.
    let p = house.key.patch_brand(&colour_patch(ColourOutput::Keep)).await.expect("keep").profile;
    assert_eq!((p.colour.output, p.vision_en.as_str()), (ColourOutput::Keep, "Quiet tailoring"));
    let read = house.key.brand_profile().await.expect("read").profile;
    assert_eq!(read, p, "stored as answered");

    // On the wire: `colour: {output}`, camelCase like the rest.
    let http = reqwest::Client::new();
    let send = |body: &'static str| raw_patch(&http, &app, &house, body);
    let res = http.get(format!("{}/api/toolkit/brand", app.base)).bearer_auth(&house.secret).send().await.unwrap();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["profile"]["colour"], json!({"output": "keep"}), "{body}");

    // A patch of other fields keeps the policy.
    let p = house.key.patch_brand(&BrandPatch { inject_enabled: Some(false), ..Default::default() }).await;
    assert_eq!(p.expect("patch").profile.colour.output, ColourOutput::Keep);

    // A bad value is 400 BAD_COLOUR_OUTPUT and changes nothing, not even the other fields sent
    // with it; a colour of the wrong type is a malformed body.
    for bad in [
        r#"{"colour": {"output": "cmyk"}, "visionEn": "Loud"}"#,
        r#"{"colour": {"output": "KEEP "}}"#,
        r#"{"colour": {"output": ""}}"#,
        r#"{"colour": {}}"#,
    ] {
        let res = send(bad).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], json!("BAD_COLOUR_OUTPUT"), "{bad}");
        assert!(body["message"].as_str().is_some_and(|m| m.contains("keep")), "{body}");
    }
    for bad in [r#"{"colour": "keep"}"#, r#"{"colour": {"output": 1}}"#] {
        let res = send(bad).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], json!("BAD_JSON"), "{bad}");
    }
    let after = house.key.brand_profile().await.expect("read").profile;
    assert_eq!((after.colour.output, after.vision_en.as_str()), (ColourOutput::Keep, "Quiet tailoring"));

    // A viewer reads it but cannot change it.
    let viewer = viewer(&app, &house).await;
    assert_eq!(viewer.brand_profile().await.expect("read").profile.colour.output, ColourOutput::Keep);
    let e = viewer.patch_brand(&colour_patch(ColourOutput::Srgb)).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));

    // Back to sRGB; another house keeps its own default.
    let p = house.key.patch_brand(&colour_patch(ColourOutput::Srgb)).await.expect("srgb").profile;
    assert_eq!(p.colour.output, ColourOutput::Srgb);
    let other = House::new(&app, "brand-colour-other").await;
    house.key.patch_brand(&colour_patch(ColourOutput::Keep)).await.expect("keep");
    assert_eq!(other.key.brand_profile().await.unwrap().profile.colour.output, ColourOutput::Srgb);
}

/// Adobe RGB (1998) as an ICC profile.
fn adobe_icc() -> Vec<u8> {
    moxcms::ColorProfile::new_adobe_rgb().encode().expect("adobe icc")
}

/// A small gradient stored as a PNG with `icc` in its iCCP chunk.
fn tagged_png(icc: Option<Vec<u8>>) -> Vec<u8> {
    use image::ImageEncoder;
    let img = image::RgbImage::from_fn(32, 24, |x, y| image::Rgb([40 + x as u8 * 5, 90 + y as u8 * 4, 150]));
    let mut out = Vec::new();
    let mut enc = image::codecs::png::PngEncoder::new(&mut out);
    if let Some(icc) = icc {
        enc.set_icc_profile(icc).expect("png icc");
    }
    enc.write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8).expect("png");
    out
}

/// The ICC profile embedded in an encoded image, read by `image`'s decoder.
fn icc_of(bytes: &[u8]) -> Option<Vec<u8>> {
    use image::ImageDecoder;
    let reader = image::ImageReader::new(std::io::Cursor::new(bytes)).with_guessed_format().expect("format");
    reader.into_decoder().expect("decoder").icc_profile().expect("icc")
}

/// Whether `icc` is an sRGB profile: it parses, and its primaries are sRGB's.
fn is_srgb(icc: &[u8]) -> bool {
    let (got, want) = (moxcms::ColorProfile::new_from_slice(icc).expect("parses"), moxcms::ColorProfile::new_srgb());
    let near = |a: moxcms::Xyzd, b: moxcms::Xyzd| (a.x - b.x).abs() + (a.y - b.y).abs() + (a.z - b.z).abs() < 0.01;
    near(got.red_colorant, want.red_colorant)
        && near(got.green_colorant, want.green_colorant)
        && near(got.blue_colorant, want.blue_colorant)
}

async fn develops_follow_the_colour_policy(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 1).await else { return };
    let house = House::new(&app, "brand-colour-develop").await;
    let storage = app.studio.storage();
    let adobe = adobe_icc();
    let upscale = |icc: Option<Vec<u8>>, options: Vec<(&str, &str)>| {
        let mut d = DevelopSubmit::new("upscale")
            .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: tagged_png(icc) })
            .quality(Quality::K1);
        for (k, v) in options {
            d = d.param(k, v);
        }
        d
    };
    // (the job's colourOutput option, the frame's embedded profile)
    let frame = |job: String| {
        let (house, storage) = (&house, &storage);
        async move {
            let done = house.key.wait_for(&job, WAIT).await.expect("done");
            assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
            let row = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().unwrap();
            let params: Value = serde_json::from_str(&row.params).unwrap();
            let bytes = house.key.asset_bytes(done.result_asset_id.as_deref().unwrap()).await.expect("frame");
            (params.get("colourOutput").cloned(), icc_of(&bytes).expect("the frame embeds a profile"))
        }
    };

    // sRGB (the default): an Adobe RGB input lands with the sRGB profile, the same one an
    // untagged input's frame carries; a caller's own colourOutput never survives.
    let plain = house.key.submit_develop(&upscale(None, vec![])).await.expect("submit").job_id;
    let (_, srgb) = frame(plain).await;
    assert!(is_srgb(&srgb), "an untagged input's frame is sRGB");
    let forged = upscale(Some(adobe.clone()), vec![("colourOutput", "keep")]);
    let first = house.key.submit_develop(&forged).await.expect("submit").job_id;
    let (option, icc) = frame(first.clone()).await;
    assert_eq!(option, None, "the caller's colourOutput is dropped under srgb");
    assert_eq!(icc, srgb, "sRGB's profile, not the input's");
    assert_ne!(icc, adobe);

    // keep: the input's own profile, byte for byte.
    house.key.patch_brand(&colour_patch(ColourOutput::Keep)).await.expect("keep");
    let kept = house.key.submit_develop(&upscale(Some(adobe.clone()), vec![])).await.expect("submit").job_id;
    let (option, icc) = frame(kept.clone()).await;
    assert_eq!(option, Some(json!("keep")));
    assert_eq!(icc, adobe, "the Adobe RGB input's profile is embedded");
    // An untagged input stays sRGB under keep.
    let plain = house.key.submit_develop(&upscale(None, vec![])).await.expect("submit").job_id;
    assert_eq!(frame(plain).await.1, srgb);

    // A duplicate carries today's policy, not its source's: the sRGB job duplicated under keep
    // keeps, and the kept job duplicated under srgb is sRGB.
    let again = house.key.duplicate_job(&first, None).await.expect("duplicate").job_id;
    assert_eq!(frame(again).await, (Some(json!("keep")), adobe.clone()));
    house.key.patch_brand(&colour_patch(ColourOutput::Srgb)).await.expect("srgb");
    let again = house.key.duplicate_job(&kept, None).await.expect("duplicate").job_id;
    assert_eq!(frame(again).await, (None, srgb.clone()));

    // A pipeline node may not set it (the line sets it from the house).
    let item = house.key.upload_bytes("p.png", png(24, 16), &Default::default()).await.expect("upload").asset.id;
    let plan = json!({"name": "mine", "nodes": [{"id": "a", "tool": "upscale", "quality": "1k",
        "params": {"colourOutput": "keep"}, "inputs": {"image": {"item": "image"}}}]});
    let request = studio_client::api::PipelineRunRequest {
        plan: Some(plan),
        items: json!([{ "image": item }]),
        ..Default::default()
    };
    let e = house.key.start_pipeline_run(request).await.expect_err("reserved");
    assert_eq!(refused(e), (Some(400), "BAD_PLAN".into()));
}

/// A fal queue under `app` answering one frame, `frame`, as a data URI.
async fn fal_answers_with(server: &MockServer, app: &str, frame: &[u8], mime: &str) {
    use base64::Engine;
    let uri = format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(frame));
    let result = ResponseTemplate::new(200).set_body_json(json!({"images": [{"url": uri}]}));
    crate::lanes::fal_answers(server, app, result).await;
}

/// A hosted model answers in sRGB (an untagged JPEG, then a PNG): under keep the frame lands in
/// the Adobe RGB input's space, its colour kept (read back through each profile, within a few
/// levels); under srgb it lands as the model sent it.
async fn a_hosted_frame_follows_keep(backend: Backend) {
    let fal = MockServer::start().await;
    let uri = fal.uri();
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 1;
        c.fal_key = Some("fal-key".into());
        c.fal_url = Some(uri);
        c.fal_models = [("tryon".to_string(), "fal-ai/tryon".to_string())].into_iter().collect();
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "brand-colour-fal").await;
    let adobe = adobe_icc();
    let sent = image::RgbImage::from_fn(40, 30, |x, y| image::Rgb([30 + x as u8 * 4, 160, 60 + y as u8 * 3]));
    let encoded = |format| {
        let mut out = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(sent.clone()).write_to(&mut out, format).expect("encode");
        out.into_inner()
    };
    let tryon = || {
        DevelopSubmit::new("tryon")
            .input("model", InputSource::Bytes { file_name: "m.png".into(), bytes: tagged_png(Some(adobe.clone())) })
            .input("garment", InputSource::Bytes { file_name: "g.png".into(), bytes: png(24, 16) })
            .quality(Quality::K1)
    };
    let develop = |house: &House| {
        let submit = tryon();
        let key = house.key.clone();
        async move {
            let job = key.submit_develop(&submit).await.expect("submit").job_id;
            let done = key.wait_for(&job, WAIT).await.expect("done");
            assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
            key.asset_bytes(done.result_asset_id.as_deref().expect("a frame")).await.expect("bytes").to_vec()
        }
    };
    // What a reader sees: the frame converted to sRGB through its own profile.
    let seen = |bytes: &[u8]| {
        let icc = icc_of(bytes);
        let mut img = image::load_from_memory(bytes).expect("decodes").into_rgb8();
        if let Some(icc) = icc.filter(|i| !is_srgb(i)) {
            let from = moxcms::ColorProfile::new_from_slice(&icc).expect("profile");
            let t = from
                .create_transform_8bit(
                    moxcms::Layout::Rgb,
                    &moxcms::ColorProfile::new_srgb(),
                    moxcms::Layout::Rgb,
                    Default::default(),
                )
                .expect("transform");
            let copy = img.as_raw().clone();
            t.transform(&copy, &mut img).expect("convert");
        }
        img.get_pixel(20, 15).0
    };
    let near = |a: [u8; 3], b: [u8; 3]| (0..3).all(|c| (i32::from(a[c]) - i32::from(b[c])).abs() <= 6);

    // srgb (the default): as the model sent it.
    fal_answers_with(&fal, "fal-ai/tryon", &encoded(image::ImageFormat::Jpeg), "image/jpeg").await;
    let frame = develop(&house).await;
    assert!(icc_of(&frame).is_none_or(|i| is_srgb(&i)), "sRGB");

    // keep: in the input's Adobe RGB, the same colour to the eye; JPEG and PNG answers alike.
    house.key.patch_brand(&colour_patch(ColourOutput::Keep)).await.expect("keep");
    for (format, mime) in [(image::ImageFormat::Jpeg, "image/jpeg"), (image::ImageFormat::Png, "image/png")] {
        fal.reset().await;
        fal_answers_with(&fal, "fal-ai/tryon", &encoded(format), mime).await;
        let frame = develop(&house).await;
        assert_eq!(icc_of(&frame).as_ref(), Some(&adobe), "{mime}: the input's profile");
        let (got, want) = (seen(&frame), sent.get_pixel(20, 15).0);
        assert!(near(got, want), "{mime}: {want:?} reads {got:?}");
    }
}

/// The 16 px `web/` entry of a pack named `name` of the one asset, read back from the archive
/// (with Python's zipfile, a reader that is not ours).
async fn resized_entry(app: &TestApp, house: &House, asset: String, name: &str) -> Vec<u8> {
    let req = PackRequest {
        asset_ids: vec![asset],
        name: Some(name.into()),
        sizes: vec![PackSize { name: "web".into(), width: 16, height: 16 }],
    };
    let pack = house.key.create_pack(&req).await.expect("pack");
    assert_eq!(pack.status, "ready", "{pack:?}");
    let path = app.data_dir.join(format!("{name}.zip"));
    house.key.download_pack(&pack.pack_id, &path, |_, _| {}).await.expect("download");
    let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n\
                  n = [i for i in z.namelist() if i.startswith('web/')][0]\nsys.stdout.buffer.write(z.read(n))";
    let out = std::process::Command::new("python3").arg("-c").arg(script).arg(&path).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

async fn packs_follow_the_colour_policy(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "brand-colour-pack").await;
    let adobe = adobe_icc();
    let asset = house.key.upload_bytes("adobe.png", tagged_png(Some(adobe.clone())), &Default::default()).await;
    let asset = asset.expect("upload").asset.id;
    let resized = |name: &'static str| {
        let (app, house, asset) = (&app, &house, asset.clone());
        async move { icc_of(&resized_entry(app, house, asset, name).await).expect("the resized entry embeds a profile") }
    };
    let icc = resized("srgb").await;
    assert!(is_srgb(&icc) && icc != adobe, "sRGB by default");
    house.key.patch_brand(&colour_patch(ColourOutput::Keep)).await.expect("keep");
    assert_eq!(resized("keep").await, adobe, "under keep the resized entry carries the input's profile");
}

/// A camera's JPEG: EXIF with a creator, a copyright and a GPS position.
fn camera_jpeg() -> Vec<u8> {
    use exif::{Field, In, Tag, Value};
    let ascii = |tag, v: &str| Field { tag, ifd_num: In::PRIMARY, value: Value::Ascii(vec![v.as_bytes().to_vec()]) };
    let r = |num, denom| exif::Rational { num, denom };
    let fields = [
        ascii(Tag::Artist, "Ines Calder"),
        ascii(Tag::Copyright, "(c) 2026 Maison Calder"),
        ascii(Tag::GPSLatitudeRef, "N"),
        Field {
            tag: Tag::GPSLatitude,
            ifd_num: In::PRIMARY,
            value: Value::Rational(vec![r(48, 1), r(51, 1), r(0, 1)]),
        },
    ];
    let mut writer = exif::experimental::Writer::new();
    for f in &fields {
        writer.push_field(f);
    }
    let mut tiff = std::io::Cursor::new(Vec::new());
    writer.write(&mut tiff, false).expect("exif");
    let payload = [b"Exif\0\0".as_slice(), tiff.get_ref()].concat();
    let img = image::RgbImage::from_fn(48, 32, |x, y| image::Rgb([90 + x as u8, 60 + y as u8, 140]));
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 92).encode_image(&img).expect("jpeg");
    let mut app1 = vec![0xFF, 0xE1];
    app1.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
    app1.extend_from_slice(&payload);
    [&jpeg[..2], &app1, &jpeg[2..]].concat()
}

/// The EXIF tags an encoded image carries (none when it has no EXIF).
fn exif_tags(bytes: &[u8]) -> Vec<exif::Tag> {
    match exif::Reader::new().read_from_container(&mut std::io::Cursor::new(bytes)) {
        Ok(exif) => exif.fields().map(|f| f.tag).collect(),
        Err(_) => Vec::new(),
    }
}

fn metadata_patch(output: &str) -> BrandPatch {
    BrandPatch { metadata: Some(BrandMetadataPatch { output: output.into() }), ..Default::default() }
}

async fn develops_and_packs_follow_the_metadata_policy(backend: Backend) {
    use exif::Tag;
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 1).await else { return };
    let house = House::new(&app, "brand-metadata").await;
    assert_eq!(house.key.brand_profile().await.expect("read").profile.metadata.output, MetadataOutput::Rights);
    let asset = house.key.upload_bytes("camera.jpg", camera_jpeg(), &Default::default()).await;
    let asset = asset.expect("upload").asset.id;
    assert!(exif_tags(&house.key.asset_bytes(&asset).await.expect("original")).contains(&Tag::GPSLatitude));
    let develop = || {
        let house = &house;
        let asset = asset.clone();
        async move {
            let d = DevelopSubmit::new("upscale").input("image", InputSource::Asset(asset)).quality(Quality::K1);
            let job = house.key.submit_develop(&d).await.expect("submit").job_id;
            let done = house.key.wait_for(&job, WAIT).await.expect("done");
            assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
            exif_tags(&house.key.asset_bytes(done.result_asset_id.as_deref().unwrap()).await.expect("frame"))
        }
    };

    // rights (the default): the creator and the copyright, not the position.
    let tags = develop().await;
    assert!(tags.contains(&Tag::Artist) && tags.contains(&Tag::Copyright), "{tags:?}");
    assert!(!tags.contains(&Tag::GPSLatitude) && !tags.contains(&Tag::GPSLatitudeRef), "{tags:?}");

    // all: the position too; none: no EXIF at all.
    let p = house.key.patch_brand(&metadata_patch("all")).await.expect("all").profile;
    assert_eq!(p.metadata.output, MetadataOutput::All);
    let tags = develop().await;
    assert!(tags.contains(&Tag::Artist) && tags.contains(&Tag::GPSLatitude), "{tags:?}");
    house.key.patch_brand(&metadata_patch("none")).await.expect("none");
    assert_eq!(develop().await, Vec::<Tag>::new());

    // A bad value is 400 BAD_METADATA_OUTPUT and changes nothing; a viewer may not patch it.
    let http = reqwest::Client::new();
    for bad in [r#"{"metadata": {"output": "gps"}, "visionEn": "Loud"}"#, r#"{"metadata": {}}"#] {
        let res = raw_patch(&http, &app, &house, bad).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"], json!("BAD_METADATA_OUTPUT"), "{bad}");
    }
    let after = house.key.brand_profile().await.expect("read").profile;
    assert_eq!((after.metadata.output, after.vision_en.as_str()), (MetadataOutput::None, ""));
    let viewer = viewer(&app, &house).await;
    let e = viewer.patch_brand(&metadata_patch("all")).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));

    // A pack's resized entry follows the policy too (rights here).
    house.key.patch_brand(&metadata_patch("rights")).await.expect("rights");
    let tags = exif_tags(&resized_entry(&app, &house, asset.clone(), "camera").await);
    assert!(tags.contains(&Tag::Copyright) && !tags.contains(&Tag::GPSLatitude), "{tags:?}");
}
