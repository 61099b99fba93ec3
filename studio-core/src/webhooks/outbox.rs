//! The webhook outbox (docs/webhooks.md, "Delivery"): every published house event becomes one
//! row per subscribed, enabled endpoint ([`Webhooks::enqueue`]); workers on every replica
//! ([`Webhooks::run_worker`]) claim due rows with a lease, make the attempt through
//! `send_logged` (the same guard, signature and log as a test or a replay), and record the fate:
//!
//! - 2xx: delivered;
//! - another failure with waits left in the retry schedule: pending again after the next wait,
//!   taken with up to 20 % jitter (never earlier than the schedule says);
//! - 410: failed, and the endpoint is disabled (by `send_logged`);
//! - the schedule run out: failed, the endpoint is disabled with a `disabledReason` that names
//!   the delivery and its last error, and the house's owner is sent a letter;
//! - the endpoint disabled or deleted before the attempt: dropped, nothing sent.
//!
//! A develop submitted with its own `webhookUrl` ([`WEBHOOK_URL_FIELD`], checked before anything
//! is held by [`Webhooks::check_develop_webhook`]) has its changes queued for that URL too, under
//! the house's default endpoint at the submit (its oldest enabled one, pinned in the job's
//! options), whose secret signs them and whose log shows them with their `url`. That URL is a
//! target of its own: its attempts never hold back the endpoint's. A 410 or a run-out schedule
//! there ends that delivery only: the endpoint is not disabled for a URL that is not its own.
//!
//! A worker that dies mid-attempt leaves its lease to lapse (`lease_secs`, 60 s); the row is then
//! due again and another worker (or the restarted process) makes the attempt: delivery is at
//! least once, and every attempt of one event carries the same `webhook-id` to deduplicate on.

use crate::ids::{OrgId, WebhookId};
use std::collections::BTreeMap;
use std::future::Future;

use chrono::Duration;

use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::events::{HouseEvent, RESYNC};
use crate::ids::{now, random_secret};
use crate::storage::{DeliveryFate, WebhookDeliveryRow, WebhookRow};
use crate::webhooks::Webhooks;
use crate::webhooks::log::Send;

/// The most jitter added to a wait, as a fraction of it.
const JITTER: f64 = 0.2;

/// The submit field, and the job option, naming a develop's own webhook URL.
pub(crate) const WEBHOOK_URL_FIELD: &str = "webhookUrl";
/// The job option naming the endpoint that signs for that URL: the house's default endpoint at
/// the submit, pinned so every change of one develop is signed with one secret. Set only here.
const WEBHOOK_ENDPOINT_FIELD: &str = "webhookEndpointId";

/// The most job changes one endpoint catches up on at a process's start.
const CATCH_UP_LIMIT: i64 = 1_000;

/// The house's default endpoint: its oldest enabled one (the list is oldest first).
fn default_endpoint(endpoints: &[WebhookRow]) -> Option<&WebhookRow> {
    endpoints.iter().find(|e| e.enabled)
}

/// Whether `endpoint` takes events of `kind` (its `events` is a JSON array of kinds or `*`).
fn subscribed(endpoint: &WebhookRow, kind: &str) -> bool {
    let kinds: Vec<String> = serde_json::from_str(&endpoint.events).unwrap_or_default();
    kinds.iter().any(|k| k == kind || k == crate::api::ALL_EVENTS)
}

/// `wait` seconds and up to 20 % more, at random.
fn jittered(wait: u64) -> Duration {
    let ms = wait.saturating_mul(1000) as f64 * (1.0 + JITTER * rand::random::<f64>());
    Duration::milliseconds(ms as i64)
}

/// "27.6 hours", "4 minutes", "12 seconds": how long a delivery was tried, in words.
fn span(d: Duration) -> String {
    let secs = d.num_seconds().max(0);
    if secs >= 7_200 {
        format!("{:.1} hours", secs as f64 / 3_600.0)
    } else if secs >= 120 {
        format!("{} minutes", secs / 60)
    } else {
        format!("{secs} seconds")
    }
}

impl Webhooks<'_> {
    /// Queue `event` for every enabled endpoint of its house that subscribes to its kind, then
    /// wake the workers. Never fails the publish: an error is logged.
    pub(crate) async fn enqueue(&self, event: &HouseEvent) {
        if &*event.org_id == RESYNC {
            return;
        }
        if let Err(e) = self.try_enqueue(event).await {
            tracing::warn!(error = %e, org = %event.org_id, "queueing an event for the house's webhooks failed");
        }
    }

    /// Queue a develop's change for the develop's own `webhookUrl`, when its options name one,
    /// under the house's default endpoint; logged and skipped when the house has none any more.
    pub(crate) async fn enqueue_for_develop(&self, options: &BTreeMap<String, String>, event: &HouseEvent) {
        let (Some(url), Some(signer)) = (options.get(WEBHOOK_URL_FIELD), options.get(WEBHOOK_ENDPOINT_FIELD)) else {
            return;
        };
        let org = OrgId::from(&*event.org_id);
        let queued = async {
            let endpoint = self.store.webhook(&org, &WebhookId::from(signer)).await?.filter(|e| e.enabled);
            let Some(endpoint) = endpoint else {
                tracing::warn!(org = %event.org_id, "the endpoint that signs a develop's webhookUrl is disabled or gone; skipped");
                return Ok(());
            };
            self.queue(event, &event.message(), std::iter::once((&endpoint, Some(url.clone())))).await
        };
        if let Err(e) = queued.await {
            tracing::warn!(error = %e, org = %event.org_id, "queueing a develop's change for its webhookUrl failed");
        }
    }

    /// Check a develop's `webhookUrl` option before anything is held: blank is dropped; the URL
    /// must pass the endpoints' guard (400 `BAD_WEBHOOK_URL`, `WEBHOOK_TARGET_REFUSED`) and the
    /// house must have an enabled endpoint to sign with (400 `NO_WEBHOOK_ENDPOINT`).
    pub(crate) async fn check_develop_webhook(
        &self,
        caller: &Caller,
        options: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        // Only this check names the signing endpoint; a submit cannot choose it.
        options.remove(WEBHOOK_ENDPOINT_FIELD);
        let Some(raw) = options.get(WEBHOOK_URL_FIELD) else { return Ok(()) };
        if raw.trim().is_empty() {
            options.remove(WEBHOOK_URL_FIELD);
            return Ok(());
        }
        let url = self.checked_url(raw.trim()).await?;
        let endpoints = self.store.webhooks(&caller.org_id).await?;
        let Some(signer) = default_endpoint(&endpoints) else {
            return Err(Error::invalid(
                "NO_WEBHOOK_ENDPOINT",
                "A develop's webhookUrl is signed with the secret of the house's default webhook endpoint (its oldest \
                 enabled one), and this house has none: create one first (POST /api/toolkit/webhooks). Nothing was held.",
            ));
        };
        options.insert(WEBHOOK_ENDPOINT_FIELD.to_string(), signer.id.to_string());
        options.insert(WEBHOOK_URL_FIELD.to_string(), url);
        Ok(())
    }

    async fn try_enqueue(&self, event: &HouseEvent) -> Result<()> {
        let org = OrgId::from(&*event.org_id);
        let endpoints = self.store.webhooks(&org).await?;
        if endpoints.is_empty() {
            return Ok(());
        }
        let message = event.message();
        let Some(kind) = message["type"].as_str() else { return Ok(()) };
        self.queue(event, &message, endpoints.iter().filter(|e| e.enabled && subscribed(e, kind)).map(|e| (e, None)))
            .await
    }

    /// Queue `event` (whose parsed `message` the caller already holds) for each (endpoint, URL
    /// override) and wake the workers.
    async fn queue<'e>(
        &self,
        event: &HouseEvent,
        message: &serde_json::Value,
        targets: impl Iterator<Item = (&'e WebhookRow, Option<String>)>,
    ) -> Result<()> {
        let kind = message["type"].as_str().unwrap_or_default();
        let event_seq = message["job"]["eventSeq"].as_i64();
        let at = now();
        let settle = self.studio.config.webhooks.settle_ms;
        let due = at + Duration::milliseconds(i64::try_from(settle).unwrap_or(0));
        let rows: Vec<WebhookDeliveryRow> = targets
            .map(|(e, url)| {
                let body = (kind, event_seq, event.as_str().to_string());
                WebhookDeliveryRow::pending((&e.org_id, &e.id, url), body, at, due)
            })
            .collect();
        if rows.is_empty() {
            return Ok(());
        }
        self.store.enqueue_webhook_deliveries(&rows).await?;
        if settle == 0 {
            self.studio.webhook_wakeup.notify_waiters();
        } else {
            // Wake the workers when the rows come due rather than at the next poll.
            let wakeup = self.studio.webhook_wakeup.clone();
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(settle)).await;
                wakeup.notify_waiters();
            });
        }
        Ok(())
    }

    /// Deliver due events until `shutdown` resolves, `workers` attempts at a time: each worker
    /// wakes for an event queued in this process (or relayed from a replica), else every
    /// `poll_ms` for retries coming due. Every process that serves runs one.
    pub async fn run_worker(&self, shutdown: impl Future<Output = ()>) {
        if let Err(e) = self.catch_up().await {
            tracing::warn!(error = %e, "catching up on job changes for webhooks failed");
        }
        let workers = self.studio.config.webhooks.workers.max(1);
        let all = futures_util::future::join_all((0..workers).map(|_| self.worker()));
        tokio::select! {
            () = shutdown => {}
            _ = all => {}
        }
    }

    /// Queue, for every enabled endpoint that takes job changes, the house's job changes newer
    /// than the newest it has queued: a change committed just before a process died and never
    /// published reaches the endpoint when a process starts again. Each job as it is now; a
    /// change already queued (by its publish, or by another replica's catch-up) is skipped by
    /// the outbox's unique index. An endpoint that has queued no job change yet is skipped (it
    /// has nothing to catch up from). Answers how many changes were offered.
    pub async fn catch_up(&self) -> Result<u64> {
        let mut offered = 0;
        for endpoint in self.store.enabled_webhooks().await? {
            if !subscribed(&endpoint, "job") {
                continue;
            }
            let Some(newest) = self.store.newest_queued_job_change(&endpoint.org_id, &endpoint.id).await? else {
                continue;
            };
            let changes = self.studio.develops().job_changes_since(&endpoint.org_id, newest, CATCH_UP_LIMIT).await?;
            for change in &changes {
                self.queue(change, &change.message(), std::iter::once((&endpoint, None))).await?;
            }
            offered += changes.len() as u64;
        }
        Ok(offered)
    }

    async fn worker(&self) {
        let poll = std::time::Duration::from_millis(self.studio.config.webhooks.poll_ms.max(10));
        loop {
            // Registered before the pass, so an event queued during it is not missed.
            let woken = self.studio.webhook_wakeup.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if let Err(e) = self.deliver_due().await {
                tracing::warn!(error = %e, "a webhook worker's pass failed; retrying");
            }
            tokio::select! {
                () = &mut woken => {}
                () = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// One pass: claim and attempt due deliveries one at a time until none is due. Answers how
    /// many were claimed.
    pub async fn deliver_due(&self) -> Result<u64> {
        let mut claimed = 0;
        while self.deliver_one().await? {
            claimed += 1;
        }
        Ok(claimed)
    }

    /// Claim one due delivery and attempt it; false when none is due.
    async fn deliver_one(&self) -> Result<bool> {
        let storage = &self.store;
        let claim = random_secret();
        let at = now();
        let lease = Duration::seconds(i64::try_from(self.studio.config.webhooks.lease_secs.max(1)).unwrap_or(60));
        let Some(row) = storage.claim_webhook_delivery(&claim, at, at + lease).await? else {
            return Ok(false);
        };
        let fate = match storage.webhook(&row.org_id, &row.endpoint_id).await? {
            Some(endpoint) if endpoint.enabled => self.attempt(&endpoint, &row).await?,
            _ => DeliveryFate::Dropped,
        };
        if !storage.finish_webhook_delivery(&row.id, &claim, fate, now()).await? {
            tracing::warn!(delivery = %row.id, "a webhook delivery's claim was taken over before its fate was recorded");
        }
        Ok(true)
    }

    /// Make the claimed attempt and say what becomes of the delivery.
    async fn attempt(&self, endpoint: &WebhookRow, row: &WebhookDeliveryRow) -> Result<DeliveryFate> {
        let schedule = &self.studio.config.webhooks.retry_schedule;
        // Attempt n (the claim counted it) waits schedule[n - 1] after it ends, if it fails.
        let wait = usize::try_from(row.attempts - 1).ok().and_then(|i| schedule.get(i)).map(|w| jittered(*w));
        let send = Send {
            delivery_id: &row.id,
            event: &row.event,
            event_seq: row.event_seq,
            payload: &row.payload,
            attempt: row.attempts,
            url: row.url.as_deref(),
        };
        let logged = self.send_logged(endpoint, send, wait).await?;
        Ok(match logged.next_attempt_at {
            _ if logged.ok => DeliveryFate::Delivered,
            _ if logged.status == Some(410) => DeliveryFate::Failed,
            Some(at) => DeliveryFate::Retry(at),
            // A develop's own URL failing does not disable the endpoint that signs for it.
            None if row.url.is_some() => DeliveryFate::Failed,
            None => {
                let error = logged.error.as_deref().unwrap_or("no answer");
                let reason = format!(
                    "All {} attempts of delivery {} failed over {}; the last: {error}.",
                    row.attempts,
                    row.id,
                    span(now() - row.created_at)
                );
                self.disable_and_tell(endpoint, &reason).await;
                DeliveryFate::Failed
            }
        })
    }

    /// Disable `endpoint` for `reason` and write to the house's owner, once: the letter is
    /// queued before the endpoint is disabled (a crash in between sends it again rather than
    /// never), and only while the endpoint, read afresh, is still enabled. A failure is logged,
    /// never returned: the attempt that led here is already recorded.
    pub(crate) async fn disable_and_tell(&self, endpoint: &WebhookRow, reason: &str) {
        if let Err(e) = self.try_disable_and_tell(endpoint, reason).await {
            tracing::warn!(webhook = %endpoint.id, error = %e, "disabling a webhook endpoint or writing to its owner failed");
        }
    }

    async fn try_disable_and_tell(&self, endpoint: &WebhookRow, reason: &str) -> Result<()> {
        let fresh = self.store.webhook(&endpoint.org_id, &endpoint.id).await?;
        if !fresh.is_some_and(|e| e.enabled) {
            return Ok(());
        }
        if let Some((house, owner)) = self.studio.accounts().house_and_owner(&endpoint.org_id).await? {
            let written = crate::mail::templates::webhook_disabled(&house, &endpoint.url, &endpoint.id, reason);
            self.studio
                .mail()
                .post_letter(crate::mail::Letter {
                    kind: "webhook_disabled",
                    to: owner,
                    user_id: None,
                    subject: written.subject,
                    html: written.html,
                    text: written.text,
                })
                .await?;
        }
        if self.store.disable_webhook(&endpoint.org_id, &endpoint.id, reason, now()).await? {
            tracing::warn!(webhook = %endpoint.id, %reason, "a webhook endpoint was disabled");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_never_shortens_a_wait_and_adds_at_most_a_fifth() {
        for _ in 0..200 {
            let d = jittered(100).num_milliseconds();
            assert!((100_000..=120_000).contains(&d), "{d}");
        }
        assert_eq!(jittered(0), Duration::zero());
    }

    #[test]
    fn spans_read_as_people_say_them() {
        assert_eq!(span(Duration::seconds(12)), "12 seconds");
        assert_eq!(span(Duration::seconds(240)), "4 minutes");
        assert_eq!(span(Duration::seconds(99_360)), "27.6 hours");
    }
}
