//! Accounts and sessions: sign-up, sign-in, sign-out, session, check-email, origin checks.

use studio_tests::{Backend, PASSWORD, backend_tests, spawn, unique_email};

backend_tests!(
    sign_up_sign_in_session_sign_out,
    sign_up_refusals,
    check_email_never_refuses,
    cookie_writes_check_origin
);

async fn sign_up_sign_in_session_sign_out(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let email = unique_email("ada");
    let signed = app.client.sign_up(&email.to_uppercase(), PASSWORD, Some("Ada")).await.expect("sign up");
    assert_eq!(signed.account.user.email, email, "emails are stored lowercased");
    assert_eq!(signed.account.organization.name, "Ada's house");
    assert!(signed.session.starts_with("sess_"));

    let me = app.client.with_session(&signed.session).session().await.expect("session");
    assert_eq!(me.user.id, signed.account.user.id);
    assert_eq!(me.organization.id, signed.account.organization.id);
    assert_eq!(me.role, studio_client::api::SeatRole::Owner);

    let wrong = app.client.sign_in(&email, "not the password").await.expect_err("wrong password");
    let unknown = app.client.sign_in(&unique_email("nobody"), PASSWORD).await.expect_err("unknown email");
    for e in [&wrong, &unknown] {
        assert_eq!((e.status(), e.code()), (Some(401), Some("BAD_CREDENTIALS")));
    }
    assert_eq!(wrong.to_string(), unknown.to_string(), "the same answer for unknown email and wrong password");

    let again = app.client.sign_in(&email, PASSWORD).await.expect("sign in");
    assert_eq!(again.account.organization.id, signed.account.organization.id);
    let session = app.client.with_session(&again.session);
    assert!(session.sign_out().await.expect("sign out").signed_out);
    let after = session.session().await.expect_err("signed out");
    assert_eq!((after.status(), after.code()), (Some(401), Some("UNAUTHORIZED")));
    // The first session is untouched by signing out the second.
    assert!(app.client.with_session(&signed.session).session().await.is_ok());

    let nobody = app.client.session().await.expect_err("no credential");
    match nobody {
        studio_client::Error::Api { status: 401, message, .. } => assert_eq!(message, "No valid session"),
        other => panic!("expected 401, got {other:?}"),
    }
}

async fn sign_up_refusals(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let email = unique_email("taken");
    app.client.sign_up(&email, PASSWORD, None).await.expect("first sign up");
    let cases = [
        (email.as_str(), PASSWORD, 409, "EMAIL_TAKEN"),
        ("not-an-email", PASSWORD, 400, "BAD_EMAIL"),
        ("ada@example", PASSWORD, 400, "BAD_EMAIL"),
        ("short@example.com", "short", 400, "WEAK_PASSWORD"),
    ];
    for (email, password, status, code) in cases {
        let e = app.client.sign_up(email, password, None).await.expect_err(code);
        assert_eq!((e.status(), e.code()), (Some(status), Some(code)), "{email}");
    }
    // A malformed body gets the same envelope.
    let res = reqwest::Client::new()
        .post(format!("{}/api/auth/sign-up", app.base))
        .header("content-type", "application/json")
        .body("{\"email\": 42")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"], "BAD_BODY");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

async fn check_email_never_refuses(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let email = unique_email("known");
    app.client.sign_up(&email, PASSWORD, None).await.unwrap();
    let known = app.client.check_email(&email.to_uppercase()).await.unwrap();
    assert!(known.exists && known.has_password);
    let unknown = app.client.check_email(&unique_email("unknown")).await.unwrap();
    assert!(!unknown.exists && !unknown.has_password);
    let http = reqwest::Client::new();
    for body in ["{}", "not json", "{\"email\": 7}", ""] {
        let res = http.post(format!("{}/api/toolkit/check-email", app.base)).body(body).send().await.unwrap();
        assert_eq!(res.status(), 200, "body {body:?}");
        let v: serde_json::Value = res.json().await.unwrap();
        assert_eq!(v, serde_json::json!({"exists": false, "hasPassword": false}));
    }
}

async fn cookie_writes_check_origin(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let signed = app.client.sign_up(&unique_email("origin"), PASSWORD, None).await.unwrap();
    let http = reqwest::Client::new();
    let mint = |origin: Option<&str>| {
        let mut req = http
            .post(format!("{}/api/keys", app.base))
            .header("cookie", format!("studio_session={}", signed.session))
            .json(&serde_json::json!({"name": "from a page"}));
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        req.send()
    };
    let evil = mint(Some("https://evil.example")).await.unwrap();
    assert_eq!(evil.status(), 403);
    assert_eq!(evil.json::<serde_json::Value>().await.unwrap()["error"], "BAD_ORIGIN");
    assert_eq!(mint(Some(&app.base)).await.unwrap().status(), 200, "our own origin passes");
    assert_eq!(mint(None).await.unwrap().status(), 200, "no Origin (a command-line tool) passes");
    let keys = app.client.with_session(&signed.session).list_keys().await.unwrap();
    assert_eq!(keys.keys.len(), 2, "the refused request minted nothing");
}
