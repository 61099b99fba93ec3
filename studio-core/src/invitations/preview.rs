//! Link cards for a request to be let in (`POST /api/toolkit/invite/preview`), fetched so that a
//! stranger cannot point the server at anything but the public web:
//!
//! - only `http` and `https`, on ports 80 and 443, with no credentials in the URL;
//! - the host is resolved once per hop through the [`HostResolver`](crate::HostResolver) seam,
//!   and **every** answer must be a public address ([`is_public`]: no loopback, private,
//!   link-local (so no 169.254.169.254), CGNAT, multicast, unspecified, documentation,
//!   benchmarking, reserved or broadcast address, IPv4 or IPv6, and no IPv6 form that embeds or
//!   tunnels IPv4: `::ffff:0:0/96`, `64:ff9b::/96`, 6to4, Teredo);
//! - the connection goes only to the checked address (the client's DNS is overridden for that
//!   one name, proxies are off), so a second, different DNS answer cannot be used;
//! - redirects are followed by hand, at most 3, each hop checked like the first;
//! - at most 1 MB of the body is read, and the whole link (every hop) has 5 seconds.
//!
//! A link that fails any of this is a card with `ok: false`; the request as a whole never fails
//! for one link. The only way past the address check is a test's
//! [`PreviewPolicy::allowing_loopback_ports_for_tests`](crate::PreviewPolicy), which production
//! never builds.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION};

use crate::api::PreviewCard;
use crate::config::PreviewPolicy;
use crate::invitations::html;

/// The most links one request may preview.
pub(crate) const MAX_LINKS: usize = 6;
/// The longest a link may be, in bytes.
pub(crate) const MAX_LINK_BYTES: usize = 2048;
/// Redirects followed per link.
pub(crate) const MAX_REDIRECTS: usize = 3;
/// The most of a page read, in bytes.
pub(crate) const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Time for one link, every hop included.
pub(crate) const LINK_BUDGET: Duration = Duration::from_secs(5);

/// Why a link gave no card (kept for the log; the card only says `ok: false`).
#[derive(Debug)]
enum Refused {
    Url(&'static str),
    Address(IpAddr),
    Resolve(String),
    Fetch(String),
    Status(u16),
    NotHtml,
    Redirects,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Url(why) => write!(f, "refused URL: {why}"),
            Refused::Address(ip) => write!(f, "refused address {ip}"),
            Refused::Resolve(e) => write!(f, "could not resolve: {e}"),
            Refused::Fetch(e) => write!(f, "could not fetch: {e}"),
            Refused::Status(s) => write!(f, "answered {s}"),
            Refused::NotHtml => f.write_str("not an HTML page"),
            Refused::Redirects => write!(f, "more than {MAX_REDIRECTS} redirects"),
        }
    }
}

/// The cards of `links`, in order, fetched concurrently.
pub(crate) async fn cards(policy: &PreviewPolicy, links: Vec<String>) -> Vec<PreviewCard> {
    let fetches = links.into_iter().map(|link| card(policy, link));
    futures_util::future::join_all(fetches).await
}

/// One link's card.
async fn card(policy: &PreviewPolicy, link: String) -> PreviewCard {
    let mut card = PreviewCard { link: link.clone(), ..PreviewCard::default() };
    let Ok(url) = Url::parse(link.trim()) else { return card };
    card.host = url.host_str().map(str::to_ascii_lowercase);
    let read = match tokio::time::timeout(LINK_BUDGET, read_page(policy, url)).await {
        Ok(read) => read,
        Err(_) => Err(Refused::Fetch("the 5 s budget ran out".into())),
    };
    let (page_url, body) = match read {
        Ok(page) => page,
        Err(why) => {
            tracing::debug!(link = %link, reason = %why, "link preview refused or unreadable");
            return card;
        }
    };
    let facts = html::facts(&body);
    let base = facts.base.as_deref().and_then(|b| page_url.join(b).ok()).unwrap_or(page_url);
    let absolute = |href: Option<String>| {
        href.and_then(|h| base.join(&h).ok()).filter(|u| matches!(u.scheme(), "http" | "https")).map(String::from)
    };
    card.ok = true;
    card.title = facts.title;
    card.description = facts.description;
    card.image_url = absolute(facts.image);
    card.icon_url = absolute(facts.icon);
    card
}

/// Fetch a page, following at most [`MAX_REDIRECTS`] redirects and checking every hop: the
/// final URL and at most [`MAX_BODY_BYTES`] of its body.
async fn read_page(policy: &PreviewPolicy, mut url: Url) -> Result<(Url, String), Refused> {
    for _hop in 0..=MAX_REDIRECTS {
        let address = checked_address(policy, &url).await?;
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(LINK_BUDGET)
            .timeout(LINK_BUDGET)
            .user_agent(concat!("studio-link-preview/", env!("CARGO_PKG_VERSION")));
        if let Host::Name(name) = host(&url) {
            // The client connects to the address checked above and nowhere else.
            builder = builder.resolve(name, address);
        }
        let client = builder.build().map_err(|e| Refused::Fetch(e.to_string()))?;
        let mut response = client
            .get(url.clone())
            .header(ACCEPT, "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1")
            .send()
            .await
            .map_err(|e| Refused::Fetch(e.to_string()))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok());
            let next = location.and_then(|l| url.join(l).ok()).ok_or(Refused::Status(status.as_u16()))?;
            url = next;
            continue;
        }
        if !status.is_success() {
            return Err(Refused::Status(status.as_u16()));
        }
        let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("text/html");
        let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        if essence != "text/html" && essence != "application/xhtml+xml" {
            return Err(Refused::NotHtml);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| Refused::Fetch(e.to_string()))? {
            let room = MAX_BODY_BYTES - body.len();
            body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if body.len() >= MAX_BODY_BYTES {
                break;
            }
        }
        return Ok((url, String::from_utf8_lossy(&body).into_owned()));
    }
    Err(Refused::Redirects)
}

/// A URL's host: an address (the URL parser already read every IPv4 spelling, such as
/// `2130706433`, as one), a name, or none.
enum Host<'a> {
    Ip(IpAddr),
    Name(&'a str),
    None,
}

fn host(url: &Url) -> Host<'_> {
    let Some(host) = url.host_str() else { return Host::None };
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().map_or(Host::None, |ip| Host::Ip(IpAddr::V6(ip)));
    }
    match host.parse::<Ipv4Addr>() {
        Ok(ip) => Host::Ip(IpAddr::V4(ip)),
        Err(_) => Host::Name(host),
    }
}

/// The one address a hop may connect to: the URL's scheme, port and credentials checked, its
/// host resolved once, every answer public (or, in a test, loopback on an allowed port).
async fn checked_address(policy: &PreviewPolicy, url: &Url) -> Result<SocketAddr, Refused> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refused::Url("only http and https"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refused::Url("credentials in the URL"));
    }
    let port = url.port_or_known_default().ok_or(Refused::Url("no port"))?;
    let addresses = match host(url) {
        Host::Ip(ip) => vec![ip],
        Host::Name(name) => {
            let name = name.trim_end_matches('.');
            // A name that is an address in another spelling (`0x7f.1`, `2130706433`) is refused
            // rather than handed to a resolver that might read it as one.
            if name.parse::<IpAddr>().is_ok() || name.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'x') {
                return Err(Refused::Url("a numeric host name"));
            }
            policy.resolver().resolve(name).await.map_err(|e| Refused::Resolve(e.to_string()))?
        }
        Host::None => return Err(Refused::Url("no host")),
    };
    let first = *addresses.first().ok_or_else(|| Refused::Resolve("no address".into()))?;
    for ip in &addresses {
        let test_loopback = ip.to_canonical().is_loopback() && policy.allows_loopback_port(port);
        if !test_loopback && (!is_public(*ip) || !matches!(port, 80 | 443)) {
            return Err(Refused::Address(*ip));
        }
    }
    Ok(SocketAddr::new(first, port))
}

/// True for an address on the public internet; false for every special-purpose range of IPv4
/// and IPv6 (RFC 6890 and its updates) and for IPv6 forms that carry an IPv4 address.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0                                   // "this network", 0.0.0.0
        || a == 10                                         // private
        || a == 127                                        // loopback
        || (a == 100 && (64..128).contains(&b))            // CGNAT 100.64.0.0/10
        || (a == 169 && b == 254)                          // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))             // private
        || (a == 192 && b == 0 && c == 0)                  // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)                  // TEST-NET-1
        || (a == 192 && b == 88 && c == 99)                // 6to4 relay anycast
        || (a == 192 && b == 168)                          // private
        || (a == 198 && (b == 18 || b == 19))              // benchmarking
        || (a == 198 && b == 51 && c == 100)               // TEST-NET-2
        || (a == 203 && b == 0 && c == 113)                // TEST-NET-3
        || a >= 224; // multicast 224/4, reserved 240/4, broadcast
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // Only global unicast (2000::/3) can be public: this leaves out ::, ::1, the IPv4-mapped
    // ::ffff:0:0/96 and IPv4-compatible ::/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, discard
    // 100::/64, unique local fc00::/7, link-local fe80::/10, site-local and multicast ff00::/8.
    if s[0] & 0xe000 != 0x2000 {
        return false;
    }
    let special = match s[0] {
        // 2001::/23 IETF assignments (Teredo 2001::/32 among them) and 2001:db8::/32 documentation.
        0x2001 => s[1] < 0x0200 || s[1] == 0x0db8,
        // 6to4: an IPv4 address inside.
        0x2002 => true,
        // 3fff::/20 documentation.
        first => first & 0xfff0 == 0x3ff0,
    };
    !special
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address")
    }

    #[test]
    fn only_public_addresses_pass() {
        for refused in [
            "0.0.0.0",
            "127.0.0.1",
            "127.255.0.9",
            "10.0.0.1",
            "100.64.0.1",
            "100.127.255.254",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:8.8.8.8",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b:1::1",
            "100::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
            "2001:2::1",
            "2001:10::1",
            "2002:7f00:1::1",
            "3fff::1",
        ] {
            assert!(!is_public(ip(refused)), "{refused} must be refused");
        }
        for public in [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.0.1",
            "100.128.0.1",
            "172.32.0.1",
            "93.184.216.34",
            "2606:4700::1111",
            "2a00:1450::1",
        ] {
            assert!(is_public(ip(public)), "{public} is public");
        }
    }

    #[derive(Debug)]
    struct To(Vec<IpAddr>);

    #[async_trait::async_trait]
    impl crate::config::HostResolver for To {
        async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            Ok(self.0.clone())
        }
    }

    fn policy(answers: &[&str]) -> PreviewPolicy {
        PreviewPolicy::with_resolver(std::sync::Arc::new(To(answers.iter().map(|a| ip(a)).collect())))
    }

    #[tokio::test]
    async fn every_hop_is_checked_before_any_connection() {
        let public = policy(&["93.184.216.34"]);
        let check = |p: &PreviewPolicy, u: &str| {
            let (p, u) = (p.clone(), Url::parse(u).expect("url"));
            async move { checked_address(&p, &u).await.map_err(|e| e.to_string()) }
        };
        assert_eq!(check(&public, "https://maison.example/").await.unwrap(), "93.184.216.34:443".parse().unwrap());
        assert_eq!(check(&public, "http://maison.example:80/").await.unwrap().port(), 80);
        for refused in [
            "https://maison.example:8443/",
            "ftp://maison.example/",
            "https://user:pw@maison.example/",
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:127.0.0.1]/",
            "http://2130706433/",
            "http://0x7f.1/",
        ] {
            assert!(check(&public, refused).await.is_err(), "{refused}");
        }
        let mixed = policy(&["93.184.216.34", "10.1.2.3"]);
        assert!(check(&mixed, "https://maison.example/").await.is_err(), "one private answer refuses the name");
        let rebinding = policy(&["127.0.0.1"]);
        assert!(check(&rebinding, "http://maison.example/").await.is_err(), "a public name on loopback");
        let test = policy(&["127.0.0.1"]).allowing_loopback_ports_for_tests(&[4567]);
        assert!(check(&test, "http://maison.example:4567/").await.is_ok(), "the test's own port");
        assert!(check(&test, "http://maison.example/").await.is_err(), "other loopback ports stay refused");
        assert!(check(&test, "http://10.0.0.1:4567/").await.is_err(), "only loopback is allowed");
    }
}
