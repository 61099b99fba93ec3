//! Who is calling: the bearer key or the session cookie, turned into a core `Caller`; the
//! platform admin proof; the machine credentials. Each extractor writes the OpenAPI `security`
//! requirement of the credential it takes, so `/openapi.json` says which credential every
//! route needs (schemes: `bearerKey`, `session`, `machineBearer`, `supportBridge`).
//! Cookie-authenticated writes must come from our own origin when the browser says where it is.

use aide::generate::GenContext;
use aide::openapi::{Operation, Response as ApiResponse, SecurityRequirement, StatusCode as ApiStatus};
use aide::{OperationInput, OperationOutput};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, Uri, header};
use axum::response::{IntoResponse, Response};
use studio_core::{Caller, Error, Machine, MachineKind, PlatformAdmin, SessionToken};

use crate::error::AppError;
use crate::state::AppState;

/// The session cookie's name.
pub(crate) const SESSION_COOKIE: &str = "studio_session";

/// The security scheme of an organization key.
pub(crate) const BEARER_KEY: &str = "bearerKey";
/// The security scheme of the browser session cookie.
pub(crate) const SESSION: &str = "session";
/// The security scheme of the analyst, action and renderer tokens.
pub(crate) const MACHINE_BEARER: &str = "machineBearer";
/// The security scheme of the support bridge's header.
pub(crate) const SUPPORT_BRIDGE: &str = "supportBridge";
/// The support bridge's header.
pub(crate) const SUPPORT_BRIDGE_HEADER: &str = "x-support-bridge-secret";

/// Add one alternative credential per scheme to an operation's `security`.
fn require_one_of(operation: &mut Operation, schemes: &[&str]) {
    for scheme in schemes {
        let requirement: SecurityRequirement = [(scheme.to_string(), Vec::new())].into_iter().collect();
        if !operation.security.contains(&requirement) {
            operation.security.push(requirement);
        }
    }
}

/// An authenticated caller (key or session); 401 "No valid session" otherwise.
#[derive(Debug, Clone)]
pub(crate) struct Auth(pub(crate) Caller);

impl OperationInput for Auth {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        require_one_of(operation, &[BEARER_KEY, SESSION]);
    }
}

/// The caller of a route only a signed-in person may use (minting keys, spending money). It
/// authenticates like [`Auth`], so a key reaches the core and gets the core's own refusal
/// (`SESSION_REQUIRED`, `role_cannot_spend_money`); the document names the session only.
#[derive(Debug, Clone)]
pub(crate) struct SessionAuth(pub(crate) Caller);

impl OperationInput for SessionAuth {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        require_one_of(operation, &[SESSION]);
    }
}

impl FromRequestParts<AppState> for SessionAuth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(SessionAuth(caller(parts, state, check_origin).await?))
    }
}

/// A signed-in person and their session cookie, for routes that change which house the
/// session acts for (accepting a seat, switching houses). A key is refused with the core's
/// `SESSION_REQUIRED`; the document names the session only.
#[derive(Debug, Clone)]
pub(crate) struct PersonSession(pub(crate) Caller, pub(crate) SessionToken);

impl OperationInput for PersonSession {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        require_one_of(operation, &[SESSION]);
    }
}

impl FromRequestParts<AppState> for PersonSession {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        match authenticate(parts, state, check_origin).await? {
            (caller, Credential::Session(token)) => Ok(PersonSession(caller, token)),
            (_, Credential::Key(_)) => Err(Error::forbidden(
                "SESSION_REQUIRED",
                "This changes what a browser session acts for; sign in rather than use a key.",
            )
            .into()),
        }
    }
}

/// A platform admin: 401 without a credential, 403 `FORBIDDEN` unless the caller is an
/// allowlisted admin's session. Carries the core's proof, which admin operations ask for.
#[derive(Debug, Clone)]
pub(crate) struct AdminAuth(pub(crate) PlatformAdmin);

impl OperationInput for AdminAuth {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        require_one_of(operation, &[SESSION]);
    }
}

impl FromRequestParts<AppState> for AdminAuth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(AdminAuth(caller(parts, state, check_origin).await?.as_admin()?))
    }
}

/// Which machine credential a route takes (a marker type per kind).
pub(crate) trait MachineRoute: Send + Sync + 'static {
    /// The kind the core verifies.
    const KIND: MachineKind;
}

/// The analyst's bearer token (`STUDIO_ANALYST_TOKEN`): the internal reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Analyst;
impl MachineRoute for Analyst {
    const KIND: MachineKind = MachineKind::Analyst;
}

/// The action token (`STUDIO_ACTION_TOKEN`): the analyst's actions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Action;
impl MachineRoute for Action {
    const KIND: MachineKind = MachineKind::Action;
}

/// The renderer credential (`STUDIO_RENDERER_TOKEN`): the replay render queue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Renderer;
impl MachineRoute for Renderer {
    const KIND: MachineKind = MachineKind::Renderer;
}

/// The support bridge's routes (`x-support-bridge-secret`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SupportBridgeRoute;

impl MachineRoute for SupportBridgeRoute {
    const KIND: MachineKind = MachineKind::SupportBridge;
}

/// A verified machine caller of kind `K`: the support bridge's secret header, or the bearer
/// token of the analyst, action or renderer. 401 for anything else, including another kind's
/// token and a kind with no configured secret.
#[derive(Debug, Clone)]
pub(crate) struct MachineAuth<K>(pub(crate) Machine, pub(crate) std::marker::PhantomData<K>);

impl<K: MachineRoute> OperationInput for MachineAuth<K> {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        let scheme = if K::KIND == MachineKind::SupportBridge { SUPPORT_BRIDGE } else { MACHINE_BEARER };
        require_one_of(operation, &[scheme]);
    }
}

impl<K: MachineRoute> FromRequestParts<AppState> for MachineAuth<K> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let presented = if K::KIND == MachineKind::SupportBridge {
            parts.headers.get(SUPPORT_BRIDGE_HEADER).and_then(|v| v.to_str().ok())
        } else {
            bearer(&parts.headers)
        };
        let machine = state.studio.accounts().authenticate_machine(K::KIND, presented.unwrap_or_default())?;
        Ok(MachineAuth(machine, std::marker::PhantomData))
    }
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Auth(caller(parts, state, check_origin).await?))
    }
}

/// The caller of a request and the credential it came with: its bearer key, else its session
/// cookie after `origin_check` (cookies are what a foreign page can make a browser send; keys
/// are not).
async fn authenticate(
    parts: &Parts,
    state: &AppState,
    origin_check: fn(&Parts, &AppState) -> Result<(), AppError>,
) -> Result<(Caller, Credential), AppError> {
    let credential = match (bearer(&parts.headers), session_cookie(&parts.headers)) {
        (Some(secret), _) => Credential::Key(secret.to_string()),
        (None, Some(token)) => {
            origin_check(parts, state)?;
            Credential::Session(token)
        }
        (None, None) => return Err(Error::unauthenticated("No valid session").into()),
    };
    Ok((credential.authenticate(state).await?, credential))
}

/// The caller of a request (see [`authenticate`]).
async fn caller(
    parts: &Parts,
    state: &AppState,
    origin_check: fn(&Parts, &AppState) -> Result<(), AppError>,
) -> Result<Caller, AppError> {
    Ok(authenticate(parts, state, origin_check).await?.0)
}

/// The credential a request came with, kept by a long-lived socket so it can ask again.
#[derive(Debug, Clone)]
pub(crate) enum Credential {
    /// An organization key's secret.
    Key(String),
    /// A session cookie.
    Session(SessionToken),
}

impl Credential {
    /// Authenticate the credential again: an error once the key is revoked, the session signed
    /// out or expired, or the session's seat removed.
    pub(crate) async fn authenticate(&self, state: &AppState) -> Result<Caller, Error> {
        match self {
            Credential::Key(secret) => state.studio.accounts().authenticate_key(secret).await,
            Credential::Session(token) => state.studio.accounts().authenticate_session(token).await,
        }
    }
}

/// An authenticated caller for a WebSocket upgrade: like [`Auth`], and a cookie-authenticated
/// upgrade must come from our own origin even though it is a GET (cross-site socket hijacking).
/// Carries the credential, which the socket checks again while it is open.
#[derive(Debug, Clone)]
pub(crate) struct SocketAuth(pub(crate) Caller, pub(crate) Credential);

impl OperationInput for SocketAuth {
    fn operation_input(_: &mut GenContext, operation: &mut Operation) {
        require_one_of(operation, &[BEARER_KEY, SESSION]);
    }
}

impl FromRequestParts<AppState> for SocketAuth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let (caller, credential) = authenticate(parts, state, origin_allowed).await?;
        Ok(SocketAuth(caller, credential))
    }
}

/// The session cookie, if the request carries one (for sign-out, which needs no valid session).
#[derive(Debug, Clone)]
pub(crate) struct MaybeSession(pub(crate) Option<SessionToken>);

impl OperationInput for MaybeSession {}

impl FromRequestParts<AppState> for MaybeSession {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let token = session_cookie(&parts.headers);
        if token.is_some() {
            check_origin(parts, state)?;
        }
        Ok(MaybeSession(token))
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, secret) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| secret.trim())
}

fn session_cookie(headers: &HeaderMap) -> Option<SessionToken> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| SessionToken(value.trim().to_string()))
        .filter(|t| !t.0.is_empty())
}

/// A browser's cookie-authenticated write must come from our origin (CSRF defence). Requests
/// without an Origin header (command-line tools, same-origin GETs) pass.
fn check_origin(parts: &Parts, state: &AppState) -> Result<(), AppError> {
    if matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    origin_allowed(parts, state)
}

/// The request's Origin, when present, is our own.
fn origin_allowed(parts: &Parts, state: &AppState) -> Result<(), AppError> {
    if origin_is_ours(&parts.headers, state) {
        Ok(())
    } else {
        Err(Error::forbidden("BAD_ORIGIN", "Cookie-authenticated writes must come from this site's own pages.").into())
    }
}

/// True when the request has no Origin header, or names this server: the public URL's origin
/// when one is configured, else the Host the request was sent to (DNS-rebinding defence).
pub(crate) fn origin_is_ours(headers: &HeaderMap, state: &AppState) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    match &state.public_origin {
        Some(o) => origin.eq_ignore_ascii_case(o),
        None => {
            let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
            let bare = origin.split_once("://").map(|(_, h)| h).unwrap_or(origin);
            !host.is_empty() && bare.eq_ignore_ascii_case(host)
        }
    }
}

/// The agent endpoint's DNS-rebinding defence (MCP transports, security warning): on a server that
/// listens on loopback, the request's Host (the URI's authority over HTTP/2) and the host of its
/// Origin, when present, must each name a loopback host (`localhost`, 127.0.0.0/8, `[::1]`) or
/// the public URL's host, on any port. A page on evil.example whose name was rebound to 127.0.0.1
/// sends `Host: evil.example` (and a matching Origin, which `origin_is_ours` alone would accept)
/// and is refused. A server listening elsewhere is not checked: without a public URL its names
/// are not known.
pub(crate) fn host_is_ours(headers: &HeaderMap, uri: &Uri, state: &AppState) -> bool {
    if !state.check_host {
        return true;
    }
    let public_host = state.public_host.as_deref();
    let host = match headers.get(header::HOST) {
        Some(value) => value.to_str().ok(),
        None => uri.authority().map(|a| a.as_str()),
    };
    let host_ok = host.is_none_or(|h| authority_is_local(h, public_host));
    let origin_ok = match headers.get(header::ORIGIN) {
        None => true,
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|origin| origin.split_once("://"))
            .is_some_and(|(_, authority)| authority_is_local(authority, public_host)),
    };
    host_ok && origin_ok
}

/// `host[:port]` names a loopback host or `public_host`.
fn authority_is_local(authority: &str, public_host: Option<&str>) -> bool {
    let Some(host) = host_of_authority(authority) else {
        return false;
    };
    host == "localhost"
        || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        || public_host.is_some_and(|p| p == host)
}

/// The host of `host[:port]`: lowercase, without brackets or a trailing dot; None when it is no
/// authority (or carries user info).
fn host_of_authority(authority: &str) -> Option<String> {
    let parsed = authority.parse::<axum::http::uri::Authority>().ok()?;
    if parsed.as_str().contains('@') || parsed.as_str() != authority {
        return None;
    }
    let host = parsed.host().trim_start_matches('[').trim_end_matches(']').trim_end_matches('.');
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The host of a URL (`scheme://host[:port]/...`), as `host_of_authority` gives it.
pub(crate) fn host_of_url(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    host_of_authority(rest.split(['/', '?', '#']).next().unwrap_or(rest))
}

/// The bearer secret of a request, if any.
pub(crate) fn bearer_secret(headers: &HeaderMap) -> Option<&str> {
    bearer(headers)
}

/// `Set-Cookie` for a new session (HttpOnly, SameSite=Lax, Secure behind https).
pub(crate) fn session_set_cookie(token: &SessionToken, max_age_days: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    let value = format!(
        "{SESSION_COOKIE}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        token.0,
        max_age_days * 86_400
    );
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("studio_session=; Path=/; Max-Age=0"))
}

/// `Set-Cookie` that clears the session cookie.
pub(crate) fn session_clear_cookie(secure: bool) -> HeaderValue {
    if secure {
        HeaderValue::from_static("studio_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure")
    } else {
        HeaderValue::from_static("studio_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0")
    }
}

/// A response that also sets (or clears) the session cookie.
#[derive(Debug)]
pub(crate) struct SetCookie<T>(pub(crate) HeaderValue, pub(crate) T);

impl<T: IntoResponse> IntoResponse for SetCookie<T> {
    fn into_response(self) -> Response {
        let mut response = self.1.into_response();
        response.headers_mut().append(header::SET_COOKIE, self.0);
        response
    }
}

impl<T: OperationOutput> OperationOutput for SetCookie<T> {
    type Inner = T::Inner;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        T::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        T::inferred_responses(ctx, operation)
    }
}

#[cfg(test)]
mod tests {
    use super::{authority_is_local, host_of_url};

    #[test]
    fn loopback_names_and_the_public_host_are_local() {
        for authority in [
            "localhost",
            "localhost:8787",
            "LocalHost:1",
            "localhost.:80",
            "127.0.0.1",
            "127.0.0.1:9",
            "127.8.0.1:80",
            "[::1]",
            "[::1]:8787",
        ] {
            assert!(authority_is_local(authority, None), "{authority}");
        }
        for authority in [
            "evil.example.com",
            "evil.example.com:8787",
            "localhost.evil.example",
            "10.0.0.5:8787",
            "[2001:db8::1]:80",
            "",
            "user@localhost",
            "localhost/x",
            "null",
        ] {
            assert!(!authority_is_local(authority, None), "{authority}");
        }
        let public = Some("studio.example");
        assert!(authority_is_local("studio.example", public) && authority_is_local("Studio.Example:443", public));
        assert!(!authority_is_local("evil.example", public) && authority_is_local("localhost:8787", public));
    }

    #[test]
    fn the_public_urls_host() {
        assert_eq!(host_of_url("https://Studio.Example").as_deref(), Some("studio.example"));
        assert_eq!(host_of_url("http://studio.example:8443/base/").as_deref(), Some("studio.example"));
        assert_eq!(host_of_url("http://[::1]:8787").as_deref(), Some("::1"));
        assert_eq!(host_of_url("http://"), None);
    }
}
