//! Retries against a fake server (wiremock): Retry-After is honoured, only safe or keyed calls
//! are sent again, spending calls carry a generated idempotency key that stays the same across
//! attempts, and a file-backed form is rebuilt for every attempt.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use studio_client::api::TakesRequest;
use studio_client::{Client, DevelopSubmit, InputSource, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn balance() -> Value {
    json!({"balance": 91, "grant": 100, "topup": 0, "held": 9, "holds": []})
}

fn refusal(status: u16, code: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"error": code, "message": "try again later"}))
}

/// A client with a quick backoff (the Retry-After tests set the header explicitly).
fn client(server: &MockServer, max_retries: u32) -> Client {
    let policy = RetryPolicy { max_retries, base_delay: Duration::from_millis(5), ..RetryPolicy::default() };
    Client::builder(server.uri()).api_key("studio_sk_test").retry_policy(policy).build().expect("client")
}

/// The value of the text field `name` in a multipart body.
fn form_field(request: &Request, name: &str) -> Option<String> {
    let body = String::from_utf8_lossy(&request.body);
    let marker = format!("name=\"{name}\"\r\n\r\n");
    let start = body.find(&marker)? + marker.len();
    let end = body[start..].find("\r\n")?;
    Some(body[start..start + end].to_string())
}

#[tokio::test]
async fn get_waits_for_retry_after_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/billing/balance"))
        .respond_with(refusal(503, "UNAVAILABLE").insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/billing/balance"))
        .respond_with(ResponseTemplate::new(200).set_body_json(balance()))
        .mount(&server)
        .await;
    let started = Instant::now();
    let answer = client(&server, 3).balance().await.expect("the retry succeeds");
    let elapsed = started.elapsed();
    assert_eq!((answer.balance, answer.held), (91, 9));
    assert!(elapsed >= Duration::from_millis(900), "waited for Retry-After: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "and not much longer: {elapsed:?}");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn post_without_a_key_is_sent_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/folders"))
        .respond_with(refusal(503, "UNAVAILABLE").insert_header("retry-after", "0"))
        .mount(&server)
        .await;
    let err = client(&server, 3).create_folder("SS27", None).await.expect_err("refused");
    assert_eq!((err.status(), err.code()), (Some(503), Some("UNAVAILABLE")));
    assert!(err.is_retryable());
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "a POST without a key is not retried");
}

#[tokio::test]
async fn submit_sends_a_generated_key_and_retries_with_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/jobs/submit"))
        .respond_with(refusal(503, "UNAVAILABLE"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/jobs/submit"))
        .respond_with(
            ResponseTemplate::new(202).set_body_json(json!({"jobId": "job_1", "status": "queued", "tokensHeld": 9})),
        )
        .mount(&server)
        .await;
    // A file-backed input: its stream is spent by the first attempt, so the form must be rebuilt.
    let file = std::env::temp_dir().join(format!("studio-client-retry-{}.png", studio_client::new_idempotency_key()));
    std::fs::write(&file, b"\x89PNG-file-bytes").unwrap();
    let develop = DevelopSubmit::new("tryon")
        .input("model", InputSource::Path(file.clone()))
        .input("garment", InputSource::Bytes { file_name: "coat.png".into(), bytes: b"\x89PNG-memory".to_vec() })
        .input("background", InputSource::Asset("ast_ground".into()))
        .param("runId", "ss27");
    let accepted = client(&server, 3).submit_develop(&develop).await.expect("submitted on the retry");
    assert_eq!((accepted.job_id.as_str(), accepted.tokens_held), ("job_1", 9));

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let keys: Vec<String> =
        requests.iter().map(|r| form_field(r, "idempotencyKey").expect("an idempotencyKey field")).collect();
    assert_eq!(keys[0], keys[1], "the retry carries the same key");
    assert_eq!(keys[0].len(), 36, "a generated UUID: {}", keys[0]);
    for request in &requests {
        let body = String::from_utf8_lossy(&request.body);
        assert!(body.contains("PNG-file-bytes") && body.contains("PNG-memory"), "every attempt sends both images");
        assert_eq!(form_field(request, "tool").as_deref(), Some("tryon"));
        assert_eq!(form_field(request, "background").as_deref(), Some("ast_ground"));
        assert_eq!(form_field(request, "runId").as_deref(), Some("ss27"));
    }

    // The caller's own key is sent as is, and a second submit without one gets a fresh key.
    client(&server, 3).submit_develop(&develop.clone().idempotency_key("mine")).await.unwrap();
    client(&server, 3)
        .submit_develop(&DevelopSubmit::new("upscale").input("image", InputSource::Asset("ast_1".into())))
        .await
        .unwrap();
    let requests = server.received_requests().await.unwrap();
    assert_eq!(form_field(&requests[2], "idempotencyKey").as_deref(), Some("mine"));
    let fresh = form_field(&requests[3], "idempotencyKey").unwrap();
    assert!(fresh != keys[0] && fresh != "mine");
    std::fs::remove_file(&file).ok();
}

#[tokio::test]
async fn duplicate_and_takes_carry_a_key_across_retries() {
    let server = MockServer::start().await;
    for route in ["/api/toolkit/jobs/job_1/duplicate", "/api/toolkit/takes"] {
        Mock::given(method("POST"))
            .and(path(route))
            .respond_with(refusal(502, "UPSTREAM"))
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .and(path("/api/toolkit/jobs/job_1/duplicate"))
        .respond_with(
            ResponseTemplate::new(202).set_body_json(json!({"jobId": "job_2", "status": "queued", "cost": 9})),
        )
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/toolkit/takes"))
        .respond_with(
            ResponseTemplate::new(202)
                .set_body_json(json!({"jobs": [{"jobId": "job_3", "sourceJobId": "job_1", "tokens": 9}]})),
        )
        .mount(&server)
        .await;
    let client = client(&server, 3);
    assert_eq!(client.duplicate_job("job_1", None).await.expect("duplicate").job_id, "job_2");
    let takes = TakesRequest { job_ids: Some(vec!["job_1".into()]), ..TakesRequest::default() };
    assert_eq!(client.take_again(&takes).await.expect("takes").jobs[0].job_id, "job_3");

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 4);
    let keys: Vec<Value> =
        requests.iter().map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["idempotencyKey"].clone()).collect();
    assert!(keys.iter().all(|k| k.as_str().is_some_and(|k| k.len() == 36)), "{keys:?}");
    assert_eq!(keys[0], keys[1], "the duplicate's retry carries the same key");
    assert_eq!(keys[2], keys[3], "the takes' retry carries the same key");
    assert_ne!(keys[0], keys[2]);
}

#[tokio::test]
async fn exhausted_429_is_the_last_refusal() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/billing/balance"))
        .respond_with(refusal(429, "RATE_LIMITED"))
        .mount(&server)
        .await;
    let err = client(&server, 2).balance().await.expect_err("never answered");
    match &err {
        studio_client::Error::Api { status, code, .. } => assert_eq!((*status, code.as_str()), (429, "RATE_LIMITED")),
        other => panic!("expected the 429 refusal, got {other:?}"),
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 3, "max + 1 attempts");

    // Retrying off: one attempt.
    let server = MockServer::start().await;
    Mock::given(method("GET")).respond_with(refusal(429, "RATE_LIMITED")).mount(&server).await;
    let once = client(&server, 0).balance().await.expect_err("refused");
    assert_eq!(once.status(), Some(429));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn other_refusals_are_not_retried_and_keep_their_extras() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/toolkit/ai/billing/balance"))
        .respond_with(ResponseTemplate::new(402).set_body_json(
            json!({"error": "INSUFFICIENT_TOKENS", "message": "Not enough", "need": 13, "spendable": 4}),
        ))
        .mount(&server)
        .await;
    let err = client(&server, 3).balance().await.expect_err("refused");
    assert_eq!((err.code(), err.message()), (Some("INSUFFICIENT_TOKENS"), Some("Not enough")));
    assert_eq!((err.extra_i64("need"), err.extra_i64("spendable")), (Some(13), Some(4)));
    assert!(!err.is_retryable());
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn connection_failures_are_retried_for_gets() {
    // A port that was just free: nothing listens, every attempt is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let policy = RetryPolicy { max_retries: 2, base_delay: Duration::from_millis(200), ..RetryPolicy::default() };
    let client = Client::builder(format!("http://127.0.0.1:{port}")).retry_policy(policy).build().unwrap();
    let started = Instant::now();
    let err = client.health().await.expect_err("nobody listens");
    assert!(matches!(err, studio_client::Error::Transport(_)) && err.is_retryable(), "{err:?}");
    // Two backoffs: at least 100 ms + 200 ms (equal jitter keeps the lower half).
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());
    let started = Instant::now();
    client.sign_out().await.expect_err("nobody listens");
    assert!(started.elapsed() < Duration::from_millis(100), "a POST is not retried: {:?}", started.elapsed());
}

#[tokio::test]
async fn mcp_returns_the_body_or_none() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/mcp"))
        .and(wiremock::matchers::body_partial_json(json!({"method": "ping"})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": 1, "result": {}})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/mcp"))
        .and(wiremock::matchers::body_partial_json(json!({"method": "notifications/initialized"})))
        .respond_with(ResponseTemplate::new(202))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/api/mcp"))
        .and(wiremock::matchers::body_partial_json(json!({"method": "tools/list"})))
        .respond_with(
            ResponseTemplate::new(401).set_body_json(
                json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32001, "message": "Unauthorized"}}),
            ),
        )
        .mount(&server)
        .await;
    let client = client(&server, 3);
    let pong = client.mcp(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await.unwrap();
    assert_eq!(pong.unwrap()["id"], 1);
    let none = client.mcp(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.unwrap();
    assert!(none.is_none());
    let err = client.mcp(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await.expect_err("401");
    assert_eq!((err.status(), err.code(), err.extra_i64("rpcCode")), (Some(401), Some("UNAUTHORIZED"), Some(-32001)));
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].headers["authorization"], "Bearer studio_sk_test");
    assert_eq!(requests[0].headers["mcp-protocol-version"], studio_client::MCP_PROTOCOL_VERSION);
}

/// The futures of the public calls are Send, so they can be spawned.
#[allow(dead_code)]
fn futures_are_send(client: &Client, develop: &DevelopSubmit, check: &studio_client::PreflightCheck) {
    fn send<T: Send>(_: T) {}
    send(client.submit_develop(develop));
    send(client.preflight(check));
    send(client.upload_file("x".as_ref(), &Default::default()));
    send(client.upload_bytes("x.png", vec![1], &Default::default()));
    send(client.mcp(&Value::Null));
    send(client.balance());
    send(client.download_pack("p", "x".as_ref(), |_, _| {}));
    send(client.take_again(&TakesRequest::default()));
    send(client.events(0).next());
}
