//! The factory end to end (§4.5): a plan groups pieces (a hand-made group beats a shared SKU, a
//! lone piece stands alone), guesses roles, fills the standing preset, prices the develops from
//! the price book and writes nothing; a run drafts one look per planned look under one batch
//! and spends nothing; one bad look refuses the whole run; every refusal code, foreign assets
//! and viewers.

use serde_json::{Value, json};
use studio_client::UploadOptions;
use studio_client::api::{
    AssetKind, Background, FactoryLookRequest, FactoryPlan, FactoryPlanRequest, FactoryRunRequest, GroupedBy, KeyRole,
    LookStatus, PresetRequest, Quality,
};
use studio_tests::{Backend, House, TestApp, backend_tests, images, spawn};

backend_tests!(
    a_plan_groups_pieces_prices_them_and_writes_nothing,
    a_plan_caps_looks_and_pieces,
    a_run_drafts_the_plan_under_one_batch_and_spends_nothing,
    one_bad_look_refuses_the_whole_run,
);

async fn app(backend: Backend) -> Option<TestApp> {
    spawn(backend, |_| {}).await
}

fn code(e: &studio_client::Error) -> (Option<u16>, Option<&str>) {
    (e.status(), e.code())
}

async fn piece(house: &House, name: &str, kind: AssetKind, sku: Option<&str>) -> String {
    let options =
        UploadOptions { name: Some(name.into()), kind: Some(kind), sku: sku.map(str::to_string), ..Default::default() };
    house.key.upload_bytes(&format!("{name}.png"), images::png(32, 40), &options).await.expect("upload").asset.id
}

async fn plan(house: &House, ids: &[&String], quality: Option<Quality>) -> Result<FactoryPlan, studio_client::Error> {
    let req = FactoryPlanRequest { asset_ids: Some(ids.iter().map(|i| i.to_string()).collect()), quality };
    house.key.factory_plan(&req).await
}

/// The lookbook frame's price at `quality` in the served price book.
async fn book_price(house: &House, quality: Quality) -> i64 {
    let book = house.key.prices().await.expect("prices");
    let tool = book.tools.iter().find(|t| t.tool == "lookbook").expect("the lookbook tool is priced");
    tool.prices.iter().find(|p| p.resolution == quality.as_str()).expect("a price").tokens
}

/// A proposed look in short: why, its name, and its pieces as (asset, role).
type Proposed = (GroupedBy, String, Vec<(String, String)>);

/// What a plan's looks summarise to.
fn summary(plan: &FactoryPlan) -> Vec<Proposed> {
    plan.looks
        .iter()
        .map(|l| {
            let items = l.item_asset_ids.iter().map(|i| (i.asset_id.clone(), i.role.clone())).collect();
            (l.grouped_by, l.name.clone(), items)
        })
        .collect()
}

async fn a_plan_groups_pieces_prices_them_and_writes_nothing(backend: Backend) {
    let Some(app) = app(backend).await else { return };
    let house = House::new(&app, "factory-plan").await;
    let blazer = piece(&house, "Wool blazer", AssetKind::Clothes, Some("SS25-01")).await;
    let trousers = piece(&house, "Wide trousers", AssetKind::Clothes, None).await;
    let skirt = piece(&house, "Pleated skirt", AssetKind::Clothes, Some("SS25-01")).await;
    let blouse = piece(&house, "Silk blouse", AssetKind::Clothes, Some("SS25-01")).await;
    let boots = piece(&house, "Chelsea boots", AssetKind::Clothes, None).await;
    let tote = piece(&house, "Leather tote", AssetKind::Accessory, None).await;
    let ring = piece(&house, "Signet", AssetKind::Jewelry, Some("RING-9")).await;
    // The blazer shares SS25-01 with the skirt and the blouse, but its hand-made group wins.
    house.key.group_assets(&[blazer.clone(), trousers.clone()]).await.expect("group");
    let before = house.key.balance().await.expect("balance");

    let asked = [&blazer, &skirt, &boots, &trousers, &blouse, &tote, &ring, &blazer];
    let planned = plan(&house, &asked, None).await.expect("plan");
    let pair = |id: &String, role: &str| (id.clone(), role.to_string());
    assert_eq!(
        summary(&planned),
        vec![
            (GroupedBy::Group, "Wool blazer".into(), vec![pair(&blazer, "outerwear"), pair(&trousers, "bottom")]),
            (GroupedBy::Sku, "SS25-01".into(), vec![pair(&skirt, "bottom"), pair(&blouse, "top")]),
            (GroupedBy::Piece, "Chelsea boots".into(), vec![pair(&boots, "shoes")]),
            (GroupedBy::Piece, "Leather tote".into(), vec![pair(&tote, "bag")]),
            (GroupedBy::Sku, "RING-9".into(), vec![pair(&ring, "jewelry")]),
        ],
        "a repeated id counts once"
    );
    let preset = house.key.standing_preset().await.expect("preset").preset;
    assert_eq!(planned.preset, preset);
    assert!(
        planned.looks.iter().all(|l| l.background == preset.background && l.variation_keys == preset.variation_keys)
    );
    assert!(!planned.truncated);
    assert!(!planned.model_ready, "the default preset names no model");

    // Cost: one develop-lock plus the preset's variations per look, at the book's price.
    let per_frame = book_price(&house, Quality::K2).await;
    let c = &planned.cost;
    assert_eq!((c.quality, c.per_frame, c.frames_per_look), (Quality::K2, per_frame, 1 + 3));
    assert_eq!((c.frames, c.total), (5 * 4, 5 * 4 * per_frame));
    assert_eq!(planned.balance, before.balance);
    let at_4k = plan(&house, &[&boots], Some(Quality::K4)).await.expect("plan at 4k").cost;
    assert_eq!((at_4k.quality, at_4k.per_frame), (Quality::K4, book_price(&house, Quality::K4).await));
    assert_eq!((at_4k.frames, at_4k.total), (4, 4 * at_4k.per_frame));

    // Reads only: nothing held, charged, drafted or queued.
    assert_eq!(house.key.balance().await.unwrap(), before);
    assert!(house.key.looks().await.unwrap().looks.is_empty());
    assert!(house.key.jobs_since(0).await.unwrap().jobs.is_empty());

    // The preset decides the frames and the model; modelReady follows the model's life.
    let model = piece(&house, "Model A", AssetKind::Model, None).await;
    let save = PresetRequest {
        aesthetic: Some("noir".into()),
        background: Some(json!({ "kind": "preset", "value": "charcoal" })),
        variation_keys: Some(vec!["back".into()]),
        model_asset_id: Some(model.clone()),
        quality: Some(Quality::K1),
        sizes: None,
    };
    house.key.save_standing_preset(&save).await.expect("save preset");
    let planned = plan(&house, &[&boots, &tote], None).await.expect("plan");
    assert!(planned.model_ready);
    assert_eq!(planned.looks[0].background, Background::Preset { value: "charcoal".into() });
    assert_eq!(planned.looks[0].variation_keys, vec!["back"]);
    let c = &planned.cost;
    assert_eq!(
        (c.quality, c.per_frame, c.frames_per_look, c.frames),
        (Quality::K1, book_price(&house, Quality::K1).await, 2, 4)
    );
    house.key.delete_assets(std::slice::from_ref(&model)).await.expect("delete the model");
    assert!(!plan(&house, &[&boots], None).await.expect("plan").model_ready, "a deleted model is not ready");

    // Models and backgrounds are not pieces; viewers may plan; another house's piece is unknown.
    let ground = piece(&house, "Studio wall", AssetKind::Background, None).await;
    let e = plan(&house, &[&boots, &ground], None).await.expect_err("a background is not a piece");
    assert_eq!(code(&e), (Some(400), Some("BAD_BODY")));
    let viewer = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let viewer = app.client.with_api_key(viewer);
    let req = FactoryPlanRequest { asset_ids: Some(vec![boots.clone()]), quality: None };
    assert_eq!(viewer.factory_plan(&req).await.expect("a viewer plans").looks.len(), 1);
    let other = House::new(&app, "factory-plan-other").await;
    assert_eq!(code(&other.key.factory_plan(&req).await.expect_err("foreign")), (Some(404), Some("ASSET_NOT_FOUND")));
}

async fn a_plan_caps_looks_and_pieces(backend: Backend) {
    let Some(app) = app(backend).await else { return };
    let house = House::new(&app, "factory-caps").await;
    let mut lone = Vec::new();
    for n in 0..studio_core::MAX_FACTORY_LOOKS + 1 {
        lone.push(piece(&house, &format!("Tee {n}"), AssetKind::Clothes, None).await);
    }
    let planned = plan(&house, &lone.iter().collect::<Vec<_>>(), None).await.expect("plan");
    assert_eq!(planned.looks.len(), studio_core::MAX_FACTORY_LOOKS);
    assert!(planned.truncated);
    assert_eq!(planned.looks.last().unwrap().item_asset_ids[0].asset_id, lone[studio_core::MAX_FACTORY_LOOKS - 1]);
    assert_eq!(planned.cost.frames, studio_core::MAX_FACTORY_LOOKS as i64 * planned.cost.frames_per_look);
    assert_eq!(planned.cost.total, planned.cost.frames * planned.cost.per_frame);

    // A group of nine splits in order into looks of eight and one.
    let nine: Vec<String> = lone[..9].to_vec();
    house.key.group_assets(&nine).await.expect("group");
    let planned = plan(&house, &nine.iter().collect::<Vec<_>>(), None).await.expect("plan");
    let sizes: Vec<(String, usize)> = planned.looks.iter().map(|l| (l.name.clone(), l.item_asset_ids.len())).collect();
    assert_eq!(sizes, vec![("Tee 0 (1/2)".to_string(), 8), ("Tee 0 (2/2)".to_string(), 1)]);
    assert!(!planned.truncated);

    let too_many: Vec<String> = (0..=studio_core::MAX_PLAN_ASSETS).map(|n| format!("ast_{n}")).collect();
    for (ids, expected) in [
        (None, "ASSETS_REQUIRED"),
        (Some(vec![]), "ASSETS_REQUIRED"),
        (Some(vec![lone[0].clone(), "  ".into()]), "BAD_BODY"),
        (Some(too_many), "BAD_BODY"),
    ] {
        let e =
            house.key.factory_plan(&FactoryPlanRequest { asset_ids: ids, quality: None }).await.expect_err(expected);
        assert_eq!(code(&e), (Some(400), Some(expected)), "{e}");
    }
    let e = plan(&house, &[&lone[0], &"ast_nope".to_string()], None).await.expect_err("unknown");
    assert_eq!(code(&e), (Some(404), Some("ASSET_NOT_FOUND")));
}

/// A run's request for `looks`, worn by `model`.
fn run_request(looks: Vec<FactoryLookRequest>, model: &str) -> FactoryRunRequest {
    FactoryRunRequest {
        looks: Some(looks),
        model_asset_id: Some(model.into()),
        aesthetic: Some("editorial".into()),
        quality: None,
        brand_id: None,
    }
}

async fn a_run_drafts_the_plan_under_one_batch_and_spends_nothing(backend: Backend) {
    let Some(app) = app(backend).await else { return };
    let house = House::new(&app, "factory-run").await;
    let model = piece(&house, "Model", AssetKind::Model, None).await;
    let coat = piece(&house, "Trench coat", AssetKind::Clothes, Some("SS25-07")).await;
    let skirt = piece(&house, "Midi skirt", AssetKind::Clothes, Some("SS25-07")).await;
    let boots = piece(&house, "Boots", AssetKind::Accessory, None).await;
    let before = house.key.balance().await.unwrap();
    let planned = plan(&house, &[&coat, &skirt, &boots], None).await.expect("plan");
    assert_eq!(planned.looks.len(), 2);

    let looks: Vec<FactoryLookRequest> = planned.looks.iter().map(FactoryLookRequest::from).collect();
    let mut req = run_request(looks.clone(), &model);
    req.quality = Some(Quality::K4);
    req.brand_id = Some("brand_ss25".into());
    let drafted = house.key.factory_run(&req).await.expect("run");
    assert_eq!(drafted.quality, Quality::K4);
    let names: Vec<&str> = drafted.looks.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, vec!["SS25-07", "Boots"]);
    assert!(drafted.looks.iter().all(|l| l.variation_keys == planned.preset.variation_keys));

    let listed = house.key.looks().await.unwrap().looks;
    assert_eq!(listed.len(), 2);
    for (made, planned) in drafted.looks.iter().zip(&planned.looks) {
        let look = listed.iter().find(|l| l.id == made.id).expect("the drafted look is listed");
        assert_eq!(look.status, LookStatus::Draft);
        assert_eq!(look.batch_id.as_deref(), Some(drafted.batch_id.as_str()));
        assert_eq!(look.planned_variation_keys.as_ref(), Some(&planned.variation_keys));
        assert_eq!(look.planned_quality, Some(Quality::K4));
        assert_eq!((look.model_asset_id.as_str(), look.preset.aesthetic.as_str()), (model.as_str(), "editorial"));
        assert_eq!(look.item_asset_ids, planned.item_asset_ids);
        assert_eq!(look.preset.background, planned.background);
        assert_eq!(look.brand_id.as_deref(), Some("brand_ss25"));
        assert_eq!(house.key.look(&look.id).await.expect("detail").look, *look);
    }
    assert_eq!(house.key.balance().await.unwrap(), before, "nothing was held or charged");
    assert!(house.key.jobs_since(0).await.unwrap().jobs.is_empty(), "nothing develops");

    // Without a quality the standing preset's is planned; a second run is a second batch.
    let again = house.key.factory_run(&run_request(looks, &model)).await.expect("run again");
    assert_eq!(again.quality, planned.preset.quality);
    assert_ne!(again.batch_id, drafted.batch_id);
    let listed = house.key.looks().await.unwrap().looks;
    assert_eq!(listed.iter().filter(|l| l.batch_id.as_deref() == Some(again.batch_id.as_str())).count(), 2);
    assert!(listed.iter().all(|l| l.brand_id.is_none() || l.batch_id.as_deref() == Some(drafted.batch_id.as_str())));
}

/// A refused run: its status and code, the field listing legal values (or `max`) with the
/// number it holds, and the index of the look it is about (none when about the whole run).
type Refusal = (FactoryRunRequest, u16, &'static str, Option<(&'static str, usize)>, Option<i64>);

async fn one_bad_look_refuses_the_whole_run(backend: Backend) {
    let Some(app) = app(backend).await else { return };
    let house = House::new(&app, "factory-refusals").await;
    let model = piece(&house, "Model", AssetKind::Model, None).await;
    let top = piece(&house, "Top", AssetKind::Clothes, None).await;
    let other = House::new(&app, "factory-refusals-other").await;
    let theirs = piece(&other, "Their top", AssetKind::Clothes, None).await;
    let vocabulary = house.key.lookbook_vocabulary().await.expect("vocabulary");
    let good = || FactoryLookRequest {
        name: Some("Look".into()),
        item_asset_ids: Some(vec![json!({ "assetId": top, "role": "top" })]),
        background: Some(json!({ "kind": "preset", "value": "white" })),
        variation_keys: Some(vec!["back".into(), "detail".into()]),
    };
    // The bad look is the second of three.
    let with_bad = |bad: FactoryLookRequest| run_request(vec![good(), bad, good()], &model);
    let nine: Vec<Value> = (0..9).map(|n| json!({ "assetId": format!("ast_{n}"), "role": "top" })).collect();
    let max_looks = studio_core::MAX_FACTORY_LOOKS;
    let max_frames = vocabulary.max_variation_frames as usize;
    let cases: Vec<Refusal> = vec![
        (FactoryRunRequest { looks: None, ..run_request(vec![], &model) }, 400, "LOOKS_REQUIRED", None, None),
        (run_request(vec![], &model), 400, "LOOKS_REQUIRED", None, None),
        (run_request(vec![good(); max_looks + 1], &model), 400, "TOO_MANY_LOOKS", Some(("max", max_looks)), None),
        (FactoryRunRequest { model_asset_id: None, ..with_bad(good()) }, 400, "MODEL_REQUIRED", None, None),
        (
            FactoryRunRequest { aesthetic: Some("baroque".into()), ..with_bad(good()) },
            400,
            "BAD_AESTHETIC",
            Some(("presets", vocabulary.aesthetics.len())),
            None,
        ),
        (with_bad(FactoryLookRequest { name: Some(" ".into()), ..good() }), 400, "NAME_REQUIRED", None, Some(1)),
        (with_bad(FactoryLookRequest { item_asset_ids: None, ..good() }), 400, "ITEMS_REQUIRED", None, Some(1)),
        (
            with_bad(FactoryLookRequest { item_asset_ids: Some(nine), ..good() }),
            400,
            "TOO_MANY_ITEMS",
            Some(("max", vocabulary.max_items_per_look as usize)),
            Some(1),
        ),
        (
            with_bad(FactoryLookRequest {
                item_asset_ids: Some(vec![json!({ "assetId": top, "role": "hat" })]),
                ..good()
            }),
            400,
            "BAD_ITEM",
            Some(("roles", vocabulary.item_roles.len())),
            Some(1),
        ),
        (
            with_bad(FactoryLookRequest { background: Some(json!({ "kind": "preset", "value": "plaid" })), ..good() }),
            400,
            "BAD_BACKGROUND",
            Some(("presets", vocabulary.backgrounds.len())),
            Some(1),
        ),
        (with_bad(FactoryLookRequest { variation_keys: None, ..good() }), 400, "KEYS_REQUIRED", None, Some(1)),
        (
            with_bad(FactoryLookRequest { variation_keys: Some(vec!["back".into(); max_frames + 1]), ..good() }),
            400,
            "TOO_MANY_FRAMES",
            Some(("max", max_frames)),
            Some(1),
        ),
        (
            with_bad(FactoryLookRequest { variation_keys: Some(vec!["cartwheel".into()]), ..good() }),
            400,
            "UNKNOWN_VARIATION",
            Some(("keys", vocabulary.variations.len())),
            Some(1),
        ),
        (
            with_bad(FactoryLookRequest {
                item_asset_ids: Some(vec![json!({ "assetId": theirs, "role": "top" })]),
                ..good()
            }),
            404,
            "ASSET_NOT_FOUND",
            None,
            Some(1),
        ),
        (
            with_bad(FactoryLookRequest { background: Some(json!({ "kind": "asset", "assetId": theirs })), ..good() }),
            404,
            "ASSET_NOT_FOUND",
            None,
            Some(1),
        ),
        (run_request(vec![good()], &theirs), 404, "ASSET_NOT_FOUND", None, None),
    ];
    for (req, status, expected, legal, look) in cases {
        let e = house.key.factory_run(&req).await.expect_err(expected);
        assert_eq!(code(&e), (Some(status), Some(expected)), "{e}");
        assert_eq!(e.extra_i64("lookIndex"), look, "{expected}: {e}");
        match legal {
            Some(("max", n)) => assert_eq!(e.extra_i64("max"), Some(n as i64), "{expected}"),
            Some((field, n)) => {
                assert_eq!(e.extra(field).and_then(Value::as_array).map(Vec::len), Some(n), "{expected} lists {field}")
            }
            None => {}
        }
    }

    // A body the server cannot read is BAD_BODY.
    let http = reqwest::Client::new();
    for body in [json!({ "looks": "all of them" }), json!({ "looks": [{ "variationKeys": "back" }] })] {
        let res = http
            .post(format!("{}/api/toolkit/factory/run", app.base))
            .bearer_auth(&house.secret)
            .json(&body)
            .send()
            .await
            .expect("send");
        assert_eq!(res.status().as_u16(), 400);
        assert_eq!(res.json::<Value>().await.unwrap()["error"], "BAD_BODY");
    }

    // Viewers may not draft.
    let viewer = house.session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let e = app.client.with_api_key(viewer).factory_run(&run_request(vec![good()], &model)).await.expect_err("viewer");
    assert_eq!(code(&e), (Some(403), Some("FORBIDDEN")));
    assert!(house.key.looks().await.unwrap().looks.is_empty(), "no refusal drafted anything");

    // A key named twice is planned as two takes, as the variations route develops it.
    let takes: Vec<String> = ["back", "detail", "back"].map(String::from).to_vec();
    let req = run_request(vec![FactoryLookRequest { variation_keys: Some(takes.clone()), ..good() }], &model);
    let drafted = house.key.factory_run(&req).await.expect("repeated keys are takes");
    assert_eq!(drafted.looks[0].variation_keys, takes);
    let look = house.key.look(&drafted.looks[0].id).await.expect("detail").look;
    assert_eq!(look.planned_variation_keys, Some(takes));
}
