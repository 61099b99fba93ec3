//! AI reads: read_model (the look of a person from 1 to 6 reference frames) and read_build (the
//! body from one full-length photograph). Each costs the price book's utility charge (1 token).
//!
//! Order, the same for both: a viewer is 403 → bad ids are 400 `BAD_ASSET_IDS` /
//! `IMAGE_REQUIRED` → an id that is not a live asset of the house is 404 `ASSET_NOT_FOUND` → no
//! AI reader configured is 503 `AI_NOT_CONFIGURED` (nothing held) → the charge is held (402 with
//! `need` and `spendable`) → the reader is asked → on an answer the hold settles; on any
//! failure it is released and the read is 502 `AI_FAILED` (spec D1 §7.3: failed model calls
//! charge nothing). The hold is taken and resolved in a task of its own, so a caller who hangs
//! up mid-read never strands it.
//!
//! The reader's JSON is read leniently into the typed fields: a missing or unreadable field is
//! an empty string (or list), never a failure; an answer that is not a JSON object is.

use crate::ai::Ai;
use crate::ids::OrgId;
use serde_json::{Map, Value};

use crate::admin::AI_READER;
use crate::api::{BuildReading, ModelReading, ReadBuildRequest, ReadModelRequest};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::internal::quality::ReaderOutcome;
use crate::providers::ai::{AiClient, AiError, AiImage};
use crate::storage::AssetRow;

use super::vision::tidy;

/// Most reference frames one read_model looks at.
pub(crate) const MAX_READ_FRAMES: usize = 6;
/// An image at most this large (bytes) ...
const AS_IS_BYTES: usize = 4 * 1024 * 1024;
/// ... and at most this long on its long edge (px) is sent as stored; others are scaled down.
const AS_IS_EDGE: i64 = 2048;
/// The long edge images are scaled down to before they are sent.
const READ_EDGE: u32 = 1536;
/// Longest text field kept from an answer.
const MAX_FIELD_CHARS: usize = 500;
/// Most extras kept, and the longest of each.
const MAX_EXTRAS: usize = 20;
const MAX_EXTRA_CHARS: usize = 200;

const MODEL_SYSTEM: &str = "You describe people in fashion reference photographs for a casting sheet, so that an \
    image generator can cast the same person again. Describe only what is visible. Never name or identify the \
    person, and never guess ethnicity, nationality or anything else that is not shown. Answer with one JSON object \
    and nothing else.";
const MODEL_PROMPT: &str = "These photographs show the same person. Answer with a JSON object with exactly these \
    keys: \"age\" (apparent age range, e.g. \"mid-20s\"), \"skin\" (tone and undertone, e.g. \"light olive, warm \
    undertone\"), \"eyes\" (colour and shape), \"hair\" (colour, length, texture and style), \"extras\" (an array of \
    short phrases for other distinctive visible features such as freckles, a tattoo, piercings, facial hair or \
    glasses; empty when there are none). Use short phrases, and an empty string for anything you cannot see.";
const BUILD_SYSTEM: &str = "You describe people in full-length fashion photographs for a casting sheet, so that an \
    image generator can cast the same body again. Describe only what is visible, in neutral, respectful terms. \
    Never name or identify the person. Answer with one JSON object and nothing else.";
const BUILD_PROMPT: &str = "This is a full-length photograph of one person. Answer with a JSON object with exactly \
    these keys: \"height\" (apparent height, e.g. \"tall, around 180 cm\"), \"build\" (body build and proportions), \
    \"presence\" (how the person carries themselves in frame, e.g. \"calm, editorial\"), \"posture\" (stance and \
    posture), \"hands\" (the hands as seen: size, nails, rings). Use short phrases, and an empty string for anything \
    you cannot see.";

pub(crate) fn not_configured() -> Error {
    Error::new(
        ErrorKind::NotConfigured,
        "AI_NOT_CONFIGURED",
        "No AI reader is configured on this studio; nothing was charged.",
    )
}

pub(crate) fn ai_failed(e: &AiError) -> Error {
    Error::new(ErrorKind::Upstream, "AI_FAILED", format!("The read failed and nothing was charged: {e}."))
}

/// A field of the answer, looked up exactly, then ignoring case.
fn field<'a>(answer: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    answer.get(key).or_else(|| answer.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v))
}

/// A text field: a string as given; a number or boolean written out; a list of strings joined
/// with commas; anything else (or nothing) is empty.
fn text(answer: &Map<String, Value>, key: &str) -> String {
    let raw = match field(answer, key) {
        Some(Value::String(s)) => s.clone(),
        Some(v @ (Value::Number(_) | Value::Bool(_))) => v.to_string(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    };
    tidy(&raw, MAX_FIELD_CHARS)
}

/// A list field: the non-empty strings of a list, or a lone string as a list of one.
fn list(answer: &Map<String, Value>, key: &str) -> Vec<String> {
    let items: Vec<String> = match field(answer, key) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
                _ => None,
            })
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    items.iter().map(|s| tidy(s, MAX_EXTRA_CHARS)).filter(|s| !s.is_empty()).take(MAX_EXTRAS).collect()
}

fn model_reading(answer: &Map<String, Value>, tokens: i64) -> ModelReading {
    ModelReading {
        age: text(answer, "age"),
        skin: text(answer, "skin"),
        eyes: text(answer, "eyes"),
        hair: text(answer, "hair"),
        extras: list(answer, "extras"),
        tokens,
    }
}

fn build_reading(answer: &Map<String, Value>, tokens: i64) -> BuildReading {
    BuildReading {
        height: text(answer, "height"),
        build: text(answer, "build"),
        presence: text(answer, "presence"),
        posture: text(answer, "posture"),
        hands: text(answer, "hands"),
        tokens,
    }
}

impl Ai<'_> {
    /// read_model: the look of one person from 1 to 6 reference frames of the house. 1 token,
    /// charged only when the reader answers. 400 `BAD_ASSET_IDS`; 402; 403 viewer; 404
    /// `ASSET_NOT_FOUND`; 502 `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn read_model(&self, caller: &Caller, req: ReadModelRequest) -> Result<ModelReading> {
        caller.require_spend_tokens()?;
        let ids = crate::models::clean_asset_ids(&req.asset_ids, MAX_READ_FRAMES)?;
        let assets = self.studio.models().live_assets(caller, &ids, "ASSET_NOT_FOUND").await?;
        let (answer, tokens) = self.ai_read(caller, "read-model", assets, MODEL_SYSTEM, MODEL_PROMPT).await?;
        Ok(model_reading(&answer, tokens))
    }

    /// read_build: the body from one full-length photograph of the house. 1 token, charged
    /// only when the reader answers. 400 `IMAGE_REQUIRED`; 402; 403 viewer; 404
    /// `ASSET_NOT_FOUND`; 502 `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn read_build(&self, caller: &Caller, req: ReadBuildRequest) -> Result<BuildReading> {
        caller.require_spend_tokens()?;
        let id = req.asset_id.trim();
        if id.is_empty() {
            return Err(Error::invalid("IMAGE_REQUIRED", "Name the full-length photograph in assetId."));
        }
        let assets = self.studio.models().live_assets(caller, &[id.to_string()], "ASSET_NOT_FOUND").await?;
        let (answer, tokens) = self.ai_read(caller, "read-build", assets, BUILD_SYSTEM, BUILD_PROMPT).await?;
        Ok(build_reading(&answer, tokens))
    }

    /// A paid read of validated assets: 503 without a reader (nothing held), then the lane
    /// pipeline's charge ([`Studio::charged`]): hold, ask, settle on an answer or release on any
    /// failure. Returns the answer object and the tokens charged.
    pub(crate) async fn ai_read(
        &self,
        caller: &Caller,
        tool: &'static str,
        assets: Vec<AssetRow>,
        system: &'static str,
        prompt: &'static str,
    ) -> Result<(Map<String, Value>, i64)> {
        let client = self.ai_client()?;
        let studio = self.studio.clone();
        let org = caller.org_id.clone();
        self.charged(caller, (tool, AI_READER), None, async move {
            studio.ai().ask(&client, &org, tool, &assets, system, prompt).await
        })
        .await
    }

    /// Ask the reader about `assets` for the house `org`, recording the call under `tool`.
    async fn ask(
        &self,
        client: &AiClient,
        org: &OrgId,
        tool: &str,
        assets: &[AssetRow],
        system: &str,
        prompt: &str,
    ) -> Result<Map<String, Value>> {
        let mut images = Vec::with_capacity(assets.len());
        for asset in assets {
            images.push(self.ai_image(asset).await?);
        }
        let started = std::time::Instant::now();
        let answer = client.read_json(system, prompt, &images).await;
        let outcome = match &answer {
            Ok(Value::Object(_)) => ReaderOutcome::Answered,
            Ok(_) => ReaderOutcome::Unusable,
            Err(e) => ReaderOutcome::of(e),
        };
        self.studio.internal().record_reader_call(Some(org), tool, outcome, started).await;
        match answer {
            Ok(Value::Object(answer)) => Ok(answer),
            Ok(_) => Err(ai_failed(&AiError::Unavailable("the AI reader's answer is not a JSON object".into()))),
            Err(e) => {
                tracing::warn!(error = %e, "an AI read failed");
                Err(ai_failed(&e))
            }
        }
    }

    /// An asset's image for the reader: as stored when small enough, else a JPEG scaled down
    /// to [`READ_EDGE`] px on the long edge (GIFs always become a JPEG). Should scaling fail,
    /// the stored bytes go as they are.
    async fn ai_image(&self, asset: &AssetRow) -> Result<AiImage> {
        let bytes = self.studio.blobs.get_bytes(&asset.blob_key).await.map_err(Error::internal)?;
        let long_edge = asset.width.zip(asset.height).map(|(w, h)| w.max(h));
        let as_is = bytes.len() <= AS_IS_BYTES
            && long_edge.is_some_and(|e| e <= AS_IS_EDGE)
            && matches!(asset.mime.as_str(), "image/jpeg" | "image/png" | "image/webp");
        if as_is {
            return Ok(AiImage { mime: asset.mime.clone(), bytes });
        }
        let edge = long_edge.map_or(READ_EDGE, |e| u32::try_from(e).unwrap_or(READ_EDGE).clamp(1, READ_EDGE));
        let source = bytes.clone();
        let scaled = tokio::task::spawn_blocking(move || crate::images::rendition_jpeg(&source, edge, edge)).await;
        match scaled {
            Ok(Ok(jpeg)) => Ok(AiImage { mime: "image/jpeg".to_string(), bytes: jpeg.into() }),
            _ => Ok(AiImage { mime: asset.mime.clone(), bytes }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("an object"),
        }
    }

    #[test]
    fn model_fields_are_read_leniently() {
        let answer = object(json!({
            "age": " mid-20s ",
            "Skin": "light olive",
            "eyes": 7,
            "hair": ["short", "black"],
            "extras": ["freckles", "", {"x": 1}, "  round   glasses "],
        }));
        let reading = model_reading(&answer, 1);
        assert_eq!(
            reading,
            ModelReading {
                age: "mid-20s".into(),
                skin: "light olive".into(),
                eyes: "7".into(),
                hair: "short, black".into(),
                extras: vec!["freckles".into(), "round glasses".into()],
                tokens: 1,
            }
        );
        let empty = model_reading(&Map::new(), 1);
        assert_eq!((empty.age.as_str(), empty.extras.len()), ("", 0));
        assert_eq!(model_reading(&object(json!({"extras": "a scar"})), 1).extras, vec!["a scar".to_string()]);
    }

    #[test]
    fn build_fields_are_tidy() {
        let long = "x".repeat(MAX_FIELD_CHARS + 50);
        let reading = build_reading(&object(json!({"height": long, "hands": null, "build": {"a": 1}})), 1);
        assert_eq!(reading.height.chars().count(), MAX_FIELD_CHARS);
        assert_eq!((reading.hands.as_str(), reading.build.as_str(), reading.posture.as_str()), ("", "", ""));
    }
}
