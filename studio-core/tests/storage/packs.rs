//! Pack claims: a queued pack goes to exactly one worker, even when many ask at once, and a
//! build whose worker went quiet (a restart) is taken over.

use std::sync::Arc;

use chrono::{Duration, Utc};
use studio_core::{PackId, PackRow, PackStatus, Storage};

use crate::{conformance, new_house};

conformance!(claims_are_exclusive_and_survive_restarts);

/// One test, so no other test's claims race these on the shared PostgreSQL database.
async fn claims_are_exclusive_and_survive_restarts(storage: Arc<dyn Storage>) {
    each_queued_pack_is_claimed_once(storage.clone()).await;
    a_stale_build_is_taken_over(storage).await;
}

fn queued(org: &str, id: &str, age_secs: i64) -> PackRow {
    let now = Utc::now();
    PackRow {
        id: id.into(),
        org_id: org.into(),
        created_by: None,
        filename: "p.zip".into(),
        asset_ids: "[]".into(),
        sizes: "[]".into(),
        mode: "pack".into(),
        status: PackStatus::Queued,
        items: 0,
        bytes: 0,
        seconds: 1,
        blob_key: None,
        error: None,
        attempts: 0,
        created_at: now - Duration::seconds(age_secs),
        claimed_at: None,
        ready_at: None,
        expires_at: now + Duration::days(7),
    }
}

async fn each_queued_pack_is_claimed_once(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 0).await;
    let ids: Vec<String> = (0..6).map(|i| format!("pck_{i}_{org}")).collect();
    for (i, id) in ids.iter().enumerate() {
        storage.insert_pack(queued(&org, id, 1000 - i as i64)).await.unwrap();
    }
    let mut workers = Vec::new();
    for _ in 0..10 {
        let storage = storage.clone();
        workers.push(tokio::spawn(async move {
            let mut got = Vec::new();
            let now = Utc::now();
            while let Some(p) = storage.claim_pack(now, now - Duration::minutes(10)).await.unwrap() {
                got.push(p.id.into_string());
            }
            got
        }));
    }
    let mut claimed: Vec<String> = Vec::new();
    for w in workers {
        claimed.extend(w.await.unwrap());
    }
    let mine: Vec<&String> = claimed.iter().filter(|id| id.ends_with(org.as_str())).collect();
    let mut sorted = mine.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), mine.len(), "a pack was claimed twice: {mine:?}");
    assert_eq!(mine.len(), ids.len(), "every queued pack was claimed");
    let row = storage.pack(&org, &PackId::from(&ids[0])).await.unwrap().unwrap();
    assert_eq!((row.status.as_str(), row.attempts), ("building", 1));
}

async fn a_stale_build_is_taken_over(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 0).await;
    let id = format!("pck_stale_{org}");
    // Oldest of all queued packs, so the next claim takes it.
    storage.insert_pack(queued(&org, &id, 10_000_000)).await.unwrap();
    let t0 = Utc::now();
    let first = storage.claim_pack(t0, t0 - Duration::minutes(10)).await.unwrap().expect("claimed");
    assert_eq!(first.id, id);
    // The worker dies. A fresh claim soon after does not take it...
    let soon = t0 + Duration::minutes(1);
    let again = storage.claim_pack(soon, soon - Duration::minutes(10)).await.unwrap();
    assert!(again.is_none_or(|p| p.id != id), "a live build is not taken over");
    // ...but once its claim is stale, another worker (or the restarted one) takes it over.
    let later = t0 + Duration::minutes(30);
    let taken = loop {
        let p = storage.claim_pack(later, later - Duration::minutes(10)).await.unwrap().expect("stale claim");
        if p.id == id {
            break p;
        }
    };
    assert_eq!((taken.status.as_str(), taken.attempts), ("building", 2));
    let mut done = taken.clone();
    done.status = PackStatus::Ready;
    done.blob_key = Some("k".into());
    done.bytes = 22;
    storage.finish_pack(&done).await.unwrap();
    let row = storage.pack(&org, &PackId::from(&id)).await.unwrap().unwrap();
    assert_eq!((row.status.as_str(), row.bytes, row.blob_key.as_deref()), ("ready", 22, Some("k")));
}
