//! Mail: the letter archive that is also the outbox, delivery reports, the drip's record and
//! the email tokens (verification, password reset): the rows and the `MailStore` trait.

use crate::ids::{LetterId, ProviderRef, UserId};
use chrono::{DateTime, Utc};

use super::{LetterStatus, StorageError};

/// A letter as archived. The same row is the outbox entry: `queued` until a worker sends it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct LetterRow {
    /// Id (a time-ordered UUID, as text).
    pub id: LetterId,
    /// What the letter is (`verify-email`, `password-reset`, `drip-welcome`, ...).
    pub kind: String,
    /// The recipient's address.
    pub to_addr: String,
    /// The person it was written to, when known.
    pub user_id: Option<UserId>,
    /// Subject line.
    pub subject: String,
    /// HTML body.
    pub html: String,
    /// Plain-text body.
    pub text: String,
    /// queued, sent, failed, delivered, bounced or complained (a CHECK constraint).
    pub status: LetterStatus,
    /// Delivery attempts begun (a claim counts as one).
    pub attempts: i64,
    /// A queued letter is not claimed before this.
    pub next_attempt_at: DateTime<Utc>,
    /// The current claim's token; only its holder may record the outcome.
    pub claim_token: Option<String>,
    /// The current claim lapses at this time; another worker may then take the letter over.
    pub lease_until: Option<DateTime<Utc>>,
    /// The last failure, for the admin's eyes.
    pub last_error: Option<String>,
    /// Posting time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// When the SMTP server accepted it.
    pub sent_at: Option<DateTime<Utc>>,
}

/// The outcome of one delivery attempt, recorded by the claim's holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LetterOutcome {
    /// The SMTP server accepted the letter.
    Sent,
    /// Try again at this time.
    Retry {
        /// Why it failed.
        error: String,
        /// The next attempt's earliest time.
        at: DateTime<Utc>,
    },
    /// Give up.
    Failed {
        /// Why.
        error: String,
    },
}

/// Filters of the admin's letter list; every one optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LetterFilter {
    /// Exact recipient (lowercased).
    pub to: Option<String>,
    /// Exact kind.
    pub kind: Option<String>,
    /// Exact status.
    pub status: Option<LetterStatus>,
    /// Only letters with an id below this one (the page cursor).
    pub before_id: Option<String>,
    /// Page size.
    pub limit: i64,
}

/// What a delivery report did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailEventOutcome {
    /// Recorded; the letter now has this status.
    Applied(LetterStatus),
    /// This webhook id was recorded before; nothing changed.
    Duplicate,
    /// Recorded, but it names no letter we keep.
    UnknownLetter,
}

/// A person the drip looks at: a recent sign-up with a proven address, what they have done and
/// which onboarding letters they have been sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DripCandidate {
    /// The person.
    pub user_id: UserId,
    /// Their address.
    pub email: String,
    /// Display name.
    pub name: Option<String>,
    /// Sign-up time.
    pub created_at: DateTime<Utc>,
    /// True once any develop carries their name.
    pub has_develop: bool,
    /// The drip steps already recorded for them.
    pub steps_sent: Vec<String>,
}

/// An email token as stored: only the SHA-256 of the secret.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct EmailTokenRow {
    /// SHA-256 hex of the secret.
    pub token_hash: String,
    /// The person.
    pub user_id: UserId,
    /// `verify` or `reset`.
    pub purpose: String,
    /// The address the letter went to (a verification proves only this address).
    pub email: String,
    /// Issue time.
    pub created_at: DateTime<Utc>,
    /// Refused from this time.
    pub expires_at: DateTime<Utc>,
    /// When it was used (once).
    pub used_at: Option<DateTime<Utc>>,
    /// When a newer token of the same purpose replaced it.
    pub replaced_at: Option<DateTime<Utc>>,
}

/// What presenting an email token did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenUse {
    /// Accepted (and now spent); the person's id and the address it proves.
    Accepted {
        /// The person.
        user_id: String,
        /// The address.
        email: String,
        /// Sessions ended (a password reset ends them all).
        sessions_ended: u64,
    },
    /// No token has this hash (for this purpose).
    Unknown,
    /// Used before.
    Used,
    /// A newer token replaced it.
    Replaced,
    /// Past its expiry.
    Expired,
    /// The person's address changed since the letter went out.
    AddressChanged,
}

/// The letter archive and outbox, delivery reports, the drip's record and email tokens.
#[async_trait::async_trait]
pub trait MailStore: Send + Sync {
    /// Archive a letter (which queues it when its status is `queued`).
    async fn insert_letter(&self, letter: LetterRow) -> Result<(), StorageError>;
    /// One letter.
    async fn letter(&self, id: &LetterId) -> Result<Option<LetterRow>, StorageError>;
    /// Letters newest first (by id), filtered, at most `filter.limit`.
    async fn list_letters(&self, filter: &LetterFilter) -> Result<Vec<LetterRow>, StorageError>;
    /// Claim the queued letter due longest ago whose claim (if any) has lapsed: write the claim
    /// token and a lease until `lease_until` and count an attempt. Two workers never hold the
    /// same letter at once (`SKIP LOCKED` on PostgreSQL; the recheck in the update everywhere).
    async fn claim_letter(
        &self,
        claim_token: &str,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<LetterRow>, StorageError>;
    /// Record an attempt's outcome, only while `claim_token` still holds the letter; false when
    /// the claim was lost (its lease lapsed and another worker took the letter).
    async fn finish_letter(
        &self,
        id: &LetterId,
        claim_token: &str,
        outcome: &LetterOutcome,
        now: DateTime<Utc>,
    ) -> Result<bool, StorageError>;
    /// Record a delivery report once per webhook id and move the letter's status up to
    /// `status` (delivered < bounced < complained; a report never moves it back).
    async fn apply_mail_event(
        &self,
        webhook_id: &ProviderRef,
        letter_id: Option<&LetterId>,
        status: LetterStatus,
        now: DateTime<Utc>,
    ) -> Result<MailEventOutcome, StorageError>;
    /// People signed up at or after `since` whose address is verified, oldest first, at most
    /// `limit`, with what the drip needs to know about each.
    async fn drip_candidates(&self, since: DateTime<Utc>, limit: i64) -> Result<Vec<DripCandidate>, StorageError>;
    /// Record drip step `step` for the letter's person and archive the letter, in one
    /// transaction; false (and nothing written) when the step was recorded before.
    async fn post_drip_letter(&self, step: &str, letter: LetterRow) -> Result<bool, StorageError>;
    /// Store a new email token, marking the person's earlier unspent tokens of the same purpose
    /// replaced, in one transaction.
    async fn issue_email_token(&self, token: EmailTokenRow) -> Result<(), StorageError>;
    /// How many tokens of `purpose` were issued to the person at or after `since`, and the
    /// oldest of those times.
    async fn recent_email_tokens(
        &self,
        user_id: &UserId,
        purpose: &str,
        since: DateTime<Utc>,
    ) -> Result<(i64, Option<DateTime<Utc>>), StorageError>;
    /// Spend a verification token and mark the address verified, in one transaction.
    async fn use_verify_token(&self, token_hash: &str, now: DateTime<Utc>) -> Result<TokenUse, StorageError>;
    /// Spend a reset token, set the new password hash, mark the address verified (the letter
    /// proved it) and end every session of the person, in one transaction.
    async fn use_reset_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<TokenUse, StorageError>;
    /// True once the person's address is verified.
    async fn email_verified(&self, user_id: &UserId) -> Result<bool, StorageError>;
}
