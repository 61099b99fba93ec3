//! People, houses, seats, sessions and keys as the storage keeps them.

use std::sync::Arc;
use studio_core::{KeyId, OrgId, UserId};

use chrono::{Duration, Utc};
use studio_core::{KeyRow, MembershipRow, NewAccount, OrgRow, SessionRow, Storage, StorageError, UserRow};

use crate::{conformance, new_house};

conformance!(
    account_is_created_whole_and_email_is_unique,
    sessions_expire_and_can_be_deleted,
    keys_round_trip_and_role_is_constrained,
    home_membership_prefers_owned_house,
    the_key_epoch_moves_with_what_a_key_may_do
);

/// The house stamp a kept key is checked against: the key epoch moves when a key of the house
/// is revoked (in the same transaction, on either backend) and not when its use is recorded or
/// another house's key changes; the library version beside it is the library version.
async fn the_key_epoch_moves_with_what_a_key_may_do(storage: Arc<dyn Storage>) {
    let (user_id, org_id) = new_house(storage.as_ref(), 0).await;
    let (other_user, other_org) = new_house(storage.as_ref(), 0).await;
    let tag = &org_id[4..12];
    let mine = key(&org_id, &user_id, &format!("key_epoch_{tag}"), "member", 0);
    let theirs = key(&other_org, &other_user, &format!("key_epoch_other_{tag}"), "member", 0);
    storage.insert_key(mine.clone()).await.unwrap();
    storage.insert_key(theirs.clone()).await.unwrap();
    let start = storage.house_stamp(&org_id).await.unwrap();
    assert_eq!(start.library_version, storage.library_version(&org_id).await.unwrap());

    let now = Utc::now();
    storage.touch_key(&mine.id, now, now - Duration::minutes(1)).await.unwrap();
    assert_eq!(storage.house_stamp(&org_id).await.unwrap(), start, "recording a use moves nothing");
    storage.revoke_key(&other_org, &theirs.id, now).await.unwrap().expect("revoked");
    assert_eq!(storage.house_stamp(&org_id).await.unwrap(), start, "another house's revocation moves nothing");

    storage.revoke_key(&org_id, &mine.id, now).await.unwrap().expect("revoked");
    let revoked = storage.house_stamp(&org_id).await.unwrap();
    assert!(revoked.key_epoch > start.key_epoch, "a revocation moves the epoch");
    assert_eq!(revoked.library_version, start.library_version, "and not the library");
    assert!(storage.house_stamp(&other_org).await.unwrap().key_epoch > 0, "the other house's moved for its own");
}

async fn account_is_created_whole_and_email_is_unique(storage: Arc<dyn Storage>) {
    let (user_id, org_id) = new_house(storage.as_ref(), 25).await;
    let user = storage.user_by_id(&user_id).await.unwrap().expect("user stored");
    assert_eq!(storage.user_by_email(&user.email).await.unwrap().map(|u| u.id), Some(user_id.clone()));
    assert!(storage.org_by_id(&org_id).await.unwrap().is_some());
    let seat = storage.membership(&org_id, &user_id).await.unwrap().expect("owner seat");
    assert_eq!(seat.role, "owner");
    assert_eq!(storage.balance(&org_id).await.unwrap().grant_tokens, 25);

    let now = Utc::now();
    let again = NewAccount {
        user: UserRow {
            id: "usr_other".into(),
            email: user.email.clone(),
            name: None,
            password_hash: None,
            created_at: now,
        },
        org: OrgRow { id: "org_other".into(), name: "Other".into(), created_at: now },
        grant_tokens: 10,
    };
    assert!(matches!(storage.create_account(again).await, Err(StorageError::Conflict("email"))));
    assert!(
        storage.org_by_id(&OrgId::from("org_other")).await.unwrap().is_none(),
        "a refused sign-up leaves no house behind"
    );
}

async fn sessions_expire_and_can_be_deleted(storage: Arc<dyn Storage>) {
    let (user_id, org_id) = new_house(storage.as_ref(), 0).await;
    let now = Utc::now();
    let live = SessionRow {
        token_hash: format!("live-{user_id}"),
        user_id: user_id.clone(),
        org_id: org_id.clone(),
        created_at: now,
        expires_at: now + Duration::days(1),
    };
    let dead =
        SessionRow { token_hash: format!("dead-{user_id}"), expires_at: now - Duration::seconds(1), ..live.clone() };
    storage.insert_session(live.clone()).await.unwrap();
    storage.insert_session(dead.clone()).await.unwrap();
    assert_eq!(storage.session_by_hash(&live.token_hash, now).await.unwrap().map(|s| s.user_id), Some(user_id.clone()));
    assert!(storage.session_by_hash(&dead.token_hash, now).await.unwrap().is_none());
    storage.delete_session(&live.token_hash).await.unwrap();
    storage.delete_session(&live.token_hash).await.unwrap();
    assert!(storage.session_by_hash(&live.token_hash, now).await.unwrap().is_none());
}

fn key(org_id: &str, user_id: &str, id: &str, role: &str, minutes_ago: i64) -> KeyRow {
    KeyRow {
        id: KeyId::from(id.to_string()),
        org_id: org_id.into(),
        created_by: UserId::from(user_id.to_string()),
        name: id.to_string(),
        role: role.to_string(),
        prefix: "studio_sk_abcdef".into(),
        secret_hash: format!("hash-{id}"),
        last_used_at: None,
        revoked_at: None,
        created_at: Utc::now() - Duration::minutes(minutes_ago),
    }
}

async fn keys_round_trip_and_role_is_constrained(storage: Arc<dyn Storage>) {
    let (user_id, org_id) = new_house(storage.as_ref(), 0).await;
    let (other_user, other_org) = new_house(storage.as_ref(), 0).await;
    let tag = &org_id[4..12];
    let old = key(&org_id, &user_id, &format!("key_old_{tag}"), "viewer", 10);
    let new = key(&org_id, &user_id, &format!("key_new_{tag}"), "member", 1);
    storage.insert_key(old.clone()).await.unwrap();
    storage.insert_key(new.clone()).await.unwrap();
    storage.insert_key(key(&other_org, &other_user, &format!("key_foreign_{tag}"), "member", 0)).await.unwrap();

    let listed: Vec<String> = storage.list_keys(&org_id).await.unwrap().into_iter().map(|k| k.id.into()).collect();
    assert_eq!(listed, vec![new.id.clone(), old.id.clone()], "newest first, only this house's");
    assert_eq!(storage.key_by_hash(&new.secret_hash).await.unwrap().map(|k| k.id), Some(new.id.clone()));

    // The role rule is a database constraint, not only a Rust check.
    for role in ["owner", "admin", "superuser"] {
        let bad = key(&org_id, &user_id, &format!("key_{role}_{tag}"), role, 0);
        assert!(storage.insert_key(bad).await.is_err(), "role {role} must be refused by the database");
    }

    let first = storage.revoke_key(&org_id, &new.id, Utc::now()).await.unwrap().expect("revoked");
    let stamp = first.revoked_at.expect("revocation time");
    let second =
        storage.revoke_key(&org_id, &new.id, Utc::now() + Duration::minutes(5)).await.unwrap().expect("still found");
    assert_eq!(second.revoked_at, Some(stamp), "revoking twice keeps the first time");
    assert!(
        storage.revoke_key(&other_org, &old.id, Utc::now()).await.unwrap().is_none(),
        "another house cannot revoke it"
    );

    let used = Utc::now();
    storage.touch_key(&old.id, used, used - Duration::minutes(1)).await.unwrap();
    let touched = storage.key_by_hash(&old.secret_hash).await.unwrap().expect("key");
    assert_eq!(touched.last_used_at.map(|t| t.timestamp()), Some(used.timestamp()));
    // A second use within the resolution writes nothing; a later one does.
    let soon = used + Duration::seconds(10);
    storage.touch_key(&old.id, soon, soon - Duration::minutes(1)).await.unwrap();
    let kept = storage.key_by_hash(&old.secret_hash).await.unwrap().expect("key").last_used_at;
    assert_eq!(kept.map(|t| t.timestamp()), Some(used.timestamp()));
    let later = used + Duration::minutes(5);
    storage.touch_key(&old.id, later, later - Duration::minutes(1)).await.unwrap();
    let moved = storage.key_by_hash(&old.secret_hash).await.unwrap().expect("key").last_used_at;
    assert_eq!(moved.map(|t| t.timestamp()), Some(later.timestamp()));
}

async fn home_membership_prefers_owned_house(storage: Arc<dyn Storage>) {
    let (user_id, own_org) = new_house(storage.as_ref(), 0).await;
    let (_, other_org) = new_house(storage.as_ref(), 0).await;
    storage
        .upsert_membership(MembershipRow {
            org_id: other_org.clone(),
            user_id: user_id.clone(),
            role: "viewer".into(),
            created_at: Utc::now() - Duration::days(30),
        })
        .await
        .unwrap();
    let home = storage.home_membership(&user_id).await.unwrap().expect("home");
    assert_eq!(home.org_id, own_org, "the owned house wins over an older seat elsewhere");
    let seat = storage.membership(&other_org, &user_id).await.unwrap().expect("seat");
    assert_eq!(seat.role, "viewer");
    let bad = MembershipRow { org_id: other_org, user_id, role: "emperor".into(), created_at: Utc::now() };
    assert!(storage.upsert_membership(bad).await.is_err(), "seat roles are constrained by the database");
}
