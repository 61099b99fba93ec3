//! The SQL of pipeline presets, runs and steps ([`PipelineStore`](crate::storage::PipelineStore)).
//! Lock order: a run's row, then the house's balance row (as looks: entity, then money), never
//! a job row in the same transaction.

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

pub(in crate::storage) use {pipeline_preset_columns, pipeline_run_columns, pipeline_step_columns};

macro_rules! impl_pipeline_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::PipelineStore for $ty {
            async fn insert_pipeline_preset(&self, row: $crate::storage::PipelinePresetRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO pipeline_presets (",
                    $crate::storage::sql::pipelines::pipeline_preset_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                ))
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.created_by)
                .bind(&row.name)
                .bind(&row.plan)
                .bind(&row.sink_folder_id)
                .bind(row.created_at)
                .bind(row.updated_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pipeline_presets(&self, org_id: &OrgId, limit: i64) -> Result<Vec<$crate::storage::PipelinePresetRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_preset_columns!(),
                    " FROM pipeline_presets WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<Option<$crate::storage::PipelinePresetRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_preset_columns!(),
                    " FROM pipeline_presets WHERE org_id = $1 AND id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
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
                Ok(sqlx::query_as(concat!(
                    "UPDATE pipeline_presets SET name = $3, plan = $4, sink_folder_id = $5, updated_at = $6 \
                     WHERE org_id = $1 AND id = $2 RETURNING ",
                    $crate::storage::sql::pipelines::pipeline_preset_columns!()
                ))
                .bind(org_id)
                .bind(id)
                .bind(name)
                .bind(plan)
                .bind(sink_folder_id)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn delete_pipeline_preset(&self, org_id: &OrgId, id: &PresetId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM pipeline_presets WHERE org_id = $1 AND id = $2")
                    .bind(org_id)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
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
                    let prior: Option<$crate::storage::PipelineRunRow> = sqlx::query_as(concat!(
                        "SELECT ",
                        $crate::storage::sql::pipelines::pipeline_run_columns!(),
                        " FROM pipeline_runs WHERE user_id = $1 AND idempotency_key = $2"
                    ))
                    .bind(user)
                    .bind(key)
                    .fetch_optional(&mut *tx)
                    .await?;
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
                        id: s.hold_id.clone().into(),
                        org_id: s.org_id.clone(),
                        amount: s.tokens,
                        generation_id: Some(s.id.clone()),
                        user_id: run.user_id.clone(),
                        now: s.created_at,
                    })
                    .collect();
                writes.plan_holds(&mut bal, holds);
                let queued = writes.plan_held_jobs(&mut bal, jobs);
                sqlx::query(concat!(
                    "INSERT INTO pipeline_runs (",
                    $crate::storage::sql::pipelines::pipeline_run_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
                ))
                .bind(&run.id)
                .bind(&run.org_id)
                .bind(&run.user_id)
                .bind(&run.name)
                .bind(&run.plan_id)
                .bind(&run.plan)
                .bind(&run.brand_id)
                .bind(&run.idempotency_key)
                .bind(&run.request_hash)
                .bind(&run.status)
                .bind(run.cancel_requested)
                .bind(run.frames_planned)
                .bind(run.frames_skipped)
                .bind(run.tokens_planned)
                .bind(run.created_at)
                .bind(run.finished_at)
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_run_columns!(),
                    " FROM pipeline_runs WHERE org_id = $1 AND id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn pipeline_runs(&self, org_id: &OrgId, limit: i64) -> Result<Vec<$crate::storage::PipelineRunRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_run_columns!(),
                    " FROM pipeline_runs WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_step_columns!(),
                    ", j.status AS job_status, j.tokens_settled AS job_tokens_settled, \
                     j.result_asset_id AS job_result_asset_id, j.error AS job_error, \
                     a.blob_key AS result_blob_key, a.mime AS result_mime \
                     FROM pipeline_steps s LEFT JOIN jobs j ON j.id = s.job_id \
                     LEFT JOIN assets a ON a.id = j.result_asset_id \
                     WHERE s.run_id = $1 ORDER BY s.idx"
                ))
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn open_pipeline_runs(&self, after: &str, limit: i64) -> Result<Vec<(String, String)>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT org_id, id FROM pipeline_runs WHERE status = 'developing' AND id > $1 ORDER BY id LIMIT $2",
                )
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
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
                let flag: Option<(bool,)> = sqlx::query_as(concat!(
                    "SELECT cancel_requested FROM pipeline_runs WHERE id = $1 AND org_id = $2",
                    $lock
                ))
                .bind(run_id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some((cancel_requested,)) = flag else { return Ok(outcome) };
                lock_balance(&mut tx, org_id).await?;
                for end in &advance.end {
                    let hold: Option<(String,)> = sqlx::query_as(
                        "UPDATE pipeline_steps SET status = $1, error = $2, updated_at = $3 \
                         WHERE id = $4 AND run_id = $5 AND status = 'waiting' RETURNING hold_id",
                    )
                    .bind(end.status)
                    .bind(&end.error)
                    .bind(now)
                    .bind(&end.step_id)
                    .bind(run_id)
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
                        let started = sqlx::query(
                            "UPDATE pipeline_steps SET status = 'started', job_id = $1, updated_at = $2 \
                             WHERE id = $3 AND run_id = $4 AND status = 'waiting' AND hold_id = $5",
                        )
                        .bind(&job.id)
                        .bind(now)
                        .bind(&step_id)
                        .bind(run_id)
                        .bind(&job.hold_id)
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
                let done = sqlx::query(
                    "UPDATE pipeline_runs SET status = $1, finished_at = $2 \
                     WHERE id = $3 AND org_id = $4 AND status = 'developing' \
                     AND NOT EXISTS (SELECT 1 FROM pipeline_steps WHERE run_id = $3 AND status = 'waiting')",
                )
                .bind(status)
                .bind(now)
                .bind(run_id)
                .bind(org_id)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn cancel_pipeline(&self, org_id: &OrgId, run_id: &RunId, now: DateTime<Utc>) -> Result<Option<$crate::storage::RunCancelled>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let run: Option<$crate::storage::PipelineRunRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::pipelines::pipeline_run_columns!(),
                    " FROM pipeline_runs WHERE id = $1 AND org_id = $2",
                    $lock
                ))
                .bind(run_id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(mut run) = run else { return Ok(None) };
                if run.status != RunStatus::Developing {
                    return Ok(Some($crate::storage::RunCancelled { run, steps: Vec::new() }));
                }
                sqlx::query("UPDATE pipeline_runs SET cancel_requested = TRUE WHERE id = $1")
                    .bind(run_id)
                    .execute(&mut *tx)
                    .await?;
                run.cancel_requested = true;
                lock_balance(&mut tx, org_id).await?;
                let waiting: Vec<(String, String, i64)> = sqlx::query_as(
                    "UPDATE pipeline_steps SET status = 'cancelled', error = $1, updated_at = $2 \
                     WHERE run_id = $3 AND status = 'waiting' RETURNING id, hold_id, tokens",
                )
                .bind("The run was cancelled before this step started.")
                .bind(now)
                .bind(run_id)
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
