//! The environment layer: `STUDIO_*` variables over the file's values, for the server's own
//! settings (address, storage, runner, rate limit, switches, machine secrets). The sub-settings
//! read theirs in ai.rs, billing.rs, fal.rs and mail.rs.

use std::path::PathBuf;

use super::{ConfigError, ServerConfig};

/// The environment `load` was given; a variable set to blanks counts as unset.
pub(super) struct Env<'a>(pub(super) &'a dyn Fn(&str) -> Option<String>);

impl Env<'_> {
    /// The variable `name`, when set to something other than blanks.
    pub(super) fn set(&self, name: &str) -> Option<String> {
        (self.0)(name).filter(|v| !v.trim().is_empty())
    }

    /// Address, data directory, database, public URL, administrators, the sign-up grant and blobs.
    pub(super) fn server(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        if let Some(v) = set("STUDIO_LISTEN") {
            c.listen = v;
        }
        if let Some(v) = set("STUDIO_DATA_DIR") {
            c.data_dir = PathBuf::from(v);
        }
        if let Some(v) = set("STUDIO_DATABASE_URL") {
            c.database_url = Some(v);
        }
        if let Some(v) = set("STUDIO_PUBLIC_URL") {
            c.public_url = Some(v);
        }
        if let Some(v) = set("STUDIO_ADMIN_EMAILS") {
            c.admin_emails = emails(v.split(',').map(str::to_string));
        }
        if let Some(v) = set("STUDIO_SIGNUP_GRANT_TOKENS") {
            c.signup_grant_tokens = v
                .trim()
                .parse()
                .map_err(|_| ConfigError::Env("STUDIO_SIGNUP_GRANT_TOKENS", format!("not a whole number: {v:?}")))?;
        }
        c.blob_url = set("STUDIO_BLOB_URL").or(c.blob_url);
        c.s3_endpoint = set("STUDIO_S3_ENDPOINT").or(c.s3_endpoint);
        c.s3_region = set("STUDIO_S3_REGION").or(c.s3_region);
        c.s3_access_key_id = set("STUDIO_S3_ACCESS_KEY_ID").or(c.s3_access_key_id);
        c.s3_secret_access_key = set("STUDIO_S3_SECRET_ACCESS_KEY").or(c.s3_secret_access_key);
        Ok(c)
    }

    /// The job runner, the chat's turn limit and price, the claim window of the catalog and the
    /// cutout tools' segmenter.
    pub(super) fn runner(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        if let Some(v) = set("STUDIO_RUNNER_CONCURRENCY") {
            c.runner_concurrency = number("STUDIO_RUNNER_CONCURRENCY", &v)?;
        }
        if let Some(v) = set("STUDIO_CHAT_TURN_LIMIT") {
            c.chat_turn_limit = number("STUDIO_CHAT_TURN_LIMIT", &v)?;
        }
        if let Some(v) = set("STUDIO_CHAT_TURN_PRICE") {
            c.chat_turn_price = number("STUDIO_CHAT_TURN_PRICE", &v)?;
        }
        if let Some(v) = set("STUDIO_CLAIM_SECS") {
            let secs: i64 = number("STUDIO_CLAIM_SECS", &v)?;
            if !(60..=86_400).contains(&secs) {
                return Err(ConfigError::Env("STUDIO_CLAIM_SECS", "from 60 to 86400 seconds".into()));
            }
            c.billing_catalog.claim_secs = secs;
        }
        if let Some(v) = set("STUDIO_RUNNER_LEASE_SECS") {
            c.runner_lease_secs = number("STUDIO_RUNNER_LEASE_SECS", &v)?;
        }
        c.segmenter = set("STUDIO_SEGMENTER").unwrap_or(c.segmenter);
        Ok(c)
    }

    /// The rate limit of the routes that take no credential.
    pub(super) fn rate_limit(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        if let Some(v) = set("STUDIO_RATE_LIMIT_PER_MIN") {
            c.rate_limit_per_min = number("STUDIO_RATE_LIMIT_PER_MIN", &v)?;
        }
        if let Some(v) = set("STUDIO_RATE_LIMIT_BURST") {
            c.rate_limit_burst = number("STUDIO_RATE_LIMIT_BURST", &v)?;
        }
        Ok(c)
    }

    /// The on/off switches: forwarded client addresses and the console.
    pub(super) fn switches(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        if let Some(v) = set("STUDIO_TRUST_FORWARDED") {
            c.trust_forwarded = match v.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => true,
                "false" | "0" | "no" => false,
                _ => return Err(ConfigError::Env("STUDIO_TRUST_FORWARDED", format!("true or false, not {v:?}"))),
            };
        }
        if let Some(v) = set("STUDIO_CONSOLE") {
            c.console = match v.trim().to_ascii_lowercase().as_str() {
                "on" | "true" | "1" | "yes" => true,
                "off" | "false" | "0" | "no" => false,
                _ => return Err(ConfigError::Env("STUDIO_CONSOLE", format!("on or off, not {v:?}"))),
            };
        }
        Ok(c)
    }

    /// The machine credentials, the signing key and the content-credentials files, trimmed (blank in the file counts as unset).
    pub(super) fn secrets(&self, mut c: ServerConfig) -> ServerConfig {
        let set = |name: &str| self.set(name);
        for (name, field) in [
            ("STUDIO_SUPPORT_BRIDGE_SECRET", &mut c.support_bridge_secret),
            ("STUDIO_ANALYST_TOKEN", &mut c.analyst_token),
            ("STUDIO_ACTION_TOKEN", &mut c.action_token),
            ("STUDIO_RENDERER_TOKEN", &mut c.renderer_token),
            ("STUDIO_SIGNING_KEY", &mut c.signing_key),
            ("STUDIO_C2PA_CERT", &mut c.c2pa_cert),
            ("STUDIO_C2PA_KEY", &mut c.c2pa_key),
        ] {
            *field = set(name).or(field.take()).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        }
        c
    }
}

pub(super) fn number<T: std::str::FromStr>(name: &'static str, v: &str) -> Result<T, ConfigError> {
    v.trim().parse().map_err(|_| ConfigError::Env(name, format!("not a whole number: {v:?}")))
}

pub(super) fn emails(list: impl IntoIterator<Item = String>) -> Vec<String> {
    list.into_iter().map(|e| e.trim().to_lowercase()).filter(|e| !e.is_empty()).collect()
}
