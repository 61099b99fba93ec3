//! The state every handler shares: the core and the HTTP-level settings derived from config.

use studio_core::Studio;

use crate::config::ServerConfig;

/// Shared application state.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The domain.
    pub studio: Studio,
    /// Cookies get `Secure` when the public URL is https.
    pub(crate) secure_cookies: bool,
    /// The origin cookie-authenticated writes must come from, when a public URL is set.
    pub(crate) public_origin: Option<String>,
    /// The agent endpoint's DNS-rebinding defence checks Host: the server listens on loopback.
    pub(crate) check_host: bool,
    /// The public URL's host (lowercase, no port, no brackets), when a public URL is set.
    pub(crate) public_host: Option<String>,
    /// The console is served (`STUDIO_CONSOLE`, on by default).
    pub(crate) console: bool,
}

impl AppState {
    /// State for a Studio under a server configuration.
    pub fn new(studio: Studio, config: &ServerConfig) -> Self {
        let public_origin = config.public_url.as_deref().map(origin_of);
        AppState {
            studio,
            secure_cookies: config.public_url.as_deref().is_some_and(|u| u.starts_with("https://")),
            public_origin,
            check_host: config.listens_on_loopback(),
            public_host: config.public_url.as_deref().and_then(crate::auth::host_of_url),
            console: config.console,
        }
    }
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let host = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{host}")
}
