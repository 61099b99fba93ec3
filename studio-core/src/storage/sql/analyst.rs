//! The SQL of the analyst ([`AnalystStore`](crate::storage::AnalystStore)): its cadence, the
//! period figures a digest is written from, digests with their findings (one transaction), and
//! memory observations and reviews, each written together with the memory it moves.

macro_rules! digest_columns {
    () => {
        "id, period_start, period_end, figures, summary, writer, trigger_kind, slot, requested_by, created_at"
    };
}

macro_rules! finding_columns {
    () => {
        "id, digest_id, rule, subject, statement, figures, status, note, decided_by, decided_at, created_at"
    };
}

macro_rules! observation_columns {
    () => {
        "id, memory_id, supports, note, confidence_before, confidence_after, observed_by, created_at"
    };
}

pub(in crate::storage) use {digest_columns, finding_columns, observation_columns};

macro_rules! impl_analyst_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::AnalystStore for $ty {
            async fn analyst_settings(
                &self,
            ) -> Result<Option<$crate::storage::AnalystSettingsRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as("SELECT hours, enabled, updated_by, updated_at FROM analyst_settings WHERE id = 1")
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn set_analyst_settings(
                &self,
                row: &$crate::storage::AnalystSettingsRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO analyst_settings (id, hours, enabled, updated_by, updated_at) VALUES (1, $1, $2, $3, $4) \
                     ON CONFLICT (id) DO UPDATE SET hours = excluded.hours, enabled = excluded.enabled, \
                     updated_by = excluded.updated_by, updated_at = excluded.updated_at",
                )
                .bind(row.hours)
                .bind(row.enabled)
                .bind(&row.updated_by)
                .bind(row.updated_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn period_counts(
                &self,
                from: chrono::DateTime<chrono::Utc>,
                to: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::storage::PeriodCounts, $crate::storage::StorageError> {
                let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql).bind(from).bind(to);
                let houses = count("SELECT COUNT(*) FROM organizations WHERE created_at >= $1 AND created_at < $2")
                    .fetch_one(&self.pool)
                    .await?;
                let people = count("SELECT COUNT(*) FROM users WHERE created_at >= $1 AND created_at < $2")
                    .fetch_one(&self.pool)
                    .await?;
                let uploads = count(
                    "SELECT COUNT(*) FROM assets WHERE tool IS NULL AND created_at >= $1 AND created_at < $2",
                )
                .fetch_one(&self.pool)
                .await?;
                let readable_frames = count(
                    "SELECT COUNT(*) FROM jobs WHERE status = 'done' AND result_asset_id IS NOT NULL \
                     AND finished_at >= $1 AND finished_at < $2",
                )
                .fetch_one(&self.pool)
                .await?;
                let readable_verdicts = count(
                    "SELECT COUNT(*) FROM verdicts WHERE readable AND created_at >= $1 AND created_at < $2",
                )
                .fetch_one(&self.pool)
                .await?;
                let develops: Vec<(String, String, i64)> = sqlx::query_as(
                    "SELECT tool, status, COUNT(*) FROM jobs WHERE created_at >= $1 AND created_at < $2 \
                     GROUP BY tool, status ORDER BY tool, status",
                )
                .bind(from)
                .bind(to)
                .fetch_all(&self.pool)
                .await?;
                let ledger: Vec<(String, i64, i64)> = sqlx::query_as(
                    "SELECT kind, COUNT(*), CAST(COALESCE(SUM(CASE WHEN kind = 'settled' THEN settled_delta \
                     ELSE credited_delta END), 0) AS BIGINT) FROM ledger_entries \
                     WHERE created_at >= $1 AND created_at < $2 GROUP BY kind ORDER BY kind",
                )
                .bind(from)
                .bind(to)
                .fetch_all(&self.pool)
                .await?;
                let stale_holds = sqlx::query_scalar::<_, i64>(
                    "SELECT COUNT(*) FROM holds WHERE status = 'held' AND created_at < $1",
                )
                .bind(to - chrono::Duration::hours(1))
                .fetch_one(&self.pool)
                .await?;
                Ok($crate::storage::PeriodCounts {
                    houses,
                    people,
                    uploads,
                    develops,
                    readable_frames,
                    readable_verdicts,
                    ledger,
                    stale_holds,
                })
            }

            async fn insert_digest(
                &self,
                d: &$crate::storage::DigestRow,
                findings: &[$crate::storage::FindingRow],
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let done = sqlx::query(concat!(
                    "INSERT INTO analyst_digests (",
                    $crate::storage::sql::analyst::digest_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (trigger_kind, slot) DO NOTHING"
                ))
                .bind(&d.id)
                .bind(d.period_start)
                .bind(d.period_end)
                .bind(&d.figures)
                .bind(&d.summary)
                .bind(&d.writer)
                .bind(&d.trigger_kind)
                .bind(&d.slot)
                .bind(&d.requested_by)
                .bind(d.created_at)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                for f in findings {
                    sqlx::query(concat!(
                        "INSERT INTO reflection_findings (",
                        $crate::storage::sql::analyst::finding_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                    ))
                    .bind(&f.id)
                    .bind(&f.digest_id)
                    .bind(&f.rule)
                    .bind(&f.subject)
                    .bind(&f.statement)
                    .bind(&f.figures)
                    .bind(&f.status)
                    .bind(&f.note)
                    .bind(&f.decided_by)
                    .bind(f.decided_at)
                    .bind(f.created_at)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn digest_in_slot(
                &self,
                trigger: &str,
                slot: &str,
            ) -> Result<Option<$crate::storage::DigestRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::analyst::digest_columns!(),
                    " FROM analyst_digests WHERE trigger_kind = $1 AND slot = $2"
                ))
                .bind(trigger)
                .bind(slot)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn digests(
                &self,
                limit: i64,
            ) -> Result<Vec<$crate::storage::DigestRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::analyst::digest_columns!(),
                    " FROM analyst_digests ORDER BY created_at DESC, id DESC LIMIT $1"
                ))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn findings(
                &self,
                status: Option<&str>,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::analyst::finding_columns!(),
                    " FROM reflection_findings WHERE ($1 IS NULL OR status = $1) \
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

            async fn decide_finding(
                &self,
                id: &FindingId,
                status: &str,
                note: &str,
                by: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE reflection_findings SET status = $1, note = $2, decided_by = $3, decided_at = $4 \
                     WHERE id = $5 AND status = 'open' RETURNING ",
                    $crate::storage::sql::analyst::finding_columns!()
                ))
                .bind(status)
                .bind(note)
                .bind(by)
                .bind(now)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn open_findings(&self) -> Result<i64, $crate::storage::StorageError> {
                Ok(sqlx::query_scalar("SELECT COUNT(*) FROM reflection_findings WHERE status = 'open'")
                    .fetch_one(&self.pool)
                    .await?)
            }

            async fn finding(
                &self,
                id: &FindingId,
            ) -> Result<Option<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::analyst::finding_columns!(),
                    " FROM reflection_findings WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn memory_by_id(
                &self,
                id: &MemoryId,
            ) -> Result<Option<$crate::storage::MemoryRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", memory_columns!(), " FROM memories WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn observe_memory(
                &self,
                mut obs: $crate::storage::ObservationRow,
                next: fn(f64, bool) -> f64,
            ) -> Result<
                Option<($crate::storage::MemoryRow, $crate::storage::ObservationRow)>,
                $crate::storage::StorageError,
            > {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let before: Option<f64> = sqlx::query_scalar(concat!(
                    "SELECT confidence FROM memories WHERE id = $1 AND status = 'active'",
                    $lock
                ))
                .bind(&obs.memory_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(before) = before else {
                    tx.rollback().await?;
                    return Ok(None);
                };
                obs.confidence_before = before;
                obs.confidence_after = next(before, obs.supports);
                let memory = sqlx::query_as(concat!(
                    "UPDATE memories SET confidence = $1, evidence_count = evidence_count + 1, updated_at = $2 \
                     WHERE id = $3 RETURNING ",
                    memory_columns!()
                ))
                .bind(obs.confidence_after)
                .bind(obs.created_at)
                .bind(&obs.memory_id)
                .fetch_one(&mut *tx)
                .await?;
                sqlx::query(concat!(
                    "INSERT INTO memory_observations (",
                    $crate::storage::sql::analyst::observation_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                ))
                .bind(&obs.id)
                .bind(&obs.memory_id)
                .bind(obs.supports)
                .bind(&obs.note)
                .bind(obs.confidence_before)
                .bind(obs.confidence_after)
                .bind(&obs.observed_by)
                .bind(obs.created_at)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Some((memory, obs)))
            }

            async fn observations(
                &self,
                memory_id: &MemoryId,
            ) -> Result<Vec<$crate::storage::ObservationRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::analyst::observation_columns!(),
                    " FROM memory_observations WHERE memory_id = $1 ORDER BY created_at, id"
                ))
                .bind(memory_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn memories_to_review(
                &self,
                below: f64,
                limit: i64,
                after: Option<(f64, &str)>,
            ) -> Result<Vec<$crate::storage::MemoryRow>, $crate::storage::StorageError> {
                let (at, id) = match after {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    memory_columns!(),
                    " FROM memories m WHERE status = 'active' AND confidence < $1 \
                     AND NOT EXISTS (SELECT 1 FROM memory_reviews r WHERE r.memory_id = m.id \
                     AND r.created_at >= m.updated_at) \
                     AND ($2 IS NULL OR confidence > $2 OR (confidence = $2 AND id > $3)) \
                     ORDER BY confidence, id LIMIT $4"
                ))
                .bind(below)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn review_memory(
                &self,
                r: &$crate::storage::ReviewRow,
            ) -> Result<Option<$crate::storage::MemoryRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let memory: Option<$crate::storage::MemoryRow> = if r.decision == "retire" {
                    sqlx::query_as(concat!(
                        "UPDATE memories SET status = 'retired', updated_at = $1 WHERE id = $2 \
                         AND status = 'active' RETURNING ",
                        memory_columns!()
                    ))
                    .bind(r.created_at)
                    .bind(&r.memory_id)
                    .fetch_optional(&mut *tx)
                    .await?
                } else {
                    sqlx::query_as(concat!(
                        "SELECT ",
                        memory_columns!(),
                        " FROM memories WHERE id = $1 AND status = 'active'",
                        $lock
                    ))
                    .bind(&r.memory_id)
                    .fetch_optional(&mut *tx)
                    .await?
                };
                if memory.is_none() {
                    tx.rollback().await?;
                    return Ok(None);
                }
                sqlx::query(
                    "INSERT INTO memory_reviews (id, memory_id, decision, note, reviewed_by, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(&r.id)
                .bind(&r.memory_id)
                .bind(&r.decision)
                .bind(&r.note)
                .bind(&r.reviewed_by)
                .bind(r.created_at)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(memory)
            }
        }
    };
}

pub(in crate::storage) use impl_analyst_store;
