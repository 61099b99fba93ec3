//! Brand profiles: a free-read claim goes to exactly one of many callers at once, is given back
//! on failure, ends with the first successful read and lapses when stale; a patch never moves
//! `dna_runs` and a read keeps `inject_enabled` and the colour policy.

use std::sync::Arc;

use chrono::{Duration, Utc};
use studio_core::{BrandFields, BrandFieldsPatch, Storage};

use crate::{conformance, new_house};

conformance!(free_read_claims_are_exclusive, profile_writes_keep_their_own_fields);

fn fields(vision: &str, inject: bool) -> BrandFields {
    BrandFields {
        vision_en: vision.into(),
        vibe: r#"["calm"]"#.into(),
        palette: "[]".into(),
        signature_keywords: "[]".into(),
        inject_enabled: inject,
    }
}

fn patch(vision: &str, inject: bool) -> BrandFieldsPatch {
    let f = fields(vision, inject);
    BrandFieldsPatch {
        vision_en: Some(f.vision_en),
        vibe: Some(f.vibe),
        palette: Some(f.palette),
        signature_keywords: Some(f.signature_keywords),
        inject_enabled: Some(f.inject_enabled),
        colour_output: None,
        metadata_output: None,
    }
}

async fn free_read_claims_are_exclusive(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 0).await;
    let now = Utc::now();
    let stale = now - Duration::minutes(10);
    let mut claims = Vec::new();
    for _ in 0..8 {
        let (storage, org) = (storage.clone(), org.clone());
        claims.push(tokio::spawn(async move { storage.claim_free_brand_read(&org, now, stale).await.unwrap() }));
    }
    let mut won = 0;
    for c in claims {
        won += usize::from(c.await.unwrap());
    }
    assert_eq!(won, 1, "exactly one caller takes the free read");

    // Given back (the read failed): free again.
    storage.release_free_brand_read(&org).await.unwrap();
    assert!(storage.claim_free_brand_read(&org, now, stale).await.unwrap());
    // A claim older than the staleness bound belongs to a dead read and may be taken again.
    let later = now + Duration::minutes(11);
    assert!(!storage.claim_free_brand_read(&org, later, now - Duration::minutes(1)).await.unwrap());
    assert!(storage.claim_free_brand_read(&org, later, later - Duration::minutes(10)).await.unwrap());

    // The first successful read ends the free reads for good.
    let row = storage.record_brand_read(&org, &fields("Quiet", true), Utc::now()).await.unwrap();
    assert_eq!((row.dna_runs, row.free_read_at), (1, None));
    let much_later = now + Duration::days(1);
    assert!(!storage.claim_free_brand_read(&org, much_later, much_later).await.unwrap());
}

async fn profile_writes_keep_their_own_fields(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), 0).await;
    assert!(storage.brand_profile(&org).await.unwrap().is_none());
    let row = storage.save_brand_profile(&org, &patch("One", false), Utc::now()).await.unwrap();
    assert_eq!((row.vision_en.as_str(), row.inject_enabled, row.dna_runs), ("One", false, 0));
    let row = storage.record_brand_read(&org, &fields("Two", true), Utc::now()).await.unwrap();
    assert_eq!(
        (row.vision_en.as_str(), row.inject_enabled, row.dna_runs),
        ("Two", false, 1),
        "a read keeps the switch"
    );
    let row = storage.save_brand_profile(&org, &patch("Three", true), Utc::now()).await.unwrap();
    assert_eq!((row.vision_en.as_str(), row.inject_enabled, row.dna_runs), ("Three", true, 1), "a patch keeps dnaRuns");
    // A patch of one field leaves the others as they are (no stale write-back).
    let only = BrandFieldsPatch { inject_enabled: Some(false), ..BrandFieldsPatch::default() };
    let one = storage.save_brand_profile(&org, &only, Utc::now()).await.unwrap();
    assert_eq!((one.vision_en.as_str(), one.vibe.as_str(), one.inject_enabled), ("Three", r#"["calm"]"#, false));
    let fresh = new_house(storage.as_ref(), 0).await.1;
    let new = storage.save_brand_profile(&fresh, &BrandFieldsPatch::default(), Utc::now()).await.unwrap();
    assert_eq!((new.vision_en.as_str(), new.vibe.as_str(), new.inject_enabled), ("", "[]", true), "defaults");
    assert_eq!(new.colour_output, "srgb", "the colour policy's default");
    // The colour policy is written alone and kept by a patch of other fields and by a read.
    let keep = BrandFieldsPatch { colour_output: Some("keep".into()), ..BrandFieldsPatch::default() };
    let kept = storage.save_brand_profile(&org, &keep, Utc::now()).await.unwrap();
    assert_eq!((kept.colour_output.as_str(), kept.vision_en.as_str(), kept.inject_enabled), ("keep", "Three", false));
    let kept = storage.record_brand_read(&org, &fields("Four", true), Utc::now()).await.unwrap();
    assert_eq!((kept.colour_output.as_str(), kept.vision_en.as_str()), ("keep", "Four"), "a read keeps the policy");
    let kept = storage.save_brand_profile(&org, &only, Utc::now()).await.unwrap();
    assert_eq!(kept.colour_output, "keep");
    // The metadata policy likewise: `rights` by default, written alone, kept by other patches.
    assert_eq!(new.metadata_output, "rights", "the metadata policy's default");
    let none = BrandFieldsPatch { metadata_output: Some("none".into()), ..BrandFieldsPatch::default() };
    let kept = storage.save_brand_profile(&org, &none, Utc::now()).await.unwrap();
    assert_eq!((kept.metadata_output.as_str(), kept.colour_output.as_str()), ("none", "keep"));
    let kept = storage.save_brand_profile(&org, &only, Utc::now()).await.unwrap();
    assert_eq!(kept.metadata_output, "none");
    let row = kept;
    assert_eq!(storage.brand_profile(&org).await.unwrap(), Some(row));
    // Another house has nothing.
    let (_, other) = new_house(storage.as_ref(), 0).await;
    assert!(storage.brand_profile(&other).await.unwrap().is_none());
}
