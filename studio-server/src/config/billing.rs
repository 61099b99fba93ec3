//! Billing's settings: the provider (`STUDIO_BILLING`: off, test or polar), Polar's credentials
//! and products, the catalog's checks, and test mode's loopback rule.

use std::sync::Arc;

use studio_core::{PaymentsProvider, PolarConfig, PolarProvider, TestModeProvider};

use super::env::Env;
use super::{ConfigError, ServerConfig};

impl Env<'_> {
    /// `STUDIO_BILLING`, the webhook secret, Polar's token, URL and products, and
    /// `STUDIO_BILLING_TEST_ANYWHERE`.
    pub(super) fn billing(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        let set = |name: &str| self.set(name);
        c.billing = set("STUDIO_BILLING").unwrap_or(c.billing).trim().to_lowercase();
        c.payments_webhook_secret = set("STUDIO_PAYMENTS_WEBHOOK_SECRET").or(c.payments_webhook_secret);
        c.polar_token = set("STUDIO_POLAR_TOKEN").or(c.polar_token).filter(|t| !t.trim().is_empty());
        c.polar_url = set("STUDIO_POLAR_URL").or(c.polar_url);
        if let Some(v) = set("STUDIO_POLAR_PRODUCTS") {
            c.polar_products =
                PolarConfig::parse_products(&v).map_err(|e| ConfigError::Env("STUDIO_POLAR_PRODUCTS", e))?;
        }
        if let Some(v) = set("STUDIO_BILLING_TEST_ANYWHERE") {
            c.billing_test_anywhere = matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes");
        }
        Ok(c)
    }
}

impl ServerConfig {
    /// The tiers and packs on sale: known slugs, positive prices, tokens and rollover.
    pub(super) fn check_catalog(&self) -> Result<(), ConfigError> {
        let c = self;
        let catalog = &c.billing_catalog;
        let bad_tier = catalog.tiers.iter().find(|t| {
            !["studio", "editorial", "couture"].contains(&t.slug.as_str())
                || t.price_cents <= 0
                || t.monthly_tokens <= 0
                || t.rollover_multiple < 1
        });
        let bad_pack = catalog.packs.iter().find(|p| {
            !["pack_250", "pack_1000", "pack_3000"].contains(&p.slug.as_str()) || p.price_cents <= 0 || p.tokens <= 0
        });
        if let Some(t) = bad_tier {
            return Err(ConfigError::Env(
                "billing_tiers",
                format!("{:?}: slugs are studio, editorial, couture; prices, tokens and rollover positive", t.slug),
            ));
        }
        if let Some(p) = bad_pack {
            return Err(ConfigError::Env(
                "billing_packs",
                format!("{:?}: slugs are pack_250, pack_1000, pack_3000; prices and tokens positive", p.slug),
            ));
        }
        Ok(())
    }

    /// A known provider, and Polar with its token and webhook secret.
    pub(super) fn check_billing_mode(&self) -> Result<(), ConfigError> {
        let c = self;
        match c.billing.as_str() {
            "test" | "off" => {}
            "polar" => {
                if c.polar_token.is_none() || c.payments_webhook_secret.is_none() {
                    return Err(ConfigError::Env(
                        "STUDIO_BILLING=polar",
                        "needs STUDIO_POLAR_TOKEN and STUDIO_PAYMENTS_WEBHOOK_SECRET".into(),
                    ));
                }
            }
            other => {
                return Err(ConfigError::Env(
                    "STUDIO_BILLING (or billing)",
                    format!("must be test, off or polar, not {other:?}"),
                ));
            }
        }
        Ok(())
    }

    /// Test mode only on a loopback server unless `STUDIO_BILLING_TEST_ANYWHERE` says otherwise.
    pub(super) fn check_test_mode(&self) -> Result<(), ConfigError> {
        let c = self;
        if c.billing == "test" && !c.billing_test_anywhere && !c.serves_loopback_only() {
            return Err(ConfigError::Env(
                "STUDIO_BILLING=test",
                "test mode grants tokens to anyone who opens its pages, so it runs only on a loopback \
                 STUDIO_PUBLIC_URL (or listen address); set STUDIO_BILLING_TEST_ANYWHERE=1 to run it elsewhere"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The payment provider `billing` names; None when billing is off.
    pub fn payments(&self) -> Option<Arc<dyn PaymentsProvider>> {
        match self.billing.as_str() {
            "off" => None,
            "polar" => Some(Arc::new(PolarProvider::new(PolarConfig {
                base_url: self.polar_url.clone().unwrap_or_else(|| PolarConfig::DEFAULT_BASE_URL.to_string()),
                access_token: self.polar_token.clone().unwrap_or_default(),
                webhook_secret: self.payments_webhook_secret.clone().unwrap_or_default(),
                products: self.polar_products.clone(),
                success_url: self.public_url.clone().unwrap_or_default(),
            }))),
            "test" => {
                let secret = self.payments_webhook_secret.clone().unwrap_or_else(TestModeProvider::random_secret);
                let base = self.public_url.clone().unwrap_or_default();
                Some(Arc::new(TestModeProvider::new(base, secret)))
            }
            _ => None,
        }
    }
}
