//! The lowest layer: the built-in value of every setting, and the `Debug` output that prints a
//! configuration with its secrets redacted.

use std::collections::BTreeMap;
use std::path::PathBuf;

use studio_core::{BillingConfig, MailConfig, PackLimits, PeopleConfig, PreviewPolicy};

use super::ServerConfig;

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: "127.0.0.1:8787".to_string(),
            data_dir: PathBuf::from("./studio-data"),
            database_url: None,
            public_url: None,
            admin_emails: Vec::new(),
            signup_grant_tokens: 100,
            blob_url: None,
            s3_endpoint: None,
            s3_region: None,
            s3_access_key_id: None,
            s3_secret_access_key: None,
            packs: PackLimits::default(),
            people: PeopleConfig::default(),
            runner_concurrency: 2,
            chat_turn_limit: 40,
            chat_turn_price: 0,
            runner_lease_secs: 30,
            segmenter: "auto".into(),
            fal_key: None,
            fal_url: None,
            fal_models: BTreeMap::new(),
            fal_timeout_secs: 600,
            fal_depth_model: None,
            fal_segment_model: None,
            fal_cutout_model: None,
            ai_url: None,
            ai_key: None,
            ai_model: None,
            ai_timeout_secs: 120,
            billing: "off".to_string(),
            billing_test_anywhere: false,
            payments_webhook_secret: None,
            polar_token: None,
            polar_url: None,
            polar_products: BTreeMap::new(),
            billing_catalog: BillingConfig::default(),
            rate_limit_per_min: 30,
            rate_limit_burst: 10,
            trust_forwarded: false,
            console: true,
            smtp_url: None,
            mail_from: None,
            mail_webhook_secret: None,
            support_bridge_secret: None,
            analyst_token: None,
            action_token: None,
            renderer_token: None,
            replay_render_lease_secs: 300,
            signing_key: None,
            c2pa_cert: None,
            c2pa_key: None,
            mail: MailConfig::default(),
            link_preview: PreviewPolicy::default(),
            webhooks: studio_core::WebhooksConfig::default(),
        }
    }
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |v: &Option<String>| v.as_ref().map(|_| "<redacted>");
        f.debug_struct("ServerConfig")
            .field("listen", &self.listen)
            .field("data_dir", &self.data_dir)
            .field("database_url", &self.database_url.as_deref().map(|u| u.split('@').next_back().unwrap_or(u)))
            .field("public_url", &self.public_url)
            .field("admin_emails", &self.admin_emails)
            .field("signup_grant_tokens", &self.signup_grant_tokens)
            .field("people", &self.people)
            .field("blob_url", &self.blob_url)
            .field("s3_endpoint", &self.s3_endpoint)
            .field("s3_region", &self.s3_region)
            .field("s3_access_key_id", &self.s3_access_key_id)
            .field("s3_secret_access_key", &redacted(&self.s3_secret_access_key))
            .field("runner_concurrency", &self.runner_concurrency)
            .field("runner_lease_secs", &self.runner_lease_secs)
            .field("segmenter", &self.segmenter)
            .field("fal_key", &redacted(&self.fal_key))
            .field("fal_url", &self.fal_url)
            .field("fal_models", &self.fal_models)
            .field("fal_timeout_secs", &self.fal_timeout_secs)
            .field("fal_depth_model", &self.fal_depth_model)
            .field("fal_segment_model", &self.fal_segment_model)
            .field("fal_cutout_model", &self.fal_cutout_model)
            .field("ai_url", &self.ai_url)
            .field("ai_key", &redacted(&self.ai_key))
            .field("ai_model", &self.ai_model)
            .field("ai_timeout_secs", &self.ai_timeout_secs)
            .field("billing", &self.billing)
            .field("payments_webhook_secret", &redacted(&self.payments_webhook_secret))
            .field("polar_token", &redacted(&self.polar_token))
            .field("polar_url", &self.polar_url)
            .field("polar_products", &self.polar_products)
            .field("rate_limit_per_min", &self.rate_limit_per_min)
            .field("rate_limit_burst", &self.rate_limit_burst)
            .field("trust_forwarded", &self.trust_forwarded)
            .field("console", &self.console)
            .field("billing_test_anywhere", &self.billing_test_anywhere)
            .field("smtp_url", &self.smtp_url.as_deref().map(|u| u.split('@').next_back().unwrap_or(u)))
            .field("mail_from", &self.mail_from)
            .field("mail_webhook_secret", &redacted(&self.mail_webhook_secret))
            .field("support_bridge_secret", &redacted(&self.support_bridge_secret))
            .field("analyst_token", &redacted(&self.analyst_token))
            .field("action_token", &redacted(&self.action_token))
            .field("renderer_token", &redacted(&self.renderer_token))
            .field("signing_key", &redacted(&self.signing_key))
            .field("c2pa_cert", &self.c2pa_cert)
            .field("c2pa_key", &self.c2pa_key)
            .finish_non_exhaustive()
    }
}
