//! The lanes that look at one image through the AI reader (`02-route-groups.md` §4.1, §4.2):
//! describe-item, detect-items, extract-build, extract-character and face-features.
//!
//! Each runs the lane pipeline (lanes.rs): no reader is 503 `AI_NOT_CONFIGURED` with nothing
//! held; the reader sees the picture as displayed (EXIF orientation applied, at most 1,536 px);
//! its answer is checked against the lane's shape before the hold settles (502
//! `AI_BAD_OUTPUT` otherwise, released) and then clamped: `nameEn` at most 40 characters, an
//! unknown kind read as `clothes`, extract-* never invent (every field empty unless the figure
//! or face is seen), face-features twenty keywords or none. detect-items asks for boxes on the
//! displayed picture and maps them back to the raw stored pixel matrix (EXIF orientation not
//! applied), as the spec's boxes are.

use crate::ai::Ai;
use image::metadata::Orientation;
use serde_json::{Map, Value};

use crate::admin::AI_READER;
use crate::api::{
    AssetKind, BuildFields, CharacterFields, DescribeItemResponse, DetectItemsResponse, DetectedItem,
    ExtractBuildResponse, ExtractCharacterResponse, FACE_KEYWORDS, FaceFeaturesRequest, FaceFeaturesResponse,
    MAX_ITEM_NAME_CHARS,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::internal::quality::ReaderOutcome;
use crate::providers::ai::{AiClient, AiError, AiImage};

use super::lanes::{LaneImage, check_upload, prepare_async};
use super::reads::{ai_failed, not_configured};

/// Most items detect-items answers.
const MAX_ITEMS: usize = 20;
/// Longest text field kept from an answer.
const MAX_FIELD_CHARS: usize = 300;

const SYSTEM: &str = "You look at fashion photographs for a studio's catalogue. Describe only what is visible; \
    never name or identify a person and never guess ethnicity or anything not shown. Answer with one JSON object \
    and nothing else.";
const DESCRIBE: &str = "Name the one fashion piece this photograph shows. Answer {\"nameEn\": a short English \
    name of at most 40 characters, e.g. \"Cropped wool blazer\", \"kind\": one of \"clothes\", \"accessory\", \
    \"jewelry\", \"model\", \"background\"}.";
const DETECT: &str = "List every distinct garment and accessory worn or shown. Answer {\"items\": [{\"label\": a \
    few English words, \"box\": [ymin, xmin, ymax, xmax]}]} where the box is normalised to 0-1000 over this image \
    as you see it. An empty list when there is none; at most 20 items.";
const BUILD: &str = "Describe the body of the person, only if one whole figure is visible from head to feet. Answer \
    {\"figureDetected\": true or false, \"fields\": {\"height\": apparent height, \"build\": build and \
    proportions, \"presence\": how they carry themselves, \"posture\": stance and posture, \"hands\": the hands as \
    seen}}. Short phrases; an empty string for anything you cannot see; never invent. figureDetected is false, \
    with every field empty, unless the whole figure is in frame.";
const CHARACTER: &str = "Describe the face of the person, only if a face is clearly visible. Answer \
    {\"faceDetected\": true or false, \"fields\": {\"age\": apparent age range, \"skin\": tone and undertone, \
    \"eyes\": colour and shape, \"hair\": colour, length, texture and style, \"extras\": other distinctive visible \
    features such as freckles or glasses, comma-separated}}. Short phrases; an empty string for anything you \
    cannot see; never invent. faceDetected is false, with every field empty, when no face is visible.";
const FACE: &str = "If a human face is clearly visible, list exactly twenty short English keywords for its \
    visible facial features (face shape, brows, eyes, nose, lips, jaw, skin texture, expression). Answer \
    {\"faceDetected\": true or false, \"keywords\": [twenty strings]}; no keywords when no face is visible.";

/// 502 `AI_BAD_OUTPUT`: the reader answered, but not in the lane's shape. Nothing is charged.
pub(crate) fn bad_output(detail: &str) -> Error {
    Error::new(
        ErrorKind::Upstream,
        "AI_BAD_OUTPUT",
        format!("The AI reader's answer is not what this lane asks for ({detail}); nothing was charged."),
    )
}

/// Whitespace collapsed, at most `max` characters.
pub(crate) fn tidy(text: &str, max: usize) -> String {
    let cut: String = text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(max).collect();
    cut.trim_end().to_string()
}

/// The answer as an object, or `AI_BAD_OUTPUT`.
pub(crate) fn object(answer: Value) -> Result<Map<String, Value>> {
    match answer {
        Value::Object(map) => Ok(map),
        _ => Err(bad_output("not a JSON object")),
    }
}

/// A required string field.
fn string(answer: &Map<String, Value>, key: &str) -> Result<String> {
    answer.get(key).and_then(Value::as_str).map(str::to_string).ok_or_else(|| bad_output(&format!("{key} is not text")))
}

/// A required boolean field.
fn flag(answer: &Map<String, Value>, key: &str) -> Result<bool> {
    answer.get(key).and_then(Value::as_bool).ok_or_else(|| bad_output(&format!("{key} is not true or false")))
}

/// The `fields` object's text fields: absent or null is empty; a list of strings is joined;
/// anything else is bad output.
fn fields<const N: usize>(answer: &Map<String, Value>, keys: [&str; N]) -> Result<[String; N]> {
    let empty = Map::new();
    let fields = match answer.get("fields") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(bad_output("fields is not an object")),
    };
    let mut out: [String; N] = std::array::from_fn(|_| String::new());
    for (slot, key) in out.iter_mut().zip(keys) {
        *slot = match fields.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => tidy(s, MAX_FIELD_CHARS),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                tidy(&items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "), MAX_FIELD_CHARS)
            }
            Some(_) => return Err(bad_output(&format!("fields.{key} is not text"))),
        };
    }
    Ok(out)
}

fn describe(answer: Value) -> Result<(String, String)> {
    let answer = object(answer)?;
    let name = tidy(&string(&answer, "nameEn")?, MAX_ITEM_NAME_CHARS);
    if name.is_empty() {
        return Err(bad_output("nameEn is empty"));
    }
    let kind = answer.get("kind").and_then(Value::as_str).map(|k| k.trim().to_ascii_lowercase()).unwrap_or_default();
    let kind = AssetKind::parse(&kind).unwrap_or(AssetKind::Clothes).as_str().to_string();
    Ok((name, kind))
}

/// A normalised displayed point `(u, v)` (0..1) in the raw stored matrix, for a picture the
/// decoder turned by `o` to display it.
fn to_raw(o: Orientation, u: f64, v: f64) -> (f64, f64) {
    match o {
        Orientation::NoTransforms => (u, v),
        Orientation::Rotate90 => (v, 1.0 - u),
        Orientation::Rotate180 => (1.0 - u, 1.0 - v),
        Orientation::Rotate270 => (1.0 - v, u),
        Orientation::FlipHorizontal => (1.0 - u, v),
        Orientation::FlipVertical => (u, 1.0 - v),
        Orientation::Rotate90FlipH => (v, u),
        Orientation::Rotate270FlipH => (1.0 - v, 1.0 - u),
    }
}

/// A displayed `[ymin, xmin, ymax, xmax]` (0..1000) as the same box in the raw matrix.
fn raw_box(o: Orientation, b: [f64; 4]) -> [u32; 4] {
    let (x0, y0) = to_raw(o, b[1] / 1000.0, b[0] / 1000.0);
    let (x1, y1) = to_raw(o, b[3] / 1000.0, b[2] / 1000.0);
    let n = |v: f64| (v * 1000.0).round().clamp(0.0, 1000.0) as u32;
    [n(y0.min(y1)), n(x0.min(x1)), n(y0.max(y1)), n(x0.max(x1))]
}

fn detect(answer: Value, orientation: Orientation) -> Result<Vec<DetectedItem>> {
    let answer = object(answer)?;
    let Some(Value::Array(items)) = answer.get("items") else { return Err(bad_output("items is not a list")) };
    let mut out = Vec::new();
    for item in items {
        let label = item.get("label").and_then(Value::as_str).ok_or_else(|| bad_output("an item has no label"))?;
        let coords: Vec<f64> = match item.get("box") {
            Some(Value::Array(b)) if b.len() == 4 => b.iter().filter_map(Value::as_f64).collect(),
            _ => return Err(bad_output("an item's box is not four numbers")),
        };
        let [ymin, xmin, ymax, xmax] = coords[..] else { return Err(bad_output("an item's box is not four numbers")) };
        let c = |v: f64| v.clamp(0.0, 1000.0);
        let (ymin, xmin, ymax, xmax) = (c(ymin), c(xmin), c(ymax), c(xmax));
        let label = tidy(label, 60);
        if label.is_empty() || ymax <= ymin || xmax <= xmin {
            continue; // an empty label or a box with no area names nothing
        }
        out.push(DetectedItem { label, bbox: raw_box(orientation, [ymin, xmin, ymax, xmax]), approximate: true });
        if out.len() == MAX_ITEMS {
            break;
        }
    }
    Ok(out)
}

fn build(answer: Value) -> Result<(bool, BuildFields)> {
    let answer = object(answer)?;
    let seen = flag(&answer, "figureDetected")?;
    let [height, build, presence, posture, hands] =
        fields(&answer, ["height", "build", "presence", "posture", "hands"])?;
    if !seen {
        return Ok((false, BuildFields::default()));
    }
    Ok((true, BuildFields { height, build, presence, posture, hands }))
}

fn character(answer: Value) -> Result<(bool, CharacterFields)> {
    let answer = object(answer)?;
    let seen = flag(&answer, "faceDetected")?;
    let [age, skin, eyes, hair, extras] = fields(&answer, ["age", "skin", "eyes", "hair", "extras"])?;
    if !seen {
        return Ok((false, CharacterFields::default()));
    }
    Ok((true, CharacterFields { age, skin, eyes, hair, extras }))
}

fn face(answer: Value) -> Result<(bool, Vec<String>)> {
    let answer = object(answer)?;
    if !flag(&answer, "faceDetected")? {
        return Ok((false, Vec::new()));
    }
    let Some(Value::Array(list)) = answer.get("keywords") else { return Err(bad_output("keywords is not a list")) };
    let mut keywords: Vec<String> = Vec::new();
    for k in list.iter().filter_map(Value::as_str).map(|k| tidy(k, 40)).filter(|k| !k.is_empty()) {
        if !keywords.iter().any(|seen| seen.eq_ignore_ascii_case(&k)) {
            keywords.push(k);
        }
    }
    if keywords.len() < FACE_KEYWORDS {
        return Err(bad_output(&format!("{} distinct keywords, not {FACE_KEYWORDS}", keywords.len())));
    }
    keywords.truncate(FACE_KEYWORDS);
    Ok((true, keywords))
}

impl Ai<'_> {
    /// The reader, or 503 `AI_NOT_CONFIGURED` (nothing held).
    pub(crate) fn ai_client(&self) -> Result<AiClient> {
        let config = self.studio.config.ai.as_ref().ok_or_else(not_configured)?;
        AiClient::new(config).map_err(|e| ai_failed(&e))
    }

    /// Ask the reader and check its answer with `shape`, all under the utility charge: the hold
    /// settles only when `shape` accepts the answer.
    pub(crate) async fn charged_ask<T, S>(
        &self,
        caller: &Caller,
        tool: &'static str,
        code_402: Option<&'static str>,
        prompt: String,
        image: Option<AiImage>,
        shape: S,
    ) -> Result<(T, i64)>
    where
        T: Send + 'static,
        S: FnOnce(Value) -> Result<T> + Send + 'static,
    {
        let client = self.ai_client()?;
        let studio = self.studio.clone();
        let org = caller.org_id.clone();
        self.charged(caller, (tool, AI_READER), code_402, async move {
            let images: Vec<AiImage> = image.into_iter().collect();
            let started = std::time::Instant::now();
            let answer = client.read_json(SYSTEM, &prompt, &images).await;
            let (outcome, shaped) = match answer {
                Ok(v) => match shape(v) {
                    Ok(t) => (ReaderOutcome::Answered, Ok(t)),
                    Err(e) => (ReaderOutcome::Unusable, Err(e)),
                },
                Err(e) => {
                    tracing::warn!(error = %e, "an AI lane's read failed");
                    let outcome = ReaderOutcome::of(&e);
                    (
                        outcome,
                        Err(match e {
                            AiError::Malformed(m) => bad_output(&m),
                            e => ai_failed(&e),
                        }),
                    )
                }
            };
            studio.internal().record_reader_call(Some(&org), tool, outcome, started).await;
            shaped
        })
        .await
    }

    /// The first steps of every image lane read by the reader: a viewer is 403, the upload is
    /// checked, the reader must be configured, and the picture is prepared.
    async fn vision_input(&self, caller: &Caller, image: Option<LaneImage>) -> Result<super::lanes::Prepared> {
        caller.require_spend_tokens()?;
        check_upload(image.as_ref(), "IMAGE_REQUIRED")?;
        self.studio.config.ai.as_ref().ok_or_else(not_configured)?;
        prepare_async(image.map(|i| i.bytes).unwrap_or_default()).await
    }

    /// `POST /api/toolkit/ai/describe-item`: the piece's English name and kind. 402
    /// `INSUFFICIENT_TOKENS` or `AI_NEEDS_BILLING` (the house never paid: nothing refills it).
    pub async fn describe_item(&self, caller: &Caller, image: Option<LaneImage>) -> Result<DescribeItemResponse> {
        let prepared = self.vision_input(caller, image).await?;
        let code = self.needs_billing_code(&caller.org_id).await?;
        let ((name_en, kind), spent) = self
            .charged_ask(caller, "describe-item", Some(code), DESCRIBE.to_string(), Some(prepared.image), describe)
            .await?;
        Ok(DescribeItemResponse { ok: true, name_en, kind, spent })
    }

    /// `POST /api/toolkit/ai/detect-items`: the pieces and their boxes in the raw stored pixel
    /// matrix. Without a reader 503 `AI_NOT_CONFIGURED`: boxes are never guessed.
    pub async fn detect_items(&self, caller: &Caller, image: Option<LaneImage>) -> Result<DetectItemsResponse> {
        let prepared = self.vision_input(caller, image).await?;
        let orientation = prepared.orientation;
        let (items, spent) = self
            .charged_ask(caller, "detect-items", None, DETECT.to_string(), Some(prepared.image), move |a| {
                detect(a, orientation)
            })
            .await?;
        Ok(DetectItemsResponse { ok: true, items, spent })
    }

    /// `POST /api/toolkit/ai/extract-build`: the body's fields, only from a full-length figure.
    pub async fn extract_build(&self, caller: &Caller, image: Option<LaneImage>) -> Result<ExtractBuildResponse> {
        let prepared = self.vision_input(caller, image).await?;
        let ((figure_detected, fields), spent) =
            self.charged_ask(caller, "extract-build", None, BUILD.to_string(), Some(prepared.image), build).await?;
        Ok(ExtractBuildResponse { ok: true, figure_detected, fields, spent })
    }

    /// `POST /api/toolkit/ai/extract-character`: the face's fields, only when a face is seen.
    pub async fn extract_character(
        &self,
        caller: &Caller,
        image: Option<LaneImage>,
    ) -> Result<ExtractCharacterResponse> {
        let prepared = self.vision_input(caller, image).await?;
        let ((face_detected, fields), spent) = self
            .charged_ask(caller, "extract-character", None, CHARACTER.to_string(), Some(prepared.image), character)
            .await?;
        Ok(ExtractCharacterResponse { ok: true, face_detected, fields, spent })
    }

    /// `POST /api/toolkit/ai/face-features` (JSON `imageUrl`): twenty facial-feature keywords
    /// or none. 402 `AI_NEEDS_BILLING`.
    pub async fn face_features(&self, caller: &Caller, req: FaceFeaturesRequest) -> Result<FaceFeaturesResponse> {
        caller.require_spend_tokens()?;
        let source = self.lane_source(caller, &req.image_url).await?;
        self.studio.config.ai.as_ref().ok_or_else(not_configured)?;
        let prepared = prepare_async(source.bytes).await?;
        let ((face_detected, keywords), spent) = self
            .charged_ask(
                caller,
                "face-features",
                Some("AI_NEEDS_BILLING"),
                FACE.to_string(),
                Some(prepared.image),
                face,
            )
            .await?;
        Ok(FaceFeaturesResponse { ok: true, face_detected, keywords, spent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describe_clamps_the_name_and_the_kind() {
        let (name, kind) = describe(json!({"nameEn": format!("  {}  ", "a".repeat(80)), "kind": "Shoes"})).unwrap();
        assert_eq!((name.chars().count(), kind.as_str()), (MAX_ITEM_NAME_CHARS, "clothes"));
        assert_eq!(describe(json!({"nameEn": "Belt", "kind": "Accessory"})).unwrap().1, "accessory");
        for bad in [json!([1]), json!({"kind": "clothes"}), json!({"nameEn": 5}), json!({"nameEn": "  "})] {
            assert_eq!(describe(bad).unwrap_err().code, "AI_BAD_OUTPUT");
        }
    }

    #[test]
    fn boxes_go_back_to_the_raw_matrix() {
        // A portrait display of a landscape matrix turned 90° clockwise (EXIF 6): the top-left
        // quarter of what is seen is the bottom-left quarter of what is stored.
        assert_eq!(raw_box(Orientation::Rotate90, [0.0, 0.0, 500.0, 500.0]), [500, 0, 1000, 500]);
        assert_eq!(raw_box(Orientation::NoTransforms, [100.0, 200.0, 300.0, 400.0]), [100, 200, 300, 400]);
        assert_eq!(raw_box(Orientation::Rotate180, [0.0, 0.0, 250.0, 500.0]), [750, 500, 1000, 1000]);
        assert_eq!(raw_box(Orientation::Rotate270, [0.0, 0.0, 500.0, 500.0]), [0, 500, 500, 1000]);
        let items = detect(
            json!({"items": [{"label": "coat", "box": [0, 0, 500, 500]}, {"label": "flat", "box": [10, 10, 10, 90]}]}),
            Orientation::Rotate90,
        )
        .unwrap();
        assert_eq!(items, vec![DetectedItem { label: "coat".into(), bbox: [500, 0, 1000, 500], approximate: true }]);
        assert_eq!(
            detect(json!({"items": [{"label": "x", "box": [1, 2]}]}), Orientation::NoTransforms).unwrap_err().code,
            "AI_BAD_OUTPUT"
        );
    }

    #[test]
    fn extracts_never_invent() {
        let (seen, fields) =
            build(json!({"figureDetected": false, "fields": {"height": "tall", "build": "slim"}})).unwrap();
        assert!(!seen);
        assert_eq!(fields, BuildFields::default());
        let (seen, fields) =
            character(json!({"faceDetected": true, "fields": {"age": "30s", "extras": ["freckles", "glasses"]}}))
                .unwrap();
        assert!(seen);
        assert_eq!(
            (fields.age.as_str(), fields.extras.as_str(), fields.hair.as_str()),
            ("30s", "freckles, glasses", "")
        );
        assert_eq!(character(json!({"fields": {}})).unwrap_err().code, "AI_BAD_OUTPUT");
        assert_eq!(build(json!({"figureDetected": true, "fields": {"height": 3}})).unwrap_err().code, "AI_BAD_OUTPUT");
    }

    #[test]
    fn face_features_are_twenty_or_none() {
        let twenty: Vec<String> = (0..25).map(|i| format!("feature {i}")).collect();
        let (seen, keywords) = face(json!({"faceDetected": true, "keywords": twenty})).unwrap();
        assert_eq!((seen, keywords.len()), (true, FACE_KEYWORDS));
        assert_eq!(face(json!({"faceDetected": false, "keywords": ["a"]})).unwrap(), (false, Vec::new()));
        let few: Vec<String> = (0..5).map(|i| format!("feature {i}")).collect();
        assert_eq!(face(json!({"faceDetected": true, "keywords": few})).unwrap_err().code, "AI_BAD_OUTPUT");
    }
}
