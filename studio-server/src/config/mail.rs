//! Mail's settings: the SMTP server and sender letters go out through, and the secret the mail
//! provider signs delivery reports with.

use studio_core::SmtpMailer;

use super::env::Env;
use super::{ConfigError, ServerConfig};

impl Env<'_> {
    /// `STUDIO_SMTP_URL`, `STUDIO_MAIL_FROM` and `STUDIO_MAIL_WEBHOOK_SECRET`, trimmed.
    pub(super) fn mail(&self, mut c: ServerConfig) -> ServerConfig {
        let set = |name: &str| self.set(name);
        c.smtp_url = set("STUDIO_SMTP_URL").or(c.smtp_url).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        c.mail_from = set("STUDIO_MAIL_FROM").or(c.mail_from).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        c.mail_webhook_secret =
            set("STUDIO_MAIL_WEBHOOK_SECRET").or(c.mail_webhook_secret).filter(|v| !v.trim().is_empty());
        c
    }
}

impl ServerConfig {
    /// A usable SMTP URL with a sender, when one is set.
    pub(super) fn check_mail(&self) -> Result<(), ConfigError> {
        let c = self;
        if c.smtp_url.is_some() {
            c.mailer()?;
        }
        Ok(())
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
}
