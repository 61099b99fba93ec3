//! The SQL of the studio assistant ([`ChatStore`](crate::storage::ChatStore)). A session's row
//! is the lock its writes take: appending turns moves `last_seq` first, so two writers to one
//! session take their sequence numbers one after the other; a turn is counted by a conditional
//! `UPDATE` (open and under the limit), and an action is claimed by one (proposed, or a claim gone
//! stale), so concurrent applies of one action run it once.

/// The columns of `chat_sessions` in [`ChatSessionRow`](crate::storage::ChatSessionRow) order.
macro_rules! session_columns {
    () => {
        "id, org_id, user_id, via, title, titled, status, turns, last_seq, ticket_id, reason, context, \
         context_built_at, created_at, updated_at"
    };
}

/// The columns of `chat_turns` in [`ChatTurnRow`](crate::storage::ChatTurnRow) order.
macro_rules! turn_columns {
    () => {
        "id, session_id, seq, role, content, data, tokens, created_at"
    };
}

/// The columns of `chat_actions` in [`ChatActionRow`](crate::storage::ChatActionRow) order.
macro_rules! action_columns {
    () => {
        "id, session_id, turn_id, kind, summary, request, price, status, claimed_at, result, applied_at, created_at"
    };
}

pub(in crate::storage) use {action_columns, session_columns, turn_columns};

macro_rules! impl_chat_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        /// Insert turns in order after the session's last, moving `last_seq` (and applying the
        /// change) first so the session row serialises its writers.
        async fn append_turns_in(
            tx: &mut Tx,
            session_id: &ChatSessionId,
            mut turns: Vec<$crate::storage::ChatTurnRow>,
            change: &$crate::storage::SessionChange<'_>,
            now: chrono::DateTime<chrono::Utc>,
        ) -> Result<Vec<$crate::storage::ChatTurnRow>, $crate::storage::StorageError> {
            let (last,): (i64,) = sqlx::query_as(
                "UPDATE chat_sessions SET last_seq = last_seq + $2, updated_at = $3, \
                 title = CASE WHEN titled OR $4 IS NULL THEN title ELSE $4 END, titled = titled OR $4 IS NOT NULL, \
                 ticket_id = COALESCE(ticket_id, $5) \
                 WHERE id = $1 RETURNING last_seq",
            )
            .bind(session_id)
            .bind(turns.len() as i64)
            .bind(now)
            .bind(change.title)
            .bind(change.ticket)
            .fetch_one(&mut **tx)
            .await?;
            let first = last - turns.len() as i64 + 1;
            for (i, turn) in turns.iter_mut().enumerate() {
                turn.seq = first + i as i64;
                sqlx::query(concat!(
                    "INSERT INTO chat_turns (",
                    $crate::storage::sql::chat::turn_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                ))
                .bind(&turn.id)
                .bind(session_id)
                .bind(turn.seq)
                .bind(&turn.role)
                .bind(&turn.content)
                .bind(&turn.data)
                .bind(turn.tokens)
                .bind(turn.created_at)
                .execute(&mut **tx)
                .await?;
            }
            Ok(turns)
        }

        #[async_trait::async_trait]
        impl $crate::storage::ChatStore for $ty {
            async fn insert_chat_session(
                &self,
                r: &$crate::storage::ChatSessionRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO chat_sessions (",
                    $crate::storage::sql::chat::session_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
                ))
                .bind(&r.id)
                .bind(&r.org_id)
                .bind(&r.user_id)
                .bind(&r.via)
                .bind(&r.title)
                .bind(r.titled)
                .bind(&r.status)
                .bind(r.turns)
                .bind(r.last_seq)
                .bind(&r.ticket_id)
                .bind(&r.reason)
                .bind(&r.context)
                .bind(r.context_built_at)
                .bind(r.created_at)
                .bind(r.updated_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn chat_session(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                via: &str,
                id: &ChatSessionId,
            ) -> Result<Option<$crate::storage::ChatSessionRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::chat::session_columns!(),
                    " FROM chat_sessions WHERE id = $1 AND org_id = $2 AND user_id = $3 AND via = $4"
                ))
                .bind(id)
                .bind(org_id)
                .bind(user_id)
                .bind(via)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn chat_sessions(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                via: &str,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::ChatSessionRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::chat::session_columns!(),
                    " FROM chat_sessions WHERE org_id = $1 AND user_id = $2 AND via = $6 \
                     AND ($3 IS NULL OR updated_at < $3 OR (updated_at = $3 AND id < $4)) \
                     ORDER BY updated_at DESC, id DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(user_id)
                .bind(at)
                .bind(id)
                .bind(limit)
                .bind(via)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn claim_escalation(
                &self,
                session_id: &ChatSessionId,
                reason: &str,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE chat_sessions SET status = 'escalated', reason = $2 WHERE id = $1 AND status = 'open'",
                )
                .bind(session_id)
                .bind(reason)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn drop_escalation(&self, session_id: &ChatSessionId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE chat_sessions SET status = 'open', reason = NULL WHERE id = $1 AND ticket_id IS NULL",
                )
                .bind(session_id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn take_chat_turn(
                &self,
                session_id: &ChatSessionId,
                limit: i64,
            ) -> Result<Option<i64>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let row: Option<(i64,)> = sqlx::query_as(
                    "UPDATE chat_sessions SET turns = turns + 1 \
                     WHERE id = $1 AND status = 'open' AND turns < $2 RETURNING turns",
                )
                .bind(session_id)
                .bind(limit)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|(n,)| n))
            }

            async fn return_chat_turn(&self, session_id: &ChatSessionId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE chat_sessions SET turns = turns - 1 WHERE id = $1 AND turns > 0")
                    .bind(session_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn append_chat_turns(
                &self,
                session_id: &ChatSessionId,
                turns: Vec<$crate::storage::ChatTurnRow>,
                actions: &[$crate::storage::ChatActionRow],
                change: $crate::storage::SessionChange<'_>,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::ChatTurnRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let turns = append_turns_in(&mut tx, session_id, turns, &change, now).await?;
                for a in actions {
                    sqlx::query(concat!(
                        "INSERT INTO chat_actions (",
                        $crate::storage::sql::chat::action_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
                    ))
                    .bind(&a.id)
                    .bind(&a.session_id)
                    .bind(&a.turn_id)
                    .bind(&a.kind)
                    .bind(&a.summary)
                    .bind(&a.request)
                    .bind(a.price)
                    .bind(&a.status)
                    .bind(a.claimed_at)
                    .bind(&a.result)
                    .bind(a.applied_at)
                    .bind(a.created_at)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(turns)
            }

            async fn chat_turns(
                &self,
                session_id: &ChatSessionId,
                after_seq: i64,
                limit: i64,
            ) -> Result<Vec<$crate::storage::ChatTurnRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::chat::turn_columns!(),
                    " FROM chat_turns WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
                ))
                .bind(session_id)
                .bind(after_seq)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn chat_actions(
                &self,
                session_id: &ChatSessionId,
            ) -> Result<Vec<$crate::storage::ChatActionRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::chat::action_columns!(),
                    " FROM chat_actions WHERE session_id = $1 ORDER BY created_at, id"
                ))
                .bind(session_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn cache_chat_context(
                &self,
                session_id: &ChatSessionId,
                context: &str,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE chat_sessions SET context = $2, context_built_at = $3 WHERE id = $1")
                    .bind(session_id)
                    .bind(context)
                    .bind(at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn chat_action(
                &self,
                session_id: &ChatSessionId,
                id: &ChatActionId,
            ) -> Result<Option<$crate::storage::ChatActionRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::chat::action_columns!(),
                    " FROM chat_actions WHERE session_id = $1 AND id = $2"
                ))
                .bind(session_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn claim_chat_action(
                &self,
                id: &ChatActionId,
                now: chrono::DateTime<chrono::Utc>,
                stale_before: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE chat_actions SET status = 'applying', claimed_at = $2 \
                     WHERE id = $1 AND (status = 'proposed' OR (status = 'applying' AND claimed_at < $3))",
                )
                .bind(id)
                .bind(now)
                .bind(stale_before)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn unclaim_chat_action(
                &self,
                id: &ChatActionId,
                claimed: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE chat_actions SET status = 'proposed', claimed_at = NULL \
                     WHERE id = $1 AND status = 'applying' AND claimed_at = $2",
                )
                .bind(id)
                .bind(claimed)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn finish_chat_action(
                &self,
                id: &ChatActionId,
                claimed: chrono::DateTime<chrono::Utc>,
                result: &str,
                turn: $crate::storage::ChatTurnRow,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::ChatTurnRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let done = sqlx::query(
                    "UPDATE chat_actions SET status = 'applied', result = $2, applied_at = $3 \
                     WHERE id = $1 AND status = 'applying' AND claimed_at = $4",
                )
                .bind(id)
                .bind(result)
                .bind(now)
                .bind(claimed)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    return Ok(None);
                }
                let session_id = turn.session_id.clone();
                let change = $crate::storage::SessionChange::default();
                let mut turns = append_turns_in(&mut tx, &session_id, vec![turn], &change, now).await?;
                tx.commit().await?;
                Ok(turns.pop())
            }
        }
    };
}

pub(in crate::storage) use impl_chat_store;
