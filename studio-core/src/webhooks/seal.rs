//! How an endpoint's signing secret is kept at rest: sealed, never in clear and never as a bare
//! hash (deliveries must be signed with it, so it has to be recoverable by the server).
//!
//! The sealing keys are derived from the deployment's signing key (`STUDIO_SIGNING_KEY`, or the
//! key generated once into the data directory, see `links.rs`): an encryption key and a MAC key,
//! each HMAC-SHA256(signing key, label). Sealing is encrypt-then-MAC with HMAC-SHA256 as the
//! PRF: a random 16-byte nonce; the keystream is HMAC(enc key, nonce ‖ block counter), XORed
//! with the secret; the tag is HMAC(MAC key, "v1" ‖ nonce ‖ ciphertext). The stored text is
//! `v1.` and the unpadded base64url of nonce ‖ ciphertext ‖ tag. Opening checks the tag in
//! constant time before anything is decrypted. A database dump alone therefore yields no
//! secret; a replica given the same signing key opens what another sealed. Replacing the
//! signing key makes every sealed secret unreadable: the endpoints must then be rotated
//! (docs/webhooks.md).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const NONCE: usize = 16;
const TAG: usize = 32;
const VERSION: &str = "v1.";

fn hmac(key: &[u8], parts: &[&[u8]]) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    for part in parts {
        mac.update(part);
    }
    mac
}

fn derive(signing_key: &[u8], label: &str) -> Vec<u8> {
    hmac(signing_key, &[label.as_bytes()]).finalize().into_bytes().to_vec()
}

fn keystream_xor(enc_key: &[u8], nonce: &[u8], data: &mut [u8]) {
    for (counter, block) in data.chunks_mut(32).enumerate() {
        let counter = u32::try_from(counter).unwrap_or(u32::MAX).to_be_bytes();
        let stream = hmac(enc_key, &[nonce, &counter]).finalize().into_bytes();
        for (byte, k) in block.iter_mut().zip(stream.iter()) {
            *byte ^= k;
        }
    }
}

/// Seal `secret` with keys derived from `signing_key`.
pub(crate) fn seal(signing_key: &[u8], secret: &str) -> String {
    let nonce: [u8; NONCE] = rand::random();
    seal_with_nonce(signing_key, secret, nonce)
}

fn seal_with_nonce(signing_key: &[u8], secret: &str, nonce: [u8; NONCE]) -> String {
    let enc = derive(signing_key, "studio webhook secret encryption v1");
    let mac = derive(signing_key, "studio webhook secret authentication v1");
    let mut data = secret.as_bytes().to_vec();
    keystream_xor(&enc, &nonce, &mut data);
    let tag = hmac(&mac, &[b"v1", &nonce, &data]).finalize().into_bytes();
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    out.extend_from_slice(&tag);
    format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(out))
}

/// Open what [`seal`] sealed under the same signing key; None when it was sealed under another
/// key, altered or is not a sealed value.
pub(crate) fn open(signing_key: &[u8], sealed: &str) -> Option<String> {
    let raw = URL_SAFE_NO_PAD.decode(sealed.strip_prefix(VERSION)?).ok()?;
    if raw.len() < NONCE + TAG {
        return None;
    }
    let (nonce, rest) = raw.split_at(NONCE);
    let (data, tag) = rest.split_at(rest.len() - TAG);
    let mac = derive(signing_key, "studio webhook secret authentication v1");
    hmac(&mac, &[b"v1", nonce, data]).verify_slice(tag).ok()?;
    let enc = derive(signing_key, "studio webhook secret encryption v1");
    let mut data = data.to_vec();
    keystream_xor(&enc, nonce, &mut data);
    String::from_utf8(data).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"a deployment signing key of 32+ bytes";

    #[test]
    fn sealed_secrets_open_under_their_key_only() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let sealed = seal(KEY, secret);
        assert!(!sealed.contains("MfKQ9r8G"), "the secret is not in clear");
        assert_eq!(open(KEY, &sealed).as_deref(), Some(secret));
        assert_ne!(seal(KEY, secret), sealed, "a fresh nonce each time");
        assert_eq!(open(b"another deployment key entirely!!!!", &sealed), None);
        // A long secret spans several keystream blocks.
        let long = "x".repeat(100);
        assert_eq!(open(KEY, &seal(KEY, &long)).as_deref(), Some(long.as_str()));
    }

    #[test]
    fn altered_or_malformed_values_do_not_open() {
        let sealed = seal_with_nonce(KEY, "whsec_abc", [1; NONCE]);
        let mut raw = URL_SAFE_NO_PAD.decode(&sealed[VERSION.len()..]).unwrap();
        for i in [0, NONCE, raw.len() - 1] {
            raw[i] ^= 1;
            assert_eq!(open(KEY, &format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(&raw))), None, "byte {i}");
            raw[i] ^= 1;
        }
        assert_eq!(open(KEY, &format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(&raw))).as_deref(), Some("whsec_abc"));
        for bad in ["", "v1.", "v2.AAAA", "whsec_abc", "v1.not base64!"] {
            assert_eq!(open(KEY, bad), None, "{bad:?}");
        }
    }
}
