//! Signed links: URLs whose authority is a signature scoped to one object and an expiry, not a
//! session (a lane's unkept result, a support screenshot).
//!
//! The signature is HMAC-SHA256 over `scope \n object \n expiry` (expiry in Unix seconds) with
//! the deployment's signing key, written unpadded base64url. The key comes from the
//! configuration (`CoreConfig::signing_key`: the server reads `STUDIO_SIGNING_KEY`, else the key
//! it generated once in its data directory), so every replica given the same key signs and
//! checks alike. A check compares in constant time (`Mac::verify_slice`) and refuses a link
//! past its expiry even when the signature is right; each route chooses the status of an
//! expired link (410 for a lane's result, 403 for a screenshot, as the spec says).

use crate::library::Library;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::{Error, ErrorKind};

fn mac(key: &[u8], scope: &str, object: &str, expires: i64) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(format!("{scope}\n{object}\n{expires}").as_bytes());
    mac
}

/// Why a link is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkRefusal {
    /// A wrong, missing or malformed signature (a forged or altered link).
    BadSignature,
    /// A right signature past its expiry.
    Expired,
}

impl LinkRefusal {
    /// The refusal as an error: 403 `BAD_SIGNATURE`; `LINK_EXPIRED` with the status `expired`
    /// maps to (410 Gone for a lane's result, 403 Forbidden for a screenshot).
    pub(crate) fn into_error(self, expired: ErrorKind) -> Error {
        match self {
            LinkRefusal::BadSignature => {
                Error::new(ErrorKind::Forbidden, "BAD_SIGNATURE", "This link's signature does not match.")
            }
            LinkRefusal::Expired => Error::new(expired, "LINK_EXPIRED", "This link has expired; ask for a fresh one."),
        }
    }
}

/// Check `signature` over `object` in `scope` until `expires` with `key` (constant time), then
/// the expiry against `now` (Unix seconds).
fn verify(key: &[u8], scope: &str, object: &str, expires: i64, signature: &str, now: i64) -> Result<(), LinkRefusal> {
    let tag = URL_SAFE_NO_PAD.decode(signature.trim()).map_err(|_| LinkRefusal::BadSignature)?;
    mac(key, scope, object, expires).verify_slice(&tag).map_err(|_| LinkRefusal::BadSignature)?;
    if expires < now {
        return Err(LinkRefusal::Expired);
    }
    Ok(())
}

fn sign(key: &[u8], scope: &str, object: &str, expires: i64) -> String {
    URL_SAFE_NO_PAD.encode(mac(key, scope, object, expires).finalize().into_bytes())
}

impl Library<'_> {
    /// The signature of `object` in `scope` until `expires` (Unix seconds).
    pub(crate) fn sign_link(&self, scope: &str, object: &str, expires: i64) -> String {
        sign(self.studio.config.signing_key.bytes(), scope, object, expires)
    }

    /// Check a link's signature (constant time), then its expiry against `now` (Unix seconds).
    pub(crate) fn check_link(
        &self,
        scope: &str,
        object: &str,
        expires: i64,
        signature: &str,
        now: i64,
    ) -> Result<(), LinkRefusal> {
        verify(self.studio.config.signing_key.bytes(), scope, object, expires, signature, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_covers_scope_object_and_expiry() {
        let key = [7u8; 32];
        let tag = mac(&key, "lane", "lres_1", 100).finalize().into_bytes();
        assert!(mac(&key, "lane", "lres_1", 100).verify_slice(&tag).is_ok());
        for (scope, object, expires) in [("other", "lres_1", 100), ("lane", "lres_2", 100), ("lane", "lres_1", 101)] {
            assert!(mac(&key, scope, object, expires).verify_slice(&tag).is_err(), "{scope} {object} {expires}");
        }
        assert!(mac(&[8u8; 32], "lane", "lres_1", 100).verify_slice(&tag).is_err());
    }

    #[test]
    fn links_are_refused_when_forged_altered_or_expired() {
        let key = [7u8; 32];
        let good = sign(&key, "lane", "lres_1", 1_000);
        let check = |object: &str, expires: i64, signature: &str, now: i64| {
            verify(&key, "lane", object, expires, signature, now).err()
        };
        use LinkRefusal::*;
        assert_eq!(check("lres_1", 1_000, &good, 999), None, "a right link within its time");
        assert_eq!(check("lres_1", 1_000, &good, 1_000), None, "the last second still counts");
        assert_eq!(check("lres_1", 1_000, &good, 1_001), Some(Expired));
        assert_eq!(check("lres_1", 9_999, &good, 999), Some(BadSignature), "a moved expiry");
        assert_eq!(check("lres_2", 1_000, &good, 999), Some(BadSignature), "another object");
        assert_eq!(check("lres_1", 1_000, "AAAA", 999), Some(BadSignature), "forged");
        assert_eq!(check("lres_1", 1_000, "not base64!", 999), Some(BadSignature));
        assert_eq!(check("lres_1", 1_000, "", 999), Some(BadSignature), "missing");
        assert_eq!(check("lres_1", 1_000, &good[..good.len() - 4], 999), Some(BadSignature), "truncated");
        assert_eq!(verify(&[8u8; 32], "lane", "lres_1", 1_000, &good, 999), Err(BadSignature), "another key");
        assert_eq!(check("lres_1", 1_000, &good, 5_000), Some(Expired), "an expired right link is expired, not forged");
    }

    #[test]
    fn each_route_chooses_the_status_of_an_expired_link() {
        let lane = LinkRefusal::Expired.into_error(ErrorKind::Gone);
        assert_eq!((lane.kind, lane.code), (ErrorKind::Gone, "LINK_EXPIRED"));
        let shot = LinkRefusal::Expired.into_error(ErrorKind::Forbidden);
        assert_eq!((shot.kind, shot.code), (ErrorKind::Forbidden, "LINK_EXPIRED"));
        let forged = LinkRefusal::BadSignature.into_error(ErrorKind::Gone);
        assert_eq!((forged.kind, forged.code), (ErrorKind::Forbidden, "BAD_SIGNATURE"));
    }
}
