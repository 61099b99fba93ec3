//! The examples against a real server: the test harness boots studio-server on 127.0.0.1:0 over a
//! fresh SQLite file (and PostgreSQL when `STUDIO_TEST_POSTGRES_URL` is set), and the examples'
//! library functions run against it exactly as the example binaries do.

use std::path::Path;

use studio_client::Client;
use studio_examples::{agent_session, upload_and_develop};
use studio_tests::{Backend, TestApp, backend_tests, spawn, unique_email};

backend_tests!(upload_and_develop_upscales_to_2k_and_charges_13, agent_session_sees_twelve_tools_and_a_refusal);

/// A fresh house and a member key for it: a client holding the key, and the key.
async fn member_key(app: &TestApp, tag: &str) -> (Client, String) {
    let signed = app.client.sign_up(&unique_email(tag), "a long enough password", None).await.expect("sign up");
    let key = app.client.with_session(&signed.session).mint_key(tag, None).await.expect("mint").key.expect("secret");
    (app.client.with_api_key(&key), key)
}

/// Write a `width` × `height` PNG gradient to `path`.
fn write_png(path: &Path, width: u32, height: u32) {
    image::RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 128]))
        .save_with_format(path, image::ImageFormat::Png)
        .expect("write the input PNG");
}

async fn upload_and_develop_upscales_to_2k_and_charges_13(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let (client, _) = member_key(&app, "example-develop").await;
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("garment.png");
    let output = dir.path().join("garment-2k.jpg");
    write_png(&input, 300, 200);
    let start = client.balance().await.expect("balance").balance;

    let summary = upload_and_develop(&client, &input, &output).await.expect("upload_and_develop");

    // The file on disk is a real image, 2,048 px on the long edge, aspect kept.
    let written = std::fs::metadata(&output).expect("output written").len();
    assert_eq!(written, summary.bytes_written);
    let img = image::ImageReader::open(&output)
        .and_then(|r| r.with_guessed_format())
        .expect("read the output")
        .decode()
        .expect("the output is a real image");
    assert_eq!((img.width(), img.height()), (2048, 1365));

    // 2k costs 13 tokens: held at submit, settled at done, and nothing else moved.
    assert_eq!((summary.tokens_held, summary.tokens_settled), (13, 13));
    assert_eq!(summary.balance_before, start, "uploading is free");
    assert_eq!(summary.balance_before - summary.balance_after, 13);
    let balance = client.balance().await.expect("balance");
    assert_eq!((balance.balance, balance.held), (start - 13, 0));

    // The result is filed in the library as the upscale of the upload.
    let job = client.job(&summary.job_id).await.expect("job");
    assert_eq!(job.result_asset_id.as_deref(), Some(summary.result_asset_id.as_str()));
    let assets = client.list_assets(None).await.expect("assets").assets;
    assert!(assets.iter().any(|a| a.id == summary.asset_id), "the upload is in the library");
    let result = assets.iter().find(|a| a.id == summary.result_asset_id).expect("the result is in the library");
    assert_eq!(result.tool.as_deref(), Some("upscale"));
}

async fn agent_session_sees_twelve_tools_and_a_refusal(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let (client, key) = member_key(&app, "example-agent").await;
    let before = client.balance().await.expect("balance").balance;

    let report = agent_session(&app.base, &key).await.expect("agent_session");

    assert_eq!(report.protocol_version, "2025-06-18");
    assert_eq!(report.server_info["version"], "1.0.0");
    assert_eq!(report.initialized_status, 202);
    assert_eq!(report.tools.len(), 12, "{:?}", report.tools);
    for tool in ["list_capabilities", "check_balance", "start_develop", "get_develop", "cast_model"] {
        assert!(report.tools.iter().any(|t| t == tool), "{tool} is listed");
    }
    assert_eq!(report.balance["balance"], before);
    assert!(report.priced_tools.iter().any(|t| t == "upscale"), "{:?}", report.priced_tools);
    assert!(report.refusal_is_error);
    assert_eq!(report.refusal_code, "UNKNOWN_TOOL", "{}", report.refusal);
    assert!(report.refusal.starts_with("UNKNOWN_TOOL: "), "{}", report.refusal);
    assert_eq!(client.balance().await.expect("balance").balance, before, "a refusal charges nothing");
}
