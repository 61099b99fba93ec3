//! The headers of one signed delivery: Standard Webhooks, through the same code that verifies
//! the payment and mail webhooks (`payments/webhooks.rs`), so signing and verifying cannot
//! drift. With two live secrets (the 24 hours after a rotation) the signature header carries
//! one `v1,` signature per secret, space-separated, as the scheme allows; a receiver holding
//! either secret accepts the delivery.

use crate::payments::webhooks::{WebhookError, sign};

/// `webhook-id`, `webhook-timestamp` and `webhook-signature` for `body`, signed with each of
/// `secrets` (newest first).
pub(crate) fn headers(
    secrets: &[String],
    id: &str,
    timestamp: i64,
    body: &[u8],
) -> Result<[(&'static str, String); 3], WebhookError> {
    let signatures = secrets.iter().map(|secret| sign(secret, id, timestamp, body)).collect::<Result<Vec<_>, _>>()?;
    if signatures.is_empty() {
        return Err(WebhookError::BadSecret);
    }
    Ok([
        ("webhook-id", id.to_string()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", signatures.join(" ")),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payments::webhooks::{WebhookHeaders, verify};

    #[test]
    fn both_secrets_of_a_rotation_verify_and_the_spec_vector_holds() {
        // The Standard Webhooks specification's own example.
        let spec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_string();
        let [_, _, (_, sig)] = headers(
            std::slice::from_ref(&spec),
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");

        let new = "whsec_bmV3IHNlY3JldCBvZiB0aGUgaG91c2U=".to_string();
        let body = br#"{"type":"job","eventSeq":7}"#;
        let [(_, id), (_, ts), (_, signature)] = headers(&[new.clone(), spec.clone()], "msg_1", 1_000, body).unwrap();
        assert_eq!(signature.split(' ').count(), 2);
        let received = WebhookHeaders { id: Some(id), timestamp: Some(ts), signature: Some(signature) };
        for secret in [&new, &spec] {
            assert_eq!(verify(secret, &received, body, 1_000).as_deref(), Ok("msg_1"));
        }
        let other = "whsec_b3RoZXIgc2VjcmV0".to_string();
        assert!(verify(&other, &received, body, 1_000).is_err());
        assert!(verify(&new, &received, br#"{"type":"job","eventSeq":8}"#, 1_000).is_err());
        assert_eq!(headers(&[], "msg_1", 1_000, body).unwrap_err(), WebhookError::BadSecret);
    }
}
