//! Organization keys: mint (session only), list (never a secret), revoke (effective on the next
//! request) and authenticate. Only the SHA-256 of a key is stored.

use crate::accounts::Accounts;
use crate::ids::{KeyId, UserId};
use chrono::Duration;

use crate::accounts::key_cache::VerifiedKey;
use crate::api::{ApiKey, KeyList, KeyRole, MintKeyRequest, RevokedKey};
use crate::caller::{Caller, Via};
use crate::error::{Error, Result};
use crate::ids::{random_secret, sha256_hex};
use crate::storage::KeyRow;

/// Every key begins with this.
pub(crate) const KEY_PREFIX: &str = "studio_sk_";
/// How many characters of the secret the listing shows.
const SHOWN_PREFIX_CHARS: usize = KEY_PREFIX.len() + 6;
/// `lastUsedAt` is rewritten at most this often per key, so reads stay reads.
const LAST_USED_RESOLUTION_SECS: i64 = 60;

fn key_view(row: &KeyRow, secret: Option<String>) -> Result<ApiKey> {
    Ok(ApiKey {
        id: row.id.clone().into(),
        name: row.name.clone(),
        role: row.role.parse().map_err(Error::internal)?,
        prefix: row.prefix.clone(),
        last_used_at: row.last_used_at,
        revoked_at: row.revoked_at,
        created_at: row.created_at,
        key: secret,
    })
}

impl Accounts<'_> {
    /// Mint a key for the caller's house. Session only (owner or admin); the secret is in this
    /// answer and nowhere else.
    pub async fn mint_key(&self, caller: &Caller, req: MintKeyRequest) -> Result<ApiKey> {
        caller.require_manage_keys()?;
        let name = req.name.trim().to_string();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(Error::invalid("BAD_NAME", "A key needs a name of 1 to 100 characters."));
        }
        let secret = format!("{KEY_PREFIX}{}", random_secret());
        let row = KeyRow {
            id: KeyId::generate(),
            org_id: caller.org_id.clone(),
            created_by: caller.user_id.clone(),
            name,
            role: req.role.unwrap_or_default().as_str().to_string(),
            prefix: secret[..SHOWN_PREFIX_CHARS].to_string(),
            secret_hash: sha256_hex(&secret),
            last_used_at: None,
            revoked_at: None,
            created_at: crate::ids::now(),
        };
        self.store.insert_key(row.clone()).await?;
        key_view(&row, Some(secret))
    }

    /// Every key the house minted, revoked included, newest first; never a secret.
    pub async fn list_keys(&self, caller: &Caller) -> Result<KeyList> {
        let rows = self.store.list_keys(&caller.org_id).await?;
        Ok(KeyList { keys: rows.iter().map(|r| key_view(r, None)).collect::<Result<_>>()? })
    }

    /// Revoke a key of the caller's house. Idempotent; another house's key id is 404.
    pub async fn revoke_key(&self, caller: &Caller, key_id: &KeyId) -> Result<RevokedKey> {
        caller.require_manage_keys()?;
        match self.store.revoke_key(&caller.org_id, key_id, crate::ids::now()).await? {
            Some(row) => Ok(RevokedKey { revoked: true, id: row.id.into() }),
            None => Err(Error::not_found("NOT_FOUND", "No such key in this house.")),
        }
    }

    /// The caller behind a bearer key. Revocation is honoured on every call: a verified key is
    /// kept in memory only beside its house's key epoch, which every call reads (with the
    /// library version, in one statement) and which any change to the house's keys moves, on
    /// this replica or another (see key_cache.rs).
    pub async fn authenticate_key(&self, secret: &str) -> Result<Caller> {
        let refused = || Error::unauthenticated("No valid session: the key is unknown or revoked.");
        if !secret.starts_with(KEY_PREFIX) {
            return Err(refused());
        }
        let hash = sha256_hex(secret);
        if let Some(kept) = self.studio.keys.get(&hash) {
            let stamp = self.store.house_stamp(&kept.org_id).await?;
            if stamp.key_epoch == kept.epoch {
                return self.key_caller(&hash, kept, stamp.library_version).await;
            }
            self.studio.keys.forget(&hash);
        }
        // The row names the house; the house's epoch is read before the row is trusted.
        let first = self.store.key_by_hash(&hash).await?.ok_or_else(refused)?;
        if first.revoked_at.is_some() {
            return Err(refused());
        }
        let stamp = self.store.house_stamp(&first.org_id).await?;
        let row = self.store.key_by_hash(&hash).await?.ok_or_else(refused)?;
        if row.revoked_at.is_some() || row.org_id != first.org_id {
            return Err(refused());
        }
        let kept = VerifiedKey {
            key_id: row.id.into(),
            org_id: row.org_id.clone(),
            created_by: row.created_by.into(),
            role: row.role,
            epoch: stamp.key_epoch,
            last_used_at: row.last_used_at,
        };
        self.studio.keys.put(hash.clone(), kept.clone());
        self.key_caller(&hash, kept, stamp.library_version).await
    }

    /// The caller of a verified key, recording its use when the last one recorded is stale.
    async fn key_caller(&self, hash: &str, key: VerifiedKey, library_version: i64) -> Result<Caller> {
        let now = crate::ids::now();
        let stale_before = now - Duration::seconds(LAST_USED_RESOLUTION_SECS);
        if key.last_used_at.is_none_or(|t| t < stale_before) {
            match self.store.touch_key(&KeyId::from(&key.key_id), now, stale_before).await {
                Ok(()) => self.studio.keys.used(hash, now),
                Err(e) => tracing::warn!(error = %e, key = %key.key_id, "could not record key use"),
            }
        }
        let role: KeyRole = key.role.parse().map_err(Error::internal)?;
        Ok(Caller {
            org_id: key.org_id,
            user_id: UserId::from(key.created_by),
            role: role.as_seat(),
            via: Via::Key { key_id: key.key_id },
            admin: false,
            library_version: Some(library_version),
        })
    }
}
