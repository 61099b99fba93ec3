//! The SQL of pipeline presets, runs and steps ([`PipelineStore`](crate::storage::PipelineStore)).
//! Lock order: a run's row, then the house's balance row (as looks: entity, then money), never
//! a job row in the same transaction. Every statement of fixed shape is declared in [`q`] (see
//! stmt.rs); a run's steps are inserted, and a list of runs read, with a `QueryBuilder`, because
//! their row count varies.

/// The columns of `pipeline_presets` in [`PipelinePresetRow`](crate::storage::PipelinePresetRow) order.
macro_rules! pipeline_preset_columns {
    () => {
        "id, org_id, created_by, name, plan, sink_folder_id, created_at, updated_at"
    };
}

/// The columns of `pipeline_runs` in [`PipelineRunRow`](crate::storage::PipelineRunRow) order.
macro_rules! pipeline_run_columns {
    () => {
        "id, org_id, user_id, name, plan_id, plan, brand_id, idempotency_key, request_hash, status, cancel_requested, \
         frames_planned, frames_skipped, tokens_planned, created_at, finished_at"
    };
}

/// The columns of `pipeline_steps s` in [`PipelineStepRow`](crate::storage::PipelineStepRow) order.
macro_rules! pipeline_step_columns {
    () => {
        "s.id, s.run_id, s.org_id, s.idx, s.item, s.node_id, s.tool, s.quality, s.params, s.inputs, s.upstream, \
         s.sink_folder_id, s.hold_id, s.tokens, s.status, s.job_id, s.error, s.created_at, s.updated_at"
    };
}

pub(in crate::storage) use pipeline_run_columns;

/// The pipelines' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{FolderId, HoldId, JobId, OrgId, PresetId, RunId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{PipelinePresetRow, PipelineRunRow, RunStatus, StepState};

    statements! {
        /// Insert a pipeline preset.
        fn insert_preset(
            id: &'q PresetId,
            org_id: &'q OrgId,
            created_by: Option<&'q UserId>,
            name: &'q str,
            plan: &'q str,
            sink_folder_id: Option<&'q FolderId>,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO pipeline_presets (", pipeline_preset_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// A house's pipeline presets, newest first.
        fn presets(org_id: &'q OrgId, limit: i64) -> row<PipelinePresetRow> [house] {
            "SELECT ", pipeline_preset_columns!(),
            " FROM pipeline_presets WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        }

        /// A pipeline preset of a house.
        fn preset(org_id: &'q OrgId, id: &'q PresetId) -> row<PipelinePresetRow> [house] {
            "SELECT ", pipeline_preset_columns!(), " FROM pipeline_presets WHERE org_id = $1 AND id = $2"
        }

        /// Rewrite a pipeline preset of a house.
        fn update_preset(
            name: &'q str,
            plan: &'q str,
            sink_folder_id: Option<&'q FolderId>,
            updated_at: DateTime<Utc>,
            org_id: &'q OrgId,
            id: &'q PresetId,
        ) -> row<PipelinePresetRow> [house] {
            "UPDATE pipeline_presets SET name = $1, plan = $2, sink_folder_id = $3, updated_at = $4 \
             WHERE org_id = $5 AND id = $6 RETURNING ", pipeline_preset_columns!()
        }

        /// Delete a pipeline preset of a house.
        fn delete_preset(org_id: &'q OrgId, id: &'q PresetId) -> exec [house] {
            "DELETE FROM pipeline_presets WHERE org_id = $1 AND id = $2"
        }

        /// A person's run under an idempotency key.
        fn run_by_key(user_id: &'q UserId, idempotency_key: &'q str) -> row<PipelineRunRow> [any "an idempotency key is the asking person's own"] {
            "SELECT ", pipeline_run_columns!(), " FROM pipeline_runs WHERE user_id = $1 AND idempotency_key = $2"
        }

        /// Insert a pipeline run.
        fn insert_run(
            id: &'q RunId,
            org_id: &'q OrgId,
            user_id: Option<&'q UserId>,
            name: &'q str,
            plan_id: Option<&'q str>,
            plan: &'q str,
            brand_id: Option<&'q str>,
            idempotency_key: Option<&'q str>,
            request_hash: &'q str,
            status: RunStatus,
            cancel_requested: bool,
            frames_planned: i64,
            frames_skipped: i64,
            tokens_planned: i64,
            created_at: DateTime<Utc>,
            finished_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO pipeline_runs (", pipeline_run_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
        }

        /// A pipeline run of a house.
        fn run(org_id: &'q OrgId, id: &'q RunId) -> row<PipelineRunRow> [house] {
            "SELECT ", pipeline_run_columns!(), " FROM pipeline_runs WHERE org_id = $1 AND id = $2"
        }

        /// A house's pipeline runs, newest first.
        fn runs(org_id: &'q OrgId, limit: i64) -> row<PipelineRunRow> [house] {
            "SELECT ", pipeline_run_columns!(),
            " FROM pipeline_runs WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        }

        /// A run's steps in order, each with its job's state and result.
        fn steps(run_id: &'q RunId) -> row<StepState> [any "a run id is unique across houses; callers name a run they just read of their house, or the sweep's"] {
            "SELECT ", pipeline_step_columns!(), ", j.status AS job_status, j.tokens_settled AS job_tokens_settled, \
             j.result_asset_id AS job_result_asset_id, j.error AS job_error, \
             a.blob_key AS result_blob_key, a.mime AS result_mime \
             FROM pipeline_steps s LEFT JOIN jobs j ON j.id = s.job_id \
             LEFT JOIN assets a ON a.id = j.result_asset_id \
             WHERE s.run_id = $1 ORDER BY s.idx"
        }

        /// Developing runs of every house after run `id`, by id: house and run.
        fn open_runs(id: &'q str, limit: i64) -> row<(String, String)> [any "the pipeline sweep advances every house's developing runs"] {
            "SELECT org_id, id FROM pipeline_runs WHERE status = 'developing' AND id > $1 ORDER BY id LIMIT $2"
        }

        /// Whether a run of a house was asked to cancel, the run locked (PostgreSQL).
        fn run_cancel_flag(id: &'q RunId, org_id: &'q OrgId) -> row<(bool,)> [house, lock] {
            "SELECT cancel_requested FROM pipeline_runs WHERE id = $1 AND org_id = $2"
        }

        /// End a waiting step; its hold (no row when it was not waiting).
        fn end_step(
            status: &'q str,
            error: &'q str,
            updated_at: DateTime<Utc>,
            id: &'q str,
            run_id: &'q RunId,
            org_id: &'q OrgId,
        ) -> row<(String,)> [house] {
            "UPDATE pipeline_steps SET status = $1, error = $2, updated_at = $3 \
             WHERE id = $4 AND run_id = $5 AND org_id = $6 AND status = 'waiting' RETURNING hold_id"
        }

        /// Start a waiting step with its job (no row when it was not waiting on that hold).
        fn start_step(
            job_id: &'q JobId,
            updated_at: DateTime<Utc>,
            id: &'q str,
            run_id: &'q RunId,
            hold_id: &'q HoldId,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE pipeline_steps SET status = 'started', job_id = $1, updated_at = $2 \
             WHERE id = $3 AND run_id = $4 AND status = 'waiting' AND hold_id = $5 AND org_id = $6"
        }

        /// End a developing run of a house whose steps all left waiting (no row otherwise).
        fn finish_run(
            status: &'q str,
            finished_at: DateTime<Utc>,
            id: &'q RunId,
            org_id: &'q OrgId,
            run_id: &'q RunId,
        ) -> exec [house] {
            "UPDATE pipeline_runs SET status = $1, finished_at = $2 \
             WHERE id = $3 AND org_id = $4 AND status = 'developing' \
             AND NOT EXISTS (SELECT 1 FROM pipeline_steps WHERE run_id = $5 AND status = 'waiting')"
        }

        /// A pipeline run of a house, locked (PostgreSQL) to be cancelled.
        fn run_locked(id: &'q RunId, org_id: &'q OrgId) -> row<PipelineRunRow> [house, lock] {
            "SELECT ", pipeline_run_columns!(), " FROM pipeline_runs WHERE id = $1 AND org_id = $2"
        }

        /// Flag a run of a house cancelled: nothing more is queued.
        fn request_cancel(id: &'q RunId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE pipeline_runs SET cancel_requested = TRUE WHERE id = $1 AND org_id = $2"
        }

        /// Cancel a run's waiting steps: each one's id, hold and tokens.
        fn cancel_steps(
            error: &'q str,
            updated_at: DateTime<Utc>,
            run_id: &'q RunId,
            org_id: &'q OrgId,
        ) -> row<(String, String, i64)> [house] {
            "UPDATE pipeline_steps SET status = 'cancelled', error = $1, updated_at = $2 \
             WHERE run_id = $3 AND org_id = $4 AND status = 'waiting' RETURNING id, hold_id, tokens"
        }
    }
}

macro_rules! impl_pipeline_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::PipelineStore for $ty {
            async fn insert_pipeline_preset(&self, row: $crate::storage::PipelinePresetRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::pipelines::insert_preset(
                    &row.id,
                    &row.org_id,
                    row.created_by.as_ref(),
                    &row.name,
                    &row.plan,
                    row.sink_folder_id.as_ref(),
                    row.created_at,
                    row.updated_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pipeline_presets(&self, org_id: &OrgId, limit: i64) -> Result<Vec<$crate::storage::PipelinePresetRow>, StorageError> {
                Ok(q::pipelines::presets(org_id, limit).fetch_all(&self.pool).await?)
            }

            async fn pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<Option<$crate::storage::PipelinePresetRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::pipelines::preset(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn update_pipeline_preset(
                &self,
                org_id: &OrgId,
                id: &PresetId,
                name: &str,
                plan: &str,
                sink_folder_id: Option<&FolderId>,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::PipelinePresetRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::pipelines::update_preset(name, plan, sink_folder_id, now, org_id, id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn delete_pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::pipelines::delete_preset(org_id, id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn create_pipeline_run(
                &self,
                run: $crate::storage::PipelineRunRow,
                steps: Vec<$crate::storage::PipelineStepRow>,
                jobs: Vec<JobRow>,
            ) -> Result<$crate::storage::RunCreateOutcome, StorageError> {
                use $crate::storage::RunCreateOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let mut bal = lock_balance(&mut tx, &run.org_id).await?;
                if let (Some(user), Some(key)) = (&run.user_id, &run.idempotency_key) {
                    let prior = q::pipelines::run_by_key(user, key).fetch_optional(&mut *tx).await?;
                    if let Some(prior) = prior {
                        return Ok(RunCreateOutcome::Existing(prior));
                    }
                }
                let need: i64 = steps.iter().map(|s| s.tokens).sum();
                if bal.spendable() < need {
                    return Ok(RunCreateOutcome::Insufficient { need, spendable: bal.spendable() });
                }
                let before = bal.clone();
                let mut writes = GroupWrites::default();
                let holds = steps
                    .iter()
                    .map(|s| NewHold {
                        id: s.hold_id.clone(),
                        org_id: s.org_id.clone(),
                        amount: s.tokens,
                        generation_id: Some(s.id.clone()),
                        user_id: run.user_id.clone(),
                        now: s.created_at,
                    })
                    .collect();
                writes.plan_holds(&mut bal, holds);
                let queued = writes.plan_held_jobs(&mut bal, jobs);
                q::pipelines::insert_run(
                    &run.id,
                    &run.org_id,
                    run.user_id.as_ref(),
                    &run.name,
                    run.plan_id.as_deref(),
                    &run.plan,
                    run.brand_id.as_deref(),
                    run.idempotency_key.as_deref(),
                    &run.request_hash,
                    run.status,
                    run.cancel_requested,
                    run.frames_planned,
                    run.frames_skipped,
                    run.tokens_planned,
                    run.created_at,
                    run.finished_at,
                )
                .execute(&mut *tx)
                .await
                .map_err(unique_as("pipeline idempotency key"))?;
                for chunk in steps.chunks(500) {
                    let mut q = sqlx::QueryBuilder::<Db>::new(
                        "INSERT INTO pipeline_steps (id, run_id, org_id, idx, item, node_id, tool, quality, params, inputs, \
                         upstream, sink_folder_id, hold_id, tokens, status, job_id, error, created_at, updated_at) ",
                    );
                    q.push_values(chunk, |mut b, s| {
                        b.push_bind(&s.id)
                            .push_bind(&s.run_id)
                            .push_bind(&s.org_id)
                            .push_bind(s.idx)
                            .push_bind(s.item)
                            .push_bind(&s.node_id)
                            .push_bind(&s.tool)
                            .push_bind(&s.quality)
                            .push_bind(&s.params)
                            .push_bind(&s.inputs)
                            .push_bind(&s.upstream)
                            .push_bind(&s.sink_folder_id)
                            .push_bind(&s.hold_id)
                            .push_bind(s.tokens)
                            .push_bind(&s.status)
                            .push_bind(&s.job_id)
                            .push_bind(&s.error)
                            .push_bind(s.created_at)
                            .push_bind(s.updated_at);
                    });
                    q.build().execute(&mut *tx).await?;
                }
                writes.flush(&mut tx, &run.org_id, &before, &bal).await?;
                tx.commit().await?;
                Ok(RunCreateOutcome::Created(run, queued))
            }

            async fn pipeline_run(&self, org_id: &OrgId, id: &RunId) -> Result<Option<$crate::storage::PipelineRunRow>, StorageError> {
                Ok(q::pipelines::run(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn pipeline_runs(&self, org_id: &OrgId, limit: i64) -> Result<Vec<$crate::storage::PipelineRunRow>, StorageError> {
                Ok(q::pipelines::runs(org_id, limit).fetch_all(&self.pool).await?)
            }

            async fn pipeline_runs_in(&self, org_id: &OrgId, ids: &[String]) -> Result<Vec<$crate::storage::PipelineRunRow>, StorageError> {
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let mut q = sqlx::QueryBuilder::<Db>::new(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_run_columns!(),
                    " FROM pipeline_runs WHERE org_id = "
                ));
                q.push_bind(org_id).push(" AND id IN (");
                let mut list = q.separated(", ");
                for id in ids {
                    list.push_bind(id);
                }
                q.push(")");
                Ok(q.build_query_as().fetch_all(&self.pool).await?)
            }

            async fn pipeline_steps(&self, run_id: &RunId) -> Result<Vec<$crate::storage::StepState>, StorageError> {
                Ok(q::pipelines::steps(run_id).fetch_all(&self.pool).await?)
            }

            async fn open_pipeline_runs(&self, after: &str, limit: i64) -> Result<Vec<(String, String)>, StorageError> {
                Ok(q::pipelines::open_runs(after, limit).fetch_all(&self.pool).await?)
            }

            async fn advance_pipeline(
                &self,
                org_id: &OrgId,
                run_id: &RunId,
                advance: $crate::storage::StepAdvance,
                now: DateTime<Utc>,
            ) -> Result<$crate::storage::AdvanceOutcome, StorageError> {
                let mut outcome = $crate::storage::AdvanceOutcome::default();
                if advance.queue.is_empty() && advance.end.is_empty() {
                    return Ok(outcome);
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let flag = q::pipelines::run_cancel_flag(run_id, org_id).fetch_optional(&mut *tx).await?;
                let Some((cancel_requested,)) = flag else { return Ok(outcome) };
                lock_balance(&mut tx, org_id).await?;
                for end in &advance.end {
                    let hold = q::pipelines::end_step(end.status, &end.error, now, &end.step_id, run_id, org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if let Some((hold_id,)) = hold {
                        resolve_in(&mut tx, org_id, &HoldId::from(&hold_id), now, false, 0).await?;
                        outcome.ended += 1;
                    }
                }
                if !cancel_requested {
                    let mut bal = lock_balance(&mut tx, org_id).await?;
                    let before = bal.clone();
                    let mut jobs = Vec::with_capacity(advance.queue.len());
                    for (step_id, job) in advance.queue {
                        let started = q::pipelines::start_step(&job.id, now, &step_id, run_id, &job.hold_id, org_id)
                            .execute(&mut *tx)
                            .await?;
                        if started.rows_affected() == 1 {
                            jobs.push(job);
                        }
                    }
                    let mut writes = GroupWrites::default();
                    outcome.queued = writes.plan_held_jobs(&mut bal, jobs);
                    writes.flush(&mut tx, org_id, &before, &bal).await?;
                }
                tx.commit().await?;
                Ok(outcome)
            }

            async fn finish_pipeline_run(&self, org_id: &OrgId, run_id: &RunId, status: &str, now: DateTime<Utc>) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = q::pipelines::finish_run(status, now, run_id, org_id, run_id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }

            async fn cancel_pipeline(&self, org_id: &OrgId, run_id: &RunId, now: DateTime<Utc>) -> Result<Option<$crate::storage::RunCancelled>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let run = q::pipelines::run_locked(run_id, org_id).fetch_optional(&mut *tx).await?;
                let Some(mut run) = run else { return Ok(None) };
                if run.status != RunStatus::Developing {
                    return Ok(Some($crate::storage::RunCancelled { run, steps: Vec::new() }));
                }
                q::pipelines::request_cancel(run_id, org_id).execute(&mut *tx).await?;
                run.cancel_requested = true;
                lock_balance(&mut tx, org_id).await?;
                let waiting =
                    q::pipelines::cancel_steps("The run was cancelled before this step started.", now, run_id, org_id)
                        .fetch_all(&mut *tx)
                        .await?;
                let mut steps = Vec::with_capacity(waiting.len());
                for (id, hold_id, tokens) in waiting {
                    resolve_in(&mut tx, org_id, &HoldId::from(&hold_id), now, false, 0).await?;
                    steps.push((id, tokens));
                }
                tx.commit().await?;
                Ok(Some($crate::storage::RunCancelled { run, steps }))
            }
        }
    };
}

pub(in crate::storage) use impl_pipeline_store;
