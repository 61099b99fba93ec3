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

/// A trait's value: a short text (a blank text is a real answer), or a list of texts
/// (`marks`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TraitValue {
    /// One text.
    Text(String),
    /// Several texts.
    List(Vec<String>),
}

/// cast_model: keep a model so later develops cast it by id. Free.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CastModelRequest {
    /// Required; 1 to 200 characters after trimming.
    #[serde(default)]
    pub name: String,
    /// The reference frames, each once: 1 to 24 live assets of the house. The first is the
    /// one a develop casts (after the collage, when there is one).
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// Optional traits, such as the fields read_model and read_build returned. At most 32;
    /// keys 1 to 64 characters, values up to 2,000 characters (a blank value is kept) or
    /// lists of up to 32 such texts.
    #[serde(default)]
    pub traits: Option<BTreeMap<String, TraitValue>>,
    /// Optional identity collage: a live asset of the house shown and cast first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collage_asset_id: Option<String>,
}

/// `PATCH /api/toolkit/models/{id}`: a house's own model only. Free.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPatch {
    /// Identity sheets to add: live assets of the house, inserted after the collage and the
    /// sheets already there and before the originals. A frame already in the identity is
    /// skipped.
    #[serde(default)]
    pub sheet_asset_ids: Option<Vec<String>>,
    /// Traits merged key by key into the model's (never replaced); a blank text is a real
    /// correction.
    #[serde(default)]
    pub traits: Option<BTreeMap<String, TraitValue>>,
}

/// A model on the casting board (D2 §2.4): the house's own, or a catalog offering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Opaque id (`mdl_…`); a develop input naming it casts its first identity frame.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `yours` (the house cast it), `free`, `sale` or `exclusive` (the catalog).
    pub tier: String,
    /// Price in cents (0 for yours and free).
    pub price_cents: i64,
    /// ISO currency, lower case.
    pub currency: String,
    /// The first identity frame's image.
    pub cover_url: String,
    /// Every identity frame's image, in identity order.
    pub preview_urls: Vec<String>,
    /// The house holds it (bought or taken).
    pub owned: bool,
    /// The house cast it itself.
    pub mine: bool,
    /// Develops may cast it: mine, owned or free.
    pub usable: bool,
    /// An exclusive face this house holds.
    pub exclusive_yours: bool,
    /// A line from the catalog (empty for the house's own).
    pub note: String,
    /// The original reference frames (the house's own models only; empty otherwise).
    pub asset_ids: Vec<String>,
    /// Identity sheets (own models only).
    pub sheet_asset_ids: Vec<String>,
    /// The identity collage (own models only), when there is one.
    pub collage_asset_id: Option<String>,
    /// Collage, sheets, originals: the order develops read identity in (own models only).
    pub identity_asset_ids: Vec<String>,
    /// Traits (height, build, presence, posture, hands, marks, face fields, ...).
    pub traits: BTreeMap<String, TraitValue>,
    /// When it was cast or published.
    pub created_at: DateTime<Utc>,
}

/// The casting board: yours (cast or held), then free, sale, exclusive; newest first within each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelList {
    /// The models.
    pub models: Vec<Model>,
}

/// One model, as cast, read or patched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelResponse {
    /// The model.
    pub model: Model,
}

/// `POST /api/toolkit/models/{id}/checkout` (and a priced explore take): a checkout for the
/// owner to pay. Nothing is granted here: only the signed payment webhook grants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCheckout {
    /// Always true.
    pub ok: bool,
    /// Where the owner pays.
    pub url: String,
    /// True when this is the house's checkout already open (a double click).
    pub pending: bool,
    /// Always false: a house that already holds the model is answered 400 `ALREADY_YOURS`.
    pub already: bool,
    /// The model.
    pub model: Model,
}

/// `POST /api/toolkit/explore/{kind}/{id}/take`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TakeResponse {
    /// Always true.
    pub ok: bool,
    /// The checkout to pay for a priced offering; empty when a free one was granted now.
    pub url: String,
    /// True when a checkout is open (the grant waits for the payment).
    pub pending: bool,
}

/// An offering of the catalog (D2 §2.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Offering {
    /// `model` (the only kind on sale today).
    pub kind: String,
    /// The offering's id (a model id).
    pub id: String,
    /// Name.
    pub name: String,
    /// A line about it.
    pub note: String,
    /// Its cover image.
    pub preview_url: String,
    /// Price in cents (0 when free).
    pub price_cents: i64,
    /// Currency.
    pub currency: String,
    /// The house holds it.
    pub owned: bool,
    /// One house at a time may hold it.
    pub exclusive: bool,
}

/// `GET /api/toolkit/explore`: what the catalog offers this house now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OfferingList {
    /// The offerings, free first, then by price, newest first within a price.
    pub offerings: Vec<Offering>,
}

/// A holding (D2 §2.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Holding {
    /// Id (`ent_…`).
    pub id: String,
    /// Offering kind.
    pub kind: String,
    /// The offering.
    pub offering_id: String,
    /// Its name when acquired.
    pub name: String,
    /// `purchase` (paid through the webhook), `free` (taken) or `grant`.
    pub source: String,
    /// Paid, in cents.
    pub price_cents: i64,
    /// Currency.
    pub currency: String,
    /// The provider's payment (purchases).
    pub payment_ref: Option<String>,
    /// An exclusive face.
    pub exclusive: bool,
    /// When acquired.
    pub acquired_at: DateTime<Utc>,
}

/// An open checkout (D2 §2.10): pending and unexpired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenCheckout {
    /// Offering kind.
    pub kind: String,
    /// The offering.
    pub offering_id: String,
    /// Where to pay (empty while the provider is still creating it).
    pub checkout_url: String,
    /// When the claim and its checkout expire.
    pub expires_at: DateTime<Utc>,
}

/// `GET /api/toolkit/entitlements`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Entitlements {
    /// What the house holds (granted only).
    pub holdings: Vec<Holding>,
    /// Its checkouts still open.
    pub open: Vec<OpenCheckout>,
}

/// `POST /api/toolkit/admin/offerings`: publish a model from frames of the admin's own house.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfferingCreate {
    /// `model`.
    #[serde(default)]
    pub kind: String,
    /// Required, 1 to 200 characters.
    #[serde(default)]
    pub name: String,
    /// A line for the board, up to 500 characters.
    #[serde(default)]
    pub note: Option<String>,
    /// 0 for a free model; otherwise 50 to 1,000,000 cents.
    #[serde(default)]
    pub price_cents: i64,
    /// `usd` (the default; checkouts charge US dollars).
    #[serde(default)]
    pub currency: Option<String>,
    /// One house at a time (priced only).
    #[serde(default)]
    pub exclusive: bool,
    /// 1 to 24 live assets of the admin's own house: the originals.
    #[serde(default)]
    pub asset_ids: Vec<String>,
    /// Optional collage (a live asset of the admin's house).
    #[serde(default)]
    pub collage_asset_id: Option<String>,
    /// Optional traits.
    #[serde(default)]
    pub traits: Option<BTreeMap<String, TraitValue>>,
}

/// A catalog offering as the admin console lists it: one object, the same in the list, the
/// create and the retire answers (what explore shows a house, less `owned`, plus what the
/// platform knows of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminOffering {
    /// The offering's id (a model id).
    pub id: String,
    /// `model` (the only kind on sale today).
    pub kind: String,
    /// Name.
    pub name: String,
    /// A line about it.
    pub note: String,
    /// Its cover image.
    pub preview_url: String,
    /// Price in cents (0 when free).
    pub price_cents: i64,
    /// Currency.
    pub currency: String,
    /// One house at a time may hold it.
    pub exclusive: bool,
    /// free, sale or exclusive.
    pub tier: String,
    /// Live holdings.
    pub holders: i64,
    /// Open claims.
    pub open_claims: i64,
    /// When retired (no new claims or takes; holdings stay).
    pub retired_at: Option<DateTime<Utc>>,
    /// When published.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/admin/offerings`: paged, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminOfferingList {
    /// A page.
    pub offerings: Vec<AdminOffering>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// One offering (create or retire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AdminOfferingResponse {
    /// The offering.
    pub offering: AdminOffering,
}

/// A holding as the admin console lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminHolding {
    /// The holding.
    #[serde(flatten)]
    pub holding: Holding,
    /// The house.
    pub organization_id: String,
    /// When revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Why.
    pub revoke_reason: Option<String>,
}

/// A payment that could not become a holding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentCase {
    /// Id (`case_…`).
    pub id: String,
    /// The claim paid.
    pub reference: String,
    /// The paying house.
    pub organization_id: String,
    /// The provider's payment.
    pub payment_id: Option<String>,
    /// Paid, in cents.
    pub amount_cents: i64,
    /// Currency.
    pub currency: String,
    /// `claim_expired`, `claim_released`, `taken` or `already_held`.
    pub reason: String,
    /// `refunded` (through the provider) or `review` (a person must refund it).
    pub status: String,
    /// Recorded.
    pub created_at: DateTime<Utc>,
}

/// `GET /api/toolkit/admin/entitlements`: holdings paged newest first, and the latest cases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminEntitlements {
    /// A page of holdings, revoked included.
    pub holdings: Vec<AdminHolding>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
    /// The 100 latest payment cases.
    pub cases: Vec<PaymentCase>,
}

/// `POST /api/toolkit/admin/entitlements/revoke`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevokeEntitlement {
    /// The holding (`ent_…`).
    #[serde(default)]
    pub id: String,
    /// Why (kept with the holding, up to 500 characters).
    #[serde(default)]
    pub reason: Option<String>,
}

/// A revoked holding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RevokedEntitlement {
    /// Always true.
    pub ok: bool,
    /// The holding, now revoked.
    pub holding: AdminHolding,
}

/// A page of an admin list: `?limit=&cursor=&house=`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminPageQuery {
    /// 1 to 200 (default 50).
    pub limit: Option<i64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// Only this house (an organization id), where the list is of houses' things.
    pub house: Option<String>,
}
