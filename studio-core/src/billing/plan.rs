//! The house's subscription plan as the account page shows it, and cancelling it (§4.8).
//!
//! The plan is the house's latest paid subscription checkout: its tier from the catalogue, and
//! its renewal a month after the latest payment (each renewal arrives as a signed payment and
//! grants its month). Cancelling tells the provider first; only when the provider has agreed is
//! the plan marked canceled here. It then runs to `renewsAt` and does not renew; tokens already
//! granted stay.

use crate::billing::Billing;
use crate::ids::OrgId;
use chrono::Duration;

use crate::api::{PlanCanceled, PlanView};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::now;
use crate::storage::PlanRow;

/// How long one paid month of a subscription runs.
pub const PLAN_PERIOD_DAYS: i64 = 30;

impl Billing<'_> {
    /// The plan row, if the house pays for one whose period has not run out.
    async fn live_plan(&self, org_id: &OrgId) -> Result<Option<PlanRow>> {
        let plan = self.studio.accounts().plan_row(org_id).await?;
        Ok(plan.filter(|p| p.last_paid_at + Duration::days(PLAN_PERIOD_DAYS) > now()))
    }

    /// The house's plan for the account page, or None.
    pub(crate) async fn plan_view(&self, org_id: &OrgId) -> Result<Option<PlanView>> {
        let Some(plan) = self.live_plan(org_id).await? else { return Ok(None) };
        let tier = self.studio.config.billing.tiers.iter().find(|t| t.slug == plan.item);
        Ok(Some(PlanView {
            tier: plan.item.clone(),
            name: tier.map(|t| t.name.clone()).unwrap_or_else(|| plan.item.clone()),
            status: if plan.canceled_at.is_some() { "canceled" } else { "active" }.to_string(),
            price_usd: plan.amount_cents as f64 / 100.0,
            monthly_tokens: tier.map(|t| t.monthly_tokens).unwrap_or(plan.tokens),
            rollover_multiple: tier.map(|t| t.rollover_multiple).unwrap_or(1),
            renews_at: plan.last_paid_at + Duration::days(PLAN_PERIOD_DAYS),
        }))
    }

    /// Stop the plan renewing (the owner's session). The provider is told first; 502
    /// `CANCEL_FAILED` when it refuses, and then nothing changes here.
    pub async fn cancel_plan(&self, caller: &Caller) -> Result<PlanCanceled> {
        caller.require_spend_money()?;
        let provider = self.payments()?.clone();
        let plan = self
            .live_plan(&caller.org_id)
            .await?
            .ok_or_else(|| Error::not_found("NO_ACTIVE_PLAN", "This house has no plan to cancel."))?;
        let ends_at = plan.last_paid_at + Duration::days(PLAN_PERIOD_DAYS);
        if plan.canceled_at.is_none() {
            let customer = self.store.billing_account(&caller.org_id).await?.and_then(|a| a.customer_id);
            let told = match customer {
                Some(customer) => provider.cancel_subscription(&customer).await,
                None => Err(crate::payments::PaymentsError::Failed("no provider customer is on record".into())),
            };
            if let Err(e) = told {
                tracing::warn!(error = %e, "plan cancellation failed at the provider");
                return Err(Error::new(
                    ErrorKind::Upstream,
                    "CANCEL_FAILED",
                    "The payment provider did not confirm the cancellation; the plan is unchanged.",
                ));
            }
            self.studio.accounts().mark_plan_canceled(&caller.org_id, &plan.reference, now()).await?;
        }
        Ok(PlanCanceled { status: "canceled".to_string(), ends_at })
    }
}
