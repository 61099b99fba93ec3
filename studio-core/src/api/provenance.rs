//! Content credentials (C2PA) as the API shows them: the summary every asset carries and the
//! full report of `GET /api/toolkit/assets/{id}/provenance` (docs/provenance.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a file's content credentials came to when they were checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CredentialValidation {
    /// Intact, and signed by a certificate this deployment trusts.
    Trusted,
    /// Intact: every hash and the signature check out; the signer is not on a trust list.
    Valid,
    /// Tampered or malformed: a hash, the signature or the manifest itself does not check out.
    Invalid,
}

impl CredentialValidation {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialValidation::Trusted => "trusted",
            CredentialValidation::Valid => "valid",
            CredentialValidation::Invalid => "invalid",
        }
    }
}

/// An asset's provenance in one line: on every asset shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetProvenance {
    /// The file carries a C2PA manifest (embedded).
    pub has_credentials: bool,
    /// The IPTC digital source type of the active manifest's first action, as its short term
    /// (`trainedAlgorithmicMedia`, `algorithmicallyEnhanced`, ...); null when none is stated.
    pub digital_source_type: Option<String>,
    /// Who signed: the signing certificate's organisation, else its common name.
    pub signer: Option<String>,
    /// The check's result; null without credentials.
    pub validation: Option<CredentialValidation>,
}

impl AssetProvenance {
    /// A file with no credentials.
    pub fn none() -> AssetProvenance {
        AssetProvenance { has_credentials: false, digital_source_type: None, signer: None, validation: None }
    }
}

/// One action of the active manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceAction {
    /// The C2PA action (`c2pa.created`, `c2pa.opened`, `c2pa.edited`, ...).
    pub action: String,
    /// The IPTC digital source type's short term, when the action states one.
    pub digital_source_type: Option<String>,
    /// The software that acted, when named.
    pub software_agent: Option<String>,
    /// The action's parameters as the manifest holds them (Studio writes `tool`, `quality`,
    /// `provider` and `job`).
    #[serde(default)]
    pub parameters: serde_json::Value,
}

/// One ingredient of the active manifest: an input the frame was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceIngredient {
    /// The ingredient's title (Studio writes the asset's id and name).
    pub title: Option<String>,
    /// `parentOf` (the image edited), `componentOf` (a piece composed in) or `inputTo`.
    pub relationship: Option<String>,
    /// Its media type.
    pub format: Option<String>,
    /// The ingredient carried credentials of its own, kept inside this manifest.
    pub has_credentials: bool,
    /// The check of the ingredient's own credentials, when it had them.
    pub validation: Option<CredentialValidation>,
}

/// One finding of the check: a failure, or the note that the signer is not trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceFinding {
    /// The C2PA validation status code (`assertion.dataHash.mismatch`,
    /// `signingCredential.untrusted`, ...).
    pub code: String,
    /// What it means, in words.
    pub explanation: Option<String>,
}

/// `GET /api/toolkit/assets/{id}/provenance`, and what `studio verify` prints: the summary
/// and the active manifest's actions, ingredients, signer and findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProvenanceReport {
    /// The one-line summary (as on the asset).
    #[serde(flatten)]
    pub summary: AssetProvenance,
    /// The manifest's title.
    pub title: Option<String>,
    /// The software that wrote the manifest (claim generator), with its version.
    pub claim_generator: Option<String>,
    /// The signing certificate's issuer.
    pub issuer: Option<String>,
    /// When it was signed, as the signature states (RFC 3339), if it does.
    pub signed_at: Option<String>,
    /// The house the frame was made for, as the manifest names it (Studio's
    /// `com.studio.develop` assertion).
    pub house: Option<String>,
    /// Actions, in order.
    pub actions: Vec<ProvenanceAction>,
    /// Ingredients, in order.
    pub ingredients: Vec<ProvenanceIngredient>,
    /// What the check found (empty when all is in order and the signer is trusted).
    pub findings: Vec<ProvenanceFinding>,
    /// When the file could not be read as a manifest at all, why.
    pub error: Option<String>,
}

impl ProvenanceReport {
    /// The report of a file without credentials.
    pub fn none() -> ProvenanceReport {
        ProvenanceReport {
            summary: AssetProvenance::none(),
            title: None,
            claim_generator: None,
            issuer: None,
            signed_at: None,
            house: None,
            actions: Vec::new(),
            ingredients: Vec::new(),
            findings: Vec::new(),
            error: None,
        }
    }
}
