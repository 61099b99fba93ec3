//! People, houses and browser sessions: sign-up, sign-in, sign-out, session lookup and the
//! public check-email. Beside it: keys, seats, memories, the person's own record (profile) and
//! the tool catalogue (access). Passwords are Argon2id, hashed off the async runtime.

use crate::ids::{OrgId, UserId};
pub(crate) mod access;
mod email_links;
pub(crate) mod key_cache;
pub(crate) mod keys;
pub(crate) mod memory;
pub(crate) mod profile;
pub(crate) mod seats;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString, rand_core::OsRng};
use chrono::Duration;

use crate::api::{
    CheckEmailRequest, CheckEmailResponse, Organization, SeatRole, SessionInfo, SignInRequest, SignUpRequest,
    SignUpResponse, User,
};
use crate::caller::{Caller, Via};
use crate::error::{Error, Result};
use crate::ids::{random_secret, sha256_hex};
use crate::storage::{MembershipRow, NewAccount, OrgRow, SessionRow, StorageError, UserListRow, UserRow};

/// Shortest password accepted at sign-up.
const MIN_PASSWORD_CHARS: usize = 10;
/// Longest password accepted (Argon2 cost is per byte; this bounds it).
const MAX_PASSWORD_CHARS: usize = 512;

/// A syntactically valid, lowercased email address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    /// Parse and normalise (trim, lowercase). Refuses anything without exactly one `@`, a
    /// non-empty local part, a dotted domain, whitespace, or more than 254 characters.
    pub fn parse(raw: &str) -> Result<Email> {
        let s = raw.trim().to_lowercase();
        let bad = || Error::invalid("BAD_EMAIL", "That does not look like an email address.");
        if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad());
        }
        let (local, domain) = s.split_once('@').ok_or_else(bad)?;
        let domain_ok = domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && !domain.contains('@');
        if local.is_empty() || !domain_ok {
            return Err(bad());
        }
        Ok(Email(s))
    }

    /// The normalised address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The value of a session cookie. Only its SHA-256 is stored.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(pub String);

impl std::fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionToken(..)")
    }
}

pub(crate) fn user_view(u: &UserRow) -> User {
    User { id: u.id.to_string(), email: u.email.clone(), name: u.name.clone(), created_at: u.created_at }
}

pub(crate) fn org_view(o: &OrgRow) -> Organization {
    Organization { id: o.id.to_string(), name: o.name.clone(), created_at: o.created_at }
}

async fn hash_password(password: String) -> Result<String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string())
    })
    .await
    .map_err(Error::internal)?
    .map_err(Error::internal)
}

/// A hash of a password nobody has, verified against when the email is unknown, so an unknown
/// email costs exactly one verification, like a wrong password.
fn stand_in_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default().hash_password(random_secret().as_bytes(), &salt).map(|h| h.to_string()).unwrap_or_default()
    })
}

/// Verify off the runtime; false for an absent hash after the same work as a real check.
async fn verify_password(password: String, hash: Option<String>) -> Result<bool> {
    tokio::task::spawn_blocking(move || {
        let phc = hash.as_deref().unwrap_or_else(|| stand_in_hash());
        let ok = PasswordHash::new(phc)
            .map(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
            .unwrap_or(false);
        ok && hash.is_some()
    })
    .await
    .map_err(Error::internal)
}

crate::studio::view! {
    /// The accounts domain (sign-up and sessions, keys, profiles, seats, memories): `studio.accounts()`.
    Accounts over AccountsStores
}

impl Accounts<'_> {
    /// True while nobody has signed up yet (the first-run hint).
    pub async fn is_empty(&self) -> Result<bool> {
        Ok(self.store.user_count().await? == 0)
    }

    /// Create a person, their personal house (they own it), the sign-up grant and a session.
    pub async fn sign_up(&self, req: SignUpRequest) -> Result<(SignUpResponse, SessionToken)> {
        let email = Email::parse(&req.email)?;
        let chars = req.password.chars().count();
        if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&chars) {
            return Err(Error::invalid(
                "WEAK_PASSWORD",
                format!("Use a password of {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters."),
            ));
        }
        let name = req.name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
        if name.as_ref().is_some_and(|n| n.chars().count() > 100) {
            return Err(Error::invalid("BAD_NAME", "A name is at most 100 characters."));
        }
        if self.store.user_by_email(email.as_str()).await?.is_some() {
            return Err(email_taken());
        }
        let now = crate::ids::now();
        let hash = hash_password(req.password).await?;
        let house_name = match &name {
            Some(n) => format!("{n}'s house"),
            None => format!("{}'s house", email.as_str().split('@').next().unwrap_or("My")),
        };
        let user = UserRow {
            id: UserId::generate(),
            email: email.as_str().to_string(),
            name,
            password_hash: Some(hash),
            created_at: now,
        };
        let org = OrgRow { id: OrgId::generate(), name: house_name, created_at: now };
        let account = NewAccount {
            user: user.clone(),
            org: org.clone(),
            grant_tokens: self.studio.config.signup_grant_tokens.max(0),
        };
        match self.store.create_account(account).await {
            Ok(()) => {}
            Err(StorageError::Conflict(_)) => return Err(email_taken()),
            Err(e) => return Err(e.into()),
        }
        // The account stands even if the letter cannot be posted: the person can ask again.
        if let Err(e) = self.send_verification(&user).await {
            tracing::warn!(user = %user.id, error = %e, "the verification letter could not be posted");
        }
        let token = self.start_session(&user.id, &org.id).await?;
        Ok((SignUpResponse { user: user_view(&user), organization: org_view(&org) }, token))
    }

    /// Check a password and open a session on the person's home house. An unknown email and a
    /// wrong password get the same answer.
    pub async fn sign_in(&self, req: SignInRequest) -> Result<(SignUpResponse, SessionToken)> {
        let bad = || Error::new(crate::ErrorKind::Unauthenticated, "BAD_CREDENTIALS", "Email or password is wrong.");
        let user = match Email::parse(&req.email) {
            Ok(email) => self.store.user_by_email(email.as_str()).await?,
            Err(_) => None,
        };
        let ok = verify_password(req.password, user.as_ref().and_then(|u| u.password_hash.clone())).await?;
        let (true, Some(user)) = (ok, user) else { return Err(bad()) };
        let seat = self.store.home_membership(&user.id).await?.ok_or_else(bad)?;
        let org = self.store.org_by_id(&seat.org_id).await?.ok_or_else(bad)?;
        let token = self.start_session(&user.id, &org.id).await?;
        Ok((SignUpResponse { user: user_view(&user), organization: org_view(&org) }, token))
    }

    /// Forget a session. Harmless for an unknown or expired token.
    pub async fn sign_out(&self, token: &SessionToken) -> Result<()> {
        self.store.delete_session(&sha256_hex(&token.0)).await?;
        Ok(())
    }

    async fn start_session(&self, user_id: &UserId, org_id: &OrgId) -> Result<SessionToken> {
        let secret = format!("sess_{}", random_secret());
        let now = crate::ids::now();
        self.store
            .insert_session(SessionRow {
                token_hash: sha256_hex(&secret),
                user_id: user_id.clone(),
                org_id: org_id.clone(),
                created_at: now,
                expires_at: now + Duration::days(self.studio.config.session_days.max(1)),
            })
            .await?;
        Ok(SessionToken(secret))
    }

    /// A machine caller: the presented secret checked against the configured secret of `kind`
    /// (constant time). 401 when it does not match, is another kind's, or `kind` has none;
    /// except the support bridge, whose routes answer 503 `SUPPORT_BRIDGE_NOT_CONFIGURED` to
    /// everyone while `STUDIO_SUPPORT_BRIDGE_SECRET` is unset (§4.11).
    pub fn authenticate_machine(
        &self,
        kind: crate::caller::MachineKind,
        presented: &str,
    ) -> Result<crate::caller::Machine> {
        if kind == crate::caller::MachineKind::SupportBridge && !self.studio.config.machines.is_configured(kind) {
            return Err(Error::new(
                crate::error::ErrorKind::NotConfigured,
                "SUPPORT_BRIDGE_NOT_CONFIGURED",
                "Escalations are not configured on this server (STUDIO_SUPPORT_BRIDGE_SECRET).",
            ));
        }
        self.studio.config.machines.verify(kind, presented)
    }

    /// The caller behind a session cookie; 401 when unknown, expired or the seat is gone.
    pub async fn authenticate_session(&self, token: &SessionToken) -> Result<Caller> {
        let no = || Error::unauthenticated("No valid session");
        let seat = self.store.session_seat(&sha256_hex(&token.0), crate::ids::now()).await?.ok_or_else(no)?;
        let role: SeatRole = seat.role.parse().map_err(Error::internal)?;
        Ok(Caller {
            // Read on every request: `admin remove` takes effect on the next call. The allowlist
            // counts only for an address its owner has proven.
            admin: seat.platform_admin
                || (seat.email_verified
                    && self.studio.config.admin_emails.iter().any(|a| a.eq_ignore_ascii_case(&seat.email))),
            org_id: seat.org_id,
            user_id: seat.user_id,
            role,
            via: Via::Session,
            library_version: None,
        })
    }

    /// Who the caller is: the person, the house and the effective role.
    pub async fn session_info(&self, caller: &Caller) -> Result<SessionInfo> {
        let user =
            self.store.user_by_id(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        let org =
            self.store.org_by_id(&caller.org_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        Ok(SessionInfo { user: user_view(&user), organization: org_view(&org), role: caller.role })
    }

    /// Public: does a person with this email exist, and can they sign in with a password?
    /// Never refuses: a missing or malformed email answers false, false.
    pub async fn check_email(&self, req: CheckEmailRequest) -> Result<CheckEmailResponse> {
        let user = match req.email.as_deref().map(Email::parse) {
            Some(Ok(email)) => self.store.user_by_email(email.as_str()).await?,
            _ => None,
        };
        Ok(CheckEmailResponse { exists: user.is_some(), has_password: user.is_some_and(|u| u.password_hash.is_some()) })
    }
}

impl Accounts<'_> {
    /// A person by id.
    pub(crate) async fn user(&self, id: &UserId) -> Result<Option<UserRow>> {
        Ok(self.store.user_by_id(id).await?)
    }

    /// A person by lowercased email.
    pub(crate) async fn user_with_email(&self, email: &str) -> Result<Option<UserRow>> {
        Ok(self.store.user_by_email(email).await?)
    }

    /// A house by id.
    pub(crate) async fn house(&self, id: &OrgId) -> Result<Option<OrgRow>> {
        Ok(self.store.org_by_id(id).await?)
    }

    /// The seat a person signs into: in the oldest house they own, else their oldest seat.
    pub(crate) async fn home_seat(&self, user_id: &UserId) -> Result<Option<MembershipRow>> {
        Ok(self.store.home_membership(user_id).await?)
    }

    /// How many people have an account.
    pub(crate) async fn user_count(&self) -> Result<i64> {
        Ok(self.store.user_count().await?)
    }

    /// People, newest first, optionally whose email or name contains `query`; a keyset page.
    pub(crate) async fn users_page(
        &self,
        query: Option<&str>,
        limit: i64,
        after: Option<(chrono::DateTime<chrono::Utc>, String)>,
    ) -> Result<Vec<UserListRow>> {
        Ok(self.store.list_users(query, limit, after).await?)
    }

    /// Make the person with this (lowercased) email a platform admin or not; None when unknown.
    pub(crate) async fn set_platform_admin(&self, email: &str, admin: bool) -> Result<Option<UserRow>> {
        Ok(self.store.set_platform_admin(email, admin).await?)
    }

    /// Every platform admin, by email.
    pub(crate) async fn platform_admins(&self) -> Result<Vec<UserRow>> {
        Ok(self.store.platform_admins().await?)
    }
}

fn email_taken() -> Error {
    Error::conflict("EMAIL_TAKEN", "A person with that email already exists; sign in instead.")
}

#[cfg(test)]
mod tests {
    use super::Email;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(Email::parse("  Ada@Example.COM ").map(|e| e.0).ok(), Some("ada@example.com".to_string()));
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "a da@example.com",
            "ada@@example.com",
            "ada@example..com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
