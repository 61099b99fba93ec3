//! Signed links: URLs whose authority is a signature scoped to one object and an expiry, not a
//! session (a lane's unkept result today; any object a later route serves the same way).
//!
//! The signature is HMAC-SHA256 over `scope \n object \n expiry` (expiry in Unix seconds) with
//! the deployment's link key, written unpadded base64url. The key is 32 random bytes stored in
//! `signing_keys` by the first replica that needs it (an insert that keeps the first row), so
//! every replica signs and checks alike with no setting; it is read once per process. A check
//! compares in constant time (`Mac::verify_slice`) and refuses a link past its expiry even when
//! the signature is right.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::{Error, ErrorKind, Result};
use crate::studio::Studio;

/// The `signing_keys` row of the link key.
const KEY_NAME: &str = "links";

fn mac(key: &[u8], scope: &str, object: &str, expires: i64) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(format!("{scope}\n{object}\n{expires}").as_bytes());
    mac
}

/// Why a link is refused: a wrong or missing signature is 403; a right one past its expiry 410.
fn refused() -> Error {
    Error::new(ErrorKind::Forbidden, "BAD_SIGNATURE", "This link's signature does not match.")
}

/// Check `signature` over `object` in `scope` until `expires` with `key` (constant time), then
/// the expiry against `now` (Unix seconds): 403 `BAD_SIGNATURE`; 410 `LINK_EXPIRED`.
fn verify(key: &[u8], scope: &str, object: &str, expires: i64, signature: &str, now: i64) -> Result<()> {
    let tag = URL_SAFE_NO_PAD.decode(signature.trim()).map_err(|_| refused())?;
    mac(key, scope, object, expires).verify_slice(&tag).map_err(|_| refused())?;
    if expires < now {
        return Err(Error::new(ErrorKind::Gone, "LINK_EXPIRED", "This link has expired; ask for the result again."));
    }
    Ok(())
}

impl Studio {
    async fn link_key(&self) -> Result<std::sync::Arc<[u8]>> {
        let key = self
            .link_key
            .get_or_try_init(|| async {
                let candidate = crate::ids::random_secret();
                let stored = self.storage.signing_key(KEY_NAME, &candidate, crate::ids::now()).await?;
                let bytes = hex::decode(stored.trim()).map_err(Error::internal)?;
                Ok::<_, Error>(std::sync::Arc::<[u8]>::from(bytes))
            })
            .await?;
        Ok(key.clone())
    }

    /// The signature of `object` in `scope` until `expires` (Unix seconds).
    pub(crate) async fn sign_link(&self, scope: &str, object: &str, expires: i64) -> Result<String> {
        let key = self.link_key().await?;
        Ok(URL_SAFE_NO_PAD.encode(mac(&key, scope, object, expires).finalize().into_bytes()))
    }

    /// Check a link's signature (constant time), then its expiry against `now` (Unix seconds):
    /// 403 `BAD_SIGNATURE`; 410 `LINK_EXPIRED`.
    pub(crate) async fn check_link(
        &self,
        scope: &str,
        object: &str,
        expires: i64,
        signature: &str,
        now: i64,
    ) -> Result<()> {
        verify(&self.link_key().await?, scope, object, expires, signature, now)
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
        let sign = |object: &str, expires: i64| {
            URL_SAFE_NO_PAD.encode(mac(&key, "lane", object, expires).finalize().into_bytes())
        };
        let good = sign("lres_1", 1_000);
        let code = |object: &str, expires: i64, signature: &str, now: i64| {
            verify(&key, "lane", object, expires, signature, now).err().map(|e| e.code)
        };
        assert_eq!(code("lres_1", 1_000, &good, 999), None, "a right link within its time");
        assert_eq!(code("lres_1", 1_000, &good, 1_001), Some("LINK_EXPIRED"));
        assert_eq!(code("lres_1", 9_999, &good, 999), Some("BAD_SIGNATURE"), "a moved expiry");
        assert_eq!(code("lres_2", 1_000, &good, 999), Some("BAD_SIGNATURE"), "another object");
        assert_eq!(code("lres_1", 1_000, "AAAA", 999), Some("BAD_SIGNATURE"), "forged");
        assert_eq!(code("lres_1", 1_000, "not base64!", 999), Some("BAD_SIGNATURE"));
        assert_eq!(code("lres_1", 1_000, &good[..good.len() - 4], 999), Some("BAD_SIGNATURE"), "truncated");
    }
}
