//! The token ledger: the price book, the balance, holds (reserve / settle / release, each once)
//! and grants. The storage keeps the append-only entries and the running totals together.

use crate::api::{Balance, HoldView, PriceBook};
use crate::billing::Billing;
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{HoldId, OrgId};
use crate::storage::{BalanceRow, HoldRow, NewCredit, NewHold, ReserveOutcome, ResolveOutcome};

/// A hold taken for the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    /// The hold.
    pub hold: HoldView,
    /// True when the hold id existed already: nothing new was reserved.
    pub replayed: bool,
}

/// What settling or releasing a hold did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldOutcome {
    /// This call charged the hold.
    Settled,
    /// This call returned the tokens.
    Released,
    /// The hold had been charged before; nothing moved.
    AlreadySettled,
    /// The hold had been released before; nothing moved.
    AlreadyReleased,
}

fn hold_view(h: &HoldRow) -> HoldView {
    HoldView {
        id: h.id.clone().into(),
        amount: h.amount,
        generation_id: h.generation_id.clone(),
        created_at: h.created_at,
    }
}

fn resolved(outcome: ResolveOutcome, charge: bool) -> Result<HoldOutcome> {
    use crate::storage::HoldStatus;
    match outcome {
        ResolveOutcome::Resolved(_) if charge => Ok(HoldOutcome::Settled),
        ResolveOutcome::Resolved(_) => Ok(HoldOutcome::Released),
        ResolveOutcome::AlreadyResolved(h) if h.status == HoldStatus::Settled => Ok(HoldOutcome::AlreadySettled),
        ResolveOutcome::AlreadyResolved(_) => Ok(HoldOutcome::AlreadyReleased),
        ResolveOutcome::NotFound => Err(Error::not_found("NOT_FOUND", "No such hold in this house.")),
    }
}

impl Billing<'_> {
    /// The caller's house balance with its open holds. Reads running totals, never history.
    pub async fn balance(&self, caller: &Caller) -> Result<Balance> {
        // Grants that expired since the last sweep leave before the balance is read.
        self.store.expire_grants(Some(&caller.org_id), crate::ids::now()).await?;
        let totals = self.store.balance(&caller.org_id).await?;
        let holds = self.store.open_holds(&caller.org_id).await?;
        Ok(Balance {
            balance: totals.spendable(),
            grant: totals.grant_tokens,
            topup: totals.topup_tokens,
            held: totals.held,
            holds: holds.iter().map(hold_view).collect(),
        })
    }

    /// Hold `amount` tokens for the caller's house before any work is queued. Viewers are
    /// refused; a shortfall is 402 with `need` and `spendable` and writes nothing. Passing the
    /// same `hold_id` again returns the existing hold and reserves nothing.
    pub async fn reserve_tokens(
        &self,
        caller: &Caller,
        amount: i64,
        generation_id: Option<String>,
        hold_id: Option<String>,
    ) -> Result<Reservation> {
        caller.require_spend_tokens()?;
        if amount <= 0 {
            return Err(Error::invalid("BAD_AMOUNT", "A hold must be for at least one token."));
        }
        let hold = NewHold {
            id: hold_id.map(HoldId::from).unwrap_or_else(HoldId::generate),
            org_id: caller.org_id.clone(),
            amount,
            generation_id,
            user_id: Some(caller.user_id.clone()),
            now: crate::ids::now(),
        };
        match self.store.reserve(hold).await? {
            ReserveOutcome::Reserved(h) => Ok(Reservation { hold: hold_view(&h), replayed: false }),
            ReserveOutcome::Existing(h) => Ok(Reservation { hold: hold_view(&h), replayed: true }),
            ReserveOutcome::Insufficient { need, spendable } => Err(Error::insufficient(need, spendable)),
        }
    }

    /// Charge a hold (the frame landed). Exactly once: a second call changes nothing.
    pub async fn settle_hold(&self, org_id: &OrgId, hold_id: &HoldId) -> Result<HoldOutcome> {
        resolved(self.store.settle(org_id, hold_id, crate::ids::now()).await?, true)
    }

    /// Return a hold's tokens to the buckets they came from. Exactly once.
    pub async fn release_hold(&self, org_id: &OrgId, hold_id: &HoldId) -> Result<HoldOutcome> {
        resolved(self.store.release(org_id, hold_id, crate::ids::now()).await?, false)
    }

    /// Expire every grant due by now, in every house (the sweep's one pass); the tokens expired.
    pub async fn expire_grants(&self) -> Result<i64> {
        Ok(self.store.expire_grants(None, crate::ids::now()).await?)
    }

    /// Expire due grants every `every` until `shutdown` resolves: an expired grant leaves the
    /// spendable balance within `every` of its expiry (at once for a balance read). Each pass is
    /// safe beside another replica's: a grant is expired at most once.
    pub async fn run_grant_expiry(&self, every: std::time::Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                _ = tick.tick() => {
                    match self.expire_grants().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(tokens = n, "expired grants left the balances"),
                        Err(e) => tracing::warn!(error = %e, "the grant expiry sweep failed; retrying"),
                    }
                }
            }
        }
    }

    /// One hold of a house, whatever its state (what a replay's timeline shows).
    pub(crate) async fn hold(&self, org_id: &OrgId, hold_id: &HoldId) -> Result<Option<HoldRow>> {
        Ok(self.store.hold(org_id, hold_id).await?)
    }

    /// The house's running totals as they stand (no grant expiry first, no holds listed).
    pub(crate) async fn totals(&self, org_id: &OrgId) -> Result<BalanceRow> {
        Ok(self.store.balance(org_id).await?)
    }

    /// Credit tokens into a house (append-only: one entry, the running totals move with it).
    /// The way a domain grants tokens outside a payment.
    pub(crate) async fn credit_tokens(&self, credit: NewCredit) -> Result<BalanceRow> {
        Ok(self.store.credit(credit).await?)
    }

    /// The live price book over the given runnable tools, each with the input roles its
    /// provider requires.
    pub fn price_book(&self, tools: &[&str]) -> PriceBook {
        let mut book = self.studio.config.prices.book(tools);
        for entry in &mut book.tools {
            if let Some(provider) = self.studio.config.providers.get(&entry.tool) {
                entry.roles = provider.required_roles(&entry.tool).iter().map(|r| r.to_string()).collect();
            }
        }
        book
    }
}
