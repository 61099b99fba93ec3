//! The TOML file layer: every key optional, unknown keys refused; a key set in the file replaces
//! the default, and the environment may replace it in turn.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use studio_core::{PackConfig, PeopleConfig, TierConfig};

use super::env::emails;
use super::{ConfigError, ServerConfig};

/// The TOML file: every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConfig {
    listen: Option<String>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    public_url: Option<String>,
    admin_emails: Option<Vec<String>>,
    signup_grant_tokens: Option<i64>,
    blob_url: Option<String>,
    s3_endpoint: Option<String>,
    s3_region: Option<String>,
    s3_access_key_id: Option<String>,
    s3_secret_access_key: Option<String>,
    runner_concurrency: Option<usize>,
    chat_turn_limit: Option<i64>,
    chat_turn_price: Option<i64>,
    runner_lease_secs: Option<i64>,
    segmenter: Option<String>,
    fal_key: Option<String>,
    fal_url: Option<String>,
    fal_models: Option<BTreeMap<String, String>>,
    fal_timeout_secs: Option<u64>,
    fal_depth_model: Option<String>,
    fal_segment_model: Option<String>,
    fal_cutout_model: Option<String>,
    ai_url: Option<String>,
    ai_key: Option<String>,
    ai_model: Option<String>,
    ai_timeout_secs: Option<u64>,
    billing: Option<String>,
    payments_webhook_secret: Option<String>,
    polar_token: Option<String>,
    polar_url: Option<String>,
    polar_products: Option<BTreeMap<String, String>>,
    billing_tiers: Option<Vec<TierConfig>>,
    billing_packs: Option<Vec<PackConfig>>,
    people: Option<PeopleConfig>,
    rate_limit_per_min: Option<u32>,
    rate_limit_burst: Option<u32>,
    trust_forwarded: Option<bool>,
    console: Option<bool>,
    smtp_url: Option<String>,
    mail_from: Option<String>,
    mail_webhook_secret: Option<String>,
    support_bridge_secret: Option<String>,
    analyst_token: Option<String>,
    action_token: Option<String>,
    renderer_token: Option<String>,
    signing_key: Option<String>,
}

impl FileConfig {
    /// The file at `path`, read and parsed.
    pub(super) fn read(path: &Path) -> Result<FileConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read(path.to_path_buf(), e))?;
        let file: FileConfig = toml::from_str(&text).map_err(|e| ConfigError::Parse(path.to_path_buf(), e))?;
        Ok(file)
    }

    /// `c` with every key this file sets in place of its value.
    pub(super) fn over(self, mut c: ServerConfig) -> ServerConfig {
        let file = self;
        if let Some(v) = file.listen {
            c.listen = v;
        }
        if let Some(v) = file.data_dir {
            c.data_dir = v;
        }
        if let Some(v) = file.database_url {
            c.database_url = Some(v);
        }
        if let Some(v) = file.public_url {
            c.public_url = Some(v);
        }
        if let Some(v) = file.admin_emails {
            c.admin_emails = emails(v);
        }
        if let Some(v) = file.signup_grant_tokens {
            c.signup_grant_tokens = v;
        }
        c.blob_url = file.blob_url.or(c.blob_url);
        c.s3_endpoint = file.s3_endpoint.or(c.s3_endpoint);
        c.s3_region = file.s3_region.or(c.s3_region);
        c.s3_access_key_id = file.s3_access_key_id.or(c.s3_access_key_id);
        c.s3_secret_access_key = file.s3_secret_access_key.or(c.s3_secret_access_key);
        c.runner_concurrency = file.runner_concurrency.unwrap_or(c.runner_concurrency);
        c.chat_turn_limit = file.chat_turn_limit.unwrap_or(c.chat_turn_limit);
        c.chat_turn_price = file.chat_turn_price.unwrap_or(c.chat_turn_price);
        c.runner_lease_secs = file.runner_lease_secs.unwrap_or(c.runner_lease_secs);
        c.segmenter = file.segmenter.unwrap_or(c.segmenter);
        c.fal_key = file.fal_key.or(c.fal_key);
        c.fal_url = file.fal_url.or(c.fal_url);
        c.fal_models = file.fal_models.unwrap_or(c.fal_models);
        c.fal_timeout_secs = file.fal_timeout_secs.unwrap_or(c.fal_timeout_secs);
        c.fal_depth_model = file.fal_depth_model.or(c.fal_depth_model);
        c.fal_segment_model = file.fal_segment_model.or(c.fal_segment_model);
        c.fal_cutout_model = file.fal_cutout_model.or(c.fal_cutout_model);
        c.ai_url = file.ai_url.or(c.ai_url);
        c.ai_key = file.ai_key.or(c.ai_key);
        c.ai_model = file.ai_model.or(c.ai_model);
        c.ai_timeout_secs = file.ai_timeout_secs.unwrap_or(c.ai_timeout_secs);
        c.billing = file.billing.unwrap_or(c.billing);
        c.payments_webhook_secret = file.payments_webhook_secret.or(c.payments_webhook_secret);
        c.polar_token = file.polar_token.or(c.polar_token);
        c.polar_url = file.polar_url.or(c.polar_url);
        c.polar_products = file.polar_products.unwrap_or(c.polar_products);
        if let Some(tiers) = file.billing_tiers {
            c.billing_catalog.tiers = tiers;
        }
        if let Some(packs) = file.billing_packs {
            c.billing_catalog.packs = packs;
        }
        if let Some(people) = file.people {
            c.people = people;
        }
        c.rate_limit_per_min = file.rate_limit_per_min.unwrap_or(c.rate_limit_per_min);
        c.rate_limit_burst = file.rate_limit_burst.unwrap_or(c.rate_limit_burst);
        c.trust_forwarded = file.trust_forwarded.unwrap_or(c.trust_forwarded);
        c.console = file.console.unwrap_or(c.console);
        c.smtp_url = file.smtp_url.or(c.smtp_url);
        c.mail_from = file.mail_from.or(c.mail_from);
        c.mail_webhook_secret = file.mail_webhook_secret.or(c.mail_webhook_secret);
        c.support_bridge_secret = file.support_bridge_secret.or(c.support_bridge_secret);
        c.analyst_token = file.analyst_token.or(c.analyst_token);
        c.action_token = file.action_token.or(c.action_token);
        c.renderer_token = file.renderer_token.or(c.renderer_token);
        c.signing_key = file.signing_key.or(c.signing_key);
        c
    }
}
