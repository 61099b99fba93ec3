//! The admin console's figures (§4.12, docs/admin.md) on both backends: every admin route of the
//! served `/openapi.json` refuses a non-admin (403 for an owner's session and for a key, 401 with
//! nothing), and each figure matches what the test made happen: a settled develop in ai-costs,
//! a failed one in failures, a cancel through develops/action releasing its hold once, a retry
//! holding a new develop, frames made and brought, a verdict kept and rolled up by bucket,
//! kept-cost after a delete, and tokenomics, overview and payments against the ledger.

use reqwest::Method;
use serde_json::Value;
use studio_client::api::{
    AdminDevelopsQuery, DevelopAction, DevelopActionRequest, FailuresQuery, FramesQuery, JobStatus, PaymentsQuery,
    Quality, RollupQuery, SinceQuery, TokenomicsQuery, VerdictsQuery,
};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_tests::images::png;
use studio_tests::{Backend, House, PASSWORD, TestApp, backend_tests, spawn, unique_email};

backend_tests!(every_admin_route_refuses_a_non_admin, console_figures_match_what_happened);

fn upscale(bytes: Vec<u8>) -> DevelopSubmit {
    DevelopSubmit::new("upscale")
        .input("image", InputSource::Bytes { file_name: "in.png".into(), bytes })
        .quality(Quality::K1)
}

/// An admin's session client (made by the operator, as `studio-server admin add` does).
/// One caller of the refusal sweep: who, the credential header, the status and code owed.
type Case<'a> = (&'a str, Option<(&'a str, String)>, u16, Option<&'a str>);

async fn admin(app: &TestApp) -> studio_client::Client {
    let email = unique_email("console-admin");
    let signed = app.client.sign_up(&email, PASSWORD, None).await.expect("sign up");
    app.studio.admin().operator().add_admin(&email).await.expect("admin add");
    app.client.with_session(signed.session)
}

async fn every_admin_route_refuses_a_non_admin(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let owner = app.client.sign_up(&unique_email("console-owner"), PASSWORD, None).await.expect("sign up");
    let session = owner.session.clone();
    let boss = admin(&app).await;
    let boss_key = boss.mint_key("admin key", None).await.expect("mint").key.expect("secret");

    let doc = app.client.openapi().await.expect("openapi.json");
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        if !path.starts_with("/api/toolkit/admin/") {
            continue;
        }
        for method in item.as_object().expect("path item").keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                routes.push((method.to_uppercase(), path.clone()));
            }
        }
    }
    assert!(routes.len() >= 25, "the admin routes are in the document ({})", routes.len());
    assert!(routes.iter().any(|(_, p)| p == "/api/toolkit/admin/tokenomics"));

    let http = reqwest::Client::new();
    let mut wrong = Vec::new();
    for (method, template) in &routes {
        // Every path parameter gets a plausible id; the refusal comes before it is read.
        let mut path = String::new();
        let mut rest = template.as_str();
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            path.push_str(&rest[..open]);
            path.push_str("x_1");
            rest = &rest[close..];
        }
        path.push_str(rest);
        let cases: [Case; 3] = [
            ("owner session", Some(("cookie", format!("studio_session={session}"))), 403, Some("FORBIDDEN")),
            ("admin's key", Some(("authorization", format!("Bearer {boss_key}"))), 403, None),
            ("nothing", None, 401, Some("UNAUTHORIZED")),
        ];
        for (who, header, status, code) in cases {
            let mut req = http.request(method.parse::<Method>().expect("method"), format!("{}{path}", app.base));
            if let Some((name, value)) = header {
                req = req.header(name, value);
            }
            if method != "GET" && method != "DELETE" {
                req = req.json(&serde_json::json!({}));
            }
            let res = req.send().await.expect("send");
            let got = res.status().as_u16();
            let body: Value = res.json().await.unwrap_or(Value::Null);
            let code_ok = code.is_none_or(|c| body["error"] == c);
            if got != status || !code_ok {
                wrong.push(format!("{method} {template} by {who}: {got} {}", body["error"]));
            }
        }
    }
    assert!(wrong.is_empty(), "admin routes that did not refuse:\n{}", wrong.join("\n"));
}

async fn console_figures_match_what_happened(backend: Backend) {
    let Some(app) = spawn(backend, |c| {
        c.runner_concurrency = 0;
        c.billing = "test".into();
    })
    .await
    else {
        return;
    };
    let boss = admin(&app).await;
    let house = House::new(&app, "console").await;
    let key = &house.key;
    let org = house.org_id.clone();
    let mine = || AdminDevelopsQuery { house: Some(org.to_string()), ..Default::default() };

    // A develop that lands (settled, 9 tokens), one that fails, one left queued.
    let done = key.submit_develop(&upscale(png(120, 80))).await.expect("submit").job_id;
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let mut broken = png(300, 300);
    broken[60..120].fill(0xFF);
    let failed = key.submit_develop(&upscale(broken)).await.expect("submit").job_id;
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let queued = key.submit_develop(&upscale(png(90, 60))).await.expect("submit");
    assert_eq!(key.job(&done).await.unwrap().status, JobStatus::Done);
    assert_eq!(key.job(&failed).await.unwrap().status, JobStatus::Failed);
    assert_eq!(key.balance().await.unwrap().held, 9);

    // ai-costs: the settled hold, by tool and day, with its (local, exact) cost record.
    let costs = boss.admin_ai_costs(&SinceQuery::default()).await.expect("ai-costs");
    assert_eq!(costs.total_tokens_settled, 9);
    let upscale_cost = costs.by_tool.iter().find(|t| t.tool == "upscale").expect("upscale row");
    assert_eq!(
        (upscale_cost.tokens, upscale_cost.n, upscale_cost.cost_usd, upscale_cost.estimated),
        (9, 1, 0.0, false)
    );
    assert_eq!(costs.daily.iter().map(|d| d.tokens).sum::<i64>(), 9);
    let e = boss.admin_ai_costs(&SinceQuery { since: Some(0) }).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(400), Some("BAD_SINCE")));

    // develops: every one of the house, newest first, filtered and paged.
    let all = boss.admin_develops(&mine()).await.expect("develops");
    let ids: Vec<&str> = all.develops.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, vec![queued.job_id.as_str(), failed.as_str(), done.as_str()]);
    let only_failed =
        boss.admin_develops(&AdminDevelopsQuery { status: Some("failed".into()), ..mine() }).await.expect("filtered");
    assert_eq!(only_failed.develops.len(), 1);
    assert_eq!(only_failed.develops[0].id, failed);
    let page = boss.admin_develops(&AdminDevelopsQuery { limit: Some(2), ..mine() }).await.expect("page");
    let next = boss
        .admin_develops(&AdminDevelopsQuery { limit: Some(2), cursor: page.next_cursor.clone(), ..mine() })
        .await
        .expect("page 2");
    assert_eq!(next.develops.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), vec![done.as_str()]);
    assert!(next.next_cursor.is_none());

    // failures: the failed develop, grouped by tool and code, as an example.
    let failures = boss.admin_failures(&FailuresQuery::default()).await.expect("failures");
    assert_eq!(failures.total_failed, 1);
    assert_eq!((failures.groups[0].tool.as_str(), failures.groups[0].count), ("upscale", 1));
    assert_eq!(failures.groups[0].examples[0].job_id, failed);

    // develops/action cancel: released once through the house's own cancel rules.
    let cancel = DevelopActionRequest { job_id: queued.job_id.clone(), action: DevelopAction::Cancel };
    let cancelled = boss.admin_develop_action(&cancel).await.expect("cancel");
    assert_eq!((cancelled.status.as_str(), cancelled.tokens_released), ("cancelled", 9));
    let after = key.balance().await.unwrap();
    assert_eq!((after.held, after.balance), (0, 91));
    let again = boss.admin_develop_action(&cancel).await.unwrap_err();
    assert_eq!((again.status(), again.code()), (Some(409), Some("JOB_NOT_CANCELLABLE")));
    assert_eq!(key.balance().await.unwrap().balance, 91, "released exactly once");
    let unknown = DevelopActionRequest { job_id: "job_nope".into(), action: DevelopAction::Cancel };
    assert_eq!(boss.admin_develop_action(&unknown).await.unwrap_err().status(), Some(404));
    let landed = DevelopActionRequest { job_id: done.clone(), action: DevelopAction::Retry };
    let e = boss.admin_develop_action(&landed).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(409), Some("JOB_NOT_RETRYABLE")));

    // develops/action retry: a new develop of the same request, held at the same price.
    let retry = DevelopActionRequest { job_id: queued.job_id.clone(), action: DevelopAction::Retry };
    let retried = boss.admin_develop_action(&retry).await.expect("retry");
    let new_id = retried.new_job_id.clone().expect("a new develop");
    assert_eq!((retried.status.as_str(), retried.tokens_held), ("queued", 9));
    let new_job = key.job(&new_id).await.expect("the house sees it");
    assert_eq!(new_job.status, JobStatus::Queued);
    assert_eq!(key.balance().await.unwrap().held, 9);

    // frames: made (the develop's frame) and brought (an upload), filtered by origin.
    let result = key.job(&done).await.unwrap().result_asset_id.expect("a frame");
    let brought = key.upload_bytes("b.png", png(64, 48), &UploadOptions::default()).await.expect("upload").asset.id;
    let frames =
        |origin: &str| FramesQuery { house: Some(org.to_string()), origin: Some(origin.into()), ..Default::default() };
    let made = boss.admin_frames(&frames("made")).await.expect("made");
    assert_eq!(made.frames.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), vec![result.as_str()]);
    assert_eq!(made.frames[0].tool.as_deref(), Some("upscale"));
    let up = boss.admin_frames(&frames("brought")).await.expect("brought");
    assert!(up.frames.iter().any(|f| f.id == brought), "the upload is brought");
    assert!(up.frames.iter().all(|f| f.tool.is_none() && f.origin == "brought"));
    let bytes = boss.admin_frame_file(&result).await.expect("bytes");
    assert_eq!(bytes.len() as i64, made.frames[0].bytes, "the frame's own bytes");
    assert_eq!(boss.admin_frame_file("ast_nope").await.unwrap_err().status(), Some(404));
    let e = boss.admin_frames(&frames("stolen")).await.unwrap_err();
    assert_eq!(e.code(), Some("BAD_ORIGIN"));

    // judge: the house's own get_verdict keeps its verdict; the admin reads it, rolled up.
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_verdict", "arguments": {"jobId": done}}});
    let answer = key.mcp(&call).await.expect("mcp").expect("an answer");
    let score = answer["result"]["structuredContent"]["score"].as_i64().expect("a score");
    let kept = boss.admin_verdict(&done).await.expect("kept verdict");
    assert_eq!((kept.score, kept.readable, kept.rubric), (score, true, 1));
    assert_eq!(boss.admin_verdict(&done).await.unwrap().id, kept.id, "kept once");
    let e = boss.admin_verdict(&failed).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(409), Some("NOT_LANDED")));
    let listed = boss
        .admin_verdicts(&VerdictsQuery { house: Some(org.to_string()), ..Default::default() })
        .await
        .expect("verdicts");
    assert_eq!(listed.verdicts.iter().map(|v| v.job_id.as_str()).collect::<Vec<_>>(), vec![done.as_str()]);
    for bucket in ["day", "week", "month"] {
        let q = RollupQuery { house: Some(org.to_string()), bucket: Some(bucket.into()), ..Default::default() };
        let rollup = boss.admin_judge_rollup(&q).await.expect("rollup");
        assert_eq!(rollup.buckets.len(), 1, "{bucket}");
        let b = &rollup.buckets[0];
        assert_eq!((b.count, b.readable, b.passed, rollup.total), (1, 1, i64::from(kept.passed), 1), "{bucket}");
        assert_eq!(b.mean_score, kept.score as f64);
    }
    let other_rubric = RollupQuery { rubric: Some(2), ..Default::default() };
    assert_eq!(boss.admin_judge_rollup(&other_rubric).await.unwrap().total, 0);
    let e = boss.admin_judge_rollup(&RollupQuery { bucket: Some("year".into()), ..Default::default() }).await;
    assert_eq!(e.unwrap_err().code(), Some("BAD_BUCKET"));

    // kept-cost: the landed frame counts as kept until the house deletes it.
    let kc = boss.admin_kept_cost(&SinceQuery::default()).await.expect("kept-cost");
    assert_eq!((kc.kept_tokens, kc.deleted_tokens), (9, 0));
    key.delete_assets(std::slice::from_ref(&result)).await.expect("delete");
    let kc = boss.admin_kept_cost(&SinceQuery::default()).await.expect("kept-cost");
    assert_eq!((kc.kept_tokens, kc.deleted_tokens), (0, 9));
    let t = &kc.by_tool[0];
    assert_eq!((t.tool.as_str(), t.deleted_frames, t.deleted_tokens), ("upscale", 1, 9));

    // A test-mode top-up: a paid payment, bought tokens.
    let url = house.session.checkout_topup("pack_1000").await.expect("checkout").url;
    let paid = reqwest::Client::new().post(format!("{}{url}", app.base)).send().await.expect("pay");
    assert_eq!(paid.status(), 200);
    let payments = boss
        .admin_payments(&PaymentsQuery { house: Some(org.to_string()), ..Default::default() })
        .await
        .expect("payments");
    assert_eq!(payments.payments.len(), 1);
    assert_eq!((payments.payments[0].status.as_str(), payments.payments[0].tokens), ("paid", 1000));
    assert_eq!(payments.paid_cents, payments.payments[0].amount_cents);
    let open = PaymentsQuery { house: Some(org.to_string()), status: Some("open".into()), ..Default::default() };
    assert!(boss.admin_payments(&open).await.unwrap().payments.is_empty());

    // tokenomics: two sign-up grants (the admin's house and this one), one top-up, 9 spent.
    for bucket in ["day", "week", "month"] {
        let q = TokenomicsQuery { bucket: Some(bucket.into()), since: None };
        let t = boss.admin_tokenomics(&q).await.expect("tokenomics");
        assert_eq!(
            (t.totals.granted, t.totals.bought, t.totals.spent, t.totals.expired),
            (200, 1000, 9, 0),
            "{bucket}"
        );
        assert_eq!(t.series.iter().map(|s| s.spent).sum::<i64>(), 9);
        assert_eq!(t.series.iter().map(|s| s.granted).sum::<i64>(), 200);
    }

    // overview: the platform as this test left it.
    let o = boss.admin_overview().await.expect("overview");
    assert_eq!((o.houses, o.people), (2, 2));
    let today = &o.develops.today;
    assert_eq!((today.done, today.failed, today.cancelled, today.queued, today.total), (1, 1, 1, 1, 4));
    assert_eq!(o.develops.month, o.develops.today);
    assert_eq!((o.tokens.granted, o.tokens.bought, o.tokens.spent, o.tokens.held), (200, 1000, 9, 9));
    assert_eq!(o.tokens.spendable, 100 + 1091 - 9);
    assert_eq!((o.paid_payments, o.revenue_cents), (1, payments.paid_cents));
}
