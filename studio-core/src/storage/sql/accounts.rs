//! The SQL of people, houses, seats, sessions and keys ([`AccountStore`](crate::storage::AccountStore)).
//! Every statement is declared in [`q`] (see stmt.rs).

/// The accounts' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{KeyId, OrgId, UserId};
    use crate::storage::sql::key_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{HouseStamp, KeyRow, MembershipRow, OrgRow, SessionRow, SessionSeat, UserRow};

    statements! {
        /// How many people have signed up.
        fn user_count() -> scalar<i64> [any "counts every person, for the first-run hint"] {
            "SELECT COUNT(*) FROM users"
        }

        /// The id of the person with an email, if any.
        fn email_taken(email: &'q str) -> scalar<String> [any "an email names one person, who is not per house"] {
            "SELECT id FROM users WHERE email = $1"
        }

        /// Write a new person.
        fn insert_user(
            id: &'q UserId,
            email: &'q str,
            name: Option<&'q str>,
            password_hash: Option<&'q str>,
            created_at: DateTime<Utc>,
        ) -> exec [any "a person is not per house; their house is written next, in the same transaction"] {
            "INSERT INTO users (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)"
        }

        /// Write a new house, founded by a person.
        fn insert_org(id: &'q OrgId, name: &'q str, created_at: DateTime<Utc>, founded_by: &'q UserId) -> exec [any "the row is the new house itself (organizations has no org_id column)"] {
            "INSERT INTO organizations (id, name, created_at, founded_by) VALUES ($1, $2, $3, $4)"
        }

        /// Give a house's founder its owner seat.
        fn insert_owner_seat(org_id: &'q OrgId, user_id: &'q UserId, created_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)"
        }

        /// A person by lowercased email.
        fn user_by_email(email: &'q str) -> row<UserRow> [any "an email names one person, who is not per house"] {
            "SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1"
        }

        /// A person by id.
        fn user_by_id(id: &'q UserId) -> row<UserRow> [any "a person is not per house"] {
            "SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1"
        }

        /// A house by id.
        fn org_by_id(id: &'q OrgId) -> row<OrgRow> [any "the row is the house itself, named by its id (organizations has no org_id column)"] {
            "SELECT id, name, created_at FROM organizations WHERE id = $1"
        }

        /// Give a person a seat in a house, or change its role.
        fn upsert_membership(org_id: &'q OrgId, user_id: &'q UserId, role: &'q str, created_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role"
        }

        /// A person's seat in a house.
        fn membership(org_id: &'q OrgId, user_id: &'q UserId) -> row<MembershipRow> [house] {
            "SELECT org_id, user_id, role, created_at FROM memberships WHERE org_id = $1 AND user_id = $2"
        }

        /// A person's home seat: the first house they own, else their oldest seat.
        fn home_membership(user_id: &'q UserId) -> row<MembershipRow> [any "a person's own seats, across the houses they sit in, to pick their home"] {
            "SELECT org_id, user_id, role, created_at FROM memberships WHERE user_id = $1 \
             ORDER BY CASE WHEN role = 'owner' THEN 0 ELSE 1 END, created_at, org_id LIMIT 1"
        }

        /// Write a session.
        fn insert_session(
            token_hash: &'q str,
            user_id: &'q UserId,
            org_id: &'q OrgId,
            created_at: DateTime<Utc>,
            expires_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO sessions (token_hash, user_id, org_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)"
        }

        /// A session by its token's hash, unless expired by `expires_at`.
        fn session_by_hash(token_hash: &'q str, expires_at: DateTime<Utc>) -> row<SessionRow> [any "a session is named by its own secret token's hash, before its house is known"] {
            "SELECT token_hash, user_id, org_id, created_at, expires_at FROM sessions \
             WHERE token_hash = $1 AND expires_at > $2"
        }

        /// A live session with its person's seat in the session's house.
        fn session_seat(token_hash: &'q str, expires_at: DateTime<Utc>) -> row<SessionSeat> [any "a session is named by its own secret token's hash, before its house is known"] {
            "SELECT s.user_id, s.org_id, m.role, u.email, u.platform_admin, \
             u.email_verified_at IS NOT NULL AS email_verified FROM sessions s \
             JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.user_id \
             JOIN users u ON u.id = s.user_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2"
        }

        /// Mark or unmark a person platform admin.
        fn set_platform_admin(platform_admin: bool, email: &'q str) -> exec [any "an operator marks a person, who is not per house"] {
            "UPDATE users SET platform_admin = $1 WHERE email = $2"
        }

        /// The platform admins, by email.
        fn platform_admins() -> row<UserRow> [any "the platform's operators, whatever their houses"] {
            "SELECT id, email, name, password_hash, created_at FROM users WHERE platform_admin ORDER BY email"
        }

        /// Delete a session.
        fn delete_session(token_hash: &'q str) -> exec [any "a session is named by its own secret token's hash"] {
            "DELETE FROM sessions WHERE token_hash = $1"
        }

        /// Write a key of a house.
        fn insert_key(
            id: &'q KeyId,
            org_id: &'q OrgId,
            created_by: &'q UserId,
            name: &'q str,
            role: &'q str,
            prefix: &'q str,
            secret_hash: &'q str,
            last_used_at: Option<DateTime<Utc>>,
            revoked_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO api_keys (id, org_id, created_by, name, role, prefix, secret_hash, last_used_at, revoked_at, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        }

        /// A house's keys, newest first.
        fn list_keys(org_id: &'q OrgId) -> row<KeyRow> [house] {
            "SELECT ", key_columns!(), " FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC"
        }

        /// A key by its secret's hash.
        fn key_by_hash(secret_hash: &'q str) -> row<KeyRow> [any "a key is found by its own secret's hash, before its house is known"] {
            "SELECT ", key_columns!(), " FROM api_keys WHERE secret_hash = $1"
        }

        /// A house's key epoch and library version.
        fn house_stamp(org_id: &'q OrgId) -> row<HouseStamp> [house] {
            "SELECT COALESCE((SELECT epoch FROM key_epochs WHERE org_id = $1), 0) AS key_epoch, \
             COALESCE((SELECT version FROM library_versions WHERE org_id = $1), 0) AS library_version"
        }

        /// Revoke a key of a house (once: a revoked key keeps its first revocation time).
        fn revoke_key(revoked_at: DateTime<Utc>, id: &'q KeyId, org_id: &'q OrgId) -> row<KeyRow> [house] {
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND org_id = $3 RETURNING ",
            key_columns!()
        }

        /// Stamp a key's last use, unless stamped since `stale_last_used_at`.
        fn touch_key(last_used_at: DateTime<Utc>, id: &'q KeyId, stale_last_used_at: DateTime<Utc>) -> exec [any "a key's own use, named by the id of the key that just authenticated"] {
            "UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)"
        }
    }
}

macro_rules! impl_account_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::AccountStore for $ty {
            async fn user_count(&self) -> Result<i64, StorageError> {
                Ok(q::accounts::user_count().fetch_one(&self.pool).await?)
            }

            async fn create_account(&self, a: NewAccount) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let taken = q::accounts::email_taken(&a.user.email).fetch_optional(&mut *tx).await?;
                if taken.is_some() {
                    return Err(StorageError::Conflict("email"));
                }
                q::accounts::insert_user(
                    &a.user.id,
                    &a.user.email,
                    a.user.name.as_deref(),
                    a.user.password_hash.as_deref(),
                    a.user.created_at,
                )
                .execute(&mut *tx)
                .await
                .map_err(unique_as("email"))?;
                q::accounts::insert_org(&a.org.id, &a.org.name, a.org.created_at, &a.user.id).execute(&mut *tx).await?;
                q::accounts::insert_owner_seat(&a.org.id, &a.user.id, a.org.created_at).execute(&mut *tx).await?;
                open_balance(&mut tx, &a.org.id, a.org.created_at).await?;
                if a.grant_tokens > 0 {
                    let credit = NewCredit {
                        org_id: crate::ids::OrgId::from(a.org.id.clone()),
                        bucket: Bucket::Grant,
                        amount: a.grant_tokens,
                        user_id: Some(crate::ids::UserId::from(a.user.id.clone())),
                        reason: "signup".to_string(),
                        expires_at: None,
                        now: a.org.created_at,
                    };
                    apply_credit(&mut tx, &credit).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn user_by_email(&self, email: &str) -> Result<Option<UserRow>, StorageError> {
                Ok(q::accounts::user_by_email(email).fetch_optional(&self.pool).await?)
            }

            async fn user_by_id(&self, id: &UserId) -> Result<Option<UserRow>, StorageError> {
                Ok(q::accounts::user_by_id(id).fetch_optional(&self.pool).await?)
            }

            async fn org_by_id(&self, id: &OrgId) -> Result<Option<OrgRow>, StorageError> {
                Ok(q::accounts::org_by_id(id).fetch_optional(&self.pool).await?)
            }

            async fn upsert_membership(&self, seat: MembershipRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::accounts::upsert_membership(&seat.org_id, &seat.user_id, &seat.role, seat.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn membership(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
            ) -> Result<Option<MembershipRow>, StorageError> {
                Ok(q::accounts::membership(org_id, user_id).fetch_optional(&self.pool).await?)
            }

            async fn home_membership(&self, user_id: &UserId) -> Result<Option<MembershipRow>, StorageError> {
                Ok(q::accounts::home_membership(user_id).fetch_optional(&self.pool).await?)
            }

            async fn insert_session(&self, s: SessionRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::accounts::insert_session(&s.token_hash, &s.user_id, &s.org_id, s.created_at, s.expires_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn session_by_hash(
                &self,
                token_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<SessionRow>, StorageError> {
                Ok(q::accounts::session_by_hash(token_hash, now).fetch_optional(&self.pool).await?)
            }

            async fn session_seat(
                &self,
                token_hash: &str,
                now: DateTime<Utc>,
            ) -> Result<Option<SessionSeat>, StorageError> {
                Ok(q::accounts::session_seat(token_hash, now).fetch_optional(&self.pool).await?)
            }

            async fn set_platform_admin(&self, email: &str, admin: bool) -> Result<Option<UserRow>, StorageError> {
                let _w = self.write_lock().await;
                q::accounts::set_platform_admin(admin, email).execute(&self.pool).await?;
                Ok(q::accounts::user_by_email(email).fetch_optional(&self.pool).await?)
            }

            async fn platform_admins(&self) -> Result<Vec<UserRow>, StorageError> {
                Ok(q::accounts::platform_admins().fetch_all(&self.pool).await?)
            }

            async fn delete_session(&self, token_hash: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::accounts::delete_session(token_hash).execute(&self.pool).await?;
                Ok(())
            }

            async fn insert_key(&self, k: KeyRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::accounts::insert_key(
                    &k.id,
                    &k.org_id,
                    &k.created_by,
                    &k.name,
                    &k.role,
                    &k.prefix,
                    &k.secret_hash,
                    k.last_used_at,
                    k.revoked_at,
                    k.created_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn list_keys(&self, org_id: &OrgId) -> Result<Vec<KeyRow>, StorageError> {
                Ok(q::accounts::list_keys(org_id).fetch_all(&self.pool).await?)
            }

            async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<KeyRow>, StorageError> {
                Ok(q::accounts::key_by_hash(secret_hash).fetch_optional(&self.pool).await?)
            }

            async fn house_stamp(&self, org_id: &OrgId) -> Result<HouseStamp, StorageError> {
                Ok(q::accounts::house_stamp(org_id).fetch_one(&self.pool).await?)
            }

            async fn revoke_key(
                &self,
                org_id: &OrgId,
                key_id: &KeyId,
                now: DateTime<Utc>,
            ) -> Result<Option<KeyRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::accounts::revoke_key(now, key_id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn touch_key(
                &self,
                key_id: &KeyId,
                now: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::accounts::touch_key(now, key_id, stale_before).execute(&self.pool).await?;
                Ok(())
            }
        }
    };
}

pub(in crate::storage) use impl_account_store;
