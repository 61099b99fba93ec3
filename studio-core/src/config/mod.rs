//! The core's configuration, handed in by the embedding binary (the core never reads the environment).
//! Every settings type lives here, so this folder names no domain module and never the facade.

use std::sync::Arc;

mod billing;
mod mail;
mod packs;
mod people;
mod preview;
mod prices;
mod runner;

pub use billing::{BillingConfig, PackConfig, TierConfig};
pub use mail::MailConfig;
pub use packs::PackLimits;
pub use people::PeopleConfig;
pub use preview::{HostResolver, PreviewPolicy, SystemResolver};
pub use prices::{PriceBookConfig, QualityPrices};
pub use runner::RunnerConfig;

use crate::caller::MachineSecrets;
use crate::payments::PaymentsProvider;
use crate::providers::Providers;

/// Settings the domain needs. The binary fills it from defaults, a TOML file and `STUDIO_*`.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Tokens granted to every new house at sign-up.
    pub signup_grant_tokens: i64,
    /// Emails (lowercased) allowed on the admin routes with a session.
    pub admin_emails: Vec<String>,
    /// How long a browser session lives, in days.
    pub session_days: i64,
    /// Prices per tool and quality.
    pub prices: PriceBookConfig,
    /// Base of the URLs the domain returns (no trailing slash); empty for relative URLs.
    pub public_url: String,
    /// Pack thresholds (spec §8).
    pub packs: PackLimits,
    /// Who develops each tool; the price book lists exactly their tools.
    pub providers: Providers,
    /// How the job runner works.
    pub runner: RunnerConfig,
    /// The AI reader (read_model, read_build, classify); None refuses them `AI_NOT_CONFIGURED`.
    pub ai: Option<crate::providers::ai::AiConfig>,
    /// fal for the depth and segment-by-label lanes; None refuses them `FAL_NOT_CONFIGURED`.
    pub fal_lanes: Option<crate::providers::fal::FalLanes>,
    /// What is on sale: subscription tiers and token packs.
    pub billing: BillingConfig,
    /// The payment provider; None turns the money routes into 503 `BILLING_NOT_CONFIGURED`.
    pub payments: Option<Arc<dyn PaymentsProvider>>,
    /// The machine credentials (support bridge, analyst, action, renderer); an unset kind opens
    /// nothing.
    pub machines: MachineSecrets,
    /// Seats, invitations and the trial window.
    pub people: PeopleConfig,
    /// Letters: links, the outbox's retries, the delivery webhook and email token lifetimes.
    pub mail: MailConfig,
    /// How link previews reach the network (docs/invitations.md); the default is the only
    /// production policy.
    pub link_preview: PreviewPolicy,
    /// A replay render claimed this many seconds ago and neither completed nor failed is
    /// taken over by the next claim (docs/internal.md).
    pub replay_render_lease_secs: i64,
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            signup_grant_tokens: 100,
            admin_emails: Vec::new(),
            session_days: 30,
            prices: PriceBookConfig::default(),
            public_url: String::new(),
            packs: PackLimits::default(),
            providers: Providers::local(),
            runner: RunnerConfig::default(),
            ai: None,
            fal_lanes: None,
            billing: BillingConfig::default(),
            payments: None,
            machines: MachineSecrets::default(),
            people: PeopleConfig::default(),
            mail: MailConfig::default(),
            link_preview: PreviewPolicy::default(),
            replay_render_lease_secs: 300,
        }
    }
}
