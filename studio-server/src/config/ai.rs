//! The AI reader's settings (`STUDIO_AI_*`): all three of URL, key and model or none.

use std::time::Duration;

use studio_core::AiConfig;

use super::env::{Env, number};
use super::{ConfigError, ServerConfig};

impl Env<'_> {
    /// `STUDIO_AI_URL`, `STUDIO_AI_KEY`, `STUDIO_AI_MODEL` and `STUDIO_AI_TIMEOUT_SECS`.
    pub(super) fn ai(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        c.ai_url = set("STUDIO_AI_URL").or(c.ai_url);
        c.ai_key = set("STUDIO_AI_KEY").or(c.ai_key);
        c.ai_model = set("STUDIO_AI_MODEL").or(c.ai_model);
        if let Some(v) = set("STUDIO_AI_TIMEOUT_SECS") {
            c.ai_timeout_secs = number("STUDIO_AI_TIMEOUT_SECS", &v)?;
        }
        Ok(c)
    }
}

impl ServerConfig {
    /// All three settings or none; an http(s) URL (which loses its trailing slash) and a model.
    pub(super) fn check_ai(&mut self) -> Result<(), ConfigError> {
        let c = self;
        match (&c.ai_url, &c.ai_key, &c.ai_model) {
            (None, None, None) => {}
            (Some(url), Some(_), Some(model)) => {
                let url = url.trim();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ConfigError::Env(
                        "STUDIO_AI_URL",
                        format!("must start with http:// or https://: {url:?}"),
                    ));
                }
                if model.trim().is_empty() {
                    return Err(ConfigError::Env("STUDIO_AI_MODEL", "must name a model".into()));
                }
                c.ai_url = Some(url.trim_end_matches('/').to_string());
            }
            _ => {
                return Err(ConfigError::Env(
                    "STUDIO_AI_URL, STUDIO_AI_KEY, STUDIO_AI_MODEL (or ai_url, ai_key, ai_model)",
                    "set all three or none".into(),
                ));
            }
        }
        Ok(())
    }

    /// The AI reader's settings, when all three are set.
    pub fn ai_config(&self) -> Option<AiConfig> {
        match (&self.ai_url, &self.ai_key, &self.ai_model) {
            (Some(base_url), Some(key), Some(model)) => Some(AiConfig {
                base_url: base_url.trim().trim_end_matches('/').to_string(),
                key: key.trim().to_string(),
                model: model.trim().to_string(),
                timeout: Duration::from_secs(self.ai_timeout_secs.max(1)),
            }),
            _ => None,
        }
    }
}
