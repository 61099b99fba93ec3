//! The SQL of folders, assets and packs ([`LibraryStore`](crate::storage::LibraryStore)).

macro_rules! impl_library_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LibraryStore for $ty {
            async fn insert_folder(&self, f: FolderRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("INSERT INTO folders (id, org_id, name, parent_id, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(&f.id)
                    .bind(&f.org_id)
                    .bind(&f.name)
                    .bind(&f.parent_id)
                    .bind(f.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn list_folders(&self, org_id: &OrgId) -> Result<Vec<FolderRow>, StorageError> {
                Ok(sqlx::query_as(
                    "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE org_id = $1 ORDER BY created_at, id",
                )
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<FolderRow>, StorageError> {
                Ok(sqlx::query_as("SELECT id, org_id, name, parent_id, created_at FROM folders WHERE id = $1 AND org_id = $2")
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn rename_folder(&self, org_id: &OrgId, id: &FolderId, name: &str) -> Result<Option<FolderRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(
                    "UPDATE folders SET name = $1 WHERE id = $2 AND org_id = $3 RETURNING id, org_id, name, parent_id, created_at",
                )
                .bind(name)
                .bind(id)
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn delete_folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<(i64, i64)>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let folder: Option<FolderRow> = sqlx::query_as(concat!(
                    "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE id = $1 AND org_id = $2",
                    $lock
                ))
                .bind(id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(folder) = folder else { return Ok(None) };
                let (live,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM assets WHERE org_id = $1 AND folder_id = $2 AND deleted_at IS NULL",
                )
                .bind(org_id)
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
                sqlx::query("UPDATE assets SET folder_id = $1 WHERE org_id = $2 AND folder_id = $3")
                    .bind(&folder.parent_id)
                    .bind(org_id)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                let moved = sqlx::query("UPDATE folders SET parent_id = $1 WHERE org_id = $2 AND parent_id = $3")
                    .bind(&folder.parent_id)
                    .bind(org_id)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                sqlx::query("DELETE FROM brand_marks WHERE org_id = $1 AND collection_id = $2")
                    .bind(org_id)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM folders WHERE id = $1 AND org_id = $2")
                    .bind(id)
                    .bind(org_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(Some((live, moved as i64)))
            }

            async fn insert_asset(&self, a: AssetRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                insert_asset_in(&mut tx, &a).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn list_assets(&self, org_id: &OrgId, folder_id: Option<&FolderId>) -> Result<Vec<AssetRow>, StorageError> {
                self.list_assets_page(org_id, folder_id, None, i64::MAX, None).await
            }

            async fn list_assets_page(
                &self,
                org_id: &OrgId,
                folder_id: Option<&FolderId>,
                kind: Option<&str>,
                limit: i64,
                after: Option<(DateTime<Utc>, &str)>,
            ) -> Result<Vec<AssetRow>, StorageError> {
                let (at, id) = after.unzip();
                Ok(sqlx::query_as(concat!(
                    "SELECT ", asset_columns!(), " FROM assets WHERE org_id = $1 AND deleted_at IS NULL ",
                    "AND ($2 IS NULL OR folder_id = $2) AND ($6 IS NULL OR kind = $6) ",
                    "AND ($3 IS NULL OR created_at < $3 OR (created_at = $3 AND id < $4)) ",
                    "ORDER BY created_at DESC, id DESC LIMIT $5"
                ))
                .bind(org_id)
                .bind(folder_id)
                .bind(at)
                .bind(id)
                .bind(limit)
                .bind(kind)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn count_assets(&self, org_id: &OrgId, folder_id: Option<&FolderId>) -> Result<i64, StorageError> {
                Ok(sqlx::query_scalar(
                    "SELECT COUNT(*) FROM assets WHERE org_id = $1 AND deleted_at IS NULL AND ($2 IS NULL OR folder_id = $2)",
                )
                .bind(org_id)
                .bind(folder_id)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn library_version(&self, org_id: &OrgId) -> Result<i64, StorageError> {
                let version: Option<i64> = sqlx::query_scalar("SELECT version FROM library_versions WHERE org_id = $1")
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(version.unwrap_or(0))
            }

            async fn asset_by_id(&self, id: &AssetId) -> Result<Option<AssetRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", asset_columns!(), " FROM assets WHERE id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn soft_delete_assets(&self, org_id: &OrgId, ids: &[String], now: DateTime<Utc>) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let mut deleted = 0;
                for id in ids {
                    let done = sqlx::query("UPDATE assets SET deleted_at = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL")
                        .bind(now)
                        .bind(id)
                        .bind(org_id)
                        .execute(&mut *tx)
                        .await?;
                    deleted += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(deleted)
            }

            async fn update_assets(&self, org_id: &OrgId, ids: &[String], c: &AssetChanges) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let approval = c.approval.clone().unwrap_or_default();
                let mut matched = 0;
                for id in ids {
                    let done = sqlx::query(
                        "UPDATE assets SET \
                         name = CASE WHEN $1 THEN $2 ELSE name END, \
                         sku = CASE WHEN $3 THEN $4 ELSE sku END, \
                         kind = CASE WHEN $5 THEN $6 ELSE kind END, \
                         folder_id = CASE WHEN $7 THEN $8 ELSE folder_id END, \
                         fit = CASE WHEN $9 THEN $10 ELSE fit END, \
                         fit_guessed = CASE WHEN $9 THEN FALSE ELSE fit_guessed END, \
                         wearer = CASE WHEN $11 THEN $12 ELSE wearer END, \
                         wearer_guessed = CASE WHEN $11 THEN FALSE ELSE wearer_guessed END, \
                         approved_by = CASE WHEN $13 THEN $14 ELSE approved_by END, \
                         approved_at = CASE WHEN $13 THEN $15 ELSE approved_at END \
                         WHERE id = $16 AND org_id = $17 AND deleted_at IS NULL",
                    )
                    .bind(c.name.is_some())
                    .bind(c.name.clone())
                    .bind(c.sku.is_some())
                    .bind(c.sku.clone().flatten())
                    .bind(c.kind.is_some())
                    .bind(c.kind.clone())
                    .bind(c.folder_id.is_some())
                    .bind(c.folder_id.clone().flatten())
                    .bind(c.fit.is_some())
                    .bind(c.fit.clone().flatten())
                    .bind(c.wearer.is_some())
                    .bind(c.wearer.clone().flatten())
                    .bind(c.approval.is_some())
                    .bind(approval.as_ref().map(|a| a.0.clone()))
                    .bind(approval.as_ref().map(|a| a.1))
                    .bind(id)
                    .bind(org_id)
                    .execute(&mut *tx)
                    .await?;
                    matched += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(matched)
            }

            async fn set_asset_group(&self, org_id: &OrgId, ids: &[String], group_id: &GroupId) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                for id in ids {
                    let done = sqlx::query("UPDATE assets SET group_id = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL")
                        .bind(group_id)
                        .bind(id)
                        .bind(org_id)
                        .execute(&mut *tx)
                        .await?;
                    if done.rows_affected() != 1 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn set_asset_provenance(&self, org_id: &OrgId, id: &AssetId, provenance: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE assets SET provenance = $1 WHERE id = $2 AND org_id = $3")
                    .bind(provenance)
                    .bind(id)
                    .bind(org_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn count_live_assets(&self, org_id: &OrgId, ids: &[String]) -> Result<i64, StorageError> {
                let mut live = 0;
                for id in ids {
                    let found: Option<(String,)> =
                        sqlx::query_as("SELECT id FROM assets WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL")
                            .bind(id)
                            .bind(org_id)
                            .fetch_optional(&self.pool)
                            .await?;
                    live += i64::from(found.is_some());
                }
                Ok(live)
            }

            async fn insert_pack(&self, p: PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO packs (", pack_columns!(), ") VALUES ",
                    "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
                ))
                .bind(&p.id)
                .bind(&p.org_id)
                .bind(&p.created_by)
                .bind(&p.filename)
                .bind(&p.asset_ids)
                .bind(&p.sizes)
                .bind(&p.mode)
                .bind(&p.status)
                .bind(p.items)
                .bind(p.bytes)
                .bind(p.seconds)
                .bind(&p.blob_key)
                .bind(&p.error)
                .bind(p.attempts)
                .bind(p.created_at)
                .bind(p.claimed_at)
                .bind(p.ready_at)
                .bind(p.expires_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pack(&self, org_id: &OrgId, id: &PackId) -> Result<Option<PackRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", pack_columns!(), " FROM packs WHERE id = $1 AND org_id = $2"))
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn claim_pack(&self, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> Result<Option<PackRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE packs SET status = 'building', claimed_at = $1, attempts = attempts + 1 WHERE id = (",
                    "SELECT id FROM packs WHERE status = 'queued' OR (status = 'building' AND claimed_at < $2) ",
                    "ORDER BY created_at, id LIMIT 1", $skip_locked, ") ",
                    "AND (status = 'queued' OR (status = 'building' AND claimed_at < $2)) RETURNING ", pack_columns!()
                ))
                .bind(now)
                .bind(stale_before)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn renew_pack_claim(&self, id: &PackId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE packs SET claimed_at = $1 WHERE id = $2 AND status = 'building'")
                    .bind(now)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn finish_pack(&self, p: &PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE packs SET status = $1, items = $2, bytes = $3, blob_key = $4, error = $5, ready_at = $6, seconds = $7 \
                     WHERE id = $8",
                )
                .bind(&p.status)
                .bind(p.items)
                .bind(p.bytes)
                .bind(&p.blob_key)
                .bind(&p.error)
                .bind(p.ready_at)
                .bind(p.seconds)
                .bind(&p.id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn lapsed_packs(&self, now: DateTime<Utc>) -> Result<Vec<PackRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", pack_columns!(), " FROM packs WHERE expires_at < $1 AND status <> 'expired' ORDER BY expires_at"
                ))
                .bind(now)
                .fetch_all(&self.pool)
                .await?)
            }
        }

        /// Insert an asset row inside a transaction.
        async fn insert_asset_in(tx: &mut Tx, a: &AssetRow) -> Result<(), StorageError> {
            sqlx::query(concat!(
                "INSERT INTO assets (", asset_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
                 $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)"
            ))
            .bind(&a.id)
            .bind(&a.org_id)
            .bind(&a.created_by)
            .bind(&a.name)
            .bind(&a.sku)
            .bind(&a.kind)
            .bind(&a.folder_id)
            .bind(&a.group_id)
            .bind(&a.fit)
            .bind(&a.wearer)
            .bind(a.fit_guessed)
            .bind(a.wearer_guessed)
            .bind(a.carries_mark)
            .bind(a.mark_guessed)
            .bind(&a.mime)
            .bind(&a.tool)
            .bind(&a.blob_key)
            .bind(&a.sha256)
            .bind(a.bytes)
            .bind(a.width)
            .bind(a.height)
            .bind(&a.approved_by)
            .bind(a.approved_at)
            .bind(a.created_at)
            .bind(a.deleted_at)
            .bind(&a.provenance)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }
    };
}

pub(in crate::storage) use impl_library_store;
