//! Where an endpoint may point (docs/webhooks.md, "Safety"), checked when it is created or
//! changed and again before every delivery, since DNS can change: the link preview's guard
//! (`invitations/preview.rs`: its resolver seam and its [`is_public`] address test) applied to a
//! webhook URL.
//!
//! - `https` only; `http` only to a loopback address, and only when the operator set
//!   `STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK=1` (which also lets https reach loopback);
//! - no credentials in the URL, at most 2048 bytes, no numeric host name in another spelling;
//! - the host resolved once; **every** answer must be public (no private, loopback, link-local
//!   or metadata address, nor any other special range), and the delivery connects only to the
//!   address checked (the client's DNS is overridden for that name).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::Url;

use crate::api::MAX_WEBHOOK_URL;
use crate::config::PreviewPolicy;
use crate::error::Error;
use crate::invitations::preview::is_public;

/// Why a URL is refused, in words (kept in the delivery log; the create answers 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not a usable URL (scheme, credentials, length, host).
    Url(String),
    /// The host is, or resolves to, an address deliveries may not reach.
    Address(String),
}

impl Refusal {
    /// The words for the log.
    pub(crate) fn words(&self) -> &str {
        match self {
            Refusal::Url(w) | Refusal::Address(w) => w,
        }
    }

    /// 400 `BAD_WEBHOOK_URL` or `WEBHOOK_TARGET_REFUSED`.
    pub(crate) fn into_error(self) -> Error {
        match self {
            Refusal::Url(why) => Error::invalid("BAD_WEBHOOK_URL", format!("This webhook URL cannot be used: {why}.")),
            Refusal::Address(why) => Error::invalid(
                "WEBHOOK_TARGET_REFUSED",
                format!("Webhooks are delivered to public addresses only: {why}."),
            ),
        }
    }
}

/// A URL checked for form only (before anything is resolved): the parsed URL.
pub(crate) fn parse(url: &str, allow_http_loopback: bool) -> Result<Url, Refusal> {
    let url = url.trim();
    if url.is_empty() {
        return Err(Refusal::Url("a URL is required".into()));
    }
    if url.len() > MAX_WEBHOOK_URL {
        return Err(Refusal::Url(format!("it is longer than {MAX_WEBHOOK_URL} bytes")));
    }
    let parsed = Url::parse(url).map_err(|e| Refusal::Url(format!("it is not a URL ({e})")))?;
    match parsed.scheme() {
        "https" => {}
        "http" if allow_http_loopback => {}
        "http" => return Err(Refusal::Url("it must be https".into())),
        other => return Err(Refusal::Url(format!("the scheme {other} is not https"))),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Refusal::Url("it carries credentials".into()));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(Refusal::Url("it has no host".into()));
    }
    Ok(parsed)
}

/// How long resolving a target's name may take, at creation, at a submit and before each attempt.
pub(crate) const RESOLVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The one address a delivery to `url` may connect to: every address the host resolves to is
/// public, or loopback when `allow_http_loopback` (an http URL must be loopback then).
pub(crate) async fn check(policy: &PreviewPolicy, url: &Url, allow_http_loopback: bool) -> Result<SocketAddr, Refusal> {
    let port = url.port_or_known_default().ok_or_else(|| Refusal::Url("it has no port".into()))?;
    let host = url.host_str().unwrap_or_default();
    let addresses = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        vec![IpAddr::V6(v6.parse::<Ipv6Addr>().map_err(|_| Refusal::Url("a malformed IPv6 host".into()))?)]
    } else if let Ok(v4) = host.parse::<Ipv4Addr>() {
        vec![IpAddr::V4(v4)]
    } else {
        let name = host.trim_end_matches('.');
        if name.parse::<IpAddr>().is_ok() || name.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'x') {
            return Err(Refusal::Url("a numeric host name".into()));
        }
        tokio::time::timeout(RESOLVE_TIMEOUT, policy.resolver().resolve(name))
            .await
            .map_err(|_| Refusal::Address(format!("{name} did not resolve within {} s", RESOLVE_TIMEOUT.as_secs())))?
            .map_err(|e| Refusal::Address(format!("{name} does not resolve ({e})")))?
    };
    let first = *addresses.first().ok_or_else(|| Refusal::Address(format!("{host} has no address")))?;
    for ip in &addresses {
        let loopback = ip.to_canonical().is_loopback();
        let allowed = if url.scheme() == "http" { loopback } else { is_public(*ip) || loopback };
        if !allowed || (loopback && !allow_http_loopback) {
            return Err(Refusal::Address(format!("{host} is {ip}, which is not a public address")));
        }
    }
    Ok(SocketAddr::new(first, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct To(Vec<IpAddr>);

    #[async_trait::async_trait]
    impl crate::config::HostResolver for To {
        async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            Ok(self.0.clone())
        }
    }

    fn policy(answers: &[&str]) -> PreviewPolicy {
        PreviewPolicy::with_resolver(std::sync::Arc::new(To(answers.iter().map(|a| a.parse().unwrap()).collect())))
    }

    async fn verdict(url: &str, answers: &[&str], loopback: bool) -> Result<SocketAddr, Refusal> {
        let url = parse(url, loopback)?;
        check(&policy(answers), &url, loopback).await
    }

    #[tokio::test]
    async fn only_https_to_public_addresses_passes_by_default() {
        let ok = verdict("https://hooks.example/in", &["93.184.216.34"], false).await.unwrap();
        assert_eq!(ok, "93.184.216.34:443".parse().unwrap());
        let ok = verdict("https://hooks.example:8443/in", &["93.184.216.34"], false).await.unwrap();
        assert_eq!(ok.port(), 8443);
        for (url, answers) in [
            ("http://hooks.example/in", &["93.184.216.34"][..]),
            ("ftp://hooks.example/in", &["93.184.216.34"]),
            ("https://user:pw@hooks.example/in", &["93.184.216.34"]),
            ("https://10.0.0.5/in", &[]),
            ("https://127.0.0.1/in", &[]),
            ("https://169.254.169.254/latest/meta-data", &[]),
            ("https://[::1]/in", &[]),
            ("https://[fe80::1]/in", &[]),
            ("https://2130706433/in", &[]),
            ("https://hooks.example/in", &["192.168.1.9"]),
            ("https://hooks.example/in", &["93.184.216.34", "10.1.2.3"]),
            ("https://hooks.example/in", &[]),
            ("not a url", &[]),
        ] {
            assert!(verdict(url, answers, false).await.is_err(), "{url} {answers:?}");
        }
    }

    #[tokio::test]
    async fn the_operator_may_allow_loopback_http_and_nothing_else() {
        assert!(verdict("http://127.0.0.1:4567/hook", &[], true).await.is_ok());
        assert!(verdict("http://localhost:4567/hook", &["127.0.0.1"], true).await.is_ok());
        assert!(verdict("http://[::1]:4567/hook", &[], true).await.is_ok());
        // http still only to loopback; private ranges stay refused either way.
        assert!(verdict("http://hooks.example/in", &["93.184.216.34"], true).await.is_err());
        assert!(verdict("http://10.0.0.5/in", &[], true).await.is_err());
        assert!(verdict("https://10.0.0.5/in", &[], true).await.is_err());
        assert!(verdict("https://169.254.169.254/", &[], true).await.is_err());
    }
}
