//! The library version: every statement that writes a house's assets moves that house's
//! version (the asset-list cache compares it), and no other house's; a statement that writes a
//! thousand rows moves it too, which on PostgreSQL is done once per statement (migration 0028).

use std::sync::Arc;

use chrono::Utc;
use studio_core::Storage;

use crate::{conformance, new_house};

conformance!(every_statement_that_writes_assets_moves_the_version);

async fn every_statement_that_writes_assets_moves_the_version(storage: Arc<dyn Storage>) {
    let (_, house) = new_house(storage.as_ref(), 0).await;
    let (_, other) = new_house(storage.as_ref(), 0).await;
    assert_eq!(storage.library_version(&house).await.expect("version"), 0, "no asset yet");

    assert_eq!(storage.seed_assets(&house, 1_000).await.expect("seed"), 1_000);
    let seeded = storage.library_version(&house).await.expect("version");
    assert!(seeded > 0, "a thousand rows in one statement move the version");
    assert_eq!(storage.library_version(&other).await.expect("version"), 0, "another house is untouched");

    let ids: Vec<String> = storage
        .list_assets_page(&house, None, None, 300, None)
        .await
        .expect("page")
        .into_iter()
        .map(|a| a.id.into())
        .collect();
    assert_eq!(storage.soft_delete_assets(&house, &ids, Utc::now()).await.expect("delete"), 300);
    let deleted = storage.library_version(&house).await.expect("version");
    assert!(deleted > seeded, "a batch delete moves it");

    let none = storage.soft_delete_assets(&house, &ids, Utc::now()).await.expect("delete again");
    assert_eq!(none, 0);
    assert_eq!(storage.library_version(&house).await.expect("version"), deleted, "writing nothing moves nothing");
    assert_eq!(storage.count_assets(&house, None).await.expect("count"), 700);
}
