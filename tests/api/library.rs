//! Asset editing: PATCH with null semantics, batch patch and approval, quotes, groups and
//! backgrounds.

use studio_client::api::{AssetBatchPatch, AssetKind, AssetPatch, KeyRole, QuoteRequest};
use studio_client::{Client, UploadOptions};
use studio_tests::images::png;
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(
    patch_rules,
    batch_patch_and_approval,
    quote_spends_nothing,
    groups_are_all_or_nothing,
    backgrounds_list_grounds_and_scenes
);

async fn upload(client: &Client, name: &str) -> studio_client::api::Asset {
    client.upload_bytes(&format!("{name}.png"), png(6, 6), &UploadOptions::default()).await.expect("upload").asset
}

fn patch(json: serde_json::Value) -> AssetPatch {
    serde_json::from_value(json).expect("patch json")
}

async fn patch_rules(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "patch").await.key;
    let other = House::new(&app, "other").await.key;
    let folder = member.create_folder("Coats", None).await.unwrap().folder;
    let a = upload(&member, "coat").await;

    let same = member.patch_asset(&a.id, &patch(serde_json::json!({}))).await.expect("empty patch").asset;
    assert_eq!(same, a, "an empty patch is a no-op");

    let changed = member
        .patch_asset(&a.id, &patch(serde_json::json!({"name": " Long coat ", "sku": "LC-9", "kind": "accessory", "folderId": folder.id, "fit": "oversized", "wearer": "unisex"})))
        .await
        .expect("patch")
        .asset;
    assert_eq!(
        (changed.name.as_str(), changed.sku.as_deref(), changed.kind),
        ("Long coat", Some("LC-9"), AssetKind::Accessory)
    );
    assert_eq!(
        (changed.folder_id.as_deref(), changed.fit.as_deref(), changed.wearer.as_deref()),
        (Some(folder.id.as_str()), Some("oversized"), Some("unisex"))
    );
    assert!(!changed.fit_guessed && !changed.wearer_guessed, "a person set them");

    let cleared = member
        .patch_asset(&a.id, &patch(serde_json::json!({"sku": null, "folderId": null, "wearer": null, "fit": null})))
        .await
        .expect("nulls")
        .asset;
    assert_eq!((cleared.sku, cleared.folder_id, cleared.wearer, cleared.fit), (None, None, None, None));
    assert_eq!(cleared.name, "Long coat", "absent fields stay");

    let cases = [
        (serde_json::json!({"kind": "hat"}), "BAD_KIND"),
        (serde_json::json!({"kind": null}), "BAD_KIND"),
        (serde_json::json!({"sku": "\u{7}"}), "BAD_SKU"),
        (serde_json::json!({"folderId": "fld_missing"}), "BAD_FOLDER"),
        (serde_json::json!({"name": ""}), "BAD_BODY"),
        (serde_json::json!({"fit": "baggy"}), "BAD_BODY"),
    ];
    for (body, code) in cases {
        let e = member.patch_asset(&a.id, &patch(body.clone())).await.expect_err(code);
        assert_eq!((e.status(), e.code()), (Some(400), Some(code)), "{body}");
    }
    let foreign_folder = other.create_folder("Theirs", None).await.unwrap().folder;
    let e = member.patch_asset(&a.id, &patch(serde_json::json!({"folderId": foreign_folder.id}))).await.unwrap_err();
    assert_eq!(e.code(), Some("BAD_FOLDER"));
    let e = other.patch_asset(&a.id, &patch(serde_json::json!({"name": "mine"}))).await.unwrap_err();
    assert_eq!(e.status(), Some(404), "another house's asset is 404");
    let e = member.patch_asset("ast_missing", &patch(serde_json::json!({"name": "x"}))).await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    let http = reqwest::Client::new();
    let res = http
        .patch(format!("{}/api/toolkit/assets/{}", app.base, a.id))
        .header("authorization", format!("Bearer {}", member.api_key().unwrap()))
        .header("content-type", "application/json")
        .body("[]")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<serde_json::Value>().await.unwrap()["error"], "BAD_BODY");
    let after = member.list_assets(None).await.unwrap().assets;
    assert_eq!(after[0].name, "Long coat", "refusals changed nothing");
}

async fn batch_patch_and_approval(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, key: member, .. } = House::named(&app, "batch", "Grace").await;
    let other = House::new(&app, "other").await.key;
    let folder = member.create_folder("Picks", None).await.unwrap().folder;
    let a = upload(&member, "a").await;
    let b = upload(&member, "b").await;
    let gone = upload(&member, "gone").await;
    member.delete_assets(std::slice::from_ref(&gone.id)).await.unwrap();
    let theirs = upload(&other, "theirs").await;

    let ids = vec![a.id.clone(), b.id.clone(), gone.id.clone(), theirs.id.clone()];
    let none = AssetBatchPatch { asset_ids: ids.clone(), ..Default::default() };
    let e = member.patch_assets_batch(&none).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_BODY")), "at least one change is required");

    let approve = AssetBatchPatch {
        asset_ids: ids.clone(),
        approved: Some(true),
        folder_id: Some(Some(folder.id.clone())),
        ..Default::default()
    };
    assert_eq!(member.patch_assets_batch(&approve).await.unwrap().updated, 2, "foreign and deleted ids skipped");
    let listed = member.list_assets(Some(&folder.id)).await.unwrap().assets;
    assert_eq!(listed.len(), 2);
    for asset in &listed {
        assert_eq!(asset.approved_by.as_deref(), Some("Grace"), "the director's name");
        assert!(asset.approved_at.is_some());
    }
    let theirs_now = other.list_assets(None).await.unwrap().assets;
    assert_eq!((theirs_now[0].folder_id.as_ref(), theirs_now[0].approved_by.as_ref()), (None, None), "untouched");

    let clear = AssetBatchPatch {
        asset_ids: vec![a.id.clone()],
        approved: Some(false),
        kind: Some(Some("jewelry".into())),
        folder_id: Some(None),
    };
    assert_eq!(session.patch_assets_batch(&clear).await.unwrap().updated, 1);
    let a_now = member.list_assets(None).await.unwrap().assets.into_iter().find(|x| x.id == a.id).unwrap();
    assert_eq!(
        (a_now.approved_by, a_now.approved_at, a_now.kind, a_now.folder_id),
        (None, None, AssetKind::Jewelry, None)
    );

    let foreign_target = other.create_folder("Theirs", None).await.unwrap().folder;
    let e = member
        .patch_assets_batch(&AssetBatchPatch {
            asset_ids: vec![a.id.clone()],
            folder_id: Some(Some(foreign_target.id)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(404));
    let e = member
        .patch_assets_batch(&AssetBatchPatch {
            asset_ids: vec![a.id.clone()],
            kind: Some(Some("hat".into())),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("BAD_KIND"));
    let viewer = app.client.with_api_key(session.mint_key("v", Some(KeyRole::Viewer)).await.unwrap().key.unwrap());
    let e = viewer.patch_assets_batch(&approve).await.unwrap_err();
    assert_eq!(e.status(), Some(403));
}

async fn quote_spends_nothing(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "quote").await.key;
    let a = upload(&member, "a").await;
    let b = upload(&member, "b").await;
    let before = member.balance().await.unwrap();
    let ids = vec![a.id.clone(), b.id.clone(), a.id.clone(), "ast_missing".into()];
    let q = member
        .quote_assets(&QuoteRequest {
            asset_ids: ids.clone(),
            operation: Some("packshot".into()),
            quality: Some("2k".into()),
            also_remove_background: true,
        })
        .await
        .unwrap();
    assert_eq!((q.operation.as_str(), q.items, q.per_item, q.tokens), ("packshot", 2, 14, 28));
    assert_eq!((q.spendable, q.affordable), (100, true));
    let rb = member
        .quote_assets(&QuoteRequest {
            asset_ids: ids.clone(),
            operation: Some("remove-background".into()),
            quality: Some("4k".into()),
            also_remove_background: false,
        })
        .await
        .unwrap();
    assert_eq!((rb.items, rb.per_item, rb.tokens), (2, 1, 2), "quality is read only for packshot");
    let many: Vec<String> = std::iter::repeat_n(a.id.clone(), 1).chain((0..20).map(|i| format!("ast_{i}"))).collect();
    let big = member
        .quote_assets(&QuoteRequest {
            asset_ids: many,
            operation: Some("packshot".into()),
            quality: Some("4k".into()),
            also_remove_background: false,
        })
        .await
        .unwrap();
    assert_eq!((big.items, big.tokens), (1, 19));
    let e = member
        .quote_assets(&QuoteRequest { asset_ids: ids.clone(), operation: Some("sparkle".into()), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("BAD_OPERATION"));
    let e = member
        .quote_assets(&QuoteRequest {
            asset_ids: ids,
            operation: Some("packshot".into()),
            quality: Some("8k".into()),
            also_remove_background: false,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some("BAD_QUALITY"));
    assert_eq!(member.balance().await.unwrap(), before, "a quote spends and reserves nothing");
}

async fn groups_are_all_or_nothing(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "group").await.key;
    let other = House::new(&app, "other").await.key;
    let a = upload(&member, "a").await;
    let b = upload(&member, "b").await;
    let c = upload(&member, "c").await;
    let theirs = upload(&other, "theirs").await;

    let first = member.group_assets(&[a.id.clone(), b.id.clone()]).await.expect("group").group_id;
    let group_of = |assets: &[studio_client::api::Asset], id: &str| {
        assets.iter().find(|x| x.id == id).and_then(|x| x.group_id.clone())
    };
    let listed = member.list_assets(None).await.unwrap().assets;
    assert_eq!(
        (group_of(&listed, &a.id), group_of(&listed, &b.id), group_of(&listed, &c.id)),
        (Some(first.clone()), Some(first.clone()), None)
    );

    let second = member.group_assets(&[b.id.clone(), c.id.clone()]).await.unwrap().group_id;
    assert_ne!(first, second);
    let listed = member.list_assets(None).await.unwrap().assets;
    assert_eq!(group_of(&listed, &b.id), Some(second.clone()), "the prior group is replaced");
    assert_eq!(group_of(&listed, &a.id), Some(first));

    let e = member.group_assets(&[a.id.clone(), theirs.id.clone()]).await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    let listed = member.list_assets(None).await.unwrap().assets;
    assert_ne!(group_of(&listed, &a.id), None, "all or nothing: a kept its group");
    assert_ne!(group_of(&listed, &a.id).as_deref(), Some(second.as_str()));
    for ids in [vec![], vec![a.id.clone(), a.id.clone()], vec![String::new()]] {
        let e = member.group_assets(&ids).await.unwrap_err();
        assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_ASSET_IDS")), "{ids:?}");
    }
}

async fn backgrounds_list_grounds_and_scenes(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "grounds").await.key;
    let opts = UploadOptions {
        kind: Some(AssetKind::Background),
        name: Some("Studio loft".into()),
        ..UploadOptions::default()
    };
    let scene = member.upload_bytes("loft.png", png(9, 9), &opts).await.unwrap().asset;
    upload(&member, "not-a-scene").await;
    let bg = member.backgrounds().await.unwrap();
    assert!(bg.grounds.iter().any(|g| g.id == "white" && g.tone == "#FFFFFF" && g.kind == "plain"));
    assert_eq!(bg.scenes.len(), 1);
    assert_eq!(
        (bg.scenes[0].id.as_str(), bg.scenes[0].name.as_str(), bg.scenes[0].url.as_str()),
        (scene.id.as_str(), "Studio loft", scene.url.as_str())
    );
    let preview = reqwest::get(format!("{}{}", app.base, bg.grounds[0].preview_url)).await.unwrap();
    assert_eq!(preview.status(), 200);
    assert_eq!(preview.headers()["content-type"], "image/png");
    let img = image::load_from_memory(&preview.bytes().await.unwrap()).expect("a real png");
    assert_eq!((img.width(), img.height()), (64, 64));
}
