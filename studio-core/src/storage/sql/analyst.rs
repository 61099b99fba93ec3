//! The SQL of the analyst ([`AnalystStore`](crate::storage::AnalystStore)): its cadence, the
//! period figures a digest is written from, digests with their findings (one transaction), and
//! memory observations and reviews, each written together with the memory it moves. Every
//! statement is declared in [`q`] (see stmt.rs); none is a house's: the analyst reads and
//! writes the platform's figures, and the operators reach any house's memory by id (the
//! reasons are in `q`).

/// The columns of `analyst_digests` in [`DigestRow`](crate::storage::DigestRow) order.
macro_rules! digest_columns {
    () => {
        "id, period_start, period_end, figures, summary, writer, trigger_kind, slot, requested_by, created_at"
    };
}

/// The columns of `reflection_findings` in [`FindingRow`](crate::storage::FindingRow) order.
macro_rules! finding_columns {
    () => {
        "id, digest_id, rule, subject, statement, figures, status, note, decided_by, decided_at, created_at"
    };
}

/// The columns of `memory_observations` in [`ObservationRow`](crate::storage::ObservationRow) order.
macro_rules! observation_columns {
    () => {
        "id, memory_id, supports, note, confidence_before, confidence_after, observed_by, created_at"
    };
}

/// The analyst's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::api::FindingStatus;
    use crate::ids::{FindingId, MemoryId};
    use crate::storage::sql::memory_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{AnalystSettingsRow, DigestRow, FindingRow, MemoryRow, ObservationRow};

    statements! {
        /// The analyst's cadence, if it was ever set.
        fn settings() -> row<AnalystSettingsRow> [any "the analyst's cadence is one platform-wide row (analyst_settings has no house)"] {
            "SELECT hours, enabled, updated_by, updated_at FROM analyst_settings WHERE id = 1"
        }

        /// Set the analyst's cadence.
        fn set_settings(hours: i64, enabled: bool, updated_by: Option<&'q str>, updated_at: DateTime<Utc>) -> exec [any "the analyst's cadence is one platform-wide row (analyst_settings has no house)"] {
            "INSERT INTO analyst_settings (id, hours, enabled, updated_by, updated_at) VALUES (1, $1, $2, $3, $4) \
             ON CONFLICT (id) DO UPDATE SET hours = excluded.hours, enabled = excluded.enabled, \
             updated_by = excluded.updated_by, updated_at = excluded.updated_at"
        }

        /// Houses opened in `[min_created_at, before_created_at)`.
        fn houses_opened(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM organizations WHERE created_at >= $1 AND created_at < $2"
        }

        /// People signed up in `[min_created_at, before_created_at)`.
        fn people_signed_up(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM users WHERE created_at >= $1 AND created_at < $2"
        }

        /// Images uploaded (assets no develop made) in `[min_created_at, before_created_at)`.
        fn uploads(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM assets WHERE tool IS NULL AND created_at >= $1 AND created_at < $2"
        }

        /// Develops that landed a frame in `[min_finished_at, before_finished_at)`.
        fn readable_frames(min_finished_at: DateTime<Utc>, before_finished_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM jobs WHERE status = 'done' AND result_asset_id IS NOT NULL \
             AND finished_at >= $1 AND finished_at < $2"
        }

        /// Verdicts that could read their frame, judged in `[min_created_at, before_created_at)`.
        fn readable_verdicts(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM verdicts WHERE readable AND created_at >= $1 AND created_at < $2"
        }

        /// Develops queued in `[min_created_at, before_created_at)` by `(tool, status now)`.
        fn develops(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> row<(String, String, i64)> [any "the analyst's period figures count across every house"] {
            "SELECT tool, status, COUNT(*) FROM jobs WHERE created_at >= $1 AND created_at < $2 \
             GROUP BY tool, status ORDER BY tool, status"
        }

        /// Ledger movements in `[min_created_at, before_created_at)` by kind: entries and tokens.
        fn ledger_moves(min_created_at: DateTime<Utc>, before_created_at: DateTime<Utc>) -> row<(String, i64, i64)> [any "the analyst's period figures count across every house"] {
            "SELECT kind, COUNT(*), CAST(COALESCE(SUM(CASE WHEN kind = 'settled' THEN settled_delta \
             ELSE credited_delta END), 0) AS BIGINT) FROM ledger_entries \
             WHERE created_at >= $1 AND created_at < $2 GROUP BY kind ORDER BY kind"
        }

        /// Holds still held that were taken before `created_at`.
        fn stale_holds(created_at: DateTime<Utc>) -> scalar<i64> [any "the analyst's period figures count across every house"] {
            "SELECT COUNT(*) FROM holds WHERE status = 'held' AND created_at < $1"
        }

        /// Write a digest unless one of its trigger already fills its slot.
        fn insert_digest(
            id: &'q str,
            period_start: DateTime<Utc>,
            period_end: DateTime<Utc>,
            figures: &'q str,
            summary: &'q str,
            writer: &'q str,
            trigger_kind: &'q str,
            slot: &'q str,
            requested_by: Option<&'q str>,
            created_at: DateTime<Utc>,
        ) -> exec [any "digests are the platform's (analyst_digests has no house)"] {
            "INSERT INTO analyst_digests (", digest_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (trigger_kind, slot) DO NOTHING"
        }

        /// Write a finding of a digest.
        fn insert_finding(
            id: &'q str,
            digest_id: &'q str,
            rule: &'q str,
            subject: &'q str,
            statement: &'q str,
            figures: &'q str,
            status: FindingStatus,
            note: Option<&'q str>,
            decided_by: Option<&'q str>,
            decided_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
        ) -> exec [any "findings are the platform's (reflection_findings has no house)"] {
            "INSERT INTO reflection_findings (", finding_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
        }

        /// The digest of a trigger filling a slot.
        fn digest_in_slot(trigger_kind: &'q str, slot: &'q str) -> row<DigestRow> [any "digests are the platform's (analyst_digests has no house)"] {
            "SELECT ", digest_columns!(), " FROM analyst_digests WHERE trigger_kind = $1 AND slot = $2"
        }

        /// The newest digests.
        fn digests(limit: i64) -> row<DigestRow> [any "digests are the platform's (analyst_digests has no house)"] {
            "SELECT ", digest_columns!(), " FROM analyst_digests ORDER BY created_at DESC, id DESC LIMIT $1"
        }

        /// A page of findings (of a status, when given), newest first, after the cursor
        /// (`created_at`, `id`) when one is given.
        fn findings(status: Option<FindingStatus>, created_at: Option<DateTime<Utc>>, id: Option<&'q str>, limit: i64) -> row<FindingRow> [any "findings are the platform's (reflection_findings has no house)"] {
            "SELECT ", finding_columns!(), " FROM reflection_findings WHERE ($1 IS NULL OR status = $1) \
             AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
             ORDER BY created_at DESC, id DESC LIMIT $4"
        }

        /// Decide an open finding; the finding as decided.
        fn decide_finding(
            status: FindingStatus,
            note: &'q str,
            decided_by: &'q str,
            decided_at: DateTime<Utc>,
            id: &'q FindingId,
        ) -> row<FindingRow> [any "findings are the platform's (reflection_findings has no house)"] {
            "UPDATE reflection_findings SET status = $1, note = $2, decided_by = $3, decided_at = $4 \
             WHERE id = $5 AND status = 'open' RETURNING ", finding_columns!()
        }

        /// How many findings wait for a decision.
        fn open_findings() -> scalar<i64> [any "findings are the platform's (reflection_findings has no house)"] {
            "SELECT COUNT(*) FROM reflection_findings WHERE status = 'open'"
        }

        /// One finding.
        fn finding(id: &'q FindingId) -> row<FindingRow> [any "findings are the platform's (reflection_findings has no house)"] {
            "SELECT ", finding_columns!(), " FROM reflection_findings WHERE id = $1"
        }

        /// Any house's memory by id.
        fn memory_by_id(id: &'q MemoryId) -> row<MemoryRow> [any "the operators reach any house's memory by its id"] {
            "SELECT ", memory_columns!(), " FROM memories WHERE id = $1"
        }

        /// An active memory's confidence, locked (PostgreSQL) to be observed.
        fn active_confidence_locked(id: &'q str) -> scalar<f64> [any "the operators reach any house's memory by its id", lock] {
            "SELECT confidence FROM memories WHERE id = $1 AND status = 'active'"
        }

        /// Move a memory's confidence and evidence count by one observation; the memory as moved.
        fn observed_memory(confidence: f64, updated_at: DateTime<Utc>, id: &'q str) -> row<MemoryRow> [any "the operators reach any house's memory by its id"] {
            "UPDATE memories SET confidence = $1, evidence_count = evidence_count + 1, updated_at = $2 \
             WHERE id = $3 RETURNING ", memory_columns!()
        }

        /// Record an observation of a memory.
        fn insert_observation(
            id: &'q str,
            memory_id: &'q str,
            supports: bool,
            note: &'q str,
            confidence_before: f64,
            confidence_after: f64,
            observed_by: &'q str,
            created_at: DateTime<Utc>,
        ) -> exec [any "memory_observations has no house: an observation is its memory's, which the same transaction just moved"] {
            "INSERT INTO memory_observations (", observation_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// A memory's observations, oldest first.
        fn observations(memory_id: &'q MemoryId) -> row<ObservationRow> [any "memory_observations has no house: the operators reach any house's memory by its id"] {
            "SELECT ", observation_columns!(), " FROM memory_observations WHERE memory_id = $1 ORDER BY created_at, id"
        }

        /// A page of active memories less confident than `max_confidence` that no review has
        /// looked at since they last changed, least confident first, after the cursor
        /// (`confidence`, `id`) when one is given.
        fn memories_to_review(max_confidence: f64, confidence: Option<f64>, id: Option<&'q str>, limit: i64) -> row<MemoryRow> [any "the operators' review queue reads every house's memories"] {
            "SELECT ", memory_columns!(), " FROM memories m WHERE status = 'active' AND confidence < $1 \
             AND NOT EXISTS (SELECT 1 FROM memory_reviews r WHERE r.memory_id = m.id \
             AND r.created_at >= m.updated_at) \
             AND ($2 IS NULL OR confidence > $2 OR (confidence = $2 AND id > $3)) \
             ORDER BY confidence, id LIMIT $4"
        }

        /// Retire an active memory; the memory as retired.
        fn retire_memory(updated_at: DateTime<Utc>, id: &'q str) -> row<MemoryRow> [any "the operators reach any house's memory by its id"] {
            "UPDATE memories SET status = 'retired', updated_at = $1 WHERE id = $2 \
             AND status = 'active' RETURNING ", memory_columns!()
        }

        /// An active memory, locked (PostgreSQL) to be reviewed.
        fn active_memory_locked(id: &'q str) -> row<MemoryRow> [any "the operators reach any house's memory by its id", lock] {
            "SELECT ", memory_columns!(), " FROM memories WHERE id = $1 AND status = 'active'"
        }

        /// Record a review of a memory.
        fn insert_review(
            id: &'q str,
            memory_id: &'q str,
            decision: &'q str,
            note: &'q str,
            reviewed_by: &'q str,
            created_at: DateTime<Utc>,
        ) -> exec [any "memory_reviews has no house: a review is its memory's, read or moved in the same transaction"] {
            "INSERT INTO memory_reviews (id, memory_id, decision, note, reviewed_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)"
        }
    }
}

macro_rules! impl_analyst_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::AnalystStore for $ty {
            async fn analyst_settings(
                &self,
            ) -> Result<Option<$crate::storage::AnalystSettingsRow>, $crate::storage::StorageError> {
                Ok(q::analyst::settings().fetch_optional(&self.pool).await?)
            }

            async fn set_analyst_settings(
                &self,
                row: &$crate::storage::AnalystSettingsRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::analyst::set_settings(row.hours, row.enabled, row.updated_by.as_deref(), row.updated_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn period_counts(
                &self,
                from: chrono::DateTime<chrono::Utc>,
                to: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::storage::PeriodCounts, $crate::storage::StorageError> {
                let stale = to - chrono::Duration::hours(1);
                Ok($crate::storage::PeriodCounts {
                    houses: q::analyst::houses_opened(from, to).fetch_one(&self.pool).await?,
                    people: q::analyst::people_signed_up(from, to).fetch_one(&self.pool).await?,
                    uploads: q::analyst::uploads(from, to).fetch_one(&self.pool).await?,
                    readable_frames: q::analyst::readable_frames(from, to).fetch_one(&self.pool).await?,
                    readable_verdicts: q::analyst::readable_verdicts(from, to).fetch_one(&self.pool).await?,
                    develops: q::analyst::develops(from, to).fetch_all(&self.pool).await?,
                    ledger: q::analyst::ledger_moves(from, to).fetch_all(&self.pool).await?,
                    stale_holds: q::analyst::stale_holds(stale).fetch_one(&self.pool).await?,
                })
            }

            async fn insert_digest(
                &self,
                d: &$crate::storage::DigestRow,
                findings: &[$crate::storage::FindingRow],
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let done = q::analyst::insert_digest(
                    &d.id,
                    d.period_start,
                    d.period_end,
                    &d.figures,
                    &d.summary,
                    &d.writer,
                    &d.trigger_kind,
                    &d.slot,
                    d.requested_by.as_deref(),
                    d.created_at,
                )
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    tx.rollback().await?;
                    return Ok(false);
                }
                for f in findings {
                    q::analyst::insert_finding(
                        &f.id,
                        &f.digest_id,
                        &f.rule,
                        &f.subject,
                        &f.statement,
                        &f.figures,
                        f.status,
                        f.note.as_deref(),
                        f.decided_by.as_deref(),
                        f.decided_at,
                        f.created_at,
                    )
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
                Ok(q::analyst::digest_in_slot(trigger, slot).fetch_optional(&self.pool).await?)
            }

            async fn digests(
                &self,
                limit: i64,
            ) -> Result<Vec<$crate::storage::DigestRow>, $crate::storage::StorageError> {
                Ok(q::analyst::digests(limit).fetch_all(&self.pool).await?)
            }

            async fn findings(
                &self,
                status: Option<$crate::api::FindingStatus>,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(q::analyst::findings(status, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn decide_finding(
                &self,
                id: &FindingId,
                status: $crate::api::FindingStatus,
                note: &str,
                by: &str,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(q::analyst::decide_finding(status, note, by, now, id).fetch_optional(&self.pool).await?)
            }

            async fn open_findings(&self) -> Result<i64, $crate::storage::StorageError> {
                Ok(q::analyst::open_findings().fetch_one(&self.pool).await?)
            }

            async fn finding(
                &self,
                id: &FindingId,
            ) -> Result<Option<$crate::storage::FindingRow>, $crate::storage::StorageError> {
                Ok(q::analyst::finding(id).fetch_optional(&self.pool).await?)
            }

            async fn memory_by_id(
                &self,
                id: &MemoryId,
            ) -> Result<Option<$crate::storage::MemoryRow>, $crate::storage::StorageError> {
                Ok(q::analyst::memory_by_id(id).fetch_optional(&self.pool).await?)
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
                let before = q::analyst::active_confidence_locked(&obs.memory_id).fetch_optional(&mut *tx).await?;
                let Some(before) = before else {
                    tx.rollback().await?;
                    return Ok(None);
                };
                obs.confidence_before = before;
                obs.confidence_after = next(before, obs.supports);
                let memory = q::analyst::observed_memory(obs.confidence_after, obs.created_at, &obs.memory_id)
                    .fetch_one(&mut *tx)
                    .await?;
                q::analyst::insert_observation(
                    &obs.id,
                    &obs.memory_id,
                    obs.supports,
                    &obs.note,
                    obs.confidence_before,
                    obs.confidence_after,
                    &obs.observed_by,
                    obs.created_at,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Some((memory, obs)))
            }

            async fn observations(
                &self,
                memory_id: &MemoryId,
            ) -> Result<Vec<$crate::storage::ObservationRow>, $crate::storage::StorageError> {
                Ok(q::analyst::observations(memory_id).fetch_all(&self.pool).await?)
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
                Ok(q::analyst::memories_to_review(below, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn review_memory(
                &self,
                r: &$crate::storage::ReviewRow,
            ) -> Result<Option<$crate::storage::MemoryRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let memory = if r.decision == "retire" {
                    q::analyst::retire_memory(r.created_at, &r.memory_id).fetch_optional(&mut *tx).await?
                } else {
                    q::analyst::active_memory_locked(&r.memory_id).fetch_optional(&mut *tx).await?
                };
                if memory.is_none() {
                    tx.rollback().await?;
                    return Ok(None);
                }
                q::analyst::insert_review(&r.id, &r.memory_id, &r.decision, &r.note, &r.reviewed_by, r.created_at)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(memory)
            }
        }
    };
}

pub(in crate::storage) use impl_analyst_store;
