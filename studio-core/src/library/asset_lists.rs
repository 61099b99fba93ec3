//! A process's cache of asset list answers (`GET /api/toolkit/assets`, the list_assets tool),
//! each kept beside the house's library version it was read at. The version is a counter that
//! database triggers move in the same transaction as every insert, update or delete of an asset
//! (migration 0009), so a cached answer is served only while no asset of the house has changed,
//! on this replica or any other: a request reads the one-row version and compares.
//!
//! The version is read before the list, never after: a list read after version `v` holds at
//! least every change up to `v`, so keeping it under `v` can only make it look staler than it
//! is (the next request re-reads), never fresher.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::api::AssetList;

/// Answers kept at most; when full, the cache starts again empty. Each answer is one page
/// (at most `MAX_ASSET_PAGE` assets), so memory stays bounded.
const MAX_ENTRIES: usize = 1024;

/// What an answer depends on besides the house's assets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ListKey {
    pub org_id: String,
    pub folder_id: Option<String>,
    pub limit: i64,
    pub cursor: Option<String>,
}

/// Cached answers by [`ListKey`], each with its library version.
#[derive(Debug, Default)]
pub(crate) struct AssetLists {
    entries: Mutex<HashMap<ListKey, (i64, Arc<AssetList>)>>,
}

impl AssetLists {
    /// The answer kept for `key` at exactly `version`.
    pub(crate) fn get(&self, key: &ListKey, version: i64) -> Option<Arc<AssetList>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(key).filter(|(v, _)| *v == version).map(|(_, list)| list.clone())
    }

    /// Keep `list`, read after the library was at `version`.
    pub(crate) fn put(&self, key: ListKey, version: i64, list: &AssetList) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
            entries.clear();
        }
        entries.insert(key, (version, Arc::new(list.clone())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(org: &str) -> ListKey {
        ListKey { org_id: org.into(), folder_id: None, limit: 50, cursor: None }
    }

    #[test]
    fn an_answer_is_served_only_at_its_version() {
        let cache = AssetLists::default();
        let list = AssetList { assets: Vec::new(), next_cursor: Some("ast_x".into()) };
        assert!(cache.get(&key("org_a"), 3).is_none());
        cache.put(key("org_a"), 3, &list);
        assert_eq!(cache.get(&key("org_a"), 3).as_deref(), Some(&list));
        assert!(cache.get(&key("org_a"), 4).is_none(), "a newer version misses");
        assert!(cache.get(&key("org_b"), 3).is_none(), "another house misses");
        assert!(cache.get(&ListKey { limit: 51, ..key("org_a") }, 3).is_none(), "another query misses");
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = AssetLists::default();
        let list = AssetList { assets: Vec::new(), next_cursor: None };
        for i in 0..MAX_ENTRIES + 10 {
            cache.put(key(&format!("org_{i}")), 1, &list);
        }
        assert!(cache.entries.lock().unwrap().len() <= MAX_ENTRIES);
        assert!(cache.get(&key(&format!("org_{}", MAX_ENTRIES + 9)), 1).is_some(), "the newest is kept");
    }
}
