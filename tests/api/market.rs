//! The casting board and its market (§4.7) on both backends: board order and exclusive
//! visibility across houses, checkout double clicks, two houses racing for one exclusive face,
//! the signed payment webhook as the only grant, a late payment for a lapsed claim refunded
//! (never a second owner), trait merging and identity order, free takes and the admin catalog.

use serde_json::{Value, json};
use studio_client::api::{
    CastModelRequest, KeyRole, ModelPatch, OfferingCreate, Quality, RevokeEntitlement, SeatRole, TraitValue,
};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::png;
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};

backend_tests!(
    board_order_and_exclusive_visibility,
    checkout_double_click_and_refusals,
    two_houses_race_for_one_exclusive_face,
    the_signed_webhook_is_the_only_grant,
    a_late_payment_for_a_lapsed_claim_never_makes_two_owners,
    traits_merge_and_sheets_go_before_the_originals,
    free_takes_and_the_admin_catalog,
    polar_sells_a_face_refunds_a_late_payment_and_releases_a_failed_checkout,
);

const SECRET: &str = "whsec_bWFya2V0IHRlc3RzIHNpZ24gd2l0aCB0aGlz";

async fn market_app(backend: Backend, claim_secs: i64) -> Option<TestApp> {
    spawn(backend, |c| {
        c.billing = "test".into();
        c.payments_webhook_secret = Some(SECRET.into());
        c.billing_catalog.claim_secs = claim_secs;
        c.runner_concurrency = 0;
    })
    .await
}

async fn upload(house: &House) -> String {
    house.key.upload_bytes("face.png", png(24, 32), &UploadOptions::default()).await.expect("upload").asset.id
}

/// A house whose owner is a platform admin (the operator marks the address).
async fn admin_house(app: &TestApp) -> House {
    let house = House::new(app, "catalog").await;
    app.studio.admin().operator().add_admin(&house.email).await.expect("admin");
    house
}

/// Publish a model from a fresh frame of the admin's house; its id.
async fn publish(admin: &House, name: &str, price_cents: i64, exclusive: bool) -> String {
    let frame = upload(admin).await;
    let req = OfferingCreate {
        kind: "model".into(),
        name: name.into(),
        price_cents,
        exclusive,
        asset_ids: vec![frame],
        ..OfferingCreate::default()
    };
    admin.session.admin_create_offering(&req).await.expect("publish").offering.id
}

/// Keep a model of the house's own frames; its id.
async fn own(house: &House, name: &str) -> String {
    let frame = upload(house).await;
    let req = CastModelRequest { name: name.into(), asset_ids: vec![frame], ..CastModelRequest::default() };
    house.session.own_model(&req).await.expect("own").model.id
}

fn ids(client_models: &[studio_client::api::Model]) -> Vec<&str> {
    client_models.iter().map(|m| m.id.as_str()).collect()
}

/// Press "Pay" on a test-mode checkout: the page's confirmation, which signs a
/// `payment.succeeded` and hands it to the webhook's own path; its acknowledgement.
async fn pay(app: &TestApp, url: &str) -> Value {
    let reference = url.rsplit('/').next().unwrap();
    serde_json::to_value(app.studio.billing().confirm_test_checkout(reference, false).await.expect("confirm")).unwrap()
}

fn err(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn board_order_and_exclusive_visibility(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let admin = admin_house(&app).await;
    let free = publish(&admin, "Free face", 0, false).await;
    let sale = publish(&admin, "Sale face", 1500, false).await;
    let excl = publish(&admin, "Exclusive face", 9900, true).await;
    let free_newer = publish(&admin, "Newer free face", 0, false).await;
    let a = House::new(&app, "board-a").await;
    let b = House::new(&app, "board-b").await;
    let mine = own(&a, "Our own").await;

    let board = a.key.models().await.expect("board").models;
    assert_eq!(ids(&board), vec![mine.as_str(), &free_newer, &free, &sale, &excl], "yours, free, sale, exclusive");
    let first = &board[0];
    assert!(first.mine && first.usable && !first.owned && first.tier == "yours");
    let sold = board.iter().find(|m| m.id == sale).unwrap();
    assert!(!sold.mine && !sold.owned && !sold.usable && sold.asset_ids.is_empty(), "a catalog face shows no ids");
    assert!(sold.cover_url.ends_with(&format!("/api/toolkit/models/{sale}/preview/0")));
    assert!(!a.key.model_preview(&sale, 0).await.expect("preview").is_empty());
    assert!(board.iter().find(|m| m.id == free).unwrap().usable, "a free face is usable without taking it");

    // B cannot see A's own model; A claims the exclusive face and it leaves B's board.
    assert_eq!(err(&b.key.model(&mine).await.expect_err("foreign")), (Some(404), Some("NOT_FOUND")));
    let checkout = a.session.checkout_model(&excl).await.expect("checkout");
    assert!(!checkout.pending && checkout.url.contains("/test-checkout/clm_"));
    let b_board = b.key.models().await.expect("b board").models;
    assert!(!ids(&b_board).contains(&excl.as_str()), "under A's live claim the face is absent for B");
    assert_eq!(err(&b.key.model(&excl).await.expect_err("claimed elsewhere")), (Some(404), Some("NOT_FOUND")));
    assert!(a.key.models().await.expect("a").models.iter().any(|m| m.id == excl), "A still sees it");
    // B saw the face a minute ago: its checkout and take say what happened (409), not "no such model".
    let pending = (Some(409), Some("CHECKOUT_PENDING"));
    assert_eq!(err(&b.session.checkout_model(&excl).await.expect_err("claimed elsewhere")), pending);
    assert_eq!(err(&b.session.take_offering("model", &excl).await.expect_err("claimed elsewhere")), pending);
    assert_eq!(err(&b.key.take_offering("model", &excl).await.expect_err("a key")).0, Some(403), "role first");

    // Paid: A holds it (yours group, exclusiveYours); B still never sees it.
    let ack = pay(&app, &checkout.url).await;
    assert!(ack["entitlement"].as_str().is_some_and(|e| e.starts_with("ent_")), "{ack}");
    let board = a.key.models().await.expect("board").models;
    assert_eq!(ids(&board)[..2], [mine.as_str(), excl.as_str()], "held faces join the house's own group");
    assert!(board[1].owned && board[1].exclusive_yours && board[1].usable);
    assert!(!ids(&b.key.models().await.expect("b").models).contains(&excl.as_str()));
    let taken = (Some(409), Some("TAKEN"));
    assert_eq!(err(&b.session.checkout_model(&excl).await.expect_err("held elsewhere")), taken);
    assert_eq!(err(&b.session.take_offering("model", &excl).await.expect_err("held elsewhere")), taken);
    // 404 stays for an id that is no offering at all, and for another house's own model.
    let unknown = (Some(404), Some("NOT_FOUND"));
    assert_eq!(err(&b.session.checkout_model("mdl_nope").await.expect_err("unknown")), unknown);
    assert_eq!(err(&b.session.take_offering("model", "mdl_nope").await.expect_err("unknown")), unknown);
    assert_eq!(err(&b.session.checkout_model(&mine).await.expect_err("A's own")), unknown);
    assert_eq!(err(&b.session.take_offering("model", &mine).await.expect_err("A's own")), unknown);
    assert!(b.session.entitlements().await.expect("b").open.is_empty(), "B's refusals claimed nothing");
}

async fn checkout_double_click_and_refusals(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let admin = admin_house(&app).await;
    let free = publish(&admin, "Free face", 0, false).await;
    let sale = publish(&admin, "Sale face", 1500, false).await;
    let a = House::new(&app, "click").await;
    let mine = own(&a, "Ours").await;

    let first = a.session.checkout_model(&sale).await.expect("first click");
    let second = a.session.checkout_model(&sale).await.expect("second click");
    assert_eq!((first.pending, second.pending), (false, true));
    assert_eq!(first.url, second.url, "a double click answers the same checkout");
    assert_eq!(first.model.price_cents, 1500);
    let held = a.session.entitlements().await.expect("entitlements");
    assert!(held.holdings.is_empty(), "a checkout grants nothing");
    assert_eq!(held.open.len(), 1);
    assert_eq!(
        (held.open[0].offering_id.as_str(), held.open[0].checkout_url.as_str()),
        (sale.as_str(), first.url.as_str())
    );

    // Refusals, each creating nothing.
    assert_eq!(
        err(&a.key.checkout_model(&sale).await.expect_err("a key")),
        (Some(403), Some("role_cannot_spend_money"))
    );
    let member = a.seat(&app, "click-member", SeatRole::Member).await;
    assert_eq!(err(&member.session.checkout_model(&sale).await.expect_err("member")).0, Some(403));
    assert_eq!(err(&a.session.checkout_model(&free).await.expect_err("free")), (Some(400), Some("FREE_MODEL")));
    assert_eq!(err(&a.session.checkout_model(&mine).await.expect_err("own")), (Some(400), Some("ALREADY_YOURS")));
    assert_eq!(err(&a.session.checkout_model("mdl_nope").await.expect_err("unknown")).0, Some(404));
    assert_eq!(a.session.entitlements().await.expect("entitlements").open.len(), 1);

    // Billing off: 503 after the role check.
    let Some(off) = spawn(backend, |_| {}).await else { return };
    let admin = admin_house(&off).await;
    let sale = publish(&admin, "Sale face", 1500, false).await;
    let c = House::new(&off, "click-off").await;
    let e = c.session.checkout_model(&sale).await.expect_err("billing off");
    assert_eq!(err(&e), (Some(503), Some("BILLING_NOT_CONFIGURED")));
}

async fn two_houses_race_for_one_exclusive_face(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let admin = admin_house(&app).await;
    let a = House::new(&app, "race-a").await;
    let b = House::new(&app, "race-b").await;
    for round in 0..20 {
        let face = publish(&admin, &format!("Face {round}"), 5000, true).await;
        let (ra, rb) = tokio::join!(a.session.checkout_model(&face), b.session.checkout_model(&face));
        let won = [&ra, &rb].iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "round {round}: exactly one house claims the face");
        for r in [&ra, &rb] {
            if let Err(e) = r {
                let code = err(e);
                assert!(matches!(code, (Some(409), Some("TAKEN" | "CHECKOUT_PENDING"))), "round {round}: {e}");
            }
        }
        let open = |e: studio_client::api::Entitlements| e.open.iter().filter(|o| o.offering_id == face).count();
        let claims = open(a.session.entitlements().await.unwrap()) + open(b.session.entitlements().await.unwrap());
        assert_eq!(claims, 1, "round {round}: one live claim in all");
    }
}

async fn the_signed_webhook_is_the_only_grant(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let admin = admin_house(&app).await;
    let sale = publish(&admin, "Sale face", 2500, false).await;
    let a = House::new(&app, "grant").await;
    let checkout = a.session.checkout_model(&sale).await.expect("checkout");

    // The browser's return to the checkout page, and a forged delivery, grant nothing.
    let page = reqwest::get(format!("{}{}", app.base, checkout.url)).await.expect("page");
    assert_eq!(page.status().as_u16(), 200);
    let reference = checkout.url.rsplit('/').next().unwrap().to_string();
    let body = json!({"type": "payment.succeeded", "data": {"payment_id": "pay_forged", "metadata": {"reference": reference}}});
    let forged = reqwest::Client::new()
        .post(format!("{}/api/toolkit/ai/billing/webhook/provider", app.base))
        .header("webhook-id", "msg_forged")
        .header("webhook-timestamp", chrono::Utc::now().timestamp().to_string())
        .header("webhook-signature", "v1,Zm9yZ2Vk")
        .json(&body)
        .send()
        .await
        .expect("forged");
    assert_eq!(forged.status().as_u16(), 401);
    assert!(a.session.entitlements().await.unwrap().holdings.is_empty(), "only the signed payment grants");
    let develop = DevelopSubmit::new("upscale").input("image", InputSource::Asset(sale.clone())).quality(Quality::K1);
    assert_eq!(err(&a.key.submit_develop(&develop).await.expect_err("not yet usable")).0, Some(404));

    // The payer presses "Pay" on the page: the signed delivery grants a purchase holding with
    // the payment's reference, once.
    let res = reqwest::Client::new().post(format!("{}{}", app.base, checkout.url)).send().await.expect("pay");
    assert_eq!(res.status().as_u16(), 200);
    assert!(res.text().await.unwrap().contains("now the house's"));
    let again = pay(&app, &checkout.url).await;
    assert_eq!(again["duplicate"], json!(true), "a second delivery grants nothing more");
    let held = a.session.entitlements().await.unwrap();
    assert_eq!(held.holdings.len(), 1);
    assert!(held.open.is_empty(), "a paid claim is no longer open");
    let h = &held.holdings[0];
    assert_eq!((h.source.as_str(), h.offering_id.as_str(), h.price_cents), ("purchase", sale.as_str(), 2500));
    assert_eq!(h.payment_ref.as_deref(), Some(format!("pay_test_{reference}").as_str()));
    let model = a.key.model(&sale).await.unwrap().model;
    assert!(model.owned && model.usable);
    // A bought face is cast by id, by the HTTP route as by the agent endpoint's start_develop.
    let accepted = a.key.submit_develop(&develop).await.expect("cast a bought face");
    assert_eq!(accepted.tokens_held, 9);
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let done = a.key.job(&accepted.job_id).await.unwrap();
    assert_eq!(done.status, studio_client::api::JobStatus::Done, "{:?}", done.error);

    // The agent endpoint sees the same store: start_develop casts the bought face, and a model
    // kept with cast_model is on the board.
    let call = |name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let started = a
        .key
        .mcp(&call("start_develop", json!({"tool": "upscale", "quality": "1k", "inputs": {"image": sale}})))
        .await
        .expect("mcp")
        .expect("an answer");
    assert_eq!(started["result"]["isError"], json!(false), "{started}");
    let frame = upload(&a).await;
    let kept = a
        .key
        .mcp(&call("cast_model", json!({"name": "Agent cast", "assetIds": [frame]})))
        .await
        .expect("mcp")
        .expect("an answer");
    let kept_id = kept["result"]["structuredContent"]["id"].as_str().expect("a model id").to_string();
    let board = a.key.models().await.unwrap().models;
    assert!(board.iter().any(|m| m.id == kept_id && m.mine), "cast_model writes the board's store");
}

async fn a_late_payment_for_a_lapsed_claim_never_makes_two_owners(backend: Backend) {
    let Some(app) = market_app(backend, 1).await else { return };
    let admin = admin_house(&app).await;
    let face = publish(&admin, "Contested face", 7000, true).await;
    let a = House::new(&app, "late-a").await;
    let b = House::new(&app, "late-b").await;
    let a_checkout = a.session.checkout_model(&face).await.expect("a claims");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(a.session.entitlements().await.unwrap().open.is_empty(), "A's claim expired with its checkout");
    let b_checkout = b.session.checkout_model(&face).await.expect("b claims after the expiry");
    let ack = pay(&app, &b_checkout.url).await;
    assert!(ack["entitlement"].is_string(), "{ack}");

    // A's payment arrives late: refunded through the provider, never a second owner.
    let late = pay(&app, &a_checkout.url).await;
    assert_eq!(late["lapsed"], json!("refunded"), "{late}");
    assert!(a.session.entitlements().await.unwrap().holdings.is_empty());
    assert_eq!(b.session.entitlements().await.unwrap().holdings.len(), 1);
    let all = admin.session.admin_entitlements(None, None, None).await.expect("admin list");
    let owners = all.holdings.iter().filter(|h| h.holding.offering_id == face && h.revoked_at.is_none()).count();
    assert_eq!(owners, 1, "one owner of an exclusive face");
    let case = all.cases.iter().find(|c| c.organization_id == a.org_id).expect("a case for A's payment");
    assert_eq!((case.reason.as_str(), case.status.as_str(), case.amount_cents), ("claim_expired", "refunded", 7000));
    let replay = pay(&app, &a_checkout.url).await;
    assert_eq!(replay["duplicate"], json!(true), "the late payment is settled once");
    assert_eq!(admin.session.admin_entitlements(None, None, None).await.unwrap().cases.len(), 1);
}

async fn traits_merge_and_sheets_go_before_the_originals(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let a = House::new(&app, "traits").await;
    let (collage, o1, o2, s1, s2) =
        (upload(&a).await, upload(&a).await, upload(&a).await, upload(&a).await, upload(&a).await);
    let text = |s: &str| TraitValue::Text(s.into());
    let req = CastModelRequest {
        name: "Ines".into(),
        asset_ids: vec![o1.clone(), o2.clone()],
        traits: Some([("height".to_string(), text("tall")), ("hair".to_string(), text("brown bob"))].into()),
        collage_asset_id: Some(collage.clone()),
    };
    let model = a.session.own_model(&req).await.expect("own").model;
    assert_eq!(model.identity_asset_ids, vec![collage.clone(), o1.clone(), o2.clone()]);

    let patch = |sheets: Option<Vec<String>>, traits: Option<Vec<(&str, TraitValue)>>| ModelPatch {
        sheet_asset_ids: sheets,
        traits: traits.map(|t| t.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
    };
    let first = patch(
        Some(vec![s1.clone()]),
        Some(vec![("hair", text("")), ("marks", TraitValue::List(vec!["mole, left cheek".into()]))]),
    );
    let m = a.key.patch_model(&model.id, &first).await.expect("patch").model;
    assert_eq!(m.traits.get("height"), Some(&text("tall")), "traits merge, never replace");
    assert_eq!(m.traits.get("hair"), Some(&text("")), "a blank text is a real correction");
    assert_eq!(m.traits.get("marks"), Some(&TraitValue::List(vec!["mole, left cheek".into()])));
    let m = a.key.patch_model(&model.id, &patch(Some(vec![s2.clone(), s1.clone()]), None)).await.expect("patch").model;
    assert_eq!(m.identity_asset_ids, vec![collage, s1, s2, o1, o2], "collage, sheets, originals");
    assert_eq!(a.key.model(&model.id).await.unwrap().model, m);

    // Refusals.
    let stranger = House::new(&app, "traits-stranger").await;
    let foreign = upload(&stranger).await;
    let e = a.key.patch_model(&model.id, &patch(Some(vec![foreign]), None)).await.expect_err("foreign sheet");
    assert_eq!(err(&e), (Some(400), Some("BAD_ASSET_IDS")));
    assert_eq!(
        err(&a.key.patch_model(&model.id, &patch(None, None)).await.expect_err("empty")),
        (Some(400), Some("BAD_BODY"))
    );
    let e = stranger.key.patch_model(&model.id, &patch(None, Some(vec![("hair", text("red"))]))).await.expect_err("x");
    assert_eq!(err(&e).0, Some(404));
    let viewer = a.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = Client::builder(&app.base).build().unwrap().with_api_key(viewer);
    let e = viewer.patch_model(&model.id, &patch(None, Some(vec![("hair", text("red"))]))).await.expect_err("viewer");
    assert_eq!(err(&e).0, Some(403));
    let admin = admin_house(&app).await;
    let free = publish(&admin, "Free face", 0, false).await;
    let e = a.key.patch_model(&free, &patch(None, Some(vec![("hair", text("red"))]))).await.expect_err("catalog");
    assert_eq!(err(&e), (Some(403), Some("FORBIDDEN")));
    assert_eq!(a.key.model(&model.id).await.unwrap().model.traits.get("hair"), Some(&text("")));
    if backend == Backend::Postgres {
        // A text PostgreSQL cannot store is the caller's input: 400, never a 500.
        let req = CastModelRequest { name: "a\u{0}b".into(), asset_ids: vec![upload(&a).await], ..Default::default() };
        assert_eq!(err(&a.session.own_model(&req).await.expect_err("NUL")), (Some(400), Some("BAD_TEXT")));
    }
}

async fn free_takes_and_the_admin_catalog(backend: Backend) {
    let Some(app) = market_app(backend, 3600).await else { return };
    let admin = admin_house(&app).await;
    let free = publish(&admin, "Free face", 0, false).await;
    let excl = publish(&admin, "Exclusive face", 9900, true).await;
    let a = House::new(&app, "take-a").await;
    let b = House::new(&app, "take-b").await;

    // Non-admins are refused the catalog routes; bad offerings are 400.
    assert_eq!(err(&a.session.admin_offerings(None, None).await.expect_err("not admin")).0, Some(403));
    let bad = OfferingCreate {
        kind: "model".into(),
        name: "x".into(),
        price_cents: 0,
        exclusive: true,
        asset_ids: vec![upload(&admin).await],
        ..OfferingCreate::default()
    };
    assert_eq!(
        err(&admin.session.admin_create_offering(&bad).await.expect_err("free exclusive")),
        (Some(400), Some("BAD_PRICE"))
    );
    let listed = admin.session.admin_offerings(Some(1), None).await.expect("page");
    assert_eq!(listed.offerings.len(), 1);
    let next = admin.session.admin_offerings(Some(1), listed.next_cursor.as_deref()).await.expect("next");
    assert_ne!(listed.offerings[0].id, next.offerings[0].id, "pages do not repeat");

    // Explore lists free first; a free take grants now, twice is still one holding.
    let offers = a.key.explore().await.expect("explore").offerings;
    assert_eq!(offers.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), vec![free.as_str(), excl.as_str()]);
    let taken = a.key.take_offering("model", &free).await.expect("take");
    assert!(taken.ok && !taken.pending && taken.url.is_empty());
    a.key.take_offering("model", &free).await.expect("again");
    let held = a.key.entitlements().await.unwrap().holdings;
    assert_eq!((held.len(), held[0].source.as_str()), (1, "free"));
    assert!(a.key.explore().await.unwrap().offerings[0].owned);
    assert_eq!(err(&a.key.take_offering("background", &free).await.expect_err("kind")).0, Some(404));
    let viewer = a.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = Client::builder(&app.base).build().unwrap().with_api_key(viewer);
    assert_eq!(err(&b.key.take_offering("model", &excl).await.expect_err("a key cannot pay")).0, Some(403));
    assert_eq!(err(&viewer.take_offering("model", &free).await.expect_err("viewer")).0, Some(403));

    // A priced take opens the owner's checkout; paying grants; revoking frees the face for B.
    let open = a.session.take_offering("model", &excl).await.expect("priced take");
    assert!(open.pending && open.url.contains("clm_"));
    pay(&app, &open.url).await;
    assert!(!ids(&b.key.models().await.unwrap().models).contains(&excl.as_str()));
    let all = admin.session.admin_entitlements(None, None, Some(&a.org_id)).await.expect("admin");
    assert_eq!(all.holdings.len(), 2);
    let holding = all.holdings.iter().find(|h| h.holding.offering_id == excl).unwrap().holding.id.clone();
    let e = admin.session.admin_revoke_entitlement(&RevokeEntitlement::default()).await.expect_err("no id");
    assert_eq!(err(&e), (Some(400), Some("ID_REQUIRED")));
    let revoked = admin
        .session
        .admin_revoke_entitlement(&RevokeEntitlement { id: holding.clone(), reason: Some("chargeback".into()) })
        .await
        .expect("revoke");
    assert!(revoked.holding.revoked_at.is_some());
    let e = admin
        .session
        .admin_revoke_entitlement(&RevokeEntitlement { id: holding, reason: None })
        .await
        .expect_err("twice");
    assert_eq!(err(&e), (Some(404), Some("ENTITLEMENT_NOT_FOUND")));
    assert!(ids(&b.key.models().await.unwrap().models).contains(&excl.as_str()), "the face is free again");

    // Retiring hides an offering from explore; the house that holds it keeps it.
    let retired = admin.session.admin_retire_offering(&free).await.expect("retire").offering;
    assert_eq!((retired.holders, retired.retired_at.is_some()), (1, true), "A's holding is counted");
    assert_eq!((retired.id.as_str(), retired.tier.as_str(), retired.kind.as_str()), (free.as_str(), "free", "model"));
    let page = admin.session.admin_offerings(Some(100), None).await.expect("list").offerings;
    let listed = page.into_iter().find(|o| o.id == free).expect("the retired offering is still listed");
    assert_eq!(listed, retired, "the list and the retire answer show one object, the same");
    let e = b.key.take_offering("model", &free).await.expect_err("retired, never held by B");
    assert_eq!(err(&e), (Some(503), Some("NOT_FOR_SALE")));
    assert!(b.key.explore().await.unwrap().offerings.iter().all(|o| o.id != free));
    assert!(a.key.models().await.unwrap().models.iter().any(|m| m.id == free && m.owned));
    let e = admin.session.admin_retire_offering("mdl_nope").await.expect_err("unknown");
    assert_eq!(err(&e), (Some(404), Some("OFFERING_NOT_FOUND")));
}

/// Deliver a signed webhook body to the payment route now; (status, body).
async fn deliver(app: &TestApp, id: &str, body: &Value) -> (u16, Value) {
    studio_tests::deliver_payment(app, SECRET, id, chrono::Utc::now().timestamp(), &body.to_string()).await
}

/// The Polar adapter against a local mock of Polar's API: an offering's checkout carries the
/// claim's reference and the `offering` product; `order.paid` grants the holding; a late order
/// for an expired claim is refunded through `POST /v1/refunds/`; a checkout Polar refuses is 502
/// and its claim is released (the exclusive face is free for another house at once).
async fn polar_sells_a_face_refunds_a_late_payment_and_releases_a_failed_checkout(backend: Backend) {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let polar = MockServer::start().await;
    let n = std::sync::atomic::AtomicUsize::new(0);
    Mock::given(method("POST"))
        .and(path("/v1/checkouts/"))
        .respond_with(move |_: &wiremock::Request| {
            let i = n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if i == 2 {
                return ResponseTemplate::new(500).set_body_json(json!({"detail": "down"}));
            }
            ResponseTemplate::new(201)
                .set_body_json(json!({"id": format!("pc_{i}"), "url": format!("https://polar.example/c/{i}")}))
        })
        .expect(4)
        .mount(&polar)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/refunds/"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": "ref_1", "status": "succeeded"})))
        .expect(3)
        .mount(&polar)
        .await;
    let uri = polar.uri();
    let Some(app) = spawn(backend, move |c| {
        c.billing = "polar".into();
        c.payments_webhook_secret = Some(SECRET.into());
        c.polar_token = Some("polar_oat_test".into());
        c.polar_url = Some(uri);
        c.polar_products = [("offering".to_string(), "prod_offering".to_string())].into_iter().collect();
        c.billing_catalog.claim_secs = 1;
    })
    .await
    else {
        return;
    };
    let admin = admin_house(&app).await;
    let face = publish(&admin, "Polar face", 7000, true).await;
    let a = House::new(&app, "polar-a").await;
    let b = House::new(&app, "polar-b").await;

    let a_checkout = a.session.checkout_model(&face).await.expect("a claims");
    assert_eq!(a_checkout.url, "https://polar.example/c/0");
    let sent: Value = serde_json::from_slice(&polar.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["products"][0], json!("prod_offering"), "{sent}");
    assert_eq!(sent["allow_discount_codes"], json!(false), "an offering's price is not discounted");
    assert_eq!((sent["amount"].as_i64(), sent["metadata"]["offering_id"].as_str()), (Some(7000), Some(face.as_str())));
    let a_reference = sent["metadata"]["reference"].as_str().unwrap().to_string();
    assert!(a_reference.starts_with("clm_"));
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    b.session.checkout_model(&face).await.expect("b claims after A's expired");
    let sent: Value = serde_json::from_slice(&polar.received_requests().await.unwrap()[1].body).unwrap();
    let b_reference = sent["metadata"]["reference"].as_str().unwrap().to_string();

    let order = |id: &str, reference: &str| json!({"type": "order.paid", "data": {"id": id, "metadata": {"reference": reference}}});
    let (status, ack) = deliver(&app, "msg_b", &order("ord_b", &b_reference)).await;
    assert_eq!(status, 200, "{ack}");
    assert!(ack["entitlement"].is_string(), "{ack}");
    assert_eq!(b.session.entitlements().await.unwrap().holdings[0].payment_ref.as_deref(), Some("ord_b"));
    let (_, ack) = deliver(&app, "msg_a", &order("ord_a", &a_reference)).await;
    assert_eq!(ack["lapsed"], json!("refunded"), "{ack}");
    let refunds: Vec<Value> = polar
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/refunds/")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!((refunds[0]["order_id"].as_str(), refunds[0]["amount"].as_i64()), (Some("ord_a"), Some(7000)));
    assert!(a.session.entitlements().await.unwrap().holdings.is_empty(), "never a second owner");

    // Polar refuses a checkout: 502, the claim released, the face still free for others.
    let other = publish(&admin, "Second face", 4000, true).await;
    let e = a.session.checkout_model(&other).await.expect_err("polar down");
    assert_eq!(err(&e), (Some(502), Some("CHECKOUT_FAILED")));
    assert!(a.session.entitlements().await.unwrap().open.is_empty(), "the claim is released");
    assert!(ids(&b.key.models().await.unwrap().models).contains(&other.as_str()), "the face is free again");
    // A payment that somehow arrives for the released claim is refunded, never granted.
    let sent: Value = serde_json::from_slice(&polar.received_requests().await.unwrap().last().unwrap().body).unwrap();
    let released = sent["metadata"]["reference"].as_str().unwrap().to_string();
    let (_, ack) = deliver(&app, "msg_released", &order("ord_r", &released)).await;
    assert_eq!(ack["lapsed"], json!("refunded"), "{ack}");
    assert!(a.session.entitlements().await.unwrap().holdings.is_empty());
    let cases = admin.session.admin_entitlements(None, None, None).await.unwrap().cases;
    assert!(cases.iter().any(|c| c.reference == released && c.reason == "claim_released"), "{cases:?}");

    // Paid less than the price (a changed amount): refunded what was paid, never a holding.
    let third = publish(&admin, "Third face", 4000, true).await;
    b.session.checkout_model(&third).await.expect("b claims");
    let sent: Value = serde_json::from_slice(&polar.received_requests().await.unwrap().last().unwrap().body).unwrap();
    let reference = sent["metadata"]["reference"].as_str().unwrap().to_string();
    let cheap = json!({"type": "order.paid", "data": {"id": "ord_cheap", "total_amount": 100, "currency": "usd",
        "metadata": {"reference": reference}}});
    let (_, ack) = deliver(&app, "msg_cheap", &cheap).await;
    assert_eq!(ack["lapsed"], json!("refunded"), "{ack}");
    assert!(b.session.entitlements().await.unwrap().holdings.iter().all(|h| h.offering_id != third));
    let cases = admin.session.admin_entitlements(None, None, None).await.unwrap().cases;
    let case = cases.iter().find(|c| c.reference == reference).expect("a case");
    assert_eq!((case.reason.as_str(), case.amount_cents), ("underpaid", 100));
}
