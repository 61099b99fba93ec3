//! The platform gate over HTTP (`02-route-groups.md` §4.10 and the admin routes of §4.12):
//! invitation tokens (lookup, accept, replay), redeem codes (every refusal, revocation, 20
//! concurrent redeemers against the limit, an already-invited address), requests, the person's
//! own code, the admin routes' refusals, and link preview's safety and a real page served here.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use studio_client::Client;
use studio_client::api::{IntakeAnswers, InviteRequestBody, MintInviteCodeRequest, RedeemRequest};
use studio_core::{HostResolver, InviteCodeRow, PreviewPolicy};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    invitation_tokens_look_up_accept_and_replay,
    a_redeemed_invitation_credits_its_grant_once,
    redeem_refuses_each_case_with_its_code,
    twenty_concurrent_redeemers_never_pass_max_uses,
    admin_codes_mint_list_and_revoke,
    admin_routes_refuse_everyone_else,
    requests_are_kept_once_per_address,
    my_code_is_minted_once_and_lists_invitees,
    link_preview_refuses_private_addresses,
    link_preview_reads_a_real_page,
);

/// A platform admin's session (the operator marks the address, as `studio-server admin add`).
async fn admin(app: &TestApp) -> Client {
    let email = unique_email("gatekeeper");
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&email).await.expect("admin add");
    app.client.with_session(&signed.session)
}

fn mint(label: &str, max_uses: i64, grant_tokens: i64) -> MintInviteCodeRequest {
    MintInviteCodeRequest {
        label: Some(label.into()),
        max_uses: Some(max_uses),
        grant_tokens: Some(grant_tokens),
        expires_in_days: None,
    }
}

/// The token a letter's link carries.
fn token_in(text: &str) -> String {
    let at = text.find("token=").expect("a link with a token") + "token=".len();
    text[at..at + 68].to_string()
}

fn code_of(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn invitation_tokens_look_up_accept_and_replay(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let email = unique_email("invitee");
    let invited = admin.admin_invite(&email.to_uppercase()).await.expect("invite");
    assert_eq!((invited.email.as_str(), invited.status.as_str()), (email.as_str(), "invited"));
    assert_eq!(invited.toolkits_opened, ["studio"]);
    let token = invited.token.clone().expect("the token, shown once");
    assert!(invited.url.as_deref().is_some_and(|u| u.ends_with(&format!("/invite?token={token}"))));

    // Lookup: public.
    assert_eq!(app.client.invitation(&token).await.expect("lookup").email, email);
    assert_eq!(code_of(&app.client.invitation("").await.unwrap_err()), (Some(400), Some("TOKEN_REQUIRED")));
    assert_eq!(code_of(&app.client.invitation("abc").await.unwrap_err()), (Some(400), Some("BAD_TOKEN")));
    let unknown = format!("inv_{}", "0".repeat(64));
    assert_eq!(code_of(&app.client.invitation(&unknown).await.unwrap_err()), (Some(404), Some("INVITATION_NOT_FOUND")));

    // Inviting again before acceptance gives a new token; the old link dies.
    let again = admin.admin_invite(&email).await.expect("re-invite");
    assert_eq!(again.status, "reissued");
    let token2 = again.token.expect("new token");
    assert_eq!(app.client.invitation(&token).await.unwrap_err().status(), Some(404), "the first token is dead");

    // Accept: the invited person's own session only.
    let stranger = House::new(&app, "stranger").await;
    let mismatch = stranger.session.accept_invitation(&token2).await.unwrap_err();
    assert_eq!(code_of(&mismatch), (Some(403), Some("EMAIL_MISMATCH")));
    let person = app.client.sign_up(&email, PASSWORD, None).await.expect("the invitee signs up");
    let session = app.client.with_session(&person.session);
    let key = session.mint_key("k", None).await.unwrap().key.unwrap();
    let by_key = app.client.with_api_key(key).accept_invitation(&token2).await.unwrap_err();
    assert_eq!(code_of(&by_key), (Some(403), Some("SESSION_REQUIRED")));
    let anonymous = app.client.accept_invitation(&token2).await.unwrap_err();
    assert_eq!(anonymous.status(), Some(401));
    assert_eq!(code_of(&session.accept_invitation("abc").await.unwrap_err()), (Some(400), Some("BAD_TOKEN")));
    assert_eq!(session.accept_invitation(&unknown).await.unwrap_err().status(), Some(404));

    let first = session.accept_invitation(&token2).await.expect("accept");
    assert!(first.ok && !first.already_accepted);
    let replay = session.accept_invitation(&token2).await.expect("replay");
    assert!(replay.ok && replay.already_accepted, "a replay is a no-op");
    let gone = app.client.invitation(&token2).await.unwrap_err();
    assert_eq!(code_of(&gone), (Some(410), Some("INVITATION_ACCEPTED")));

    // Once accepted, inviting the address again writes nothing and shows no token.
    let after = admin.admin_invite(&email).await.expect("invite after acceptance");
    assert_eq!((after.status.as_str(), after.token, after.url), ("accepted", None, None));
    assert_eq!(code_of(&admin.admin_invite("not an address").await.unwrap_err()), (Some(400), Some("BAD_EMAIL")));
}

async fn a_redeemed_invitation_credits_its_grant_once(backend: Backend) {
    let app = spawn(backend, |c| c.signup_grant_tokens = 20).await.expect("app");
    let admin = admin(&app).await;
    let code = admin.admin_mint_invite_code(&mint("press", 3, 30)).await.expect("mint");
    assert!(code.code.starts_with("PRESS-") && code.code.len() == 12, "{}", code.code);

    // Over HTTP: the answer, and no token (it travels in the letter).
    let web = unique_email("web");
    let opened = app.client.redeem_invite_code(&code.code.to_lowercase(), &web).await.expect("redeem");
    assert_eq!(opened.status, "opened");
    assert_eq!(
        (opened.label.as_str(), opened.grant_tokens, opened.frames, opened.looks, opened.days),
        ("PRESS", 30, 3, 0, 30)
    );

    // The core hands back the letter the outbox will send; its link accepts the invitation.
    let email = unique_email("guest");
    let redeemed = app
        .studio
        .accounts()
        .invitations()
        .redeem(RedeemRequest { code: Some(code.code.clone()), email: Some(email.clone()) })
        .await
        .expect("redeem in the core");
    let letter = redeemed.letter.expect("a letter for a new invitation");
    assert_eq!(letter.to, email);
    assert!(letter.text.contains("30 tokens"));
    let token = token_in(&letter.text);
    assert_eq!(app.client.invitation(&token).await.expect("lookup").email, email);

    let person = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    let session = app.client.with_session(&person.session);
    assert_eq!(session.balance().await.unwrap().balance, 20, "signing up alone brings only the sign-up grant");
    assert!(!session.accept_invitation(&token).await.expect("accept").already_accepted);
    let after = session.balance().await.unwrap();
    assert_eq!((after.balance, after.grant), (50, 50), "the code's 30 tokens, once");
    // Replays, sequential and concurrent, credit nothing more.
    let replays = (0..5).map(|_| {
        let (session, token) = (session.clone(), token.clone());
        async move { session.accept_invitation(&token).await.expect("replay") }
    });
    for replay in futures_util::future::join_all(replays).await {
        assert!(replay.already_accepted);
    }
    assert_eq!(session.balance().await.unwrap().balance, 50);
    let listed = admin.admin_invite_codes().await.expect("list");
    let row = listed.codes.iter().find(|c| c.id == code.id).expect("the code");
    assert_eq!((row.used_count, row.joined_count), (2, 1));
}

async fn redeem_refuses_each_case_with_its_code(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let code = admin.admin_mint_invite_code(&mint("vip", 1, 0)).await.expect("mint");
    let anon = &app.client;
    let refused = |e: studio_client::Error| (e.status(), e.code().map(str::to_string));
    let cases = [
        ("", unique_email("a"), 400, "CODE_REQUIRED"),
        ("VIP", unique_email("a"), 400, "BAD_CODE"),
        ("VIP-ABC", unique_email("a"), 400, "BAD_CODE"),
        ("not a code at all", unique_email("a"), 400, "BAD_CODE"),
        ("NOPE-ABCDEF", unique_email("a"), 404, "CODE_NOT_FOUND"),
        (code.code.as_str(), "someone@mailinator.com".to_string(), 400, "THROWAWAY_EMAIL"),
        (code.code.as_str(), "someone@eu.yopmail.com".to_string(), 400, "THROWAWAY_EMAIL"),
        (code.code.as_str(), "not an address".to_string(), 400, "BAD_EMAIL"),
        (code.code.as_str(), String::new(), 400, "EMAIL_REQUIRED"),
    ];
    for (c, email, status, want) in cases {
        let e = anon.redeem_invite_code(c, &email).await.unwrap_err();
        assert_eq!(refused(e), (Some(status), Some(want.to_string())), "{c:?} {email:?}");
    }
    // A missing body field and a wrong type are refused in the same envelope.
    let http = reqwest::Client::new();
    let res = http.post(format!("{}/api/toolkit/invite/redeem", app.base)).json(&json!({ "code": 7 })).send().await;
    let res = res.expect("send");
    assert_eq!(res.status(), 400);
    let body: serde_json::Value = res.json().await.expect("json");
    assert!(body["error"].is_string() && body["message"].is_string(), "{body}");

    // Spent: one use, then refused, and an already-invited address takes no use.
    let first = unique_email("first");
    anon.redeem_invite_code(&code.code, &first).await.expect("the one use");
    let spent = anon.redeem_invite_code(&code.code, &unique_email("second")).await.unwrap_err();
    assert_eq!(refused(spent), (Some(400), Some("CODE_SPENT".into())));
    let again = anon.redeem_invite_code(&code.code, &first.to_uppercase()).await.expect("already invited: opened");
    assert_eq!(again.status, "opened");
    let other = admin.admin_mint_invite_code(&mint("other", 5, 0)).await.expect("mint");
    anon.redeem_invite_code(&other.code, &first).await.expect("opened, no use");
    let codes = admin.admin_invite_codes().await.unwrap().codes;
    let used = |id: &str| codes.iter().find(|c| c.id == id).expect("listed").used_count;
    assert_eq!((used(&code.id), used(&other.id)), (1, 0), "redeeming an invited address consumes no use");

    // Revoked: immediate and final.
    let revoked = admin.admin_revoke_invite_code(&other.id).await.expect("revoke");
    let at = revoked.revoked_at.expect("revoked");
    let e = anon.redeem_invite_code(&other.code, &unique_email("late")).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), Some("CODE_REVOKED".into())));
    let twice = admin.admin_revoke_invite_code(&other.id).await.expect("revoke again");
    assert_eq!(twice.revoked_at, Some(at), "the first revocation stands");
    let e = anon.redeem_invite_code(&other.code, &unique_email("later")).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), Some("CODE_REVOKED".into())), "still refused");

    // Expired: the API mints at least a day ahead, so the test stores one already past.
    let now = chrono::Utc::now();
    let expired = InviteCodeRow {
        id: format!("icode_expired_{}", uuid::Uuid::new_v4().simple()).into(),
        code: "OLD-ABCDEF".into(),
        label: "OLD".into(),
        owner_user_id: None,
        created_by: None,
        grant_tokens: 0,
        max_uses: 10,
        used_count: 0,
        expires_at: Some(now - chrono::Duration::hours(1)),
        revoked_at: None,
        created_at: now - chrono::Duration::days(2),
        joined_count: 0,
    };
    app.studio.storage().insert_code(expired).await.expect("store an expired code");
    let e = anon.redeem_invite_code("old-abcdef", &unique_email("tardy")).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), Some("CODE_EXPIRED".into())));
}

async fn twenty_concurrent_redeemers_never_pass_max_uses(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let code = admin.admin_mint_invite_code(&mint("rush", 7, 10)).await.expect("mint");
    let redeemers = (0..20).map(|i| {
        let (client, code) = (app.client.clone(), code.code.clone());
        async move { client.redeem_invite_code(&code, &unique_email(&format!("rush{i}"))).await }
    });
    let results = futures_util::future::join_all(redeemers).await;
    let opened = results.iter().filter(|r| r.is_ok()).count();
    let spent = results.iter().filter(|r| r.as_ref().is_err_and(|e| e.code() == Some("CODE_SPENT"))).count();
    assert_eq!((opened, spent), (7, 13), "{results:?}");
    let listed = admin.admin_invite_codes().await.unwrap();
    assert_eq!(listed.codes.iter().find(|c| c.id == code.id).expect("listed").used_count, 7);

    // Twenty redeemers of one address on a fresh code: one use, one invitation.
    let shared = admin.admin_mint_invite_code(&mint("shared", 5, 0)).await.expect("mint");
    let email = unique_email("same");
    let same = (0..20).map(|_| {
        let (client, code, email) = (app.client.clone(), shared.code.clone(), email.clone());
        async move { client.redeem_invite_code(&code, &email).await }
    });
    for result in futures_util::future::join_all(same).await {
        assert_eq!(result.expect("opened").status, "opened");
    }
    let listed = admin.admin_invite_codes().await.unwrap();
    assert_eq!(listed.codes.iter().find(|c| c.id == shared.id).expect("listed").used_count, 1);
}

async fn admin_codes_mint_list_and_revoke(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let refusals = [
        (MintInviteCodeRequest { label: Some("x2".into()), ..MintInviteCodeRequest::default() }, "MAX_USES_REQUIRED"),
        (mint("ok", 0, 0), "BAD_MAX_USES"),
        (mint("ok", 10_001, 0), "BAD_MAX_USES"),
        (mint("a", 1, 0), "BAD_LABEL"),
        (mint("has space", 1, 0), "BAD_LABEL"),
        (mint("seventeenletters1", 1, 0), "BAD_LABEL"),
        (mint("ok", 1, -1), "BAD_GRANT"),
        (mint("ok", 1, 10_001), "BAD_GRANT"),
        (MintInviteCodeRequest { expires_in_days: Some(0), ..mint("ok", 1, 0) }, "BAD_EXPIRY"),
        (MintInviteCodeRequest { expires_in_days: Some(366), ..mint("ok", 1, 0) }, "BAD_EXPIRY"),
    ];
    for (req, want) in refusals {
        let e = admin.admin_mint_invite_code(&req).await.unwrap_err();
        assert_eq!(code_of(&e), (Some(400), Some(want)), "{req:?}");
    }
    let req = MintInviteCodeRequest { expires_in_days: Some(30), ..mint("Spring26", 40, 25) };
    let minted = admin.admin_mint_invite_code(&req).await.expect("mint");
    assert_eq!((minted.label.as_str(), minted.max_uses, minted.grant_tokens), ("SPRING26", 40, 25));
    assert_eq!((minted.used_count, minted.joined_count, minted.revoked_at), (0, 0, None));
    let days = (minted.expires_at.expect("expires") - minted.created_at).num_days();
    assert_eq!(days, 30);
    let suffix = minted.code.strip_prefix("SPRING26-").expect("LABEL-");
    assert!(suffix.len() == 6 && suffix.chars().all(|c| "0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(c)), "{suffix}");
    let collision = admin.admin_mint_invite_code(&mint("spring26", 5, 0)).await.unwrap_err();
    assert_eq!(code_of(&collision), (Some(409), Some("CODE_COLLISION")));
    let default_label = admin
        .admin_mint_invite_code(&MintInviteCodeRequest { max_uses: Some(2), ..MintInviteCodeRequest::default() })
        .await
        .expect("mint with defaults");
    assert_eq!(
        (default_label.label.as_str(), default_label.grant_tokens, default_label.expires_at),
        ("INVITE", 0, None)
    );

    let listed = admin.admin_invite_codes().await.expect("list").codes;
    assert_eq!(
        listed.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        [&default_label.id, &minted.id],
        "newest first"
    );
    assert_eq!(listed[1], minted, "listed as minted");

    assert_eq!(code_of(&admin.admin_revoke_invite_code("  ").await.unwrap_err()), (Some(400), Some("ID_REQUIRED")));
    let missing = admin.admin_revoke_invite_code("icode_missing").await.unwrap_err();
    assert_eq!(code_of(&missing), (Some(404), Some("CODE_NOT_FOUND")));
    admin.admin_revoke_invite_code(&minted.id).await.expect("revoke");
    let relabelled = admin.admin_mint_invite_code(&mint("spring26", 5, 0)).await.expect("a revoked label is free");
    assert_ne!(relabelled.code, minted.code);
    let listed = admin.admin_invite_codes().await.expect("list").codes;
    assert!(listed.iter().find(|c| c.id == minted.id).is_some_and(|c| c.revoked_at.is_some()));
}

async fn admin_routes_refuse_everyone_else(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let code = admin.admin_mint_invite_code(&mint("guard", 2, 0)).await.expect("mint");
    let house = House::new(&app, "not-admin").await;
    let admin_key = app.client.with_api_key(admin.mint_key("admin's key", None).await.unwrap().key.unwrap());
    for (who, client) in [("a person", &house.session), ("a key", &house.key), ("an admin's key", &admin_key)] {
        let refusals = [
            client.admin_invite(&unique_email("x")).await.map(|_| ()),
            client.admin_invite_codes().await.map(|_| ()),
            client.admin_mint_invite_code(&mint("sneak", 1, 0)).await.map(|_| ()),
            client.admin_revoke_invite_code(&code.id).await.map(|_| ()),
            client.admin_invite_requests().await.map(|_| ()),
        ];
        for (i, refusal) in refusals.into_iter().enumerate() {
            assert_eq!(code_of(&refusal.unwrap_err()), (Some(403), Some("FORBIDDEN")), "{who}, route {i}");
        }
    }
    assert_eq!(app.client.admin_invite_codes().await.unwrap_err().status(), Some(401));
    let codes = admin.admin_invite_codes().await.unwrap().codes;
    assert_eq!(codes.len(), 1, "nothing was minted by the refused calls");
    assert!(codes[0].revoked_at.is_none(), "nor revoked");
}

async fn requests_are_kept_once_per_address(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = admin(&app).await;
    let email = unique_email("maison");
    let intake = IntakeAnswers {
        audience: vec!["women".into(), "men".into()],
        ai_today: vec!["none".into()],
        cost: vec!["$5k a season".into()],
        pain_text: Some("Shoots take weeks.".into()),
        ..IntakeAnswers::default()
    };
    let request = InviteRequestBody {
        name: Some("Ada".into()),
        email: Some(email.clone()),
        house: Some("Maison Ada".into()),
        collection: Some("SS27".into()),
        intake: Some(intake),
        link: Some("https://maison.example/lookbook".into()),
        links: Some(vec!["https://instagram.example/maison".into(), "https://maison.example/lookbook".into()]),
        logo_url: Some("https://maison.example/logo.png".into()),
        website: Some("https://maison.example".into()),
    };
    assert_eq!(app.client.request_invitation(&request).await.expect("request").status, "received");
    let duplicate =
        InviteRequestBody { email: Some(email.to_uppercase()), name: Some("Someone".into()), ..request.clone() };
    assert_eq!(app.client.request_invitation(&duplicate).await.expect("again").status, "already_requested");

    for (email, want) in [
        ("a@mailinator.com", "THROWAWAY_EMAIL"),
        ("a@guerrillamail.com", "THROWAWAY_EMAIL"),
        ("no-at-sign", "BAD_EMAIL"),
        ("", "EMAIL_REQUIRED"),
    ] {
        let e = app.client.request_invitation_for(email, None, IntakeAnswers::default()).await.unwrap_err();
        assert_eq!(code_of(&e), (Some(400), Some(want)), "{email}");
    }
    let bad_logo = InviteRequestBody {
        email: Some(unique_email("logo")),
        logo_url: Some("javascript:alert(1)".into()),
        ..InviteRequestBody::default()
    };
    assert_eq!(
        code_of(&app.client.request_invitation(&bad_logo).await.unwrap_err()),
        (Some(400), Some("BAD_LOGO_URL"))
    );
    let bad_link = InviteRequestBody {
        email: Some(unique_email("link")),
        links: Some(vec!["ftp://x.example".into()]),
        ..InviteRequestBody::default()
    };
    assert_eq!(code_of(&app.client.request_invitation(&bad_link).await.unwrap_err()), (Some(400), Some("BAD_LINK")));
    let plain = unique_email("plain");
    app.client.request_invitation_for(&plain, None, IntakeAnswers::default()).await.expect("only an address");

    let listed = admin.admin_invite_requests().await.expect("list").requests;
    assert_eq!(listed.len(), 2, "refused and duplicate requests wrote nothing");
    assert_eq!(listed[0].email, plain, "newest first");
    let kept = &listed[1];
    assert_eq!(
        (kept.email.as_str(), kept.name.as_deref(), kept.house.as_deref()),
        (email.as_str(), Some("Ada"), Some("Maison Ada"))
    );
    assert_eq!((kept.collection.as_deref(), kept.status.as_str()), (Some("SS27"), "pending"));
    let questions: Vec<&str> = kept.answers.iter().map(|a| a.question.as_str()).collect();
    assert_eq!(questions, ["audience", "aiToday", "cost", "painText"]);
    assert_eq!(kept.answers[0].answers, ["women", "men"]);
    assert_eq!(
        kept.links,
        ["https://maison.example/lookbook", "https://instagram.example/maison"],
        "deduplicated, in order"
    );
    assert_eq!(kept.logo_url.as_deref(), Some("https://maison.example/logo.png"));

    admin.admin_invite(&email).await.expect("invite the requester");
    let listed = admin.admin_invite_requests().await.expect("list").requests;
    assert_eq!(listed.iter().find(|r| r.email == email).expect("listed").status, "invited");
}

async fn my_code_is_minted_once_and_lists_invitees(backend: Backend) {
    let app = spawn(backend, |c| c.signup_grant_tokens = 100).await.expect("app");
    let host = House::new(&app, "host").await;
    let reads = (0..6).map(|_| {
        let session = host.session.clone();
        async move { session.my_invites().await.expect("mine") }
    });
    let reads = futures_util::future::join_all(reads).await;
    let mine = reads[0].clone();
    assert!(reads.iter().all(|r| r.code == mine.code), "six first reads at once mint one code");
    assert_eq!(host.session.my_invites().await.unwrap().code, mine.code, "and later reads keep it");
    assert!(mine.code.starts_with("HOST") && mine.url.ends_with(&format!("/invite?code={}", mine.code)));
    assert_eq!((mine.max_uses, mine.base_max_uses, mine.used_count, mine.invites_left), (5, 5, 0, 5));
    assert_eq!((mine.guest_bonus_tokens, mine.guest_tokens, mine.host_tokens, mine.hold_days), (50, 150, 100, 14));
    assert_eq!(mine.guest_looks, 150 / 9 / 4);
    assert_eq!((mine.guest_value_usd, mine.guest_arrival_usd, mine.host_value_usd), (6.0, 2.0, 4.0));
    assert!(mine.invitees.is_empty());

    let guest = unique_email("guest");
    let opened = app.client.redeem_invite_code(&mine.code, &guest).await.expect("redeem the host's code");
    assert_eq!(opened.grant_tokens, 50);
    let mine = host.session.my_invites().await.unwrap();
    assert_eq!((mine.used_count, mine.invites_left), (1, 4));
    assert_eq!(mine.invitees.len(), 1);
    let invitee = &mine.invitees[0];
    assert_eq!(
        (invitee.email.as_str(), invitee.signed_up, invitee.subscribed, invitee.subscribed_at),
        (guest.as_str(), false, false, None)
    );
    app.client.sign_up(&guest, PASSWORD, None).await.expect("the guest signs up");
    assert!(host.session.my_invites().await.unwrap().invitees[0].signed_up);

    // A person's own business: keys and strangers get nothing.
    assert_eq!(code_of(&host.key.my_invites().await.unwrap_err()), (Some(403), Some("SESSION_REQUIRED")));
    assert_eq!(app.client.my_invites().await.unwrap_err().status(), Some(401));
    let other = House::new(&app, "other").await;
    assert_ne!(other.session.my_invites().await.unwrap().code, mine.code, "everyone has their own");
}

/// A resolver the test controls: each name to one address.
#[derive(Debug)]
struct Names(HashMap<String, IpAddr>);

#[async_trait::async_trait]
impl HostResolver for Names {
    async fn resolve(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        self.0.get(host).map(|ip| vec![*ip]).ok_or_else(|| std::io::Error::other(format!("no such name: {host}")))
    }
}

fn names(pairs: &[(&str, &str)]) -> Arc<dyn HostResolver> {
    Arc::new(Names(pairs.iter().map(|(n, ip)| (n.to_string(), ip.parse().expect("address"))).collect()))
}

const PAGE: &str = r#"<!doctype html><html><head><title>Maison Ardente</title>
<meta property="og:title" content="Maison Ardente &mdash; SS27">
<meta name="description" content="Slow tailoring, &quot;made to last&quot;.">
<meta property="og:image" content="/img/cover.jpg">
<link rel="icon" href="favicon.png">
</head><body><p>hello</p></body></html>"#;

/// A page server on 127.0.0.1 with a page, redirects and trouble.
async fn page_server() -> MockServer {
    let server = MockServer::start().await;
    let html =
        |body: &str| ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/html; charset=utf-8");
    Mock::given(method("GET")).and(path("/")).respond_with(html(PAGE)).mount(&server).await;
    let redirect = |to: &str| ResponseTemplate::new(302).insert_header("location", to);
    Mock::given(method("GET")).and(path("/hop1")).respond_with(redirect("/hop2")).mount(&server).await;
    Mock::given(method("GET")).and(path("/hop2")).respond_with(redirect("/hop3")).mount(&server).await;
    Mock::given(method("GET")).and(path("/hop3")).respond_with(redirect("/")).mount(&server).await;
    Mock::given(method("GET")).and(path("/hop0")).respond_with(redirect("/hop1")).mount(&server).await;
    Mock::given(method("GET")).and(path("/to-private")).respond_with(redirect("http://10.0.0.1/")).mount(&server).await;
    Mock::given(method("GET"))
        .and(path("/to-metadata"))
        .respond_with(redirect("http://169.254.169.254/latest/meta-data/"))
        .mount(&server)
        .await;
    let big = format!("<title>Big</title>{}", "x".repeat(3 * 1024 * 1024));
    Mock::given(method("GET")).and(path("/big")).respond_with(html(&big)).mount(&server).await;
    Mock::given(method("GET"))
        .and(path("/slow"))
        .respond_with(html(PAGE).set_delay(Duration::from_secs(8)))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/image"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(vec![0u8; 16], "image/png"))
        .mount(&server)
        .await;
    Mock::given(method("GET")).and(path("/missing")).respond_with(ResponseTemplate::new(404)).mount(&server).await;
    server
}

async fn link_preview_refuses_private_addresses(backend: Backend) {
    let server = page_server().await;
    let port = server.address().port();
    // The strict policy, with a resolver that says a public-looking name lives on loopback.
    let resolver = names(&[("atelier.example", "127.0.0.1"), ("private.example", "10.1.2.3")]);
    let app = spawn(backend, move |c| c.link_preview = PreviewPolicy::with_resolver(resolver)).await.expect("app");
    let links = [
        "http://127.0.0.1/".to_string(),
        "http://[::1]/".to_string(),
        "http://10.0.0.1/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[::ffff:127.0.0.1]/".to_string(),
        "http://atelier.example/".to_string(),
        format!("http://atelier.example:{port}/"),
        format!("http://127.0.0.1:{port}/"),
    ];
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    let cards = app.client.preview_links(&refs[..6]).await.expect("preview").cards;
    let more = app.client.preview_links(&refs[6..]).await.expect("preview").cards;
    for (card, link) in cards.iter().chain(&more).zip(&links) {
        assert_eq!(&card.link, link, "cards come in request order");
        assert!(!card.ok, "{link} must be refused");
        assert!(card.title.is_none() && card.image_url.is_none() && card.icon_url.is_none());
    }
    assert_eq!(cards[5].host.as_deref(), Some("atelier.example"));
    let odd = app
        .client
        .preview_links(&[
            "ftp://maison.example/",
            "not a url",
            "https://user:pw@private.example/",
            "http://private.example/",
        ])
        .await
        .expect("preview");
    assert!(odd.cards.iter().all(|c| !c.ok));
    assert_eq!(server.received_requests().await.unwrap_or_default().len(), 0, "nothing reached the page server");

    // The whole request is refused only for its shape.
    let http = reqwest::Client::new();
    for (body, want) in [
        (json!({}), "LINKS_REQUIRED"),
        (json!({ "links": [] }), "LINKS_REQUIRED"),
        (json!({ "links": vec!["https://a.example/"; 7] }), "TOO_MANY_LINKS"),
        (json!({ "links": ["https://a.example/", 5] }), "BAD_LINKS"),
        (json!({ "links": "https://a.example/" }), "BAD_LINKS"),
    ] {
        let res = http.post(format!("{}/api/toolkit/invite/preview", app.base)).json(&body).send().await.expect("send");
        assert_eq!(res.status(), 400, "{body}");
        let answer: serde_json::Value = res.json().await.expect("json");
        assert_eq!(answer["error"], want, "{body}");
        assert!(answer["message"].is_string());
    }
}

async fn link_preview_reads_a_real_page(backend: Backend) {
    let server = page_server().await;
    let port = server.address().port();
    // Test only: loopback is allowed on the page server's port; every other check still runs.
    let policy =
        PreviewPolicy::with_resolver(names(&[("atelier.example", "127.0.0.1"), ("elsewhere.example", "10.0.0.7")]))
            .allowing_loopback_ports_for_tests(&[port]);
    let app = spawn(backend, move |c| c.link_preview = policy).await.expect("app");
    let base = format!("http://atelier.example:{port}");
    let links = [
        format!("{base}/"),
        format!("{base}/hop1"),
        format!("{base}/hop0"),
        format!("{base}/to-private"),
        format!("{base}/big"),
        format!("{base}/slow"),
    ];
    let refs: Vec<&str> = links.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let cards = app.client.preview_links(&refs).await.expect("preview").cards;
    assert!(started.elapsed() < Duration::from_secs(8), "the slow page is cut at 5 s: {:?}", started.elapsed());
    let page = &cards[0];
    assert!(page.ok, "{page:?}");
    assert_eq!(page.host.as_deref(), Some("atelier.example"));
    assert_eq!(page.title.as_deref(), Some("Maison Ardente &mdash; SS27"), "unknown entities stay as written");
    assert_eq!(page.description.as_deref(), Some("Slow tailoring, \"made to last\"."));
    assert_eq!(page.image_url.as_deref(), Some(format!("{base}/img/cover.jpg").as_str()));
    assert_eq!(page.icon_url.as_deref(), Some(format!("{base}/favicon.png").as_str()));
    assert!(cards[1].ok && cards[1].title == page.title, "three redirects are followed: {:?}", cards[1]);
    assert!(!cards[2].ok, "a fourth is not");
    assert!(!cards[3].ok, "a redirect to a private address is refused at that hop");
    assert!(cards[4].ok && cards[4].title.as_deref() == Some("Big"), "a page past 1 MB is read to 1 MB");
    assert!(!cards[5].ok, "a page slower than 5 s is unreadable");
    let others = app
        .client
        .preview_links(&[
            &format!("{base}/image"),
            &format!("{base}/missing"),
            &format!("http://elsewhere.example:{port}/"),
            &format!("http://127.0.0.1:{}/", port.wrapping_add(1).max(1)),
        ])
        .await
        .expect("preview");
    assert!(
        others.cards.iter().all(|c| !c.ok),
        "not html, 404, a private name, another loopback port: {:?}",
        others.cards
    );
}
