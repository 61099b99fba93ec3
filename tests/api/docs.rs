//! The self-documenting router: /openapi.json is OpenAPI 3.1 and lists every mounted route;
//! /docs loads from this server alone.

use studio_tests::{Backend, spawn};

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
    "GET /api/toolkit/assets",
    "POST /api/toolkit/assets/upload",
    "GET /api/toolkit/assets/{id}/file",
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
