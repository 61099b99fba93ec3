//! The SQL of support ([`SupportStore`](crate::storage::SupportStore)): tickets with their list
//! fields (counts, last author, house and person) read by subqueries, threads, noted reports and
//! screenshots. A message and its effect on the ticket are one transaction. Every statement is
//! declared in [`q`] (see stmt.rs).

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

/// Support's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{OrgId, ScreenshotId, TicketId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{ScreenshotRow, ThreadMessageRow, TicketLineRow};

    statements! {
        /// Record a ticket (of a house, or of none when an escalation names none).
        fn insert_ticket(
            id: &'q TicketId,
            org_id: Option<&'q OrgId>,
            user_id: Option<&'q UserId>,
            source: &'q str,
            status: &'q str,
            topic: Option<&'q str>,
            subject: Option<&'q str>,
            summary: &'q str,
            contact_email: Option<&'q str>,
            current_url: Option<&'q str>,
            screen: Option<&'q str>,
            rating: Option<i64>,
            screenshots: &'q str,
            context: &'q str,
            reason: Option<&'q str>,
            session_id: Option<&'q str>,
            transcript: &'q str,
            created_at: DateTime<Utc>,
            last_message_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO support_tickets (", ticket_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
        }

        /// A ticket with its list fields, by id.
        fn ticket_line(id: &'q TicketId) -> row<TicketLineRow> [any "ticket ids are unique across houses: the desk reads any ticket, and a person's read compares the row's house and person with their own"] {
            ticket_line!(), " WHERE t.id = $1"
        }

        /// A person's tickets in a house, latest message first, after the cursor
        /// (`last_message_at`, `id`).
        fn person_tickets(
            org_id: &'q OrgId,
            user_id: &'q UserId,
            last_message_at: Option<DateTime<Utc>>,
            id: Option<&'q str>,
            limit: i64,
        ) -> row<TicketLineRow> [house] {
            ticket_line!(), " WHERE t.org_id = $1 AND t.user_id = $2 AND ($3 IS NULL OR t.last_message_at < $3 \
             OR (t.last_message_at = $3 AND t.id < $4)) ORDER BY t.last_message_at DESC, t.id DESC LIMIT $5"
        }

        /// A page of the support queue (filtered), latest message first, after the cursor
        /// (`last_message_at`, `before_id`).
        fn queue_tickets(
            status: Option<&'q str>,
            org_id: Option<&'q OrgId>,
            topic: Option<&'q str>,
            id: Option<&'q str>,
            created_at: Option<DateTime<Utc>>,
            last_message_at: Option<DateTime<Utc>>,
            before_id: Option<&'q str>,
            limit: i64,
        ) -> row<TicketLineRow> [any "the support desk's queue reads every house's tickets when its filter names no house"] {
            ticket_line!(), ticket_filter!(),
            " AND ($6 IS NULL OR t.last_message_at < $6 OR (t.last_message_at = $6 AND $7 > t.id)) \
             ORDER BY t.last_message_at DESC, t.id DESC LIMIT $8"
        }

        /// Every ticket the filter admits, latest message first.
        fn window_tickets(
            status: Option<&'q str>,
            org_id: Option<&'q OrgId>,
            topic: Option<&'q str>,
            id: Option<&'q str>,
            created_at: Option<DateTime<Utc>>,
        ) -> row<TicketLineRow> [any "the support desk's figures read every house's tickets when its filter names no house"] {
            ticket_line!(), ticket_filter!(), " ORDER BY t.last_message_at DESC, t.id DESC"
        }

        /// A ticket's id, locked (PostgreSQL) while a message is added to it.
        fn ticket_locked(id: &'q TicketId) -> row<(String,)> [any "ticket ids are unique across houses; the caller read the ticket as the person's own or as the desk's", lock] {
            "SELECT id FROM support_tickets WHERE id = $1"
        }

        /// Set a ticket's status.
        fn set_ticket_status(status: &'q str, id: &'q TicketId) -> exec [any "ticket ids are unique across houses; the caller read the ticket as the person's own or as the desk's"] {
            "UPDATE support_tickets SET status = $1 WHERE id = $2"
        }

        /// Move a ticket's latest message time.
        fn touch_ticket(last_message_at: DateTime<Utc>, id: &'q TicketId) -> exec [any "ticket ids are unique across houses; the caller read the ticket as the person's own or as the desk's"] {
            "UPDATE support_tickets SET last_message_at = $1 WHERE id = $2"
        }

        /// A ticket's thread (with the internal notes, or without), oldest first.
        fn ticket_messages(ticket_id: &'q TicketId, internal: bool) -> row<ThreadMessageRow> [any "support_messages has no house: a message is its ticket's, which the caller read as the person's own or as the desk's"] {
            "SELECT m.id, m.ticket_id, m.author, m.author_id, m.internal, m.content, m.created_at, m.read_at, \
             (SELECT COALESCE(u.name, u.email) FROM users u WHERE u.id = m.author_id) AS author_name \
             FROM support_messages m WHERE m.ticket_id = $1 AND ($2 OR m.internal = FALSE) \
             ORDER BY m.created_at, m.id"
        }

        /// Mark support's visible replies on a ticket read.
        fn mark_support_read(read_at: DateTime<Utc>, ticket_id: &'q TicketId) -> exec [any "support_messages has no house: a message is its ticket's, which the caller read as the person's own"] {
            "UPDATE support_messages SET read_at = $1 WHERE ticket_id = $2 AND author = 'support' \
             AND internal = FALSE AND read_at IS NULL"
        }

        /// Record a noted report of a house.
        fn insert_support_report(
            id: &'q str,
            org_id: &'q OrgId,
            user_id: &'q UserId,
            topic: Option<&'q str>,
            subject: Option<&'q str>,
            body: &'q str,
            contact_email: Option<&'q str>,
            current_url: Option<&'q str>,
            screen: Option<&'q str>,
            rating: Option<i64>,
            screenshots: &'q str,
            context: &'q str,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO support_reports (id, org_id, user_id, topic, subject, body, contact_email, \
             current_url, screen, rating, screenshots, context, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        }

        /// How many reports every house noted since `created_at`.
        fn support_reports_since(created_at: DateTime<Utc>) -> scalar<i64> [any "the support desk's figures count every house's reports"] {
            "SELECT COUNT(*) FROM support_reports WHERE created_at >= $1"
        }

        /// Record a screenshot of a house.
        fn insert_screenshot(
            id: &'q str,
            org_id: &'q OrgId,
            user_id: &'q UserId,
            object: &'q str,
            blob_key: &'q str,
            mime: &'q str,
            bytes: i64,
            created_at: DateTime<Utc>,
            expires_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO support_screenshots (", screenshot_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        }

        /// A screenshot by id.
        fn screenshot(id: &'q ScreenshotId) -> row<ScreenshotRow> [any "a screenshot is read by its signed link alone, whose signature is the authority"] {
            "SELECT ", screenshot_columns!(), " FROM support_screenshots WHERE id = $1"
        }

        /// Screenshots expired before `expires_at`, oldest first.
        fn expired_screenshots(expires_at: DateTime<Utc>, limit: i64) -> row<ScreenshotRow> [any "the expiry sweep serves every house"] {
            "SELECT ", screenshot_columns!(), " FROM support_screenshots WHERE expires_at < $1 ORDER BY expires_at, id LIMIT $2"
        }

        /// Forget a screenshot.
        fn delete_screenshot(id: &'q ScreenshotId) -> exec [any "the expiry sweep forgets the expired screenshots it read, by id, whatever their house"] {
            "DELETE FROM support_screenshots WHERE id = $1"
        }

        /// Record a thread message.
        fn insert_support_message(
            id: &'q str,
            ticket_id: &'q TicketId,
            author: &'q str,
            author_id: Option<&'q UserId>,
            internal: bool,
            content: &'q str,
            created_at: DateTime<Utc>,
            read_at: Option<DateTime<Utc>>,
        ) -> exec [any "support_messages has no house: a message is its ticket's, which the caller read (or wrote) in the same transaction"] {
            "INSERT INTO support_messages (id, ticket_id, author, author_id, internal, content, created_at, read_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }
    }
}

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
                q::support::insert_ticket(
                    &t.id,
                    t.org_id.as_ref(),
                    t.user_id.as_ref(),
                    &t.source,
                    t.status.as_str(),
                    t.topic.as_deref(),
                    t.subject.as_deref(),
                    &t.summary,
                    t.contact_email.as_deref(),
                    t.current_url.as_deref(),
                    t.screen.as_deref(),
                    t.rating,
                    &t.screenshots,
                    &t.context,
                    t.reason.as_deref(),
                    t.session_id.as_deref(),
                    &t.transcript,
                    t.created_at,
                    t.last_message_at,
                )
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
                Ok(q::support::ticket_line(id).fetch_optional(&self.pool).await?)
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
                Ok(q::support::person_tickets(org_id, user_id, at, id, limit).fetch_all(&self.pool).await?)
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
                Ok(q::support::queue_tickets(
                    f.status.as_deref(),
                    f.org_id.as_ref(),
                    f.topic.as_deref(),
                    f.ticket_id.as_deref(),
                    f.since,
                    at,
                    id,
                    limit,
                )
                .fetch_all(&self.pool)
                .await?)
            }

            async fn window_tickets(
                &self,
                f: &$crate::storage::TicketFilter,
            ) -> Result<Vec<$crate::storage::TicketLineRow>, $crate::storage::StorageError> {
                Ok(q::support::window_tickets(
                    f.status.as_deref(),
                    f.org_id.as_ref(),
                    f.topic.as_deref(),
                    f.ticket_id.as_deref(),
                    f.since,
                )
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
                let found = q::support::ticket_locked(&m.ticket_id).fetch_optional(&mut *tx).await?;
                if found.is_none() {
                    tx.rollback().await?;
                    return Ok(false);
                }
                insert_support_message(&mut tx, m).await?;
                if let Some(status) = effect.status {
                    q::support::set_ticket_status(status, &m.ticket_id).execute(&mut *tx).await?;
                }
                if effect.visible {
                    q::support::touch_ticket(m.created_at, &m.ticket_id).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn ticket_messages(
                &self,
                ticket_id: &TicketId,
                internal: bool,
            ) -> Result<Vec<$crate::storage::ThreadMessageRow>, $crate::storage::StorageError> {
                Ok(q::support::ticket_messages(ticket_id, internal).fetch_all(&self.pool).await?)
            }

            async fn mark_support_read(
                &self,
                ticket_id: &TicketId,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<u64, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::support::mark_support_read(now, ticket_id).execute(&self.pool).await?;
                Ok(done.rows_affected())
            }

            async fn set_ticket_status(
                &self,
                id: &TicketId,
                status: &str,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::support::set_ticket_status(status, id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }

            async fn insert_support_report(
                &self,
                r: &$crate::storage::SupportReportRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::support::insert_support_report(
                    &r.id,
                    &r.org_id,
                    &r.user_id,
                    r.topic.as_deref(),
                    r.subject.as_deref(),
                    &r.body,
                    r.contact_email.as_deref(),
                    r.current_url.as_deref(),
                    r.screen.as_deref(),
                    r.rating,
                    &r.screenshots,
                    &r.context,
                    r.created_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn support_reports_since(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<i64, $crate::storage::StorageError> {
                Ok(q::support::support_reports_since(since).fetch_one(&self.pool).await?)
            }

            async fn insert_screenshot(
                &self,
                r: &$crate::storage::ScreenshotRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::support::insert_screenshot(
                    &r.id,
                    &r.org_id,
                    &r.user_id,
                    &r.object,
                    &r.blob_key,
                    &r.mime,
                    r.bytes,
                    r.created_at,
                    r.expires_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn screenshot(
                &self,
                id: &ScreenshotId,
            ) -> Result<Option<$crate::storage::ScreenshotRow>, $crate::storage::StorageError> {
                Ok(q::support::screenshot(id).fetch_optional(&self.pool).await?)
            }

            async fn expired_screenshots(
                &self,
                before: chrono::DateTime<chrono::Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::ScreenshotRow>, $crate::storage::StorageError> {
                Ok(q::support::expired_screenshots(before, limit).fetch_all(&self.pool).await?)
            }

            async fn delete_screenshot(&self, id: &ScreenshotId) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::support::delete_screenshot(id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }
        }

        /// Insert one thread message inside a transaction.
        async fn insert_support_message(
            tx: &mut Tx,
            m: &$crate::storage::TicketMessageRow,
        ) -> Result<(), $crate::storage::StorageError> {
            q::support::insert_support_message(
                &m.id,
                &m.ticket_id,
                &m.author,
                m.author_id.as_ref(),
                m.internal,
                &m.content,
                m.created_at,
                m.read_at,
            )
            .execute(&mut **tx)
            .await?;
            Ok(())
        }
    };
}

pub(in crate::storage) use impl_support_store;
