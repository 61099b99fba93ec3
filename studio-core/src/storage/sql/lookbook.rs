//! The SQL of looks, shot templates and the standing preset ([`LookbookStore`](crate::storage::LookbookStore)).

macro_rules! impl_lookbook_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LookbookStore for $ty {
            async fn insert_looks(&self, looks: Vec<LookRow>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.pool.begin().await?;
                for l in &looks {
                    sqlx::query(concat!(
                        "INSERT INTO looks (",
                        look_columns!(),
                        ") \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
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
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn looks(&self, org_id: &str, limit: i64) -> Result<Vec<LookRow>, StorageError> {
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

            async fn look(&self, org_id: &str, id: &str) -> Result<Option<LookRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", look_columns!(), " FROM looks WHERE org_id = $1 AND id = $2"))
                    .bind(org_id)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn look_jobs(&self, org_id: &str, look_id: &str) -> Result<Vec<JobRow>, StorageError> {
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

            async fn templates(&self, org_id: &str) -> Result<Vec<TemplateRow>, StorageError> {
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

            async fn template(&self, org_id: &str, id: &str) -> Result<Option<TemplateRow>, StorageError> {
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

            async fn template_shots(&self, template_id: &str) -> Result<Vec<TemplateShotRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, kind, framing, pose, expression, sort_order FROM template_shots \
                     WHERE template_id = $1 ORDER BY sort_order, id",
                )
                .bind(template_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn preset(&self, org_id: &str) -> Result<Option<PresetRow>, StorageError> {
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
    };
}

pub(in crate::storage) use impl_lookbook_store;
