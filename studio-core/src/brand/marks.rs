//! The house's marks (§2.6): renditions of its logo, each a library asset registered at house
//! level or for one collection (a library folder). A collection's set overrides the house's
//! whole when it is not empty; up to two renditions ride a frame, lowest sortOrder first
//! ([`Brand::riding_marks`]). Registering is free and any role but viewer may do it
//! (403 `role_cannot_edit_marks`).

use crate::api::{CreateMarkRequest, Mark, MarkDeleted, MarkList, MarkPatch, MarkResponse, MarksQuery, Riding};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{AssetId, FolderId, MarkId, OrgId};
use crate::storage::{BrandMarkRow, StorageError};

use super::Brand;

/// Most renditions that ride one frame.
pub(crate) const MAX_RIDING: usize = 2;
/// The develop option that asks for the riding marks as inputs: `1` (also `true`, `on`, `yes`,
/// `house`) for the house's set, a collection (folder) id for that collection's riding set;
/// `0`, `false`, `off`, `no` or empty for none.
pub(crate) const PLACE_MARKS_PARAM: &str = "placeMarks";
/// The input role the riding marks join a develop under, in riding order.
pub(crate) const MARK_ROLE: &str = "mark";
const MAX_MATERIAL_CHARS: usize = 60;
const MAX_PLACEMENT_CHARS: usize = 120;
const MAX_NOTE_CHARS: usize = 500;

fn may_edit(caller: &Caller) -> Result<()> {
    if caller.role == crate::api::SeatRole::Viewer {
        return Err(Error::forbidden(
            "role_cannot_edit_marks",
            "A viewer may see the house's marks but not edit them.",
        ));
    }
    Ok(())
}

fn mark_not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such mark in this house.")
}

fn material(raw: Option<&str>) -> Result<String> {
    let m = raw.map(str::trim).unwrap_or("");
    if m.is_empty() || m.chars().count() > MAX_MATERIAL_CHARS {
        return Err(Error::invalid(
            "BAD_MATERIAL",
            format!("material is required: 1 to {MAX_MATERIAL_CHARS} characters (woven label, gold foil, ...)."),
        ));
    }
    Ok(m.to_string())
}

/// An optional text: trimmed, blank is none, over `max` characters is 400 `code`.
fn optional(raw: Option<&str>, max: usize, code: &'static str, what: &str) -> Result<Option<String>> {
    let v = raw.map(str::trim).filter(|v| !v.is_empty());
    if v.is_some_and(|v| v.chars().count() > max) {
        return Err(Error::invalid(code, format!("{what} is at most {max} characters.")));
    }
    Ok(v.map(str::to_string))
}

fn mark_view(row: BrandMarkRow) -> Mark {
    Mark {
        id: row.id.into(),
        asset_id: row.asset_id.into(),
        collection_id: (!row.collection_id.is_empty()).then_some(row.collection_id),
        material: row.material,
        placement: row.placement,
        note: row.note,
        sort_order: row.sort_order,
        filename: row.filename,
        created_at: row.created_at,
    }
}

impl Brand<'_> {
    /// A collection id of the house ('' for none); 404 `COLLECTION_NOT_FOUND` otherwise.
    async fn level(&self, caller: &Caller, collection_id: Option<&str>) -> Result<String> {
        match collection_id.map(str::trim).filter(|c| !c.is_empty()) {
            None => Ok(String::new()),
            Some(id) => match self.studio.library().folder(&caller.org_id, &FolderId::from(id)).await? {
                Some(f) => Ok(f.id.into()),
                None => Err(Error::not_found("COLLECTION_NOT_FOUND", format!("No collection {id:?} in this house."))),
            },
        }
    }

    /// `GET /api/toolkit/brand/marks?collectionId`: both sets and which one rides.
    pub async fn marks(&self, caller: &Caller, query: MarksQuery) -> Result<MarkList> {
        let level = self.level(caller, query.collection_id.as_deref()).await?;
        let house = self.store.brand_marks(&caller.org_id, &FolderId::from("")).await?;
        let collection = if level.is_empty() {
            Vec::new()
        } else {
            self.store.brand_marks(&caller.org_id, &FolderId::from(&level)).await?
        };
        let riding = if collection.is_empty() { Riding::House } else { Riding::Collection };
        Ok(MarkList {
            house: house.into_iter().map(mark_view).collect(),
            collection: collection.into_iter().map(mark_view).collect(),
            riding,
        })
    }

    /// The renditions that ride a frame of `collection_id` (or of the house): the collection's
    /// set when it has one, else the house's; at most two, by sortOrder then registration.
    pub async fn riding_marks(&self, org_id: &OrgId, collection_id: Option<&str>) -> Result<Vec<Mark>> {
        let mut rows = match collection_id.filter(|c| !c.is_empty()) {
            Some(c) => self.store.brand_marks(org_id, &FolderId::from(c)).await?,
            None => Vec::new(),
        };
        if rows.is_empty() {
            rows = self.store.brand_marks(org_id, &FolderId::from("")).await?;
        }
        Ok(rows.into_iter().take(MAX_RIDING).map(mark_view).collect())
    }

    /// Give each new job that asks (`placeMarks`) the renditions that ride its frame as inputs
    /// of role `mark`, lowest sortOrder first; marks a source job carried are replaced by
    /// today's. 404 `COLLECTION_NOT_FOUND` for a collection not the house's (nothing is held).
    pub(crate) async fn carry_marks(&self, jobs: &mut [crate::storage::JobRow]) -> Result<()> {
        for job in jobs.iter_mut() {
            let params = job.params_map();
            let ask = params.get(PLACE_MARKS_PARAM).map(|v| v.trim()).unwrap_or("");
            let collection = match ask.to_ascii_lowercase().as_str() {
                "" | "0" | "false" | "off" | "no" => continue,
                "1" | "true" | "on" | "yes" | "house" => None,
                _ => Some(ask),
            };
            if let Some(c) = collection
                && self.studio.library().folder(&job.org_id, &FolderId::from(c)).await?.is_none()
            {
                return Err(Error::not_found("COLLECTION_NOT_FOUND", format!("No collection {c:?} in this house.")));
            }
            let mut inputs = job.input_list();
            inputs.retain(|i| i.role != MARK_ROLE);
            for mark in self.riding_marks(&job.org_id, collection).await? {
                if let Some(asset) = self.studio.library().asset(&AssetId::from(&mark.asset_id)).await? {
                    inputs.push(crate::develops::JobInput {
                        role: MARK_ROLE.to_string(),
                        blob_key: asset.blob_key,
                        mime: asset.mime,
                        asset_id: Some(asset.id.into()),
                    });
                }
            }
            job.inputs = serde_json::to_string(&inputs).map_err(Error::internal)?;
        }
        Ok(())
    }

    /// `POST /api/toolkit/brand/marks`: register a live asset of the house as a mark. 400
    /// `ASSET_REQUIRED`, `BAD_MATERIAL`; 403 `role_cannot_edit_marks`; 404 `ASSET_NOT_FOUND`,
    /// `COLLECTION_NOT_FOUND`; 409 `ALREADY_REGISTERED` at this level. Free.
    pub async fn create_mark(&self, caller: &Caller, req: CreateMarkRequest) -> Result<MarkResponse> {
        may_edit(caller)?;
        let asset_id = req.asset_id.as_deref().map(str::trim).unwrap_or("");
        if asset_id.is_empty() {
            return Err(Error::invalid("ASSET_REQUIRED", "Name the mark's image in assetId (upload it first)."));
        }
        let material = material(req.material.as_deref())?;
        let placement = optional(req.placement.as_deref(), MAX_PLACEMENT_CHARS, "BAD_PLACEMENT", "placement")?;
        let note = optional(req.note.as_deref(), MAX_NOTE_CHARS, "BAD_NOTE", "note")?;
        let asset = match self.studio.library().asset(&AssetId::from(asset_id)).await? {
            Some(a) if a.org_id == caller.org_id && a.deleted_at.is_none() => a,
            _ => return Err(Error::not_found("ASSET_NOT_FOUND", format!("No asset {asset_id:?} in this house."))),
        };
        // A mark rides develops as an input, so it meets an input's size limit.
        let max_mb = crate::images::MAX_IMAGE_MB;
        if asset.bytes as u64 > max_mb * 1024 * 1024 {
            return Err(Error::new(
                crate::error::ErrorKind::TooLarge,
                "IMAGE_TOO_LARGE",
                format!("A mark rides develops as an input: at most {max_mb} MB."),
            )
            .with("maxMb", max_mb));
        }
        let level = self.level(caller, req.collection_id.as_deref()).await?;
        let row = BrandMarkRow {
            id: MarkId::generate(),
            org_id: caller.org_id.clone(),
            asset_id: asset.id.clone(),
            collection_id: level,
            material,
            placement,
            note,
            sort_order: req.sort_order.unwrap_or(0),
            created_by: Some(caller.user_id.clone()),
            created_at: crate::ids::now(),
            filename: asset.name.clone(),
        };
        match self.store.insert_brand_mark(&row).await {
            Ok(()) => Ok(MarkResponse { mark: mark_view(row) }),
            Err(StorageError::Conflict(_)) => Err(Error::conflict(
                "ALREADY_REGISTERED",
                "This image is already a mark at this level (the house, or this collection).",
            )),
            Err(e) => Err(e.into()),
        }
    }

    /// `PATCH /api/toolkit/brand/marks/{id}`: absent fields stay; null clears placement and
    /// note; material cannot be cleared (400 `BAD_MATERIAL`). 403; 404 `NOT_FOUND`.
    pub async fn update_mark(&self, caller: &Caller, id: &MarkId, patch: MarkPatch) -> Result<MarkResponse> {
        may_edit(caller)?;
        let mark = self.store.brand_mark(&caller.org_id, id).await?.ok_or_else(mark_not_found)?;
        let material = match &patch.material {
            None => mark.material.clone(),
            Some(m) => material(m.as_deref())?,
        };
        let placement = match &patch.placement {
            None => mark.placement.clone(),
            Some(p) => optional(p.as_deref(), MAX_PLACEMENT_CHARS, "BAD_PLACEMENT", "placement")?,
        };
        let note = match &patch.note {
            None => mark.note.clone(),
            Some(n) => optional(n.as_deref(), MAX_NOTE_CHARS, "BAD_NOTE", "note")?,
        };
        let sort_order = patch.sort_order.unwrap_or(mark.sort_order);
        let storage = &self.store;
        if !storage
            .update_brand_mark(&caller.org_id, id, &material, placement.as_deref(), note.as_deref(), sort_order)
            .await?
        {
            return Err(mark_not_found());
        }
        let mark = storage.brand_mark(&caller.org_id, id).await?.ok_or_else(mark_not_found)?;
        Ok(MarkResponse { mark: mark_view(mark) })
    }

    /// `DELETE /api/toolkit/brand/marks/{id}`: unregister; the asset stays in the library.
    pub async fn delete_mark(&self, caller: &Caller, id: &MarkId) -> Result<MarkDeleted> {
        may_edit(caller)?;
        if !self.store.delete_brand_mark(&caller.org_id, id).await? {
            return Err(mark_not_found());
        }
        Ok(MarkDeleted { ok: true, id: id.to_string() })
    }
}
