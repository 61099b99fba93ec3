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
//! A worker that dies mid-attempt leaves its lease to lapse ([`LEASE_SECS`]); the row is then
//! due again and another worker (or the restarted process) makes the attempt: delivery is at
//! least once, and every attempt of one event carries the same `webhook-id` to deduplicate on.

use std::future::Future;

use chrono::Duration;

use crate::error::Result;
use crate::events::{HouseEvent, RESYNC};
use crate::ids::{new_id, now, random_secret};
use crate::storage::{DeliveryFate, WebhookDeliveryRow, WebhookRow};
use crate::webhooks::Webhooks;
use crate::webhooks::log::Send;

/// How long a claim holds: well beyond one attempt (10 s, `deliver.rs`) and its DNS check.
pub(crate) const LEASE_SECS: i64 = 60;

/// The most jitter added to a wait, as a fraction of it.
const JITTER: f64 = 0.2;

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

    async fn try_enqueue(&self, event: &HouseEvent) -> Result<()> {
        let endpoints = self.0.storage.webhooks(&event.org_id).await?;
        if endpoints.is_empty() {
            return Ok(());
        }
        let message = event.message();
        let Some(kind) = message["type"].as_str() else { return Ok(()) };
        let event_seq = message["job"]["eventSeq"].as_i64();
        let at = now();
        let rows: Vec<WebhookDeliveryRow> = endpoints
            .iter()
            .filter(|e| e.enabled && subscribed(e, kind))
            .map(|e| WebhookDeliveryRow {
                id: new_id("msg"),
                org_id: e.org_id.clone(),
                endpoint_id: e.id.clone(),
                event: kind.to_string(),
                event_seq,
                payload: event.as_str().to_string(),
                attempts: 0,
                status: "pending".into(),
                next_attempt_at: at,
                claim_token: None,
                lease_until: None,
                created_at: at,
                updated_at: at,
            })
            .collect();
        if rows.is_empty() {
            return Ok(());
        }
        self.0.storage.enqueue_webhook_deliveries(&rows).await?;
        self.0.webhook_wakeup.notify_waiters();
        Ok(())
    }

    /// Deliver due events until `shutdown` resolves, `workers` attempts at a time: each worker
    /// wakes for an event queued in this process (or relayed from a replica), else every
    /// `poll_ms` for retries coming due. Every process that serves runs one.
    pub async fn run_worker(&self, shutdown: impl Future<Output = ()>) {
        let workers = self.0.config.webhooks.workers.max(1);
        let all = futures_util::future::join_all((0..workers).map(|_| self.worker()));
        tokio::select! {
            () = shutdown => {}
            _ = all => {}
        }
    }

    async fn worker(&self) {
        let poll = std::time::Duration::from_millis(self.0.config.webhooks.poll_ms.max(10));
        loop {
            // Registered before the pass, so an event queued during it is not missed.
            let woken = self.0.webhook_wakeup.notified();
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
        let storage = &self.0.storage;
        let claim = random_secret();
        let at = now();
        let Some(row) = storage.claim_webhook_delivery(&claim, at, at + Duration::seconds(LEASE_SECS)).await? else {
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
        let schedule = &self.0.config.webhooks.retry_schedule;
        let wait = usize::try_from(row.attempts - 1).ok().and_then(|i| schedule.get(i)).copied();
        let next = wait.map(|w| now() + jittered(w));
        let send = Send {
            delivery_id: &row.id,
            event: &row.event,
            event_seq: row.event_seq,
            payload: &row.payload,
            attempt: row.attempts,
        };
        let logged = self.send_logged(endpoint, send, next).await?;
        Ok(match next {
            _ if logged.ok => DeliveryFate::Delivered,
            _ if logged.status == Some(410) => DeliveryFate::Failed,
            Some(at) => DeliveryFate::Retry(at),
            None => {
                let error = logged.error.as_deref().unwrap_or("no answer");
                let reason = format!(
                    "All {} attempts of delivery {} failed over {}; the last: {error}.",
                    row.attempts,
                    row.id,
                    span(now() - row.created_at)
                );
                self.disable_and_tell(endpoint, &reason).await?;
                DeliveryFate::Failed
            }
        })
    }

    /// Disable `endpoint` for `reason` and, when this call disabled it, write to the house's owner.
    pub(crate) async fn disable_and_tell(&self, endpoint: &WebhookRow, reason: &str) -> Result<()> {
        if !self.0.storage.disable_webhook(&endpoint.org_id, &endpoint.id, reason, now()).await? {
            return Ok(());
        }
        tracing::warn!(webhook = %endpoint.id, %reason, "a webhook endpoint was disabled");
        let Some((house, owner)) = self.0.accounts().house_and_owner(&endpoint.org_id).await? else { return Ok(()) };
        let written = crate::mail::templates::webhook_disabled(&house, &endpoint.url, &endpoint.id, reason);
        self.0
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
