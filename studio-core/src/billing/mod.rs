//! Billing: the catalog, checkouts (top-up, subscription, custom), the billing portal, auto
//! top-up and the payment webhook, the only thing that grants bought tokens.
//!
//! Rules kept here:
//! - Money routes are an owner's session only (`role_cannot_spend_money`); keys never spend
//!   money. Without a provider they answer 503 `BILLING_NOT_CONFIGURED` (after the role check).
//! - Nothing at checkout time credits a token: a checkout is recorded `open` and only a verified
//!   `payment.succeeded` naming its reference grants, once per reference (a subscription: once
//!   per provider payment, so each renewal grants its month).
//! - Subscription tokens go into the grant bucket, capped by the tier's rollover multiple: after
//!   a grant the grant bucket holds at most `monthlyTokens × rolloverMultiple`. The grant is
//!   `min(monthlyTokens, cap − grant bucket)` (never negative); tokens already in the bucket are
//!   never taken away, and the cap counts everything in the grant bucket (sign-up and admin
//!   grants included).
//! - The custom rate is the highest price per token of any active pack; the amount is quantised
//!   down to whole tokens and the charge is `ceil(tokens × rate)` cents (never above the amount
//!   asked, never cheaper per token than a pack).
//! - `AMBIGUOUS_PACK_PRICE` (409): auto top-up refuses a refill pack whose price another active
//!   pack shares, because a refill is shown and capped by its price and must name one pack.

pub(crate) mod ledger;
pub(crate) mod plan;

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};

use crate::api::{
    AutochargeCharge, AutochargeLimits, AutochargeMonth, AutochargePack, AutochargeRun, AutochargeSaved,
    AutochargeSettingsView, AutochargeUpdate, AutochargeView, BillingCatalog, CheckoutResponse, CustomCheckoutRequest,
    CustomCheckoutResponse, PortalResponse, SeatRole, SubscriptionCheckoutRequest, Tier, TokenPack,
    TopupCheckoutRequest, WebhookAck,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{OrgId, ProviderRef, new_id};
use crate::payments::test_mode::{TEST_MODE, signed_payment};
use crate::payments::webhooks::{WebhookHeaders, verify};
use crate::payments::{ChargeRequest, CheckoutRequest, PaymentEvent, PaymentsError, PaymentsProvider, Purchase};
use crate::storage::{
    AutochargeOutcome, AutochargeSettings, BillingAccountRow, CheckoutRow, NewAutocharge, NewPayment, PaymentOutcome,
    RefillPack,
};

/// The largest custom top-up, in cents (5,000 dollars).
pub const MAX_CUSTOM_CENTS: i64 = 500_000;
/// Minutes between two auto top-up charges.
pub const AUTOCHARGE_DEBOUNCE_MINUTES: i64 = 10;
/// The largest auto top-up threshold.
pub const MAX_THRESHOLD_TOKENS: i64 = 1_000_000;
/// The largest auto top-up monthly ceiling, in cents.
pub const MAX_CAP_CENTS: i64 = 500_000;

fn usd(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Dollars as whole cents; None unless a finite positive number with at most two decimals.
fn cents_of(value: Option<&serde_json::Value>) -> Option<i64> {
    let dollars = value?.as_f64().filter(|d| d.is_finite() && *d > 0.0 && *d < 1e9)?;
    let cents = (dollars * 100.0).round();
    ((dollars * 100.0 - cents).abs() < 1e-6).then_some(cents as i64)
}

fn not_configured() -> Error {
    Error::new(ErrorKind::NotConfigured, "BILLING_NOT_CONFIGURED", "Billing is not configured on this server.")
}

fn month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0).single().unwrap_or(now)
}

/// A test-mode checkout as its page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCheckoutView {
    /// Reference.
    pub reference: String,
    /// What is bought, for people.
    pub description: String,
    /// Tokens delivered.
    pub tokens: i64,
    /// The charge, in cents.
    pub amount_cents: i64,
    /// Already paid.
    pub paid: bool,
}

crate::studio::view! {
    /// The money domain (the ledger and its holds, checkouts, plans, autocharge): `studio.billing()`.
    Billing over BillingStores
}

impl<'a> Billing<'a> {
    /// The payment provider, or 503 `BILLING_NOT_CONFIGURED`; borrowed from the Studio, not
    /// the view, so a caller may keep it past the view.
    pub(crate) fn payments(&self) -> Result<&'a std::sync::Arc<dyn PaymentsProvider>> {
        self.studio.config.payments.as_ref().ok_or_else(not_configured)
    }
}

impl Billing<'_> {
    /// The catalog of active tiers and packs (public).
    pub fn billing_catalog(&self) -> BillingCatalog {
        let billing = &self.studio.config.billing;
        BillingCatalog {
            provider: self.studio.config.payments.as_ref().map(|p| p.name().to_string()),
            tiers: billing
                .tiers
                .iter()
                .filter(|t| billing.tier(&t.slug).is_some())
                .map(|t| Tier {
                    slug: t.slug.clone(),
                    name: t.name.clone(),
                    price_usd: usd(t.price_cents),
                    monthly_tokens: t.monthly_tokens,
                    rollover_multiple: t.rollover_multiple,
                    featured: t.featured,
                })
                .collect(),
            packs: billing
                .active_packs()
                .map(|p| TokenPack { slug: p.slug.clone(), tokens: p.tokens, price_usd: usd(p.price_cents) })
                .collect(),
        }
    }

    /// Who a checkout is for at the provider: the caller's email (for the receipt) and the
    /// house's provider customer, once known.
    pub(crate) async fn checkout_contact(&self, caller: &Caller) -> Result<(String, Option<String>)> {
        let email = self.studio.accounts().user(&caller.user_id).await?.map(|u| u.email).unwrap_or_default();
        let customer_id = self.store.billing_account(&caller.org_id).await?.and_then(|a| a.customer_id);
        Ok((email, customer_id))
    }

    /// The house's billing account (its provider customer, card, auto top-up), if it has one.
    pub(crate) async fn account_of(&self, org_id: &OrgId) -> Result<Option<BillingAccountRow>> {
        Ok(self.store.billing_account(org_id).await?)
    }

    /// Record a checkout and ask the provider for its page.
    async fn open_checkout(
        &self,
        caller: &Caller,
        purchase: Purchase,
        tokens: i64,
        amount_cents: i64,
        grant_cap: Option<i64>,
        description: String,
    ) -> Result<String> {
        let provider = self.payments()?;
        let (kind, item) = match &purchase {
            Purchase::Topup { pack } => ("topup", pack.clone()),
            Purchase::Subscription { tier } => ("subscription", tier.clone()),
            Purchase::Custom => ("custom", "custom".to_string()),
            Purchase::Offering { .. } => return Err(Error::internal("an offering is bought through its claim")),
        };
        let reference = new_id("chk");
        self.store
            .insert_checkout(CheckoutRow {
                reference: reference.clone(),
                org_id: caller.org_id.clone(),
                user_id: Some(caller.user_id.clone()),
                kind: kind.to_string(),
                item,
                tokens,
                amount_cents,
                grant_cap,
                status: crate::storage::CheckoutStatus::Open,
                provider_id: None,
                payment_id: None,
                created_at: crate::ids::now(),
                paid_at: None,
            })
            .await?;
        let (email, customer_id) = self.checkout_contact(caller).await?;
        let request = CheckoutRequest {
            reference: reference.clone(),
            org_id: caller.org_id.to_string(),
            user_id: caller.user_id.to_string(),
            email,
            purchase,
            tokens,
            amount_cents,
            description,
            customer_id,
        };
        match provider.create_checkout(&request).await {
            Ok(checkout) => {
                self.store.checkout_created(&reference, Some(&ProviderRef::from(&checkout.provider_id))).await?;
                Ok(checkout.url)
            }
            Err(e) => {
                self.store.checkout_created(&reference, None).await?;
                tracing::warn!(error = %e, "checkout failed at the provider");
                Err(Error::new(ErrorKind::Upstream, "CHECKOUT_FAILED", "The payment provider refused the checkout."))
            }
        }
    }

    /// Checkout for a token pack (owner's session).
    pub async fn checkout_topup(&self, caller: &Caller, req: TopupCheckoutRequest) -> Result<CheckoutResponse> {
        caller.require_spend_money()?;
        self.payments()?;
        let slug = req.pack.unwrap_or_default();
        let Some(pack) = self.studio.config.billing.pack(slug.trim()).cloned() else {
            return Err(Error::invalid("BAD_PACK", "pack must be an active pack (pack_250, pack_1000, pack_3000)."));
        };
        let description = format!("{} tokens", pack.tokens);
        let url = self
            .open_checkout(
                caller,
                Purchase::Topup { pack: pack.slug },
                pack.tokens,
                pack.price_cents,
                None,
                description,
            )
            .await?;
        Ok(CheckoutResponse { url })
    }

    /// Checkout for a subscription tier (owner's session).
    pub async fn checkout_subscription(
        &self,
        caller: &Caller,
        req: SubscriptionCheckoutRequest,
    ) -> Result<CheckoutResponse> {
        caller.require_spend_money()?;
        self.payments()?;
        let slug = req.tier.unwrap_or_default();
        let Some(tier) = self.studio.config.billing.tier(slug.trim()).cloned() else {
            return Err(Error::invalid("BAD_TIER", "tier must be an active tier (studio, editorial, couture)."));
        };
        let cap = tier.monthly_tokens * tier.rollover_multiple.max(1);
        let description = format!("{} plan", tier.name);
        let url = self
            .open_checkout(
                caller,
                Purchase::Subscription { tier: tier.slug },
                tier.monthly_tokens,
                tier.price_cents,
                Some(cap),
                description,
            )
            .await?;
        Ok(CheckoutResponse { url })
    }

    /// Checkout for a custom amount (owner's session).
    pub async fn checkout_custom(&self, caller: &Caller, req: CustomCheckoutRequest) -> Result<CustomCheckoutResponse> {
        caller.require_spend_money()?;
        self.payments()?;
        let billing = &self.studio.config.billing;
        let min = billing.custom_min_cents().ok_or_else(not_configured)?;
        let Some(amount) = cents_of(req.amount_usd.as_ref()) else {
            return Err(Error::invalid("BAD_AMOUNT", "amountUsd must be a positive number of dollars in whole cents."));
        };
        let out_of_range = || {
            Error::invalid(
                "AMOUNT_OUT_OF_RANGE",
                format!("amountUsd must be from {:.2} to {:.2} dollars.", usd(min), usd(MAX_CUSTOM_CENTS)),
            )
            .with("minCents", min)
            .with("maxCents", MAX_CUSTOM_CENTS)
        };
        if !(min..=MAX_CUSTOM_CENTS).contains(&amount) {
            return Err(out_of_range());
        }
        let (tokens, charge) = billing.quantise(amount).ok_or_else(not_configured)?;
        if tokens < 1 || charge < min {
            return Err(out_of_range());
        }
        let description = format!("{tokens} tokens");
        let url = self.open_checkout(caller, Purchase::Custom, tokens, charge, None, description).await?;
        Ok(CustomCheckoutResponse { url, tokens, amount_cents: charge })
    }

    /// The provider's billing portal for the house (owner's session).
    pub async fn billing_portal(&self, caller: &Caller) -> Result<PortalResponse> {
        caller.require_spend_money()?;
        let provider = self.payments()?;
        let customer = self.store.billing_account(&caller.org_id).await?.and_then(|a| a.customer_id);
        let Some(customer) = customer else {
            return Err(Error::invalid("NO_CUSTOMER", "This house has not paid yet, so it has no billing portal."));
        };
        match provider.portal(&customer).await {
            Ok(url) if !url.trim().is_empty() => Ok(PortalResponse { url }),
            Ok(_) | Err(PaymentsError::Incomplete(_)) => {
                Err(Error::new(ErrorKind::Upstream, "PORTAL_NO_URL", "The payment provider opened no portal URL."))
            }
            Err(e) => {
                tracing::warn!(error = %e, "portal failed at the provider");
                Err(Error::new(ErrorKind::Upstream, "PORTAL_FAILED", "The payment provider refused the portal."))
            }
        }
    }

    fn refill_packs(&self) -> Vec<RefillPack> {
        self.studio
            .config
            .billing
            .active_packs()
            .map(|p| RefillPack { slug: p.slug.clone(), tokens: p.tokens, price_cents: p.price_cents })
            .collect()
    }

    /// Auto top-up as the house has it (any member, by key or session).
    pub async fn autocharge(&self, caller: &Caller) -> Result<AutochargeView> {
        let now = crate::ids::now();
        let account = self.store.billing_account(&caller.org_id).await?;
        let spent = self.store.autocharge_spent(&caller.org_id, month_start(now)).await?;
        let charges = self.store.autocharges(&caller.org_id, 20).await?;
        let available = self.studio.config.payments.is_some();
        let has_card = account.as_ref().is_some_and(|a| a.has_card && a.customer_id.is_some());
        Ok(AutochargeView {
            available,
            can_arm: available
                && has_card
                && caller.require_spend_money().is_ok()
                && self.studio.config.payments.as_ref().is_some_and(|p| p.can_charge_off_session()),
            has_card,
            has_customer: account.as_ref().is_some_and(|a| a.customer_id.is_some()),
            settings: self.settings_view(account.as_ref()),
            this_month: AutochargeMonth { period: now.format("%Y-%m").to_string(), spent_cents: spent },
            last_charge_at: charges.first().map(|c| c.created_at),
            packs: self
                .refill_packs()
                .into_iter()
                .map(|p| AutochargePack { slug: p.slug, tokens: p.tokens, price_cents: p.price_cents })
                .collect(),
            limits: AutochargeLimits {
                debounce_minutes: AUTOCHARGE_DEBOUNCE_MINUTES,
                max_threshold_tokens: MAX_THRESHOLD_TOKENS,
                max_cap_cents: MAX_CAP_CENTS,
            },
            charges: charges
                .into_iter()
                .map(|c| AutochargeCharge {
                    at: c.created_at,
                    amount_cents: c.amount_cents,
                    currency: "usd".into(),
                    reference: c.reference,
                })
                .collect(),
        })
    }

    fn settings_view(&self, account: Option<&crate::storage::BillingAccountRow>) -> AutochargeSettingsView {
        let cheapest = self.studio.config.billing.active_packs().min_by_key(|p| p.price_cents);
        let slug = account.and_then(|a| a.refill_pack.clone()).or_else(|| cheapest.map(|p| p.slug.clone()));
        let refill_cents = slug
            .as_deref()
            .and_then(|s| self.studio.config.billing.packs.iter().find(|p| p.slug == s))
            .map(|p| p.price_cents)
            .unwrap_or(0);
        AutochargeSettingsView {
            enabled: account.is_some_and(|a| a.autocharge_enabled),
            threshold_tokens: account.map(|a| a.threshold_tokens).unwrap_or(0),
            refill_cents,
            refill_pack: slug.unwrap_or_default(),
            monthly_cap_cents: account.map(|a| a.monthly_cap_cents).unwrap_or(0),
        }
    }

    /// Save auto top-up settings (owner's session); every field required.
    pub async fn set_autocharge(&self, caller: &Caller, req: AutochargeUpdate) -> Result<AutochargeSaved> {
        caller.require_spend_money()?;
        self.payments()?;
        let Some(enabled) = req.enabled.as_ref().and_then(|v| v.as_bool()) else {
            return Err(Error::invalid("BAD_BODY", "enabled (true or false) is required."));
        };
        let threshold = req.threshold_tokens.as_ref().and_then(|v| v.as_i64());
        let Some(threshold) = threshold.filter(|t| (1..=MAX_THRESHOLD_TOKENS).contains(t)) else {
            return Err(Error::invalid(
                "BAD_THRESHOLD",
                format!("thresholdTokens must be a whole number from 1 to {MAX_THRESHOLD_TOKENS}."),
            )
            .with("max", MAX_THRESHOLD_TOKENS));
        };
        let slug = req.pack.as_ref().and_then(|v| v.as_str()).unwrap_or_default();
        let Some(pack) = self.studio.config.billing.pack(slug.trim()).cloned() else {
            return Err(Error::invalid("BAD_PACK", "pack must be an active pack (pack_250, pack_1000, pack_3000)."));
        };
        let Some(cap) = cents_of(req.monthly_cap_usd.as_ref()).filter(|c| *c <= MAX_CAP_CENTS) else {
            return Err(Error::invalid(
                "BAD_CAP",
                format!("monthlyCapUsd must be a positive number of dollars up to {:.2}.", usd(MAX_CAP_CENTS)),
            )
            .with("maxCents", MAX_CAP_CENTS));
        };
        if cap < pack.price_cents {
            return Err(Error::invalid("CAP_BELOW_REFILL", "The monthly cap may never be below one refill.")
                .with("minCents", pack.price_cents));
        }
        if self.studio.config.billing.active_packs().any(|p| p.slug != pack.slug && p.price_cents == pack.price_cents) {
            return Err(Error::conflict(
                "AMBIGUOUS_PACK_PRICE",
                "Another active pack has the same price, so a refill at this price would not name one pack.",
            ));
        }
        let saved = self
            .store
            .save_autocharge(AutochargeSettings {
                org_id: caller.org_id.clone(),
                enabled,
                threshold_tokens: threshold,
                refill_pack: pack.slug,
                monthly_cap_cents: cap,
                now: crate::ids::now(),
            })
            .await?;
        Ok(AutochargeSaved { ok: true, settings: self.settings_view(Some(&saved)) })
    }

    /// Run auto top-up (member or above; viewers refused `role_cannot_spend_tokens`). Every
    /// condition is re-checked in one atomic reservation; answers whether it charged.
    pub async fn run_autocharge(&self, caller: &Caller) -> Result<AutochargeRun> {
        if caller.role == SeatRole::Viewer {
            return Err(Error::forbidden("role_cannot_spend_tokens", "A viewer cannot run auto top-up."));
        }
        let provider = self.payments()?;
        let now = crate::ids::now();
        let outcome = self
            .store
            .reserve_autocharge(NewAutocharge {
                reference: new_id("chg"),
                org_id: caller.org_id.clone(),
                user_id: Some(caller.user_id.clone()),
                packs: self.refill_packs(),
                month_start: month_start(now),
                debounce_since: now - Duration::minutes(AUTOCHARGE_DEBOUNCE_MINUTES),
                now,
            })
            .await?;
        let (charge, customer_id) = match outcome {
            AutochargeOutcome::Refused(reason) => {
                return Ok(AutochargeRun {
                    charged: false,
                    reason: Some(reason.to_string()),
                    pack: None,
                    tokens: None,
                    amount_cents: None,
                    payment_id: None,
                });
            }
            AutochargeOutcome::Reserved { charge, customer_id } => (*charge, customer_id),
        };
        let request = ChargeRequest {
            reference: charge.reference.clone(),
            org_id: charge.org_id.to_string(),
            customer_id: customer_id.clone(),
            pack: charge.item.clone(),
            tokens: charge.tokens,
            amount_cents: charge.amount_cents,
        };
        let payment_id = match provider.charge(&request).await {
            Ok(id) => id,
            Err(e) => {
                tracing::warn!(error = %e, reference = %charge.reference, "auto top-up charge failed");
                self.store.autocharge_failed(&charge.reference).await?;
                return Err(Error::new(ErrorKind::Upstream, "charge_failed", "The card was not charged.")
                    .with("reason", e.to_string()));
            }
        };
        self.store.autocharge_charged(&charge.reference, &ProviderRef::from(&payment_id)).await?;
        if provider.name() == TEST_MODE {
            // Test mode delivers the signed payment.succeeded a real provider would send.
            self.deliver_test_payment(provider.webhook_secret(), &charge.reference, charge.amount_cents, &customer_id)
                .await?;
        }
        Ok(AutochargeRun {
            charged: true,
            reason: None,
            pack: Some(charge.item),
            tokens: Some(charge.tokens),
            amount_cents: Some(charge.amount_cents),
            payment_id: Some(payment_id),
        })
    }

    /// Sign a test-mode `payment.succeeded` and hand it to [`Studio::payment_webhook`] with the
    /// same headers and raw body the webhook route would receive.
    async fn deliver_test_payment(
        &self,
        secret: &str,
        reference: &str,
        amount_cents: i64,
        customer_id: &str,
    ) -> Result<WebhookAck> {
        let now = crate::ids::now().timestamp();
        let (headers, body) =
            signed_payment(secret, reference, customer_id, amount_cents, now).map_err(Error::internal)?;
        self.payment_webhook(&headers, &body).await
    }

    /// The payment webhook (public; the signature is the authority): verify (401
    /// `BAD_SIGNATURE`), parse (400 `UNPARSEABLE`), deduplicate by webhook id and apply.
    pub async fn payment_webhook(&self, headers: &WebhookHeaders, body: &[u8]) -> Result<WebhookAck> {
        let provider = self.payments()?;
        let now = crate::ids::now();
        let webhook_id = verify(provider.webhook_secret(), headers, body, now.timestamp()).map_err(|e| {
            tracing::warn!(error = %e, "payment webhook refused");
            Error::new(ErrorKind::Unauthenticated, "BAD_SIGNATURE", "The webhook signature does not verify.")
        })?;
        let Some(mut event) = PaymentEvent::parse(body) else {
            return Err(Error::invalid("UNPARSEABLE", "The webhook body is not an event."));
        };
        if event.event_type == provider.payment_succeeded_event() {
            event.event_type = crate::payments::PAYMENT_SUCCEEDED.to_string();
        }
        let outcome = self
            .store
            .apply_payment(NewPayment {
                webhook_id,
                event_type: event.event_type,
                reference: event.reference,
                payment_id: event.payment_id,
                customer_id: event.customer_id,
                amount_cents: event.amount_cents,
                currency: event.currency,
                now,
            })
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "payment webhook could not be applied");
                Error::new(ErrorKind::Internal, "APPLY_FAILED", "The payment could not be applied; retry.")
            })?;
        let ack =
            WebhookAck { ok: true, duplicate: None, ignored: None, granted: None, entitlement: None, lapsed: None };
        Ok(match outcome {
            PaymentOutcome::Granted { tokens, .. } => WebhookAck { granted: Some(tokens), ..ack },
            PaymentOutcome::Entitled { holding, .. } => WebhookAck { entitlement: Some(holding.id.into()), ..ack },
            PaymentOutcome::Lapsed(case) => {
                WebhookAck { lapsed: Some(self.studio.models().settle_case(&case).await), ..ack }
            }
            PaymentOutcome::Duplicate | PaymentOutcome::AlreadyGranted => WebhookAck { duplicate: Some(true), ..ack },
            PaymentOutcome::Ignored(_) => WebhookAck { ignored: Some(true), ..ack },
        })
    }

    /// Test mode only: a checkout as its page shows it (a token purchase, or a claim on an
    /// offering). 404 when billing is not in test mode or the reference is not an open or paid
    /// checkout.
    pub async fn test_checkout(&self, reference: &str) -> Result<TestCheckoutView> {
        let missing = || Error::not_found("NOT_FOUND", "No such test-mode checkout.");
        self.studio.config.payments.as_ref().filter(|p| p.name() == TEST_MODE).ok_or_else(missing)?;
        if reference.starts_with("clm_") {
            let c = self
                .studio
                .models()
                .claim(reference)
                .await?
                .filter(|c| c.checkout_url.is_some())
                .ok_or_else(missing)?;
            return Ok(TestCheckoutView {
                description: format!("The {} {}", c.kind, c.offering_id),
                reference: c.reference,
                tokens: 0,
                amount_cents: c.price_cents,
                paid: c.status == crate::storage::ClaimStatus::Paid,
            });
        }
        let c = self.store.checkout(reference).await?.filter(|c| c.kind != "autocharge").ok_or_else(missing)?;
        if c.status == crate::storage::CheckoutStatus::Failed {
            return Err(missing());
        }
        let description = match c.kind.as_str() {
            "subscription" => format!("{} plan: {} tokens a month", c.item, c.tokens),
            _ => format!("{} tokens", c.tokens),
        };
        Ok(TestCheckoutView {
            reference: c.reference,
            description,
            tokens: c.tokens,
            amount_cents: c.amount_cents,
            paid: c.status == crate::storage::CheckoutStatus::Paid,
        })
    }

    /// Test mode only: confirm a checkout, as the payer pressing "Pay" would. Delivers a signed
    /// `payment.succeeded` through [`Studio::payment_webhook`]; confirming twice grants once.
    /// `decline_card` saves a card that refuses off-session charges.
    pub async fn confirm_test_checkout(&self, reference: &str, decline_card: bool) -> Result<WebhookAck> {
        let view = self.test_checkout(reference).await?;
        let provider = self.payments()?;
        let org_id = match self.studio.models().claim(reference).await? {
            Some(claim) => claim.org_id,
            None => self.store.checkout(reference).await?.ok_or_else(|| Error::internal("checkout vanished"))?.org_id,
        };
        let existing = self.store.billing_account(&org_id).await?.and_then(|a| a.customer_id);
        let customer = match existing {
            Some(id) if !decline_card && !id.contains("decline") => id,
            _ if decline_card => format!("cus_test_decline_{org_id}"),
            _ => format!("cus_test_{org_id}"),
        };
        self.deliver_test_payment(provider.webhook_secret(), reference, view.amount_cents, &customer).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BillingConfig, PackConfig};

    #[test]
    fn defaults_and_the_custom_rate() {
        let b = BillingConfig::default();
        assert_eq!(b.custom_min_cents(), Some(1_000), "the cheapest pack is ten dollars");
        assert_eq!(b.custom_rate(), Some((1_000, 250)), "4 cents a token, pack_250's rate");
        assert_eq!(b.quantise(1_050), Some((262, 1_048)), "quantised down, the charge reflects it");
        assert_eq!(b.quantise(500_000), Some((125_000, 500_000)));
        assert_eq!(
            b.tier("editorial").map(|t| (t.monthly_tokens, t.rollover_multiple, t.featured)),
            Some((1200, 2, true))
        );
    }

    #[test]
    fn the_charge_never_undercuts_the_rate() {
        let b = BillingConfig {
            tiers: vec![],
            packs: vec![PackConfig { slug: "odd".into(), tokens: 3, price_cents: 10, active: true }],
            ..BillingConfig::default()
        };
        for amount in [10, 11, 99, 1_001, 77_777] {
            let (tokens, charge) = b.quantise(amount).unwrap();
            assert!(charge <= amount && charge * 3 >= tokens * 10, "{amount}: {tokens} for {charge}");
            assert!((tokens + 1) * 10 > amount * 3, "{amount}: quantised down to whole tokens");
        }
    }

    #[test]
    fn amounts_in_whole_cents() {
        assert_eq!(cents_of(Some(&serde_json::json!(10))), Some(1_000));
        assert_eq!(cents_of(Some(&serde_json::json!(10.5))), Some(1_050));
        assert_eq!(cents_of(Some(&serde_json::json!(0.1))), Some(10));
        for bad in [
            serde_json::json!(0),
            serde_json::json!(-1),
            serde_json::json!(10.001),
            serde_json::json!("10"),
            serde_json::json!(null),
        ] {
            assert_eq!(cents_of(Some(&bad)), None, "{bad}");
        }
        assert_eq!(cents_of(None), None);
    }
}
