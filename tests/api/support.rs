//! Support (§4.11) on both backends: tickets with the context the server reads (plan, spendable
//! balance, last develop), too little said, noted reports with a null id, replies on a thread,
//! lists newest first and paged, threads oldest first without internal notes, another person's
//! or house's thread and an unknown id all 503; screenshots behind signed links (a valid link
//! with no session, forged, altered and expired links 403, non-images 415, past 12 MB 413, the
//! retention sweep 404); the bridge's escalations (unset 503, wrong 401, good 201, bad reason
//! 400); the admin queue (non-admin 403; reply, note and status round trip); the analyst's read.

use chrono::{Duration, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use studio_client::api::{AdminTicketsQuery, NewTicket, SeatRole, Ticket, TicketCreated, TicketsQuery};
use studio_client::{DevelopSubmit, InputSource};
use studio_core::Escalator;
use studio_tests::images::png;
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(
    tickets_threads_and_the_admin_queue,
    screenshots_live_behind_signed_links,
    escalations_and_the_analyst_read
);

const BRIDGE: &str = "support-bridge-secret";
const ANALYST: &str = "support-analyst-token";

fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

fn words(body: &str) -> NewTicket {
    NewTicket { body: body.into(), ..NewTicket::default() }
}

fn ticket(created: TicketCreated) -> Ticket {
    match created {
        TicketCreated::Ticket(t) => t,
        TicketCreated::Noted(n) => panic!("a ticket was expected, got a noted report {n:?}"),
    }
}

async fn tickets_threads_and_the_admin_queue(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "support").await;
    let other = House::new(&app, "support-other").await;
    let member = house.seat(&app, "support-member", SeatRole::Member).await;
    let admin = House::new(&app, "support-admin").await;
    app.studio.admin().operator().add_admin(&admin.email).await.expect("admin add");

    // A develop queued (the runner is off), so the house has a last develop and a hold.
    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(40, 40) })
        .quality(studio_client::api::Quality::K1);
    let job = house.key.submit_develop(&submit).await.expect("submit").job_id;
    let spendable = house.key.balance().await.expect("balance").balance;

    // Too little said, and the vocabularies' codes.
    for body in ["", "   ", "help!", "h e l p"] {
        let e = house.key.raise_ticket(&words(body)).await.unwrap_err();
        assert_eq!(e.extra_i64("minChars"), Some(10));
        assert_eq!(refused(e), (Some(400), "TOO_LITTLE_SAID".into()), "{body:?}");
    }
    let bad_topic = NewTicket { topic: Some("refunds".into()), ..words("The export failed twice today") };
    assert_eq!(refused(house.key.raise_ticket(&bad_topic).await.unwrap_err()), (Some(400), "BAD_TOPIC".into()));
    let bad_rating = NewTicket { rating: Some(9), ..words("The export failed twice today") };
    assert_eq!(refused(house.key.raise_ticket(&bad_rating).await.unwrap_err()), (Some(400), "BAD_RATING".into()));

    // A ticket by key; the client says nothing of the plan, balance or develop.
    let raised = NewTicket {
        subject: Some("Export failed".into()),
        topic: Some("develop".into()),
        contact_email: Some("Help@Maison.example".into()),
        current_url: Some("https://studio.example/library".into()),
        screen: Some("library".into()),
        rating: Some(2),
        ..words("The export failed twice today, the zip is empty.")
    };
    let first = ticket(house.key.raise_ticket(&raised).await.expect("201"));
    assert!(first.id.starts_with("tkt_"));
    assert_eq!((first.status.as_str(), first.summary.as_str()), ("new", "Export failed"));
    assert_eq!((first.message_count, first.unread_count), (1, 0));

    // A noted report: no thread, a null id.
    let noted = NewTicket { needs_reply: Some(false), rating: Some(5), ..words("Loving the new lookbook composer.") };
    match house.key.raise_ticket(&noted).await.expect("201 noted") {
        TicketCreated::Noted(n) => assert!(n.id.is_none() && n.noted && n.report_id.starts_with("srep_")),
        TicketCreated::Ticket(t) => panic!("a noted report has no thread: {t:?}"),
    }
    let raw = reqwest::Client::new()
        .post(format!("{}/api/toolkit/support/tickets", app.base))
        .bearer_auth(&house.secret)
        .json(&json!({ "body": "Just noting the grid looks great today.", "needsReply": false }))
        .send()
        .await
        .expect("send");
    assert_eq!(raw.status(), StatusCode::CREATED);
    let body: Value = raw.json().await.expect("json");
    assert_eq!((body["id"].clone(), body["noted"].clone()), (Value::Null, json!(true)), "{body}");

    // Newest first, paged; the session of the key's minter sees the key's tickets (one person).
    let second = ticket(house.session.raise_ticket(&words("Billing shows two charges for March.")).await.unwrap());
    let list = house.key.support_tickets(&TicketsQuery::default()).await.expect("list");
    let ids: Vec<&str> = list.tickets.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str(), first.id.as_str()], "newest first; the noted report is no ticket");
    assert!(list.next_cursor.is_none());
    let page = house.session.support_tickets(&TicketsQuery { limit: Some(1), cursor: None }).await.expect("page");
    assert_eq!(page.tickets[0].id, second.id);
    let cursor = page.next_cursor.clone().expect("a next page");
    let page2 = house.key.support_tickets(&TicketsQuery { limit: Some(1), cursor: Some(cursor) }).await.unwrap();
    assert_eq!(page2.tickets[0].id, first.id);
    let bad = house.key.support_tickets(&TicketsQuery { limit: Some(0), cursor: None }).await.unwrap_err();
    assert_eq!(refused(bad), (Some(400), "BAD_LIMIT".into()));

    // A reply on the caller's own thread moves it to the top.
    let reply = NewTicket { ticket_id: Some(first.id.clone()), ..words("ok") };
    let replied = ticket(house.key.raise_ticket(&reply).await.expect("reply"));
    assert_eq!((replied.id.as_str(), replied.message_count), (first.id.as_str(), 2));
    let list = house.key.support_tickets(&TicketsQuery::default()).await.expect("list");
    assert_eq!(list.tickets[0].id, first.id, "the thread written last comes first");

    // Another house, another person of the same house, an unknown id: all 503, alike.
    let unavailable = (Some(503), "THREAD_UNAVAILABLE".to_string());
    assert_eq!(refused(other.key.support_thread(&first.id).await.unwrap_err()), unavailable);
    assert_eq!(refused(member.session.support_thread(&first.id).await.unwrap_err()), unavailable);
    assert_eq!(refused(house.key.support_thread("tkt_nothing_here").await.unwrap_err()), unavailable);
    let foreign_reply = NewTicket { ticket_id: Some(first.id.clone()), ..words("let me in") };
    assert_eq!(refused(other.key.raise_ticket(&foreign_reply).await.unwrap_err()), unavailable);
    assert!(other.key.support_tickets(&TicketsQuery::default()).await.unwrap().tickets.is_empty());

    // The admin queue: a non-admin is refused; an admin sees every house's tickets.
    let e = house.session.admin_support_queue(&AdminTicketsQuery::default()).await.unwrap_err();
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));
    let e = house.session.admin_support_ticket(&first.id).await.unwrap_err();
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));
    let mine = AdminTicketsQuery { house: Some(house.org_id.to_string()), ..AdminTicketsQuery::default() };
    let queue = admin.session.admin_support_queue(&mine).await.expect("queue");
    assert_eq!(queue.tickets.len(), 2);
    assert_eq!(queue.tickets[0].person_email.as_deref(), Some(house.email.as_str()));
    let develop = AdminTicketsQuery { topic: Some("develop".into()), ..mine.clone() };
    let queue = admin.session.admin_support_queue(&develop).await.expect("by topic");
    assert_eq!(queue.tickets.iter().map(|t| t.ticket.id.as_str()).collect::<Vec<_>>(), [first.id.as_str()]);
    let closed = AdminTicketsQuery { status: Some("closed".into()), ..mine.clone() };
    let e = admin.session.admin_support_queue(&closed).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_STATUS".into()));

    // The context the server read: the spendable balance and the queued develop; no plan.
    let whole = admin.session.admin_support_ticket(&first.id).await.expect("whole");
    assert_eq!(whole.context["spendable"], json!(spendable));
    assert_eq!(whole.context["lastDevelop"]["id"], json!(job));
    assert_eq!(whole.context["lastDevelop"]["tool"], json!("upscale"));
    assert_eq!(whole.context["lastDevelop"]["status"], json!("queued"));
    assert_eq!(whole.context["plan"], Value::Null);
    assert_eq!(whole.ticket.contact_email.as_deref(), Some("help@maison.example"));
    assert_eq!((whole.rating, whole.screen.as_deref()), (Some(2), Some("library")));

    // Reply and note; the person sees the reply (unread until read), never the note.
    admin.session.admin_support_reply(&first.id, "We are on it: try the export again now.").await.expect("reply");
    let noted = admin.session.admin_support_note(&first.id, "INTERNAL: fal timed out twice").await.expect("note");
    assert_eq!(noted.ticket.ticket.status, "pending", "a reply waits on the person; a note changes nothing");
    assert!(noted.messages.iter().any(|m| m.internal && m.message.content.contains("INTERNAL")));
    let e = admin.session.admin_support_reply(&first.id, "   ").await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "TOO_LITTLE_SAID".into()));
    let e = admin.session.admin_support_reply("tkt_nothing_here", "hello").await.unwrap_err();
    assert_eq!(refused(e), (Some(404), "TICKET_NOT_FOUND".into()));
    let listed = house.key.support_tickets(&TicketsQuery::default()).await.expect("list");
    let line = listed.tickets.iter().find(|t| t.id == first.id).expect("listed");
    assert_eq!((line.message_count, line.unread_count, line.status.as_str()), (3, 1, "pending"));
    let thread = house.key.support_thread(&first.id).await.expect("thread");
    let shown: Vec<(&str, &str)> = thread.messages.iter().map(|m| (m.author.as_str(), m.content.as_str())).collect();
    assert_eq!(
        shown,
        [
            ("person", "The export failed twice today, the zip is empty."),
            ("person", "ok"),
            ("support", "We are on it: try the export again now.")
        ],
        "oldest first, internal notes excluded"
    );
    assert_eq!(thread.messages[2].author_name, "Studio support");
    assert!(!serde_json::to_string(&thread).unwrap().contains("INTERNAL"));
    let listed = house.key.support_tickets(&TicketsQuery::default()).await.expect("list");
    assert_eq!(listed.tickets.iter().find(|t| t.id == first.id).unwrap().unread_count, 0, "reading marks read");

    // Status round trip; the person writing again reopens.
    let resolved = admin.session.admin_support_status(&first.id, "resolved").await.expect("status");
    assert_eq!(resolved.ticket.ticket.status, "resolved");
    let e = admin.session.admin_support_status(&first.id, "closed").await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_STATUS".into()));
    let again = NewTicket { ticket_id: Some(first.id.clone()), ..words("It failed again.") };
    assert_eq!(ticket(house.key.raise_ticket(&again).await.unwrap()).status, "open");
    let pending = AdminTicketsQuery { status: Some("open".into()), ..mine };
    let open = admin.session.admin_support_queue(&pending).await.expect("open ones");
    assert_eq!(open.tickets.iter().map(|t| t.ticket.id.as_str()).collect::<Vec<_>>(), [first.id.as_str()]);
}

async fn screenshots_live_behind_signed_links(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "shots").await;
    let admin = House::new(&app, "shots-admin").await;
    app.studio.admin().operator().add_admin(&admin.email).await.expect("admin add");
    let viewer = house.seat(&app, "shots-viewer", SeatRole::Viewer).await;

    let image = png(64, 48);
    let link = viewer.session.upload_screenshot(image.clone(), "screen.png").await.expect("any role: 201");
    assert!(link.id.starts_with("shot_"));
    let expires = link.expires_at.timestamp();
    assert!((expires - (Utc::now() + Duration::days(7)).timestamp()).abs() < 60, "links live 7 days");
    // The link alone is the authority: no credential.
    assert_eq!(app.client.fetch_screenshot(&link.url).await.expect("200 with no session").to_vec(), image);

    let (path, query) = link.url.split_once('?').expect("a query");
    let param =
        |name: &str| query.split('&').find_map(|kv| kv.strip_prefix(&format!("{name}="))).expect("param").to_string();
    let (o, e, s) = (param("o"), param("e"), param("s"));
    let forbidden = |code: &str| (Some(403), code.to_string());
    let fetch = |url: String| {
        let client = app.client.clone();
        async move { refused(client.fetch_screenshot(&url).await.unwrap_err()) }
    };
    assert_eq!(fetch(format!("{path}?o={o}&e={e}&s=AAAA")).await, forbidden("BAD_SIGNATURE"), "forged");
    let flip = |text: &str, a: char, b: char| {
        let first = if text.starts_with(a) { b } else { a };
        format!("{first}{}", &text[1..])
    };
    let other_s = flip(&s, 'A', 'B');
    assert_eq!(fetch(format!("{path}?o={o}&e={e}&s={other_s}")).await, forbidden("BAD_SIGNATURE"), "forged");
    let later = e.parse::<i64>().unwrap() + 3600;
    assert_eq!(fetch(format!("{path}?o={o}&e={later}&s={s}")).await, forbidden("BAD_SIGNATURE"), "altered e");
    let other_o = flip(&o, '0', '1');
    assert_eq!(fetch(format!("{path}?o={other_o}&e={e}&s={s}")).await, forbidden("BAD_SIGNATURE"), "altered o");
    let other_id = path.replace(&link.id, "shot_00000000000000000000000000");
    assert_eq!(fetch(format!("{other_id}?o={o}&e={e}&s={s}")).await, forbidden("BAD_SIGNATURE"), "another id");
    assert_eq!(fetch(path.to_string()).await, (Some(400), "BAD_QUERY".into()), "no o, e, s");
    let past = (Utc::now() - Duration::seconds(10)).timestamp();
    let expired = app.studio.support().screenshot_url(&link.id, &o, past);
    assert_eq!(fetch(expired).await, forbidden("LINK_EXPIRED"), "a right signature past its expiry");

    // Images only, 12 MB at most.
    let e = house.key.upload_screenshot(b"these are words, not a picture".to_vec(), "notes.txt").await.unwrap_err();
    assert_eq!(refused(e), (Some(415), "UNSUPPORTED_MEDIA_TYPE".into()));
    let mut big = png(8, 8);
    big.resize(12 * 1024 * 1024 + 10, 0);
    let e = house.key.upload_screenshot(big, "big.png").await.unwrap_err();
    assert_eq!(e.extra_i64("maxMb"), Some(12));
    assert_eq!(refused(e), (Some(413), "IMAGE_TOO_LARGE".into()));

    // Attached to a ticket, the admin gets a fresh link that works.
    let raised = NewTicket {
        screenshots: Some(vec![link.url.clone(), "https://elsewhere.example/a.png".into()]),
        ..words("The grid shows an empty frame, see the screenshot.")
    };
    let t = ticket(viewer.session.raise_ticket(&raised).await.expect("a viewer may raise one"));
    let whole = admin.session.admin_support_ticket(&t.id).await.expect("whole");
    assert_eq!(whole.screenshots.len(), 2);
    assert_eq!(whole.screenshots[0].id.as_deref(), Some(link.id.as_str()));
    assert_eq!(app.client.fetch_screenshot(&whole.screenshots[0].url).await.expect("fresh").to_vec(), image);
    assert_eq!(whole.screenshots[1].url, "https://elsewhere.example/a.png");

    // The retention sweep: nothing before its time; after it, the still-valid link is 404.
    assert_eq!(app.studio.support().sweep_screenshots(Utc::now()).await.expect("sweep"), 0);
    let after = Utc::now() + Duration::days(31);
    assert_eq!(app.studio.support().sweep_screenshots(after).await.expect("sweep"), 1);
    assert_eq!(fetch(link.url.clone()).await, (Some(404), "SCREENSHOT_GONE".into()));
}

async fn post_escalation(app: &studio_tests::TestApp, secret: Option<&str>, body: Value) -> (u16, Value) {
    let mut req = reqwest::Client::new().post(format!("{}/api/support/escalations", app.base)).json(&body);
    if let Some(secret) = secret {
        req = req.header("x-support-bridge-secret", secret);
    }
    let res = req.send().await.expect("send");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn escalations_and_the_analyst_read(backend: Backend) {
    // Without a bridge secret, escalations are 503 for everyone.
    {
        let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
        let body = json!({ "reason": "handoff", "sessionId": "chat_1" });
        for secret in [None, Some(BRIDGE)] {
            let (status, answer) = post_escalation(&app, secret, body.clone()).await;
            assert_eq!((status, answer["error"].as_str()), (503, Some("SUPPORT_BRIDGE_NOT_CONFIGURED")));
        }
    }
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.support_bridge_secret = Some(BRIDGE.into());
        c.analyst_token = Some(ANALYST.into());
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "escalate").await;
    let admin = House::new(&app, "escalate-admin").await;
    app.studio.admin().operator().add_admin(&admin.email).await.expect("admin add");
    let transcript = json!([{ "role": "person", "text": "my export is empty" }, { "role": "assistant", "text": "…" }]);
    let good = json!({
        "reason": "handoff", "sessionId": "chat_42", "organizationId": house.org_id,
        "contactEmail": "Person@Maison.example", "transcript": transcript
    });
    for secret in [None, Some("wrong secret"), Some(ANALYST)] {
        let (status, answer) = post_escalation(&app, secret, good.clone()).await;
        assert_eq!((status, answer["error"].as_str()), (401, Some("UNAUTHORIZED")), "{secret:?}");
    }
    let (status, answer) = post_escalation(&app, Some(BRIDGE), good.clone()).await;
    assert_eq!(status, 201, "{answer}");
    let id = answer["id"].as_str().expect("a ticket").to_string();
    assert_eq!((answer["status"].as_str(), answer["messageCount"].as_i64()), (Some("new"), Some(0)));
    for (body, status, code) in [
        (json!({ "reason": "bored", "sessionId": "chat_1" }), 400, "BAD_REASON"),
        (json!({ "reason": "handoff" }), 400, "SESSION_REQUIRED"),
        (json!({ "reason": "handoff", "sessionId": "c", "organizationId": "org_nobody" }), 404, "HOUSE_NOT_FOUND"),
        (json!({ "reason": "handoff", "sessionId": "c", "contactEmail": "nope" }), 400, "BAD_EMAIL"),
    ] {
        let (got, answer) = post_escalation(&app, Some(BRIDGE), body.clone()).await;
        assert_eq!((got, answer["error"].as_str()), (status, Some(code)), "{body}");
    }
    // A visitor's chat (no house) is filed too.
    let (status, _) = post_escalation(&app, Some(BRIDGE), json!({ "reason": "ai_down", "sessionId": "c9" })).await;
    assert_eq!(status, 201);

    let whole = admin.session.admin_support_ticket(&id).await.expect("whole");
    assert_eq!(whole.ticket.source, "escalation");
    assert_eq!(whole.ticket.reason.as_deref(), Some("handoff"));
    assert_eq!(whole.ticket.house_id.as_deref(), Some(house.org_id.as_str()));
    assert_eq!(whole.session_id.as_deref(), Some("chat_42"));
    assert_eq!(Value::from(whole.transcript.clone()), transcript);
    assert_eq!(whole.context["spendable"], json!(house.key.balance().await.unwrap().balance));

    // The chat assistant's own path (issue 23): the caller's thread in their house.
    let caller = house.caller(&app).await;
    let req = studio_core::api::Escalation {
        reason: Some("requested".into()),
        session_id: "chat_7".into(),
        ..Default::default()
    };
    let own = app.studio.support().escalate(Escalator::Chat(&caller), req).await.expect("escalated");
    let listed = house.key.support_tickets(&TicketsQuery::default()).await.expect("list");
    assert_eq!(listed.tickets.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [own.id.as_str()]);

    // The analyst's read: real figures of the window.
    admin.session.admin_support_reply(&id, "Looking into it.").await.expect("reply");
    let analyst = |query: &str, token: &str| {
        reqwest::Client::new()
            .get(format!("{}/api/internal/analyst/support{query}", app.base))
            .bearer_auth(token)
            .send()
    };
    let res = analyst("?hours=24", ANALYST).await.expect("send");
    assert_eq!(res.status(), StatusCode::OK);
    let figures: Value = res.json().await.expect("json");
    assert_eq!(figures["ticketsRaised"], json!(3), "{figures}");
    assert_eq!(figures["answered"], json!(1));
    assert!(figures["medianFirstReplySecs"].as_i64().is_some());
    let reasons = figures["byReason"].as_array().expect("byReason");
    for reason in ["handoff", "ai_down", "requested"] {
        assert!(reasons.iter().any(|c| c["key"] == json!(reason) && c["count"] == json!(1)), "{reason}: {figures}");
    }
    assert!(figures["byStatus"].as_array().unwrap().iter().any(|c| c["key"] == json!("pending")));
    let one: Value = analyst(&format!("?ticketId={id}"), ANALYST).await.unwrap().json().await.unwrap();
    assert_eq!(one["tickets"].as_array().map(Vec::len), Some(1));
    for (query, token, status) in
        [("", "wrong", 401), ("", BRIDGE, 401), ("?hours=0", ANALYST, 400), ("?status=closed", ANALYST, 400)]
    {
        assert_eq!(analyst(query, token).await.unwrap().status().as_u16(), status, "{query} {token}");
    }
}
