//! Looks, shot templates, the standing preset and the composer's vocabulary on the wire
//! (`02-route-groups.md` §2.1, §2.3, §2.10, §4.4, §4.5).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Quality;

/// A look's or a preset's background (§2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Background {
    /// A built-in ground (`GET /api/toolkit/backgrounds`).
    Preset {
        /// The ground's id.
        value: String,
    },
    /// A library asset of the house.
    Asset {
        /// The asset.
        #[serde(rename = "assetId")]
        asset_id: String,
    },
}

/// A piece of a look and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LookItem {
    /// The library asset.
    pub asset_id: String,
    /// One of the vocabulary's item roles.
    pub role: String,
}

/// A look's preset (§2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LookPreset {
    /// One of the composer's presets.
    pub aesthetic: String,
    /// Where the look stands.
    pub background: Background,
}

/// A look's state (§3.2 of the core document).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LookStatus {
    /// Selections only; can be developed.
    Draft,
    /// A developed frame is its base; variations may be made.
    Locked,
}

impl LookStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LookStatus::Draft => "draft",
            LookStatus::Locked => "locked",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<LookStatus> {
        [LookStatus::Draft, LookStatus::Locked].into_iter().find(|st| st.as_str() == s)
    }
}

/// A look (§2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Look {
    /// Id.
    pub id: String,
    /// The house.
    pub organization_id: String,
    /// Who made it.
    pub created_by_user_id: String,
    /// The brand it is for.
    pub brand_id: Option<String>,
    /// Name.
    pub name: String,
    /// The model's asset.
    pub model_asset_id: String,
    /// The background's asset, when the background is an asset.
    pub background_asset_id: Option<String>,
    /// The pieces.
    pub item_asset_ids: Vec<LookItem>,
    /// Aesthetic and background.
    pub preset: LookPreset,
    /// draft or locked.
    pub status: LookStatus,
    /// The locked frame.
    pub look_base_asset_id: Option<String>,
    /// The develop job that made it.
    pub look_base_job_id: Option<String>,
    /// The Look Base's parent (the model collage it grew from), recorded at lock.
    pub look_base_parent_asset_id: Option<String>,
    /// The factory batch that drafted it, if any.
    pub batch_id: Option<String>,
    /// The variation keys a factory batch planned for it (null for a look made by hand).
    pub planned_variation_keys: Option<Vec<String>>,
    /// The quality a factory batch planned for it.
    pub planned_quality: Option<Quality>,
    /// When made.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// `POST /api/toolkit/lookbook/looks`. Every field but `brandId` is required; each missing one
/// has its own code.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateLookRequest {
    /// 1 to 120 characters (400 `NAME_REQUIRED`).
    #[serde(default)]
    pub name: Option<String>,
    /// The model's asset (400 `MODEL_REQUIRED`).
    #[serde(default)]
    pub model_asset_id: Option<String>,
    /// The pieces, 1 to the vocabulary's maximum (400 `ITEMS_REQUIRED`, `TOO_MANY_ITEMS`, `BAD_ITEM`).
    #[serde(default)]
    #[schemars(schema_with = "schema::items")]
    pub item_asset_ids: Option<Vec<serde_json::Value>>,
    /// `{kind: preset, value}` or `{kind: asset, assetId}` (400 `BAD_BACKGROUND`).
    #[serde(default)]
    #[schemars(schema_with = "schema::background")]
    pub background: Option<serde_json::Value>,
    /// One of the composer's presets (400 `BAD_AESTHETIC`).
    #[serde(default)]
    #[schemars(schema_with = "schema::aesthetic")]
    pub aesthetic: Option<String>,
    /// The brand it is for.
    #[serde(default)]
    pub brand_id: Option<String>,
}

/// A look wrapped, as the look routes answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LookResponse {
    /// The look.
    pub look: Look,
}

/// `GET /api/toolkit/lookbook/looks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LookList {
    /// Newest first, at most 50.
    pub looks: Vec<Look>,
}

/// A variation frame of a look.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LookVariation {
    /// The variation key.
    pub key: String,
    /// What the frame holds.
    pub framing: String,
    /// The develop job.
    pub job_id: String,
    /// The landed frame.
    pub asset_id: Option<String>,
    /// The frame is the look's base.
    pub locked: bool,
    /// The job's status.
    pub status: String,
    /// Why it failed.
    pub error: Option<String>,
}

/// The look's latest develop-lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockDevelop {
    /// The develop job.
    pub id: String,
    /// Its status.
    pub status: String,
    /// The landed frame.
    pub result_asset_id: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
}

/// `GET /api/toolkit/lookbook/looks/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LookDetail {
    /// The look.
    pub look: Look,
    /// Its variation frames, oldest first.
    pub variations: Vec<LookVariation>,
    /// Its latest develop-lock, or null.
    pub lock_develop: Option<LockDevelop>,
}

/// A shot template (§2.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShotTemplate {
    /// Id.
    pub id: String,
    /// The house, or null for a built-in.
    #[serde(rename = "organizationId")]
    pub organization_id: Option<String>,
    /// Name.
    pub name: String,
    /// The item roles the template is built around.
    pub slots: Vec<String>,
    /// How many shots it holds.
    pub shot_count: i64,
    /// When made.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

/// A shot of a template (§2.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateShot {
    /// Id.
    pub id: String,
    /// still or motion.
    #[serde(rename = "type")]
    pub kind: String,
    /// A variation key: what the frame holds.
    pub framing: String,
    /// The pose asked for.
    pub pose: String,
    /// The expression asked for.
    pub expression: String,
    /// Order in the template.
    pub sort_order: i64,
}

/// `GET /api/toolkit/lookbook/templates`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateList {
    /// Built-ins first, then the house's.
    pub templates: Vec<ShotTemplate>,
}

/// `GET /api/toolkit/lookbook/templates/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateDetail {
    /// The template.
    pub template: ShotTemplate,
    /// Its shots in order.
    pub shots: Vec<TemplateShot>,
}

/// A named output size of the standing preset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PresetSize {
    /// Name (1 to 60 characters).
    pub name: String,
    /// Width in pixels (1 to 8,192).
    pub width: u32,
    /// Height in pixels (1 to 8,192).
    pub height: u32,
}

/// The house's standing preset (§2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StandingPreset {
    /// The default model.
    pub model_asset_id: Option<String>,
    /// The default background.
    pub background: Background,
    /// The default aesthetic.
    pub aesthetic: String,
    /// The default variation frames.
    pub variation_keys: Vec<String>,
    /// The default quality.
    pub quality: Quality,
    /// Named output sizes.
    pub sizes: Vec<PresetSize>,
}

/// `GET` and `POST /api/toolkit/presets`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PresetResponse {
    /// The preset (the defaults until one is saved).
    pub preset: StandingPreset,
}

/// `POST /api/toolkit/presets`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PresetRequest {
    /// Required (400 `BAD_AESTHETIC`).
    #[serde(default)]
    #[schemars(schema_with = "schema::aesthetic")]
    pub aesthetic: Option<String>,
    /// Required (400 `BAD_BACKGROUND`).
    #[serde(default)]
    #[schemars(schema_with = "schema::background")]
    pub background: Option<serde_json::Value>,
    /// Required (400 `KEYS_REQUIRED`, `UNKNOWN_VARIATION`, `TOO_MANY_FRAMES`).
    #[serde(default)]
    #[schemars(schema_with = "schema::variation_keys")]
    pub variation_keys: Option<Vec<String>>,
    /// A house asset (404 `ASSET_NOT_FOUND`), or null.
    #[serde(default)]
    pub model_asset_id: Option<String>,
    /// Default 2k.
    #[serde(default)]
    pub quality: Option<Quality>,
    /// Absent leaves the stored list alone; an empty array clears it.
    #[serde(default)]
    pub sizes: Option<Vec<PresetSize>>,
}

/// One named value of the vocabulary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VocabularyEntry {
    /// The key routes take.
    pub key: String,
    /// A name for people.
    pub name: String,
    /// What it means.
    pub note: String,
}

/// `GET /api/toolkit/lookbook/vocabulary`: every legal value of the composer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Vocabulary {
    /// Item roles, in the composer's layering order.
    pub item_roles: Vec<String>,
    /// The most pieces in one look.
    pub max_items_per_look: i64,
    /// The composer's presets.
    pub aesthetics: Vec<VocabularyEntry>,
    /// Ground presets a background may name.
    pub backgrounds: Vec<VocabularyEntry>,
    /// Variation keys and what each frames.
    pub variations: Vec<VocabularyEntry>,
    /// The most frames of one request.
    pub max_variation_frames: i64,
    /// Named output places (`name` is their pixels) and `custom`.
    pub destinations: Vec<VocabularyEntry>,
}

/// Where a lookbook develop's frame goes (§2.2): a named place with its own pixels, or
/// `custom` with the caller's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputRequest {
    /// A named place (`web-tile`, `story`, `square`, `banner`, `a4-print`, `a3-print`) or
    /// `custom` (400 `UNKNOWN_DESTINATION` lists them).
    #[serde(default)]
    #[schemars(schema_with = "schema::destination")]
    pub destination: Option<String>,
    /// Pixels wide: required for `custom`; for a named place, absent or its own.
    #[serde(default)]
    pub width: Option<i64>,
    /// Pixels high, as `width`.
    #[serde(default)]
    pub height: Option<i64>,
}

/// `POST /api/toolkit/lookbook/looks/{id}/develop-lock`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopLockRequest {
    /// 1k, 2k or 4k; the standing preset's quality when absent.
    #[serde(default)]
    #[schemars(schema_with = "schema::quality")]
    pub quality: Option<String>,
    /// The destination; `web-tile` when absent.
    #[serde(default)]
    pub output: Option<OutputRequest>,
    /// Replays answer the first request's job; generated when absent.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// The collection the frame is filed in when it lands (404 `NOT_FOUND` when it is not this
    /// house's; checked before anything is held); the library's root when absent.
    #[serde(default)]
    pub folder_id: Option<String>,
}

/// `POST /api/toolkit/lookbook/looks/{id}/variations`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariationsRequest {
    /// Variation keys, one frame each (400 `KEYS_REQUIRED`, `UNKNOWN_VARIATION`, `TOO_MANY_FRAMES`).
    #[serde(default)]
    #[schemars(schema_with = "schema::variation_keys")]
    pub keys: Option<Vec<String>>,
    /// 1k, 2k or 4k; the standing preset's quality when absent.
    #[serde(default)]
    #[schemars(schema_with = "schema::quality")]
    pub quality: Option<String>,
    /// The destination of every frame; `web-tile` when absent.
    #[serde(default)]
    pub output: Option<OutputRequest>,
    /// Replays answer the first request's jobs; generated when absent.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// The collection every frame is filed in when it lands (404 `NOT_FOUND` when it is not
    /// this house's; checked before anything is held); the library's root when absent.
    #[serde(default)]
    pub folder_id: Option<String>,
}

/// `POST /api/toolkit/lookbook/looks/{id}/lock`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockRequest {
    /// The landed frame of one of this look's develops (400 `ASSET_REQUIRED`).
    #[serde(default)]
    pub asset_id: Option<String>,
}

/// How a lookbook frame is made for its destination, and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputPlan {
    /// The place.
    pub destination: String,
    /// Its pixels.
    pub width: u32,
    /// Its pixels.
    pub height: u32,
    /// The aspect the frame is composed at (`W:H`; 2:3 for the A-series prints).
    pub composed_aspect: String,
    /// The developed frame's pixels (the tier's long edge, or the restoration pass's).
    pub frame_width: u32,
    /// The developed frame's pixels.
    pub frame_height: u32,
    /// The share of the frame trimmed to reach the destination's shape, in percent.
    pub trim_percent: f64,
    /// Tokens of the tier.
    pub tier_tokens: i64,
    /// Tokens of the forced restoration pass (4k only; 0 when the tier's pixels suffice).
    pub restoration_tokens: i64,
    /// Tokens per frame, all told.
    pub tokens_per_frame: i64,
}

/// `202` of a develop-lock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevelopLockResponse {
    /// The develop job (run `look.<lookId>.lock`).
    pub job_id: String,
    /// queued (or the replayed job's status).
    pub status: super::JobStatus,
    /// Tokens held by this request (0 on a replay).
    pub tokens_held: i64,
    /// The key this request is remembered by.
    pub idempotency_key: String,
    /// True when an earlier request with the same key answered.
    pub replayed: bool,
    /// How the frame is made.
    pub output: OutputPlan,
}

/// One variation frame queued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariationJob {
    /// The variation key.
    pub key: String,
    /// Its develop job.
    pub job_id: String,
}

/// `202` of a variations request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariationsResponse {
    /// One job per key, in the order asked (run `look.<lookId>.variations`).
    pub jobs: Vec<VariationJob>,
    /// Tokens held by this request, all frames (0 on a replay).
    pub tokens_held: i64,
    /// The key this request is remembered by.
    pub idempotency_key: String,
    /// True when an earlier request with the same key answered.
    pub replayed: bool,
    /// How each frame is made.
    pub output: OutputPlan,
}

/// The composer's vocabulary as OpenAPI enums: request fields that take a vocabulary name show
/// the legal values (the core still checks them and names them in every refusal).
pub(super) mod schema {
    use schemars::{Schema, SchemaGenerator, json_schema};
    use serde_json::json;

    use crate::api::vocabulary::{
        AESTHETICS, CUSTOM_DESTINATION, DESTINATIONS, GROUNDS, ITEM_ROLES, MAX_ITEMS_PER_LOOK, MAX_VARIATION_FRAMES,
        VARIATIONS,
    };

    /// A string of `names`, or null (the field is optional and defaults to null).
    fn nullable_enum(names: Vec<&str>) -> Schema {
        let mut values: Vec<serde_json::Value> = names.into_iter().map(serde_json::Value::from).collect();
        values.push(serde_json::Value::Null);
        json_schema!({"type": ["string", "null"], "enum": values})
    }

    fn variation_names() -> Vec<&'static str> {
        VARIATIONS.iter().map(|v| v.0).collect()
    }

    pub(in crate::api) fn aesthetic(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = AESTHETICS.iter().map(|a| a.0).collect();
        nullable_enum(names)
    }

    pub(in crate::api) fn quality(_: &mut SchemaGenerator) -> Schema {
        nullable_enum(vec!["1k", "2k", "4k"])
    }

    pub(in crate::api) fn destination(_: &mut SchemaGenerator) -> Schema {
        nullable_enum(DESTINATIONS.iter().map(|d| d.0).chain([CUSTOM_DESTINATION]).collect())
    }

    pub(in crate::api) fn variation_keys(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["array", "null"],
            "items": {"type": "string", "enum": variation_names()},
            "minItems": 1,
            "maxItems": MAX_VARIATION_FRAMES,
        })
    }

    pub(in crate::api) fn items(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["array", "null"],
            "minItems": 1,
            "maxItems": MAX_ITEMS_PER_LOOK,
            "items": {
                "type": "object",
                "required": ["assetId", "role"],
                "properties": {
                    "assetId": {"type": "string"},
                    "role": {"type": "string", "enum": ITEM_ROLES},
                },
            },
        })
    }

    pub(in crate::api) fn background(_: &mut SchemaGenerator) -> Schema {
        let presets: Vec<&str> = GROUNDS.iter().map(|g| g.0).collect();
        let preset = json!({
            "type": "object",
            "required": ["kind", "value"],
            "properties": {"kind": {"type": "string", "enum": ["preset"]}, "value": {"type": "string", "enum": presets}},
        });
        let asset = json!({
            "type": "object",
            "required": ["kind", "assetId"],
            "properties": {"kind": {"type": "string", "enum": ["asset"]}, "assetId": {"type": "string"}},
        });
        json_schema!({"oneOf": [preset, asset, {"type": "null"}]})
    }
}
