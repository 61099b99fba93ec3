//! How link previews (`POST /api/toolkit/invite/preview`) reach the network: the resolver seam
//! and the address policy. Production uses the system resolver and the strict policy; only a
//! test builds anything else (docs/invitations.md, "Link preview safety").

use std::net::IpAddr;
use std::sync::Arc;

/// Turns a host name into addresses. The previewer asks it once per hop, checks every answer,
/// and connects only to a checked address. A test injects its own to map a public-looking name
/// wherever it likes.
#[async_trait::async_trait]
pub trait HostResolver: Send + Sync + std::fmt::Debug {
    /// The addresses of `host` (a DNS name, never an IP literal).
    async fn resolve(&self, host: &str) -> std::io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

#[async_trait::async_trait]
impl HostResolver for SystemResolver {
    async fn resolve(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0)).await?.map(|a| a.ip()).collect())
    }
}

/// The previewer's resolver and address policy. The default (system resolver; public
/// addresses on ports 80 and 443 only) is the only one production builds: the server reads no
/// file key or environment variable into it.
#[derive(Debug, Clone)]
pub struct PreviewPolicy {
    resolver: Arc<dyn HostResolver>,
    loopback_ports: Vec<u16>,
}

impl Default for PreviewPolicy {
    fn default() -> Self {
        PreviewPolicy { resolver: Arc::new(SystemResolver), loopback_ports: Vec::new() }
    }
}

impl PartialEq for PreviewPolicy {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.resolver, &other.resolver) && self.loopback_ports == other.loopback_ports
    }
}

impl PreviewPolicy {
    /// The strict policy over another resolver (a test's, to prove a name that resolves to a
    /// refused address is refused).
    pub fn with_resolver(resolver: Arc<dyn HostResolver>) -> Self {
        PreviewPolicy { resolver, loopback_ports: Vec::new() }
    }

    /// **Tests only.** Also allow loopback addresses (127.0.0.0/8, `::1`) on exactly these
    /// ports, so a test can preview a page it serves on 127.0.0.1. Every other address check
    /// still applies, and other ports on loopback stay refused.
    pub fn allowing_loopback_ports_for_tests(mut self, ports: &[u16]) -> Self {
        self.loopback_ports = ports.to_vec();
        self
    }

    /// The resolver.
    pub fn resolver(&self) -> &Arc<dyn HostResolver> {
        &self.resolver
    }

    /// True when a test allowed loopback on `port`.
    pub fn allows_loopback_port(&self, port: u16) -> bool {
        self.loopback_ports.contains(&port)
    }
}
