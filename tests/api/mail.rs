//! Mail: the verification letter over SMTP and its link, single-use and expiring tokens, the
//! password reset, the outbox (retries after an SMTP failure; two workers never send a letter
//! twice; a dead worker's claim is taken over), the signed delivery webhook, the admin's
//! archive and the drip.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use studio_client::Client;
use studio_client::api::AdminEmailsQuery;
use studio_core::{
    EmailTokenRow, LetterFilter, LetterOutcome, LetterRow, LetterStatus, MailError, Mailer, OutgoingLetter,
    SessionToken, Studio,
};
use studio_tests::smtp::{SmtpSink, token_in};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};
use tokio::sync::Mutex;

backend_tests!(
    the_verification_letter_arrives_and_its_link_verifies,
    the_admin_allowlist_needs_a_verified_address,
    tokens_are_single_use_replaced_and_expire,
    resending_is_rate_limited,
    a_password_reset_ends_every_session,
    a_failed_delivery_is_retried,
    two_workers_never_send_a_letter_twice,
    a_dead_workers_letter_is_taken_over,
    the_delivery_webhook_is_signed_and_deduplicated,
    admins_read_the_archive,
    the_drip_queues_each_letter_once,
);

const FROM: &str = "Studio <studio@example.com>";
const WEBHOOK_SECRET: &str = "whsec_bWFpbC13ZWJob29rLXNlY3JldA==";

/// The newest letter of `kind` to `to`, waiting up to five seconds (reset letters are posted in
/// the background).
async fn letter(app: &TestApp, to: &str, kind: &str) -> LetterRow {
    for _ in 0..100 {
        let filter = LetterFilter {
            to: Some(to.to_string()),
            kind: Some(kind.to_string()),
            limit: 1,
            ..LetterFilter::default()
        };
        if let Some(row) = app.studio.storage().list_letters(&filter).await.expect("letters").pop() {
            return row;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no {kind} letter to {to}");
}

/// The token in the newest letter of `kind` to `to`.
async fn token(app: &TestApp, to: &str, kind: &str) -> String {
    token_in(&letter(app, to, kind).await.text).expect("a token in the letter")
}

/// Sign up `email`; its client with the session.
async fn sign_up(app: &TestApp, email: &str) -> Client {
    let signed = app.client.sign_up(email, PASSWORD, Some("Ada")).await.expect("sign up");
    app.client.with_session(&signed.session)
}

/// A platform admin's session (marked by the operator).
async fn admin(app: &TestApp) -> (Client, studio_core::PlatformAdmin) {
    let email = unique_email("mail-admin");
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&email).await.expect("admin add");
    let caller =
        app.studio.accounts().authenticate_session(&SessionToken(signed.session.clone())).await.expect("caller");
    (app.client.with_session(&signed.session), caller.as_admin().expect("admin proof"))
}

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn with_smtp(backend: Backend, sink: &SmtpSink) -> TestApp {
    let url = sink.url();
    spawn(backend, move |c| {
        c.smtp_url = Some(url);
        c.mail_from = Some(FROM.into());
        c.mail.poll_ms = 50;
        c.mail.retry_base_ms = 200;
    })
    .await
    .expect("app")
}

async fn the_verification_letter_arrives_and_its_link_verifies(backend: Backend) {
    let sink = SmtpSink::start().await;
    let app = with_smtp(backend, &sink).await;
    let email = unique_email("verify");
    let session = sign_up(&app, &email).await;

    let arrived = sink.wait_for(&email, Duration::from_secs(10)).await.expect("the letter reaches the SMTP sink");
    assert_eq!(arrived.from, "studio@example.com");
    let decoded = arrived.decoded();
    assert!(decoded.contains("Subject: Confirm your email for Studio"), "{decoded}");
    assert!(decoded.contains("/verify-email?token="), "the letter carries the link: {decoded}");
    let token = arrived.token().expect("a token in the link");

    let verified = app.client.verify_email(&token).await.expect("the link verifies");
    assert!(verified.ok && verified.email_verified);
    assert_eq!(verified.email, email);
    let again = app.client.verify_email(&token).await.expect_err("single use");
    assert_eq!(code(&again), (Some(410), Some("TOKEN_USED")));
    let resent = session.resend_verification().await.expect("resend");
    assert!(!resent.sent && resent.already_verified, "nothing to verify any more");

    // The archive kept the letter and records it sent.
    let row = letter(&app, &email, "verify-email").await;
    for _ in 0..100 {
        if app.studio.storage().letter(&row.id).await.expect("letter").expect("kept").status == LetterStatus::Sent {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let row = app.studio.storage().letter(&row.id).await.expect("letter").expect("kept");
    assert_eq!((row.status, row.attempts), (LetterStatus::Sent, 1));
    assert!(row.sent_at.is_some() && row.html.contains("verify-email?token="));
    assert_eq!(sink.messages().await.iter().filter(|m| m.to.contains(&email)).count(), 1, "sent once");
}

async fn the_admin_allowlist_needs_a_verified_address(backend: Backend) {
    let email = unique_email("allowlisted");
    let listed = email.clone();
    let Some(app) = spawn(backend, move |c| c.admin_emails = vec![listed]).await else { return };
    let session = sign_up(&app, &email).await;
    let refused = session.admin_emails(&AdminEmailsQuery::default()).await.expect_err("not yet verified");
    assert_eq!(code(&refused), (Some(403), Some("FORBIDDEN")), "an unverified allowlisted address is no admin");

    app.client.verify_email(&token(&app, &email, "verify-email").await).await.expect("verify");
    let page = session.admin_emails(&AdminEmailsQuery::default()).await.expect("the verified address is admitted");
    assert!(page.emails.iter().any(|e| e.to == email));

    // Another verified address that is not on the list stays out.
    let other = unique_email("not-listed");
    let other_session = sign_up(&app, &other).await;
    app.client.verify_email(&token(&app, &other, "verify-email").await).await.expect("verify");
    let refused = other_session.admin_emails(&AdminEmailsQuery::default()).await.expect_err("not listed");
    assert_eq!(code(&refused).0, Some(403));
}

async fn tokens_are_single_use_replaced_and_expire(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let email = unique_email("tokens");
    let session = sign_up(&app, &email).await;
    let first = token(&app, &email, "verify-email").await;
    let resent = session.resend_verification().await.expect("resend");
    assert!(resent.sent && !resent.already_verified);
    let second = token(&app, &email, "verify-email").await;
    assert_ne!(first, second, "a new letter carries a new token");

    let replaced = app.client.verify_email(&first).await.expect_err("the older link was replaced");
    assert_eq!(code(&replaced), (Some(410), Some("TOKEN_REPLACED")));
    for bad in ["", "not-a-token", &"0".repeat(64)] {
        let e = app.client.verify_email(bad).await.expect_err("not ours");
        assert_eq!(code(&e), (Some(400), Some("INVALID_TOKEN")), "{bad:?}");
    }
    app.client.verify_email(&second.to_uppercase()).await.expect("the latest link verifies");
    let used = app.client.verify_email(&second).await.expect_err("single use");
    assert_eq!(code(&used), (Some(410), Some("TOKEN_USED")));

    // A token past its expiry is refused, for either purpose.
    let user = session.session().await.expect("session").user;
    for (purpose, kind) in [("verify", "verify"), ("reset", "reset")] {
        let secret = hex::encode(rand::random::<[u8; 32]>());
        let now = chrono::Utc::now();
        app.studio
            .storage()
            .issue_email_token(EmailTokenRow {
                token_hash: hex::encode(<sha2::Sha256 as sha2::Digest>::digest(secret.as_bytes())),
                user_id: user.id.as_str().into(),
                purpose: purpose.into(),
                email: email.clone(),
                created_at: now - chrono::Duration::hours(49),
                expires_at: now - chrono::Duration::hours(1),
                used_at: None,
                replaced_at: None,
            })
            .await
            .expect("an expired token");
        let expired = match kind {
            "verify" => app.client.verify_email(&secret).await.expect_err("expired"),
            _ => app.client.confirm_password_reset(&secret, "another long password").await.expect_err("expired"),
        };
        assert_eq!(code(&expired), (Some(410), Some("TOKEN_EXPIRED")), "{purpose}");
    }
    // A verification token cannot reset a password, nor the other way round.
    let reset_with_verify = app.client.confirm_password_reset(&second, "another long password").await.unwrap_err();
    assert_eq!(code(&reset_with_verify), (Some(400), Some("INVALID_TOKEN")));
}

async fn resending_is_rate_limited(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let email = unique_email("resend");
    let session = sign_up(&app, &email).await;
    // Sign-up's letter and two more make the hour's three.
    for _ in 0..2 {
        assert!(session.resend_verification().await.expect("resend").sent);
    }
    let limited = session.resend_verification().await.expect_err("a fourth letter this hour");
    assert_eq!(code(&limited), (Some(429), Some("RATE_LIMITED")));
    let wait = limited.extra_i64("retryAfter").expect("retryAfter");
    assert!((1..=3600).contains(&wait), "{wait}");
    let house = House::new(&app, "resend-key").await;
    let by_key = house.key.resend_verification().await.expect_err("keys do not ask for letters");
    assert_eq!(code(&by_key), (Some(403), Some("SESSION_REQUIRED")));
}

async fn a_password_reset_ends_every_session(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let email = unique_email("reset");
    let first = sign_up(&app, &email).await;
    let second = app.client.with_session(&app.client.sign_in(&email, PASSWORD).await.expect("sign in").session);

    let stranger = unique_email("nobody");
    assert!(app.client.request_password_reset(&stranger).await.expect("unknown address: the same answer").ok);
    assert!(app.client.request_password_reset("not an address").await.expect("a malformed one too").ok);
    assert!(app.client.request_password_reset(&email.to_uppercase()).await.expect("request").ok);
    let row = letter(&app, &email, "password-reset").await;
    assert!(row.text.contains("/reset-password?token="), "{}", row.text);
    let token = token_in(&row.text).expect("token");
    let none = LetterFilter { to: Some(stranger), limit: 5, ..LetterFilter::default() };
    assert!(app.studio.storage().list_letters(&none).await.expect("letters").is_empty(), "no letter to a stranger");

    let weak = app.client.confirm_password_reset(&token, "short").await.expect_err("weak");
    assert_eq!(code(&weak), (Some(400), Some("WEAK_PASSWORD")));
    let new_password = "a brand new long password";
    let done = app.client.confirm_password_reset(&token, new_password).await.expect("reset");
    assert_eq!(done.sessions_ended, 2, "both sessions end");
    for session in [&first, &second] {
        assert_eq!(session.session().await.expect_err("signed out").status(), Some(401));
    }
    let old = app.client.sign_in(&email, PASSWORD).await.expect_err("the old password is gone");
    assert_eq!(code(&old), (Some(401), Some("BAD_CREDENTIALS")));
    app.client.sign_in(&email, new_password).await.expect("the new password signs in");
    let again = app.client.confirm_password_reset(&token, "yet another long password").await.expect_err("used");
    assert_eq!(code(&again), (Some(410), Some("TOKEN_USED")));
    // The reset letter reached the address: it is verified now.
    let user = app.studio.storage().user_by_email(&email).await.expect("user").expect("exists");
    assert!(app.studio.storage().email_verified(&user.id).await.expect("verified"));
}

async fn a_failed_delivery_is_retried(backend: Backend) {
    let sink = SmtpSink::start().await;
    sink.fail_next(1);
    let app = with_smtp(backend, &sink).await;
    let email = unique_email("retry");
    sign_up(&app, &email).await;
    let arrived = sink.wait_for(&email, Duration::from_secs(15)).await.expect("delivered on a later attempt");
    assert!(arrived.token().is_some());
    let id = letter(&app, &email, "verify-email").await.id;
    let mut row = app.studio.storage().letter(&id).await.expect("letter").expect("kept");
    for _ in 0..100 {
        if row.status == LetterStatus::Sent {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        row = app.studio.storage().letter(&id).await.expect("letter").expect("kept");
    }
    assert_eq!((row.status, row.attempts), (LetterStatus::Sent, 2), "one refusal, then sent");
    assert_eq!(sink.messages().await.len(), 1, "sent once");
}

/// A mailer that takes its time and remembers every letter it was handed.
#[derive(Default)]
struct Counting {
    sent: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Mailer for Counting {
    async fn send(&self, letter: &OutgoingLetter) -> Result<(), MailError> {
        tokio::time::sleep(Duration::from_millis(15)).await;
        self.sent.lock().await.push(letter.id.clone());
        Ok(())
    }
}

/// A second core over the app's storage, as another replica would have.
fn replica(app: &TestApp) -> Studio {
    Studio::new(app.studio.storage().clone(), app.studio.blobs().clone(), app.studio.config().clone())
}

async fn two_workers_never_send_a_letter_twice(backend: Backend) {
    // No SMTP: the app archives the letters and sends none; two workers share the outbox.
    let Some(app) = spawn(backend, |_| {}).await else { return };
    for i in 0..16 {
        app.client.sign_up(&unique_email(&format!("outbox-{i}")), PASSWORD, None).await.expect("sign up");
    }
    let mailer = Arc::new(Counting::default());
    let (a, b) = (replica(&app), replica(&app));
    let (ma, mb) = (mailer.clone(), mailer.clone());
    let (sent_a, sent_b) = tokio::join!(
        tokio::spawn(async move { a.mail().deliver_due(&*ma).await.expect("worker a") }),
        tokio::spawn(async move { b.mail().deliver_due(&*mb).await.expect("worker b") }),
    );
    let (sent_a, sent_b) = (sent_a.expect("task"), sent_b.expect("task"));
    assert_eq!(sent_a + sent_b, 16, "every letter attempted once: {sent_a} + {sent_b}");
    let sent = mailer.sent.lock().await.clone();
    let mut times: BTreeMap<&String, usize> = BTreeMap::new();
    for id in &sent {
        *times.entry(id).or_default() += 1;
    }
    assert_eq!(times.len(), 16);
    assert!(times.values().all(|&n| n == 1), "a letter sent twice: {times:?}");
    let all = LetterFilter { limit: 100, ..LetterFilter::default() };
    let rows = app.studio.storage().list_letters(&all).await.expect("letters");
    assert_eq!(rows.len(), 16);
    assert!(rows.iter().all(|r| r.status == LetterStatus::Sent && r.attempts == 1 && r.claim_token.is_none()));
}

async fn a_dead_workers_letter_is_taken_over(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let email = unique_email("takeover");
    app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    let storage = app.studio.storage();
    // A worker claims the letter with a short lease and dies without recording anything.
    let now = chrono::Utc::now();
    let claimed = storage
        .claim_letter("dead-worker", now, now + chrono::Duration::milliseconds(300))
        .await
        .expect("claim")
        .expect("the letter is due");
    let mailer = Counting::default();
    assert_eq!(app.studio.mail().deliver_due(&mailer).await.expect("pass"), 0, "held while the lease runs");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(app.studio.mail().deliver_due(&mailer).await.expect("pass"), 1, "taken over after the lease");
    assert_eq!(*mailer.sent.lock().await, vec![claimed.id.clone()]);
    let late = storage
        .finish_letter(&claimed.id, "dead-worker", &LetterOutcome::Sent, chrono::Utc::now())
        .await
        .expect("finish");
    assert!(!late, "the dead worker's claim records nothing");
    let row = storage.letter(&claimed.id).await.expect("letter").expect("kept");
    assert_eq!((row.status, row.attempts), (LetterStatus::Sent, 2));
}

/// POST a delivery report signed with `secret` (or a forged signature).
async fn report(app: &TestApp, id: &str, body: &Value, secret: Option<&str>, age: i64) -> (u16, Value) {
    let bytes = serde_json::to_vec(body).expect("json");
    let ts = chrono::Utc::now().timestamp() - age;
    let signature = match secret {
        Some(secret) => studio_core::sign_webhook(secret, id, ts, &bytes).expect("sign"),
        None => "v1,Zm9yZ2VkIHNpZ25hdHVyZSBvZiAzMiBieXRlcyEhIQ==".to_string(),
    };
    let res = reqwest::Client::new()
        .post(format!("{}/api/email/webhook", app.base))
        .header("webhook-id", id)
        .header("webhook-timestamp", ts.to_string())
        .header("webhook-signature", signature)
        .header("content-type", "application/json")
        .body(bytes)
        .send()
        .await
        .expect("post");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn the_delivery_webhook_is_signed_and_deduplicated(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.mail_webhook_secret = Some(WEBHOOK_SECRET.into())).await else { return };
    let email = unique_email("webhook");
    app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    let id = letter(&app, &email, "verify-email").await.id;

    let delivered = json!({ "type": "email.delivered", "data": { "letterId": id } });
    let (code, body) = report(&app, "msg_1", &delivered, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["status"].as_str()), (200, Some("delivered")), "{body}");
    let (code, body) = report(&app, "msg_1", &delivered, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["duplicate"].as_bool()), (200, Some(true)), "a replay changes nothing: {body}");

    let (code, body) = report(&app, "msg_2", &delivered, None, 0).await;
    assert_eq!((code, body["error"].as_str()), (401, Some("BAD_SIGNATURE")));
    let (code, _) = report(&app, "msg_3", &delivered, Some("whsec_b3RoZXIgc2VjcmV0"), 0).await;
    assert_eq!(code, 401, "another secret");
    let (code, _) = report(&app, "msg_4", &delivered, Some(WEBHOOK_SECRET), 3600).await;
    assert_eq!(code, 401, "a stale delivery");

    // A bounce named by the Message-ID we sent moves the status up; a late delivered never back.
    let bounced = json!({ "type": "bounced", "data": { "messageId": format!("<{id}@example.com>") } });
    let (_, body) = report(&app, "msg_5", &bounced, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!(body["status"], "bounced");
    let (_, body) = report(&app, "msg_6", &delivered, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!(body["status"], "bounced");
    let complained = json!({ "type": "email.complained", "data": { "letterId": id } });
    let (_, body) = report(&app, "msg_7", &complained, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!(body["status"], "complained");
    let row = app.studio.storage().letter(&id).await.expect("letter").expect("kept");
    assert_eq!(row.status, LetterStatus::Complained);

    let opened = json!({ "type": "email.opened", "data": { "letterId": id } });
    let (code, body) = report(&app, "msg_8", &opened, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["ignored"].as_bool()), (200, Some(true)));
    let stranger = json!({ "type": "delivered", "data": { "letterId": uuid::Uuid::now_v7().to_string() } });
    let (code, body) = report(&app, "msg_9", &stranger, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["ignored"].as_bool()), (200, Some(true)), "a letter we do not keep");
    let (code, body) = report(&app, "msg_10", &json!({ "nothing": true }), Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["error"].as_str()), (400, Some("UNPARSEABLE")));

    // Without a secret the route is not configured.
    let Some(off) = spawn(backend, |_| {}).await else { return };
    let (code, body) = report(&off, "msg_1", &delivered, Some(WEBHOOK_SECRET), 0).await;
    assert_eq!((code, body["error"].as_str()), (503, Some("MAIL_WEBHOOK_NOT_CONFIGURED")));
}

async fn admins_read_the_archive(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let (admin, _) = admin(&app).await;
    let emails: Vec<String> = (0..3).map(|i| unique_email(&format!("archive-{i}"))).collect();
    for email in &emails {
        app.client.sign_up(email, PASSWORD, None).await.expect("sign up");
    }
    let all = admin.admin_emails(&AdminEmailsQuery::default()).await.expect("list");
    assert_eq!(all.emails.len(), 4, "the admin's own letter and three more");
    assert!(all.next_cursor.is_none());
    assert_eq!(all.emails[0].to, emails[2], "newest first");
    assert!(all.emails.iter().all(|e| e.html.is_none() && e.text.is_none()), "no bodies in the list");

    let one_to = AdminEmailsQuery { to: Some(emails[1].to_uppercase()), ..AdminEmailsQuery::default() };
    let filtered = admin.admin_emails(&one_to).await.expect("by address");
    assert_eq!(filtered.emails.len(), 1);
    assert_eq!((filtered.emails[0].kind.as_str(), filtered.emails[0].status.as_str()), ("verify-email", "queued"));
    let by_kind = AdminEmailsQuery { kind: Some("password-reset".into()), ..AdminEmailsQuery::default() };
    assert!(admin.admin_emails(&by_kind).await.expect("by kind").emails.is_empty());
    let by_status = AdminEmailsQuery { status: Some("queued".into()), ..AdminEmailsQuery::default() };
    assert_eq!(admin.admin_emails(&by_status).await.expect("by status").emails.len(), 4);

    let mut seen = Vec::new();
    let mut query = AdminEmailsQuery { limit: Some(3), ..AdminEmailsQuery::default() };
    loop {
        let page = admin.admin_emails(&query).await.expect("page");
        seen.extend(page.emails.into_iter().map(|e| e.id));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => break,
        }
    }
    assert_eq!(seen, all.emails.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), "pages cover the list once");

    let one = admin.admin_email(&filtered.emails[0].id).await.expect("one letter").email;
    assert_eq!(one.to, emails[1]);
    assert!(one.html.as_deref().is_some_and(|h| h.contains("verify-email?token=")), "the archived html");
    assert!(one.text.as_deref().is_some_and(|t| t.contains("verify-email?token=")), "the archived text");

    for (query, want) in [
        ("id=0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", (404, "NOT_FOUND")),
        ("id=not-an-id", (404, "NOT_FOUND")),
        ("status=lost", (400, "BAD_STATUS")),
        ("limit=0", (400, "BAD_LIMIT")),
        ("limit=201", (400, "BAD_LIMIT")),
        ("cursor=abc", (400, "BAD_CURSOR")),
    ] {
        assert_eq!(raw_refusal(&admin, query).await, want, "{query}");
    }

    let house = House::new(&app, "archive-outsider").await;
    for client in [&house.session, &house.key] {
        let e = client.admin_emails(&AdminEmailsQuery::default()).await.expect_err("not an admin");
        assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
        let e = client.admin_email(&one.id).await.expect_err("not an admin");
        assert_eq!(code(&e).0, Some(403));
    }
    let e = app.client.admin_emails(&AdminEmailsQuery::default()).await.expect_err("no credential");
    assert_eq!(code(&e).0, Some(401));
}

/// The status and code of the admin's refusal of a `name=value` query.
async fn raw_refusal(admin: &Client, query: &str) -> (u16, &'static str) {
    let result = if let Some(id) = query.strip_prefix("id=") {
        admin.admin_email(id).await.map(|_| ())
    } else {
        let mut q = AdminEmailsQuery::default();
        let (name, value) = query.split_once('=').expect("name=value");
        match name {
            "status" => q.status = Some(value.into()),
            "limit" => q.limit = Some(value.parse().expect("number")),
            _ => q.cursor = Some(value.into()),
        }
        admin.admin_emails(&q).await.map(|_| ())
    };
    let e = result.expect_err("refused");
    let code = ["NOT_FOUND", "BAD_STATUS", "BAD_LIMIT", "BAD_CURSOR"]
        .into_iter()
        .find(|c| e.code() == Some(c))
        .unwrap_or("other");
    (e.status().unwrap_or_default(), code)
}

async fn the_drip_queues_each_letter_once(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let (admin_client, admin) = admin(&app).await;
    // Ada is verified and never develops; Bea is verified and develops; Cy never verifies.
    let ada = unique_email("drip-ada");
    sign_up(&app, &ada).await;
    app.client.verify_email(&token(&app, &ada, "verify-email").await).await.expect("verify");
    let bea = House::new(&app, "drip-bea").await;
    app.client.verify_email(&token(&app, &bea.email, "verify-email").await).await.expect("verify");
    let develop = studio_client::DevelopSubmit::new("upscale").input(
        "image",
        studio_client::InputSource::Bytes { file_name: "in.png".into(), bytes: studio_tests::images::png(40, 40) },
    );
    bea.key.submit_develop(&develop).await.expect("a develop");
    sign_up(&app, &unique_email("drip-cy")).await;

    let run = admin_client.trigger_drip().await.expect("drip");
    assert_eq!((run.queued, run.checked), (2, 2), "a welcome to each verified person");
    let again = admin_client.trigger_drip().await.expect("drip again");
    assert_eq!((again.queued, again.checked), (0, 2), "each letter once");
    assert!(letter(&app, &ada, "drip-welcome").await.user_id.is_some());

    let now = chrono::Utc::now();
    let day2 = app.studio.mail().drip_at(&admin, now + chrono::Duration::days(2)).await.expect("day 2");
    assert_eq!(day2.queued, 1, "first-develop only to the person who has not developed");
    letter(&app, &ada, "drip-first-develop").await;
    let none = LetterFilter {
        to: Some(bea.email.clone()),
        kind: Some("drip-first-develop".into()),
        limit: 1,
        ..LetterFilter::default()
    };
    assert!(app.studio.storage().list_letters(&none).await.expect("letters").is_empty());
    assert_eq!(app.studio.mail().drip_at(&admin, now + chrono::Duration::days(2)).await.expect("again").queued, 0);
    let day7 = app.studio.mail().drip_at(&admin, now + chrono::Duration::days(7)).await.expect("day 7");
    assert_eq!(day7.queued, 2, "tips to both");
    let day30 = app.studio.mail().drip_at(&admin, now + chrono::Duration::days(30)).await.expect("day 30");
    assert_eq!((day30.queued, day30.checked), (0, 0), "nobody is inside the schedule any more");

    let house = House::new(&app, "drip-outsider").await;
    let e = house.session.trigger_drip().await.expect_err("not an admin");
    assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
    assert_eq!(app.client.trigger_drip().await.expect_err("no credential").status(), Some(401));
}
