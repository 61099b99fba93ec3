//! The SQL of the platform gate ([`InvitationStore`](crate::storage::InvitationStore)): codes,
//! invitations and requests. A redemption takes its use with one conditional UPDATE; an
//! acceptance and its grant, and a host's reward and its credit, are each one transaction (the
//! credit through `tx.rs`'s `apply_credit`). Every statement is declared in [`q`] (see stmt.rs).

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

/// The platform gate's declared statements. Codes, invitations and requests belong to the
/// platform, not to a house: none of their tables has one.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{CodeId, InvitationId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{InvitationRow, InviteCodeRow, InviteRequestRow, InviteeRow};

    statements! {
        /// Record an invite code.
        fn insert_code(
            id: &'q CodeId,
            code: &'q str,
            label: &'q str,
            owner_user_id: Option<&'q UserId>,
            created_by: Option<&'q UserId>,
            grant_tokens: i64,
            max_uses: i64,
            used_count: i64,
            expires_at: Option<DateTime<Utc>>,
            revoked_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
        ) -> exec [any "invite codes are the platform's gate, not a house's (invite_codes has no house)"] {
            "INSERT INTO invite_codes (id, code, label, owner_user_id, created_by, grant_tokens, max_uses, \
             used_count, expires_at, revoked_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
        }

        /// An invite code by its text.
        fn code_by_code(code: &'q str) -> row<InviteCodeRow> [any "a code is redeemed by its text alone, by anyone at the gate (invite_codes has no house)"] {
            "SELECT ", invite_code_columns!(), " FROM invite_codes c WHERE c.code = $1"
        }

        /// A person's own invite code.
        fn own_code(owner_user_id: &'q UserId) -> row<InviteCodeRow> [any "a person's own invite code (invite_codes has no house)"] {
            "SELECT ", invite_code_columns!(), " FROM invite_codes c WHERE c.owner_user_id = $1"
        }

        /// The operators' codes (owned by nobody), newest first.
        fn admin_codes() -> row<InviteCodeRow> [any "the operators' list of the platform's codes (invite_codes has no house)"] {
            "SELECT ", invite_code_columns!(), " FROM invite_codes c WHERE c.owner_user_id IS NULL \
             ORDER BY c.created_at DESC, c.id DESC"
        }

        /// Revoke a code not yet revoked.
        fn revoke_code(revoked_at: DateTime<Utc>, id: &'q CodeId) -> exec [any "an operator revokes a platform code by id (invite_codes has no house)"] {
            "UPDATE invite_codes SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL"
        }

        /// An invite code by id.
        fn code(id: &'q CodeId) -> row<InviteCodeRow> [any "a platform code by id (invite_codes has no house)"] {
            "SELECT ", invite_code_columns!(), " FROM invite_codes c WHERE c.id = $1"
        }

        /// Raise a code's uses to `max_uses` (never lower them).
        fn raise_max_uses(max_uses: i64, id: &'q CodeId) -> exec [any "a platform code by id (invite_codes has no house)"] {
            "UPDATE invite_codes SET max_uses = $1 WHERE id = $2 AND max_uses < $1"
        }

        /// Take one use of a live code not expired by `expires_at`.
        fn take_use(id: &'q CodeId, expires_at: DateTime<Utc>) -> exec [any "a code is redeemed by anyone at the gate (invite_codes has no house)"] {
            "UPDATE invite_codes SET used_count = used_count + 1 \
             WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) \
             AND used_count < max_uses"
        }

        /// The invitation to an address.
        fn invitation_by_email(email: &'q str) -> row<InvitationRow> [any "an invitation is an address's, at the platform's gate (invitations has no house)"] {
            "SELECT ", invitation_columns!(), " FROM invitations WHERE email = $1"
        }

        /// Record an invitation unless the address has one.
        fn insert_new_invitation(
            id: &'q str,
            email: &'q str,
            token_hash: &'q str,
            code_id: Option<&'q str>,
            invited_by: Option<&'q str>,
            grant_tokens: i64,
            created_at: DateTime<Utc>,
            accepted_at: Option<DateTime<Utc>>,
            accepted_by: Option<&'q str>,
            host_rewarded_at: Option<DateTime<Utc>>,
        ) -> exec [any "an invitation is an address's, at the platform's gate (invitations has no house)"] {
            "INSERT INTO invitations (", invitation_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (email) DO NOTHING"
        }

        /// Give an address's unaccepted invitation a new token (and an inviter, if it had none).
        fn reissue_invitation(token_hash: &'q str, invited_by: Option<&'q str>, email: &'q str) -> exec [any "an invitation is an address's, at the platform's gate (invitations has no house)"] {
            "UPDATE invitations SET token_hash = $1, invited_by = COALESCE(invited_by, $2) \
             WHERE email = $3 AND accepted_at IS NULL"
        }

        /// The invitation a token opens.
        fn invitation_by_token(token_hash: &'q str) -> row<InvitationRow> [any "an invitation is opened by its token alone, at the platform's gate (invitations has no house)"] {
            "SELECT ", invitation_columns!(), " FROM invitations WHERE token_hash = $1"
        }

        /// Accept an invitation not yet accepted.
        fn accept_invitation(accepted_at: DateTime<Utc>, accepted_by: &'q UserId, id: &'q InvitationId) -> exec [any "an invitation is accepted by id at the platform's gate (invitations has no house)"] {
            "UPDATE invitations SET accepted_at = $1, accepted_by = $2 WHERE id = $3 AND accepted_at IS NULL"
        }

        /// The invitations a code made, with whether each invitee has an account and subscribed.
        fn invitees(code_id: &'q CodeId) -> row<InviteeRow> [any "a code's invitees, read by its owner or an operator (invitations has no house)"] {
            "SELECT i.id, i.email, i.created_at, i.accepted_at, i.host_rewarded_at, \
             CAST(CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) THEN 1 ELSE 0 END AS BIGINT) \
             AS has_account, \
             (SELECT MIN(b.paid_at) FROM users u \
              JOIN billing_checkouts b ON b.user_id = u.id AND b.kind = 'subscription' AND b.status = 'paid' \
              WHERE u.email = i.email AND i.accepted_at IS NOT NULL AND b.created_at > i.accepted_at) \
             AS subscribed_at \
             FROM invitations i WHERE i.code_id = $1 ORDER BY i.created_at, i.id"
        }

        /// Mark an invitation's host rewarded, once.
        fn mark_host_rewarded(host_rewarded_at: DateTime<Utc>, id: &'q InvitationId) -> exec [any "an invitation by id, at the platform's gate (invitations has no house); the credit goes to the house named by the caller"] {
            "UPDATE invitations SET host_rewarded_at = $1 WHERE id = $2 AND host_rewarded_at IS NULL"
        }

        /// Record a request for an invitation, unless the address has one.
        fn insert_request(
            id: &'q str,
            email: &'q str,
            name: Option<&'q str>,
            house: Option<&'q str>,
            collection: Option<&'q str>,
            intake: &'q str,
            links: &'q str,
            logo_url: Option<&'q str>,
            website: Option<&'q str>,
            created_at: DateTime<Utc>,
        ) -> exec [any "a request for an invitation comes before any house (invite_requests has no house)"] {
            "INSERT INTO invite_requests (id, email, name, house, collection, intake, links, logo_url, website, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (email) DO NOTHING"
        }

        /// Every request for an invitation, newest first, with whether it was invited.
        fn invite_requests() -> row<InviteRequestRow> [any "the operators' list of requests, which come before any house (invite_requests has no house)"] {
            "SELECT r.id, r.email, r.name, r.house, r.collection, r.intake, r.links, r.logo_url, r.website, \
             r.created_at, \
             CASE WHEN EXISTS (SELECT 1 FROM invitations i WHERE i.email = r.email) THEN 'invited' ELSE 'pending' END \
             AS status \
             FROM invite_requests r ORDER BY r.created_at DESC, r.id DESC"
        }
    }
}

macro_rules! impl_invitation_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::InvitationStore for $ty {
            async fn insert_code(&self, c: $crate::storage::InviteCodeRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::invitations::insert_code(
                    &c.id,
                    &c.code,
                    &c.label,
                    c.owner_user_id.as_ref(),
                    c.created_by.as_ref(),
                    c.grant_tokens,
                    c.max_uses,
                    c.used_count,
                    c.expires_at,
                    c.revoked_at,
                    c.created_at,
                )
                .execute(&self.pool)
                .await
                .map_err(unique_as("invite code"))?;
                Ok(())
            }

            async fn code_by_code(&self, code: &str) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(q::invitations::code_by_code(code).fetch_optional(&self.pool).await?)
            }

            async fn own_code(&self, user_id: &UserId) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(q::invitations::own_code(user_id).fetch_optional(&self.pool).await?)
            }

            async fn admin_codes(&self) -> Result<Vec<$crate::storage::InviteCodeRow>, StorageError> {
                Ok(q::invitations::admin_codes().fetch_all(&self.pool).await?)
            }

            async fn revoke_code(
                &self,
                id: &CodeId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::InviteCodeRow>, StorageError> {
                {
                    let _w = self.write_lock().await;
                    q::invitations::revoke_code(now, id).execute(&self.pool).await?;
                }
                Ok(q::invitations::code(id).fetch_optional(&self.pool).await?)
            }

            async fn raise_max_uses(&self, id: &CodeId, max_uses: i64) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::invitations::raise_max_uses(max_uses, id).execute(&self.pool).await?;
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
                let existing = q::invitations::invitation_by_email(&i.email).fetch_optional(&mut *tx).await?;
                if let Some(existing) = existing {
                    // Rolled back here, under the writer lock: a transaction merely dropped is
                    // rolled back later, and on SQLite it would hold the write lock meanwhile.
                    tx.rollback().await?;
                    return Ok(RedeemOutcome::AlreadyInvited(existing));
                }
                // The check and the increment in one statement: the row lock (PostgreSQL) or
                // the writer lock (SQLite) makes concurrent redeemers take turns, and each
                // re-reads the count it raises.
                let taken = q::invitations::take_use(code_id, now).execute(&mut *tx).await?.rows_affected();
                if taken == 0 {
                    let code = q::invitations::code(code_id).fetch_optional(&mut *tx).await?;
                    tx.rollback().await?;
                    return Ok(code.map_or(RedeemOutcome::NotFound, RedeemOutcome::Refused));
                }
                let inserted = q::invitations::insert_new_invitation(
                    &i.id,
                    &i.email,
                    &i.token_hash,
                    i.code_id.as_deref(),
                    i.invited_by.as_deref(),
                    i.grant_tokens,
                    i.created_at,
                    i.accepted_at,
                    i.accepted_by.as_deref(),
                    i.host_rewarded_at,
                )
                .execute(&mut *tx)
                .await;
                // Another redeemer of the same address committed first (nothing inserted), or a
                // token collided: roll the use back and answer what the address already has.
                let lost = match &inserted {
                    Ok(done) => done.rows_affected() == 0,
                    Err(sqlx::Error::Database(d)) => d.is_unique_violation(),
                    Err(_) => false,
                };
                if lost {
                    tx.rollback().await?;
                    let existing = q::invitations::invitation_by_email(&i.email).fetch_optional(&self.pool).await?;
                    return existing
                        .map(RedeemOutcome::AlreadyInvited)
                        .ok_or(StorageError::Conflict("invitation token"));
                }
                inserted?;
                tx.commit().await?;
                Ok(RedeemOutcome::Redeemed(i))
            }

            async fn issue_invitation(
                &self,
                i: $crate::storage::InvitationRow,
            ) -> Result<$crate::storage::IssueOutcome, StorageError> {
                use $crate::storage::IssueOutcome;
                let _w = self.write_lock().await;
                let created = q::invitations::insert_new_invitation(
                    &i.id,
                    &i.email,
                    &i.token_hash,
                    i.code_id.as_deref(),
                    i.invited_by.as_deref(),
                    i.grant_tokens,
                    i.created_at,
                    i.accepted_at,
                    i.accepted_by.as_deref(),
                    i.host_rewarded_at,
                )
                .execute(&self.pool)
                .await
                .map_err(unique_as("invitation token"))?
                .rows_affected();
                if created == 1 {
                    return Ok(IssueOutcome::Created);
                }
                let reissued = q::invitations::reissue_invitation(&i.token_hash, i.invited_by.as_deref(), &i.email)
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
                Ok(q::invitations::invitation_by_token(token_hash).fetch_optional(&self.pool).await?)
            }

            async fn invitation_by_email(
                &self,
                email: &str,
            ) -> Result<Option<$crate::storage::InvitationRow>, StorageError> {
                Ok(q::invitations::invitation_by_email(email).fetch_optional(&self.pool).await?)
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
                let accepted =
                    q::invitations::accept_invitation(now, user_id, id).execute(&mut *tx).await?.rows_affected();
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
                Ok(q::invitations::invitees(code_id).fetch_all(&self.pool).await?)
            }

            async fn reward_host(&self, id: &InvitationId, credit: NewCredit) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let marked =
                    q::invitations::mark_host_rewarded(credit.now, id).execute(&mut *tx).await?.rows_affected();
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
                let inserted = q::invitations::insert_request(
                    &r.id,
                    &r.email,
                    r.name.as_deref(),
                    r.house.as_deref(),
                    r.collection.as_deref(),
                    &r.intake,
                    &r.links,
                    r.logo_url.as_deref(),
                    r.website.as_deref(),
                    r.created_at,
                )
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(inserted == 1)
            }

            async fn invite_requests(&self) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(q::invitations::invite_requests().fetch_all(&self.pool).await?)
            }
        }
    };
}

pub(in crate::storage) use impl_invitation_store;
