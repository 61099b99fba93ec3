//! Retries: which calls may be sent again, how long to wait between attempts, and the
//! idempotency keys that make spending calls safe to send again.
//!
//! A call is retried on `429`, `502` and `503` and on connection errors, but only when sending
//! it twice cannot do anything twice: a `GET` or `HEAD`, or a spending call that carries an
//! idempotency key (the client generates one when the caller set none). The wait is the
//! server's `Retry-After` (seconds or an HTTP date) when it sends one, capped by
//! [`RetryPolicy::max_retry_after`]; otherwise exponential backoff with jitter.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::header::{HeaderMap, RETRY_AFTER};

/// The statuses that mean "try again later": rate limited, bad gateway, unavailable.
pub(crate) const RETRY_STATUSES: [u16; 3] = [429, 502, 503];

/// How a [`Client`](crate::Client) retries calls that are safe to send again.
///
/// Set it with [`ClientBuilder::retries`](crate::ClientBuilder::retries) or
/// [`ClientBuilder::retry_policy`](crate::ClientBuilder::retry_policy).
///
/// ```
/// use std::time::Duration;
/// use studio_client::RetryPolicy;
///
/// let policy = RetryPolicy { max_retries: 5, base_delay: Duration::from_millis(100), ..RetryPolicy::default() };
/// assert_eq!(policy.max_delay, Duration::from_secs(8));
/// assert_eq!(RetryPolicy::none().max_retries, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 3, so at most 4 attempts; 0 turns retrying off).
    pub max_retries: u32,
    /// The first backoff delay (default 250 ms); it doubles on every further retry.
    pub base_delay: Duration,
    /// The longest backoff delay (default 8 s).
    pub max_delay: Duration,
    /// The longest `Retry-After` honoured (default 60 s); a longer one is cut to this.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries: every call is sent once.
    pub fn none() -> Self {
        RetryPolicy { max_retries: 0, ..RetryPolicy::default() }
    }

    /// The backoff before retry number `retry` (0-based): `base_delay × 2^retry`, capped at
    /// `max_delay`, of which the upper half is random ("equal jitter") so that many clients
    /// refused at once do not come back at once.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let exp = self.base_delay.saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        let spread = half.as_nanos().min(u128::from(u64::MAX)) as u64;
        let jitter = if spread == 0 { 0 } else { random_u64() % (spread + 1) };
        half + Duration::from_nanos(jitter)
    }

    /// The wait before the next attempt after an answer with these headers: the server's
    /// `Retry-After` when it sent one (capped), else the backoff.
    pub(crate) fn wait(&self, retry: u32, headers: &HeaderMap) -> Duration {
        match retry_after(headers, Utc::now()) {
            Some(wait) => wait.min(self.max_retry_after),
            None => self.backoff(retry),
        }
    }
}

/// The `Retry-After` header as a wait from `now`: delta-seconds or an HTTP date (a date in the
/// past is no wait). None when absent or unreadable.
pub(crate) fn retry_after(headers: &HeaderMap, now: DateTime<Utc>) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value).ok()?.with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

/// 64 random bits (from the same source as v4 UUIDs; no extra dependency).
fn random_u64() -> u64 {
    let (hi, lo) = uuid::Uuid::new_v4().as_u64_pair();
    hi ^ lo
}

/// A fresh idempotency key: a random (v4) UUID.
///
/// The client generates one by itself for every spending call whose caller set none, so a
/// retried attempt is recognised by the server and holds nothing more. Generate your own and
/// keep it when the same develop must be recognised across processes (a crash and a re-run):
///
/// ```no_run
/// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
/// use studio_client::{DevelopSubmit, InputSource};
///
/// let key = studio_client::new_idempotency_key();
/// // Store `key` before submitting; submitting again with it returns the same job.
/// let develop = DevelopSubmit::new("upscale")
///     .input("image", InputSource::Path("look.jpg".into()))
///     .idempotency_key(key.clone());
/// let accepted = client.submit_develop(&develop).await?;
/// let again = client.submit_develop(&develop).await?;
/// assert_eq!(accepted.job_id, again.job_id);
/// assert!(again.replayed);
/// # Ok(()) }
/// ```
pub fn new_idempotency_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = DateTime::parse_from_rfc3339("2015-10-21T07:27:50Z").unwrap().with_timezone(&Utc);
        assert_eq!(retry_after(&headers("7"), now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(&headers(" 0 "), now), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers("Wed, 21 Oct 2015 07:28:00 GMT"), now), Some(Duration::from_secs(10)));
        assert_eq!(retry_after(&headers("Wed, 21 Oct 2015 07:27:00 GMT"), now), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers("soon"), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn retry_after_is_capped() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.wait(0, &headers("3600")), Duration::from_secs(60));
        assert_eq!(policy.wait(0, &headers("2")), Duration::from_secs(2));
    }

    #[test]
    fn backoff_doubles_with_jitter_up_to_the_cap() {
        let policy = RetryPolicy::default();
        for retry in 0..40 {
            let full = (Duration::from_millis(250) * 2u32.saturating_pow(retry.min(20))).min(Duration::from_secs(8));
            for _ in 0..20 {
                let d = policy.backoff(retry);
                assert!(d >= full / 2 && d <= full, "retry {retry}: {d:?} within [{:?}, {full:?}]", full / 2);
            }
        }
        let zero = RetryPolicy { base_delay: Duration::ZERO, ..policy };
        assert_eq!(zero.backoff(3), Duration::ZERO);
    }

    #[test]
    fn keys_are_fresh_uuids() {
        let (a, b) = (new_idempotency_key(), new_idempotency_key());
        assert_ne!(a, b);
        assert_eq!(uuid::Uuid::parse_str(&a).unwrap().get_version_num(), 4);
    }
}
