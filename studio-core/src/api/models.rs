//! Casting on the wire: the AI reads of a person (read_model, read_build) and the models a
//! house keeps so later develops cast them by id (cast_model; spec D1 §4.2, D2 §2.4).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// read_model: the reference frames of one person, read for their look. Costs 1 token.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadModelRequest {
    /// 1 to 6 distinct live assets of the house showing the same person.
    #[serde(default)]
    pub asset_ids: Vec<String>,
}

/// What read_model saw. Every field is a short description; a field the reader left out is
/// an empty string (or an empty list).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelReading {
    /// Apparent age (`mid-20s`).
    pub age: String,
    /// Skin tone and undertone.
    pub skin: String,
    /// Eye colour and shape.
    pub eyes: String,
    /// Hair colour, length, texture and style.
    pub hair: String,
    /// Other distinctive visible features (freckles, a tattoo, glasses, ...).
    pub extras: Vec<String>,
    /// Tokens charged (1).
    pub tokens: i64,
}

/// read_build: one full-length photograph, read for the body. Costs 1 token.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadBuildRequest {
    /// A live asset of the house: a full-length photograph of one person.
    #[serde(default)]
    pub asset_id: String,
}

/// What read_build saw; a field the reader left out is an empty string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuildReading {
    /// Apparent height.
    pub height: String,
    /// Body build and proportions.
    pub build: String,
    /// How the person carries themselves in frame.
    pub presence: String,
    /// Posture.
    pub posture: String,
    /// The hands as seen (size, nails, rings, ...).
    pub hands: String,
    /// Tokens charged (1).
    pub tokens: i64,
}

/// cast_model: keep a model so later develops cast it by id. Free.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CastModelRequest {
    /// Required; 1 to 200 characters after trimming.
    #[serde(default)]
    pub name: String,
    /// The reference frames, each once: 1 to 24 live assets of the house. The first is the
    /// one a develop casts.
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// Optional traits, such as the fields read_model and read_build returned (`extras` joined).
    /// At most 32; keys 1 to 64 characters, values up to 2,000 (a blank value is kept).
    #[serde(default)]
    pub traits: Option<BTreeMap<String, String>>,
}

/// A model the house keeps (the smallest form of D2 §2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeptModel {
    /// Opaque id (`mdl_…`); a develop input naming it casts its first frame.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Always `yours`: a model the house cast itself.
    pub tier: String,
    /// The reference frames, in order.
    pub asset_ids: Vec<String>,
    /// The first frame's file URL.
    pub cover_url: String,
    /// Traits as given when cast.
    pub traits: BTreeMap<String, String>,
    /// When it was cast.
    pub created_at: DateTime<Utc>,
}

/// Every model the house keeps, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelList {
    /// The models.
    pub models: Vec<KeptModel>,
}

/// One model, as cast or read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelResponse {
    /// The model.
    pub model: KeptModel,
}
