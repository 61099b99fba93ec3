//! The SQL of people, houses, seats, sessions and keys ([`AccountStore`](crate::storage::AccountStore)).

macro_rules! impl_account_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::AccountStore for $ty {
            async fn user_count(&self) -> Result<i64, StorageError> {
                let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&self.pool).await?;
                Ok(n)
            }

            async fn create_account(&self, a: NewAccount) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let taken: Option<(String,)> = sqlx::query_as("SELECT id FROM users WHERE email = $1")
                    .bind(&a.user.email)
                    .fetch_optional(&mut *tx)
                    .await?;
                if taken.is_some() {
                    return Err(StorageError::Conflict("email"));
                }
                sqlx::query("INSERT INTO users (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(&a.user.id)
                    .bind(&a.user.email)
                    .bind(&a.user.name)
                    .bind(&a.user.password_hash)
                    .bind(a.user.created_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(unique_as("email"))?;
                sqlx::query("INSERT INTO organizations (id, name, created_at, founded_by) VALUES ($1, $2, $3, $4)")
                    .bind(&a.org.id)
                    .bind(&a.org.name)
                    .bind(a.org.created_at)
                    .bind(&a.user.id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)")
                    .bind(&a.org.id)
                    .bind(&a.user.id)
                    .bind(a.org.created_at)
                    .execute(&mut *tx)
                    .await?;
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
                Ok(sqlx::query_as("SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1")
                    .bind(email)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn user_by_id(&self, id: &UserId) -> Result<Option<UserRow>, StorageError> {
                Ok(sqlx::query_as("SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn org_by_id(&self, id: &OrgId) -> Result<Option<OrgRow>, StorageError> {
                Ok(sqlx::query_as("SELECT id, name, created_at FROM organizations WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn upsert_membership(&self, seat: MembershipRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role",
                )
                .bind(&seat.org_id)
                .bind(&seat.user_id)
                .bind(&seat.role)
                .bind(seat.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn membership(&self, org_id: &OrgId, user_id: &UserId) -> Result<Option<MembershipRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT org_id, user_id, role, created_at FROM memberships WHERE org_id = $1 AND user_id = $2",
                )
                .bind(org_id)
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn home_membership(&self, user_id: &UserId) -> Result<Option<MembershipRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT org_id, user_id, role, created_at FROM memberships WHERE user_id = $1 \
                     ORDER BY CASE WHEN role = 'owner' THEN 0 ELSE 1 END, created_at, org_id LIMIT 1",
                )
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn insert_session(&self, s: SessionRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO sessions (token_hash, user_id, org_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&s.token_hash)
                .bind(&s.user_id)
                .bind(&s.org_id)
                .bind(s.created_at)
                .bind(s.expires_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn session_by_hash(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT token_hash, user_id, org_id, created_at, expires_at FROM sessions \
                     WHERE token_hash = $1 AND expires_at > $2",
                )
                .bind(token_hash)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn session_seat(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<SessionSeat>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT s.user_id, s.org_id, m.role, u.email, u.platform_admin, \
                     u.email_verified_at IS NOT NULL AS email_verified FROM sessions s \
                     JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.user_id \
                     JOIN users u ON u.id = s.user_id \
                     WHERE s.token_hash = $1 AND s.expires_at > $2",
                )
                .bind(token_hash)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn set_platform_admin(&self, email: &str, admin: bool) -> Result<Option<UserRow>, StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE users SET platform_admin = $1 WHERE email = $2")
                    .bind(admin)
                    .bind(email)
                    .execute(&self.pool)
                    .await?;
                Ok(sqlx::query_as("SELECT id, email, name, password_hash, created_at FROM users WHERE email = $1")
                    .bind(email)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn platform_admins(&self) -> Result<Vec<UserRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, email, name, password_hash, created_at FROM users WHERE platform_admin ORDER BY email",
                )
                .fetch_all(&self.pool)
                .await?)
            }

            async fn delete_session(&self, token_hash: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                    .bind(token_hash)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn insert_key(&self, k: KeyRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO api_keys (id, org_id, created_by, name, role, prefix, secret_hash, last_used_at, revoked_at, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&k.id)
                .bind(&k.org_id)
                .bind(&k.created_by)
                .bind(&k.name)
                .bind(&k.role)
                .bind(&k.prefix)
                .bind(&k.secret_hash)
                .bind(k.last_used_at)
                .bind(k.revoked_at)
                .bind(k.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn list_keys(&self, org_id: &OrgId) -> Result<Vec<KeyRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", key_columns!(), " FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC, id DESC"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn key_by_hash(&self, secret_hash: &str) -> Result<Option<KeyRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", key_columns!(), " FROM api_keys WHERE secret_hash = $1"))
                    .bind(secret_hash)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn house_stamp(&self, org_id: &OrgId) -> Result<HouseStamp, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT COALESCE((SELECT epoch FROM key_epochs WHERE org_id = $1), 0) AS key_epoch, \
                     COALESCE((SELECT version FROM library_versions WHERE org_id = $1), 0) AS library_version",
                )
                .bind(org_id)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn revoke_key(&self, org_id: &OrgId, key_id: &KeyId, now: DateTime<Utc>) -> Result<Option<KeyRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND org_id = $3 RETURNING ",
                    key_columns!()
                ))
                .bind(now)
                .bind(key_id)
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn touch_key(&self, key_id: &KeyId, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)")
                    .bind(now)
                    .bind(key_id)
                    .bind(stale_before)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }
        }
    };
}

pub(in crate::storage) use impl_account_store;
