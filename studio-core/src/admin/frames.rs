//! The console's frames (§4.12): every house's live frames with filters (house, tool, age in
//! days, origin `made` by a develop or `brought` by an upload) and a frame's bytes.

use crate::api::{AdminFrame, AdminFramePage, FramesQuery};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::ids::AssetId;
use crate::library::assets::AssetFile;
use crate::storage::{AssetRow, FrameFilter};

use super::Admin;
use super::window::{cursor, days_back, filter, next_cursor, page_limit};

/// The oldest `age` filter, in days.
const MAX_AGE_DAYS: i64 = 3650;

fn frame(row: AssetRow) -> AdminFrame {
    AdminFrame {
        origin: if row.tool.is_some() { "made" } else { "brought" }.to_string(),
        id: row.id.into(),
        house_id: row.org_id.to_string(),
        name: row.name,
        tool: row.tool,
        mime: row.mime,
        bytes: row.bytes,
        width: row.width,
        height: row.height,
        created_at: row.created_at,
    }
}

impl Admin<'_> {
    /// `GET /api/toolkit/admin/frames`: live frames of every house, newest first. A frame is
    /// `made` when a develop filed it (its tool is recorded) and `brought` when uploaded.
    pub async fn frames(&self, _admin: &PlatformAdmin, q: FramesQuery) -> Result<AdminFramePage> {
        let made = match filter(&q.origin) {
            None => None,
            Some("made") => Some(true),
            Some("brought") => Some(false),
            Some(_) => return Err(Error::invalid("BAD_ORIGIN", "origin is made or brought.")),
        };
        let since = match q.age {
            None => None,
            Some(d) if (1..=MAX_AGE_DAYS).contains(&d) => Some(days_back(d)),
            Some(_) => {
                return Err(Error::invalid("BAD_AGE", format!("age is a number of days, 1 to {MAX_AGE_DAYS}."))
                    .with("max", MAX_AGE_DAYS));
            }
        };
        let limit = page_limit(q.limit)?;
        let before = cursor(q.cursor.as_deref())?;
        let f = FrameFilter {
            org_id: filter(&q.house),
            tool: filter(&q.tool),
            since,
            made,
            before: before.as_ref().map(|(at, id)| (*at, id.as_str())),
            limit: limit + 1,
        };
        let mut rows = self.store.console_frames(&f).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(|r| next_cursor(r.created_at, &r.id)) } else { None };
        Ok(AdminFramePage { frames: rows.into_iter().map(frame).collect(), next_cursor: next })
    }

    /// `GET /api/toolkit/admin/frames/{id}/file`: a live frame's bytes, whatever its house;
    /// 404 `NOT_FOUND` for an unknown or deleted one.
    pub async fn frame_file(&self, _admin: &PlatformAdmin, id: &AssetId) -> Result<AssetFile> {
        let row = match self.studio.library().asset(&AssetId::from(id.trim())).await? {
            Some(row) if row.deleted_at.is_none() => row,
            _ => return Err(Error::not_found("NOT_FOUND", "No frame has that id.")),
        };
        self.studio.library().file_of(row, None).await
    }
}
