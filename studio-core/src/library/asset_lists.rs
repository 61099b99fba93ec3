//! A process's cache of asset list answers (`GET /api/toolkit/assets`, the list_assets tool),
//! each kept beside the house's library version it was read at. The version is a counter that
//! database triggers move in the same transaction as every insert, update or delete of an asset
//! (migration 0009), so a cached answer is served only while no asset of the house has changed,
//! on this replica or any other: a request reads the one-row version and compares.
//!
//! Each kept answer also keeps its JSON document, serialized the first time it is asked for,
//! so a frontend that answers JSON sends the same bytes again instead of serializing the same
//! fifty assets on every request (docs/performance.md, row 1).
//!
//! The version is read before the list, never after: a list read after version `v` holds at
//! least every change up to `v`, so keeping it under `v` can only make it look staler than it
//! is (the next request re-reads), never fresher.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

/// One kept answer and, once asked for, its JSON document.
#[derive(Debug)]
pub(crate) struct KeptList {
    /// The answer.
    pub list: AssetList,
    json: OnceLock<bytes::Bytes>,
}

impl KeptList {
    /// Keep an answer.
    pub(crate) fn new(list: AssetList) -> KeptList {
        KeptList { list, json: OnceLock::new() }
    }

    /// The answer as JSON, serialized on the first call only.
    pub(crate) fn json(&self) -> bytes::Bytes {
        self.json.get_or_init(|| serde_json::to_vec(&self.list).map(bytes::Bytes::from).unwrap_or_default()).clone()
    }
}

/// Cached answers by [`ListKey`], each with its library version.
#[derive(Debug, Default)]
pub(crate) struct AssetLists {
    entries: Mutex<HashMap<ListKey, (i64, Arc<KeptList>)>>,
}

impl AssetLists {
    /// The answer kept for `key` at exactly `version`.
    pub(crate) fn get(&self, key: &ListKey, version: i64) -> Option<Arc<KeptList>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(key).filter(|(v, _)| *v == version).map(|(_, list)| list.clone())
    }

    /// Keep `list`, read after the library was at `version`.
    pub(crate) fn put(&self, key: ListKey, version: i64, list: Arc<KeptList>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&key) {
            entries.clear();
        }
        entries.insert(key, (version, list));
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
        cache.put(key("org_a"), 3, Arc::new(KeptList::new(list.clone())));
        let kept = cache.get(&key("org_a"), 3).expect("kept");
        assert_eq!(kept.list, list);
        let json = kept.json();
        assert_eq!(serde_json::from_slice::<AssetList>(&json).expect("json"), list, "the JSON is the answer");
        assert_eq!(kept.json().as_ptr(), json.as_ptr(), "serialized once, then the same bytes");
        assert!(cache.get(&key("org_a"), 4).is_none(), "a newer version misses");
        assert!(cache.get(&key("org_b"), 3).is_none(), "another house misses");
        assert!(cache.get(&ListKey { limit: 51, ..key("org_a") }, 3).is_none(), "another query misses");
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = AssetLists::default();
        let list = AssetList { assets: Vec::new(), next_cursor: None };
        for i in 0..MAX_ENTRIES + 10 {
            cache.put(key(&format!("org_{i}")), 1, Arc::new(KeptList::new(list.clone())));
        }
        assert!(cache.entries.lock().unwrap().len() <= MAX_ENTRIES);
        assert!(cache.get(&key(&format!("org_{}", MAX_ENTRIES + 9)), 1).is_some(), "the newest is kept");
    }
}
