//! The SQL of the internal routes ([`InternalStore`](crate::storage::InternalStore)): replay
//! evidence and its render queue (claimed like packs: one conditional `UPDATE` over a
//! `SKIP LOCKED` pick on PostgreSQL, serialised writers on SQLite; a claim older than the lease
//! is taken over), experiments, flags, autonomy (a revision compared in the `WHERE`), research
//! notes, AI reader outcomes, and the analyst's aggregates (rows in a window; the core buckets
//! them, so no date function differs between backends). Every statement is declared in [`q`]
//! (internal_q.rs, see stmt.rs): a house's autonomy, spend and the rows written for one house
//! name it; the operators' replay, experiments and flags and the machine routes' aggregates
//! reach every house (the reasons are in `q`).

/// The internal routes' declared statements.
#[path = "internal_q.rs"]
pub(in crate::storage) mod q;

macro_rules! impl_internal_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::InternalStore for $ty {
            async fn open_evidence(
                &self,
                r: &$crate::storage::EvidenceRow,
            ) -> Result<($crate::storage::EvidenceRow, bool), StorageError> {
                let _w = self.write_lock().await;
                let inserted = q::internal::insert_evidence(
                    &r.id,
                    &r.job_id,
                    &r.org_id,
                    &r.tool,
                    &r.job_status,
                    &r.snapshot,
                    r.summary.as_deref(),
                    r.summary_focus.as_deref(),
                    r.summarized_at,
                    r.opened_by.as_deref(),
                    r.created_at,
                )
                .execute(&self.pool)
                .await?
                .rows_affected();
                let row = q::internal::evidence_of_job(&r.job_id, &r.org_id).fetch_one(&self.pool).await?;
                Ok((row, inserted == 1))
            }

            async fn evidence(&self, id: &EvidenceId) -> Result<Option<$crate::storage::EvidenceRow>, StorageError> {
                Ok(q::internal::evidence(id).fetch_optional(&self.pool).await?)
            }

            async fn evidence_page(
                &self,
                since: DateTime<Utc>,
                limit: i64,
                before: Option<(DateTime<Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::EvidenceRow>, StorageError> {
                let (at, id) = before.map_or((None, None), |(a, i)| (Some(a), Some(i)));
                Ok(q::internal::evidence_page(since, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn summarize_evidence(
                &self,
                id: &EvidenceId,
                focus: &str,
                summary: &str,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::internal::summarize_evidence(summary, focus, now, id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn insert_render(&self, r: &$crate::storage::RenderRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::internal::insert_render(
                    &r.id,
                    &r.evidence_id,
                    &r.format,
                    r.status,
                    r.attempts,
                    r.claimed_at,
                    r.blob_key.as_deref(),
                    r.mime.as_deref(),
                    r.bytes,
                    r.error_code.as_deref(),
                    r.requested_by.as_deref(),
                    r.created_at,
                    r.finished_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn render(&self, id: &RenderId) -> Result<Option<$crate::storage::RenderRow>, StorageError> {
                Ok(q::internal::render(id).fetch_optional(&self.pool).await?)
            }

            async fn renders_of(
                &self,
                evidence_id: &EvidenceId,
            ) -> Result<Vec<$crate::storage::RenderRow>, StorageError> {
                Ok(q::internal::renders_of(evidence_id).fetch_all(&self.pool).await?)
            }

            async fn claim_render(
                &self,
                now: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::RenderRow>, StorageError> {
                let _w = self.write_lock().await;
                // PostgreSQL skips the renders other workers are claiming (`$skip_locked`).
                let claim = match $skip_locked {
                    "" => q::internal::claim_render(now, stale_before),
                    _ => q::internal::claim_render_skip_locked(now, stale_before),
                };
                Ok(claim.fetch_optional(&self.pool).await?)
            }

            async fn complete_render(
                &self,
                id: &RenderId,
                blob_key: &str,
                mime: &str,
                bytes: i64,
                now: DateTime<Utc>,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::internal::complete_render(blob_key, mime, bytes, now, id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn fail_render(&self, id: &RenderId, code: &str, now: DateTime<Utc>) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::internal::fail_render(code, now, id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn insert_experiment(&self, r: &$crate::storage::ExperimentRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::internal::insert_experiment(
                    &r.id,
                    &r.key,
                    &r.name,
                    &r.description,
                    r.status,
                    &r.variants,
                    r.created_by.as_ref(),
                    r.created_at,
                    r.updated_at,
                    r.started_at,
                    r.ended_at,
                )
                .execute(&self.pool)
                .await
                .map_err($crate::storage::sql::unique_as("experiment key"))?;
                Ok(())
            }

            async fn experiment(
                &self,
                id: &ExperimentId,
            ) -> Result<Option<$crate::storage::ExperimentRow>, StorageError> {
                Ok(q::internal::experiment(id).fetch_optional(&self.pool).await?)
            }

            async fn experiments(
                &self,
                status: Option<$crate::storage::ExperimentStatus>,
                limit: i64,
                before: Option<(DateTime<Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::ExperimentRow>, StorageError> {
                let (at, id) = before.map_or((None, None), |(a, i)| (Some(a), Some(i)));
                Ok(q::internal::experiments(status, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn move_experiment(
                &self,
                id: &ExperimentId,
                from: $crate::storage::ExperimentStatus,
                to: $crate::storage::ExperimentStatus,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::ExperimentRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::internal::move_experiment(to, now, id, from).fetch_optional(&self.pool).await?)
            }

            async fn put_flag(&self, r: &$crate::storage::FlagRow) -> Result<$crate::storage::FlagRow, StorageError> {
                let _w = self.write_lock().await;
                let (by, created, updated) = (r.updated_by.as_deref(), r.created_at, r.updated_at);
                Ok(q::internal::put_flag(&r.key, &r.description, r.active, r.rollout_percent, by, created, updated)
                    .fetch_one(&self.pool)
                    .await?)
            }

            async fn flags(
                &self,
                active: Option<bool>,
                limit: i64,
                after: Option<&str>,
            ) -> Result<Vec<$crate::storage::FlagRow>, StorageError> {
                Ok(q::internal::flags(active, after, limit).fetch_all(&self.pool).await?)
            }

            async fn autonomy(&self, org_id: &OrgId) -> Result<Option<$crate::storage::AutonomyRow>, StorageError> {
                Ok(q::internal::autonomy(org_id).fetch_optional(&self.pool).await?)
            }

            async fn revise_autonomy(
                &self,
                r: &$crate::storage::AutonomyRow,
                expected: i64,
            ) -> Result<Option<$crate::storage::AutonomyRow>, StorageError> {
                let _w = self.write_lock().await;
                let revise = if expected == 0 {
                    q::internal::insert_autonomy(&r.org_id, &r.level, &r.note, &r.revised_by, r.revised_at)
                } else {
                    q::internal::revise_autonomy(&r.level, &r.note, &r.revised_by, r.revised_at, &r.org_id, expected)
                };
                Ok(revise.fetch_optional(&self.pool).await?)
            }

            async fn house_exists(&self, org_id: &OrgId) -> Result<bool, StorageError> {
                Ok(q::internal::house_exists(org_id).fetch_one(&self.pool).await? > 0)
            }

            async fn invite_request(
                &self,
                id: &InviteRequestId,
            ) -> Result<Option<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(q::internal::invite_request(id).fetch_optional(&self.pool).await?)
            }

            async fn invite_requests_since(
                &self,
                since: DateTime<Utc>,
                status: Option<$crate::storage::InviteRequestStatus>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                Ok(q::internal::invite_requests_since(since, status, limit).fetch_all(&self.pool).await?)
            }

            async fn requests_from_domain(
                &self,
                domain: &str,
                except: &str,
            ) -> Result<Vec<$crate::storage::InviteRequestRow>, StorageError> {
                let pattern = format!("%@{}", domain.replace('%', "").replace('_', "\\_"));
                Ok(q::internal::requests_like(&pattern, except).fetch_all(&self.pool).await?)
            }

            async fn insert_research(&self, r: &$crate::storage::ResearchRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::internal::insert_research(&r.id, &r.request_id, &r.findings, r.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn research_of(
                &self,
                request_id: &InviteRequestId,
            ) -> Result<Vec<$crate::storage::ResearchRow>, StorageError> {
                Ok(q::internal::research_of(request_id).fetch_all(&self.pool).await?)
            }

            async fn record_ai_call(&self, r: &$crate::storage::AiCallRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::internal::insert_ai_call(&r.id, r.org_id.as_ref(), &r.purpose, &r.outcome, r.millis, r.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn ai_calls_since(
                &self,
                since: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::ai_call_stamps(since).fetch_all(&self.pool).await?)
            }

            async fn platform_totals(&self) -> Result<$crate::storage::PlatformTotals, StorageError> {
                Ok(q::internal::platform_totals().fetch_one(&self.pool).await?)
            }

            async fn jobs_by_status_ever(&self) -> Result<Vec<$crate::storage::CountRow>, StorageError> {
                Ok(q::internal::jobs_by_status_ever().fetch_all(&self.pool).await?)
            }

            async fn funnel(&self, since: DateTime<Utc>) -> Result<$crate::storage::FunnelRow, StorageError> {
                Ok(q::internal::funnel(since).fetch_one(&self.pool).await?)
            }

            async fn develop_stamps(
                &self,
                since: DateTime<Utc>,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::develop_stamps(since, org_id).fetch_all(&self.pool).await?)
            }

            async fn upload_stamps(
                &self,
                since: DateTime<Utc>,
                org_id: Option<&OrgId>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::upload_stamps(since, org_id).fetch_all(&self.pool).await?)
            }

            async fn pack_stamps(&self, since: DateTime<Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::pack_stamps(since).fetch_all(&self.pool).await?)
            }

            async fn lane_stamps(&self, since: DateTime<Utc>) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::lane_stamps(since).fetch_all(&self.pool).await?)
            }

            async fn spend_stamps(
                &self,
                org_id: &OrgId,
                since: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::spend_stamps(since, org_id).fetch_all(&self.pool).await?)
            }

            async fn failure_counts(
                &self,
                since: DateTime<Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::failure_counts(since, limit).fetch_all(&self.pool).await?)
            }

            async fn letter_stamps(
                &self,
                since: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::letter_stamps(since).fetch_all(&self.pool).await?)
            }

            async fn memory_stamps(
                &self,
                since: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::memory_stamps(since, since).fetch_all(&self.pool).await?)
            }

            async fn retake_stamps(
                &self,
                since: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::StampRow>, StorageError> {
                Ok(q::internal::retake_stamps(since).fetch_all(&self.pool).await?)
            }
        }
    };
}

pub(in crate::storage) use impl_internal_store;
