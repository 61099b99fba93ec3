//! The SQL of the admin console ([`ConsoleStore`](crate::storage::ConsoleStore)): reads across
//! houses (newest first, paged by `(created_at, id)`), the provider cost records and the kept
//! verdicts. Optional filters are bound as typed values (`CAST($n AS TEXT) IS NULL OR …`), so
//! one statement serves every combination on both backends. Every statement is declared in
//! [`q`] (see stmt.rs); the console's reads reach every house (a filter's `org_id` narrows them
//! when given), its two writes name the house of the row they store.

/// The columns of `verdicts` in [`VerdictRow`](crate::storage::VerdictRow) order.
macro_rules! verdict_columns {
    () => {
        "id, job_id, frame_id, org_id, tool, model, rubric, score, readable, passed, marks, created_at"
    };
}

/// The earliest time a filter without `since` reaches.
pub(in crate::storage) fn epoch() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::<chrono::Utc>::from_timestamp(0, 0).unwrap_or_default()
}

/// The console's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{JobId, OrgId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{asset_columns, checkout_columns, job_columns};
    use crate::storage::{
        AssetRow, CheckoutRow, FlowRow, JobRow, NamedCount, PlatformCounts, SettledHoldRow, VerdictRow,
    };

    statements! {
        /// Record what a settled hold cost at the provider (once per hold).
        fn insert_cost_record(
            id: &'q str,
            hold_id: &'q str,
            org_id: &'q OrgId,
            job_id: Option<&'q str>,
            tool: &'q str,
            provider: &'q str,
            tokens: i64,
            cost_usd: f64,
            estimated: bool,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO provider_costs (id, hold_id, org_id, job_id, tool, provider, tokens, cost_usd, \
             estimated, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (hold_id) DO NOTHING"
        }

        /// Holds settled since `min_resolved_at` with their tool and provider cost, oldest first.
        fn settled_holds(min_resolved_at: DateTime<Utc>) -> row<SettledHoldRow> [any "the console's cost report reads every house's settled holds"] {
            "SELECT h.id AS hold_id, h.amount, h.resolved_at, COALESCE(j.tool, c.tool) AS tool, c.cost_usd, \
             c.estimated FROM holds h LEFT JOIN jobs j ON j.hold_id = h.id \
             LEFT JOIN provider_costs c ON c.hold_id = h.id \
             WHERE h.status = 'settled' AND h.resolved_at >= $1 ORDER BY h.resolved_at"
        }

        /// Any house's develop by id.
        fn any_job(id: &'q JobId) -> row<JobRow> [any "the operators' console reads any house's develop by its id"] {
            "SELECT ", job_columns!(), " FROM jobs WHERE id = $1"
        }

        /// A page of develops (filtered), newest first, after the cursor (`created_at`, `id`).
        fn console_jobs(
            org_id: Option<&'q str>,
            tool: Option<&'q str>,
            status: Option<&'q str>,
            min_created_at: DateTime<Utc>,
            created_at: Option<DateTime<Utc>>,
            id: Option<&'q str>,
            limit: i64,
        ) -> row<JobRow> [any "the operators' console reads every house's develops when its filter names no house"] {
            "SELECT ", job_columns!(), " FROM jobs WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
             AND (CAST($2 AS TEXT) IS NULL OR tool = $2) AND (CAST($3 AS TEXT) IS NULL OR status = $3) \
             AND created_at >= $4 AND ($5 IS NULL OR created_at < $5 OR (created_at = $5 AND id < $6)) \
             ORDER BY created_at DESC, id DESC LIMIT $7"
        }

        /// A page of live frames (filtered; `origin` is `made` or `brought`), newest first, after
        /// the cursor (`created_at`, `id`).
        fn console_frames(
            org_id: Option<&'q str>,
            tool: Option<&'q str>,
            origin: Option<&'q str>,
            min_created_at: DateTime<Utc>,
            created_at: Option<DateTime<Utc>>,
            id: Option<&'q str>,
            limit: i64,
        ) -> row<AssetRow> [any "the operators' console reads every house's frames when its filter names no house"] {
            "SELECT ", asset_columns!(), " FROM assets WHERE deleted_at IS NULL AND (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
             AND (CAST($2 AS TEXT) IS NULL OR tool = $2) \
             AND (CAST($3 AS TEXT) IS NULL OR ($3 = 'made' AND tool IS NOT NULL) \
                  OR ($3 = 'brought' AND tool IS NULL)) \
             AND created_at >= $4 AND ($5 IS NULL OR created_at < $5 OR (created_at = $5 AND id < $6)) \
             ORDER BY created_at DESC, id DESC LIMIT $7"
        }

        /// Develops done since `min_finished_at` by tool and whether their frame is kept: frames
        /// and tokens.
        fn kept_cost(min_finished_at: DateTime<Utc>) -> row<(String, i64, i64, i64)> [any "the console's cost report reads every house's develops"] {
            "SELECT j.tool, CAST(CASE WHEN a.id IS NOT NULL AND a.deleted_at IS NULL THEN 1 ELSE 0 END AS BIGINT), \
             CAST(COUNT(*) AS BIGINT), CAST(COALESCE(SUM(COALESCE(j.tokens_settled, j.tokens)), 0) AS BIGINT) \
             FROM jobs j LEFT JOIN assets a ON a.id = j.result_asset_id \
             WHERE j.status = 'done' AND j.finished_at >= $1 \
             GROUP BY j.tool, CASE WHEN a.id IS NOT NULL AND a.deleted_at IS NULL THEN 1 ELSE 0 END \
             ORDER BY j.tool"
        }

        /// The token movements since `min_created_at`, oldest first.
        fn token_flows(min_created_at: DateTime<Utc>) -> row<FlowRow> [any "the console's token report reads every house's ledger"] {
            "SELECT kind, CAST(CASE WHEN kind = 'settled' THEN settled_delta \
             WHEN kind = 'expire' THEN -(grant_delta + topup_delta) ELSE grant_delta + topup_delta END AS BIGINT) \
             AS amount, created_at FROM ledger_entries \
             WHERE kind IN ('grant', 'topup', 'settled', 'expire') AND created_at >= $1 ORDER BY created_at"
        }

        /// The token movements ever, by kind: entries and tokens.
        fn flow_totals() -> row<NamedCount> [any "the console's token report reads every house's ledger"] {
            "SELECT kind AS name, CAST(COUNT(*) AS BIGINT) AS n, CAST(COALESCE(SUM(CASE \
             WHEN kind = 'settled' THEN settled_delta WHEN kind = 'expire' THEN -(grant_delta + topup_delta) \
             ELSE grant_delta + topup_delta END), 0) AS BIGINT) AS total FROM ledger_entries \
             WHERE kind IN ('grant', 'topup', 'settled', 'expire') GROUP BY kind ORDER BY kind"
        }

        /// The platform's totals.
        fn platform_counts() -> row<PlatformCounts> [any "the platform's totals count every house"] {
            "SELECT (SELECT CAST(COUNT(*) AS BIGINT) FROM organizations) AS houses, \
             (SELECT CAST(COUNT(*) AS BIGINT) FROM users) AS people, \
             (SELECT CAST(COUNT(*) AS BIGINT) FROM assets WHERE deleted_at IS NULL) AS assets, \
             (SELECT CAST(COALESCE(SUM(held), 0) AS BIGINT) FROM balances) AS held, \
             (SELECT CAST(COALESCE(SUM(grant_tokens + topup_tokens), 0) AS BIGINT) FROM balances) AS spendable"
        }

        /// Develops queued since `min_created_at` by status: develops and settled tokens.
        fn jobs_by_status(min_created_at: DateTime<Utc>) -> row<NamedCount> [any "the console's develop report reads every house's develops"] {
            "SELECT status AS name, CAST(COUNT(*) AS BIGINT) AS n, \
             CAST(COALESCE(SUM(COALESCE(tokens_settled, 0)), 0) AS BIGINT) AS total \
             FROM jobs WHERE created_at >= $1 GROUP BY status ORDER BY status"
        }

        /// A page of checkouts (filtered), newest first, after the cursor (`created_at`,
        /// `reference`).
        fn payments(
            org_id: Option<&'q OrgId>,
            status: Option<&'q str>,
            created_at: Option<DateTime<Utc>>,
            reference: Option<&'q str>,
            limit: i64,
        ) -> row<CheckoutRow> [any "the operators' console reads every house's payments when its filter names no house"] {
            "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
             AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
             AND ($3 IS NULL OR created_at < $3 OR (created_at = $3 AND reference < $4)) \
             ORDER BY created_at DESC, reference DESC LIMIT $5"
        }

        /// Checkouts (of a house, when given) by status: checkouts and cents.
        fn payment_totals(org_id: Option<&'q OrgId>) -> row<NamedCount> [any "the operators' console reads every house's payments when it names no house"] {
            "SELECT status AS name, CAST(COUNT(*) AS BIGINT) AS n, \
             CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) AS total FROM billing_checkouts \
             WHERE CAST($1 AS TEXT) IS NULL OR org_id = $1 GROUP BY status ORDER BY status"
        }

        /// Keep a verdict of a house's develop (the first kept for its job and rubric stays).
        fn insert_verdict(
            id: &'q str,
            job_id: &'q str,
            frame_id: Option<&'q str>,
            org_id: &'q OrgId,
            tool: &'q str,
            model: &'q str,
            rubric: i64,
            score: i64,
            readable: bool,
            passed: bool,
            marks: &'q str,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO verdicts (", verdict_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job_id, rubric) DO NOTHING"
        }

        /// The verdict kept for a develop under a rubric.
        fn verdict_of(job_id: &'q JobId, rubric: i64) -> row<VerdictRow> [any "a job id is unique across houses: the console and the judge read the verdict of the develop they hold"] {
            "SELECT ", verdict_columns!(), " FROM verdicts WHERE job_id = $1 AND rubric = $2"
        }

        /// A page of verdicts (filtered), newest first, after the cursor (`created_at`, `id`).
        fn verdicts(
            org_id: Option<&'q str>,
            tool: Option<&'q str>,
            rubric: Option<i64>,
            model: Option<&'q str>,
            min_created_at: DateTime<Utc>,
            created_at: Option<DateTime<Utc>>,
            id: Option<&'q str>,
            limit: i64,
        ) -> row<VerdictRow> [any "the operators' console reads every house's verdicts when its filter names no house"] {
            "SELECT ", verdict_columns!(), " FROM verdicts WHERE (CAST($1 AS TEXT) IS NULL OR org_id = $1) \
             AND (CAST($2 AS TEXT) IS NULL OR tool = $2) AND (CAST($3 AS BIGINT) IS NULL OR rubric = $3) \
             AND (CAST($4 AS TEXT) IS NULL OR model = $4) AND created_at >= $5 \
             AND ($6 IS NULL OR created_at < $6 OR (created_at = $6 AND id < $7)) \
             ORDER BY created_at DESC, id DESC LIMIT $8"
        }
    }
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
                q::console::insert_cost_record(
                    &row.id,
                    &row.hold_id,
                    &row.org_id,
                    row.job_id.as_deref(),
                    &row.tool,
                    &row.provider,
                    row.tokens,
                    row.cost_usd,
                    row.estimated,
                    row.created_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn settled_holds(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::SettledHoldRow>, $crate::storage::StorageError> {
                Ok(q::console::settled_holds(since).fetch_all(&self.pool).await?)
            }

            async fn any_job(&self, id: &JobId) -> Result<Option<JobRow>, $crate::storage::StorageError> {
                Ok(q::console::any_job(id).fetch_optional(&self.pool).await?)
            }

            async fn console_jobs(
                &self,
                f: &$crate::storage::JobFilter<'_>,
            ) -> Result<Vec<JobRow>, $crate::storage::StorageError> {
                let (at, id) = match f.before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                let since = f.since.unwrap_or_else($crate::storage::sql::console::epoch);
                Ok(q::console::console_jobs(f.org_id, f.tool, f.status, since, at, id, f.limit)
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
                let since = f.since.unwrap_or_else($crate::storage::sql::console::epoch);
                Ok(q::console::console_frames(f.org_id, f.tool, origin, since, at, id, f.limit)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn kept_cost(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::KeptRow>, $crate::storage::StorageError> {
                let rows = q::console::kept_cost(since).fetch_all(&self.pool).await?;
                Ok(rows
                    .into_iter()
                    .map(|(tool, kept, frames, tokens)| $crate::storage::KeptRow {
                        tool,
                        kept: kept == 1,
                        frames,
                        tokens,
                    })
                    .collect())
            }

            async fn token_flows(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::FlowRow>, $crate::storage::StorageError> {
                Ok(q::console::token_flows(since).fetch_all(&self.pool).await?)
            }

            async fn flow_totals(&self) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(q::console::flow_totals().fetch_all(&self.pool).await?)
            }

            async fn platform_counts(&self) -> Result<$crate::storage::PlatformCounts, $crate::storage::StorageError> {
                Ok(q::console::platform_counts().fetch_one(&self.pool).await?)
            }

            async fn jobs_by_status(
                &self,
                since: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(q::console::jobs_by_status(since).fetch_all(&self.pool).await?)
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
                Ok(q::console::payments(org_id, status, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn payment_totals(
                &self,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::NamedCount>, $crate::storage::StorageError> {
                Ok(q::console::payment_totals(org_id).fetch_all(&self.pool).await?)
            }

            async fn keep_verdict(
                &self,
                row: &$crate::storage::VerdictRow,
            ) -> Result<$crate::storage::VerdictRow, $crate::storage::StorageError> {
                {
                    let _w = self.write_lock().await;
                    q::console::insert_verdict(
                        &row.id,
                        &row.job_id,
                        row.frame_id.as_deref(),
                        &row.org_id,
                        &row.tool,
                        &row.model,
                        row.rubric,
                        row.score,
                        row.readable,
                        row.passed,
                        &row.marks,
                        row.created_at,
                    )
                    .execute(&self.pool)
                    .await?;
                }
                let kept = self.verdict_of(&row.job_id, row.rubric).await?;
                Ok(kept.unwrap_or_else(|| row.clone()))
            }

            async fn verdict_of(
                &self,
                job_id: &JobId,
                rubric: i64,
            ) -> Result<Option<$crate::storage::VerdictRow>, $crate::storage::StorageError> {
                Ok(q::console::verdict_of(job_id, rubric).fetch_optional(&self.pool).await?)
            }

            async fn verdicts(
                &self,
                f: &$crate::storage::VerdictFilter<'_>,
            ) -> Result<Vec<$crate::storage::VerdictRow>, $crate::storage::StorageError> {
                let (at, id) = match f.before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                let since = f.since.unwrap_or_else($crate::storage::sql::console::epoch);
                Ok(q::console::verdicts(f.org_id, f.tool, f.rubric, f.model, since, at, id, f.limit)
                    .fetch_all(&self.pool)
                    .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_console_store;
