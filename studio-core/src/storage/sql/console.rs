//! The SQL of the admin console ([`ConsoleStore`](crate::storage::ConsoleStore)): reads across
//! houses (newest first, paged by `(created_at, id)`), the provider cost records and the kept
//! verdicts. Optional filters are bound as typed values (`CAST($n AS TEXT) IS NULL OR …`), so
//! one statement serves every combination on both backends.

/// The columns of `verdicts` in [`VerdictRow`](crate::storage::VerdictRow) order.
macro_rules! verdict_columns {
    () => {
        "id, job_id, frame_id, org_id, tool, model, rubric, score, readable, passed, marks, created_at"
    };
}

pub(in crate::storage) use verdict_columns;

/// The earliest time a filter without `since` reaches.
pub(in crate::storage) fn epoch() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::<chrono::Utc>::from_timestamp(0, 0).unwrap_or_default()
}

macro_rules! impl_console_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ConsoleStore for $ty {
            async fn insert_cost_record(
                &self,
                row: &$crate::storage::CostRecordRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO provider_costs (id, hold_id, org_id, job_id, tool, provider, tokens, cost_usd, \
                     estimated, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                     ON CONFLICT (hold_id) DO NOTHING",
                )
                .bind(&row.id)
                .bind(&row.hold_id)
                .bind(&row.org_id)
                .bind(&row.job_id)
                .bind(&row.tool)
                .bind(&row.provider)
                .bind(row.tokens)
                .bind(row.cost_usd)
                .bind(row.estimated)
                .bind(row.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn settled_holds(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::SettledHoldRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT h.id AS hold_id, h.amount, h.resolved_at, COALESCE(j.tool, c.tool) AS tool, c.cost_usd, \
                     c.estimated FROM holds h LEFT JOIN jobs j ON j.hold_id = h.id \
                     LEFT JOIN provider_costs c ON c.hold_id = h.id \
                     WHERE h.status = 'settled' AND h.resolved_at >= $1 ORDER BY h.resolved_at",
                )
                .bind(since)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn any_job(&self, id: &JobId) -> Result<Option<JobRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", job_columns!(), " FROM jobs WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn console_jobs(
                &self,
                f: &$crate::storage::JobFilter<'_>,
            ) -> Result<Vec<JobRow>, $crate::storage::StorageError> {
                let (at, id) = match f.before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    job_columns!(),
                    " FROM jobs WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
                     AND (CAST($2 AS TEXT) IS NULL OR tool = $2) AND (CAST($3 AS TEXT) IS NULL OR status = $3) \
                     AND created_at >= $4 AND ($5 IS NULL OR created_at < $5 OR (created_at = $5 AND id < $6)) \
                     ORDER BY created_at DESC, id DESC LIMIT $7"
                ))
                .bind(f.org_id)
                .bind(f.tool)
                .bind(f.status)
                .bind(f.since.unwrap_or_else($crate::storage::sql::console::epoch))
                .bind(at)
                .bind(id)
                .bind(f.limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn console_frames(
                &self,
                f: &$crate::storage::FrameFilter<'_>,
            ) -> Result<Vec<AssetRow>, $crate::storage::StorageError> {
                let (at, id) = match f.before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                let origin = f.made.map(|made| if made { "made" } else { "brought" });
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    asset_columns!(),
                    " FROM assets WHERE deleted_at IS NULL AND (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
                     AND (CAST($2 AS TEXT) IS NULL OR tool = $2) \
                     AND (CAST($3 AS TEXT) IS NULL OR ($3 = 'made' AND tool IS NOT NULL) \
                          OR ($3 = 'brought' AND tool IS NULL)) \
                     AND created_at >= $4 AND ($5 IS NULL OR created_at < $5 OR (created_at = $5 AND id < $6)) \
                     ORDER BY created_at DESC, id DESC LIMIT $7"
                ))
                .bind(f.org_id)
                .bind(f.tool)
                .bind(origin)
                .bind(f.since.unwrap_or_else($crate::storage::sql::console::epoch))
                .bind(at)
                .bind(id)
                .bind(f.limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn kept_cost(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::KeptRow>, $crate::storage::StorageError> {
                let rows: Vec<(String, i64, i64, i64)> = sqlx::query_as(
                    "SELECT j.tool, CAST(CASE WHEN a.id IS NOT NULL AND a.deleted_at IS NULL THEN 1 ELSE 0 END AS BIGINT), \
                     CAST(COUNT(*) AS BIGINT), CAST(COALESCE(SUM(COALESCE(j.tokens_settled, j.tokens)), 0) AS BIGINT) \
                     FROM jobs j LEFT JOIN assets a ON a.id = j.result_asset_id \
                     WHERE j.status = 'done' AND j.finished_at >= $1 \
                     GROUP BY j.tool, CASE WHEN a.id IS NOT NULL AND a.deleted_at IS NULL THEN 1 ELSE 0 END \
                     ORDER BY j.tool",
                )
                .bind(since)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows
                    .into_iter()
                    .map(|(tool, kept, frames, tokens)| $crate::storage::KeptRow { tool, kept: kept == 1, frames, tokens })
                    .collect())
            }

            async fn token_flows(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::FlowRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT kind, CAST(CASE WHEN kind = 'settled' THEN settled_delta \
                     WHEN kind = 'expire' THEN -(grant_delta + topup_delta) ELSE grant_delta + topup_delta END AS BIGINT) \
                     AS amount, created_at FROM ledger_entries \
                     WHERE kind IN ('grant', 'topup', 'settled', 'expire') AND created_at >= $1 ORDER BY created_at",
                )
                .bind(since)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn flow_totals(&self) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT kind AS name, CAST(COUNT(*) AS BIGINT) AS n, CAST(COALESCE(SUM(CASE \
                     WHEN kind = 'settled' THEN settled_delta WHEN kind = 'expire' THEN -(grant_delta + topup_delta) \
                     ELSE grant_delta + topup_delta END), 0) AS BIGINT) AS total FROM ledger_entries \
                     WHERE kind IN ('grant', 'topup', 'settled', 'expire') GROUP BY kind ORDER BY kind",
                )
                .fetch_all(&self.pool)
                .await?)
            }

            async fn platform_counts(&self) -> Result<$crate::storage::PlatformCounts, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT (SELECT CAST(COUNT(*) AS BIGINT) FROM organizations) AS houses, \
                     (SELECT CAST(COUNT(*) AS BIGINT) FROM users) AS people, \
                     (SELECT CAST(COUNT(*) AS BIGINT) FROM assets WHERE deleted_at IS NULL) AS assets, \
                     (SELECT CAST(COALESCE(SUM(held), 0) AS BIGINT) FROM balances) AS held, \
                     (SELECT CAST(COALESCE(SUM(grant_tokens + topup_tokens), 0) AS BIGINT) FROM balances) AS spendable",
                )
                .fetch_one(&self.pool)
                .await?)
            }

            async fn jobs_by_status(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT status AS name, CAST(COUNT(*) AS BIGINT) AS n, \
                     CAST(COALESCE(SUM(COALESCE(tokens_settled, 0)), 0) AS BIGINT) AS total \
                     FROM jobs WHERE created_at >= $1 GROUP BY status ORDER BY status",
                )
                .bind(since)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn payments(
                &self,
                org_id: Option<&OrgId>,
                status: Option<&str>,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
                limit: i64,
            ) -> Result<Vec<CheckoutRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    checkout_columns!(),
                    " FROM billing_checkouts WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
                     AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
                     AND ($3 IS NULL OR created_at < $3 OR (created_at = $3 AND reference < $4)) \
                     ORDER BY created_at DESC, reference DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(status)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn payment_totals(
                &self,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(
                    "SELECT status AS name, CAST(COUNT(*) AS BIGINT) AS n, \
                     CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) AS total FROM billing_checkouts \
                     WHERE CAST($1 AS TEXT) IS NULL OR org_id = $1 GROUP BY status ORDER BY status",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn keep_verdict(
                &self,
                row: &$crate::storage::VerdictRow,
            ) -> Result<$crate::storage::VerdictRow, $crate::storage::StorageError> {
                {
                    let _w = self.write_lock().await;
                    sqlx::query(concat!(
                        "INSERT INTO verdicts (",
                        $crate::storage::sql::console::verdict_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job_id, rubric) DO NOTHING"
                    ))
                    .bind(&row.id)
                    .bind(&row.job_id)
                    .bind(&row.frame_id)
                    .bind(&row.org_id)
                    .bind(&row.tool)
                    .bind(&row.model)
                    .bind(row.rubric)
                    .bind(row.score)
                    .bind(row.readable)
                    .bind(row.passed)
                    .bind(&row.marks)
                    .bind(row.created_at)
                    .execute(&self.pool)
                    .await?;
                }
                let kept = self.verdict_of(&JobId::from(&row.job_id), row.rubric).await?;
                Ok(kept.unwrap_or_else(|| row.clone()))
            }

            async fn verdict_of(
                &self,
                job_id: &JobId,
                rubric: i64,
            ) -> Result<Option<$crate::storage::VerdictRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::console::verdict_columns!(),
                    " FROM verdicts WHERE job_id = $1 AND rubric = $2"
                ))
                .bind(job_id)
                .bind(rubric)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn verdicts(
                &self,
                f: &$crate::storage::VerdictFilter<'_>,
            ) -> Result<Vec<$crate::storage::VerdictRow>, $crate::storage::StorageError> {
                let (at, id) = match f.before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::console::verdict_columns!(),
                    " FROM verdicts WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
                     AND (CAST($2 AS TEXT) IS NULL OR tool = $2) AND (CAST($3 AS BIGINT) IS NULL OR rubric = $3) \
                     AND (CAST($4 AS TEXT) IS NULL OR model = $4) AND created_at >= $5 \
                     AND ($6 IS NULL OR created_at < $6 OR (created_at = $6 AND id < $7)) \
                     ORDER BY created_at DESC, id DESC LIMIT $8"
                ))
                .bind(f.org_id)
                .bind(f.tool)
                .bind(f.rubric)
                .bind(f.model)
                .bind(f.since.unwrap_or_else($crate::storage::sql::console::epoch))
                .bind(at)
                .bind(id)
                .bind(f.limit)
                .fetch_all(&self.pool)
                .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_console_store;
