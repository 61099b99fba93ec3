//! The ledger's single-threaded rules: buckets, holds resolved once, 402 writes nothing,
//! running totals equal to the sums of the entries.

use std::sync::Arc;
use studio_core::HoldId;

use chrono::Utc;
use studio_core::{
    Bucket, Caller, CoreConfig, ErrorKind, HoldOutcome, NewCredit, NewHold, ReserveOutcome, ResolveOutcome, Storage,
    Studio,
};

use crate::{conformance, new_house};

conformance!(
    grant_bucket_is_spent_first_and_release_refills_it,
    holds_resolve_exactly_once,
    shortfall_writes_nothing,
    viewer_cannot_reserve_and_member_can
);

fn hold(org_id: &str, id: &str, amount: i64) -> NewHold {
    NewHold {
        id: id.into(),
        org_id: org_id.into(),
        amount,
        generation_id: Some(format!("gen-{id}")),
        user_id: None,
        now: Utc::now(),
    }
}

async fn assert_totals_match_entries(storage: &dyn Storage, org_id: &studio_core::OrgId) {
    let b = storage.balance(org_id).await.unwrap();
    let a = storage.audit(org_id).await.unwrap();
    assert_eq!(
        (b.grant_tokens, b.topup_tokens, b.held, b.settled, b.credited),
        (a.grant_tokens, a.topup_tokens, a.held, a.settled, a.credited)
    );
    assert_eq!(b.credited, b.spendable() + b.held + b.settled, "credits = spendable + held + settled");
}

async fn grant_bucket_is_spent_first_and_release_refills_it(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 10).await;
    storage
        .credit(NewCredit {
            org_id: org.clone(),
            bucket: Bucket::Topup,
            amount: 20,
            user_id: None,
            reason: "test".into(),
            expires_at: None,
            now: Utc::now(),
        })
        .await
        .unwrap();
    let id = format!("hold_a_{org}");
    let ReserveOutcome::Reserved(h) = storage.reserve(hold(&org, &id, 15)).await.unwrap() else { panic!("reserve") };
    assert_eq!((h.from_grant, h.from_topup), (10, 5));
    let b = storage.balance(&org).await.unwrap();
    assert_eq!((b.grant_tokens, b.topup_tokens, b.held), (0, 15, 15));
    assert!(matches!(
        storage.release(&org, &HoldId::from(&id), Utc::now()).await.unwrap(),
        ResolveOutcome::Resolved(_)
    ));
    let b = storage.balance(&org).await.unwrap();
    assert_eq!(
        (b.grant_tokens, b.topup_tokens, b.held, b.settled),
        (10, 20, 0, 0),
        "tokens return to the buckets they came from"
    );
    assert_totals_match_entries(storage.as_ref(), &org).await;
}

async fn holds_resolve_exactly_once(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 50).await;
    let a = format!("hold_s_{org}");
    let b = format!("hold_r_{org}");
    assert!(matches!(storage.reserve(hold(&org, &a, 9)).await.unwrap(), ReserveOutcome::Reserved(_)));
    assert!(
        matches!(storage.reserve(hold(&org, &a, 9)).await.unwrap(), ReserveOutcome::Existing(_)),
        "same id holds once"
    );
    assert!(matches!(storage.reserve(hold(&org, &b, 13)).await.unwrap(), ReserveOutcome::Reserved(_)));
    assert_eq!(storage.balance(&org).await.unwrap().held, 22);

    assert!(matches!(storage.settle(&org, &HoldId::from(&a), Utc::now()).await.unwrap(), ResolveOutcome::Resolved(_)));
    assert!(matches!(
        storage.settle(&org, &HoldId::from(&a), Utc::now()).await.unwrap(),
        ResolveOutcome::AlreadyResolved(_)
    ));
    assert!(matches!(
        storage.release(&org, &HoldId::from(&a), Utc::now()).await.unwrap(),
        ResolveOutcome::AlreadyResolved(_)
    ));
    assert!(matches!(storage.release(&org, &HoldId::from(&b), Utc::now()).await.unwrap(), ResolveOutcome::Resolved(_)));
    assert!(matches!(
        storage.settle(&org, &HoldId::from(&b), Utc::now()).await.unwrap(),
        ResolveOutcome::AlreadyResolved(_)
    ));
    assert!(matches!(
        storage.settle(&org, &HoldId::from("hold_missing"), Utc::now()).await.unwrap(),
        ResolveOutcome::NotFound
    ));
    let (_, other) = new_house(storage.as_ref(), 0).await;
    assert!(
        matches!(storage.settle(&other, &HoldId::from(&b), Utc::now()).await.unwrap(), ResolveOutcome::NotFound),
        "another house cannot touch it"
    );

    let bal = storage.balance(&org).await.unwrap();
    assert_eq!((bal.spendable(), bal.held, bal.settled), (41, 0, 9));
    assert!(storage.open_holds(&org).await.unwrap().is_empty());
    assert_eq!(storage.audit(&org).await.unwrap().entries, 5, "grant + 2 reserves + settle + release");
    assert_totals_match_entries(storage.as_ref(), &org).await;
}

async fn shortfall_writes_nothing(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 8).await;
    let before = storage.audit(&org).await.unwrap();
    let outcome = storage.reserve(hold(&org, &format!("hold_big_{org}"), 9)).await.unwrap();
    assert_eq!(outcome, ReserveOutcome::Insufficient { need: 9, spendable: 8 });
    assert_eq!(storage.audit(&org).await.unwrap(), before);
    assert!(storage.hold(&org, &format!("hold_big_{org}").into()).await.unwrap().is_none());
}

async fn viewer_cannot_reserve_and_member_can(storage: Arc<dyn Storage>) {
    let blob_dir = tempfile::tempdir().expect("temp dir");
    let blobs = studio_core::Blobs::local(blob_dir.path()).expect("blobs");
    let studio = Studio::new(storage.clone(), blobs, CoreConfig::default());
    let (user, org) = new_house(storage.as_ref(), 30).await;
    // Callers come only from authentication: build them through a real key of each role.
    let viewer = caller_with_key(&studio, storage.as_ref(), &org, &user, "viewer").await;
    let member = caller_with_key(&studio, storage.as_ref(), &org, &user, "member").await;

    let refused = studio.billing().reserve_tokens(&viewer, 9, None, None).await.expect_err("viewer refused");
    assert_eq!((refused.kind, refused.code), (ErrorKind::Forbidden, "FORBIDDEN"));
    let r = studio.billing().reserve_tokens(&member, 9, Some("job-1".into()), None).await.expect("member reserves");
    assert!(!r.replayed);
    let again =
        studio.billing().reserve_tokens(&member, 9, Some("job-1".into()), Some(r.hold.id.clone())).await.unwrap();
    assert!(again.replayed, "the same hold id reserves nothing new");
    let short = studio.billing().reserve_tokens(&member, 1000, None, None).await.expect_err("402");
    assert_eq!(short.kind, ErrorKind::InsufficientTokens);
    assert_eq!(short.extra.get("need").and_then(|v| v.as_i64()), Some(1000));
    assert_eq!(short.extra.get("spendable").and_then(|v| v.as_i64()), Some(21));
    assert_eq!(studio.billing().settle_hold(&org, &HoldId::from(&r.hold.id)).await.unwrap(), HoldOutcome::Settled);
    assert_eq!(
        studio.billing().release_hold(&org, &HoldId::from(&r.hold.id)).await.unwrap(),
        HoldOutcome::AlreadySettled
    );
    let balance = studio.billing().balance(&member).await.unwrap();
    assert_eq!((balance.balance, balance.held), (21, 0));
}

/// Mint a key row of `role` straight into storage and authenticate with it.
async fn caller_with_key(studio: &Studio, storage: &dyn Storage, org: &str, user: &str, role: &str) -> Caller {
    let secret = format!("studio_sk_{}", uuid::Uuid::new_v4().simple());
    let hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(secret.as_bytes()))
    };
    storage
        .insert_key(studio_core::KeyRow {
            id: format!("key_{}", uuid::Uuid::new_v4().simple()).into(),
            org_id: org.into(),
            created_by: user.into(),
            name: role.into(),
            role: role.into(),
            prefix: secret[..16].into(),
            secret_hash: hash,
            last_used_at: None,
            revoked_at: None,
            created_at: Utc::now(),
        })
        .await
        .unwrap();
    studio.accounts().authenticate_key(&secret).await.expect("key authenticates")
}
