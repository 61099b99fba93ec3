//! The SQL of folders, assets and packs ([`LibraryStore`](crate::storage::LibraryStore)). Every
//! statement is declared in [`q`] (see stmt.rs).

/// The library's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{AssetId, FolderId, GroupId, OrgId, PackId, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{asset_columns, pack_columns};
    use crate::storage::{AssetRow, FolderRow, PackRow, PackStatus};

    /// Claim the oldest pack waiting for a builder (queued, or building on a claim older than
    /// `stale_claimed_at`), `$rows` locking the subquery's row on PostgreSQL.
    macro_rules! claim_pack_text {
        ($rows:literal) => {
            concat!(
                "UPDATE packs SET status = 'building', claimed_at = $1, attempts = attempts + 1 WHERE id = (",
                "SELECT id FROM packs WHERE status = 'queued' OR (status = 'building' AND claimed_at < $2) ",
                "ORDER BY created_at, id LIMIT 1",
                $rows,
                ") ",
                "AND (status = 'queued' OR (status = 'building' AND claimed_at < $2)) RETURNING ",
                pack_columns!()
            )
        };
    }

    statements! {
        /// Make a folder.
        fn insert_folder(
            id: &'q FolderId,
            org_id: &'q OrgId,
            name: &'q str,
            parent_id: Option<&'q FolderId>,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO folders (id, org_id, name, parent_id, created_at) VALUES ($1, $2, $3, $4, $5)"
        }

        /// A house's folders, oldest first.
        fn folders(org_id: &'q OrgId) -> row<FolderRow> [house] {
            "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE org_id = $1 ORDER BY created_at, id"
        }

        /// A folder of a house.
        fn folder(id: &'q FolderId, org_id: &'q OrgId) -> row<FolderRow> [house] {
            "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE id = $1 AND org_id = $2"
        }

        /// A folder of a house, locked (PostgreSQL) to be deleted.
        fn folder_locked(id: &'q FolderId, org_id: &'q OrgId) -> row<FolderRow> [house, lock] {
            "SELECT id, org_id, name, parent_id, created_at FROM folders WHERE id = $1 AND org_id = $2"
        }

        /// Rename a folder of a house; the folder as renamed.
        fn rename_folder(name: &'q str, id: &'q FolderId, org_id: &'q OrgId) -> row<FolderRow> [house] {
            "UPDATE folders SET name = $1 WHERE id = $2 AND org_id = $3 RETURNING id, org_id, name, parent_id, created_at"
        }

        /// How many live assets a folder of a house holds.
        fn live_in_folder(org_id: &'q OrgId, folder_id: &'q FolderId) -> scalar<i64> [house] {
            "SELECT COUNT(*) FROM assets WHERE org_id = $1 AND folder_id = $2 AND deleted_at IS NULL"
        }

        /// Move the assets of a deleted folder (`from_folder_id`) up into its parent (`folder_id`).
        fn move_assets_up(folder_id: Option<&'q FolderId>, org_id: &'q OrgId, from_folder_id: &'q FolderId) -> exec [house] {
            "UPDATE assets SET folder_id = $1 WHERE org_id = $2 AND folder_id = $3"
        }

        /// Move the subfolders of a deleted folder (`from_parent_id`) up into its parent (`parent_id`).
        fn move_folders_up(parent_id: Option<&'q FolderId>, org_id: &'q OrgId, from_parent_id: &'q FolderId) -> exec [house] {
            "UPDATE folders SET parent_id = $1 WHERE org_id = $2 AND parent_id = $3"
        }

        /// Forget the brand marks of a deleted collection.
        fn delete_collection_marks(org_id: &'q OrgId, collection_id: &'q FolderId) -> exec [house] {
            "DELETE FROM brand_marks WHERE org_id = $1 AND collection_id = $2"
        }

        /// Delete a folder of a house.
        fn delete_folder(id: &'q FolderId, org_id: &'q OrgId) -> exec [house] {
            "DELETE FROM folders WHERE id = $1 AND org_id = $2"
        }

        /// One page of a house's live assets (of one folder and kind, or all), newest first,
        /// after the cursor (`created_at`, `id`) when one is given.
        fn assets_page(
            org_id: &'q OrgId,
            folder_id: Option<&'q FolderId>,
            kind: Option<&'q str>,
            created_at: Option<DateTime<Utc>>,
            id: Option<&'q str>,
            limit: i64,
        ) -> row<AssetRow> [house] {
            "SELECT ", asset_columns!(), " FROM assets WHERE org_id = $1 AND deleted_at IS NULL ",
            "AND ($2 IS NULL OR folder_id = $2) AND ($3 IS NULL OR kind = $3) ",
            "AND ($4 IS NULL OR created_at < $4 OR (created_at = $4 AND id < $5)) ",
            "ORDER BY created_at DESC, id DESC LIMIT $6"
        }

        /// How many live assets a house has (in one folder, or in all).
        fn count_assets(org_id: &'q OrgId, folder_id: Option<&'q FolderId>) -> scalar<i64> [house] {
            "SELECT COUNT(*) FROM assets WHERE org_id = $1 AND deleted_at IS NULL AND ($2 IS NULL OR folder_id = $2)"
        }

        /// A house's library version.
        fn library_version(org_id: &'q OrgId) -> scalar<i64> [house] {
            "SELECT version FROM library_versions WHERE org_id = $1"
        }

        /// An asset by id, whatever its house and state.
        fn asset_by_id(id: &'q AssetId) -> row<AssetRow> [any "asset ids are unique across houses; every caller compares the row's house with its own (or the job's) before using it"] {
            "SELECT ", asset_columns!(), " FROM assets WHERE id = $1"
        }

        /// Take a live asset of a house out.
        fn soft_delete_asset(deleted_at: DateTime<Utc>, id: &'q AssetId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE assets SET deleted_at = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL"
        }

        /// Change a live asset of a house: each `set_*` says whether its field changes.
        fn update_asset(
            set_name: bool,
            name: Option<&'q str>,
            set_sku: bool,
            sku: Option<&'q str>,
            set_kind: bool,
            kind: Option<&'q str>,
            set_folder: bool,
            folder_id: Option<&'q str>,
            set_fit: bool,
            fit: Option<&'q str>,
            set_wearer: bool,
            wearer: Option<&'q str>,
            set_approval: bool,
            approved_by: Option<&'q str>,
            approved_at: Option<DateTime<Utc>>,
            id: &'q AssetId,
            org_id: &'q OrgId,
        ) -> exec [house] {
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
             WHERE id = $16 AND org_id = $17 AND deleted_at IS NULL"
        }

        /// Put a live asset of a house in a group.
        fn set_asset_group(group_id: &'q GroupId, id: &'q AssetId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE assets SET group_id = $1 WHERE id = $2 AND org_id = $3 AND deleted_at IS NULL"
        }

        /// Record an asset's provenance summary.
        fn set_asset_provenance(provenance: &'q str, id: &'q AssetId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE assets SET provenance = $1 WHERE id = $2 AND org_id = $3"
        }

        /// A live asset of a house, by id (its id when found).
        fn live_asset(id: &'q AssetId, org_id: &'q OrgId) -> row<(String,)> [house] {
            "SELECT id FROM assets WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL"
        }

        /// Store an asset.
        fn insert_asset(
            id: &'q AssetId,
            org_id: &'q OrgId,
            created_by: Option<&'q UserId>,
            name: &'q str,
            sku: Option<&'q str>,
            kind: &'q str,
            folder_id: Option<&'q FolderId>,
            group_id: Option<&'q GroupId>,
            fit: Option<&'q str>,
            wearer: Option<&'q str>,
            fit_guessed: bool,
            wearer_guessed: bool,
            carries_mark: bool,
            mark_guessed: bool,
            mime: &'q str,
            tool: Option<&'q str>,
            blob_key: &'q str,
            sha256: &'q str,
            bytes: i64,
            width: Option<i64>,
            height: Option<i64>,
            approved_by: Option<&'q str>,
            approved_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
            deleted_at: Option<DateTime<Utc>>,
            provenance: Option<&'q str>,
        ) -> exec [house] {
            "INSERT INTO assets (", asset_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
             $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)"
        }

        /// Queue a pack.
        fn insert_pack(
            id: &'q PackId,
            org_id: &'q OrgId,
            created_by: Option<&'q UserId>,
            filename: &'q str,
            asset_ids: &'q str,
            sizes: &'q str,
            mode: &'q str,
            status: &'q PackStatus,
            items: i64,
            bytes: i64,
            seconds: i64,
            blob_key: Option<&'q str>,
            error: Option<&'q str>,
            attempts: i64,
            created_at: DateTime<Utc>,
            claimed_at: Option<DateTime<Utc>>,
            ready_at: Option<DateTime<Utc>>,
            expires_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO packs (", pack_columns!(), ") VALUES ",
            "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
        }

        /// A pack of a house.
        fn pack(id: &'q PackId, org_id: &'q OrgId) -> row<PackRow> [house] {
            "SELECT ", pack_columns!(), " FROM packs WHERE id = $1 AND org_id = $2"
        }

        /// Claim the oldest waiting pack for a builder (SQLite, whose writers are serialised in
        /// process); the pack as claimed.
        fn claim_pack(claimed_at: DateTime<Utc>, stale_claimed_at: DateTime<Utc>) -> row<PackRow> [any "the pack builder serves every house: it claims the oldest waiting pack"] {
            claim_pack_text!("")
        }

        /// Claim the oldest waiting pack for a builder, skipping the packs other builders are
        /// claiming (PostgreSQL); the pack as claimed.
        fn claim_pack_skip_locked(claimed_at: DateTime<Utc>, stale_claimed_at: DateTime<Utc>) -> row<PackRow> [any "the pack builder serves every house: it claims the oldest waiting pack", postgres_only] {
            claim_pack_text!(" FOR UPDATE SKIP LOCKED")
        }

        /// Renew a builder's claim on a pack it builds.
        fn renew_pack_claim(claimed_at: DateTime<Utc>, id: &'q PackId) -> exec [any "a builder renews its own claim, named by the id of the pack it builds"] {
            "UPDATE packs SET claimed_at = $1 WHERE id = $2 AND status = 'building'"
        }

        /// End a pack: ready (with its archive) or failed (with its error).
        fn finish_pack(
            status: &'q PackStatus,
            items: i64,
            bytes: i64,
            blob_key: Option<&'q str>,
            error: Option<&'q str>,
            ready_at: Option<DateTime<Utc>>,
            seconds: i64,
            id: &'q PackId,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE packs SET status = $1, items = $2, bytes = $3, blob_key = $4, error = $5, ready_at = $6, seconds = $7 \
             WHERE id = $8 AND org_id = $9"
        }

        /// Packs past their expiry not yet marked expired, oldest expiry first.
        fn lapsed_packs(expires_at: DateTime<Utc>) -> row<PackRow> [any "the expiry sweep serves every house"] {
            "SELECT ", pack_columns!(), " FROM packs WHERE expires_at < $1 AND status <> 'expired' ORDER BY expires_at"
        }
    }
}

macro_rules! impl_library_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LibraryStore for $ty {
            async fn insert_folder(&self, f: FolderRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::library::insert_folder(&f.id, &f.org_id, &f.name, f.parent_id.as_ref(), f.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn list_folders(&self, org_id: &OrgId) -> Result<Vec<FolderRow>, StorageError> {
                Ok(q::library::folders(org_id).fetch_all(&self.pool).await?)
            }

            async fn folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<FolderRow>, StorageError> {
                Ok(q::library::folder(id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn rename_folder(
                &self,
                org_id: &OrgId,
                id: &FolderId,
                name: &str,
            ) -> Result<Option<FolderRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::library::rename_folder(name, id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn delete_folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<(i64, i64)>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let folder = q::library::folder_locked(id, org_id).fetch_optional(&mut *tx).await?;
                let Some(folder) = folder else { return Ok(None) };
                let live = q::library::live_in_folder(org_id, id).fetch_one(&mut *tx).await?;
                q::library::move_assets_up(folder.parent_id.as_ref(), org_id, id).execute(&mut *tx).await?;
                let moved = q::library::move_folders_up(folder.parent_id.as_ref(), org_id, id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                q::library::delete_collection_marks(org_id, id).execute(&mut *tx).await?;
                q::library::delete_folder(id, org_id).execute(&mut *tx).await?;
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

            async fn list_assets(
                &self,
                org_id: &OrgId,
                folder_id: Option<&FolderId>,
            ) -> Result<Vec<AssetRow>, StorageError> {
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
                Ok(q::library::assets_page(org_id, folder_id, kind, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn count_assets(&self, org_id: &OrgId, folder_id: Option<&FolderId>) -> Result<i64, StorageError> {
                Ok(q::library::count_assets(org_id, folder_id).fetch_one(&self.pool).await?)
            }

            async fn library_version(&self, org_id: &OrgId) -> Result<i64, StorageError> {
                let version = q::library::library_version(org_id).fetch_optional(&self.pool).await?;
                Ok(version.unwrap_or(0))
            }

            async fn asset_by_id(&self, id: &AssetId) -> Result<Option<AssetRow>, StorageError> {
                Ok(q::library::asset_by_id(id).fetch_optional(&self.pool).await?)
            }

            async fn soft_delete_assets(
                &self,
                org_id: &OrgId,
                ids: &[String],
                now: DateTime<Utc>,
            ) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let mut deleted = 0;
                for id in ids {
                    let done = q::library::soft_delete_asset(now, &AssetId::from(id), org_id).execute(&mut *tx).await?;
                    deleted += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(deleted)
            }

            async fn update_assets(
                &self,
                org_id: &OrgId,
                ids: &[String],
                c: &AssetChanges,
            ) -> Result<i64, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let approval = c.approval.clone().unwrap_or_default();
                let mut matched = 0;
                for id in ids {
                    let done = q::library::update_asset(
                        c.name.is_some(),
                        c.name.as_deref(),
                        c.sku.is_some(),
                        c.sku.as_ref().and_then(|s| s.as_deref()),
                        c.kind.is_some(),
                        c.kind.as_deref(),
                        c.folder_id.is_some(),
                        c.folder_id.as_ref().and_then(|f| f.as_deref()),
                        c.fit.is_some(),
                        c.fit.as_ref().and_then(|f| f.as_deref()),
                        c.wearer.is_some(),
                        c.wearer.as_ref().and_then(|w| w.as_deref()),
                        c.approval.is_some(),
                        approval.as_ref().map(|a| a.0.as_str()),
                        approval.as_ref().map(|a| a.1),
                        &AssetId::from(id),
                        org_id,
                    )
                    .execute(&mut *tx)
                    .await?;
                    matched += done.rows_affected() as i64;
                }
                tx.commit().await?;
                Ok(matched)
            }

            async fn set_asset_group(
                &self,
                org_id: &OrgId,
                ids: &[String],
                group_id: &GroupId,
            ) -> Result<bool, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                for id in ids {
                    let done =
                        q::library::set_asset_group(group_id, &AssetId::from(id), org_id).execute(&mut *tx).await?;
                    if done.rows_affected() != 1 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn set_asset_provenance(
                &self,
                org_id: &OrgId,
                id: &AssetId,
                provenance: &str,
            ) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::library::set_asset_provenance(provenance, id, org_id).execute(&self.pool).await?;
                Ok(())
            }

            async fn count_live_assets(&self, org_id: &OrgId, ids: &[String]) -> Result<i64, StorageError> {
                let mut live = 0;
                for id in ids {
                    let found = q::library::live_asset(&AssetId::from(id), org_id).fetch_optional(&self.pool).await?;
                    live += i64::from(found.is_some());
                }
                Ok(live)
            }

            async fn insert_pack(&self, p: PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::library::insert_pack(
                    &p.id,
                    &p.org_id,
                    p.created_by.as_ref(),
                    &p.filename,
                    &p.asset_ids,
                    &p.sizes,
                    &p.mode,
                    &p.status,
                    p.items,
                    p.bytes,
                    p.seconds,
                    p.blob_key.as_deref(),
                    p.error.as_deref(),
                    p.attempts,
                    p.created_at,
                    p.claimed_at,
                    p.ready_at,
                    p.expires_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn pack(&self, org_id: &OrgId, id: &PackId) -> Result<Option<PackRow>, StorageError> {
                Ok(q::library::pack(id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn claim_pack(
                &self,
                now: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<Option<PackRow>, StorageError> {
                let _w = self.write_lock().await;
                // PostgreSQL skips the packs other builders are claiming (`$skip_locked`).
                let claim = match $skip_locked {
                    "" => q::library::claim_pack(now, stale_before),
                    _ => q::library::claim_pack_skip_locked(now, stale_before),
                };
                Ok(claim.fetch_optional(&self.pool).await?)
            }

            async fn renew_pack_claim(&self, id: &PackId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::library::renew_pack_claim(now, id).execute(&self.pool).await?;
                Ok(())
            }

            async fn finish_pack(&self, p: &PackRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::library::finish_pack(
                    &p.status,
                    p.items,
                    p.bytes,
                    p.blob_key.as_deref(),
                    p.error.as_deref(),
                    p.ready_at,
                    p.seconds,
                    &p.id,
                    &p.org_id,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn lapsed_packs(&self, now: DateTime<Utc>) -> Result<Vec<PackRow>, StorageError> {
                Ok(q::library::lapsed_packs(now).fetch_all(&self.pool).await?)
            }
        }

        /// Insert an asset row inside a transaction.
        async fn insert_asset_in(tx: &mut Tx, a: &AssetRow) -> Result<(), StorageError> {
            q::library::insert_asset(
                &a.id,
                &a.org_id,
                a.created_by.as_ref(),
                &a.name,
                a.sku.as_deref(),
                &a.kind,
                a.folder_id.as_ref(),
                a.group_id.as_ref(),
                a.fit.as_deref(),
                a.wearer.as_deref(),
                a.fit_guessed,
                a.wearer_guessed,
                a.carries_mark,
                a.mark_guessed,
                &a.mime,
                a.tool.as_deref(),
                &a.blob_key,
                &a.sha256,
                a.bytes,
                a.width,
                a.height,
                a.approved_by.as_deref(),
                a.approved_at,
                a.created_at,
                a.deleted_at,
                a.provenance.as_deref(),
            )
            .execute(&mut **tx)
            .await?;
            Ok(())
        }
    };
}

pub(in crate::storage) use impl_library_store;
