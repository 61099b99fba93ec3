//! AI utility lanes and text tools (§4.1, §4.2) through studio-client, on a stand-in AI reader
//! and a stand-in fal queue (wiremock; the adapters are the real ones): every lane settles one
//! token on success; an upstream 500, a timeout and a malformed answer release it; not
//! configured is 503 with nothing held; a viewer is 403; an empty wallet 402 with `need` and
//! `spendable`; concurrent lanes cannot overspend. The local lanes cut real pixels
//! (remove-background into the library, segment by box and point behind signed links), and
//! detect-items answers boxes in the raw stored matrix of an EXIF-rotated JPEG.

use std::time::Duration;
use studio_core::LaneResultId;

use base64::Engine;
use image::{Rgb, RgbImage};
use serde_json::{Value, json};
use studio_client::api::{
    FaceFeaturesRequest, InspirationRequest, KeyRole, PromptBuilderRequest, PromptEnhancerRequest, SegmentRequest,
    ShotPromptsRequest,
};
use studio_client::{Client, InputSource, UploadOptions};
use studio_core::LaneResultRow;
use studio_tests::images::{encode, garment_shot, rotated_jpeg};
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    reader_lanes_settle_one_token,
    reader_failures_release_the_hold,
    unconfigured_lanes_hold_nothing,
    viewers_and_empty_wallets_are_refused,
    concurrent_lanes_cannot_overspend,
    remove_background_keeps_a_cutout,
    segment_cuts_by_box_and_point_behind_signed_links,
    detect_items_boxes_are_in_the_raw_matrix,
    fal_lanes_depth_and_segment_by_label,
    hosted_remove_background_passes_the_gate,
    hosted_cutouts_cannot_overspend,
);

/// (status, code) of a refusal.
fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

/// The house's (spendable, held).
async fn tokens(house: &House) -> (i64, i64) {
    let b = house.key.balance().await.expect("balance");
    (b.balance, b.held)
}

fn bytes(name: &str, bytes: Vec<u8>) -> InputSource {
    InputSource::Bytes { file_name: name.into(), bytes }
}

/// Two objects on a light ground: a red block on the left, a blue one on the right (600 × 400).
fn two_objects() -> (RgbImage, [u32; 4], [u32; 4]) {
    let (red, blue) = ([60, 100, 220, 300], [360, 80, 540, 320]);
    let inside = |b: [u32; 4], x: u32, y: u32| x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
    let img = RgbImage::from_fn(600, 400, |x, y| {
        if inside(red, x, y) {
            Rgb([190, 30, 40])
        } else if inside(blue, x, y) {
            Rgb([30, 50, 170])
        } else {
            Rgb([226, 224, 220])
        }
    });
    (img, red, blue)
}

/// Mount `answer` as the reader's only answer, dropping earlier ones.
async fn answer(server: &MockServer, answer: ResponseTemplate) {
    server.reset().await;
    Mock::given(method("POST")).and(path("/v1/chat/completions")).respond_with(answer).mount(server).await;
}

fn viewer_of(app: &TestApp, secret: String) -> Client {
    app.client.with_api_key(secret)
}

async fn reader_lanes_settle_one_token(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "lanes-reader").await;
    let key = &house.key;
    let (start, _) = tokens(&house).await;
    let shot = || bytes("shot.png", garment_shot(320, 400));
    let mut spent = 0;
    let mut check = |s: i64| {
        assert_eq!(s, 1, "each lane charges one token");
        spent += s;
        start - spent
    };

    answer(
        &server,
        completion(r#"{"nameEn": "Cropped double-breasted wool blazer in charcoal grey", "kind": "Outerwear"}"#),
    )
    .await;
    let got = key.describe_item(&shot()).await.expect("describe-item");
    assert_eq!((got.name_en.chars().count(), got.kind.as_str()), (40, "clothes"));
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"figureDetected": false, "fields": {"height": "tall"}}"#)).await;
    let got = key.extract_build(&shot()).await.expect("extract-build");
    assert!(!got.figure_detected && got.fields.height.is_empty(), "never invents: {got:?}");
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"faceDetected": true, "fields": {"age": "30s", "hair": "short, black"}}"#)).await;
    let got = key.extract_character(&shot()).await.expect("extract-character");
    assert!(got.face_detected);
    assert_eq!((got.fields.age.as_str(), got.fields.eyes.as_str()), ("30s", ""));
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    let asset = key.upload_bytes("face.png", garment_shot(64, 64), &UploadOptions::default()).await.expect("upload");
    let twenty: Vec<String> = (0..22).map(|i| format!("feature {i}")).collect();
    answer(&server, completion(&json!({"faceDetected": true, "keywords": twenty}).to_string())).await;
    let got =
        key.face_features(&FaceFeaturesRequest { image_url: asset.asset.url.clone() }).await.expect("face-features");
    assert_eq!((got.face_detected, got.keywords.len()), (true, 20));
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"categories": [{"category": "light", "keywords": ["soft", "north window"]}]}"#))
        .await;
    let got = key.inspiration_keywords(&InspirationRequest { vibe: "quiet morning".into() }).await.expect("keywords");
    assert_eq!(got.categories[0].keywords, vec!["soft".to_string(), "north window".to_string()]);
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"shots": [{"label": "front", "prompt": "p1"}, {"label": "back", "prompt": "p2"}, {"label": "side", "prompt": "p3"}]}"#)).await;
    let req = ShotPromptsRequest { description: "linen shirt".into(), direction: None, count: Some(2) };
    let got = key.imagemodel_prompts(&req).await.expect("prompts");
    assert_eq!(got.shots.len(), 2);
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"prompt": "A linen shirt on a chair"}"#)).await;
    let got =
        key.prompt_builder(&PromptBuilderRequest { subject: "linen shirt".into(), vibe: None }).await.expect("builder");
    assert_eq!(got.prompt, "A linen shirt on a chair");
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    answer(&server, completion(r#"{"improved": "Better", "notes": ["named the light"]}"#)).await;
    let got = key
        .prompt_enhancer(&PromptEnhancerRequest { prompt: "shirt".into(), intent: Some("catalogue".into()) })
        .await
        .expect("enhancer");
    assert_eq!((got.improved.as_str(), got.notes.len()), ("Better", 1));
    let left = check(got.spent);
    assert_eq!(tokens(&house).await, (left, 0));

    // The required fields are refused before anything is asked or held.
    let e = key.prompt_builder(&PromptBuilderRequest::default()).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "SUBJECT_REQUIRED".into()));
    let e = key.inspiration_keywords(&InspirationRequest::default()).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "VIBE_REQUIRED".into()));
    let e = key.imagemodel_prompts(&ShotPromptsRequest::default()).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "DESCRIPTION_REQUIRED".into()));
    let e = key.prompt_enhancer(&PromptEnhancerRequest::default()).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "PROMPT_REQUIRED".into()));
    let req = ShotPromptsRequest { description: "x".into(), direction: None, count: Some(50) };
    assert_eq!(refused(key.imagemodel_prompts(&req).await.unwrap_err()), (Some(400), "BAD_COUNT".into()));
    assert_eq!(tokens(&house).await, (left, 0));
}

async fn reader_failures_release_the_hold(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.ai_timeout_secs = 1).await else { return };
    let house = House::new(&app, "lanes-fail").await;
    let key = &house.key;
    let before = tokens(&house).await;
    let shot = || bytes("shot.png", garment_shot(200, 240));
    let cases = [
        (ResponseTemplate::new(500).set_body_string("upstream down"), "AI_FAILED"),
        (completion(r#"{"nameEn": "Coat", "kind": "clothes"}"#).set_delay(Duration::from_secs(4)), "AI_FAILED"),
        (completion("I would call it a coat."), "AI_BAD_OUTPUT"),
        (completion(r#"{"nameEn": 7}"#), "AI_BAD_OUTPUT"),
    ];
    for (reply, code) in cases {
        answer(&server, reply).await;
        let e = key.describe_item(&shot()).await.expect_err("the read fails");
        assert_eq!(refused(e), (Some(502), code.to_string()));
        assert_eq!(tokens(&house).await, before, "{code}: the hold is released");
    }
    answer(&server, completion(r#"{"prompt": ""}"#)).await;
    let e = key.prompt_builder(&PromptBuilderRequest { subject: "coat".into(), vibe: None }).await.unwrap_err();
    assert_eq!(refused(e), (Some(502), "AI_BAD_OUTPUT".into()));
    answer(&server, completion(r#"{"faceDetected": true, "keywords": ["one", "two"]}"#)).await;
    let asset = key.upload_bytes("f.png", garment_shot(40, 40), &UploadOptions::default()).await.expect("upload");
    let e = key.face_features(&FaceFeaturesRequest { image_url: asset.asset.id.clone() }).await.unwrap_err();
    assert_eq!(refused(e), (Some(502), "AI_BAD_OUTPUT".into()));
    // A small file that decodes to too many pixels is 413 before anything is held.
    let e = key.describe_item(&bytes("bomb.png", studio_tests::images::png_bomb(12_000))).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(413), Some("IMAGE_TOO_LARGE")), "{e:?}");
    assert_eq!(e.extra_i64("maxMb"), Some(12));
    assert_eq!(tokens(&house).await, before);
}

async fn unconfigured_lanes_hold_nothing(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "lanes-off").await;
    let key = &house.key;
    let before = tokens(&house).await;
    let shot = || bytes("shot.png", garment_shot(200, 240));
    let reader = [
        key.describe_item(&shot()).await.unwrap_err(),
        key.detect_items(&shot()).await.unwrap_err(),
        key.extract_build(&shot()).await.unwrap_err(),
        key.extract_character(&shot()).await.unwrap_err(),
        key.prompt_builder(&PromptBuilderRequest { subject: "coat".into(), vibe: None }).await.unwrap_err(),
    ];
    for e in reader {
        assert_eq!(refused(e), (Some(503), "AI_NOT_CONFIGURED".into()));
    }
    assert_eq!(refused(key.depth(&shot()).await.unwrap_err()), (Some(503), "FAL_NOT_CONFIGURED".into()));
    let asset = key.upload_bytes("s.png", garment_shot(60, 60), &UploadOptions::default()).await.expect("upload");
    let by_label = SegmentRequest { image_url: asset.asset.id, label: Some("coat".into()), ..Default::default() };
    assert_eq!(refused(key.segment(&by_label).await.unwrap_err()), (Some(503), "FAL_NOT_CONFIGURED".into()));
    assert_eq!(tokens(&house).await, before, "nothing held or charged");
}

async fn viewers_and_empty_wallets_are_refused(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.signup_grant_tokens = 0).await else { return };
    answer(&server, completion(r#"{"prompt": "x"}"#)).await;
    let house = House::new(&app, "lanes-refused").await;
    let secret = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.expect("mint").key.expect("secret");
    let viewer = viewer_of(&app, secret);
    let shot = || bytes("shot.png", garment_shot(200, 240));
    assert_eq!(refused(viewer.remove_background(&shot()).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    assert_eq!(refused(viewer.describe_item(&shot()).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    let req = PromptBuilderRequest { subject: "coat".into(), vibe: None };
    assert_eq!(refused(viewer.prompt_builder(&req).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));

    let key = &house.key;
    let e = key.remove_background(&shot()).await.unwrap_err();
    assert_eq!((e.extra_i64("need"), e.extra_i64("spendable")), (Some(1), Some(0)));
    assert_eq!(refused(e), (Some(402), "INSUFFICIENT_TOKENS".into()));
    let e = key.prompt_builder(&req).await.unwrap_err();
    assert_eq!((e.extra_i64("need"), e.extra_i64("spendable")), (Some(1), Some(0)));
    assert_eq!(refused(e), (Some(402), "AI_NEEDS_BILLING".into()));
    let e = key.describe_item(&shot()).await.unwrap_err();
    assert_eq!(refused(e), (Some(402), "AI_NEEDS_BILLING".into()), "the house never paid: nothing refills it");
    assert!(server.received_requests().await.expect("recorded").is_empty(), "the reader was never asked");
    assert_eq!(tokens(&house).await, (0, 0));
    let assets = key.list_assets(None).await.expect("list");
    assert!(assets.assets.is_empty(), "a refused lane creates nothing");

    // Bad uploads are refused before the charge.
    let e = key.remove_background(&bytes("a.txt", b"not an image".to_vec())).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_FORM".into()));
    let e = key.remove_background(&bytes("e.png", Vec::new())).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "EMPTY_IMAGE".into()));
    let big = studio_tests::images::padded_png(1, 12 * 1024 * 1024 + 10);
    let e = key.remove_background(&bytes("big.png", big)).await.unwrap_err();
    assert_eq!(e.extra_i64("maxMb"), Some(12));
    assert_eq!(refused(e), (Some(413), "IMAGE_TOO_LARGE".into()));
}

async fn concurrent_lanes_cannot_overspend(backend: Backend) {
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.signup_grant_tokens = 3;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "lanes-race").await;
    let inputs = (0..8).map(|i| bytes(&format!("s{i}.png"), garment_shot(240, 300))).collect();
    assert_eq!(race_cutouts(&house.key, inputs).await, (3, 5), "three tokens pay for exactly three cutouts");
    assert_eq!(tokens(&house).await, (0, 0));
    assert_eq!(house.key.list_assets(None).await.expect("list").assets.len(), 3);
}

/// remove-background on every input at once: (cut for one token each, refused 402).
async fn race_cutouts(key: &Client, inputs: Vec<InputSource>) -> (usize, usize) {
    let calls: Vec<_> = inputs
        .into_iter()
        .map(|input| {
            let key = key.clone();
            tokio::spawn(async move { key.remove_background(&input).await })
        })
        .collect();
    let (mut done, mut refused_402) = (0, 0);
    for call in calls {
        match call.await.unwrap() {
            Ok(r) => {
                assert_eq!(r.spent, 1);
                done += 1;
            }
            Err(e) => {
                assert_eq!(refused(e), (Some(402), "INSUFFICIENT_TOKENS".into()));
                refused_402 += 1;
            }
        }
    }
    (done, refused_402)
}

/// Share of `cut`'s opaque pixels (alpha ≥ 128) inside `b`, and of `b`'s pixels that are opaque.
fn coverage(cut: &image::RgbaImage, b: [u32; 4]) -> (f64, f64) {
    let (mut inside, mut opaque, mut hits) = (0u64, 0u64, 0u64);
    for (x, y, p) in cut.enumerate_pixels() {
        let within = x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
        let solid = p.0[3] >= 128;
        inside += u64::from(within);
        opaque += u64::from(solid);
        hits += u64::from(within && solid);
    }
    (hits as f64 / opaque.max(1) as f64, hits as f64 / inside.max(1) as f64)
}

async fn remove_background_keeps_a_cutout(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "lanes-cutout").await;
    let key = &house.key;
    let (before, _) = tokens(&house).await;
    let (img, red, _) = two_objects();
    // One object only: the red block.
    let single = RgbImage::from_fn(600, 400, |x, y| {
        if x >= red[0] && x < red[2] && y >= red[1] && y < red[3] { *img.get_pixel(x, y) } else { Rgb([226, 224, 220]) }
    });
    let got = key.remove_background(&bytes("dress.png", encode(&single, image::ImageFormat::Png))).await.expect("cut");
    assert_eq!(got.spent, 1);
    assert!(got.url.ends_with(&format!("/api/toolkit/assets/{}/file", got.asset_id)), "{}", got.url);
    assert_eq!(tokens(&house).await, (before - 1, 0));
    let listed = key.list_assets(None).await.expect("list").assets;
    let asset = listed.iter().find(|a| a.id == got.asset_id).expect("kept in the library");
    assert!(asset.name.contains("dress"), "named after the upload: {}", asset.name);
    let png = key.asset_bytes(&got.asset_id).await.expect("file");
    let cut = image::load_from_memory(&png).expect("png").to_rgba8();
    assert_eq!(cut.dimensions(), (600, 400));
    let (precision, recall) = coverage(&cut, red);
    assert!(precision > 0.97 && recall > 0.97, "the alpha is the block: {precision:.3} {recall:.3}");

    // Nothing stands out from a flat ground: the subject gate answers 422, nothing charged.
    let flat = encode(&RgbImage::from_pixel(300, 300, Rgb([200, 200, 200])), image::ImageFormat::Png);
    let e = key.remove_background(&bytes("flat.png", flat)).await.unwrap_err();
    assert_eq!(refused(e), (Some(422), "SUBJECT_NOT_FOUND".into()));
    assert_eq!(tokens(&house).await, (before - 1, 0));
}

async fn segment_cuts_by_box_and_point_behind_signed_links(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "lanes-segment").await;
    let other = House::new(&app, "lanes-segment-other").await;
    let key = &house.key;
    let (img, red, blue) = two_objects();
    let asset = key
        .upload_bytes("pair.png", encode(&img, image::ImageFormat::Png), &UploadOptions::default())
        .await
        .expect("upload")
        .asset;
    let (before, _) = tokens(&house).await;

    let by_box = SegmentRequest {
        image_url: asset.url.clone(),
        bbox: Some(vec![40.0, 80.0, 250.0, 320.0]),
        ..Default::default()
    };
    let got = key.segment(&by_box).await.expect("by box");
    assert_eq!(got.spent, 1);
    let near = |a: [u32; 4], b: [u32; 4]| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 4);
    assert!(near(got.bbox, red), "box finds the red block: {:?}", got.bbox);
    let cut = image::load_from_memory(&key.fetch_lane_result(&got.url).await.expect("signed link")).unwrap().to_rgba8();
    let (precision, recall) = coverage(&cut, red);
    assert!(precision > 0.95 && recall > 0.95, "{precision:.3} {recall:.3}");
    // The link alone is the authority: no key needed, a changed signature is refused.
    let unsigned = app.client.fetch_lane_result(&got.url).await.expect("no key needed");
    assert!(!unsigned.is_empty());
    let (head, _) = got.url.split_once("&s=").expect("signed");
    let e = app.client.fetch_lane_result(&format!("{head}&s=AAAA")).await.unwrap_err();
    assert_eq!(refused(e), (Some(403), "BAD_SIGNATURE".into()));

    let by_point =
        SegmentRequest { image_url: asset.id.clone(), point: Some(vec![450.0, 200.0]), ..Default::default() };
    let got_point = key.segment(&by_point).await.expect("by point");
    assert!(near(got_point.bbox, blue), "point finds the blue block: {:?}", got_point.bbox);

    // A result URL of this house is an image the lanes take; another house's is not.
    let again = SegmentRequest { image_url: got.url.clone(), point: Some(vec![150.0, 200.0]), ..Default::default() };
    assert!(key.segment(&again).await.is_ok());
    let e = other.key.segment(&again).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_IMAGE_URL".into()));
    let e = other.key.segment(&by_point).await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "ASSET_NOT_FOUND".into()));
    for url in ["http://169.254.169.254/latest/meta-data", "http://127.0.0.1:1/x.png", "file:///etc/passwd"] {
        let req = SegmentRequest { image_url: url.into(), point: Some(vec![1.0, 1.0]), ..Default::default() };
        assert_eq!(refused(key.segment(&req).await.unwrap_err()), (Some(400), "BAD_IMAGE_URL".into()), "{url}");
    }
    let outside = SegmentRequest { image_url: asset.id.clone(), point: Some(vec![900.0, 10.0]), ..Default::default() };
    let e = key.segment(&outside).await.unwrap_err();
    assert_eq!(e.extra_i64("width"), Some(600));
    assert_eq!(refused(e), (Some(400), "BAD_TARGET".into()));
    let none = SegmentRequest { image_url: asset.id.clone(), ..Default::default() };
    assert_eq!(refused(key.segment(&none).await.unwrap_err()), (Some(400), "TARGET_REQUIRED".into()));
    assert_eq!(tokens(&house).await, (before - 3, 0), "three cuts, three tokens; refusals charge nothing");

    // A malformed body is BAD_JSON.
    let raw = reqwest::Client::new()
        .post(format!("{}/api/toolkit/ai/segment", app.base))
        .bearer_auth(&house.secret)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status().as_u16(), 400);
    assert_eq!(raw.json::<Value>().await.unwrap()["error"], "BAD_JSON");

    // The sweep deletes expired results and their blobs (one made expired here by hand) and
    // keeps live ones.
    assert_eq!(app.studio.ai().sweep_lane_results().await.expect("sweep"), 0, "nothing has expired yet");
    let blob_key = format!("orgs/{}/lanes/lres_old.png", house.org_id);
    let old = encode(&RgbImage::new(4, 4), image::ImageFormat::Png);
    app.studio.blobs().put_bytes(&blob_key, old.clone(), 1 << 20, |_| true).await.expect("blob");
    let now = chrono::Utc::now();
    let row = LaneResultRow {
        id: "lres_old".into(),
        org_id: house.org_id.clone(),
        lane: "segment".into(),
        blob_key: blob_key.clone(),
        mime: "image/png".into(),
        bytes: old.len() as i64,
        expires_at: now - chrono::Duration::minutes(1),
        created_at: now - chrono::Duration::minutes(16),
    };
    app.studio.storage().insert_lane_result(&row).await.expect("row");
    assert_eq!(app.studio.ai().sweep_lane_results().await.expect("sweep"), 1);
    assert!(app.studio.storage().lane_result(&LaneResultId::from("lres_old")).await.expect("read").is_none());
    assert!(app.studio.blobs().get_bytes(&blob_key).await.is_err(), "the blob went with the row");
    assert!(key.fetch_lane_result(&got.url).await.is_ok(), "a live result stays");
}

async fn detect_items_boxes_are_in_the_raw_matrix(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "lanes-detect").await;
    // Stored 320 × 200 (landscape), shown 200 × 320 (EXIF 6: turn 90° clockwise).
    let jpeg = rotated_jpeg(320, 200);
    answer(&server, completion(r#"{"items": [{"label": "coat", "box": [0, 0, 500, 500]}]}"#)).await;
    let got = house.key.detect_items(&bytes("turned.jpg", jpeg)).await.expect("detect");
    assert_eq!(got.spent, 1);
    assert_eq!(got.items.len(), 1);
    // The top-left quarter of what is seen is the bottom-left quarter of what is stored.
    assert_eq!((got.items[0].bbox, got.items[0].approximate), ([500, 0, 1000, 500], true));
    // The reader was shown the picture as displayed (portrait).
    let received = server.received_requests().await.expect("recorded");
    let body: Value = serde_json::from_slice(&received[0].body).expect("json");
    let url = body["messages"][1]["content"][1]["image_url"]["url"].as_str().expect("an image");
    let data = url.split_once("base64,").expect("a data URI").1;
    let shown = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
    let shown = image::load_from_memory(&shown).expect("image");
    assert_eq!((shown.width(), shown.height()), (200, 320));
}

/// A fal queue answering `result` for any model under `app` (`owner/name`).
pub(crate) async fn fal_answers(server: &MockServer, app: &str, result: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path_regex(format!("^/{app}(/.*)?$")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"request_id": "r1"})))
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/{app}/requests/r1/status")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "COMPLETED"})))
        .mount(server)
        .await;
    Mock::given(method("GET")).and(path(format!("/{app}/requests/r1"))).respond_with(result).mount(server).await;
}

fn png_data_uri(img: &image::DynamicImage) -> String {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(out.into_inner()))
}

async fn fal_lanes_depth_and_segment_by_label(backend: Backend) {
    let fal = MockServer::start().await;
    let uri = fal.uri();
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.fal_key = Some("fal-key".into());
        c.fal_url = Some(uri);
        c.fal_timeout_secs = 3;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "lanes-fal").await;
    let key = &house.key;
    let (start, _) = tokens(&house).await;
    let shot = || bytes("shot.png", garment_shot(200, 240));

    let depth_map = image::DynamicImage::ImageRgb8(RgbImage::from_fn(50, 60, |x, _| Rgb([x as u8 * 4, 0, 9])));
    fal_answers(
        &fal,
        "fal-ai/imageutils",
        ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&depth_map)}})),
    )
    .await;
    let got = key.depth(&shot()).await.expect("depth");
    assert_eq!(got.spent, 1);
    let map = image::load_from_memory(&key.fetch_lane_result(&got.url).await.expect("link")).expect("png");
    assert_eq!((map.width(), map.height(), map.color()), (50, 60, image::ColorType::L8));
    assert_eq!(tokens(&house).await, (start - 1, 0));

    // Upstream failure, then a queue that never finishes within the time limit: released.
    fal.reset().await;
    fal_answers(&fal, "fal-ai/imageutils", ResponseTemplate::new(500)).await;
    assert_eq!(refused(key.depth(&shot()).await.unwrap_err()), (Some(502), "DEPTH_FAILED".into()));
    fal.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"request_id": "r2"})))
        .mount(&fal)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "IN_PROGRESS"})))
        .mount(&fal)
        .await;
    assert_eq!(refused(key.depth(&shot()).await.unwrap_err()), (Some(502), "DEPTH_FAILED".into()));
    assert_eq!(tokens(&house).await, (start - 1, 0));

    // Segment by label: fal's mask over the displayed frame becomes the cutout.
    let (img, red, _) = two_objects();
    let asset = key
        .upload_bytes("pair.png", encode(&img, image::ImageFormat::Png), &UploadOptions::default())
        .await
        .expect("upload")
        .asset;
    let mask = image::DynamicImage::ImageLuma8(image::GrayImage::from_fn(300, 200, |x, y| {
        let (x, y) = (x * 2, y * 2);
        image::Luma([if x >= red[0] && x < red[2] && y >= red[1] && y < red[3] { 255 } else { 0 }])
    }));
    fal.reset().await;
    fal_answers(
        &fal,
        "fal-ai/evf-sam",
        ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&mask)}})),
    )
    .await;
    let req = SegmentRequest { image_url: asset.id.clone(), label: Some("red dress".into()), ..Default::default() };
    let got = key.segment(&req).await.expect("by label");
    let near = |a: [u32; 4], b: [u32; 4]| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 4);
    assert!(near(got.bbox, red), "{:?}", got.bbox);
    let received = fal.received_requests().await.expect("recorded");
    let submit: Value = serde_json::from_slice(&received[0].body).expect("json");
    assert_eq!(submit["prompt"], "red dress");
    assert_eq!(tokens(&house).await, (start - 2, 0));
    // An empty mask is refused by the subject gate, released.
    fal.reset().await;
    let empty = image::DynamicImage::ImageLuma8(image::GrayImage::new(30, 20));
    fal_answers(
        &fal,
        "fal-ai/evf-sam",
        ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&empty)}})),
    )
    .await;
    assert_eq!(refused(key.segment(&req).await.unwrap_err()), (Some(422), "SUBJECT_NOT_FOUND".into()));
    assert_eq!(tokens(&house).await, (start - 2, 0));
}

/// A server whose remove-background runs on `fal`'s `fal-ai/birefnet`, granting `grant` tokens.
async fn with_hosted_cutouts(backend: Backend, fal: &MockServer, grant: i64) -> Option<TestApp> {
    let uri = fal.uri();
    spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.signup_grant_tokens = grant;
        c.fal_key = Some("fal-key".into());
        c.fal_url = Some(uri);
        c.fal_timeout_secs = 10;
        c.fal_cutout_model = Some("fal-ai/birefnet".into());
    })
    .await
}

/// remove-background on a hosted model (`STUDIO_FAL_CUTOUT_MODEL`): the model's cutout (its
/// alpha) over the uploaded frame, filed like the local one and charged the utility price; a
/// model's answer that the subject gate refuses (the whole frame, or nothing) is 422
/// `SUBJECT_NOT_FOUND` with nothing charged and nothing filed.
async fn hosted_remove_background_passes_the_gate(backend: Backend) {
    let fal = MockServer::start().await;
    let Some(app) = with_hosted_cutouts(backend, &fal, 100).await else { return };
    let house = House::new(&app, "lanes-hosted-cutout").await;
    let key = &house.key;
    let (start, _) = tokens(&house).await;
    let (img, red, _) = two_objects();
    let frame = || bytes("pair.png", encode(&img, image::ImageFormat::Png));
    let inside = |x: u32, y: u32| x >= red[0] && x < red[2] && y >= red[1] && y < red[3];
    let cutout = image::DynamicImage::ImageRgba8(image::RgbaImage::from_fn(600, 400, |x, y| {
        if inside(x, y) { image::Rgba([190, 30, 40, 255]) } else { image::Rgba([0, 0, 0, 0]) }
    }));
    fal_answers(
        &fal,
        "fal-ai/birefnet",
        ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&cutout)}})),
    )
    .await;
    let got = key.remove_background(&frame()).await.expect("cut on fal");
    assert_eq!(got.spent, 1);
    let received = fal.received_requests().await.expect("recorded");
    let submit: Value = serde_json::from_slice(&received[0].body).expect("json");
    assert!(submit["image_url"].as_str().is_some_and(|u| u.starts_with("data:image/")), "the frame is sent");
    let listed = key.list_assets(None).await.expect("list").assets;
    assert!(listed.iter().any(|a| a.id == got.asset_id && a.name.contains("pair")), "filed, named after the upload");
    let png = image::load_from_memory(&key.asset_bytes(&got.asset_id).await.expect("file")).expect("png").to_rgba8();
    assert_eq!((png.width(), png.height()), (600, 400));
    assert_eq!((png.get_pixel(10, 10).0[3], png.get_pixel(140, 200).0[3]), (0, 255));
    assert_eq!(tokens(&house).await, (start - 1, 0));
    let filed = key.list_assets(None).await.expect("list").assets.len();

    // The whole frame, then nothing: the gate refuses, nothing is charged or filed.
    for answer in [
        image::DynamicImage::ImageLuma8(image::GrayImage::from_pixel(60, 40, image::Luma([255]))),
        image::DynamicImage::ImageLuma8(image::GrayImage::new(60, 40)),
    ] {
        fal.reset().await;
        fal_answers(
            &fal,
            "fal-ai/birefnet",
            ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&answer)}})),
        )
        .await;
        assert_eq!(
            refused(key.remove_background(&frame()).await.unwrap_err()),
            (Some(422), "SUBJECT_NOT_FOUND".into())
        );
    }
    // An upstream failure is the lane's 502, released.
    fal.reset().await;
    fal_answers(&fal, "fal-ai/birefnet", ResponseTemplate::new(500)).await;
    assert_eq!(refused(key.remove_background(&frame()).await.unwrap_err()), (Some(502), "REMOVE_BG_FAILED".into()));
    assert_eq!(tokens(&house).await, (start - 1, 0));
    assert_eq!(key.list_assets(None).await.expect("list").assets.len(), filed);
}

/// Eight hosted remove-backgrounds at once on three tokens: exactly three are cut, charged and
/// filed; the rest are refused 402 before fal is asked.
async fn hosted_cutouts_cannot_overspend(backend: Backend) {
    let fal = MockServer::start().await;
    let Some(app) = with_hosted_cutouts(backend, &fal, 3).await else { return };
    let (img, red, _) = two_objects();
    let png = encode(&img, image::ImageFormat::Png);
    let mask = image::DynamicImage::ImageLuma8(image::GrayImage::from_fn(600, 400, |x, y| {
        image::Luma([if x >= red[0] && x < red[2] && y >= red[1] && y < red[3] { 255 } else { 0 }])
    }));
    fal_answers(
        &fal,
        "fal-ai/birefnet",
        ResponseTemplate::new(200).set_body_json(json!({"image": {"url": png_data_uri(&mask)}})),
    )
    .await;
    let house = House::new(&app, "lanes-hosted-race").await;
    let inputs = (0..8).map(|i| bytes(&format!("p{i}.png"), png.clone())).collect();
    assert_eq!(race_cutouts(&house.key, inputs).await, (3, 5), "three tokens pay for exactly three hosted cutouts");
    assert_eq!(tokens(&house).await, (0, 0));
    assert_eq!(house.key.list_assets(None).await.expect("list").assets.len(), 3);
    let submits =
        fal.received_requests().await.expect("recorded").iter().filter(|r| r.method.as_str() == "POST").count();
    assert_eq!(submits, 3, "fal is asked only for what was held");
}
