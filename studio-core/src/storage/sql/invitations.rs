//! The SQL of the platform gate ([`InvitationStore`](crate::storage::InvitationStore)): codes,
//! invitations and requests. A redemption takes its use with one conditional UPDATE; an
//! acceptance and its grant, and a host's reward and its credit, are each one transaction (the
//! credit through `tx.rs`'s `apply_credit`).

/// The columns of `invite_codes c` in [`InviteCodeRow`](crate::storage::InviteCodeRow) order,
/// with the accepted invitations counted.
macro_rules! invite_code_columns {
    () => {
        "c.id, c.code, c.label, c.owner_user_id, c.created_by, c.grant_tokens, c.max_uses, c.used_count, \
         c.expires_at, c.revoked_at, c.created_at, \
         CAST((SELECT COUNT(*) FROM invitations j WHERE j.code_id = c.id AND j.accepted_at IS NOT NULL) AS BIGINT) \
         AS joined_count"
    };
}

/// The columns of `invitations` in [`InvitationRow`](crate::storage::InvitationRow) order.
macro_rules! invitation_columns {
    () => {
        "id, email, token_hash, code_id, invited_by, grant_tokens, created_at, accepted_at, accepted_by, host_rewarded_at"
    };
}

macro_rules! impl_invitation_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::InvitationStore for $ty {
            async fn insert_code(&self, c: $crate::storage::InviteCodeRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO invite_codes (id, code, label, owner_user_id, created_by, grant_tokens, max_uses, \
                     used_count, expires_at, revoked_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                )
                .bind(&c.id)
                .bind(&c.code)
                .bind(&c.label)
                .bind(&c.owner_user_id)
                .bind(&c.created_by)
                .bind(c.grant_tokens)
                .bind(c.max_uses)
                .bind(c.used_count)
                .bind(c.expires_at)
                .bind(c.revoked_at)
                .bind(c.created_at)
                .execute(&self.pool)
                .await
                .map_err(unique_as("invite code"))?;
                Ok(())
            }

            async fn code_by_code(&self, code: &str) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invite_code_columns!(),
                    " FROM invite_codes c WHERE c.code = $1"
                ))
                .bind(code)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn own_code(&self, user_id: &UserId) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invite_code_columns!(),
                    " FROM invite_codes c WHERE c.owner_user_id = $1"
                ))
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn admin_codes(&self) -> Result<Vec<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invite_code_columns!(),
                    " FROM invite_codes c WHERE c.owner_user_id IS NULL ORDER BY c.created_at DESC, c.id DESC"
                ))
                .fetch_all(&self.pool)
                .await?)
            }

            async fn revoke_code(
                &self,
                id: &CodeId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                {
                    let _w = self.write_lock().await;
                    sqlx::query("UPDATE invite_codes SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL")
                        .bind(id)
                        .bind(now)
                        .execute(&self.pool)
                        .await?;
                }
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invite_code_columns!(),
                    " FROM invite_codes c WHERE c.id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn raise_max_uses(&self, id: &CodeId, max_uses: i64) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE invite_codes SET max_uses = $2 WHERE id = $1 AND max_uses < $2")
                    .bind(id)
                    .bind(max_uses)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn redeem_code(
                &self,
                code_id: &CodeId,
                i: $crate::storage::InvitationRow,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::RedeemOutcome, StorageError> {
                use $crate::storage::RedeemOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let existing: Option<$crate::storage::InvitationRow> = sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invitation_columns!(), " FROM invitations WHERE email = $1"
                ))
                .bind(&i.email)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some(existing) = existing {
                    // Rolled back here, under the writer lock: a transaction merely dropped is
                    // rolled back later, and on SQLite it would hold the write lock meanwhile.
                    tx.rollback().await?;
                    return Ok(RedeemOutcome::AlreadyInvited(existing));
                }
                // The check and the increment in one statement: the row lock (PostgreSQL) or
                // the writer lock (SQLite) makes concurrent redeemers take turns, and each
                // re-reads the count it raises.
                let taken = sqlx::query(
                    "UPDATE invite_codes SET used_count = used_count + 1 \
                     WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) \
                     AND used_count < max_uses",
                )
                .bind(code_id)
                .bind(now)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if taken == 0 {
                    let code: Option<$crate::storage::InviteCodeRow> = sqlx::query_as(concat!(
                        "SELECT ", $crate::storage::sql::invitations::invite_code_columns!(),
                        " FROM invite_codes c WHERE c.id = $1"
                    ))
                    .bind(code_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    tx.rollback().await?;
                    return Ok(code.map_or(RedeemOutcome::NotFound, RedeemOutcome::Refused));
                }
                let inserted = sqlx::query(concat!(
                    "INSERT INTO invitations (", $crate::storage::sql::invitations::invitation_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                ))
                .bind(&i.id)
                .bind(&i.email)
                .bind(&i.token_hash)
                .bind(&i.code_id)
                .bind(&i.invited_by)
                .bind(i.grant_tokens)
                .bind(i.created_at)
                .bind(i.accepted_at)
                .bind(&i.accepted_by)
                .bind(i.host_rewarded_at)
                .execute(&mut *tx)
                .await;
                match inserted {
                    Ok(_) => {
                        tx.commit().await?;
                        Ok(RedeemOutcome::Redeemed(i))
                    }
                    // Another redeemer of the same address committed first: roll the use back.
                    Err(sqlx::Error::Database(d)) if d.is_unique_violation() => {
                        tx.rollback().await?;
                        let existing: Option<$crate::storage::InvitationRow> = sqlx::query_as(concat!(
                            "SELECT ", $crate::storage::sql::invitations::invitation_columns!(),
                            " FROM invitations WHERE email = $1"
                        ))
                        .bind(&i.email)
                        .fetch_optional(&self.pool)
                        .await?;
                        existing.map(RedeemOutcome::AlreadyInvited).ok_or(StorageError::Conflict("invitation token"))
                    }
                    Err(e) => Err(e.into()),
                }
            }

            async fn issue_invitation(
                &self,
                i: $crate::storage::InvitationRow,
            ) -> Result<$crate::storage::IssueOutcome, StorageError> {
                use $crate::storage::IssueOutcome;
                let _w = self.write_lock().await;
                let created = sqlx::query(concat!(
                    "INSERT INTO invitations (", $crate::storage::sql::invitations::invitation_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (email) DO NOTHING"
                ))
                .bind(&i.id)
                .bind(&i.email)
                .bind(&i.token_hash)
                .bind(&i.code_id)
                .bind(&i.invited_by)
                .bind(i.grant_tokens)
                .bind(i.created_at)
                .bind(i.accepted_at)
                .bind(&i.accepted_by)
                .bind(i.host_rewarded_at)
                .execute(&self.pool)
                .await
                .map_err(unique_as("invitation token"))?
                .rows_affected();
                if created == 1 {
                    return Ok(IssueOutcome::Created);
                }
                let reissued = sqlx::query(
                    "UPDATE invitations SET token_hash = $2, invited_by = COALESCE(invited_by, $3) \
                     WHERE email = $1 AND accepted_at IS NULL",
                )
                .bind(&i.email)
                .bind(&i.token_hash)
                .bind(&i.invited_by)
                .execute(&self.pool)
                .await
                .map_err(unique_as("invitation token"))?
                .rows_affected();
                Ok(if reissued == 1 { IssueOutcome::Reissued } else { IssueOutcome::Accepted })
            }

            async fn invitation_by_token(
                &self,
                token_hash: &str,
            ) -> Result<Option<$crate::storage::InvitationRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invitation_columns!(),
                    " FROM invitations WHERE token_hash = $1"
                ))
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn invitation_by_email(
                &self,
                email: &str,
            ) -> Result<Option<$crate::storage::InvitationRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", $crate::storage::sql::invitations::invitation_columns!(), " FROM invitations WHERE email = $1"
                ))
                .bind(email)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn accept_invitation(
                &self,
                id: &InvitationId,
                user_id: &UserId,
                grant: Option<NewCredit>,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::AcceptOutcome, StorageError> {
                use $crate::storage::AcceptOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let accepted = sqlx::query(
                    "UPDATE invitations SET accepted_at = $2, accepted_by = $3 WHERE id = $1 AND accepted_at IS NULL",
                )
                .bind(id)
                .bind(now)
                .bind(user_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if accepted == 0 {
                    tx.rollback().await?;
                    return Ok(AcceptOutcome::AlreadyAccepted);
                }
                let after = match grant.filter(|g| g.amount > 0) {
                    Some(g) => Some(apply_credit(&mut tx, &g).await?),
                    None => None,
                };
                tx.commit().await?;
                Ok(AcceptOutcome::Accepted(after))
            }

            async fn invitees(&self, code_id: &CodeId) -> Result<Vec<$crate::storage::InviteeRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT i.id, i.email, i.created_at, i.accepted_at, i.host_rewarded_at, \
                     CAST(CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) THEN 1 ELSE 0 END AS BIGINT) \
                     AS has_account, \
                     (SELECT MIN(b.paid_at) FROM users u \
                      JOIN billing_checkouts b ON b.user_id = u.id AND b.kind = 'subscription' AND b.status = 'paid' \
                      WHERE u.email = i.email AND i.accepted_at IS NOT NULL AND b.created_at > i.accepted_at) \
                     AS subscribed_at \
                     FROM invitations i WHERE i.code_id = $1 ORDER BY i.created_at, i.id",
                )
                .bind(code_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn reward_host(&self, id: &InvitationId, credit: NewCredit) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let marked =
                    sqlx::query("UPDATE invitations SET host_rewarded_at = $2 WHERE id = $1 AND host_rewarded_at IS NULL")
                        .bind(id)
                        .bind(credit.now)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                if marked == 0 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                if credit.amount > 0 {
                    apply_credit(&mut tx, &credit).await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn insert_request(&self, r: $crate::storage::InviteRequestRow) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let inserted = sqlx::query(
                    "INSERT INTO invite_requests (id, email, name, house, collection, intake, links, logo_url, website, \
                     created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (email) DO NOTHING",
                )
                .bind(&r.id)
                .bind(&r.email)
                .bind(&r.name)
                .bind(&r.house)
                .bind(&r.collection)
                .bind(&r.intake)
                .bind(&r.links)
                .bind(&r.logo_url)
                .bind(&r.website)
                .bind(r.created_at)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(inserted == 1)
            }

            async fn invite_requests(&self) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT r.id, r.email, r.name, r.house, r.collection, r.intake, r.links, r.logo_url, r.website, \
                     r.created_at, \
                     CASE WHEN EXISTS (SELECT 1 FROM invitations i WHERE i.email = r.email) THEN 'invited' ELSE 'pending' END \
                     AS status \
                     FROM invite_requests r ORDER BY r.created_at DESC, r.id DESC",
                )
                .fetch_all(&self.pool)
                .await?)
            }
        }
    };
}

pub(in crate::storage) use {impl_invitation_store, invitation_columns, invite_code_columns};
