//! The SQL of letters, the outbox claim, delivery reports, the drip and email tokens
//! ([`MailStore`](crate::storage::MailStore)).

/// The columns of `letters` in [`LetterRow`](crate::storage::LetterRow) order.
macro_rules! letter_columns {
    () => {
        "id, kind, to_addr, user_id, subject, html, text, status, attempts, next_attempt_at, claim_token, lease_until, \
         last_error, created_at, updated_at, sent_at"
    };
}

macro_rules! impl_mail_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        /// Insert a letter inside a transaction.
        async fn insert_letter_in(
            tx: &mut Tx,
            l: &$crate::storage::LetterRow,
        ) -> Result<(), StorageError> {
            sqlx::query(concat!(
                "INSERT INTO letters (", $crate::storage::sql::mail::letter_columns!(), ") VALUES ($1, $2, $3, $4, $5, \
                 $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
            ))
            .bind(&l.id)
            .bind(&l.kind)
            .bind(&l.to_addr)
            .bind(&l.user_id)
            .bind(&l.subject)
            .bind(&l.html)
            .bind(&l.text)
            .bind(&l.status)
            .bind(l.attempts)
            .bind(l.next_attempt_at)
            .bind(&l.claim_token)
            .bind(l.lease_until)
            .bind(&l.last_error)
            .bind(l.created_at)
            .bind(l.updated_at)
            .bind(l.sent_at)
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
            let row: Option<$crate::storage::EmailTokenRow> = sqlx::query_as(
                "SELECT token_hash, user_id, purpose, email, created_at, expires_at, used_at, replaced_at \
                 FROM email_tokens WHERE token_hash = $1 AND purpose = $2",
            )
            .bind(token_hash)
            .bind(purpose)
            .fetch_optional(&mut **tx)
            .await?;
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
            let spent: Option<(String, String)> = sqlx::query_as(
                "UPDATE email_tokens SET used_at = $1 WHERE token_hash = $2 AND purpose = $3 AND used_at IS NULL \
                 AND replaced_at IS NULL AND expires_at > $1 RETURNING user_id, email",
            )
            .bind(now)
            .bind(token_hash)
            .bind(purpose)
            .fetch_optional(&mut **tx)
            .await?;
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::mail::letter_columns!(), " FROM letters WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn list_letters(
                &self,
                f: &$crate::storage::LetterFilter,
            ) -> Result<Vec<$crate::storage::LetterRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::mail::letter_columns!(), " FROM letters \
                     WHERE ($1 IS NULL OR to_addr = $1) AND ($2 IS NULL OR kind = $2) \
                     AND ($3 IS NULL OR status = $3) AND ($4 IS NULL OR id < $4) ORDER BY id DESC LIMIT $5"
                ))
                .bind(&f.to)
                .bind(&f.kind)
                .bind(&f.status)
                .bind(&f.before_id)
                .bind(f.limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn claim_letter(
                &self,
                claim_token: &str,
                now: DateTime<Utc>,
                lease_until: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::LetterRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE letters SET claim_token = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3 \
                     WHERE id = (SELECT id FROM letters WHERE status = 'queued' AND next_attempt_at <= $3 \
                     AND (lease_until IS NULL OR lease_until < $3) ORDER BY next_attempt_at, id LIMIT 1",
                    $skip_locked,
                    ") AND status = 'queued' AND (lease_until IS NULL OR lease_until < $3) RETURNING ",
                    $crate::storage::sql::mail::letter_columns!()
                ))
                .bind(claim_token)
                .bind(lease_until)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn finish_letter(
                &self,
                id: &LetterId,
                claim_token: &str,
                outcome: &$crate::storage::LetterOutcome,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                use $crate::storage::LetterOutcome;
                let _w = self.write_lock().await;
                let (status, error, next, sent_at) = match outcome {
                    LetterOutcome::Sent => ("sent", None, None, Some(now)),
                    LetterOutcome::Retry { error, at } => ("queued", Some(error.as_str()), Some(*at), None),
                    LetterOutcome::Failed { error } => ("failed", Some(error.as_str()), None, None),
                };
                let done = sqlx::query(
                    "UPDATE letters SET status = $1, last_error = $2, next_attempt_at = COALESCE($3, next_attempt_at), \
                     sent_at = $4, updated_at = $5, claim_token = NULL, lease_until = NULL \
                     WHERE id = $6 AND claim_token = $7 AND status = 'queued'",
                )
                .bind(status)
                .bind(error)
                .bind(next)
                .bind(sent_at)
                .bind(now)
                .bind(id)
                .bind(claim_token)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn apply_mail_event(
                &self,
                webhook_id: &ProviderRef,
                letter_id: Option<&LetterId>,
                status: &str,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::MailEventOutcome, StorageError> {
                use $crate::storage::MailEventOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let recorded = sqlx::query(
                    "INSERT INTO mail_events (webhook_id, letter_id, event_type, received_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (webhook_id) DO NOTHING",
                )
                .bind(webhook_id)
                .bind(letter_id)
                .bind(status)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                if recorded.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(MailEventOutcome::Duplicate);
                }
                let rank = |column: &str| {
                    format!(
                        "CASE {column} WHEN 'complained' THEN 3 WHEN 'bounced' THEN 2 WHEN 'delivered' THEN 1 ELSE 0 END"
                    )
                };
                sqlx::query(&format!(
                    "UPDATE letters SET status = $1, updated_at = $2 WHERE id = $3 AND {} < {}",
                    rank("status"),
                    rank("$1")
                ))
                .bind(status)
                .bind(now)
                .bind(letter_id)
                .execute(&mut *tx)
                .await?;
                let current: Option<(String,)> = sqlx::query_as("SELECT status FROM letters WHERE id = $1")
                    .bind(letter_id)
                    .fetch_optional(&mut *tx)
                    .await?;
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
                type Row = (String, String, Option<String>, DateTime<Utc>, bool, Option<String>);
                let rows: Vec<Row> = sqlx::query_as(
                    "SELECT u.id, u.email, u.name, u.created_at, \
                     EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = u.id) AS has_develop, d.step \
                     FROM (SELECT id, email, name, created_at FROM users \
                           WHERE created_at >= $1 AND email_verified_at IS NOT NULL \
                           ORDER BY created_at, id LIMIT $2) u \
                     LEFT JOIN mail_drips d ON d.user_id = u.id ORDER BY u.created_at, u.id, d.step",
                )
                .bind(since)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
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
                let recorded = sqlx::query(
                    "INSERT INTO mail_drips (user_id, step, letter_id, queued_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (user_id, step) DO NOTHING",
                )
                .bind(&letter.user_id)
                .bind(step)
                .bind(&letter.id)
                .bind(letter.created_at)
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
                sqlx::query(
                    "UPDATE email_tokens SET replaced_at = $1 WHERE user_id = $2 AND purpose = $3 \
                     AND used_at IS NULL AND replaced_at IS NULL",
                )
                .bind(t.created_at)
                .bind(&t.user_id)
                .bind(&t.purpose)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO email_tokens (token_hash, user_id, purpose, email, created_at, expires_at, used_at, \
                     replaced_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(&t.token_hash)
                .bind(&t.user_id)
                .bind(&t.purpose)
                .bind(&t.email)
                .bind(t.created_at)
                .bind(t.expires_at)
                .bind(t.used_at)
                .bind(t.replaced_at)
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
                let times: Vec<(DateTime<Utc>,)> = sqlx::query_as(
                    "SELECT created_at FROM email_tokens WHERE user_id = $1 AND purpose = $2 AND created_at >= $3 \
                     ORDER BY created_at",
                )
                .bind(user_id)
                .bind(purpose)
                .bind(since)
                .fetch_all(&self.pool)
                .await?;
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
                let marked = sqlx::query(
                    "UPDATE users SET email_verified_at = COALESCE(email_verified_at, $1) WHERE id = $2 AND email = $3",
                )
                .bind(now)
                .bind(&user_id)
                .bind(&email)
                .execute(&mut *tx)
                .await?;
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
                let changed = sqlx::query(
                    "UPDATE users SET password_hash = $1, email_verified_at = COALESCE(email_verified_at, $2) \
                     WHERE id = $3 AND email = $4",
                )
                .bind(password_hash)
                .bind(now)
                .bind(&user_id)
                .bind(&email)
                .execute(&mut *tx)
                .await?;
                if changed.rows_affected() == 0 {
                    // The token stays spent: it was for an address the person no longer has.
                    tx.commit().await?;
                    return Ok(TokenUse::AddressChanged);
                }
                sqlx::query(
                    "UPDATE email_tokens SET replaced_at = $1 WHERE user_id = $2 AND purpose = 'reset' \
                     AND used_at IS NULL AND replaced_at IS NULL",
                )
                .bind(now)
                .bind(&user_id)
                .execute(&mut *tx)
                .await?;
                let ended = sqlx::query("DELETE FROM sessions WHERE user_id = $1").bind(&user_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(TokenUse::Accepted { user_id, email, sessions_ended: ended.rows_affected() })
            }

            async fn email_verified(&self, user_id: &UserId) -> Result<bool, StorageError> {
                let row: Option<(bool,)> =
                    sqlx::query_as("SELECT email_verified_at IS NOT NULL FROM users WHERE id = $1")
                        .bind(user_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.is_some_and(|r| r.0))
            }
        }
    };
}

pub(in crate::storage) use {impl_mail_store, letter_columns};
