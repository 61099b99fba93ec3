//! The SQL of the internal routes ([`InternalStore`](crate::storage::InternalStore)): replay
//! evidence and its render queue (claimed like packs: one conditional `UPDATE` over a
//! `SKIP LOCKED` pick on PostgreSQL, serialised writers on SQLite; a claim older than the lease
//! is taken over), experiments, flags, autonomy (a revision compared in the `WHERE`), research
//! notes, AI reader outcomes, and the analyst's aggregates (rows in a window; the core buckets
//! them, so no date function differs between backends).

macro_rules! evidence_columns {
    () => {
        "id, job_id, org_id, tool, job_status, snapshot, summary, summary_focus, summarized_at, opened_by, created_at"
    };
}

macro_rules! render_columns {
    () => {
        "id, evidence_id, format, status, attempts, claimed_at, blob_key, mime, bytes, error_code, requested_by, \
         created_at, finished_at"
    };
}

macro_rules! experiment_columns {
    () => {
        "id, key, name, description, status, variants, created_by, created_at, updated_at, started_at, ended_at"
    };
}

macro_rules! flag_columns {
    () => {
        "key, description, active, rollout_percent, updated_by, created_at, updated_at"
    };
}

/// An invite request with the status the admin list derives (`invited` once an invitation
/// exists for the address).
macro_rules! request_select {
    () => {
        "SELECT r.id, r.email, r.name, r.house, r.collection, r.intake, r.links, r.logo_url, r.website, r.created_at, \
         CASE WHEN EXISTS (SELECT 1 FROM invitations i WHERE i.email = r.email) THEN 'invited' ELSE 'pending' END \
         AS status FROM invite_requests r "
    };
}

pub(in crate::storage) use {evidence_columns, experiment_columns, flag_columns, render_columns, request_select};

macro_rules! impl_internal_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::InternalStore for $ty {
            async fn open_evidence(
                &self,
                r: &$crate::storage::EvidenceRow,
            ) -> Result<($crate::storage::EvidenceRow, bool), StorageError> {
                let _w = self.write_lock().await;
                let inserted = sqlx::query(concat!(
                    "INSERT INTO replay_evidence (",
                    $crate::storage::sql::internal::evidence_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (job_id) DO NOTHING"
                ))
                .bind(&r.id)
                .bind(&r.job_id)
                .bind(&r.org_id)
                .bind(&r.tool)
                .bind(&r.job_status)
                .bind(&r.snapshot)
                .bind(&r.summary)
                .bind(&r.summary_focus)
                .bind(r.summarized_at)
                .bind(&r.opened_by)
                .bind(r.created_at)
                .execute(&self.pool)
                .await?
                .rows_affected();
                let row = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::evidence_columns!(),
                    " FROM replay_evidence WHERE job_id = $1"
                ))
                .bind(&r.job_id)
                .fetch_one(&self.pool)
                .await?;
                Ok((row, inserted == 1))
            }

            async fn evidence(&self, id: &EvidenceId) -> Result<Option<$crate::storage::EvidenceRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::evidence_columns!(),
                    " FROM replay_evidence WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn evidence_page(
                &self,
                since: chrono::DateTime<chrono::Utc>,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::EvidenceRow>, StorageError> {
                let (at, id) = before.map_or((None, None), |(a, i)| (Some(a), Some(i)));
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::evidence_columns!(),
                    " FROM replay_evidence WHERE created_at >= $1 \
                     AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
                     ORDER BY created_at DESC, id DESC LIMIT $4"
                ))
                .bind(since)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn summarize_evidence(
                &self,
                id: &EvidenceId,
                focus: &str,
                summary: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let n = sqlx::query(
                    "UPDATE replay_evidence SET summary = $1, summary_focus = $2, summarized_at = $3 WHERE id = $4",
                )
                .bind(summary)
                .bind(focus)
                .bind(now)
                .bind(id)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(n == 1)
            }

            async fn insert_render(&self, r: &$crate::storage::RenderRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO replay_renders (",
                    $crate::storage::sql::internal::render_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                ))
                .bind(&r.id)
                .bind(&r.evidence_id)
                .bind(&r.format)
                .bind(&r.status)
                .bind(r.attempts)
                .bind(r.claimed_at)
                .bind(&r.blob_key)
                .bind(&r.mime)
                .bind(r.bytes)
                .bind(&r.error_code)
                .bind(&r.requested_by)
                .bind(r.created_at)
                .bind(r.finished_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn render(&self, id: &RenderId) -> Result<Option<$crate::storage::RenderRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::render_columns!(),
                    " FROM replay_renders WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn renders_of(&self, evidence_id: &EvidenceId) -> Result<Vec<$crate::storage::RenderRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::render_columns!(),
                    " FROM replay_renders WHERE evidence_id = $1 ORDER BY created_at, id"
                ))
                .bind(evidence_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn claim_render(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                stale_before: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::RenderRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE replay_renders SET status = 'rendering', claimed_at = $1, attempts = attempts + 1 WHERE id = (",
                    "SELECT id FROM replay_renders WHERE status = 'queued' OR (status = 'rendering' AND claimed_at < $2) ",
                    "ORDER BY created_at, id LIMIT 1",
                    $skip_locked,
                    ") AND (status = 'queued' OR (status = 'rendering' AND claimed_at < $2)) RETURNING ",
                    $crate::storage::sql::internal::render_columns!()
                ))
                .bind(now)
                .bind(stale_before)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn complete_render(
                &self,
                id: &RenderId,
                blob_key: &str,
                mime: &str,
                bytes: i64,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let n = sqlx::query(
                    "UPDATE replay_renders SET status = 'complete', blob_key = $1, mime = $2, bytes = $3, \
                     finished_at = $4 WHERE id = $5 AND status = 'rendering'",
                )
                .bind(blob_key)
                .bind(mime)
                .bind(bytes)
                .bind(now)
                .bind(id)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(n == 1)
            }

            async fn fail_render(&self, id: &RenderId, code: &str, now: chrono::DateTime<chrono::Utc>) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let n = sqlx::query(
                    "UPDATE replay_renders SET status = 'failed', error_code = $1, finished_at = $2 \
                     WHERE id = $3 AND status = 'rendering'",
                )
                .bind(code)
                .bind(now)
                .bind(id)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(n == 1)
            }

            async fn insert_experiment(&self, r: &$crate::storage::ExperimentRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO experiments (",
                    $crate::storage::sql::internal::experiment_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                ))
                .bind(&r.id)
                .bind(&r.key)
                .bind(&r.name)
                .bind(&r.description)
                .bind(&r.status)
                .bind(&r.variants)
                .bind(&r.created_by)
                .bind(r.created_at)
                .bind(r.updated_at)
                .bind(r.started_at)
                .bind(r.ended_at)
                .execute(&self.pool)
                .await
                .map_err($crate::storage::sql::unique_as("experiment key"))?;
                Ok(())
            }

            async fn experiment(&self, id: &ExperimentId) -> Result<Option<$crate::storage::ExperimentRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::experiment_columns!(),
                    " FROM experiments WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn experiments(
                &self,
                status: Option<&str>,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::ExperimentRow>, StorageError> {
                let (at, id) = before.map_or((None, None), |(a, i)| (Some(a), Some(i)));
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::experiment_columns!(),
                    " FROM experiments WHERE ($1 IS NULL OR status = $1) \
                     AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
                     ORDER BY created_at DESC, id DESC LIMIT $4"
                ))
                .bind(status)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn move_experiment(
                &self,
                id: &ExperimentId,
                from: &str,
                to: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::ExperimentRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE experiments SET status = $1, updated_at = $2, \
                     started_at = CASE WHEN $1 = 'running' AND started_at IS NULL THEN $2 ELSE started_at END, \
                     ended_at = CASE WHEN $1 IN ('stopped', 'complete') THEN $2 ELSE ended_at END \
                     WHERE id = $3 AND status = $4 RETURNING ",
                    $crate::storage::sql::internal::experiment_columns!()
                ))
                .bind(to)
                .bind(now)
                .bind(id)
                .bind(from)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn put_flag(&self, r: &$crate::storage::FlagRow) -> Result<$crate::storage::FlagRow, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "INSERT INTO feature_flags (",
                    $crate::storage::sql::internal::flag_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (key) DO UPDATE SET \
                     description = excluded.description, active = excluded.active, \
                     rollout_percent = excluded.rollout_percent, updated_by = excluded.updated_by, \
                     updated_at = excluded.updated_at RETURNING ",
                    $crate::storage::sql::internal::flag_columns!()
                ))
                .bind(&r.key)
                .bind(&r.description)
                .bind(r.active)
                .bind(r.rollout_percent)
                .bind(&r.updated_by)
                .bind(r.created_at)
                .bind(r.updated_at)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn flags(
                &self,
                active: Option<bool>,
                limit: i64,
                after: Option<&str>,
            ) -> Result<Vec<$crate::storage::FlagRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::internal::flag_columns!(),
                    " FROM feature_flags WHERE ($1 IS NULL OR active = $1) AND ($2 IS NULL OR key > $2) \
                     ORDER BY key LIMIT $3"
                ))
                .bind(active)
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn autonomy(&self, org_id: &OrgId) -> Result<Option<$crate::storage::AutonomyRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT org_id, level, note, revision, revised_by, revised_at FROM house_autonomy WHERE org_id = $1",
                )
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn revise_autonomy(
                &self,
                r: &$crate::storage::AutonomyRow,
                expected: i64,
            ) -> Result<Option<$crate::storage::AutonomyRow>, StorageError> {
                let _w = self.write_lock().await;
                let columns = "org_id, level, note, revision, revised_by, revised_at";
                let row = if expected == 0 {
                    sqlx::query_as(&format!(
                        "INSERT INTO house_autonomy ({columns}) VALUES ($1, $2, $3, 1, $4, $5) \
                         ON CONFLICT (org_id) DO NOTHING RETURNING {columns}"
                    ))
                    .bind(&r.org_id)
                    .bind(&r.level)
                    .bind(&r.note)
                    .bind(&r.revised_by)
                    .bind(r.revised_at)
                    .fetch_optional(&self.pool)
                    .await?
                } else {
                    sqlx::query_as(&format!(
                        "UPDATE house_autonomy SET level = $1, note = $2, revision = revision + 1, revised_by = $3, \
                         revised_at = $4 WHERE org_id = $5 AND revision = $6 RETURNING {columns}"
                    ))
                    .bind(&r.level)
                    .bind(&r.note)
                    .bind(&r.revised_by)
                    .bind(r.revised_at)
                    .bind(&r.org_id)
                    .bind(expected)
                    .fetch_optional(&self.pool)
                    .await?
                };
                Ok(row)
            }

            async fn house_exists(&self, org_id: &OrgId) -> Result<bool, StorageError> {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM organizations WHERE id = $1")
                    .bind(org_id)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(n > 0)
            }

            async fn invite_request(&self, id: &InviteRequestId) -> Result<Option<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(sqlx::query_as(concat!($crate::storage::sql::internal::request_select!(), "WHERE r.id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn invite_requests_since(
                &self,
                since: chrono::DateTime<chrono::Utc>,
                status: Option<&str>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT * FROM (",
                    $crate::storage::sql::internal::request_select!(),
                    "WHERE r.created_at >= $1) x WHERE ($2 IS NULL OR x.status = $2) \
                     ORDER BY x.created_at DESC, x.id DESC LIMIT $3"
                ))
                .bind(since)
                .bind(status)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn requests_from_domain(
                &self,
                domain: &str,
                except: &str,
            ) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    $crate::storage::sql::internal::request_select!(),
                    "WHERE r.email LIKE $1 AND r.id <> $2 ORDER BY r.created_at DESC, r.id DESC LIMIT 20"
                ))
                .bind(format!("%@{}", domain.replace('%', "").replace('_', "\\_")))
                .bind(except)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn insert_research(&self, r: &$crate::storage::ResearchRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO invite_request_research (id, request_id, findings, created_at) VALUES ($1, $2, $3, $4)",
                )
                .bind(&r.id)
                .bind(&r.request_id)
                .bind(&r.findings)
                .bind(r.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn research_of(&self, request_id: &InviteRequestId) -> Result<Vec<$crate::storage::ResearchRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, request_id, findings, created_at FROM invite_request_research WHERE request_id = $1 \
                     ORDER BY created_at, id",
                )
                .bind(request_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn record_ai_call(&self, r: &$crate::storage::AiCallRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO ai_reader_calls (id, org_id, purpose, outcome, millis, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(&r.id)
                .bind(&r.org_id)
                .bind(&r.purpose)
                .bind(&r.outcome)
                .bind(r.millis)
                .bind(r.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn ai_calls_since(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT purpose AS key, outcome AS detail, millis AS amount, created_at AS at \
                     FROM ai_reader_calls WHERE created_at >= $1", since, None).await
            }

            async fn platform_totals(&self) -> Result<$crate::storage::PlatformTotals, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT (SELECT COUNT(*) FROM organizations) AS houses, \
                     (SELECT COUNT(*) FROM users WHERE erased_at IS NULL) AS people, \
                     (SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL) AS live_keys, \
                     (SELECT COUNT(*) FROM assets WHERE deleted_at IS NULL) AS assets, \
                     (SELECT CAST(COALESCE(SUM(grant_tokens + topup_tokens), 0) AS BIGINT) FROM balances) AS spendable, \
                     (SELECT CAST(COALESCE(SUM(held), 0) AS BIGINT) FROM balances) AS held, \
                     (SELECT CAST(COALESCE(SUM(settled), 0) AS BIGINT) FROM balances) AS settled, \
                     (SELECT CAST(COALESCE(SUM(credited), 0) AS BIGINT) FROM balances) AS credited",
                )
                .fetch_one(&self.pool)
                .await?)
            }

            async fn jobs_by_status_ever(&self) -> Result<Vec<$crate::storage::CountRow>, StorageError> {
                Ok(sqlx::query_as("SELECT status AS key, COUNT(*) AS n FROM jobs GROUP BY status ORDER BY status")
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn funnel(&self, since: chrono::DateTime<chrono::Utc>) -> Result<$crate::storage::FunnelRow, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT COUNT(*) AS signed_up, \
                     COUNT(CASE WHEN EXISTS (SELECT 1 FROM api_keys k WHERE k.created_by = u.id) THEN 1 END) AS first_key, \
                     COUNT(CASE WHEN EXISTS (SELECT 1 FROM assets a WHERE a.created_by = u.id AND a.tool IS NULL) \
                     THEN 1 END) AS first_upload, \
                     COUNT(CASE WHEN EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = u.id) THEN 1 END) AS first_develop, \
                     COUNT(CASE WHEN EXISTS (SELECT 1 FROM billing_checkouts b WHERE b.user_id = u.id \
                     AND b.status = 'paid') THEN 1 END) AS first_purchase \
                     FROM users u WHERE u.created_at >= $1",
                )
                .bind(since)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn develop_stamps(
                &self,
                since: chrono::DateTime<chrono::Utc>,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT tool AS key, status AS detail, tokens AS amount, created_at AS at FROM jobs \
                     WHERE created_at >= $1 AND ($2 IS NULL OR org_id = $2)", since, org_id).await
            }

            async fn upload_stamps(
                &self,
                since: chrono::DateTime<chrono::Utc>,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT 'upload' AS key, kind AS detail, bytes AS amount, created_at AS at FROM assets \
                     WHERE tool IS NULL AND created_at >= $1 AND ($2 IS NULL OR org_id = $2)", since, org_id).await
            }

            async fn pack_stamps(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT 'pack' AS key, status AS detail, items AS amount, created_at AS at FROM packs \
                     WHERE created_at >= $1", since, None).await
            }

            async fn lane_stamps(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT lane AS key, mime AS detail, bytes AS amount, created_at AS at FROM lane_results \
                     WHERE created_at >= $1", since, None).await
            }

            async fn spend_stamps(
                &self,
                org_id: &OrgId,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT 'settled' AS key, status AS detail, amount, resolved_at AS at FROM holds \
                     WHERE status = 'settled' AND resolved_at >= $1 AND org_id = $2", since, Some(org_id)).await
            }

            async fn failure_counts(
                &self,
                since: chrono::DateTime<chrono::Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT tool AS key, COALESCE(error, '') AS detail, COUNT(*) AS amount, MAX(finished_at) AS at \
                     FROM jobs WHERE status = 'failed' AND finished_at >= $1 GROUP BY tool, error \
                     ORDER BY amount DESC, key LIMIT $2",
                )
                .bind(since)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn letter_stamps(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT kind AS key, status AS detail, attempts AS amount, created_at AS at FROM letters \
                     WHERE created_at >= $1", since, None).await
            }

            async fn memory_stamps(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT memory_class AS key, 'created' AS detail, evidence_count AS amount, created_at AS at \
                     FROM memories WHERE created_at >= $1 \
                     UNION ALL SELECT memory_class AS key, status AS detail, evidence_count AS amount, updated_at AS at \
                     FROM memories WHERE status IN ('corrected', 'retired') AND updated_at >= $1", since, None).await
            }

            async fn retake_stamps(&self, since: chrono::DateTime<chrono::Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                self.stamps("SELECT tool AS key, status AS detail, tokens AS amount, created_at AS at FROM jobs \
                     WHERE retry_of_job_id IS NOT NULL AND created_at >= $1", since, None).await
            }
        }

        impl $ty {
            /// Rows of `(key, detail, amount, at)` from `sql`, whose `$1` is the window's start
            /// and `$2` (when it uses one) a house; newest last.
            async fn stamps(
                &self,
                sql: &str,
                since: chrono::DateTime<chrono::Utc>,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                let sql = format!(
                    "SELECT key, detail, CAST(amount AS BIGINT) AS amount, at FROM ({sql}) s ORDER BY at LIMIT 200000"
                );
                let q = sqlx::query_as(&sql).bind(since);
                let q = if sql.contains("$2") { q.bind(org_id) } else { q };
                Ok(q.fetch_all(&self.pool).await?)
            }
        }
    };
}

pub(in crate::storage) use impl_internal_store;
