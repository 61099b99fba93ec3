//! The SQL of profiles, memories, onboarding, intake, tool access, the people list and the
//! account page's usage reads ([`ProfileStore`](crate::storage::ProfileStore)). Every statement
//! is declared in [`q`] (see stmt.rs).

/// The profiles' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::api::MemoryStatus;
    use crate::ids::{IntakeId, MemoryId, OrgId, ToolId, ToolItemId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{checkout_columns, memory_columns};
    use crate::storage::{
        CheckoutRow, MemoryRow, PlanRow, ProfileRow, ToolGrantRow, ToolItemRow, UserListRow, WorkflowUsageRow,
    };

    statements! {
        /// A person's profile, unless erased.
        fn profile(id: &'q UserId) -> row<ProfileRow> [any "a person's own profile; a person is not per house"] {
            "SELECT id, email, name, created_at, email_verified_at, avatar_key, avatar_version, platform_admin \
             FROM users WHERE id = $1 AND erased_at IS NULL"
        }

        /// Set a person's display name.
        fn set_user_name(name: &'q str, id: &'q UserId) -> exec [any "a person's own name; a person is not per house"] {
            "UPDATE users SET name = $1 WHERE id = $2"
        }

        /// Mark a person's address proven (once: the first time stays).
        fn set_email_verified(email_verified_at: DateTime<Utc>, id: &'q UserId) -> exec [any "a person's own address; a person is not per house"] {
            "UPDATE users SET email_verified_at = COALESCE(email_verified_at, $1) WHERE id = $2"
        }

        /// A house two people both sit in, if any.
        fn shared_house(user_id: &'q UserId, other_user_id: &'q UserId) -> scalar<String> [any "asks across the houses two people sit in whether one is common"] {
            "SELECT x.org_id FROM memberships x JOIN memberships y ON y.org_id = x.org_id \
             WHERE x.user_id = $1 AND $2 = y.user_id LIMIT 1"
        }

        /// A person's avatar key, locked (PostgreSQL) to be replaced.
        fn avatar_key(id: &'q UserId) -> scalar<Option<String>> [any "a person's own avatar; a person is not per house", lock] {
            "SELECT avatar_key FROM users WHERE id = $1"
        }

        /// Set a person's avatar key and bump its version.
        fn set_avatar(avatar_key: Option<&'q str>, id: &'q UserId) -> exec [any "a person's own avatar; a person is not per house"] {
            "UPDATE users SET avatar_key = $1, avatar_version = avatar_version + 1 WHERE id = $2"
        }

        /// Set a house's billing address.
        fn set_billing_email(billing_email: &'q str, id: &'q OrgId) -> exec [any "the row is the caller's house itself, named by its id (organizations has no org_id column)"] {
            "UPDATE organizations SET billing_email = $1 WHERE id = $2"
        }

        /// A house's billing address.
        fn billing_email(id: &'q OrgId) -> scalar<Option<String>> [any "the row is the caller's house itself, named by its id (organizations has no org_id column)"] {
            "SELECT billing_email FROM organizations WHERE id = $1"
        }

        /// Tokens each workflow of a house settled in jobs finished since `finished_at`.
        fn workflow_usage(org_id: &'q OrgId, finished_at: DateTime<Utc>) -> row<WorkflowUsageRow> [house] {
            "SELECT tool AS workflow, CAST(COALESCE(SUM(tokens_settled), 0) AS BIGINT) AS tokens, \
             COUNT(*) AS runs, MAX(finished_at) AS last_at FROM jobs \
             WHERE org_id = $1 AND status = 'done' AND finished_at >= $2 GROUP BY tool \
             ORDER BY tokens DESC, workflow"
        }

        /// Tokens a house settled since `created_at`.
        fn settled_since(org_id: &'q OrgId, created_at: DateTime<Utc>) -> scalar<i64> [house] {
            "SELECT CAST(COALESCE(SUM(settled_delta), 0) AS BIGINT) FROM ledger_entries \
             WHERE org_id = $1 AND kind = 'settled' AND created_at >= $2"
        }

        /// A house's latest paid subscription and its latest payment.
        fn current_plan(org_id: &'q OrgId) -> row<PlanRow> [house] {
            "SELECT c.reference, c.item, c.tokens, c.amount_cents, MAX(g.created_at) AS last_paid_at, \
             c.canceled_at FROM billing_checkouts c JOIN billing_grants g ON g.reference = c.reference \
             WHERE c.org_id = $1 AND c.kind = 'subscription' AND c.status = 'paid' \
             GROUP BY c.reference, c.item, c.tokens, c.amount_cents, c.canceled_at \
             ORDER BY last_paid_at DESC LIMIT 1"
        }

        /// Cancel a house's subscription (once: the first cancellation time stays).
        fn cancel_plan(canceled_at: DateTime<Utc>, reference: &'q str, org_id: &'q OrgId) -> exec [house] {
            "UPDATE billing_checkouts SET canceled_at = COALESCE(canceled_at, $1) \
             WHERE reference = $2 AND org_id = $3 AND kind = 'subscription'"
        }

        /// A house's paid checkouts, newest first.
        fn invoices(org_id: &'q OrgId, limit: i64) -> row<CheckoutRow> [house] {
            "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE org_id = $1 AND status = 'paid' \
             ORDER BY paid_at DESC, reference DESC LIMIT $2"
        }

        /// Mark an active memory of a house corrected, if its writer may see it.
        fn correct_memory(updated_at: DateTime<Utc>, id: &'q str, org_id: &'q OrgId, scope: &'q str, user_id: &'q UserId) -> exec [house] {
            "UPDATE memories SET status = 'corrected', updated_at = $1 WHERE id = $2 AND org_id = $3 \
             AND scope = $4 AND status = 'active' AND (scope = 'house' OR user_id = $5)"
        }

        /// Write a memory.
        fn insert_memory(
            id: &'q MemoryId,
            org_id: &'q OrgId,
            scope: &'q str,
            user_id: Option<&'q UserId>,
            memory_class: &'q str,
            kind: &'q str,
            statement: &'q str,
            confidence: f64,
            status: MemoryStatus,
            evidence_count: i64,
            supersedes_id: Option<&'q str>,
            projected: bool,
            created_by: &'q UserId,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO memories (", memory_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        }

        /// The memories of a house a person may see (the house's and their own), newest first.
        fn memories(org_id: &'q OrgId, user_id: &'q UserId) -> row<MemoryRow> [house] {
            "SELECT ", memory_columns!(), " FROM memories WHERE org_id = $1 \
             AND (scope = 'house' OR user_id = $2) ORDER BY created_at DESC, id DESC"
        }

        /// A person's personal memories in every house, oldest first.
        fn personal_memories(user_id: &'q UserId) -> row<MemoryRow> [any "a person's own memories, across the houses they sit in (their data export)"] {
            "SELECT ", memory_columns!(), " FROM memories WHERE user_id = $1 AND scope = 'person' \
             ORDER BY created_at, id"
        }

        /// Retire an active memory of a house a person may see.
        fn retire_memory(updated_at: DateTime<Utc>, id: &'q MemoryId, org_id: &'q OrgId, user_id: &'q UserId) -> row<MemoryRow> [house] {
            "UPDATE memories SET status = 'retired', updated_at = $1 WHERE id = $2 AND org_id = $3 \
             AND status = 'active' AND (scope = 'house' OR user_id = $4) RETURNING ",
            memory_columns!()
        }

        /// The onboarding steps a person completed, in order.
        fn onboarding_steps(user_id: &'q UserId) -> row<(String, DateTime<Utc>)> [any "a person's own onboarding; onboarding_steps has no house"] {
            "SELECT step, completed_at FROM onboarding_steps WHERE user_id = $1 ORDER BY completed_at, step"
        }

        /// Record a person's onboarding step, once.
        fn complete_onboarding_step(user_id: &'q UserId, step: &'q str, completed_at: DateTime<Utc>) -> exec [any "a person's own onboarding; onboarding_steps has no house"] {
            "INSERT INTO onboarding_steps (user_id, step, completed_at) VALUES ($1, $2, $3) \
             ON CONFLICT (user_id, step) DO NOTHING"
        }

        /// How many people completed each onboarding step.
        fn onboarding_counts() -> row<(String, i64)> [any "the admins' count over every person"] {
            "SELECT step, COUNT(*) FROM onboarding_steps GROUP BY step ORDER BY step"
        }

        /// Record a person's intake answers, in a house.
        fn record_intake(id: &'q IntakeId, user_id: &'q UserId, org_id: &'q OrgId, answers: &'q str, created_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO intake_answers (id, user_id, org_id, answers, created_at) VALUES ($1, $2, $3, $4, $5)"
        }

        /// A person's intake answers in every house, oldest first.
        fn intakes(user_id: &'q UserId) -> row<(String, String, String, DateTime<Utc>)> [any "a person's own answers, across the houses they sit in (their data export)"] {
            "SELECT id, org_id, answers, created_at FROM intake_answers WHERE user_id = $1 \
             ORDER BY created_at, id"
        }

        /// A live grant of the same toolkit or tool to the same person or address, if any.
        fn live_tool_grant(user_id: Option<&'q UserId>, email: Option<&'q str>, toolkit_id: Option<&'q str>, tool_id: Option<&'q str>) -> scalar<String> [any "tool grants are a person's or an address's, not a house's"] {
            "SELECT id FROM tool_grants WHERE revoked_at IS NULL \
             AND COALESCE(user_id, '') = COALESCE($1, '') AND COALESCE(email, '') = COALESCE($2, '') \
             AND COALESCE(toolkit_id, '') = COALESCE($3, '') AND COALESCE(tool_id, '') = COALESCE($4, '')"
        }

        /// Write a tool grant.
        fn insert_tool_grant(
            id: &'q str,
            user_id: Option<&'q UserId>,
            email: Option<&'q str>,
            toolkit_id: Option<&'q str>,
            tool_id: Option<&'q str>,
            granted_by: &'q str,
            created_at: DateTime<Utc>,
            revoked_at: Option<DateTime<Utc>>,
        ) -> exec [any "tool grants are a person's or an address's, not a house's"] {
            "INSERT INTO tool_grants (id, user_id, email, toolkit_id, tool_id, granted_by, created_at, revoked_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// Revoke the live grants of a toolkit or tool to a person or an address.
        fn revoke_tool_access(
            revoked_at: DateTime<Utc>,
            user_id: Option<&'q UserId>,
            email: Option<&'q str>,
            toolkit_id: Option<&'q str>,
            tool_id: Option<&'q str>,
        ) -> exec [any "tool grants are a person's or an address's, not a house's"] {
            "UPDATE tool_grants SET revoked_at = $1 WHERE revoked_at IS NULL \
             AND (user_id = $2 OR email = $3) \
             AND COALESCE(toolkit_id, '') = COALESCE($4, '') AND COALESCE(tool_id, '') = COALESCE($5, '')"
        }

        /// A person's live grants: to them (`user_id`), or to their address once they (`id`, the
        /// same person) have proven it.
        fn tool_grants(user_id: &'q UserId, email: &'q str, id: &'q UserId) -> row<ToolGrantRow> [any "tool grants are a person's or an address's, not a house's"] {
            "SELECT g.id, g.user_id, g.email, g.toolkit_id, g.tool_id, g.granted_by, g.created_at, g.revoked_at \
             FROM tool_grants g WHERE g.revoked_at IS NULL AND (g.user_id = $1 OR (g.email = $2 AND EXISTS \
             (SELECT 1 FROM users u WHERE u.id = $3 AND u.email = $2 AND u.email_verified_at IS NOT NULL))) \
             ORDER BY g.created_at, g.id"
        }

        /// A tool's library items, in order.
        fn tool_items(tool_id: &'q ToolId) -> row<ToolItemRow> [any "tool items belong to a catalogue tool every house shares"] {
            "SELECT id, tool_id, category, title_he, label_he, content_en, image_url, notes_he, sort_order, \
             created_at FROM tool_items WHERE tool_id = $1 ORDER BY category, sort_order, created_at, id"
        }

        /// Write a tool's library item.
        fn insert_tool_item(
            id: &'q str,
            tool_id: &'q str,
            category: &'q str,
            title_he: Option<&'q str>,
            label_he: Option<&'q str>,
            content_en: Option<&'q str>,
            image_url: Option<&'q str>,
            notes_he: Option<&'q str>,
            sort_order: i64,
            created_at: DateTime<Utc>,
        ) -> exec [any "tool items belong to a catalogue tool every house shares"] {
            "INSERT INTO tool_items (id, tool_id, category, title_he, label_he, content_en, image_url, notes_he, \
             sort_order, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        }

        /// Delete a tool's library item.
        fn delete_tool_item(id: &'q ToolItemId) -> exec [any "tool items belong to a catalogue tool every house shares"] {
            "DELETE FROM tool_items WHERE id = $1"
        }

        /// People (matching a lowercased LIKE `pattern`, or all), newest first, after a cursor.
        fn list_users(pattern: Option<&'q str>, created_at: Option<DateTime<Utc>>, id: Option<&'q str>, limit: i64) -> row<UserListRow> [any "the admins' people list, across every house"] {
            "SELECT u.id, u.email, u.name, u.created_at, u.email_verified_at, u.platform_admin, \
             (SELECT COUNT(*) FROM memberships m WHERE m.user_id = u.id) AS houses FROM users u \
             WHERE u.erased_at IS NULL \
             AND ($1 IS NULL OR LOWER(u.email) LIKE $1 ESCAPE '\\' \
             OR LOWER(COALESCE(u.name, '')) LIKE $1 ESCAPE '\\') \
             AND ($2 IS NULL OR u.created_at < $2 OR (u.created_at = $2 AND u.id < $3)) \
             ORDER BY u.created_at DESC, u.id DESC LIMIT $4"
        }
    }
}

macro_rules! impl_profile_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ProfileStore for $ty {
            async fn profile(&self, user_id: &UserId) -> Result<Option<ProfileRow>, StorageError> {
                Ok(q::profiles::profile(user_id).fetch_optional(&self.pool).await?)
            }

            async fn set_user_name(&self, user_id: &UserId, name: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::profiles::set_user_name(name, user_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn set_email_verified(&self, user_id: &UserId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::profiles::set_email_verified(now, user_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn share_house(&self, a: &UserId, b: &UserId) -> Result<bool, StorageError> {
                let row = q::profiles::shared_house(a, b).fetch_optional(&self.pool).await?;
                Ok(row.is_some())
            }

            async fn set_avatar(&self, user_id: &UserId, key: Option<&str>) -> Result<Option<String>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let old = q::profiles::avatar_key(user_id).fetch_optional(&mut *tx).await?;
                q::profiles::set_avatar(key, user_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(old.flatten())
            }

            async fn set_billing_email(&self, org_id: &OrgId, email: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::profiles::set_billing_email(email, org_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn billing_email(&self, org_id: &OrgId) -> Result<Option<String>, StorageError> {
                Ok(q::profiles::billing_email(org_id).fetch_optional(&self.pool).await?.flatten())
            }

            async fn workflow_usage(
                &self,
                org_id: &OrgId,
                since: DateTime<Utc>,
            ) -> Result<Vec<WorkflowUsageRow>, StorageError> {
                Ok(q::profiles::workflow_usage(org_id, since).fetch_all(&self.pool).await?)
            }

            async fn settled_since(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError> {
                Ok(q::profiles::settled_since(org_id, since).fetch_one(&self.pool).await?)
            }

            async fn current_plan(&self, org_id: &OrgId) -> Result<Option<PlanRow>, StorageError> {
                Ok(q::profiles::current_plan(org_id).fetch_optional(&self.pool).await?)
            }

            async fn cancel_plan(
                &self,
                org_id: &OrgId,
                reference: &str,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::profiles::cancel_plan(now, reference, org_id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn invoices(&self, org_id: &OrgId, limit: i64) -> Result<Vec<CheckoutRow>, StorageError> {
                Ok(q::profiles::invoices(org_id, limit).fetch_all(&self.pool).await?)
            }

            async fn write_memory(&self, m: MemoryRow, replaces: Option<&str>) -> Result<MemoryWrite, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                if let Some(prev) = replaces {
                    let done = q::profiles::correct_memory(m.created_at, prev, &m.org_id, &m.scope, &m.created_by)
                        .execute(&mut *tx)
                        .await?;
                    if done.rows_affected() != 1 {
                        tx.rollback().await?;
                        return Ok(MemoryWrite::PredecessorNotActive);
                    }
                }
                q::profiles::insert_memory(
                    &m.id,
                    &m.org_id,
                    &m.scope,
                    m.user_id.as_ref(),
                    &m.memory_class,
                    &m.kind,
                    &m.statement,
                    m.confidence,
                    m.status,
                    m.evidence_count,
                    m.supersedes_id.as_deref(),
                    m.projected,
                    &m.created_by,
                    m.created_at,
                    m.updated_at,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(MemoryWrite::Stored)
            }

            async fn memories(&self, org_id: &OrgId, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError> {
                Ok(q::profiles::memories(org_id, user_id).fetch_all(&self.pool).await?)
            }

            async fn personal_memories(&self, user_id: &UserId) -> Result<Vec<MemoryRow>, StorageError> {
                Ok(q::profiles::personal_memories(user_id).fetch_all(&self.pool).await?)
            }

            async fn retire_memory(
                &self,
                org_id: &OrgId,
                user_id: &UserId,
                id: &MemoryId,
                now: DateTime<Utc>,
            ) -> Result<Option<MemoryRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::profiles::retire_memory(now, id, org_id, user_id).fetch_optional(&self.pool).await?)
            }

            async fn onboarding_steps(&self, user_id: &UserId) -> Result<Vec<(String, DateTime<Utc>)>, StorageError> {
                Ok(q::profiles::onboarding_steps(user_id).fetch_all(&self.pool).await?)
            }

            async fn complete_onboarding_step(
                &self,
                user_id: &UserId,
                step: &str,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::profiles::complete_onboarding_step(user_id, step, now).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn onboarding_counts(&self) -> Result<Vec<(String, i64)>, StorageError> {
                Ok(q::profiles::onboarding_counts().fetch_all(&self.pool).await?)
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
                q::profiles::record_intake(id, user_id, org_id, answers, now).execute(&self.pool).await?;
                Ok(())
            }

            async fn intakes(
                &self,
                user_id: &UserId,
            ) -> Result<Vec<(String, String, String, DateTime<Utc>)>, StorageError> {
                Ok(q::profiles::intakes(user_id).fetch_all(&self.pool).await?)
            }

            async fn grant_tool_access(&self, g: ToolGrantRow) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let live = q::profiles::live_tool_grant(
                    g.user_id.as_ref(),
                    g.email.as_deref(),
                    g.toolkit_id.as_deref(),
                    g.tool_id.as_deref(),
                )
                .fetch_optional(&mut *tx)
                .await?;
                if live.is_some() {
                    tx.rollback().await?;
                    return Ok(false);
                }
                q::profiles::insert_tool_grant(
                    &g.id,
                    g.user_id.as_ref(),
                    g.email.as_deref(),
                    g.toolkit_id.as_deref(),
                    g.tool_id.as_deref(),
                    &g.granted_by,
                    g.created_at,
                    g.revoked_at,
                )
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
                let done = q::profiles::revoke_tool_access(now, user_id, email, toolkit_id, tool_id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() as i64)
            }

            async fn tool_grants(&self, user_id: &UserId, email: &str) -> Result<Vec<ToolGrantRow>, StorageError> {
                Ok(q::profiles::tool_grants(user_id, email, user_id).fetch_all(&self.pool).await?)
            }

            async fn tool_items(&self, tool_id: &ToolId) -> Result<Vec<ToolItemRow>, StorageError> {
                Ok(q::profiles::tool_items(tool_id).fetch_all(&self.pool).await?)
            }

            async fn insert_tool_item(&self, i: ToolItemRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::profiles::insert_tool_item(
                    &i.id,
                    &i.tool_id,
                    &i.category,
                    i.title_he.as_deref(),
                    i.label_he.as_deref(),
                    i.content_en.as_deref(),
                    i.image_url.as_deref(),
                    i.notes_he.as_deref(),
                    i.sort_order,
                    i.created_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn delete_tool_item(&self, id: &ToolItemId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::profiles::delete_tool_item(id).execute(&self.pool).await?;
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
                Ok(q::profiles::list_users(pattern.as_deref(), after_at, after_id.as_deref(), limit)
                    .fetch_all(&self.pool)
                    .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_profile_store;
