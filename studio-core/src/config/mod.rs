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
use crate::provenance::ContentCredentials;
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
    /// The key every signed link is signed with (lane results, support screenshots). Replicas
    /// must share one; the default is a random key of this process only (docs/support.md).
    pub signing_key: SigningKey,
    /// The studio assistant: its turn limit and what a turn costs.
    pub chat: ChatConfig,
    /// Webhook endpoints and their delivery (docs/webhooks.md).
    pub webhooks: WebhooksConfig,
    /// The content-credentials signer every develop output is signed with
    /// (docs/provenance.md). The server configures one (`STUDIO_C2PA_CERT` and
    /// `STUDIO_C2PA_KEY`, else a local authority kept in its data dir); the default is a local
    /// authority of this process only.
    pub credentials: ContentCredentials,
}

/// Webhook endpoints' settings (docs/webhooks.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhooksConfig {
    /// `STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK=1`: an endpoint may be `http://` to a loopback
    /// address (development and tests). Off, every endpoint is https to a public address.
    pub allow_http_loopback: bool,
    /// `STUDIO_WEBHOOKS_RETRY_SCHEDULE`: seconds to wait before each retry of a failed
    /// delivery, in order (each waited with up to 20 % jitter); its length is the number of
    /// retries. The default spans more than 24 hours.
    pub retry_schedule: Vec<u64>,
    /// How often, in milliseconds, each worker looks for due deliveries it was not woken for
    /// (retries coming due, events queued on another replica). Default 1000.
    pub poll_ms: u64,
    /// Deliveries one process attempts at once (each endpoint still one at a time). Default 4;
    /// 0 runs no webhook worker in this process (another replica delivers).
    pub workers: usize,
    /// `STUDIO_WEBHOOKS_LEASE_SECS`: how long a worker's claim on a delivery holds (default 60,
    /// well beyond one attempt's 10 s); a delivery whose worker died is attempted again once it
    /// lapses. Shorter than an attempt, a slow receiver may get the event twice.
    pub lease_secs: u64,
    /// `STUDIO_WEBHOOKS_SETTLE_MS`: how long a queued event waits before it is due (default
    /// 250). Two changes of one job can be published in the other order than they were made
    /// (the submit's `queued` and the runner's `running` race); within this window the later
    /// one waits for the earlier, so a target receives them in `eventSeq` order. 0 sends at once.
    pub settle_ms: u64,
}

/// The default retry schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (27.6 hours in all,
/// eight attempts).
pub const DEFAULT_RETRY_SCHEDULE: [u64; 7] = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];

impl Default for WebhooksConfig {
    fn default() -> Self {
        WebhooksConfig {
            allow_http_loopback: false,
            retry_schedule: DEFAULT_RETRY_SCHEDULE.to_vec(),
            poll_ms: 1_000,
            workers: 4,
            lease_secs: 60,
            settle_ms: 250,
        }
    }
}

/// The studio assistant's settings (docs/assistant.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatConfig {
    /// Person turns a session takes before it is handed to support (reason `turn_limit`).
    pub turn_limit: i64,
    /// Tokens one answered turn costs; 0 (the default) makes turns free.
    pub turn_price: i64,
}

impl Default for ChatConfig {
    fn default() -> Self {
        ChatConfig { turn_limit: 40, turn_price: 0 }
    }
}

/// The fewest bytes a signing key has.
pub const MIN_SIGNING_KEY_BYTES: usize = 32;

/// The deployment's link-signing key (HMAC-SHA256). Its `Debug` never shows it.
#[derive(Clone)]
pub struct SigningKey(Arc<[u8]>);

impl SigningKey {
    /// A key from a configured secret (its bytes as given); at least
    /// [`MIN_SIGNING_KEY_BYTES`] bytes.
    pub fn from_secret(secret: &str) -> std::result::Result<Self, String> {
        let secret = secret.trim();
        if secret.len() < MIN_SIGNING_KEY_BYTES {
            return Err(format!("a signing key is at least {MIN_SIGNING_KEY_BYTES} characters"));
        }
        Ok(SigningKey(Arc::from(secret.as_bytes())))
    }

    /// A new random key: 64 hex characters (32 random bytes), as the server writes into
    /// `signing.key` when none is configured.
    pub fn generate() -> String {
        crate::ids::random_secret()
    }

    /// The key's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Default for SigningKey {
    fn default() -> Self {
        SigningKey(Arc::from(crate::ids::random_secret().as_bytes()))
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
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
            signing_key: SigningKey::default(),
            chat: ChatConfig::default(),
            webhooks: WebhooksConfig::default(),
            // Generating a P-256 key pair and signing two certificates does not fail.
            credentials: ContentCredentials::ephemeral("Studio").expect("a local content-credentials authority"),
        }
    }
}
