//! The token ledger: the price book, the balance, holds (reserve / settle / release, each once)
//! and grants. The storage keeps the append-only entries and the running totals together.

use std::collections::BTreeMap;

use chrono::Duration;

use crate::api::{Balance, GrantTokensRequest, GrantTokensResponse, HoldView, Price, PriceBook, Quality, ToolPrice};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::storage::{Bucket, HoldRow, NewCredit, NewHold, ReserveOutcome, ResolveOutcome};
use crate::studio::Studio;

/// Every develop tool the API names (spec §4.3), in the order the spec lists them.
pub(crate) const DEVELOP_TOOLS: [&str; 12] = [
    "upscale",
    "reframe",
    "generate-character",
    "packshot",
    "camera-lens",
    "harmonize",
    "tryon",
    "iron",
    "cleanup",
    "color-change",
    "fit-adjust",
    "lookbook-video",
];

/// The largest admin grant in one call.
pub(crate) const MAX_ADMIN_GRANT: i64 = 1_000_000;
/// The longest admin grant expiry, in days.
const MAX_EXPIRY_DAYS: i64 = 3650;

/// Prices per quality for one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualityPrices {
    /// 1k.
    pub k1: i64,
    /// 2k.
    pub k2: i64,
    /// 4k.
    pub k4: i64,
}

impl QualityPrices {
    fn get(&self, q: Quality) -> i64 {
        match q {
            Quality::K1 => self.k1,
            Quality::K2 => self.k2,
            Quality::K4 => self.k4,
        }
    }
}

/// The live price book's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceBookConfig {
    /// Prices of every develop tool without its own row (the spec's reference: 9 / 13 / 19).
    pub develop: QualityPrices,
    /// Per-tool prices that differ from `develop`.
    pub overrides: BTreeMap<String, QualityPrices>,
    /// The charge for a tool the book has no rows for.
    pub fallback_charge: i64,
    /// Flat price of a utility lane (classify, read_model, ...).
    pub utility_charge: i64,
}

impl Default for PriceBookConfig {
    fn default() -> Self {
        PriceBookConfig {
            develop: QualityPrices { k1: 9, k2: 13, k4: 19 },
            overrides: BTreeMap::new(),
            fallback_charge: 13,
            utility_charge: 1,
        }
    }
}

impl PriceBookConfig {
    /// The tokens a develop of `tool` at `quality` settles for, when `tool` is in the book.
    pub fn price(&self, tool: &str, quality: Quality, book: &[&str]) -> i64 {
        if !book.contains(&tool) {
            return self.fallback_charge;
        }
        self.overrides.get(tool).unwrap_or(&self.develop).get(quality)
    }

    /// The price book for the tools that can run, in the order given.
    pub fn book(&self, tools: &[&str]) -> PriceBook {
        PriceBook {
            tools: tools
                .iter()
                .map(|tool| ToolPrice {
                    tool: tool.to_string(),
                    prices: Quality::ALL
                        .iter()
                        .map(|q| Price { resolution: q.as_str().to_string(), tokens: self.price(tool, *q, tools) })
                        .collect(),
                })
                .collect(),
            note: format!(
                "Tokens per develop by output quality; the price shown is the price that settles. \
                 Tools without rows charge {} tokens; utility lanes cost {} token.",
                self.fallback_charge, self.utility_charge
            ),
        }
    }
}

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
    HoldView { id: h.id.clone(), amount: h.amount, generation_id: h.generation_id.clone(), created_at: h.created_at }
}

fn resolved(outcome: ResolveOutcome, charge: bool) -> Result<HoldOutcome> {
    use crate::storage::HoldStatus;
    match outcome {
        ResolveOutcome::Resolved(_) if charge => Ok(HoldOutcome::Settled),
        ResolveOutcome::Resolved(_) => Ok(HoldOutcome::Released),
        ResolveOutcome::AlreadyResolved(h) if h.status() == HoldStatus::Settled => Ok(HoldOutcome::AlreadySettled),
        ResolveOutcome::AlreadyResolved(_) => Ok(HoldOutcome::AlreadyReleased),
        ResolveOutcome::NotFound => Err(Error::not_found("NOT_FOUND", "No such hold in this house.")),
    }
}

impl Studio {
    /// The caller's house balance with its open holds. Reads running totals, never history.
    pub async fn balance(&self, caller: &Caller) -> Result<Balance> {
        let totals = self.storage.balance(&caller.org_id).await?;
        let holds = self.storage.open_holds(&caller.org_id).await?;
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
            id: hold_id.unwrap_or_else(|| new_id("hold")),
            org_id: caller.org_id.clone(),
            amount,
            generation_id,
            user_id: Some(caller.user_id.clone()),
            now: crate::ids::now(),
        };
        match self.storage.reserve(hold).await? {
            ReserveOutcome::Reserved(h) => Ok(Reservation { hold: hold_view(&h), replayed: false }),
            ReserveOutcome::Existing(h) => Ok(Reservation { hold: hold_view(&h), replayed: true }),
            ReserveOutcome::Insufficient { need, spendable } => Err(Error::insufficient(need, spendable)),
        }
    }

    /// Charge a hold (the frame landed). Exactly once: a second call changes nothing.
    pub async fn settle_hold(&self, org_id: &str, hold_id: &str) -> Result<HoldOutcome> {
        resolved(self.storage.settle(org_id, hold_id, crate::ids::now()).await?, true)
    }

    /// Return a hold's tokens to the buckets they came from. Exactly once.
    pub async fn release_hold(&self, org_id: &str, hold_id: &str) -> Result<HoldOutcome> {
        resolved(self.storage.release(org_id, hold_id, crate::ids::now()).await?, false)
    }

    /// The live price book over the given runnable tools.
    pub fn price_book(&self, tools: &[&str]) -> PriceBook {
        self.config.prices.book(tools)
    }

    /// Admin: grant tokens into a person's house (their home house). Allowlisted sessions only.
    pub async fn admin_grant_tokens(&self, caller: &Caller, req: GrantTokensRequest) -> Result<GrantTokensResponse> {
        caller.require_platform_admin()?;
        let user_id = req.user_id.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let Some(user_id) = user_id else {
            return Err(Error::invalid("USER_REQUIRED", "Name the person with userId."));
        };
        let tokens = req.tokens.as_ref().and_then(|v| v.as_i64()).filter(|t| (1..=MAX_ADMIN_GRANT).contains(t));
        let Some(tokens) = tokens else {
            return Err(Error::invalid(
                "BAD_TOKENS",
                format!("tokens must be a whole number from 1 to {MAX_ADMIN_GRANT}."),
            )
            .with("max", MAX_ADMIN_GRANT));
        };
        let expires_at = match req.expiry_days {
            None => None,
            Some(d) if (1..=MAX_EXPIRY_DAYS).contains(&d) => Some(crate::ids::now() + Duration::days(d)),
            Some(_) => {
                return Err(Error::invalid(
                    "BAD_EXPIRY",
                    format!("expiryDays must be 1 to {MAX_EXPIRY_DAYS}, or null."),
                )
                .with("max", MAX_EXPIRY_DAYS));
            }
        };
        let not_found = || Error::not_found("USER_NOT_FOUND", "No person with that id.");
        self.storage.user_by_id(user_id).await?.ok_or_else(not_found)?;
        let seat = self.storage.home_membership(user_id).await?.ok_or_else(not_found)?;
        let reason = req.reason.map(|r| r.trim().chars().take(500).collect::<String>()).filter(|r| !r.is_empty());
        let after = self
            .storage
            .credit(NewCredit {
                org_id: seat.org_id,
                bucket: Bucket::Grant,
                amount: tokens,
                user_id: Some(caller.user_id.clone()),
                reason: reason.unwrap_or_else(|| "admin grant".to_string()),
                expires_at,
                now: crate::ids::now(),
            })
            .await?;
        Ok(GrantTokensResponse { ok: true, granted: tokens, tokens: after.spendable(), expires_at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_prices_and_fallback() {
        let config = PriceBookConfig::default();
        let tools = ["upscale", "packshot"];
        assert_eq!(config.price("upscale", Quality::K1, &tools), 9);
        assert_eq!(config.price("upscale", Quality::K2, &tools), 13);
        assert_eq!(config.price("packshot", Quality::K4, &tools), 19);
        assert_eq!(config.price("mystery", Quality::K4, &tools), config.fallback_charge);
        let book = config.book(&tools);
        assert_eq!(book.tools.len(), 2);
        assert_eq!(book.tools[0].prices.iter().map(|p| p.tokens).collect::<Vec<_>>(), vec![9, 13, 19]);
    }

    #[test]
    fn overrides_win() {
        let mut config = PriceBookConfig::default();
        config.overrides.insert("upscale".into(), QualityPrices { k1: 5, k2: 7, k4: 11 });
        assert_eq!(config.price("upscale", Quality::K2, &["upscale"]), 7);
    }
}
