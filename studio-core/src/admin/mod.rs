//! The platform admin console (`/api/toolkit/admin/...`). Every operation hangs off the view
//! [`Admin`] (`studio.admin()`) and takes a [`PlatformAdmin`] proof, which only
//! [`Caller::as_admin`](crate::Caller::as_admin) makes: an admin operation cannot be reached
//! without the check: token grants into a person's house here, the people pages (access, users,
//! onboarding, tool items) in `people.rs`; the console's figures in `costs.rs` (AI costs, kept
//! cost), `develops.rs` (develops, the retry/cancel action, failures), `frames.rs`, `judge.rs`
//! (kept verdicts and their rollup) and `figures.rs` (overview, payments, tokenomics), their
//! shared windows, pages and buckets in `window.rs`; the analyst and its reflection
//! findings in `analyst.rs`, the memory desk in `memories.rs`.
//!
//! [`Operator`] (`studio.operator()`) is what the server binary's `admin add|list|remove`
//! commands call: whoever can run the binary against the database is the authority there, so
//! it takes no proof. It is how the first platform admin is made; signing up never makes one.

use crate::ids::UserId;
mod analyst;
mod costs;
mod develops;
mod figures;
mod frames;
mod judge;
mod memories;
mod offerings;
mod people;
pub(crate) mod window;

pub(crate) use costs::{AI_READER, FAL, LOCAL};

use chrono::Duration;

use crate::accounts::user_view;
use crate::api::{GrantTokensRequest, GrantTokensResponse, User};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::storage::{Bucket, NewCredit};

/// The largest admin grant in one call.
const MAX_ADMIN_GRANT: i64 = 1_000_000;
/// The longest admin grant expiry, in days.
const MAX_EXPIRY_DAYS: i64 = 3650;

/// (limit, cursor) of an admin page query paged by id (limit as [`window::page_limit`]); 400
/// `BAD_CURSOR` when the cursor is not an id of `prefix`, the kind of thing the list pages through.
pub(crate) fn page(limit: Option<i64>, cursor: Option<&str>, prefix: &str) -> Result<(i64, Option<String>)> {
    let limit = window::page_limit(limit)?;
    let cursor = cursor.map(str::trim).filter(|c| !c.is_empty()).map(str::to_string);
    if cursor.as_deref().is_some_and(|c| !c.starts_with(prefix)) {
        return Err(Error::invalid("BAD_CURSOR", "That cursor is not one we gave."));
    }
    Ok((limit, cursor))
}

crate::studio::view! {
    /// The admin console's operations: `studio.admin()`.
    Admin over AdminStores
}

/// The operator's commands on platform admins: `studio.admin().operator()`. They go through the
/// accounts view, so the operator carries no store of its own.
#[derive(Debug, Clone, Copy)]
pub struct Operator<'a>(&'a crate::studio::Studio);

impl<'a> Admin<'a> {
    /// The operator's commands (the server binary's `admin` subcommands), which need no
    /// signed-in platform admin: the operator runs them on the host.
    pub fn operator(&self) -> Operator<'a> {
        Operator(self.studio)
    }
}

impl Operator<'_> {
    /// Mark an existing account as platform admin; 404 `USER_NOT_FOUND` for an unknown email.
    pub async fn add_admin(&self, email: &str) -> Result<User> {
        self.set_admin(email, true).await
    }

    /// Take platform admin from an account (effective on its next request); 404 for an
    /// unknown email.
    pub async fn remove_admin(&self, email: &str) -> Result<User> {
        self.set_admin(email, false).await
    }

    /// Every platform admin.
    pub async fn admins(&self) -> Result<Vec<User>> {
        Ok(self.0.accounts().platform_admins().await?.iter().map(user_view).collect())
    }

    async fn set_admin(&self, email: &str, admin: bool) -> Result<User> {
        let email = email.trim().to_lowercase();
        let row = self.0.accounts().set_platform_admin(&email, admin).await?;
        row.as_ref()
            .map(user_view)
            .ok_or_else(|| Error::not_found("USER_NOT_FOUND", format!("No account has the email {email}.")))
    }
}

impl Admin<'_> {
    /// Grant tokens into a person's house (their home house), into the grant bucket, optionally
    /// expiring after `expiryDays`.
    pub async fn grant_tokens(&self, admin: &PlatformAdmin, req: GrantTokensRequest) -> Result<GrantTokensResponse> {
        let studio = self.studio;
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
        studio.accounts().user(&UserId::from(user_id)).await?.ok_or_else(not_found)?;
        let seat = studio.accounts().home_seat(&UserId::from(user_id)).await?.ok_or_else(not_found)?;
        let reason = req.reason.map(|r| r.trim().chars().take(500).collect::<String>()).filter(|r| !r.is_empty());
        let after = studio
            .billing()
            .credit_tokens(NewCredit {
                org_id: seat.org_id,
                bucket: Bucket::Grant,
                amount: tokens,
                user_id: Some(admin.user_id().clone()),
                reason: reason.unwrap_or_else(|| "admin grant".to_string()),
                expires_at,
                now: crate::ids::now(),
            })
            .await?;
        Ok(GrantTokensResponse { ok: true, granted: tokens, tokens: after.spendable(), expires_at })
    }
}
