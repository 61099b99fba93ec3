//! The analyst and the memory desk (§4.12, docs/analyst.md) on both backends: the cadence's
//! range, a run below the readable floor writes plain figures without calling the reader, a
//! second run inside the window returns the same digest, the cadence's own run raises findings
//! an admin decides once, a run above the floor is written by the (stand-in) reader; memory
//! observations move confidence, the review queue and its keep and retire; non-admins refused.

use serde_json::json;
use studio_client::Client;
use studio_client::api::{
    CadenceRequest, DecideFindingRequest, DigestTrigger, DigestWriter, FindingDecision, FindingStatus, FindingsQuery,
    MemoryClass, MemoryRequest, MemoryScope, MemoryStatus, ObserveMemoryRequest, Quality, ReviewDecision,
    ReviewMemoryRequest, ReviewQueueQuery,
};
use studio_client::{DevelopSubmit, InputSource};
use studio_tests::images::png;
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};
use wiremock::matchers::{body_string_contains, method};
use wiremock::{Mock, MockServer};

backend_tests!(
    runs_write_plain_figures_below_the_floor_and_findings_are_decided_once,
    the_reader_writes_the_digest_above_the_floor,
    observations_move_memories_into_review_and_out,
);

fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

/// A platform admin's session (the operator marks the address).
async fn admin(app: &TestApp) -> Client {
    let email = unique_email("analyst-admin");
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&email).await.expect("admin add");
    app.client.with_session(&signed.session)
}

fn cadence(hours: Option<i64>, enabled: Option<bool>) -> CadenceRequest {
    CadenceRequest { hours, enabled }
}

fn upscale() -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(40, 30) })
        .quality(Quality::K1)
}

async fn runs_write_plain_figures_below_the_floor_and_findings_are_decided_once(backend: Backend) {
    let reader = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(completion("{\"summary\": \"never asked\"}"))
        .expect(0)
        .mount(&reader)
        .await;
    let Some(app) = app_with_reader(backend, &reader, |_| {}).await else { return };
    let admin = admin(&app).await;
    let house = House::new(&app, "analyst").await;

    // Nobody but an admin.
    assert_eq!(refused(house.session.analyst(None).await.unwrap_err()), (Some(403), "FORBIDDEN".into()));
    assert_eq!(refused(house.key.run_analyst().await.unwrap_err()), (Some(403), "FORBIDDEN".into()));

    let view = admin.analyst(None).await.expect("read");
    assert!(view.digest.is_none() && view.history.is_empty());
    assert_eq!((view.cadence.hours, view.cadence.enabled, view.cadence.updated_at), (24, false, None));
    for (req, code) in [
        (cadence(None, Some(true)), "HOURS_REQUIRED"),
        (cadence(Some(0), None), "BAD_HOURS"),
        (cadence(Some(673), None), "BAD_HOURS"),
    ] {
        assert_eq!(refused(admin.set_analyst_cadence(&req).await.unwrap_err()), (Some(400), code.into()));
    }
    let set = admin.set_analyst_cadence(&cadence(Some(2), None)).await.expect("2 hours");
    assert_eq!((set.hours, set.enabled), (2, false));

    // One develop queued (the runner is off): its hold stays open.
    house.key.submit_develop(&upscale()).await.expect("submit");

    let run = admin.run_analyst().await.expect("run");
    assert!(!run.reused && !run.model_called, "no verdict: below the floor, no model call");
    let digest = run.digest;
    assert_eq!((digest.writer, digest.trigger), (DigestWriter::Figures, DigestTrigger::Admin));
    assert_eq!(digest.period_end - digest.period_start, chrono::Duration::hours(2));
    let f = &digest.figures;
    assert!(f.houses >= 1 && f.people >= 2, "the house and the admin signed up in the window: {f:?}");
    assert_eq!((f.develops, f.readable_frames), (1, 0));
    assert_eq!(f.by_tool.len(), 1);
    assert_eq!((f.by_tool[0].tool.as_str(), f.by_tool[0].open), ("upscale", 1));
    assert!(f.tokens.granted >= 100, "sign-up grants are counted: {:?}", f.tokens);
    assert!(digest.summary.contains("1 develops were queued"), "{}", digest.summary);

    let again = admin.run_analyst().await.expect("again");
    assert!(again.reused, "a run inside the window returns the digest written");
    assert_eq!(again.digest.id, digest.id);

    // The cadence's own run, three hours on: a new window, and the develop's hold is now stale.
    assert!(!app.studio.admin().analyst_tick(chrono::Utc::now()).await.expect("off"), "the cadence is off");
    admin.set_analyst_cadence(&cadence(Some(2), Some(true))).await.expect("on");
    let later = chrono::Utc::now() + chrono::Duration::hours(3);
    assert!(app.studio.admin().analyst_tick(later).await.expect("tick"), "a new window gets a digest");
    assert!(!app.studio.admin().analyst_tick(later).await.expect("tick again"), "one per window");
    let view = admin.analyst(Some(5)).await.expect("read");
    let latest = view.digest.expect("latest");
    assert_eq!((latest.trigger, latest.figures.stale_holds), (DigestTrigger::Cadence, 1));
    assert_eq!(latest.period_end.timestamp() % 7200, 0, "cadence windows are aligned: every replica picks the same");
    assert!(latest.period_end <= later && latest.period_end - latest.period_start == chrono::Duration::hours(2));
    assert_eq!(view.history.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), vec![digest.id.as_str()]);
    assert_eq!(view.open_findings, 1);

    let open = admin.findings(&FindingsQuery { status: Some(FindingStatus::Open), ..Default::default() }).await;
    let found = open.expect("findings").findings;
    assert_eq!(found.len(), 1);
    let finding = &found[0];
    assert_eq!((finding.rule.as_str(), finding.digest_id.as_str()), ("stale_holds", latest.id.as_str()));
    assert_eq!(finding.figures, json!({ "staleHolds": 1 }));

    let decide = |decision| DecideFindingRequest { decision, note: Some("the runner is off in this test".into()) };
    let e = admin.decide_finding(&finding.id, &decide(None)).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "DECISION_REQUIRED".into()));
    let decided = admin.decide_finding(&finding.id, &decide(Some(FindingDecision::Dismiss))).await.expect("decide");
    assert_eq!(decided.status, FindingStatus::Dismissed);
    assert_eq!(decided.note.as_deref(), Some("the runner is off in this test"));
    let e = admin.decide_finding(&finding.id, &decide(Some(FindingDecision::Accept))).await.unwrap_err();
    assert_eq!(refused(e), (Some(409), "FINDING_DECIDED".into()));
    let e = admin.decide_finding("fnd_nope", &decide(Some(FindingDecision::Accept))).await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "FINDING_NOT_FOUND".into()));
    assert_eq!(admin.analyst(None).await.expect("read").open_findings, 0);

    // Paged: one per page, then the cursor runs out.
    let page = admin.findings(&FindingsQuery { limit: Some(1), ..Default::default() }).await.expect("page");
    assert_eq!((page.findings.len(), page.next_cursor), (1, None));
    let e = admin.findings(&FindingsQuery { cursor: Some("mem_x".into()), ..Default::default() }).await;
    assert_eq!(refused(e.unwrap_err()), (Some(400), "BAD_CURSOR".into()));
}

async fn the_reader_writes_the_digest_above_the_floor(backend: Backend) {
    let reader = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains("readableFrames"))
        .respond_with(completion("{\"summary\": \"Five upscales landed; nothing failed.\"}"))
        .expect(1)
        .mount(&reader)
        .await;
    let Some(app) = app_with_reader(backend, &reader, |_| {}).await else { return };
    let admin = admin(&app).await;
    let house = House::new(&app, "analyst-floor").await;
    let mut jobs = Vec::new();
    for _ in 0..5 {
        jobs.push(house.key.submit_develop(&upscale()).await.expect("submit").job_id);
        assert!(app.studio.develops().run_next_job().await.expect("run"), "a job ran");
    }
    // The floor counts readable verdicts, not landed frames: the admin judges all five.
    for job in &jobs {
        assert!(admin.admin_verdict(job).await.expect("judged").readable);
    }
    let run = admin.run_analyst().await.expect("run");
    assert!(run.model_called && !run.reused);
    assert_eq!(run.digest.writer, DigestWriter::Reader);
    assert_eq!(run.digest.summary, "Five upscales landed; nothing failed.");
    assert_eq!((run.digest.figures.readable_frames, run.digest.figures.readable_verdicts), (5, 5));
    assert_eq!(run.digest.figures.tokens.settled, 45, "five upscales at 9 tokens");
    assert!(run.findings.is_empty(), "nothing failed, nothing is held: {:?}", run.findings);
}

fn remember(statement: &str, confidence: f64) -> MemoryRequest {
    MemoryRequest {
        statement: statement.into(),
        scope: MemoryScope::House,
        memory_class: MemoryClass::Preference,
        replaces_memory_id: None,
        kind: None,
        confidence: Some(confidence),
    }
}

async fn observations_move_memories_into_review_and_out(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let admin = admin(&app).await;
    let house = House::new(&app, "memdesk").await;
    let doubtful = house.session.remember(&remember("Shoots on white", 0.6)).await.expect("memory");
    let sure = house.session.remember(&remember("Ships on Fridays", 1.0)).await.expect("memory");

    let observe = |id: &str, supports: Option<bool>, note: &str| ObserveMemoryRequest {
        memory_id: Some(id.into()),
        supports,
        note: Some(note.into()),
    };
    assert_eq!(
        refused(house.session.observe_memory(&observe(&doubtful.id, Some(false), "x")).await.unwrap_err()),
        (Some(403), "FORBIDDEN".into())
    );
    for (req, code) in [
        (ObserveMemoryRequest { memory_id: None, supports: Some(true), note: Some("n".into()) }, "MEMORY_REQUIRED"),
        (observe(&doubtful.id, None, "n"), "SUPPORTS_REQUIRED"),
        (observe(&doubtful.id, Some(true), "  "), "NOTE_REQUIRED"),
    ] {
        assert_eq!(refused(admin.observe_memory(&req).await.unwrap_err()), (Some(400), code.into()));
    }
    let e = admin.observe_memory(&observe("mem_nope", Some(true), "n")).await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "MEMORY_NOT_FOUND".into()));

    let queue = admin.memory_review_queue(&ReviewQueueQuery::default()).await.expect("queue");
    assert!(queue.items.iter().all(|i| i.memory.id != doubtful.id), "0.6 is above the review line");

    let seen = admin.observe_memory(&observe(&doubtful.id, Some(false), "Last three shoots were on grey")).await;
    let seen = seen.expect("201");
    assert_eq!((seen.observation.confidence_before, seen.observation.confidence_after), (0.6, 0.45));
    assert_eq!((seen.memory.confidence, seen.memory.evidence_count), (0.45, 2));
    let up = admin.observe_memory(&observe(&sure.id, Some(true), "Shipped Friday again")).await.expect("201");
    assert_eq!((up.memory.confidence, up.memory.evidence_count), (1.0, 2));

    let queue = admin.memory_review_queue(&ReviewQueueQuery::default()).await.expect("queue");
    let item = queue.items.iter().find(|i| i.memory.id == doubtful.id).expect("below the line: in review");
    assert_eq!(item.organization_id, house.org_id);
    assert_eq!(item.observations.len(), 1);
    assert!(queue.items.iter().all(|i| i.memory.id != sure.id));

    // Keep: off the queue until it changes again.
    let review = |decision| ReviewMemoryRequest {
        memory_id: Some(doubtful.id.clone()),
        decision,
        note: Some("grey is seasonal".into()),
    };
    let e = admin.review_memory(&review(None)).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "DECISION_REQUIRED".into()));
    let kept = admin.review_memory(&review(Some(ReviewDecision::Keep))).await.expect("keep");
    assert_eq!(kept.memory.status, MemoryStatus::Active);
    let queue = admin.memory_review_queue(&ReviewQueueQuery::default()).await.expect("queue");
    assert!(queue.items.iter().all(|i| i.memory.id != doubtful.id), "kept: off the queue");
    admin.observe_memory(&observe(&doubtful.id, Some(false), "Grey again")).await.expect("201");
    let queue = admin.memory_review_queue(&ReviewQueueQuery::default()).await.expect("queue");
    assert!(queue.items.iter().any(|i| i.memory.id == doubtful.id), "changed since the review: back in");

    // Retire: the house keeps it in its history, the assistant never sees it again.
    let retired = admin.review_memory(&review(Some(ReviewDecision::Retire))).await.expect("retire");
    assert_eq!(retired.memory.status, MemoryStatus::Retired);
    let mine = house.session.memories().await.expect("history").memories;
    assert_eq!(mine.iter().find(|m| m.id == doubtful.id).map(|m| m.status), Some(MemoryStatus::Retired));
    let caller = house.caller(&app).await;
    let active = app.studio.accounts().active_memories(&caller).await.expect("active");
    assert!(active.iter().all(|m| m.id != doubtful.id));
    let e = admin.observe_memory(&observe(&doubtful.id, Some(true), "n")).await.unwrap_err();
    assert_eq!(refused(e), (Some(409), "MEMORY_NOT_ACTIVE".into()));
    let e = admin.review_memory(&review(Some(ReviewDecision::Keep))).await.unwrap_err();
    assert_eq!(refused(e), (Some(409), "MEMORY_NOT_ACTIVE".into()));
}
