//! The SQL of brand profiles and marks ([`BrandStore`](crate::storage::BrandStore)). Every write
//! is one statement, so each is atomic on both backends; the free-first-read claim is a
//! conditional `UPDATE` whose guard (`dna_runs = 0` and no fresh claim) a second caller re-reads
//! after the first commits (PostgreSQL) or never races (SQLite's one writer). Every statement is
//! declared in [`q`] (see stmt.rs).

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

pub(in crate::storage) use brand_profile_columns;

/// The brand's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{AssetId, FolderId, MarkId, OrgId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{BrandMarkRow, BrandProfileRow};

    statements! {
        /// A house's brand profile.
        fn profile(org_id: &'q OrgId) -> row<BrandProfileRow> [house] {
            "SELECT ", brand_profile_columns!(), " FROM brand_profiles WHERE org_id = $1"
        }

        /// Save a patch of a house's brand profile: a new profile takes `$2`..`$9` (the patch
        /// with the defaults filled in), an existing one the fields the patch gives (`$10`..`$16`,
        /// NULL where it gives none).
        fn save_profile(
            org_id: &'q OrgId,
            vision_en: &'q str,
            vibe: &'q str,
            palette: &'q str,
            signature_keywords: &'q str,
            inject_enabled: bool,
            updated_at: DateTime<Utc>,
            colour_output: &'q str,
            metadata_output: &'q str,
            given_vision_en: Option<&'q str>,
            given_vibe: Option<&'q str>,
            given_palette: Option<&'q str>,
            given_signature_keywords: Option<&'q str>,
            given_inject_enabled: Option<bool>,
            given_colour_output: Option<&'q str>,
            given_metadata_output: Option<&'q str>,
        ) -> row<BrandProfileRow> [house] {
            "INSERT INTO brand_profiles (org_id, vision_en, vibe, palette, signature_keywords, \
             inject_enabled, updated_at, colour_output, metadata_output) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (org_id) DO UPDATE SET vision_en = COALESCE($10, brand_profiles.vision_en), \
             vibe = COALESCE($11, brand_profiles.vibe), palette = COALESCE($12, brand_profiles.palette), \
             signature_keywords = COALESCE($13, brand_profiles.signature_keywords), \
             inject_enabled = COALESCE($14, brand_profiles.inject_enabled), \
             colour_output = COALESCE($15, brand_profiles.colour_output), \
             metadata_output = COALESCE($16, brand_profiles.metadata_output), \
             updated_at = excluded.updated_at RETURNING ", brand_profile_columns!()
        }

        /// Record a brand DNA read: its fields replace the profile's and the free read's claim ends.
        fn record_read(
            org_id: &'q OrgId,
            vision_en: &'q str,
            vibe: &'q str,
            palette: &'q str,
            signature_keywords: &'q str,
            inject_enabled: bool,
            updated_at: DateTime<Utc>,
        ) -> row<BrandProfileRow> [house] {
            "INSERT INTO brand_profiles (org_id, vision_en, vibe, palette, signature_keywords, \
             inject_enabled, dna_runs, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) \
             ON CONFLICT (org_id) DO UPDATE SET vision_en = excluded.vision_en, vibe = excluded.vibe, \
             palette = excluded.palette, signature_keywords = excluded.signature_keywords, \
             dna_runs = brand_profiles.dna_runs + 1, free_read_at = NULL, \
             updated_at = excluded.updated_at RETURNING ", brand_profile_columns!()
        }

        /// Open a house's brand profile with the defaults unless it has one.
        fn open_profile(org_id: &'q OrgId, updated_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO brand_profiles (org_id, updated_at) VALUES ($1, $2) ON CONFLICT (org_id) DO NOTHING"
        }

        /// Claim a house's free first read while it has had no read and no fresh claim (a claim
        /// older than `stale_free_read_at` is not fresh); no row when it may not.
        fn claim_free_read(free_read_at: DateTime<Utc>, org_id: &'q OrgId, stale_free_read_at: DateTime<Utc>) -> exec [house] {
            "UPDATE brand_profiles SET free_read_at = $1 WHERE org_id = $2 AND dna_runs = 0 \
             AND (free_read_at IS NULL OR free_read_at < $3)"
        }

        /// Drop a house's claim on its free first read.
        fn release_free_read(org_id: &'q OrgId) -> exec [house] {
            "UPDATE brand_profiles SET free_read_at = NULL WHERE org_id = $1"
        }

        /// Register a house's mark.
        fn insert_mark(
            id: &'q MarkId,
            org_id: &'q OrgId,
            asset_id: &'q AssetId,
            collection_id: &'q str,
            material: &'q str,
            placement: Option<&'q str>,
            note: Option<&'q str>,
            sort_order: i64,
            created_by: Option<&'q UserId>,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO brand_marks (id, org_id, asset_id, collection_id, material, placement, note, \
             sort_order, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        }

        /// A mark of a house whose asset is live.
        fn mark(org_id: &'q OrgId, id: &'q MarkId) -> row<BrandMarkRow> [house] {
            "SELECT ", brand_mark_columns!(), " FROM brand_marks m JOIN assets a ON a.id = m.asset_id \
             AND a.deleted_at IS NULL WHERE m.org_id = $1 AND m.id = $2"
        }

        /// A house's marks of one level ('' for the house's own, or a collection) whose assets
        /// are live, in order.
        fn marks(org_id: &'q OrgId, collection_id: &'q FolderId) -> row<BrandMarkRow> [house] {
            "SELECT ", brand_mark_columns!(), " FROM brand_marks m JOIN assets a ON a.id = m.asset_id \
             AND a.deleted_at IS NULL WHERE m.org_id = $1 AND m.collection_id = $2 \
             ORDER BY m.sort_order, m.created_at, m.id"
        }

        /// Rewrite a mark of a house.
        fn update_mark(
            material: &'q str,
            placement: Option<&'q str>,
            note: Option<&'q str>,
            sort_order: i64,
            org_id: &'q OrgId,
            id: &'q MarkId,
        ) -> exec [house] {
            "UPDATE brand_marks SET material = $1, placement = $2, note = $3, sort_order = $4 \
             WHERE org_id = $5 AND id = $6"
        }

        /// Delete a mark of a house.
        fn delete_mark(org_id: &'q OrgId, id: &'q MarkId) -> exec [house] {
            "DELETE FROM brand_marks WHERE org_id = $1 AND id = $2"
        }
    }
}

macro_rules! impl_brand_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::BrandStore for $ty {
            async fn brand_profile(
                &self,
                org_id: &OrgId,
            ) -> Result<Option<$crate::storage::BrandProfileRow>, $crate::storage::StorageError> {
                Ok(q::brand::profile(org_id).fetch_optional(&self.pool).await?)
            }

            async fn save_brand_profile(
                &self,
                org_id: &OrgId,
                fields: &$crate::storage::BrandFieldsPatch,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<$crate::storage::BrandProfileRow, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                // A new profile takes the column defaults where the patch gives nothing.
                let f = fields;
                Ok(q::brand::save_profile(
                    org_id,
                    f.vision_en.as_deref().unwrap_or(""),
                    f.vibe.as_deref().unwrap_or("[]"),
                    f.palette.as_deref().unwrap_or("[]"),
                    f.signature_keywords.as_deref().unwrap_or("[]"),
                    f.inject_enabled.unwrap_or(true),
                    now,
                    f.colour_output.as_deref().unwrap_or("srgb"),
                    f.metadata_output.as_deref().unwrap_or("rights"),
                    f.vision_en.as_deref(),
                    f.vibe.as_deref(),
                    f.palette.as_deref(),
                    f.signature_keywords.as_deref(),
                    f.inject_enabled,
                    f.colour_output.as_deref(),
                    f.metadata_output.as_deref(),
                )
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
                Ok(q::brand::record_read(
                    org_id,
                    &fields.vision_en,
                    &fields.vibe,
                    &fields.palette,
                    &fields.signature_keywords,
                    fields.inject_enabled,
                    now,
                )
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
                q::brand::open_profile(org_id, now).execute(&self.pool).await?;
                let claimed = q::brand::claim_free_read(now, org_id, stale_before).execute(&self.pool).await?;
                Ok(claimed.rows_affected() == 1)
            }

            async fn release_free_brand_read(&self, org_id: &OrgId) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::brand::release_free_read(org_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn insert_brand_mark(
                &self,
                row: &$crate::storage::BrandMarkRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::brand::insert_mark(
                    &row.id,
                    &row.org_id,
                    &row.asset_id,
                    &row.collection_id,
                    &row.material,
                    row.placement.as_deref(),
                    row.note.as_deref(),
                    row.sort_order,
                    row.created_by.as_ref(),
                    row.created_at,
                )
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
                Ok(q::brand::mark(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn brand_marks(
                &self,
                org_id: &OrgId,
                collection_id: &FolderId,
            ) -> Result<Vec<$crate::storage::BrandMarkRow>, $crate::storage::StorageError> {
                Ok(q::brand::marks(org_id, collection_id).fetch_all(&self.pool).await?)
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
                let done = q::brand::update_mark(material, placement, note, sort_order, org_id, id)
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
                let done = q::brand::delete_mark(org_id, id).execute(&self.pool).await?;
                Ok(done.rows_affected() == 1)
            }
        }
    };
}

pub(in crate::storage) use impl_brand_store;
