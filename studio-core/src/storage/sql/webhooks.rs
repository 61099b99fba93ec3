//! The SQL of webhook endpoints ([`WebhookStore`](crate::storage::WebhookStore)). Every statement
//! is declared in [`q`] (see stmt.rs); each names the house in its `WHERE` but those of the
//! delivery workers, which serve every house (their reasons are in `q`).

/// The columns of `webhook_endpoints` in [`WebhookRow`](crate::storage::WebhookRow) order.
macro_rules! webhook_columns {
    () => {
        "id, org_id, url, description, events, enabled, secret_sealed, previous_sealed, previous_expires_at, \
         disabled_reason, created_by, created_at, updated_at"
    };
}

/// The columns of `webhook_attempts` in [`WebhookAttemptRow`](crate::storage::WebhookAttemptRow) order.
macro_rules! attempt_columns {
    () => {
        "id, org_id, endpoint_id, delivery_id, event, event_seq, payload, attempt, ok, status, latency_ms, response, \
         error, next_attempt_at, created_at, url"
    };
}

/// The columns of `webhook_deliveries` in [`WebhookDeliveryRow`](crate::storage::WebhookDeliveryRow) order.
macro_rules! delivery_columns {
    () => {
        "id, org_id, endpoint_id, event, event_seq, payload, url, attempts, status, next_attempt_at, claim_token, \
         lease_until, created_at, updated_at"
    };
}

/// The webhooks' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{DeliveryId, OrgId, UserId, WebhookId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{WebhookAttemptRow, WebhookDeliveryRow, WebhookRow};

    /// The claim of the oldest due delivery whose target has nothing else in flight (see
    /// `claim_webhook_delivery`), with `$lock` closing its subquery. `$3`, `$4` and `$5` are all
    /// the time of the claim: the row's new `updated_at`, the due time it must have reached, and
    /// the time before which a lease has lapsed (`$2` is the new lease).
    macro_rules! claim_delivery_sql {
        ($lock:literal) => {
            concat!(
                "UPDATE webhook_deliveries SET claim_token = $1, lease_until = $2, attempts = attempts + 1, \
                 updated_at = $3 WHERE id = (SELECT d.id FROM webhook_deliveries d \
                 JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending' \
                 AND d.next_attempt_at <= $4 AND (d.lease_until IS NULL OR d.lease_until < $5) \
                 AND (d.endpoint_id, COALESCE(d.url, '')) NOT IN (SELECT f.endpoint_id, COALESCE(f.url, '') \
                 FROM webhook_deliveries f WHERE f.claim_token IS NOT NULL AND f.lease_until >= $5 \
                 AND f.status = 'pending') \
                 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = d.endpoint_id \
                 AND COALESCE(o.url, '') = COALESCE(d.url, '') AND o.status = 'pending' AND o.attempts = 0 \
                 AND o.event_seq < d.event_seq) \
                 ORDER BY d.next_attempt_at, d.id LIMIT 1",
                $lock,
                ") AND status = 'pending' AND (lease_until IS NULL OR lease_until < $5) RETURNING ",
                delivery_columns!()
            )
        };
    }

    statements! {
        /// Add an endpoint to a house unless it has `max` already (the count and the insert are
        /// one statement, so two creates at once cannot both pass the cap).
        fn insert_endpoint(
            id: &'q WebhookId,
            org_id: &'q OrgId,
            url: &'q str,
            description: &'q str,
            events: &'q str,
            enabled: bool,
            secret_sealed: &'q str,
            previous_sealed: Option<&'q str>,
            previous_expires_at: Option<DateTime<Utc>>,
            disabled_reason: Option<&'q str>,
            created_by: &'q UserId,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            max: i64,
        ) -> exec [house] {
            "INSERT INTO webhook_endpoints (", webhook_columns!(), ") \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 \
             WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = $2) < $14"
        }

        /// An endpoint of a house.
        fn endpoint(org_id: &'q OrgId, id: &'q WebhookId) -> row<WebhookRow> [house] {
            "SELECT ", webhook_columns!(), " FROM webhook_endpoints WHERE org_id = $1 AND id = $2"
        }

        /// A house's endpoints, oldest first.
        fn endpoints(org_id: &'q OrgId) -> row<WebhookRow> [house] {
            "SELECT ", webhook_columns!(), " FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id"
        }

        /// Patch an endpoint of a house (`None` keeps a field; setting `enabled` clears the
        /// reason it was disabled).
        fn update_endpoint(
            url: Option<&'q str>,
            description: Option<&'q str>,
            events: Option<&'q str>,
            enabled: Option<bool>,
            updated_at: DateTime<Utc>,
            org_id: &'q OrgId,
            id: &'q WebhookId,
        ) -> row<WebhookRow> [house] {
            "UPDATE webhook_endpoints SET url = COALESCE($1, url), \
             description = COALESCE($2, description), events = COALESCE($3, events), \
             enabled = COALESCE($4, enabled), \
             disabled_reason = CASE WHEN $4 IS NULL THEN disabled_reason ELSE NULL END, \
             updated_at = $5 WHERE org_id = $6 AND id = $7 RETURNING ", webhook_columns!()
        }

        /// Rotate an endpoint's secret: the current one keeps signing until `previous_expires_at`.
        fn rotate_secret(
            secret_sealed: &'q str,
            previous_expires_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            org_id: &'q OrgId,
            id: &'q WebhookId,
        ) -> row<WebhookRow> [house] {
            "UPDATE webhook_endpoints SET previous_sealed = secret_sealed, secret_sealed = $1, \
             previous_expires_at = $2, updated_at = $3 WHERE org_id = $4 AND id = $5 RETURNING ", webhook_columns!()
        }

        /// Delete an endpoint of a house.
        fn delete_endpoint(org_id: &'q OrgId, id: &'q WebhookId) -> exec [house] {
            "DELETE FROM webhook_endpoints WHERE org_id = $1 AND id = $2"
        }

        /// Delete the attempt log of a house's endpoint.
        fn delete_attempts(org_id: &'q OrgId, endpoint_id: &'q WebhookId) -> exec [house] {
            "DELETE FROM webhook_attempts WHERE org_id = $1 AND endpoint_id = $2"
        }

        /// Delete the outbox rows of a house's endpoint.
        fn delete_deliveries(org_id: &'q OrgId, endpoint_id: &'q WebhookId) -> exec [house] {
            "DELETE FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2"
        }

        /// Disable an enabled endpoint of a house, saying why.
        fn disable_endpoint(disabled_reason: &'q str, updated_at: DateTime<Utc>, org_id: &'q OrgId, id: &'q WebhookId) -> exec [house] {
            "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = $1, updated_at = $2 \
             WHERE org_id = $3 AND id = $4 AND enabled = TRUE"
        }

        /// Log one delivery attempt.
        fn insert_attempt(
            id: &'q str,
            org_id: &'q OrgId,
            endpoint_id: &'q WebhookId,
            delivery_id: &'q DeliveryId,
            event: &'q str,
            event_seq: Option<i64>,
            payload: &'q str,
            attempt: i32,
            ok: bool,
            status: Option<i32>,
            latency_ms: i64,
            response: Option<&'q str>,
            error: Option<&'q str>,
            next_attempt_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
            url: Option<&'q str>,
        ) -> exec [house] {
            "INSERT INTO webhook_attempts (", attempt_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        }

        /// A page of a house's endpoint's attempts before `id` (or the newest), newest first.
        fn attempts(org_id: &'q OrgId, endpoint_id: &'q WebhookId, id: Option<&'q str>, limit: i64) -> row<WebhookAttemptRow> [house] {
            "SELECT ", attempt_columns!(), " FROM webhook_attempts WHERE org_id = $1 AND endpoint_id = $2 \
             AND ($3 IS NULL OR id < $3) ORDER BY id DESC LIMIT $4"
        }

        /// The last attempt of one delivery to a house's endpoint.
        fn last_attempt(org_id: &'q OrgId, endpoint_id: &'q WebhookId, delivery_id: &'q DeliveryId) -> row<WebhookAttemptRow> [house] {
            "SELECT ", attempt_columns!(), " FROM webhook_attempts WHERE org_id = $1 AND endpoint_id = $2 \
             AND delivery_id = $3 ORDER BY attempt DESC, id DESC LIMIT 1"
        }

        /// Queue one event for one endpoint of a house, pending and never attempted (skipped when
        /// queued already). `updated_at` is the publish time, as `created_at`.
        fn enqueue_delivery(
            id: &'q DeliveryId,
            org_id: &'q OrgId,
            endpoint_id: &'q WebhookId,
            event: &'q str,
            event_seq: Option<i64>,
            payload: &'q str,
            url: Option<&'q str>,
            next_attempt_at: DateTime<Utc>,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO webhook_deliveries (", delivery_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 'pending', $8, NULL, NULL, $9, $10) ON CONFLICT DO NOTHING"
        }

        /// Claim the oldest due delivery for a worker (SQLite, whose writes are one at a time).
        fn claim_delivery(
            claim_token: &'q str,
            lease_until: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            next_attempt_at: DateTime<Utc>,
            stale_lease_until: DateTime<Utc>,
        ) -> row<WebhookDeliveryRow> [any "the delivery workers serve every house: a claim takes the oldest due delivery of any"] {
            claim_delivery_sql!("")
        }

        /// Claim the oldest due delivery for a worker, locking it and its endpoint (PostgreSQL),
        /// so two claims at once do not both pass the one-in-flight check for one endpoint.
        fn claim_delivery_locked(
            claim_token: &'q str,
            lease_until: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            next_attempt_at: DateTime<Utc>,
            stale_lease_until: DateTime<Utc>,
        ) -> row<WebhookDeliveryRow> [any "the delivery workers serve every house: a claim takes the oldest due delivery of any", postgres_only] {
            claim_delivery_sql!(" FOR UPDATE OF d, e SKIP LOCKED")
        }

        /// End a claimed delivery's attempt: delivered, due again at `next_attempt_at`, failed or
        /// dropped (no row when the claim was taken over).
        fn finish_delivery(
            status: &'q str,
            next_attempt_at: Option<DateTime<Utc>>,
            updated_at: DateTime<Utc>,
            id: &'q DeliveryId,
            claim_token: &'q str,
        ) -> exec [any "a worker finishes the delivery it claimed, named by its id and its own claim token"] {
            "UPDATE webhook_deliveries SET status = $1, next_attempt_at = COALESCE($2, next_attempt_at), \
             claim_token = NULL, lease_until = NULL, updated_at = $3 \
             WHERE id = $4 AND claim_token = $5 AND status = 'pending'"
        }

        /// Every house's enabled endpoints.
        fn enabled_endpoints() -> row<WebhookRow> [any "the catch-up at start serves every house: it reads every enabled endpoint"] {
            "SELECT ", webhook_columns!(), " FROM webhook_endpoints WHERE enabled = TRUE ORDER BY org_id, created_at, id"
        }

        /// The newest job change queued for a house's endpoint (its own URL), if any.
        fn newest_job_change(org_id: &'q OrgId, endpoint_id: &'q WebhookId) -> scalar<Option<i64>> [house] {
            "SELECT MAX(event_seq) FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2 \
             AND event = 'job' AND url IS NULL"
        }

        /// How many of a house's outbox rows are in each status.
        fn delivery_counts(org_id: &'q OrgId) -> row<(String, i64)> [house] {
            "SELECT status, COUNT(*) FROM webhook_deliveries WHERE org_id = $1 GROUP BY status ORDER BY status"
        }
    }
}

macro_rules! impl_webhook_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::WebhookStore for $ty {
            async fn insert_webhook(
                &self,
                row: &$crate::storage::WebhookRow,
                max: i64,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                // The count and the insert are one statement, so two concurrent creates cannot
                // both pass the cap's check.
                let done = q::webhooks::insert_endpoint(
                    &row.id,
                    &row.org_id,
                    &row.url,
                    &row.description,
                    &row.events,
                    row.enabled,
                    &row.secret_sealed,
                    row.previous_sealed.as_deref(),
                    row.previous_expires_at,
                    row.disabled_reason.as_deref(),
                    &row.created_by,
                    row.created_at,
                    row.updated_at,
                    max,
                )
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
            ) -> Result<Option<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(q::webhooks::endpoint(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn webhooks(
                &self,
                org_id: &OrgId,
            ) -> Result<Vec<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(q::webhooks::endpoints(org_id).fetch_all(&self.pool).await?)
            }

            async fn update_webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
                changes: &$crate::storage::WebhookChanges,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(q::webhooks::update_endpoint(
                    changes.url.as_deref(),
                    changes.description.as_deref(),
                    changes.events.as_deref(),
                    changes.enabled,
                    now,
                    org_id,
                    id,
                )
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn rotate_webhook_secret(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
                sealed: &str,
                until: chrono::DateTime<chrono::Utc>,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(q::webhooks::rotate_secret(sealed, until, now, org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn delete_webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let done = q::webhooks::delete_endpoint(org_id, id).execute(&mut *tx).await?;
                q::webhooks::delete_attempts(org_id, id).execute(&mut *tx).await?;
                q::webhooks::delete_deliveries(org_id, id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(done.rows_affected() > 0)
            }

            async fn disable_webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
                reason: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::webhooks::disable_endpoint(reason, now, org_id, id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }

            async fn insert_webhook_attempt(
                &self,
                row: &$crate::storage::WebhookAttemptRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::webhooks::insert_attempt(
                    &row.id,
                    &row.org_id,
                    &row.endpoint_id,
                    &row.delivery_id,
                    &row.event,
                    row.event_seq,
                    &row.payload,
                    row.attempt,
                    row.ok,
                    row.status,
                    row.latency_ms,
                    row.response.as_deref(),
                    row.error.as_deref(),
                    row.next_attempt_at,
                    row.created_at,
                    row.url.as_deref(),
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn webhook_attempts(
                &self,
                org_id: &OrgId,
                endpoint_id: &WebhookId,
                limit: i64,
                before: Option<&str>,
            ) -> Result<Vec<$crate::storage::WebhookAttemptRow>, $crate::storage::StorageError> {
                Ok(q::webhooks::attempts(org_id, endpoint_id, before, limit).fetch_all(&self.pool).await?)
            }

            async fn last_webhook_attempt(
                &self,
                org_id: &OrgId,
                endpoint_id: &WebhookId,
                delivery_id: &DeliveryId,
            ) -> Result<Option<$crate::storage::WebhookAttemptRow>, $crate::storage::StorageError> {
                Ok(q::webhooks::last_attempt(org_id, endpoint_id, delivery_id).fetch_optional(&self.pool).await?)
            }

            async fn enqueue_webhook_deliveries(
                &self,
                rows: &[$crate::storage::WebhookDeliveryRow],
            ) -> Result<(), $crate::storage::StorageError> {
                if rows.is_empty() {
                    return Ok(());
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                for row in rows {
                    q::webhooks::enqueue_delivery(
                        &row.id,
                        &row.org_id,
                        &row.endpoint_id,
                        &row.event,
                        row.event_seq,
                        &row.payload,
                        row.url.as_deref(),
                        row.next_attempt_at,
                        row.created_at,
                        row.created_at,
                    )
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn claim_webhook_delivery(
                &self,
                claim_token: &str,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::WebhookDeliveryRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                // The oldest due row whose target (the endpoint's URL, or one develop's own URL
                // under it) has nothing else in flight, so one target's events leave one at a
                // time while its attempts succeed; a lapsed lease is due again. A row also waits
                // while its target holds a never-attempted row of an earlier event (queued later,
                // or still settling), so a target gets a house's events in `eventSeq` order; a
                // retry waiting for its time holds nothing back. PostgreSQL also
                // locks the endpoint's row for the claim, so two claims at once do not both pass
                // that check for one endpoint; SQLite's writes are one at a time anyway.
                let claim = if $backend == "postgres" {
                    q::webhooks::claim_delivery_locked(claim_token, lease_until, now, now, now)
                } else {
                    q::webhooks::claim_delivery(claim_token, lease_until, now, now, now)
                };
                Ok(claim.fetch_optional(&self.pool).await?)
            }

            async fn finish_webhook_delivery(
                &self,
                id: &DeliveryId,
                claim_token: &str,
                fate: $crate::storage::DeliveryFate,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                use $crate::storage::{DeliveryFate, DeliveryStatus};
                let _w = self.write_lock().await;
                let (status, next) = match fate {
                    DeliveryFate::Delivered => (DeliveryStatus::Delivered, None),
                    DeliveryFate::Retry(at) => (DeliveryStatus::Pending, Some(at)),
                    DeliveryFate::Failed => (DeliveryStatus::Failed, None),
                    DeliveryFate::Dropped => (DeliveryStatus::Dropped, None),
                };
                let done = q::webhooks::finish_delivery(status.as_str(), next, now, id, claim_token)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn enabled_webhooks(
                &self,
            ) -> Result<Vec<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(q::webhooks::enabled_endpoints().fetch_all(&self.pool).await?)
            }

            async fn newest_queued_job_change(
                &self,
                org_id: &OrgId,
                endpoint_id: &WebhookId,
            ) -> Result<Option<i64>, $crate::storage::StorageError> {
                Ok(q::webhooks::newest_job_change(org_id, endpoint_id).fetch_one(&self.pool).await?)
            }

            async fn webhook_delivery_counts(
                &self,
                org_id: &OrgId,
            ) -> Result<Vec<(String, i64)>, $crate::storage::StorageError> {
                Ok(q::webhooks::delivery_counts(org_id).fetch_all(&self.pool).await?)
            }
        }
    };
}

pub(in crate::storage) use impl_webhook_store;
