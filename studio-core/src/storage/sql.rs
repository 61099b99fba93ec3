//! The SQL both backends share. `$N` placeholders and `ON CONFLICT` read the same on SQLite and
//! PostgreSQL, so one macro body implements [`Storage`](super::Storage) for each. They differ in
//! how a write transaction is made exclusive (`$lock`): PostgreSQL locks the house's balance row
//! with `FOR UPDATE`; SQLite serialises writers in-process (see sqlite.rs). And a group of
//! develop submits is written in one statement on PostgreSQL (`$one_statement`: data-modifying
//! CTEs, which SQLite lacks) and in one statement a table on SQLite, whose round trips are free;
//! and PostgreSQL locks an existing balance row with a read (`$lock_by_select`), while SQLite's
//! transactions start with the write (see `lock_balance`).

macro_rules! impl_storage {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::Storage for $ty {
            fn backend(&self) -> &'static str {
                $backend
            }

            async fn ping(&self) -> Result<(), StorageError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn user_count(&self) -> Result<i64, StorageError> {
                let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users").fetch_one(&self.pool).await?;
                Ok(n)
            }

            async fn create_account(&self, a: NewAccount) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
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
                sqlx::query("INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(&a.org.id)
                    .bind(&a.org.name)
                    .bind(a.org.created_at)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)")
                    .bind(&a.org.id)
                    .bind(&a.user.id)
                    .bind(a.org.created_at)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("INSERT INTO balances (org_id, updated_at) VALUES ($1, $2)")
                    .bind(&a.org.id)
                    .bind(a.org.created_at)
                    .execute(&mut *tx)
                    .await?;
                if a.grant_tokens > 0 {
                    let credit = NewCredit {
                        org_id: a.org.id.clone(),
                        bucket: Bucket::Grant,
                        amount: a.grant_tokens,
                        user_id: Some(a.user.id.clone()),
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

            async fn user_by_id(&self, id: &str) -> Result<Option<UserRow>, StorageError> {
                Ok(sqlx::query_as("SELECT id, email, name, password_hash, created_at FROM users WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn org_by_id(&self, id: &str) -> Result<Option<OrgRow>, StorageError> {
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

            async fn membership(&self, org_id: &str, user_id: &str) -> Result<Option<MembershipRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT org_id, user_id, role, created_at FROM memberships WHERE org_id = $1 AND user_id = $2",
                )
                .bind(org_id)
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn home_membership(&self, user_id: &str) -> Result<Option<MembershipRow>, StorageError> {
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
                    "SELECT s.user_id, s.org_id, m.role, u.email FROM sessions s \
                     JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.user_id \
                     JOIN users u ON u.id = s.user_id \
                     WHERE s.token_hash = $1 AND s.expires_at > $2",
                )
                .bind(token_hash)
                .bind(now)
                .fetch_optional(&self.pool)
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

            async fn list_keys(&self, org_id: &str) -> Result<Vec<KeyRow>, StorageError> {
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

            async fn revoke_key(&self, org_id: &str, key_id: &str, now: DateTime<Utc>) -> Result<Option<KeyRow>, StorageError> {
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

            async fn touch_key(&self, key_id: &str, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)")
                    .bind(now)
                    .bind(key_id)
                    .bind(stale_before)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn insert_folder(&self, f: FolderRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("INSERT INTO folders (id, org_id, name, parent_id, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(&f.id)
                    .bind(&f.org_id)
                    .bind(&f.name)
                    .bind(&f.parent_id)
                    .bind(f.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn list_folders(&self, org_id: &str) -> Result<Vec<FolderRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE org_id = $1 ORDER BY created_at, id",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn folder(&self, org_id: &str, id: &str) -> Result<Option<FolderRow>, StorageError> {
                Ok(sqlx::query_as("SELECT id, org_id, name, parent_id, created_at FROM folders WHERE id = $1 AND org_id = $2")
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn rename_folder(&self, org_id: &str, id: &str, name: &str) -> Result<Option<FolderRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(
                    "UPDATE folders SET name = $1 WHERE id = $2 AND org_id = $3 RETURNING id, org_id, name, parent_id, created_at",
                )
                .bind(name)
                .bind(id)
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn insert_asset(&self, a: AssetRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                insert_asset_in(&mut tx, &a).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn list_assets(&self, org_id: &str, folder_id: Option<&str>) -> Result<Vec<AssetRow>, StorageError> {
                self.list_assets_page(org_id, folder_id, i64::MAX, None).await
            }

            async fn list_assets_page(
                &self,
                org_id: &str,
                folder_id: Option<&str>,
                limit: i64,
                after: Option<(DateTime<Utc>, &str)>,
            ) -> Result<Vec<AssetRow>, StorageError> {
                let (at, id) = after.unzip();
                Ok(sqlx::query_as(concat!(
                    "SELECT ", asset_columns!(), " FROM assets WHERE org_id = $1 AND deleted_at IS NULL ",
                    "AND ($2 IS NULL OR folder_id = $2) ",
                    "AND ($3 IS NULL OR created_at < $3 OR (created_at = $3 AND id < $4)) ",
                    "ORDER BY created_at DESC, id DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(folder_id)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn count_assets(&self, org_id: &str, folder_id: Option<&str>) -> Result<i64, StorageError> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM assets WHERE org_id = $1 AND deleted_at IS NULL AND ($2 IS NULL OR folder_id = $2)",
                )
                .bind(org_id)
                .bind(folder_id)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn library_version(&self, org_id: &str) -> Result<i64, StorageError> {
                let version: Option<i64> = sqlx::query_scalar("SELECT version FROM library_versions WHERE org_id = $1")
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(version.unwrap_or(0))
            }

            async fn asset_by_id(&self, id: &str) -> Result<Option<AssetRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", asset_columns!(), " FROM assets WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn soft_delete_assets(&self, org_id: &str, ids: &[String], now: DateTime<Utc>) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let mut deleted = 0;
                for id in ids {
                    let done = sqlx::query("UPDATE assets SET deleted_at = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL")
                        .bind(now)
                        .bind(id)
                        .bind(org_id)
                        .execute(&mut *tx)
                        .await?;
                    deleted += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(deleted)
            }

            async fn update_assets(&self, org_id: &str, ids: &[String], c: &AssetChanges) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let approval = c.approval.clone().unwrap_or_default();
                let mut matched = 0;
                for id in ids {
                    let done = sqlx::query(
                        "UPDATE assets SET \
                         name = CASE WHEN $1 THEN $2 ELSE name END, \
                         sku = CASE WHEN $3 THEN $4 ELSE sku END, \
                         kind = CASE WHEN $5 THEN $6 ELSE kind END, \
                         folder_id = CASE WHEN $7 THEN $8 ELSE folder_id END, \
                         fit = CASE WHEN $9 THEN $10 ELSE fit END, \
                         fit_guessed = CASE WHEN $9 THEN FALSE ELSE fit_guessed END, \
                         wearer = CASE WHEN $11 THEN $12 ELSE wearer END, \
                         wearer_guessed = CASE WHEN $11 THEN FALSE ELSE wearer_guessed END, \
                         approved_by = CASE WHEN $13 THEN $14 ELSE approved_by END, \
                         approved_at = CASE WHEN $13 THEN $15 ELSE approved_at END \
                         WHERE id = $16 AND org_id = $17 AND deleted_at IS NULL",
                    )
                    .bind(c.name.is_some())
                    .bind(c.name.clone())
                    .bind(c.sku.is_some())
                    .bind(c.sku.clone().flatten())
                    .bind(c.kind.is_some())
                    .bind(c.kind.clone())
                    .bind(c.folder_id.is_some())
                    .bind(c.folder_id.clone().flatten())
                    .bind(c.fit.is_some())
                    .bind(c.fit.clone().flatten())
                    .bind(c.wearer.is_some())
                    .bind(c.wearer.clone().flatten())
                    .bind(c.approval.is_some())
                    .bind(approval.as_ref().map(|a| a.0.clone()))
                    .bind(approval.as_ref().map(|a| a.1))
                    .bind(id)
                    .bind(org_id)
                    .execute(&mut *tx)
                    .await?;
                    matched += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(matched)
            }

            async fn set_asset_group(&self, org_id: &str, ids: &[String], group_id: &str) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                for id in ids {
                    let done = sqlx::query("UPDATE assets SET group_id = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL")
                        .bind(group_id)
                        .bind(id)
                        .bind(org_id)
                        .execute(&mut *tx)
                        .await?;
                    if done.rows_affected() != 1 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn count_live_assets(&self, org_id: &str, ids: &[String]) -> Result<i64, StorageError> {
                let mut live = 0;
                for id in ids {
                    let found: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM assets WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL")
                            .bind(id)
                            .bind(org_id)
                            .fetch_optional(&self.pool)
                            .await?;
                    live += i64::from(found.is_some());
                }
                Ok(live)
            }

            async fn insert_pack(&self, p: PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO packs (", pack_columns!(), ") VALUES ",
                    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
                ))
                .bind(&p.id)
                .bind(&p.org_id)
                .bind(&p.created_by)
                .bind(&p.filename)
                .bind(&p.asset_ids)
                .bind(&p.sizes)
                .bind(&p.mode)
                .bind(&p.status)
                .bind(p.items)
                .bind(p.bytes)
                .bind(p.seconds)
                .bind(&p.blob_key)
                .bind(&p.error)
                .bind(p.attempts)
                .bind(p.created_at)
                .bind(p.claimed_at)
                .bind(p.ready_at)
                .bind(p.expires_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pack(&self, org_id: &str, id: &str) -> Result<Option<PackRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", pack_columns!(), " FROM packs WHERE id = $1 AND org_id = $2"))
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn claim_pack(&self, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<Option<PackRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE packs SET status = 'building', claimed_at = $1, attempts = attempts + 1 WHERE id = (",
                    "SELECT id FROM packs WHERE status = 'queued' OR (status = 'building' AND claimed_at < $2) ",
                    "ORDER BY created_at, id LIMIT 1", $skip_locked, ") ",
                    "AND (status = 'queued' OR (status = 'building' AND claimed_at < $2)) RETURNING ", pack_columns!()
                ))
                .bind(now)
                .bind(stale_before)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn renew_pack_claim(&self, id: &str, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE packs SET claimed_at = $1 WHERE id = $2 AND status = 'building'")
                    .bind(now)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn finish_pack(&self, p: &PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE packs SET status = $1, items = $2, bytes = $3, blob_key = $4, error = $5, ready_at = $6, seconds = $7 \
                     WHERE id = $8",
                )
                .bind(&p.status)
                .bind(p.items)
                .bind(p.bytes)
                .bind(&p.blob_key)
                .bind(&p.error)
                .bind(p.ready_at)
                .bind(p.seconds)
                .bind(&p.id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn lapsed_packs(&self, now: DateTime<Utc>) -> Result<Vec<PackRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", pack_columns!(), " FROM packs WHERE expires_at < $1 AND status <> 'expired' ORDER BY expires_at"
                ))
                .bind(now)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn insert_model(&self, m: ModelRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!("INSERT INTO models (", model_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7)"))
                    .bind(&m.id)
                    .bind(&m.org_id)
                    .bind(&m.created_by)
                    .bind(&m.name)
                    .bind(&m.asset_ids)
                    .bind(&m.traits)
                    .bind(m.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn list_models(&self, org_id: &str) -> Result<Vec<ModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", model_columns!(), " FROM models WHERE org_id = $1 ORDER BY created_at DESC, id DESC"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn model(&self, org_id: &str, id: &str) -> Result<Option<ModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", model_columns!(), " FROM models WHERE id = $1 AND org_id = $2"))
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn create_jobs(&self, jobs: Vec<JobRow>, take: Option<TakeRecord>) -> Result<CreateJobsOutcome, StorageError> {
                if jobs.is_empty() {
                    return Ok(CreateJobsOutcome::Created(Vec::new()));
                }
                let (reply, answer) = tokio::sync::oneshot::channel();
                let org_id = jobs[0].org_id.clone();
                if self.job_queue.push(&org_id, PendingJobs { jobs, take, reply }) {
                    tokio::spawn(self.clone().drain_job_queue(org_id));
                }
                answer.await.map_err(|_| StorageError::Unsupported("the submit queue stopped before answering".into()))?
            }

            async fn job(&self, org_id: &str, id: &str) -> Result<Option<JobRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", job_columns!(), " FROM jobs WHERE id = $1 AND org_id = $2"))
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn jobs_since(&self, org_id: &str, since: i64, limit: i64) -> Result<Vec<JobRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT $3"
                ))
                .bind(org_id)
                .bind(since)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn recent_jobs(&self, org_id: &str, after: DateTime<Utc>, limit: i64) -> Result<Vec<JobRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND created_at >= $2 \
                     ORDER BY created_at DESC, id DESC LIMIT $3"
                ))
                .bind(org_id)
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn list_jobs(&self, org_id: &str, status: Option<&str>, limit: i64) -> Result<Vec<JobRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
                     ORDER BY created_at DESC, id DESC LIMIT $3"
                ))
                .bind(org_id)
                .bind(status)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn claim_job(&self, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<Option<JobRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let candidate: Option<JobRow> = sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE status = 'queued' OR (status = 'running' AND claimed_at < $1) ",
                    "ORDER BY created_at, id LIMIT 1", $skip_locked
                ))
                .bind(stale_before)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(mut job) = candidate else { return Ok(None) };
                if job.status == "queued" {
                    lock_balance(&mut tx, &job.org_id).await?;
                    job.event_seq = next_event_seq(&mut tx, &job.org_id).await?;
                }
                job.status = "running".to_string();
                job.claimed_at = Some(now);
                job.started_at = job.started_at.or(Some(now));
                job.attempts += 1;
                sqlx::query(
                    "UPDATE jobs SET status = 'running', claimed_at = $1, started_at = $2, attempts = $3, event_seq = $4 \
                     WHERE id = $5",
                )
                .bind(now)
                .bind(job.started_at)
                .bind(job.attempts)
                .bind(job.event_seq)
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Some(job))
            }

            async fn renew_job_claim(&self, id: &str, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE jobs SET claimed_at = $1 WHERE id = $2 AND status = 'running'")
                    .bind(now)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn finish_job(&self, org_id: &str, id: &str, end: JobEnd, now: DateTime<Utc>) -> Result<Option<JobRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let job: Option<JobRow> = sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE id = $1 AND org_id = $2", $lock
                ))
                .bind(id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(mut job) = job else { return Ok(None) };
                if job.status != "queued" && job.status != "running" {
                    return Ok(None);
                }
                lock_balance(&mut tx, org_id).await?;
                let charge = matches!(end, JobEnd::Done(_));
                let (outcome, seq) = resolve_in(&mut tx, org_id, &job.hold_id, now, charge, 1).await?;
                let settled = match outcome {
                    ResolveOutcome::Resolved(h) if charge => h.amount,
                    _ => 0,
                };
                match end {
                    JobEnd::Done(asset) => {
                        insert_asset_in(&mut tx, &asset).await?;
                        job.status = "done".to_string();
                        job.result_asset_id = Some(asset.id.clone());
                    }
                    JobEnd::Failed(error) => {
                        job.status = "failed".to_string();
                        job.error = Some(error);
                    }
                }
                job.tokens_settled = Some(settled);
                job.finished_at = Some(now);
                job.event_seq = if seq > 0 { seq } else { next_event_seq(&mut tx, org_id).await? };
                sqlx::query(
                    "UPDATE jobs SET status = $1, result_asset_id = $2, error = $3, tokens_settled = $4, finished_at = $5, \
                     event_seq = $6 WHERE id = $7",
                )
                .bind(&job.status)
                .bind(&job.result_asset_id)
                .bind(&job.error)
                .bind(job.tokens_settled)
                .bind(job.finished_at)
                .bind(job.event_seq)
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Some(job))
            }

            async fn cancel_job(&self, org_id: &str, id: &str, now: DateTime<Utc>) -> Result<CancelOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let job: Option<JobRow> = sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE id = $1 AND org_id = $2", $lock
                ))
                .bind(id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(mut job) = job else { return Ok(CancelOutcome::NotFound) };
                if job.status != "queued" {
                    return Ok(CancelOutcome::Unchanged(job));
                }
                lock_balance(&mut tx, org_id).await?;
                let (_, seq) = resolve_in(&mut tx, org_id, &job.hold_id, now, false, 1).await?;
                job.event_seq = if seq > 0 { seq } else { next_event_seq(&mut tx, org_id).await? };
                job.status = "cancelled".to_string();
                job.tokens_settled = Some(0);
                job.finished_at = Some(now);
                sqlx::query(
                    "UPDATE jobs SET status = 'cancelled', tokens_settled = 0, finished_at = $1, event_seq = $2 WHERE id = $3",
                )
                .bind(now)
                .bind(job.event_seq)
                .bind(&job.id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(CancelOutcome::Cancelled(job))
            }

            async fn announce(&self, org_id: &str, message: &str) -> Result<bool, StorageError> {
                self.announce_event(org_id, message).await
            }

            async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError> {
                self.listen_events().await
            }

            async fn credit(&self, credit: NewCredit) -> Result<BalanceRow, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let after = apply_credit(&mut tx, &credit).await?;
                tx.commit().await?;
                Ok(after)
            }

            async fn reserve(&self, h: NewHold) -> Result<ReserveOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let bal = lock_balance(&mut tx, &h.org_id).await?;
                let existing: Option<HoldRow> = sqlx::query_as(concat!("SELECT ", hold_columns!(), " FROM holds WHERE id = $1"))
                    .bind(&h.id)
                    .fetch_optional(&mut *tx)
                    .await?;
                if let Some(existing) = existing {
                    if existing.org_id != h.org_id {
                        return Err(StorageError::Conflict("hold id"));
                    }
                    return Ok(ReserveOutcome::Existing(existing));
                }
                if bal.spendable() < h.amount {
                    return Ok(ReserveOutcome::Insufficient { need: h.amount, spendable: bal.spendable() });
                }
                let (hold, _) = apply_reserve(&mut tx, &bal, &h, 0).await?;
                tx.commit().await?;
                Ok(ReserveOutcome::Reserved(hold))
            }

            async fn settle(&self, org_id: &str, hold_id: &str, now: DateTime<Utc>) -> Result<ResolveOutcome, StorageError> {
                self.resolve(org_id, hold_id, now, true).await
            }

            async fn release(&self, org_id: &str, hold_id: &str, now: DateTime<Utc>) -> Result<ResolveOutcome, StorageError> {
                self.resolve(org_id, hold_id, now, false).await
            }

            async fn balance(&self, org_id: &str) -> Result<BalanceRow, StorageError> {
                let row: Option<BalanceRow> = sqlx::query_as(
                    "SELECT grant_tokens, topup_tokens, held, settled, credited, job_event_seq FROM balances WHERE org_id = $1",
                )
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.unwrap_or_default())
            }

            async fn hold(&self, org_id: &str, hold_id: &str) -> Result<Option<HoldRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", hold_columns!(), " FROM holds WHERE id = $1 AND org_id = $2"))
                    .bind(hold_id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn open_holds(&self, org_id: &str) -> Result<Vec<HoldRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", hold_columns!(), " FROM holds WHERE org_id = $1 AND status = 'held' ORDER BY created_at, id"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn audit(&self, org_id: &str) -> Result<LedgerAudit, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT CAST(COALESCE(SUM(grant_delta), 0) AS BIGINT) AS grant_tokens, \
                            CAST(COALESCE(SUM(topup_delta), 0) AS BIGINT) AS topup_tokens, \
                            CAST(COALESCE(SUM(held_delta), 0) AS BIGINT) AS held, \
                            CAST(COALESCE(SUM(settled_delta), 0) AS BIGINT) AS settled, \
                            CAST(COALESCE(SUM(credited_delta), 0) AS BIGINT) AS credited, \
                            COUNT(*) AS entries \
                     FROM ledger_entries WHERE org_id = $1",
                )
                .bind(org_id)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn insert_checkout(&self, c: CheckoutRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                insert_checkout_in(&mut tx, &c).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn checkout_created(&self, reference: &str, provider_id: Option<&str>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let status = if provider_id.is_some() { "open" } else { "failed" };
                sqlx::query("UPDATE billing_checkouts SET provider_id = $1, status = $2 WHERE reference = $3 AND status = 'open'")
                    .bind(provider_id)
                    .bind(status)
                    .bind(reference)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn checkout(&self, reference: &str) -> Result<Option<CheckoutRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1"))
                    .bind(reference)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn billing_account(&self, org_id: &str) -> Result<Option<BillingAccountRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", account_columns!(), " FROM billing_accounts WHERE org_id = $1"))
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn save_autocharge(&self, s: AutochargeSettings) -> Result<BillingAccountRow, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "INSERT INTO billing_accounts (org_id, has_card, autocharge_enabled, threshold_tokens, refill_pack, \
                     monthly_cap_cents, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (org_id) DO UPDATE SET autocharge_enabled = excluded.autocharge_enabled, \
                     threshold_tokens = excluded.threshold_tokens, refill_pack = excluded.refill_pack, \
                     monthly_cap_cents = excluded.monthly_cap_cents, updated_at = excluded.updated_at \
                     RETURNING ", account_columns!()
                ))
                .bind(&s.org_id)
                .bind(false)
                .bind(s.enabled)
                .bind(s.threshold_tokens)
                .bind(&s.refill_pack)
                .bind(s.monthly_cap_cents)
                .bind(s.now)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn reserve_autocharge(&self, r: NewAutocharge) -> Result<AutochargeOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                // The balance row lock serialises this against every ledger write and every
                // other reservation of the house, on any replica.
                let bal = lock_balance(&mut tx, &r.org_id).await?;
                let account: Option<BillingAccountRow> =
                    sqlx::query_as(concat!("SELECT ", account_columns!(), " FROM billing_accounts WHERE org_id = $1"))
                        .bind(&r.org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let Some(account) = account.filter(|a| a.autocharge_enabled) else {
                    return Ok(AutochargeOutcome::Refused("disabled"));
                };
                let Some(customer_id) = account.customer_id.clone().filter(|_| account.has_card) else {
                    return Ok(AutochargeOutcome::Refused("no_card"));
                };
                let pack = account.refill_pack.as_deref().and_then(|slug| r.packs.iter().find(|p| p.slug == slug));
                let Some(pack) = pack else {
                    return Ok(AutochargeOutcome::Refused("pack_unavailable"));
                };
                let (recent,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
                     AND status <> 'failed' AND created_at >= $2",
                )
                .bind(&r.org_id)
                .bind(r.debounce_since)
                .fetch_one(&mut *tx)
                .await?;
                if recent > 0 {
                    return Ok(AutochargeOutcome::Refused("debounced"));
                }
                let spent = autocharge_spent_in(&mut tx, &r.org_id, r.month_start).await?;
                if spent + pack.price_cents > account.monthly_cap_cents {
                    return Ok(AutochargeOutcome::Refused("monthly_cap"));
                }
                if bal.spendable() >= account.threshold_tokens {
                    return Ok(AutochargeOutcome::Refused("above_threshold"));
                }
                let charge = CheckoutRow {
                    reference: r.reference.clone(),
                    org_id: r.org_id.clone(),
                    user_id: r.user_id.clone(),
                    kind: "autocharge".to_string(),
                    item: pack.slug.clone(),
                    tokens: pack.tokens,
                    amount_cents: pack.price_cents,
                    grant_cap: None,
                    status: "open".to_string(),
                    provider_id: None,
                    payment_id: None,
                    created_at: r.now,
                    paid_at: None,
                };
                insert_checkout_in(&mut tx, &charge).await?;
                tx.commit().await?;
                Ok(AutochargeOutcome::Reserved { charge: Box::new(charge), customer_id })
            }

            async fn autocharge_charged(&self, reference: &str, payment_id: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE billing_checkouts SET status = 'charged', payment_id = $1 WHERE reference = $2 AND status = 'open'",
                )
                .bind(payment_id)
                .bind(reference)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn autocharge_failed(&self, reference: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE billing_checkouts SET status = 'failed' WHERE reference = $1 AND status = 'open'")
                    .bind(reference)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn autocharges(&self, org_id: &str, limit: i64) -> Result<Vec<CheckoutRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
                     AND status <> 'failed' ORDER BY created_at DESC, reference DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn autocharge_spent(&self, org_id: &str, since: DateTime<Utc>) -> Result<i64, StorageError> {
                let mut tx = self.pool.begin().await?;
                let spent = autocharge_spent_in(&mut tx, org_id, since).await?;
                tx.commit().await?;
                Ok(spent)
            }

            async fn apply_payment(&self, p: NewPayment) -> Result<PaymentOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let fresh = sqlx::query(
                    "INSERT INTO billing_webhooks (webhook_id, event_type, reference, received_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (webhook_id) DO NOTHING",
                )
                .bind(&p.webhook_id)
                .bind(&p.event_type)
                .bind(&p.reference)
                .bind(p.now)
                .execute(&mut *tx)
                .await?;
                if fresh.rows_affected() == 0 {
                    return Ok(PaymentOutcome::Duplicate);
                }
                if p.event_type != crate::payments::PAYMENT_SUCCEEDED {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::Ignored("event_type"));
                }
                let checkout: Option<CheckoutRow> = match &p.reference {
                    Some(reference) => sqlx::query_as(concat!(
                        "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1", $lock
                    ))
                    .bind(reference)
                    .fetch_optional(&mut *tx)
                    .await?,
                    None => None,
                };
                let Some(checkout) = checkout else {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::Ignored("unknown_reference"));
                };
                let bal = lock_balance(&mut tx, &checkout.org_id).await?;
                // One grant per one-off purchase; a subscription grants once per payment (renewals).
                let grant_key = match (checkout.kind.as_str(), &p.payment_id) {
                    ("subscription", Some(payment)) => format!("{}:{payment}", checkout.reference),
                    _ => checkout.reference.clone(),
                };
                let (bucket, tokens) = match checkout.grant_cap {
                    Some(cap) if checkout.kind == "subscription" => {
                        (Bucket::Grant, checkout.tokens.min(cap - bal.grant_tokens).max(0))
                    }
                    _ => (Bucket::Topup, checkout.tokens),
                };
                let first = sqlx::query(
                    "INSERT INTO billing_grants (grant_key, org_id, reference, payment_id, tokens, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (grant_key) DO NOTHING",
                )
                .bind(&grant_key)
                .bind(&checkout.org_id)
                .bind(&checkout.reference)
                .bind(&p.payment_id)
                .bind(tokens)
                .bind(p.now)
                .execute(&mut *tx)
                .await?;
                if first.rows_affected() == 0 {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::AlreadyGranted);
                }
                let balance = if tokens > 0 {
                    let credit = NewCredit {
                        org_id: checkout.org_id.clone(),
                        bucket,
                        amount: tokens,
                        user_id: checkout.user_id.clone(),
                        reason: format!("{} {} ({})", checkout.kind, checkout.item, checkout.reference),
                        expires_at: None,
                        now: p.now,
                    };
                    apply_credit(&mut tx, &credit).await?
                } else {
                    bal
                };
                sqlx::query(
                    "UPDATE billing_checkouts SET status = 'paid', paid_at = COALESCE(paid_at, $1), \
                     payment_id = COALESCE(payment_id, $2) WHERE reference = $3",
                )
                .bind(p.now)
                .bind(&p.payment_id)
                .bind(&checkout.reference)
                .execute(&mut *tx)
                .await?;
                if let Some(customer) = &p.customer_id {
                    sqlx::query(
                        "INSERT INTO billing_accounts (org_id, customer_id, has_card, updated_at) VALUES ($1, $2, $3, $4) \
                         ON CONFLICT (org_id) DO UPDATE SET customer_id = excluded.customer_id, has_card = excluded.has_card, \
                         updated_at = excluded.updated_at",
                    )
                    .bind(&checkout.org_id)
                    .bind(customer)
                    .bind(true)
                    .bind(p.now)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(PaymentOutcome::Granted { org_id: checkout.org_id, tokens, bucket, balance })
            }
        }

        impl $ty {
            /// Settle (`charge`) or release a hold exactly once.
            async fn resolve(&self, org_id: &str, hold_id: &str, now: DateTime<Utc>, charge: bool) -> Result<ResolveOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                lock_balance(&mut tx, org_id).await?;
                let (outcome, _) = resolve_in(&mut tx, org_id, hold_id, now, charge, 0).await?;
                if matches!(outcome, ResolveOutcome::Resolved(_)) {
                    tx.commit().await?;
                }
                Ok(outcome)
            }
        }

        /// Group commit of develop submits (see `group_commit.rs`): the queue's drain task.
        impl $ty {
            /// Run a house's queued submits, as many per transaction as are waiting, until none are.
            async fn drain_job_queue(self, org_id: String) {
                let mut guard = DrainGuard::new(&self.job_queue, &org_id);
                while let Some(group) = guard.next_group() {
                    let answered = group.len();
                    self.run_group(group).await;
                    guard.await_followers(answered).await;
                }
            }

            /// Run one group: together, or (when it is one call, or the shared transaction
            /// failed) call by call.
            async fn run_group(&self, group: Vec<PendingJobs>) {
                if group.len() > 1 {
                    let calls: Vec<(Vec<JobRow>, Option<TakeRecord>)> =
                        group.iter().map(|p| (p.jobs.clone(), p.take.clone())).collect();
                    if let Ok(outcomes) = self.create_jobs_together(calls).await {
                        for (p, outcome) in group.into_iter().zip(outcomes) {
                            let _ = p.reply.send(Ok(outcome));
                        }
                        return;
                    }
                    // One call failed the shared transaction (nothing of it was written): run
                    // each alone, so only that call sees its error.
                }
                for p in group {
                    let outcome = self.create_jobs_alone(p.jobs, p.take).await;
                    let _ = p.reply.send(outcome);
                }
            }

            /// One call in its own transaction; written only when its jobs were created.
            async fn create_jobs_alone(&self, jobs: Vec<JobRow>, take: Option<TakeRecord>) -> Result<CreateJobsOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let mut bal = lock_balance(&mut tx, &jobs[0].org_id).await?;
                let outcome = create_jobs_in(&mut tx, &mut bal, jobs, take).await?;
                if matches!(outcome, CreateJobsOutcome::Created(_)) {
                    tx.commit().await?;
                }
                Ok(outcome)
            }

            /// Several calls of one house in one transaction, in order, its balance row locked
            /// once. A refused call writes nothing, so the others' outcomes stand.
            async fn create_jobs_together(&self, calls: Vec<(Vec<JobRow>, Option<TakeRecord>)>) -> Result<Vec<CreateJobsOutcome>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                let org_id = calls[0].0[0].org_id.clone();
                let before = lock_balance(&mut tx, &org_id).await?;
                let mut bal = before.clone();
                let mut writes = GroupWrites::default();
                let mut outcomes = Vec::with_capacity(calls.len());
                for (jobs, take) in calls {
                    match prior_jobs(&mut tx, &jobs[0], &take).await? {
                        Some(prior) => outcomes.push(prior),
                        None => outcomes.push(writes.plan(&mut bal, jobs, take)),
                    }
                }
                writes.flush(&mut tx, &org_id, &before, &bal).await?;
                tx.commit().await?;
                Ok(outcomes)
            }
        }

        /// Take a hold inside a write transaction whose balance row is locked (`bal` is its
        /// current value and covers the amount): the grant bucket first, then top-up.
        async fn apply_reserve(tx: &mut Tx, bal: &BalanceRow, h: &NewHold, seq_delta: i64) -> Result<(HoldRow, BalanceRow), StorageError> {
            let (from_grant, from_topup) = split_hold(bal, h.amount);
            let hold = HoldRow {
                id: h.id.clone(),
                org_id: h.org_id.clone(),
                amount: h.amount,
                from_grant,
                from_topup,
                generation_id: h.generation_id.clone(),
                status: "held".to_string(),
                created_at: h.now,
                resolved_at: None,
            };
            sqlx::query(
                "INSERT INTO holds (id, org_id, amount, from_grant, from_topup, generation_id, status, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, 'held', $7)",
            )
            .bind(&hold.id)
            .bind(&hold.org_id)
            .bind(hold.amount)
            .bind(from_grant)
            .bind(from_topup)
            .bind(&hold.generation_id)
            .bind(h.now)
            .execute(&mut **tx)
            .await?;
            let entry = Entry {
                org_id: &h.org_id,
                kind: "reserve",
                grant_delta: -from_grant,
                topup_delta: -from_topup,
                held_delta: h.amount,
                settled_delta: 0,
                credited_delta: 0,
                hold_id: Some(&h.id),
                user_id: h.user_id.as_deref(),
                reason: None,
                expires_at: None,
                now: h.now,
                seq_delta,
            };
            let after = apply_entry(tx, &entry).await?;
            Ok((hold, after))
        }

        /// What a group of submits writes, gathered so that each table takes one multi-row
        /// statement at the end: holds, ledger entries, jobs and takes records, and the house's
        /// running totals moved once. The balance is planned in memory against the row the
        /// group locked, so the totals written equal the entries' sums.
        #[derive(Default)]
        struct GroupWrites {
            holds: Vec<HoldRow>,
            jobs: Vec<JobRow>,
            takes: Vec<(TakeRecord, String, DateTime<Utc>)>,
        }

        impl GroupWrites {
            /// Plan one call against its house's balance (`bal`, moved in memory): a shortfall
            /// plans nothing.
            fn plan(&mut self, bal: &mut BalanceRow, jobs: Vec<JobRow>, take: Option<TakeRecord>) -> CreateJobsOutcome {
                let need: i64 = jobs.iter().map(|j| j.tokens).sum();
                if bal.spendable() < need {
                    return CreateJobsOutcome::Insufficient { need, spendable: bal.spendable() };
                }
                let mut created = Vec::with_capacity(jobs.len());
                for mut job in jobs {
                    let (from_grant, from_topup) = split_hold(bal, job.tokens);
                    bal.grant_tokens -= from_grant;
                    bal.topup_tokens -= from_topup;
                    bal.held += job.tokens;
                    bal.job_event_seq += 1;
                    self.holds.push(HoldRow {
                        id: job.hold_id.clone(),
                        org_id: job.org_id.clone(),
                        amount: job.tokens,
                        from_grant,
                        from_topup,
                        generation_id: Some(job.id.clone()),
                        status: "held".to_string(),
                        created_at: job.created_at,
                        resolved_at: None,
                    });
                    job.event_seq = bal.job_event_seq;
                    job.status = "queued".to_string();
                    created.push(job);
                }
                if let Some(take) = take {
                    let ids: Vec<&str> = created.iter().map(|j| j.id.as_str()).collect();
                    self.takes.push((take, serde_json::to_string(&ids).unwrap_or_default(), created[0].created_at));
                }
                self.jobs.extend(created.iter().cloned());
                CreateJobsOutcome::Created(created)
            }

            /// Write what was planned, moving the house's totals from `before` (as locked) to
            /// `after` (as planned). With `$one_statement` (PostgreSQL) every write is one
            /// statement, the inserts in data-modifying CTEs beside the totals' UPDATE, so the
            /// group holds the house's lock for one round trip instead of four.
            async fn flush(self, tx: &mut Tx, org_id: &str, before: &BalanceRow, after: &BalanceRow) -> Result<(), StorageError> {
                if self.holds.is_empty() {
                    return Ok(());
                }
                let entry = Entry {
                    org_id,
                    kind: "reserve",
                    grant_delta: after.grant_tokens - before.grant_tokens,
                    topup_delta: after.topup_tokens - before.topup_tokens,
                    held_delta: after.held - before.held,
                    settled_delta: 0,
                    credited_delta: 0,
                    hold_id: None,
                    user_id: None,
                    reason: None,
                    expires_at: None,
                    now: Utc::now(),
                    seq_delta: after.job_event_seq - before.job_event_seq,
                };
                if $one_statement {
                    let mut q = sqlx::QueryBuilder::new("WITH h AS (");
                    self.push_holds(&mut q);
                    q.push("), l AS (");
                    self.push_reserves(&mut q);
                    q.push("), j AS (");
                    self.push_jobs(&mut q);
                    if !self.takes.is_empty() {
                        q.push("), t AS (");
                        self.push_takes(&mut q);
                    }
                    q.push(") ");
                    push_move_totals(&mut q, &entry);
                    let written: BalanceRow =
                        q.build_query_as().fetch_one(&mut **tx).await.map_err(unique_as("idempotency or take key"))?;
                    debug_assert_eq!(&written, after);
                    return Ok(());
                }
                let mut q = sqlx::QueryBuilder::new("");
                self.push_holds(&mut q);
                q.build().execute(&mut **tx).await?;
                let mut q = sqlx::QueryBuilder::new("");
                self.push_reserves(&mut q);
                q.build().execute(&mut **tx).await?;
                let written = move_totals(tx, &entry).await?;
                debug_assert_eq!(&written, after);
                let mut q = sqlx::QueryBuilder::new("");
                self.push_jobs(&mut q);
                q.build().execute(&mut **tx).await.map_err(unique_as("idempotency key"))?;
                if !self.takes.is_empty() {
                    let mut q = sqlx::QueryBuilder::new("");
                    self.push_takes(&mut q);
                    q.build().execute(&mut **tx).await.map_err(unique_as("take key"))?;
                }
                Ok(())
            }

            /// `INSERT INTO holds` of every planned hold.
            fn push_holds<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push("INSERT INTO holds (id, org_id, amount, from_grant, from_topup, generation_id, status, created_at) ");
                q.push_values(&self.holds, |mut b, h| {
                    b.push_bind(&h.id)
                        .push_bind(&h.org_id)
                        .push_bind(h.amount)
                        .push_bind(h.from_grant)
                        .push_bind(h.from_topup)
                        .push_bind(&h.generation_id)
                        .push_bind("held")
                        .push_bind(h.created_at);
                });
            }

            /// `INSERT INTO ledger_entries` of every planned hold's `reserve` entry.
            fn push_reserves<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                let users: std::collections::HashMap<&str, Option<&str>> =
                    self.jobs.iter().map(|j| (j.hold_id.as_str(), j.user_id.as_deref())).collect();
                q.push(
                    "INSERT INTO ledger_entries (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, \
                     credited_delta, hold_id, user_id, reason, expires_at, created_at) ",
                );
                q.push_values(&self.holds, |mut b, h| {
                    b.push_bind(crate::ids::new_id("led"))
                        .push_bind(&h.org_id)
                        .push_bind("reserve")
                        .push_bind(-h.from_grant)
                        .push_bind(-h.from_topup)
                        .push_bind(h.amount)
                        .push_bind(0i64)
                        .push_bind(0i64)
                        .push_bind(&h.id)
                        .push_bind(users.get(h.id.as_str()).copied().flatten())
                        .push_bind(None::<&str>)
                        .push_bind(None::<DateTime<Utc>>)
                        .push_bind(h.created_at);
                });
            }

            /// `INSERT INTO jobs` of every planned job.
            fn push_jobs<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push(concat!("INSERT INTO jobs (", job_columns!(), ") "));
                q.push_values(&self.jobs, |mut b, job| {
                    b.push_bind(&job.id)
                        .push_bind(&job.org_id)
                        .push_bind(&job.user_id)
                        .push_bind(&job.tool)
                        .push_bind(&job.quality)
                        .push_bind(&job.params)
                        .push_bind(&job.inputs)
                        .push_bind(&job.status)
                        .push_bind(&job.hold_id)
                        .push_bind(job.tokens)
                        .push_bind(job.tokens_settled)
                        .push_bind(&job.idempotency_key)
                        .push_bind(&job.brand_id)
                        .push_bind(&job.run_id)
                        .push_bind(&job.look_id)
                        .push_bind(&job.stage)
                        .push_bind(&job.source_job_id)
                        .push_bind(&job.retry_of_job_id)
                        .push_bind(&job.result_asset_id)
                        .push_bind(&job.error)
                        .push_bind(job.event_seq)
                        .push_bind(job.attempts)
                        .push_bind(job.claimed_at)
                        .push_bind(job.created_at)
                        .push_bind(job.started_at)
                        .push_bind(job.finished_at);
                });
            }

            /// `INSERT INTO take_requests` of every planned takes record.
            fn push_takes<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push("INSERT INTO take_requests (user_id, idempotency_key, source_ids, job_ids, created_at) ");
                q.push_values(&self.takes, |mut b, (take, job_ids, at)| {
                    b.push_bind(&take.user_id)
                        .push_bind(&take.idempotency_key)
                        .push_bind(&take.source_ids)
                        .push_bind(job_ids)
                        .push_bind(*at);
                });
            }
        }

        /// The query builder of this backend.
        type QueryBuilder<'a> = sqlx::QueryBuilder<'a, Db>;

        /// [`move_totals`] as the tail of a statement `q` is building.
        fn push_move_totals<'a>(q: &mut QueryBuilder<'a>, e: &Entry<'a>) {
            q.push("UPDATE balances SET grant_tokens = grant_tokens + ")
                .push_bind(e.grant_delta)
                .push(", topup_tokens = topup_tokens + ")
                .push_bind(e.topup_delta)
                .push(", held = held + ")
                .push_bind(e.held_delta)
                .push(", settled = settled + ")
                .push_bind(e.settled_delta)
                .push(", credited = credited + ")
                .push_bind(e.credited_delta)
                .push(", updated_at = ")
                .push_bind(e.now)
                .push(", job_event_seq = job_event_seq + ")
                .push_bind(e.seq_delta)
                .push(" WHERE org_id = ")
                .push_bind(e.org_id)
                .push(" RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq");
        }

        /// How a hold of `amount` splits over the buckets: the grant bucket first, then top-up.
        fn split_hold(bal: &BalanceRow, amount: i64) -> (i64, i64) {
            let from_grant = bal.grant_tokens.min(amount);
            (from_grant, amount - from_grant)
        }

        /// An earlier call with the same idempotency key: its jobs, or `KeyReused` for a takes
        /// key reused for other frames. None when the call is new.
        async fn prior_jobs(tx: &mut Tx, first: &JobRow, take: &Option<TakeRecord>) -> Result<Option<CreateJobsOutcome>, StorageError> {
            if let Some(take) = &take {
                let prior: Option<(String, String)> = sqlx::query_as(
                    "SELECT source_ids, job_ids FROM take_requests WHERE user_id = $1 AND idempotency_key = $2",
                )
                .bind(&take.user_id)
                .bind(&take.idempotency_key)
                .fetch_optional(&mut **tx)
                .await?;
                if let Some((source_ids, job_ids)) = prior {
                    if source_ids != take.source_ids {
                        return Ok(Some(CreateJobsOutcome::KeyReused));
                    }
                    let ids: Vec<String> = serde_json::from_str(&job_ids).unwrap_or_default();
                    let mut existing = Vec::with_capacity(ids.len());
                    for id in ids {
                        let row: Option<JobRow> = sqlx::query_as(concat!("SELECT ", job_columns!(), " FROM jobs WHERE id = $1"))
                            .bind(&id)
                            .fetch_optional(&mut **tx)
                            .await?;
                        existing.extend(row);
                    }
                    return Ok(Some(CreateJobsOutcome::Existing(existing)));
                }
            } else if let (Some(user_id), Some(key)) = (&first.user_id, &first.idempotency_key) {
                let prior: Option<JobRow> = sqlx::query_as(concat!(
                    "SELECT ", job_columns!(), " FROM jobs WHERE user_id = $1 AND idempotency_key = $2"
                ))
                .bind(user_id)
                .bind(key)
                .fetch_optional(&mut **tx)
                .await?;
                if let Some(prior) = prior {
                    return Ok(Some(CreateJobsOutcome::Existing(vec![prior])));
                }
            }
            Ok(None)
        }

        /// Hold and queue one call's jobs in a transaction that holds the house's balance row
        /// (`bal`, kept current): an earlier identical call's jobs, a reused takes key or a
        /// shortfall write nothing.
        async fn create_jobs_in(tx: &mut Tx, bal: &mut BalanceRow, jobs: Vec<JobRow>, take: Option<TakeRecord>) -> Result<CreateJobsOutcome, StorageError> {
            let org_id = jobs[0].org_id.clone();
            if let Some(prior) = prior_jobs(tx, &jobs[0], &take).await? {
                return Ok(prior);
            }
            let need: i64 = jobs.iter().map(|j| j.tokens).sum();
            if bal.spendable() < need {
                return Ok(CreateJobsOutcome::Insufficient { need, spendable: bal.spendable() });
            }
            let mut created = Vec::with_capacity(jobs.len());
            for mut job in jobs {
                let hold = NewHold {
                    id: job.hold_id.clone(),
                    org_id: org_id.clone(),
                    amount: job.tokens,
                    generation_id: Some(job.id.clone()),
                    user_id: job.user_id.clone(),
                    now: job.created_at,
                };
                *bal = apply_reserve(tx, bal, &hold, 1).await?.1;
                job.event_seq = bal.job_event_seq;
                job.status = "queued".to_string();
                sqlx::query(concat!(
                    "INSERT INTO jobs (", job_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                     $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)"
                ))
                .bind(&job.id)
                .bind(&job.org_id)
                .bind(&job.user_id)
                .bind(&job.tool)
                .bind(&job.quality)
                .bind(&job.params)
                .bind(&job.inputs)
                .bind(&job.status)
                .bind(&job.hold_id)
                .bind(job.tokens)
                .bind(job.tokens_settled)
                .bind(&job.idempotency_key)
                .bind(&job.brand_id)
                .bind(&job.run_id)
                .bind(&job.look_id)
                .bind(&job.stage)
                .bind(&job.source_job_id)
                .bind(&job.retry_of_job_id)
                .bind(&job.result_asset_id)
                .bind(&job.error)
                .bind(job.event_seq)
                .bind(job.attempts)
                .bind(job.claimed_at)
                .bind(job.created_at)
                .bind(job.started_at)
                .bind(job.finished_at)
                .execute(&mut **tx)
                .await
                .map_err(unique_as("idempotency key"))?;
                created.push(job);
            }
            if let Some(take) = &take {
                let job_ids: Vec<&str> = created.iter().map(|j| j.id.as_str()).collect();
                sqlx::query(
                    "INSERT INTO take_requests (user_id, idempotency_key, source_ids, job_ids, created_at) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&take.user_id)
                .bind(&take.idempotency_key)
                .bind(&take.source_ids)
                .bind(serde_json::to_string(&job_ids).unwrap_or_default())
                .bind(created[0].created_at)
                .execute(&mut **tx)
                .await
                .map_err(unique_as("take key"))?;
            }
            Ok(CreateJobsOutcome::Created(created))
        }

        /// Settle or release a hold inside a write transaction whose balance row is locked.
        async fn resolve_in(tx: &mut Tx, org_id: &str, hold_id: &str, now: DateTime<Utc>, charge: bool, seq_delta: i64) -> Result<(ResolveOutcome, i64), StorageError> {
            let hold: Option<HoldRow> = sqlx::query_as(concat!(
                "SELECT ", hold_columns!(), " FROM holds WHERE id = $1 AND org_id = $2", $lock
            ))
            .bind(hold_id)
            .bind(org_id)
            .fetch_optional(&mut **tx)
            .await?;
            let Some(mut hold) = hold else { return Ok((ResolveOutcome::NotFound, 0)) };
            if hold.status() != HoldStatus::Held {
                return Ok((ResolveOutcome::AlreadyResolved(hold), 0));
            }
            let status = if charge { "settled" } else { "released" };
            let updated = sqlx::query("UPDATE holds SET status = $1, resolved_at = $2 WHERE id = $3 AND status = 'held'")
                .bind(status)
                .bind(now)
                .bind(hold_id)
                .execute(&mut **tx)
                .await?;
            if updated.rows_affected() != 1 {
                return Ok((ResolveOutcome::AlreadyResolved(hold), 0));
            }
            let entry = Entry {
                org_id,
                kind: status,
                grant_delta: if charge { 0 } else { hold.from_grant },
                topup_delta: if charge { 0 } else { hold.from_topup },
                held_delta: -hold.amount,
                settled_delta: if charge { hold.amount } else { 0 },
                credited_delta: 0,
                hold_id: Some(hold_id),
                user_id: None,
                reason: None,
                expires_at: None,
                now,
                seq_delta,
            };
            let after = apply_entry(tx, &entry).await?;
            hold.status = status.to_string();
            hold.resolved_at = Some(now);
            Ok((ResolveOutcome::Resolved(hold), after.job_event_seq))
        }

        /// The house's next job event number (its balance row must be locked).
        async fn next_event_seq(tx: &mut Tx, org_id: &str) -> Result<i64, StorageError> {
            let (seq,): (i64,) = sqlx::query_as(
                "UPDATE balances SET job_event_seq = job_event_seq + 1 WHERE org_id = $1 RETURNING job_event_seq",
            )
            .bind(org_id)
            .fetch_one(&mut **tx)
            .await?;
            Ok(seq)
        }

        /// Insert an asset row inside a transaction.
        async fn insert_asset_in(tx: &mut Tx, a: &AssetRow) -> Result<(), StorageError> {
            sqlx::query(concat!(
                "INSERT INTO assets (", asset_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
                 $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"
            ))
            .bind(&a.id)
            .bind(&a.org_id)
            .bind(&a.created_by)
            .bind(&a.name)
            .bind(&a.sku)
            .bind(&a.kind)
            .bind(&a.folder_id)
            .bind(&a.group_id)
            .bind(&a.fit)
            .bind(&a.wearer)
            .bind(a.fit_guessed)
            .bind(a.wearer_guessed)
            .bind(a.carries_mark)
            .bind(a.mark_guessed)
            .bind(&a.mime)
            .bind(&a.tool)
            .bind(&a.blob_key)
            .bind(&a.sha256)
            .bind(a.bytes)
            .bind(a.width)
            .bind(a.height)
            .bind(&a.approved_by)
            .bind(a.approved_at)
            .bind(a.created_at)
            .bind(a.deleted_at)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Insert a checkout row inside a transaction.
        async fn insert_checkout_in(tx: &mut Tx, c: &CheckoutRow) -> Result<(), StorageError> {
            sqlx::query(concat!(
                "INSERT INTO billing_checkouts (", checkout_columns!(), ") \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            ))
            .bind(&c.reference)
            .bind(&c.org_id)
            .bind(&c.user_id)
            .bind(&c.kind)
            .bind(&c.item)
            .bind(c.tokens)
            .bind(c.amount_cents)
            .bind(c.grant_cap)
            .bind(&c.status)
            .bind(&c.provider_id)
            .bind(&c.payment_id)
            .bind(c.created_at)
            .bind(c.paid_at)
            .execute(&mut **tx)
            .await
            .map_err(unique_as("checkout reference"))?;
            Ok(())
        }

        /// Cents of a house's auto top-up charges (not failed) since a time.
        async fn autocharge_spent_in(tx: &mut Tx, org_id: &str, since: DateTime<Utc>) -> Result<i64, StorageError> {
            let (spent,): (i64,) = sqlx::query_as(
                "SELECT CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) FROM billing_checkouts \
                 WHERE org_id = $1 AND kind = 'autocharge' AND status <> 'failed' AND created_at >= $2",
            )
            .bind(org_id)
            .bind(since)
            .fetch_one(&mut **tx)
            .await?;
            Ok(spent)
        }

        /// Lock (PostgreSQL) and read a house's running totals inside a write transaction,
        /// creating the row if the house has none yet.
        async fn lock_balance(tx: &mut Tx, org_id: &str) -> Result<BalanceRow, StorageError> {
            // PostgreSQL: lock the row without writing it (the common case: it exists). SQLite
            // starts with the write: a transaction that reads first cannot write later if
            // another connection wrote in between (SQLITE_BUSY_SNAPSHOT, which no busy timeout
            // waits out).
            if $lock_by_select {
                let locked: Option<BalanceRow> = sqlx::query_as(concat!(
                    "SELECT grant_tokens, topup_tokens, held, settled, credited, job_event_seq FROM balances WHERE org_id = $1",
                    $lock
                ))
                .bind(org_id)
                .fetch_optional(&mut **tx)
                .await?;
                if let Some(row) = locked {
                    return Ok(row);
                }
            }
            // Create the row if missing and lock it in one statement (PostgreSQL takes the row
            // lock for ON CONFLICT DO UPDATE just as for FOR UPDATE).
            Ok(sqlx::query_as(
                "INSERT INTO balances (org_id, updated_at) VALUES ($1, $2) \
                 ON CONFLICT (org_id) DO UPDATE SET org_id = excluded.org_id \
                 RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq",
            )
            .bind(org_id)
            .bind(chrono::Utc::now())
            .fetch_one(&mut **tx)
            .await?)
        }

        /// Append a credit entry and raise the totals.
        async fn apply_credit(tx: &mut Tx, c: &NewCredit) -> Result<BalanceRow, StorageError> {
            lock_balance(tx, &c.org_id).await?;
            let (grant_delta, topup_delta, kind) = match c.bucket {
                Bucket::Grant => (c.amount, 0, "grant"),
                Bucket::Topup => (0, c.amount, "topup"),
            };
            let entry = Entry {
                org_id: &c.org_id,
                kind,
                grant_delta,
                topup_delta,
                held_delta: 0,
                settled_delta: 0,
                credited_delta: c.amount,
                hold_id: None,
                user_id: c.user_id.as_deref(),
                reason: Some(&c.reason),
                expires_at: c.expires_at,
                now: c.now,
                seq_delta: 0,
            };
            apply_entry(tx, &entry).await
        }

        /// Append one ledger entry and move the running totals by the same deltas.
        async fn apply_entry(tx: &mut Tx, e: &Entry<'_>) -> Result<BalanceRow, StorageError> {
            sqlx::query(
                "INSERT INTO ledger_entries (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, \
                 credited_delta, hold_id, user_id, reason, expires_at, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(crate::ids::new_id("led"))
            .bind(e.org_id)
            .bind(e.kind)
            .bind(e.grant_delta)
            .bind(e.topup_delta)
            .bind(e.held_delta)
            .bind(e.settled_delta)
            .bind(e.credited_delta)
            .bind(e.hold_id)
            .bind(e.user_id)
            .bind(e.reason)
            .bind(e.expires_at)
            .bind(e.now)
            .execute(&mut **tx)
            .await?;
            move_totals(tx, e).await
        }

        /// Move a house's running totals (and eventSeq) by an entry's deltas; the new totals.
        async fn move_totals(tx: &mut Tx, e: &Entry<'_>) -> Result<BalanceRow, StorageError> {
            Ok(sqlx::query_as(
                "UPDATE balances SET grant_tokens = grant_tokens + $1, topup_tokens = topup_tokens + $2, \
                 held = held + $3, settled = settled + $4, credited = credited + $5, updated_at = $6, \
                 job_event_seq = job_event_seq + $8 \
                 WHERE org_id = $7 RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq",
            )
            .bind(e.grant_delta)
            .bind(e.topup_delta)
            .bind(e.held_delta)
            .bind(e.settled_delta)
            .bind(e.credited_delta)
            .bind(e.now)
            .bind(e.org_id)
            .bind(e.seq_delta)
            .fetch_one(&mut **tx)
            .await?)
        }
    };
}

/// The columns of `api_keys` in [`KeyRow`](super::KeyRow) order.
macro_rules! key_columns {
    () => {
        "id, org_id, created_by, name, role, prefix, secret_hash, last_used_at, revoked_at, created_at"
    };
}

/// The columns of `assets` in [`AssetRow`](super::AssetRow) order.
macro_rules! asset_columns {
    () => {
        "id, org_id, created_by, name, sku, kind, folder_id, group_id, fit, wearer, fit_guessed, wearer_guessed, \
         carries_mark, mark_guessed, mime, tool, blob_key, sha256, bytes, width, height, approved_by, approved_at, \
         created_at, deleted_at"
    };
}

/// The columns of `packs` in [`PackRow`](super::PackRow) order.
macro_rules! pack_columns {
    () => {
        "id, org_id, created_by, filename, asset_ids, sizes, mode, status, items, bytes, seconds, blob_key, error, \
         attempts, created_at, claimed_at, ready_at, expires_at"
    };
}

/// The columns of `models` in [`ModelRow`](super::ModelRow) order.
macro_rules! model_columns {
    () => {
        "id, org_id, created_by, name, asset_ids, traits, created_at"
    };
}

/// The columns of `jobs` in [`JobRow`](super::JobRow) order.
macro_rules! job_columns {
    () => {
        "id, org_id, user_id, tool, quality, params, inputs, status, hold_id, tokens, tokens_settled, idempotency_key, \
         brand_id, run_id, look_id, stage, source_job_id, retry_of_job_id, result_asset_id, error, event_seq, attempts, \
         claimed_at, created_at, started_at, finished_at"
    };
}

/// The columns of `holds` in [`HoldRow`](super::HoldRow) order.
macro_rules! hold_columns {
    () => {
        "id, org_id, amount, from_grant, from_topup, generation_id, status, created_at, resolved_at"
    };
}

/// The columns of `billing_checkouts` in [`CheckoutRow`](super::CheckoutRow) order.
macro_rules! checkout_columns {
    () => {
        "reference, org_id, user_id, kind, item, tokens, amount_cents, grant_cap, status, provider_id, payment_id, \
         created_at, paid_at"
    };
}

/// The columns of `billing_accounts` in [`BillingAccountRow`](super::BillingAccountRow) order.
macro_rules! account_columns {
    () => {
        "org_id, customer_id, has_card, autocharge_enabled, threshold_tokens, refill_pack, monthly_cap_cents, updated_at"
    };
}

pub(super) use {
    account_columns, asset_columns, checkout_columns, hold_columns, impl_storage, job_columns, key_columns,
    model_columns, pack_columns,
};

/// One ledger entry's deltas; the running totals move by exactly these.
pub(super) struct Entry<'a> {
    pub(super) org_id: &'a str,
    pub(super) kind: &'a str,
    pub(super) grant_delta: i64,
    pub(super) topup_delta: i64,
    pub(super) held_delta: i64,
    pub(super) settled_delta: i64,
    pub(super) credited_delta: i64,
    pub(super) hold_id: Option<&'a str>,
    pub(super) user_id: Option<&'a str>,
    pub(super) reason: Option<&'a str>,
    pub(super) expires_at: Option<chrono::DateTime<chrono::Utc>>,
    pub(super) now: chrono::DateTime<chrono::Utc>,
    /// 1 when the entry also records a job state change: the house's eventSeq moves with it.
    pub(super) seq_delta: i64,
}

/// Map a unique-constraint violation to `Conflict(what)`; other errors pass through.
pub(super) fn unique_as(what: &'static str) -> impl Fn(sqlx::Error) -> super::StorageError {
    move |e| match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => super::StorageError::Conflict(what),
        _ => super::StorageError::Database(e),
    }
}

/// Both backends' check that `ledger_entries` refuses UPDATE and DELETE (the triggers fire):
/// `execute` runs one raw statement on the backend's pool.
#[cfg(test)]
pub(super) async fn assert_ledger_append_only<F, Fut>(storage: &dyn super::Storage, execute: F)
where
    F: Fn(&'static str) -> Fut,
    Fut: std::future::Future<Output = Result<u64, sqlx::Error>>,
{
    let now = chrono::Utc::now();
    let user = super::UserRow {
        id: "usr_t".into(),
        email: "t@example.com".into(),
        name: None,
        password_hash: None,
        created_at: now,
    };
    let org = super::OrgRow { id: "org_t".into(), name: "T".into(), created_at: now };
    storage.create_account(super::NewAccount { user, org, grant_tokens: 5 }).await.expect("account");
    assert_eq!(storage.audit("org_t").await.expect("audit").entries, 1);
    for statement in ["UPDATE ledger_entries SET grant_delta = 500", "DELETE FROM ledger_entries"] {
        let refused = execute(statement).await;
        assert!(refused.is_err_and(|e| e.to_string().contains("append-only")), "{statement} must be refused");
    }
    assert_eq!(storage.audit("org_t").await.expect("audit").grant_tokens, 5);
}

/// Many concurrent submits to one storage (so the group commit takes several per transaction):
/// the balance never goes below zero, the totals equal the ledger's sums, every created job has
/// exactly one hold and its own eventSeq, and a key used by several calls at once creates one job.
#[cfg(test)]
pub(super) async fn assert_grouped_submits(storage: std::sync::Arc<dyn super::Storage>) {
    use super::{CreateJobsOutcome, JobRow};
    use chrono::SubsecRound;
    // Microseconds: what PostgreSQL keeps of a timestamp.
    let now = chrono::Utc::now().trunc_subsecs(6);
    let user = super::UserRow {
        id: "usr_g".into(),
        email: "g@example.com".into(),
        name: None,
        password_hash: None,
        created_at: now,
    };
    let org = super::OrgRow { id: "org_g".into(), name: "G".into(), created_at: now };
    storage.create_account(super::NewAccount { user, org, grant_tokens: 100 }).await.expect("account");
    let job = move |i: usize, key: Option<&str>| JobRow {
        id: format!("job_g{i}"),
        org_id: "org_g".into(),
        user_id: Some("usr_g".into()),
        tool: "upscale".into(),
        quality: "1k".into(),
        params: "{}".into(),
        inputs: "[]".into(),
        status: "queued".into(),
        hold_id: format!("hold_job_g{i}"),
        tokens: 9,
        tokens_settled: None,
        idempotency_key: key.map(str::to_string),
        brand_id: None,
        run_id: None,
        look_id: None,
        stage: None,
        source_job_id: None,
        retry_of_job_id: None,
        result_asset_id: None,
        error: None,
        event_seq: 0,
        attempts: 0,
        claimed_at: None,
        created_at: now,
        started_at: None,
        finished_at: None,
    };
    // 30 calls for 9 tokens each against 100 tokens; two idempotency keys are shared.
    let calls = (0..30).map(|i| {
        // "first-key" is also the first call's, which runs alone; the calls sharing "late-key"
        // land in one group, whose transaction then fails on the duplicate and is rerun call by
        // call.
        let key = if i % 6 == 0 { Some("first-key") } else { (i % 7 == 3).then_some("late-key") };
        let (storage, row) = (storage.clone(), job(i, key));
        tokio::spawn(async move { storage.create_jobs(vec![row], None).await.expect("create") })
    });
    let calls: Vec<_> = calls.collect(); // all in flight at once
    let mut created = Vec::new();
    let (mut keyed, mut short) = (std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new(), 0);
    for call in calls {
        match call.await.expect("task") {
            CreateJobsOutcome::Created(jobs) => {
                if let Some(key) = &jobs[0].idempotency_key {
                    keyed.entry(key.clone()).or_default().insert(jobs[0].id.clone());
                }
                created.extend(jobs);
            }
            CreateJobsOutcome::Existing(jobs) => {
                let key = jobs[0].idempotency_key.clone().expect("only keyed calls replay");
                keyed.entry(key).or_default().insert(jobs[0].id.clone());
            }
            CreateJobsOutcome::Insufficient { need, spendable } => {
                assert_eq!(need, 9);
                assert!(spendable < 9, "refused with {spendable} spendable");
                short += 1;
            }
            CreateJobsOutcome::KeyReused => panic!("no takes here"),
        }
    }
    assert_eq!(created.len(), 11, "100 tokens hold eleven frames of 9");
    assert!(keyed.values().all(|ids| ids.len() == 1), "one job per shared key: {keyed:?}");
    assert!(short >= 30 - 11 - 5 - 4, "the rest were refused");
    let mut seqs: Vec<i64> = created.iter().map(|j| j.event_seq).collect();
    seqs.sort();
    assert_eq!(seqs, (1..=11).collect::<Vec<_>>(), "one eventSeq per job");
    let balance = storage.balance("org_g").await.expect("balance");
    let audit = storage.audit("org_g").await.expect("audit");
    assert_eq!((balance.grant_tokens, balance.held, balance.job_event_seq), (1, 99, 11));
    assert_eq!((audit.grant_tokens, audit.held, audit.credited, audit.entries), (1, 99, 100, 12));
    for j in &created {
        let stored = storage.job("org_g", &j.id).await.expect("job").expect("stored");
        assert_eq!(&stored, j, "the job as answered is the job as stored");
    }
}
