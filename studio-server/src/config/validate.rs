//! Checks of the server's own settings, run once the file and the environment have both spoken
//! (the sub-settings check theirs in ai.rs, billing.rs and mail.rs).

use super::{ConfigError, ServerConfig};

impl ServerConfig {
    /// A burst of at least one while the rate limit is on.
    pub(super) fn check_rate_limit(&self) -> Result<(), ConfigError> {
        let c = self;
        if c.rate_limit_per_min > 0 && c.rate_limit_burst == 0 {
            return Err(ConfigError::Env(
                "STUDIO_RATE_LIMIT_BURST (or rate_limit_burst)",
                "must be at least 1 while the rate limit is on (STUDIO_RATE_LIMIT_PER_MIN=0 turns it off)".into(),
            ));
        }
        Ok(())
    }

    /// The runner's lease, the blob URL, the sign-up grant and the public URL (which loses its
    /// trailing slash here).
    pub(super) fn check_server(&mut self) -> Result<(), ConfigError> {
        let c = self;
        if c.runner_lease_secs < 3 {
            return Err(ConfigError::Env(
                "STUDIO_RUNNER_LEASE_SECS (or runner_lease_secs)",
                format!("must be at least 3 seconds, not {}", c.runner_lease_secs),
            ));
        }
        c.blob_config()?;
        if c.signup_grant_tokens < 0 {
            return Err(ConfigError::Env("STUDIO_SIGNUP_GRANT_TOKENS", "must not be negative".into()));
        }
        if let Some(url) = &c.public_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(ConfigError::Env(
                    "STUDIO_PUBLIC_URL",
                    format!("must start with http:// or https://: {url:?}"),
                ));
            }
            c.public_url = Some(url.trim_end_matches('/').to_string());
        }
        Ok(())
    }

    /// The segmenter is one of the two names.
    pub(super) fn check_segmenter(&self) -> Result<(), ConfigError> {
        match self.segmenter.as_str() {
            "auto" | "classical" => Ok(()),
            other => Err(ConfigError::Env("STUDIO_SEGMENTER", format!("auto or classical, not {other:?}"))),
        }
    }

    /// The chat's turn limit and price within their ranges.
    pub(super) fn check_chat(&self) -> Result<(), ConfigError> {
        let c = self;
        if !(1..=1_000).contains(&c.chat_turn_limit) {
            return Err(ConfigError::Env("STUDIO_CHAT_TURN_LIMIT", "from 1 to 1000 turns".into()));
        }
        if !(0..=1_000).contains(&c.chat_turn_price) {
            return Err(ConfigError::Env("STUDIO_CHAT_TURN_PRICE", "from 0 to 1000 tokens".into()));
        }
        Ok(())
    }
}
