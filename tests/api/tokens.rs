//! Tokens over HTTP: the balance and the admin grant.

use studio_client::api::GrantTokensRequest;
use studio_core::{Bucket, NewCredit};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};

backend_tests!(
    admin_grant_raises_the_balance,
    admin_grant_refusals,
    admin_is_made_by_the_operator_not_by_signing_up,
    expired_grants_leave_the_spendable_balance,
);

fn grant(user_id: &str, tokens: serde_json::Value) -> GrantTokensRequest {
    GrantTokensRequest {
        user_id: Some(user_id.into()),
        tokens: Some(tokens),
        expiry_days: None,
        reason: Some("test".into()),
    }
}

async fn admin_grant_raises_the_balance(backend: Backend) {
    let admin_email = unique_email("boss");
    let app = spawn(backend, move |c| c.signup_grant_tokens = 40).await.expect("app");
    let admin = app.client.with_session(app.client.sign_up(&admin_email, PASSWORD, None).await.unwrap().session);
    app.studio.admin().operator().add_admin(&admin_email).await.expect("admin add");
    let user = app.client.sign_up(&unique_email("customer"), PASSWORD, None).await.unwrap();
    let customer = app.client.with_session(&user.session);

    let before = customer.balance().await.unwrap();
    assert_eq!((before.balance, before.grant, before.topup, before.held), (40, 40, 0, 0));
    assert!(before.holds.is_empty());

    let mut req = grant(&user.account.user.id, serde_json::json!(250));
    req.expiry_days = Some(30);
    let granted = admin.admin_grant_tokens(&req).await.expect("grant");
    assert!(granted.ok);
    assert_eq!((granted.granted, granted.tokens), (250, 290));
    assert!(granted.expires_at.is_some());
    let after = customer.balance().await.unwrap();
    assert_eq!((after.balance, after.grant), (290, 290));
    let admins_own = admin.balance().await.unwrap();
    assert_eq!(admins_own.balance, 40, "the grant went to the person's house, not the admin's");
}

async fn admin_grant_refusals(backend: Backend) {
    let admin_email = unique_email("boss");
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = app.client.with_session(app.client.sign_up(&admin_email, PASSWORD, None).await.unwrap().session);
    app.studio.admin().operator().add_admin(&admin_email).await.expect("admin add");
    let user = app.client.sign_up(&unique_email("customer"), PASSWORD, None).await.unwrap();
    let id = user.account.user.id.clone();

    let not_admin = app.client.with_session(&user.session).admin_grant_tokens(&grant(&id, 5.into())).await.unwrap_err();
    assert_eq!((not_admin.status(), not_admin.code()), (Some(403), Some("FORBIDDEN")));
    // An admin's key is not an admin session.
    let key = admin.mint_key("admin key", None).await.unwrap().key.unwrap();
    let by_key = app.client.with_api_key(key).admin_grant_tokens(&grant(&id, 5.into())).await.unwrap_err();
    assert_eq!(by_key.status(), Some(403));

    let missing = GrantTokensRequest { tokens: Some(5.into()), ..Default::default() };
    assert_eq!(admin.admin_grant_tokens(&missing).await.unwrap_err().code(), Some("USER_REQUIRED"));
    for bad in [
        serde_json::json!(0),
        serde_json::json!(-3),
        serde_json::json!(2.5),
        serde_json::json!("10"),
        serde_json::json!(5_000_000),
    ] {
        let e = admin.admin_grant_tokens(&grant(&id, bad.clone())).await.unwrap_err();
        assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_TOKENS")), "{bad}");
        assert_eq!(e.extra_i64("max"), Some(1_000_000));
    }
    let nobody = admin.admin_grant_tokens(&grant("usr_nobody", 5.into())).await.unwrap_err();
    assert_eq!((nobody.status(), nobody.code()), (Some(404), Some("USER_NOT_FOUND")));
    assert_eq!(
        app.client.with_session(&user.session).balance().await.unwrap().balance,
        100,
        "refusals granted nothing"
    );
}

/// STUDIO_ADMIN_EMAILS no longer hands admin to whoever signs up first with a listed address:
/// only the operator's `admin add` makes an admin, and `admin remove` counts on the next request.
async fn admin_is_made_by_the_operator_not_by_signing_up(backend: Backend) {
    let admin_email = unique_email("taken");
    let allow = admin_email.clone();
    let app = spawn(backend, move |c| c.admin_emails = vec![allow]).await.expect("app");
    let signed = app.client.sign_up(&admin_email, PASSWORD, None).await.unwrap();
    let claimant = app.client.with_session(&signed.session);
    let user = app.client.sign_up(&unique_email("customer"), PASSWORD, None).await.unwrap();
    let req = grant(&user.account.user.id, 7.into());

    let refused = claimant.admin_grant_tokens(&req).await.unwrap_err();
    assert_eq!(
        (refused.status(), refused.code()),
        (Some(403), Some("FORBIDDEN")),
        "signing up with an allowlisted, unverified address makes no admin"
    );

    let operator = app.studio.admin().operator();
    assert_eq!(operator.add_admin(&admin_email.to_uppercase()).await.expect("add").id, signed.account.user.id);
    assert_eq!(
        operator.admins().await.unwrap().iter().map(|u| u.email.as_str()).collect::<Vec<_>>(),
        [admin_email.as_str()]
    );
    assert_eq!(claimant.admin_grant_tokens(&req).await.expect("an admin now").granted, 7, "effective at once");

    operator.remove_admin(&admin_email).await.expect("remove");
    let removed = claimant.admin_grant_tokens(&req).await.unwrap_err();
    assert_eq!(removed.status(), Some(403), "removal counts on the very next request");
    assert!(operator.admins().await.unwrap().is_empty());

    let unknown = operator.add_admin("nobody@example.com").await.unwrap_err();
    assert_eq!(unknown.code, "USER_NOT_FOUND");
    assert_eq!(app.client.with_session(&user.session).balance().await.unwrap().balance, 107);
}

/// A grant of `amount` into `org_id` that expired a second ago, credited straight into the
/// ledger (the admin route only takes whole days).
async fn expired_grant(app: &TestApp, org_id: &str, amount: i64) {
    let now = chrono::Utc::now();
    let credit = NewCredit {
        org_id: org_id.into(),
        bucket: Bucket::Grant,
        amount,
        user_id: None,
        reason: "promo".into(),
        expires_at: Some(now - chrono::Duration::seconds(1)),
        now: now - chrono::Duration::seconds(2),
    };
    app.studio.storage().credit(credit).await.expect("credit");
}

/// Expired grant tokens leave the spendable balance through an appended `expire` entry; a hold
/// taken before stays; a grant expires once however many sweeps run; what was spent from the
/// grant bucket is not taken twice.
async fn expired_grants_leave_the_spendable_balance(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "expiry").await;
    let me = house.caller(&app).await;
    expired_grant(&app, &house.org_id, 50).await;
    let hold = app.studio.billing().reserve_tokens(&me, 30, None, None).await.expect("a hold before the sweep").hold;
    let storage = app.studio.storage();
    let before = storage.audit(&house.org_id).await.unwrap();

    let billing = app.studio.billing();
    let (a, b) = tokio::join!(billing.expire_grants(), billing.expire_grants());
    assert_eq!(a.unwrap() + b.unwrap(), 50, "two sweeps at once expire the grant once");
    let balance = app.studio.billing().balance(&me).await.unwrap();
    assert_eq!((balance.balance, balance.grant, balance.held), (70, 70, 30), "the grant bucket shows it");
    let audit = storage.audit(&house.org_id).await.unwrap();
    assert_eq!(audit.entries, before.entries + 1, "one expire entry appended, nothing edited");
    let totals = storage.balance(&house.org_id).await.unwrap();
    assert_eq!((audit.grant_tokens, audit.held, audit.credited), (totals.grant_tokens, totals.held, totals.credited));
    assert_eq!(totals.spendable() + totals.held + totals.settled, totals.credited, "tokens conserved");
    assert_eq!(app.studio.billing().expire_grants().await.unwrap(), 0, "nothing is due twice");
    app.studio
        .billing()
        .settle_hold(&house.org_id, &studio_core::HoldId::from(&hold.id))
        .await
        .expect("the earlier hold settles");
    assert_eq!(app.studio.billing().balance(&me).await.unwrap().balance, 70);

    // Spent down below the grant: the expiry takes only what is left in the bucket, and a
    // balance read expires a due grant before it answers.
    let spent = House::new(&app, "expiry-spent").await;
    let caller = spent.caller(&app).await;
    expired_grant(&app, &spent.org_id, 50).await;
    app.studio.billing().reserve_tokens(&caller, 140, None, None).await.expect("spend most");
    let balance = app.studio.billing().balance(&caller).await.unwrap();
    assert_eq!((balance.balance, balance.grant, balance.held), (0, 0, 140));
    let totals = storage.balance(&spent.org_id).await.unwrap();
    assert_eq!(totals.credited, 140, "150 credited, 10 of the grant expired");
}
