//! Collections (folders): a flat list per house, a tree through `parentId`.

use crate::api::{CreateFolderRequest, Folder, FolderDeleted, FolderList, FolderResponse, RenameFolderRequest};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{FolderId, OrgId};
use crate::library::Library;
use crate::storage::FolderRow;

/// Longest collection name.
const MAX_NAME_CHARS: usize = 200;

fn folder_view(row: FolderRow) -> Folder {
    Folder { id: row.id.into(), name: row.name, parent_id: row.parent_id.map(String::from), created_at: row.created_at }
}

pub(crate) fn not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such collection in this house.")
}

/// A trimmed name within bounds; None when empty.
fn clean_name(raw: Option<&str>) -> Result<Option<String>> {
    let name = raw.map(str::trim).unwrap_or_default();
    if name.is_empty() {
        return Ok(None);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::invalid("BAD_BODY", format!("A collection name is at most {MAX_NAME_CHARS} characters.")));
    }
    Ok(Some(name.to_string()))
}

impl Library<'_> {
    /// One collection of a house, if it is that house's.
    pub(crate) async fn folder(&self, org_id: &OrgId, id: &FolderId) -> Result<Option<FolderRow>> {
        Ok(self.store.folder(org_id, id).await?)
    }

    /// Every collection of the caller's house, oldest first.
    pub async fn list_folders(&self, caller: &Caller) -> Result<FolderList> {
        let rows = self.store.list_folders(&caller.org_id).await?;
        Ok(FolderList { folders: rows.into_iter().map(folder_view).collect() })
    }

    /// Create a collection, at the root or under one of the house's collections.
    pub async fn create_folder(&self, caller: &Caller, req: CreateFolderRequest) -> Result<FolderResponse> {
        caller.require_write_library()?;
        let Some(name) = clean_name(req.name.as_deref())? else {
            return Err(Error::invalid("NAME_REQUIRED", "A collection needs a name."));
        };
        if let Some(parent) = &req.parent_id {
            self.store
                .folder(&caller.org_id, &FolderId::from(parent))
                .await?
                .ok_or_else(|| Error::not_found("NOT_FOUND", "The parent collection does not exist in this house."))?;
        }
        let row = FolderRow {
            id: FolderId::generate(),
            org_id: caller.org_id.clone(),
            name,
            parent_id: req.parent_id.map(FolderId::from),
            created_at: crate::ids::now(),
        };
        self.store.insert_folder(row.clone()).await?;
        Ok(FolderResponse { folder: folder_view(row) })
    }

    /// Rename a collection. An empty or unchanged name changes nothing and answers 200.
    pub async fn rename_folder(
        &self,
        caller: &Caller,
        id: &FolderId,
        req: RenameFolderRequest,
    ) -> Result<FolderResponse> {
        caller.require_write_library()?;
        let current = self.store.folder(&caller.org_id, id).await?.ok_or_else(not_found)?;
        let name = clean_name(req.name.as_deref())?;
        match name {
            Some(name) if name != current.name => {
                let row = self.store.rename_folder(&caller.org_id, id, &name).await?.ok_or_else(not_found)?;
                Ok(FolderResponse { folder: folder_view(row) })
            }
            _ => Ok(FolderResponse { folder: folder_view(current) }),
        }
    }

    /// Delete a collection: nothing in it is lost. Its images and its sub-collections move up
    /// to its parent (the root when it had none), and the marks registered for it go with it.
    /// Any role but viewer (403); 404 when it is not this house's.
    pub async fn delete_folder(&self, caller: &Caller, id: &FolderId) -> Result<FolderDeleted> {
        caller.require_write_library()?;
        let (moved_assets, moved_folders) =
            self.store.delete_folder(&caller.org_id, &FolderId::from(id.trim())).await?.ok_or_else(not_found)?;
        Ok(FolderDeleted { id: id.trim().to_string(), deleted: true, moved_assets, moved_folders })
    }
}
