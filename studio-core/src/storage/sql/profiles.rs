//! The SQL of profiles, memories, onboarding, intake, tool access, the people list and the
//! account page's usage reads ([`ProfileStore`](crate::storage::ProfileStore)).

macro_rules! impl_profile_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ProfileStore for $ty {
            async fn profile(&self, user_id: &UserId) -> Result<Option<ProfileRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, email, name, created_at, email_verified_at, avatar_key, avatar_version, platform_admin \
                     FROM users WHERE id = $1 AND erased_at IS NULL",
                )
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn set_user_name(&self, user_id: &UserId, name: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE users SET name = $1 WHERE id = $2").bind(name).bind(user_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn set_email_verified(&self, user_id: &UserId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE users SET email_verified_at = COALESCE(email_verified_at, $1) WHERE id = $2")
                    .bind(now)
                    .bind(user_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn share_house(&self, a: &UserId, b: &UserId) -> Result<bool, StorageError> {
                let row: Option<(String,)> = sqlx::query_as(
                    "SELECT x.org_id FROM memberships x JOIN memberships y ON y.org_id = x.org_id \
                     WHERE x.user_id = $1 AND y.user_id = $2 LIMIT 1",
                )
                .bind(a)
                .bind(b)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.is_some())
            }

            async fn set_avatar(&self, user_id: &UserId, key: Option<&str>) -> Result<Option<String>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let old: Option<(Option<String>,)> =
                    sqlx::query_as(concat!("SELECT avatar_key FROM users WHERE id = $1", $lock))
                        .bind(user_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                sqlx::query("UPDATE users SET avatar_key = $1, avatar_version = avatar_version + 1 WHERE id = $2")
                    .bind(key)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(old.and_then(|(k,)| k))
            }

            async fn set_billing_email(&self, org_id: &OrgId, email: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE organizations SET billing_email = $1 WHERE id = $2")
                    .bind(email)
                    .bind(org_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn billing_email(&self, org_id: &OrgId) -> Result<Option<String>, StorageError> {
                let row: Option<(Option<String>,)> =
                    sqlx::query_as("SELECT billing_email FROM organizations WHERE id = $1")
                        .bind(org_id)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.and_then(|(e,)| e))
            }

            async fn workflow_usage(
                &self,
                org_id: &OrgId,
                since: DateTime<Utc>,
            ) -> Result<Vec<WorkflowUsageRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT tool AS workflow, CAST(COALESCE(SUM(tokens_settled), 0) AS BIGINT) AS tokens, \
                     COUNT(*) AS runs, MAX(finished_at) AS last_at FROM jobs \
                     WHERE org_id = $1 AND status = 'done' AND finished_at >= $2 GROUP BY tool \
                     ORDER BY tokens DESC, workflow",
                )
                .bind(org_id)
                .bind(since)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn settled_since(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError> {
                let (n,): (i64,) = sqlx::query_as(
                    "SELECT CAST(COALESCE(SUM(settled_delta), 0) AS BIGINT) FROM ledger_entries \
                     WHERE org_id = $1 AND kind = 'settled' AND created_at >= $2",
                )
                .bind(org_id)
                .bind(since)
                .fetch_one(&self.pool)
                .await?;
                Ok(n)
            }

            async fn current_plan(&self, org_id: &OrgId) -> Result<Option<PlanRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT c.reference, c.item, c.tokens, c.amount_cents, MAX(g.created_at) AS last_paid_at, \
                     c.canceled_at FROM billing_checkouts c JOIN billing_grants g ON g.reference = c.reference \
                     WHERE c.org_id = $1 AND c.kind = 'subscription' AND c.status = 'paid' \
                     GROUP BY c.reference, c.item, c.tokens, c.amount_cents, c.canceled_at \
                     ORDER BY last_paid_at DESC LIMIT 1",
                )
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn cancel_plan(&self, org_id: &OrgId, reference: &str, now: DateTime<Utc>) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE billing_checkouts SET canceled_at = COALESCE(canceled_at, $1) \
                     WHERE reference = $2 AND org_id = $3 AND kind = 'subscription'",
                )
                .bind(now)
                .bind(reference)
                .bind(org_id)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn invoices(&self, org_id: &OrgId, limit: i64) -> Result<Vec<CheckoutRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE org_id = $1 AND status = 'paid' \
                     ORDER BY paid_at DESC, reference DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn write_memory(&self, m: MemoryRow, replaces: Option<&str>) -> Result<MemoryWrite, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                if let Some(prev) = replaces {
                    let done = sqlx::query(
                        "UPDATE memories SET status = 'corrected', updated_at = $1 WHERE id = $2 AND org_id = $3 \
                         AND scope = $4 AND status = 'active' AND (scope = 'house' OR user_id = $5)",
                    )
                    .bind(m.created_at)
                    .bind(prev)
                    .bind(&m.org_id)
                    .bind(&m.scope)
                    .bind(&m.created_by)
                    .execute(&mut *tx)
                    .await?;
                    if done.rows_affected() != 1 {
                        tx.rollback().await?;
                        return Ok(MemoryWrite::PredecessorNotActive);
                    }
                }
                sqlx::query(concat!(
                    "INSERT INTO memories (", memory_columns!(), ") \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
                ))
                .bind(&m.id)
                .bind(&m.org_id)
                .bind(&m.scope)
                .bind(&m.user_id)
                .bind(&m.memory_class)
                .bind(&m.kind)
                .bind(&m.statement)
                .bind(m.confidence)
                .bind(&m.status)
                .bind(m.evidence_count)
                .bind(&m.supersedes_id)
                .bind(m.projected)
                .bind(&m.created_by)
                .bind(m.created_at)
                .bind(m.updated_at)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(MemoryWrite::Stored)
            }

            async fn memories(&self, org_id: &OrgId, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", memory_columns!(), " FROM memories WHERE org_id = $1 \
                     AND (scope = 'house' OR user_id = $2) ORDER BY created_at DESC, id DESC"
                ))
                .bind(org_id)
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn personal_memories(&self, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", memory_columns!(), " FROM memories WHERE user_id = $1 AND scope = 'person' \
                     ORDER BY created_at, id"
                ))
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn retire_memory(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                id: &MemoryId,
                now: DateTime<Utc>,
            ) -> Result<Option<MemoryRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE memories SET status = 'retired', updated_at = $1 WHERE id = $2 AND org_id = $3 \
                     AND status = 'active' AND (scope = 'house' OR user_id = $4) RETURNING ",
                    memory_columns!()
                ))
                .bind(now)
                .bind(id)
                .bind(org_id)
                .bind(user_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn onboarding_steps(&self, user_id: &UserId) -> Result<Vec<(String, DateTime<Utc>)>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT step, completed_at FROM onboarding_steps WHERE user_id = $1 ORDER BY completed_at, step",
                )
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn complete_onboarding_step(
                &self,
                user_id: &UserId,
                step: &str,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "INSERT INTO onboarding_steps (user_id, step, completed_at) VALUES ($1, $2, $3) \
                     ON CONFLICT (user_id, step) DO NOTHING",
                )
                .bind(user_id)
                .bind(step)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn onboarding_counts(&self) -> Result<Vec<(String, i64)>, StorageError> {
                Ok(sqlx::query_as("SELECT step, COUNT(*) FROM onboarding_steps GROUP BY step ORDER BY step")
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn record_intake(
                &self,
                id: &IntakeId,
                user_id: &UserId,
                org_id: &OrgId,
                answers: &str,
                now: DateTime<Utc>,
            ) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO intake_answers (id, user_id, org_id, answers, created_at) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(id)
                .bind(user_id)
                .bind(org_id)
                .bind(answers)
                .bind(now)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn intakes(
                &self,
                user_id: &UserId,
            ) -> Result<Vec<(String, String, String, DateTime<Utc>)>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, org_id, answers, created_at FROM intake_answers WHERE user_id = $1 \
                     ORDER BY created_at, id",
                )
                .bind(user_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn grant_tool_access(&self, g: ToolGrantRow) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let live: Option<(String,)> = sqlx::query_as(
                    "SELECT id FROM tool_grants WHERE revoked_at IS NULL \
                     AND COALESCE(user_id, '') = COALESCE($1, '') AND COALESCE(email, '') = COALESCE($2, '') \
                     AND COALESCE(toolkit_id, '') = COALESCE($3, '') AND COALESCE(tool_id, '') = COALESCE($4, '')",
                )
                .bind(&g.user_id)
                .bind(&g.email)
                .bind(&g.toolkit_id)
                .bind(&g.tool_id)
                .fetch_optional(&mut *tx)
                .await?;
                if live.is_some() {
                    tx.rollback().await?;
                    return Ok(false);
                }
                sqlx::query(
                    "INSERT INTO tool_grants (id, user_id, email, toolkit_id, tool_id, granted_by, created_at, revoked_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(&g.id)
                .bind(&g.user_id)
                .bind(&g.email)
                .bind(&g.toolkit_id)
                .bind(&g.tool_id)
                .bind(&g.granted_by)
                .bind(g.created_at)
                .bind(g.revoked_at)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn revoke_tool_access(
                &self,
                user_id: Option<&UserId>,
                email: Option<&str>,
                what: $crate::storage::GrantedTool<'_>,
                now: DateTime<Utc>,
            ) -> Result<i64, StorageError> {
                let (toolkit_id, tool_id) = match what {
                    $crate::storage::GrantedTool::Toolkit(k) => (Some(k), None),
                    $crate::storage::GrantedTool::Tool(t) => (None, Some(t)),
                };
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE tool_grants SET revoked_at = $1 WHERE revoked_at IS NULL \
                     AND (user_id = $2 OR email = $3) \
                     AND COALESCE(toolkit_id, '') = COALESCE($4, '') AND COALESCE(tool_id, '') = COALESCE($5, '')",
                )
                .bind(now)
                .bind(user_id)
                .bind(email)
                .bind(toolkit_id)
                .bind(tool_id)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() as i64)
            }

            async fn tool_grants(&self, user_id: &UserId, email: &str) -> Result<Vec<ToolGrantRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT g.id, g.user_id, g.email, g.toolkit_id, g.tool_id, g.granted_by, g.created_at, g.revoked_at \
                     FROM tool_grants g WHERE g.revoked_at IS NULL AND (g.user_id = $1 OR (g.email = $2 AND EXISTS \
                     (SELECT 1 FROM users u WHERE u.id = $1 AND u.email = $2 AND u.email_verified_at IS NOT NULL))) \
                     ORDER BY g.created_at, g.id",
                )
                .bind(user_id)
                .bind(email)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn tool_items(&self, tool_id: &ToolId) -> Result<Vec<ToolItemRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, tool_id, category, title_he, label_he, content_en, image_url, notes_he, sort_order, \
                     created_at FROM tool_items WHERE tool_id = $1 ORDER BY category, sort_order, created_at, id",
                )
                .bind(tool_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn insert_tool_item(&self, i: ToolItemRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO tool_items (id, tool_id, category, title_he, label_he, content_en, image_url, notes_he, \
                     sort_order, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&i.id)
                .bind(&i.tool_id)
                .bind(&i.category)
                .bind(&i.title_he)
                .bind(&i.label_he)
                .bind(&i.content_en)
                .bind(&i.image_url)
                .bind(&i.notes_he)
                .bind(i.sort_order)
                .bind(i.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn delete_tool_item(&self, id: &ToolItemId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM tool_items WHERE id = $1").bind(id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn list_users(
                &self,
                query: Option<&str>,
                limit: i64,
                after: Option<(DateTime<Utc>, String)>,
            ) -> Result<Vec<UserListRow>, StorageError> {
                // What the admin typed is matched literally: `%`, `_` and `\` are escaped.
                let pattern = query.map(|q| {
                    let q = q.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
                    format!("%{q}%")
                });
                let (after_at, after_id) = match after {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(
                    "SELECT u.id, u.email, u.name, u.created_at, u.email_verified_at, u.platform_admin, \
                     (SELECT COUNT(*) FROM memberships m WHERE m.user_id = u.id) AS houses FROM users u \
                     WHERE u.erased_at IS NULL \
                     AND ($1 IS NULL OR LOWER(u.email) LIKE $1 ESCAPE '\\' \
                     OR LOWER(COALESCE(u.name, '')) LIKE $1 ESCAPE '\\') \
                     AND ($2 IS NULL OR u.created_at < $2 OR (u.created_at = $2 AND u.id < $3)) \
                     ORDER BY u.created_at DESC, u.id DESC LIMIT $4",
                )
                .bind(pattern)
                .bind(after_at)
                .bind(after_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_profile_store;
