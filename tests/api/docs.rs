//! The self-documenting router: /openapi.json is OpenAPI 3.1 and lists every mounted route;
//! /docs loads from this server alone; its links (create → read, change, delete) lead to
//! documented operations, and its create examples make what the links then reach; a body's
//! object is never read from an array.

use serde_json::{Value, json};
use studio_client::api::{JobStatus, Quality};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::png;
use studio_tests::{Backend, PASSWORD, spawn, unique_email};

/// Every route this build mounts, as `METHOD path`. A route added without documentation, or
/// documented without being mounted, fails here.
const ROUTES: &[&str] = &[
    "GET /health",
    "GET /openapi.json",
    "GET /docs",
    "POST /api/auth/sign-up",
    "POST /api/auth/sign-in",
    "POST /api/auth/sign-out",
    "GET /api/auth/session",
    "POST /api/auth/verify-email",
    "POST /api/auth/verify-email/resend",
    "POST /api/auth/password-reset",
    "POST /api/auth/password-reset/confirm",
    "POST /api/email/webhook",
    "POST /api/email/drip",
    "GET /api/toolkit/admin/emails",
    "POST /api/keys",
    "GET /api/keys",
    "DELETE /api/keys/{id}",
    "POST /api/toolkit/check-email",
    "GET /api/toolkit/ai/billing/balance",
    "POST /api/toolkit/admin/grant-tokens",
    "POST /api/toolkit/admin/invite",
    "GET /api/toolkit/admin/invite-codes",
    "POST /api/toolkit/admin/invite-codes",
    "POST /api/toolkit/admin/invite-codes/revoke",
    "GET /api/toolkit/admin/invite-requests",
    "GET /api/toolkit/invite/accept",
    "POST /api/toolkit/invite/accept",
    "POST /api/toolkit/invite/preview",
    "POST /api/toolkit/invite/redeem",
    "POST /api/toolkit/invite/request",
    "GET /api/toolkit/invites/mine",
    "GET /api/toolkit/folders",
    "POST /api/toolkit/folders",
    "PATCH /api/toolkit/folders/{id}",
    "DELETE /api/toolkit/folders/{id}",
    "GET /api/toolkit/assets",
    "POST /api/toolkit/assets/upload",
    "GET /api/toolkit/assets/{id}/file",
    "GET /api/toolkit/assets/{id}/detail",
    "GET /api/toolkit/assets/{id}/provenance",
    "GET /api/toolkit/assets/{id}",
    "POST /api/toolkit/assets/batch/delete",
    "PATCH /api/toolkit/assets/{id}",
    "PATCH /api/toolkit/assets/batch",
    "POST /api/toolkit/assets/batch/quote",
    "POST /api/toolkit/assets/group",
    "GET /api/toolkit/backgrounds",
    "GET /api/toolkit/backgrounds/{id}/preview",
    "POST /api/toolkit/assets/pack",
    "GET /api/toolkit/packs/{id}",
    "GET /api/toolkit/packs/{id}/file",
    "GET /api/toolkit/ai/billing/prices",
    "GET /api/toolkit/ai/billing/catalog",
    "POST /api/toolkit/ai/billing/checkout/topup",
    "POST /api/toolkit/ai/billing/checkout/subscription",
    "POST /api/toolkit/ai/billing/checkout/custom",
    "POST /api/toolkit/ai/billing/portal",
    "GET /api/toolkit/ai/billing/autocharge",
    "PUT /api/toolkit/ai/billing/autocharge",
    "POST /api/toolkit/ai/billing/autocharge/run",
    "POST /api/toolkit/ai/billing/webhook/provider",
    "GET /api/toolkit/ai/billing/test-checkout/{id}",
    "POST /api/toolkit/ai/billing/test-checkout/{id}",
    "GET /api/toolkit/ai/billing/test-portal/{id}",
    "POST /api/toolkit/ai/preflight",
    "POST /api/toolkit/ai/depth",
    "POST /api/toolkit/ai/describe-item",
    "POST /api/toolkit/ai/detect-items",
    "POST /api/toolkit/ai/segment",
    "POST /api/toolkit/ai/extract-build",
    "POST /api/toolkit/ai/extract-character",
    "POST /api/toolkit/ai/remove-background",
    "POST /api/toolkit/ai/face-features",
    "POST /api/toolkit/ai/inspiration-keywords",
    "POST /api/toolkit/ai/imagemodel-prompts",
    "POST /api/toolkit/ai/prompt-builder",
    "POST /api/toolkit/ai/prompt-enhancer",
    "GET /api/toolkit/ai/results/{id}",
    "GET /posts",
    "POST /posts",
    "GET /posts/{id}",
    "PATCH /posts/{id}",
    "DELETE /posts/{id}",
    "GET /api/toolkit/chat/sessions",
    "POST /api/toolkit/chat/sessions",
    "GET /api/toolkit/chat/sessions/{id}/turns",
    "POST /api/toolkit/chat/sessions/{id}/turns",
    "POST /api/toolkit/chat/apply",
    "POST /api/toolkit/chat/context/warm",
    "GET /api/toolkit/search",
    "GET /api/toolkit/support/tickets",
    "POST /api/toolkit/support/tickets",
    "GET /api/toolkit/support/tickets/{id}",
    "POST /api/toolkit/support/screenshots",
    "GET /api/toolkit/support/screenshots/{id}",
    "POST /api/support/escalations",
    "GET /api/internal/analyst/support",
    "GET /api/toolkit/admin/support",
    "GET /api/toolkit/admin/support/{id}",
    "PATCH /api/toolkit/admin/support/{id}",
    "POST /api/toolkit/admin/support/{id}/reply",
    "POST /api/toolkit/admin/support/{id}/notes",
    "POST /api/toolkit/jobs/submit",
    "GET /api/toolkit/jobs",
    "GET /api/toolkit/jobs/{id}",
    "POST /api/toolkit/jobs/{id}/cancel",
    "POST /api/toolkit/jobs/{id}/duplicate",
    "GET /api/toolkit/jobs/ws",
    "GET /api/toolkit/develops",
    "POST /api/toolkit/develops/{id}/cancel",
    "POST /api/toolkit/takes",
    "POST /api/mcp",
    "GET /api/mcp",
    "DELETE /api/mcp",
    "GET /api/account",
    "POST /api/account/avatar",
    "DELETE /api/account/avatar",
    "GET /api/account/avatar/{userId}",
    "PATCH /api/account",
    "PATCH /api/account/billing-email",
    "GET /api/account/memory",
    "POST /api/account/memory",
    "DELETE /api/account/memory/{id}",
    "POST /api/account/plan/cancel",
    "GET /api/toolkit/my-access",
    "GET /api/toolkit/tools/{slug}/items",
    "GET /api/toolkit/org/seats",
    "POST /api/toolkit/org/seats/invite",
    "POST /api/toolkit/org/seats/accept",
    "POST /api/toolkit/org/seats/role",
    "DELETE /api/toolkit/org/seats/{userId}",
    "POST /api/toolkit/org/transfer",
    "POST /api/auth/switch-house",
    "GET /api/me",
    "DELETE /api/me",
    "GET /api/me/export",
    "GET /api/onboarding",
    "POST /api/onboarding/steps/{step}/complete",
    "POST /api/intake",
    "POST /api/toolkit/admin/access",
    "GET /api/toolkit/admin/users",
    "GET /api/toolkit/admin/ai-costs",
    "GET /api/toolkit/admin/develops",
    "POST /api/toolkit/admin/develops/action",
    "GET /api/toolkit/admin/failures",
    "GET /api/toolkit/admin/frames",
    "GET /api/toolkit/admin/frames/{id}/file",
    "GET /api/toolkit/admin/judge/rollup",
    "GET /api/toolkit/admin/judge/verdicts",
    "GET /api/toolkit/admin/judge/verdicts/{jobId}",
    "GET /api/toolkit/admin/kept-cost",
    "GET /api/toolkit/admin/overview",
    "GET /api/toolkit/admin/payments",
    "GET /api/toolkit/admin/tokenomics",
    "GET /api/toolkit/admin/onboarding",
    "GET /api/toolkit/admin/tool-items",
    "POST /api/toolkit/admin/tool-items",
    "DELETE /api/toolkit/admin/tool-items/{id}",
    "GET /api/toolkit/admin/analyst",
    "PATCH /api/toolkit/admin/analyst/cadence",
    "POST /api/toolkit/admin/analyst/run",
    "GET /api/toolkit/admin/reflection/findings",
    "POST /api/toolkit/admin/reflection/findings/{id}/decision",
    "POST /api/toolkit/admin/memory/observations",
    "GET /api/toolkit/admin/memory/review",
    "POST /api/toolkit/admin/memory/review",
    "GET /api/toolkit/lookbook/looks",
    "POST /api/toolkit/lookbook/looks",
    "GET /api/toolkit/lookbook/looks/{id}",
    "POST /api/toolkit/lookbook/looks/{id}/develop-lock",
    "POST /api/toolkit/lookbook/looks/{id}/lock",
    "POST /api/toolkit/lookbook/looks/{id}/unlock",
    "POST /api/toolkit/lookbook/looks/{id}/variations",
    "GET /api/toolkit/lookbook/templates",
    "GET /api/toolkit/lookbook/templates/{id}",
    "GET /api/toolkit/lookbook/vocabulary",
    "GET /api/toolkit/presets",
    "POST /api/toolkit/presets",
    "POST /api/toolkit/factory/plan",
    "POST /api/toolkit/factory/run",
    "GET /api/toolkit/pipelines/presets",
    "POST /api/toolkit/pipelines/presets",
    "PATCH /api/toolkit/pipelines/presets/{id}",
    "DELETE /api/toolkit/pipelines/presets/{id}",
    "POST /api/toolkit/pipelines/preview",
    "GET /api/toolkit/pipelines/runs",
    "POST /api/toolkit/pipelines/runs",
    "GET /api/toolkit/pipelines/runs/{id}",
    "POST /api/toolkit/pipelines/runs/{id}/cancel",
    "GET /api/toolkit/models",
    "POST /api/toolkit/models/own",
    "GET /api/toolkit/models/{id}",
    "PATCH /api/toolkit/models/{id}",
    "GET /api/toolkit/models/{id}/preview/{n}",
    "POST /api/toolkit/models/{id}/checkout",
    "GET /api/toolkit/entitlements",
    "GET /api/toolkit/explore",
    "POST /api/toolkit/explore/{kind}/{id}/take",
    "GET /api/toolkit/admin/offerings",
    "POST /api/toolkit/admin/offerings",
    "POST /api/toolkit/admin/offerings/{id}/retire",
    "GET /api/toolkit/admin/entitlements",
    "POST /api/toolkit/admin/entitlements/revoke",
    "GET /api/internal/analyst/snapshot",
    "GET /api/internal/analyst/funnel",
    "GET /api/internal/analyst/product-usage",
    "GET /api/internal/analyst/failures",
    "GET /api/internal/analyst/deliverability",
    "GET /api/internal/analyst/chat-quality",
    "GET /api/internal/analyst/learnings",
    "GET /api/internal/analyst/rejections",
    "GET /api/internal/analyst/longhorizon",
    "GET /api/internal/analyst/invitations",
    "GET /api/internal/analyst/experiments",
    "GET /api/internal/analyst/feature-flags",
    "GET /api/internal/analyst/recordings",
    "GET /api/internal/analyst/recordings/{id}/analysis",
    "GET /api/internal/analyst/assets/{id}/preview",
    "POST /api/internal/analyst/actions/invitations/{id}/approve",
    "POST /api/internal/analyst/actions/invitations/{id}/research",
    "POST /api/internal/analyst/actions/recordings/{id}/summarize",
    "POST /api/internal/replay-renders/claim",
    "POST /api/internal/replay-renders/{id}/complete",
    "POST /api/internal/replay-renders/{id}/fail",
    "GET /api/toolkit/admin/experiments",
    "POST /api/toolkit/admin/experiments",
    "PATCH /api/toolkit/admin/experiments/{id}",
    "GET /api/toolkit/admin/feature-flags",
    "PUT /api/toolkit/admin/feature-flags/{key}",
    "GET /api/toolkit/admin/longhorizon",
    "POST /api/toolkit/admin/longhorizon/revise",
    "POST /api/toolkit/admin/replay/evidence",
    "GET /api/toolkit/admin/replay/evidence",
    "GET /api/toolkit/admin/replay/evidence/{id}",
    "POST /api/toolkit/admin/replay/renders",
    "GET /api/toolkit/admin/replay/renders/{id}",
    "GET /api/toolkit/admin/replay/renders/{id}/file",
    "GET /api/toolkit/brand",
    "PATCH /api/toolkit/brand",
    "POST /api/toolkit/brand/dna",
    "GET /api/toolkit/brand/marks",
    "POST /api/toolkit/brand/marks",
    "PATCH /api/toolkit/brand/marks/{id}",
    "DELETE /api/toolkit/brand/marks/{id}",
    "GET /api/toolkit/webhooks",
    "POST /api/toolkit/webhooks",
    "GET /api/toolkit/webhooks/{id}",
    "PATCH /api/toolkit/webhooks/{id}",
    "DELETE /api/toolkit/webhooks/{id}",
    "POST /api/toolkit/webhooks/{id}/rotate-secret",
    "GET /api/toolkit/webhooks/{id}/deliveries",
    "POST /api/toolkit/webhooks/{id}/test",
    "POST /api/toolkit/webhooks/{id}/deliveries/{deliveryId}/replay",
];

/// Routes that answer 405 by design (the agent endpoint has no event stream and no session).
const DESIGNED_405: &[&str] = &["GET /api/mcp", "DELETE /api/mcp"];

#[tokio::test]
async fn openapi_lists_every_mounted_route() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let doc = app.client.openapi().await.expect("openapi.json");
    assert_eq!(doc["openapi"], "3.1.0");
    // .ci/run validates the served document with an independent OpenAPI 3.1 validator.
    if let Ok(out) = std::env::var("STUDIO_OPENAPI_OUT") {
        std::fs::write(&out, serde_json::to_vec_pretty(&doc).unwrap()).expect("write the document");
    }
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());
    // The served document is the linted one (.ci/run's Redocly step): a server, and a security
    // requirement on every operation.
    assert!(doc["servers"].as_array().is_some_and(|s| !s.is_empty()), "the served document names a server");
    let mut documented = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                assert!(op["responses"].as_object().is_some_and(|r| !r.is_empty()), "{method} {path} has responses");
                assert!(op["security"].is_array(), "{method} {path} states its security requirement");
                documented.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    documented.sort();
    let mut expected: Vec<String> = ROUTES.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(documented, expected);

    // Every documented route is really mounted: none answers the router's own 404 or 405.
    let http = reqwest::Client::new();
    for route in ROUTES {
        let (method, path) = route.split_once(' ').unwrap();
        let url = format!("{}{}", app.base, path.replace("{id}", "missing"));
        let res = http.request(method.parse().unwrap(), &url).send().await.unwrap();
        let status = res.status().as_u16();
        let body = res.text().await.unwrap_or_default();
        if DESIGNED_405.contains(route) {
            assert_eq!(status, 405, "{route} answers 405 by design");
            continue;
        }
        assert_ne!(status, 405, "{route} is not mounted for its method");
        assert!(!(status == 404 && body.contains("No such route")), "{route} is not mounted");
    }
}

#[tokio::test]
async fn docs_page_needs_no_network() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let http = reqwest::Client::new();
    let page = http.get(format!("{}/docs", app.base)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("SwaggerUIBundle") && html.contains("/openapi.json") && html.contains("validatorUrl: null"));
    let mut assets = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            let url = &rest[..rest.find('"').unwrap()];
            assert!(url.starts_with('/'), "/docs loads {url} from elsewhere");
            assets.push(url.to_string());
        }
    }
    assert_eq!(assets.len(), 2, "one stylesheet and one script: {assets:?}");
    for asset in assets {
        let res = http.get(format!("{}{asset}", app.base)).send().await.unwrap();
        assert_eq!(res.status(), 200, "{asset}");
        assert!(res.bytes().await.unwrap().len() > 10_000, "{asset} is the real bundle");
    }
}

/// The create operations whose answers carry links (docs::LINKS in studio-server): what they made
/// can be read, changed or deleted by following them.
const LINKED: &[&str] = &[
    "POST /api/toolkit/folders",
    "POST /api/toolkit/assets/upload",
    "POST /api/keys",
    "POST /api/toolkit/lookbook/looks",
    "POST /api/toolkit/lookbook/looks/{id}/develop-lock",
    "POST /api/toolkit/brand/marks",
    "POST /api/toolkit/pipelines/presets",
    "POST /api/toolkit/pipelines/runs",
    "POST /api/toolkit/jobs/submit",
    "POST /api/toolkit/jobs/{id}/duplicate",
    "POST /api/toolkit/assets/pack",
    "POST /api/toolkit/models/own",
    "POST /posts",
    "POST /api/toolkit/chat/sessions",
    "POST /api/toolkit/support/tickets",
    "POST /api/toolkit/support/screenshots",
    "POST /api/account/memory",
    "POST /api/toolkit/admin/tool-items",
    "POST /api/toolkit/admin/offerings",
    "POST /api/toolkit/admin/replay/evidence",
];

/// Every `(method, path, operation)` of the document.
fn operations(doc: &Value) -> Vec<(String, String, &Value)> {
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                ops.push((method.clone(), path.clone(), op));
            }
        }
    }
    ops
}

/// `schema` and every schema it stands for: its `$ref`'s target, its `allOf`, `anyOf` and
/// `oneOf` members, recursively.
fn alternatives<'a>(doc: &'a Value, schema: &'a Value, out: &mut Vec<&'a Value>) {
    let schema = match schema["$ref"].as_str() {
        Some(reference) => doc.pointer(reference.trim_start_matches('#')).expect("every $ref resolves"),
        None => schema,
    };
    out.push(schema);
    for key in ["allOf", "anyOf", "oneOf"] {
        for member in schema[key].as_array().into_iter().flatten() {
            alternatives(doc, member, out);
        }
    }
}

/// Whether the JSON pointer (`/folder/id`) names a property the schema describes.
fn describes(doc: &Value, schema: &Value, pointer: &str) -> bool {
    let mut level = vec![schema];
    for key in pointer.split('/').skip(1) {
        let mut found = Vec::new();
        for schema in level {
            let mut all = Vec::new();
            alternatives(doc, schema, &mut all);
            found.extend(all.into_iter().filter_map(|s| s["properties"].get(key)));
        }
        if found.is_empty() {
            return false;
        }
        level = found;
    }
    true
}

/// The `(method, path)` an `operationRef` (`#/paths/~1posts~1%7Bid%7D/get`) points to.
fn referenced(operation_ref: &str) -> Option<(String, String)> {
    let (pointer, method) = operation_ref.strip_prefix("#/paths/")?.rsplit_once('/')?;
    let mut bytes = Vec::new();
    let mut rest = pointer.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' && tail.len() >= 2 {
            bytes.push(u8::from_str_radix(std::str::from_utf8(&tail[..2]).ok()?, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    let path = String::from_utf8(bytes).ok()?.replace("~1", "/").replace("~0", "~");
    Some((method.to_string(), path))
}

/// Every link of the served document leads somewhere real: its `operationRef` names a documented
/// operation, it supplies exactly that operation's path parameters, and each value is a pointer
/// into the answer's body that the answer's schema describes. The create operations that carry
/// links are exactly [`LINKED`].
#[tokio::test]
async fn every_link_leads_to_a_documented_operation() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let doc = app.client.openapi().await.expect("openapi.json");
    let mut sources = Vec::new();
    let mut wrong = Vec::new();
    let mut links = 0;
    for (method, path, op) in operations(&doc) {
        let source = format!("{} {path}", method.to_uppercase());
        for (status, response) in op["responses"].as_object().expect("responses") {
            let Some(named) = response["links"].as_object() else { continue };
            if !sources.contains(&source) {
                sources.push(source.clone());
            }
            let schema = &response["content"]["application/json"]["schema"];
            for (name, link) in named {
                links += 1;
                let at = format!("{source} {status} link {name}");
                let Some((target_method, target_path)) = link["operationRef"].as_str().and_then(referenced) else {
                    wrong.push(format!("{at}: no operationRef into #/paths ({})", link["operationRef"]));
                    continue;
                };
                let target = &doc["paths"][&target_path][&target_method];
                if !target.is_object() {
                    wrong.push(format!("{at}: {target_method} {target_path} is not documented"));
                    continue;
                }
                let mut wanted: Vec<&str> = target["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == "path")
                    .filter_map(|p| p["name"].as_str())
                    .collect();
                let mut given: Vec<&str> =
                    link["parameters"].as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
                wanted.sort_unstable();
                given.sort_unstable();
                if wanted != given {
                    wrong.push(format!("{at}: gives {given:?}, {target_method} {target_path} takes {wanted:?}"));
                }
                for (param, value) in link["parameters"].as_object().into_iter().flatten() {
                    match value.as_str().and_then(|v| v.strip_prefix("$response.body#")) {
                        Some(pointer) if describes(&doc, schema, pointer) => {}
                        _ => wrong.push(format!("{at}: {param} = {value} is not in the answer's schema")),
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "links that lead nowhere:\n{}", wrong.join("\n"));
    assert!(links >= 40, "the document's links ({links})");
    sources.sort();
    let mut expected: Vec<String> = LINKED.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(sources, expected, "the create operations that carry links");
}

/// Each create operation's documented example, with the caller's own ids in place of
/// `ast_example` and `job_example`, makes a thing (a 2xx its links hang on), and every link
/// from that answer reaches it: reads answer 200, changes and actions anything but 404, 405
/// and 5xx, and the deletes (followed last) succeed.
#[tokio::test]
async fn documented_examples_make_what_the_links_reach() {
    let app = spawn(Backend::Sqlite, |c| c.runner_concurrency = 0).await.expect("app");
    let doc = app.client.openapi().await.expect("openapi.json");
    let owner_email = unique_email("links-owner");
    let owner = app.client.sign_up(&owner_email, PASSWORD, None).await.expect("sign up").session;
    let session = app.client.with_session(&owner);
    let key = session.mint_key("links", None).await.expect("mint").key.expect("the secret");
    let member = app.client.with_api_key(&key);
    let asset = member.upload_bytes("look.png", png(48, 64), &UploadOptions::default()).await.expect("upload").asset.id;
    let develop = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(64, 48) })
        .quality(Quality::K1);
    let job = member.submit_develop(&develop).await.expect("submit");
    assert_eq!(job.status, JobStatus::Queued);
    let admin_email = unique_email("links-admin");
    let admin = app.client.sign_up(&admin_email, PASSWORD, None).await.expect("sign up").session;
    app.studio.admin().operator().add_admin(&admin_email).await.expect("admin add");
    // The admin's own image, for an offering (it publishes frames of the admin's house).
    let admin_key = app.client.with_session(&admin).mint_key("links admin", None).await.expect("mint").key.unwrap();
    let admin_asset = app
        .client
        .with_api_key(&admin_key)
        .upload_bytes("ada.png", png(48, 64), &UploadOptions::default())
        .await
        .expect("upload")
        .asset
        .id;

    let http = reqwest::Client::new();
    let mut made = 0;
    let mut wrong = Vec::new();
    for (method, path, op) in operations(&doc) {
        let Some(example) = op["requestBody"]["content"]["application/json"]["example"].as_object() else { continue };
        let source = format!("{} {path}", method.to_uppercase());
        // Who may make it: the admin's session on the admin routes, the owner's where only a
        // session is named, else the member key.
        let session_only = op["security"].as_array().is_some_and(|s| s.iter().all(|r| r.get("session").is_some()));
        let (credential, image) = if path.starts_with("/api/toolkit/admin/") {
            (("cookie", format!("studio_session={admin}")), &admin_asset)
        } else if session_only {
            (("cookie", format!("studio_session={owner}")), &asset)
        } else {
            (("authorization", format!("Bearer {key}")), &asset)
        };
        let body = Value::Object(example.clone())
            .to_string()
            .replace("ast_example", image)
            .replace("job_example", &job.job_id);
        let res = http
            .request(method.to_uppercase().parse().unwrap(), format!("{}{path}", app.base))
            .header(credential.0, &credential.1)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16().to_string();
        let answer: Value = res.json().await.unwrap_or(Value::Null);
        let Some(links) = op["responses"][&status]["links"].as_object() else {
            wrong.push(format!("{source}: its example answered {status} {answer}, which carries no links"));
            continue;
        };
        made += 1;
        // Reads and changes first, deletes last.
        let mut links: Vec<&Value> = links.values().collect();
        links.sort_by_key(|link| link["operationRef"].as_str().is_some_and(|r| r.ends_with("/delete")));
        for link in links {
            let (target_method, target_path) = referenced(link["operationRef"].as_str().unwrap()).unwrap();
            let pointer = link["parameters"]["id"].as_str().unwrap().trim_start_matches("$response.body#");
            let Some(id) = answer.pointer(pointer).and_then(Value::as_str) else {
                wrong.push(format!("{source}: its answer has no id at {pointer}: {answer}"));
                continue;
            };
            let url = format!("{}{}", app.base, target_path.replace("{id}", id));
            let mut call =
                http.request(target_method.to_uppercase().parse().unwrap(), url).header(credential.0, &credential.1);
            if ["post", "patch", "put"].contains(&target_method.as_str()) {
                call = call.json(&json!({}));
            }
            let res = call.send().await.unwrap();
            let code = res.status().as_u16();
            let owed = match target_method.as_str() {
                "get" | "delete" => (200..300).contains(&code),
                _ => !matches!(code, 404 | 405 | 500..),
            };
            if !owed {
                let text = res.text().await.unwrap_or_default();
                wrong.push(format!("{source} → {target_method} {target_path} with {id}: {code} {text}"));
            }
        }
    }
    assert!(wrong.is_empty(), "examples or links that do not work:\n{}", wrong.join("\n"));
    assert!(made >= 14, "the documented create examples ({made})");
}

/// A JSON body's object is read from an object only. serde alone would read an array as the
/// object's fields in order (`"intake": []` as empty answers, `"output": [null, null]` as an
/// output with nothing set, which Schemathesis found going on to develop); the document says
/// object, so an array is the route's 400 in the shared envelope.
#[tokio::test]
async fn an_array_is_not_read_as_an_object() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let http = reqwest::Client::new();
    let url = format!("{}/api/toolkit/invite/request", app.base);
    let send = |body: Value| http.post(&url).json(&body).send();
    let email = unique_email("array-intake");
    let res = send(json!({"email": email, "intake": [["retail"], ["40 frames a season"]]})).await.unwrap();
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "BAD_BODY", "{body}");
    assert!(body["message"].as_str().unwrap().contains("invalid type: sequence"), "{body}");
    // The same answers as an object are taken.
    let res = send(json!({"email": email, "intake": {"audience": ["retail"], "volume": ["40 frames a season"]}}))
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
}
