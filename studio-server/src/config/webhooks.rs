//! Webhooks' settings: `STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK` (development: http endpoints on a
//! loopback address) and `STUDIO_WEBHOOKS_RETRY_SCHEDULE` (seconds before each retry,
//! comma-separated), `STUDIO_WEBHOOKS_LEASE_SECS` (how long a delivery's claim holds) and
//! `STUDIO_WEBHOOKS_SETTLE_MS` (how long a queued event waits for an earlier one), docs/webhooks.md.

use super::env::Env;
use super::{ConfigError, ServerConfig};

/// The most retries a schedule may list, and the longest single wait (7 days).
const MAX_RETRIES: usize = 30;
const MAX_WAIT_SECS: u64 = 7 * 86_400;

impl Env<'_> {
    /// The variables; a malformed one is refused by name.
    pub(super) fn webhooks(&self, mut c: ServerConfig) -> Result<ServerConfig, ConfigError> {
        if let Some(v) = self.set("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK") {
            c.webhooks.allow_http_loopback = match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" => false,
                _ => {
                    return Err(ConfigError::Env("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK", format!("1 or 0, not {v:?}")));
                }
            };
        }
        if let Some(v) = self.set("STUDIO_WEBHOOKS_RETRY_SCHEDULE") {
            c.webhooks.retry_schedule = retry_schedule(&v)?;
        }
        if let Some(v) = self.set("STUDIO_WEBHOOKS_LEASE_SECS") {
            c.webhooks.lease_secs =
                v.trim().parse::<u64>().ok().filter(|s| (1..=3_600).contains(s)).ok_or_else(|| {
                    ConfigError::Env("STUDIO_WEBHOOKS_LEASE_SECS", format!("1 to 3600 seconds, not {v:?}"))
                })?;
        }
        if let Some(v) = self.set("STUDIO_WEBHOOKS_SETTLE_MS") {
            c.webhooks.settle_ms = v.trim().parse::<u64>().ok().filter(|s| *s <= 5_000).ok_or_else(|| {
                ConfigError::Env("STUDIO_WEBHOOKS_SETTLE_MS", format!("0 to 5000 milliseconds, not {v:?}"))
            })?;
        }
        Ok(c)
    }
}

/// `5,300,1800`: whole seconds, each at most 7 days, at most 30 of them.
fn retry_schedule(v: &str) -> Result<Vec<u64>, ConfigError> {
    let bad = |why: String| ConfigError::Env("STUDIO_WEBHOOKS_RETRY_SCHEDULE", why);
    let waits = v
        .split(',')
        .map(|s| s.trim().parse::<u64>().map_err(|_| bad(format!("whole seconds separated by commas, not {v:?}"))))
        .collect::<Result<Vec<_>, _>>()?;
    if waits.len() > MAX_RETRIES {
        return Err(bad(format!("at most {MAX_RETRIES} retries")));
    }
    if waits.iter().any(|w| *w > MAX_WAIT_SECS) {
        return Err(bad(format!("each wait at most {MAX_WAIT_SECS} seconds")));
    }
    Ok(waits)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn load(pairs: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let env: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ServerConfig::load(None, |k| env.get(k).cloned())
    }

    #[test]
    fn the_webhook_settings_are_read_and_checked() {
        let c = load(&[]).unwrap();
        assert!(!c.webhooks.allow_http_loopback);
        assert!(c.webhooks.retry_schedule.iter().sum::<u64>() >= 86_400, "the default spans a day");
        let c = load(&[("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "1"), ("STUDIO_WEBHOOKS_RETRY_SCHEDULE", "1, 2,3")])
            .unwrap();
        assert!(c.webhooks.allow_http_loopback);
        assert_eq!(c.webhooks.retry_schedule, vec![1, 2, 3]);
        assert_eq!(c.core_config().webhooks, c.webhooks);
        assert_eq!(load(&[]).unwrap().webhooks.lease_secs, 60);
        assert_eq!(load(&[("STUDIO_WEBHOOKS_LEASE_SECS", " 3 ")]).unwrap().webhooks.lease_secs, 3);
        assert_eq!(load(&[]).unwrap().webhooks.settle_ms, 250);
        assert_eq!(load(&[("STUDIO_WEBHOOKS_SETTLE_MS", "0")]).unwrap().webhooks.settle_ms, 0);
        for (name, value) in [
            ("STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK", "maybe"),
            ("STUDIO_WEBHOOKS_RETRY_SCHEDULE", "1,x"),
            ("STUDIO_WEBHOOKS_RETRY_SCHEDULE", "-5"),
            ("STUDIO_WEBHOOKS_RETRY_SCHEDULE", "999999999"),
            ("STUDIO_WEBHOOKS_LEASE_SECS", "0"),
            ("STUDIO_WEBHOOKS_LEASE_SECS", "an hour"),
            ("STUDIO_WEBHOOKS_SETTLE_MS", "6000"),
            ("STUDIO_WEBHOOKS_SETTLE_MS", "soon"),
        ] {
            let refused = load(&[(name, value)]).unwrap_err();
            assert!(refused.to_string().starts_with(name), "{refused}");
        }
    }
}
