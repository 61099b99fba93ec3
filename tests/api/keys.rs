//! Organization keys end to end: mint, list without secrets, use, revoke, roles.

use studio_client::api::KeyRole;
use studio_tests::{Backend, House, PASSWORD, backend_tests, spawn, unique_email};

backend_tests!(
    key_lifecycle,
    keys_are_session_only_and_house_scoped,
    viewer_is_refused_where_it_must_be,
    a_kept_key_is_refused_right_after_a_revocation_on_another_replica
);

/// The server keeps verified keys in memory (studio-core's key cache), checked against the
/// house's key epoch on every request: a key revoked through a second core on the same database
/// (another replica) is refused on the server's very next request; a colleague's key in the
/// same house keeps working.
async fn a_kept_key_is_refused_right_after_a_revocation_on_another_replica(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "kept").await;
    let second = house.session.mint_key("second", None).await.expect("mint");
    let second_key = app.client.with_api_key(second.key.clone().expect("secret"));
    // Asked twice each, so the second answer comes through the kept key.
    for _ in 0..2 {
        house.key.list_assets(None).await.expect("the key works");
        second_key.list_assets(None).await.expect("the second key works");
    }

    let replica = app.replica().await;
    let (_, token) = replica
        .accounts()
        .sign_in(studio_core::api::SignInRequest { email: house.email.clone(), password: PASSWORD.into() })
        .await
        .expect("sign in on the replica");
    let owner = replica.accounts().authenticate_session(&token).await.expect("the replica's session");
    let first_id = replica.accounts().authenticate_key(&house.secret).await.expect("the key on the replica");
    let studio_core::Via::Key { key_id } = first_id.via.clone() else { panic!("a key caller") };
    replica.accounts().revoke_key(&owner, &studio_core::KeyId::from(&key_id)).await.expect("revoked on the replica");

    let refused = house.key.list_assets(None).await.expect_err("refused on the very next request");
    assert_eq!(refused.status(), Some(401), "{refused:?}");
    assert!(house.key.balance().await.is_err(), "and on every route after");
    second_key.list_assets(None).await.expect("a colleague's key in the same house still works");
}

async fn key_lifecycle(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let signed = app.client.sign_up(&unique_email("keys"), PASSWORD, None).await.unwrap();
    let session = app.client.with_session(&signed.session);

    let minted = session.mint_key("ci runner", None).await.expect("mint");
    let secret = minted.key.clone().expect("the mint answer carries the secret");
    assert!(secret.starts_with("studio_sk_") && secret.len() > 40);
    assert!(secret.starts_with(&minted.prefix) && minted.prefix.starts_with("studio_sk_"));
    assert_eq!(minted.role, KeyRole::Member, "member is the default role");
    assert!(minted.last_used_at.is_none() && minted.revoked_at.is_none());

    let listed = session.list_keys().await.expect("list");
    assert_eq!(listed.keys.len(), 1);
    assert!(listed.keys[0].key.is_none(), "the listing never shows a secret");
    let raw = reqwest::Client::new()
        .get(format!("{}/api/keys", app.base))
        .header("cookie", format!("studio_session={}", signed.session))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!raw.contains(&secret) && !raw.contains("\"key\""), "no secret on the wire: {raw}");

    let with_key = app.client.with_api_key(&secret);
    let me = with_key.session().await.expect("the key works");
    assert_eq!(me.organization.id, signed.account.organization.id);
    assert_eq!(me.role, studio_client::api::SeatRole::Member);
    assert_eq!(with_key.balance().await.expect("balance with key").balance, 100);
    let used = session.list_keys().await.unwrap().keys[0].last_used_at;
    assert!(used.is_some(), "lastUsedAt is recorded");

    let revoked = session.revoke_key(&minted.id).await.expect("revoke");
    assert!(revoked.revoked);
    assert_eq!(revoked.id, minted.id);
    assert!(session.revoke_key(&minted.id).await.expect("revoking twice is fine").revoked);
    let refused = with_key.balance().await.expect_err("revoked key refused on the very next call");
    assert_eq!((refused.status(), refused.code()), (Some(401), Some("UNAUTHORIZED")));
    let after = session.list_keys().await.unwrap();
    assert!(after.keys[0].revoked_at.is_some(), "the revoked key stays listed");

    let junk = app.client.with_api_key("studio_sk_not-a-real-key").balance().await.expect_err("junk key");
    assert_eq!(junk.status(), Some(401));
}

async fn keys_are_session_only_and_house_scoped(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let a = app.client.sign_up(&unique_email("house-a"), PASSWORD, None).await.unwrap();
    let b = app.client.sign_up(&unique_email("house-b"), PASSWORD, None).await.unwrap();
    let a_session = app.client.with_session(&a.session);
    let b_session = app.client.with_session(&b.session);
    let a_key = a_session.mint_key("a", None).await.unwrap();

    let with_key = app.client.with_api_key(a_key.key.as_deref().unwrap());
    let refused = with_key.mint_key("minted by a key", None).await.expect_err("a key cannot mint");
    assert_eq!((refused.status(), refused.code()), (Some(403), Some("SESSION_REQUIRED")));
    let refused = with_key.revoke_key(&a_key.id).await.expect_err("a key cannot revoke");
    assert_eq!(refused.status(), Some(403));
    assert_eq!(a_session.list_keys().await.unwrap().keys.len(), 1, "nothing was minted by the key");

    let foreign = b_session.revoke_key(&a_key.id).await.expect_err("another house's key");
    assert_eq!((foreign.status(), foreign.code()), (Some(404), Some("NOT_FOUND")));
    assert!(b_session.list_keys().await.unwrap().keys.is_empty(), "house B sees none of A's keys");
    assert!(with_key.balance().await.is_ok(), "A's key still works after B's attempt");

    let bad_name = a_session.mint_key("   ", None).await.expect_err("empty name");
    assert_eq!(bad_name.code(), Some("BAD_NAME"));
}

async fn viewer_is_refused_where_it_must_be(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let owner = app.client.sign_up(&unique_email("owner"), PASSWORD, None).await.unwrap();
    let session = app.client.with_session(&owner.session);
    let viewer = session.mint_key("read only", Some(KeyRole::Viewer)).await.unwrap();
    assert_eq!(viewer.role, KeyRole::Viewer);
    let as_viewer = app.client.with_api_key(viewer.key.as_deref().unwrap());
    let me = as_viewer.session().await.unwrap();
    assert_eq!(me.role, studio_client::api::SeatRole::Viewer);
    assert_eq!(as_viewer.balance().await.unwrap().balance, 100, "a viewer reads");
    let mint = as_viewer.mint_key("escalate", Some(KeyRole::Member)).await.expect_err("viewer cannot mint");
    assert_eq!(mint.status(), Some(403));
    let revoke = as_viewer.revoke_key(&viewer.id).await.expect_err("viewer cannot revoke");
    assert_eq!(revoke.status(), Some(403));
}
