//! Signing and reading back: a signed frame verifies with its action, source type and
//! ingredients; a frame altered after signing does not; a plain file carries none; a key that
//! does not belong to its certificate is refused when the signer is set up.

use std::io::Cursor;

use super::*;
use crate::api::CredentialValidation;

fn jpeg(shade: u8) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([shade, (x * 4) as u8, (y * 5) as u8]));
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixels).write_to(&mut out, image::ImageFormat::Jpeg).expect("encode");
    out.into_inner()
}

fn claim<'a>(made: MadeBy, ingredients: Vec<FrameIngredient<'a>>) -> FrameClaim<'a> {
    FrameClaim {
        made,
        title: "upscale develop job_1".into(),
        tool: "upscale",
        quality: "2k",
        provider: "local",
        job_id: "job_1",
        house_id: "org_1",
        house_name: "Maison Test",
        ingredients,
    }
}

#[test]
fn a_signed_edit_reads_back_valid_with_its_action_and_parent() {
    let credentials = ContentCredentials::ephemeral("Maison Test").expect("credentials");
    let input = jpeg(10);
    let made = claim(
        MadeBy::Edited("algorithmicallyEnhanced"),
        vec![FrameIngredient { title: "ast_1 (image)".into(), mime: "image/jpeg", bytes: &input }],
    );
    let signed = sign_frame(&credentials, &jpeg(200), "image/jpeg", &made).expect("signed");
    let report = read_credentials(&signed, "image/jpeg", None);
    assert_eq!(report.summary.validation, Some(CredentialValidation::Valid), "{:?}", report.findings);
    assert!(report.summary.has_credentials);
    assert_eq!(report.summary.digital_source_type.as_deref(), Some("algorithmicallyEnhanced"));
    assert!(report.actions.iter().any(|a| a.action == "c2pa.edited"), "{:?}", report.actions);
    assert!(report.actions.iter().any(|a| a.action == "c2pa.opened"), "{:?}", report.actions);
    assert_eq!(report.ingredients.len(), 1);
    assert_eq!(report.ingredients[0].relationship.as_deref(), Some("parentOf"));
    assert_eq!(report.ingredients[0].title.as_deref(), Some("ast_1 (image)"));
    assert_eq!(report.house.as_deref(), Some("Maison Test"));
    // Read with its own chain's anchor, the deployment trusts what it signed.
    let own = read_credentials(&signed, "image/jpeg", Some(credentials.trust_anchor()));
    assert_eq!(own.summary.validation, Some(CredentialValidation::Trusted), "{:?}", own.findings);
}

#[test]
fn a_created_frame_names_its_components() {
    let credentials = ContentCredentials::ephemeral("Maison Test").expect("credentials");
    let (model, garment) = (jpeg(30), jpeg(90));
    let made = claim(
        MadeBy::Created("compositeWithTrainedAlgorithmicMedia"),
        vec![
            FrameIngredient { title: "model".into(), mime: "image/jpeg", bytes: &model },
            FrameIngredient { title: "garment".into(), mime: "image/jpeg", bytes: &garment },
        ],
    );
    let signed = sign_frame(&credentials, &jpeg(120), "image/jpeg", &made).expect("signed");
    let report = read_credentials(&signed, "image/jpeg", None);
    assert_eq!(report.summary.validation, Some(CredentialValidation::Valid), "{:?}", report.findings);
    assert_eq!(report.actions[0].action, "c2pa.created");
    assert_eq!(report.summary.digital_source_type.as_deref(), Some("compositeWithTrainedAlgorithmicMedia"));
    assert_eq!(report.ingredients.len(), 2);
    assert!(report.ingredients.iter().all(|i| i.relationship.as_deref() == Some("componentOf")));
}

#[test]
fn a_frame_altered_after_signing_is_invalid() {
    let credentials = ContentCredentials::ephemeral("Maison Test").expect("credentials");
    let mut signed =
        sign_frame(&credentials, &jpeg(200), "image/jpeg", &claim(MadeBy::Created("algorithmicMedia"), vec![]))
            .expect("signed");
    // Flip bytes near the end of the entropy-coded data (before the EOI marker).
    let at = signed.len() - 40;
    signed[at] ^= 0x5A;
    signed[at + 1] ^= 0x33;
    let report = read_credentials(&signed, "image/jpeg", None);
    assert_eq!(report.summary.validation, Some(CredentialValidation::Invalid));
    assert!(report.findings.iter().any(|f| f.code.contains("dataHash")), "{:?}", report.findings);
}

#[test]
fn a_plain_file_carries_none() {
    let report = read_credentials(&jpeg(1), "image/jpeg", None);
    assert!(!report.summary.has_credentials);
    assert_eq!(report.summary.validation, None);
}

#[test]
fn a_key_of_another_certificate_is_refused() {
    let one = generate_local_authority("One").expect("one");
    let two = generate_local_authority("Two").expect("two");
    let refused = ContentCredentials::from_pem(&one.chain_pem, &two.key_pem, false);
    assert!(matches!(refused, Err(CredentialsError::Unusable(_))), "{refused:?}");
    assert!(ContentCredentials::from_pem(&one.chain_pem, &one.key_pem, false).is_ok());
}
