//! AI utility lanes and text tools on the wire (`02-route-groups.md` §4.1, §4.2): the answers of
//! the image lanes (depth, describe-item, detect-items, segment, extract-build,
//! extract-character, remove-background) and the JSON requests and answers of the text tools.
//! Clamps and the rules behind each field are in docs/lanes.md.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest `nameEn` describe-item answers (§4.1).
pub const MAX_ITEM_NAME_CHARS: usize = 40;
/// Keywords face-features answers when a face is seen (§4.2: twenty or none).
pub const FACE_KEYWORDS: usize = 20;
/// Shots imagemodel-prompts writes when `count` is not given.
pub const DEFAULT_PROMPT_SHOTS: u32 = 4;
/// The most shots imagemodel-prompts writes.
pub const MAX_PROMPT_SHOTS: u32 = 12;
/// How long a lane's unkept result (depth map, segment cutout) may be fetched, in seconds.
pub const LANE_RESULT_SECS: i64 = 15 * 60;

/// `POST /api/toolkit/ai/depth`: the grayscale depth map, served from a short-lived signed URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DepthResponse {
    /// Signed URL of the PNG depth map (near is light); expires [`LANE_RESULT_SECS`] after the
    /// answer. Never kept in the library.
    pub url: String,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/describe-item`: what the piece is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescribeItemResponse {
    /// Always true.
    pub ok: bool,
    /// A short English name, at most 40 characters.
    pub name_en: String,
    /// One of the library's asset kinds; anything the reader answers outside them is `clothes`.
    pub kind: String,
    /// Tokens charged (1).
    pub spent: i64,
}

/// One piece detect-items found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DetectedItem {
    /// What it is, in a few English words.
    pub label: String,
    /// `[ymin, xmin, ymax, xmax]`, each 0 to 1000, in the raw stored pixel matrix (EXIF
    /// orientation not applied).
    #[serde(rename = "box")]
    pub bbox: [u32; 4],
    /// Always true: the boxes are a reader's estimate, not a measured mask.
    pub approximate: bool,
}

/// `POST /api/toolkit/ai/detect-items`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DetectItemsResponse {
    /// Always true.
    pub ok: bool,
    /// The pieces, at most 20; empty when none is seen.
    pub items: Vec<DetectedItem>,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/segment` (JSON): cut one thing out of an image of this house.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SegmentRequest {
    /// This house's asset file URL (or an asset id), or a URL a lane of this house answered.
    /// Never an arbitrary address: nothing is fetched from the network.
    #[serde(default)]
    pub image_url: String,
    /// What to cut, in words (needs fal: `STUDIO_FAL_KEY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `[x0, y0, x1, y1]` in pixels of the EXIF-applied frame.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub bbox: Option<Vec<f64>>,
    /// `[x, y]` in pixels of the EXIF-applied frame: a point on the thing to cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<Vec<f64>>,
}

/// `POST /api/toolkit/ai/segment`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SegmentResponse {
    /// Signed URL of the RGBA PNG cutout (full frame, transparent outside the object); expires
    /// [`LANE_RESULT_SECS`] after the answer. Never kept in the library.
    pub url: String,
    /// The object's bounds `[x0, y0, x1, y1]` in pixels of the EXIF-applied frame (x1, y1
    /// exclusive).
    pub bbox: [u32; 4],
    /// Tokens charged (1).
    pub spent: i64,
}

/// The body fields extract-build reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BuildFields {
    /// Apparent height; empty when unseen.
    pub height: String,
    /// Build and proportions; empty when unseen.
    pub build: String,
    /// How the person carries themselves; empty when unseen.
    pub presence: String,
    /// Stance and posture; empty when unseen.
    pub posture: String,
    /// The hands as seen; empty when unseen.
    pub hands: String,
}

/// `POST /api/toolkit/ai/extract-build`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtractBuildResponse {
    /// Always true.
    pub ok: bool,
    /// False (with every field empty) unless one whole figure is seen head to feet.
    pub figure_detected: bool,
    /// The fields; never invented.
    pub fields: BuildFields,
    /// Tokens charged (1).
    pub spent: i64,
}

/// The face fields extract-character reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CharacterFields {
    /// Apparent age range; empty when unseen.
    pub age: String,
    /// Skin tone and undertone; empty when unseen.
    pub skin: String,
    /// Eye colour and shape; empty when unseen.
    pub eyes: String,
    /// Hair colour, length, texture and style; empty when unseen.
    pub hair: String,
    /// Other distinctive visible features, comma-separated; empty when none.
    pub extras: String,
}

/// `POST /api/toolkit/ai/extract-character`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtractCharacterResponse {
    /// Always true.
    pub ok: bool,
    /// False (with every field empty) when no face is seen.
    pub face_detected: bool,
    /// The fields; never invented.
    pub fields: CharacterFields,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/remove-background`: the cutout, saved in the library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveBackgroundResponse {
    /// The new asset's file URL (an RGBA PNG).
    pub url: String,
    /// Tokens charged (1).
    pub spent: i64,
    /// The new asset (kind `clothes`, tool `remove-background`, named after the upload).
    pub asset_id: String,
}

/// `POST /api/toolkit/ai/face-features`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaceFeaturesRequest {
    /// This house's asset file URL (or an asset id), or a URL a lane of this house answered.
    #[serde(default)]
    pub image_url: String,
}

/// `POST /api/toolkit/ai/face-features`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaceFeaturesResponse {
    /// Always true.
    pub ok: bool,
    /// False (with no keywords) when no face is seen.
    pub face_detected: bool,
    /// Exactly twenty facial-feature keywords, or none.
    pub keywords: Vec<String>,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/inspiration-keywords`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InspirationRequest {
    /// The mood to find words for (required, at most 500 characters).
    #[serde(default)]
    pub vibe: String,
}

/// One group of inspiration keywords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KeywordCategory {
    /// The group (`palette`, `texture`, `light`, ...).
    pub category: String,
    /// Its keywords, 1 to 12.
    pub keywords: Vec<String>,
}

/// `POST /api/toolkit/ai/inspiration-keywords`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InspirationResponse {
    /// Always true.
    pub ok: bool,
    /// 1 to 8 groups.
    pub categories: Vec<KeywordCategory>,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/imagemodel-prompts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShotPromptsRequest {
    /// What is being shot (required, at most 2,000 characters).
    #[serde(default)]
    pub description: String,
    /// The art direction, optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// How many shots, 1 to [`MAX_PROMPT_SHOTS`] (default [`DEFAULT_PROMPT_SHOTS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
}

/// One shot of imagemodel-prompts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShotPrompt {
    /// A short name for the shot.
    pub label: String,
    /// The image-model prompt.
    pub prompt: String,
}

/// `POST /api/toolkit/ai/imagemodel-prompts`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShotPromptsResponse {
    /// Always true.
    pub ok: bool,
    /// Exactly `count` shots.
    pub shots: Vec<ShotPrompt>,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/prompt-builder`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromptBuilderRequest {
    /// What the picture shows (required, at most 2,000 characters).
    #[serde(default)]
    pub subject: String,
    /// The mood, optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vibe: Option<String>,
}

/// `POST /api/toolkit/ai/prompt-builder`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromptBuilderResponse {
    /// Always true.
    pub ok: bool,
    /// The prompt, at most 2,000 characters.
    pub prompt: String,
    /// Tokens charged (1).
    pub spent: i64,
}

/// `POST /api/toolkit/ai/prompt-enhancer`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromptEnhancerRequest {
    /// The prompt to improve (required, at most 4,000 characters).
    #[serde(default)]
    pub prompt: String,
    /// What the prompt is for, optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
}

/// `POST /api/toolkit/ai/prompt-enhancer`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PromptEnhancerResponse {
    /// Always true.
    pub ok: bool,
    /// The improved prompt, at most 4,000 characters.
    pub improved: String,
    /// What was changed and why, at most 8 short notes.
    pub notes: Vec<String>,
    /// Tokens charged (1).
    pub spent: i64,
}
