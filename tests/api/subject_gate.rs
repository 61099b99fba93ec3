//! The subject gate through the HTTP API (issue 40), on real photographs of the segmentation set
//! (`tests/data/segmentation`): every cutout tool on a photo without a clear subject (a brick wall)
//! fails its job with `SUBJECT_NOT_FOUND` or answers 422 `SUBJECT_NOT_FOUND`, with the balance
//! unchanged; on a photo with one (the coffee cup) the frame lands; preflight says
//! `no-clear-subject` first, before anything is held.

use studio_client::api::{JobStatus, Quality, SegmentRequest};
use studio_client::{DevelopSubmit, InputSource, PreflightCheck, UploadOptions};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(cutout_tools_refuse_a_photo_without_a_subject_and_charge_nothing, a_photo_with_a_subject_lands,);

fn photo(name: &str) -> Vec<u8> {
    let path = format!("{}/data/segmentation/images/{name}.jpg", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn input(name: &str) -> InputSource {
    InputSource::Bytes { file_name: format!("{name}.jpg"), bytes: photo(name) }
}

/// The house's (spendable, held).
async fn tokens(house: &House) -> (i64, i64) {
    let b = house.key.balance().await.expect("balance");
    (b.balance, b.held)
}

async fn cutout_tools_refuse_a_photo_without_a_subject_and_charge_nothing(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "gate-brick").await;
    let key = &house.key;
    let before = tokens(&house).await;

    // Preflight says it first, and holds nothing.
    let r = key.preflight(&PreflightCheck::new().image(input("brick"))).await.expect("preflight");
    let f = r.findings.iter().find(|f| f.code == "no-clear-subject").unwrap_or_else(|| panic!("{r:#?}"));
    assert!(f.says.contains("SUBJECT_NOT_FOUND"), "{}", f.says);
    assert_eq!(tokens(&house).await, before);

    // Each develop tool that cuts a subject: the job fails with the code and what was measured.
    let develops = [
        DevelopSubmit::new("packshot").input("image", input("brick")),
        DevelopSubmit::new("color-change").input("image", input("brick")).param("color", "teal"),
        DevelopSubmit::new("harmonize").input("image", input("brick")),
        DevelopSubmit::new("lookbook")
            .input("model", input("brick"))
            .input("garment", input("brick"))
            .param("itemRoles", "top"),
    ];
    for submit in develops {
        let submit = submit.quality(Quality::K1);
        let accepted = key.submit_develop(&submit).await.expect("submit");
        assert!(accepted.tokens_held > 0);
        assert!(app.studio.develops().run_next_job().await.expect("run"));
        let status = key.job(&accepted.job_id).await.expect("status");
        assert_eq!(status.status, JobStatus::Failed, "{:?}", status.error);
        let error = status.error.unwrap_or_default();
        assert!(error.starts_with("SUBJECT_NOT_FOUND: "), "{error}");
        assert!(
            error.contains('%') || error.contains('×') || error.contains("pieces"),
            "says what was measured: {error}"
        );
        assert_eq!(status.tokens_settled, Some(0));
        assert_eq!(tokens(&house).await, before, "the hold of {} was released", status.job_id);
    }

    // The lanes answer 422 and charge nothing.
    let e = key.remove_background(&input("brick")).await.unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(422), Some("SUBJECT_NOT_FOUND")), "{e}");
    let asset = key.upload_bytes("gravel.jpg", photo("gravel"), &UploadOptions::default()).await.expect("upload").asset;
    let e = key
        .segment(&SegmentRequest { image_url: asset.id.clone(), point: Some(vec![20.0, 20.0]), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!((e.status(), e.code()), (Some(422), Some("SUBJECT_NOT_FOUND")), "{e}");
    assert_eq!(tokens(&house).await, before);
}

async fn a_photo_with_a_subject_lands(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "gate-coffee").await;
    let key = &house.key;
    let r = key.preflight(&PreflightCheck::new().image(input("coffee"))).await.expect("preflight");
    assert!(!r.findings.iter().any(|f| f.code == "no-clear-subject"), "{r:#?}");

    let (spendable, _) = tokens(&house).await;
    let accepted = key
        .submit_develop(&DevelopSubmit::new("packshot").input("image", input("coffee")).quality(Quality::K1))
        .await
        .expect("submit");
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let status = key.job(&accepted.job_id).await.expect("status");
    assert_eq!(status.status, JobStatus::Done, "{:?}", status.error);
    let frame = key.asset_bytes(status.result_asset_id.as_deref().expect("a result")).await.expect("bytes");
    let img = image::load_from_memory(&frame).expect("a frame");
    assert_eq!(img.width().max(img.height()), 1024);
    assert_eq!(tokens(&house).await, (spendable - accepted.tokens_held, 0));

    let cut = key.remove_background(&input("coffee")).await.expect("a cutout");
    assert_eq!(cut.spent, 1);
}
