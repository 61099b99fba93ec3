//! A develop's options are checked before anything is held: a packshot with `ground=bone` (and
//! every other option a local tool cannot read) answers 400 BAD_PARAMS naming the option and
//! the forms it accepts, through the multipart submit and the agent endpoint's start_develop,
//! and the balance does not move. A duplicate or a take of a stored job reads its options again
//! with today's tools, and is refused the same way.

use serde_json::{Value, json};
use studio_client::api::{JobStatus, Quality};
use studio_client::{DevelopSubmit, InputSource};
use studio_tests::images::png;
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(unreadable_options_are_refused_before_the_hold, a_duplicate_or_take_rechecks_the_options);

fn develop(tool: &str, pairs: &[(&str, &str)]) -> DevelopSubmit {
    let mut submit = DevelopSubmit::new(tool)
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes: png(60, 40) })
        .quality(Quality::K1);
    for (k, v) in pairs {
        submit = submit.param(*k, *v);
    }
    submit
}

async fn unreadable_options_are_refused_before_the_hold(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { key, .. } = House::new(&app, "params").await;
    let before = key.balance().await.unwrap();

    let e = key.submit_develop(&develop("packshot", &[("ground", "bone")])).await.expect_err("refused");
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_PARAMS")), "{e}");
    let said = e.to_string();
    assert!(said.contains("params.ground must be #rrggbb, #rgb or one of black, white"), "{said}");
    assert!(said.contains("\"bone\"") && said.contains("navy"), "{said}");

    for (tool, pairs, names) in [
        ("packshot", vec![("bg", "image")], "no background input"),
        ("packshot", vec![("margin", "0.9")], "params.margin must be a number from 0 to 0.4"),
        ("reframe", vec![], "params.aspect"),
        ("reframe", vec![("aspect", "4:5"), ("mode", "stretch")], "crop, extend or auto"),
        ("harmonize", vec![("strength", "high")], "params.strength must be a number from 0 to 1"),
        ("color-change", vec![("color", "sky")], "#rrggbb, #rgb or one of"),
        ("iron", vec![("strength", "2")], "params.strength"),
        ("camera-lens", vec![("focus", "left")], "params.focus must be x,y"),
    ] {
        let e = key.submit_develop(&develop(tool, &pairs)).await.expect_err("refused");
        assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_PARAMS")), "{tool} {pairs:?}: {e}");
        assert!(e.to_string().contains(names), "{tool} {pairs:?}: {e}");
    }

    // The agent endpoint refuses the same options with the same code, before the hold.
    let source = key.upload_bytes("s.png", png(50, 50), &Default::default()).await.unwrap().asset.id;
    let message = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "start_develop",
        "arguments": {"tool": "packshot", "quality": "1k", "inputs": {"image": source}, "params": {"ground": "bone"}}}});
    let answer: Value = key.mcp(&message).await.unwrap().expect("an answer");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let error = answer["result"]["structuredContent"]["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("BAD_PARAMS") && error.contains("#rrggbb"), "{error}");

    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, before.held), "nothing held");
    assert!(key.jobs_since(0).await.unwrap().jobs.is_empty(), "nothing queued");

    // What the tools read still goes through, and develops.
    let ok = key.submit_develop(&develop("packshot", &[("ground", "#F2EDE4"), ("runId", "r1")])).await.unwrap();
    assert_eq!(ok.status, JobStatus::Queued);
}

/// Rewrite a stored job's options behind the server's back: a job recorded by an earlier version
/// whose tools read options another way.
async fn store_params(app: &studio_tests::TestApp, job_id: &str, params: &str) {
    use sqlx::Connection;
    let sql = "UPDATE jobs SET params = $1 WHERE id = $2";
    match app.backend {
        Backend::Sqlite => {
            let mut db = sqlx::SqliteConnection::connect(&app.database_url).await.expect("open");
            sqlx::query(sql).bind(params).bind(job_id).execute(&mut db).await.expect("update");
        }
        Backend::Postgres => {
            let mut db = sqlx::PgConnection::connect(&app.database_url).await.expect("open");
            sqlx::query(sql).bind(params).bind(job_id).execute(&mut db).await.expect("update");
        }
    }
}

async fn a_duplicate_or_take_rechecks_the_options(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let House { key, .. } = House::new(&app, "params-again").await;
    let landed = key.submit_develop(&develop("iron", &[("strength", "0.5")])).await.expect("submit");
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let status = key.job(&landed.job_id).await.unwrap();
    assert_eq!(status.status, JobStatus::Done, "{:?}", status.error);

    // Readable options: both go through (and are cancelled again, so the books stay simple).
    let again = key.duplicate_job(&landed.job_id, None).await.expect("duplicate");
    key.cancel_job(&again.job_id).await.expect("cancel");

    store_params(&app, &landed.job_id, r#"{"strength": "2"}"#).await;
    let before = key.balance().await.unwrap();
    let jobs_before = key.jobs_since(0).await.unwrap().jobs.len();
    let e = key.duplicate_job(&landed.job_id, None).await.expect_err("refused");
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_PARAMS")), "{e}");
    assert!(e.to_string().contains("params.strength"), "{e}");
    let takes = studio_client::api::TakesRequest {
        job_ids: Some(vec![landed.job_id.clone()]),
        direction: Some("warmer".into()),
        idempotency_key: None,
    };
    let e = key.take_again(&takes).await.expect_err("refused");
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_PARAMS")), "{e}");
    let after = key.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, before.held), "nothing held");
    assert_eq!(key.jobs_since(0).await.unwrap().jobs.len(), jobs_before, "nothing queued");
}
