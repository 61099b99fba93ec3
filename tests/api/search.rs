//! House-wide search (issue 23) through studio-client on both backends: relevance order on a
//! small fixed library (a name match above a sku or folder match, a short name above a long
//! one), prefix matching, pages by cursor, a soft-deleted asset gone at once, a renamed folder
//! found by its new name, another house's things never answered, memories (the house's and the
//! caller's own personal ones; a key sees the house's only; a retired one is gone), tickets (only
//! the caller's own), looks, models and presets by name, and every refusal code.

use serde_json::json;
use studio_client::UploadOptions;
use studio_client::api::{
    AssetKind, CastModelRequest, CreateLookRequest, MemoryClass, MemoryRequest, MemoryScope, NewTicket, SearchKind,
    SearchQuery, SearchResult, SearchResults, SeatRole,
};
use studio_client::{Client, Error};
use studio_tests::{Backend, House, backend_tests, images, spawn};

backend_tests!(assets_are_found_by_prefix_best_first, memories_tickets_and_the_rest_follow_who_may_see_them);

fn refused(e: Error) -> (Option<u16>, String) {
    (e.status(), e.code().unwrap_or("").to_string())
}

fn q(text: &str) -> SearchQuery {
    SearchQuery { q: Some(text.into()), ..SearchQuery::default() }
}

async fn find(client: &Client, query: SearchQuery) -> SearchResults {
    client.search(&query).await.unwrap_or_else(|e| panic!("search {query:?}: {e}"))
}

fn titles(page: &SearchResults) -> Vec<&str> {
    page.results.iter().map(|r| r.title.as_str()).collect()
}

/// The highlight's matched text, run by run.
fn marked(r: &SearchResult) -> Vec<String> {
    let chars: Vec<char> = r.highlight.text.chars().collect();
    r.highlight.ranges.iter().map(|g| chars[g.start as usize..g.end as usize].iter().collect()).collect()
}

async fn upload(client: &Client, name: &str, sku: Option<&str>, folder: Option<&str>, seed: usize) -> String {
    let options = UploadOptions {
        name: Some(name.into()),
        sku: sku.map(str::to_string),
        folder_id: folder.map(str::to_string),
        kind: Some(AssetKind::Clothes),
        ..UploadOptions::default()
    };
    client.upload_bytes("a.png", images::padded_png(seed, 512), &options).await.expect("upload").asset.id
}

async fn assets_are_found_by_prefix_best_first(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "search").await;
    let other = House::new(&app, "search-other").await;
    let key = &house.key;
    let knit = key.create_folder("Knitwear", None).await.expect("folder").folder.id;
    let road = key.create_folder("Silk road", None).await.expect("folder").folder.id;
    let dress = upload(key, "Silk dress", Some("SS27-001"), Some(&knit), 1).await;
    let scarf = upload(key, "Silk scarf with a long evening story", None, None, 2).await;
    let gown = upload(key, "Evening gown", Some("SILK-09"), None, 3).await;
    let coat = upload(key, "Wool coat", None, Some(&road), 4).await;
    upload(key, "Denim jacket", None, None, 5).await;
    let theirs = upload(&other.key, "Silk blouse", None, None, 6).await;

    // A name match ranks above a sku or folder match; the shorter name first.
    let silk = find(key, q("silk")).await;
    let ids: Vec<&str> = silk.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), 4, "{:?}", titles(&silk));
    assert_eq!(&ids[..2], [dress.as_str(), scarf.as_str()], "{:?}", titles(&silk));
    let mut rest = ids[2..].to_vec();
    rest.sort();
    let mut want = vec![gown.as_str(), coat.as_str()];
    want.sort();
    assert_eq!(rest, want);
    assert!(silk.results.windows(2).all(|w| w[0].score >= w[1].score), "best first");
    assert!(silk.next_cursor.is_none());
    let first = &silk.results[0];
    assert_eq!(first.kind, SearchKind::Asset);
    assert_eq!((first.sku.as_deref(), first.folder.as_deref()), (Some("SS27-001"), Some("Knitwear")));
    assert_eq!((first.folder_id.as_deref(), first.asset_kind), (Some(knit.as_str()), Some(AssetKind::Clothes)));
    assert!(first.url.as_deref().is_some_and(|u| u.ends_with(&format!("/api/toolkit/assets/{dress}/file"))));
    assert_eq!((first.highlight.field.as_str(), first.highlight.text.as_str()), ("title", "Silk dress"));
    assert_eq!(marked(first), ["Silk"]);
    let by_sku = silk.results.iter().find(|r| r.id == gown).expect("gown");
    assert_eq!((by_sku.highlight.field.as_str(), marked(by_sku)), ("sku", vec!["SILK".to_string()]));
    let by_folder = silk.results.iter().find(|r| r.id == coat).expect("coat");
    assert_eq!((by_folder.highlight.field.as_str(), marked(by_folder)), ("folder", vec!["Silk".to_string()]));

    // Every word is a prefix and all are required, case and punctuation aside.
    let typed = find(key, q("SIL dr")).await;
    assert_eq!(typed.results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [dress.as_str()]);
    assert_eq!(marked(&typed.results[0]), ["Sil", "dr"]);
    assert_eq!(find(key, q("ss27-00")).await.results[0].id, dress, "a sku's parts");
    assert_eq!(find(key, q("knit")).await.results[0].id, dress, "the folder's name");
    assert_eq!(find(key, q("clothes")).await.results.len(), 5, "the kind");
    assert!(find(key, q("silk denim")).await.results.is_empty());
    assert!(find(key, q("ilk")).await.results.is_empty(), "a prefix, not a substring");

    // Pages by cursor walk the same order once; a cursor belongs to its query.
    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let page = find(key, SearchQuery { limit: Some("1".into()), cursor: cursor.clone(), ..q("silk") }).await;
        assert!(page.results.len() <= 1);
        paged.extend(page.results.into_iter().map(|r| r.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(paged, ids);
    let page = find(key, SearchQuery { limit: Some("2".into()), ..q("silk") }).await;
    let cursor = page.next_cursor.expect("more");
    let e = key.search(&SearchQuery { cursor: Some(cursor.clone()), ..q("wool") }).await.unwrap_err();
    assert_eq!(refused(e), (Some(400), "BAD_CURSOR".into()));
    let e = key.search(&SearchQuery { cursor: Some(cursor), kinds: Some("asset".into()), ..q("silk") }).await;
    assert_eq!(refused(e.unwrap_err()), (Some(400), "BAD_CURSOR".into()));

    // Another house's things are never answered, and it finds only its own.
    assert!(!ids.contains(&theirs.as_str()));
    let their = find(&other.key, q("silk")).await;
    assert_eq!(their.results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [theirs.as_str()]);

    // A soft-deleted asset is gone at once; a renamed folder is found by its new name.
    key.delete_assets(std::slice::from_ref(&dress)).await.expect("delete");
    let after = find(key, q("silk")).await;
    assert!(after.results.iter().all(|r| r.id != dress), "deleted: {:?}", titles(&after));
    assert_eq!(after.results.len(), 3);
    assert!(find(key, q("ss27")).await.results.is_empty());
    key.rename_folder(&road, "Cashmere lane").await.expect("rename");
    assert_eq!(find(key, q("cashm")).await.results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [coat.as_str()]);
    assert!(find(key, q("silk road")).await.results.is_empty());

    // A viewer searches too; nobody without a credential does.
    let viewer = house.seat(&app, "search-viewer", SeatRole::Viewer).await;
    assert_eq!(find(&viewer.session, q("wool")).await.results.len(), 1);
    assert_eq!(refused(app.client.search(&q("silk")).await.unwrap_err()).0, Some(401));

    // The refusals.
    let cases: &[(SearchQuery, &str)] = &[
        (SearchQuery::default(), "QUERY_REQUIRED"),
        (q("   "), "QUERY_REQUIRED"),
        (q("-- !!"), "QUERY_REQUIRED"),
        (q(&"a".repeat(201)), "TOO_LONG"),
        (q("a b c d e f g h i j k l m"), "TOO_LONG"),
        (SearchQuery { kinds: Some("asset,folder".into()), ..q("silk") }, "BAD_KINDS"),
        (SearchQuery { limit: Some("0".into()), ..q("silk") }, "BAD_LIMIT"),
        (SearchQuery { limit: Some("51".into()), ..q("silk") }, "BAD_LIMIT"),
        (SearchQuery { limit: Some("many".into()), ..q("silk") }, "BAD_LIMIT"),
        (SearchQuery { cursor: Some("not-ours".into()), ..q("silk") }, "BAD_CURSOR"),
    ];
    for (query, code) in cases {
        let e = key.search(query).await.expect_err(code);
        assert_eq!(refused(e), (Some(400), code.to_string()), "{query:?}");
    }
    let most = find(key, SearchQuery { limit: Some("50".into()), ..q("silk") }).await;
    assert_eq!(
        titles(&most),
        ["Silk scarf with a long evening story", "Evening gown"],
        "the coat's folder was renamed"
    );
}

fn memory(statement: &str, scope: MemoryScope) -> MemoryRequest {
    MemoryRequest {
        statement: statement.into(),
        scope,
        memory_class: MemoryClass::Fact,
        replaces_memory_id: None,
        kind: None,
        confidence: None,
    }
}

fn ids_of(page: &SearchResults) -> Vec<&str> {
    let mut ids: Vec<&str> = page.results.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    ids
}

fn sorted(mut ids: Vec<&str>) -> Vec<&str> {
    ids.sort();
    ids
}

async fn memories_tickets_and_the_rest_follow_who_may_see_them(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "search-who").await;
    let other = House::new(&app, "search-who-other").await;
    let member = house.seat(&app, "search-who-member", SeatRole::Member).await;
    let owner = &house.session;
    let memories = |query: &str| SearchQuery { kinds: Some("memory".into()), ..q(query) };
    let tickets = |query: &str| SearchQuery { kinds: Some("ticket".into()), ..q(query) };

    // Memories: the house's and the caller's own personal ones; a key has no person.
    let shared = owner.remember(&memory("Velvet is steamed, never ironed", MemoryScope::House)).await.unwrap().id;
    let mine = owner.remember(&memory("I like velvet swatches by post", MemoryScope::Person)).await.unwrap().id;
    let theirs = member.session.remember(&memory("Velvet makes me sneeze", MemoryScope::Person)).await.unwrap().id;
    let foreign = other.session.remember(&memory("Velvet only in navy", MemoryScope::House)).await.unwrap().id;
    assert_eq!(ids_of(&find(owner, memories("velv")).await), sorted(vec![shared.as_str(), mine.as_str()]));
    assert_eq!(ids_of(&find(&member.session, memories("velv")).await), sorted(vec![shared.as_str(), theirs.as_str()]));
    assert_eq!(ids_of(&find(&house.key, memories("velv")).await), [shared.as_str()], "a key: house memories only");
    assert_eq!(ids_of(&find(&other.session, memories("velv")).await), [foreign.as_str()]);
    let found = find(owner, memories("steam")).await;
    assert_eq!((found.results[0].kind, found.results[0].scope.as_deref()), (SearchKind::Memory, Some("house")));
    owner.retire_memory(&shared).await.expect("retire");
    assert_eq!(ids_of(&find(owner, memories("velv")).await), [mine.as_str()], "retired: gone");

    // Tickets: only the caller's own.
    let raise = |subject: &str| NewTicket {
        subject: Some(subject.into()),
        body: "The export stops halfway every time I try.".into(),
        ..NewTicket::default()
    };
    owner.raise_ticket(&raise("Lookbook export stuck")).await.expect("owner's ticket");
    member.session.raise_ticket(&raise("Lookbook upload stuck")).await.expect("member's ticket");
    other.session.raise_ticket(&raise("Lookbook stuck too")).await.expect("other house's ticket");
    let own = find(owner, tickets("lookb stuck")).await;
    assert_eq!(titles(&own), ["Lookbook export stuck"]);
    assert_eq!(own.results[0].status.as_deref(), Some("new"));
    assert_eq!(titles(&find(&member.session, tickets("lookbook")).await), ["Lookbook upload stuck"]);
    assert_eq!(titles(&find(&other.session, tickets("lookbook")).await), ["Lookbook stuck too"]);

    // Looks, models and presets by name; `kinds` narrows.
    let image = upload(&house.key, "Tulle base", None, None, 7).await;
    let look = CreateLookRequest {
        name: Some("Tulle evening look".into()),
        model_asset_id: Some(image.clone()),
        item_asset_ids: Some(vec![json!({ "assetId": image, "role": "top" })]),
        background: Some(json!({ "kind": "preset", "value": "white" })),
        aesthetic: Some("minimal".into()),
        brand_id: None,
    };
    let look = house.key.create_look(&look).await.expect("look").look.id;
    let cast = CastModelRequest { name: "Tulle Tess".into(), asset_ids: vec![image.clone()], ..Default::default() };
    let model = house.key.own_model(&cast).await.expect("model").model.id;
    let plan = serde_json::from_value(json!({"name": "Tulle upscale", "nodes": [
        {"id": "a", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}}]}))
    .expect("plan");
    let preset = house.key.create_pipeline_preset(&plan).await.expect("preset").preset.id;
    let all = find(&house.key, q("tulle")).await;
    let mut kinds: Vec<SearchKind> = all.results.iter().map(|r| r.kind).collect();
    kinds.sort();
    assert_eq!(kinds, [SearchKind::Asset, SearchKind::Look, SearchKind::Model, SearchKind::Preset]);
    for (kind, id) in [(SearchKind::Look, &look), (SearchKind::Model, &model), (SearchKind::Preset, &preset)] {
        assert!(all.results.iter().any(|r| r.kind == kind && &r.id == id), "{kind:?} {id}");
    }
    let looks = find(&house.key, SearchQuery { kinds: Some("look,preset".into()), ..q("tulle") }).await;
    assert_eq!(ids_of(&looks), sorted(vec![look.as_str(), preset.as_str()]));
    assert_eq!(looks.results.iter().find(|r| r.id == look).and_then(|r| r.status.as_deref()), Some("draft"));
    assert!(find(&other.key, q("tulle")).await.results.is_empty());
}
