//! The SQL of brand profiles and marks ([`BrandStore`](crate::storage::BrandStore)). Every write
//! is one statement, so each is atomic on both backends; the free-first-read claim is a
//! conditional `UPDATE` whose guard (`dna_runs = 0` and no fresh claim) a second caller re-reads
//! after the first commits (PostgreSQL) or never races (SQLite's one writer).

/// The columns of `brand_profiles` in [`BrandProfileRow`](crate::storage::BrandProfileRow) order.
macro_rules! brand_profile_columns {
    () => {
        "org_id, vision_en, vibe, palette, signature_keywords, inject_enabled, dna_runs, free_read_at, updated_at, colour_output, metadata_output"
    };
}

/// The columns of `brand_marks m` joined with `assets a`, in
/// [`BrandMarkRow`](crate::storage::BrandMarkRow) order.
macro_rules! brand_mark_columns {
    () => {
        "m.id, m.org_id, m.asset_id, m.collection_id, m.material, m.placement, m.note, m.sort_order, m.created_by, \
         m.created_at, a.name AS filename"
    };
}

pub(in crate::storage) use {brand_mark_columns, brand_profile_columns};

macro_rules! impl_brand_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::BrandStore for $ty {
            async fn brand_profile(
                &self,
                org_id: &OrgId,
            ) -> Result<Option<$crate::storage::BrandProfileRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::brand::brand_profile_columns!(),
                    " FROM brand_profiles WHERE org_id = $1"
                ))
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn save_brand_profile(
                &self,
                org_id: &OrgId,
                fields: &$crate::storage::BrandFieldsPatch,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::storage::BrandProfileRow, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "INSERT INTO brand_profiles (org_id, vision_en, vibe, palette, signature_keywords, \
                     inject_enabled, updated_at, colour_output, metadata_output) VALUES ($1, COALESCE($2, ''), \
                     COALESCE($3, '[]'), COALESCE($4, '[]'), COALESCE($5, '[]'), COALESCE($6, $8), $7, \
                     COALESCE($9, 'srgb'), COALESCE($10, 'rights')) \
                     ON CONFLICT (org_id) DO UPDATE SET vision_en = COALESCE($2, brand_profiles.vision_en), \
                     vibe = COALESCE($3, brand_profiles.vibe), palette = COALESCE($4, brand_profiles.palette), \
                     signature_keywords = COALESCE($5, brand_profiles.signature_keywords), \
                     inject_enabled = COALESCE($6, brand_profiles.inject_enabled), \
                     colour_output = COALESCE($9, brand_profiles.colour_output), \
                     metadata_output = COALESCE($10, brand_profiles.metadata_output), \
                     updated_at = excluded.updated_at RETURNING ",
                    $crate::storage::sql::brand::brand_profile_columns!()
                ))
                .bind(org_id)
                .bind(&fields.vision_en)
                .bind(&fields.vibe)
                .bind(&fields.palette)
                .bind(&fields.signature_keywords)
                .bind(fields.inject_enabled)
                .bind(now)
                .bind(true)
                .bind(&fields.colour_output)
                .bind(&fields.metadata_output)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn record_brand_read(
                &self,
                org_id: &OrgId,
                fields: &$crate::storage::BrandFields,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::storage::BrandProfileRow, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "INSERT INTO brand_profiles (org_id, vision_en, vibe, palette, signature_keywords, \
                     inject_enabled, dna_runs, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) \
                     ON CONFLICT (org_id) DO UPDATE SET vision_en = excluded.vision_en, vibe = excluded.vibe, \
                     palette = excluded.palette, signature_keywords = excluded.signature_keywords, \
                     dna_runs = brand_profiles.dna_runs + 1, free_read_at = NULL, \
                     updated_at = excluded.updated_at RETURNING ",
                    $crate::storage::sql::brand::brand_profile_columns!()
                ))
                .bind(org_id)
                .bind(&fields.vision_en)
                .bind(&fields.vibe)
                .bind(&fields.palette)
                .bind(&fields.signature_keywords)
                .bind(fields.inject_enabled)
                .bind(now)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn claim_free_brand_read(
                &self,
                org_id: &OrgId,
                now: chrono::DateTime<chrono::Utc>,
                stale_before: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO brand_profiles (org_id, updated_at) VALUES ($1, $2) ON CONFLICT (org_id) DO NOTHING",
                )
                .bind(org_id)
                .bind(now)
                .execute(&self.pool)
                .await?;
                let claimed = sqlx::query(
                    "UPDATE brand_profiles SET free_read_at = $2 WHERE org_id = $1 AND dna_runs = 0 \
                     AND (free_read_at IS NULL OR free_read_at < $3)",
                )
                .bind(org_id)
                .bind(now)
                .bind(stale_before)
                .execute(&self.pool)
                .await?;
                Ok(claimed.rows_affected() == 1)
            }

            async fn release_free_brand_read(&self, org_id: &OrgId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE brand_profiles SET free_read_at = NULL WHERE org_id = $1")
                    .bind(org_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn insert_brand_mark(
                &self,
                row: &$crate::storage::BrandMarkRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "INSERT INTO brand_marks (id, org_id, asset_id, collection_id, material, placement, note, \
                     sort_order, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                )
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.asset_id)
                .bind(&row.collection_id)
                .bind(&row.material)
                .bind(&row.placement)
                .bind(&row.note)
                .bind(row.sort_order)
                .bind(&row.created_by)
                .bind(row.created_at)
                .execute(&self.pool)
                .await
                .map_err($crate::storage::sql::unique_as("mark"))?;
                Ok(())
            }

            async fn brand_mark(
                &self,
                org_id: &OrgId,
                id: &MarkId,
            ) -> Result<Option<$crate::storage::BrandMarkRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::brand::brand_mark_columns!(),
                    " FROM brand_marks m JOIN assets a ON a.id = m.asset_id AND a.deleted_at IS NULL \
                     WHERE m.org_id = $1 AND m.id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn brand_marks(
                &self,
                org_id: &OrgId,
                collection_id: &FolderId,
            ) -> Result<Vec<$crate::storage::BrandMarkRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::brand::brand_mark_columns!(),
                    " FROM brand_marks m JOIN assets a ON a.id = m.asset_id AND a.deleted_at IS NULL \
                     WHERE m.org_id = $1 AND m.collection_id = $2 ORDER BY m.sort_order, m.created_at, m.id"
                ))
                .bind(org_id)
                .bind(collection_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn update_brand_mark(
                &self,
                org_id: &OrgId,
                id: &MarkId,
                material: &str,
                placement: Option<&str>,
                note: Option<&str>,
                sort_order: i64,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query(
                    "UPDATE brand_marks SET material = $3, placement = $4, note = $5, sort_order = $6 \
                     WHERE org_id = $1 AND id = $2",
                )
                .bind(org_id)
                .bind(id)
                .bind(material)
                .bind(placement)
                .bind(note)
                .bind(sort_order)
                .execute(&self.pool)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn delete_brand_mark(
                &self,
                org_id: &OrgId,
                id: &MarkId,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM brand_marks WHERE org_id = $1 AND id = $2")
                    .bind(org_id)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }
        }
    };
}

pub(in crate::storage) use impl_brand_store;
