//! Fuzz Standard Webhooks verification (`studio_core::verify_webhook`), the only authority that
//! grants bought tokens.
//!
//! Input: a secret (a `whsec_` one from fuzzed key bytes, or raw text), the three headers as
//! received, a body and the clock.
//!
//! Properties: never a panic; a refusal names the first thing wrong (a blank header is
//! `MissingHeader`, an unreadable timestamp `BadTimestamp`); a fuzzed signature header verifies
//! only when it carries the very signature `sign_webhook` makes for that delivery; a delivery
//! signed with `sign_webhook` verifies (beside fuzzed candidates too, as in a key rotation) and
//! stops verifying when its body gains a byte or its secret changes.

#![no_main]

use arbitrary::Arbitrary;
use base64::Engine;
use libfuzzer_sys::fuzz_target;
use studio_core::{TIMESTAMP_TOLERANCE_SECS, WebhookError, WebhookHeaders, sign_webhook, verify_webhook};

#[derive(Arbitrary, Debug)]
enum Secret {
    /// `whsec_` and the base64 of these key bytes.
    Encoded(Vec<u8>),
    /// Any text, used as written.
    Raw(String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    secret: Secret,
    id: Option<String>,
    timestamp: Option<String>,
    signature: Option<String>,
    body: Vec<u8>,
    now: i64,
    /// Seconds between the delivery's timestamp and `now` for the signed round trip.
    skew: i16,
}

fuzz_target!(|input: Input| {
    let secret = match &input.secret {
        Secret::Encoded(key) => format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(key)),
        Secret::Raw(text) => text.clone(),
    };
    let headers =
        WebhookHeaders { id: input.id.clone(), timestamp: input.timestamp.clone(), signature: input.signature.clone() };
    let verdict = verify_webhook(&secret, &headers, &input.body, input.now);

    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if blank(&input.id) || blank(&input.timestamp) || blank(&input.signature) {
        assert!(matches!(verdict, Err(WebhookError::MissingHeader(_))), "{verdict:?}");
        return;
    }
    let Ok(ts) = input.timestamp.as_deref().unwrap_or_default().trim().parse::<i64>() else {
        assert_eq!(verdict, Err(WebhookError::BadTimestamp));
        return;
    };
    if let Ok(id) = &verdict {
        // A match means the header carries the signature of exactly this delivery.
        let canonical = ts.to_string() == input.timestamp.as_deref().unwrap_or_default().trim();
        assert!(canonical, "a non-canonical timestamp {:?} verified", input.timestamp);
        let expected = sign_webhook(&secret, id, ts, &input.body).expect("the secret signed");
        assert!(
            input.signature.as_deref().unwrap_or_default().split(' ').any(|c| c == expected),
            "verified without the delivery's signature: {:?}",
            input.signature
        );
    }

    // The round trip: a delivery signed now verifies within the tolerance.
    let id = input.id.as_deref().unwrap_or_default().trim();
    let Ok(signed) = sign_webhook(&secret, id, ts, &input.body) else { return };
    let Some(now) = ts.checked_add(i64::from(input.skew)) else { return };
    let delivery = |signature: String| WebhookHeaders {
        id: Some(id.to_string()),
        timestamp: Some(ts.to_string()),
        signature: Some(signature),
    };
    let rotated = format!("{} {signed}", input.signature.as_deref().unwrap_or_default().trim());
    let fresh = i64::from(input.skew).abs() <= TIMESTAMP_TOLERANCE_SECS;
    for signature in [signed.clone(), rotated] {
        let verdict = verify_webhook(&secret, &delivery(signature), &input.body, now);
        if fresh {
            assert_eq!(verdict.as_deref(), Ok(id), "a signed delivery is refused");
        } else {
            assert_eq!(verdict, Err(WebhookError::Stale));
        }
    }
    if fresh {
        let mut longer = input.body.clone();
        longer.push(0);
        assert_eq!(verify_webhook(&secret, &delivery(signed.clone()), &longer, now), Err(WebhookError::NoMatch));
        let other = format!("{secret}x");
        assert!(verify_webhook(&other, &delivery(signed), &input.body, now).is_err(), "another secret verifies");
    }
});
