//! Looks, templates, the standing preset and the vocabulary end to end (§4.4, §4.5): creation
//! stores selections only, every refusal code with its legal values, foreign assets, listing
//! order and cap, templates built-in first, preset `sizes` semantics.

use serde_json::{Value, json};
use studio_client::UploadOptions;
use studio_client::api::{Background, CreateLookRequest, LookStatus, PresetRequest, PresetSize, Quality};
use studio_tests::{Backend, House, backend_tests, images, spawn};

backend_tests!(
    a_look_is_selections_only,
    look_refusals_carry_the_legal_values,
    templates_list_built_ins_first,
    the_standing_preset_keeps_sizes_unless_told,
);

/// A refused request, its status and code, and the field listing the legal values with their count.
type Refusal = (CreateLookRequest, u16, &'static str, Option<(&'static str, usize)>);

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn upload(house: &House, name: &str) -> String {
    house.key.upload_bytes(name, images::png(48, 64), &UploadOptions::default()).await.expect("upload").asset.id
}

fn request(model: &str, items: Value, background: Value) -> CreateLookRequest {
    CreateLookRequest {
        name: Some("Spring 1".into()),
        model_asset_id: Some(model.into()),
        item_asset_ids: items.as_array().cloned(),
        background: Some(background),
        aesthetic: Some("editorial".into()),
        brand_id: None,
    }
}

async fn a_look_is_selections_only(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "looks").await;
    let model = upload(&house, "model.png").await;
    let top = upload(&house, "top.png").await;
    let shoes = upload(&house, "shoes.png").await;
    let ground = upload(&house, "ground.png").await;
    let before = house.key.balance().await.unwrap();

    let items = json!([{ "assetId": top, "role": "top" }, { "assetId": shoes, "role": "shoes" }]);
    let made = house.key.create_look(&request(&model, items.clone(), json!({"kind": "preset", "value": "bone"}))).await;
    let look = made.expect("create").look;
    assert_eq!(
        (look.status, look.name.as_str(), look.model_asset_id.as_str()),
        (LookStatus::Draft, "Spring 1", model.as_str())
    );
    assert_eq!(look.item_asset_ids.len(), 2);
    assert_eq!(look.preset.background, Background::Preset { value: "bone".into() });
    assert!(look.look_base_asset_id.is_none() && look.background_asset_id.is_none());
    let on_asset =
        house.key.create_look(&request(&model, items, json!({"kind": "asset", "assetId": ground}))).await.unwrap().look;
    assert_eq!(on_asset.background_asset_id.as_deref(), Some(ground.as_str()));

    assert_eq!(house.key.balance().await.unwrap(), before, "nothing was held or charged");
    assert!(house.key.jobs_since(0).await.expect("jobs").jobs.is_empty(), "nothing develops");

    let listed = house.key.looks().await.expect("list").looks;
    assert_eq!(listed.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(), vec![on_asset.id.as_str(), look.id.as_str()]);
    let detail = house.key.look(&look.id).await.expect("detail");
    assert_eq!(detail.look, look);
    assert!(detail.variations.is_empty() && detail.lock_develop.is_none());

    // Another house sees none of it.
    let other = House::new(&app, "looks-other").await;
    assert_eq!(code(&other.key.look(&look.id).await.expect_err("foreign")), (Some(404), Some("NOT_FOUND")));
    assert!(other.key.looks().await.unwrap().looks.is_empty());
    let theirs = json!([{ "assetId": top, "role": "top" }]);
    let their_model = upload(&other, "m.png").await;
    let their_request = request(&their_model, theirs, json!({"kind": "preset", "value": "white"}));
    let e = other.key.create_look(&their_request).await.expect_err("foreign asset");
    assert_eq!(code(&e), (Some(404), Some("ASSET_NOT_FOUND")));

    // The listing stops at 50, newest first.
    for n in 0..50 {
        let items = json!([{ "assetId": top, "role": "top" }]);
        let mut req = request(&model, items, json!({"kind": "preset", "value": "white"}));
        req.name = Some(format!("look {n}"));
        house.key.create_look(&req).await.expect("create");
    }
    let listed = house.key.looks().await.unwrap().looks;
    assert_eq!(listed.len(), 50);
    assert_eq!(listed[0].name, "look 49");
    let viewer = house.session.mint_key("viewer", Some(studio_client::api::KeyRole::Viewer)).await.unwrap();
    let viewer = app.client.with_api_key(viewer.key.unwrap());
    assert_eq!(viewer.looks().await.unwrap().looks.len(), 50, "viewers read looks");
    let items = json!([{ "assetId": top, "role": "top" }]);
    let e = viewer.create_look(&request(&model, items, json!({"kind": "preset", "value": "white"}))).await;
    assert_eq!(e.expect_err("viewer").status(), Some(403));
}

async fn look_refusals_carry_the_legal_values(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "look-refusals").await;
    let model = upload(&house, "model.png").await;
    let top = upload(&house, "top.png").await;
    let vocabulary = house.key.lookbook_vocabulary().await.expect("vocabulary");
    assert!(vocabulary.item_roles.contains(&"top".to_string()));
    let good_items = json!([{ "assetId": top, "role": "top" }]);
    let white = json!({"kind": "preset", "value": "white"});
    let nine: Vec<Value> = (0..9).map(|n| json!({ "assetId": format!("ast_{n}"), "role": "top" })).collect();
    let cases: Vec<Refusal> = vec![
        (
            CreateLookRequest { name: None, ..request(&model, good_items.clone(), white.clone()) },
            400,
            "NAME_REQUIRED",
            None,
        ),
        (
            CreateLookRequest { model_asset_id: None, ..request(&model, good_items.clone(), white.clone()) },
            400,
            "MODEL_REQUIRED",
            None,
        ),
        (request(&model, json!([]), white.clone()), 400, "ITEMS_REQUIRED", None),
        (request(&model, Value::Array(nine), white.clone()), 400, "TOO_MANY_ITEMS", None),
        (
            request(&model, json!([{ "assetId": top, "role": "hat" }]), white.clone()),
            400,
            "BAD_ITEM",
            Some(("roles", vocabulary.item_roles.len())),
        ),
        (
            request(&model, json!([{ "role": "top" }]), white.clone()),
            400,
            "BAD_ITEM",
            Some(("roles", vocabulary.item_roles.len())),
        ),
        (
            request(&model, good_items.clone(), json!({"kind": "preset", "value": "plaid"})),
            400,
            "BAD_BACKGROUND",
            Some(("presets", vocabulary.backgrounds.len())),
        ),
        (
            request(&model, good_items.clone(), json!({"kind": "moon"})),
            400,
            "BAD_BACKGROUND",
            Some(("presets", vocabulary.backgrounds.len())),
        ),
        (
            CreateLookRequest {
                aesthetic: Some("baroque".into()),
                ..request(&model, good_items.clone(), white.clone())
            },
            400,
            "BAD_AESTHETIC",
            Some(("presets", vocabulary.aesthetics.len())),
        ),
        (request("ast_nope", good_items.clone(), white.clone()), 404, "ASSET_NOT_FOUND", None),
        (
            request(&model, good_items.clone(), json!({"kind": "asset", "assetId": "ast_nope"})),
            404,
            "ASSET_NOT_FOUND",
            None,
        ),
    ];
    for (req, status, expected, legal) in cases {
        let e = house.key.create_look(&req).await.expect_err(expected);
        assert_eq!(code(&e), (Some(status), Some(expected)), "{e}");
        if let (Some((field, n)), studio_client::Error::Api { extra, .. }) = (legal, &e) {
            assert_eq!(extra.get(field).and_then(Value::as_array).map(Vec::len), Some(n), "{expected} lists {field}");
        }
    }
    assert!(house.key.looks().await.unwrap().looks.is_empty(), "no refusal stored anything");
}

async fn templates_list_built_ins_first(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "templates").await;
    let list = house.key.shot_templates().await.expect("templates").templates;
    assert!(list.len() >= 3 && list.iter().all(|t| t.organization_id.is_none()), "{list:?}");
    let first = &list[0];
    let detail = house.key.shot_template(&first.id).await.expect("detail");
    assert_eq!(detail.template, *first);
    assert_eq!(detail.shots.len() as i64, first.shot_count);
    let orders: Vec<i64> = detail.shots.iter().map(|s| s.sort_order).collect();
    assert!(orders.windows(2).all(|w| w[0] < w[1]), "shots in order: {orders:?}");
    let vocabulary = house.key.lookbook_vocabulary().await.unwrap();
    for shot in list.iter().map(|t| t.id.clone()) {
        for s in house.key.shot_template(&shot).await.unwrap().shots {
            assert!(vocabulary.variations.iter().any(|v| v.key == s.framing), "{} frames a known key", s.id);
        }
    }
    assert_eq!(code(&house.key.shot_template("tpl_nope").await.expect_err("unknown")), (Some(404), Some("NOT_FOUND")));
}

async fn the_standing_preset_keeps_sizes_unless_told(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let house = House::new(&app, "preset").await;
    let fresh = house.key.standing_preset().await.expect("defaults, never 404").preset;
    assert_eq!((fresh.aesthetic.as_str(), fresh.quality, fresh.sizes.len()), ("minimal", Quality::K2, 0));

    let model = upload(&house, "model.png").await;
    let save = |sizes: Option<Vec<PresetSize>>| PresetRequest {
        aesthetic: Some("noir".into()),
        background: Some(json!({"kind": "preset", "value": "charcoal"})),
        variation_keys: Some(vec!["back".into(), "detail".into(), "back".into()]),
        model_asset_id: Some(model.clone()),
        quality: Some(Quality::K4),
        sizes,
    };
    let tile = PresetSize { name: "tile".into(), width: 1200, height: 1500 };
    let saved = house.key.save_standing_preset(&save(Some(vec![tile.clone()]))).await.expect("save").preset;
    assert_eq!((saved.aesthetic.as_str(), saved.quality), ("noir", Quality::K4));
    assert_eq!(saved.variation_keys, vec!["back", "detail"], "keys folded in order");
    assert_eq!(saved.sizes, vec![tile.clone()]);
    let kept = house.key.save_standing_preset(&save(None)).await.expect("save without sizes").preset;
    assert_eq!(kept.sizes, vec![tile], "absent sizes leave the stored list alone");
    let cleared = house.key.save_standing_preset(&save(Some(vec![]))).await.expect("clear").preset;
    assert!(cleared.sizes.is_empty(), "an empty array clears it");
    assert_eq!(house.key.standing_preset().await.unwrap().preset, cleared);

    for (req, expected) in [
        (PresetRequest { aesthetic: Some("x".into()), ..save(None) }, "BAD_AESTHETIC"),
        (PresetRequest { background: None, ..save(None) }, "BAD_BACKGROUND"),
        (PresetRequest { variation_keys: None, ..save(None) }, "KEYS_REQUIRED"),
        (PresetRequest { variation_keys: Some(vec!["cartwheel".into()]), ..save(None) }, "UNKNOWN_VARIATION"),
        (PresetRequest { model_asset_id: Some("ast_nope".into()), ..save(None) }, "ASSET_NOT_FOUND"),
        (
            PresetRequest {
                sizes: Some(vec![PresetSize { name: "huge".into(), width: 9000, height: 10 }]),
                ..save(None)
            },
            "BAD_DIMENSIONS",
        ),
    ] {
        let e = house.key.save_standing_preset(&req).await.expect_err(expected);
        assert_eq!(e.code(), Some(expected), "{e}");
    }
    assert_eq!(house.key.standing_preset().await.unwrap().preset.aesthetic, "noir", "refusals change nothing");
    let other = House::new(&app, "preset-other").await;
    assert_eq!(other.key.standing_preset().await.unwrap().preset.aesthetic, "minimal", "per house");
}
