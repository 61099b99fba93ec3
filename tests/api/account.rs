//! The person's and the house's account end to end (§4.8, §4.15): the account page, avatars,
//! the billing contact, memories and their correction chain, `/api/me` (read, export, erase),
//! onboarding and intake, the tool catalogue, and the admin people pages.

use serde_json::json;
use studio_client::api::{
    AccessAction, AccessRequest, IntakeAnswers, MemoryClass, MemoryRequest, MemoryScope, MemoryStatus, SeatRole,
    ToolItemRequest,
};
use studio_client::{DevelopSubmit, InputSource};
use studio_tests::{Backend, House, Person, backend_tests, images, spawn};

backend_tests!(
    the_account_page_reads_the_ledger_and_jobs,
    avatars_are_square_small_and_shared_with_housemates,
    only_the_owner_sets_the_billing_email,
    a_person_renames_themself_only,
    memories_keep_their_history,
    me_exports_and_erases_the_person,
    onboarding_and_intake_are_recorded,
    the_catalogue_opens_by_trial_plan_or_grant,
    admin_people_pages_are_admin_only,
);

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn the_account_page_reads_the_ledger_and_jobs(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "account").await;
    let develop = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "a.png".into(), bytes: images::png(64, 48) });
    let submitted = house.key.submit_develop(&develop).await.expect("submit");
    let job =
        house.key.wait_for(&submitted.job_id, std::time::Duration::from_secs(60)).await.expect("the develop finishes");
    let spent = job.tokens_settled.expect("settled");

    for (days, window) in [(None, 30), (Some(7), 7), (Some(90), 90), (Some(14), 30), (Some(30), 30)] {
        let page = house.session.account(days).await.expect("account");
        assert_eq!(page.tokens.days, window, "days={days:?}");
        assert_eq!(page.tokens.balance, 100 - spent);
        assert_eq!((page.tokens.grant, page.tokens.topup, page.tokens.held), (100 - spent, 0, 0));
        let upscale = page.tokens.by_workflow.iter().find(|w| w.workflow == "upscale").expect("the develop counts");
        assert_eq!((upscale.tokens, upscale.runs), (spent, 1));
        assert!(upscale.last_at.is_some());
    }
    let raw: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/api/account?days=abc", app.base))
        .bearer_auth(&house.secret)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(raw["tokens"]["days"], 30, "anything else falls back to 30: {raw}");
    let page = house.session.account(None).await.unwrap();
    assert_eq!(page.profile.email, house.email);
    assert!(!page.profile.email_verified && page.profile.image.is_none());
    assert!(page.plan.is_none() && page.invoices.is_empty());
    assert_eq!((page.billing.can_manage, page.billing.card_on_file), (true, false));
    assert_eq!(page.billing.email.as_deref(), Some(house.email.as_str()), "the owner's address until one is set");
    assert!(!house.key.account(None).await.unwrap().billing.can_manage, "a key never manages money");
}

async fn avatars_are_square_small_and_shared_with_housemates(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "avatar").await;
    let mate = house.seat(&app, "avatar-mate", SeatRole::Viewer).await;
    let stranger = Person::sign_up(&app, "avatar-stranger").await;

    let e = house.session.upload_avatar(images::png(64, 48), "wide.png").await.expect_err("not square");
    assert_eq!(code(&e), (Some(400), Some("NOT_SQUARE")));
    let gif = {
        let img = image::RgbImage::new(8, 8);
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Gif).unwrap();
        out.into_inner()
    };
    let e = house.session.upload_avatar(gif, "a.gif").await.expect_err("gif");
    assert_eq!(code(&e), (Some(400), Some("BAD_AVATAR_TYPE")));
    // Refused mid-upload, the rest of the body is still read: the client sees 413, not a reset.
    for len in [600 * 1024, 1900 * 1024, 600 * 1024, 1900 * 1024] {
        let e = house.session.upload_avatar(images::padded_png(0, len), "big.png").await.expect_err("over 512 KB");
        assert_eq!(code(&e), (Some(413), Some("AVATAR_TOO_LARGE")), "{len} bytes: {e:?}");
    }

    let first = house.session.upload_avatar(images::png(32, 32), "me.png").await.expect("upload");
    let url = first.image.expect("a url");
    assert!(url.ends_with(&format!("/api/account/avatar/{}?v=1", house.user_id)), "{url}");
    let second = house.session.upload_avatar(images::jpeg(40, 40), "me.jpg").await.expect("replace");
    assert!(second.image.unwrap().ends_with("?v=2"), "a new version stamp");
    assert_eq!(
        house.session.account(None).await.unwrap().profile.image.as_deref().map(|u| u.ends_with("?v=2")),
        Some(true)
    );

    let bytes = mate.session.avatar_bytes(&house.user_id).await.expect("a housemate sees it");
    assert_eq!(&bytes[..2], &[0xFF, 0xD8], "the JPEG that replaced the PNG");
    assert_eq!(house.session.avatar_bytes(&house.user_id).await.expect("oneself").len(), bytes.len());
    let e = stranger.session.avatar_bytes(&house.user_id).await.expect_err("stranger");
    assert_eq!(e.status(), Some(401));
    let e = app.client.avatar_bytes(&house.user_id).await.expect_err("no session");
    assert_eq!(e.status(), Some(401));
    let e = house.session.avatar_bytes(&mate.user_id).await.expect_err("no picture");
    assert_eq!(code(&e), (Some(404), Some("NO_AVATAR")));

    let blobs_before = count_files(&app.data_dir.join("blobs").join("avatars"));
    assert_eq!(blobs_before, 1, "the replaced picture's bytes were removed");
    assert!(house.session.delete_avatar().await.expect("delete").image.is_none());
    assert_eq!(count_files(&app.data_dir.join("blobs").join("avatars")), 0, "delete removes the bytes");
    let e = mate.session.avatar_bytes(&house.user_id).await.expect_err("gone");
    assert_eq!(e.status(), Some(404));
}

fn count_files(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries.flatten().map(|e| if e.path().is_dir() { count_files(&e.path()) } else { 1 }).sum()
}

async fn only_the_owner_sets_the_billing_email(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "billing-email").await;
    let admin = house.seat(&app, "billing-email-admin", SeatRole::Admin).await;
    let e = admin.session.set_billing_email("books@example.com").await.expect_err("admin");
    assert_eq!(e.status(), Some(403));
    let e = house.key.set_billing_email("books@example.com").await.expect_err("key");
    assert_eq!(e.status(), Some(403));
    let e = house.session.set_billing_email("nope").await.expect_err("bad address");
    assert_eq!(code(&e), (Some(400), Some("BAD_EMAIL")));
    let set = house.session.set_billing_email(" Books@Example.com ").await.expect("owner");
    assert_eq!(set.email, "books@example.com");
    let page = admin.session.account(None).await.unwrap();
    assert_eq!(page.billing.email.as_deref(), Some("books@example.com"));
    assert!(!page.billing.can_manage);
}

async fn a_person_renames_themself_only(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "rename").await;
    let page = house.session.rename_me("  Ada Lovelace ").await.expect("rename");
    assert_eq!(page.profile.name.as_deref(), Some("Ada Lovelace"), "trimmed");
    assert_eq!(house.session.account(None).await.unwrap().profile.name.as_deref(), Some("Ada Lovelace"));
    for bad in ["   ", &"x".repeat(201), "a\u{7}b"] {
        let e = house.session.rename_me(bad).await.expect_err("bad name");
        assert_eq!(code(&e), (Some(400), Some("BAD_NAME")), "{bad:?}");
    }
    let e = house.key.rename_me("Not with a key").await.expect_err("a key");
    assert_eq!(code(&e), (Some(403), Some("SESSION_REQUIRED")));
    assert_eq!(house.session.account(None).await.unwrap().profile.name.as_deref(), Some("Ada Lovelace"));
}

fn statement(text: &str, scope: MemoryScope, replaces: Option<&str>) -> MemoryRequest {
    MemoryRequest {
        statement: text.into(),
        scope,
        memory_class: MemoryClass::Preference,
        replaces_memory_id: replaces.map(str::to_string),
        kind: None,
        confidence: None,
    }
}

async fn memories_keep_their_history(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "memory").await;
    let member = house.seat(&app, "memory-member", SeatRole::Member).await;
    let viewer = house.seat(&app, "memory-viewer", SeatRole::Viewer).await;

    // 201 for a new statement, 200 for a correction: checked on the wire.
    let (status, a) = post_memory(
        &app.base,
        &house.session,
        json!({"statement": "White grounds", "scope": "house", "memoryClass": "preference"}),
    )
    .await;
    assert_eq!(status, 201, "{a}");
    let a_id = a["id"].as_str().unwrap().to_string();
    let (status, b) = post_memory(
        &app.base,
        &member.session,
        json!({"statement": "Warm white grounds", "scope": "house", "memoryClass": "preference", "replacesMemoryId": a_id}),
    )
    .await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(b["supersedesId"], a_id.as_str());
    let b_id = b["id"].as_str().unwrap().to_string();
    let c = house.session.remember(&statement("Ivory grounds", MemoryScope::House, Some(&b_id))).await.expect("c");
    let e = house
        .session
        .remember(&statement("again", MemoryScope::House, Some(&a_id)))
        .await
        .expect_err("a is not active");
    assert_eq!(code(&e), (Some(404), Some("MEMORY_NOT_FOUND")));
    let e = house.session.remember(&statement("x", MemoryScope::Person, Some(&c.id))).await.expect_err("other scope");
    assert_eq!(code(&e), (Some(404), Some("MEMORY_NOT_FOUND")));

    let list = viewer.session.memories().await.expect("viewers read").memories;
    let status_of = |id: &str| list.iter().find(|m| m.id == id).map(|m| m.status);
    assert_eq!(status_of(&a_id), Some(MemoryStatus::Corrected));
    assert_eq!(status_of(&b_id), Some(MemoryStatus::Corrected));
    assert_eq!(status_of(&c.id), Some(MemoryStatus::Active));
    assert!(
        list.iter().filter(|m| m.status != MemoryStatus::Active).all(|m| !m.projected),
        "history is never projected"
    );

    // Personal memories: only their writer sees them; corrections stay in the writer's scope.
    let mine = member.session.remember(&statement("I shoot on Tuesdays", MemoryScope::Person, None)).await.unwrap();
    assert!(!house.session.memories().await.unwrap().memories.iter().any(|m| m.id == mine.id));
    assert!(member.session.memories().await.unwrap().memories.iter().any(|m| m.id == mine.id));
    let e =
        house.session.remember(&statement("no", MemoryScope::Person, Some(&mine.id))).await.expect_err("not theirs");
    assert_eq!(code(&e), (Some(404), Some("MEMORY_NOT_FOUND")));
    let e = house.session.retire_memory(&mine.id).await.expect_err("not theirs to retire");
    assert_eq!(code(&e), (Some(404), Some("MEMORY_NOT_FOUND")));

    // Viewers may not write; retiring keeps history; only active memories reach the assistant.
    let e = viewer.session.remember(&statement("x", MemoryScope::House, None)).await.expect_err("viewer");
    assert_eq!(e.status(), Some(403));
    let e = viewer.session.retire_memory(&c.id).await.expect_err("viewer");
    assert_eq!(e.status(), Some(403));
    // A key acts for the house, never for a person: house memories only.
    let e =
        house.key.remember(&statement("a key's own", MemoryScope::Person, None)).await.expect_err("personal by key");
    assert_eq!(code(&e), (Some(403), Some("SESSION_REQUIRED")));
    let owner_personal = house.session.remember(&statement("owner's own", MemoryScope::Person, None)).await.unwrap();
    let by_key = house.key.memories().await.unwrap().memories;
    assert!(by_key.iter().all(|m| m.scope == MemoryScope::House), "a key sees no personal memory");
    assert_eq!(house.key.retire_memory(&owner_personal.id).await.expect_err("not a key's").status(), Some(404));
    house.session.retire_memory(&owner_personal.id).await.expect("the owner retires their own");
    let retired = member.session.retire_memory(&c.id).await.expect("retire");
    assert_eq!(retired.status, MemoryStatus::Retired);
    let e = member.session.retire_memory(&c.id).await.expect_err("twice");
    assert_eq!(e.status(), Some(404));
    assert_eq!(house.session.memories().await.unwrap().memories.len(), 4, "history kept");
    let caller = app
        .studio
        .accounts()
        .authenticate_session(&studio_core::SessionToken(session_token(&member.session)))
        .await
        .unwrap();
    let active = app.studio.accounts().active_memories(&caller).await.unwrap();
    assert_eq!(active.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), vec![mine.id.as_str()]);

    for (body, expected) in [
        (json!({"statement": "", "scope": "house", "memoryClass": "fact"}), "BAD_STATEMENT"),
        (json!({"statement": "x".repeat(2001), "scope": "house", "memoryClass": "fact"}), "BAD_STATEMENT"),
        (json!({"statement": "x", "scope": "house", "memoryClass": "fact", "confidence": 1.5}), "BAD_CONFIDENCE"),
        (json!({"statement": "x", "scope": "galaxy", "memoryClass": "fact"}), "BAD_BODY"),
        (json!({"statement": "x", "scope": "house", "memoryClass": "gossip"}), "BAD_BODY"),
        (json!({"statement": "x", "scope": "house"}), "BAD_BODY"),
    ] {
        let (status, answer) = post_memory(&app.base, &house.session, body).await;
        assert_eq!((status, answer["error"].as_str()), (400, Some(expected)), "{answer}");
    }
}

async fn post_memory(base: &str, session: &studio_client::Client, body: serde_json::Value) -> (u16, serde_json::Value) {
    let res = reqwest::Client::new()
        .post(format!("{base}/api/account/memory"))
        .header("cookie", format!("studio_session={}", session_token(session)))
        .header("origin", base)
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

fn session_token(client: &studio_client::Client) -> String {
    match client.credential() {
        studio_client::Credential::Session(t) => t.clone(),
        other => panic!("not a session: {other:?}"),
    }
}

async fn me_exports_and_erases_the_person(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "me").await;
    let member = house.seat(&app, "me-member", SeatRole::Member).await;
    member.session.remember(&statement("Mine alone", MemoryScope::Person, None)).await.unwrap();
    house.session.remember(&statement("The house's", MemoryScope::House, None)).await.unwrap();
    member.session.record_intake(&IntakeAnswers { pain: vec!["reshoots".into()], ..Default::default() }).await.unwrap();

    let export = member.session.export_me().await.expect("export");
    assert_eq!(export["profile"]["email"], member.email.as_str());
    let memories = export["personalMemories"].as_array().unwrap();
    assert_eq!(memories.len(), 1, "personal memories only: {export}");
    assert_eq!(memories[0]["statement"], "Mine alone");
    assert_eq!(export["houses"].as_array().unwrap().len(), 2, "their own house and this one");
    assert_eq!(export["seatInvitations"].as_array().unwrap().len(), 1);
    assert_eq!(export["intake"][0]["answers"]["pain"][0], "reshoots");
    let e = house.key.export_me().await.expect_err("a key is not a person");
    assert_eq!(e.status(), Some(403));
    let member_key = member.session.clone();
    let by_session = member_key.me().await.unwrap();
    assert_eq!(by_session.houses.len(), 2);
    let by_key = house.key.me().await.unwrap();
    assert_eq!(by_key.houses.len(), 1, "a key shows only its own house: {by_key:?}");
    assert_eq!(by_key.houses[0].organization_id, house.org_id);

    // The only owner of a house with others in it cannot leave it ownerless.
    let e = house.session.erase_me().await.expect_err("sole owner");
    assert_eq!(code(&e), (Some(409), Some("SOLE_OWNER")));
    let made = house.key.create_folder("kept", None).await.expect("work in the house");

    let erased = member.session.erase_me().await.expect("erase");
    assert!(erased.erased && erased.houses_left.contains(&house.org_id.to_string()));
    assert_eq!(member.session.me().await.expect_err("the session ended").status(), Some(401));
    let e = app.client.sign_in(&member.email, studio_tests::PASSWORD).await.expect_err("no sign-in");
    assert_eq!(e.status(), Some(401));
    assert!(!house.session.seats().await.unwrap().seats.iter().any(|s| s.user_id == member.user_id));
    assert!(!app.client.check_email(&member.email).await.unwrap().exists, "the address is forgotten");
    let folders = house.key.list_folders().await.unwrap();
    assert!(folders.folders.iter().any(|f| f.id == made.folder.id), "work stays with the house");
    // With nobody else in the house, the owner may go; nobody may act for the house after.
    let solo = House::new(&app, "me-solo").await;
    assert!(solo.key.balance().await.is_ok());
    assert!(solo.session.erase_me().await.expect("erase a lone owner").erased);
    assert_eq!(solo.key.balance().await.expect_err("the empty house's key").status(), Some(401));
}

async fn onboarding_and_intake_are_recorded(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "onboard").await;
    let view = house.session.onboarding().await.expect("read");
    assert_eq!(view.steps.len(), studio_core::ONBOARDING_STEPS.len());
    assert!(!view.complete && view.steps.iter().all(|s| s.completed_at.is_none()));
    let done = house.session.complete_onboarding_step("first_upload").await.expect("complete");
    let at = done.steps.iter().find(|s| s.key == "first_upload").unwrap().completed_at.expect("completed");
    let again = house.session.complete_onboarding_step("first_upload").await.expect("twice");
    assert_eq!(again.steps.iter().find(|s| s.key == "first_upload").unwrap().completed_at, Some(at), "first time kept");
    let e = house.session.complete_onboarding_step("fly").await.expect_err("unknown");
    assert_eq!(code(&e), (Some(404), Some("UNKNOWN_STEP")));

    let e = house.session.record_intake(&IntakeAnswers::default()).await.expect_err("empty");
    assert_eq!(code(&e), (Some(400), Some("EMPTY_INTAKE")));
    let answers = IntakeAnswers {
        audience: vec!["womenswear".into()],
        volume: vec!["200 a season".into()],
        pain_text: Some("Reshoots eat the budget".into()),
        ..Default::default()
    };
    let recorded = house.session.record_intake(&answers).await.expect("intake");
    assert!(recorded.id.starts_with("int_"));
    let view = house.session.onboarding().await.unwrap();
    assert!(view.steps.iter().find(|s| s.key == "intake").unwrap().completed_at.is_some(), "intake completes its step");
    let e = house.session.record_intake(&IntakeAnswers { pain: vec!["x".repeat(201)], ..Default::default() }).await;
    assert_eq!(code(&e.expect_err("too long")), (Some(400), Some("BAD_INTAKE")));
}

async fn the_catalogue_opens_by_trial_plan_or_grant(backend: Backend) {
    let app = spawn(backend, |c| c.people.trial_days = 0).await.expect("app");
    let admin = House::new(&app, "access-admin").await;
    app.studio.admin().operator().add_admin(&admin.email).await.expect("admin");
    let house = House::new(&app, "access").await;

    let access = house.session.my_access().await.expect("access");
    assert!(access.trial_expired && !access.trial_active && access.trial_days_left == 0);
    assert!(access.tools.iter().all(|t| !t.accessible) && access.toolkits.iter().all(|k| !k.accessible));
    let e = house.session.tool_items("lookbook").await.expect_err("locked");
    assert_eq!(code(&e), (Some(403), Some("TOOL_LOCKED")));
    let e = house.session.tool_items("nope").await.expect_err("unknown");
    assert_eq!(code(&e), (Some(404), Some("TOOL_NOT_FOUND")));

    let grant =
        |action, user_id: Option<&str>, email: Option<&str>, kit: Option<&str>, tool: Option<&str>| AccessRequest {
            action,
            user_id: user_id.map(str::to_string),
            email: email.map(str::to_string),
            toolkit_id: kit.map(str::to_string),
            tool_id: tool.map(str::to_string),
        };
    let done = admin
        .session
        .admin_access(&grant(AccessAction::GrantTool, Some(&house.user_id), None, None, Some("lookbook")))
        .await;
    assert_eq!(done.expect("grant").count, 1);
    let again = admin
        .session
        .admin_access(&grant(AccessAction::GrantTool, None, Some(&house.email), None, Some("lookbook")))
        .await;
    assert_eq!(again.expect("the same grant by email").count, 0, "no duplicate grant");
    let kit = admin
        .session
        .admin_access(&grant(AccessAction::GrantToolkit, Some(&house.user_id), None, Some("writing"), None))
        .await;
    assert_eq!(kit.expect("kit").count, 1);
    let access = house.session.my_access().await.unwrap();
    let open: Vec<&str> = access.tools.iter().filter(|t| t.accessible).map(|t| t.slug.as_str()).collect();
    assert_eq!(open, vec!["lookbook", "prompt-builder", "prompt-enhancer", "inspiration-keywords"]);

    // Items, in category then sort order.
    for (category, order, title) in [("b", 2, "b2"), ("a", 5, "a5"), ("b", 1, "b1")] {
        let item = ToolItemRequest {
            tool_id: "lookbook".into(),
            category: category.into(),
            title_he: Some(title.into()),
            label_he: None,
            content_en: Some(format!("content {title}")),
            image_url: None,
            notes_he: None,
            sort_order: Some(order),
        };
        admin.session.admin_add_tool_item(&item).await.expect("add item");
    }
    let items = house.session.tool_items("lookbook").await.expect("items").items;
    let titles: Vec<&str> = items.iter().map(|i| i.title_he.as_deref().unwrap()).collect();
    assert_eq!(titles, vec!["a5", "b1", "b2"]);
    let removed = admin.session.admin_delete_tool_item(&items[0].id).await.expect("delete");
    assert!(removed.deleted);
    assert_eq!(house.session.tool_items("lookbook").await.unwrap().items.len(), 2);
    let e = admin.session.admin_delete_tool_item(&items[0].id).await.expect_err("twice");
    assert_eq!(code(&e), (Some(404), Some("ITEM_NOT_FOUND")));

    let revoked = admin
        .session
        .admin_access(&grant(AccessAction::RevokeTool, None, Some(&house.email), None, Some("lookbook")))
        .await;
    assert_eq!(revoked.expect("revoke").count, 1);
    assert!(!house.session.my_access().await.unwrap().tools.iter().any(|t| t.slug == "lookbook" && t.accessible));

    // A grant to an address before sign-up opens once the address is proven, and can still be
    // revoked by that address afterwards.
    let email = studio_tests::unique_email("access-later");
    admin
        .session
        .admin_access(&grant(AccessAction::GrantToolkit, None, Some(&email), Some("brand"), None))
        .await
        .unwrap();
    let later = app.client.sign_up(&email, studio_tests::PASSWORD, None).await.unwrap();
    let later_session = app.client.with_session(&later.session);
    let brand_open =
        |access: &studio_client::api::MyAccess| access.toolkits.iter().any(|k| k.id == "brand" && k.accessible);
    assert!(!brand_open(&later_session.my_access().await.unwrap()), "an unproven address is only a claim");
    app.studio.storage().set_email_verified(&later.account.user.id.as_str().into(), chrono::Utc::now()).await.unwrap();
    assert!(brand_open(&later_session.my_access().await.unwrap()), "open once the address is proven");
    let revoked =
        admin.session.admin_access(&grant(AccessAction::RevokeToolkit, None, Some(&email), Some("brand"), None)).await;
    assert_eq!(revoked.expect("revoke by address after sign-up").count, 1);
    assert!(!brand_open(&later_session.my_access().await.unwrap()));

    for (req, expected) in [
        (grant(AccessAction::GrantTool, None, None, None, Some("lookbook")), (400, "TARGET_REQUIRED")),
        (grant(AccessAction::GrantTool, Some(&house.user_id), None, None, None), (400, "TARGET_REQUIRED")),
        (grant(AccessAction::GrantTool, Some(&house.user_id), None, None, Some("x")), (400, "UNKNOWN_TOOL")),
        (grant(AccessAction::GrantToolkit, Some(&house.user_id), None, Some("x"), None), (400, "UNKNOWN_TOOLKIT")),
        (grant(AccessAction::GrantTool, Some("usr_nobody"), None, None, Some("lookbook")), (404, "USER_NOT_FOUND")),
    ] {
        let e = admin.session.admin_access(&req).await.expect_err("refused");
        assert_eq!(code(&e), (Some(expected.0), Some(expected.1)));
    }

    // A trial opens everything while it lasts.
    let trial = spawn(backend, |c| c.people.trial_days = 14).await.expect("app");
    let fresh = House::new(&trial, "access-trial").await;
    let access = fresh.session.my_access().await.unwrap();
    assert!(access.trial_active && !access.trial_expired && access.trial_days_left == 14);
    assert!(access.tools.iter().all(|t| t.accessible));
}

async fn admin_people_pages_are_admin_only(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let admin = House::new(&app, "people-admin").await;
    app.studio.admin().operator().add_admin(&admin.email).await.expect("admin");
    let plain = House::new(&app, "people-plain").await;
    let mut newest = None;
    for n in 0..3 {
        newest = Some(House::new(&app, &format!("people-{n}")).await);
    }
    let newest = newest.expect("three more houses");
    plain.session.complete_onboarding_step("profile").await.unwrap();

    let e = plain.session.admin_users(None, None, None).await.expect_err("not an admin");
    assert_eq!(e.status(), Some(403));
    assert_eq!(plain.session.admin_onboarding().await.expect_err("not an admin").status(), Some(403));
    assert_eq!(plain.session.admin_tool_items("lookbook").await.expect_err("not an admin").status(), Some(403));
    let e = plain
        .session
        .admin_access(&AccessRequest {
            action: AccessAction::GrantTool,
            user_id: None,
            email: None,
            toolkit_id: None,
            tool_id: None,
        })
        .await
        .expect_err("not an admin");
    assert_eq!(e.status(), Some(403));

    // Paging walks everyone exactly once, newest first.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = admin.session.admin_users(None, Some(2), cursor.as_deref()).await.expect("page");
        assert!(page.users.len() <= 2);
        seen.extend(page.users.iter().map(|u| u.id.clone()));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen.len(), 5);
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5, "no one twice");
    assert_eq!(seen[0], newest.user_id, "newest first");
    assert_eq!(seen[4], admin.user_id, "the first to sign up comes last");
    let found = admin.session.admin_users(Some("PEOPLE-PLAIN"), None, None).await.expect("search");
    assert_eq!(found.users.len(), 1);
    assert_eq!(found.users[0].id, plain.user_id);
    assert!(found.next_cursor.is_none());
    for literal in ["%", "_", "\\"] {
        let none = admin.session.admin_users(Some(literal), None, None).await.expect("search");
        assert!(none.users.is_empty(), "{literal:?} is matched literally: {none:?}");
    }
    let e = admin.session.admin_users(None, Some(0), None).await.expect_err("limit");
    assert_eq!(code(&e), (Some(400), Some("BAD_LIMIT")));
    let e = admin.session.admin_users(None, None, Some("garbage")).await.expect_err("cursor");
    assert_eq!(code(&e), (Some(400), Some("BAD_CURSOR")));

    let funnel = admin.session.admin_onboarding().await.expect("funnel");
    assert_eq!(funnel.people, 5);
    assert_eq!(funnel.steps.iter().find(|s| s.key == "profile").unwrap().completed, 1);
}
