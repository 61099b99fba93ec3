//! Models and their market: a house's own models (cast_model, `models/own`), the catalog a
//! platform admin publishes (free, sale, exclusive), claims (a house's pending purchase of one
//! offering), holdings (what a house acquired) and the cases of payments that could not become
//! a holding. The rows and the `ModelStore` trait.

use crate::ids::{AssetId, CaseId, EntitlementId, ModelId, OrgId, ProviderRef, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A model: a house's own (`tier = yours`) or a catalog offering (free, sale, exclusive).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ModelRow {
    /// Id (`mdl_…`).
    pub id: ModelId,
    /// The owning house; for a catalog offering, the publishing admin's house (its frames).
    pub org_id: OrgId,
    /// Who cast or published it.
    pub created_by: Option<UserId>,
    /// Name, 1 to 200 characters (a CHECK constraint).
    pub name: String,
    /// The original reference frames (asset ids of `org_id`), as a JSON array.
    pub asset_ids: String,
    /// Traits, as a JSON object (string or string-array values).
    pub traits: String,
    /// Cast or publish time.
    pub created_at: DateTime<Utc>,
    /// yours, free, sale or exclusive (a CHECK constraint).
    pub tier: String,
    /// Price in cents (0 unless sale or exclusive).
    pub price_cents: i64,
    /// ISO currency, lower case.
    pub currency: String,
    /// A line for the board (catalog offerings).
    pub note: String,
    /// The identity collage, first of the identity frames, when the model has one.
    pub collage_asset_id: Option<AssetId>,
    /// Identity sheets, JSON array: after the collage, before the originals.
    pub sheet_asset_ids: String,
    /// When a catalog offering was retired (no new claims or takes; holdings stay).
    pub retired_at: Option<DateTime<Utc>>,
    /// Last patch.
    pub updated_at: Option<DateTime<Utc>>,
}

/// A model as one house sees it on the board.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BoardModelRow {
    /// The model.
    #[sqlx(flatten)]
    pub model: ModelRow,
    /// The house holds it (a live holding).
    pub owned: bool,
}

/// A catalog offering with what the platform knows of it (admin list).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CatalogRow {
    /// The model.
    #[sqlx(flatten)]
    pub model: ModelRow,
    /// Live holdings of it.
    pub holders: i64,
    /// Live (pending, unexpired) claims on it.
    pub open_claims: i64,
}

/// A pending purchase of one offering by one house.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ClaimRow {
    /// Our reference (`clm_…`), the checkout's reference at the provider.
    pub reference: String,
    /// The buying house.
    pub org_id: OrgId,
    /// The owner who clicked.
    pub user_id: Option<UserId>,
    /// Offering kind (`model`).
    pub kind: String,
    /// The offering.
    pub offering_id: String,
    /// An exclusive face (one owner).
    pub exclusive: bool,
    /// Price in cents.
    pub price_cents: i64,
    /// Currency.
    pub currency: String,
    /// pending, paid, released, expired or lapsed (paid after it had expired or been released).
    pub status: crate::storage::ClaimStatus,
    /// The provider's checkout page, once created.
    pub checkout_url: Option<String>,
    /// The provider's checkout id.
    pub provider_id: Option<String>,
    /// The payment, once paid.
    pub payment_id: Option<String>,
    /// When the claim (and its checkout) expires.
    pub expires_at: DateTime<Utc>,
    /// Claim time.
    pub created_at: DateTime<Utc>,
    /// When it left `pending`.
    pub resolved_at: Option<DateTime<Utc>>,
}

/// A holding: an offering a house acquired.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct EntitlementRow {
    /// Id (`ent_…`).
    pub id: EntitlementId,
    /// The house.
    pub org_id: OrgId,
    /// Offering kind (`model`).
    pub kind: String,
    /// The offering.
    pub offering_id: String,
    /// The offering's name when acquired.
    pub name: String,
    /// purchase, free or grant.
    pub source: String,
    /// Price paid, in cents.
    pub price_cents: i64,
    /// Currency.
    pub currency: String,
    /// The claim reference a purchase was paid under.
    pub payment_ref: Option<String>,
    /// An exclusive face.
    pub exclusive: bool,
    /// Acquisition time.
    pub acquired_at: DateTime<Utc>,
    /// Revocation time (admin).
    pub revoked_at: Option<DateTime<Utc>>,
    /// The admin who revoked it.
    pub revoked_by: Option<String>,
    /// Why.
    pub revoke_reason: Option<String>,
}

/// A payment that could not become a holding.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct EntitlementCaseRow {
    /// Id (`case_…`).
    pub id: CaseId,
    /// The claim paid.
    pub reference: String,
    /// The paying house.
    pub org_id: OrgId,
    /// The provider's payment.
    pub payment_id: Option<String>,
    /// Paid, in cents.
    pub amount_cents: i64,
    /// Currency.
    pub currency: String,
    /// claim_expired, claim_released, underpaid, taken or already_held.
    pub reason: String,
    /// review or refunded.
    pub status: crate::storage::CaseStatus,
    /// Recorded.
    pub created_at: DateTime<Utc>,
    /// Refunded or reviewed.
    pub resolved_at: Option<DateTime<Utc>>,
}

/// A claim to attempt.
#[derive(Debug, Clone)]
pub struct NewClaim {
    /// The claim, status `pending`, no checkout yet.
    pub claim: ClaimRow,
    /// Now: pending claims on this offering that expired at or before it are marked expired.
    pub now: DateTime<Utc>,
    /// A pending claim made before this that still has no checkout (its request died between
    /// the claim and the provider's answer) is marked expired too.
    pub stale_before: DateTime<Utc>,
}

/// What a claim attempt did.
#[derive(Debug, Clone, PartialEq)]
pub enum ClaimOutcome {
    /// The claim is recorded; the caller creates its checkout.
    Claimed(ClaimRow),
    /// This house already has a live claim on it (a double click): that claim.
    Existing(ClaimRow),
    /// The house already holds it.
    AlreadyHeld,
    /// Another house holds or claims this exclusive face.
    Taken,
    /// The offering is retired, not priced, or not in the catalog.
    NotForSale,
}

/// What granting a holding did.
#[derive(Debug, Clone, PartialEq)]
pub enum GrantOutcome {
    /// The holding.
    Granted(Box<EntitlementRow>),
    /// The house already holds it.
    AlreadyHeld,
    /// Another house holds this exclusive face.
    Taken,
}

/// Models and their market.
#[async_trait::async_trait]
pub trait ModelStore: Send + Sync {
    /// Store a new model (a house's own, or a catalog offering).
    async fn insert_model(&self, model: ModelRow) -> Result<(), StorageError>;
    /// Every model `org_id` may see at `now`: its own, and catalog offerings that are live (or
    /// retired but held by it), minus exclusive faces another house holds or claims.
    async fn board_models(&self, org_id: &OrgId, now: DateTime<Utc>) -> Result<Vec<BoardModelRow>, StorageError>;
    /// One model of the board of `org_id`, or None when out of its scope.
    async fn board_model(
        &self,
        org_id: &OrgId,
        id: &ModelId,
        now: DateTime<Utc>,
    ) -> Result<Option<BoardModelRow>, StorageError>;
    /// Patch a house's own model in one locked step: `sheets` appended to its sheets (after
    /// those already there), `traits` (a JSON object) merged key by key into its traits.
    /// None when the house has no such own model.
    async fn patch_model(
        &self,
        org_id: &OrgId,
        id: &ModelId,
        sheets: &[String],
        traits: &serde_json::Map<String, serde_json::Value>,
        now: DateTime<Utc>,
    ) -> Result<Option<ModelRow>, StorageError>;
    /// Every catalog offering, retired included, newest first, `limit` after the cursor id.
    async fn catalog(
        &self,
        after: Option<&str>,
        limit: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<CatalogRow>, StorageError>;
    /// One catalog offering with its counts.
    async fn catalog_offering(&self, id: &ModelId, now: DateTime<Utc>) -> Result<Option<CatalogRow>, StorageError>;
    /// Retire a catalog offering; None when there is no such offering.
    async fn retire_offering(&self, id: &ModelId, now: DateTime<Utc>) -> Result<Option<ModelRow>, StorageError>;
    /// Claim an offering for a house (see [`ClaimOutcome`]), under the offering's lock.
    async fn claim_offering(&self, claim: NewClaim) -> Result<ClaimOutcome, StorageError>;
    /// The provider created the claim's checkout, which lapses at `expires_at` (the claim with it).
    async fn claim_checkout_created(
        &self,
        reference: &str,
        url: &str,
        provider_id: &ProviderRef,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StorageError>;
    /// Release a pending claim (its checkout could not be created).
    async fn release_claim(&self, reference: &str, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// A claim by reference.
    async fn claim(&self, reference: &str) -> Result<Option<ClaimRow>, StorageError>;
    /// Grant a holding outright (a free take), under the offering's lock.
    async fn grant_entitlement(&self, holding: EntitlementRow) -> Result<GrantOutcome, StorageError>;
    /// A house's live holdings (newest first) and its open claims (pending, unexpired at `now`).
    async fn entitlements(
        &self,
        org_id: &OrgId,
        now: DateTime<Utc>,
    ) -> Result<(Vec<EntitlementRow>, Vec<ClaimRow>), StorageError>;
    /// Every holding (revoked included), newest first, `limit` after the cursor id, optionally
    /// of one house.
    async fn all_entitlements(
        &self,
        org_id: Option<&OrgId>,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<EntitlementRow>, StorageError>;
    /// Payment cases, newest first (at most `limit`).
    async fn entitlement_cases(&self, limit: i64) -> Result<Vec<EntitlementCaseRow>, StorageError>;
    /// Mark a case refunded.
    async fn case_refunded(&self, id: &CaseId, now: DateTime<Utc>) -> Result<(), StorageError>;
    /// Revoke a live holding; None when there is no live holding with that id.
    async fn revoke_entitlement(
        &self,
        id: &EntitlementId,
        by: &str,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Option<EntitlementRow>, StorageError>;
}
