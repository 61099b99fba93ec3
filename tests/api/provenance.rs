//! Content credentials through the HTTP API (issue 43, docs/provenance.md): every local tool's
//! develop output carries a signed C2PA manifest with the action and digital source type of the
//! table, its inputs as ingredients and the house named; the asset shape summarises it and
//! `GET /api/toolkit/assets/{id}/provenance` reports it; a frame altered after signing reads
//! invalid; the remove-background lane's kept cutout is signed too; an upload keeps the
//! credentials it came with.
//!
//! With `STUDIO_PROVENANCE_OUT=DIR` the outputs (and one altered copy) are written to DIR with
//! `expected.json`, for the third-party reader (`tests/provenance/run.sh`, c2pa-python).

use std::path::PathBuf;

use serde_json::{Value, json};
use studio_client::api::{CredentialValidation, JobStatus, Quality};
use studio_client::{DevelopSubmit, InputSource, UploadOptions};
use studio_core::provenance::read_credentials;
use studio_tests::images::{jpeg, png};
use studio_tests::{Backend, House, backend_tests, spawn};

backend_tests!(every_local_tool_signs_its_frame, uploads_keep_the_credentials_they_came_with);

fn photo(name: &str) -> InputSource {
    let path = format!("{}/data/segmentation/images/{name}.jpg", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    InputSource::Bytes { file_name: format!("{name}.jpg"), bytes }
}

/// A mask for cleanup: white where the blemish is.
fn mask() -> InputSource {
    let mut m = image::RgbImage::new(400, 300);
    for (x, y, p) in m.enumerate_pixels_mut() {
        if (180..220).contains(&x) && (130..170).contains(&y) {
            *p = image::Rgb([255, 255, 255]);
        }
    }
    InputSource::Bytes {
        file_name: "mask.png".into(),
        bytes: studio_tests::images::encode(&m, image::ImageFormat::Png),
    }
}

/// Where the third-party reader's files go, when asked for.
fn out_dir(backend: Backend) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var("STUDIO_PROVENANCE_OUT").ok()?).join(format!("{backend:?}").to_lowercase());
    std::fs::create_dir_all(&dir).expect("out dir");
    Some(dir)
}

async fn every_local_tool_signs_its_frame(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::named(&app, "c2pa", "Maison Provenance").await;
    let key = &house.key;
    // (tool, submit, action, digital source type, ingredients)
    let cases = [
        (
            "upscale",
            DevelopSubmit::new("upscale").input("image", photo("coffee")),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        (
            "reframe",
            DevelopSubmit::new("reframe").input("image", photo("coffee")).param("aspect", "4:5"),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        ("packshot", DevelopSubmit::new("packshot").input("image", photo("coffee")), "c2pa.edited", "composite", 1),
        (
            "harmonize",
            DevelopSubmit::new("harmonize").input("image", photo("coffee")),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        (
            "color-change",
            DevelopSubmit::new("color-change").input("image", photo("coffee")).param("color", "navy"),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        (
            "iron",
            DevelopSubmit::new("iron").input("image", photo("coffee")),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        (
            "cleanup",
            DevelopSubmit::new("cleanup").input("image", photo("coffee")).input("mask", mask()),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            2,
        ),
        (
            "camera-lens",
            DevelopSubmit::new("camera-lens").input("image", photo("coffee")),
            "c2pa.edited",
            "algorithmicallyEnhanced",
            1,
        ),
        (
            "lookbook",
            DevelopSubmit::new("lookbook")
                .input("model", photo("astronaut"))
                .input("garment", photo("coffee"))
                .param("itemRoles", "top"),
            "c2pa.created",
            "composite",
            2,
        ),
    ];
    let out = out_dir(backend);
    let mut expected = Vec::new();
    for (tool, submit, action, source, ingredients) in cases {
        let accepted = key.submit_develop(&submit.quality(Quality::K1)).await.expect("submit");
        assert!(app.studio.develops().run_next_job().await.expect("run"));
        let status = key.job(&accepted.job_id).await.expect("status");
        assert_eq!(status.status, JobStatus::Done, "{tool}: {:?}", status.error);
        let asset_id = status.result_asset_id.expect("a frame");

        // The asset shape's summary, as every list shows it.
        let asset = key.asset_detail(&asset_id).await.expect("detail").asset;
        let summary = asset.provenance.expect("read when filed");
        assert!(summary.has_credentials, "{tool}");
        assert_eq!(summary.validation, Some(CredentialValidation::Trusted), "{tool}: its own signature");
        assert_eq!(summary.digital_source_type.as_deref(), Some(source), "{tool}");

        // The full report: the action, the ingredients, the house.
        let report = key.asset_provenance(&asset_id).await.expect("provenance");
        assert!(report.actions.iter().any(|a| a.action == action), "{tool}: {:?}", report.actions);
        let ours = report.actions.iter().find(|a| a.action == action).expect("the action");
        assert_eq!(ours.parameters["tool"], tool);
        assert_eq!(ours.parameters["quality"], "1k");
        assert_eq!(report.ingredients.len(), ingredients, "{tool}: {:?}", report.ingredients);
        if action == "c2pa.edited" {
            assert_eq!(report.ingredients[0].relationship.as_deref(), Some("parentOf"), "{tool}");
        }
        assert!(report.house.as_deref().unwrap_or_default().starts_with("Maison Provenance"), "{:?}", report.house);
        assert!(report.findings.is_empty(), "{tool}: {:?}", report.findings);

        // The bytes, read as anyone else would (no trust list): intact.
        let bytes = key.asset_bytes(&asset_id).await.expect("bytes");
        let anyone = read_credentials(&bytes, &asset.mime, None);
        assert_eq!(anyone.summary.validation, Some(CredentialValidation::Valid), "{tool}: {:?}", anyone.findings);
        assert!(anyone.findings.iter().all(|f| f.code == "signingCredential.untrusted"), "{:?}", anyone.findings);

        if let Some(dir) = &out {
            let file = format!("{tool}.jpg");
            std::fs::write(dir.join(&file), &bytes).expect("write");
            expected.push(json!({"file": file, "valid": true, "action": action,
                "digitalSourceType": source, "ingredients": ingredients, "tool": tool}));
            if tool == "upscale" {
                let mut altered = bytes.to_vec();
                let at = altered.len() - 64;
                altered[at] ^= 0x5A;
                std::fs::write(dir.join("upscale-altered.jpg"), &altered).expect("write");
                expected.push(json!({"file": "upscale-altered.jpg", "valid": false}));
            }
        }

        // Altered after signing: invalid, naming the hash that no longer matches.
        let mut altered = bytes.to_vec();
        let at = altered.len() - 64;
        altered[at] ^= 0x5A;
        let tampered = read_credentials(&altered, &asset.mime, None);
        assert_eq!(tampered.summary.validation, Some(CredentialValidation::Invalid), "{tool}");
        assert!(tampered.findings.iter().any(|f| f.code.contains("dataHash")), "{tool}: {:?}", tampered.findings);
    }
    // The remove-background lane keeps its cutout in the library: signed the same way, its
    // photo the parent.
    let cut = key.remove_background(&photo("coffee")).await.expect("a cutout");
    let report = key.asset_provenance(&cut.asset_id).await.expect("provenance");
    assert_eq!(report.summary.validation, Some(CredentialValidation::Trusted), "{:?}", report.findings);
    assert_eq!(report.summary.digital_source_type.as_deref(), Some("algorithmicallyEnhanced"));
    assert!(report.actions.iter().any(|a| a.action == "c2pa.edited" && a.parameters["tool"] == "remove-background"));
    assert_eq!(report.ingredients[0].title.as_deref(), Some("coffee.jpg"));
    assert_eq!(report.ingredients[0].relationship.as_deref(), Some("parentOf"));
    if let Some(dir) = &out {
        let bytes = key.asset_bytes(&cut.asset_id).await.expect("bytes");
        std::fs::write(dir.join("remove-background.png"), &bytes).expect("write");
        expected.push(json!({"file": "remove-background.png", "valid": true, "action": "c2pa.edited",
            "digitalSourceType": "algorithmicallyEnhanced", "ingredients": 1, "tool": "remove-background"}));
    }
    if let Some(dir) = &out {
        let written = serde_json::to_vec_pretty(&Value::from(expected)).expect("json");
        std::fs::write(dir.join("expected.json"), written).expect("write");
    }
}

async fn uploads_keep_the_credentials_they_came_with(backend: Backend) {
    let Some(app) = spawn(backend, |c| c.runner_concurrency = 0).await else { return };
    let house = House::new(&app, "c2pa-upload").await;
    let key = &house.key;

    // A plain upload: read, and none.
    let plain = key.upload_bytes("plain.png", png(40, 30), &UploadOptions::default()).await.expect("upload").asset;
    let summary = plain.provenance.expect("read at upload");
    assert!(!summary.has_credentials);
    assert_eq!(summary.validation, None);
    let report = key.asset_provenance(&plain.id).await.expect("report");
    assert!(!report.summary.has_credentials && report.actions.is_empty());

    // A develop's signed frame, downloaded and brought back: its credentials are read at upload
    // and kept in its bytes.
    let accepted = key
        .submit_develop(
            &DevelopSubmit::new("upscale")
                .input("image", InputSource::Bytes { file_name: "in.jpg".into(), bytes: jpeg(64, 48) })
                .quality(Quality::K1),
        )
        .await
        .expect("submit");
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let frame_id = key.job(&accepted.job_id).await.expect("status").result_asset_id.expect("frame");
    let frame = key.asset_bytes(&frame_id).await.expect("bytes");
    let again = key.upload_bytes("again.jpg", frame.to_vec(), &UploadOptions::default()).await.expect("upload").asset;
    let summary = again.provenance.expect("read at upload");
    assert!(summary.has_credentials);
    assert_eq!(summary.validation, Some(CredentialValidation::Trusted));
    assert_eq!(summary.digital_source_type.as_deref(), Some("algorithmicallyEnhanced"));
    assert_eq!(key.asset_bytes(&again.id).await.expect("bytes"), frame, "kept as they came");

    // A develop from it names it as the parent, with its own credentials inside.
    let accepted = key
        .submit_develop(
            &DevelopSubmit::new("iron").input("image", InputSource::Asset(again.id.clone())).quality(Quality::K1),
        )
        .await
        .expect("submit");
    assert!(app.studio.develops().run_next_job().await.expect("run"));
    let next = key.job(&accepted.job_id).await.expect("status").result_asset_id.expect("frame");
    let report = key.asset_provenance(&next).await.expect("report");
    assert_eq!(report.ingredients.len(), 1);
    assert!(report.ingredients[0].has_credentials, "{:?}", report.ingredients);
    assert_eq!(report.ingredients[0].validation, Some(CredentialValidation::Valid));
    assert!(report.ingredients[0].title.as_deref().unwrap_or_default().contains(&again.id));

    // Another house's asset is not found.
    let other = House::new(&app, "c2pa-other").await;
    let e = other.key.asset_provenance(&again.id).await.expect_err("not found");
    assert_eq!(e.status(), Some(404));
}
