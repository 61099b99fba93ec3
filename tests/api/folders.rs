//! Collections: create (root and nested), list oldest first, rename rules, house scoping.

use studio_client::api::KeyRole;
use studio_tests::{Backend, PASSWORD, backend_tests, spawn, unique_email};

backend_tests!(folders_tree_and_rename_rules, folders_are_house_scoped_and_validated);

async fn folders_tree_and_rename_rules(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let signed = app.client.sign_up(&unique_email("folders"), PASSWORD, None).await.unwrap();
    let key = app.client.with_session(&signed.session).mint_key("library", None).await.unwrap().key.unwrap();
    let house = app.client.with_api_key(key);

    assert!(house.list_folders().await.unwrap().folders.is_empty());
    let spring = house.create_folder("  Spring 27  ", None).await.expect("create").folder;
    assert_eq!(spring.name, "Spring 27", "names are trimmed");
    assert_eq!(spring.parent_id, None);
    let looks = house.create_folder("Looks", Some(&spring.id)).await.unwrap().folder;
    assert_eq!(looks.parent_id.as_deref(), Some(spring.id.as_str()));
    let detail = house.create_folder("Details", Some(&looks.id)).await.unwrap().folder;

    let listed = house.list_folders().await.unwrap().folders;
    assert_eq!(
        listed.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        [&spring.id, &looks.id, &detail.id],
        "oldest first"
    );

    let renamed = house.rename_folder(&looks.id, "Runway").await.expect("rename").folder;
    assert_eq!((renamed.id.as_str(), renamed.name.as_str()), (looks.id.as_str(), "Runway"));
    assert_eq!(renamed.parent_id, looks.parent_id);
    let same = house.rename_folder(&looks.id, "Runway").await.expect("same-name rename is 200").folder;
    assert_eq!(same, renamed);
    let empty = house.rename_folder(&looks.id, "   ").await.expect("empty rename is 200").folder;
    assert_eq!(empty.name, "Runway", "an empty rename changes nothing");

    let missing = house.rename_folder("fld_missing", "x").await.unwrap_err();
    assert_eq!((missing.status(), missing.code()), (Some(404), Some("NOT_FOUND")));
}

async fn folders_are_house_scoped_and_validated(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let a_token = app.client.sign_up(&unique_email("a"), PASSWORD, None).await.unwrap().session;
    let a = app.client.with_session(&a_token);
    let b = app.client.with_session(app.client.sign_up(&unique_email("b"), PASSWORD, None).await.unwrap().session);
    let a_folder = a.create_folder("A's", None).await.unwrap().folder;

    assert!(b.list_folders().await.unwrap().folders.is_empty(), "B sees none of A's collections");
    let foreign_parent = b.create_folder("Under A", Some(&a_folder.id)).await.unwrap_err();
    assert_eq!((foreign_parent.status(), foreign_parent.code()), (Some(404), Some("NOT_FOUND")));
    let foreign_rename = b.rename_folder(&a_folder.id, "Mine now").await.unwrap_err();
    assert_eq!(foreign_rename.status(), Some(404));
    assert_eq!(a.list_folders().await.unwrap().folders[0].name, "A's", "A's collection is untouched");

    for name in ["", "   "] {
        let e = a.create_folder(name, None).await.unwrap_err();
        assert_eq!((e.status(), e.code()), (Some(400), Some("NAME_REQUIRED")));
    }
    let long = a.create_folder(&"x".repeat(201), None).await.unwrap_err();
    assert_eq!((long.status(), long.code()), (Some(400), Some("BAD_BODY")));
    let http = reqwest::Client::new();
    let bad = http
        .post(format!("{}/api/toolkit/folders", app.base))
        .header("cookie", format!("studio_session={a_token}"))
        .header("content-type", "application/json")
        .body("[1,2]")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert_eq!(bad.json::<serde_json::Value>().await.unwrap()["error"], "BAD_BODY");

    let viewer_key = a.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = app.client.with_api_key(viewer_key);
    assert_eq!(viewer.list_folders().await.unwrap().folders.len(), 1, "a viewer reads the collections");
    let refused = viewer.create_folder("Nope", None).await.unwrap_err();
    assert_eq!(refused.status(), Some(403));
    assert_eq!(a.list_folders().await.unwrap().folders.len(), 1, "nothing was created");
}
