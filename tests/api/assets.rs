//! Assets: streamed upload with sniffing and limits, listing, the file routes with caching,
//! the legacy bytes route, soft delete, and house scoping.

use studio_client::api::{AssetKind, KeyRole};
use studio_client::{Client, UploadOptions};
use studio_core::AssetId;
use studio_tests::images::{png, png_claiming};
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};

backend_tests!(
    upload_list_and_file_routes,
    upload_refusals_store_nothing,
    soft_delete_hides_but_keeps,
    classify_without_ai_keeps_the_upload,
    pages_walk_the_library_once,
    lists_follow_changes_made_by_another_replica,
    lists_without_a_limit_answer_one_bounded_page,
    thumbnails_are_made_once_cached_and_deleted_with_the_asset,
    detail_names_the_develop_and_inputs_that_made_a_frame
);

/// Files under the blob directory (every stored blob).
pub(crate) fn blob_files(app: &TestApp) -> usize {
    fn walk(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| if e.path().is_dir() { walk(&e.path()) } else { 1 }).sum())
            .unwrap_or(0)
    }
    walk(&app.data_dir.join("blobs"))
}

async fn upload_list_and_file_routes(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, key: member, .. } = House::new(&app, "upload").await;
    let other = House::new(&app, "other").await.key;
    let bytes = png(40, 30);

    // The name says .jpg; the bytes say PNG, and the bytes win.
    let first =
        member.upload_bytes("shoots/coat-front.jpg", bytes.clone(), &UploadOptions::default()).await.expect("upload");
    assert!(first.classify.is_none());
    let a = first.asset;
    assert_eq!((a.name.as_str(), a.kind, a.mime.as_str()), ("coat-front", AssetKind::Clothes, "image/png"));
    assert_eq!((a.width, a.height, a.bytes), (Some(40), Some(30), bytes.len() as i64));
    assert_eq!(a.sku, None, "a sku is never invented");
    assert_eq!(a.url, format!("/api/toolkit/assets/{}/file", a.id));
    {
        use sha2::Digest;
        assert_eq!(a.sha256, hex::encode(sha2::Sha256::digest(&bytes)));
    }

    let folder = member.create_folder("Bags", None).await.unwrap().folder;
    let opts = UploadOptions {
        folder_id: Some(folder.id.clone()),
        name: Some("Tote".into()),
        kind: Some(AssetKind::Accessory),
        sku: Some("TT-01".into()),
        classify: false,
    };
    let b = member.upload_bytes("x.png", png(10, 12), &opts).await.expect("upload into folder").asset;
    assert_eq!(
        (b.name.as_str(), b.kind, b.sku.as_deref(), b.folder_id.as_deref()),
        ("Tote", AssetKind::Accessory, Some("TT-01"), Some(folder.id.as_str()))
    );

    let all = member.list_assets(None).await.unwrap().assets;
    assert_eq!(all.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(), [b.id.as_str(), a.id.as_str()], "newest first");
    let bags = session.list_assets(Some(&folder.id)).await.unwrap().assets;
    assert_eq!(bags.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(), [b.id.as_str()]);
    let e = member.list_assets(Some("fld_missing")).await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    assert!(other.list_assets(None).await.unwrap().assets.is_empty(), "another house sees nothing");

    // The file route: bytes, caching headers, 304, 404 for another house, 401 without auth.
    assert_eq!(member.asset_bytes(&a.id).await.unwrap().as_ref(), bytes.as_slice());
    let target = app.data_dir.join("downloaded.png");
    assert_eq!(member.download_asset(&a.id, &target).await.unwrap(), bytes.len() as u64);
    assert_eq!(std::fs::read(&target).unwrap(), bytes);
    let http = reqwest::Client::new();
    let member_auth = key_header(&member);
    let res = http.get(format!("{}{}", app.base, a.url)).header("authorization", &member_auth).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "private, max-age=3600");
    assert_eq!(res.headers()["content-type"], "image/png");
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag, format!("\"{}\"", a.sha256));
    let cached = http
        .get(format!("{}{}", app.base, a.url))
        .header("authorization", &member_auth)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), 304);
    assert!(cached.bytes().await.unwrap().is_empty());
    let stale = http
        .get(format!("{}{}", app.base, a.url))
        .header("authorization", &member_auth)
        .header("if-none-match", "\"old\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 200);
    let anonymous = http.get(format!("{}{}", app.base, a.url)).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let foreign = other.asset_bytes(&a.id).await.unwrap_err();
    assert_eq!((foreign.status(), foreign.code()), (Some(404), Some("NOT_FOUND")), "foreign is 404 on the file route");

    // The legacy bytes route: 403 foreign, 404 unknown.
    let legacy = http
        .get(format!("{}/api/toolkit/assets/{}", app.base, a.id))
        .header("authorization", &member_auth)
        .send()
        .await
        .unwrap();
    assert_eq!(legacy.status(), 200);
    assert_eq!(legacy.bytes().await.unwrap().as_ref(), bytes.as_slice());
    let other_key = key_header(&other);
    let legacy_foreign = http
        .get(format!("{}/api/toolkit/assets/{}", app.base, a.id))
        .header("authorization", &other_key)
        .send()
        .await
        .unwrap();
    assert_eq!(legacy_foreign.status(), 403);
    let legacy_missing = http
        .get(format!("{}/api/toolkit/assets/ast_missing", app.base))
        .header("authorization", &member_auth)
        .send()
        .await
        .unwrap();
    assert_eq!(legacy_missing.status(), 404);
}

/// `Bearer <key>` for a client built with a key.
fn key_header(client: &Client) -> String {
    format!("Bearer {}", client.api_key().expect("a key client"))
}

async fn upload_refusals_store_nothing(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, key: member, .. } = House::new(&app, "refusals").await;
    let none = UploadOptions::default();
    let cases: Vec<(&str, Vec<u8>, UploadOptions, u16, &str)> = vec![
        ("empty.png", Vec::new(), none.clone(), 400, "EMPTY_FILE"),
        (
            "notes.png",
            b"these are words, not pixels at all, and there are enough of them".to_vec(),
            none.clone(),
            400,
            "UNSUPPORTED_TYPE",
        ),
        ("bad-sku.png", png(4, 4), UploadOptions { sku: Some("\u{7}bell".into()), ..none.clone() }, 400, "BAD_SKU"),
        (
            "no-folder.png",
            png(4, 4),
            UploadOptions { folder_id: Some("fld_missing".into()), ..none.clone() },
            404,
            "NOT_FOUND",
        ),
    ];
    for (name, bytes, opts, status, code) in cases {
        let e = member.upload_bytes(name, bytes, &opts).await.expect_err(code);
        assert_eq!((e.status(), e.code()), (Some(status), Some(code)), "{name}");
    }

    // Raw forms for what the typed client cannot send.
    let http = reqwest::Client::new();
    let auth = format!("Bearer {}", member.api_key().unwrap());
    let send = |form: reqwest::multipart::Form| {
        http.post(format!("{}/api/toolkit/assets/upload", app.base))
            .header("authorization", auth.clone())
            .multipart(form)
            .send()
    };
    let no_file = send(reqwest::multipart::Form::new().text("name", "x")).await.unwrap();
    assert_eq!(no_file.status(), 400);
    assert_eq!(no_file.json::<serde_json::Value>().await.unwrap()["error"], "NO_FILE");
    let file = || reqwest::multipart::Part::bytes(png(4, 4)).file_name("a.png");
    let bad_kind = send(reqwest::multipart::Form::new().text("kind", "hat").part("file", file())).await.unwrap();
    assert_eq!(bad_kind.status(), 400);
    assert_eq!(bad_kind.json::<serde_json::Value>().await.unwrap()["error"], "BAD_KIND");
    let bad_flag =
        send(reqwest::multipart::Form::new().part("file", file()).text("classify", "perhaps")).await.unwrap();
    assert_eq!(bad_flag.json::<serde_json::Value>().await.unwrap()["error"], "BAD_FORM");
    let not_multipart = http
        .post(format!("{}/api/toolkit/assets/upload", app.base))
        .header("authorization", auth.clone())
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(not_multipart.status(), 400);
    assert_eq!(not_multipart.json::<serde_json::Value>().await.unwrap()["error"], "BAD_FORM");

    // 13 MB of PNG-looking bytes: refused once the stream passes 12 MB.
    let mut big = png(8, 8);
    big.resize(13 * 1024 * 1024, 0);
    let e = member.upload_bytes("big.png", big, &none).await.expect_err("too large");
    assert_eq!((e.status(), e.code(), e.extra_i64("maxMb")), (Some(413), Some("IMAGE_TOO_LARGE"), Some(12)));

    // A decompression bomb: a valid header announcing 60000 × 60000 pixels.
    let bomb = png_claiming(60_000, 60_000);
    let e = member.upload_bytes("bomb.png", bomb, &none).await.expect_err("bomb");
    assert_eq!((e.status(), e.code()), (Some(413), Some("IMAGE_TOO_LARGE")));

    // A viewer uploads nothing.
    let viewer_key = session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let e = app.client.with_api_key(viewer_key).upload_bytes("v.png", png(4, 4), &none).await.expect_err("viewer");
    assert_eq!(e.status(), Some(403));

    assert!(member.list_assets(None).await.unwrap().assets.is_empty(), "no refusal left an asset");
    assert_eq!(blob_files(&app), 0, "no refusal left bytes behind");
}

async fn soft_delete_hides_but_keeps(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, key: member, .. } = House::new(&app, "delete").await;
    let other = House::new(&app, "stranger").await.key;
    let a = member.upload_bytes("a.png", png(5, 5), &UploadOptions::default()).await.unwrap().asset;
    let b = member.upload_bytes("b.png", png(6, 6), &UploadOptions::default()).await.unwrap().asset;
    let theirs = other.upload_bytes("c.png", png(7, 7), &UploadOptions::default()).await.unwrap().asset;

    let viewer = app.client.with_api_key(session.mint_key("v", Some(KeyRole::Viewer)).await.unwrap().key.unwrap());
    let e = viewer.delete_assets(std::slice::from_ref(&a.id)).await.expect_err("viewer");
    assert_eq!(e.status(), Some(403));

    let ids = vec![a.id.clone(), a.id.clone(), theirs.id.clone(), "ast_missing".into()];
    assert_eq!(member.delete_assets(&ids).await.unwrap().deleted, 1, "counted server-side: one real take-out");
    assert_eq!(member.delete_assets(std::slice::from_ref(&a.id)).await.unwrap().deleted, 0, "already deleted");
    let left = member.list_assets(None).await.unwrap().assets;
    assert_eq!(left.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(), [b.id.as_str()]);
    assert_eq!(member.asset_bytes(&a.id).await.unwrap_err().status(), Some(404));
    assert_eq!(other.list_assets(None).await.unwrap().assets.len(), 1, "the stranger's asset is untouched");
    // The row and the bytes stay.
    let storage = studio_core::open_storage(&app.database_url).await.unwrap();
    let row = storage.asset_by_id(&AssetId::from(&a.id)).await.unwrap().expect("row kept");
    assert!(row.deleted_at.is_some());
    assert_eq!(blob_files(&app), 3, "bytes kept");
}

async fn classify_without_ai_keeps_the_upload(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "classify").await.key;
    let before = member.balance().await.unwrap().balance;
    let opts = UploadOptions { classify: true, ..UploadOptions::default() };
    let res = member.upload_bytes("dress.png", png(8, 8), &opts).await.expect("201 even without AI");
    let c = res.classify.expect("classify answer");
    assert!(!c.ok);
    assert_eq!((c.error.as_deref(), c.tokens), (Some("AI_NOT_CONFIGURED"), 0));
    assert_eq!(member.list_assets(None).await.unwrap().assets.len(), 1, "the upload stands");
    assert_eq!(member.balance().await.unwrap().balance, before, "nothing charged");
}

/// `limit` and `cursor` page the library newest first: the pages joined are the whole list, a
/// cursor taken out since still leads on, a collection pages alone, and bad values are 400s.
async fn pages_walk_the_library_once(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let member = House::new(&app, "pages").await.key;
    let other = House::new(&app, "pages-other").await.key;
    let folder = member.create_folder("Knits", None).await.unwrap().folder;
    for i in 0..8 {
        let opts = UploadOptions {
            folder_id: (i % 2 == 0).then(|| folder.id.clone()),
            name: Some(format!("look {i}")),
            ..UploadOptions::default()
        };
        member.upload_bytes("look.png", png(8 + i, 8), &opts).await.expect("upload");
    }
    let ids = |list: &studio_client::api::AssetList| list.assets.iter().map(|a| a.id.clone()).collect::<Vec<_>>();
    let all = ids(&member.list_assets(None).await.unwrap());
    assert_eq!(all.len(), 8);

    // Pages of three: 3 + 3 + 2, in the whole list's order, the last without a cursor.
    let mut walked = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = member.list_assets_page(None, 3, cursor.as_deref()).await.expect("page");
        pages += 1;
        assert!(page.assets.len() <= 3);
        walked.extend(ids(&page));
        match page.next_cursor {
            Some(next) => {
                assert_eq!(Some(&next), walked.last(), "the cursor is the page's last asset");
                cursor = Some(next);
            }
            None => break,
        }
    }
    assert_eq!((pages, &walked), (3, &all), "the pages joined are the whole list, once each");
    let exact = member.list_assets_page(None, 8, None).await.unwrap();
    assert_eq!((ids(&exact), exact.next_cursor), (all.clone(), None), "a page that holds all has no next");

    // A cursor whose asset was taken out since still leads to the assets after it.
    let first = member.list_assets_page(None, 3, None).await.unwrap();
    let cut = first.next_cursor.clone().expect("more after the first page");
    member.delete_assets(std::slice::from_ref(&cut)).await.unwrap();
    let second = member.list_assets_page(None, 3, Some(&cut)).await.unwrap();
    assert_eq!(ids(&second), all[3..6].to_vec());

    // A collection pages alone.
    let knits = ids(&member.list_assets(Some(&folder.id)).await.unwrap());
    assert_eq!(knits.len(), 4);
    let p1 = member.list_assets_page(Some(&folder.id), 2, None).await.unwrap();
    let p2 = member.list_assets_page(Some(&folder.id), 2, p1.next_cursor.as_deref()).await.unwrap();
    assert_eq!([ids(&p1), ids(&p2)].concat(), knits);
    assert_eq!(p2.next_cursor, None);

    // Refusals: the limit out of range or not a number, another house's asset or an unknown id
    // as a cursor (with or without a limit).
    let http = reqwest::Client::new();
    let auth = key_header(&member);
    for (query, code) in [
        ("limit=0", "BAD_LIMIT"),
        ("limit=201", "BAD_LIMIT"),
        ("limit=ten", "BAD_LIMIT"),
        ("limit=3&cursor=ast_missing", "BAD_CURSOR"),
        ("cursor=ast_missing", "BAD_CURSOR"),
    ] {
        let res = http
            .get(format!("{}/api/toolkit/assets?{query}", app.base))
            .header("authorization", &auth)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{query}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["error"], code, "{query}: {body}");
    }
    let e = other.list_assets_page(None, 3, Some(&all[0])).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_CURSOR")), "another house's asset is no cursor");
    assert_eq!(ids(&member.list_assets(None).await.unwrap()).len(), 7, "nothing but the one taken out is gone");
}

/// The server keeps asset list answers beside the house's library version; a change made by
/// another replica (a second core on the same database) shows in the server's next answer,
/// whether the list is asked whole or by page.
async fn lists_follow_changes_made_by_another_replica(backend: Backend) {
    use studio_core::api::{AssetIds, AssetPatch};
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { key: member, secret, .. } = House::new(&app, "replica").await;
    for name in ["coat", "scarf", "boot"] {
        let opts = UploadOptions { name: Some(name.into()), ..UploadOptions::default() };
        member.upload_bytes("x.png", png(9, 9), &opts).await.expect("upload");
    }
    let names = |list: &studio_client::api::AssetList| list.assets.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    // Asked twice each, so the second answer is the kept one.
    for _ in 0..2 {
        assert_eq!(names(&member.list_assets(None).await.unwrap()), ["boot", "scarf", "coat"]);
        assert_eq!(names(&member.list_assets_page(None, 2, None).await.unwrap()), ["boot", "scarf"]);
    }

    let replica = app.replica().await;
    let caller = replica.accounts().authenticate_key(&secret).await.expect("the key works on the replica");
    let boot = member.list_assets(None).await.unwrap().assets[0].id.clone();
    let patch = AssetPatch { name: Some(Some("ankle boot".into())), ..AssetPatch::default() };
    replica
        .library()
        .patch_asset(&caller, &studio_core::AssetId::from(&boot), patch)
        .await
        .expect("renamed on the replica");
    assert_eq!(names(&member.list_assets(None).await.unwrap()), ["ankle boot", "scarf", "coat"], "a rename shows");
    assert_eq!(names(&member.list_assets_page(None, 2, None).await.unwrap()), ["ankle boot", "scarf"]);

    replica
        .library()
        .delete_assets(&caller, AssetIds { asset_ids: vec![boot] })
        .await
        .expect("taken out on the replica");
    assert_eq!(names(&member.list_assets(None).await.unwrap()), ["scarf", "coat"], "a take-out shows");
    assert_eq!(names(&member.list_assets_page(None, 2, None).await.unwrap()), ["scarf", "coat"]);

    let body = futures_util::stream::iter([Ok::<_, std::convert::Infallible>(bytes::Bytes::from(png(7, 7)))]);
    let pending = replica.library().stream_upload(&caller, body).await.expect("streamed on the replica");
    let form = studio_core::UploadForm { name: Some("belt".into()), ..studio_core::UploadForm::default() };
    replica.library().finish_upload(&caller, pending, form).await.expect("filed on the replica");
    assert_eq!(names(&member.list_assets(None).await.unwrap()), ["belt", "scarf", "coat"], "an upload shows");
    assert_eq!(names(&member.list_assets_page(None, 2, None).await.unwrap()), ["belt", "scarf"]);
}

/// No list route reads a whole library: without `limit` the assets and the scenes come 200 at a
/// time with `nextCursor`, and the client's whole-list calls follow the cursors.
async fn lists_without_a_limit_answer_one_bounded_page(backend: Backend) {
    let Some(app) = spawn(backend, |_| {}).await else { return };
    let house = House::new(&app, "bounded").await;
    // Oldest first, one at a time, so the order of the list is known.
    let mut uploaded = Vec::new();
    for i in 0..203 {
        let kind = if i < 3 { Some(AssetKind::Background) } else { None };
        let options = UploadOptions { kind, ..UploadOptions::default() };
        uploaded
            .push(house.key.upload_bytes(&format!("p{i}.png"), png(8, 8), &options).await.expect("upload").asset.id);
    }
    let http = reqwest::Client::new();
    let auth = key_header(&house.key);
    let get = |path: String| {
        let (http, auth) = (http.clone(), auth.clone());
        async move {
            let res = http.get(path).header("authorization", auth).send().await.unwrap();
            assert_eq!(res.status(), 200);
            res.json::<serde_json::Value>().await.unwrap()
        }
    };
    let first = get(format!("{}/api/toolkit/assets", app.base)).await;
    assert_eq!(first["assets"].as_array().unwrap().len(), 200, "the default page is 200");
    let cursor = first["nextCursor"].as_str().expect("a next page is announced").to_string();
    let rest = get(format!("{}/api/toolkit/assets?cursor={cursor}", app.base)).await;
    assert_eq!(rest["assets"].as_array().unwrap().len(), 3);
    assert!(rest["nextCursor"].is_null(), "the last page has no cursor");
    let whole = house.key.list_assets(None).await.unwrap();
    assert_eq!(whole.assets.len(), 203, "the client walks the pages");
    assert_eq!(whole.assets.iter().rev().map(|a| a.id.clone()).collect::<Vec<_>>(), uploaded);

    let scenes = get(format!("{}/api/toolkit/backgrounds?limit=2", app.base)).await;
    assert_eq!(scenes["scenes"].as_array().unwrap().len(), 2);
    assert!(!scenes["grounds"].as_array().unwrap().is_empty(), "the grounds come with every page");
    let next = scenes["nextCursor"].as_str().expect("more scenes").to_string();
    let last = get(format!("{}/api/toolkit/backgrounds?limit=2&cursor={next}", app.base)).await;
    assert_eq!(last["scenes"].as_array().unwrap().len(), 1);
    assert!(last["nextCursor"].is_null());
    assert_eq!(house.key.backgrounds().await.unwrap().scenes.len(), 3, "the client walks the scenes");
    let bad = http
        .get(format!("{}/api/toolkit/backgrounds?limit=0", app.base))
        .header("authorization", &auth)
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

async fn thumbnails_are_made_once_cached_and_deleted_with_the_asset(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { key: member, .. } = House::new(&app, "thumbs").await;
    let other = House::new(&app, "thumbs-other").await.key;
    let wide = member.upload_bytes("wide.png", png(1200, 800), &UploadOptions::default()).await.expect("upload").asset;
    let small = member.upload_bytes("small.png", png(40, 30), &UploadOptions::default()).await.expect("upload").asset;
    let stored = blob_files(&app);

    // Made on first request, no wider than w, kept: the second read makes nothing new.
    let thumb = member.asset_thumbnail(&wide.id, 256).await.expect("thumbnail");
    let img = image::load_from_memory(&thumb).expect("a decodable thumbnail");
    assert_eq!(img.width(), 256);
    assert!((170..=171).contains(&img.height()), "proportions kept: {}", img.height());
    assert_eq!(blob_files(&app), stored + 1, "one rendition kept in the blob store");
    assert_eq!(member.asset_thumbnail(&wide.id, 256).await.expect("again"), thumb, "the kept rendition is served");
    assert_eq!(blob_files(&app), stored + 1);
    let tiny = image::load_from_memory(&member.asset_thumbnail(&small.id, 1024).await.expect("small")).unwrap();
    assert_eq!((tiny.width(), tiny.height()), (40, 30), "never enlarged");
    assert_eq!(member.asset_bytes(&wide.id).await.expect("original").len() as i64, wide.bytes, "no w: the original");

    // Its own ETag, 304 on If-None-Match, the same caching as the original.
    let http = reqwest::Client::new();
    let auth = key_header(&member);
    let url = format!("{}{}?w=256", app.base, wide.url);
    let res = http.get(&url).header("authorization", &auth).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "image/jpeg");
    assert_eq!(res.headers()["cache-control"], "private, max-age=3600");
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(etag, format!("\"{}-w256\"", wide.sha256), "the original's hash and the width");
    let cached = http.get(&url).header("authorization", &auth).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(cached.status(), 304);
    let original = http.get(format!("{}{}", app.base, wide.url)).header("authorization", &auth);
    let original = original.header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(original.status(), 200, "a rendition's ETag is not the original's");

    // Refusals: another width is 400 with the accepted ones; another house's id is 404.
    let e = member.asset_thumbnail(&wide.id, 300).await.expect_err("w=300");
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_QUERY")));
    let e = other.asset_thumbnail(&wide.id, 256).await.expect_err("foreign");
    assert_eq!((e.status(), e.code()), (Some(404), Some("NOT_FOUND")));
    assert_eq!(blob_files(&app), stored + 2, "refusals made nothing");

    // Deleted with the asset (the original stays, as a soft delete keeps it).
    let deleted = member.delete_assets(std::slice::from_ref(&wide.id)).await.expect("delete");
    assert_eq!(deleted.deleted, 1);
    assert_eq!(blob_files(&app), stored + 1, "the wide asset's rendition is gone, the small one's stays");
    let e = member.asset_thumbnail(&wide.id, 256).await.expect_err("deleted");
    assert_eq!(e.status(), Some(404));
}

async fn detail_names_the_develop_and_inputs_that_made_a_frame(backend: Backend) {
    use studio_client::api::Quality;
    use studio_client::{DevelopSubmit, InputSource};
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key: member, .. } = House::new(&app, "detail").await;
    let other = House::new(&app, "detail-other").await.key;
    let input = member.upload_bytes("coat.png", png(60, 40), &UploadOptions::default()).await.unwrap().asset;

    // The price book says which inputs each tool needs, so a form asks before anything is held.
    let book = member.prices().await.expect("prices");
    let roles = |tool: &str| book.tools.iter().find(|t| t.tool == tool).map(|t| t.roles.clone()).expect("priced");
    assert_eq!(roles("upscale"), ["image"]);
    assert_eq!(roles("lookbook"), ["model", "garment"]);
    assert_eq!(roles("cleanup"), ["image", "mask"]);

    // An upload came from no develop.
    let plain = member.asset_detail(&input.id).await.expect("detail");
    assert_eq!((plain.asset.id.as_str(), plain.asset.name.as_str(), plain.origin), (input.id.as_str(), "coat", None));

    // A frame names its develop and its library input; a fresh file sent with a submit has no asset.
    let by_asset =
        DevelopSubmit::new("upscale").input("image", InputSource::Asset(input.id.clone())).quality(Quality::K1);
    let job = member.submit_develop(&by_asset).await.expect("submit").job_id;
    let fresh = DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "fresh.png".into(), bytes: png(30, 30) })
        .quality(Quality::K1);
    let fresh_job = member.submit_develop(&fresh).await.expect("submit").job_id;
    while app.studio.develops().run_next_job().await.expect("run") {}
    let jobs = member.jobs_since(0).await.unwrap().jobs;
    let frame =
        |id: &str| jobs.iter().rev().find(|j| j.id == id).and_then(|j| j.result_asset_id.clone()).expect("landed");
    let detail = member.asset_detail(&frame(&job)).await.expect("frame detail");
    let origin = detail.origin.expect("a develop made it");
    assert_eq!(
        (origin.job_id.as_str(), origin.tool.as_str(), origin.quality.as_str()),
        (job.as_str(), "upscale", "1k")
    );
    assert_eq!(origin.status, "done");
    assert_eq!(origin.inputs.len(), 1);
    let i = &origin.inputs[0];
    assert_eq!(
        (i.role.as_str(), i.asset_id.as_deref(), i.name.as_deref()),
        ("image", Some(input.id.as_str()), Some("coat"))
    );
    assert_eq!(i.url.as_deref(), Some(input.url.as_str()));
    let fresh_origin = member.asset_detail(&frame(&fresh_job)).await.unwrap().origin.expect("a develop");
    assert_eq!((fresh_origin.inputs[0].asset_id.as_ref(), fresh_origin.inputs[0].name.as_ref()), (None, None));

    // An input deleted since keeps its id, not its name; another house sees nothing.
    member.delete_assets(std::slice::from_ref(&input.id)).await.unwrap();
    let after = member.asset_detail(&frame(&job)).await.unwrap().origin.unwrap();
    assert_eq!((after.inputs[0].asset_id.as_deref(), after.inputs[0].name.as_ref()), (Some(input.id.as_str()), None));
    let e = other.asset_detail(&frame(&job)).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(404), Some("NOT_FOUND")));
    let e = member.asset_detail(&input.id).await.unwrap_err();
    assert_eq!(e.status(), Some(404), "a deleted asset has no detail");
}
