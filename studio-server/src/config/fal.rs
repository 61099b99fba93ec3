//! The fal adapter's settings (`STUDIO_FAL_*`): the key, the queue URL, the tools' models and the
//! depth and segment lanes, and the providers they make.

use std::sync::Arc;
use std::time::Duration;

use studio_core::{FalConfig, FalLanes, FalProvider, LocalProvider, Providers};

use super::env::{Env, number};
use super::{ConfigError, ServerConfig};

impl Env<'_> {
    /// `STUDIO_FAL_KEY`, `_URL`, `_MODELS`, `_TIMEOUT_SECS`, `_DEPTH_MODEL`, `_SEGMENT_MODEL` and
    /// `_CUTOUT_MODEL`.
    pub(super) fn fal(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        c.fal_key = set("STUDIO_FAL_KEY").or(c.fal_key);
        c.fal_url = set("STUDIO_FAL_URL").or(c.fal_url);
        if let Some(v) = set("STUDIO_FAL_MODELS") {
            c.fal_models = FalConfig::parse_models(&v).map_err(|e| ConfigError::Env("STUDIO_FAL_MODELS", e))?;
        }
        if let Some(v) = set("STUDIO_FAL_TIMEOUT_SECS") {
            c.fal_timeout_secs = number("STUDIO_FAL_TIMEOUT_SECS", &v)?;
        }
        c.fal_depth_model = set("STUDIO_FAL_DEPTH_MODEL").or(c.fal_depth_model);
        c.fal_segment_model = set("STUDIO_FAL_SEGMENT_MODEL").or(c.fal_segment_model);
        c.fal_cutout_model = set("STUDIO_FAL_CUTOUT_MODEL").or(c.fal_cutout_model);
        Ok(c)
    }
}

impl ServerConfig {
    /// The fal adapter's settings, when a key is set.
    fn fal_config(&self) -> Option<FalConfig> {
        let key = self.fal_key.as_ref().filter(|k| !k.trim().is_empty())?;
        Some(FalConfig {
            base_url: self.fal_url.clone().unwrap_or_else(|| FalConfig::DEFAULT_BASE_URL.to_string()),
            key: key.clone(),
            models: self.fal_models.clone(),
            poll_interval: FalConfig::DEFAULT_POLL_INTERVAL,
            timeout: Duration::from_secs(self.fal_timeout_secs),
        })
    }

    /// The local provider, then fal for the tools it has models for (when a key is set).
    pub fn providers(&self) -> Providers {
        let mut list: Vec<Arc<dyn studio_core::Provider>> = vec![Arc::new(LocalProvider)];
        if let Some(config) = self.fal_config() {
            list.push(Arc::new(FalProvider::new(config)));
        }
        Providers::new(list)
    }

    /// fal for the depth and segment-by-label lanes (and remove-background, when a cutout model
    /// is named), when a key is set.
    pub fn fal_lanes(&self) -> Option<FalLanes> {
        let pick = |set: &Option<String>, default: &str| {
            set.as_deref().map(str::trim).filter(|m| !m.is_empty()).unwrap_or(default).to_string()
        };
        Some(FalLanes {
            provider: FalProvider::new(self.fal_config()?),
            depth_model: pick(&self.fal_depth_model, FalLanes::DEFAULT_DEPTH_MODEL),
            segment_model: pick(&self.fal_segment_model, FalLanes::DEFAULT_SEGMENT_MODEL),
            cutout_model: self.fal_cutout_model.as_deref().map(str::trim).filter(|m| !m.is_empty()).map(str::to_string),
        })
    }
}
