//! Links sent by letter that prove an address: email verification (sign-up, resend) and
//! password reset (request, confirm).
//!
//! A token is 32 random bytes (64 hex characters) in the letter's link and only its SHA-256 in
//! storage, looked up by that hash (no secret is compared in memory). It is single-use: the
//! update that spends it matches only an unspent, unreplaced, unexpired row, so two concurrent
//! uses spend it once. A new letter of the same purpose replaces the person's earlier tokens.
//! Verification links work 48 hours, reset links 1 hour (`MailConfig`); each person may be sent
//! a few letters of each purpose per hour.

use crate::accounts::Accounts;
use crate::ids::UserId;
use chrono::Duration;

use crate::accounts::{Email, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, hash_password};
use crate::api::{
    EmailVerified, PasswordResetConfirm, PasswordResetDone, PasswordResetRequest, PasswordResetRequested,
    VerificationResent, VerifyEmailRequest,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{random_secret, sha256_hex};
use crate::mail::{Letter, templates};
use crate::storage::{EmailTokenRow, TokenUse, UserRow};

/// The purpose of a verification token.
const VERIFY: &str = "verify";
/// The purpose of a password-reset token.
const RESET: &str = "reset";

/// The refusal for a token that cannot be used, by why.
fn refused(why: TokenUse) -> Error {
    match why {
        TokenUse::Used => Error::gone("TOKEN_USED", "This link was used already; each link works once."),
        TokenUse::Replaced => Error::gone("TOKEN_REPLACED", "A newer letter replaced this link; use the latest one."),
        TokenUse::Expired => Error::gone("TOKEN_EXPIRED", "This link has expired; ask for a new letter."),
        TokenUse::AddressChanged => {
            Error::gone("TOKEN_STALE", "This link was for an address the account no longer has.")
        }
        TokenUse::Unknown | TokenUse::Accepted { .. } => invalid_token(),
    }
}

fn invalid_token() -> Error {
    Error::invalid("INVALID_TOKEN", "This link is not valid.")
}

/// The hash a presented token is looked up by; 400 `INVALID_TOKEN` for one that cannot be ours.
fn token_hash(token: &str) -> Result<String> {
    let token = token.trim();
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid_token());
    }
    Ok(sha256_hex(&token.to_ascii_lowercase()))
}

impl Accounts<'_> {
    /// Post a verification letter to the person (making earlier verification links stop
    /// working). The letter's link is `<link base>/verify-email?token=…`.
    pub(crate) async fn send_verification(&self, user: &UserRow) -> Result<uuid::Uuid> {
        let hours = self.studio.config.mail.verify_hours.max(1);
        let token = self.issue_token(user, VERIFY, Duration::hours(hours)).await?;
        let link = self.studio.mail().mail_link(&format!("/verify-email?token={token}"));
        let written = templates::verify_email(user.name.as_deref(), &link, hours);
        self.studio
            .mail()
            .post_letter(Letter {
                kind: "verify-email",
                to: user.email.clone(),
                user_id: Some(user.id.to_string()),
                subject: written.subject,
                html: written.html,
                text: written.text,
            })
            .await
    }

    async fn issue_token(&self, user: &UserRow, purpose: &str, lifetime: Duration) -> Result<String> {
        let token = random_secret();
        let now = crate::ids::now();
        self.studio
            .mail()
            .issue_email_token(EmailTokenRow {
                token_hash: sha256_hex(&token),
                user_id: user.id.clone(),
                purpose: purpose.to_string(),
                email: user.email.clone(),
                created_at: now,
                expires_at: now + lifetime,
                used_at: None,
                replaced_at: None,
            })
            .await?;
        Ok(token)
    }

    /// Seconds until the person may be sent another letter of `purpose`; None when now.
    async fn letter_wait(&self, user_id: &UserId, purpose: &str) -> Result<Option<u64>> {
        let now = crate::ids::now();
        let hour = Duration::hours(1);
        let (count, oldest) = self.studio.mail().recent_email_tokens(user_id, purpose, now - hour).await?;
        if count < self.studio.config.mail.letters_per_hour.max(1) {
            return Ok(None);
        }
        let wait = oldest.map(|t| (t + hour - now).num_seconds()).unwrap_or(60);
        Ok(Some(u64::try_from(wait.max(1)).unwrap_or(1)))
    }

    /// Public: spend a verification token and mark the address verified. 400 `INVALID_TOKEN`;
    /// 410 `TOKEN_USED`, `TOKEN_REPLACED`, `TOKEN_EXPIRED`, `TOKEN_STALE`.
    pub async fn verify_email(&self, req: VerifyEmailRequest) -> Result<EmailVerified> {
        let hash = token_hash(&req.token)?;
        match self.studio.mail().use_verify_token(&hash, crate::ids::now()).await? {
            TokenUse::Accepted { email, .. } => Ok(EmailVerified { ok: true, email, email_verified: true }),
            other => Err(refused(other)),
        }
    }

    /// A signed-in person asks for a new verification letter (earlier links stop working).
    /// A key is refused 403 `SESSION_REQUIRED`; 429 `RATE_LIMITED` past the hourly allowance.
    pub async fn resend_verification(&self, caller: &Caller) -> Result<VerificationResent> {
        caller.require_session()?;
        let user =
            self.store.user_by_id(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        if self.studio.mail().email_verified(&user.id).await? {
            return Ok(VerificationResent { ok: true, sent: false, already_verified: true });
        }
        if let Some(wait) = self.letter_wait(&user.id, VERIFY).await? {
            return Err(Error::rate_limited("Enough verification letters were sent this hour; try again later.", wait));
        }
        self.send_verification(&user).await?;
        Ok(VerificationResent { ok: true, sent: true, already_verified: false })
    }

    /// Public: ask for a password-reset letter. Always the same answer, whether or not the
    /// address has an account; the letter is posted in the background, so the answer's timing
    /// does not tell either.
    pub async fn request_password_reset(&self, req: PasswordResetRequest) -> Result<PasswordResetRequested> {
        if let Some(Ok(email)) = req.email.as_deref().map(Email::parse) {
            let studio = self.studio.clone();
            tokio::spawn(async move {
                if let Err(e) = studio.accounts().post_reset_letter(&email).await {
                    tracing::warn!(error = %e, "a password-reset letter could not be posted");
                }
            });
        }
        Ok(PasswordResetRequested { ok: true })
    }

    async fn post_reset_letter(&self, email: &Email) -> Result<()> {
        let Some(user) = self.store.user_by_email(email.as_str()).await? else { return Ok(()) };
        if self.letter_wait(&user.id, RESET).await?.is_some() {
            tracing::info!(user = %user.id, "password-reset letter not sent: the hourly allowance is spent");
            return Ok(());
        }
        let minutes = self.studio.config.mail.reset_minutes.max(1);
        let token = self.issue_token(&user, RESET, Duration::minutes(minutes)).await?;
        let link = self.studio.mail().mail_link(&format!("/reset-password?token={token}"));
        let written = templates::password_reset(&link, minutes);
        self.studio
            .mail()
            .post_letter(Letter {
                kind: "password-reset",
                to: user.email.clone(),
                user_id: Some(user.id.to_string()),
                subject: written.subject,
                html: written.html,
                text: written.text,
            })
            .await?;
        Ok(())
    }

    /// Public: spend a reset token, set the new password and end every session of the person
    /// (and mark the address verified: the letter reached it). 400 `WEAK_PASSWORD`,
    /// `INVALID_TOKEN`; 410 as [`Studio::verify_email`].
    pub async fn confirm_password_reset(&self, req: PasswordResetConfirm) -> Result<PasswordResetDone> {
        let hash = token_hash(&req.token)?;
        let chars = req.password.chars().count();
        if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&chars) {
            return Err(Error::invalid(
                "WEAK_PASSWORD",
                format!("Use a password of {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters."),
            ));
        }
        let password_hash = hash_password(req.password).await?;
        match self.studio.mail().use_reset_token(&hash, &password_hash, crate::ids::now()).await? {
            TokenUse::Accepted { sessions_ended, .. } => Ok(PasswordResetDone { ok: true, sessions_ended }),
            other => Err(refused(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::token_hash;

    #[test]
    fn only_well_formed_tokens_are_looked_up() {
        let token = "a".repeat(64);
        assert_eq!(token_hash(&token).ok(), token_hash(&token.to_uppercase()).ok(), "hex is case-blind");
        for bad in ["", "abc", &"g".repeat(64), &"a".repeat(65)] {
            assert_eq!(token_hash(bad).unwrap_err().code, "INVALID_TOKEN", "{bad}");
        }
    }
}
