//! The isolation matrix: every route of the served `/openapi.json`, called on house A's ids by
//! no credential, a revoked key of A, house B (its member key; its owner session on the
//! session-only key routes) and A's viewer key, then by A itself as the control that shows the
//! ids are real. Expected answers come from the route's access class (spec §4, §5): 401 without
//! a valid credential, 404 for another house's id (answered exactly as an unknown id is, so
//! existence is never confirmed), 403 for a viewer on the routes that spend, delete or change,
//! and the same answer for everyone on the public routes. A route the table does not classify
//! fails the test, so a new route cannot slip by.

use std::collections::BTreeSet;

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use studio_client::Client;
use studio_client::api::{KeyRole, PackRequest};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::png;
use studio_tests::{Backend, PASSWORD, TestApp, backend_tests, spawn, unique_email};

backend_tests!(every_route_answers_as_the_spec_says);

/// Who may call a route (spec §5.3, §5.4, §5.5).
#[derive(Debug, Clone, Copy)]
enum Access {
    /// No credential needed; every caller gets the same answer.
    Public(Want),
    /// A Standard Webhooks signature is the only authority; credentials grant nothing.
    Signed,
    /// Answers 405 to everyone by design.
    NotAllowed,
    /// Any key or session of the house, viewers included (reads, free work).
    AnyRole,
    /// Any role but viewer (spending tokens, deleting or changing the library); the code a
    /// viewer is refused with.
    NotViewer(&'static str),
    /// An owner's session only: spending money. Keys never.
    Money,
    /// A session only, never a key: minting and revoking keys (an owner's or admin's), accepting
    /// an invitation and the person's own invite code (anyone's). B calls with its session.
    SessionOnly,
    /// A platform admin's session (marked by the operator).
    Admin,
    /// The house's owner or an admin (so a session: keys are at most members); the code a
    /// viewer is refused with. B calls with its owner's session, so a foreign id is 404.
    HouseAdmin(&'static str),
    /// A machine credential of this kind only (spec §5.6): the support bridge's header secret
    /// (`bridge`) or the bearer token of the `analyst`, `action` or `renderer`. Every person's
    /// credential is refused 401; the control sends the kind's own secret.
    Machine(&'static str),
}

/// An expected answer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    /// This status.
    Status(u16),
    /// This status and envelope code.
    Code(u16, &'static str),
    /// 200 and this number in this field (a batch route that skips what is not the house's).
    Count(&'static str, i64),
    /// An agent-endpoint result that is not a refusal.
    ToolOk,
    /// An agent-endpoint refusal whose error begins with this code.
    ToolRefused(&'static str),
}

/// A request body.
#[derive(Debug, Clone)]
enum Body {
    None,
    Json(Value),
    /// Multipart upload of a small PNG into this collection.
    Upload {
        folder_id: String,
    },
    /// Multipart submit of an upscale whose image is this library asset.
    Submit {
        asset_id: String,
    },
    /// Multipart pre-flight of one small PNG.
    Preflight,
    /// Multipart avatar: one small square PNG.
    Avatar,
    /// One small PNG as the multipart part `image` (the brand DNA read, the AI lanes).
    Image,
}

/// One route of the matrix.
#[derive(Debug, Clone)]
struct Row {
    route: &'static str,
    /// What fills the path's parameter: one of house A's ids.
    id: Option<String>,
    body: Body,
    access: Access,
    /// The answer of an allowed caller: the control, a viewer where viewers may, house B on a
    /// route that carries no id of A.
    ok: Want,
    /// House B's answer where the id rides in the body, or where the spec names another.
    foreign: Option<Want>,
    /// A query string to send (the document walk's required parameters).
    query: Option<String>,
}

fn row(route: &'static str, access: Access, ok: Want) -> Row {
    Row { route, id: None, body: Body::None, access, ok, foreign: None, query: None }
}

impl Row {
    fn id(mut self, id: &str) -> Self {
        self.id = Some(id.to_string());
        self
    }
    fn json(mut self, body: Value) -> Self {
        self.body = Body::Json(body);
        self
    }
    fn body(mut self, body: Body) -> Self {
        self.body = body;
        self
    }
    fn foreign(mut self, want: Want) -> Self {
        self.foreign = Some(want);
        self
    }
}

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Who {
    Nobody,
    Revoked,
    Foreign,
    Viewer,
    Control,
}

/// House A's and house B's credentials and A's ids.
struct World {
    a_email: String,
    a_user: String,
    a_org: String,
    a_session: String,
    a_member: String,
    a_viewer: String,
    a_revoked: String,
    b_session: String,
    b_member: String,
    /// Every id of house A a foreign listing must not show.
    a_ids: Vec<String>,
    folder: String,
    /// A collection of A with nothing in it, for the delete.
    spare_folder: String,
    asset: String,
    spare_asset: String,
    spare_key: String,
    job: String,
    run: String,
    pack: String,
    checkout: String,
    /// An admin's invitation for A's owner's own address.
    invite_token: String,
    /// A campaign code A's owner (an admin) minted.
    invite_code: String,
    /// A house memory of A.
    memory: String,
    /// A person seated in A (as member), with a proven address.
    seated: String,
    /// A tool item A's owner (an admin) added.
    tool_item: String,
    /// A draft look of A.
    look: String,
    /// A pipeline preset of A.
    preset: String,
    /// A pipeline run of A (its steps queued, none run).
    pipeline_run: String,
    /// The board: A's own model, a sale offering, a free offering to take, a free offering A
    /// holds (`holding`), and an offering to retire (all published by A's owner, an admin).
    model: String,
    sale_offering: String,
    free_offering: String,
    holding: String,
    retire_offering: String,
    /// A mark of A, registered for A's collection.
    mark: String,
    /// A post on A's board, by the person behind A's keys.
    post: String,
    /// Replay evidence of A's job, two renders of it (the first claimed before the matrix),
    /// a request to be let in, an experiment.
    evidence: String,
    render_claimed: String,
    render_queued: String,
    invite_request: String,
    experiment: String,
    /// A support ticket raised with A's member key (the thread of the person behind A's keys).
    ticket: String,
    /// A chat session of the person behind A's keys.
    chat: String,
    /// A webhook endpoint of A, and a spare one for the delete.
    webhook: String,
    spare_webhook: String,
}

async fn world(app: &TestApp, a_email: String) -> World {
    let a = app.client.sign_up(&a_email, PASSWORD, None).await.expect("sign up A");
    // The operator makes A's owner a platform admin (`studio-server admin add`).
    app.studio.admin().operator().add_admin(&a_email).await.expect("admin add");
    let b = app.client.sign_up(&unique_email("iso-b"), PASSWORD, None).await.expect("sign up B");
    let a_owner = app.client.with_session(&a.session);
    let b_owner = app.client.with_session(&b.session);
    let secret = |k: studio_client::api::ApiKey| k.key.expect("secret");
    let member = a_owner.mint_key("member", None).await.expect("mint");
    let a_member_id = member.id.clone();
    let a_member = secret(member);
    let viewer = a_owner.mint_key("viewer", Some(KeyRole::Viewer)).await.expect("mint viewer");
    let a_viewer_id = viewer.id.clone();
    let a_viewer = secret(viewer);
    let revoked = a_owner.mint_key("revoked", None).await.expect("mint");
    a_owner.revoke_key(&revoked.id).await.expect("revoke");
    let spare = a_owner.mint_key("spare", None).await.expect("mint");
    let b_member = secret(b_owner.mint_key("b", None).await.expect("mint B"));

    let key = app.client.with_api_key(&a_member);
    let folder = key.create_folder("isolation", None).await.expect("folder").folder.id;
    let spare_folder = key.create_folder("spare", None).await.expect("folder").folder.id;
    let in_folder = UploadOptions { folder_id: Some(folder.clone()), ..UploadOptions::default() };
    let asset = key.upload_bytes("a.png", png(64, 48), &in_folder).await.expect("upload").asset.id;
    let spare_asset = key.upload_bytes("b.png", png(48, 64), &in_folder).await.expect("upload").asset.id;
    let submit = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(40, 40) })
        .quality(studio_client::api::Quality::K1);
    let job = key.submit_develop(&submit).await.expect("submit").job_id;
    let run = key.list_runs(false, None).await.expect("runs").runs.into_iter().next().expect("a run").id;
    let pack_request = PackRequest { asset_ids: vec![asset.clone()], ..PackRequest::default() };
    let pack = key.create_pack(&pack_request).await.expect("pack").pack_id;
    let invite_token = a_owner.admin_invite(&a_email).await.expect("invite").token.expect("token");
    let minted = studio_client::api::MintInviteCodeRequest {
        label: Some("matrix".into()),
        max_uses: Some(5),
        ..Default::default()
    };
    let invite_code = a_owner.admin_mint_invite_code(&minted).await.expect("mint").id;
    let memory = key
        .remember(&studio_client::api::MemoryRequest {
            statement: "White grounds".into(),
            scope: studio_client::api::MemoryScope::House,
            memory_class: studio_client::api::MemoryClass::Preference,
            replaces_memory_id: None,
            kind: None,
            confidence: None,
        })
        .await
        .expect("memory")
        .id;
    // A member in each house, so that neither owner may erase themselves.
    let seated = studio_tests::Person::sign_up(app, "iso-seated").await;
    let b_guest = studio_tests::Person::sign_up(app, "iso-b-guest").await;
    for (owner, person) in [(&a_owner, &seated), (&b_owner, &b_guest)] {
        let invitation = owner.invite_seat(&person.email, studio_client::api::SeatRole::Member).await.expect("invite");
        person.session.accept_seat(&invitation.id).await.expect("accept");
    }
    let item = studio_client::api::ToolItemRequest {
        tool_id: "lookbook".into(),
        category: "poses".into(),
        title_he: Some("matrix".into()),
        label_he: None,
        content_en: None,
        image_url: None,
        notes_he: None,
        sort_order: None,
    };
    let tool_item = a_owner.admin_add_tool_item(&item).await.expect("tool item").id;
    let look_request = studio_client::api::CreateLookRequest {
        name: Some("matrix".into()),
        model_asset_id: Some(asset.clone()),
        item_asset_ids: Some(vec![json!({ "assetId": asset, "role": "top" })]),
        background: Some(json!({ "kind": "preset", "value": "white" })),
        aesthetic: Some("minimal".into()),
        brand_id: None,
    };
    let look = key.create_look(&look_request).await.expect("look").look.id;
    let plan = json!({"name": "matrix", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}}]});
    let http = reqwest::Client::new();
    let post =
        |path: &str, body: Value| http.post(format!("{}{path}", app.base)).bearer_auth(&a_member).json(&body).send();
    let preset: Value = post("/api/toolkit/pipelines/presets", json!({ "plan": plan }))
        .await
        .expect("preset")
        .json()
        .await
        .expect("preset body");
    let preset = preset["preset"]["id"].as_str().expect("preset id").to_string();
    let started: Value = post("/api/toolkit/pipelines/runs", json!({ "plan": plan, "items": [{ "image": asset }] }))
        .await
        .expect("run")
        .json()
        .await
        .expect("run body");
    let pipeline_run = started["runId"].as_str().expect("run id").to_string();
    let own = studio_client::api::CastModelRequest {
        name: "matrix".into(),
        asset_ids: vec![asset.clone()],
        ..Default::default()
    };
    let model = key.own_model(&own).await.expect("own model").model.id;
    let offer = |name: &str, price_cents: i64| studio_client::api::OfferingCreate {
        kind: "model".into(),
        name: name.into(),
        price_cents,
        asset_ids: vec![spare_asset.clone()],
        ..Default::default()
    };
    let mut offerings = Vec::new();
    for (name, price) in [("sale", 1500), ("free", 0), ("held", 0), ("retire", 0)] {
        offerings.push(a_owner.admin_create_offering(&offer(name, price)).await.expect("offering").offering.id);
    }
    key.take_offering("model", &offerings[2]).await.expect("take");
    let holding = key.entitlements().await.expect("entitlements").holdings[0].id.clone();
    let mark_request = studio_client::api::CreateMarkRequest {
        asset_id: Some(asset.clone()),
        material: Some("woven label".into()),
        collection_id: Some(folder.clone()),
        ..Default::default()
    };
    let mark = key.create_mark(&mark_request).await.expect("mark").mark.id;
    let new_post = studio_client::api::NewPost { title: "matrix".into(), body: "a note".into() };
    let post = key.create_post(&new_post).await.expect("post").id;
    let admin = |method: Method, path: &str, body: Value| {
        http.request(method, format!("{}{path}", app.base))
            .header("cookie", format!("studio_session={}", a.session))
            .json(&body)
            .send()
    };
    let opened: Value = admin(Method::POST, "/api/toolkit/admin/replay/evidence", json!({ "jobId": job }))
        .await
        .expect("evidence")
        .json()
        .await
        .expect("evidence body");
    let evidence = opened["evidence"]["id"].as_str().expect("evidence id").to_string();
    let mut renders = Vec::new();
    for _ in 0..2 {
        let r: Value = admin(
            Method::POST,
            "/api/toolkit/admin/replay/renders",
            json!({ "evidenceId": evidence, "format": "timeline" }),
        )
        .await
        .expect("render")
        .json()
        .await
        .expect("render body");
        renders.push(r["id"].as_str().expect("render id").to_string());
    }
    let claimed: Value = http
        .post(format!("{}/api/internal/replay-renders/claim", app.base))
        .bearer_auth(MACHINE_SECRETS[3].1)
        .send()
        .await
        .expect("claim")
        .json()
        .await
        .expect("claim body");
    assert_eq!(claimed["job"]["id"].as_str(), Some(renders[0].as_str()), "the oldest render is claimed first");
    let applicant = json!({ "email": unique_email("iso-applicant"), "name": "Applicant" });
    let asked = http.post(format!("{}/api/toolkit/invite/request", app.base)).json(&applicant).send().await;
    assert_eq!(asked.expect("request").status(), 200);
    let rows: Value = admin(Method::GET, "/api/toolkit/admin/invite-requests", Value::Null)
        .await
        .expect("requests")
        .json()
        .await
        .expect("requests body");
    let invite_request = rows["requests"][0]["id"].as_str().expect("request id").to_string();
    let exp: Value =
        admin(Method::POST, "/api/toolkit/admin/experiments", json!({ "key": "matrix-exp", "name": "Matrix" }))
            .await
            .expect("experiment")
            .json()
            .await
            .expect("experiment body");
    let experiment = exp["id"].as_str().expect("experiment id").to_string();
    let raised = studio_client::api::NewTicket { body: "The matrix needs a hand here.".into(), ..Default::default() };
    let ticket = match key.raise_ticket(&raised).await.expect("ticket") {
        studio_client::api::TicketCreated::Ticket(t) => t.id,
        studio_client::api::TicketCreated::Noted(n) => panic!("a ticket, not {n:?}"),
    };
    let chat = key.chat_start(Some("matrix")).await.expect("chat session").id;
    let hook = |description: &str| studio_client::api::NewWebhook {
        url: "http://127.0.0.1:9/hook".into(),
        description: Some(description.into()),
        ..Default::default()
    };
    let webhook = a_owner.create_webhook(&hook("matrix")).await.expect("webhook").webhook.id;
    let spare_webhook = a_owner.create_webhook(&hook("spare")).await.expect("webhook").webhook.id;
    let url = a_owner.checkout_topup("pack_250").await.expect("test-mode checkout").url;
    let checkout = url.rsplit('/').next().expect("checkout id").to_string();

    let a_ids = vec![
        a.account.organization.id.clone(),
        a.account.user.id.clone(),
        a_member_id,
        a_viewer_id,
        revoked.id.clone(),
        spare.id.clone(),
        folder.clone(),
        spare_folder.clone(),
        asset.clone(),
        spare_asset.clone(),
        job.clone(),
        run.clone(),
        pack.clone(),
        a_email.clone(),
        memory.clone(),
        seated.user_id.clone(),
        look.clone(),
        preset.clone(),
        pipeline_run.clone(),
        model.clone(),
        mark.clone(),
        post.clone(),
        ticket.clone(),
        chat.clone(),
        webhook.clone(),
        spare_webhook.clone(),
    ];
    World {
        a_email,
        a_org: a.account.organization.id.clone(),
        a_user: a.account.user.id,
        a_session: a.session,
        a_member,
        a_viewer,
        a_revoked: secret(revoked),
        b_session: b.session,
        b_member,
        a_ids,
        folder,
        spare_folder,
        asset,
        spare_asset,
        spare_key: spare.id,
        job,
        run,
        pack,
        checkout,
        invite_token,
        invite_code,
        memory,
        seated: seated.user_id,
        tool_item,
        look,
        preset,
        pipeline_run,
        model,
        sale_offering: offerings[0].clone(),
        free_offering: offerings[1].clone(),
        holding,
        retire_offering: offerings[3].clone(),
        mark,
        post,
        evidence,
        render_claimed: renders[0].clone(),
        render_queued: renders[1].clone(),
        invite_request,
        experiment,
        ticket,
        chat,
        webhook,
        spare_webhook,
    }
}

/// The matrix: every mounted route, its access class, its body and the answers it owes.
/// What remove-background and segment answer on the matrix's small image (a smooth gradient:
/// nothing stands out to cut, so an allowed caller reaches the work and is charged nothing).
const LANE_CUT: Want = Want::Code(422, "SUBJECT_NOT_FOUND");
const LANE_SEGMENT: Want = Want::Code(422, "SUBJECT_NOT_FOUND");

fn rows(w: &World) -> Vec<Row> {
    use Access::*;
    use Want::*;
    let asset_ids = json!({ "assetIds": [w.asset] });
    vec![
        row("GET /health", Public(Status(200)), Status(200)),
        row("GET /openapi.json", Public(Status(200)), Status(200)),
        row("GET /docs", Public(Status(200)), Status(200)),
        // Sign-up and sign-in read their credentials from the body; a header grants nothing.
        row("POST /api/auth/sign-up", Public(Code(409, "EMAIL_TAKEN")), Status(409))
            .json(json!({ "email": w.a_email, "password": PASSWORD })),
        row("POST /api/auth/sign-in", Public(Code(401, "BAD_CREDENTIALS")), Status(401))
            .json(json!({ "email": w.a_email, "password": "not the password" })),
        // No caller of the matrix sends A's session cookie here, so A stays signed in.
        row("POST /api/auth/sign-out", Public(Status(200)), Status(200)),
        row("GET /api/auth/session", AnyRole, Status(200)),
        // The email links' tokens are their authority; a credential grants nothing.
        row("POST /api/auth/verify-email", Public(Code(400, "INVALID_TOKEN")), Status(400))
            .json(json!({ "token": "0".repeat(64) })),
        // Sign-up's letter and one resend per session stay inside the hourly allowance.
        row("POST /api/auth/verify-email/resend", SessionOnly, Status(200)),
        row("POST /api/auth/password-reset", Public(Status(200)), Status(200)).json(json!({ "email": w.a_email })),
        row("POST /api/auth/password-reset/confirm", Public(Code(400, "INVALID_TOKEN")), Status(400))
            .json(json!({ "token": "0".repeat(64), "password": "a long enough new password" })),
        row("POST /api/email/webhook", Signed, Code(401, "BAD_SIGNATURE")).json(json!({ "type": "delivered" })),
        row("POST /api/email/drip", Admin, Status(200)),
        row("GET /api/toolkit/admin/emails", Admin, Status(200)),
        row("POST /api/keys", SessionOnly, Status(200)).json(json!({ "name": "matrix" })),
        row("GET /api/keys", AnyRole, Status(200)),
        row("DELETE /api/keys/{id}", SessionOnly, Status(200)).id(&w.spare_key),
        row("POST /api/toolkit/check-email", Public(Status(200)), Status(200)).json(json!({ "email": w.a_email })),
        row("GET /api/toolkit/ai/billing/balance", AnyRole, Status(200)),
        row("POST /api/toolkit/admin/grant-tokens", Admin, Status(200))
            .json(json!({ "userId": w.a_user, "tokens": 5 })),
        row("POST /api/toolkit/admin/invite", Admin, Status(200)).json(json!({ "email": "guest@maison.example" })),
        row("GET /api/toolkit/admin/invite-codes", Admin, Status(200)),
        row("POST /api/toolkit/admin/invite-codes", Admin, Status(200)).json(json!({ "maxUses": 3 })),
        row("POST /api/toolkit/admin/invite-codes/revoke", Admin, Status(200)).json(json!({ "id": w.invite_code })),
        row("GET /api/toolkit/admin/invite-requests", Admin, Status(200)),
        // The admin console (§4.12, docs/admin.md). A's job is queued (no runner): a retry is
        // refused 409 and it has no verdict to judge, so the controls change nothing.
        row("GET /api/toolkit/admin/ai-costs", Admin, Status(200)),
        row("GET /api/toolkit/admin/develops", Admin, Status(200)),
        row("POST /api/toolkit/admin/develops/action", Admin, Code(409, "JOB_NOT_RETRYABLE"))
            .json(json!({ "jobId": w.job, "action": "retry" })),
        row("GET /api/toolkit/admin/failures", Admin, Status(200)),
        row("GET /api/toolkit/admin/frames", Admin, Status(200)),
        row("GET /api/toolkit/admin/frames/{id}/file", Admin, Status(200)).id(&w.asset),
        row("GET /api/toolkit/admin/judge/rollup", Admin, Status(200)),
        row("GET /api/toolkit/admin/judge/verdicts", Admin, Status(200)),
        row("GET /api/toolkit/admin/judge/verdicts/{jobId}", Admin, Code(409, "NOT_LANDED")).id(&w.job),
        row("GET /api/toolkit/admin/kept-cost", Admin, Status(200)),
        row("GET /api/toolkit/admin/overview", Admin, Status(200)),
        row("GET /api/toolkit/admin/payments", Admin, Status(200)),
        row("GET /api/toolkit/admin/tokenomics", Admin, Status(200)),
        // The platform gate's public doors answer everyone alike: the lookup without a token,
        // a code that exists nowhere, a request, and a preview of a refused address.
        row("GET /api/toolkit/invite/accept", Public(Code(400, "TOKEN_REQUIRED")), Status(400)),
        row("POST /api/toolkit/invite/redeem", Public(Code(404, "CODE_NOT_FOUND")), Status(404))
            .json(json!({ "code": "NOPE-ABCDEF", "email": "guest@maison.example" })),
        row("POST /api/toolkit/invite/request", Public(Status(200)), Status(200))
            .json(json!({ "email": "asker@maison.example" })),
        row("POST /api/toolkit/invite/preview", Public(Status(200)), Status(200))
            .json(json!({ "links": ["http://127.0.0.1/"] })),
        // Accepting and the own code are a person's own: a session, never a key. B's owner is
        // not the invited address.
        row("POST /api/toolkit/invite/accept", SessionOnly, Status(200))
            .json(json!({ "token": w.invite_token }))
            .foreign(Code(403, "EMAIL_MISMATCH")),
        row("GET /api/toolkit/invites/mine", SessionOnly, Status(200)),
        row("GET /api/toolkit/folders", AnyRole, Status(200)),
        row("POST /api/toolkit/folders", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({ "name": "child", "parentId": w.folder }))
            .foreign(Code(404, "NOT_FOUND")),
        row("PATCH /api/toolkit/folders/{id}", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.folder)
            .json(json!({ "name": "renamed" })),
        row("DELETE /api/toolkit/folders/{id}", NotViewer("FORBIDDEN"), Status(200)).id(&w.spare_folder),
        row("GET /api/toolkit/assets", AnyRole, Status(200)),
        row("POST /api/toolkit/assets/upload", NotViewer("FORBIDDEN"), Status(201))
            .body(Body::Upload { folder_id: w.folder.clone() })
            .foreign(Code(404, "NOT_FOUND")),
        row("GET /api/toolkit/assets/{id}/file", AnyRole, Status(200)).id(&w.asset),
        row("GET /api/toolkit/assets/{id}/detail", AnyRole, Status(200)).id(&w.asset),
        row("GET /api/toolkit/assets/{id}/provenance", AnyRole, Status(200)).id(&w.asset),
        // The legacy bytes route is the one place the spec answers 403 for a foreign id.
        row("GET /api/toolkit/assets/{id}", AnyRole, Status(200)).id(&w.asset).foreign(Code(403, "FORBIDDEN")),
        row("PATCH /api/toolkit/assets/{id}", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.asset)
            .json(json!({ "name": "renamed" })),
        row("POST /api/toolkit/assets/batch/delete", NotViewer("FORBIDDEN"), Count("deleted", 1))
            .json(json!({ "assetIds": [w.spare_asset] }))
            .foreign(Count("deleted", 0)),
        row("PATCH /api/toolkit/assets/batch", NotViewer("FORBIDDEN"), Count("updated", 1))
            .json(json!({ "assetIds": [w.asset], "kind": "clothes" }))
            .foreign(Count("updated", 0)),
        row("POST /api/toolkit/assets/batch/quote", AnyRole, Count("items", 1))
            .json(json!({ "assetIds": [w.asset], "operation": "remove-background" }))
            .foreign(Count("items", 0)),
        row("POST /api/toolkit/assets/group", NotViewer("FORBIDDEN"), Status(201))
            .json(asset_ids.clone())
            .foreign(Code(404, "NOT_FOUND")),
        row("GET /api/toolkit/backgrounds", AnyRole, Status(200)),
        row("GET /api/toolkit/backgrounds/{id}/preview", Public(Status(200)), Status(200)).id("white"),
        row("POST /api/toolkit/assets/pack", AnyRole, Status(200)).json(asset_ids).foreign(Code(404, "NOT_FOUND")),
        row("GET /api/toolkit/packs/{id}", AnyRole, Status(200)).id(&w.pack),
        row("GET /api/toolkit/packs/{id}/file", AnyRole, Status(200)).id(&w.pack),
        row("GET /api/toolkit/ai/billing/prices", AnyRole, Status(200)),
        row("GET /api/toolkit/ai/billing/catalog", Public(Status(200)), Status(200)),
        row("POST /api/toolkit/ai/billing/checkout/topup", Money, Status(200)).json(json!({ "pack": "pack_250" })),
        row("POST /api/toolkit/ai/billing/checkout/subscription", Money, Status(200)).json(json!({ "tier": "studio" })),
        row("POST /api/toolkit/ai/billing/checkout/custom", Money, Status(200)).json(json!({ "amountUsd": 20 })),
        // A has paid through the test checkout below (the public confirm), so it has a customer.
        row("POST /api/toolkit/ai/billing/portal", Money, Status(200)),
        row("GET /api/toolkit/ai/billing/autocharge", AnyRole, Status(200)),
        row("PUT /api/toolkit/ai/billing/autocharge", Money, Status(200)).json(json!({
            "enabled": false, "thresholdTokens": 50, "pack": "pack_250", "monthlyCapUsd": 100
        })),
        row("POST /api/toolkit/ai/billing/autocharge/run", NotViewer("role_cannot_spend_tokens"), Status(200)),
        row("POST /api/toolkit/ai/billing/webhook/provider", Signed, Code(401, "BAD_SIGNATURE"))
            .json(json!({ "type": "payment.succeeded" })),
        // The test-mode pages stand in for the provider's hosted pages: the checkout reference
        // is the capability, as a hosted payment link is.
        row("GET /api/toolkit/ai/billing/test-checkout/{id}", Public(Status(200)), Status(200)).id(&w.checkout),
        row("POST /api/toolkit/ai/billing/test-checkout/{id}", Public(Status(200)), Status(200)).id(&w.checkout),
        row("GET /api/toolkit/ai/billing/test-portal/{id}", Public(Status(200)), Status(200)).id("cus_matrix"),
        row("POST /api/toolkit/ai/preflight", AnyRole, Status(200)).body(Body::Preflight),
        // The AI lanes (§4.1, §4.2): this deployment has neither an AI reader nor fal, so those
        // lanes end 503 for everyone allowed to ask; the local lanes cut real pixels. An image
        // named in the body is A's asset, unknown to B.
        row("POST /api/toolkit/ai/depth", NotViewer("FORBIDDEN"), Code(503, "FAL_NOT_CONFIGURED")).body(Body::Image),
        row("POST /api/toolkit/ai/describe-item", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .body(Body::Image),
        row("POST /api/toolkit/ai/detect-items", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .body(Body::Image),
        row("POST /api/toolkit/ai/extract-build", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .body(Body::Image),
        row("POST /api/toolkit/ai/extract-character", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .body(Body::Image),
        row("POST /api/toolkit/ai/remove-background", NotViewer("FORBIDDEN"), LANE_CUT).body(Body::Image),
        row("POST /api/toolkit/ai/segment", NotViewer("FORBIDDEN"), LANE_SEGMENT)
            .json(json!({ "imageUrl": w.asset, "box": [0, 0, 20, 20] }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("POST /api/toolkit/ai/face-features", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .json(json!({ "imageUrl": w.asset }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("POST /api/toolkit/ai/inspiration-keywords", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .json(json!({ "vibe": "calm" })),
        row("POST /api/toolkit/ai/imagemodel-prompts", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .json(json!({ "description": "a coat" })),
        row("POST /api/toolkit/ai/prompt-builder", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .json(json!({ "subject": "a coat" })),
        row("POST /api/toolkit/ai/prompt-enhancer", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED"))
            .json(json!({ "prompt": "a coat" })),
        // Posts (§4.14): the board is the caller's own house's; A's post is unknown to B, and
        // only its author (the person behind A's keys) changes or deletes it.
        row("GET /posts", AnyRole, Status(200)),
        row("POST /posts", NotViewer("FORBIDDEN"), Status(201)).json(json!({ "title": "t", "body": "b" })),
        row("GET /posts/{id}", AnyRole, Status(200)).id(&w.post),
        row("PATCH /posts/{id}", NotViewer("FORBIDDEN"), Status(200)).id(&w.post).json(json!({ "body": "edited" })),
        row("DELETE /posts/{id}", NotViewer("FORBIDDEN"), Status(204)).id(&w.post),
        // A lane's result: the signed link is the authority; without one, nobody gets anything.
        row("GET /api/toolkit/ai/results/{id}", Public(Code(400, "BAD_QUERY")), Code(400, "BAD_QUERY")).id("lres_x"),
        row("POST /api/toolkit/jobs/submit", NotViewer("FORBIDDEN"), Status(202))
            .body(Body::Submit { asset_id: w.asset.clone() })
            .foreign(Code(404, "NOT_FOUND")),
        row("GET /api/toolkit/jobs", AnyRole, Status(200)),
        row("GET /api/toolkit/jobs/{id}", AnyRole, Status(200)).id(&w.job),
        row("POST /api/toolkit/jobs/{id}/cancel", NotViewer("FORBIDDEN"), Status(200)).id(&w.job),
        row("POST /api/toolkit/jobs/{id}/duplicate", NotViewer("FORBIDDEN"), Status(202)).id(&w.job),
        // Without an Upgrade header an allowed caller gets 426; without a credential, 401.
        row("GET /api/toolkit/jobs/ws", AnyRole, Code(426, "UPGRADE_REQUIRED")),
        row("GET /api/toolkit/develops", AnyRole, Status(200)),
        row("POST /api/toolkit/develops/{id}/cancel", NotViewer("FORBIDDEN"), Status(200)).id(&w.run),
        // Taking a frame that has not landed is 409 for its own house, 404 for any other.
        row("POST /api/toolkit/takes", NotViewer("FORBIDDEN"), Code(409, "NOT_DEVELOPED"))
            .json(json!({ "jobIds": [w.job] }))
            .foreign(Code(404, "NOT_FOUND")),
        row("POST /api/mcp", AnyRole, ToolOk)
            .json(json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": { "name": "get_develop", "arguments": { "jobId": w.job } }
            }))
            .foreign(ToolRefused("NOT_FOUND")),
        // People and houses (§4.8, §4.9, §4.15). A key acts for its house, never for a person.
        row("GET /api/account", AnyRole, Status(200)),
        row("PATCH /api/account", SessionOnly, Status(200)).json(json!({ "name": "Ada Matrix" })),
        row("POST /api/account/avatar", SessionOnly, Status(200)).body(Body::Avatar),
        // A stranger's session is 401 (the spec's answer), as for a person who does not exist.
        row("GET /api/account/avatar/{userId}", SessionOnly, Status(200))
            .id(&w.a_user)
            .foreign(Code(401, "UNAUTHORIZED")),
        row("DELETE /api/account/avatar", SessionOnly, Status(200)),
        row("PATCH /api/account/billing-email", Money, Status(200)).json(json!({ "email": "books@maison.example" })),
        row("POST /api/account/plan/cancel", Money, Code(404, "NO_ACTIVE_PLAN")),
        row("GET /api/account/memory", AnyRole, Status(200)),
        // The memory desk runs before A's own retire below, while A's memory is active.
        row("POST /api/toolkit/admin/memory/observations", Admin, Status(201))
            .json(json!({ "memoryId": w.memory, "supports": true, "note": "seen on set" })),
        row("GET /api/toolkit/admin/memory/review", Admin, Status(200)),
        row("POST /api/toolkit/admin/memory/review", Admin, Status(200))
            .json(json!({ "memoryId": w.memory, "decision": "keep" })),
        row("GET /api/toolkit/admin/analyst", Admin, Status(200)),
        row("PATCH /api/toolkit/admin/analyst/cadence", Admin, Status(200)).json(json!({ "hours": 24 })),
        row("POST /api/toolkit/admin/analyst/run", Admin, Status(200)),
        row("GET /api/toolkit/admin/reflection/findings", Admin, Status(200)),
        // No finding exists in this world: the control's answer is the unknown finding's.
        row("POST /api/toolkit/admin/reflection/findings/{id}/decision", Admin, Code(404, "FINDING_NOT_FOUND"))
            .id("fnd_0000")
            .json(json!({ "decision": "accept" })),
        row("POST /api/account/memory", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({ "statement": "Ivory grounds", "scope": "house", "memoryClass": "preference" })),
        row("DELETE /api/account/memory/{id}", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.memory)
            .foreign(Code(404, "MEMORY_NOT_FOUND")),
        row("GET /api/toolkit/my-access", AnyRole, Status(200)),
        // The catalogue is the platform's, not a house's: the same for everyone in their trial.
        row("GET /api/toolkit/tools/{slug}/items", AnyRole, Status(200)).id("lookbook").foreign(Status(200)),
        row("GET /api/toolkit/org/seats", AnyRole, Status(200)),
        row("POST /api/toolkit/org/seats/invite", SessionOnly, Status(200))
            .json(json!({ "email": "seat@maison.example", "role": "member" })),
        row("POST /api/toolkit/org/seats/accept", SessionOnly, Code(404, "INVITATION_NOT_FOUND"))
            .json(json!({ "invitationId": "inv_matrix" })),
        row("POST /api/toolkit/org/seats/role", SessionOnly, Status(200))
            .json(json!({ "userId": w.seated, "role": "viewer" }))
            .foreign(Code(404, "SEAT_NOT_FOUND")),
        // Each house has a member, so neither owner may erase themselves.
        row("DELETE /api/me", SessionOnly, Code(409, "SOLE_OWNER")),
        row("DELETE /api/toolkit/org/seats/{userId}", SessionOnly, Status(200))
            .id(&w.seated)
            .foreign(Code(404, "SEAT_NOT_FOUND")),
        row("POST /api/toolkit/org/transfer", SessionOnly, Code(400, "ALREADY_OWNER"))
            .json(json!({ "userId": w.a_user }))
            .foreign(Code(404, "SEAT_NOT_FOUND")),
        row("POST /api/auth/switch-house", SessionOnly, Status(200))
            .json(json!({ "organizationId": w.a_org }))
            .foreign(Code(404, "HOUSE_NOT_FOUND")),
        row("GET /api/me", AnyRole, Status(200)),
        row("GET /api/me/export", SessionOnly, Status(200)),
        row("GET /api/onboarding", AnyRole, Status(200)),
        row("POST /api/onboarding/steps/{step}/complete", AnyRole, Status(200)).id("profile").foreign(Status(200)),
        row("POST /api/intake", AnyRole, Status(201)).json(json!({ "pain": ["reshoots"] })),
        row("POST /api/toolkit/admin/access", Admin, Status(200))
            .json(json!({ "action": "grant_tool", "email": "someone@maison.example", "toolId": "lookbook" })),
        row("GET /api/toolkit/admin/users", Admin, Status(200)),
        row("GET /api/toolkit/admin/onboarding", Admin, Status(200)),
        row("GET /api/toolkit/admin/tool-items", Admin, Code(400, "TOOL_REQUIRED")),
        row("POST /api/toolkit/admin/tool-items", Admin, Status(201))
            .json(json!({ "tool_id": "lookbook", "category": "poses", "title_he": "x" })),
        row("DELETE /api/toolkit/admin/tool-items/{id}", Admin, Status(200)).id(&w.tool_item),
        // Lookbook (§4.4, §4.5): built-in templates and the vocabulary are everyone's.
        row("GET /api/toolkit/lookbook/looks", AnyRole, Status(200)),
        row("POST /api/toolkit/lookbook/looks", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({
                "name": "matrix", "modelAssetId": w.asset, "itemAssetIds": [{ "assetId": w.asset, "role": "top" }],
                "background": { "kind": "preset", "value": "white" }, "aesthetic": "minimal"
            }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("GET /api/toolkit/lookbook/looks/{id}", AnyRole, Status(200)).id(&w.look),
        // The state routes before the develop-lock, whose job then keeps the look in flight.
        row("POST /api/toolkit/lookbook/looks/{id}/unlock", NotViewer("FORBIDDEN"), Status(200)).id(&w.look),
        row("POST /api/toolkit/lookbook/looks/{id}/lock", NotViewer("FORBIDDEN"), Code(422, "NOT_A_LOOK_FRAME"))
            .id(&w.look)
            .json(json!({ "assetId": w.asset })),
        row("POST /api/toolkit/lookbook/looks/{id}/variations", NotViewer("FORBIDDEN"), Code(409, "LOCK_REQUIRED"))
            .id(&w.look)
            .json(json!({ "keys": ["back"], "quality": "1k" })),
        row("POST /api/toolkit/lookbook/looks/{id}/develop-lock", NotViewer("FORBIDDEN"), Status(202))
            .id(&w.look)
            .json(json!({ "quality": "2k", "output": { "destination": "square" } })),
        row("GET /api/toolkit/lookbook/templates", AnyRole, Status(200)),
        row("GET /api/toolkit/lookbook/templates/{id}", AnyRole, Status(200)).id("tpl_builtin_ecommerce").foreign(Status(200)),
        row("GET /api/toolkit/lookbook/vocabulary", AnyRole, Status(200)),
        row("GET /api/toolkit/presets", AnyRole, Status(200)),
        row("POST /api/toolkit/presets", NotViewer("FORBIDDEN"), Status(200))
            .json(json!({ "aesthetic": "noir", "background": { "kind": "preset", "value": "white" }, "variationKeys": ["back"] })),
        // The factory (§4.5): a plan reads (viewers too); a run drafts looks. A's pieces are
        // unknown to B.
        row("POST /api/toolkit/factory/plan", AnyRole, Status(200))
            .json(json!({ "assetIds": [w.asset] }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("POST /api/toolkit/factory/run", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({
                "looks": [{
                    "name": "matrix", "itemAssetIds": [{ "assetId": w.asset, "role": "top" }],
                    "background": { "kind": "preset", "value": "white" }, "variationKeys": ["back"]
                }],
                "modelAssetId": w.asset, "aesthetic": "minimal"
            }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        // Pipelines (§4.6): A's assets and folders are unknown to B; a plan alone is anyone's.
        row("GET /api/toolkit/pipelines/presets", AnyRole, Status(200)),
        row("POST /api/toolkit/pipelines/presets", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({ "plan": { "name": "matrix", "sinkFolderId": w.folder, "nodes": [
                { "id": "a", "tool": "upscale", "inputs": { "image": { "item": "image" } } }] } }))
            .foreign(Code(400, "BAD_PLAN")),
        row("PATCH /api/toolkit/pipelines/presets/{id}", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.preset)
            .json(json!({ "plan": { "name": "matrix 2", "nodes": [
                { "id": "a", "tool": "upscale", "inputs": { "image": { "item": "image" } } }] } })),
        row("DELETE /api/toolkit/pipelines/presets/{id}", NotViewer("FORBIDDEN"), Status(200)).id(&w.preset),
        row("POST /api/toolkit/pipelines/preview", AnyRole, Status(200))
            .json(json!({ "plan": { "name": "matrix", "nodes": [
                { "id": "a", "tool": "upscale", "quality": "1k", "inputs": { "image": { "item": "image" } } }] },
                "items": [{ "image": w.asset }] }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("GET /api/toolkit/pipelines/runs", AnyRole, Status(200)),
        row("POST /api/toolkit/pipelines/runs", NotViewer("FORBIDDEN"), Status(202))
            .json(json!({ "plan": { "name": "matrix", "nodes": [
                { "id": "a", "tool": "upscale", "quality": "1k", "inputs": { "image": { "item": "image" } } }] },
                "items": [{ "image": w.asset }] }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("GET /api/toolkit/pipelines/runs/{id}", AnyRole, Status(200)).id(&w.pipeline_run),
        row("POST /api/toolkit/pipelines/runs/{id}/cancel", NotViewer("FORBIDDEN"), Status(200)).id(&w.pipeline_run),
        row("GET /api/toolkit/models", AnyRole, Status(200)),
        row("POST /api/toolkit/models/own", NotViewer("FORBIDDEN"), Status(201))
            .json(json!({ "name": "own", "assetIds": [w.asset] }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("GET /api/toolkit/models/{id}", AnyRole, Status(200)).id(&w.model),
        row("PATCH /api/toolkit/models/{id}", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.model)
            .json(json!({ "traits": { "hair": "short" } })),
        row("GET /api/toolkit/models/{id}/preview/{n}", AnyRole, Status(200)).id(&w.model),
        row("POST /api/toolkit/models/{id}/checkout", Money, Status(200)).id(&w.sale_offering),
        row("GET /api/toolkit/entitlements", AnyRole, Status(200)),
        row("GET /api/toolkit/explore", AnyRole, Status(200)),
        // Catalog offerings are every house's to take: B's take succeeds too.
        row("POST /api/toolkit/explore/{kind}/{id}/take", NotViewer("FORBIDDEN"), Status(200))
            .id(&w.free_offering)
            .foreign(Status(200)),
        row("GET /api/toolkit/admin/offerings", Admin, Status(200)),
        row("POST /api/toolkit/admin/offerings", Admin, Status(201))
            .json(json!({ "kind": "model", "name": "matrix", "priceCents": 0, "assetIds": [w.asset] })),
        row("POST /api/toolkit/admin/offerings/{id}/retire", Admin, Status(200)).id(&w.retire_offering),
        row("GET /api/toolkit/admin/entitlements", Admin, Status(200)),
        row("POST /api/toolkit/admin/entitlements/revoke", Admin, Status(200)).json(json!({ "id": w.holding })),
        // Brand (§4.3): the profile is the caller's own house's, so B sees its own; this
        // deployment has no AI reader, so a read ends 503 for everyone allowed to ask. A's
        // asset and mark are unknown to B.
        row("GET /api/toolkit/brand", AnyRole, Status(200)),
        row("PATCH /api/toolkit/brand", NotViewer("FORBIDDEN"), Status(200)).json(json!({ "vibe": ["calm"] })),
        row("POST /api/toolkit/brand/dna", NotViewer("FORBIDDEN"), Code(503, "AI_NOT_CONFIGURED")).body(Body::Image),
        row("GET /api/toolkit/brand/marks", AnyRole, Status(200)),
        row("POST /api/toolkit/brand/marks", NotViewer("role_cannot_edit_marks"), Status(201))
            .json(json!({ "assetId": w.asset, "material": "gold foil" }))
            .foreign(Code(404, "ASSET_NOT_FOUND")),
        row("PATCH /api/toolkit/brand/marks/{id}", NotViewer("role_cannot_edit_marks"), Status(200))
            .id(&w.mark)
            .json(json!({ "sortOrder": 2 })),
        row("DELETE /api/toolkit/brand/marks/{id}", NotViewer("role_cannot_edit_marks"), Status(200)).id(&w.mark),
        // Internal machine routes (§4.13): each kind's own token only; admin twins (§4.12).
        row("GET /api/internal/analyst/snapshot", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/funnel", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/product-usage", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/failures", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/deliverability", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/chat-quality", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/learnings", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/rejections", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/longhorizon", Machine("analyst"), Code(400, "ORGANIZATION_REQUIRED")),
        row("GET /api/internal/analyst/invitations", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/experiments", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/feature-flags", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/recordings", Machine("analyst"), Status(200)),
        row("GET /api/internal/analyst/recordings/{id}/analysis", Machine("analyst"), Status(200)).id(&w.evidence),
        row("GET /api/internal/analyst/assets/{id}/preview", Machine("analyst"), Status(200)).id(&w.asset),
        row("POST /api/internal/analyst/actions/invitations/{id}/research", Machine("action"), Status(200))
            .id(&w.invite_request),
        row("POST /api/internal/analyst/actions/invitations/{id}/approve", Machine("action"), Status(200))
            .id(&w.invite_request)
            .json(json!({ "reason": "matrix" })),
        row("POST /api/internal/analyst/actions/recordings/{id}/summarize", Machine("action"), Code(503, "AI_NOT_CONFIGURED"))
            .id(&w.evidence)
            .json(json!({ "focusArea": "cost" })),
        row("POST /api/internal/replay-renders/claim", Machine("renderer"), Status(200)),
        row("POST /api/internal/replay-renders/{id}/complete", Machine("renderer"), Status(200))
            .id(&w.render_queued)
            .json(json!({ "frames": 1 })),
        row("POST /api/internal/replay-renders/{id}/fail", Machine("renderer"), Status(200))
            .id(&w.render_claimed)
            .json(json!({ "code": "RENDERER_CRASHED" })),
        row("GET /api/toolkit/admin/experiments", Admin, Status(200)),
        row("POST /api/toolkit/admin/experiments", Admin, Status(201)).json(json!({ "key": "matrix-two", "name": "Two" })),
        row("PATCH /api/toolkit/admin/experiments/{id}", Admin, Status(200))
            .id(&w.experiment)
            .json(json!({ "status": "running" })),
        row("GET /api/toolkit/admin/feature-flags", Admin, Status(200)),
        row("PUT /api/toolkit/admin/feature-flags/{key}", Admin, Status(200))
            .id("matrix-flag")
            .json(json!({ "active": true })),
        row("GET /api/toolkit/admin/longhorizon", Admin, Code(400, "ORGANIZATION_REQUIRED")),
        row("POST /api/toolkit/admin/longhorizon/revise", Admin, Status(200))
            .json(json!({ "organizationId": w.a_org, "level": "suggest", "note": "matrix", "expectedRevision": 0 })),
        row("POST /api/toolkit/admin/replay/evidence", Admin, Status(200)).json(json!({ "jobId": w.job })),
        row("GET /api/toolkit/admin/replay/evidence", Admin, Status(200)),
        row("GET /api/toolkit/admin/replay/evidence/{id}", Admin, Status(200)).id(&w.evidence),
        row("POST /api/toolkit/admin/replay/renders", Admin, Status(201))
            .json(json!({ "evidenceId": w.evidence, "format": "contact-sheet" })),
        row("GET /api/toolkit/admin/replay/renders/{id}", Admin, Status(200)).id(&w.render_queued),
        row("GET /api/toolkit/admin/replay/renders/{id}/file", Admin, Status(200)).id(&w.render_queued),
        // Search (issue 23): any role searches its own house; with no q every caller that gets
        // past authentication is 400 (house B alike: it searches its own house, never A's).
        row("GET /api/toolkit/search", AnyRole, Code(400, "QUERY_REQUIRED")),
        // Support (§4.11): any role raises and reads their own threads; another house's thread is
        // 503 as the spec says (an unknown id alike, tests/api/support.rs); a screenshot's signed
        // link is the only authority, so a call without o, e, s is 400 for everyone.
        row("GET /api/toolkit/support/tickets", AnyRole, Status(200)),
        row("POST /api/toolkit/support/tickets", AnyRole, Status(201))
            .json(json!({ "body": "The grid will not load this morning." })),
        row("GET /api/toolkit/support/tickets/{id}", AnyRole, Status(200))
            .id(&w.ticket)
            .foreign(Code(503, "THREAD_UNAVAILABLE")),
        row("POST /api/toolkit/support/screenshots", AnyRole, Status(201)).body(Body::Avatar),
        // The assistant (§4.15): a session is its person's, so another house's id is 404 whether
        // it rides in the path or the body. This world has no AI reader, so a turn is 503 with
        // nothing stored, and the control's apply of an unknown action is 404 ACTION_NOT_FOUND
        // (the session itself was found).
        row("GET /api/toolkit/chat/sessions", AnyRole, Status(200)),
        row("POST /api/toolkit/chat/sessions", AnyRole, Status(201)).json(json!({ "title": "matrix" })),
        row("GET /api/toolkit/chat/sessions/{id}/turns", AnyRole, Status(200))
            .id(&w.chat)
            .foreign(Code(404, "CHAT_SESSION_NOT_FOUND")),
        row("POST /api/toolkit/chat/sessions/{id}/turns", AnyRole, Code(503, "AI_NOT_CONFIGURED"))
            .id(&w.chat)
            .json(json!({ "message": "hello" }))
            .foreign(Code(404, "CHAT_SESSION_NOT_FOUND")),
        row("POST /api/toolkit/chat/apply", AnyRole, Code(404, "ACTION_NOT_FOUND"))
            .json(json!({ "sessionId": w.chat, "actionId": "act_matrix" }))
            .foreign(Code(404, "CHAT_SESSION_NOT_FOUND")),
        row("POST /api/toolkit/chat/context/warm", AnyRole, Status(200))
            .json(json!({ "sessionId": w.chat }))
            .foreign(Code(404, "CHAT_SESSION_NOT_FOUND")),
        row("GET /api/toolkit/support/screenshots/{id}", Public(Code(400, "BAD_QUERY")), Code(400, "BAD_QUERY"))
            .id("shot_x"),
        row("POST /api/support/escalations", Machine("bridge"), Status(201))
            .json(json!({ "reason": "handoff", "sessionId": "chat_matrix" })),
        row("GET /api/internal/analyst/support", Machine("analyst"), Status(200)),
        row("GET /api/toolkit/admin/support", Admin, Status(200)),
        row("GET /api/toolkit/admin/support/{id}", Admin, Status(200)).id(&w.ticket),
        row("PATCH /api/toolkit/admin/support/{id}", Admin, Status(200)).id(&w.ticket).json(json!({ "status": "open" })),
        row("POST /api/toolkit/admin/support/{id}/reply", Admin, Status(200))
            .id(&w.ticket)
            .json(json!({ "content": "We are looking." })),
        row("POST /api/toolkit/admin/support/{id}/notes", Admin, Status(200))
            .id(&w.ticket)
            .json(json!({ "content": "internal" })),
        // Webhook endpoints (docs/webhooks.md): every role reads; the owner or an admin writes.
        row("GET /api/toolkit/webhooks", AnyRole, Status(200)),
        row("POST /api/toolkit/webhooks", HouseAdmin("FORBIDDEN"), Status(201))
            .json(json!({ "url": "http://127.0.0.1:9/new", "events": ["job"] })),
        row("GET /api/toolkit/webhooks/{id}", AnyRole, Status(200)).id(&w.webhook),
        row("PATCH /api/toolkit/webhooks/{id}", HouseAdmin("FORBIDDEN"), Status(200))
            .id(&w.webhook)
            .json(json!({ "description": "changed" })),
        row("POST /api/toolkit/webhooks/{id}/rotate-secret", HouseAdmin("FORBIDDEN"), Status(200)).id(&w.webhook),
        row("GET /api/toolkit/webhooks/{id}/deliveries", AnyRole, Status(200)).id(&w.webhook),
        // The ping goes to a closed loopback port: answered 200 with the failed attempt.
        row("POST /api/toolkit/webhooks/{id}/test", HouseAdmin("FORBIDDEN"), Status(200)).id(&w.webhook),
        // The matrix fills only the first parameter, so A's own call names no delivery.
        row(
            "POST /api/toolkit/webhooks/{id}/deliveries/{deliveryId}/replay",
            HouseAdmin("FORBIDDEN"),
            Code(404, "DELIVERY_NOT_FOUND"),
        )
        .id(&w.webhook),
        row("DELETE /api/toolkit/webhooks/{id}", HouseAdmin("FORBIDDEN"), Status(200)).id(&w.spare_webhook),
        row("GET /api/mcp", NotAllowed, Status(405)),
        row("DELETE /api/mcp", NotAllowed, Status(405)),
    ]
}

/// The machine secrets the matrix's server is configured with, by kind.
const MACHINE_SECRETS: [(&str, &str); 4] = [
    ("bridge", "iso-bridge-secret"),
    ("analyst", "iso-analyst"),
    ("action", "iso-action"),
    ("renderer", "iso-renderer"),
];

/// What `who` must get on `row`.
fn expected(row: &Row, who: Who) -> Want {
    use Access::*;
    match (row.access, who) {
        (Public(want), _) => want,
        (Signed, _) => Want::Code(401, "BAD_SIGNATURE"),
        (NotAllowed, _) => Want::Status(405),
        (_, Who::Nobody | Who::Revoked) if row.route == "POST /api/mcp" => Want::Status(401),
        (_, Who::Nobody | Who::Revoked) => Want::Code(401, "UNAUTHORIZED"),
        (_, Who::Control) => row.ok,
        (Machine(_), _) => Want::Code(401, "UNAUTHORIZED"),
        (Money, _) => Want::Code(403, "role_cannot_spend_money"),
        (Admin, _) => Want::Code(403, "FORBIDDEN"),
        (SessionOnly, Who::Viewer) => Want::Code(403, "SESSION_REQUIRED"),
        (HouseAdmin(code), Who::Viewer) => Want::Code(403, code),
        (NotViewer(code), Who::Viewer) => Want::Code(403, code),
        (AnyRole, Who::Viewer) => row.ok,
        (_, Who::Foreign) => match (&row.foreign, &row.id) {
            (Some(want), _) => *want,
            (None, Some(_)) => Want::Code(404, "NOT_FOUND"),
            (None, None) => row.ok,
        },
    }
}

/// The credential headers of a caller on a row.
fn credential(w: &World, row: &Row, who: Who) -> Option<(&'static str, String)> {
    let session = |token: &str| Some(("cookie", format!("studio_session={token}")));
    let bearer = |key: &str| Some(("authorization", format!("Bearer {key}")));
    let owner_only = matches!(row.access, Access::Money | Access::SessionOnly | Access::Admin | Access::HouseAdmin(_));
    match who {
        Who::Nobody => None,
        Who::Revoked => bearer(&w.a_revoked),
        Who::Viewer => bearer(&w.a_viewer),
        Who::Foreign if matches!(row.access, Access::SessionOnly | Access::HouseAdmin(_)) => session(&w.b_session),
        Who::Foreign => bearer(&w.b_member),
        Who::Control if owner_only => session(&w.a_session),
        Who::Control => match row.access {
            Access::Machine("bridge") => Some(("x-support-bridge-secret", MACHINE_SECRETS[0].1.to_string())),
            Access::Machine(kind) => {
                let (_, secret) = MACHINE_SECRETS.iter().find(|(k, _)| *k == kind).expect("a machine kind");
                bearer(secret)
            }
            _ => bearer(&w.a_member),
        },
    }
}

fn multipart(body: &Body) -> Option<Form> {
    let image = |name: &'static str| Part::bytes(png(32, 32)).file_name(name).mime_str("image/png").expect("mime");
    Some(match body {
        Body::Upload { folder_id } => Form::new().text("folderId", folder_id.clone()).part("file", image("m.png")),
        Body::Submit { asset_id } => {
            Form::new().text("tool", "upscale").text("quality", "1k").text("image", asset_id.clone())
        }
        Body::Preflight => Form::new().part("images", image("p.png")),
        Body::Avatar => Form::new().part("file", image("me.png")),
        Body::Image => Form::new().part("image", image("d.png")),
        Body::None | Body::Json(_) => return None,
    })
}

/// One call: the status, the headers and the body (JSON when it is JSON, else a string).
async fn call(
    http: &reqwest::Client,
    app: &TestApp,
    row: &Row,
    id: Option<&str>,
    credential: Option<(&'static str, String)>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let (method, template) = row.route.split_once(' ').expect("METHOD path");
    // An offering's kind and a model's frame number are not ids: fixed values fill them.
    let template = template.replace("{kind}", "model");
    let path = match (id, template.find('{'), template.find('}')) {
        (Some(id), Some(open), Some(close)) => format!("{}{id}{}", &template[..open], &template[close + 1..]),
        _ => template.to_string(),
    }
    .replace("{n}", "0");
    let path = match row.query.as_deref() {
        Some(q) if !q.is_empty() => format!("{path}?{q}"),
        _ => path,
    };
    let mut req = http.request(method.parse::<Method>().expect("method"), format!("{}{path}", app.base));
    if let Some((name, value)) = credential {
        req = req.header(name, value);
    }
    req = match &row.body {
        Body::Json(v) => req.json(v),
        other => match multipart(other) {
            Some(form) => req.multipart(form),
            None => req,
        },
    };
    let res = req.send().await.unwrap_or_else(|e| panic!("{}: {e}", row.route));
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = res.bytes().await.unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, headers, body)
}

/// Check one answer against what was owed; a readable line when it differs.
fn check(want: Want, status: u16, body: &Value) -> Result<(), String> {
    let code = body["error"].as_str();
    let ok = match want {
        Want::Status(s) => status == s,
        Want::Code(s, c) => status == s && code == Some(c),
        Want::Count(field, n) => status == 200 && body[field].as_i64() == Some(n),
        Want::ToolOk => status == 200 && body["result"]["isError"] == json!(false),
        Want::ToolRefused(prefix) => {
            let refusal = body["result"]["structuredContent"]["error"].as_str().unwrap_or("");
            status == 200 && body["result"]["isError"] == json!(true) && refusal.starts_with(&format!("{prefix}:"))
        }
    };
    if ok {
        return Ok(());
    }
    let shown = body.to_string();
    Err(format!("wanted {want:?}, got {status} {}", &shown[..shown.len().min(300)]))
}

/// The same id with its last four characters changed: well formed, but nobody's.
fn unknown_like(id: &str) -> String {
    let cut = id.len().saturating_sub(4);
    let tail = if id.ends_with("0000") { "1111" } else { "0000" };
    format!("{}{tail}", &id[..cut])
}

async fn every_route_answers_as_the_spec_says(backend: Backend) {
    let a_email = unique_email("iso-a");
    // No runner: A's job stays queued, so cancels and takes have something to refuse.
    let app = spawn(backend, move |c| {
        c.billing = "test".into();
        c.runner_concurrency = 0;
        c.mail_webhook_secret = Some("whsec_aXNvbGF0aW9u".into());
        c.support_bridge_secret = Some(MACHINE_SECRETS[0].1.into());
        c.analyst_token = Some(MACHINE_SECRETS[1].1.into());
        c.action_token = Some(MACHINE_SECRETS[2].1.into());
        c.renderer_token = Some(MACHINE_SECRETS[3].1.into());
        c.webhooks.allow_http_loopback = true;
    })
    .await
    .expect("app");
    let w = world(&app, a_email).await;
    let rows = rows(&w);

    // The table covers exactly the routes the server documents (which tests/api/docs.rs
    // checks are exactly the mounted routes).
    let doc = app.client.openapi().await.expect("openapi.json");
    let mut served = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                served.insert(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    let table: BTreeSet<String> = rows.iter().map(|r| r.route.to_string()).collect();
    let unclassified: Vec<_> = served.difference(&table).collect();
    assert!(
        unclassified.is_empty(),
        "routes the isolation matrix does not classify (add them to rows()): {unclassified:?}"
    );
    let stale: Vec<_> = table.difference(&served).collect();
    assert!(stale.is_empty(), "rows for routes that are not served: {stale:?}");
    assert_eq!(table.len(), rows.len(), "one row per route");

    let http = reqwest::Client::new();
    let mut failures = Vec::new();
    // Everyone but A first, then A's controls, so no refusal is explained by A's own changes.
    for who in [Who::Nobody, Who::Revoked, Who::Foreign, Who::Viewer, Who::Control] {
        for row in &rows {
            let want = expected(row, who);
            let (status, headers, body) = call(&http, &app, row, row.id.as_deref(), credential(&w, row, who)).await;
            let mut fail = |why: String| failures.push(format!("{who:?} {}: {why}", row.route));
            if let Err(why) = check(want, status, &body) {
                fail(why);
                continue;
            }
            let challenge = headers.get("www-authenticate").and_then(|v| v.to_str().ok());
            if status == 401 && !matches!(row.access, Access::Signed) && challenge != Some("Bearer") {
                fail("401 without WWW-Authenticate: Bearer".into());
            }
            let envelope = body["error"].is_string() && body["message"].is_string();
            let json_rpc = body.get("jsonrpc").is_some() || matches!(row.access, Access::NotAllowed);
            if status >= 400 && !json_rpc && !envelope {
                fail(format!("{status} outside the shared envelope: {body}"));
            }
            if who != Who::Foreign {
                continue;
            }
            // A foreign id is answered exactly as an id that exists nowhere.
            if let (Some(id), None, false) = (&row.id, &row.foreign, matches!(row.access, Access::Public(_))) {
                let unknown = unknown_like(id);
                let (s, _, b) = call(&http, &app, row, Some(&unknown), credential(&w, row, who)).await;
                if (s, &b["error"]) != (status, &body["error"]) {
                    fail(format!("A's id answers {status} {}, an unknown id {s} {}", body["error"], b["error"]));
                }
            }
            // What B is allowed to read shows nothing of A.
            if (200..300).contains(&status) && !matches!(row.access, Access::Public(_)) {
                let text = body.to_string();
                for id in w.a_ids.iter().filter(|id| text.contains(id.as_str())) {
                    fail(format!("house B sees A's {id}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} answers differ from the spec:\n{}", failures.len(), failures.join("\n"));

    // B's attempts changed nothing of A's: the spare asset B tried to delete is gone only
    // because A's own control deleted it afterwards.
    let key: Client = app.client.with_api_key(&w.a_member);
    let listed = key.list_assets(None).await.expect("A lists");
    assert!(listed.assets.iter().any(|a| a.id == w.asset), "A's asset is still there");
    assert!(!listed.assets.iter().any(|a| a.id == w.spare_asset), "A's control deleted the spare");

    optional_query_parameters_are_optional(&http, &app, &w, &rows, &doc).await;
}

/// The values the walk below gives the query parameters the document calls required.
fn required_query_value(w: &World, name: &str) -> Option<String> {
    match name {
        "toolId" => Some("lookbook".into()),
        "q" => Some("matrix".into()),
        "token" => Some(w.invite_token.clone()),
        "organizationId" | "o" => Some(w.a_org.clone()),
        // A signed link's expiry (2100-01-01) and a well-formed signature that signs nothing.
        "e" => Some("4102444800".into()),
        "s" => Some("0".repeat(64)),
        _ => None,
    }
}

/// The document walk: every GET of `/openapi.json`, called with only the query parameters the
/// document marks `required` (each given a value) as the admin (A's owner's session), a member
/// and a viewer, and a machine route also with its own credential. None may answer 400: a
/// generated client lets its caller omit an optional parameter, so a handler that needs one
/// must say so in the document.
async fn optional_query_parameters_are_optional(
    http: &reqwest::Client,
    app: &TestApp,
    w: &World,
    rows: &[Row],
    doc: &Value,
) {
    let mut failures = Vec::new();
    let mut walked = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let Some(op) = item.get("get") else { continue };
        let route = format!("GET {path}");
        let row = rows.iter().find(|r| r.route == route).expect("the matrix classifies every route");
        let mut query = Vec::new();
        for p in op["parameters"].as_array().into_iter().flatten() {
            if p["in"] != "query" || p["required"] != json!(true) {
                continue;
            }
            let name = p["name"].as_str().expect("a parameter's name");
            let value = required_query_value(w, name)
                .unwrap_or_else(|| panic!("{route}: give its required query parameter {name} a value here"));
            query.push(format!("{name}={value}"));
        }
        let mut walk = row.clone();
        walk.body = Body::None;
        walk.query = Some(query.join("&"));
        let session = Some(("cookie", format!("studio_session={}", w.a_session)));
        let bearer = |key: &str| Some(("authorization", format!("Bearer {key}")));
        let mut callers = vec![("admin", session), ("member", bearer(&w.a_member)), ("viewer", bearer(&w.a_viewer))];
        if matches!(row.access, Access::Machine(_)) {
            callers.push(("machine", credential(w, row, Who::Control)));
        }
        for (who, credential) in callers {
            let (status, _, body) = call(http, app, &walk, walk.id.as_deref(), credential).await;
            if status == 400 {
                failures.push(format!("{who} {route}?{}: 400 {body}", walk.query.as_deref().unwrap_or("")));
            }
        }
        walked += 1;
    }
    assert!(walked > 50, "the walk reached only {walked} GET operations");
    assert!(
        failures.is_empty(),
        "GETs that answer 400 without a parameter the document calls optional:\n{}",
        failures.join("\n")
    );
}
