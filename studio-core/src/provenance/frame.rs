//! Content credentials on kept frames (develop outputs, the remove-background lane's cutout):
//! which C2PA action and IPTC digital source type each tool's frame states (the table in
//! docs/provenance.md), and the signing of a frame with its inputs as ingredients.

use bytes::Bytes;

use super::{ContentCredentials, FrameClaim, FrameIngredient, MadeBy, sign_frame};
use crate::api::{AssetProvenance, CredentialValidation};

/// What a frame of `tool`, made by `provider` from `inputs` images, states about how it was
/// made. The local provider runs classical image processing (no trained model): its edits are
/// `algorithmicallyEnhanced`, except the packshot, which cuts the subject onto a new ground
/// (`composite`), and its lookbook compositor, which creates a frame from its garments
/// (`composite`). A hosted provider runs trained models: with no input it generates
/// (`trainedAlgorithmicMedia`); a try-on or lookbook creates a frame from a model and garments,
/// and any other hosted tool edits a real image with a model
/// (`compositeWithTrainedAlgorithmicMedia`).
pub(crate) fn made_by(provider: &str, tool: &str, inputs: usize) -> MadeBy {
    match (provider, tool) {
        ("local", "lookbook") => MadeBy::Created("composite"),
        ("local", "packshot") => MadeBy::Edited("composite"),
        ("local", _) => MadeBy::Edited("algorithmicallyEnhanced"),
        _ if inputs == 0 => MadeBy::Created("trainedAlgorithmicMedia"),
        (_, "tryon" | "lookbook") => MadeBy::Created("compositeWithTrainedAlgorithmicMedia"),
        _ => MadeBy::Edited("compositeWithTrainedAlgorithmicMedia"),
    }
}

/// An input as the signer takes it.
#[derive(Debug, Clone)]
pub struct SignedInput {
    /// Its ingredient title (the asset's id and role, or the file's name).
    pub title: String,
    /// Its media type.
    pub mime: String,
    /// Its bytes as stored.
    pub bytes: Bytes,
}

/// The develop (or lane) a frame came from, as its manifest names it: a lane's frame has no
/// quality tier and no job (both empty).
#[derive(Debug, Clone)]
pub struct Develop {
    /// The tool.
    pub tool: String,
    /// The quality tier (empty for a lane).
    pub quality: String,
    /// The provider that ran it (`local`, `fal`).
    pub provider: String,
    /// The develop's job (empty for a lane).
    pub job_id: String,
    /// The house's id.
    pub house_id: String,
    /// The house's name.
    pub house_name: String,
}

/// Sign `frame` (of `mime`) for `develop` with `inputs` (the principal first) as ingredients:
/// the signed bytes and the summary the asset records. The summary is what was signed, under a
/// signer this deployment trusts (its own chain, checked by signing and reading back when the
/// signer was set up); the frame is not read back again. CPU work: [`sign_output`] runs it off
/// the async workers.
pub fn sign_kept_frame(
    credentials: &ContentCredentials,
    frame: &[u8],
    mime: &str,
    develop: &Develop,
    inputs: &[SignedInput],
) -> Result<(Vec<u8>, AssetProvenance), String> {
    let claim = FrameClaim {
        made: made_by(&develop.provider, &develop.tool, inputs.len()),
        title: match develop.job_id.as_str() {
            "" => format!("{} frame", develop.tool),
            job => format!("{} develop {job}", develop.tool),
        },
        tool: &develop.tool,
        quality: &develop.quality,
        provider: &develop.provider,
        job_id: &develop.job_id,
        house_id: &develop.house_id,
        house_name: &develop.house_name,
        ingredients: inputs
            .iter()
            .map(|i| FrameIngredient { title: i.title.clone(), mime: &i.mime, bytes: &i.bytes })
            .collect(),
    };
    let signed = sign_frame(credentials, frame, mime, &claim)?;
    let (MadeBy::Created(term) | MadeBy::Edited(term)) = claim.made;
    let summary = AssetProvenance {
        has_credentials: true,
        digital_source_type: Some(term.to_string()),
        signer: credentials.signer_name().map(str::to_string),
        validation: Some(CredentialValidation::Trusted),
    };
    Ok((signed, summary))
}

/// [`sign_kept_frame`] on a blocking thread.
pub(crate) async fn sign_output(
    credentials: ContentCredentials,
    frame: Vec<u8>,
    mime: String,
    develop: Develop,
    inputs: Vec<SignedInput>,
) -> Result<(Vec<u8>, AssetProvenance), String> {
    tokio::task::spawn_blocking(move || sign_kept_frame(&credentials, &frame, &mime, &develop, &inputs))
        .await
        .map_err(|e| format!("content credentials could not be written: {e}"))?
}
