//! The AI lanes and text tools against a fake server (wiremock): image lanes post one multipart
//! part named `image`, JSON tools send camelCase bodies, a relative result URL resolves against
//! the base (and carries no credential), and a refusal maps to the client's error with its code
//! and extras, sent once.

use serde_json::{Value, json};
use studio_client::api::{
    FaceFeaturesRequest, InspirationRequest, PromptBuilderRequest, PromptEnhancerRequest, SegmentRequest,
    ShotPromptsRequest,
};
use studio_client::{Client, InputSource};
use wiremock::matchers::{body_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "studio_sk_test";

fn client(server: &MockServer) -> Client {
    Client::builder(server.uri()).api_key(KEY).build().expect("client")
}

fn ok(v: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(v)
}

fn image() -> InputSource {
    InputSource::Bytes { file_name: "coat.png".into(), bytes: b"not really a png".to_vec() }
}

/// The names of a multipart body's parts, in order, with the file part's bytes.
fn parts(request: &Request) -> Vec<(String, String)> {
    let body = String::from_utf8_lossy(&request.body);
    body.split("Content-Disposition: form-data; ")
        .skip(1)
        .filter_map(|part| {
            let name = part.strip_prefix("name=\"")?.split('"').next()?.to_string();
            let content = part.split("\r\n\r\n").nth(1)?.split("\r\n").next()?.to_string();
            Some((name, content))
        })
        .collect()
}

#[tokio::test]
async fn image_lanes_send_one_part_named_image() {
    let server = MockServer::start().await;
    let lanes = [
        ("depth", json!({"url": "/api/toolkit/ai/results/r1?e=1&s=x", "spent": 1})),
        ("describe-item", json!({"ok": true, "nameEn": "Wool coat", "kind": "clothes", "spent": 1})),
        (
            "detect-items",
            json!({"ok": true, "items": [{"label": "coat", "box": [10, 20, 900, 800], "approximate": true}], "spent": 1}),
        ),
        (
            "extract-build",
            json!({"ok": true, "figureDetected": true, "fields": {"height": "tall", "build": "slim",
                "presence": "", "posture": "upright", "hands": ""}, "spent": 1}),
        ),
        (
            "extract-character",
            json!({"ok": true, "faceDetected": false, "fields": {"age": "", "skin": "", "eyes": "",
                "hair": "", "extras": ""}, "spent": 1}),
        ),
        ("remove-background", json!({"url": "/api/toolkit/assets/ast_1/file", "spent": 1, "assetId": "ast_1"})),
    ];
    for (lane, answer) in &lanes {
        Mock::given(method("POST"))
            .and(path(format!("/api/toolkit/ai/{lane}")))
            .and(header("authorization", format!("Bearer {KEY}").as_str()))
            .respond_with(ok(answer.clone()))
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(&server);
    let img = image();
    assert_eq!(client.depth(&img).await.unwrap().url, "/api/toolkit/ai/results/r1?e=1&s=x");
    assert_eq!(client.describe_item(&img).await.unwrap().name_en, "Wool coat");
    assert_eq!(client.detect_items(&img).await.unwrap().items[0].bbox, [10, 20, 900, 800]);
    assert_eq!(client.extract_build(&img).await.unwrap().fields.height, "tall");
    assert!(!client.extract_character(&img).await.unwrap().face_detected);
    assert_eq!(client.remove_background(&img).await.unwrap().asset_id, "ast_1");
    for request in server.received_requests().await.unwrap() {
        let content_type = request.headers.get("content-type").unwrap().to_str().unwrap().to_string();
        assert!(content_type.starts_with("multipart/form-data"), "{content_type}");
        assert_eq!(parts(&request), vec![("image".to_string(), "not really a png".to_string())], "{}", request.url);
    }
}

#[tokio::test]
async fn json_tools_send_camel_case_bodies() {
    let server = MockServer::start().await;
    let routes = [
        (
            "segment",
            json!({"imageUrl": "ast_1", "box": [1.0, 2.0, 30.0, 40.0]}),
            json!({"url": "http://cdn.example/r?e=1&s=x", "bbox": [1, 2, 30, 40], "spent": 1}),
        ),
        (
            "face-features",
            json!({"imageUrl": "ast_2"}),
            json!({"ok": true, "faceDetected": true, "keywords": ["a"], "spent": 1}),
        ),
        (
            "inspiration-keywords",
            json!({"vibe": "quiet"}),
            json!({"ok": true, "categories": [{"category": "light", "keywords": ["dusk"]}], "spent": 1}),
        ),
        (
            "imagemodel-prompts",
            json!({"description": "a coat", "count": 2}),
            json!({"ok": true, "shots": [{"label": "front", "prompt": "p1"}, {"label": "back", "prompt": "p2"}], "spent": 1}),
        ),
        (
            "prompt-builder",
            json!({"subject": "a coat", "vibe": "calm"}),
            json!({"ok": true, "prompt": "built", "spent": 1}),
        ),
        (
            "prompt-enhancer",
            json!({"prompt": "coat", "intent": "catalog"}),
            json!({"ok": true, "improved": "better coat", "notes": ["lit"], "spent": 1}),
        ),
    ];
    for (route, body, answer) in &routes {
        Mock::given(method("POST"))
            .and(path(format!("/api/toolkit/ai/{route}")))
            .and(body_json(body))
            .respond_with(ok(answer.clone()))
            .expect(1)
            .mount(&server)
            .await;
    }
    let client = client(&server);
    let seg =
        SegmentRequest { image_url: "ast_1".into(), bbox: Some(vec![1.0, 2.0, 30.0, 40.0]), ..Default::default() };
    assert_eq!(client.segment(&seg).await.unwrap().bbox, [1, 2, 30, 40]);
    let face = client.face_features(&FaceFeaturesRequest { image_url: "ast_2".into() }).await.unwrap();
    assert!(face.face_detected && face.keywords == ["a"]);
    let ideas = client.inspiration_keywords(&InspirationRequest { vibe: "quiet".into() }).await.unwrap();
    assert_eq!(ideas.categories[0].keywords, ["dusk"]);
    let shots = ShotPromptsRequest { description: "a coat".into(), direction: None, count: Some(2) };
    assert_eq!(client.imagemodel_prompts(&shots).await.unwrap().shots.len(), 2);
    let build = PromptBuilderRequest { subject: "a coat".into(), vibe: Some("calm".into()) };
    assert_eq!(client.prompt_builder(&build).await.unwrap().prompt, "built");
    let enhance = PromptEnhancerRequest { prompt: "coat".into(), intent: Some("catalog".into()) };
    assert_eq!(client.prompt_enhancer(&enhance).await.unwrap().notes, ["lit"]);
}

#[tokio::test]
async fn a_relative_result_url_resolves_against_the_base_without_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/results/r1"))
        .and(query_param("e", "1700000000"))
        .and(query_param("s", "sig"))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(b"\x89PNG fake".to_vec()))
        .expect(2)
        .mount(&server)
        .await;
    let client = client(&server);
    let relative = "/api/toolkit/ai/results/r1?e=1700000000&s=sig";
    assert_eq!(&client.fetch_lane_result(relative).await.unwrap()[..], b"\x89PNG fake");
    let absolute = format!("{}{relative}", server.uri());
    assert_eq!(&client.fetch_lane_result(&absolute).await.unwrap()[..], b"\x89PNG fake");
    for request in server.received_requests().await.unwrap() {
        assert!(request.headers.get("authorization").is_none(), "the signature is the permission");
    }
}

#[tokio::test]
async fn a_refusal_maps_to_its_code_and_extras_and_is_sent_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/ai/depth"))
        .respond_with(
            ResponseTemplate::new(503).set_body_json(json!({"error": "FAL_NOT_CONFIGURED", "message": "no fal key"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/ai/prompt-builder"))
        .respond_with(
            ResponseTemplate::new(402)
                .set_body_json(json!({"error": "AI_NEEDS_BILLING", "message": "top up", "need": 1, "spendable": 0})),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/results/old"))
        .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": "EXPIRED", "message": "too late"})))
        .mount(&server)
        .await;
    let client = client(&server);
    let err = client.depth(&image()).await.unwrap_err();
    assert_eq!((err.code(), err.status()), (Some("FAL_NOT_CONFIGURED"), Some(503)), "{err:?}");
    let err = client.prompt_builder(&PromptBuilderRequest { subject: "x".into(), vibe: None }).await.unwrap_err();
    assert_eq!(err.code(), Some("AI_NEEDS_BILLING"));
    assert_eq!((err.extra_i64("need"), err.extra_i64("spendable")), (Some(1), Some(0)));
    let err = client.fetch_lane_result("/api/toolkit/ai/results/old?e=1&s=x").await.unwrap_err();
    assert_eq!(err.code(), Some("EXPIRED"));
}
