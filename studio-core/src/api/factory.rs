//! The factory on the wire (`02-route-groups.md` §4.5): a plan that proposes looks from pieces
//! and prices them, and a run that drafts the confirmed looks in one batch.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Background, LookItem, Quality, StandingPreset};

/// `POST /api/toolkit/factory/plan`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryPlanRequest {
    /// The pieces to group into looks: live assets of the house, at most 200 (400
    /// `ASSETS_REQUIRED` when absent or empty, `BAD_BODY` for a blank id, a model or background
    /// asset, or past the cap; 404 `ASSET_NOT_FOUND`). Repeated ids count once.
    #[serde(default)]
    pub asset_ids: Option<Vec<String>>,
    /// The quality to price at; the standing preset's when absent.
    #[serde(default)]
    pub quality: Option<Quality>,
}

/// Why a proposed look holds the pieces it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GroupedBy {
    /// The pieces share a hand-made group (`POST /api/toolkit/assets/group`).
    Group,
    /// The pieces share a SKU and belong to no hand-made group.
    Sku,
    /// A piece with neither: a look of its own.
    Piece,
}

/// One look the plan proposes: the shape `POST /api/toolkit/factory/run` takes back, plus why
/// its pieces go together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlannedLook {
    /// From the group's first piece, the SKU or the piece's name; `(1/2)`-style suffixes when a
    /// group is split past the pieces a look holds.
    pub name: String,
    /// The pieces with a guessed role each (docs/factory.md says how).
    pub item_asset_ids: Vec<LookItem>,
    /// The standing preset's background.
    pub background: Background,
    /// The standing preset's variation keys.
    pub variation_keys: Vec<String>,
    /// What put these pieces together.
    pub grouped_by: GroupedBy,
}

/// What the proposed looks would cost to develop: a develop-lock and the preset's variations per
/// look, at the tier price of one lookbook frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryCost {
    /// Tokens of one frame at `quality` (the live price book's lookbook price).
    pub per_frame: i64,
    /// 1 (the develop-lock) plus the preset's variation keys.
    pub frames_per_look: i64,
    /// looks × framesPerLook.
    pub frames: i64,
    /// frames × perFrame.
    pub total: i64,
    /// The quality priced.
    pub quality: Quality,
}

/// `200` of a plan: nothing is written or held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryPlan {
    /// The standing preset the looks were filled from.
    pub preset: StandingPreset,
    /// The proposed looks, at most 50, in the order their first piece was asked for.
    pub looks: Vec<PlannedLook>,
    /// True when more looks were found than the 50 returned (plan the rest again).
    pub truncated: bool,
    /// The preset names a model that is still a live asset of the house.
    pub model_ready: bool,
    /// What developing the returned looks would cost.
    pub cost: FactoryCost,
    /// Tokens the house can spend now.
    pub balance: i64,
}

/// One look to draft in a factory run. Each missing field has its own code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryLookRequest {
    /// 1 to 120 characters (400 `NAME_REQUIRED`).
    #[serde(default)]
    pub name: Option<String>,
    /// The pieces `[{assetId, role}]`, 1 to 8 (400 `ITEMS_REQUIRED`, `TOO_MANY_ITEMS`, `BAD_ITEM`).
    #[serde(default)]
    #[schemars(schema_with = "super::lookbook::schema::items")]
    pub item_asset_ids: Option<Vec<serde_json::Value>>,
    /// `{kind: preset, value}` or `{kind: asset, assetId}` (400 `BAD_BACKGROUND`).
    #[serde(default)]
    #[schemars(schema_with = "super::lookbook::schema::background")]
    pub background: Option<serde_json::Value>,
    /// The frames planned after the develop-lock, as a variations request takes them: a key
    /// named twice is two takes (400 `KEYS_REQUIRED`, `UNKNOWN_VARIATION`, `TOO_MANY_FRAMES`).
    #[serde(default)]
    #[schemars(schema_with = "super::lookbook::schema::variation_keys")]
    pub variation_keys: Option<Vec<String>>,
}

impl From<&PlannedLook> for FactoryLookRequest {
    fn from(look: &PlannedLook) -> Self {
        FactoryLookRequest {
            name: Some(look.name.clone()),
            item_asset_ids: Some(
                look.item_asset_ids
                    .iter()
                    .map(|i| serde_json::json!({ "assetId": i.asset_id, "role": i.role }))
                    .collect(),
            ),
            background: serde_json::to_value(&look.background).ok(),
            variation_keys: Some(look.variation_keys.clone()),
        }
    }
}

/// `POST /api/toolkit/factory/run`: draft the confirmed looks. Each missing field has its own
/// code; a refusal about one look carries its `lookIndex`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryRunRequest {
    /// The looks, 1 to 50 (400 `LOOKS_REQUIRED`, `TOO_MANY_LOOKS` with `max`).
    #[serde(default)]
    pub looks: Option<Vec<FactoryLookRequest>>,
    /// The model every look wears (400 `MODEL_REQUIRED`; 404 `ASSET_NOT_FOUND`).
    #[serde(default)]
    pub model_asset_id: Option<String>,
    /// One of the composer's presets (400 `BAD_AESTHETIC`).
    #[serde(default)]
    #[schemars(schema_with = "super::lookbook::schema::aesthetic")]
    pub aesthetic: Option<String>,
    /// The quality planned for the batch; the standing preset's when absent.
    #[serde(default)]
    pub quality: Option<Quality>,
    /// The brand the looks are for, or null.
    #[serde(default)]
    pub brand_id: Option<String>,
}

/// One look a run drafted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryRunLook {
    /// The draft look's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The variation frames planned for it, in order.
    pub variation_keys: Vec<String>,
}

/// `201` of a run: the draft looks, in the order asked; nothing was spent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactoryRunResponse {
    /// The batch every look carries (`batchId` on the look).
    pub batch_id: String,
    /// The quality planned for the batch (`plannedQuality` on each look).
    pub quality: Quality,
    /// The looks drafted.
    pub looks: Vec<FactoryRunLook>,
}
