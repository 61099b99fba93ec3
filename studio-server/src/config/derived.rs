//! What the server and the core are handed from a loaded configuration: the database URL, the
//! core's configuration, the machine credentials, the blob store, and the loopback questions.

use std::net::SocketAddr;
use std::path::PathBuf;

use studio_core::{
    BlobConfig, ChatConfig, CoreConfig, MachineKind, MachineSecrets, MailConfig, RunnerConfig, S3Config,
};

use super::{ConfigError, ServerConfig};

impl ServerConfig {
    /// The database URL in force: the configured one, or `studio.db` in the data directory.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.data_dir.join("studio.db").display()),
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
            webhooks: self.webhooks.clone(),
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
