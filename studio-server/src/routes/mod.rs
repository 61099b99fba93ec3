//! The router. Every route is mounted through aide's `ApiRouter`, which writes `/openapi.json`
//! from the mounted routes themselves, so the document cannot drift from the server.
//! Modules follow the URL: `toolkit/ai/billing.rs` serves `/api/toolkit/ai/billing/...`.

mod account;
mod auth;
mod email;
mod health;
mod intake;
mod internal;
mod keys;
mod mcp;
mod me;
mod onboarding;
mod posts;
mod support;
mod toolkit;

use std::sync::Arc;

use aide::axum::ApiRouter;
use axum::http::HeaderName;
use axum::{Extension, Router};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::ratelimit::{self, RateLimit};
use crate::state::AppState;
use crate::{console, docs};

/// Every API route, documented.
fn api_routes() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(health::router())
        .merge(auth::router())
        .merge(account::router())
        .merge(me::router())
        .merge(onboarding::router())
        .merge(intake::router())
        .merge(email::router())
        .merge(keys::router())
        .merge(mcp::router())
        .merge(posts::router())
        .merge(support::router())
        .merge(internal::router())
        .merge(toolkit::router())
        .merge(docs::router())
}

/// The whole application: API routes, `/openapi.json`, `/docs`, request ids, tracing and, when
/// configured, the per-address rate limit.
pub(crate) fn app(state: AppState, limit: Option<Arc<RateLimit>>) -> Router {
    let mut api = docs::base_document();
    let mut router = api_routes().finish_api_with(&mut api, docs::finish);
    complete(&mut api);
    if let Some(limit) = limit {
        router = router.layer(axum::middleware::from_fn_with_state(limit, ratelimit::limit));
    }
    let document = Arc::new(docs::Document::new(api));
    let request_id = HeaderName::from_static("x-request-id");
    router
        .route("/console/{*file}", axum::routing::get(console::asset))
        .fallback(console::fallback)
        .layer(Extension(document))
        .with_state(state)
        .merge(docs::assets())
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        .layer(TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<_>| {
            let id = req.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), id = %id)
        }))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
}

/// The document `/openapi.json` serves, produced from the same routes without serving them.
pub(crate) fn document() -> aide::openapi::OpenApi {
    let mut api = docs::base_document();
    let _ = api_routes().finish_api_with(&mut api, docs::finish);
    complete(&mut api);
    api
}

/// What both the served and the produced document add after the routes: the rate limit's
/// responses and the lint fixes (server, security requirements, schemas).
fn complete(api: &mut aide::openapi::OpenApi) {
    ratelimit::document(api);
    docs::lint_clean(api);
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// Paths served outside the file their URL would name, each with its reason.
    const EXCEPTIONS: &[(&str, &str, &str)] = &[
        ("/openapi.json", "docs.rs", "the document is served beside the viewer that reads it"),
        ("/docs", "docs.rs", "the viewer page"),
        ("/api/toolkit/assets/pack", "routes/toolkit/packs.rs", "a pack is made from assets but is the packs group's"),
        (
            "/api/toolkit/ai/billing/test-portal/{id}",
            "routes/toolkit/ai/billing/test_checkout.rs",
            "the two test-mode pages share one file",
        ),
    ];

    /// The file a URL names: the longest run of its fixed segments (after `/api`, `-` read as
    /// `_`) that is a module under `routes/`.
    fn named_file(src: &Path, path: &str) -> Option<PathBuf> {
        let segments: Vec<String> = path
            .trim_start_matches("/api")
            .split('/')
            .filter(|s| !s.is_empty() && !s.starts_with('{'))
            .map(|s| s.replace('-', "_"))
            .collect();
        (1..=segments.len()).rev().find_map(|n| {
            let stem = src.join("routes").join(segments[..n].join("/"));
            [stem.with_extension("rs"), stem.join("mod.rs")].into_iter().find(|f| f.is_file())
        })
    }

    #[test]
    fn every_route_lives_in_the_file_its_url_names() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let document = super::document();
        let paths: Vec<&String> = document.paths.iter().flat_map(|p| p.paths.keys()).collect();
        assert!(paths.len() > 40, "the document lists the routes ({})", paths.len());
        let mut misplaced = Vec::new();
        for path in paths {
            let file = match EXCEPTIONS.iter().find(|(p, _, _)| p == path) {
                Some((_, file, _)) => Some(src.join(file)),
                None => named_file(&src, path),
            };
            let Some(file) = file else {
                misplaced.push(format!("{path}: no module under routes/ is named by its URL"));
                continue;
            };
            let text = std::fs::read_to_string(&file).expect("route file");
            if !text.contains(&format!("\"{path}\"")) {
                misplaced
                    .push(format!("{path}: not mounted in {}", file.strip_prefix(&src).unwrap_or(&file).display()));
            }
        }
        assert!(misplaced.is_empty(), "routes outside the file their URL names:\n{}", misplaced.join("\n"));
    }

    /// Operations any caller may use, with no credential.
    const PUBLIC: &[&str] = &[
        "GET /health",
        "GET /openapi.json",
        "GET /docs",
        "POST /api/auth/sign-up",
        "POST /api/auth/sign-in",
        "POST /api/auth/sign-out",
        "POST /api/auth/verify-email",
        "POST /api/auth/password-reset",
        "POST /api/auth/password-reset/confirm",
        "POST /api/email/webhook",
        "POST /api/toolkit/check-email",
        "GET /api/toolkit/ai/billing/catalog",
        "POST /api/toolkit/ai/billing/webhook/provider",
        "GET /api/toolkit/ai/billing/test-checkout/{id}",
        "POST /api/toolkit/ai/billing/test-checkout/{id}",
        "GET /api/toolkit/ai/billing/test-portal/{id}",
        "POST /api/toolkit/ai/billing/test-portal/{id}",
        "GET /api/toolkit/backgrounds/{id}/preview",
        "GET /api/toolkit/ai/results/{id}",
        "GET /api/toolkit/support/screenshots/{id}",
        "GET /api/toolkit/invite/accept",
        "POST /api/toolkit/invite/preview",
        "POST /api/toolkit/invite/redeem",
        "POST /api/toolkit/invite/request",
        "GET /api/mcp",
        "DELETE /api/mcp",
    ];

    #[test]
    fn every_operation_names_its_credential() {
        let document = super::document();
        let mut wrong = Vec::new();
        for (path, item) in document.paths.iter().flat_map(|p| p.paths.iter()) {
            let aide::openapi::ReferenceOr::Item(item) = item else { continue };
            for (method, op) in item.iter() {
                let name = format!("{} {path}", method.to_uppercase());
                let public = PUBLIC.contains(&name.as_str());
                let schemes: Vec<&String> = op.security.iter().flat_map(|r| r.keys()).collect();
                if public != schemes.is_empty() {
                    wrong.push(format!("{name}: security {schemes:?}"));
                }
            }
        }
        assert!(wrong.is_empty(), "operations whose security requirement is wrong:\n{}", wrong.join("\n"));
        let security = |name: &str| -> Vec<String> {
            let (method, path) = name.split_once(' ').expect("name");
            let item = document.paths.as_ref().and_then(|p| p.paths.get(path)).expect("path");
            let aide::openapi::ReferenceOr::Item(item) = item else { panic!("item") };
            let op = item.iter().find(|(m, _)| m.eq_ignore_ascii_case(method)).expect("operation").1;
            op.security.iter().flat_map(|r| r.keys().cloned()).collect()
        };
        assert_eq!(security("GET /api/toolkit/assets"), ["bearerKey", "session"]);
        assert_eq!(security("POST /api/keys"), ["session"], "keys are minted from a session");
        assert_eq!(security("POST /api/toolkit/admin/grant-tokens"), ["session"]);
        assert_eq!(security("POST /api/toolkit/invite/accept"), ["session"], "accepting is the person's own");
        assert_eq!(security("GET /api/toolkit/invites/mine"), ["session"]);
        assert_eq!(security("GET /api/toolkit/admin/invite-codes"), ["session"]);
    }
}
