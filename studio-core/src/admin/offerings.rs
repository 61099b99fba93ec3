//! The catalog and what houses hold, for platform admins (D2 §4.12): offerings list, create
//! and retire; entitlements list (with the payment cases) and revoke.
//!
//! An offering is a model published from frames of the admin's own house: the frames stay in
//! that library and are served to other houses only through the model's preview route and to
//! develops that may cast it. Retiring stops new claims and takes; holdings stay usable.
//! Revoking a holding takes the model off that house's board and frees an exclusive face.

use super::Admin;
use crate::api::{
    AdminEntitlements, AdminHolding, AdminOffering, AdminOfferingList, AdminOfferingResponse, AdminPageQuery,
    CastModelRequest, OfferingCreate, PaymentCase, RevokeEntitlement, RevokedEntitlement,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::ids::{EntitlementId, ModelId, OrgId};
use crate::models::{KIND_MODEL, holding_view};
use crate::storage::{CatalogRow, EntitlementRow};

/// Cheapest priced offering, in cents.
const MIN_PRICE_CENTS: i64 = 50;
/// Dearest offering, in cents.
const MAX_PRICE_CENTS: i64 = 1_000_000;
/// Longest note.
const MAX_NOTE_CHARS: usize = 500;
/// Payment cases shown beside the holdings.
const CASES_SHOWN: i64 = 100;

fn admin_holding(e: EntitlementRow) -> AdminHolding {
    AdminHolding {
        organization_id: e.org_id.to_string(),
        revoked_at: e.revoked_at,
        revoke_reason: e.revoke_reason.clone(),
        holding: holding_view(e),
    }
}

impl Admin<'_> {
    fn offering_view(&self, row: CatalogRow) -> AdminOffering {
        let CatalogRow { model: m, holders, open_claims } = row;
        AdminOffering {
            kind: KIND_MODEL.to_string(),
            preview_url: format!("{}/api/toolkit/models/{}/preview/0", self.studio.config.public_url, m.id),
            exclusive: m.tier == "exclusive",
            id: m.id.into(),
            name: m.name,
            note: m.note,
            price_cents: m.price_cents,
            currency: m.currency,
            tier: m.tier,
            holders,
            open_claims,
            retired_at: m.retired_at,
            created_at: m.created_at,
        }
    }

    /// Every offering, retired included, newest first, a page at a time.
    pub async fn offerings(&self, _admin: &PlatformAdmin, q: AdminPageQuery) -> Result<AdminOfferingList> {
        let (limit, cursor) = super::page(q.limit, q.cursor.as_deref(), "mdl_")?;
        let mut rows = self.studio.models().catalog(cursor.as_deref(), limit + 1, crate::ids::now()).await?;
        let next_cursor = (rows.len() as i64 > limit).then(|| rows[limit as usize - 1].model.id.clone());
        rows.truncate(limit as usize);
        Ok(AdminOfferingList {
            offerings: rows.into_iter().map(|r| self.offering_view(r)).collect(),
            next_cursor: next_cursor.map(String::from),
        })
    }

    /// Publish a model from live assets of the admin's own house: free (price 0), for sale, or
    /// exclusive (priced only). 400 `BAD_KIND`, `NAME_REQUIRED`, `BAD_BODY`, `BAD_PRICE`,
    /// `BAD_CURRENCY`, `BAD_ASSET_IDS`; 404 `ASSET_NOT_FOUND`.
    pub async fn create_offering(&self, admin: &PlatformAdmin, req: OfferingCreate) -> Result<AdminOfferingResponse> {
        if req.kind.trim() != KIND_MODEL {
            return Err(Error::invalid("BAD_KIND", "kind is model (the only kind on sale)."));
        }
        let price = req.price_cents;
        if price != 0 && !(MIN_PRICE_CENTS..=MAX_PRICE_CENTS).contains(&price) {
            return Err(Error::invalid(
                "BAD_PRICE",
                format!("priceCents is 0 (free) or {MIN_PRICE_CENTS} to {MAX_PRICE_CENTS}."),
            ));
        }
        if price == 0 && req.exclusive {
            return Err(Error::invalid("BAD_PRICE", "An exclusive face has a price."));
        }
        // Checkouts charge in the provider's currency, US dollars: an offering priced in another
        // would be charged as dollars, so it is refused.
        let currency = req.currency.as_deref().map(str::trim).unwrap_or("usd").to_lowercase();
        if currency != "usd" {
            return Err(Error::invalid("BAD_CURRENCY", "Offerings are priced in usd, the currency checkouts charge."));
        }
        let note = req.note.as_deref().map(str::trim).unwrap_or_default().to_string();
        if note.chars().count() > MAX_NOTE_CHARS {
            return Err(Error::invalid("BAD_BODY", format!("A note is at most {MAX_NOTE_CHARS} characters.")));
        }
        let home = self.studio.accounts().home_seat(admin.user_id()).await?;
        let org_id = home
            .map(|s| s.org_id)
            .ok_or_else(|| Error::invalid("BAD_BODY", "The admin has no house whose frames the offering could use."))?;
        let cast = CastModelRequest {
            name: req.name,
            asset_ids: req.asset_ids,
            traits: req.traits,
            collage_asset_id: req.collage_asset_id,
        };
        let mut row = self.studio.models().model_row(&org_id, admin.user_id(), cast).await?;
        row.tier = match (price, req.exclusive) {
            (0, _) => "free",
            (_, true) => "exclusive",
            _ => "sale",
        }
        .to_string();
        row.price_cents = price;
        row.currency = currency;
        row.note = note;
        self.studio.models().add_model(row.clone()).await?;
        let offering = self.offering_view(CatalogRow { model: row, holders: 0, open_claims: 0 });
        Ok(AdminOfferingResponse { offering })
    }

    /// Retire an offering (idempotent): no new claims or takes; holdings stay. 404
    /// `OFFERING_NOT_FOUND`.
    pub async fn retire_offering(&self, _admin: &PlatformAdmin, id: &ModelId) -> Result<AdminOfferingResponse> {
        let now = crate::ids::now();
        let row = self
            .studio
            .models()
            .retire_offering(&ModelId::from(id.trim()), now)
            .await?
            .ok_or_else(|| Error::not_found("OFFERING_NOT_FOUND", format!("No offering {id:?}.")))?;
        let counted = self.studio.models().catalog_offering(&row.id, now).await?;
        let row = counted.unwrap_or(CatalogRow { model: row, holders: 0, open_claims: 0 });
        Ok(AdminOfferingResponse { offering: self.offering_view(row) })
    }

    /// Every holding, revoked included, newest first, a page at a time (optionally of one
    /// house), with the latest payment cases.
    pub async fn entitlements(&self, _admin: &PlatformAdmin, q: AdminPageQuery) -> Result<AdminEntitlements> {
        let (limit, cursor) = super::page(q.limit, q.cursor.as_deref(), "ent_")?;
        let house = q.house.as_deref().map(str::trim).filter(|h| !h.is_empty()).map(OrgId::from);
        let house = house.as_ref();
        let mut rows = self.studio.models().all_entitlements(house, cursor.as_deref(), limit + 1).await?;
        let next_cursor = (rows.len() as i64 > limit).then(|| rows[limit as usize - 1].id.to_string());
        rows.truncate(limit as usize);
        let cases = self.studio.models().entitlement_cases(CASES_SHOWN).await?;
        Ok(AdminEntitlements {
            holdings: rows.into_iter().map(admin_holding).collect(),
            next_cursor,
            cases: cases
                .into_iter()
                .map(|c| PaymentCase {
                    id: c.id.into(),
                    reference: c.reference,
                    organization_id: c.org_id.to_string(),
                    payment_id: c.payment_id,
                    amount_cents: c.amount_cents,
                    currency: c.currency,
                    reason: c.reason,
                    status: c.status.to_string(),
                    created_at: c.created_at,
                })
                .collect(),
        })
    }

    /// Revoke a live holding (the model leaves that house's board; an exclusive face is free
    /// again). Nothing is refunded here. 400 `ID_REQUIRED`; 404 `ENTITLEMENT_NOT_FOUND`.
    pub async fn revoke_entitlement(
        &self,
        admin: &PlatformAdmin,
        req: RevokeEntitlement,
    ) -> Result<RevokedEntitlement> {
        let id = req.id.trim();
        if id.is_empty() {
            return Err(Error::invalid("ID_REQUIRED", "Name the holding with id."));
        }
        let reason =
            req.reason.map(|r| r.trim().chars().take(MAX_NOTE_CHARS).collect::<String>()).filter(|r| !r.is_empty());
        let row = self
            .studio
            .models()
            .revoke_entitlement(&EntitlementId::from(id), admin.user_id(), reason.as_deref(), crate::ids::now())
            .await?
            .ok_or_else(|| Error::not_found("ENTITLEMENT_NOT_FOUND", format!("No live holding {id:?}.")))?;
        Ok(RevokedEntitlement { ok: true, holding: admin_holding(row) })
    }
}
