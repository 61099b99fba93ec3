//! Server configuration, loaded once: built-in defaults < optional TOML file < `STUDIO_*`
//! environment. The core never reads the environment; this is the only place that does.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use studio_core::{
    AiConfig, BillingConfig, BlobConfig, ChatConfig, CoreConfig, FalConfig, FalLanes, FalProvider, LocalProvider,
    MachineKind, MachineSecrets, MailConfig, PackConfig, PackLimits, PaymentsProvider, PeopleConfig, PolarConfig,
    PolarProvider, PreviewPolicy, Providers, RunnerConfig, S3Config, SigningKey, SmtpMailer, TestModeProvider,
    TierConfig,
};

/// Everything the binary needs to start. Its `Debug` output redacts the secrets.
#[derive(Clone, PartialEq)]
pub struct ServerConfig {
    /// `STUDIO_LISTEN`: address to bind (default `127.0.0.1:8787`).
    pub listen: String,
    /// `STUDIO_DATA_DIR`: created if missing (default `./studio-data`).
    pub data_dir: PathBuf,
    /// `STUDIO_DATABASE_URL`: `postgres://…` selects PostgreSQL; default SQLite in the data dir.
    pub database_url: Option<String>,
    /// `STUDIO_PUBLIC_URL`: base for URLs the server returns; `https` makes cookies Secure.
    pub public_url: Option<String>,
    /// `STUDIO_ADMIN_EMAILS`: comma-separated allowlist for the admin routes.
    pub admin_emails: Vec<String>,
    /// `STUDIO_SIGNUP_GRANT_TOKENS`: tokens granted to each new house (default 100).
    pub signup_grant_tokens: i64,
    /// `STUDIO_BLOB_URL`: `s3://bucket` selects an S3-compatible bucket; default the local
    /// directory `blobs/` in the data dir (`file://PATH` names another directory).
    pub blob_url: Option<String>,
    /// `STUDIO_S3_ENDPOINT`: endpoint of a non-AWS S3-compatible server.
    pub s3_endpoint: Option<String>,
    /// `STUDIO_S3_REGION` (default `us-east-1`).
    pub s3_region: Option<String>,
    /// `STUDIO_S3_ACCESS_KEY_ID`.
    pub s3_access_key_id: Option<String>,
    /// `STUDIO_S3_SECRET_ACCESS_KEY`.
    pub s3_secret_access_key: Option<String>,
    /// Pack thresholds: the spec's values, not read from file or environment (tests lower them).
    pub packs: PackLimits,
    /// Seat invitations and the tool trial: the `[people]` table of the TOML file.
    pub people: PeopleConfig,
    /// `STUDIO_RUNNER_CONCURRENCY`: develops run at once by this process (default 2; 0 runs
    /// none here, for replicas that only serve requests).
    pub runner_concurrency: usize,
    /// `STUDIO_CHAT_TURN_LIMIT`: person turns a chat session takes before it is handed to
    /// support (default 40; docs/assistant.md).
    pub chat_turn_limit: i64,
    /// `STUDIO_CHAT_TURN_PRICE`: tokens one answered chat turn costs (default 0: free).
    pub chat_turn_price: i64,
    /// `STUDIO_RUNNER_LEASE_SECS`: a running job not renewed for this long is taken over (default 30).
    pub runner_lease_secs: i64,
    /// `STUDIO_FAL_KEY`: enables the fal adapter for the tools in `fal_models`.
    pub fal_key: Option<String>,
    /// `STUDIO_FAL_URL`: the fal queue API (default `https://queue.fal.run`).
    pub fal_url: Option<String>,
    /// `STUDIO_FAL_MODELS`: `tool=model-id,tool=model-id`.
    pub fal_models: BTreeMap<String, String>,
    /// `STUDIO_FAL_TIMEOUT_SECS`: longest a hosted develop may take (default 600).
    pub fal_timeout_secs: u64,
    /// `STUDIO_FAL_DEPTH_MODEL`: the fal model of the depth lane (default `fal-ai/imageutils/depth`).
    pub fal_depth_model: Option<String>,
    /// `STUDIO_FAL_SEGMENT_MODEL`: the fal model segment runs for a `label` (default `fal-ai/evf-sam`).
    pub fal_segment_model: Option<String>,
    /// `STUDIO_AI_URL`: base URL of an OpenAI-compatible API for the AI reader (read_model,
    /// read_build), e.g. `https://api.openai.com/v1`. Set all three `ai_*` settings or none.
    pub ai_url: Option<String>,
    /// `STUDIO_AI_KEY`: the AI reader's bearer key (in a file, `ai_key = ""` sends none).
    pub ai_key: Option<String>,
    /// `STUDIO_AI_MODEL`: the AI reader's vision model.
    pub ai_model: Option<String>,
    /// `STUDIO_AI_TIMEOUT_SECS`: longest one read of the AI reader may take (default 120).
    pub ai_timeout_secs: u64,
    /// `STUDIO_BILLING`: `off` (the default: checkout, portal and auto top-up answer 503
    /// `BILLING_NOT_CONFIGURED`; the catalog still answers), `test` (the embedded test-mode
    /// provider, whose checkout pages live on this server: loopback deployments only unless
    /// `billing_test_anywhere`), or `polar`.
    pub billing: String,
    /// `STUDIO_BILLING_TEST_ANYWHERE=1`: let test mode run on a server whose public URL (or
    /// listen address) is not loopback. Anyone who can reach its pages can grant tokens.
    pub billing_test_anywhere: bool,
    /// `STUDIO_PAYMENTS_WEBHOOK_SECRET`: the Standard Webhooks secret (`whsec_…`) payment
    /// deliveries are signed with. Test mode makes a random one per process when unset.
    pub payments_webhook_secret: Option<String>,
    /// `STUDIO_POLAR_TOKEN`: Polar's organization access token (with `STUDIO_BILLING=polar`).
    pub polar_token: Option<String>,
    /// `STUDIO_POLAR_URL`: Polar's API (default `https://api.polar.sh`; the sandbox is
    /// `https://sandbox-api.polar.sh`).
    pub polar_url: Option<String>,
    /// `STUDIO_POLAR_PRODUCTS`: `slug=product-id,…` for every pack, tier and `custom`.
    pub polar_products: BTreeMap<String, String>,
    /// Tiers and packs on sale: the defaults, or `[[billing_tiers]]` / `[[billing_packs]]` tables
    /// in the TOML file (each list replaces its default whole).
    pub billing_catalog: BillingConfig,
    /// `STUDIO_RATE_LIMIT_PER_MIN`: requests per minute each client address may make to the
    /// routes that take no credential (sign-up, sign-in, sign-out, check-email, the test-mode
    /// checkout pages, invite redeem, request and link preview); default 30; 0 turns the limit off.
    pub rate_limit_per_min: u32,
    /// `STUDIO_RATE_LIMIT_BURST`: how many of those requests may come at once before the
    /// per-minute pace applies (default 10; at least 1).
    pub rate_limit_burst: u32,
    /// `STUDIO_TRUST_FORWARDED`: the client address is the last `X-Forwarded-For` entry (set by
    /// the one reverse proxy in front) instead of the TCP peer (default false).
    pub trust_forwarded: bool,
    /// `STUDIO_CONSOLE`: `on` (the default) serves the console at `/`; `off` serves the API only.
    pub console: bool,
    /// `STUDIO_SMTP_URL`: the SMTP server letters go out through, e.g. `smtp://127.0.0.1:2525`,
    /// `smtp://user:pass@host:587?tls=required` or `smtps://user:pass@host`. Unset: letters are
    /// archived only.
    pub smtp_url: Option<String>,
    /// `STUDIO_MAIL_FROM`: the sender of every letter, e.g. `Studio <studio@example.com>`;
    /// required with `smtp_url`.
    pub mail_from: Option<String>,
    /// `STUDIO_MAIL_WEBHOOK_SECRET`: the Standard Webhooks secret the mail provider signs
    /// delivery reports with; unset answers the mail webhook 503.
    pub mail_webhook_secret: Option<String>,
    /// `STUDIO_SUPPORT_BRIDGE_SECRET`: the header secret of the support bridge
    /// (`x-support-bridge-secret`); unset answers escalations 503.
    pub support_bridge_secret: Option<String>,
    /// `STUDIO_ANALYST_TOKEN`: the bearer token of the internal analyst reads; unset answers
    /// them 401 for everyone.
    pub analyst_token: Option<String>,
    /// `STUDIO_ACTION_TOKEN`: the bearer token of the internal analyst actions; unset: 401.
    pub action_token: Option<String>,
    /// `STUDIO_RENDERER_TOKEN`: the bearer credential of the replay renderers; unset: 401.
    pub renderer_token: Option<String>,
    /// How long a replay render's claim lasts before another renderer may take it over, in
    /// seconds (300; not read from file or environment: tests shorten it).
    pub replay_render_lease_secs: i64,
    /// `STUDIO_SIGNING_KEY`: the key signed links are signed with (lane results, support
    /// screenshots), at least 32 characters. Unset: generated once and kept in
    /// `<data_dir>/signing.key` (mode 0600). Replicas must share one: set it on every replica.
    pub signing_key: Option<String>,
    /// The outbox's leases, retries and token lifetimes: the defaults, not read from file or
    /// environment (tests shorten them). Its link base and webhook secret come from the settings
    /// above.
    pub mail: MailConfig,
    /// How link previews reach the network: not read from file or environment, so production
    /// always runs the strict default (public addresses on ports 80 and 443, the system
    /// resolver). Only tests set another (docs/invitations.md).
    pub link_preview: PreviewPolicy,
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
            .field("fal_key", &redacted(&self.fal_key))
            .field("fal_url", &self.fal_url)
            .field("fal_models", &self.fal_models)
            .field("fal_timeout_secs", &self.fal_timeout_secs)
            .field("fal_depth_model", &self.fal_depth_model)
            .field("fal_segment_model", &self.fal_segment_model)
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
            .finish_non_exhaustive()
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The TOML file could not be read.
    #[error("cannot read config file {0}: {1}")]
    Read(PathBuf, std::io::Error),
    /// The TOML file is malformed.
    #[error("config file {0}: {1}")]
    Parse(PathBuf, toml::de::Error),
    /// An environment variable holds a bad value.
    #[error("{0}: {1}")]
    Env(&'static str, String),
    /// The signing key file could not be read or written.
    #[error("signing key file {0}: {1}")]
    KeyFile(PathBuf, std::io::Error),
}

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
            fal_key: None,
            fal_url: None,
            fal_models: BTreeMap::new(),
            fal_timeout_secs: 600,
            fal_depth_model: None,
            fal_segment_model: None,
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
            mail: MailConfig::default(),
            link_preview: PreviewPolicy::default(),
        }
    }
}

fn number<T: std::str::FromStr>(name: &'static str, v: &str) -> Result<T, ConfigError> {
    v.trim().parse().map_err(|_| ConfigError::Env(name, format!("not a whole number: {v:?}")))
}

/// The TOML file: every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
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
    fal_key: Option<String>,
    fal_url: Option<String>,
    fal_models: Option<BTreeMap<String, String>>,
    fal_timeout_secs: Option<u64>,
    fal_depth_model: Option<String>,
    fal_segment_model: Option<String>,
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

fn emails(list: impl IntoIterator<Item = String>) -> Vec<String> {
    list.into_iter().map(|e| e.trim().to_lowercase()).filter(|e| !e.is_empty()).collect()
}

/// Create `path` holding `bytes` (mode 0600), whole or not at all: written and synced under a
/// temporary name beside it, then hard-linked to `path`, which fails with `AlreadyExists` when
/// another process got there first. A reader never sees the file empty or half written, and a
/// crash leaves at most a stray temporary file, never an empty file that stops every start.
fn publish_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}", uuid::Uuid::new_v4().simple()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temp).and_then(|mut file| {
        std::io::Write::write_all(&mut file, bytes)?;
        file.sync_all()
    });
    let linked = written.and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    linked
}

impl ServerConfig {
    /// Defaults, then the file at `path` (if any), then the environment read through `env`.
    pub fn load(path: Option<&Path>, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut c = ServerConfig::default();
        if let Some(path) = path {
            let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read(path.to_path_buf(), e))?;
            let file: FileConfig = toml::from_str(&text).map_err(|e| ConfigError::Parse(path.to_path_buf(), e))?;
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
            c.fal_key = file.fal_key.or(c.fal_key);
            c.fal_url = file.fal_url.or(c.fal_url);
            c.fal_models = file.fal_models.unwrap_or(c.fal_models);
            c.fal_timeout_secs = file.fal_timeout_secs.unwrap_or(c.fal_timeout_secs);
            c.fal_depth_model = file.fal_depth_model.or(c.fal_depth_model);
            c.fal_segment_model = file.fal_segment_model.or(c.fal_segment_model);
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
        }
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
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
        c.ai_url = set("STUDIO_AI_URL").or(c.ai_url);
        c.ai_key = set("STUDIO_AI_KEY").or(c.ai_key);
        c.ai_model = set("STUDIO_AI_MODEL").or(c.ai_model);
        if let Some(v) = set("STUDIO_AI_TIMEOUT_SECS") {
            c.ai_timeout_secs = number("STUDIO_AI_TIMEOUT_SECS", &v)?;
        }
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
        c.billing = set("STUDIO_BILLING").unwrap_or(c.billing).trim().to_lowercase();
        c.payments_webhook_secret = set("STUDIO_PAYMENTS_WEBHOOK_SECRET").or(c.payments_webhook_secret);
        c.polar_token = set("STUDIO_POLAR_TOKEN").or(c.polar_token).filter(|t| !t.trim().is_empty());
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
        c.polar_url = set("STUDIO_POLAR_URL").or(c.polar_url);
        if let Some(v) = set("STUDIO_POLAR_PRODUCTS") {
            c.polar_products =
                PolarConfig::parse_products(&v).map_err(|e| ConfigError::Env("STUDIO_POLAR_PRODUCTS", e))?;
        }
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
        if let Some(v) = set("STUDIO_RATE_LIMIT_PER_MIN") {
            c.rate_limit_per_min = number("STUDIO_RATE_LIMIT_PER_MIN", &v)?;
        }
        if let Some(v) = set("STUDIO_RATE_LIMIT_BURST") {
            c.rate_limit_burst = number("STUDIO_RATE_LIMIT_BURST", &v)?;
        }
        if c.rate_limit_per_min > 0 && c.rate_limit_burst == 0 {
            return Err(ConfigError::Env(
                "STUDIO_RATE_LIMIT_BURST (or rate_limit_burst)",
                "must be at least 1 while the rate limit is on (STUDIO_RATE_LIMIT_PER_MIN=0 turns it off)".into(),
            ));
        }
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
        c.smtp_url = set("STUDIO_SMTP_URL").or(c.smtp_url).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        c.mail_from = set("STUDIO_MAIL_FROM").or(c.mail_from).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        c.mail_webhook_secret =
            set("STUDIO_MAIL_WEBHOOK_SECRET").or(c.mail_webhook_secret).filter(|v| !v.trim().is_empty());
        for (name, field) in [
            ("STUDIO_SUPPORT_BRIDGE_SECRET", &mut c.support_bridge_secret),
            ("STUDIO_ANALYST_TOKEN", &mut c.analyst_token),
            ("STUDIO_ACTION_TOKEN", &mut c.action_token),
            ("STUDIO_RENDERER_TOKEN", &mut c.renderer_token),
            ("STUDIO_SIGNING_KEY", &mut c.signing_key),
        ] {
            *field = set(name).or(field.take()).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        }
        if c.smtp_url.is_some() {
            c.mailer()?;
        }
        if let Some(v) = set("STUDIO_BILLING_TEST_ANYWHERE") {
            c.billing_test_anywhere = matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes");
        }
        if c.billing == "test" && !c.billing_test_anywhere && !c.serves_loopback_only() {
            return Err(ConfigError::Env(
                "STUDIO_BILLING=test",
                "test mode grants tokens to anyone who opens its pages, so it runs only on a loopback \
                 STUDIO_PUBLIC_URL (or listen address); set STUDIO_BILLING_TEST_ANYWHERE=1 to run it elsewhere"
                    .into(),
            ));
        }
        if !(1..=1_000).contains(&c.chat_turn_limit) {
            return Err(ConfigError::Env("STUDIO_CHAT_TURN_LIMIT", "from 1 to 1000 turns".into()));
        }
        if !(0..=1_000).contains(&c.chat_turn_price) {
            return Err(ConfigError::Env("STUDIO_CHAT_TURN_PRICE", "from 0 to 1000 tokens".into()));
        }
        Ok(c)
    }

    /// The database URL in force: the configured one, or `studio.db` in the data directory.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.data_dir.join("studio.db").display()),
        }
    }

    /// The link-signing key: `STUDIO_SIGNING_KEY` when set, else the key kept in
    /// `<data_dir>/signing.key`, generated there (mode 0600) the first time. A replica with its
    /// own data directory would generate its own, so replicas set `STUDIO_SIGNING_KEY`.
    pub fn signing_key(&self) -> Result<SigningKey, ConfigError> {
        if let Some(secret) = &self.signing_key {
            return SigningKey::from_secret(secret).map_err(|e| ConfigError::Env("STUDIO_SIGNING_KEY", e));
        }
        let path = self.data_dir.join("signing.key");
        let io = |e| ConfigError::KeyFile(path.clone(), e);
        match std::fs::read_to_string(&path) {
            Ok(kept) => {
                SigningKey::from_secret(&kept).map_err(|e| ConfigError::KeyFile(path.clone(), std::io::Error::other(e)))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.data_dir).map_err(io)?;
                let secret = SigningKey::generate();
                let kept = match publish_whole(&path, format!("{secret}\n").as_bytes()) {
                    Ok(()) => {
                        tracing::info!(path = %path.display(), "generated the link-signing key");
                        secret
                    }
                    // Another process of this data directory published one first: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        std::fs::read_to_string(&path).map_err(io)?
                    }
                    Err(e) => return Err(io(e)),
                };
                SigningKey::from_secret(&kept).map_err(|e| ConfigError::KeyFile(path.clone(), std::io::Error::other(e)))
            }
            Err(e) => Err(io(e)),
        }
    }

    /// The domain's part of the configuration.
    pub fn core_config(&self) -> CoreConfig {
        CoreConfig {
            signup_grant_tokens: self.signup_grant_tokens,
            admin_emails: self.admin_emails.clone(),
            public_url: self.public_url.clone().unwrap_or_default(),
            packs: self.packs.clone(),
            people: self.people.clone(),
            providers: self.providers(),
            runner: RunnerConfig {
                concurrency: self.runner_concurrency,
                lease_secs: self.runner_lease_secs,
                timeout_secs: self.fal_timeout_secs.max(60) + 60,
                ..RunnerConfig::default()
            },
            ai: self.ai_config(),
            fal_lanes: self.fal_lanes(),
            billing: self.billing_catalog.clone(),
            payments: self.payments(),
            mail: MailConfig {
                link_base: self.public_url.clone().unwrap_or_else(|| format!("http://{}", self.listen)),
                webhook_secret: self.mail_webhook_secret.clone(),
                ..self.mail.clone()
            },
            link_preview: self.link_preview.clone(),
            machines: self.machines(),
            replay_render_lease_secs: self.replay_render_lease_secs,
            chat: ChatConfig { turn_limit: self.chat_turn_limit, turn_price: self.chat_turn_price },
            ..CoreConfig::default()
        }
    }

    /// The machine credentials configured (an unset kind opens nothing).
    pub fn machines(&self) -> MachineSecrets {
        let mut secrets = MachineSecrets::default();
        for (kind, secret) in [
            (MachineKind::SupportBridge, &self.support_bridge_secret),
            (MachineKind::Analyst, &self.analyst_token),
            (MachineKind::Action, &self.action_token),
            (MachineKind::Renderer, &self.renderer_token),
        ] {
            if let Some(secret) = secret {
                secrets = secrets.with(kind, secret);
            }
        }
        secrets
    }

    /// True when the server's public URL, or without one its listen address, is a loopback
    /// address (127.0.0.0/8, ::1 or localhost).
    pub fn serves_loopback_only(&self) -> bool {
        let host = match &self.public_url {
            Some(url) => url.parse::<axum::http::Uri>().ok().and_then(|u| u.host().map(str::to_string)),
            None => match self.listen.parse::<std::net::SocketAddr>() {
                Ok(addr) => return addr.ip().is_loopback(),
                Err(_) => self.listen.rsplit_once(':').map(|(host, _)| host.to_string()),
            },
        };
        let Some(host) = host else { return false };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// True when the listen address is a loopback address (127.0.0.0/8, ::1 or localhost): the
    /// agent endpoint then checks the Host header against DNS rebinding (`auth::host_is_ours`).
    pub fn listens_on_loopback(&self) -> bool {
        if let Ok(addr) = self.listen.parse::<std::net::SocketAddr>() {
            return addr.ip().is_loopback();
        }
        let host = self.listen.rsplit_once(':').map_or(self.listen.as_str(), |(host, _)| host);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
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

    /// The SMTP adapter letters go out through; None when no SMTP server is configured (letters
    /// are archived only). An unusable URL or sender, or a URL without a sender, is refused.
    pub fn mailer(&self) -> Result<Option<SmtpMailer>, ConfigError> {
        let Some(url) = &self.smtp_url else { return Ok(None) };
        let Some(from) = &self.mail_from else {
            return Err(ConfigError::Env("STUDIO_SMTP_URL", "needs STUDIO_MAIL_FROM, the letters' sender".into()));
        };
        SmtpMailer::new(url, from)
            .map(Some)
            .map_err(|e| ConfigError::Env("STUDIO_SMTP_URL or STUDIO_MAIL_FROM", e.to_string()))
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

    /// fal for the depth and segment-by-label lanes, when a key is set.
    pub fn fal_lanes(&self) -> Option<FalLanes> {
        let pick = |set: &Option<String>, default: &str| {
            set.as_deref().map(str::trim).filter(|m| !m.is_empty()).unwrap_or(default).to_string()
        };
        Some(FalLanes {
            provider: FalProvider::new(self.fal_config()?),
            depth_model: pick(&self.fal_depth_model, FalLanes::DEFAULT_DEPTH_MODEL),
            segment_model: pick(&self.fal_segment_model, FalLanes::DEFAULT_SEGMENT_MODEL),
        })
    }

    /// Where blobs live: `s3://bucket`, `file://PATH`, or `blobs/` under the data directory.
    pub fn blob_config(&self) -> Result<BlobConfig, ConfigError> {
        match self.blob_url.as_deref() {
            None => Ok(BlobConfig::Local(self.data_dir.join("blobs"))),
            Some(url) if url.starts_with("file://") => Ok(BlobConfig::Local(PathBuf::from(&url["file://".len()..]))),
            Some(url) if url.starts_with("s3://") => {
                let bucket = url["s3://".len()..].trim_end_matches('/').to_string();
                if bucket.is_empty() || bucket.contains('/') {
                    return Err(ConfigError::Env("STUDIO_BLOB_URL", format!("s3://BUCKET names one bucket: {url:?}")));
                }
                Ok(BlobConfig::S3(S3Config {
                    bucket,
                    endpoint: self.s3_endpoint.clone(),
                    region: self.s3_region.clone(),
                    access_key_id: self.s3_access_key_id.clone(),
                    secret_access_key: self.s3_secret_access_key.clone(),
                    allow_http: self.s3_endpoint.as_deref().is_some_and(|e| e.starts_with("http://")),
                }))
            }
            Some(url) => Err(ConfigError::Env("STUDIO_BLOB_URL", format!("use s3://BUCKET or file://PATH: {url:?}"))),
        }
    }

    /// The base URL to print: the public URL, else the bound address.
    pub fn public_base(&self, bound: SocketAddr) -> String {
        self.public_url.clone().unwrap_or_else(|| format!("http://{bound}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn environment_beats_file_beats_defaults() {
        let dir = tempfile_dir();
        let file = dir.join("studio.toml");
        std::fs::write(
            &file,
            "listen = \"0.0.0.0:9000\"\nsignup_grant_tokens = 7\nadmin_emails = [\"Boss@Example.com\"]\n",
        )
        .unwrap();
        let env: HashMap<&str, &str> =
            HashMap::from([("STUDIO_SIGNUP_GRANT_TOKENS", "42"), ("STUDIO_PUBLIC_URL", "https://studio.example/")]);
        let c = ServerConfig::load(Some(&file), |k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.listen, "0.0.0.0:9000");
        assert_eq!(c.signup_grant_tokens, 42);
        assert_eq!(c.admin_emails, vec!["boss@example.com".to_string()]);
        assert_eq!(c.public_url.as_deref(), Some("https://studio.example"));
        assert_eq!(c.data_dir, PathBuf::from("./studio-data"));
        assert!(c.database_url().starts_with("sqlite://"));
    }

    #[test]
    fn debug_output_hides_secrets() {
        let c = ServerConfig {
            fal_key: Some("fal-secret-value".into()),
            ai_key: Some("ai-secret-value".into()),
            s3_secret_access_key: Some("s3-secret-value".into()),
            database_url: Some("postgres://user:pg-secret-value@db/studio".into()),
            ..ServerConfig::default()
        };
        let printed = format!("{c:?}");
        assert!(!printed.contains("secret-value"), "{printed}");
        assert!(printed.contains("<redacted>"));
    }

    #[test]
    fn runner_and_fal_settings_from_the_environment() {
        let env: HashMap<&str, &str> = HashMap::from([
            ("STUDIO_RUNNER_CONCURRENCY", "4"),
            ("STUDIO_FAL_KEY", "k"),
            ("STUDIO_FAL_MODELS", "tryon=fal-ai/tryon, lookbook-video=fal-ai/video"),
        ]);
        let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.runner_concurrency, 4);
        assert_eq!(c.fal_models.get("tryon").map(String::as_str), Some("fal-ai/tryon"));
        let tools = c.providers().tools().to_vec();
        assert!(tools.contains(&"tryon".to_string()) && tools.contains(&"upscale".to_string()), "{tools:?}");
        assert!(ServerConfig::load(None, |k| (k == "STUDIO_RUNNER_LEASE_SECS").then(|| "1".to_string())).is_err());
        assert!(ServerConfig::load(None, |k| (k == "STUDIO_FAL_MODELS").then(|| "tryon".to_string())).is_err());
    }

    #[test]
    fn the_catalog_comes_from_the_file() {
        let dir = tempfile_dir();
        let file = dir.join("catalog.toml");
        std::fs::write(
            &file,
            "[[billing_packs]]\nslug = \"pack_250\"\ntokens = 300\nprice_cents = 1200\n\n\
             [[billing_packs]]\nslug = \"pack_1000\"\ntokens = 1000\nprice_cents = 3600\nactive = false\n",
        )
        .unwrap();
        let c = ServerConfig::load(Some(&file), |_| None).unwrap();
        assert_eq!(c.billing_catalog.packs.len(), 2);
        assert_eq!((c.billing_catalog.packs[0].tokens, c.billing_catalog.packs[1].active), (300, false));
        assert_eq!(c.billing_catalog.tiers, studio_core::BillingConfig::default().tiers, "tiers keep their default");
        std::fs::write(&file, "[[billing_packs]]\nslug = \"pack_9\"\ntokens = 1\nprice_cents = 1\n").unwrap();
        assert!(ServerConfig::load(Some(&file), |_| None).is_err());
    }

    #[test]
    fn polar_needs_its_token_and_the_webhook_secret() {
        let base: HashMap<&str, &str> = HashMap::from([
            ("STUDIO_BILLING", "polar"),
            ("STUDIO_POLAR_TOKEN", "polar_oat_x"),
            ("STUDIO_PAYMENTS_WEBHOOK_SECRET", "whsec_c2VjcmV0"),
            ("STUDIO_POLAR_PRODUCTS", "pack_250=prod_1,studio=prod_2"),
        ]);
        let c = ServerConfig::load(None, |k| base.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(c.payments().map(|p| p.name()), Some("polar"));
        assert_eq!(c.polar_products.get("pack_250").map(String::as_str), Some("prod_1"));
        assert!(!format!("{c:?}").contains("polar_oat_x"));
        let without_token = |k: &str| base.get(k).filter(|_| k != "STUDIO_POLAR_TOKEN").map(|v| v.to_string());
        assert!(ServerConfig::load(None, without_token).is_err());
    }

    #[test]
    fn billing_is_off_unless_configured() {
        let c = ServerConfig::load(None, |_| None).unwrap();
        assert!(c.payments().is_none() && c.core_config().payments.is_none(), "no provider by default");
        let env: HashMap<&str, &str> =
            HashMap::from([("STUDIO_BILLING", "test"), ("STUDIO_PAYMENTS_WEBHOOK_SECRET", "whsec_c2VjcmV0")]);
        let test = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(test.payments().map(|p| p.name()), Some("test"));
        assert_eq!(test.payments().map(|p| p.webhook_secret().to_string()).as_deref(), Some("whsec_c2VjcmV0"));
        assert!(!format!("{test:?}").contains("whsec_c2VjcmV0"));
        assert!(ServerConfig::load(None, |k| (k == "STUDIO_BILLING").then(|| "paypal".to_string())).is_err());
    }

    #[test]
    fn the_listen_address_says_whether_host_is_checked() {
        let listening = |listen: &str| ServerConfig { listen: listen.to_string(), ..ServerConfig::default() };
        for listen in ["127.0.0.1:8787", "127.0.0.1:0", "127.9.9.9:80", "[::1]:8787", "localhost:8787", "LOCALHOST:1"] {
            assert!(listening(listen).listens_on_loopback(), "{listen} is loopback");
        }
        for listen in ["0.0.0.0:8787", "[::]:8787", "10.0.0.5:8787", "studio.example:8787"] {
            assert!(!listening(listen).listens_on_loopback(), "{listen} is not loopback");
        }
        assert!(ServerConfig::default().listens_on_loopback(), "the default listen address is loopback");
    }

    #[test]
    fn test_mode_runs_only_on_loopback_unless_told_otherwise() {
        let load = |pairs: &[(&str, &str)]| {
            let env: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            ServerConfig::load(None, move |k| env.get(k).cloned())
        };
        let test = ("STUDIO_BILLING", "test");
        for url in ["http://127.0.0.1:8787", "http://localhost:9000/", "http://[::1]:8787", "https://127.8.0.1"] {
            assert!(load(&[test, ("STUDIO_PUBLIC_URL", url)]).is_ok(), "{url} is loopback");
        }
        assert!(load(&[test]).is_ok(), "the default listen address is loopback");
        for url in
            ["https://studio.example", "http://10.0.0.5:8787", "http://user@studio.example", "http://[2001:db8::1]"]
        {
            let refused = load(&[test, ("STUDIO_PUBLIC_URL", url)]);
            assert!(matches!(refused, Err(ConfigError::Env("STUDIO_BILLING=test", _))), "{url} is refused");
            assert!(load(&[test, ("STUDIO_PUBLIC_URL", url), ("STUDIO_BILLING_TEST_ANYWHERE", "1")]).is_ok());
        }
        assert!(load(&[test, ("STUDIO_LISTEN", "0.0.0.0:8787")]).is_err(), "every interface is not loopback");
        assert!(load(&[("STUDIO_PUBLIC_URL", "https://studio.example")]).is_ok(), "off needs no loopback");
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(ServerConfig::load(None, |k| (k == "STUDIO_SIGNUP_GRANT_TOKENS").then(|| "lots".to_string())).is_err());
        assert!(
            ServerConfig::load(None, |k| (k == "STUDIO_PUBLIC_URL").then(|| "studio.example".to_string())).is_err()
        );
        let dir = tempfile_dir();
        let file = dir.join("bad.toml");
        std::fs::write(&file, "lisen = 1").unwrap();
        assert!(matches!(ServerConfig::load(Some(&file), |_| None), Err(ConfigError::Parse(..))));
    }

    #[test]
    fn ai_settings_come_all_three_or_none() {
        let none = ServerConfig::load(None, |_| None).unwrap();
        assert!(none.ai_config().is_none() && none.core_config().ai.is_none());

        let env: HashMap<&str, &str> = HashMap::from([
            ("STUDIO_AI_URL", "https://ai.example/v1/"),
            ("STUDIO_AI_KEY", "sk-env"),
            ("STUDIO_AI_MODEL", "vision-1"),
        ]);
        let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
        let ai = c.core_config().ai.expect("configured");
        assert_eq!(
            (ai.base_url.as_str(), ai.key.as_str(), ai.model.as_str()),
            ("https://ai.example/v1", "sk-env", "vision-1")
        );
        let printed = format!("{c:?} {ai:?}");
        assert!(!printed.contains("sk-env"), "{printed}");

        // The file names them ai_url, ai_key, ai_model; the environment wins.
        let dir = tempfile_dir();
        let file = dir.join("ai.toml");
        std::fs::write(&file, "ai_url = \"http://127.0.0.1:8080/v1\"\nai_key = \"\"\nai_model = \"local\"\n").unwrap();
        let from_file = ServerConfig::load(Some(&file), |_| None).unwrap().ai_config().expect("configured");
        assert_eq!((from_file.base_url.as_str(), from_file.key.as_str()), ("http://127.0.0.1:8080/v1", ""));
        let env_model = ServerConfig::load(Some(&file), |k| (k == "STUDIO_AI_MODEL").then(|| "other".to_string()));
        assert_eq!(env_model.unwrap().ai_config().expect("configured").model, "other");

        // Some but not all, or a URL that is not http(s): refused.
        for partial in [&["STUDIO_AI_URL"][..], &["STUDIO_AI_KEY", "STUDIO_AI_MODEL"], &["STUDIO_AI_MODEL"]] {
            let only: HashMap<&str, &str> =
                env.iter().filter(|(k, _)| partial.contains(k)).map(|(k, v)| (*k, *v)).collect();
            assert!(ServerConfig::load(None, |k| only.get(k).map(|v| v.to_string())).is_err(), "{partial:?}");
        }
        let mut bad = env.clone();
        bad.insert("STUDIO_AI_URL", "ai.example");
        assert!(ServerConfig::load(None, |k| bad.get(k).map(|v| v.to_string())).is_err());
    }

    #[test]
    fn rate_limit_settings() {
        let c = ServerConfig::load(None, |_| None).unwrap();
        assert_eq!((c.rate_limit_per_min, c.rate_limit_burst, c.trust_forwarded), (30, 10, false));
        let env: HashMap<&str, &str> = HashMap::from([
            ("STUDIO_RATE_LIMIT_PER_MIN", "0"),
            ("STUDIO_RATE_LIMIT_BURST", "0"),
            ("STUDIO_TRUST_FORWARDED", "TRUE"),
        ]);
        let off = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!((off.rate_limit_per_min, off.trust_forwarded), (0, true), "0 turns the limit off");
        let dir = tempfile_dir();
        let file = dir.join("limits.toml");
        std::fs::write(&file, "rate_limit_per_min = 120\nrate_limit_burst = 40\ntrust_forwarded = true\n").unwrap();
        let from_file = ServerConfig::load(Some(&file), |_| None).unwrap();
        assert_eq!(
            (from_file.rate_limit_per_min, from_file.rate_limit_burst, from_file.trust_forwarded),
            (120, 40, true)
        );
        let bad = |name: &'static str, value: &'static str| {
            ServerConfig::load(None, move |k| (k == name).then(|| value.to_string())).is_err()
        };
        assert!(bad("STUDIO_RATE_LIMIT_BURST", "0"), "no burst while the limit is on");
        assert!(bad("STUDIO_RATE_LIMIT_PER_MIN", "-1"));
        assert!(bad("STUDIO_TRUST_FORWARDED", "maybe"));
    }

    #[test]
    fn mail_settings() {
        let none = ServerConfig::load(None, |_| None).unwrap();
        assert!(none.mailer().unwrap().is_none(), "no SMTP by default: letters are archived only");
        assert_eq!(none.core_config().mail.link_base, "http://127.0.0.1:8787", "links default to the listen address");
        assert!(none.core_config().mail.webhook_secret.is_none());
        let env: HashMap<&str, &str> = HashMap::from([
            ("STUDIO_SMTP_URL", "smtps://ada:pa55word@mail.example.com"),
            ("STUDIO_MAIL_FROM", "Studio <studio@example.com>"),
            ("STUDIO_MAIL_WEBHOOK_SECRET", "whsec_bWFpbA=="),
            ("STUDIO_PUBLIC_URL", "https://studio.example/"),
        ]);
        let c = ServerConfig::load(None, |k| env.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(
            c.mailer().unwrap().map(|m| m.server().to_string()).as_deref(),
            Some("smtps://ada:***@mail.example.com")
        );
        let core = c.core_config();
        assert_eq!(
            (core.mail.link_base.as_str(), core.mail.webhook_secret.as_deref()),
            ("https://studio.example", Some("whsec_bWFpbA=="))
        );
        let printed = format!("{c:?}");
        assert!(!printed.contains("pa55word") && !printed.contains("bWFpbA"), "{printed}");
        let without_from = |k: &str| env.get(k).filter(|_| k != "STUDIO_MAIL_FROM").map(|v| v.to_string());
        assert!(ServerConfig::load(None, without_from).is_err(), "a sender is required with SMTP");
        let bad_url = |k: &str| {
            if k == "STUDIO_SMTP_URL" {
                Some("mail.example.com".to_string())
            } else {
                env.get(k).map(|v| v.to_string())
            }
        };
        assert!(ServerConfig::load(None, bad_url).is_err());
        let dir = tempfile_dir();
        let file = dir.join("mail.toml");
        std::fs::write(&file, "smtp_url = \"smtp://127.0.0.1:2525\"\nmail_from = \"studio@example.com\"\n").unwrap();
        assert!(ServerConfig::load(Some(&file), |_| None).unwrap().mailer().unwrap().is_some());
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("studio-config-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_signing_key_is_configured_or_generated_once_in_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let c = ServerConfig { data_dir: dir.path().join("data"), ..ServerConfig::default() };
        let first = c.signing_key().expect("generated");
        let path = c.data_dir.join("signing.key");
        let kept = std::fs::read_to_string(&path).expect("kept in the data dir");
        assert_eq!(kept.trim().len(), 64, "32 random bytes as hex");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(c.signing_key().expect("read again"), first, "generated once, then reused");
        let set = ServerConfig { signing_key: Some("k".repeat(40)), ..c.clone() };
        assert_ne!(set.signing_key().expect("configured"), first, "STUDIO_SIGNING_KEY wins over the file");
        let short = ServerConfig { signing_key: Some("short".into()), ..c };
        assert!(matches!(short.signing_key(), Err(ConfigError::Env("STUDIO_SIGNING_KEY", _))));
    }

    #[test]
    fn processes_starting_together_share_one_whole_signing_key() {
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let c = ServerConfig { data_dir: dir.path().join("data"), ..ServerConfig::default() };
            let keys: Vec<SigningKey> = std::thread::scope(|s| {
                let starts: Vec<_> = (0..8).map(|_| s.spawn(|| c.signing_key().expect("whole key"))).collect();
                starts.into_iter().map(|t| t.join().unwrap()).collect()
            });
            assert!(keys.windows(2).all(|w| w[0] == w[1]), "every start uses the one key published");
            let names: Vec<_> = std::fs::read_dir(&c.data_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(names, vec![std::ffi::OsString::from("signing.key")], "no temporary file is left");
        }
    }
}
