//! Webhook endpoints on the view `studio.webhooks()` (docs/webhooks.md): a house's own URLs
//! its events are delivered to, signed as Standard Webhooks.
//!
//! Owners and admins write (create, patch, delete, rotate); every role reads (keys are at most
//! members, so writes take an owner's or admin's session). The signing secret (`whsec_…`) is
//! answered once, at creation and at each rotation, and kept sealed at rest (`seal.rs`); after
//! a rotation the previous secret keeps signing, beside the new one, for 24 hours
//! (`signing.rs`). The URL must pass the target guard (`target.rs`) at creation, on a change,
//! and before every delivery.

use crate::ids::WebhookId;
pub(crate) mod deliver;
mod log;
mod outbox;
mod seal;
pub(crate) mod signing;
pub(crate) mod target;

pub(crate) use outbox::WEBHOOK_URL_FIELD;

use base64::Engine;
use chrono::Duration;

use crate::api::{
    ALL_EVENTS, MAX_WEBHOOK_DESCRIPTION, MAX_WEBHOOKS, NewWebhook, ROTATION_OVERLAP_HOURS, SeatRole, WEBHOOK_EVENTS,
    Webhook, WebhookCreated, WebhookDeleted, WebhookList, WebhookPatch, WebhookSecret,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::now;
use crate::storage::{WebhookChanges, WebhookRow};

crate::studio::view! {
    /// The webhook operations: `studio.webhooks()`.
    Webhooks over WebhookStore
}

/// A new signing secret: `whsec_` and the base64 of 24 random bytes (the Standard Webhooks form:
/// the HMAC key is the decoded bytes).
fn new_secret() -> String {
    let bytes: [u8; 24] = rand::random();
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

pub(crate) fn not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such webhook in this house.")
}

/// Writing endpoints: an owner or admin (so a session: keys are never more than members).
pub(crate) fn require_manage(caller: &Caller) -> Result<()> {
    if !matches!(caller.role, SeatRole::Owner | SeatRole::Admin) {
        return Err(Error::forbidden("FORBIDDEN", "Only the house's owner or an admin manages webhooks."));
    }
    Ok(())
}

/// The event kinds asked for: known kinds or `*`, each once; empty or absent is `["*"]`. 400
/// `UNKNOWN_EVENT` (with `known`) for any other.
pub(crate) fn event_kinds(events: Option<Vec<String>>) -> Result<Vec<String>> {
    let mut kinds: Vec<String> = Vec::new();
    for kind in events.unwrap_or_default() {
        let kind = kind.trim().to_string();
        if kind != ALL_EVENTS && !WEBHOOK_EVENTS.contains(&kind.as_str()) {
            return Err(Error::invalid("UNKNOWN_EVENT", format!("{kind:?} is not an event kind."))
                .with("known", WEBHOOK_EVENTS.iter().copied().chain([ALL_EVENTS]).collect::<Vec<_>>()));
        }
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.is_empty() || kinds.iter().any(|k| k == ALL_EVENTS) {
        return Ok(vec![ALL_EVENTS.to_string()]);
    }
    Ok(kinds)
}

fn description(text: Option<String>) -> Result<Option<String>> {
    let Some(text) = text else { return Ok(None) };
    let text = text.trim().to_string();
    if text.chars().count() > MAX_WEBHOOK_DESCRIPTION {
        return Err(Error::invalid(
            "TOO_LONG",
            format!("A webhook's description is at most {MAX_WEBHOOK_DESCRIPTION} characters."),
        )
        .with("max", MAX_WEBHOOK_DESCRIPTION));
    }
    Ok(Some(text))
}

pub(crate) fn view(row: &WebhookRow) -> Webhook {
    Webhook {
        id: row.id.to_string(),
        url: row.url.clone(),
        description: row.description.clone(),
        events: serde_json::from_str(&row.events).unwrap_or_default(),
        enabled: row.enabled,
        created_at: row.created_at,
        disabled_reason: row.disabled_reason.clone(),
    }
}

impl Webhooks<'_> {
    /// A URL checked for form and target: 400 `BAD_WEBHOOK_URL`, `WEBHOOK_TARGET_REFUSED`.
    pub(crate) async fn checked_url(&self, url: &str) -> Result<String> {
        let allow = self.studio.config.webhooks.allow_http_loopback;
        let parsed = target::parse(url, allow).map_err(target::Refusal::into_error)?;
        target::check(&self.studio.config.link_preview, &parsed, allow).await.map_err(target::Refusal::into_error)?;
        Ok(parsed.to_string())
    }

    /// The deployment key secrets are sealed with.
    fn seal_key(&self) -> &[u8] {
        self.studio.config.signing_key.bytes()
    }

    /// `GET /api/toolkit/webhooks`: every endpoint of the house, oldest first (any role).
    pub async fn list(&self, caller: &Caller) -> Result<WebhookList> {
        let rows = self.store.webhooks(&caller.org_id).await?;
        Ok(WebhookList { webhooks: rows.iter().map(view).collect() })
    }

    /// `GET /api/toolkit/webhooks/{id}` (any role). 404 `NOT_FOUND`.
    pub async fn get(&self, caller: &Caller, id: &WebhookId) -> Result<Webhook> {
        self.store.webhook(&caller.org_id, id).await?.as_ref().map(view).ok_or_else(not_found)
    }

    /// `POST /api/toolkit/webhooks`: a new endpoint and its secret, answered once. 400
    /// `BAD_WEBHOOK_URL`, `WEBHOOK_TARGET_REFUSED`, `UNKNOWN_EVENT`, `TOO_LONG`; 403 `FORBIDDEN`
    /// (not an owner or admin); 409 `TOO_MANY_WEBHOOKS` (with `max`).
    pub async fn create(&self, caller: &Caller, new: NewWebhook) -> Result<WebhookCreated> {
        require_manage(caller)?;
        let events = event_kinds(new.events)?;
        let description = description(new.description)?.unwrap_or_default();
        let url = self.checked_url(&new.url).await?;
        let secret = new_secret();
        let at = now();
        let row = WebhookRow {
            id: WebhookId::generate(),
            org_id: caller.org_id.clone(),
            url,
            description,
            events: serde_json::to_string(&events).map_err(Error::internal)?,
            enabled: new.enabled.unwrap_or(true),
            secret_sealed: seal::seal(self.seal_key(), &secret),
            previous_sealed: None,
            previous_expires_at: None,
            disabled_reason: None,
            created_by: caller.user_id.clone(),
            created_at: at,
            updated_at: at,
        };
        if !self.store.insert_webhook(&row, MAX_WEBHOOKS as i64).await? {
            return Err(Error::conflict(
                "TOO_MANY_WEBHOOKS",
                format!("A house keeps at most {MAX_WEBHOOKS} webhooks."),
            )
            .with("max", MAX_WEBHOOKS));
        }
        Ok(WebhookCreated { webhook: view(&row), secret })
    }

    /// `PATCH /api/toolkit/webhooks/{id}`: change the fields given; enabling clears
    /// `disabledReason`. 400 as on create; 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn patch(&self, caller: &Caller, id: &WebhookId, patch: WebhookPatch) -> Result<Webhook> {
        require_manage(caller)?;
        let events = match patch.events {
            Some(events) => Some(serde_json::to_string(&event_kinds(Some(events))?).map_err(Error::internal)?),
            None => None,
        };
        let description = description(patch.description)?;
        // The id first, so another house's id answers 404 whatever the body says.
        self.store.webhook(&caller.org_id, id).await?.ok_or_else(not_found)?;
        let url = match patch.url {
            Some(url) => Some(self.checked_url(&url).await?),
            None => None,
        };
        let changes = WebhookChanges { url, description, events, enabled: patch.enabled };
        let row = self.store.update_webhook(&caller.org_id, id, &changes, now()).await?;
        row.as_ref().map(view).ok_or_else(not_found)
    }

    /// `DELETE /api/toolkit/webhooks/{id}`. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn delete(&self, caller: &Caller, id: &WebhookId) -> Result<WebhookDeleted> {
        require_manage(caller)?;
        if !self.store.delete_webhook(&caller.org_id, id).await? {
            return Err(not_found());
        }
        Ok(WebhookDeleted { id: id.to_string(), deleted: true })
    }

    /// `POST /api/toolkit/webhooks/{id}/rotate-secret`: a new secret, answered once; the
    /// previous one keeps signing for 24 hours. 403 `FORBIDDEN`; 404 `NOT_FOUND`.
    pub async fn rotate_secret(&self, caller: &Caller, id: &WebhookId) -> Result<WebhookSecret> {
        require_manage(caller)?;
        let secret = new_secret();
        let at = now();
        let until = at + Duration::hours(ROTATION_OVERLAP_HOURS);
        let sealed = seal::seal(self.seal_key(), &secret);
        self.store.rotate_webhook_secret(&caller.org_id, id, &sealed, until, at).await?.ok_or_else(not_found)?;
        Ok(WebhookSecret { id: id.to_string(), secret, previous_secret_expires_at: until })
    }

    /// The secrets that sign a delivery of `row` at `at`: the current one, then the previous
    /// one while it is within its overlap. A secret that will not open (the deployment's
    /// signing key was replaced) is left out.
    pub(crate) fn signing_secrets(&self, row: &WebhookRow, at: chrono::DateTime<chrono::Utc>) -> Vec<String> {
        let mut secrets = Vec::new();
        secrets.extend(seal::open(self.seal_key(), &row.secret_sealed));
        if let (Some(previous), Some(until)) = (&row.previous_sealed, row.previous_expires_at)
            && until > at
        {
            secrets.extend(seal::open(self.seal_key(), previous));
        }
        secrets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_kinds_are_the_sockets_or_all() {
        assert_eq!(event_kinds(None).unwrap(), vec!["*"]);
        assert_eq!(event_kinds(Some(vec![])).unwrap(), vec!["*"]);
        assert_eq!(event_kinds(Some(vec!["job".into(), "job".into()])).unwrap(), vec!["job"]);
        assert_eq!(event_kinds(Some(vec!["job".into(), "*".into()])).unwrap(), vec!["*"]);
        let refused = event_kinds(Some(vec!["job.done".into()])).unwrap_err();
        assert_eq!(refused.code, "UNKNOWN_EVENT");
    }

    #[test]
    fn secrets_are_standard_webhooks_secrets() {
        let secret = new_secret();
        let key = base64::engine::general_purpose::STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(key.len(), 24);
        assert_ne!(new_secret(), secret);
    }
}
