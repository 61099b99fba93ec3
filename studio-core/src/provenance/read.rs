//! Reading a file's content credentials: the active manifest's actions, ingredients, signer
//! and the validation findings, summarised as the API shows them. Offline: nothing is fetched.

use std::io::Cursor;

use serde_json::Value;

use crate::api::{
    AssetProvenance, CredentialValidation, ProvenanceAction, ProvenanceFinding, ProvenanceIngredient, ProvenanceReport,
};

/// The status code c2pa reports for a signer outside the trust list: a note, not a failure.
const UNTRUSTED: &str = "signingCredential.untrusted";

/// The short term of an IPTC (or C2PA) digital source type URI:
/// `http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia` reads
/// `trainedAlgorithmicMedia`.
pub fn source_type_term(uri: &str) -> String {
    uri.rsplit('/').next().unwrap_or(uri).to_string()
}

/// Read the credentials of `bytes` (of media type `mime`). A file without any reads as
/// [`ProvenanceReport::none`]; one whose manifest cannot be parsed reads as `invalid` with the
/// reason in `error`. `trust_anchors` (PEM) are the certificates that make a signer `trusted`.
pub fn read_credentials(bytes: &[u8], mime: &str, trust_anchors: Option<&str>) -> ProvenanceReport {
    let reader = super::context(trust_anchors, false)
        .and_then(|context| c2pa::Reader::from_context(context).with_stream(mime, Cursor::new(bytes)));
    match reader {
        Ok(reader) => report(&reader, trust_anchors.is_some_and(|p| !p.trim().is_empty())),
        Err(c2pa::Error::JumbfNotFound) | Err(c2pa::Error::ProvenanceMissing) => ProvenanceReport::none(),
        Err(c2pa::Error::UnsupportedType) => ProvenanceReport::none(),
        Err(e) => ProvenanceReport {
            summary: AssetProvenance {
                has_credentials: true,
                digital_source_type: None,
                signer: None,
                validation: Some(CredentialValidation::Invalid),
            },
            error: Some(format!("the credentials could not be read: {e}")),
            ..ProvenanceReport::none()
        },
    }
}

fn report(reader: &c2pa::Reader, trust_configured: bool) -> ProvenanceReport {
    let findings: Vec<ProvenanceFinding> = reader
        .validation_status()
        .unwrap_or_default()
        .iter()
        .map(|s| ProvenanceFinding { code: s.code().to_string(), explanation: s.explanation().map(str::to_string) })
        .collect();
    let validation = validation(&findings, trust_configured);
    let store: Value = serde_json::from_str(&reader.json()).unwrap_or(Value::Null);
    let active = reader.active_label().and_then(|label| store.get("manifests")?.get(label)).unwrap_or(&Value::Null);
    let signature = &active["signature_info"];
    let actions = actions(active);
    let signer = text(signature, "issuer").or_else(|| text(signature, "common_name"));
    let ingredients =
        active["ingredients"].as_array().map(|all| all.iter().map(ingredient).collect()).unwrap_or_default();
    let house = assertion(active, "com.studio.develop").and_then(|d| text(&d["house"], "name"));
    ProvenanceReport {
        summary: AssetProvenance {
            has_credentials: true,
            digital_source_type: actions.iter().find_map(|a| a.digital_source_type.clone()),
            signer,
            validation: Some(validation),
        },
        title: text(active, "title"),
        claim_generator: claim_generator(active),
        issuer: text(signature, "issuer"),
        signed_at: text(signature, "time"),
        house,
        actions,
        ingredients,
        findings,
        error: None,
    }
}

/// `invalid` on any failure but an untrusted signer; `trusted` when trust anchors were given
/// and the signer chains to one; `valid` otherwise.
fn validation(findings: &[ProvenanceFinding], trust_configured: bool) -> CredentialValidation {
    if findings.iter().any(|f| f.code != UNTRUSTED) {
        CredentialValidation::Invalid
    } else if trust_configured && findings.is_empty() {
        CredentialValidation::Trusted
    } else {
        CredentialValidation::Valid
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string).filter(|s| !s.is_empty())
}

fn assertion<'a>(manifest: &'a Value, label: &str) -> Option<&'a Value> {
    manifest["assertions"].as_array()?.iter().find(|a| a["label"].as_str() == Some(label)).map(|a| &a["data"])
}

fn claim_generator(manifest: &Value) -> Option<String> {
    let info = manifest["claim_generator_info"].as_array()?.first()?;
    let name = text(info, "name")?;
    Some(match text(info, "version") {
        Some(version) => format!("{name} {version}"),
        None => name,
    })
}

fn actions(manifest: &Value) -> Vec<ProvenanceAction> {
    let Some(assertions) = manifest["assertions"].as_array() else { return Vec::new() };
    assertions
        .iter()
        .filter(|a| a["label"].as_str().is_some_and(|l| l.starts_with("c2pa.actions")))
        .flat_map(|a| a["data"]["actions"].as_array().cloned().unwrap_or_default())
        .map(|action| ProvenanceAction {
            action: text(&action, "action").unwrap_or_default(),
            digital_source_type: text(&action, "digitalSourceType").map(|uri| source_type_term(&uri)),
            software_agent: match &action["softwareAgent"] {
                Value::String(name) => Some(name.clone()),
                agent => text(agent, "name"),
            },
            parameters: action.get("parameters").cloned().unwrap_or(Value::Null),
        })
        .collect()
}

fn ingredient(value: &Value) -> ProvenanceIngredient {
    let has_credentials = value.get("active_manifest").is_some_and(|m| !m.is_null());
    let failures = value["validation_results"]["activeManifest"]["failure"]
        .as_array()
        .map(|f| f.iter().any(|s| s["code"].as_str() != Some(UNTRUSTED)))
        .unwrap_or(false);
    ProvenanceIngredient {
        title: text(value, "title"),
        relationship: text(value, "relationship"),
        format: text(value, "format"),
        has_credentials,
        validation: has_credentials.then_some(if failures {
            CredentialValidation::Invalid
        } else {
            CredentialValidation::Valid
        }),
    }
}
