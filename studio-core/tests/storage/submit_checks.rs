//! Submit checks (`SubmitChecks`): a submit planned on cached reads of the house (its brand
//! profile, its input images) is written only when the transaction that holds its tokens reads
//! the same; otherwise it comes back `Stale` and writes nothing, alone or in a group of others
//! that go through. A replayed idempotency key answers before any check.

use std::sync::Arc;

use chrono::Utc;
use studio_core::{AssetRow, BrandFieldsPatch, CreateJobsOutcome, JobRow, Storage, StoredBlob, SubmitChecks};

use crate::{conformance, new_house, queued_job};

conformance!(a_stale_read_writes_nothing, stale_calls_in_a_group_leave_the_others_written);

/// A live library image of the house.
async fn image(storage: &dyn Storage, org: &studio_core::OrgId) -> String {
    let id = format!("ast_{}", uuid::Uuid::new_v4().simple());
    let blob = StoredBlob {
        key: format!("orgs/{org}/assets/{id}.png"),
        bytes: 64,
        sha256: "0".repeat(64),
        mime: "image/png".into(),
        head: bytes::Bytes::new(),
    };
    storage
        .insert_asset(AssetRow::over_blob(id.clone(), org, None, "look".into(), "clothes", &blob, None))
        .await
        .unwrap();
    id
}

fn job(org: &studio_core::OrgId, user: &studio_core::UserId, key: Option<&str>) -> JobRow {
    queued_job(org, user, 10, key.map(str::to_string))
}

fn vision(text: &str) -> BrandFieldsPatch {
    BrandFieldsPatch { vision_en: Some(text.into()), ..BrandFieldsPatch::default() }
}

/// Submit `job` with `checks`; on `Stale`, check that nothing of it was written.
async fn submit(storage: &dyn Storage, job: JobRow, checks: SubmitChecks) -> CreateJobsOutcome {
    let before = storage.balance(&job.org_id).await.unwrap();
    let (org, id) = (job.org_id.clone(), job.id.clone());
    let outcome = storage.create_jobs(vec![job], None, checks).await.unwrap();
    if outcome == CreateJobsOutcome::Stale {
        assert_eq!(storage.balance(&org).await.unwrap(), before, "a stale submit moved the totals");
        assert!(storage.job(&org, &id).await.unwrap().is_none(), "a stale submit queued its job");
    }
    outcome
}

async fn a_stale_read_writes_nothing(storage: Arc<dyn Storage>) {
    let s = storage.as_ref();
    let (user, org) = new_house(s, 1_000).await;
    let (_, other_org) = new_house(s, 0).await;
    let img = image(s, &org).await;
    let foreign = image(s, &other_org).await;
    let checks = |brand, live: &[&String]| SubmitChecks {
        brand: Some(brand),
        live_assets: live.iter().map(|s| s.to_string()).collect(),
    };

    // No profile yet, and the image is live: as planned.
    assert!(matches!(submit(s, job(&org, &user, None), checks(None, &[&img])).await, CreateJobsOutcome::Created(_)));

    // A profile appears: a submit planned on "none" is stale, one planned on it goes through.
    let first = s.save_brand_profile(&org, &vision("Quiet tailoring"), Utc::now()).await.unwrap();
    assert_eq!(submit(s, job(&org, &user, None), checks(None, &[&img])).await, CreateJobsOutcome::Stale);
    let keyed = job(&org, &user, Some("key-1"));
    let created = submit(s, keyed.clone(), checks(Some(first.clone()), &[&img])).await;
    assert!(matches!(created, CreateJobsOutcome::Created(_)));

    // The profile is patched: the old read is stale.
    let second = s.save_brand_profile(&org, &vision("Loud tailoring"), Utc::now()).await.unwrap();
    assert_ne!(first, second);
    assert_eq!(submit(s, job(&org, &user, None), checks(Some(first.clone()), &[])).await, CreateJobsOutcome::Stale);

    // A replay answers with the first job, whatever its checks say now.
    let replay = s.create_jobs(vec![job(&org, &user, Some("key-1"))], None, checks(Some(first), &[&img])).await;
    match replay.unwrap() {
        CreateJobsOutcome::Existing(rows) => assert_eq!(rows[0].id, keyed.id),
        other => panic!("a replay answered {other:?}"),
    }

    // Another house's image is never live for this one; a deleted image no longer is.
    assert_eq!(
        submit(s, job(&org, &user, None), checks(Some(second.clone()), &[&img, &foreign])).await,
        CreateJobsOutcome::Stale
    );
    assert_eq!(s.soft_delete_assets(&org, std::slice::from_ref(&img), Utc::now()).await.unwrap(), 1);
    assert_eq!(
        submit(s, job(&org, &user, None), checks(Some(second.clone()), &[&img])).await,
        CreateJobsOutcome::Stale
    );

    // Checking nothing, or only what still holds, goes through.
    assert!(matches!(submit(s, job(&org, &user, None), SubmitChecks::default()).await, CreateJobsOutcome::Created(_)));
    assert!(matches!(
        submit(s, job(&org, &user, None), checks(Some(second), &[])).await,
        CreateJobsOutcome::Created(_)
    ));
    let bal = s.balance(&org).await.unwrap();
    assert_eq!((bal.held, bal.spendable()), (40, 960), "four jobs of 10 were held, no more");
}

async fn stale_calls_in_a_group_leave_the_others_written(storage: Arc<dyn Storage>) {
    let (user, org) = new_house(storage.as_ref(), 1_000).await;
    let img = image(storage.as_ref(), &org).await;
    let gone = image(storage.as_ref(), &org).await;
    storage.soft_delete_assets(&org, std::slice::from_ref(&gone), Utc::now()).await.unwrap();
    // A profile with every kind of field, so a group's read of it (on PostgreSQL, with the
    // balance lock in one statement) must give back exactly what a plain read gives.
    let patch = BrandFieldsPatch {
        vision_en: Some("Quiet \"tailoring\", ünïcode & <marks>".into()),
        vibe: Some(r#"["calm","dry"]"#.into()),
        inject_enabled: Some(false),
        ..BrandFieldsPatch::default()
    };
    storage.save_brand_profile(&org, &patch, Utc::now()).await.unwrap();
    assert!(storage.claim_free_brand_read(&org, Utc::now(), Utc::now() - chrono::Duration::minutes(10)).await.unwrap());
    let profile = storage.brand_profile(&org).await.unwrap();
    assert!(profile.as_ref().is_some_and(|p| p.free_read_at.is_some()), "{profile:?}");
    // All in flight at once, so most share a transaction: every third names the deleted image.
    let calls: Vec<_> = (0..24)
        .map(|i| {
            let (storage, job) = (storage.clone(), job(&org, &user, None));
            let live = if i % 3 == 0 { vec![img.clone(), gone.clone()] } else { vec![img.clone()] };
            let checks = SubmitChecks { brand: Some(profile.clone()), live_assets: live };
            tokio::spawn(
                async move { (i, job.id.clone(), storage.create_jobs(vec![job], None, checks).await.unwrap()) },
            )
        })
        .collect();
    let mut created = 0;
    for call in calls {
        let (i, id, outcome) = call.await.unwrap();
        let stored = storage.job(&org, &id).await.unwrap();
        match outcome {
            CreateJobsOutcome::Created(_) if i % 3 != 0 => {
                assert!(stored.is_some());
                created += 1;
            }
            CreateJobsOutcome::Stale if i % 3 == 0 => assert!(stored.is_none(), "call {i} was stale yet queued"),
            other => panic!("call {i} answered {other:?}"),
        }
    }
    assert_eq!(created, 16);
    let bal = storage.balance(&org).await.unwrap();
    assert_eq!(
        (bal.held, bal.spendable(), bal.job_event_seq),
        (160, 840, 16),
        "only the 16 written calls moved the books"
    );
}
