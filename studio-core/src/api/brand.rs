//! Brand on the wire (`02-route-groups.md` §2.5, §2.6, §4.3): the house's visual profile with
//! the clause generators get, the brand DNA read's answer, and the house's marks (renditions of
//! its logo). Clamps, the clause template and the riding rule are in docs/brand.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One signature detail of the house: a category (`cut`, `fabric`, `finish`, ...) and a phrase.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SignatureKeyword {
    /// Lower case, at most 24 characters; `signature` when left blank.
    #[serde(default)]
    pub category: String,
    /// At most 60 characters; never empty.
    #[serde(default)]
    pub phrase: String,
}

/// The house's brand profile (§2.5). A house that never ran a read has the empty defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrandProfile {
    /// The house's vision in English, at most 500 characters.
    pub vision_en: String,
    /// Mood words, at most 8 of at most 32 characters each.
    pub vibe: Vec<String>,
    /// Colours: `#rrggbb` or a lower-case colour name; at most 8.
    pub palette: Vec<String>,
    /// Signature details, at most 10.
    pub signature_keywords: Vec<SignatureKeyword>,
    /// False empties `clause`: develops carry nothing.
    pub inject_enabled: bool,
    /// Successful brand DNA reads so far (the first one is free).
    pub dna_runs: i64,
    /// The exact text develops carry as their `brandClause` option (docs/brand.md); empty when
    /// `injectEnabled` is false or the profile is empty.
    pub clause: String,
    /// The house's colour policy: the space its develops and packs' resized entries are written
    /// in (docs/colour.md).
    #[serde(default)]
    pub colour: BrandColour,
    /// The house's metadata policy: what its develops and packs' resized entries keep of their
    /// input's EXIF, IPTC and XMP (docs/colour.md, "Metadata").
    #[serde(default)]
    pub metadata: BrandMetadata,
}

/// What a house's outputs keep of their input's metadata (docs/colour.md, "Metadata").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MetadataOutput {
    /// The rights and credit fields alone: creator, copyright, credit line, usage terms (the
    /// default); location, device serials and the rest are dropped.
    #[default]
    Rights,
    /// Every EXIF, IPTC and XMP field of the input, its orientation set upright.
    All,
    /// Nothing but the colour profile.
    None,
}

impl MetadataOutput {
    /// The wire spelling: `rights`, `all` or `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            MetadataOutput::Rights => "rights",
            MetadataOutput::All => "all",
            MetadataOutput::None => "none",
        }
    }

    /// The policy of its wire spelling (exactly `rights`, `all` or `none`); `None` otherwise.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "rights" => Some(MetadataOutput::Rights),
            "all" => Some(MetadataOutput::All),
            "none" => Some(MetadataOutput::None),
            _ => None,
        }
    }
}

impl std::fmt::Display for MetadataOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The brand profile's `metadata`: `{output: "rights" | "all" | "none"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandMetadata {
    /// What outputs keep; `rights` by default.
    pub output: MetadataOutput,
}

/// `metadata` in a patch: `output` must be `rights`, `all` or `none` (anything else, or none,
/// is 400 `BAD_METADATA_OUTPUT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandMetadataPatch {
    /// `rights`, `all` or `none`.
    #[serde(default)]
    pub output: String,
}

impl From<MetadataOutput> for BrandMetadataPatch {
    fn from(output: MetadataOutput) -> Self {
        BrandMetadataPatch { output: output.as_str().to_string() }
    }
}

/// The space a house's outputs are written in (docs/colour.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColourOutput {
    /// sRGB, with the sRGB profile embedded (the default).
    #[default]
    Srgb,
    /// The input's own space when it is RGB with a profile (Adobe RGB, Display P3, ...), its
    /// profile embedded; sRGB otherwise.
    Keep,
}

impl ColourOutput {
    /// The wire spelling: `srgb` or `keep`.
    pub fn as_str(self) -> &'static str {
        match self {
            ColourOutput::Srgb => "srgb",
            ColourOutput::Keep => "keep",
        }
    }

    /// The policy of its wire spelling (exactly `srgb` or `keep`); `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "srgb" => Some(ColourOutput::Srgb),
            "keep" => Some(ColourOutput::Keep),
            _ => None,
        }
    }
}

impl std::fmt::Display for ColourOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The brand profile's `colour`: `{output: "srgb" | "keep"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandColour {
    /// The space outputs are written in; `srgb` by default.
    pub output: ColourOutput,
}

/// `colour` in a patch: `output` must be `srgb` or `keep` (anything else, or none, is 400
/// `BAD_COLOUR_OUTPUT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandColourPatch {
    /// `srgb` or `keep`.
    #[serde(default)]
    pub output: String,
}

impl From<ColourOutput> for BrandColourPatch {
    fn from(output: ColourOutput) -> Self {
        BrandColourPatch { output: output.as_str().to_string() }
    }
}

/// `GET` and `PATCH /api/toolkit/brand`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandResponse {
    /// Always true.
    pub ok: bool,
    /// The profile.
    pub profile: BrandProfile,
}

/// `PATCH /api/toolkit/brand`: any of the fields; each given one replaces the stored one, then
/// the whole profile is clamped as a read's answer is. `dnaRuns` and `clause` are not fields
/// of a patch (sent, they are ignored); `colour.output` and `metadata.output` are checked, not
/// clamped (400 `BAD_COLOUR_OUTPUT`, `BAD_METADATA_OUTPUT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BrandPatch {
    /// The vision in English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vision_en: Option<String>,
    /// Mood words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vibe: Option<Vec<String>>,
    /// Colours: `#rgb`, `#rrggbb` or a colour name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub palette: Option<Vec<String>>,
    /// Signature details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_keywords: Option<Vec<SignatureKeyword>>,
    /// Whether develops carry the clause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inject_enabled: Option<bool>,
    /// The colour policy: `{"output": "srgb" | "keep"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<BrandColourPatch>,
    /// The metadata policy: `{"output": "rights" | "all" | "none"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BrandMetadataPatch>,
}

/// `POST /api/toolkit/brand/dna`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BrandDnaResponse {
    /// Always true.
    pub ok: bool,
    /// The profile the read left.
    pub profile: BrandProfile,
    /// Tokens this read cost: 0 for the house's first successful read, 2 after.
    pub charged: i64,
}

/// A registered rendition of the house's mark (§2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    /// Id (`mark_…`).
    pub id: String,
    /// The library asset holding the rendition.
    pub asset_id: String,
    /// The collection (folder) it is registered for; null at house level.
    pub collection_id: Option<String>,
    /// What it is made of or printed as (`woven label`, `gold foil`, ...).
    pub material: String,
    /// Where it sits on a frame.
    pub placement: Option<String>,
    /// A free note.
    pub note: Option<String>,
    /// Lower rides first.
    pub sort_order: i64,
    /// The asset's name.
    pub filename: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
}

/// Which set rides a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Riding {
    /// The house's set.
    House,
    /// The collection's set, which overrides the house's whole.
    Collection,
}

/// `GET /api/toolkit/brand/marks?collectionId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MarkList {
    /// The house-level set, lowest sortOrder first.
    pub house: Vec<Mark>,
    /// The collection's set (empty without `collectionId`).
    pub collection: Vec<Mark>,
    /// `collection` when a collection was named and its set is not empty, else `house`.
    pub riding: Riding,
}

/// The query of `GET /api/toolkit/brand/marks`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarksQuery {
    /// A collection (folder) of the house; 404 when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
}

/// `POST /api/toolkit/brand/marks`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMarkRequest {
    /// A live asset of the house, uploaded first through the asset upload route (required).
    #[serde(default)]
    pub asset_id: Option<String>,
    /// Required, at most 60 characters.
    #[serde(default)]
    pub material: Option<String>,
    /// At most 120 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// At most 500 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Lower rides first; 0 when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_order: Option<i64>,
    /// Register for this collection (folder) rather than the house.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collection_id: Option<String>,
}

/// Deserialise a field that may be absent (None), null (Some(None)) or a value (Some(Some)).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// `PATCH /api/toolkit/brand/marks/{id}`: absent fields stay; null clears placement and note;
/// material cannot be cleared (400 `BAD_MATERIAL`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarkPatch {
    /// New material (not null, not blank).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub material: Option<Option<String>>,
    /// New placement; null clears it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub placement: Option<Option<String>>,
    /// New note; null clears it.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub note: Option<Option<String>>,
    /// New order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_order: Option<i64>,
}

/// A mark, as created or changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MarkResponse {
    /// The mark.
    pub mark: Mark,
}

/// `DELETE /api/toolkit/brand/marks/{id}`: the mark is unregistered; its asset stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MarkDeleted {
    /// Always true.
    pub ok: bool,
    /// The mark's id.
    pub id: String,
}
