//! Content credentials (C2PA, docs/provenance.md): every develop output is signed with a
//! manifest saying how it was made, and any file's credentials can be read back.
//!
//! - [`read`] (the `provenance` feature, also the CLI's offline `studio verify`): a file's
//!   manifest summarised as the API's [`ProvenanceReport`](crate::api::ProvenanceReport);
//! - `sign` (with the engine): the deployment's signer ([`ContentCredentials`]) and the
//!   manifest written into each frame; `frame`: which action and digital source type each
//!   tool's frame states, and the signing of a kept frame off the async workers;
//! - `authority` (with the engine): the local certificate authority generated when the
//!   deployment configures no certificate of its own.

#[cfg(feature = "engine")]
mod authority;
#[cfg(feature = "engine")]
mod frame;
mod read;
#[cfg(feature = "engine")]
mod sign;

#[cfg(feature = "engine")]
pub use authority::{LocalAuthority, generate_local_authority};
#[cfg(feature = "engine")]
pub(crate) use frame::sign_output;
#[cfg(feature = "engine")]
pub use frame::{Develop, SignedInput, sign_kept_frame};
pub use read::{read_credentials, source_type_term};
#[cfg(feature = "engine")]
pub use sign::{ContentCredentials, CredentialsError};
#[cfg(feature = "engine")]
pub(crate) use sign::{FrameClaim, FrameIngredient, MadeBy, sign_frame};

/// The context every read and write runs in: no network of any kind (no remote manifests, no
/// OCSP, no time-stamp authority), and `trust_anchors` (PEM), when given, as the certificates
/// a signer must chain to for `trusted`.
fn context(trust_anchors: Option<&str>, verify_after_sign: bool) -> Result<c2pa::Context, c2pa::Error> {
    let mut settings = serde_json::json!({
        "verify": {
            "remote_manifest_fetch": false,
            "ocsp_fetch": false,
            "verify_after_sign": verify_after_sign,
        },
        "builder": { "thumbnail": { "enabled": false } },
    });
    if let Some(pem) = trust_anchors.filter(|p| !p.trim().is_empty()) {
        settings["trust"] = serde_json::json!({ "trust_anchors": pem });
    }
    c2pa::Context::new().with_settings(settings)
}

#[cfg(all(test, feature = "engine"))]
mod tests;
