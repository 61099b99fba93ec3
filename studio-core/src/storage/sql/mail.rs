//! The SQL of letters, the outbox claim, delivery reports, the drip and email tokens
//! ([`MailStore`](crate::storage::MailStore)). Every statement is declared in [`q`] (see
//! stmt.rs); none is a house's: letters, tokens and the drip's record belong to a person or an
//! address (the reasons are in `q`).

/// The columns of `letters` in [`LetterRow`](crate::storage::LetterRow) order.
macro_rules! letter_columns {
    () => {
        "id, kind, to_addr, user_id, subject, html, text, status, attempts, next_attempt_at, claim_token, lease_until, \
         last_error, created_at, updated_at, sent_at"
    };
}

/// The mail's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{LetterId, ProviderRef, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{EmailTokenRow, LetterRow, LetterStatus};

    /// The claim of the oldest due letter, `$rows` locking the subquery's row on PostgreSQL.
    /// `$3`, `$4` and `$5` are all the time of the claim: the row's new `updated_at`, the due
    /// time it must have reached, and the time before which a lease has lapsed.
    macro_rules! claim_letter_text {
        ($rows:literal) => {
            concat!(
                "UPDATE letters SET claim_token = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3 \
                 WHERE id = (SELECT id FROM letters WHERE status = 'queued' AND next_attempt_at <= $4 \
                 AND (lease_until IS NULL OR lease_until < $5) ORDER BY next_attempt_at, id LIMIT 1",
                $rows,
                ") AND status = 'queued' AND (lease_until IS NULL OR lease_until < $5) RETURNING ",
                letter_columns!()
            )
        };
    }

    /// A letter status's rank: a delivery report never moves a letter down it.
    macro_rules! rank {
        ($status:literal) => {
            concat!(
                "CASE ",
                $status,
                " WHEN 'complained' THEN 3 WHEN 'bounced' THEN 2 WHEN 'delivered' THEN 1 ELSE 0 END"
            )
        };
    }

    statements! {
        /// Store a letter.
        fn insert_letter(
            id: &'q str,
            kind: &'q str,
            to_addr: &'q str,
            user_id: Option<&'q UserId>,
            subject: &'q str,
            html: &'q str,
            text: &'q str,
            status: LetterStatus,
            attempts: i64,
            next_attempt_at: DateTime<Utc>,
            claim_token: Option<&'q str>,
            lease_until: Option<DateTime<Utc>>,
            last_error: Option<&'q str>,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            sent_at: Option<DateTime<Utc>>,
        ) -> exec [any "letters have no house: a letter is a person's or an address's"] {
            "INSERT INTO letters (", letter_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        }

        /// A token of a purpose, spent or not.
        fn email_token(token_hash: &'q str, purpose: &'q str) -> row<EmailTokenRow> [any "a token is named by its own secret's hash (email_tokens has no house)"] {
            "SELECT token_hash, user_id, purpose, email, created_at, expires_at, used_at, replaced_at \
             FROM email_tokens WHERE token_hash = $1 AND purpose = $2"
        }

        /// Spend an unspent token of a purpose that expires after `expires_at`: its person and
        /// address.
        fn spend_token(used_at: DateTime<Utc>, token_hash: &'q str, purpose: &'q str, expires_at: DateTime<Utc>) -> row<(String, String)> [any "a token is named by its own secret's hash (email_tokens has no house)"] {
            "UPDATE email_tokens SET used_at = $1 WHERE token_hash = $2 AND purpose = $3 AND used_at IS NULL \
             AND replaced_at IS NULL AND expires_at > $4 RETURNING user_id, email"
        }

        /// A letter.
        fn letter(id: &'q LetterId) -> row<LetterRow> [any "letters have no house: the operators' mail log reads any letter by id"] {
            "SELECT ", letter_columns!(), " FROM letters WHERE id = $1"
        }

        /// A page of letters (filtered), newest first, before `id` when given.
        fn letters(to_addr: Option<&'q str>, kind: Option<&'q str>, status: Option<LetterStatus>, id: Option<&'q str>, limit: i64) -> row<LetterRow> [any "letters have no house: the operators' mail log reads every letter"] {
            "SELECT ", letter_columns!(), " FROM letters \
             WHERE ($1 IS NULL OR to_addr = $1) AND ($2 IS NULL OR kind = $2) \
             AND ($3 IS NULL OR status = $3) AND ($4 IS NULL OR id < $4) ORDER BY id DESC LIMIT $5"
        }

        /// Claim the oldest due letter for the sender (SQLite, whose writers are serialised in
        /// process); the letter as claimed.
        fn claim_letter(
            claim_token: &'q str,
            lease_until: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            next_attempt_at: DateTime<Utc>,
            stale_lease_until: DateTime<Utc>,
        ) -> row<LetterRow> [any "the sender serves every letter: a claim takes the oldest due one"] {
            claim_letter_text!("")
        }

        /// Claim the oldest due letter for the sender, skipping the letters other senders are
        /// claiming (PostgreSQL); the letter as claimed.
        fn claim_letter_skip_locked(
            claim_token: &'q str,
            lease_until: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            next_attempt_at: DateTime<Utc>,
            stale_lease_until: DateTime<Utc>,
        ) -> row<LetterRow> [any "the sender serves every letter: a claim takes the oldest due one", postgres_only] {
            claim_letter_text!(" FOR UPDATE SKIP LOCKED")
        }

        /// End a claimed letter's attempt: sent, due again at `next_attempt_at`, or failed (no
        /// row when the claim was taken over).
        fn finish_letter(
            status: LetterStatus,
            last_error: Option<&'q str>,
            next_attempt_at: Option<DateTime<Utc>>,
            sent_at: Option<DateTime<Utc>>,
            updated_at: DateTime<Utc>,
            id: &'q LetterId,
            claim_token: &'q str,
        ) -> exec [any "the sender finishes the letter it claimed, named by its id and its own claim token"] {
            "UPDATE letters SET status = $1, last_error = $2, next_attempt_at = COALESCE($3, next_attempt_at), \
             sent_at = $4, updated_at = $5, claim_token = NULL, lease_until = NULL \
             WHERE id = $6 AND claim_token = $7 AND status = 'queued'"
        }

        /// Record a delivery report (skipped when its webhook id was applied already).
        fn record_event(webhook_id: &'q ProviderRef, letter_id: Option<&'q LetterId>, event_type: &'q str, received_at: DateTime<Utc>) -> exec [any "mail_events has no house: a provider's webhook id is applied once"] {
            "INSERT INTO mail_events (webhook_id, letter_id, event_type, received_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (webhook_id) DO NOTHING"
        }

        /// Move a letter to a reported status that ranks above its own.
        fn report_status(status: LetterStatus, updated_at: DateTime<Utc>, id: Option<&'q LetterId>) -> exec [any "letters have no house: a delivery report names its letter by id"] {
            "UPDATE letters SET status = $1, updated_at = $2 WHERE id = $3 AND ", rank!("status"), " < ", rank!("$1")
        }

        /// A letter's status.
        fn letter_status(id: Option<&'q LetterId>) -> row<(LetterStatus,)> [any "letters have no house: a delivery report names its letter by id"] {
            "SELECT status FROM letters WHERE id = $1"
        }

        /// Up to `limit` people with a proven address who signed up since `min_created_at`,
        /// oldest first, whether each has developed, and the drip's steps sent to each (one row
        /// a step).
        fn drip_candidates(min_created_at: DateTime<Utc>, limit: i64) -> row<(String, String, Option<String>, DateTime<Utc>, bool, Option<String>)> [any "the drip serves every new person; a person is not per house"] {
            "SELECT u.id, u.email, u.name, u.created_at, \
             EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = u.id) AS has_develop, d.step \
             FROM (SELECT id, email, name, created_at FROM users \
                   WHERE created_at >= $1 AND email_verified_at IS NOT NULL \
                   ORDER BY created_at, id LIMIT $2) u \
             LEFT JOIN mail_drips d ON d.user_id = u.id ORDER BY u.created_at, u.id, d.step"
        }

        /// Record a drip step for a person (skipped when it was sent already).
        fn insert_drip(user_id: Option<&'q UserId>, step: &'q str, letter_id: &'q str, queued_at: DateTime<Utc>) -> exec [any "mail_drips has no house: the drip's record is a person's"] {
            "INSERT INTO mail_drips (user_id, step, letter_id, queued_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (user_id, step) DO NOTHING"
        }

        /// Mark a person's live tokens of a purpose replaced.
        fn replace_tokens(replaced_at: DateTime<Utc>, user_id: &'q UserId, purpose: &'q str) -> exec [any "a person's own tokens (email_tokens has no house)"] {
            "UPDATE email_tokens SET replaced_at = $1 WHERE user_id = $2 AND purpose = $3 \
             AND used_at IS NULL AND replaced_at IS NULL"
        }

        /// Store a token.
        fn insert_token(
            token_hash: &'q str,
            user_id: &'q UserId,
            purpose: &'q str,
            email: &'q str,
            created_at: DateTime<Utc>,
            expires_at: DateTime<Utc>,
            used_at: Option<DateTime<Utc>>,
            replaced_at: Option<DateTime<Utc>>,
        ) -> exec [any "a person's own token (email_tokens has no house)"] {
            "INSERT INTO email_tokens (token_hash, user_id, purpose, email, created_at, expires_at, used_at, \
             replaced_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// When a person's tokens of a purpose were issued since `min_created_at`, oldest first.
        fn recent_tokens(user_id: &'q UserId, purpose: &'q str, min_created_at: DateTime<Utc>) -> row<(DateTime<Utc>,)> [any "a person's own tokens (email_tokens has no house)"] {
            "SELECT created_at FROM email_tokens WHERE user_id = $1 AND purpose = $2 AND created_at >= $3 \
             ORDER BY created_at"
        }

        /// Mark a person's address proven (once), if it is still `email`.
        fn verify_email(email_verified_at: DateTime<Utc>, id: &'q str, email: &'q str) -> exec [any "a person is not per house: named by the token just spent"] {
            "UPDATE users SET email_verified_at = COALESCE(email_verified_at, $1) WHERE id = $2 AND email = $3"
        }

        /// Set a person's password and mark their address proven (once), if it is still `email`.
        fn reset_password(password_hash: &'q str, email_verified_at: DateTime<Utc>, id: &'q str, email: &'q str) -> exec [any "a person is not per house: named by the token just spent"] {
            "UPDATE users SET password_hash = $1, email_verified_at = COALESCE(email_verified_at, $2) \
             WHERE id = $3 AND email = $4"
        }

        /// Mark a person's other live reset tokens replaced.
        fn replace_reset_tokens(replaced_at: DateTime<Utc>, user_id: &'q str) -> exec [any "a person's own tokens (email_tokens has no house)"] {
            "UPDATE email_tokens SET replaced_at = $1 WHERE user_id = $2 AND purpose = 'reset' \
             AND used_at IS NULL AND replaced_at IS NULL"
        }

        /// End a person's sessions.
        fn end_sessions(user_id: &'q str) -> exec [any "a person's own sessions, in whatever houses they sit"] {
            "DELETE FROM sessions WHERE user_id = $1"
        }

        /// Whether a person's address is proven.
        fn email_verified(id: &'q UserId) -> row<(bool,)> [any "a person is not per house"] {
            "SELECT email_verified_at IS NOT NULL FROM users WHERE id = $1"
        }
    }
}

macro_rules! impl_mail_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        /// Insert a letter inside a transaction.
        async fn insert_letter_in(tx: &mut Tx, l: &$crate::storage::LetterRow) -> Result<(), StorageError> {
            q::mail::insert_letter(
                &l.id,
                &l.kind,
                &l.to_addr,
                l.user_id.as_ref(),
                &l.subject,
                &l.html,
                &l.text,
                l.status,
                l.attempts,
                l.next_attempt_at,
                l.claim_token.as_deref(),
                l.lease_until,
                l.last_error.as_deref(),
                l.created_at,
                l.updated_at,
                l.sent_at,
            )
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Why a token could not be spent: read after the spending update matched nothing.
        async fn refused_token(
            tx: &mut Tx,
            token_hash: &str,
            purpose: &str,
            now: DateTime<Utc>,
        ) -> Result<$crate::storage::TokenUse, StorageError> {
            use $crate::storage::TokenUse;
            let row = q::mail::email_token(token_hash, purpose).fetch_optional(&mut **tx).await?;
            Ok(match row {
                None => TokenUse::Unknown,
                Some(t) if t.used_at.is_some() => TokenUse::Used,
                Some(t) if t.replaced_at.is_some() => TokenUse::Replaced,
                Some(t) if t.expires_at <= now => TokenUse::Expired,
                // Spent by a concurrent call between the update and this read.
                Some(_) => TokenUse::Used,
            })
        }

        /// Spend an unspent, unexpired token of `purpose`: its person and address, or why not.
        async fn spend_token(
            tx: &mut Tx,
            token_hash: &str,
            purpose: &str,
            now: DateTime<Utc>,
        ) -> Result<Result<(String, String), $crate::storage::TokenUse>, StorageError> {
            let spent = q::mail::spend_token(now, token_hash, purpose, now).fetch_optional(&mut **tx).await?;
            match spent {
                Some(found) => Ok(Ok(found)),
                None => Ok(Err(refused_token(tx, token_hash, purpose, now).await?)),
            }
        }

        #[async_trait::async_trait]
        impl $crate::storage::MailStore for $ty {
            async fn insert_letter(&self, letter: $crate::storage::LetterRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                insert_letter_in(&mut tx, &letter).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn letter(&self, id: &LetterId) -> Result<Option<$crate::storage::LetterRow>, StorageError> {
                Ok(q::mail::letter(id).fetch_optional(&self.pool).await?)
            }

            async fn list_letters(
                &self,
                f: &$crate::storage::LetterFilter,
            ) -> Result<Vec<$crate::storage::LetterRow>, StorageError> {
                let (to, kind, status) = (f.to.as_deref(), f.kind.as_deref(), f.status);
                Ok(q::mail::letters(to, kind, status, f.before_id.as_deref(), f.limit).fetch_all(&self.pool).await?)
            }

            async fn claim_letter(
                &self,
                claim_token: &str,
                now: DateTime<Utc>,
                lease_until: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::LetterRow>, StorageError> {
                let _w = self.write_lock().await;
                // PostgreSQL skips the letters other senders are claiming (`$skip_locked`).
                let claim = match $skip_locked {
                    "" => q::mail::claim_letter(claim_token, lease_until, now, now, now),
                    _ => q::mail::claim_letter_skip_locked(claim_token, lease_until, now, now, now),
                };
                Ok(claim.fetch_optional(&self.pool).await?)
            }

            async fn finish_letter(
                &self,
                id: &LetterId,
                claim_token: &str,
                outcome: &$crate::storage::LetterOutcome,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                use $crate::storage::{LetterOutcome, LetterStatus};
                let _w = self.write_lock().await;
                let (status, error, next, sent_at) = match outcome {
                    LetterOutcome::Sent => (LetterStatus::Sent, None, None, Some(now)),
                    LetterOutcome::Retry { error, at } => (LetterStatus::Queued, Some(error.as_str()), Some(*at), None),
                    LetterOutcome::Failed { error } => (LetterStatus::Failed, Some(error.as_str()), None, None),
                };
                let done = q::mail::finish_letter(status, error, next, sent_at, now, id, claim_token)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn apply_mail_event(
                &self,
                webhook_id: &ProviderRef,
                letter_id: Option<&LetterId>,
                status: $crate::storage::LetterStatus,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::MailEventOutcome, StorageError> {
                use $crate::storage::MailEventOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let recorded =
                    q::mail::record_event(webhook_id, letter_id, status.as_str(), now).execute(&mut *tx).await?;
                if recorded.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(MailEventOutcome::Duplicate);
                }
                q::mail::report_status(status, now, letter_id).execute(&mut *tx).await?;
                let current = q::mail::letter_status(letter_id).fetch_optional(&mut *tx).await?;
                tx.commit().await?;
                Ok(match current {
                    Some((status,)) => MailEventOutcome::Applied(status),
                    None => MailEventOutcome::UnknownLetter,
                })
            }

            async fn drip_candidates(
                &self,
                since: DateTime<Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::DripCandidate>, StorageError> {
                let rows = q::mail::drip_candidates(since, limit).fetch_all(&self.pool).await?;
                let mut out: Vec<$crate::storage::DripCandidate> = Vec::new();
                for (user_id, email, name, created_at, has_develop, step) in rows {
                    if out.last().is_none_or(|c| c.user_id != user_id) {
                        out.push($crate::storage::DripCandidate {
                            user_id: crate::ids::UserId::from(user_id),
                            email,
                            name,
                            created_at,
                            has_develop,
                            steps_sent: Vec::new(),
                        });
                    }
                    if let (Some(step), Some(last)) = (step, out.last_mut()) {
                        last.steps_sent.push(step);
                    }
                }
                Ok(out)
            }

            async fn post_drip_letter(
                &self,
                step: &str,
                letter: $crate::storage::LetterRow,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let recorded = q::mail::insert_drip(letter.user_id.as_ref(), step, &letter.id, letter.created_at)
                    .execute(&mut *tx)
                    .await?;
                if recorded.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                insert_letter_in(&mut tx, &letter).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn issue_email_token(&self, t: $crate::storage::EmailTokenRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                q::mail::replace_tokens(t.created_at, &t.user_id, &t.purpose).execute(&mut *tx).await?;
                q::mail::insert_token(
                    &t.token_hash,
                    &t.user_id,
                    &t.purpose,
                    &t.email,
                    t.created_at,
                    t.expires_at,
                    t.used_at,
                    t.replaced_at,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn recent_email_tokens(
                &self,
                user_id: &UserId,
                purpose: &str,
                since: DateTime<Utc>,
            ) -> Result<(i64, Option<DateTime<Utc>>), StorageError> {
                let times = q::mail::recent_tokens(user_id, purpose, since).fetch_all(&self.pool).await?;
                Ok((times.len() as i64, times.first().map(|t| t.0)))
            }

            async fn use_verify_token(
                &self,
                token_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::TokenUse, StorageError> {
                use $crate::storage::TokenUse;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let (user_id, email) = match spend_token(&mut tx, token_hash, "verify", now).await? {
                    Ok(found) => found,
                    Err(refused) => {
                        tx.rollback().await?;
                        return Ok(refused);
                    }
                };
                let marked = q::mail::verify_email(now, &user_id, &email).execute(&mut *tx).await?;
                tx.commit().await?;
                if marked.rows_affected() == 0 {
                    return Ok(TokenUse::AddressChanged);
                }
                Ok(TokenUse::Accepted { user_id, email, sessions_ended: 0 })
            }

            async fn use_reset_token(
                &self,
                token_hash: &str,
                password_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::TokenUse, StorageError> {
                use $crate::storage::TokenUse;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let (user_id, email) = match spend_token(&mut tx, token_hash, "reset", now).await? {
                    Ok(found) => found,
                    Err(refused) => {
                        tx.rollback().await?;
                        return Ok(refused);
                    }
                };
                let changed = q::mail::reset_password(password_hash, now, &user_id, &email).execute(&mut *tx).await?;
                if changed.rows_affected() == 0 {
                    // The token stays spent: it was for an address the person no longer has.
                    tx.commit().await?;
                    return Ok(TokenUse::AddressChanged);
                }
                q::mail::replace_reset_tokens(now, &user_id).execute(&mut *tx).await?;
                let ended = q::mail::end_sessions(&user_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(TokenUse::Accepted { user_id, email, sessions_ended: ended.rows_affected() })
            }

            async fn email_verified(&self, user_id: &UserId) -> Result<bool, StorageError> {
                let row = q::mail::email_verified(user_id).fetch_optional(&self.pool).await?;
                Ok(row.is_some_and(|r| r.0))
            }
        }
    };
}

pub(in crate::storage) use impl_mail_store;
