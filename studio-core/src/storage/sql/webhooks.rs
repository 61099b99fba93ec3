//! The SQL of webhook endpoints ([`WebhookStore`](crate::storage::WebhookStore)). Each method is
//! one statement; every one names the house in its `WHERE`, so no house reaches another's rows.

/// The columns of `webhook_endpoints` in [`WebhookRow`](crate::storage::WebhookRow) order.
macro_rules! webhook_columns {
    () => {
        "id, org_id, url, description, events, enabled, secret_sealed, previous_sealed, previous_expires_at, \
         disabled_reason, created_by, created_at, updated_at"
    };
}

pub(in crate::storage) use webhook_columns;

/// The columns of `webhook_attempts` in [`WebhookAttemptRow`](crate::storage::WebhookAttemptRow) order.
macro_rules! attempt_columns {
    () => {
        "id, org_id, endpoint_id, delivery_id, event, event_seq, payload, attempt, ok, status, latency_ms, response, \
         error, next_attempt_at, created_at, url"
    };
}

pub(in crate::storage) use attempt_columns;

/// The columns of `webhook_deliveries` in [`WebhookDeliveryRow`](crate::storage::WebhookDeliveryRow) order.
macro_rules! delivery_columns {
    () => {
        "id, org_id, endpoint_id, event, event_seq, payload, url, attempts, status, next_attempt_at, claim_token, \
         lease_until, created_at, updated_at"
    };
}

pub(in crate::storage) use delivery_columns;

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
                let done = sqlx::query(concat!(
                    "INSERT INTO webhook_endpoints (",
                    $crate::storage::sql::webhooks::webhook_columns!(),
                    ") SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 \
                     WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = $2) < $14"
                ))
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.url)
                .bind(&row.description)
                .bind(&row.events)
                .bind(row.enabled)
                .bind(&row.secret_sealed)
                .bind(&row.previous_sealed)
                .bind(row.previous_expires_at)
                .bind(&row.disabled_reason)
                .bind(&row.created_by)
                .bind(row.created_at)
                .bind(row.updated_at)
                .bind(max)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
            ) -> Result<Option<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::webhooks::webhook_columns!(),
                    " FROM webhook_endpoints WHERE org_id = $1 AND id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn webhooks(
                &self,
                org_id: &OrgId,
            ) -> Result<Vec<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::webhooks::webhook_columns!(),
                    " FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn update_webhook(
                &self,
                org_id: &OrgId,
                id: &WebhookId,
                changes: &$crate::storage::WebhookChanges,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE webhook_endpoints SET url = COALESCE($3, url), \
                     description = COALESCE($4, description), events = COALESCE($5, events), \
                     enabled = COALESCE($6, enabled), \
                     disabled_reason = CASE WHEN $6 IS NULL THEN disabled_reason ELSE NULL END, \
                     updated_at = $7 WHERE org_id = $1 AND id = $2 RETURNING ",
                    $crate::storage::sql::webhooks::webhook_columns!()
                ))
                .bind(org_id)
                .bind(id)
                .bind(&changes.url)
                .bind(&changes.description)
                .bind(&changes.events)
                .bind(changes.enabled)
                .bind(now)
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
                Ok(sqlx::query_as(concat!(
                    "UPDATE webhook_endpoints SET previous_sealed = secret_sealed, secret_sealed = $3, \
                     previous_expires_at = $4, updated_at = $5 WHERE org_id = $1 AND id = $2 RETURNING ",
                    $crate::storage::sql::webhooks::webhook_columns!()
                ))
                .bind(org_id)
                .bind(id)
                .bind(sealed)
                .bind(until)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn delete_webhook(&self, org_id: &OrgId, id: &WebhookId) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let done = sqlx::query("DELETE FROM webhook_endpoints WHERE org_id = $1 AND id = $2")
                    .bind(org_id)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                for table in ["webhook_attempts", "webhook_deliveries"] {
                    sqlx::query(&format!("DELETE FROM {table} WHERE org_id = $1 AND endpoint_id = $2"))
                        .bind(org_id)
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                }
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
                let done = sqlx::query(
                    "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = $3, updated_at = $4 \
                     WHERE org_id = $1 AND id = $2 AND enabled = TRUE",
                )
                .bind(org_id)
                .bind(id)
                .bind(reason)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn insert_webhook_attempt(
                &self,
                row: &$crate::storage::WebhookAttemptRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO webhook_attempts (",
                    $crate::storage::sql::webhooks::attempt_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
                ))
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.endpoint_id)
                .bind(&row.delivery_id)
                .bind(&row.event)
                .bind(row.event_seq)
                .bind(&row.payload)
                .bind(row.attempt)
                .bind(row.ok)
                .bind(row.status)
                .bind(row.latency_ms)
                .bind(&row.response)
                .bind(&row.error)
                .bind(row.next_attempt_at)
                .bind(row.created_at)
                .bind(&row.url)
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::webhooks::attempt_columns!(),
                    " FROM webhook_attempts WHERE org_id = $1 AND endpoint_id = $2 AND ($3 IS NULL OR id < $3) \
                     ORDER BY id DESC LIMIT $4"
                ))
                .bind(org_id)
                .bind(endpoint_id)
                .bind(before)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn last_webhook_attempt(
                &self,
                org_id: &OrgId,
                endpoint_id: &WebhookId,
                delivery_id: &DeliveryId,
            ) -> Result<Option<$crate::storage::WebhookAttemptRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::webhooks::attempt_columns!(),
                    " FROM webhook_attempts WHERE org_id = $1 AND endpoint_id = $2 AND delivery_id = $3 \
                     ORDER BY attempt DESC, id DESC LIMIT 1"
                ))
                .bind(org_id)
                .bind(endpoint_id)
                .bind(delivery_id)
                .fetch_optional(&self.pool)
                .await?)
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
                    sqlx::query(concat!(
                        "INSERT INTO webhook_deliveries (",
                        $crate::storage::sql::webhooks::delivery_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 'pending', $8, NULL, NULL, $9, $9) ON CONFLICT DO NOTHING"
                    ))
                    .bind(&row.id)
                    .bind(&row.org_id)
                    .bind(&row.endpoint_id)
                    .bind(&row.event)
                    .bind(row.event_seq)
                    .bind(&row.payload)
                    .bind(&row.url)
                    .bind(row.next_attempt_at)
                    .bind(row.created_at)
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
                let lock = if $backend == "postgres" { " FOR UPDATE OF d, e SKIP LOCKED" } else { "" };
                let sql = format!(
                    "UPDATE webhook_deliveries SET claim_token = $1, lease_until = $2, attempts = attempts + 1, \
                     updated_at = $3 WHERE id = (SELECT d.id FROM webhook_deliveries d \
                     JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.status = 'pending' \
                     AND d.next_attempt_at <= $3 AND (d.lease_until IS NULL OR d.lease_until < $3) \
                     AND (d.endpoint_id, COALESCE(d.url, '')) NOT IN (SELECT f.endpoint_id, COALESCE(f.url, '') \
                     FROM webhook_deliveries f WHERE f.claim_token IS NOT NULL AND f.lease_until >= $3 \
                     AND f.status = 'pending') \
                     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.endpoint_id = d.endpoint_id \
                     AND COALESCE(o.url, '') = COALESCE(d.url, '') AND o.status = 'pending' AND o.attempts = 0 \
                     AND o.event_seq < d.event_seq) \
                     ORDER BY d.next_attempt_at, d.id LIMIT 1{lock}) \
                     AND status = 'pending' AND (lease_until IS NULL OR lease_until < $3) RETURNING {}",
                    $crate::storage::sql::webhooks::delivery_columns!()
                );
                Ok(sqlx::query_as(&sql)
                .bind(claim_token)
                .bind(lease_until)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn finish_webhook_delivery(
                &self,
                id: &DeliveryId,
                claim_token: &str,
                fate: $crate::storage::DeliveryFate,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                use $crate::storage::DeliveryFate;
                let _w = self.write_lock().await;
                let (status, next) = match fate {
                    DeliveryFate::Delivered => ("delivered", None),
                    DeliveryFate::Retry(at) => ("pending", Some(at)),
                    DeliveryFate::Failed => ("failed", None),
                    DeliveryFate::Dropped => ("dropped", None),
                };
                let done = sqlx::query(
                    "UPDATE webhook_deliveries SET status = $1, next_attempt_at = COALESCE($2, next_attempt_at), \
                     claim_token = NULL, lease_until = NULL, updated_at = $3 \
                     WHERE id = $4 AND claim_token = $5 AND status = 'pending'",
                )
                .bind(status)
                .bind(next)
                .bind(now)
                .bind(id)
                .bind(claim_token)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn enabled_webhooks(&self) -> Result<Vec<$crate::storage::WebhookRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::webhooks::webhook_columns!(),
                    " FROM webhook_endpoints WHERE enabled = TRUE ORDER BY org_id, created_at, id"
                ))
                .fetch_all(&self.pool)
                .await?)
            }

            async fn newest_queued_job_change(
                &self,
                org_id: &OrgId,
                endpoint_id: &WebhookId,
            ) -> Result<Option<i64>, $crate::storage::StorageError> {
                let newest: (Option<i64>,) = sqlx::query_as(
                    "SELECT MAX(event_seq) FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2 \
                     AND event = 'job' AND url IS NULL",
                )
                .bind(org_id)
                .bind(endpoint_id)
                .fetch_one(&self.pool)
                .await?;
                Ok(newest.0)
            }

            async fn webhook_delivery_counts(
                &self,
                org_id: &OrgId,
            ) -> Result<Vec<(String, i64)>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT status, COUNT(*) FROM webhook_deliveries WHERE org_id = $1 GROUP BY status ORDER BY status",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_webhook_store;
