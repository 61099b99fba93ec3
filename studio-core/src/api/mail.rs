//! Mail on the wire: email verification, password reset, the admin's letter archive, the mail
//! delivery webhook and the drip trigger.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `POST /api/auth/verify-email`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyEmailRequest {
    /// The token from the verification letter's link.
    pub token: String,
}

/// `200` answer of verify-email.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailVerified {
    /// Always true.
    pub ok: bool,
    /// The address now verified.
    pub email: String,
    /// Always true.
    pub email_verified: bool,
}

/// `200` answer of `POST /api/auth/verify-email/resend`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerificationResent {
    /// Always true.
    pub ok: bool,
    /// True when a new letter was posted (which made every earlier link stop working).
    pub sent: bool,
    /// True when the address is already verified (and nothing was sent).
    pub already_verified: bool,
}

/// `POST /api/auth/password-reset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PasswordResetRequest {
    /// The account's email.
    #[serde(default)]
    pub email: Option<String>,
}

/// `200` answer of a password-reset request: the same whether or not the address has an account.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PasswordResetRequested {
    /// Always true.
    pub ok: bool,
}

/// `POST /api/auth/password-reset/confirm`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PasswordResetConfirm {
    /// The token from the reset letter's link.
    pub token: String,
    /// The new password (10 to 512 characters).
    pub password: String,
}

/// `200` answer of a password-reset confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasswordResetDone {
    /// Always true.
    pub ok: bool,
    /// How many of the person's sessions were ended (all of them).
    pub sessions_ended: u64,
}

/// The most letters one admin page lists.
pub const MAX_EMAIL_PAGE: u32 = 200;
/// The page size when none is asked for.
pub const DEFAULT_EMAIL_PAGE: u32 = 50;

/// Query of `GET /api/toolkit/admin/emails`: `id` for one letter, else a filtered page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdminEmailsQuery {
    /// One letter, with its archived html and text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Only letters to this address (case-insensitive, exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Only letters of this kind (`verify-email`, `password-reset`, `drip-welcome`,
    /// `drip-first-develop`, `drip-tips`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Only letters with this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Page size, 1 to 200 (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// A letter as the admin sees it. `html` and `text` are present only when one letter is asked
/// for by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailLetter {
    /// Letter id (a UUID).
    pub id: String,
    /// What the letter is.
    pub kind: String,
    /// Recipient.
    pub to: String,
    /// The person it was written to, when known.
    pub user_id: Option<String>,
    /// Subject line.
    pub subject: String,
    /// queued, sent, failed, delivered, bounced or complained.
    pub status: String,
    /// Delivery attempts begun.
    pub attempts: i64,
    /// The last delivery failure.
    pub last_error: Option<String>,
    /// When it was posted.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// When the SMTP server accepted it.
    pub sent_at: Option<DateTime<Utc>>,
    /// The archived HTML body (one letter only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// The archived plain-text body (one letter only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A page of letters, newest first, without bodies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailList {
    /// The letters.
    pub emails: Vec<EmailLetter>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}

/// One letter with its bodies (`?id=`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmailOne {
    /// The letter.
    pub email: EmailLetter,
}

/// The answer of `GET /api/toolkit/admin/emails`: a page, or one letter for `?id=`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AdminEmails {
    /// `?id=`: one letter with html and text.
    One(Box<EmailOne>),
    /// A page of letters.
    List(EmailList),
}

/// `200` answer of the mail delivery webhook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MailWebhookAck {
    /// Always true: the delivery was received.
    pub ok: bool,
    /// This webhook id was received before; nothing changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<bool>,
    /// The event is not a delivery report we keep, or names no letter of ours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored: Option<bool>,
    /// The letter's status after the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// `200` answer of `POST /api/email/drip`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DripRun {
    /// Onboarding letters queued by this run.
    pub queued: u64,
    /// People looked at (verified sign-ups inside the schedule's window).
    pub checked: u64,
}
