//! Collections: create (root and nested), list oldest first, rename rules, house scoping.

use studio_client::UploadOptions;
use studio_client::api::KeyRole;
use studio_tests::images::png;
use studio_tests::{Backend, House, PASSWORD, backend_tests, spawn, unique_email};

backend_tests!(
    folders_tree_and_rename_rules,
    folders_are_house_scoped_and_validated,
    deleting_a_collection_loses_nothing
);

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

async fn deleting_a_collection_loses_nothing(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "fold-del").await;
    let other = House::new(&app, "fold-del-other").await;
    let key = &house.key;
    let season = key.create_folder("SS27", None).await.unwrap().folder;
    let looks = key.create_folder("Looks", Some(&season.id)).await.unwrap().folder;
    let details = key.create_folder("Details", Some(&looks.id)).await.unwrap().folder;
    let into = |folder: &str| UploadOptions { folder_id: Some(folder.to_string()), ..UploadOptions::default() };
    let kept = key.upload_bytes("a.png", png(20, 20), &into(&looks.id)).await.unwrap().asset;
    let gone = key.upload_bytes("b.png", png(20, 20), &into(&looks.id)).await.unwrap().asset;
    key.delete_assets(std::slice::from_ref(&gone.id)).await.unwrap();
    let total = key.list_assets(None).await.unwrap().assets.len();

    // Refusals first, each changing nothing: a viewer, another house, an unknown id.
    let viewer = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = app.client.with_api_key(viewer);
    let e = viewer.delete_folder(&looks.id).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(403), Some("FORBIDDEN")));
    let e = other.key.delete_folder(&looks.id).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(404), Some("NOT_FOUND")));
    assert_eq!(key.list_folders().await.unwrap().folders.len(), 3);

    // The delete: the live image and the sub-collection move up to the parent.
    let done = key.delete_folder(&looks.id).await.expect("delete");
    assert_eq!(
        (done.id.as_str(), done.deleted, done.moved_assets, done.moved_folders),
        (looks.id.as_str(), true, 1, 1)
    );
    let folders = key.list_folders().await.unwrap().folders;
    assert_eq!(folders.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), [&season.id, &details.id]);
    assert_eq!(folders[1].parent_id.as_deref(), Some(season.id.as_str()), "the sub-collection moved up");
    let in_season = key.list_assets(Some(&season.id)).await.unwrap().assets;
    assert_eq!(in_season.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [kept.id.as_str()]);
    assert_eq!(key.list_assets(None).await.unwrap().assets.len(), total, "no image was deleted");
    assert_eq!(key.asset_bytes(&kept.id).await.unwrap().len() as i64, kept.bytes);
    let e = key.delete_folder(&looks.id).await.unwrap_err();
    assert_eq!(e.status(), Some(404), "gone");

    // A collection at the root sends its images to the root.
    let root_child = key.upload_bytes("c.png", png(20, 20), &into(&season.id)).await.unwrap().asset;
    assert_eq!(key.delete_folder(&season.id).await.unwrap().moved_assets, 2);
    let listed = key.list_assets(None).await.unwrap().assets;
    let root = listed.iter().find(|a| a.id == root_child.id).expect("still listed");
    assert_eq!(root.folder_id, None);
    assert_eq!(key.list_folders().await.unwrap().folders[0].parent_id, None, "Details is at the root now");
}
