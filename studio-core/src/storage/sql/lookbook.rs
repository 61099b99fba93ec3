//! The SQL of looks, shot templates and the standing preset ([`LookbookStore`](crate::storage::LookbookStore)).
//! Every statement of fixed shape is declared in [`q`] (see stmt.rs); the replay check of a
//! look's frames is built with a `QueryBuilder`, because its key count varies.

/// The lookbook's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::api::LookStatus;
    use crate::ids::{AssetId, JobId, LookId, OrgId, TemplateId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{job_columns, look_columns, preset_columns, template_columns};
    use crate::storage::{JobRow, LookRow, PresetRow, TemplateRow, TemplateShotRow};

    statements! {
        /// Store a look.
        fn insert_look(
            id: &'q LookId,
            org_id: &'q OrgId,
            created_by: &'q UserId,
            brand_id: Option<&'q str>,
            name: &'q str,
            model_asset_id: &'q AssetId,
            items: &'q str,
            background: &'q str,
            aesthetic: &'q str,
            status: &'q LookStatus,
            look_base_asset_id: Option<&'q AssetId>,
            look_base_job_id: Option<&'q JobId>,
            batch_id: Option<&'q str>,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
            look_base_parent_id: Option<&'q str>,
            planned_keys: Option<&'q str>,
            planned_quality: Option<&'q str>,
        ) -> exec [house] {
            "INSERT INTO looks (", look_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
        }

        /// A house's looks, newest first.
        fn looks(org_id: &'q OrgId, limit: i64) -> row<LookRow> [house] {
            "SELECT ", look_columns!(), " FROM looks WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        }

        /// A look of a house.
        fn look(org_id: &'q OrgId, id: &'q LookId) -> row<LookRow> [house] {
            "SELECT ", look_columns!(), " FROM looks WHERE org_id = $1 AND id = $2"
        }

        /// A look of a house, locked (PostgreSQL) to be locked or unlocked.
        fn look_locked(id: &'q LookId, org_id: &'q OrgId) -> row<LookRow> [house, lock] {
            "SELECT ", look_columns!(), " FROM looks WHERE id = $1 AND org_id = $2"
        }

        /// The status of a look of a house, locked (PostgreSQL) while jobs are queued on it.
        fn look_status_locked(id: &'q LookId, org_id: &'q OrgId) -> row<(String,)> [house, lock] {
            "SELECT status FROM looks WHERE id = $1 AND org_id = $2"
        }

        /// The newest landed lookbook develop of a look of a house that made a live asset.
        fn look_frame(org_id: &'q OrgId, look_id: &'q LookId, result_asset_id: &'q str) -> row<(String,)> [house] {
            "SELECT j.id FROM jobs j JOIN assets a ON a.id = j.result_asset_id AND a.deleted_at IS NULL \
             WHERE j.org_id = $1 AND j.look_id = $2 AND j.result_asset_id = $3 AND j.status = 'done' \
             AND j.tool = 'lookbook' \
             ORDER BY j.created_at DESC, j.id DESC LIMIT 1"
        }

        /// Lock or unlock a look of a house.
        fn set_look_base(
            status: &'q LookStatus,
            look_base_asset_id: Option<&'q AssetId>,
            look_base_job_id: Option<&'q JobId>,
            look_base_parent_id: Option<&'q str>,
            updated_at: DateTime<Utc>,
            id: &'q LookId,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE looks SET status = $1, look_base_asset_id = $2, look_base_job_id = $3, \
             look_base_parent_id = $4, updated_at = $5 WHERE id = $6 AND org_id = $7"
        }

        /// A look's develops of a house, oldest first.
        fn look_jobs(org_id: &'q OrgId, look_id: &'q LookId) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND look_id = $2 ORDER BY created_at, id"
        }

        /// A develop of a look queued or rendering (its id), if any.
        fn look_in_flight(look_id: &'q LookId) -> row<(String,)> [any "look ids are unique across houses; the caller read the look of its house, locked, just before"] {
            "SELECT id FROM jobs WHERE look_id = $1 AND status IN ('queued', 'running') LIMIT 1"
        }

        /// The built-in templates, then the house's, oldest first.
        fn templates(org_id: &'q OrgId) -> row<TemplateRow> [house] {
            "SELECT ", template_columns!(), " FROM shot_templates t WHERE t.org_id IS NULL OR t.org_id = $1 \
             ORDER BY CASE WHEN t.org_id IS NULL THEN 0 ELSE 1 END, t.created_at, t.id"
        }

        /// A built-in template or one of the house's.
        fn template(id: &'q TemplateId, org_id: &'q OrgId) -> row<TemplateRow> [house] {
            "SELECT ", template_columns!(), " FROM shot_templates t WHERE t.id = $1 \
             AND (t.org_id IS NULL OR t.org_id = $2)"
        }

        /// A template's shots in order.
        fn template_shots(template_id: &'q TemplateId) -> row<TemplateShotRow> [any "template ids are unique across houses and template_shots has no house; the caller read the template as the house's (built-in or its own) just before"] {
            "SELECT id, kind, framing, pose, expression, sort_order FROM template_shots \
             WHERE template_id = $1 ORDER BY sort_order, id"
        }

        /// A house's standing preset.
        fn preset(org_id: &'q OrgId) -> row<PresetRow> [house] {
            "SELECT ", preset_columns!(), " FROM standing_presets WHERE org_id = $1"
        }

        /// Save a house's standing preset; the preset as saved. With `keep_sizes`, a preset the
        /// house already had keeps its sizes (a save from a view without them).
        fn save_preset(
            org_id: &'q OrgId,
            model_asset_id: Option<&'q str>,
            background: &'q str,
            aesthetic: &'q str,
            variation_keys: &'q str,
            quality: &'q str,
            sizes: &'q str,
            updated_at: DateTime<Utc>,
            keep_sizes: bool,
        ) -> row<PresetRow> [house] {
            "INSERT INTO standing_presets (", preset_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (org_id) DO UPDATE SET model_asset_id = excluded.model_asset_id, \
             background = excluded.background, aesthetic = excluded.aesthetic, \
             variation_keys = excluded.variation_keys, quality = excluded.quality, \
             sizes = CASE WHEN $9 THEN standing_presets.sizes ELSE excluded.sizes END, \
             updated_at = excluded.updated_at RETURNING ", preset_columns!()
        }
    }
}

macro_rules! impl_lookbook_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LookbookStore for $ty {
            async fn insert_looks(&self, looks: Vec<LookRow>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                for l in &looks {
                    q::lookbook::insert_look(
                        &l.id,
                        &l.org_id,
                        &l.created_by,
                        l.brand_id.as_deref(),
                        &l.name,
                        &l.model_asset_id,
                        &l.items,
                        &l.background,
                        &l.aesthetic,
                        &l.status,
                        l.look_base_asset_id.as_ref(),
                        l.look_base_job_id.as_ref(),
                        l.batch_id.as_deref(),
                        l.created_at,
                        l.updated_at,
                        l.look_base_parent_id.as_deref(),
                        l.planned_keys.as_deref(),
                        l.planned_quality.as_deref(),
                    )
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn looks(&self, org_id: &OrgId, limit: i64) -> Result<Vec<LookRow>, StorageError> {
                Ok(q::lookbook::looks(org_id, limit).fetch_all(&self.pool).await?)
            }

            async fn look(&self, org_id: &OrgId, id: &LookId) -> Result<Option<LookRow>, StorageError> {
                Ok(q::lookbook::look(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn create_look_jobs(
                &self,
                guard: LookGuard,
                jobs: Vec<JobRow>,
            ) -> Result<LookJobsOutcome, StorageError> {
                if jobs.is_empty() {
                    return Ok(LookJobsOutcome::Jobs(CreateJobsOutcome::Created(Vec::new())));
                }
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let mut bal = lock_balance(&mut tx, &guard.org_id).await?;
                if let Some(prior) = prior_look_jobs(&mut tx, &guard.look_id, &jobs).await? {
                    return Ok(LookJobsOutcome::Jobs(prior));
                }
                let status =
                    q::lookbook::look_status_locked(&guard.look_id, &guard.org_id).fetch_optional(&mut *tx).await?;
                let Some((status,)) = status else { return Ok(LookJobsOutcome::NotFound) };
                if status != guard.status {
                    return Ok(LookJobsOutcome::WrongStatus(status));
                }
                if look_in_flight(&mut tx, &guard.look_id).await? {
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

            async fn set_look_lock(
                &self,
                org_id: &OrgId,
                look_id: &LookId,
                change: LockChange,
                now: DateTime<Utc>,
            ) -> Result<LockOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let look = q::lookbook::look_locked(look_id, org_id).fetch_optional(&mut *tx).await?;
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
                        let job = q::lookbook::look_frame(org_id, look_id, &asset_id).fetch_optional(&mut *tx).await?;
                        let Some((job_id,)) = job else { return Ok(LockOutcome::NotAFrame) };
                        look.status = LookStatus::Locked;
                        look.look_base_asset_id = Some(AssetId::from(asset_id));
                        look.look_base_job_id = Some(JobId::from(job_id));
                        look.look_base_parent_id = parent_id;
                    }
                }
                look.updated_at = now;
                q::lookbook::set_look_base(
                    &look.status,
                    look.look_base_asset_id.as_ref(),
                    look.look_base_job_id.as_ref(),
                    look.look_base_parent_id.as_deref(),
                    look.updated_at,
                    &look.id,
                    org_id,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(LockOutcome::Changed(look))
            }

            async fn look_jobs(&self, org_id: &OrgId, look_id: &LookId) -> Result<Vec<JobRow>, StorageError> {
                Ok(q::lookbook::look_jobs(org_id, look_id).fetch_all(&self.pool).await?)
            }

            async fn templates(&self, org_id: &OrgId) -> Result<Vec<TemplateRow>, StorageError> {
                Ok(q::lookbook::templates(org_id).fetch_all(&self.pool).await?)
            }

            async fn template(&self, org_id: &OrgId, id: &TemplateId) -> Result<Option<TemplateRow>, StorageError> {
                Ok(q::lookbook::template(id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn template_shots(&self, template_id: &TemplateId) -> Result<Vec<TemplateShotRow>, StorageError> {
                Ok(q::lookbook::template_shots(template_id).fetch_all(&self.pool).await?)
            }

            async fn preset(&self, org_id: &OrgId) -> Result<Option<PresetRow>, StorageError> {
                Ok(q::lookbook::preset(org_id).fetch_optional(&self.pool).await?)
            }

            async fn save_preset(&self, p: PresetRow, keep_sizes: bool) -> Result<PresetRow, StorageError> {
                let _w = self.write_lock().await;
                let saved = q::lookbook::save_preset(
                    &p.org_id,
                    p.model_asset_id.as_deref(),
                    &p.background,
                    &p.aesthetic,
                    &p.variation_keys,
                    &p.quality,
                    &p.sizes,
                    p.updated_at,
                    keep_sizes,
                );
                Ok(saved.fetch_one(&self.pool).await?)
            }
        }

        /// Is a develop of the look queued or rendering?
        async fn look_in_flight(tx: &mut Tx, look_id: &LookId) -> Result<bool, StorageError> {
            let open = q::lookbook::look_in_flight(look_id).fetch_optional(&mut **tx).await?;
            Ok(open.is_some())
        }

        /// An earlier request on the look with the same idempotency keys: all its jobs; a key
        /// used for anything else (another look, other frames) is `KeyReused`. None when new.
        async fn prior_look_jobs(
            tx: &mut Tx,
            look_id: &LookId,
            jobs: &[JobRow],
        ) -> Result<Option<CreateJobsOutcome>, StorageError> {
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
