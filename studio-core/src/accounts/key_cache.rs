//! A process's verified organization keys, each kept beside its house's key epoch: a counter
//! database triggers move in the same transaction as anything that changes what a key of the
//! house may do (migration 0028/0029: revocation, role, owner, house, secret). A kept key is
//! trusted only while the epoch is the one it was verified at, and every request reads the
//! epoch (with the library version, in one statement), so a revocation on this replica or any
//! other refuses the very next request, as before the cache; what the cache saves is the key
//! row's lookup.
//!
//! The epoch is read before the key row, never after: a row read after epoch `e` holds every
//! change up to `e`, so keeping it under `e` can only make it look staler than it is.

use crate::ids::OrgId;
use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

/// Keys kept at most; when full, the cache starts again empty.
const MAX_ENTRIES: usize = 4096;

/// What a verified key lets its bearer be, as read at `epoch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VerifiedKey {
    /// The key's id.
    pub key_id: String,
    /// Its house.
    pub org_id: OrgId,
    /// The person who minted it.
    pub created_by: String,
    /// Its role, as stored.
    pub role: String,
    /// The house's key epoch when the row was read (read before the row).
    pub epoch: i64,
    /// The last use recorded (or about to be), to keep `lastUsedAt` writes rare.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// Verified keys by the SHA-256 of their secret.
#[derive(Debug, Default)]
pub(crate) struct KeyCache {
    entries: Mutex<HashMap<String, VerifiedKey>>,
}

impl KeyCache {
    /// The key kept for this secret hash, if any (its epoch still to be checked).
    pub(crate) fn get(&self, secret_hash: &str) -> Option<VerifiedKey> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).get(secret_hash).cloned()
    }

    /// Keep a key verified at its epoch.
    pub(crate) fn put(&self, secret_hash: String, key: VerifiedKey) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&secret_hash) {
            entries.clear();
        }
        entries.insert(secret_hash, key);
    }

    /// Forget a key (its epoch moved, or it no longer verifies).
    pub(crate) fn forget(&self, secret_hash: &str) {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).remove(secret_hash);
    }

    /// Note a use recorded at `at`.
    pub(crate) fn used(&self, secret_hash: &str, at: DateTime<Utc>) {
        if let Some(key) = self.entries.lock().unwrap_or_else(|e| e.into_inner()).get_mut(secret_hash) {
            key.last_used_at = Some(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(epoch: i64) -> VerifiedKey {
        VerifiedKey {
            key_id: "key_1".into(),
            org_id: "org_a".into(),
            created_by: "usr_1".into(),
            role: "member".into(),
            epoch,
            last_used_at: None,
        }
    }

    #[test]
    fn kept_forgotten_and_bounded() {
        let cache = KeyCache::default();
        assert!(cache.get("h").is_none());
        cache.put("h".into(), key(3));
        assert_eq!(cache.get("h"), Some(key(3)));
        let at = chrono::Utc::now();
        cache.used("h", at);
        assert_eq!(cache.get("h").and_then(|k| k.last_used_at), Some(at));
        cache.forget("h");
        assert!(cache.get("h").is_none());
        for i in 0..MAX_ENTRIES + 10 {
            cache.put(format!("h{i}"), key(1));
        }
        assert!(cache.entries.lock().unwrap().len() <= MAX_ENTRIES);
        assert!(cache.get(&format!("h{}", MAX_ENTRIES + 9)).is_some(), "the newest is kept");
    }
}
