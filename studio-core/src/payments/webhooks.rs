//! Standard Webhooks signing and verification (<https://www.standardwebhooks.com>).
//!
//! A delivery carries three headers: `webhook-id` (unique per event, kept across retries),
//! `webhook-timestamp` (seconds since the epoch) and `webhook-signature`, a space-separated list
//! of `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`.
//!
//! Providers derive the HMAC key from a `whsec_…` secret in one of two ways, and a delivery
//! verifies under either: the base64-decoded bytes after `whsec_` (the Standard Webhooks rule,
//! newer secrets) or the UTF-8 bytes of the whole string, prefix included (older secrets, and
//! Polar's SDKs). A secret without the prefix is used as its own bytes. [`sign`] uses the first
//! key: the decoded one when there is one.

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
    /// The secret is not usable (empty, or `whsec_` with nothing after it).
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

/// The HMAC keys a secret stands for, the one [`sign`] uses first: for `whsec_<base64>` the
/// decoded bytes (Standard Webhooks), then the whole string's UTF-8 bytes (older secrets); a
/// `whsec_` whose rest is not base64 stands only for its UTF-8 bytes, and any other secret for
/// its own bytes. An empty secret, or `whsec_` with nothing after it, is [`WebhookError::BadSecret`].
fn keys(secret: &str) -> Result<Vec<Vec<u8>>, WebhookError> {
    let raw = secret.as_bytes().to_vec();
    match secret.strip_prefix("whsec_") {
        Some(rest) if rest.trim().is_empty() => Err(WebhookError::BadSecret),
        Some(rest) => match STANDARD.decode(rest.trim()) {
            Ok(decoded) => Ok(vec![decoded, raw]),
            Err(_) => Ok(vec![raw]),
        },
        None if raw.is_empty() => Err(WebhookError::BadSecret),
        None => Ok(vec![raw]),
    }
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

/// The `webhook-signature` value (`v1,<base64>`) for a delivery, under the secret's first key
/// (for `whsec_<base64>`, the Standard Webhooks one).
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, WebhookError> {
    let keys = keys(secret)?;
    let tag = mac(&keys[0], id, &timestamp.to_string(), body).finalize().into_bytes();
    Ok(format!("v1,{}", STANDARD.encode(tag)))
}

/// Verify a delivery at `now` (seconds since the epoch): the timestamp within
/// [`TIMESTAMP_TOLERANCE_SECS`] and one `v1` signature matching under one of the secret's keys
/// (see the module header), each comparison in constant time. Answers the webhook id on success.
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
    let expected: Vec<Hmac<Sha256>> = keys(secret)?.iter().map(|key| mac(key, &id, &timestamp, body)).collect();
    for candidate in signatures.split(' ') {
        let Some(("v1", b64)) = candidate.split_once(',') else { continue };
        let Ok(tag) = STANDARD.decode(b64) else { continue };
        if expected.iter().any(|mac| mac.clone().verify_slice(&tag).is_ok()) {
            return Ok(id);
        }
    }
    Err(WebhookError::NoMatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example of the Standard Webhooks specification: its SIGNATURE is made with the key
    // base64-decoded from after `whsec_`.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TS: i64 = 1614265330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    // The same delivery signed the older way, with the UTF-8 bytes of the whole SECRET as the key
    // (computed outside this code: Python's hmac over `{ID}.{TS}.{BODY}`).
    const SIGNATURE_UTF8_KEY: &str = "v1,TcxlhK9b6UD6iVI1ZU2tTqp8PEVfYRseNNfa6b+LcUg=";

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
        assert_eq!(sign("", ID, TS, BODY), Err(WebhookError::BadSecret));
        assert_eq!(sign("whsec_ ", ID, TS, BODY), Err(WebhookError::BadSecret));
        assert_eq!(verify("whsec_", &headers(SIGNATURE, TS), BODY, TS), Err(WebhookError::BadSecret));
    }

    #[test]
    fn both_secret_formats_verify() {
        // The published vector is checked at its own time (`now` is a parameter), not today's.
        let now = TS + 10;
        assert_eq!(verify(SECRET, &headers(SIGNATURE, TS), BODY, now).as_deref(), Ok(ID));
        assert_eq!(verify(SECRET, &headers(SIGNATURE_UTF8_KEY, TS), BODY, now).as_deref(), Ok(ID));
        let both = format!("{SIGNATURE_UTF8_KEY} {SIGNATURE}");
        assert_eq!(verify(SECRET, &headers(&both, TS), BODY, now).as_deref(), Ok(ID));
        // Signing uses the Standard Webhooks key when the secret has one.
        assert_eq!(sign(SECRET, ID, TS, BODY).unwrap(), SIGNATURE);
        // The tolerance still applies to either format.
        let late = TS + TIMESTAMP_TOLERANCE_SECS + 1;
        assert_eq!(verify(SECRET, &headers(SIGNATURE_UTF8_KEY, TS), BODY, late), Err(WebhookError::Stale));
        // A `whsec_` secret whose rest is not base64 is only its UTF-8 bytes: it signs with them.
        let odd = "whsec_not*base64";
        let sig = sign(odd, ID, TS, BODY).unwrap();
        assert_eq!(verify(odd, &headers(&sig, TS), BODY, TS).as_deref(), Ok(ID));
        assert_ne!(sign("whsec_not*base65", ID, TS, BODY).unwrap(), sig);
    }

    #[test]
    fn forgeries_and_altered_bodies_fail_under_both_formats() {
        let now = TS;
        for signature in [SIGNATURE, SIGNATURE_UTF8_KEY] {
            // The body, id or timestamp changed after signing.
            assert_eq!(
                verify(SECRET, &headers(signature, TS), br#"{"test": 2432232315}"#, now),
                Err(WebhookError::NoMatch)
            );
            let mut longer = BODY.to_vec();
            longer.push(b' ');
            assert_eq!(verify(SECRET, &headers(signature, TS), &longer, now), Err(WebhookError::NoMatch));
            let mut other_id = headers(signature, TS);
            other_id.id = Some("msg_other".into());
            assert_eq!(verify(SECRET, &other_id, BODY, now), Err(WebhookError::NoMatch));
            // Another secret, in either format, does not verify it.
            let other = "whsec_".to_string() + &STANDARD.encode(b"another secret entirely");
            assert_eq!(verify(&other, &headers(signature, TS), BODY, now), Err(WebhookError::NoMatch));
            // Nor does the base64 text without its prefix (its bytes are neither key).
            let unprefixed = SECRET.trim_start_matches("whsec_");
            assert_eq!(verify(unprefixed, &headers(signature, TS), BODY, now), Err(WebhookError::NoMatch));
        }
        // Forged signatures: well-formed but made up, truncated, empty, or the right tag under v2.
        let forged = format!("v1,{}", STANDARD.encode([7u8; 32]));
        let truncated = &SIGNATURE[..SIGNATURE.len() - 4];
        for signature in [forged.as_str(), truncated, "v1,", "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="] {
            assert_eq!(verify(SECRET, &headers(signature, TS), BODY, now), Err(WebhookError::NoMatch), "{signature}");
        }
    }

    #[test]
    fn raw_secrets_sign_and_verify() {
        let sig = sign("plain secret", ID, TS, BODY).unwrap();
        assert!(verify("plain secret", &headers(&sig, TS), BODY, TS).is_ok());
        assert!(verify("other secret", &headers(&sig, TS), BODY, TS).is_err());
    }
}
