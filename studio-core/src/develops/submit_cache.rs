//! A process's cache of what a develop submit reads before its tokens are held: its input
//! images (house, blob key, type and size, none of which an image ever changes) and each house's
//! brand profile, whose clause the jobs carry.
//!
//! Nothing here is trusted on its own. A submit planned on cached entries sends what it used as
//! [`SubmitChecks`](crate::storage::SubmitChecks): the transaction that holds its tokens reads the
//! house's brand profile and which of those images are live, once per group, under the house's
//! balance lock, and writes nothing for a submit whose entries no longer match (`Stale`). The
//! submit then forgets them and runs again from fresh reads, exactly as it did before the cache
//! (docs/performance.md, row 2). So an image deleted or a profile patched on any replica is seen
//! by the next submit on every replica, and a submit costs no read of its own while nothing
//! changed.

use crate::ids::OrgId;
use std::collections::HashMap;
use std::sync::Mutex;

use crate::storage::BrandProfileRow;

/// Entries kept at most per map; when full, the map starts again empty.
const MAX_ENTRIES: usize = 4096;

/// A live library image as a develop input.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InputImage {
    /// The house it belongs to.
    pub org_id: String,
    /// Its blob.
    pub blob_key: String,
    /// Its type.
    pub mime: String,
    /// Its size in bytes.
    pub bytes: i64,
}

/// Input images by asset id and brand profiles by house (`None`: the house has none).
#[derive(Debug, Default)]
pub(crate) struct SubmitCache {
    images: Bounded<InputImage>,
    brands: Bounded<Option<BrandProfileRow>>,
}

impl SubmitCache {
    /// The image kept for `asset_id`.
    pub(crate) fn image(&self, asset_id: &str) -> Option<InputImage> {
        self.images.get(asset_id)
    }

    /// Keep a live image read from storage.
    pub(crate) fn keep_image(&self, asset_id: &str, image: InputImage) {
        self.images.put(asset_id, image);
    }

    /// The brand profile kept for a house.
    pub(crate) fn brand(&self, org_id: &OrgId) -> Option<Option<BrandProfileRow>> {
        self.brands.get(org_id)
    }

    /// Keep a house's brand profile as read from storage.
    pub(crate) fn keep_brand(&self, org_id: &OrgId, profile: Option<BrandProfileRow>) {
        self.brands.put(org_id, profile);
    }

    /// The house's profile was written here: the next submit reads it afresh rather than coming
    /// back `Stale` once.
    pub(crate) fn forget_brand(&self, org_id: &OrgId) {
        self.brands.remove(org_id);
    }

    /// A submit came back `Stale`: forget the house's profile and the images it named.
    pub(crate) fn forget(&self, org_id: &OrgId, asset_ids: &[String]) {
        self.forget_brand(org_id);
        for id in asset_ids {
            self.images.remove(id);
        }
    }
}

/// A map of at most [`MAX_ENTRIES`].
#[derive(Debug)]
struct Bounded<V>(Mutex<HashMap<String, V>>);

impl<V> Default for Bounded<V> {
    fn default() -> Self {
        Bounded(Mutex::new(HashMap::new()))
    }
}

impl<V: Clone> Bounded<V> {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, V>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &str) -> Option<V> {
        self.map().get(key).cloned()
    }

    fn put(&self, key: &str, value: V) {
        let mut map = self.map();
        if map.len() >= MAX_ENTRIES && !map.contains_key(key) {
            map.clear();
        }
        map.insert(key.to_string(), value);
    }

    fn remove(&self, key: &str) {
        self.map().remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(org: &str) -> InputImage {
        InputImage { org_id: org.into(), blob_key: format!("{org}/b"), mime: "image/png".into(), bytes: 10 }
    }

    #[test]
    fn kept_entries_come_back_until_forgotten() {
        let cache = SubmitCache::default();
        assert_eq!(cache.image("ast_1"), None);
        cache.keep_image("ast_1", image("org_a"));
        cache.keep_image("ast_2", image("org_a"));
        cache.keep_brand(&"org_a".into(), None);
        assert_eq!(cache.image("ast_1"), Some(image("org_a")));
        assert_eq!(cache.brand(&"org_a".into()), Some(None), "a house without a profile is kept as such");
        assert_eq!(cache.brand(&"org_b".into()), None, "a house never read is not");
        cache.forget(&"org_a".into(), &["ast_1".to_string()]);
        assert_eq!(cache.image("ast_1"), None);
        assert_eq!(cache.image("ast_2"), Some(image("org_a")), "only the named images are forgotten");
        assert_eq!(cache.brand(&"org_a".into()), None);
        cache.keep_brand(&"org_a".into(), None);
        cache.forget_brand(&"org_a".into());
        assert_eq!(cache.brand(&"org_a".into()), None, "a profile written here is read afresh");
        assert_eq!(cache.image("ast_2"), Some(image("org_a")), "its images stay");
    }

    #[test]
    fn a_full_map_starts_again_empty() {
        let cache = SubmitCache::default();
        for i in 0..MAX_ENTRIES {
            cache.keep_image(&format!("ast_{i}"), image("org_a"));
        }
        assert!(cache.image("ast_0").is_some());
        cache.keep_image("ast_new", image("org_a"));
        assert_eq!(cache.image("ast_0"), None);
        assert_eq!(cache.image("ast_new"), Some(image("org_a")));
        assert_eq!(cache.images.map().len(), 1);
    }
}
