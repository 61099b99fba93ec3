//! The SQL of looks, shot templates and the standing preset ([`LookbookStore`](crate::storage::LookbookStore)).

macro_rules! impl_lookbook_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LookbookStore for $ty {
            async fn insert_looks(&self, looks: Vec<LookRow>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                for l in &looks {
                    sqlx::query(concat!(
                        "INSERT INTO looks (",
                        look_columns!(),
                        ") \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
                    ))
                    .bind(&l.id)
                    .bind(&l.org_id)
                    .bind(&l.created_by)
                    .bind(&l.brand_id)
                    .bind(&l.name)
                    .bind(&l.model_asset_id)
                    .bind(&l.items)
                    .bind(&l.background)
                    .bind(&l.aesthetic)
                    .bind(&l.status)
                    .bind(&l.look_base_asset_id)
                    .bind(&l.look_base_job_id)
                    .bind(&l.batch_id)
                    .bind(l.created_at)
                    .bind(l.updated_at)
                    .bind(&l.look_base_parent_id)
                    .bind(&l.planned_keys)
                    .bind(&l.planned_quality)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn looks(&self, org_id: &OrgId, limit: i64) -> Result<Vec<LookRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    look_columns!(),
                    " FROM looks WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn look(&self, org_id: &OrgId, id: &LookId) -> Result<Option<LookRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", look_columns!(), " FROM looks WHERE org_id = $1 AND id = $2"))
                    .bind(org_id)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn create_look_jobs(&self, guard: LookGuard, jobs: Vec<JobRow>) -> Result<LookJobsOutcome, StorageError> {
                if jobs.is_empty() {
                    return Ok(LookJobsOutcome::Jobs(CreateJobsOutcome::Created(Vec::new())));
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let mut bal = lock_balance(&mut tx, &guard.org_id).await?;
                if let Some(prior) = prior_look_jobs(&mut tx, &LookId::from(&guard.look_id), &jobs).await? {
                    return Ok(LookJobsOutcome::Jobs(prior));
                }
                let status: Option<(String,)> =
                    sqlx::query_as(concat!("SELECT status FROM looks WHERE id = $1 AND org_id = $2", $lock))
                        .bind(&guard.look_id)
                        .bind(&guard.org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let Some((status,)) = status else { return Ok(LookJobsOutcome::NotFound) };
                if status != guard.status {
                    return Ok(LookJobsOutcome::WrongStatus(status));
                }
                if look_in_flight(&mut tx, &LookId::from(&guard.look_id)).await? {
                    return Ok(LookJobsOutcome::InFlight);
                }
                // Planned and written as a group commit writes its calls (one statement on
                // PostgreSQL), not hold by hold.
                let before = bal.clone();
                let mut writes = GroupWrites::default();
                let outcome = writes.plan(&mut bal, jobs, None);
                if matches!(outcome, CreateJobsOutcome::Created(_)) {
                    writes.flush(&mut tx, &guard.org_id, &before, &bal).await?;
                    tx.commit().await?;
                }
                Ok(LookJobsOutcome::Jobs(outcome))
            }

            async fn set_look_lock(&self, org_id: &OrgId, look_id: &LookId, change: LockChange, now: DateTime<Utc>) -> Result<LockOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let look: Option<LookRow> =
                    sqlx::query_as(concat!("SELECT ", look_columns!(), " FROM looks WHERE id = $1 AND org_id = $2", $lock))
                        .bind(look_id)
                        .bind(org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                let Some(mut look) = look else { return Ok(LockOutcome::NotFound) };
                if look_in_flight(&mut tx, look_id).await? {
                    return Ok(LockOutcome::InFlight);
                }
                match change {
                    LockChange::Unlock => {
                        if look.status == LookStatus::Draft {
                            return Ok(LockOutcome::Unchanged(look));
                        }
                        look.status = LookStatus::Draft;
                    }
                    LockChange::Lock { asset_id, parent_id } => {
                        let job: Option<(String,)> = sqlx::query_as(
                            "SELECT j.id FROM jobs j JOIN assets a ON a.id = j.result_asset_id AND a.deleted_at IS NULL \
                             WHERE j.org_id = $1 AND j.look_id = $2 AND j.result_asset_id = $3 AND j.status = 'done' \
                             AND j.tool = 'lookbook' \
                             ORDER BY j.created_at DESC, j.id DESC LIMIT 1",
                        )
                        .bind(org_id)
                        .bind(look_id)
                        .bind(&asset_id)
                        .fetch_optional(&mut *tx)
                        .await?;
                        let Some((job_id,)) = job else { return Ok(LockOutcome::NotAFrame) };
                        look.status = LookStatus::Locked;
                        look.look_base_asset_id = Some(AssetId::from(asset_id));
                        look.look_base_job_id = Some(JobId::from(job_id));
                        look.look_base_parent_id = parent_id;
                    }
                }
                look.updated_at = now;
                sqlx::query(
                    "UPDATE looks SET status = $1, look_base_asset_id = $2, look_base_job_id = $3, \
                     look_base_parent_id = $4, updated_at = $5 WHERE id = $6",
                )
                .bind(&look.status)
                .bind(&look.look_base_asset_id)
                .bind(&look.look_base_job_id)
                .bind(&look.look_base_parent_id)
                .bind(look.updated_at)
                .bind(&look.id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(LockOutcome::Changed(look))
            }

            async fn look_jobs(&self, org_id: &OrgId, look_id: &LookId) -> Result<Vec<JobRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    job_columns!(),
                    " FROM jobs WHERE org_id = $1 AND look_id = $2 ORDER BY created_at, id"
                ))
                .bind(org_id)
                .bind(look_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn templates(&self, org_id: &OrgId) -> Result<Vec<TemplateRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    template_columns!(),
                    " FROM shot_templates t WHERE t.org_id IS NULL OR t.org_id = $1 \
                     ORDER BY CASE WHEN t.org_id IS NULL THEN 0 ELSE 1 END, t.created_at, t.id"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn template(&self, org_id: &OrgId, id: &TemplateId) -> Result<Option<TemplateRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    template_columns!(),
                    " FROM shot_templates t WHERE t.id = $1 \
                     AND (t.org_id IS NULL OR t.org_id = $2)"
                ))
                .bind(id)
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn template_shots(&self, template_id: &TemplateId) -> Result<Vec<TemplateShotRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, kind, framing, pose, expression, sort_order FROM template_shots \
                     WHERE template_id = $1 ORDER BY sort_order, id",
                )
                .bind(template_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn preset(&self, org_id: &OrgId) -> Result<Option<PresetRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", preset_columns!(), " FROM standing_presets WHERE org_id = $1"))
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn save_preset(&self, p: PresetRow, keep_sizes: bool) -> Result<PresetRow, StorageError> {
                let _w = self.write_lock().await;
                let sql = if keep_sizes {
                    concat!(
                        "INSERT INTO standing_presets (",
                        preset_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                         ON CONFLICT (org_id) DO UPDATE SET model_asset_id = excluded.model_asset_id, \
                         background = excluded.background, aesthetic = excluded.aesthetic, \
                         variation_keys = excluded.variation_keys, quality = excluded.quality, \
                         updated_at = excluded.updated_at RETURNING ",
                        preset_columns!()
                    )
                } else {
                    concat!(
                        "INSERT INTO standing_presets (",
                        preset_columns!(),
                        ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                         ON CONFLICT (org_id) DO UPDATE SET model_asset_id = excluded.model_asset_id, \
                         background = excluded.background, aesthetic = excluded.aesthetic, \
                         variation_keys = excluded.variation_keys, quality = excluded.quality, \
                         sizes = excluded.sizes, updated_at = excluded.updated_at RETURNING ",
                        preset_columns!()
                    )
                };
                Ok(sqlx::query_as(sql)
                    .bind(&p.org_id)
                    .bind(&p.model_asset_id)
                    .bind(&p.background)
                    .bind(&p.aesthetic)
                    .bind(&p.variation_keys)
                    .bind(&p.quality)
                    .bind(&p.sizes)
                    .bind(p.updated_at)
                    .fetch_one(&self.pool)
                    .await?)
            }
        }

        /// Is a develop of the look queued or rendering?
        async fn look_in_flight(tx: &mut Tx, look_id: &LookId) -> Result<bool, StorageError> {
            let open: Option<(String,)> =
                sqlx::query_as("SELECT id FROM jobs WHERE look_id = $1 AND status IN ('queued', 'running') LIMIT 1")
                    .bind(look_id)
                    .fetch_optional(&mut **tx)
                    .await?;
            Ok(open.is_some())
        }

        /// An earlier request on the look with the same idempotency keys: all its jobs; a key
        /// used for anything else (another look, other frames) is `KeyReused`. None when new.
        async fn prior_look_jobs(tx: &mut Tx, look_id: &LookId, jobs: &[JobRow]) -> Result<Option<CreateJobsOutcome>, StorageError> {
            let Some(user_id) = jobs[0].user_id.as_deref() else { return Ok(None) };
            let Some(keys) = jobs.iter().map(|j| j.idempotency_key.as_deref()).collect::<Option<Vec<&str>>>() else {
                return Ok(None);
            };
            // One query for every frame's key, answered in the frames' order.
            let mut q = sqlx::QueryBuilder::new(concat!("SELECT ", job_columns!(), " FROM jobs WHERE user_id = "));
            q.push_bind(user_id).push(" AND idempotency_key IN (");
            let mut list = q.separated(", ");
            for key in &keys {
                list.push_bind(*key);
            }
            q.push(")");
            let rows: Vec<JobRow> = q.build_query_as().fetch_all(&mut **tx).await?;
            let by_key: std::collections::HashMap<String, JobRow> =
                rows.into_iter().filter_map(|j| Some((j.idempotency_key.clone()?, j))).collect();
            let found: Vec<JobRow> = keys.iter().filter_map(|k| by_key.get(*k).cloned()).collect();
            if found.is_empty() {
                return Ok(None);
            }
            if found.len() != jobs.len() || found.iter().any(|j| j.look_id.as_deref() != Some(look_id)) {
                return Ok(Some(CreateJobsOutcome::KeyReused));
            }
            Ok(Some(CreateJobsOutcome::Existing(found)))
        }
    };
}

pub(in crate::storage) use impl_lookbook_store;
