//! Billing over HTTP (spec §4.5): the catalog, checkouts, the portal, auto top-up and the signed
//! payment webhook as the only grant, end to end through the test-mode provider.

use std::sync::Arc;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use studio_client::api::KeyRole;
use studio_core::{CheckoutRow, MembershipRow, SessionRow};
use studio_tests::{Backend, PASSWORD, TestApp, backend_tests, spawn, unique_email};

backend_tests!(
    catalog_is_public_and_billing_off_answers_503,
    money_is_for_the_owners_session_only,
    checkout_codes_and_the_custom_rate,
    test_checkout_grants_once_end_to_end,
    webhooks_forged_stale_replayed_and_duplicate,
    autocharge_settings_codes,
    ambiguous_pack_price_is_a_conflict,
    concurrent_autocharge_runs_charge_once,
    autocharge_refusals_and_the_monthly_cap,
    failed_charge_rolls_the_reservation_back,
    provider_failures_answer_502,
    polar_checkout_and_order_paid_grant_once,
    the_plan_is_cancelled_only_once_the_provider_agrees,
);

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const WEBHOOK: &str = "/api/toolkit/ai/billing/webhook/provider";

/// A credential for raw requests.
#[derive(Clone)]
enum Cred {
    None,
    Session(String),
    Key(String),
}

/// An owner (session token, org id) in a fresh house.
struct Owner {
    session: String,
    org_id: studio_core::OrgId,
}

async fn call(app: &TestApp, method: &str, path: &str, cred: &Cred, body: Option<Value>) -> (u16, Value) {
    let http = reqwest::Client::new();
    let url = if path.starts_with("http") { path.to_string() } else { format!("{}{path}", app.base) };
    let mut req = http.request(method.parse().unwrap(), url);
    req = match cred {
        Cred::None => req,
        Cred::Session(s) => req.header("cookie", format!("studio_session={s}")),
        Cred::Key(k) => req.bearer_auth(k),
    };
    if let Some(body) = body {
        req = req.json(&body);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

fn code(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_default()
}

async fn app_with(backend: Backend, tweak: impl FnOnce(&mut studio_server::ServerConfig)) -> Option<TestApp> {
    spawn(backend, |c| {
        c.billing = "test".into();
        c.payments_webhook_secret = Some(SECRET.into());
        tweak(c);
    })
    .await
}

async fn owner(app: &TestApp) -> Owner {
    let signed = app.client.sign_up(&unique_email("owner"), PASSWORD, None).await.unwrap();
    let caller = app
        .studio
        .accounts()
        .authenticate_session(&studio_core::SessionToken(signed.session.clone()))
        .await
        .expect("session");
    Owner { session: signed.session, org_id: caller.org_id }
}

/// A session for a new person seated in `org_id` with `role`.
async fn seat(app: &TestApp, org_id: &str, role: &str) -> Cred {
    let signed = app.client.sign_up(&unique_email(role), PASSWORD, None).await.unwrap();
    let user_id: studio_core::UserId = signed.account.user.id.as_str().into();
    let now = chrono::Utc::now();
    let storage = app.studio.storage();
    storage
        .upsert_membership(MembershipRow {
            org_id: org_id.into(),
            user_id: user_id.clone(),
            role: role.into(),
            created_at: now,
        })
        .await
        .unwrap();
    let token = format!("seat-{}", uuid::Uuid::new_v4().simple());
    storage
        .insert_session(SessionRow {
            token_hash: hex::encode(Sha256::digest(token.as_bytes())),
            user_id,
            org_id: org_id.into(),
            created_at: now,
            expires_at: now + chrono::Duration::days(1),
        })
        .await
        .unwrap();
    Cred::Session(token)
}

async fn key(app: &TestApp, owner: &Owner, role: KeyRole) -> Cred {
    let minted = app.client.with_session(&owner.session).mint_key("k", Some(role)).await.unwrap();
    Cred::Key(minted.key.unwrap())
}

async fn balance(app: &TestApp, owner: &Owner) -> (i64, i64, i64) {
    let b = app.client.with_session(&owner.session).balance().await.unwrap();
    (b.balance, b.grant, b.topup)
}

/// Create a checkout and answer its URL and reference.
async fn checkout(app: &TestApp, owner: &Owner, path: &str, body: Value) -> (String, String) {
    let (status, res) = call(app, "POST", path, &Cred::Session(owner.session.clone()), Some(body)).await;
    assert_eq!(status, 200, "{res}");
    let url = res["url"].as_str().unwrap().to_string();
    let reference = url.rsplit('/').next().unwrap().to_string();
    (url, reference)
}

async fn pay(app: &TestApp, url: &str, query: &str) -> (u16, String) {
    let res = reqwest::Client::new().post(format!("{}{url}{query}", app.base)).send().await.unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

/// A Standard Webhooks delivery of `body`, signed with `secret` at `timestamp`.
async fn deliver(app: &TestApp, secret: &str, id: &str, timestamp: i64, body: &str) -> (u16, Value) {
    studio_tests::deliver_payment(app, secret, id, timestamp, body).await
}

fn succeeded(reference: &str, payment: &str) -> String {
    json!({"type": "payment.succeeded", "data": {"payment_id": payment, "customer": {"customer_id": "cus_hook"},
        "metadata": {"reference": reference}}})
    .to_string()
}

async fn catalog_is_public_and_billing_off_answers_503(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let (status, catalog) = call(&app, "GET", "/api/toolkit/ai/billing/catalog", &Cred::None, None).await;
    assert_eq!(status, 200);
    assert_eq!(catalog["provider"], "test");
    let slugs = |k: &str| catalog[k].as_array().unwrap().iter().map(|t| t["slug"].clone()).collect::<Vec<_>>();
    assert_eq!(slugs("tiers"), vec![json!("studio"), json!("editorial"), json!("couture")]);
    assert_eq!(slugs("packs"), vec![json!("pack_250"), json!("pack_1000"), json!("pack_3000")]);
    assert_eq!(catalog["packs"][0]["priceUsd"], 10.0, "the cheapest pack is ten dollars");
    assert_eq!(catalog["tiers"][1]["rolloverMultiple"], 2);
    assert_eq!(catalog["tiers"][1]["featured"], true);

    // The default: a server nobody configured billing on sells nothing.
    let off = spawn(backend, |c| c.payments_webhook_secret = Some(SECRET.into())).await.expect("app");
    let (status, catalog) = call(&off, "GET", "/api/toolkit/ai/billing/catalog", &Cred::None, None).await;
    assert_eq!((status, catalog["provider"].clone()), (200, Value::Null));
    let o = owner(&off).await;
    let s = Cred::Session(o.session.clone());
    for (method, path, body) in [
        ("POST", "/api/toolkit/ai/billing/checkout/topup", Some(json!({"pack": "pack_250"}))),
        ("POST", "/api/toolkit/ai/billing/checkout/subscription", Some(json!({"tier": "studio"}))),
        ("POST", "/api/toolkit/ai/billing/checkout/custom", Some(json!({"amountUsd": 20}))),
        ("POST", "/api/toolkit/ai/billing/portal", None),
        (
            "PUT",
            "/api/toolkit/ai/billing/autocharge",
            Some(json!({"enabled": true, "thresholdTokens": 10, "pack": "pack_250", "monthlyCapUsd": 50})),
        ),
        ("POST", "/api/toolkit/ai/billing/autocharge/run", None),
    ] {
        let (status, body) = call(&off, method, path, &s, body).await;
        assert_eq!((status, code(&body)), (503, "BILLING_NOT_CONFIGURED"), "{method} {path}");
    }
    let (status, body) =
        deliver(&off, SECRET, "msg_off", chrono::Utc::now().timestamp(), &succeeded("chk_x", "p")).await;
    assert_eq!((status, code(&body)), (503, "BILLING_NOT_CONFIGURED"));
    let (status, view) = call(&off, "GET", "/api/toolkit/ai/billing/autocharge", &s, None).await;
    assert_eq!((status, view["available"].clone()), (200, json!(false)));
    let (status, _) = call(&off, "GET", "/api/toolkit/ai/billing/test-checkout/chk_x", &Cred::None, None).await;
    assert_eq!(status, 404, "no test pages unless in test mode");
}

async fn money_is_for_the_owners_session_only(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let member_key = key(&app, &o, KeyRole::Member).await;
    let viewer_key = key(&app, &o, KeyRole::Viewer).await;
    let admin = seat(&app, &o.org_id, "admin").await;
    let member = seat(&app, &o.org_id, "member").await;
    let viewer = seat(&app, &o.org_id, "viewer").await;
    let money: [(&str, &str, Option<Value>); 5] = [
        ("POST", "/api/toolkit/ai/billing/checkout/topup", Some(json!({"pack": "pack_250"}))),
        ("POST", "/api/toolkit/ai/billing/checkout/subscription", Some(json!({"tier": "studio"}))),
        ("POST", "/api/toolkit/ai/billing/checkout/custom", Some(json!({"amountUsd": 20}))),
        ("POST", "/api/toolkit/ai/billing/portal", None),
        (
            "PUT",
            "/api/toolkit/ai/billing/autocharge",
            Some(json!({"enabled": true, "thresholdTokens": 10, "pack": "pack_250", "monthlyCapUsd": 50})),
        ),
    ];
    for cred in [&member_key, &viewer_key, &admin, &member, &viewer] {
        for (method, path, body) in &money {
            let (status, res) = call(&app, method, path, cred, body.clone()).await;
            assert_eq!((status, code(&res)), (403, "role_cannot_spend_money"), "{method} {path}");
        }
    }
    for (method, path, body) in &money {
        let (status, _) = call(&app, method, path, &Cred::None, body.clone()).await;
        assert_eq!(status, 401, "{method} {path} without a credential");
    }
    let run = "/api/toolkit/ai/billing/autocharge/run";
    for cred in [&viewer_key, &viewer] {
        let (status, res) = call(&app, "POST", run, cred, None).await;
        assert_eq!((status, code(&res)), (403, "role_cannot_spend_tokens"));
    }
    for cred in [&member_key, &member, &admin, &Cred::Session(o.session.clone())] {
        let (status, res) = call(&app, "POST", run, cred, None).await;
        assert_eq!((status, res["charged"].clone(), res["reason"].clone()), (200, json!(false), json!("disabled")));
    }
    // Reading auto top-up is for any member of the house; only the owner's session may arm it.
    let (status, view) = call(&app, "GET", "/api/toolkit/ai/billing/autocharge", &viewer_key, None).await;
    assert_eq!((status, view["canArm"].clone(), view["available"].clone()), (200, json!(false), json!(true)));
    assert_eq!(balance(&app, &o).await, (100, 100, 0), "nothing was bought or granted");
}

async fn checkout_codes_and_the_custom_rate(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let s = Cred::Session(o.session.clone());
    let topup = "/api/toolkit/ai/billing/checkout/topup";
    for bad in [json!({}), json!({"pack": "pack_9"}), json!({"pack": "studio"})] {
        let (status, res) = call(&app, "POST", topup, &s, Some(bad.clone())).await;
        assert_eq!((status, code(&res)), (400, "BAD_PACK"), "{bad}");
    }
    let sub = "/api/toolkit/ai/billing/checkout/subscription";
    for bad in [json!({}), json!({"tier": "gold"})] {
        let (status, res) = call(&app, "POST", sub, &s, Some(bad.clone())).await;
        assert_eq!((status, code(&res)), (400, "BAD_TIER"), "{bad}");
    }
    let custom = "/api/toolkit/ai/billing/checkout/custom";
    for bad in [json!({}), json!({"amountUsd": "20"}), json!({"amountUsd": -5}), json!({"amountUsd": 10.001})] {
        let (status, res) = call(&app, "POST", custom, &s, Some(bad.clone())).await;
        assert_eq!((status, code(&res)), (400, "BAD_AMOUNT"), "{bad}");
    }
    for out in [9.99, 5000.01, 0.5] {
        let (status, res) = call(&app, "POST", custom, &s, Some(json!({"amountUsd": out}))).await;
        assert_eq!((status, code(&res)), (400, "AMOUNT_OUT_OF_RANGE"), "{out}");
        assert_eq!((res["minCents"].clone(), res["maxCents"].clone()), (json!(1000), json!(500000)));
    }
    // The highest price per token of any active pack is pack_250's 4 cents: $10.50 → 262 tokens, $10.48.
    let (status, res) = call(&app, "POST", custom, &s, Some(json!({"amountUsd": 10.5}))).await;
    assert_eq!((status, res["tokens"].clone(), res["amountCents"].clone()), (200, json!(262), json!(1048)));
    let (status, res) = call(&app, "POST", custom, &s, Some(json!({"amountUsd": 5000}))).await;
    assert_eq!((status, res["tokens"].clone(), res["amountCents"].clone()), (200, json!(125000), json!(500000)));
    let (status, res) = call(&app, "POST", "/api/toolkit/ai/billing/portal", &s, None).await;
    assert_eq!((status, code(&res)), (400, "NO_CUSTOMER"));
    assert_eq!(balance(&app, &o).await, (100, 100, 0), "a checkout credits nothing");
}

async fn test_checkout_grants_once_end_to_end(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let (url, _) = checkout(&app, &o, "/api/toolkit/ai/billing/checkout/topup", json!({"pack": "pack_1000"})).await;
    let page = reqwest::get(format!("{}{url}", app.base)).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(html.contains("1000 tokens") && html.contains("$36.00"), "{html}");
    assert_eq!(balance(&app, &o).await, (100, 100, 0), "looking at the page grants nothing");

    let (status, html) = pay(&app, &url, "").await;
    assert_eq!(status, 200);
    assert!(html.contains("1000 tokens were granted"), "{html}");
    assert_eq!(balance(&app, &o).await, (1100, 100, 1000));
    let (status, html) = pay(&app, &url, "").await;
    assert_eq!(status, 200);
    assert!(html.contains("Already paid"), "{html}");
    assert_eq!(balance(&app, &o).await, (1100, 100, 1000), "confirming twice grants once");
    let again = reqwest::get(format!("{}{url}", app.base)).await.unwrap().text().await.unwrap();
    assert!(again.contains("already paid"));

    // Subscriptions fill the grant bucket, capped at monthly × rollover (editorial: 1,200 × 2).
    let (url, _) =
        checkout(&app, &o, "/api/toolkit/ai/billing/checkout/subscription", json!({"tier": "editorial"})).await;
    pay(&app, &url, "").await;
    assert_eq!(balance(&app, &o).await, (2300, 1300, 1000));
    let (url, _) =
        checkout(&app, &o, "/api/toolkit/ai/billing/checkout/subscription", json!({"tier": "editorial"})).await;
    pay(&app, &url, "").await;
    assert_eq!(balance(&app, &o).await, (3400, 2400, 1000), "the second month tops the bucket up to 2,400 only");

    // Custom: exactly the quantised tokens.
    let (url, _) = checkout(&app, &o, "/api/toolkit/ai/billing/checkout/custom", json!({"amountUsd": 10.5})).await;
    pay(&app, &url, "").await;
    assert_eq!(balance(&app, &o).await, (3662, 2400, 1262));

    // Having paid, the house has a customer and a portal.
    let (status, res) =
        call(&app, "POST", "/api/toolkit/ai/billing/portal", &Cred::Session(o.session.clone()), None).await;
    assert_eq!(status, 200, "{res}");
    let portal = reqwest::get(format!("{}{}", app.base, res["url"].as_str().unwrap())).await.unwrap();
    assert_eq!(portal.status(), 200);
    let (_, view) =
        call(&app, "GET", "/api/toolkit/ai/billing/autocharge", &Cred::Session(o.session.clone()), None).await;
    assert_eq!(
        (view["hasCard"].clone(), view["hasCustomer"].clone(), view["canArm"].clone()),
        (json!(true), json!(true), json!(true))
    );
    let audit = app.studio.storage().audit(&o.org_id).await.unwrap();
    assert_eq!(audit.topup_tokens, 1262, "the ledger agrees with the running totals");
}

async fn webhooks_forged_stale_replayed_and_duplicate(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let (_, reference) =
        checkout(&app, &o, "/api/toolkit/ai/billing/checkout/topup", json!({"pack": "pack_250"})).await;
    let now = chrono::Utc::now().timestamp();
    let body = succeeded(&reference, "pay_1");

    let forged = "whsec_".to_string() + "c29tZW9uZSBlbHNlJ3Mgc2VjcmV0";
    let (status, res) = deliver(&app, &forged, "msg_forged", now, &body).await;
    assert_eq!((status, code(&res)), (401, "BAD_SIGNATURE"));
    // Just past the tolerance, with a few seconds of slack: the server reads its own clock when
    // the delivery arrives, which on a loaded machine can be a second or two after `now`.
    let past = studio_core::TIMESTAMP_TOLERANCE_SECS + 5;
    let (status, res) = deliver(&app, SECRET, "msg_stale", now - past, &body).await;
    assert_eq!((status, code(&res)), (401, "BAD_SIGNATURE"), "stale");
    let (status, res) = deliver(&app, SECRET, "msg_future", now + past, &body).await;
    assert_eq!((status, code(&res)), (401, "BAD_SIGNATURE"), "from the future");
    let unsigned =
        reqwest::Client::new().post(format!("{}{WEBHOOK}", app.base)).body(body.clone()).send().await.unwrap();
    assert_eq!(unsigned.status(), 401);
    // A signature for another body does not carry over.
    let signature = studio_core::sign_webhook(SECRET, "msg_swap", now, b"{}").unwrap();
    let swapped = reqwest::Client::new()
        .post(format!("{}{WEBHOOK}", app.base))
        .header("webhook-id", "msg_swap")
        .header("webhook-timestamp", now.to_string())
        .header("webhook-signature", signature)
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(swapped.status(), 401);
    assert_eq!(balance(&app, &o).await, (100, 100, 0), "nothing refused granted anything");

    let (status, res) = deliver(&app, SECRET, "msg_garbage", now, "not json").await;
    assert_eq!((status, code(&res)), (400, "UNPARSEABLE"));
    let (status, res) = deliver(&app, SECRET, "msg_no_type", now, "{\"data\": {}}").await;
    assert_eq!((status, code(&res)), (400, "UNPARSEABLE"));
    let failed = json!({"type": "payment.failed", "data": {"metadata": {"reference": reference}}}).to_string();
    let (status, res) = deliver(&app, SECRET, "msg_failed", now, &failed).await;
    assert_eq!((status, res), (200, json!({"ok": true, "ignored": true})));
    let (status, res) = deliver(&app, SECRET, "msg_unknown", now, &succeeded("chk_not_ours", "pay_x")).await;
    assert_eq!((status, res), (200, json!({"ok": true, "ignored": true})));

    let (status, res) = deliver(&app, SECRET, "msg_real", now, &body).await;
    assert_eq!((status, res), (200, json!({"ok": true, "granted": 250})));
    assert_eq!(balance(&app, &o).await, (350, 100, 250));
    // A replay (same webhook-id, even re-signed later) and a second delivery of the same payment.
    let (status, res) = deliver(&app, SECRET, "msg_real", now + 5, &body).await;
    assert_eq!((status, res), (200, json!({"ok": true, "duplicate": true})));
    let (status, res) = deliver(&app, SECRET, "msg_again", now, &body).await;
    assert_eq!((status, res), (200, json!({"ok": true, "duplicate": true})));
    let (status, res) = deliver(&app, SECRET, "msg_other_payment", now, &succeeded(&reference, "pay_2")).await;
    assert_eq!((status, res), (200, json!({"ok": true, "duplicate": true})), "a reference paid twice grants once");
    // Concurrent deliveries of one payment under distinct ids: one grant.
    let (_, reference) =
        checkout(&app, &o, "/api/toolkit/ai/billing/checkout/topup", json!({"pack": "pack_250"})).await;
    let body = succeeded(&reference, "pay_3");
    let app = Arc::new(app);
    let runs = (0..6).map(|i| {
        let (app, body) = (app.clone(), body.clone());
        tokio::spawn(async move { deliver(&app, SECRET, &format!("msg_race_{i}"), now, &body).await })
    });
    let results = futures_util::future::join_all(runs).await;
    let granted = results.iter().filter(|r| r.as_ref().unwrap().1.get("granted").is_some()).count();
    assert_eq!(granted, 1, "{results:?}");
    assert_eq!(balance(&app, &o).await, (600, 100, 500));
}

fn settings(enabled: Value, threshold: Value, pack: Value, cap: Value) -> Value {
    json!({"enabled": enabled, "thresholdTokens": threshold, "pack": pack, "monthlyCapUsd": cap})
}

async fn autocharge_settings_codes(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let s = Cred::Session(o.session.clone());
    let path = "/api/toolkit/ai/billing/autocharge";
    let cases = [
        (json!({"thresholdTokens": 10, "pack": "pack_250", "monthlyCapUsd": 50}), "BAD_BODY"),
        (settings(json!("yes"), json!(10), json!("pack_250"), json!(50)), "BAD_BODY"),
        (json!({"enabled": true, "pack": "pack_250", "monthlyCapUsd": 50}), "BAD_THRESHOLD"),
        (settings(json!(true), json!(0), json!("pack_250"), json!(50)), "BAD_THRESHOLD"),
        (settings(json!(true), json!(2.5), json!("pack_250"), json!(50)), "BAD_THRESHOLD"),
        (settings(json!(true), json!(10), json!("pack_9"), json!(50)), "BAD_PACK"),
        (json!({"enabled": true, "thresholdTokens": 10, "monthlyCapUsd": 50}), "BAD_PACK"),
        (settings(json!(true), json!(10), json!("pack_250"), json!(-1)), "BAD_CAP"),
        (settings(json!(true), json!(10), json!("pack_250"), json!("50")), "BAD_CAP"),
        (settings(json!(true), json!(10), json!("pack_250"), json!(5000.01)), "BAD_CAP"),
        (json!({"enabled": true, "thresholdTokens": 10, "pack": "pack_250"}), "BAD_CAP"),
        (settings(json!(true), json!(10), json!("pack_1000"), json!(35.99)), "CAP_BELOW_REFILL"),
    ];
    for (body, expected) in cases {
        let (status, res) = call(&app, "PUT", path, &s, Some(body.clone())).await;
        assert_eq!((status, code(&res)), (400, expected), "{body}");
    }
    let (status, res) =
        call(&app, "PUT", path, &s, Some(settings(json!(true), json!(50), json!("pack_1000"), json!(36)))).await;
    assert_eq!(status, 200, "{res}");
    assert_eq!(
        res,
        json!({"ok": true, "settings": {"enabled": true, "thresholdTokens": 50, "refillCents": 3600,
            "refillPack": "pack_1000", "monthlyCapCents": 3600}})
    );
    let (_, view) = call(&app, "GET", path, &s, None).await;
    assert_eq!(view["settings"], res["settings"]);
    assert_eq!((view["hasCard"].clone(), view["canArm"].clone()), (json!(false), json!(false)));
    assert_eq!(view["packs"].as_array().unwrap().len(), 3);
    assert_eq!(view["limits"]["debounceMinutes"], 10);
    assert_eq!(view["thisMonth"]["spentCents"], 0);
}

async fn ambiguous_pack_price_is_a_conflict(backend: Backend) {
    let app = app_with(backend, |c| {
        c.billing_catalog.packs[1].price_cents = 1_000;
        c.billing_catalog.packs[2].active = false;
    })
    .await
    .expect("app");
    let (_, catalog) = call(&app, "GET", "/api/toolkit/ai/billing/catalog", &Cred::None, None).await;
    assert_eq!(catalog["packs"].as_array().unwrap().len(), 2, "inactive packs are not on sale");
    let o = owner(&app).await;
    let body = settings(json!(true), json!(10), json!("pack_250"), json!(50));
    let (status, res) =
        call(&app, "PUT", "/api/toolkit/ai/billing/autocharge", &Cred::Session(o.session.clone()), Some(body)).await;
    assert_eq!((status, code(&res)), (409, "AMBIGUOUS_PACK_PRICE"));
    let (status, res) = call(
        &app,
        "POST",
        "/api/toolkit/ai/billing/checkout/topup",
        &Cred::Session(o.session.clone()),
        Some(json!({"pack": "pack_3000"})),
    )
    .await;
    assert_eq!((status, code(&res)), (400, "BAD_PACK"), "an inactive pack is not sold");
}

/// An owner whose house paid once (card saved) and armed auto top-up with `threshold`.
async fn armed(app: &TestApp, threshold: i64, cap_usd: f64, card: &str) -> Owner {
    let o = owner(app).await;
    let (url, _) = checkout(app, &o, "/api/toolkit/ai/billing/checkout/topup", json!({"pack": "pack_250"})).await;
    assert_eq!(pay(app, &url, card).await.0, 200);
    let body = settings(json!(true), json!(threshold), json!("pack_250"), json!(cap_usd));
    let (status, res) =
        call(app, "PUT", "/api/toolkit/ai/billing/autocharge", &Cred::Session(o.session.clone()), Some(body)).await;
    assert_eq!(status, 200, "{res}");
    o
}

async fn concurrent_autocharge_runs_charge_once(backend: Backend) {
    let app = Arc::new(app_with(backend, |_| {}).await.expect("app"));
    let o = armed(&app, 100_000, 500.0, "").await;
    assert_eq!(balance(&app, &o).await, (350, 100, 250));
    let member = key(&app, &o, KeyRole::Member).await;
    let runs = (0..8).map(|_| {
        let (app, member) = (app.clone(), member.clone());
        tokio::spawn(async move { call(&app, "POST", "/api/toolkit/ai/billing/autocharge/run", &member, None).await })
    });
    let results: Vec<(u16, Value)> =
        futures_util::future::join_all(runs).await.into_iter().map(|r| r.unwrap()).collect();
    assert!(results.iter().all(|(status, _)| *status == 200), "{results:?}");
    let charged: Vec<&Value> = results.iter().map(|(_, r)| r).filter(|r| r["charged"] == true).collect();
    assert_eq!(charged.len(), 1, "{results:?}");
    assert_eq!(
        (charged[0]["pack"].clone(), charged[0]["tokens"].clone(), charged[0]["amountCents"].clone()),
        (json!("pack_250"), json!(250), json!(1000))
    );
    assert!(charged[0]["paymentId"].is_string());
    assert!(
        results.iter().filter(|(_, r)| r["charged"] == false).all(|(_, r)| r["reason"] == "debounced"),
        "{results:?}"
    );
    assert_eq!(balance(&app, &o).await, (600, 100, 500), "one refill granted through the webhook");
    let (_, view) = call(&app, "GET", "/api/toolkit/ai/billing/autocharge", &member, None).await;
    assert_eq!(view["charges"].as_array().unwrap().len(), 1);
    assert_eq!(view["thisMonth"]["spentCents"], 1000);
    assert!(view["lastChargeAt"].is_string());
}

async fn autocharge_refusals_and_the_monthly_cap(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let run = "/api/toolkit/ai/billing/autocharge/run";
    // Armed without a card: no_card.
    let o = owner(&app).await;
    let s = Cred::Session(o.session.clone());
    call(
        &app,
        "PUT",
        "/api/toolkit/ai/billing/autocharge",
        &s,
        Some(settings(json!(true), json!(500), json!("pack_250"), json!(50))),
    )
    .await;
    let (_, res) = call(&app, "POST", run, &s, None).await;
    assert_eq!(res["reason"], "no_card");
    // Above the threshold: nothing to do.
    let o = armed(&app, 10, 50.0, "").await;
    let (_, res) = call(&app, "POST", run, &Cred::Session(o.session.clone()), None).await;
    assert_eq!((res["charged"].clone(), res["reason"].clone()), (json!(false), json!("above_threshold")));
    // The ceiling: a charge earlier this month (outside the debounce) leaves no room for another.
    let o = armed(&app, 100_000, 10.0, "").await;
    let earlier = chrono::Utc::now() - chrono::Duration::minutes(11);
    app.studio
        .storage()
        .insert_checkout(CheckoutRow {
            reference: format!("chg_earlier_{}", uuid::Uuid::new_v4().simple()),
            org_id: o.org_id.clone(),
            user_id: None,
            kind: "autocharge".into(),
            item: "pack_250".into(),
            tokens: 250,
            amount_cents: 1000,
            grant_cap: None,
            status: studio_core::CheckoutStatus::Paid,
            provider_id: None,
            payment_id: None,
            created_at: earlier,
            paid_at: Some(earlier),
        })
        .await
        .unwrap();
    let (_, res) = call(&app, "POST", run, &Cred::Session(o.session.clone()), None).await;
    assert_eq!((res["charged"].clone(), res["reason"].clone()), (json!(false), json!("monthly_cap")));
    // Disarmed: disabled.
    let s = Cred::Session(o.session.clone());
    call(
        &app,
        "PUT",
        "/api/toolkit/ai/billing/autocharge",
        &s,
        Some(settings(json!(false), json!(100_000), json!("pack_250"), json!(50))),
    )
    .await;
    let (_, res) = call(&app, "POST", run, &s, None).await;
    assert_eq!(res["reason"], "disabled");
}

async fn failed_charge_rolls_the_reservation_back(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = armed(&app, 100_000, 500.0, "?card=decline").await;
    let s = Cred::Session(o.session.clone());
    let before = balance(&app, &o).await;
    for _ in 0..2 {
        let (status, res) = call(&app, "POST", "/api/toolkit/ai/billing/autocharge/run", &s, None).await;
        assert_eq!((status, code(&res)), (502, "charge_failed"), "{res}");
    }
    assert_eq!(balance(&app, &o).await, before, "nothing granted");
    let (_, view) = call(&app, "GET", "/api/toolkit/ai/billing/autocharge", &s, None).await;
    assert_eq!(view["charges"], json!([]), "a failed charge counts for neither the debounce nor the ceiling");
    assert_eq!(view["thisMonth"]["spentCents"], 0);
}

/// A provider that fails as told.
#[derive(Debug)]
struct Broken {
    portal: Result<String, studio_core::PaymentsError>,
}

/// What `async_trait` expands a provider method's future to.
type Answer<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, studio_core::PaymentsError>> + Send + 'a>>;

impl studio_core::PaymentsProvider for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }

    fn webhook_secret(&self) -> &str {
        SECRET
    }

    fn create_checkout<'s, 'r, 'a>(&'s self, _: &'r studio_core::CheckoutRequest) -> Answer<'a, studio_core::Checkout>
    where
        's: 'a,
        'r: 'a,
        Self: 'a,
    {
        Box::pin(async { Err(studio_core::PaymentsError::Failed("down".into())) })
    }

    fn portal<'s, 'r, 'a>(&'s self, _: &'r str) -> Answer<'a, String>
    where
        's: 'a,
        'r: 'a,
        Self: 'a,
    {
        let answer = self.portal.clone();
        Box::pin(async move { answer })
    }

    fn charge<'s, 'r, 'a>(&'s self, _: &'r studio_core::ChargeRequest) -> Answer<'a, String>
    where
        's: 'a,
        'r: 'a,
        Self: 'a,
    {
        Box::pin(async { Err(studio_core::PaymentsError::Failed("down".into())) })
    }

    fn set_customer_email<'s, 'r, 'e, 'a>(&'s self, _: &'r str, _: &'e str) -> Answer<'a, ()>
    where
        's: 'a,
        'r: 'a,
        'e: 'a,
        Self: 'a,
    {
        Box::pin(async { Err(studio_core::PaymentsError::Failed("down".into())) })
    }

    fn cancel_subscription<'s, 'r, 'a>(&'s self, _: &'r str) -> Answer<'a, ()>
    where
        's: 'a,
        'r: 'a,
        Self: 'a,
    {
        Box::pin(async { Err(studio_core::PaymentsError::Failed("down".into())) })
    }
}

async fn provider_failures_answer_502(backend: Backend) {
    let app = app_with(backend, |_| {}).await.expect("app");
    let o = armed(&app, 10, 50.0, "").await;
    let token = studio_core::SessionToken(o.session.clone());
    for (portal, expected) in [
        (Err(studio_core::PaymentsError::Failed("down".into())), "PORTAL_FAILED"),
        (Err(studio_core::PaymentsError::Incomplete("no url".into())), "PORTAL_NO_URL"),
        (Ok(String::new()), "PORTAL_NO_URL"),
    ] {
        let config = studio_core::CoreConfig {
            payments: Some(Arc::new(Broken { portal })),
            ..studio_core::CoreConfig::default()
        };
        let studio = studio_core::Studio::new(app.studio.storage().clone(), app.studio.blobs().clone(), config);
        let caller = studio.accounts().authenticate_session(&token).await.unwrap();
        let e = studio.billing().billing_portal(&caller).await.unwrap_err();
        assert_eq!((e.kind, e.code), (studio_core::ErrorKind::Upstream, expected));
        let e = studio
            .billing()
            .checkout_topup(&caller, studio_core::api::TopupCheckoutRequest { pack: Some("pack_250".into()) })
            .await
            .unwrap_err();
        assert_eq!((e.kind, e.code), (studio_core::ErrorKind::Upstream, "CHECKOUT_FAILED"));
    }
    assert_eq!(balance(&app, &o).await, (350, 100, 250));
}

/// The Polar adapter end to end against a local mock of Polar's API: the checkout goes to
/// Polar with our reference in its metadata, and Polar's signed `order.paid` grants once.
async fn polar_checkout_and_order_paid_grant_once(backend: Backend) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let polar = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/checkouts/"))
        .respond_with(
            ResponseTemplate::new(201)
                .set_body_json(json!({"id": "polar_chk_1", "url": "https://polar.example/checkout/polar_chk_1"})),
        )
        .expect(1)
        .mount(&polar)
        .await;
    let uri = polar.uri();
    let app = app_with(backend, move |c| {
        c.billing = "polar".into();
        c.polar_token = Some("polar_oat_test".into());
        c.polar_url = Some(uri);
        c.polar_products = [("pack_1000".to_string(), "prod_1000".to_string())].into_iter().collect();
    })
    .await
    .expect("app");
    let owner = owner(&app).await;
    let (url, _) = checkout(&app, &owner, "/api/toolkit/ai/billing/checkout/topup", json!({"pack": "pack_1000"})).await;
    assert_eq!(url, "https://polar.example/checkout/polar_chk_1");
    let sent: Value = serde_json::from_slice(&polar.received_requests().await.unwrap()[0].body).unwrap();
    let reference = sent["metadata"]["reference"].as_str().expect("our reference rides in the metadata").to_string();
    assert_eq!(sent["product_id"].as_str().or(sent["products"][0].as_str()), Some("prod_1000"), "{sent}");

    let before = balance(&app, &owner).await;
    let order = json!({"type": "order.paid", "data": {"id": "ord_1", "customer_id": "cus_polar",
        "metadata": {"reference": reference}}})
    .to_string();
    let now = chrono::Utc::now().timestamp();
    let (status, ack) = deliver(&app, SECRET, "msg_polar_1", now, &order).await;
    assert_eq!((status, ack["granted"].as_i64()), (200, Some(1000)), "{ack}");
    assert_eq!(balance(&app, &owner).await.2, before.2 + 1000);
    // Polar redelivers with a new webhook id: the order still grants once.
    let (status, ack) = deliver(&app, SECRET, "msg_polar_2", now, &order).await;
    assert_eq!((status, ack["duplicate"].as_bool()), (200, Some(true)), "{ack}");
    // Its other events are acknowledged and grant nothing.
    let other = json!({"type": "order.created", "data": {"id": "ord_2", "metadata": {"reference": reference}}});
    let (_, ack) = deliver(&app, SECRET, "msg_polar_3", now, &other.to_string()).await;
    assert_eq!(ack["ignored"].as_bool(), Some(true));
    assert_eq!(balance(&app, &owner).await.2, before.2 + 1000);
}

/// `POST /api/account/plan/cancel`: 503 with billing off, 404 without a plan, the provider told
/// first (its refusal is 502 and leaves the plan renewing), then `canceled` until `renewsAt`.
async fn the_plan_is_cancelled_only_once_the_provider_agrees(backend: Backend) {
    let off = spawn(backend, |_| {}).await.expect("app");
    let signed = off.client.sign_up(&unique_email("plan-off"), PASSWORD, None).await.unwrap();
    let e = off.client.with_session(&signed.session).cancel_plan().await.expect_err("billing off");
    assert_eq!((e.status(), e.code()), (Some(503), Some("BILLING_NOT_CONFIGURED")));

    let app = app_with(backend, |_| {}).await.expect("app");
    let o = owner(&app).await;
    let client = app.client.with_session(&o.session);
    let o_email = client.account(None).await.unwrap().profile.email;
    let e = client.cancel_plan().await.expect_err("no plan");
    assert_eq!((e.status(), e.code()), (Some(404), Some("NO_ACTIVE_PLAN")));
    let (url, _) =
        checkout(&app, &o, "/api/toolkit/ai/billing/checkout/subscription", json!({"tier": "editorial"})).await;
    pay(&app, &url, "").await;
    let plan = client.account(None).await.unwrap().plan.expect("a plan once paid");
    assert_eq!((plan.tier.as_str(), plan.status.as_str(), plan.monthly_tokens), ("editorial", "active", 1200));
    let member = seat(&app, &o.org_id, "member").await;
    let Cred::Session(member) = member else { unreachable!("a session") };
    let e = app.client.with_session(&member).cancel_plan().await.expect_err("not the owner");
    assert_eq!(e.status(), Some(403));

    // A provider that refuses: 502, and the plan still renews.
    let config = studio_core::CoreConfig {
        payments: Some(Arc::new(Broken { portal: Ok(String::new()) })),
        ..studio_core::CoreConfig::default()
    };
    let studio = studio_core::Studio::new(app.studio.storage().clone(), app.studio.blobs().clone(), config);
    let caller = studio.accounts().authenticate_session(&studio_core::SessionToken(o.session.clone())).await.unwrap();
    let e = studio.billing().cancel_plan(&caller).await.unwrap_err();
    assert_eq!((e.kind, e.code), (studio_core::ErrorKind::Upstream, "CANCEL_FAILED"));
    // The house is now the provider's customer: a new billing email is told to it first.
    let req = studio_core::api::BillingEmailRequest { email: "books@maison.example".into() };
    let e = studio.accounts().set_billing_email(&caller, req).await.unwrap_err();
    assert_eq!((e.kind, e.code), (studio_core::ErrorKind::Upstream, "BILLING_EMAIL_FAILED"));
    assert_eq!(client.account(None).await.unwrap().billing.email.as_deref(), Some(o_email.as_str()), "unchanged");
    assert_eq!(
        client.set_billing_email("books@maison.example").await.expect("test mode takes it").email,
        "books@maison.example"
    );
    assert_eq!(client.account(None).await.unwrap().plan.unwrap().status, "active", "nothing changed");

    let e = client.erase_me().await.expect_err("a renewing plan");
    assert_eq!((e.status(), e.code()), (Some(409), Some("PLAN_ACTIVE")));
    let canceled = client.cancel_plan().await.expect("cancel");
    assert_eq!((canceled.status.as_str(), canceled.ends_at), ("canceled", plan.renews_at));
    let again = client.cancel_plan().await.expect("cancelling twice answers the same");
    assert_eq!(again, canceled);
    let after = client.account(None).await.unwrap();
    assert_eq!(after.plan.unwrap().status, "canceled");
    assert_eq!(after.tokens.grant, 100 + 1200, "tokens already granted stay");
    assert_eq!(after.invoices.len(), 1);
    assert_eq!((after.invoices[0].kind.as_str(), after.invoices[0].item.as_str()), ("subscription", "editorial"));
}
