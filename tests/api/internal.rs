//! The internal machine routes (§4.13) and their admin twins on both backends: the machine
//! token matrix (each kind opens only its own routes; an unset kind is 401 for everyone), the
//! analyst's reads against data the test made, the render queue under ten concurrent
//! renderers, a stale claim taken over, complete and download, fail, the approval's 409 and the
//! summary with and without an AI reader.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::png;
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

backend_tests!(machine_tokens_open_only_their_kind, analyst_reads_count_what_was_made, render_queue_claims_each_once);

const ANALYST: &str = "t-analyst";
const ACTION: &str = "t-action";
const RENDERER: &str = "t-renderer";

/// A caller of the internal and admin routes.
struct Http<'a> {
    app: &'a TestApp,
    http: reqwest::Client,
}

impl Http<'_> {
    async fn call(
        &self,
        m: Method,
        path: &str,
        auth: Option<(&str, &str)>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut req = self.http.request(m, format!("{}{path}", self.app.base));
        match auth {
            Some(("bearer", t)) => req = req.bearer_auth(t),
            Some((_, session)) => req = req.header("cookie", format!("studio_session={session}")),
            None => {}
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.expect("send");
        let status = res.status();
        let bytes = res.bytes().await.unwrap_or_default();
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn analyst(&self, path: &str) -> Value {
        let (s, v) = self.call(Method::GET, path, Some(("bearer", ANALYST)), None).await;
        assert_eq!(s, 200, "{path}: {v}");
        v
    }

    async fn admin(&self, m: Method, path: &str, session: &str, body: Option<Value>) -> (StatusCode, Value) {
        self.call(m, path, Some(("session", session)), body).await
    }
}

async fn admin_session(app: &TestApp) -> String {
    let email = unique_email("internal-admin");
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&email).await.expect("admin add");
    signed.session
}

async fn machine_tokens_open_only_their_kind(backend: Backend) {
    // The renderer kind is left unset: 401 for everyone, even with a plausible token.
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.analyst_token = Some(ANALYST.into());
        c.action_token = Some(ACTION.into());
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "machine").await;
    let h = Http { app: &app, http: reqwest::Client::new() };
    let routes = [
        (Method::GET, "/api/internal/analyst/snapshot", None, Some(ANALYST)),
        (Method::POST, "/api/internal/analyst/actions/invitations/ireq_none/research", None, Some(ACTION)),
        (Method::POST, "/api/internal/replay-renders/claim", None, None),
    ];
    let tokens = [ANALYST, ACTION, RENDERER, house.secret.as_str(), "t-renderer-guess"];
    for (m, path, body, opens) in &routes {
        let (s, _) = h.call(m.clone(), path, None, body.clone()).await;
        assert_eq!(s, 401, "{path} with no credential");
        for token in tokens {
            let (s, v) = h.call(m.clone(), path, Some(("bearer", token)), body.clone()).await;
            if Some(token) == *opens {
                assert_ne!(s, 401, "{path} opens to its own kind: {v}");
            } else {
                assert_eq!((s.as_u16(), v["error"].as_str()), (401, Some("UNAUTHORIZED")), "{path} with {token}");
            }
        }
    }
    // The action route answers its own kind with the real outcome: an unknown application.
    let (s, v) = h.call(Method::POST, routes[1].1, Some(("bearer", ACTION)), None).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (404, Some("APPLICATION_NOT_FOUND")));
}

async fn analyst_reads_count_what_was_made(backend: Backend) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(completion(r#"{"summary": "The upscale waited in the queue and was never developed."}"#))
        .mount(&server)
        .await;
    let Some(app) = app_with_reader(backend, &server, |c| {
        c.analyst_token = Some(ANALYST.into());
        c.action_token = Some(ACTION.into());
    })
    .await
    else {
        return;
    };
    let h = Http { app: &app, http: reqwest::Client::new() };
    let house = House::new(&app, "analyst").await;
    let key = &house.key;
    for i in 0..2 {
        key.upload_bytes(&format!("{i}.png"), png(40, 30), &UploadOptions::default()).await.expect("upload");
    }
    let mut jobs = Vec::new();
    for _ in 0..3 {
        let submit = DevelopSubmit::new("upscale")
            .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(40, 40) })
            .quality(studio_client::api::Quality::K1);
        jobs.push(key.submit_develop(&submit).await.expect("submit").job_id);
    }
    key.remember(&studio_client::api::MemoryRequest {
        statement: "Grey grounds".into(),
        scope: studio_client::api::MemoryScope::House,
        memory_class: studio_client::api::MemoryClass::Preference,
        replaces_memory_id: None,
        kind: None,
        confidence: None,
    })
    .await
    .expect("memory");
    let admin = admin_session(&app).await;

    let snap = h.analyst("/api/internal/analyst/snapshot").await;
    assert_eq!(snap["houses"], 2, "the house and the admin's own: {snap}");
    assert_eq!(snap["uploadsInWindow"], 2);
    assert_eq!(snap["developsInWindow"], 3);
    assert!(snap["jobsByStatus"].as_array().expect("statuses").contains(&json!({"key": "queued", "n": 3})));
    assert_eq!(snap["tokens"]["held"], 27, "three 1k upscales of 9 held");

    let funnel = h.analyst("/api/internal/analyst/funnel?hours=1").await;
    assert_eq!(
        (&funnel["signedUp"], &funnel["firstKey"], &funnel["firstUpload"], &funnel["firstDevelop"]),
        (&json!(2), &json!(1), &json!(1), &json!(1)),
        "{funnel}"
    );
    assert_eq!(funnel["firstPurchase"], 0);
    assert_eq!(funnel["window"]["hours"], 1);

    let usage = h.analyst("/api/internal/analyst/product-usage?hours=99999").await;
    assert_eq!(usage["window"]["hours"], 2160, "clamped to 90 days");
    assert_eq!((&usage["develops"], &usage["uploads"]), (&json!(3), &json!(2)));
    assert_eq!(usage["developsByTool"], json!([{"key": "upscale", "n": 3}]));
    assert_eq!(usage["days"][0]["develops"], 3);

    let failures = h.analyst("/api/internal/analyst/failures").await;
    assert_eq!((&failures["total"], &failures["groups"]), (&json!(0), &json!([])), "nothing failed");
    let learnings = h.analyst("/api/internal/analyst/learnings").await;
    assert_eq!((&learnings["created"], &learnings["corrected"]), (&json!(1), &json!(0)));
    let rejections = h.analyst("/api/internal/analyst/rejections").await;
    assert_eq!(rejections["retakes"], 0);

    // The platform gate: a request, researched, approved once, then no longer pending.
    let applicant = unique_email("applicant");
    let (s, _) = h
        .call(Method::POST, "/api/toolkit/invite/request", None, Some(json!({"email": applicant, "name": "Ada"})))
        .await;
    assert_eq!(s, 200);
    let inv = h.analyst("/api/internal/analyst/invitations?status=pending").await;
    assert_eq!(inv["counts"]["pending"], 1);
    let request_id = inv["requests"][0]["request"]["id"].as_str().expect("request id").to_string();
    let action = |path: String, body: Option<Value>| {
        let h = &h;
        async move { h.call(Method::POST, &path, Some(("bearer", ACTION)), body).await }
    };
    let base = format!("/api/internal/analyst/actions/invitations/{request_id}");
    let (s, research) = action(format!("{base}/research"), None).await;
    assert_eq!(s, 200, "{research}");
    assert_eq!((&research["email"], &research["findings"]["existingAccount"]), (&json!(applicant), &json!(false)));
    assert_eq!(research["findings"]["emailDomain"], "example.com");
    let (s, v) = action(format!("{base}/approve"), Some(json!({}))).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (400, Some("REASON_REQUIRED")));
    let (s, v) = action(format!("{base}/approve"), Some(json!({"reason": "a real house"}))).await;
    assert_eq!((s.as_u16(), v["status"].as_str()), (200, Some("invited")), "{v}");
    let (s, v) = action(format!("{base}/approve"), Some(json!({"reason": "again"}))).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (409, Some("NOT_PENDING")));
    let inv = h.analyst("/api/internal/analyst/invitations?status=invited").await;
    assert_eq!((&inv["counts"]["invited"], &inv["counts"]["pending"]), (&json!(1), &json!(0)));
    assert_eq!(inv["requests"][0]["researchNotes"], 2, "the research and the approval are noted");
    let mail = h.analyst("/api/internal/analyst/deliverability").await;
    let kinds: BTreeSet<&str> = mail["byKind"].as_array().unwrap().iter().filter_map(|k| k["kind"].as_str()).collect();
    assert!(kinds.contains("invitation") && kinds.contains("invite_request"), "{mail}");
    let written: i64 =
        mail["byKind"].as_array().unwrap().iter().map(|k| k["counts"]["written"].as_i64().unwrap()).sum();
    assert_eq!(mail["totals"]["written"], written);

    // Replay evidence of a develop; its analysis; a summary by the fake reader, recorded.
    let (s, opened) =
        h.admin(Method::POST, "/api/toolkit/admin/replay/evidence", &admin, Some(json!({"jobId": jobs[0]}))).await;
    assert_eq!((s.as_u16(), &opened["created"]), (200, &json!(true)), "{opened}");
    let evidence = opened["evidence"]["id"].as_str().expect("evidence").to_string();
    assert_eq!(opened["evidence"]["snapshot"]["hold"]["amount"], 9);
    let (_, again) =
        h.admin(Method::POST, "/api/toolkit/admin/replay/evidence", &admin, Some(json!({"jobId": jobs[0]}))).await;
    assert_eq!((&again["created"], &again["evidence"]["id"]), (&json!(false), &json!(evidence)));
    let (s, v) =
        h.admin(Method::POST, "/api/toolkit/admin/replay/evidence", &admin, Some(json!({"jobId": "job_nope"}))).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (404, Some("JOB_NOT_FOUND")));
    let analysis = h.analyst(&format!("/api/internal/analyst/recordings/{evidence}/analysis")).await;
    assert_eq!((&analysis["tokensHeld"], &analysis["holdStatus"]), (&json!(9), &json!("held")));
    assert_eq!(analysis["verdictReadable"], false);
    let recordings = h.analyst("/api/internal/analyst/recordings").await;
    assert_eq!(recordings["recordings"][0]["id"], json!(evidence));
    let summarize = format!("/api/internal/analyst/actions/recordings/{evidence}/summarize");
    let (s, v) = action(summarize.clone(), Some(json!({"focusArea": "why it waited"}))).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["summary"], "The upscale waited in the queue and was never developed.");
    let (_, stored) =
        h.admin(Method::GET, &format!("/api/toolkit/admin/replay/evidence/{evidence}"), &admin, None).await;
    assert_eq!((&stored["summary"], &stored["summaryFocus"]), (&v["summary"], &json!("why it waited")));
    let quality = h.analyst("/api/internal/analyst/chat-quality").await;
    assert_eq!((&quality["totals"]["calls"], &quality["totals"]["answered"]), (&json!(1), &json!(1)));
    assert_eq!(quality["byPurpose"][0]["purpose"], "replay-summary");

    // Long horizon: the house's weeks and its autonomy, revised with the revision read.
    let org = &house.org_id;
    let lh = h.analyst(&format!("/api/internal/analyst/longhorizon?organizationId={org}")).await;
    let weeks = lh["weeks"].as_array().expect("weeks");
    let sum = |f: &str| weeks.iter().map(|w| w[f].as_i64().unwrap()).sum::<i64>();
    assert_eq!((sum("develops"), sum("uploads"), sum("spend")), (3, 2, 0));
    assert!(weeks.len() >= 12, "every week of the twelve-week window");
    assert_eq!((&lh["autonomy"]["level"], &lh["autonomy"]["revision"]), (&json!("manual"), &json!(0)));
    let revise = |level: &str, expected: i64| json!({"organizationId": org, "level": level, "note": "steady", "expectedRevision": expected});
    let path = "/api/toolkit/admin/longhorizon/revise";
    let (s, v) = h.admin(Method::POST, path, &admin, Some(revise("supervised", 0))).await;
    assert_eq!((s.as_u16(), &v["revision"]), (200, &json!(1)), "{v}");
    let (s, v) = h.admin(Method::POST, path, &admin, Some(revise("autonomous", 0))).await;
    assert_eq!((s.as_u16(), v["error"].as_str(), &v["revision"]), (409, Some("STALE_REVISION"), &json!(1)));
    let lh = h.analyst(&format!("/api/internal/analyst/longhorizon?organizationId={org}")).await;
    assert_eq!(lh["autonomy"]["level"], "supervised");

    // Experiments and flags, set by the admin and read by the analyst.
    let (s, exp) = h
        .admin(Method::POST, "/api/toolkit/admin/experiments", &admin, Some(json!({"key": "grid-v2", "name": "Grid"})))
        .await;
    assert_eq!(s, 201, "{exp}");
    let id = exp["id"].as_str().unwrap();
    let patch = |status: &str| Some(json!({ "status": status }));
    let path = format!("/api/toolkit/admin/experiments/{id}");
    let (s, v) = h.admin(Method::PATCH, &path, &admin, patch("paused")).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (409, Some("BAD_TRANSITION")));
    let (s, _) = h.admin(Method::PATCH, &path, &admin, patch("running")).await;
    assert_eq!(s, 200);
    let listed = h.analyst("/api/internal/analyst/experiments?status=running").await;
    assert_eq!(listed["experiments"][0]["key"], "grid-v2");
    assert_eq!(h.analyst("/api/internal/analyst/experiments?status=draft").await["experiments"], json!([]));
    for (key, active) in [("dark-room", true), ("old-grid", false)] {
        let (s, _) = h
            .admin(
                Method::PUT,
                &format!("/api/toolkit/admin/feature-flags/{key}"),
                &admin,
                Some(json!({"active": active})),
            )
            .await;
        assert_eq!(s, 200);
    }
    let on = h.analyst("/api/internal/analyst/feature-flags?active=true").await;
    assert_eq!(on["flags"].as_array().unwrap().len(), 1);
    assert_eq!(on["flags"][0]["key"], "dark-room");
    let preview = h.http.get(format!("{}/api/internal/analyst/assets/{}/preview", app.base, "asset_nope"));
    assert_eq!(preview.bearer_auth(ANALYST).send().await.unwrap().status(), 404);
}

async fn render_queue_claims_each_once(backend: Backend) {
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.renderer_token = Some(RENDERER.into());
        c.action_token = Some(ACTION.into());
        c.replay_render_lease_secs = 1;
    })
    .await
    else {
        return;
    };
    let h = Http { app: &app, http: reqwest::Client::new() };
    let house = House::new(&app, "renders").await;
    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(40, 40) })
        .quality(studio_client::api::Quality::K1);
    let job = house.key.submit_develop(&submit).await.expect("submit").job_id;
    let admin = admin_session(&app).await;
    let (_, opened) =
        h.admin(Method::POST, "/api/toolkit/admin/replay/evidence", &admin, Some(json!({"jobId": job}))).await;
    let evidence = opened["evidence"]["id"].as_str().expect("evidence").to_string();
    // Without a reader the summary is 503 and nothing is stored.
    let (s, v) = h
        .call(
            Method::POST,
            &format!("/api/internal/analyst/actions/recordings/{evidence}/summarize"),
            Some(("bearer", ACTION)),
            Some(json!({"focusArea": "cost"})),
        )
        .await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (503, Some("AI_NOT_CONFIGURED")));

    const N: usize = 8;
    let mut requested = BTreeSet::new();
    for i in 0..N {
        let format = if i % 2 == 0 { "timeline" } else { "contact-sheet" };
        let (s, r) = h
            .admin(
                Method::POST,
                "/api/toolkit/admin/replay/renders",
                &admin,
                Some(json!({"evidenceId": evidence, "format": format})),
            )
            .await;
        assert_eq!(s, 201, "{r}");
        requested.insert(r["id"].as_str().unwrap().to_string());
    }
    let (s, v) = h
        .admin(
            Method::POST,
            "/api/toolkit/admin/replay/renders",
            &admin,
            Some(json!({"evidenceId": evidence, "format": "gif"})),
        )
        .await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (400, Some("BAD_FORMAT")));

    // Ten renderers claim until the queue is empty: every render exactly once.
    let workers = (0..10).map(|_| {
        let (base, http) = (app.base.clone(), reqwest::Client::new());
        tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let res = http.post(format!("{base}/api/internal/replay-renders/claim")).bearer_auth(RENDERER).send();
                let v: Value = res.await.expect("claim").json().await.expect("json");
                match v["job"]["id"].as_str() {
                    Some(id) => {
                        assert_eq!(v["job"]["archive"]["jobId"], json!(v["job"]["archive"]["snapshot"]["job"]["id"]));
                        mine.push(id.to_string());
                    }
                    None => return mine,
                }
            }
        })
    });
    let workers: Vec<_> = workers.collect();
    let mut claimed = Vec::new();
    for w in workers {
        claimed.extend(w.await.expect("worker"));
    }
    assert_eq!(claimed.len(), N, "each claimed once: {claimed:?}");
    assert_eq!(claimed.iter().cloned().collect::<BTreeSet<_>>(), requested);
    let renderer = Some(("bearer", RENDERER));
    let (_, v) = h.call(Method::POST, "/api/internal/replay-renders/claim", renderer, None).await;
    assert_eq!(v, json!({"job": null}));

    // The lease (1 s here) lapses: an unfinished claim is handed to the next renderer.
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    let (_, v) = h.call(Method::POST, "/api/internal/replay-renders/claim", renderer, None).await;
    let taken = v["job"]["id"].as_str().expect("a stale claim is taken over").to_string();
    let (_, status) = h.admin(Method::GET, &format!("/api/toolkit/admin/replay/renders/{taken}"), &admin, None).await;
    assert_eq!((&status["status"], &status["attempts"]), (&json!("rendering"), &json!(2)));

    // Complete: the bytes come back from the admin's download; 404 before and for the unknown.
    let file = format!("/api/toolkit/admin/replay/renders/{taken}/file");
    let (s, _) = h.admin(Method::GET, &file, &admin, None).await;
    assert_eq!(s, 404, "no file until complete");
    let bytes = png(20, 10);
    let post = |id: &str, body: Vec<u8>| {
        h.http
            .post(format!("{}/api/internal/replay-renders/{id}/complete", app.base))
            .bearer_auth(RENDERER)
            .body(body)
            .send()
    };
    assert_eq!(post(&taken, Vec::new()).await.unwrap().status(), 400, "empty");
    assert_eq!(post("rrn_nope", bytes.clone()).await.unwrap().status(), 404);
    let done = post(&taken, bytes.clone()).await.unwrap();
    assert_eq!(done.status(), 200);
    assert_eq!(done.json::<Value>().await.unwrap(), json!({"ok": true}));
    assert_eq!(post(&taken, bytes.clone()).await.unwrap().status(), 404, "no longer claimed");
    let got = h.http.get(format!("{}{file}", app.base)).header("cookie", format!("studio_session={admin}"));
    let got = got.send().await.unwrap();
    assert_eq!(got.headers()["content-type"], "image/png");
    assert_eq!(got.bytes().await.unwrap().to_vec(), bytes);

    // Fail: a code is required; an unclaimed or unknown render is 404.
    let other = claimed.iter().find(|id| **id != taken).expect("another render");
    let fail = |id: &str| format!("/api/internal/replay-renders/{id}/fail");
    let (s, v) = h.call(Method::POST, &fail(other), renderer, Some(json!({}))).await;
    assert_eq!((s.as_u16(), v["error"].as_str()), (400, Some("CODE_REQUIRED")));
    let (s, v) = h.call(Method::POST, &fail(other), renderer, Some(json!({"code": "FFMPEG_EXIT_1"}))).await;
    assert_eq!((s.as_u16(), &v), (200, &json!({"ok": true})));
    let (_, status) = h.admin(Method::GET, &format!("/api/toolkit/admin/replay/renders/{other}"), &admin, None).await;
    assert_eq!((&status["status"], &status["errorCode"]), (&json!("failed"), &json!("FFMPEG_EXIT_1")));
    let (s, _) = h.call(Method::POST, &fail(other), renderer, Some(json!({"code": "AGAIN"}))).await;
    assert_eq!(s, 404);
    let (s, _) = h.call(Method::POST, &fail("rrn_nope"), renderer, Some(json!({"code": "X"}))).await;
    assert_eq!(s, 404);
}
