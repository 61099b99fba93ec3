//! One delivery attempt: the target checked again (DNS can change since the endpoint was
//! saved), the connection pinned to the checked address, the body POSTed signed, and what came
//! back read within small limits (docs/webhooks.md, "Delivery"):
//!
//! - connect within 5 s, the whole attempt within 10 s;
//! - redirects are **not** followed: a 3xx is a failure recorded as `redirect to <Location>`;
//! - 2xx is success; 410 Gone tells the caller to disable the endpoint; anything else fails;
//! - at most 1 KB of the answer is read and kept.

use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, LOCATION};

use crate::api::MAX_LOGGED_RESPONSE;
use crate::config::PreviewPolicy;
use crate::webhooks::{signing, target};

/// How long connecting may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one attempt may take, answer included.
pub(crate) const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Outcome {
    /// A 2xx answer.
    pub(crate) ok: bool,
    /// The receiver's status, when it answered.
    pub(crate) status: Option<u16>,
    /// How long it took.
    pub(crate) latency_ms: i64,
    /// The first 1 KB of the answer.
    pub(crate) response: Option<String>,
    /// What went wrong, in words.
    pub(crate) error: Option<String>,
    /// The receiver answered 410 Gone: the endpoint is to be disabled.
    pub(crate) gone: bool,
}

/// What one attempt sends.
pub(crate) struct Request<'a> {
    /// The endpoint's URL.
    pub(crate) url: &'a str,
    /// The secrets that sign it (newest first).
    pub(crate) secrets: &'a [String],
    /// The delivery's id (`webhook-id`), the same on every attempt.
    pub(crate) id: &'a str,
    /// Seconds since the epoch (`webhook-timestamp`).
    pub(crate) timestamp: i64,
    /// The event as JSON text.
    pub(crate) body: &'a str,
}

/// Make one attempt.
pub(crate) async fn attempt(policy: &PreviewPolicy, allow_http_loopback: bool, req: Request<'_>) -> Outcome {
    let started = Instant::now();
    let mut outcome = send(policy, allow_http_loopback, req).await;
    outcome.latency_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    outcome
}

fn failed(error: String) -> Outcome {
    Outcome { error: Some(error), ..Outcome::default() }
}

async fn send(policy: &PreviewPolicy, allow_http_loopback: bool, req: Request<'_>) -> Outcome {
    let url = match target::parse(req.url, allow_http_loopback) {
        Ok(url) => url,
        Err(refusal) => return failed(format!("refused: {}", refusal.words())),
    };
    let address = match target::check(policy, &url, allow_http_loopback).await {
        Ok(address) => address,
        Err(refusal) => return failed(format!("refused: {}", refusal.words())),
    };
    let headers = match signing::headers(req.secrets, req.id, req.timestamp, req.body.as_bytes()) {
        Ok(headers) => headers,
        Err(e) => return failed(format!("could not sign: {e}")),
    };
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(ATTEMPT_TIMEOUT)
        .user_agent(concat!("studio-webhooks/", env!("CARGO_PKG_VERSION")));
    if let Some(host) = url.host_str().filter(|h| h.parse::<std::net::IpAddr>().is_err() && !h.starts_with('[')) {
        // The connection goes to the address just checked and nowhere else.
        builder = builder.resolve(host, address);
    }
    let client = match builder.build() {
        Ok(client) => client,
        Err(e) => return failed(format!("could not build the HTTP client: {e}")),
    };
    let mut request = client.post(url.clone()).header(CONTENT_TYPE, "application/json").body(req.body.to_string());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = match request.send().await {
        Ok(response) => response,
        Err(e) if e.is_timeout() => return failed(format!("timed out after {} s", ATTEMPT_TIMEOUT.as_secs())),
        Err(e) if e.is_connect() => return failed(format!("could not connect to {address}")),
        Err(e) => return failed(format!("the request failed: {e}")),
    };
    let status = response.status();
    let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    let mut body = Vec::new();
    // A read error ends the answer where it is: what arrived is what the log keeps.
    while let Ok(Some(chunk)) = response.chunk().await {
        let room = MAX_LOGGED_RESPONSE - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_LOGGED_RESPONSE {
            break;
        }
    }
    let mut outcome = Outcome {
        status: Some(status.as_u16()),
        response: (!body.is_empty()).then(|| String::from_utf8_lossy(&body).into_owned()),
        ..Outcome::default()
    };
    if status.is_success() {
        outcome.ok = true;
    } else if status.is_redirection() {
        outcome.error = Some(match location {
            Some(to) => format!("redirect to {to} (not followed)"),
            None => format!("redirect ({status}) without a Location (not followed)"),
        });
    } else if status == reqwest::StatusCode::GONE {
        outcome.gone = true;
        outcome.error = Some("410 Gone: the endpoint was disabled".into());
    } else {
        outcome.error = Some(format!("answered {status}"));
    }
    outcome
}
