//! A develop filed into a collection (`folderId`): through the multipart submit (the typed
//! client's `DevelopSubmit::folder`) and the agent endpoint's start_develop, the landed frame is
//! filed there; an unknown collection or another house's is refused 404 NOT_FOUND (the folder
//! routes' code) and nothing is held.

use serde_json::{Value, json};
use studio_client::api::{JobStatus, Quality};
use studio_client::{Client, DevelopSubmit, InputSource};
use studio_tests::images::png;
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(develop_lands_in_the_named_folder, develop_into_an_unknown_or_foreign_folder_holds_nothing);

fn upscale() -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(60, 40) })
        .quality(Quality::K1)
}

/// One start_develop over the agent endpoint; the tool result.
async fn start(client: &Client, arguments: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "start_develop", "arguments": arguments}});
    client.mcp(&message).await.expect("mcp").expect("an answer")["result"].clone()
}

async fn develop_lands_in_the_named_folder(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, .. } = House::new(&app, "filing").await;
    let pack = key.create_folder("SS27 pack", None).await.unwrap().folder;

    // The multipart submit, through the typed client.
    let accepted = key.submit_develop(&upscale().folder(&pack.id)).await.expect("submit");
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let done = key.job(&accepted.job_id).await.unwrap();
    assert_eq!(done.status, JobStatus::Done, "{:?}", done.error);
    let frame = done.result_asset_id.expect("a result");
    let filed = key.list_assets(Some(&pack.id)).await.unwrap().assets;
    assert_eq!(filed.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), [frame.as_str()]);
    assert_eq!(filed[0].folder_id.as_deref(), Some(pack.id.as_str()));

    // Without a folder the frame stays at the root.
    let loose = key.submit_develop(&upscale()).await.unwrap();
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let loose = key.job(&loose.job_id).await.unwrap().result_asset_id.expect("a result");
    let all = key.list_assets(None).await.unwrap().assets;
    assert_eq!(all.iter().find(|a| a.id == loose).expect("listed").folder_id, None);

    // The agent endpoint's start_develop, on a library asset.
    let source = key.upload_bytes("s.png", png(50, 50), &Default::default()).await.unwrap().asset.id;
    let result =
        start(&key, json!({"tool": "upscale", "quality": "1k", "inputs": {"image": source}, "folderId": pack.id}))
            .await;
    assert_eq!(result["isError"], false, "{result}");
    let job = result["structuredContent"]["jobId"].as_str().expect("a job").to_string();
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let landed = key.job(&job).await.unwrap().result_asset_id.expect("a result");
    let filed = key.list_assets(Some(&pack.id)).await.unwrap().assets;
    assert!(filed.iter().any(|a| a.id == landed), "start_develop's frame is in the folder");

    // A duplicate carries the folder with the rest of the request.
    let again = key.duplicate_job(&job, None).await.unwrap();
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let twin = key.job(&again.job_id).await.unwrap().result_asset_id.expect("a result");
    assert!(key.list_assets(Some(&pack.id)).await.unwrap().assets.iter().any(|a| a.id == twin));
}

async fn develop_into_an_unknown_or_foreign_folder_holds_nothing(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, .. } = House::new(&app, "nofolder").await;
    let other = House::new(&app, "otherfolder").await;
    let theirs = other.key.create_folder("Theirs", None).await.unwrap().folder;
    let before = key.balance().await.unwrap();

    for folder in ["fld_nope", theirs.id.as_str()] {
        let e = key.submit_develop(&upscale().folder(folder)).await.expect_err("refused");
        assert_eq!((e.status(), e.code()), (Some(404), Some("NOT_FOUND")), "{folder}: {e}");
        let result = start(
            &key,
            json!({"tool": "upscale", "quality": "1k", "inputs": {"image": "ast_missing"}, "folderId": folder}),
        )
        .await;
        assert_eq!(result["isError"], true, "{result}");
        let error = result["structuredContent"]["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("NOT_FOUND"), "{error}");
        assert!(error.contains("collection"), "the refusal names the collection: {error}");
    }
    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, before.held));
    assert!(after.holds.is_empty());
    assert!(key.jobs_since(0).await.unwrap().jobs.is_empty(), "nothing was queued");
    assert!(key.list_assets(None).await.unwrap().assets.is_empty(), "no staged input became an asset");
}
