//! Webhook endpoints (docs/webhooks.md) through studio-client on both backends: the secret
//! answered once and kept sealed, every role reading, only the owner or an admin writing, the
//! URL guard (https; loopback http only when allowed; private, loopback, link-local and
//! metadata targets refused, by literal and by a name that resolves to one), event kinds,
//! rotation, patch and delete, another house's 404; and the outbox: a develop's changes delivered
//! in order, retries on the schedule, an endpoint disabled when its attempts run out (its owner
//! told), a lease taken over after a worker died, two replicas delivering each event once.

use std::net::IpAddr;
use std::sync::Arc;
use studio_core::{JobId, WebhookId};

use studio_client::api::{DeliveriesQuery, NewWebhook, SeatRole, WebhookPatch};
use studio_core::{HostResolver, PreviewPolicy};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(
    webhook_endpoints_are_the_house_admins_to_write,
    webhook_targets_must_be_public_https,
    webhook_tests_and_replays_are_signed_logged_and_bounded,
    a_develops_changes_are_delivered_in_order_signed_and_numbered,
    a_failing_receiver_gets_the_event_again_after_each_failure,
    an_endpoint_whose_attempts_run_out_is_disabled_and_its_owner_told,
    a_delivery_whose_worker_died_is_made_once_its_lease_lapses,
    an_earlier_change_queued_later_still_leaves_first,
    two_replicas_deliver_a_thousand_events_once_each,
    a_develops_own_webhook_url_is_signed_by_the_default_endpoint,
    a_develops_silent_url_does_not_hold_back_its_endpoint,
    a_change_never_published_is_caught_up_when_a_process_starts
);

fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

fn hook(url: &str) -> NewWebhook {
    NewWebhook { url: url.into(), ..Default::default() }
}

/// Every name resolves to the addresses it was built with (a DNS answer the test chooses).
#[derive(Debug)]
struct Resolves(Vec<IpAddr>);

#[async_trait::async_trait]
impl HostResolver for Resolves {
    async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(self.0.clone())
    }
}

async fn webhook_endpoints_are_the_house_admins_to_write(backend: Backend) {
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.allow_http_loopback = true;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hooks").await;
    let other = House::new(&app, "hooks-other").await;
    let admin = house.seat(&app, "hooks-admin", SeatRole::Admin).await;
    let member = house.seat(&app, "hooks-member", SeatRole::Member).await;
    let viewer = house.seat(&app, "hooks-viewer", SeatRole::Viewer).await;
    let owner = &house.session;

    let new = NewWebhook {
        url: " http://127.0.0.1:4999/hook ".into(),
        description: Some("  Our shop  ".into()),
        events: Some(vec!["job".into(), "pack.ready".into(), "job".into()]),
        enabled: None,
    };
    let created = owner.create_webhook(&new).await.expect("owner creates");
    let w = &created.webhook;
    assert!(w.id.starts_with("whk_"), "{}", w.id);
    assert_eq!(w.url, "http://127.0.0.1:4999/hook");
    assert_eq!(w.description, "Our shop");
    assert_eq!(w.events, vec!["job", "pack.ready"]);
    assert!(w.enabled && w.disabled_reason.is_none());
    assert!(created.secret.starts_with("whsec_"), "a Standard Webhooks secret");

    // The secret is answered once: no read shows it, and the database keeps it sealed.
    for reader in [owner, &house.key, &member.session, &viewer.session, &admin.session] {
        let listed = reader.webhooks().await.expect("every role reads");
        assert_eq!(listed.webhooks, vec![w.clone()]);
        let text = serde_json::to_string(&reader.webhook(&w.id).await.expect("read")).unwrap();
        assert!(!text.contains(&created.secret) && !text.contains("whsec_"), "{text}");
    }
    let row = app.studio.storage().webhook(&house.org_id, &WebhookId::from(&w.id)).await.unwrap().expect("stored");
    let secret_body = created.secret.trim_start_matches("whsec_");
    assert!(!row.secret_sealed.contains(secret_body), "the stored secret is sealed");
    assert!(row.secret_sealed.starts_with("v1."));

    // Only the owner or an admin writes; keys are at most members.
    let by_admin = admin.session.create_webhook(&hook("http://127.0.0.1:4999/admin")).await.expect("admin creates");
    for writer in [&house.key, &member.session, &viewer.session] {
        let e = writer.create_webhook(&hook("http://127.0.0.1:4999/no")).await.unwrap_err();
        assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));
        let e = writer.patch_webhook(&w.id, &WebhookPatch { enabled: Some(false), ..Default::default() }).await;
        assert_eq!(refused(e.unwrap_err()), (Some(403), "FORBIDDEN".into()));
        assert_eq!(refused(writer.rotate_webhook_secret(&w.id).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
        assert_eq!(refused(writer.delete_webhook(&w.id).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    }

    // Event kinds are the socket's own, or `*`.
    let e = owner
        .create_webhook(&NewWebhook { events: Some(vec!["job.done".into()]), ..hook("http://127.0.0.1:4999/x") })
        .await
        .unwrap_err();
    assert_eq!(refused(e), (Some(400), "UNKNOWN_EVENT".into()));
    assert_eq!(by_admin.webhook.events, vec!["*"], "all kinds by default");

    // Rotation: a new secret, answered once; the previous one is kept sealed for 24 hours.
    let rotated = owner.rotate_webhook_secret(&w.id).await.expect("rotate");
    assert!(rotated.secret.starts_with("whsec_") && rotated.secret != created.secret);
    let hours = (rotated.previous_secret_expires_at - chrono::Utc::now()).num_minutes();
    assert!((23 * 60..=24 * 60).contains(&hours), "{hours} minutes of overlap");
    let row_after =
        app.studio.storage().webhook(&house.org_id, &WebhookId::from(&w.id)).await.unwrap().expect("stored");
    assert_eq!(row_after.previous_sealed.as_deref(), Some(row.secret_sealed.as_str()));

    // Patch: each field given; a bad URL changes nothing.
    let patch = WebhookPatch {
        description: Some("renamed".into()),
        events: Some(vec!["*".into()]),
        enabled: Some(false),
        url: None,
    };
    let patched = admin.session.patch_webhook(&w.id, &patch).await.expect("admin patches");
    assert_eq!((patched.description.as_str(), patched.enabled), ("renamed", false));
    assert_eq!(patched.events, vec!["*"]);
    let e = owner.patch_webhook(&w.id, &WebhookPatch { url: Some("ftp://x".into()), ..Default::default() }).await;
    assert_eq!(refused(e.unwrap_err()), (Some(400), "BAD_WEBHOOK_URL".into()));
    assert_eq!(owner.webhook(&w.id).await.unwrap().url, "http://127.0.0.1:4999/hook");

    // Another house sees none of it and reaches none of it.
    assert!(other.key.webhooks().await.expect("own list").webhooks.is_empty());
    assert_eq!(refused(other.key.webhook(&w.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    let e = other.session.patch_webhook(&w.id, &patch).await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "NOT_FOUND".into()));
    assert_eq!(refused(other.session.rotate_webhook_secret(&w.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert_eq!(refused(other.session.delete_webhook(&w.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));

    // Delete, then it is gone.
    let deleted = owner.delete_webhook(&w.id).await.expect("delete");
    assert!(deleted.deleted && deleted.id == w.id);
    assert_eq!(refused(owner.webhook(&w.id).await.unwrap_err()), (Some(404), "NOT_FOUND".into()));
    assert_eq!(owner.webhooks().await.unwrap().webhooks.len(), 1, "the admin's endpoint stays");
}

async fn webhook_targets_must_be_public_https(backend: Backend) {
    // Every name resolves to a private address: a DNS answer no URL check can see.
    let private: IpAddr = "10.1.2.3".parse().unwrap();
    let Some(app) = spawn(backend, move |c| {
        c.runner_concurrency = 0;
        c.link_preview = PreviewPolicy::with_resolver(Arc::new(Resolves(vec![private])));
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-targets").await;
    let owner = &house.session;
    for (url, code) in [
        ("http://127.0.0.1:4999/hook", "BAD_WEBHOOK_URL"),
        ("http://93.184.216.34/hook", "BAD_WEBHOOK_URL"),
        ("ftp://93.184.216.34/hook", "BAD_WEBHOOK_URL"),
        ("https://user:pw@93.184.216.34/hook", "BAD_WEBHOOK_URL"),
        ("", "BAD_WEBHOOK_URL"),
        ("https://127.0.0.1/hook", "WEBHOOK_TARGET_REFUSED"),
        ("https://10.0.0.7/hook", "WEBHOOK_TARGET_REFUSED"),
        ("https://192.168.1.20/hook", "WEBHOOK_TARGET_REFUSED"),
        ("https://169.254.169.254/latest/meta-data", "WEBHOOK_TARGET_REFUSED"),
        ("https://[::1]/hook", "WEBHOOK_TARGET_REFUSED"),
        ("https://[fe80::1]/hook", "WEBHOOK_TARGET_REFUSED"),
        ("https://hooks.example.com/in", "WEBHOOK_TARGET_REFUSED"),
    ] {
        let e = owner.create_webhook(&hook(url)).await.unwrap_err();
        assert_eq!(refused(e), (Some(400), code.into()), "{url}");
    }
    // A public address literal passes (nothing is sent at creation).
    let ok = owner.create_webhook(&hook("https://93.184.216.34/hook")).await.expect("public https");
    assert_eq!(ok.webhook.url, "https://93.184.216.34/hook");
    assert_eq!(owner.webhooks().await.unwrap().webhooks.len(), 1, "nothing refused was kept");
}

/// What the local receiver was sent: headers and body of each request, in order.
#[derive(Debug, Clone, Default)]
struct Received(Arc<std::sync::Mutex<Vec<(axum::http::HeaderMap, bytes::Bytes)>>>);

/// A receiver on 127.0.0.1 that answers each request with the next status of `script` (the
/// last one repeated), a redirect `Location` for a 3xx, and a body longer than the log keeps.
async fn receiver(script: Vec<u16>) -> (String, Received) {
    use axum::http::{HeaderMap, StatusCode};
    let received = Received::default();
    let log = received.clone();
    let handler = move |headers: HeaderMap, body: bytes::Bytes| {
        let log = log.clone();
        let script = script.clone();
        async move {
            let n = {
                let mut seen = log.0.lock().unwrap();
                seen.push((headers, body));
                seen.len()
            };
            let status = script.get(n - 1).or(script.last()).copied().unwrap_or(200);
            let code = StatusCode::from_u16(status).unwrap();
            let mut res = axum::response::Response::new(axum::body::Body::from("x".repeat(4000)));
            *res.status_mut() = code;
            if code.is_redirection() {
                res.headers_mut().insert("location", "https://elsewhere.example/hook".parse().unwrap());
            }
            res
        }
    };
    let app = axum::Router::new().route("/hook", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (format!("http://{addr}/hook"), received)
}

/// A resolver whose answer the test changes midway (a DNS change).
#[derive(Debug)]
struct Switchable(Arc<std::sync::Mutex<Vec<IpAddr>>>);

#[async_trait::async_trait]
impl HostResolver for Switchable {
    async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(self.0.lock().unwrap().clone())
    }
}

async fn webhook_tests_and_replays_are_signed_logged_and_bounded(backend: Backend) {
    let dns = Arc::new(std::sync::Mutex::new(vec!["127.0.0.1".parse::<IpAddr>().unwrap()]));
    let resolver = Switchable(dns.clone());
    let Some(app) = spawn(backend, move |c| {
        c.runner_concurrency = 0;
        c.webhooks.allow_http_loopback = true;
        c.link_preview = PreviewPolicy::with_resolver(Arc::new(resolver));
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-log").await;
    let owner = &house.session;
    // 500, then 200, then a redirect, then 410.
    let (url, received) = receiver(vec![500, 200, 301, 410]).await;
    let created = owner.create_webhook(&hook(&url)).await.expect("create");
    let id = created.webhook.id.clone();

    let first = owner.test_webhook(&id).await.expect("test answers the attempt");
    assert_eq!((first.ok, first.status, first.event.as_str(), first.attempt), (false, Some(500), "ping", 1));
    assert_eq!(first.error.as_deref(), Some("answered 500 Internal Server Error"));
    assert_eq!(first.response.as_ref().map(String::len), Some(1024), "the answer is kept up to 1 KB");
    // The receiver got a Standard Webhooks delivery its secret verifies.
    let (headers, body) = received.0.lock().unwrap()[0].clone();
    let mut map = reqwest::header::HeaderMap::new();
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        map.insert(name, headers.get(name).expect(name).to_str().unwrap().parse().unwrap());
    }
    let verified = studio_client::verify_webhook(&created.secret, &map, &body).expect("signed with the secret");
    assert_eq!(verified, first.delivery_id);
    let sent: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((sent["type"].as_str(), sent["webhookId"].as_str()), (Some("ping"), Some(id.as_str())));

    // A replay resends the same bytes under the same webhook-id, as the next attempt.
    let again = owner.replay_webhook_delivery(&id, &first.delivery_id).await.expect("replay");
    assert_eq!((again.ok, again.status, again.attempt), (true, Some(200), 2));
    assert_eq!(again.delivery_id, first.delivery_id);
    let (headers2, body2) = received.0.lock().unwrap()[1].clone();
    assert_eq!(body2, body, "the same bytes");
    assert_eq!(headers2.get("webhook-id"), headers.get("webhook-id"));
    let e = owner.replay_webhook_delivery(&id, "msg_nope").await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "DELIVERY_NOT_FOUND".into()));

    // A redirect is a failure that says where, and is not followed.
    let moved = owner.test_webhook(&id).await.expect("test");
    assert_eq!((moved.ok, moved.status), (false, Some(301)));
    assert_eq!(moved.error.as_deref(), Some("redirect to https://elsewhere.example/hook (not followed)"));
    assert_eq!(received.0.lock().unwrap().len(), 3, "nothing went to the redirect's target");

    // 410 disables the endpoint, with the reason.
    let gone = owner.test_webhook(&id).await.expect("test");
    assert_eq!((gone.ok, gone.status), (false, Some(410)));
    let endpoint = owner.webhook(&id).await.unwrap();
    assert!(!endpoint.enabled);
    assert_eq!(endpoint.disabled_reason.as_deref(), Some("The receiver answered 410 Gone."));
    let enabled = owner.patch_webhook(&id, &WebhookPatch { enabled: Some(true), ..Default::default() }).await;
    assert!(enabled.unwrap().disabled_reason.is_none(), "enabling clears the reason");

    // The log: one row per attempt, newest first, paged; any role reads it.
    let log = house.key.webhook_deliveries(&id, &DeliveriesQuery::default()).await.expect("log");
    let attempts: Vec<(Option<u16>, i32)> = log.deliveries.iter().map(|d| (d.status, d.attempt)).collect();
    assert_eq!(attempts, vec![(Some(410), 1), (Some(301), 1), (Some(200), 2), (Some(500), 1)]);
    assert!(log.next_cursor.is_none());
    let page = owner.webhook_deliveries(&id, &DeliveriesQuery { limit: Some(3), cursor: None }).await.unwrap();
    let rest = owner.webhook_deliveries(&id, &DeliveriesQuery { limit: Some(3), cursor: page.next_cursor }).await;
    assert_eq!(rest.unwrap().deliveries, log.deliveries[3..].to_vec());
    let e = owner.webhook_deliveries(&id, &DeliveriesQuery { limit: Some(0), cursor: None }).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_LIMIT".into()));
    let e = house.key.test_webhook(&id).await.unwrap_err();
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));

    // A name that resolved to an allowed address at creation and later resolves to a private
    // one (a DNS change) is refused at delivery, before anything is sent.
    let named = url.replace("127.0.0.1", "hooks.test");
    let target = owner.create_webhook(&hook(&named)).await.expect("create by name").webhook;
    let ok = owner.test_webhook(&target.id).await.expect("test");
    assert_eq!(ok.status, Some(410), "delivered to the loopback address the name had");
    let before = received.0.lock().unwrap().len();
    *dns.lock().unwrap() = vec!["10.9.8.7".parse().unwrap()];
    let refused_at_delivery = owner.test_webhook(&target.id).await.expect("answered");
    assert!(!refused_at_delivery.ok && refused_at_delivery.status.is_none());
    let error = refused_at_delivery.error.clone().unwrap_or_default();
    assert!(error.starts_with("refused:") && error.contains("10.9.8.7"), "{error}");
    assert_eq!(received.0.lock().unwrap().len(), before, "nothing was sent");
}

/// A server whose workers deliver webhooks to loopback receivers, looking for due ones every
/// 50 ms; `tweak` changes the rest.
async fn delivering(
    backend: Backend,
    tweak: impl FnOnce(&mut studio_server::ServerConfig),
) -> Option<studio_tests::TestApp> {
    spawn(backend, |c| {
        c.webhooks.allow_http_loopback = true;
        c.webhooks.poll_ms = 50;
        tweak(c);
    })
    .await
}

/// Headers and bodies the receiver got, as (webhook-id, parsed body) in arrival order.
fn deliveries_of(received: &Received) -> Vec<(String, serde_json::Value)> {
    received
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(h, b)| {
            let id = h.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            (id, serde_json::from_slice(b).unwrap_or_default())
        })
        .collect()
}

/// Wait up to 20 s until the receiver got `n` requests.
async fn until_received(received: &Received, n: usize) {
    for _ in 0..400 {
        if received.0.lock().unwrap().len() >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the receiver got {} requests, not {n}", received.0.lock().unwrap().len());
}

/// A job change queued for `endpoint`, due now, as a publish queues one.
fn job_change(org_id: &str, endpoint: &str, seq: i64, payload: String) -> studio_core::WebhookDeliveryRow {
    let at = chrono::Utc::now();
    studio_core::WebhookDeliveryRow::pending(
        (&org_id.into(), &endpoint.into(), None),
        ("job", Some(seq), payload),
        at,
        at,
    )
}

/// The outbox's rows of a house by status.
async fn outbox(app: &studio_tests::TestApp, org_id: &str) -> Vec<(String, i64)> {
    app.studio.storage().webhook_delivery_counts(&org_id.into()).await.expect("counts")
}

fn upscale() -> studio_client::DevelopSubmit {
    studio_client::DevelopSubmit::new("upscale")
        .input(
            "image",
            studio_client::InputSource::Bytes { file_name: "in.png".into(), bytes: studio_tests::images::png(60, 40) },
        )
        .quality(studio_client::api::Quality::K1)
}

async fn a_develops_changes_are_delivered_in_order_signed_and_numbered(backend: Backend) {
    let Some(app) = delivering(backend, |_| {}).await else { return };
    let house = House::new(&app, "hook-order").await;
    let owner = &house.session;
    let (url, received) = receiver(vec![200]).await;
    let jobs =
        owner.create_webhook(&NewWebhook { events: Some(vec!["job".into()]), ..hook(&url) }).await.expect("create");
    // Subscribed to packs only: a develop sends it nothing.
    let (pack_url, pack_received) = receiver(vec![200]).await;
    owner
        .create_webhook(&NewWebhook { events: Some(vec!["pack.ready".into()]), ..hook(&pack_url) })
        .await
        .expect("create");

    let accepted = house.key.submit_develop(&upscale()).await.expect("submit");
    let mut status = house.key.job(&accepted.job_id).await.expect("job");
    for _ in 0..400 {
        if status.status.is_terminal() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        status = house.key.job(&accepted.job_id).await.expect("job");
    }
    assert_eq!(status.status, studio_client::api::JobStatus::Done, "{status:?}");
    // queued, running, done: one delivery each, in the order they happened.
    until_received(&received, 3).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let got = deliveries_of(&received);
    let states: Vec<&str> = got.iter().map(|(_, b)| b["job"]["status"].as_str().unwrap_or("")).collect();
    assert_eq!(states, vec!["queued", "running", "done"], "{got:?}");
    let seqs: Vec<i64> = got.iter().map(|(_, b)| b["job"]["eventSeq"].as_i64().expect("eventSeq")).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "event numbers rise: {seqs:?}");
    assert!(got.iter().all(|(_, b)| b["type"] == "job" && b["job"]["id"] == accepted.job_id.as_str()));
    let ids: std::collections::HashSet<&String> = got.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), 3, "one webhook-id per event");
    // Each verifies with the endpoint's secret.
    for (headers, body) in received.0.lock().unwrap().iter() {
        let mut map = reqwest::header::HeaderMap::new();
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            map.insert(name, headers.get(name).expect(name).to_str().unwrap().parse().unwrap());
        }
        studio_client::verify_webhook(&jobs.secret, &map, body).expect("signed with the endpoint's secret");
    }
    // The log shows each as one successful first attempt.
    let log = owner.webhook_deliveries(&jobs.webhook.id, &DeliveriesQuery::default()).await.expect("log");
    assert_eq!(log.deliveries.len(), 3);
    assert!(log.deliveries.iter().all(|d| d.ok && d.attempt == 1 && d.event == "job" && d.next_attempt_at.is_none()));
    assert_eq!(log.deliveries[0].event_seq, seqs.last().copied(), "newest first, with its event number");
    assert!(pack_received.0.lock().unwrap().is_empty(), "an endpoint gets only the kinds it asked for");
    assert_eq!(outbox(&app, &house.org_id).await, vec![("delivered".to_string(), 3)]);
}

async fn a_failing_receiver_gets_the_event_again_after_each_failure(backend: Backend) {
    let Some(app) = delivering(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.retry_schedule = vec![0, 0, 0, 0];
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-retry").await;
    let (url, received) = receiver(vec![500, 500, 500, 200]).await;
    let id = house.session.create_webhook(&hook(&url)).await.expect("create").webhook.id;
    // With the runner off, the submit's `queued` is the one event.
    house.key.submit_develop(&upscale()).await.expect("submit");
    until_received(&received, 4).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let got = deliveries_of(&received);
    assert_eq!(got.len(), 4, "exactly once more after each failure, and not after the success");
    assert!(got.iter().all(|(id, body)| *id == got[0].0 && *body == got[0].1), "the same event, the same webhook-id");
    let log = house.key.webhook_deliveries(&id, &DeliveriesQuery::default()).await.expect("log");
    let attempts: Vec<(i32, bool, Option<u16>)> = log.deliveries.iter().map(|d| (d.attempt, d.ok, d.status)).collect();
    assert_eq!(
        attempts,
        vec![(4, true, Some(200)), (3, false, Some(500)), (2, false, Some(500)), (1, false, Some(500))]
    );
    assert!(log.deliveries[1].next_attempt_at.is_some(), "a failed attempt says when the next is due");
    assert!(log.deliveries.iter().all(|d| d.delivery_id == got[0].0));
    assert_eq!(outbox(&app, &house.org_id).await, vec![("delivered".to_string(), 1)]);
    assert!(house.session.webhook(&id).await.unwrap().enabled, "a recovered receiver stays enabled");
}

async fn an_endpoint_whose_attempts_run_out_is_disabled_and_its_owner_told(backend: Backend) {
    let Some(app) = delivering(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.retry_schedule = vec![0];
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-out").await;
    // A redirect, then a 503: two attempts, both failed, and the schedule has no more.
    let (url, received) = receiver(vec![301, 503]).await;
    let id = house.session.create_webhook(&hook(&url)).await.expect("create").webhook.id;
    house.key.submit_develop(&upscale()).await.expect("submit");
    until_received(&received, 2).await;
    let mut endpoint = house.session.webhook(&id).await.unwrap();
    for _ in 0..100 {
        if !endpoint.enabled {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        endpoint = house.session.webhook(&id).await.unwrap();
    }
    assert!(!endpoint.enabled, "disabled when its attempts ran out");
    let reason = endpoint.disabled_reason.clone().unwrap_or_default();
    assert!(
        reason.starts_with("All 2 attempts of delivery msg_")
            && reason.ends_with("the last: answered 503 Service Unavailable."),
        "{reason}"
    );
    let log = house.key.webhook_deliveries(&id, &DeliveriesQuery::default()).await.expect("log");
    assert_eq!(log.deliveries[1].error.as_deref(), Some("redirect to https://elsewhere.example/hook (not followed)"));
    assert_eq!(received.0.lock().unwrap().len(), 2, "the redirect was not followed");
    // The owner gets one letter that says which endpoint and why.
    let filter = studio_core::LetterFilter {
        to: Some(house.email.clone()),
        kind: Some("webhook_disabled".into()),
        limit: 10,
        ..Default::default()
    };
    let letters = app.studio.storage().list_letters(&filter).await.expect("letters");
    assert_eq!(letters.len(), 1, "one letter to the owner");
    assert!(letters[0].text.contains(&id) && letters[0].text.contains(&reason), "{}", letters[0].text);
    // While disabled, new events are not queued for it, and nothing more is sent.
    house.key.submit_develop(&upscale()).await.expect("submit");
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(received.0.lock().unwrap().len(), 2);
    assert_eq!(outbox(&app, &house.org_id).await, vec![("failed".to_string(), 1)]);
}

/// A second core on `app`'s database with the server's own settings (signing key included),
/// as another replica or the same server started again.
async fn another_process(app: &studio_tests::TestApp) -> studio_core::Studio {
    studio_core::Studio::open(
        &app.database_url,
        &studio_core::BlobConfig::Local(app.data_dir.join("blobs")),
        app.studio.config().clone(),
    )
    .await
    .expect("a second core on the same database")
}

async fn a_delivery_whose_worker_died_is_made_once_its_lease_lapses(backend: Backend) {
    // The server delivers nothing itself: the test plays the worker that dies and the one after.
    let Some(app) = delivering(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.workers = 0;
        c.webhooks.settle_ms = 0;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-lease").await;
    let (url, received) = receiver(vec![200]).await;
    let id = house.session.create_webhook(&hook(&url)).await.expect("create").webhook.id;
    house.key.submit_develop(&upscale()).await.expect("submit");
    assert_eq!(outbox(&app, &house.org_id).await, vec![("pending".to_string(), 1)]);

    // A worker claims it for two seconds and dies before sending anything.
    let storage = app.studio.storage();
    let at = chrono::Utc::now();
    let claimed = storage.claim_webhook_delivery("dead-worker", at, at + chrono::Duration::seconds(2)).await.unwrap();
    let claimed = claimed.expect("due");
    assert_eq!(claimed.attempts, 1);
    // While its lease holds, no other worker takes it.
    let restarted = another_process(&app).await;
    assert_eq!(restarted.webhooks().deliver_due().await.unwrap(), 0, "the lease holds");
    assert!(received.0.lock().unwrap().is_empty());
    // Once it lapses, the next worker makes the attempt, once.
    tokio::time::sleep(std::time::Duration::from_millis(2_200)).await;
    assert_eq!(restarted.webhooks().deliver_due().await.unwrap(), 1);
    assert_eq!(restarted.webhooks().deliver_due().await.unwrap(), 0);
    let got = deliveries_of(&received);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, claimed.id, "under the delivery's own webhook-id");
    // The dead worker's late word changes nothing.
    let claimed_id = claimed.id.clone();
    let late = storage.finish_webhook_delivery(
        &claimed_id,
        "dead-worker",
        studio_core::DeliveryFate::Failed,
        chrono::Utc::now(),
    );
    assert!(!late.await.unwrap(), "a lapsed claim cannot record a fate");
    assert_eq!(outbox(&app, &house.org_id).await, vec![("delivered".to_string(), 1)]);
    let log = house.key.webhook_deliveries(&id, &DeliveriesQuery::default()).await.expect("log");
    assert_eq!(log.deliveries.len(), 1);
    assert_eq!((log.deliveries[0].attempt, log.deliveries[0].ok), (2, true), "the lost attempt is counted");
}

async fn an_earlier_change_queued_later_still_leaves_first(backend: Backend) {
    // Two changes of one job published in the other order than they were made (a submit's
    // `queued` and the runner's `running` race): the later event waits for the earlier one.
    let Some(app) = delivering(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.workers = 0;
    })
    .await
    else {
        return;
    };
    assert_eq!(app.studio.config().webhooks.settle_ms, 250, "the default settle");
    let house = House::new(&app, "hook-order").await;
    let (url, _received) = receiver(vec![200]).await;
    let id = house.session.create_webhook(&hook(&url)).await.expect("create").webhook.id;
    let storage = app.studio.storage();
    let change = |seq: i64, due: chrono::DateTime<chrono::Utc>| {
        let payload = serde_json::json!({"type": "job", "job": {"eventSeq": seq}}).to_string();
        let mut row = job_change(&house.org_id, &id, seq, payload);
        row.next_attempt_at = due;
        row
    };
    let now = chrono::Utc::now();
    let claim = |at: chrono::DateTime<chrono::Utc>| {
        storage.claim_webhook_delivery("worker", at, at + chrono::Duration::seconds(30))
    };
    let done = |row: studio_core::WebhookDeliveryRow, fate| async move {
        assert!(storage.finish_webhook_delivery(&row.id, "worker", fate, chrono::Utc::now()).await.unwrap());
    };
    // Event 11 is queued and due; event 10 arrives after it and is still settling.
    storage.enqueue_webhook_deliveries(&[change(11, now)]).await.unwrap();
    storage.enqueue_webhook_deliveries(&[change(10, now + chrono::Duration::seconds(1))]).await.unwrap();
    assert!(claim(now).await.unwrap().is_none(), "11 waits while 10 settles");
    let later = now + chrono::Duration::seconds(2);
    let first = claim(later).await.unwrap().expect("10 is due");
    assert_eq!(first.event_seq, Some(10));
    assert!(claim(later).await.unwrap().is_none(), "one attempt at a time per target");
    // Event 10 fails and waits for its retry: a retry holds nothing back, so 11 leaves.
    done(first, studio_core::DeliveryFate::Retry(now + chrono::Duration::hours(1))).await;
    let second = claim(later).await.unwrap().expect("11 is due");
    assert_eq!(second.event_seq, Some(11));
    done(second, studio_core::DeliveryFate::Delivered).await;
    assert!(claim(later).await.unwrap().is_none(), "10 waits for its retry's time");
}

async fn two_replicas_deliver_a_thousand_events_once_each(backend: Backend) {
    let Some(app) = delivering(backend, |c| {
        c.runner_concurrency = 0;
        c.webhooks.workers = 0;
        c.webhooks.poll_ms = 20;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "hook-replicas").await;
    let (url_a, received_a) = receiver(vec![200]).await;
    let (url_b, received_b) = receiver(vec![200]).await;
    let a = house.session.create_webhook(&hook(&url_a)).await.expect("create").webhook.id;
    let b = house.session.create_webhook(&hook(&url_b)).await.expect("create").webhook.id;
    // A thousand events, each queued for both endpoints (as a publish queues them).
    const EVENTS: i64 = 1_000;
    let mut rows = Vec::new();
    for seq in 1..=EVENTS {
        for endpoint in [&a, &b] {
            let payload = serde_json::json!({"type": "job", "job": {"eventSeq": seq}}).to_string();
            rows.push(job_change(&house.org_id, endpoint, seq, payload));
        }
    }
    app.studio.storage().enqueue_webhook_deliveries(&rows).await.expect("queue");
    // Two replicas, each with its workers, on the one database.
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let replica = another_process(&app).await;
        replicas.push(tokio::spawn(async move { replica.webhooks().run_worker(std::future::pending::<()>()).await }));
    }
    let total = (EVENTS * 2) as usize;
    for _ in 0..1_200 {
        if received_a.0.lock().unwrap().len() + received_b.0.lock().unwrap().len() >= total {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    for replica in replicas {
        replica.abort();
    }
    for received in [&received_a, &received_b] {
        let got = deliveries_of(received);
        let ids: std::collections::HashSet<&String> = got.iter().map(|(id, _)| id).collect();
        assert_eq!(got.len(), EVENTS as usize, "each event once to each endpoint: no duplicate, none lost");
        assert_eq!(ids.len(), EVENTS as usize);
        let mut seqs: Vec<i64> = got.iter().map(|(_, b)| b["job"]["eventSeq"].as_i64().unwrap()).collect();
        seqs.sort_unstable();
        assert_eq!(seqs, (1..=EVENTS).collect::<Vec<_>>());
    }
    assert_eq!(outbox(&app, &house.org_id).await, vec![("delivered".to_string(), EVENTS * 2)]);
}

/// Poll a develop until it ends.
async fn until_done(client: &studio_client::Client, job_id: &str) {
    for _ in 0..400 {
        if client.job(job_id).await.expect("job").status.is_terminal() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("{job_id} did not end");
}

async fn a_develops_own_webhook_url_is_signed_by_the_default_endpoint(backend: Backend) {
    let Some(app) = delivering(backend, |_| {}).await else { return };
    let house = House::new(&app, "hook-own").await;
    let (own_url, own) = receiver(vec![200]).await;

    // Refused before anything is held: no endpoint to sign with, a URL that is not allowed.
    let before = house.key.balance().await.unwrap();
    let e = house.key.submit_develop(&upscale().webhook_url(&own_url)).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "NO_WEBHOOK_ENDPOINT".into()));
    // The agent endpoint's start_develop refuses it the same way.
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "start_develop",
        "arguments": {"tool": "upscale", "quality": "1k", "inputs": {"image": "ast_any"}, "webhookUrl": own_url}}});
    let result = house.key.mcp(&call).await.expect("mcp").expect("an answer")["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    let error = result["structuredContent"]["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("NO_WEBHOOK_ENDPOINT"), "{error}");
    let (default_url, default_received) = receiver(vec![200]).await;
    let default = house
        .session
        .create_webhook(&NewWebhook { events: Some(vec!["pack.ready".into()]), ..hook(&default_url) })
        .await
        .expect("the default endpoint");
    let (later_url, _) = receiver(vec![200]).await;
    let later_hook = NewWebhook { events: Some(vec!["pack.ready".into()]), ..hook(&later_url) };
    let later = house.session.create_webhook(&later_hook).await.expect("a later endpoint");
    for (url, code) in
        [("ftp://127.0.0.1/hook", "BAD_WEBHOOK_URL"), ("https://10.0.0.9/hook", "WEBHOOK_TARGET_REFUSED")]
    {
        let e = house.key.submit_develop(&upscale().webhook_url(url)).await.unwrap_err();
        assert_eq!(refused(e), (Some(400), code.into()), "{url}");
    }
    let after = house.key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, before.held), "nothing was held");
    assert!(house.key.jobs_since(0).await.unwrap().jobs.is_empty(), "nothing was queued");

    // The develop's three changes go to its own URL, signed with the oldest endpoint's secret.
    let accepted = house.key.submit_develop(&upscale().webhook_url(&own_url)).await.expect("submit");
    until_done(&house.key, &accepted.job_id).await;
    until_received(&own, 3).await;
    let got = deliveries_of(&own);
    let states: Vec<&str> = got.iter().map(|(_, b)| b["job"]["status"].as_str().unwrap_or("")).collect();
    assert_eq!(states, vec!["queued", "running", "done"]);
    for (headers, body) in own.0.lock().unwrap().iter() {
        let mut map = reqwest::header::HeaderMap::new();
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            map.insert(name, headers.get(name).expect(name).to_str().unwrap().parse().unwrap());
        }
        studio_client::verify_webhook(&default.secret, &map, body).expect("signed with the default endpoint's secret");
        assert!(studio_client::verify_webhook(&later.secret, &map, body).is_err(), "not with another endpoint's");
    }
    assert!(default_received.0.lock().unwrap().is_empty(), "the endpoint's own URL gets none of it");
    let log = house.key.webhook_deliveries(&default.webhook.id, &DeliveriesQuery::default()).await.expect("log");
    assert_eq!(log.deliveries.len(), 3);
    assert!(log.deliveries.iter().all(|d| d.ok && d.url.as_deref() == Some(own_url.as_str())), "{log:?}");

    // A replay goes back to the develop's URL; a 410 there ends that delivery, not the endpoint.
    let replayed = house.session.replay_webhook_delivery(&default.webhook.id, &log.deliveries[0].delivery_id).await;
    assert_eq!(replayed.expect("replay").url.as_deref(), Some(own_url.as_str()));
    assert_eq!(own.0.lock().unwrap().len(), 4);
    let (gone_url, gone) = receiver(vec![410]).await;
    let second = house.key.submit_develop(&upscale().webhook_url(&gone_url)).await.expect("submit");
    until_done(&house.key, &second.job_id).await;
    until_received(&gone, 3).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(gone.0.lock().unwrap().len(), 3, "each change once: a 410 is not retried");
    let endpoint = house.session.webhook(&default.webhook.id).await.unwrap();
    assert!(endpoint.enabled && endpoint.disabled_reason.is_none(), "the endpoint stays enabled");
}

/// A receiver on 127.0.0.1 that counts requests and never answers one.
async fn silent_receiver() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = seen.clone();
    let handler = move || {
        let count = count.clone();
        async move {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::future::pending::<&'static str>().await
        }
    };
    let app = axum::Router::new().route("/hook", axum::routing::post(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (format!("http://{addr}/hook"), seen)
}

async fn a_develops_silent_url_does_not_hold_back_its_endpoint(backend: Backend) {
    let Some(app) = delivering(backend, |_| {}).await else { return };
    let house = House::new(&app, "hook-silent").await;
    let (url, received) = receiver(vec![200]).await;
    house.session.create_webhook(&hook(&url)).await.expect("create");
    let (silent, asked) = silent_receiver().await;
    // Each attempt to the silent URL holds a worker for 10 s; the endpoint's own copies of the
    // same changes are a target of their own and arrive meanwhile.
    let accepted = house.key.submit_develop(&upscale().webhook_url(&silent)).await.expect("submit");
    until_done(&house.key, &accepted.job_id).await;
    let started = std::time::Instant::now();
    until_received(&received, 3).await;
    let waited = started.elapsed();
    assert!(waited < std::time::Duration::from_secs(5), "the endpoint's deliveries waited {waited:?}");
    let got = deliveries_of(&received);
    let states: Vec<&str> = got.iter().map(|(_, b)| b["job"]["status"].as_str().unwrap_or("")).collect();
    assert_eq!(states, vec!["queued", "running", "done"]);
    let asked = asked.load(std::sync::atomic::Ordering::SeqCst);
    assert!((1..=3).contains(&asked), "the silent URL was asked {asked} times: one change at a time");
}

async fn a_change_never_published_is_caught_up_when_a_process_starts(backend: Backend) {
    let Some(app) = delivering(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "hook-catch-up").await;
    let (url, received) = receiver(vec![200]).await;
    let id = house.session.create_webhook(&hook(&url)).await.expect("create").webhook.id;
    let job = house.key.submit_develop(&upscale()).await.expect("submit").job_id;
    until_received(&received, 1).await;
    // The job changes in the database and the process dies before publishing it: the storage
    // call is the change without its publish.
    let storage = app.studio.storage();
    storage.cancel_job(&house.org_id, &JobId::from(&job), chrono::Utc::now()).await.expect("cancel");
    let cancelled = storage.job(&house.org_id, &JobId::from(&job)).await.unwrap().expect("job");
    assert_eq!(cancelled.status, studio_core::api::JobStatus::Cancelled);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(received.0.lock().unwrap().len(), 1, "nothing published, nothing sent");

    // A process starting again catches up: the change is queued and delivered, once.
    let restarted = another_process(&app).await;
    assert_eq!(restarted.webhooks().catch_up().await.unwrap(), 1);
    restarted.webhooks().deliver_due().await.unwrap();
    until_received(&received, 2).await;
    let got = deliveries_of(&received);
    assert_eq!(got[1].1["job"]["status"], "cancelled");
    assert_eq!(got[1].1["job"]["eventSeq"].as_i64(), Some(cancelled.event_seq));
    // Caught up again: nothing newer. And the same change queued a second time (a replica
    // catching up at the same moment) is skipped by the outbox, not sent twice.
    assert_eq!(restarted.webhooks().catch_up().await.unwrap(), 0);
    let again = job_change(&house.org_id, &id, cancelled.event_seq, got[1].1.to_string());
    storage.enqueue_webhook_deliveries(&[again]).await.expect("a duplicate is skipped, not refused");
    restarted.webhooks().deliver_due().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(received.0.lock().unwrap().len(), 2);
    assert_eq!(outbox(&app, &house.org_id).await, vec![("delivered".to_string(), 2)]);
    let log = house.key.webhook_deliveries(&id, &DeliveriesQuery::default()).await.expect("log");
    assert_eq!(log.deliveries.len(), 2);
}
