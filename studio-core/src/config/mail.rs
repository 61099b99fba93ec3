//! How mail works: the links letters carry, the outbox's leases and retries, the delivery
//! webhook's secret and the email tokens' lifetimes.

/// Mail settings. The SMTP server itself is not here: the binary builds the
/// [`SmtpMailer`](crate::SmtpMailer) and hands it to the delivery worker.
#[derive(Clone, PartialEq, Eq)]
pub struct MailConfig {
    /// Base of the links in letters (no trailing slash), e.g. `https://studio.example`.
    pub link_base: String,
    /// The Standard Webhooks secret the mail provider signs delivery reports with; None
    /// answers the webhook 503 `MAIL_WEBHOOK_NOT_CONFIGURED`.
    pub webhook_secret: Option<String>,
    /// A claimed letter whose claim is not finished within this many seconds is taken over.
    pub lease_secs: i64,
    /// Attempts before a letter is `failed`.
    pub max_attempts: i64,
    /// Wait after the first failed attempt, in milliseconds; each later wait is four times
    /// the one before, at most [`MailConfig::max_retry_ms`].
    pub retry_base_ms: i64,
    /// The longest wait between attempts, in milliseconds.
    pub max_retry_ms: i64,
    /// A letter still unsent this many hours after it was posted is `failed`, not sent late.
    pub max_age_hours: i64,
    /// How often the worker looks for due letters when nothing wakes it, in milliseconds.
    pub poll_ms: u64,
    /// A verification link works this many hours.
    pub verify_hours: i64,
    /// A password-reset link works this many minutes.
    pub reset_minutes: i64,
    /// Verification or reset letters one person may be sent per hour.
    pub letters_per_hour: i64,
}

impl std::fmt::Debug for MailConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailConfig")
            .field("link_base", &self.link_base)
            .field("webhook_secret", &self.webhook_secret.as_ref().map(|_| "<redacted>"))
            .field("lease_secs", &self.lease_secs)
            .field("max_attempts", &self.max_attempts)
            .field("retry_base_ms", &self.retry_base_ms)
            .field("max_age_hours", &self.max_age_hours)
            .finish_non_exhaustive()
    }
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            link_base: "http://127.0.0.1:8787".to_string(),
            webhook_secret: None,
            lease_secs: 60,
            max_attempts: 5,
            retry_base_ms: 30_000,
            max_retry_ms: 3_600_000,
            max_age_hours: 48,
            poll_ms: 5_000,
            verify_hours: 48,
            reset_minutes: 60,
            letters_per_hour: 3,
        }
    }
}

impl MailConfig {
    /// The wait after failed attempt number `attempts` (1 for the first): the base, times four
    /// per earlier failure, capped.
    pub fn retry_delay_ms(&self, attempts: i64) -> i64 {
        let exponent = u32::try_from((attempts - 1).clamp(0, 15)).unwrap_or(0);
        self.retry_base_ms.max(1).saturating_mul(4i64.saturating_pow(exponent)).min(self.max_retry_ms.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::MailConfig;

    #[test]
    fn retries_back_off_four_times_and_cap() {
        let c = MailConfig::default();
        let waits: Vec<i64> = (1..=6).map(|a| c.retry_delay_ms(a)).collect();
        assert_eq!(waits, [30_000, 120_000, 480_000, 1_920_000, 3_600_000, 3_600_000]);
        assert!(!format!("{:?}", MailConfig { webhook_secret: Some("whsec_x".into()), ..c }).contains("whsec_x"));
    }
}
