//! The SQL of support ([`SupportStore`](crate::storage::SupportStore)): tickets with their list
//! fields (counts, last author, house and person) read by subqueries, threads, noted reports and
//! screenshots. A message and its effect on the ticket are one transaction.

/// The columns of `support_tickets` in [`TicketRow`](crate::storage::TicketRow) order.
macro_rules! ticket_columns {
    () => {
        "id, org_id, user_id, source, status, topic, subject, summary, contact_email, current_url, screen, rating, \
         screenshots, context, reason, session_id, transcript, created_at, last_message_at"
    };
}

/// A ticket with its list fields ([`TicketLineRow`](crate::storage::TicketLineRow)), from `t`.
macro_rules! ticket_line {
    () => {
        "SELECT t.id, t.org_id, t.user_id, t.source, t.status, t.topic, t.subject, t.summary, t.contact_email, \
         t.current_url, t.screen, t.rating, t.screenshots, t.context, t.reason, t.session_id, t.transcript, \
         t.created_at, t.last_message_at, \
         (SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.internal = FALSE) AS message_count, \
         (SELECT COUNT(*) FROM support_messages m WHERE m.ticket_id = t.id AND m.internal = FALSE \
            AND m.author = 'support' AND m.read_at IS NULL) AS unread_count, \
         (SELECT m.author FROM support_messages m WHERE m.ticket_id = t.id AND m.internal = FALSE \
            ORDER BY m.created_at DESC, m.id DESC LIMIT 1) AS last_author, \
         (SELECT o.name FROM organizations o WHERE o.id = t.org_id) AS house_name, \
         (SELECT u.email FROM users u WHERE u.id = t.user_id) AS person_email, \
         (SELECT MIN(m.created_at) FROM support_messages m WHERE m.ticket_id = t.id AND m.internal = FALSE \
            AND m.author = 'support') AS first_reply_at \
         FROM support_tickets t"
    };
}

/// The filter of a queue read (parameters $1 to $5).
macro_rules! ticket_filter {
    () => {
        " WHERE (CAST($1 AS TEXT) IS NULL OR t.status = $1) AND (CAST($2 AS TEXT) IS NULL OR t.org_id = $2) \
         AND (CAST($3 AS TEXT) IS NULL OR t.topic = $3) AND (CAST($4 AS TEXT) IS NULL OR t.id = $4) \
         AND ($5 IS NULL OR t.created_at >= $5)"
    };
}

/// The columns of `support_screenshots` in [`ScreenshotRow`](crate::storage::ScreenshotRow) order.
macro_rules! screenshot_columns {
    () => {
        "id, org_id, user_id, object, blob_key, mime, bytes, created_at, expires_at"
    };
}

pub(in crate::storage) use {screenshot_columns, ticket_columns, ticket_filter, ticket_line};

macro_rules! impl_support_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::SupportStore for $ty {
            async fn insert_ticket(
                &self,
                t: &$crate::storage::TicketRow,
                first: Option<&$crate::storage::TicketMessageRow>,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                sqlx::query(concat!(
                    "INSERT INTO support_tickets (",
                    $crate::storage::sql::support::ticket_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
                ))
                .bind(&t.id)
                .bind(&t.org_id)
                .bind(&t.user_id)
                .bind(&t.source)
                .bind(&t.status)
                .bind(&t.topic)
                .bind(&t.subject)
                .bind(&t.summary)
                .bind(&t.contact_email)
                .bind(&t.current_url)
                .bind(&t.screen)
                .bind(t.rating)
                .bind(&t.screenshots)
                .bind(&t.context)
                .bind(&t.reason)
                .bind(&t.session_id)
                .bind(&t.transcript)
                .bind(t.created_at)
                .bind(t.last_message_at)
                .execute(&mut *tx)
                .await?;
                if let Some(m) = first {
                    insert_support_message(&mut tx, m).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn ticket_line(
                &self,
                id: &TicketId,
            ) -> Result<Option<$crate::storage::TicketLineRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!($crate::storage::sql::support::ticket_line!(), " WHERE t.id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn person_tickets(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::TicketLineRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    $crate::storage::sql::support::ticket_line!(),
                    " WHERE t.org_id = $1 AND t.user_id = $2 AND ($3 IS NULL OR t.last_message_at < $3 \
                     OR (t.last_message_at = $3 AND t.id < $4)) ORDER BY t.last_message_at DESC, t.id DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(user_id)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn queue_tickets(
                &self,
                f: &$crate::storage::TicketFilter,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::TicketLineRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    $crate::storage::sql::support::ticket_line!(),
                    $crate::storage::sql::support::ticket_filter!(),
                    " AND ($6 IS NULL OR t.last_message_at < $6 OR (t.last_message_at = $6 AND t.id < $7)) \
                     ORDER BY t.last_message_at DESC, t.id DESC LIMIT $8"
                ))
                .bind(&f.status)
                .bind(&f.org_id)
                .bind(&f.topic)
                .bind(&f.ticket_id)
                .bind(f.since)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn window_tickets(
                &self,
                f: &$crate::storage::TicketFilter,
            ) -> Result<Vec<$crate::storage::TicketLineRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    $crate::storage::sql::support::ticket_line!(),
                    $crate::storage::sql::support::ticket_filter!(),
                    " ORDER BY t.last_message_at DESC, t.id DESC"
                ))
                .bind(&f.status)
                .bind(&f.org_id)
                .bind(&f.topic)
                .bind(&f.ticket_id)
                .bind(f.since)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn add_ticket_message(
                &self,
                m: &$crate::storage::TicketMessageRow,
                effect: $crate::storage::MessageEffect,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let found: Option<(String,)> =
                    sqlx::query_as(concat!("SELECT id FROM support_tickets WHERE id = $1", $lock))
                        .bind(&m.ticket_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                if found.is_none() {
                    tx.rollback().await?;
                    return Ok(false);
                }
                insert_support_message(&mut tx, m).await?;
                if let Some(status) = effect.status {
                    sqlx::query("UPDATE support_tickets SET status = $2 WHERE id = $1")
                        .bind(&m.ticket_id)
                        .bind(status)
                        .execute(&mut *tx)
                        .await?;
                }
                if effect.visible {
                    sqlx::query("UPDATE support_tickets SET last_message_at = $2 WHERE id = $1")
                        .bind(&m.ticket_id)
                        .bind(m.created_at)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn ticket_messages(
                &self,
                ticket_id: &TicketId,
                internal: bool,
            ) -> Result<Vec<$crate::storage::ThreadMessageRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT m.id, m.ticket_id, m.author, m.author_id, m.internal, m.content, m.created_at, m.read_at, \
                     (SELECT COALESCE(u.name, u.email) FROM users u WHERE u.id = m.author_id) AS author_name \
                     FROM support_messages m WHERE m.ticket_id = $1 AND ($2 OR m.internal = FALSE) \
                     ORDER BY m.created_at, m.id",
                )
                .bind(ticket_id)
                .bind(internal)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn mark_support_read(
                &self,
                ticket_id: &TicketId,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<u64, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE support_messages SET read_at = $2 WHERE ticket_id = $1 AND author = 'support' \
                     AND internal = FALSE AND read_at IS NULL",
                )
                .bind(ticket_id)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected())
            }

            async fn set_ticket_status(&self, id: &TicketId, status: &str) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("UPDATE support_tickets SET status = $2 WHERE id = $1")
                    .bind(id)
                    .bind(status)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            async fn insert_support_report(
                &self,
                r: &$crate::storage::SupportReportRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO support_reports (id, org_id, user_id, topic, subject, body, contact_email, \
                     current_url, screen, rating, screenshots, context, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                )
                .bind(&r.id)
                .bind(&r.org_id)
                .bind(&r.user_id)
                .bind(&r.topic)
                .bind(&r.subject)
                .bind(&r.body)
                .bind(&r.contact_email)
                .bind(&r.current_url)
                .bind(&r.screen)
                .bind(r.rating)
                .bind(&r.screenshots)
                .bind(&r.context)
                .bind(r.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn support_reports_since(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<i64, $crate::storage::StorageError> {
                Ok(sqlx::query_scalar("SELECT COUNT(*) FROM support_reports WHERE created_at >= $1")
                    .bind(since)
                    .fetch_one(&self.pool)
                    .await?)
            }

            async fn insert_screenshot(
                &self,
                r: &$crate::storage::ScreenshotRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO support_screenshots (",
                    $crate::storage::sql::support::screenshot_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                ))
                .bind(&r.id)
                .bind(&r.org_id)
                .bind(&r.user_id)
                .bind(&r.object)
                .bind(&r.blob_key)
                .bind(&r.mime)
                .bind(r.bytes)
                .bind(r.created_at)
                .bind(r.expires_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn screenshot(
                &self,
                id: &ScreenshotId,
            ) -> Result<Option<$crate::storage::ScreenshotRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::support::screenshot_columns!(),
                    " FROM support_screenshots WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn expired_screenshots(
                &self,
                before: chrono::DateTime<chrono::Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::ScreenshotRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::support::screenshot_columns!(),
                    " FROM support_screenshots WHERE expires_at < $1 ORDER BY expires_at, id LIMIT $2"
                ))
                .bind(before)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn delete_screenshot(&self, id: &ScreenshotId) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM support_screenshots WHERE id = $1")
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }
        }

        /// Insert one thread message inside a transaction.
        async fn insert_support_message(
            tx: &mut Tx,
            m: &$crate::storage::TicketMessageRow,
        ) -> Result<(), $crate::storage::StorageError> {
            sqlx::query(
                "INSERT INTO support_messages (id, ticket_id, author, author_id, internal, content, created_at, read_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&m.id)
            .bind(&m.ticket_id)
            .bind(&m.author)
            .bind(&m.author_id)
            .bind(m.internal)
            .bind(&m.content)
            .bind(m.created_at)
            .bind(m.read_at)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }
    };
}

pub(in crate::storage) use impl_support_store;
