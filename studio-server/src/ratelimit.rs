//! Per-client-address rate limits on the routes that take no credential and do real work:
//! sign-up (a new house and its token grant), sign-in (a password check), sign-out, the email
//! links (verify-email, password-reset and its confirm: a letter, a token lookup, a password hash),
//! check-email (a question about people), the test-mode checkout pages and the platform gate's
//! redeem, request and link preview (which fetches other sites). One token bucket per
//! client address is shared by all of them (tower_governor's keyed limiter); past it they answer
//! 429 with `Retry-After` and `{"error": "RATE_LIMITED", "message", "retryAfter"}`.
//!
//! Routes with a credential, the static documents, `/health` and the signed payment webhook are
//! not limited here (docs/decisions.md, "Rate limits").

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use studio_core::Error;
use tower_governor::GovernorError;
use tower_governor::governor::{GovernorConfig, GovernorConfigBuilder};
use tower_governor::key_extractor::KeyExtractor;

use crate::config::ServerConfig;
use crate::error::AppError;

/// The routes (as mounted, path templates) that the limit answers 429 on.
pub(crate) const LIMITED_ROUTES: &[&str] = &[
    "/api/auth/sign-up",
    "/api/auth/sign-in",
    "/api/auth/sign-out",
    "/api/auth/verify-email",
    "/api/auth/password-reset",
    "/api/auth/password-reset/confirm",
    "/api/toolkit/ai/billing/test-checkout/{id}",
    "/api/toolkit/ai/billing/test-portal/{id}",
    "/api/toolkit/invite/preview",
    "/api/toolkit/invite/redeem",
    "/api/toolkit/invite/request",
];

/// Routes that count against the same bucket but never answer 4xx (the spec's check-email):
/// past the limit the request goes on marked [`Throttled`], and the route answers without
/// looking anything up.
pub(crate) const QUIET_ROUTES: &[&str] = &["/api/toolkit/check-email"];

/// The mark on a request from an address past its limit on a [`QUIET_ROUTES`] route.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Throttled;

/// How often addresses whose bucket is full again are forgotten.
const SWEEP: Duration = Duration::from_secs(60);

/// The client's address: the TCP peer, or, when the deployment trusts its reverse proxy, the
/// last address of the last `X-Forwarded-For` header (the one that proxy appended; the entries
/// before it are whatever the client sent). Without connection info (a router served without
/// [`crate::serve`]) every request counts against one shared unspecified address.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddress {
    trust_forwarded: bool,
}

impl ClientAddress {
    fn of(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> IpAddr {
        let forwarded = || {
            let value = headers.get_all("x-forwarded-for").iter().next_back()?.to_str().ok()?;
            value.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
        };
        self.trust_forwarded.then(forwarded).flatten().or(peer).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }
}

impl ClientAddress {
    fn of_request<T>(&self, req: &axum::http::Request<T>) -> IpAddr {
        let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        self.of(req.headers(), peer)
    }
}

impl KeyExtractor for ClientAddress {
    type Key = IpAddr;

    fn extract<T>(&self, req: &axum::http::Request<T>) -> Result<IpAddr, GovernorError> {
        Ok(self.of_request(req))
    }
}

/// The limiter of one server: its buckets and how it finds the client.
#[derive(Debug)]
pub(crate) struct RateLimit {
    governor: GovernorConfig<ClientAddress, NoOpMiddleware>,
    client: ClientAddress,
}

impl RateLimit {
    /// The configured limiter; None when limiting is off (`rate_limit_per_min = 0`).
    pub(crate) fn from_config(config: &ServerConfig) -> Option<Arc<RateLimit>> {
        if config.rate_limit_per_min == 0 {
            return None;
        }
        let client = ClientAddress { trust_forwarded: config.trust_forwarded };
        let period = Duration::from_secs(60) / config.rate_limit_per_min;
        let governor = GovernorConfigBuilder::default()
            .period(period)
            .burst_size(config.rate_limit_burst.max(1))
            .key_extractor(client)
            .finish()?;
        let limit = Arc::new(RateLimit { governor, client });
        // Forget addresses whose bucket has refilled, so the table does not grow without bound;
        // the sweep ends with the server.
        let weak = Arc::downgrade(&limit);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(limit) = weak.upgrade() else { return };
                limit.governor.limiter().retain_recent();
            }
        });
        Some(limit)
    }

    /// Count one request from this client: Ok, or the whole seconds to wait.
    fn check(&self, req: &Request) -> Result<(), u64> {
        let address = self.client.of_request(req);
        let limiter = self.governor.limiter();
        limiter.check_key(&address).map_err(|not_until| {
            let wait = not_until.wait_time_from(limiter.clock().now());
            // Round up: a client that waits what it is told is let through.
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        })
    }
}

/// The 429 answer through the one error mapping: `Retry-After` in seconds and the shared
/// envelope with `retryAfter`.
fn too_many_requests(retry_after: u64) -> Response {
    let retry_after = retry_after.max(1);
    let message = format!("Too many requests from this address; try again in {retry_after} s.");
    AppError(Error::rate_limited(message, retry_after)).into_response()
}

/// Document the 429 on every limited operation: the route's own refusal envelope (its default
/// response) with `Retry-After`.
pub(crate) fn document(api: &mut aide::openapi::OpenApi) {
    use aide::openapi::{
        Header, HeaderStyle, ParameterSchemaOrContent, ReferenceOr, SchemaObject, StatusCode as ApiStatus,
    };
    let retry_after = Header {
        description: Some("Whole seconds to wait before trying again.".to_string()),
        style: HeaderStyle::Simple,
        required: true,
        deprecated: None,
        format: ParameterSchemaOrContent::Schema(SchemaObject {
            json_schema: schemars::json_schema!({ "type": "integer", "minimum": 1 }),
            external_docs: None,
            example: None,
        }),
        example: None,
        examples: Default::default(),
        extensions: Default::default(),
    };
    let Some(paths) = api.paths.as_mut() else { return };
    for (path, item) in paths.paths.iter_mut() {
        let ReferenceOr::Item(item) = item else { continue };
        if !LIMITED_ROUTES.contains(&path.as_str()) {
            continue;
        }
        for op in [&mut item.get, &mut item.post].into_iter().flatten() {
            let Some(responses) = op.responses.as_mut() else { continue };
            let Some(ReferenceOr::Item(refusal)) = responses.default.clone() else { continue };
            let mut limited = refusal;
            limited.description = "Too many requests from this address: `RATE_LIMITED` with `retryAfter` \
                                   (seconds), as `Retry-After` says"
                .to_string();
            limited.headers.insert("Retry-After".to_string(), ReferenceOr::Item(retry_after.clone()));
            responses.responses.insert(ApiStatus::Code(429), ReferenceOr::Item(limited));
        }
    }
}

/// The middleware: limited routes count against the client's bucket; others pass untouched.
pub(crate) async fn limit(State(limit): State<Arc<RateLimit>>, mut req: Request, next: Next) -> Response {
    let path = req.extensions().get::<MatchedPath>().map(MatchedPath::as_str);
    let (limited, quiet) = path.map_or((false, false), |p| (LIMITED_ROUTES.contains(&p), QUIET_ROUTES.contains(&p)));
    if limited {
        if let Err(retry_after) = limit.check(&req) {
            return too_many_requests(retry_after);
        }
    } else if quiet && limit.check(&req).is_err() {
        req.extensions_mut().insert(Throttled);
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderValue, StatusCode, header};

    #[test]
    fn the_client_is_the_peer_unless_the_proxy_is_trusted() {
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.7, 198.51.100.1"));
        headers.append("x-forwarded-for", HeaderValue::from_static("10.0.0.1, 192.0.2.44"));
        let peer: IpAddr = "127.0.0.1".parse().unwrap();
        let direct = ClientAddress { trust_forwarded: false };
        assert_eq!(direct.of(&headers, Some(peer)), peer, "X-Forwarded-For is ignored unless trusted");
        let proxied = ClientAddress { trust_forwarded: true };
        assert_eq!(proxied.of(&headers, Some(peer)), "192.0.2.44".parse::<IpAddr>().unwrap(), "the proxy's entry");
        assert_eq!(proxied.of(&HeaderMap::new(), Some(peer)), peer, "no header: the peer");
        let mut junk = HeaderMap::new();
        junk.insert("x-forwarded-for", HeaderValue::from_static("not-an-address"));
        assert_eq!(proxied.of(&junk, Some(peer)), peer, "an unreadable header: the peer");
        assert_eq!(direct.of(&headers, None), IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    }

    #[test]
    fn every_limited_route_is_mounted_and_documents_its_429() {
        let document = serde_json::to_value(crate::routes::document()).expect("document");
        for route in LIMITED_ROUTES {
            let item = document["paths"][route].as_object().unwrap_or_else(|| panic!("{route} is not mounted"));
            for (method, op) in item {
                let limited = &op["responses"]["429"];
                assert!(limited["headers"]["Retry-After"].is_object(), "{method} {route} documents its 429");
            }
        }
        assert!(document["paths"]["/health"]["get"]["responses"]["429"].is_null(), "health is not limited");
        for route in QUIET_ROUTES {
            let item = document["paths"][route].as_object().unwrap_or_else(|| panic!("{route} is not mounted"));
            assert!(item.values().all(|op| op["responses"]["429"].is_null()), "{route} never answers 429");
        }
    }

    #[test]
    fn the_refusal_is_the_shared_envelope_with_retry_after() {
        let response = too_many_requests(0);
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1", "never tells a client to retry at once");
    }
}
