//! The admin console's people pages (§4.12): tool access grants, the people list, the
//! onboarding funnel and tool items.

use crate::accounts::Email;
use crate::accounts::access::{ONBOARDING_STEP_KEYS, TOOLKITS, TOOLS, item_view, tool_exists, toolkit_exists};
use crate::api::{
    AccessAction, AccessChanged, AccessRequest, OnboardingFunnel, OnboardingStepCount, ToolItem, ToolItemDeleted,
    ToolItemRequest, ToolItems, UserPage, UserSummary, UsersQuery,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::ids::{ToolId, ToolItemId, UserId};
use crate::ids::{new_id, now};
use crate::storage::{GrantedTool, ToolGrantRow, ToolItemRow};

use super::Admin;

/// The largest page of people.
const MAX_USER_PAGE: i64 = 200;

impl Admin<'_> {
    /// Grant or revoke a toolkit or a tool for a person (by id) or an address.
    pub async fn access(&self, admin: &PlatformAdmin, req: AccessRequest) -> Result<AccessChanged> {
        let studio = self.studio;
        let user_id = req.user_id.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let email = match req.email.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(raw) => Some(Email::parse(raw)?),
            None => None,
        };
        // A grant is stored by id once the person exists (by address before they sign up); a
        // revocation reaches both, so a grant made by address before sign-up can still be taken.
        let (user_id, email, address) = match (user_id, email) {
            (Some(id), _) => {
                let user = studio
                    .accounts()
                    .user(&UserId::from(id))
                    .await?
                    .ok_or_else(|| Error::not_found("USER_NOT_FOUND", "No person has that id."))?;
                (Some(id.to_string()), None, Some(user.email))
            }
            (None, Some(e)) => match studio.accounts().user_with_email(e.as_str()).await? {
                Some(u) => (Some(u.id.into_string()), None, Some(u.email)),
                None => (None, Some(e.as_str().to_string()), Some(e.as_str().to_string())),
            },
            (None, None) => return Err(Error::invalid("TARGET_REQUIRED", "Name a person by userId or email.")),
        };
        let kit = matches!(req.action, AccessAction::GrantToolkit | AccessAction::RevokeToolkit);
        let (toolkit_id, tool_id) = if kit {
            let id = req.toolkit_id.as_deref().map(str::trim).filter(|s| !s.is_empty());
            let id = id.ok_or_else(|| Error::invalid("TARGET_REQUIRED", "Name the toolkit (toolkitId)."))?;
            if !toolkit_exists(id) {
                let ids: Vec<&str> = TOOLKITS.iter().map(|t| t.0).collect();
                return Err(
                    Error::invalid("UNKNOWN_TOOLKIT", format!("No toolkit is called {id:?}.")).with("toolkits", ids)
                );
            }
            (Some(id.to_string()), None)
        } else {
            let id = req.tool_id.as_deref().map(str::trim).filter(|s| !s.is_empty());
            let id = id.ok_or_else(|| Error::invalid("TARGET_REQUIRED", "Name the tool (toolId)."))?;
            if !tool_exists(id) {
                let ids: Vec<&str> = TOOLS.iter().map(|t| t.0).collect();
                return Err(Error::invalid("UNKNOWN_TOOL", format!("No tool is called {id:?}.")).with("tools", ids));
            }
            (None, Some(id.to_string()))
        };
        let count = match req.action {
            AccessAction::GrantToolkit | AccessAction::GrantTool => {
                let grant = ToolGrantRow {
                    id: new_id("grt"),
                    user_id: user_id.map(UserId::from),
                    email,
                    toolkit_id,
                    tool_id: tool_id.map(ToolId::from),
                    granted_by: admin.user_id().to_string(),
                    created_at: now(),
                    revoked_at: None,
                };
                i64::from(studio.accounts().grant_tool_access(grant).await?)
            }
            AccessAction::RevokeToolkit | AccessAction::RevokeTool => {
                studio
                    .accounts()
                    .revoke_tool_access(
                        user_id.map(UserId::from).as_ref(),
                        address.as_deref(),
                        match (toolkit_id.as_deref(), tool_id.as_deref()) {
                            (Some(kit), _) => GrantedTool::Toolkit(kit),
                            (None, tool) => GrantedTool::Tool(tool.unwrap_or_default()),
                        },
                        now(),
                    )
                    .await?
            }
        };
        Ok(AccessChanged { ok: true, count })
    }

    /// People, newest first, filtered by part of an email or name, a page at a time.
    pub async fn users(&self, _admin: &PlatformAdmin, q: UsersQuery) -> Result<UserPage> {
        let limit = q.limit.unwrap_or(50);
        if !(1..=MAX_USER_PAGE).contains(&limit) {
            return Err(
                Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_USER_PAGE}.")).with("max", MAX_USER_PAGE)
            );
        }
        let after = match q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            None => None,
            Some(c) => {
                Some(decode_cursor(c).ok_or_else(|| Error::invalid("BAD_CURSOR", "That cursor is not one we gave."))?)
            }
        };
        let query = q.q.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let rows = self.studio.accounts().users_page(query, limit + 1, after).await?;
        let more = rows.len() as i64 > limit;
        let users: Vec<UserSummary> = rows
            .into_iter()
            .take(limit as usize)
            .map(|u| UserSummary {
                id: u.id.into(),
                email: u.email,
                name: u.name,
                joined_at: u.created_at,
                email_verified: u.email_verified_at.is_some(),
                platform_admin: u.platform_admin,
                houses: u.houses,
            })
            .collect();
        let next_cursor =
            if more { users.last().map(|u| format!("{}|{}", u.joined_at.to_rfc3339(), u.id)) } else { None };
        Ok(UserPage { users, next_cursor })
    }

    /// How many people completed each onboarding step.
    pub async fn onboarding(&self, _admin: &PlatformAdmin) -> Result<OnboardingFunnel> {
        let people = self.studio.accounts().user_count().await?;
        let counts = self.studio.accounts().onboarding_counts().await?;
        let steps = ONBOARDING_STEP_KEYS
            .iter()
            .map(|key| OnboardingStepCount {
                key: key.to_string(),
                completed: counts.iter().find(|(s, _)| s == key).map(|(_, n)| *n).unwrap_or(0),
            })
            .collect();
        Ok(OnboardingFunnel { people, steps })
    }

    /// A tool's items (any tool of the catalogue).
    pub async fn tool_items(&self, _admin: &PlatformAdmin, tool_id: Option<&str>) -> Result<ToolItems> {
        let tool_id = tool_id.map(str::trim).filter(|t| !t.is_empty());
        let tool_id = tool_id.ok_or_else(|| Error::invalid("TOOL_REQUIRED", "Name the tool with toolId."))?;
        if !tool_exists(tool_id) {
            return Err(unknown_tool(tool_id));
        }
        Ok(ToolItems {
            items: self
                .studio
                .accounts()
                .tool_item_rows(&ToolId::from(tool_id))
                .await?
                .into_iter()
                .map(item_view)
                .collect(),
        })
    }

    /// Add an item to a tool's library.
    pub async fn add_tool_item(&self, _admin: &PlatformAdmin, req: ToolItemRequest) -> Result<ToolItem> {
        let tool_id = req.tool_id.trim();
        if !tool_exists(tool_id) {
            return Err(unknown_tool(tool_id));
        }
        let category = req.category.trim();
        if category.is_empty() || category.chars().count() > 64 {
            return Err(Error::invalid("BAD_CATEGORY", "A category is 1 to 64 characters."));
        }
        let text = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let fields = [&req.title_he, &req.label_he, &req.content_en, &req.image_url, &req.notes_he];
        if fields.iter().any(|f| f.as_ref().is_some_and(|s| s.chars().count() > 10_000)) {
            return Err(Error::invalid("FIELD_TOO_LONG", "Each field of an item is at most 10,000 characters."));
        }
        let row = ToolItemRow {
            id: ToolItemId::generate(),
            tool_id: ToolId::from(tool_id),
            category: category.to_string(),
            title_he: text(req.title_he),
            label_he: text(req.label_he),
            content_en: text(req.content_en),
            image_url: text(req.image_url),
            notes_he: text(req.notes_he),
            sort_order: req.sort_order.unwrap_or(0),
            created_at: now(),
        };
        if row.title_he.is_none() && row.label_he.is_none() && row.content_en.is_none() && row.image_url.is_none() {
            return Err(Error::invalid("EMPTY_ITEM", "An item needs a title, a label, content or an image."));
        }
        self.studio.accounts().add_tool_item(row.clone()).await?;
        Ok(item_view(row))
    }

    /// Remove an item.
    pub async fn delete_tool_item(&self, _admin: &PlatformAdmin, id: &ToolItemId) -> Result<ToolItemDeleted> {
        if !self.studio.accounts().remove_tool_item(id).await? {
            return Err(Error::not_found("ITEM_NOT_FOUND", "No tool item has that id."));
        }
        Ok(ToolItemDeleted { id: id.to_string(), deleted: true })
    }
}

fn unknown_tool(id: &str) -> Error {
    let ids: Vec<&str> = TOOLS.iter().map(|t| t.0).collect();
    Error::not_found("TOOL_NOT_FOUND", format!("No tool is called {id:?}.")).with("tools", ids)
}

fn decode_cursor(c: &str) -> Option<(chrono::DateTime<chrono::Utc>, String)> {
    let (at, id) = c.split_once('|')?;
    let at = chrono::DateTime::parse_from_rfc3339(at).ok()?.with_timezone(&chrono::Utc);
    (!id.is_empty()).then(|| (at, id.to_string()))
}
