//! Standard Webhooks signing and verification (<https://www.standardwebhooks.com>).
//!
//! A delivery carries three headers: `webhook-id` (unique per event, kept across retries),
//! `webhook-timestamp` (seconds since the epoch) and `webhook-signature`, a space-separated list
//! of `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. The secret is `whsec_` followed by
//! the base64 of the key bytes; a secret without that prefix is used as raw bytes.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far a delivery's timestamp may be from our clock, either way (5 minutes).
pub const TIMESTAMP_TOLERANCE_SECS: i64 = 300;

/// Why a delivery was refused (every case answers 401 `BAD_SIGNATURE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// A header is missing or empty.
    #[error("missing header {0}")]
    MissingHeader(&'static str),
    /// `webhook-timestamp` is not a whole number of seconds.
    #[error("webhook-timestamp is not a number")]
    BadTimestamp,
    /// The timestamp is outside the tolerance (a stale or future delivery).
    #[error("webhook-timestamp is outside the tolerance")]
    Stale,
    /// No `v1` signature matches.
    #[error("no signature matches")]
    NoMatch,
    /// The secret is not usable (`whsec_` with bad base64, or empty).
    #[error("the webhook secret is malformed")]
    BadSecret,
}

/// The three Standard Webhooks headers of one delivery, as received.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookHeaders {
    /// `webhook-id`.
    pub id: Option<String>,
    /// `webhook-timestamp`.
    pub timestamp: Option<String>,
    /// `webhook-signature`.
    pub signature: Option<String>,
}

/// The key bytes of a secret: base64 after `whsec_`, else the string's bytes.
fn key_bytes(secret: &str) -> Result<Vec<u8>, WebhookError> {
    let key = match secret.strip_prefix("whsec_") {
        Some(b64) => STANDARD.decode(b64.trim()).map_err(|_| WebhookError::BadSecret)?,
        None => secret.as_bytes().to_vec(),
    };
    if key.is_empty() {
        return Err(WebhookError::BadSecret);
    }
    Ok(key)
}

fn mac(key: &[u8], id: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `webhook-signature` value (`v1,<base64>`) for a delivery.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, WebhookError> {
    let key = key_bytes(secret)?;
    let tag = mac(&key, id, &timestamp.to_string(), body).finalize().into_bytes();
    Ok(format!("v1,{}", STANDARD.encode(tag)))
}

/// Verify a delivery at `now` (seconds since the epoch): the timestamp within
/// [`TIMESTAMP_TOLERANCE_SECS`] and one `v1` signature matching, compared in constant time.
/// Answers the webhook id on success.
pub fn verify(secret: &str, headers: &WebhookHeaders, body: &[u8], now: i64) -> Result<String, WebhookError> {
    let present = |v: &Option<String>, name| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or(WebhookError::MissingHeader(name))
    };
    let id = present(&headers.id, "webhook-id")?;
    let timestamp = present(&headers.timestamp, "webhook-timestamp")?;
    let signatures = present(&headers.signature, "webhook-signature")?;
    let ts: i64 = timestamp.parse().map_err(|_| WebhookError::BadTimestamp)?;
    if now.abs_diff(ts) > TIMESTAMP_TOLERANCE_SECS.unsigned_abs() {
        return Err(WebhookError::Stale);
    }
    let key = key_bytes(secret)?;
    let expected = mac(&key, &id, &timestamp, body);
    for candidate in signatures.split(' ') {
        let Some(("v1", b64)) = candidate.split_once(',') else { continue };
        let Ok(tag) = STANDARD.decode(b64) else { continue };
        if expected.clone().verify_slice(&tag).is_ok() {
            return Ok(id);
        }
    }
    Err(WebhookError::NoMatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example of the Standard Webhooks specification.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TS: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn headers(signature: &str, ts: i64) -> WebhookHeaders {
        WebhookHeaders { id: Some(ID.into()), timestamp: Some(ts.to_string()), signature: Some(signature.into()) }
    }

    #[test]
    fn the_specification_vector() {
        assert_eq!(sign(SECRET, ID, TS, BODY).unwrap(), SIGNATURE);
        assert_eq!(verify(SECRET, &headers(SIGNATURE, TS), BODY, TS + 10).unwrap(), ID);
        // Several signatures (key rotation): any matching one is enough.
        let several = format!("v1,Zm9yZ2Vk v2,abc {SIGNATURE}");
        assert!(verify(SECRET, &headers(&several, TS), BODY, TS).is_ok());
    }

    #[test]
    fn forged_stale_and_missing_are_refused() {
        let other = "whsec_".to_string() + &STANDARD.encode(b"another secret entirely");
        assert_eq!(verify(&other, &headers(SIGNATURE, TS), BODY, TS), Err(WebhookError::NoMatch));
        assert_eq!(verify(SECRET, &headers(SIGNATURE, TS), br#"{"test": 1}"#, TS), Err(WebhookError::NoMatch));
        assert_eq!(
            verify(SECRET, &headers(SIGNATURE, TS), BODY, TS + TIMESTAMP_TOLERANCE_SECS + 1),
            Err(WebhookError::Stale)
        );
        assert_eq!(
            verify(SECRET, &headers(SIGNATURE, TS), BODY, TS - TIMESTAMP_TOLERANCE_SECS - 1),
            Err(WebhookError::Stale)
        );
        // The farthest timestamps a header can carry are stale, not an arithmetic overflow.
        for far in [i64::MIN, i64::MAX] {
            assert_eq!(verify(SECRET, &headers(SIGNATURE, far), BODY, TS), Err(WebhookError::Stale));
        }
        // The signature covers the timestamp: moving it breaks the match.
        assert_eq!(verify(SECRET, &headers(SIGNATURE, TS + 1), BODY, TS), Err(WebhookError::NoMatch));
        let mut missing = headers(SIGNATURE, TS);
        missing.signature = None;
        assert_eq!(verify(SECRET, &missing, BODY, TS), Err(WebhookError::MissingHeader("webhook-signature")));
        let mut bad_ts = headers(SIGNATURE, TS);
        bad_ts.timestamp = Some("yesterday".into());
        assert_eq!(verify(SECRET, &bad_ts, BODY, TS), Err(WebhookError::BadTimestamp));
        assert_eq!(verify(SECRET, &headers("v1,not-base64!", TS), BODY, TS), Err(WebhookError::NoMatch));
        assert_eq!(sign("whsec_***", ID, TS, BODY), Err(WebhookError::BadSecret));
    }

    #[test]
    fn raw_secrets_sign_and_verify() {
        let sig = sign("plain secret", ID, TS, BODY).unwrap();
        assert!(verify("plain secret", &headers(&sig, TS), BODY, TS).is_ok());
        assert!(verify("other secret", &headers(&sig, TS), BODY, TS).is_err());
    }
}
