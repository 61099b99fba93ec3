//! The SQL of the studio assistant ([`ChatStore`](crate::storage::ChatStore)). A session's row
//! is the lock its writes take: appending turns moves `last_seq` first, so two writers to one
//! session take their sequence numbers one after the other; a turn is counted by a conditional
//! `UPDATE` (open and under the limit), and an action is claimed by one (proposed, or a claim gone
//! stale), so concurrent applies of one action run it once. Every statement is declared in [`q`]
//! (see stmt.rs).

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

/// The assistant's declared statements. A session is named by its id (unique across houses)
/// once the caller has read it as the asking person's own (house, person and credential,
/// `via`); turns and actions have no house of their own, only their session's.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{ChatActionId, ChatSessionId, OrgId, TicketId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{ChatActionRow, ChatSessionRow, ChatTurnRow};

    statements! {
        /// Write a new session of a house.
        fn insert_session(
            id: &'q ChatSessionId,
            org_id: &'q OrgId,
            user_id: &'q UserId,
            via: &'q str,
            title: &'q str,
            titled: bool,
            status: &'q str,
            turns: i64,
            last_seq: i64,
            ticket_id: Option<&'q TicketId>,
            reason: Option<&'q str>,
            context: Option<&'q str>,
            context_built_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO chat_sessions (", session_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        }

        /// A person's session in a house through one credential.
        fn session(id: &'q ChatSessionId, org_id: &'q OrgId, user_id: &'q UserId, via: &'q str) -> row<ChatSessionRow> [house] {
            "SELECT ", session_columns!(), " FROM chat_sessions WHERE id = $1 AND org_id = $2 AND user_id = $3 AND via = $4"
        }

        /// A page of a person's sessions in a house through one credential, latest change first,
        /// before (`updated_at`, `id`) when given.
        fn sessions(
            org_id: &'q OrgId,
            user_id: &'q UserId,
            via: &'q str,
            updated_at: Option<DateTime<Utc>>,
            id: Option<&'q ChatSessionId>,
            limit: i64,
        ) -> row<ChatSessionRow> [house] {
            "SELECT ", session_columns!(), " FROM chat_sessions WHERE org_id = $1 AND user_id = $2 AND via = $3 \
             AND ($4 IS NULL OR updated_at < $4 OR (updated_at = $4 AND id < $5)) \
             ORDER BY updated_at DESC, id DESC LIMIT $6"
        }

        /// Move a session's `last_seq` by the turns appended (and apply the change): the new
        /// `last_seq`. The session's row is the lock of its writers.
        fn advance_session(
            added: i64,
            updated_at: DateTime<Utc>,
            title: Option<&'q str>,
            ticket_id: Option<&'q TicketId>,
            id: &'q ChatSessionId,
        ) -> scalar<i64> [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET last_seq = last_seq + $1, updated_at = $2, \
             title = CASE WHEN titled OR $3 IS NULL THEN title ELSE $3 END, titled = titled OR $3 IS NOT NULL, \
             ticket_id = COALESCE(ticket_id, $4) \
             WHERE id = $5 RETURNING last_seq"
        }

        /// Append one turn to a session.
        fn insert_turn(
            id: &'q str,
            session_id: &'q ChatSessionId,
            seq: i64,
            role: &'q str,
            content: &'q str,
            data: &'q str,
            tokens: i64,
            created_at: DateTime<Utc>,
        ) -> exec [any "chat_turns has no house: a turn is its session's, whose row the same transaction just moved"] {
            "INSERT INTO chat_turns (", turn_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// Mark an open session escalated, saying why (no row when it is escalated already).
        fn claim_escalation(reason: &'q str, id: &'q ChatSessionId) -> exec [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET status = 'escalated', reason = $1 WHERE id = $2 AND status = 'open'"
        }

        /// Open again a session whose escalation made no ticket.
        fn drop_escalation(id: &'q ChatSessionId) -> exec [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET status = 'open', reason = NULL WHERE id = $1 AND ticket_id IS NULL"
        }

        /// Take one person turn on an open session that has taken fewer than `turns` (the
        /// limit): the new count (no row when escalated or at the limit).
        fn take_turn(id: &'q ChatSessionId, turns: i64) -> scalar<i64> [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET turns = turns + 1 WHERE id = $1 AND status = 'open' AND turns < $2 RETURNING turns"
        }

        /// Give back a turn taken.
        fn return_turn(id: &'q ChatSessionId) -> exec [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET turns = turns - 1 WHERE id = $1 AND turns > 0"
        }

        /// Record an action a turn of a session proposed.
        fn insert_action(
            id: &'q ChatActionId,
            session_id: &'q ChatSessionId,
            turn_id: &'q str,
            kind: &'q str,
            summary: &'q str,
            request: &'q str,
            price: i64,
            status: &'q str,
            claimed_at: Option<DateTime<Utc>>,
            result: Option<&'q str>,
            applied_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
        ) -> exec [any "chat_actions has no house: an action is its session's, whose row the same transaction just moved"] {
            "INSERT INTO chat_actions (", action_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        }

        /// A session's turns after `seq`, in order.
        fn turns(session_id: &'q ChatSessionId, seq: i64, limit: i64) -> row<ChatTurnRow> [any "chat_turns has no house: the caller read their session as the asking person's own"] {
            "SELECT ", turn_columns!(), " FROM chat_turns WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        }

        /// A session's actions, oldest first.
        fn actions(session_id: &'q ChatSessionId) -> row<ChatActionRow> [any "chat_actions has no house: the caller read their session as the asking person's own"] {
            "SELECT ", action_columns!(), " FROM chat_actions WHERE session_id = $1 ORDER BY created_at, id"
        }

        /// Keep the context built for a session.
        fn cache_context(context: &'q str, context_built_at: DateTime<Utc>, id: &'q ChatSessionId) -> exec [any "a session id is unique across houses; the caller read the session as the asking person's own"] {
            "UPDATE chat_sessions SET context = $1, context_built_at = $2 WHERE id = $3"
        }

        /// One action of a session.
        fn action(session_id: &'q ChatSessionId, id: &'q ChatActionId) -> row<ChatActionRow> [any "chat_actions has no house: the caller read their session as the asking person's own"] {
            "SELECT ", action_columns!(), " FROM chat_actions WHERE session_id = $1 AND id = $2"
        }

        /// Claim an action at `claimed_at`: a proposed one, or one claimed before
        /// `stale_claimed_at` (an apply that died).
        fn claim_action(claimed_at: DateTime<Utc>, id: &'q ChatActionId, stale_claimed_at: DateTime<Utc>) -> exec [any "an action id is unique across houses; the caller read the action through its session, the asking person's own"] {
            "UPDATE chat_actions SET status = 'applying', claimed_at = $1 \
             WHERE id = $2 AND (status = 'proposed' OR (status = 'applying' AND claimed_at < $3))"
        }

        /// Hand back the claim taken at `claimed_at`, unless another apply took it over since.
        fn unclaim_action(id: &'q ChatActionId, claimed_at: DateTime<Utc>) -> exec [any "an action id is unique across houses; the caller read the action through its session, the asking person's own"] {
            "UPDATE chat_actions SET status = 'proposed', claimed_at = NULL \
             WHERE id = $1 AND status = 'applying' AND claimed_at = $2"
        }

        /// Record the action claimed at `claimed_at` as applied (no row when the claim is lost).
        fn finish_action(result: &'q str, applied_at: DateTime<Utc>, id: &'q ChatActionId, claimed_at: DateTime<Utc>) -> exec [any "an action id is unique across houses; the caller read the action through its session, the asking person's own"] {
            "UPDATE chat_actions SET status = 'applied', result = $1, applied_at = $2 \
             WHERE id = $3 AND status = 'applying' AND claimed_at = $4"
        }
    }
}

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
            let last = q::chat::advance_session(
                turns.len() as i64,
                now,
                change.title,
                change.ticket.map($crate::ids::TicketId::from).as_ref(),
                session_id,
            )
            .fetch_one(&mut **tx)
            .await?;
            let first = last - turns.len() as i64 + 1;
            for (i, turn) in turns.iter_mut().enumerate() {
                turn.seq = first + i as i64;
                q::chat::insert_turn(
                    &turn.id,
                    session_id,
                    turn.seq,
                    &turn.role,
                    &turn.content,
                    &turn.data,
                    turn.tokens,
                    turn.created_at,
                )
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
                q::chat::insert_session(
                    &r.id,
                    &r.org_id,
                    &r.user_id,
                    &r.via,
                    &r.title,
                    r.titled,
                    r.status.as_str(),
                    r.turns,
                    r.last_seq,
                    r.ticket_id.as_ref(),
                    r.reason.as_deref(),
                    r.context.as_deref(),
                    r.context_built_at,
                    r.created_at,
                    r.updated_at,
                )
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
                Ok(q::chat::session(id, org_id, user_id, via).fetch_optional(&self.pool).await?)
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
                Ok(q::chat::sessions(org_id, user_id, via, at, id.map(ChatSessionId::from).as_ref(), limit)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn claim_escalation(
                &self,
                session_id: &ChatSessionId,
                reason: &str,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::chat::claim_escalation(reason, session_id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn drop_escalation(&self, session_id: &ChatSessionId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::chat::drop_escalation(session_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn take_chat_turn(
                &self,
                session_id: &ChatSessionId,
                limit: i64,
            ) -> Result<Option<i64>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(q::chat::take_turn(session_id, limit).fetch_optional(&self.pool).await?)
            }

            async fn return_chat_turn(&self, session_id: &ChatSessionId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::chat::return_turn(session_id).execute(&self.pool).await?;
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
                    q::chat::insert_action(
                        &a.id,
                        &a.session_id,
                        &a.turn_id,
                        &a.kind,
                        &a.summary,
                        &a.request,
                        a.price,
                        a.status.as_str(),
                        a.claimed_at,
                        a.result.as_deref(),
                        a.applied_at,
                        a.created_at,
                    )
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
                Ok(q::chat::turns(session_id, after_seq, limit).fetch_all(&self.pool).await?)
            }

            async fn chat_actions(
                &self,
                session_id: &ChatSessionId,
            ) -> Result<Vec<$crate::storage::ChatActionRow>, $crate::storage::StorageError> {
                Ok(q::chat::actions(session_id).fetch_all(&self.pool).await?)
            }

            async fn cache_chat_context(
                &self,
                session_id: &ChatSessionId,
                context: &str,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::chat::cache_context(context, at, session_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn chat_action(
                &self,
                session_id: &ChatSessionId,
                id: &ChatActionId,
            ) -> Result<Option<$crate::storage::ChatActionRow>, $crate::storage::StorageError> {
                Ok(q::chat::action(session_id, id).fetch_optional(&self.pool).await?)
            }

            async fn claim_chat_action(
                &self,
                id: &ChatActionId,
                now: chrono::DateTime<chrono::Utc>,
                stale_before: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::chat::claim_action(now, id, stale_before).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn unclaim_chat_action(
                &self,
                id: &ChatActionId,
                claimed: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::chat::unclaim_action(id, claimed).execute(&self.pool).await?;
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
                let done = q::chat::finish_action(result, now, id, claimed).execute(&mut *tx).await?;
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
