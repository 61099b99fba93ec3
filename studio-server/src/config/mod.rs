//! Server configuration, loaded once: built-in defaults < optional TOML file < `STUDIO_*`
//! environment. The core never reads the environment; this folder is the only place that does.
//!
//! The struct, its error and `load` live here; one file per concern beside them: defaults.rs
//! (the lowest layer and the redacting `Debug`), file.rs (the TOML layer), env.rs (the
//! environment layer of the server's own settings), validate.rs (checks once every layer has
//! spoken), ai.rs, billing.rs, fal.rs and mail.rs (each sub-setting's variables, checks and
//! adapter), signing.rs (the link-signing key) and derived.rs (what the server and the core are
//! handed from a loaded configuration).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use studio_core::{BillingConfig, MailConfig, PackLimits, PeopleConfig, PreviewPolicy, WebhooksConfig};

mod ai;
mod billing;
mod credentials;
mod defaults;
mod derived;
mod env;
mod fal;
mod file;
mod mail;
mod signing;
mod validate;
mod webhooks;

use env::Env;
use file::FileConfig;

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
    /// `STUDIO_SEGMENTER`: `auto` (default: the cutout tools use the learned segmenter when
    /// `studio-server models fetch` put its weights in the data dir) or `classical`.
    pub segmenter: String,
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
    /// `STUDIO_FAL_CUTOUT_MODEL`: a fal model remove-background runs instead of the local
    /// segmentation (for example `fal-ai/birefnet`; default none: local).
    pub fal_cutout_model: Option<String>,
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
    /// `STUDIO_C2PA_CERT`: path of the PEM certificate chain (signing certificate first) that
    /// content credentials are signed with; set with `STUDIO_C2PA_KEY`, the path of its PEM
    /// private key. Unset: a local certificate authority generated once into
    /// `<data_dir>/content-credentials.pem` (docs/provenance.md).
    pub c2pa_cert: Option<String>,
    /// `STUDIO_C2PA_KEY`: see `c2pa_cert`.
    pub c2pa_key: Option<String>,
    /// The outbox's leases, retries and token lifetimes: the defaults, not read from file or
    /// environment (tests shorten them). Its link base and webhook secret come from the settings
    /// above.
    pub mail: MailConfig,
    /// How link previews reach the network: not read from file or environment, so production
    /// always runs the strict default (public addresses on ports 80 and 443, the system
    /// resolver). Only tests set another (docs/invitations.md).
    pub link_preview: PreviewPolicy,
    /// `STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK`, `STUDIO_WEBHOOKS_RETRY_SCHEDULE`, `STUDIO_WEBHOOKS_LEASE_SECS`
    /// and `STUDIO_WEBHOOKS_SETTLE_MS` (docs/webhooks.md).
    pub webhooks: WebhooksConfig,
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
    /// The content-credentials certificate and key could not be read, generated or used.
    #[error("content credentials: {0}")]
    Credentials(String),
}

impl ServerConfig {
    /// Defaults, then the file at `path` (if any), then the environment read through `env`.
    /// Each layer and check runs in this order, so a configuration with several faults is
    /// refused for the same one whatever the split into files.
    pub fn load(path: Option<&Path>, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut c = ServerConfig::default();
        if let Some(path) = path {
            c = FileConfig::read(path)?.over(c);
        }
        let env = Env(&env);
        c = env.server(c)?;
        c = env.runner(c)?;
        c = env.fal(c)?;
        c = env.ai(c)?;
        c.check_ai()?;
        c.check_catalog()?;
        c = env.billing(c)?;
        c.check_billing_mode()?;
        c = env.rate_limit(c)?;
        c.check_rate_limit()?;
        c = env.switches(c)?;
        c.check_server()?;
        c = env.mail(c);
        c = env.secrets(c);
        c = env.webhooks(c)?;
        c.check_mail()?;
        c.check_test_mode()?;
        c.check_chat()?;
        c.check_segmenter()?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests;
