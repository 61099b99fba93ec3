//! The studio assistant (§4.15, docs/assistant.md) through studio-client, on a stand-in AI
//! reader (wiremock; the reader adapter is the real one): what the context holds (this house
//! only, active memories only, the caller's own personal ones only; this house's balance, brand
//! clause and recent develops, never another house's), proposed actions priced from the price
//! book and applied exactly once under ten concurrent applies, a viewer's apply refused, a
//! shortfall 402 with nothing created, the turn limit and every other escalation making a
//! support ticket, the leak guard (a key, a token secret, another's email), sessions that are
//! their person's alone, context warm, and priced turns.

use serde_json::{Value, json};
use studio_client::api::{
    BrandPatch, ChatTurnRequest, ChatTurnsQuery, MemoryClass, MemoryRequest, MemoryScope, Quality, SeatRole,
    TicketsQuery,
};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::garment_shot;
use studio_tests::reader::{app_with_reader, completion};
use studio_tests::{Backend, House, backend_tests, spawn};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    the_context_holds_this_house_and_active_memories_only,
    the_context_carries_this_houses_balance_brand_and_develops,
    an_action_applies_once_under_ten_concurrent_applies,
    a_free_action_is_created_once_under_ten_concurrent_applies,
    a_viewer_cannot_apply_a_develop_and_a_shortfall_creates_nothing,
    the_turn_limit_hands_the_session_to_support,
    escalations_and_the_leak_guard,
    sessions_are_their_persons_alone,
    warm_keeps_the_context_and_priced_turns_charge_once,
    concurrent_priced_turns_cannot_overspend,
);

/// (status, code) of a refusal.
fn refused(e: studio_client::Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

/// The reader answers `answer` (a JSON value, sent as the message content) from now on.
async fn answer(server: &MockServer, answer: Value) {
    server.reset().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(completion(&answer.to_string()))
        .mount(server)
        .await;
}

/// Every request body the reader received, as text.
async fn asked(server: &MockServer) -> Vec<String> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect()
}

/// The context the reader was given in the request `body`: the JSON the prompt opens with.
fn context_in(body: &str) -> Value {
    let request: Value = serde_json::from_str(body).expect("a JSON request");
    let prompt = request["messages"][1]["content"][0]["text"].as_str().expect("the prompt");
    let rest = prompt.strip_prefix("Context (JSON):\n").expect("the prompt opens with the context");
    let (context, _) = rest.split_once("\n\nThe conversation so far:").expect("the context ends");
    serde_json::from_str(context).expect("the context is JSON")
}

fn memory(statement: &str, scope: MemoryScope, replaces: Option<String>) -> MemoryRequest {
    MemoryRequest {
        statement: statement.into(),
        scope,
        memory_class: MemoryClass::Fact,
        replaces_memory_id: replaces,
        kind: None,
        confidence: None,
    }
}

/// A develop of the image `asset` at 1k, as the reader proposes it.
fn develop_of(asset: &str) -> Value {
    json!({"reply": "I can upscale it.", "actions": [{"kind": "develop", "summary": "Upscale the gown",
        "request": {"tool": "upscale", "quality": "1k", "inputs": {"image": asset}}}]})
}

async fn the_context_holds_this_house_and_active_memories_only(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "chat-ctx").await;
    let other = House::new(&app, "chat-ctx-other").await;
    let colleague = house.seat(&app, "chat-ctx-colleague", SeatRole::Member).await;
    let named = |name: &str| UploadOptions { name: Some(name.into()), ..UploadOptions::default() };
    house.key.upload_bytes("g.png", garment_shot(64, 64), &named("Ivory Silk Gown")).await.expect("upload");
    other.key.upload_bytes("b.png", garment_shot(64, 64), &named("Cobalt Velvet Blazer")).await.expect("upload");

    let s = &house.session;
    s.remember(&memory("The house shoots on linen grey", MemoryScope::House, None)).await.expect("active");
    let old = s.remember(&memory("Prefers harsh flash", MemoryScope::House, None)).await.expect("old");
    s.remember(&memory("Prefers soft window light", MemoryScope::House, Some(old.id.clone()))).await.expect("fix");
    let gone = s.remember(&memory("Uses the Orchid backdrop", MemoryScope::House, None)).await.expect("retire");
    s.retire_memory(&gone.id).await.expect("retired");
    s.remember(&memory("I crop at the knee", MemoryScope::Person, None)).await.expect("own");
    colleague.session.remember(&memory("Colleague keeps a private list", MemoryScope::Person, None)).await.unwrap();
    other.session.remember(&memory("House B loves cobalt", MemoryScope::House, None)).await.expect("other house");
    let theirs = other.key.upload_bytes("c.png", garment_shot(64, 64), &UploadOptions::default()).await.unwrap();
    let their_develop = studio_client::DevelopSubmit::new("upscale")
        .input("image", studio_client::InputSource::Asset(theirs.asset.id.clone()))
        .quality(studio_client::api::Quality::K1);
    let their_job = other.key.submit_develop(&their_develop).await.expect("the other house develops").job_id;

    answer(&server, json!({"reply": "Noted."})).await;
    let chat = s.chat_start(None).await.expect("start");
    let said = s.chat_say(&chat.id, "What do you know about us?").await.expect("turn");
    assert_eq!(said.turns.iter().map(|t| t.role.as_str()).collect::<Vec<_>>(), ["person", "assistant"]);
    assert_eq!(said.turns[1].text, "Noted.");
    assert_eq!(said.session.title, "What do you know about us?", "the first message names the session");

    let bodies = asked(&server).await;
    assert_eq!(bodies.len(), 1);
    let body = &bodies[0];
    for present in [
        "Ivory Silk Gown",
        "The house shoots on linen grey",
        "Prefers soft window light",
        "I crop at the knee",
        "What do you know about us?",
        "priceBook",
        "upscale",
    ] {
        assert!(body.contains(present), "the context holds {present:?}");
    }
    for absent in [
        "Cobalt Velvet Blazer",
        "House B loves cobalt",
        "Prefers harsh flash",
        "Uses the Orchid backdrop",
        "Colleague keeps a private list",
        other.org_id.as_str(),
        other.email.as_str(),
        their_job.as_str(),
        theirs.asset.id.as_str(),
        house.secret.as_str(),
    ] {
        assert!(!body.contains(absent), "the context never holds {absent:?}");
    }

    // A memory retired after the context was kept is still left out of the next turn.
    let late = s.chat_warm(&chat.id).await.expect("warm");
    assert!(late.cached, "the turn kept its context");
    let own = s.memories().await.expect("memories");
    let knee = own.memories.iter().find(|m| m.statement == "I crop at the knee").expect("own memory");
    s.retire_memory(&knee.id).await.expect("retire own");
    s.chat_say(&chat.id, "And now?").await.expect("second turn");
    let bodies = asked(&server).await;
    assert!(!bodies[1].contains("I crop at the knee"), "a retired memory never rides a kept context");
    assert!(bodies[1].contains("What do you know about us?"), "the reader sees the turns so far");
}

async fn the_context_carries_this_houses_balance_brand_and_develops(backend: Backend) {
    // What the reader needs to answer about this house (what it can spend, how it looks, what it
    // developed lately) reaches it, read for the caller's house and no other.
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "chat-facts").await;
    let other = House::new(&app, "chat-facts-other").await;
    let brand = |vision: &str, vibe: &str, colour: &str| BrandPatch {
        vision_en: Some(vision.into()),
        vibe: Some(vec![vibe.into()]),
        palette: Some(vec![colour.into()]),
        inject_enabled: Some(true),
        ..Default::default()
    };
    let clause_of = |house: &House, patch: BrandPatch| {
        let key = house.key.clone();
        async move { key.patch_brand(&patch).await.expect("brand").profile.clause }
    };
    let clause = clause_of(&house, brand("Quiet tailoring in natural light", "austere", "charcoal")).await;
    assert!(clause.contains("Quiet tailoring"), "the house has a clause: {clause:?}");
    let their_clause = clause_of(&other, brand("Loud neon maximalism", "riotous", "magenta")).await;
    assert!(!their_clause.is_empty());

    // This house develops once, the other twice: their balances differ.
    let develop = |client: studio_client::Client| async move {
        let asset = client.upload_bytes("g.png", garment_shot(64, 64), &UploadOptions::default()).await.unwrap();
        let submit =
            DevelopSubmit::new("upscale").input("image", InputSource::Asset(asset.asset.id)).quality(Quality::K1);
        client.submit_develop(&submit).await.expect("develop").job_id
    };
    let ours = develop(house.key.clone()).await;
    let theirs = [develop(other.key.clone()).await, develop(other.key.clone()).await];
    let (balance, their_balance) = (house.key.balance().await.unwrap(), other.key.balance().await.unwrap());
    assert_ne!(
        (balance.balance, balance.held),
        (their_balance.balance, their_balance.held),
        "the houses' balances tell apart"
    );

    answer(&server, json!({"reply": "Noted."})).await;
    let chat = house.session.chat_start(None).await.expect("start");
    house.session.chat_say(&chat.id, "How are we doing?").await.expect("turn");
    let bodies = asked(&server).await;
    assert_eq!(bodies.len(), 1);
    let context = context_in(&bodies[0]);

    assert_eq!(
        context["balance"],
        json!({"spendable": balance.balance, "held": balance.held}),
        "the context holds this house's balance, read for the turn"
    );
    assert_eq!(context["brandClause"], json!(clause), "the context holds this house's brand clause");
    let develops = context["recentDevelops"].as_array().expect("recentDevelops");
    let ids: Vec<&str> = develops.iter().filter_map(|d| d["id"].as_str()).collect();
    assert_eq!(ids, [ours.as_str()], "the context names this house's develop, and only it");
    assert_eq!((develops[0]["tool"].as_str(), develops[0]["quality"].as_str()), (Some("upscale"), Some("1k")));

    let text = context.to_string();
    for absent in [
        format!("\"spendable\":{}", their_balance.balance),
        format!("\"held\":{}", their_balance.held),
        their_clause.clone(),
        "Loud neon".into(),
        theirs[0].clone(),
        theirs[1].clone(),
        other.org_id.to_string(),
    ] {
        assert!(!text.contains(&absent), "the context never holds {absent:?}: {text}");
    }
    for id in &theirs {
        assert!(!bodies[0].contains(id.as_str()), "nor does any part of the request: {id}");
    }
}

async fn an_action_applies_once_under_ten_concurrent_applies(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "chat-apply").await;
    let asset = house.key.upload_bytes("g.png", garment_shot(64, 64), &UploadOptions::default()).await.unwrap();
    let before = house.key.balance().await.expect("balance");

    answer(&server, develop_of(&asset.asset.id)).await;
    let chat = house.key.chat_start(Some("Upscales")).await.expect("start");
    let said = house.key.chat_say(&chat.id, "Upscale my gown").await.expect("turn");
    let action = said.turns[1].actions.first().expect("a proposed action").clone();
    assert_eq!((action.kind.as_str(), action.status.as_str(), action.price), ("develop", "proposed", 9));
    assert_eq!(house.key.balance().await.unwrap().held, before.held, "proposing holds nothing");

    let applies = (0..10).map(|_| {
        let (client, chat, id) = (house.key.clone(), chat.id.clone(), action.id.clone());
        tokio::spawn(async move { client.chat_apply(&chat, &id).await })
    });
    let mut results = Vec::new();
    for handle in applies {
        results.push(handle.await.expect("task").expect("apply"));
    }
    assert_eq!(results.iter().filter(|r| !r.replayed).count(), 1, "exactly one apply ran the action");
    let jobs: Vec<String> = results
        .iter()
        .map(|r| r.action.result.as_ref().and_then(|v| v["jobId"].as_str()).expect("jobId").to_string())
        .collect();
    assert!(jobs.iter().all(|j| j == &jobs[0]), "every apply answers the one develop: {jobs:?}");
    let after = house.key.balance().await.expect("balance");
    assert_eq!((after.balance, after.held), (before.balance - 9, before.held + 9), "held once");
    let develops = house.key.jobs_since(0).await.expect("develops");
    assert_eq!(develops.jobs.len(), 1, "one develop queued");

    let turns = house.key.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect("turns");
    let recorded: Vec<_> = turns.turns.iter().filter(|t| t.role == "action").collect();
    assert_eq!(recorded.len(), 1, "one action turn");
    assert_eq!(recorded[0].action_id.as_deref(), Some(action.id.as_str()));
    let applied = turns.turns[1].actions[0].clone();
    assert_eq!(applied.status, "applied");
    let again = house.key.chat_apply(&chat.id, &action.id).await.expect("apply again");
    assert!(again.replayed && again.turn.id == recorded[0].id);

    let unknown = house.key.chat_apply(&chat.id, "act_nope").await.expect_err("unknown action");
    assert_eq!(refused(unknown), (Some(404), "ACTION_NOT_FOUND".into()));
}

async fn a_viewer_cannot_apply_a_develop_and_a_shortfall_creates_nothing(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.signup_grant_tokens = 5).await else { return };
    let house = House::new(&app, "chat-refuse").await;
    let asset = house.key.upload_bytes("g.png", garment_shot(64, 64), &UploadOptions::default()).await.unwrap();
    answer(&server, develop_of(&asset.asset.id)).await;

    let viewer = house.seat(&app, "chat-viewer", SeatRole::Viewer).await;
    let chat = viewer.session.chat_start(None).await.expect("a viewer may chat");
    let said = viewer.session.chat_say(&chat.id, "Upscale the gown").await.expect("turn");
    let action = said.turns[1].actions[0].clone();
    let e = viewer.session.chat_apply(&chat.id, &action.id).await.expect_err("viewer");
    assert_eq!(refused(e), (Some(403), "FORBIDDEN".into()));

    let chat = house.session.chat_start(None).await.expect("start");
    let said = house.session.chat_say(&chat.id, "Upscale the gown").await.expect("turn");
    let action = said.turns[1].actions[0].clone();
    let before = house.key.balance().await.expect("balance");
    let e = house.session.chat_apply(&chat.id, &action.id).await.expect_err("5 tokens, a 9-token develop");
    assert_eq!(e.status(), Some(402));
    assert_eq!(e.code(), Some("INSUFFICIENT_TOKENS"));
    let after = house.key.balance().await.expect("balance");
    assert_eq!((after.balance, after.held), (before.balance, before.held), "nothing held");
    assert!(house.key.jobs_since(0).await.unwrap().jobs.is_empty(), "nothing queued");
    let turns = house.session.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect("turns");
    assert_eq!(turns.turns[1].actions[0].status, "proposed", "a refused apply leaves the action proposed");
    assert!(turns.turns.iter().all(|t| t.role != "action"), "and records no action turn");

    // A free action of the same session still applies: a pack of the gown.
    answer(
        &server,
        json!({"reply": "Packed.", "actions": [{"kind": "pack", "summary": "Pack the gown",
        "request": {"assetIds": [asset.asset.id], "name": "gown"}}]}),
    )
    .await;
    let said = house.session.chat_say(&chat.id, "Pack it").await.expect("turn");
    let pack = said.turns[1].actions[0].clone();
    assert_eq!((pack.kind.as_str(), pack.price), ("pack", 0));
    let done = house.session.chat_apply(&chat.id, &pack.id).await.expect("pack applies");
    let pack_id = done.action.result.as_ref().and_then(|r| r["packId"].as_str()).expect("packId").to_string();
    assert!(house.key.get_pack(&pack_id).await.is_ok(), "the pack exists");
}

async fn the_turn_limit_hands_the_session_to_support(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.chat_turn_limit = 2).await else { return };
    let house = House::new(&app, "chat-limit").await;
    answer(&server, json!({"reply": "Sure."})).await;
    let s = &house.session;
    let chat = s.chat_start(None).await.expect("start");
    for n in 1..=2 {
        let said = s.chat_say(&chat.id, &format!("Question {n}")).await.expect("under the limit");
        assert_eq!(said.session.turns, n);
    }
    let said = s.chat_say(&chat.id, "Question 3").await.expect("the limit answers with a notice");
    let notice = said.turns.last().expect("notice");
    let escalation = notice.escalation.clone().expect("an escalation");
    assert_eq!((notice.role.as_str(), escalation.reason.as_str()), ("notice", "turn_limit"));
    assert_eq!(said.session.status, "escalated");
    assert_eq!(said.session.ticket_id.as_deref(), Some(escalation.ticket_id.as_str()));
    assert_eq!(asked(&server).await.len(), 2, "the reader was not asked past the limit");

    let tickets = s.support_tickets(&TicketsQuery::default()).await.expect("tickets");
    let ticket = tickets.tickets.iter().find(|t| t.id == escalation.ticket_id).expect("the person's ticket");
    assert!(ticket.summary.contains("turn_limit"), "{}", ticket.summary);

    let e = s.chat_say(&chat.id, "Question 4").await.expect_err("escalated");
    assert_eq!(refused(e), (Some(409), "SESSION_ESCALATED".into()));
}

async fn escalations_and_the_leak_guard(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "chat-esc").await;
    let s = &house.session;
    let reason_of = |r: &studio_client::api::ChatTurnResponse| {
        r.turns.last().and_then(|t| t.escalation.clone()).map(|e| e.reason).unwrap_or_default()
    };

    let chat = s.chat_start(None).await.expect("start");
    let asked_for = ChatTurnRequest { message: "Can I talk to a person?".into(), to_person: true };
    let said = s.chat_turn(&chat.id, &asked_for).await.expect("to a person");
    assert_eq!(reason_of(&said), "requested");

    server.reset().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500)).mount(&server).await;
    let chat = s.chat_start(None).await.expect("start");
    assert_eq!(reason_of(&s.chat_say(&chat.id, "Hello?").await.expect("down")), "ai_down");

    answer(&server, json!({"reply": "Your key is studio_sk_live_0123, keep it safe."})).await;
    let chat = s.chat_start(None).await.expect("start");
    let said = s.chat_say(&chat.id, "What is my key?").await.expect("withheld");
    assert_eq!(reason_of(&said), "leak_guard");
    assert!(said.turns.iter().all(|t| !t.text.contains("studio_sk_")), "the answer is never shown");
    let turns = s.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect("turns");
    assert!(turns.turns.iter().all(|t| !t.text.contains("studio_sk_")), "nor stored");

    // A token secret (every secret the studio issues is 64 hex digits) without the key's marker.
    let secret = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    answer(&server, json!({"reply": format!("Your token secret is {secret}, keep it safe.")})).await;
    let chat = s.chat_start(None).await.expect("start");
    let said = s.chat_say(&chat.id, "What is my token secret?").await.expect("withheld");
    assert_eq!(reason_of(&said), "leak_guard");
    assert!(said.turns.iter().all(|t| !t.text.contains(secret)), "the answer is never shown");
    let turns = s.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect("turns");
    assert!(turns.turns.iter().all(|t| !t.text.contains(secret)), "nor stored");
    assert!(turns.turns.iter().all(|t| t.role != "assistant"), "no answer turn is stored");
    let escalation = said.turns.last().and_then(|t| t.escalation.clone()).expect("an escalation");
    assert_eq!(said.session.status, "escalated");
    assert_eq!(said.session.ticket_id.as_deref(), Some(escalation.ticket_id.as_str()));
    let tickets = s.support_tickets(&TicketsQuery::default()).await.expect("tickets");
    let ticket = tickets.tickets.iter().find(|t| t.id == escalation.ticket_id).expect("the person's ticket");
    assert!(ticket.summary.contains("leak_guard"), "{}", ticket.summary);

    answer(&server, json!({"reply": "Ask ana@another-house.example, she knows."})).await;
    let chat = s.chat_start(None).await.expect("start");
    assert_eq!(reason_of(&s.chat_say(&chat.id, "Who knows?").await.expect("email")), "leak_guard");

    let own = format!("I will write to you at {}.", house.email);
    answer(&server, json!({"reply": own})).await;
    let chat = s.chat_start(None).await.expect("start");
    let said = s.chat_say(&chat.id, "Where do you write?").await.expect("own email");
    assert_eq!(said.turns[1].text, own, "the caller's own address may be said");

    answer(
        &server,
        json!({"reply": "Here is a pack.", "actions": [{"kind": "pack", "summary": "Send to ana@another-house.example",
            "request": {"assetIds": [], "name": "x"}}]}),
    )
    .await;
    let chat = s.chat_start(None).await.expect("start");
    assert_eq!(reason_of(&s.chat_say(&chat.id, "Pack it").await.expect("summary")), "leak_guard");

    answer(&server, json!({"reply": "", "handoff": true})).await;
    let chat = s.chat_start(None).await.expect("start");
    assert_eq!(reason_of(&s.chat_say(&chat.id, "My invoice is wrong").await.expect("handoff")), "handoff");

    let tickets = s.support_tickets(&TicketsQuery::default()).await.expect("tickets");
    for reason in ["requested", "ai_down", "leak_guard", "handoff"] {
        assert!(tickets.tickets.iter().any(|t| t.summary.contains(reason)), "a ticket for {reason}");
    }
}

async fn sessions_are_their_persons_alone(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let house = House::new(&app, "chat-own").await;
    let other = House::new(&app, "chat-own-other").await;
    let colleague = house.seat(&app, "chat-own-colleague", SeatRole::Member).await;
    let chat = house.session.chat_start(Some("Mine")).await.expect("start");

    let e = house.session.chat_say(&chat.id, "Hello").await.expect_err("no reader");
    assert_eq!(refused(e), (Some(503), "AI_NOT_CONFIGURED".into()));
    let turns = house.session.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect("turns");
    assert!(turns.turns.is_empty() && turns.session.turns == 0, "nothing stored without a reader");

    // The owner's own key (minted by the same person) does not read the browser session's
    // chats, which may carry the person's own memories.
    for stranger in [&colleague.session, &other.session, &other.key, &house.key] {
        let e = stranger.chat_turns(&chat.id, &ChatTurnsQuery::default()).await.expect_err("not theirs");
        assert_eq!(refused(e), (Some(404), "CHAT_SESSION_NOT_FOUND".into()));
        let e = stranger.chat_warm(&chat.id).await.expect_err("not theirs");
        assert_eq!(refused(e), (Some(404), "CHAT_SESSION_NOT_FOUND".into()));
        let e = stranger.chat_apply(&chat.id, "act_x").await.expect_err("not theirs");
        assert_eq!(refused(e), (Some(404), "CHAT_SESSION_NOT_FOUND".into()));
        let e = stranger.chat_say(&chat.id, "Hi").await.expect_err("not theirs");
        assert_eq!(refused(e), (Some(404), "CHAT_SESSION_NOT_FOUND".into()), "the session is checked first");
        let listed = stranger.chat_sessions(&Default::default()).await.expect("list");
        assert!(listed.sessions.iter().all(|s| s.id != chat.id), "never listed to another");
    }
    let listed = house.session.chat_sessions(&Default::default()).await.expect("list");
    assert_eq!(listed.sessions.iter().map(|s| s.title.as_str()).collect::<Vec<_>>(), ["Mine"]);

    let e = house.session.chat_say(&chat.id, "   ").await.expect_err("blank");
    assert_eq!(refused(e), (Some(400), "MESSAGE_REQUIRED".into()));
    let e = house.session.chat_start(Some(&"t".repeat(121))).await.expect_err("long title");
    assert_eq!(refused(e), (Some(400), "TOO_LONG".into()));
}

async fn warm_keeps_the_context_and_priced_turns_charge_once(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| c.chat_turn_price = 2).await else { return };
    let house = House::new(&app, "chat-warm").await;
    let chat = house.key.chat_start(None).await.expect("start");
    let first = house.key.chat_warm(&chat.id).await.expect("warm");
    let second = house.key.chat_warm(&chat.id).await.expect("warm again");
    assert!(!first.cached && second.cached, "the second warm rebuilds nothing");
    assert_eq!(first.built_at, second.built_at);
    assert_eq!(asked(&server).await.len(), 0, "warming never asks the reader");

    let before = house.key.balance().await.expect("balance");
    answer(&server, json!({"reply": "Hello."})).await;
    let said = house.key.chat_say(&chat.id, "Hi").await.expect("priced turn");
    assert_eq!(said.turns[1].tokens, 2);
    let after = house.key.balance().await.expect("balance");
    assert_eq!((after.balance, after.held), (before.balance - 2, before.held), "settled once");

    // An answer the leak guard withholds charges nothing.
    answer(&server, json!({"reply": "The key is studio_sk_live_0123."})).await;
    let chat = house.key.chat_start(None).await.expect("start");
    let said = house.key.chat_say(&chat.id, "Key?").await.expect("withheld");
    assert_eq!(said.turns.last().and_then(|t| t.escalation.as_ref()).map(|e| e.reason.as_str()), Some("leak_guard"));
    let withheld = house.key.balance().await.expect("balance");
    assert_eq!((withheld.balance, withheld.held), (after.balance, after.held), "a withheld answer is released");

    // A reader that fails charges nothing.
    server.reset().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500)).mount(&server).await;
    let chat = house.key.chat_start(None).await.expect("start");
    house.key.chat_say(&chat.id, "Hi again").await.expect("escalated");
    let last = house.key.balance().await.expect("balance");
    assert_eq!((last.balance, last.held), (after.balance, after.held), "a failed read is released");
}

async fn concurrent_priced_turns_cannot_overspend(backend: Backend) {
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |c| {
        c.chat_turn_price = 2;
        c.signup_grant_tokens = 5;
    })
    .await
    else {
        return;
    };
    let house = House::new(&app, "chat-spend").await;
    answer(&server, json!({"reply": "Yes."})).await;
    let mut sessions = Vec::new();
    for _ in 0..8 {
        sessions.push(house.key.chat_start(None).await.expect("start").id);
    }
    let turns = sessions.into_iter().map(|id| {
        let client = house.key.clone();
        tokio::spawn(async move { (client.chat_say(&id, "Hello").await, id) })
    });
    let (mut answered, mut short) = (0, 0);
    for handle in turns {
        let (outcome, id) = handle.await.expect("task");
        match outcome {
            Ok(said) => {
                assert_eq!(said.turns[1].tokens, 2);
                answered += 1;
            }
            Err(e) => {
                assert_eq!(refused(e), (Some(402), "INSUFFICIENT_TOKENS".into()));
                let page = house.key.chat_turns(&id, &ChatTurnsQuery::default()).await.expect("turns");
                assert!(page.turns.is_empty() && page.session.turns == 0, "a refused turn stores and counts nothing");
                short += 1;
            }
        }
    }
    assert_eq!((answered, short), (2, 6), "5 tokens pay for two 2-token turns");
    let after = house.key.balance().await.expect("balance");
    assert_eq!((after.balance, after.held), (1, 0), "charged exactly twice, nothing left held");
}

async fn a_free_action_is_created_once_under_ten_concurrent_applies(backend: Backend) {
    // No idempotency key stands behind a look: only the claim keeps ten applies to one.
    let server = MockServer::start().await;
    let Some(app) = app_with_reader(backend, &server, |_| {}).await else { return };
    let house = House::new(&app, "chat-look").await;
    let upload = |name: &'static str| {
        let key = house.key.clone();
        async move { key.upload_bytes(name, garment_shot(64, 64), &UploadOptions::default()).await.unwrap().asset.id }
    };
    let (model, dress) = (upload("model.png").await, upload("dress.png").await);
    let look = json!({"name": "Ivory evening", "modelAssetId": model, "itemAssetIds": [{"assetId": dress, "role": "dress"}],
        "background": {"kind": "preset", "value": "white"}, "aesthetic": "minimal"});
    answer(
        &server,
        json!({"reply": "A look?", "actions": [{"kind": "look", "summary": "Draft the look", "request": look}]}),
    )
    .await;
    let chat = house.key.chat_start(None).await.expect("start");
    let said = house.key.chat_say(&chat.id, "Make a look").await.expect("turn");
    let action = said.turns[1].actions.first().expect("a look proposed").clone();
    assert_eq!((action.kind.as_str(), action.price), ("look", 0));

    let applies = (0..10).map(|_| {
        let (client, chat, id) = (house.key.clone(), chat.id.clone(), action.id.clone());
        tokio::spawn(async move { client.chat_apply(&chat, &id).await })
    });
    let mut ran = 0;
    for handle in applies {
        let applied = handle.await.expect("task").expect("apply");
        ran += usize::from(!applied.replayed);
    }
    assert_eq!(ran, 1, "one apply ran");
    let looks = house.key.looks().await.expect("looks");
    assert_eq!(looks.looks.len(), 1, "one look was created, not {}", looks.looks.len());
}
