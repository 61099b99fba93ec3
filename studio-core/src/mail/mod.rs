//! Mail: every letter Studio writes is archived in storage first, and the archive row is also
//! the outbox entry a background worker delivers from.
//!
//! - Other domains post a letter with [`Studio::post_letter`] (archive and queue in one write).
//! - [`Mailer`] is the seam to the outside: [`SmtpMailer`] (smtp.rs) in production, anything
//!   implementing the trait in tests. Without one, letters are archived only.
//! - The worker ([`Mail::run_worker`]) claims one due letter at a time with a lease, so several
//!   replicas never send a letter twice at once and a crashed worker's letter is taken over when
//!   its lease lapses; a failed attempt is retried with a growing wait, then given up.
//! - The admin reads the archive ([`Mail::emails`]); the mail provider reports deliveries through
//!   a signed webhook ([`Mail::webhook`]); an admin triggers the onboarding drip (drip.rs).
//!
//! See docs/mail.md.

use crate::ids::UserId;
use crate::ids::{LetterId, ProviderRef};
pub(crate) mod drip;
mod smtp;
pub(crate) mod templates;

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

pub use smtp::SmtpMailer;

use crate::api::{
    AdminEmails, AdminEmailsQuery, DEFAULT_EMAIL_PAGE, EmailLetter, EmailList, EmailOne, MAX_EMAIL_PAGE, MailWebhookAck,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, ErrorKind, Result};
use crate::payments::webhooks::{WebhookHeaders, verify};
use crate::storage::{EmailTokenRow, LetterFilter, LetterOutcome, LetterRow, LetterStatus, MailEventOutcome, TokenUse};

/// Every status a letter can have.
pub const LETTER_STATUSES: [&str; 6] = ["queued", "sent", "failed", "delivered", "bounced", "complained"];

/// A letter to post: what another domain hands to [`Studio::post_letter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Letter {
    /// What the letter is, e.g. `verify-email` (the admin filters on it).
    pub kind: &'static str,
    /// The recipient's address.
    pub to: String,
    /// The person it is written to, when known.
    pub user_id: Option<String>,
    /// Subject line.
    pub subject: String,
    /// HTML body (escape what you interpolate: see templates.rs).
    pub html: String,
    /// Plain-text body.
    pub text: String,
}

impl Letter {
    /// The archive row that queues this letter now, under `id`.
    pub(crate) fn queued(self, id: uuid::Uuid) -> LetterRow {
        let now = crate::ids::now();
        LetterRow {
            id: LetterId::from(id.to_string()),
            kind: self.kind.to_string(),
            to_addr: self.to,
            user_id: self.user_id.map(UserId::from),
            subject: self.subject,
            html: self.html,
            text: self.text,
            status: LetterStatus::Queued,
            attempts: 0,
            next_attempt_at: now,
            claim_token: None,
            lease_until: None,
            last_error: None,
            created_at: now,
            updated_at: now,
            sent_at: None,
        }
    }
}

/// One letter as a [`Mailer`] sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingLetter {
    /// The letter's id (the SMTP adapter puts it in the `Message-ID`).
    pub id: String,
    /// Recipient.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// HTML body.
    pub html: String,
    /// Plain-text body.
    pub text: String,
}

/// Why a letter was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailError {
    /// Worth another try later (a 4xx answer, a refused or dropped connection, a timeout).
    #[error("temporary failure: {0}")]
    Transient(String),
    /// Never worth another try (a 5xx answer, an unusable address).
    #[error("permanent failure: {0}")]
    Permanent(String),
}

/// Sends one letter. Implementations must be safe to call from several tasks at once.
#[async_trait::async_trait]
pub trait Mailer: Send + Sync + 'static {
    /// Hand the letter to the outside world; Ok once it is accepted.
    async fn send(&self, letter: &OutgoingLetter) -> std::result::Result<(), MailError>;
}

crate::studio::view! {
    /// The mail domain's operations: `studio.mail()`.
    Mail over MailStore
}

impl Mail<'_> {
    /// Archive a letter and queue it for delivery, in one write; wakes this process's worker.
    /// Answers the letter's id. Without SMTP configured the letter stays archived (`queued`).
    pub(crate) async fn post_letter(&self, letter: Letter) -> Result<uuid::Uuid, Error> {
        let id = uuid::Uuid::now_v7();
        self.store.insert_letter(letter.queued(id)).await?;
        self.studio.mail_wakeup.notify_one();
        Ok(id)
    }

    /// A link into the web app for letters: the configured base and `path_and_query`.
    pub(crate) fn mail_link(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.studio.config.mail.link_base.trim_end_matches('/'))
    }

    /// Store a letter's link token (by its hash), replacing the person's earlier ones of its purpose.
    pub(crate) async fn issue_email_token(&self, token: EmailTokenRow) -> Result<()> {
        self.store.issue_email_token(token).await?;
        Ok(())
    }

    /// How many tokens of `purpose` the person was issued since `since`, and the oldest's time.
    pub(crate) async fn recent_email_tokens(
        &self,
        user_id: &UserId,
        purpose: &str,
        since: DateTime<Utc>,
    ) -> Result<(i64, Option<DateTime<Utc>>)> {
        Ok(self.store.recent_email_tokens(user_id, purpose, since).await?)
    }

    /// Spend a verification token and mark the address verified, in one transaction.
    pub(crate) async fn use_verify_token(&self, token_hash: &str, now: DateTime<Utc>) -> Result<TokenUse> {
        Ok(self.store.use_verify_token(token_hash, now).await?)
    }

    /// Spend a reset token: the new password hash, the address verified, every session ended.
    pub(crate) async fn use_reset_token(
        &self,
        token_hash: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<TokenUse> {
        Ok(self.store.use_reset_token(token_hash, password_hash, now).await?)
    }

    /// True once the person's address is verified.
    pub(crate) async fn email_verified(&self, user_id: &UserId) -> Result<bool> {
        Ok(self.store.email_verified(user_id).await?)
    }
}

impl Mail<'_> {
    /// Deliver due letters through `mailer` until `shutdown` resolves: after each pass, wait
    /// for a letter posted in this process or the poll interval (letters posted on another
    /// replica). Every process with SMTP configured runs one.
    pub async fn run_worker(&self, mailer: Arc<dyn Mailer>, shutdown: impl std::future::Future<Output = ()>) {
        let studio = self.studio;
        tokio::pin!(shutdown);
        let poll = std::time::Duration::from_millis(studio.config.mail.poll_ms.max(10));
        loop {
            if let Err(e) = self.deliver_due(&*mailer).await {
                tracing::warn!(error = %e, "the mail worker's pass failed; retrying");
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = studio.mail_wakeup.notified() => {}
                () = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// One pass: claim and attempt due letters, one at a time, until none is due. Answers how
    /// many attempts were made.
    pub async fn deliver_due(&self, mailer: &dyn Mailer) -> Result<u64> {
        let mut attempts = 0;
        while self.deliver_one(mailer).await? {
            attempts += 1;
        }
        Ok(attempts)
    }

    /// Claim one due letter and attempt it; false when none is due.
    async fn deliver_one(&self, mailer: &dyn Mailer) -> Result<bool> {
        let studio = self.studio;
        let config = &studio.config.mail;
        let claim = crate::ids::random_secret();
        let now = crate::ids::now();
        let lease = Duration::seconds(config.lease_secs.max(2));
        let Some(row) = self.store.claim_letter(&claim, now, now + lease).await? else { return Ok(false) };
        let outcome = if row.attempts > config.max_attempts.max(1) {
            LetterOutcome::Failed { error: format!("gave up after {} attempts", row.attempts - 1) }
        } else if now - row.created_at > Duration::hours(config.max_age_hours.max(1)) {
            LetterOutcome::Failed { error: format!("not sent within {} hours of posting", config.max_age_hours) }
        } else {
            let letter = OutgoingLetter {
                id: row.id.to_string(),
                to: row.to_addr.clone(),
                subject: row.subject.clone(),
                html: row.html.clone(),
                text: row.text.clone(),
            };
            // Half the lease: the outcome is recorded while the claim still holds.
            let budget = (lease / 2).to_std().unwrap_or(std::time::Duration::from_secs(1));
            let sent = match tokio::time::timeout(budget, mailer.send(&letter)).await {
                Ok(sent) => sent,
                Err(_) => Err(MailError::Transient(format!("no answer within {} s", budget.as_secs()))),
            };
            match sent {
                Ok(()) => LetterOutcome::Sent,
                Err(MailError::Permanent(error)) => LetterOutcome::Failed { error },
                Err(MailError::Transient(error)) if row.attempts >= config.max_attempts => {
                    LetterOutcome::Failed { error: format!("gave up after {} attempts: {error}", row.attempts) }
                }
                Err(MailError::Transient(error)) => {
                    let at = crate::ids::now() + Duration::milliseconds(config.retry_delay_ms(row.attempts));
                    LetterOutcome::Retry { error, at }
                }
            }
        };
        match &outcome {
            LetterOutcome::Sent => tracing::info!(letter = %row.id, kind = %row.kind, "letter sent"),
            LetterOutcome::Retry { error, at } => {
                tracing::warn!(letter = %row.id, attempt = row.attempts, %error, retry_at = %at, "letter not sent; will retry")
            }
            LetterOutcome::Failed { error } => tracing::warn!(letter = %row.id, %error, "letter failed for good"),
        }
        if !self.store.finish_letter(&row.id, &claim, &outcome, crate::ids::now()).await? {
            tracing::warn!(letter = %row.id, "the letter's claim was taken over before its outcome was recorded");
        }
        Ok(true)
    }

    /// The admin's archive: one letter with its bodies (`id`), or a filtered page newest first
    /// without bodies. 404 `NOT_FOUND` for an unknown id; 400 `BAD_STATUS`, `BAD_LIMIT`,
    /// `BAD_CURSOR`.
    pub async fn emails(&self, _admin: &PlatformAdmin, query: AdminEmailsQuery) -> Result<AdminEmails> {
        let storage = &self.store;
        let present = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        if let Some(id) = present(query.id) {
            let missing = || Error::not_found("NOT_FOUND", "No letter has that id.");
            let id = uuid::Uuid::parse_str(&id).map_err(|_| missing())?;
            let row = storage.letter(&LetterId::from(id.to_string())).await?.ok_or_else(missing)?;
            return Ok(AdminEmails::One(Box::new(EmailOne { email: letter_view(row, true) })));
        }
        let status = match present(query.status) {
            None => None,
            Some(s) => Some(LetterStatus::parse(&s.to_lowercase()).ok_or_else(|| {
                Error::invalid("BAD_STATUS", format!("status is one of {}.", LETTER_STATUSES.join(", ")))
            })?),
        };
        let limit = query.limit.unwrap_or(DEFAULT_EMAIL_PAGE);
        if !(1..=MAX_EMAIL_PAGE).contains(&limit) {
            return Err(
                Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_EMAIL_PAGE}.")).with("max", MAX_EMAIL_PAGE)
            );
        }
        let before_id = match present(query.cursor) {
            Some(c) => Some(
                uuid::Uuid::parse_str(&c)
                    .map_err(|_| Error::invalid("BAD_CURSOR", "cursor is the nextCursor of an earlier page."))?
                    .to_string(),
            ),
            None => None,
        };
        let filter = LetterFilter {
            to: present(query.to).map(|t| t.to_lowercase()),
            kind: present(query.kind),
            status,
            before_id,
            limit: i64::from(limit) + 1,
        };
        let mut rows = storage.list_letters(&filter).await?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_cursor = if more { rows.last().map(|r| r.id.to_string()) } else { None };
        Ok(AdminEmails::List(EmailList {
            emails: rows.into_iter().map(|r| letter_view(r, false)).collect(),
            next_cursor,
        }))
    }

    /// The mail provider's delivery report (Standard Webhooks, signed with the configured
    /// secret): records delivered, bounced or complained on the letter, once per webhook id.
    /// 503 `MAIL_WEBHOOK_NOT_CONFIGURED` without a secret; 401 `BAD_SIGNATURE`; 400 `UNPARSEABLE`.
    pub async fn webhook(&self, headers: &WebhookHeaders, body: &[u8]) -> Result<MailWebhookAck> {
        let studio = self.studio;
        let Some(secret) = studio.config.mail.webhook_secret.as_deref() else {
            return Err(Error::new(
                ErrorKind::NotConfigured,
                "MAIL_WEBHOOK_NOT_CONFIGURED",
                "This server takes no mail delivery reports (STUDIO_MAIL_WEBHOOK_SECRET is unset).",
            ));
        };
        let now = crate::ids::now();
        let webhook_id = verify(secret, headers, body, now.timestamp()).map_err(|e| {
            tracing::warn!(error = %e, "mail webhook refused");
            Error::new(ErrorKind::Unauthenticated, "BAD_SIGNATURE", "The webhook signature does not verify.")
        })?;
        let report = DeliveryReport::parse(body)
            .ok_or_else(|| Error::invalid("UNPARSEABLE", "The webhook body is not a mail event."))?;
        let ack = MailWebhookAck { ok: true, duplicate: None, ignored: None, status: None };
        let Some(status) = report.status else { return Ok(MailWebhookAck { ignored: Some(true), ..ack }) };
        let outcome = self
            .store
            .apply_mail_event(
                &ProviderRef::from(&webhook_id),
                report.letter_id.clone().map(LetterId::from).as_ref(),
                status,
                now,
            )
            .await?;
        Ok(match outcome {
            MailEventOutcome::Applied(status) => MailWebhookAck { status: Some(status.to_string()), ..ack },
            MailEventOutcome::Duplicate => MailWebhookAck { duplicate: Some(true), ..ack },
            MailEventOutcome::UnknownLetter => MailWebhookAck { ignored: Some(true), ..ack },
        })
    }
}

/// A delivery report's meaning: the status it records (None for an event we do not keep) and
/// the letter it names (from `data.letterId`, or the `Message-ID` we sent in `data.messageId`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct DeliveryReport {
    status: Option<LetterStatus>,
    letter_id: Option<String>,
}

impl DeliveryReport {
    fn parse(body: &[u8]) -> Option<DeliveryReport> {
        let v: Value = serde_json::from_slice(body).ok()?;
        let kind = v.get("type")?.as_str()?;
        let status = match kind.strip_prefix("email.").unwrap_or(kind) {
            "delivered" => Some(LetterStatus::Delivered),
            "bounced" => Some(LetterStatus::Bounced),
            "complained" => Some(LetterStatus::Complained),
            _ => None,
        };
        let data = v.get("data").unwrap_or(&Value::Null);
        let text = |key: &str| data.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        let from_message_id = || {
            let id = text("messageId")?.trim_start_matches('<').trim_end_matches('>');
            id.split('@').next().map(str::to_string)
        };
        let letter_id = text("letterId")
            .map(str::to_string)
            .or_else(from_message_id)
            .and_then(|id| uuid::Uuid::parse_str(&id).ok())
            .map(|id| id.to_string());
        Some(DeliveryReport { status, letter_id })
    }
}

fn letter_view(row: LetterRow, bodies: bool) -> EmailLetter {
    EmailLetter {
        id: row.id.into(),
        kind: row.kind,
        to: row.to_addr,
        user_id: row.user_id.map(String::from),
        subject: row.subject,
        status: row.status.to_string(),
        attempts: row.attempts,
        last_error: row.last_error,
        created_at: row.created_at,
        updated_at: row.updated_at,
        sent_at: row.sent_at,
        html: bodies.then_some(row.html),
        text: bodies.then_some(row.text),
    }
}

#[cfg(test)]
mod tests {
    use super::{DeliveryReport, LETTER_STATUSES, LetterStatus};

    #[test]
    fn the_listed_statuses_are_the_enum_s() {
        let names: Vec<&str> = LetterStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, LETTER_STATUSES);
    }

    #[test]
    fn delivery_reports_name_their_letter_either_way() {
        let id = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
        let by_id = format!(r#"{{"type":"email.delivered","data":{{"letterId":"{id}"}}}}"#);
        assert_eq!(
            DeliveryReport::parse(by_id.as_bytes()),
            Some(DeliveryReport { status: Some(LetterStatus::Delivered), letter_id: Some(id.into()) })
        );
        let by_message_id = format!(r#"{{"type":"bounced","data":{{"messageId":"<{id}@studio.example>"}}}}"#);
        assert_eq!(DeliveryReport::parse(by_message_id.as_bytes()).and_then(|r| r.letter_id), Some(id.into()));
        let opened = br#"{"type":"email.opened","data":{}}"#;
        assert_eq!(DeliveryReport::parse(opened), Some(DeliveryReport { status: None, letter_id: None }));
        assert_eq!(
            DeliveryReport::parse(br#"{"type":"complained","data":{"letterId":"nope"}}"#).unwrap().letter_id,
            None
        );
        assert_eq!(DeliveryReport::parse(b"not json"), None);
        assert_eq!(DeliveryReport::parse(br#"{"data":{}}"#), None);
    }
}
