//! The SQL of seats, seat invitations, ownership transfer, switching houses and erasing a
//! person ([`SeatStore`](crate::storage::SeatStore)).

/// The three role binds of a `role IN ($a, $b, $c)` guard: `from` padded with its first value
/// (an empty `from` matches nothing).
pub(in crate::storage) fn role_guard<'a>(from: &[&'a str]) -> [&'a str; 3] {
    let first = from.first().copied().unwrap_or("-");
    [first, from.get(1).copied().unwrap_or(first), from.get(2).copied().unwrap_or(first)]
}

macro_rules! impl_seat_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::SeatStore for $ty {
            async fn seats(&self, org_id: &OrgId) -> Result<Vec<SeatRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
                     JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 \
                     ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'member' THEN 2 ELSE 3 END, \
                     m.created_at, m.user_id"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn seats_of(&self, user_id: &UserId) -> Result<Vec<SeatRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
                     JOIN organizations o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY m.created_at, m.org_id"
                ))
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn founder(&self, org_id: &OrgId) -> Result<Option<String>, StorageError> {
                let row: Option<(Option<String>,)> =
                    sqlx::query_as("SELECT founded_by FROM organizations WHERE id = $1")
                        .bind(org_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.and_then(|(f,)| f))
            }

            async fn create_seat_invitation(
                &self,
                inv: SeatInvitationRow,
                since: DateTime<Utc>,
                weekly_limit: i64,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                // Serialise invitations of one house so the weekly count cannot be overrun.
                sqlx::query(concat!("SELECT id FROM organizations WHERE id = $1", $lock))
                    .bind(&inv.org_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                let (sent,): (i64,) =
                    sqlx::query_as("SELECT COUNT(*) FROM seat_invitations WHERE org_id = $1 AND created_at >= $2")
                        .bind(&inv.org_id)
                        .bind(since)
                        .fetch_one(&mut *tx)
                        .await?;
                if sent >= weekly_limit {
                    tx.rollback().await?;
                    return Ok(false);
                }
                sqlx::query(
                    "UPDATE seat_invitations SET status = 'superseded', resolved_at = $1 \
                     WHERE org_id = $2 AND email = $3 AND status = 'pending'",
                )
                .bind(inv.created_at)
                .bind(&inv.org_id)
                .bind(&inv.email)
                .execute(&mut *tx)
                .await?;
                sqlx::query(concat!(
                    "INSERT INTO seat_invitations (", seat_invitation_columns!(), ") \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                ))
                .bind(&inv.id)
                .bind(&inv.org_id)
                .bind(&inv.email)
                .bind(&inv.role)
                .bind(&inv.invited_by)
                .bind(&inv.status)
                .bind(inv.created_at)
                .bind(inv.expires_at)
                .bind(inv.resolved_at)
                .execute(&mut *tx)
                .await
                .map_err(unique_as("pending invitation"))?;
                tx.commit().await?;
                Ok(true)
            }

            async fn seat_invitation(&self, id: &InvitationId) -> Result<Option<SeatInvitationRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_invitation_columns!(), " FROM seat_invitations WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn pending_seat_invitations(
                &self,
                org_id: &OrgId,
                now: DateTime<Utc>,
            ) -> Result<Vec<SeatInvitationRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_invitation_columns!(), " FROM seat_invitations \
                     WHERE org_id = $1 AND status = 'pending' AND expires_at > $2 ORDER BY created_at DESC, id"
                ))
                .bind(org_id)
                .bind(now)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn seat_invitations_to(&self, email: &str) -> Result<Vec<SeatInvitationRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_invitation_columns!(), " FROM seat_invitations WHERE email = $1 \
                     ORDER BY created_at, id"
                ))
                .bind(email)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn accept_seat_invitation(
                &self,
                id: &InvitationId,
                user_id: &UserId,
                now: DateTime<Utc>,
            ) -> Result<AcceptSeat, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let inv: Option<SeatInvitationRow> = sqlx::query_as(concat!(
                    "UPDATE seat_invitations SET status = 'accepted', resolved_at = $1 \
                     WHERE id = $2 AND status = 'pending' AND expires_at > $1 RETURNING ",
                    seat_invitation_columns!()
                ))
                .bind(now)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(inv) = inv else {
                    tx.rollback().await?;
                    return Ok(AcceptSeat::NotPending);
                };
                let mut previous_owner = None;
                if inv.role == "owner" {
                    // Only the owner who made the offer can still be handing the house over.
                    let demoted: Option<(String,)> = sqlx::query_as(
                        "UPDATE memberships SET role = 'admin' WHERE org_id = $1 AND role = 'owner' AND user_id = $2 \
                         AND user_id <> $3 RETURNING user_id",
                    )
                    .bind(&inv.org_id)
                    .bind(&inv.invited_by)
                    .bind(user_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if demoted.is_none() {
                        tx.rollback().await?;
                        return Ok(AcceptSeat::OfferLapsed);
                    }
                    previous_owner = demoted.map(|(u,)| u);
                }
                // An existing seat takes the offered role, except that an owner stays owner.
                sqlx::query(
                    "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (org_id, user_id) DO UPDATE SET role = CASE WHEN memberships.role = 'owner' \
                     THEN memberships.role ELSE excluded.role END",
                )
                .bind(&inv.org_id)
                .bind(user_id)
                .bind(&inv.role)
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(unique_as("owner"))?;
                tx.commit().await?;
                Ok(AcceptSeat::Seated { previous_owner })
            }

            async fn set_seat_role(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                role: &str,
                from: &[&str],
            ) -> Result<Option<SeatRow>, StorageError> {
                if role == "owner" {
                    return Ok(None);
                }
                let _w = self.write_lock().await;
                let [a, b, c] = $crate::storage::sql::seats::role_guard(from);
                let done = sqlx::query(
                    "UPDATE memberships SET role = $1 WHERE org_id = $2 AND user_id = $3 AND role <> 'owner' \
                     AND role IN ($4, $5, $6)",
                )
                .bind(role)
                .bind(org_id)
                .bind(user_id)
                .bind(a)
                .bind(b)
                .bind(c)
                .execute(&self.pool)
                .await?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                Ok(sqlx::query_as(concat!(
                    "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
                     JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2"
                ))
                .bind(org_id)
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn remove_seat(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                from: &[&str],
            ) -> Result<Option<SeatRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let seat: Option<SeatRow> = sqlx::query_as(concat!(
                    "SELECT ", seat_columns!(), " FROM memberships m JOIN users u ON u.id = m.user_id \
                     JOIN organizations o ON o.id = m.org_id WHERE m.org_id = $1 AND m.user_id = $2",
                    $lock
                ))
                .bind(org_id)
                .bind(user_id)
                .fetch_optional(&mut *tx)
                .await?;
                let [a, b, c] = $crate::storage::sql::seats::role_guard(from);
                let done = sqlx::query(
                    "DELETE FROM memberships WHERE org_id = $1 AND user_id = $2 AND role <> 'owner' \
                     AND role IN ($3, $4, $5)",
                )
                .bind(org_id)
                .bind(user_id)
                .bind(a)
                .bind(b)
                .bind(c)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    tx.rollback().await?;
                    return Ok(None);
                }
                sqlx::query("DELETE FROM sessions WHERE org_id = $1 AND user_id = $2")
                    .bind(org_id)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(seat)
            }

            async fn transfer_ownership(&self, org_id: &OrgId, from_user: &UserId, to_user: &UserId) -> Result<bool, StorageError> {
                if from_user == to_user {
                    return Ok(false);
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let out = sqlx::query(
                    "UPDATE memberships SET role = 'admin' WHERE org_id = $1 AND user_id = $2 AND role = 'owner'",
                )
                .bind(org_id)
                .bind(from_user)
                .execute(&mut *tx)
                .await?;
                if out.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                let into = sqlx::query("UPDATE memberships SET role = 'owner' WHERE org_id = $1 AND user_id = $2")
                    .bind(org_id)
                    .bind(to_user)
                    .execute(&mut *tx)
                    .await
                    .map_err(unique_as("owner"))?;
                if into.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn switch_session_house(&self, token_hash: &str, org_id: &OrgId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE sessions SET org_id = $1 WHERE token_hash = $2 AND EXISTS \
                     (SELECT 1 FROM memberships m WHERE m.org_id = $1 AND m.user_id = sessions.user_id)",
                )
                .bind(org_id)
                .bind(token_hash)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn erase_user(
                &self,
                user_id: &UserId,
                tombstone_email: &str,
                now: DateTime<Utc>,
            ) -> Result<EraseOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let seats: Vec<(String, String)> = sqlx::query_as(concat!(
                    "SELECT org_id, role FROM memberships WHERE user_id = $1 ORDER BY org_id",
                    $lock
                ))
                .bind(user_id)
                .fetch_all(&mut *tx)
                .await?;
                for (org_id, role) in &seats {
                    if role != "owner" {
                        continue;
                    }
                    let (others,): (i64,) =
                        sqlx::query_as("SELECT COUNT(*) FROM memberships WHERE org_id = $1 AND user_id <> $2")
                            .bind(org_id)
                            .bind(user_id)
                            .fetch_one(&mut *tx)
                            .await?;
                    if others > 0 {
                        tx.rollback().await?;
                        return Ok(EraseOutcome::SoleOwner(org_id.clone()));
                    }
                }
                for sql in [
                    "DELETE FROM memberships WHERE user_id = $1",
                    "DELETE FROM sessions WHERE user_id = $1",
                    "DELETE FROM memories WHERE user_id = $1 AND scope = 'person'",
                    "DELETE FROM onboarding_steps WHERE user_id = $1",
                    "DELETE FROM intake_answers WHERE user_id = $1",
                    "DELETE FROM tool_grants WHERE user_id = $1",
                    "DELETE FROM email_tokens WHERE user_id = $1",
                    "DELETE FROM mail_drips WHERE user_id = $1",
                    "DELETE FROM mail_events WHERE letter_id IN (SELECT id FROM letters WHERE user_id = $1 \
                     OR to_addr = (SELECT email FROM users WHERE id = $1))",
                    "DELETE FROM letters WHERE user_id = $1 OR to_addr = (SELECT email FROM users WHERE id = $1)",
                    "DELETE FROM seat_invitations WHERE email = (SELECT email FROM users WHERE id = $1)",
                    "DELETE FROM invite_requests WHERE email = (SELECT email FROM users WHERE id = $1)",
                    "DELETE FROM invitations WHERE email = (SELECT email FROM users WHERE id = $1)",
                ] {
                    sqlx::query(sql).bind(user_id).execute(&mut *tx).await?;
                }
                // The person's own invite code ends with them.
                sqlx::query("UPDATE invite_codes SET revoked_at = $1 WHERE owner_user_id = $2 AND revoked_at IS NULL")
                    .bind(now)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                // A house left with nobody in it keeps its library and ledger, but nobody may act
                // for it any more: its keys end with the last seat.
                for (org_id, _) in &seats {
                    sqlx::query(
                        "UPDATE api_keys SET revoked_at = $1 WHERE org_id = $2 AND revoked_at IS NULL \
                         AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = $2)",
                    )
                    .bind(now)
                    .bind(org_id)
                    .execute(&mut *tx)
                    .await?;
                }
                sqlx::query(
                    "UPDATE users SET email = $1, name = NULL, password_hash = NULL, avatar_key = NULL, \
                     email_verified_at = NULL, platform_admin = FALSE, erased_at = $2 WHERE id = $3",
                )
                .bind(tombstone_email)
                .bind(now)
                .bind(user_id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(EraseOutcome::Erased { left: seats.into_iter().map(|(org, _)| org).collect() })
            }
        }
    };
}

pub(in crate::storage) use impl_seat_store;
