//! The router. Every route is mounted through aide's `ApiRouter`, which writes `/openapi.json`
//! from the mounted routes themselves, so the document cannot drift from the server.
//! Modules follow the URL: `toolkit/ai/billing.rs` serves `/api/toolkit/ai/billing/...`.

mod auth;
mod health;
mod keys;
mod mcp;
mod toolkit;

use std::sync::Arc;

use aide::axum::ApiRouter;
use axum::http::HeaderName;
use axum::{Extension, Router};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::docs;
use crate::error::not_found;
use crate::ratelimit::{self, RateLimit};
use crate::state::AppState;

/// Every API route, documented.
fn api_routes() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(health::router())
        .merge(auth::router())
        .merge(keys::router())
        .merge(mcp::router())
        .merge(toolkit::router())
        .merge(docs::router())
}

/// The whole application: API routes, `/openapi.json`, `/docs`, request ids, tracing and, when
/// configured, the per-address rate limit.
pub(crate) fn app(state: AppState, limit: Option<Arc<RateLimit>>) -> Router {
    let mut api = docs::base_document();
    let mut router = api_routes().finish_api_with(&mut api, docs::finish);
    ratelimit::document(&mut api);
    if let Some(limit) = limit {
        router = router.layer(axum::middleware::from_fn_with_state(limit, ratelimit::limit));
    }
    let document = Arc::new(docs::Document::new(api));
    let request_id = HeaderName::from_static("x-request-id");
    router
        .fallback(not_found)
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
    ratelimit::document(&mut api);
    api
}
