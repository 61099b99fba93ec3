//! The per-address rate limit on the routes that take no credential: past the burst they answer
//! 429 with `Retry-After` and `{"error": "RATE_LIMITED", "message", "retryAfter"}`; another
//! address, and routes outside the limit, are unaffected; `X-Forwarded-For` counts only when
//! the deployment trusts its proxy; 0 turns the limit off. The limit refills one request a
//! minute here, so nothing in these tests depends on how fast the machine is.

use std::net::IpAddr;

use serde_json::{Value, json};
use studio_tests::{Backend, TestApp, spawn, unique_email};

const BURST: u32 = 3;

async fn limited_app(tweak: impl FnOnce(&mut studio_server::ServerConfig)) -> TestApp {
    spawn(Backend::Sqlite, |c| {
        c.rate_limit_per_min = 1;
        c.rate_limit_burst = BURST;
        tweak(c);
    })
    .await
    .expect("app")
}

/// POST sign-out (no session: 200) from `http`, optionally claiming to be `forwarded_for`.
async fn sign_out(http: &reqwest::Client, app: &TestApp, forwarded_for: Option<&str>) -> reqwest::Response {
    let mut req = http.post(format!("{}/api/auth/sign-out", app.base));
    if let Some(address) = forwarded_for {
        req = req.header("x-forwarded-for", address);
    }
    req.send().await.expect("send")
}

/// Spend the burst of the caller's address, each answered 200; the next is refused.
async fn exhaust(http: &reqwest::Client, app: &TestApp, forwarded_for: Option<&str>) -> reqwest::Response {
    for i in 0..BURST {
        let res = sign_out(http, app, forwarded_for).await;
        assert_eq!(res.status(), 200, "request {i} is within the burst");
    }
    sign_out(http, app, forwarded_for).await
}

/// A client whose connections come from another loopback address.
fn from_address(address: &str) -> reqwest::Client {
    reqwest::Client::builder().local_address(address.parse::<IpAddr>().ok()).build().expect("client")
}

#[tokio::test]
async fn past_the_burst_an_address_gets_429_with_retry_after() {
    let app = limited_app(|_| {}).await;
    let http = reqwest::Client::new();
    let refused = exhaust(&http, &app, None).await;
    assert_eq!(refused.status(), 429);
    let retry_after: u64 = refused.headers()["retry-after"].to_str().unwrap().parse().expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry_after), "one request a minute refills within 60 s: {retry_after}");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "RATE_LIMITED");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(body["retryAfter"], json!(retry_after), "the body repeats Retry-After");

    // One bucket per address across the limited routes: sign-in and sign-up are refused too,
    // before any password is checked or any house made.
    let email = unique_email("limited");
    let sign_up = http
        .post(format!("{}/api/auth/sign-up", app.base))
        .json(&json!({ "email": email, "password": "a long enough password" }))
        .send()
        .await
        .unwrap();
    assert_eq!(sign_up.status(), 429);
    let made = app.client.sign_in(&email, "a long enough password").await;
    assert_eq!(made.expect_err("still limited").code(), Some("RATE_LIMITED"), "the client reports the code");
    // The platform gate's public doors share the bucket: nothing is redeemed, asked or fetched.
    for (route, body) in [
        ("invite/redeem", json!({ "code": "VIP-ABCDEF", "email": email })),
        ("invite/request", json!({ "email": email })),
        ("invite/preview", json!({ "links": ["https://maison.example/"] })),
    ] {
        let res = http.post(format!("{}/api/toolkit/{route}", app.base)).json(&body).send().await.unwrap();
        assert_eq!(res.status(), 429, "{route} is limited per address");
    }

    // Routes outside the limit answer as usual from the same address.
    assert_eq!(http.get(format!("{}/health", app.base)).send().await.unwrap().status(), 200);
    let catalog = http.get(format!("{}/api/toolkit/ai/billing/catalog", app.base)).send().await.unwrap();
    assert_eq!(catalog.status(), 200);
    let balance = http.get(format!("{}/api/toolkit/ai/billing/balance", app.base)).send().await.unwrap();
    assert_eq!(balance.status(), 401, "a credentialed route is not limited by address");

    // Another address has its own bucket: it signs up.
    let other = from_address("127.0.0.2");
    let res = other
        .post(format!("{}/api/auth/sign-up", app.base))
        .json(&json!({ "email": email, "password": "a long enough password" }))
        .send()
        .await
        .expect("connect from 127.0.0.2");
    assert_eq!(res.status(), 201, "another address is unaffected");
    assert_eq!(sign_out(&http, &app, None).await.status(), 429, "the first address is still limited");
}

#[tokio::test]
async fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
    // Not trusted: the header is the client's own claim, so changing it does not help.
    let app = limited_app(|_| {}).await;
    let http = reqwest::Client::new();
    assert_eq!(exhaust(&http, &app, Some("203.0.113.1")).await.status(), 429);
    assert_eq!(sign_out(&http, &app, Some("203.0.113.2")).await.status(), 429, "a forged header is ignored");

    // Trusted: the proxy's entry (the last one) is the client.
    let app = limited_app(|c| c.trust_forwarded = true).await;
    assert_eq!(exhaust(&http, &app, Some("203.0.113.1")).await.status(), 429);
    assert_eq!(sign_out(&http, &app, Some("203.0.113.2")).await.status(), 200, "another client of the proxy");
    let forged = sign_out(&http, &app, Some("198.51.100.9, 203.0.113.1")).await;
    assert_eq!(forged.status(), 429, "what the client put before the proxy's entry does not count");
}

#[tokio::test]
async fn zero_turns_the_limit_off() {
    let app = spawn(Backend::Sqlite, |c| {
        c.rate_limit_per_min = 0;
        c.rate_limit_burst = 1;
    })
    .await
    .expect("app");
    let http = reqwest::Client::new();
    for _ in 0..3 * BURST {
        assert_eq!(sign_out(&http, &app, None).await.status(), 200);
    }
}

/// check-email shares the address's bucket but never answers 4xx: a burst of 200 calls is all
/// 200, and past the limit even an existing address reads as unknown, so the burst learns
/// nothing.
#[tokio::test]
async fn check_email_never_answers_4xx_under_a_burst() {
    let app = limited_app(|_| {}).await;
    let email = unique_email("known");
    let other = from_address("127.0.0.3");
    let made = other
        .post(format!("{}/api/auth/sign-up", app.base))
        .json(&json!({ "email": email, "password": "a long enough password" }))
        .send()
        .await
        .expect("sign up from another address");
    assert_eq!(made.status(), 201);
    let http = reqwest::Client::new();
    let mut answers = Vec::new();
    for _ in 0..200 {
        let res = http
            .post(format!("{}/api/toolkit/check-email", app.base))
            .json(&json!({ "email": email }))
            .send()
            .await
            .expect("send");
        assert_eq!(res.status(), 200, "check-email never answers 4xx");
        let body: Value = res.json().await.expect("json");
        answers.push((body["exists"].as_bool(), body["hasPassword"].as_bool()));
    }
    assert!(answers[..BURST as usize].iter().all(|a| *a == (Some(true), Some(true))), "within the burst: the truth");
    assert!(answers[BURST as usize..].iter().all(|a| *a == (Some(false), Some(false))), "past it: nothing to learn");
}
