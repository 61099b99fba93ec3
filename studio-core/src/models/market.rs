//! Buying from the catalog (D2 §4.7): a model's checkout, explore's offerings and takes, the
//! house's entitlements, and what happens to a paid claim that cannot become a holding.
//!
//! Rules kept here (docs/models.md has the reasoning):
//! - Money is an owner's session only (`role_cannot_spend_money`); a free take is any role but
//!   viewer, since it spends nothing and only adds to the house's board.
//! - The order is claim (a row under the offering's lock: one live claim per house and, for an
//!   exclusive face, one in all), create the provider's checkout, and on the provider's failure
//!   release the claim. Nothing is granted here: only the signed `payment.succeeded` delivery
//!   for the claim's reference makes a holding (`source: purchase`), in the webhook's
//!   transaction, and the partial unique indexes of the holdings table make a second owner of
//!   an exclusive face impossible whatever arrives late.
//! - A claim expires with its checkout (`claim_secs`, one hour by default). A payment for a
//!   claim that expired or was released, or for a face another house now holds, becomes a case:
//!   refunded through the provider when it can, otherwise left for a person (`review`).

use chrono::{DateTime, Utc};

use crate::api::{Entitlements, Holding, ModelCheckout, Offering, OfferingList, OpenCheckout, TakeResponse};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{EntitlementId, ModelId, OrgId, ProviderRef, new_id};
use crate::models::Models;
use crate::payments::{CheckoutRequest, Purchase};
use crate::storage::{
    BoardModelRow, CatalogRow, ClaimOutcome, ClaimRow, EntitlementCaseRow, EntitlementRow, GrantOutcome, ModelRow,
    NewClaim,
};

/// The only offering kind on sale today.
pub(crate) const KIND_MODEL: &str = "model";
/// A claim still without its checkout this long after it was made is stale (its request died
/// between the claim and the provider's answer): the next claim on the offering expires it.
const STALE_CLAIM_SECS: i64 = 60;

/// How a refused purchase is reported: the model checkout answers 400 for what cannot be
/// sold, explore's take 503 (the spec's two routes differ).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Door {
    Checkout,
    Take,
}

fn taken() -> Error {
    Error::conflict("TAKEN", "Another house holds or is buying this exclusive face.")
}

fn not_for_sale(door: Door) -> Error {
    let message = "This offering is not for sale.";
    match door {
        Door::Checkout => Error::invalid("NOT_FOR_SALE", message),
        Door::Take => Error::new(ErrorKind::NotConfigured, "NOT_FOR_SALE", message),
    }
}

pub(crate) fn holding_view(e: EntitlementRow) -> Holding {
    Holding {
        id: e.id.into(),
        kind: e.kind,
        offering_id: e.offering_id,
        name: e.name,
        source: e.source,
        price_cents: e.price_cents,
        currency: e.currency,
        payment_ref: e.payment_ref,
        exclusive: e.exclusive,
        acquired_at: e.acquired_at,
    }
}

impl Models<'_> {
    /// `POST models/{id}/checkout`: open (or re-open) the house's checkout for a priced model.
    /// Owner's session only. Never grants. 400 `ALREADY_YOURS`, `FREE_MODEL`, `NOT_FOR_SALE`;
    /// 403 (asked first, as on every money route, so a non-owner learns nothing of ids); 404; 409
    /// `TAKEN` or `CHECKOUT_PENDING`; 502 `CHECKOUT_FAILED`; 503 `BILLING_NOT_CONFIGURED`.
    pub async fn checkout_model(&self, caller: &Caller, id: &ModelId) -> Result<ModelCheckout> {
        caller.require_spend_money()?;
        let row = self.offering_row(caller, id, Door::Checkout).await?;
        let model = self.model_view(&caller.org_id, row.clone());
        if model.mine || model.owned {
            return Err(Error::invalid("ALREADY_YOURS", "This house already has this model."));
        }
        if model.tier == "free" {
            return Err(Error::invalid("FREE_MODEL", "This model is free: take it from explore."));
        }
        if row.model.retired_at.is_some() || row.model.price_cents <= 0 {
            return Err(not_for_sale(Door::Checkout));
        }
        self.studio.billing().payments()?;
        let (url, pending) = self.claim_and_checkout(caller, &row, Door::Checkout).await?;
        Ok(ModelCheckout { ok: true, url, pending, already: false, model })
    }

    /// The board's row of model `id` for a purchase. A face absent from the board because
    /// another house holds it or has a live claim on it is still a catalog offering: the person
    /// saw it a minute ago, so it answers 409 `TAKEN` (held) or `CHECKOUT_PENDING` (claimed,
    /// unexpired), and a retired offering the house never held answers `NOT_FOR_SALE`; 404
    /// stays for an id that is no offering this house can see at all.
    async fn offering_row(&self, caller: &Caller, id: &ModelId, door: Door) -> Result<BoardModelRow> {
        let missing = match self.board_row(caller, id).await {
            Err(e) if e.kind == ErrorKind::NotFound => e,
            found => return found,
        };
        let Some(offering) = self.store.catalog_offering(&ModelId::from(id.trim()), crate::ids::now()).await? else {
            return Err(missing);
        };
        if door == Door::Take && offering.model.tier != "free" {
            caller.require_spend_money()?;
        }
        if offering.model.tier == "exclusive" && offering.holders > 0 {
            return Err(taken());
        }
        if offering.model.tier == "exclusive" && offering.open_claims > 0 {
            return Err(Error::conflict(
                "CHECKOUT_PENDING",
                "Another house's checkout for this exclusive face is open; it is released if that checkout expires.",
            ));
        }
        if offering.model.retired_at.is_some() {
            return Err(not_for_sale(door));
        }
        Err(missing)
    }

    /// Claim `row` for the caller's house and create its checkout: (url, pending) where
    /// pending marks the house's checkout already open (a double click).
    async fn claim_and_checkout(&self, caller: &Caller, row: &BoardModelRow, door: Door) -> Result<(String, bool)> {
        let m = &row.model;
        // What the provider needs is read before the claim, so nothing but the provider's own
        // answer stands between a claim and its checkout.
        let (email, customer_id) = self.studio.billing().checkout_contact(caller).await?;
        let now = crate::ids::now();
        let claim = ClaimRow {
            reference: new_id("clm"),
            org_id: caller.org_id.clone(),
            user_id: Some(caller.user_id.clone()),
            kind: KIND_MODEL.to_string(),
            offering_id: m.id.clone().into(),
            exclusive: m.tier == "exclusive",
            price_cents: m.price_cents,
            currency: m.currency.clone(),
            status: crate::storage::ClaimStatus::Pending,
            checkout_url: None,
            provider_id: None,
            payment_id: None,
            expires_at: now + chrono::Duration::seconds(self.studio.config.billing.claim_secs.max(1)),
            created_at: now,
            resolved_at: None,
        };
        let stale_before = now - chrono::Duration::seconds(STALE_CLAIM_SECS);
        let claim = match self.store.claim_offering(NewClaim { claim, now, stale_before }).await? {
            ClaimOutcome::Claimed(claim) => claim,
            ClaimOutcome::Existing(claim) => {
                return match claim.checkout_url {
                    Some(url) => Ok((url, true)),
                    None => Err(Error::conflict(
                        "CHECKOUT_PENDING",
                        "This house's checkout for it is being created; try again in a moment.",
                    )),
                };
            }
            ClaimOutcome::AlreadyHeld => {
                return Err(Error::invalid("ALREADY_YOURS", "This house already has this model."));
            }
            ClaimOutcome::Taken => return Err(taken()),
            ClaimOutcome::NotForSale => return Err(not_for_sale(door)),
        };
        let request = CheckoutRequest {
            reference: claim.reference.clone(),
            org_id: caller.org_id.to_string(),
            user_id: caller.user_id.to_string(),
            email,
            purchase: Purchase::Offering { kind: claim.kind.clone(), id: claim.offering_id.clone() },
            tokens: 0,
            amount_cents: claim.price_cents,
            description: format!("{} (model)", m.name),
            customer_id,
        };
        // The provider step runs as its own task: a caller that hangs up mid-request cannot
        // leave the claim without its checkout (and an exclusive face reserved for nothing).
        let studio = self.studio.clone();
        tokio::spawn(async move { studio.models().open_claim_checkout(claim, request).await })
            .await
            .map_err(Error::internal)?
            .map(|url| (url, false))
    }

    /// Ask the provider for the claim's checkout and record it, the claim expiring with it;
    /// on any failure release the claim (502 `CHECKOUT_FAILED` for the provider's).
    async fn open_claim_checkout(&self, claim: ClaimRow, request: CheckoutRequest) -> Result<String> {
        let reference = claim.reference.as_str();
        let release = |e: Error| async move {
            if let Err(r) = self.store.release_claim(reference, crate::ids::now()).await {
                tracing::error!(error = %r, reference, "a failed claim could not be released");
            }
            e
        };
        let provider = match self.studio.billing().payments() {
            Ok(p) => p,
            Err(e) => return Err(release(e).await),
        };
        let checkout = match provider.create_checkout(&request).await {
            Ok(checkout) => checkout,
            Err(e) => {
                tracing::warn!(error = %e, "an offering's checkout failed at the provider; the claim is released");
                let refused =
                    Error::new(ErrorKind::Upstream, "CHECKOUT_FAILED", "The payment provider refused the checkout.");
                return Err(release(refused).await);
            }
        };
        let expires_at = checkout.expires_at.map_or(claim.expires_at, |t| t.min(claim.expires_at));
        let recorded = self
            .store
            .claim_checkout_created(
                &claim.reference,
                &checkout.url,
                &ProviderRef::from(&checkout.provider_id),
                expires_at,
            )
            .await;
        match recorded {
            Ok(()) => Ok(checkout.url),
            Err(e) => Err(release(e.into()).await),
        }
    }

    /// `GET explore`: the catalog's live offerings this house can see, free first, then sale,
    /// then exclusive, newest first within each. Any role.
    pub async fn explore(&self, caller: &Caller) -> Result<OfferingList> {
        let board = self.list_models(caller).await?;
        let mut models: Vec<_> = board.models.into_iter().filter(|m| !m.mine).collect();
        models.sort_by_key(|m| (super::tier_rank(&m.tier), std::cmp::Reverse(m.created_at)));
        let offerings = models.into_iter().map(|m| Offering {
            kind: KIND_MODEL.to_string(),
            exclusive: m.tier == "exclusive",
            preview_url: m.cover_url,
            id: m.id,
            name: m.name,
            note: m.note,
            price_cents: m.price_cents,
            currency: m.currency,
            owned: m.owned,
        });
        Ok(OfferingList { offerings: offerings.collect() })
    }

    /// `POST explore/{kind}/{id}/take`: a free offering is granted now (any role but viewer);
    /// a priced one opens the house's checkout (owner's session; `pending: true`). Taking what
    /// the house already holds answers ok with no url. 404 for an unknown kind or offering; 409
    /// `TAKEN` or `CHECKOUT_PENDING`; 502 `CHECKOUT_FAILED`; 503 `NOT_FOR_SALE` or
    /// `BILLING_NOT_CONFIGURED`.
    pub async fn take_offering(&self, caller: &Caller, kind: &str, id: &str) -> Result<TakeResponse> {
        if kind.trim() != KIND_MODEL {
            return Err(Error::not_found("NOT_FOUND", format!("No offerings of kind {kind:?}.")));
        }
        let row = self.offering_row(caller, &ModelId::from(id), Door::Take).await?;
        if row.model.tier == "yours" {
            return Err(Error::not_found("NOT_FOUND", "That is a house's own model, not an offering."));
        }
        if row.model.tier == "free" {
            caller.require_write_library()?;
        } else {
            caller.require_spend_money()?;
        }
        let done = TakeResponse { ok: true, url: String::new(), pending: false };
        if row.owned {
            return Ok(done);
        }
        if row.model.retired_at.is_some() {
            return Err(not_for_sale(Door::Take));
        }
        if row.model.tier == "free" {
            let m = &row.model;
            let holding = EntitlementRow {
                id: EntitlementId::generate(),
                org_id: caller.org_id.clone(),
                kind: KIND_MODEL.to_string(),
                offering_id: m.id.clone().into(),
                name: m.name.clone(),
                source: "free".to_string(),
                price_cents: 0,
                currency: m.currency.clone(),
                payment_ref: None,
                exclusive: false,
                acquired_at: crate::ids::now(),
                revoked_at: None,
                revoked_by: None,
                revoke_reason: None,
            };
            return match self.store.grant_entitlement(holding).await? {
                GrantOutcome::Granted(_) | GrantOutcome::AlreadyHeld => Ok(done),
                GrantOutcome::Taken => Err(taken()),
            };
        }
        self.studio.billing().payments()?;
        let (url, _) = self.claim_and_checkout(caller, &row, Door::Take).await?;
        Ok(TakeResponse { ok: true, url, pending: true })
    }

    /// `GET entitlements`: what the house holds (granted only, newest first) and its open
    /// checkouts (pending and unexpired). Any role.
    pub async fn entitlements(&self, caller: &Caller) -> Result<Entitlements> {
        let (holdings, open) = self.store.entitlements(&caller.org_id, crate::ids::now()).await?;
        Ok(Entitlements {
            holdings: holdings.into_iter().map(holding_view).collect(),
            open: open
                .into_iter()
                .map(|c| OpenCheckout {
                    kind: c.kind,
                    offering_id: c.offering_id,
                    checkout_url: c.checkout_url.unwrap_or_default(),
                    expires_at: c.expires_at,
                })
                .collect(),
        })
    }

    /// A claim by its checkout reference.
    pub(crate) async fn claim(&self, reference: &str) -> Result<Option<ClaimRow>> {
        Ok(self.store.claim(reference).await?)
    }

    /// A page of the catalog with its counts, retired offerings included, newest first.
    pub(crate) async fn catalog(&self, after: Option<&str>, limit: i64, now: DateTime<Utc>) -> Result<Vec<CatalogRow>> {
        Ok(self.store.catalog(after, limit, now).await?)
    }

    /// One catalog offering with its counts.
    pub(crate) async fn catalog_offering(&self, id: &ModelId, now: DateTime<Utc>) -> Result<Option<CatalogRow>> {
        Ok(self.store.catalog_offering(id, now).await?)
    }

    /// Retire a catalog offering (no new claims or takes); None when there is no such offering.
    pub(crate) async fn retire_offering(&self, id: &ModelId, now: DateTime<Utc>) -> Result<Option<ModelRow>> {
        Ok(self.store.retire_offering(id, now).await?)
    }

    /// Holdings of every house (or of one), revoked included, newest first; a page after `after`.
    pub(crate) async fn all_entitlements(
        &self,
        org_id: Option<&OrgId>,
        after: Option<&str>,
        limit: i64,
    ) -> Result<Vec<EntitlementRow>> {
        Ok(self.store.all_entitlements(org_id, after, limit).await?)
    }

    /// Payment cases, newest first (at most `limit`).
    pub(crate) async fn entitlement_cases(&self, limit: i64) -> Result<Vec<EntitlementCaseRow>> {
        Ok(self.store.entitlement_cases(limit).await?)
    }

    /// Revoke a live holding, `by` whom and why; None when there is no live holding with that id.
    pub(crate) async fn revoke_entitlement(
        &self,
        id: &EntitlementId,
        by: &str,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Option<EntitlementRow>> {
        Ok(self.store.revoke_entitlement(id, by, reason, now).await?)
    }

    /// A paid claim that could not become a holding: refund it through the provider and mark
    /// the case refunded, or leave it for review. Answers the case's status.
    pub(crate) async fn settle_case(&self, case: &EntitlementCaseRow) -> String {
        tracing::warn!(case = %case.id, reference = %case.reference, reason = %case.reason, "a paid claim could not become a holding");
        let (Ok(provider), Some(payment)) = (self.studio.billing().payments(), case.payment_id.as_deref()) else {
            return "review".to_string();
        };
        match provider.refund(payment, case.amount_cents).await {
            Ok(()) => match self.store.case_refunded(&case.id, crate::ids::now()).await {
                Ok(()) => "refunded".to_string(),
                Err(e) => {
                    tracing::error!(error = %e, case = %case.id, "refunded, but the case could not be marked");
                    "review".to_string()
                }
            },
            Err(e) => {
                tracing::warn!(error = %e, case = %case.id, "the refund failed; the case waits for review");
                "review".to_string()
            }
        }
    }
}
