//! The tool catalogue and who may open what (§4.8 `my-access`, `tools/{slug}/items`; §4.12
//! `access`, `tool-items`).
//!
//! The catalogue is fixed in code ([`TOOLKITS`], [`TOOLS`]): a toolkit groups tools, a tool
//! names the settings its screen exposes. A person may open a tool while their trial window is
//! open (`trial_days` after sign-up), while their house pays for a plan, or when an admin has
//! granted them the tool or its toolkit (by user id, or by email before they sign up). The
//! catalogue tells the web app what to show; the API's own routes are guarded by roles and
//! tokens, never by this catalogue. Tool items are a tool's library of references and prompts,
//! kept by admins.

use crate::accounts::Accounts;
use chrono::{DateTime, Duration, Utc};

use crate::api::{MyAccess, ToolAccess, ToolItem, ToolItems, ToolkitAccess};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{ToolId, ToolItemId, UserId, now};
use crate::storage::{GrantedTool, ToolGrantRow, ToolItemRow};

/// A toolkit: (id, name, description).
pub(crate) const TOOLKITS: [(&str, &str, &str); 4] = [
    ("develop", "Develop", "Develops of single frames and packs of the library"),
    ("creative", "Creative", "Looks, factory lines, pipelines and the casting board"),
    ("brand", "Brand", "The house's brand profile and marks"),
    ("writing", "Writing", "Prompt and keyword tools driven by the AI reader"),
];

/// A tool: (slug, name, toolkit, settings).
pub(crate) const TOOLS: [(&str, &str, &str, &[&str]); 10] = [
    ("develop", "Develop", "develop", &["tool", "quality", "inputs"]),
    ("packs", "Packs", "develop", &["size", "folder"]),
    ("lookbook", "Lookbook", "creative", &["aesthetic", "background", "destination", "quality"]),
    ("factory", "Factory", "creative", &["preset", "variations"]),
    ("pipelines", "Pipelines", "creative", &["plan", "items"]),
    ("models", "Models", "creative", &["traits", "sheets"]),
    ("brand", "Brand", "brand", &["dna", "marks"]),
    ("prompt-builder", "Prompt builder", "writing", &["subject", "style"]),
    ("prompt-enhancer", "Prompt enhancer", "writing", &["prompt"]),
    ("inspiration-keywords", "Inspiration keywords", "writing", &["theme"]),
];

pub(crate) fn toolkit_exists(id: &str) -> bool {
    TOOLKITS.iter().any(|(k, _, _)| *k == id)
}

pub(crate) fn tool_exists(slug: &str) -> bool {
    TOOLS.iter().any(|(t, _, _, _)| *t == slug)
}

pub(crate) fn item_view(i: ToolItemRow) -> ToolItem {
    ToolItem {
        id: i.id.into(),
        tool_id: i.tool_id.into(),
        category: i.category,
        title_he: i.title_he,
        label_he: i.label_he,
        content_en: i.content_en,
        image_url: i.image_url,
        notes_he: i.notes_he,
        sort_order: i.sort_order,
        created_at: i.created_at,
    }
}

impl Accounts<'_> {
    /// The catalogue with the caller's access and trial window.
    pub async fn my_access(&self, caller: &Caller) -> Result<MyAccess> {
        let profile =
            self.store.profile(&caller.user_id).await?.ok_or_else(|| Error::unauthenticated("No valid session"))?;
        let trial_ends = profile.created_at + Duration::days(self.studio.config.people.trial_days.max(0));
        let at = now();
        let trial_active = at < trial_ends;
        let trial_days_left = if trial_active { ((trial_ends - at).num_hours() + 23) / 24 } else { 0 };
        let plan = self.studio.billing().plan_view(&caller.org_id).await?.is_some();
        let grants = self.store.tool_grants(&caller.user_id, &profile.email).await?;
        let open_all = trial_active || plan;
        let kit_open = |kit: &str| open_all || grants.iter().any(|g| g.toolkit_id.as_deref() == Some(kit));
        let toolkits = TOOLKITS
            .iter()
            .map(|(id, name, description)| ToolkitAccess {
                id: id.to_string(),
                name: name.to_string(),
                description: description.to_string(),
                accessible: kit_open(id),
            })
            .collect();
        let tools = TOOLS
            .iter()
            .enumerate()
            .map(|(i, (slug, name, kit, settings))| ToolAccess {
                id: slug.to_string(),
                slug: slug.to_string(),
                name: name.to_string(),
                toolkit_id: kit.to_string(),
                sort_order: i as i64,
                accessible: kit_open(kit) || grants.iter().any(|g| g.tool_id.as_deref() == Some(*slug)),
                settings: settings.iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        Ok(MyAccess { toolkits, tools, trial_expired: !trial_active, trial_active, trial_days_left })
    }

    /// A tool's items, per category by sort order; 404 for a tool not in the catalogue, 403
    /// `TOOL_LOCKED` for one the caller may not open.
    pub async fn tool_items(&self, caller: &Caller, slug: &str) -> Result<ToolItems> {
        if !tool_exists(slug) {
            return Err(Error::not_found("TOOL_NOT_FOUND", format!("No tool is called {slug:?}.")));
        }
        let access = self.my_access(caller).await?;
        if !access.tools.iter().any(|t| t.slug == slug && t.accessible) {
            return Err(Error::forbidden("TOOL_LOCKED", "This tool is not open to you."));
        }
        let items = self.store.tool_items(&ToolId::from(slug)).await?.into_iter().map(item_view).collect();
        Ok(ToolItems { items })
    }

    /// Grant a toolkit or a tool (the row says which, and to whom); false when already granted.
    pub(crate) async fn grant_tool_access(&self, grant: ToolGrantRow) -> Result<bool> {
        Ok(self.store.grant_tool_access(grant).await?)
    }

    /// Revoke the live grants of a toolkit or tool to the person (by id) or the address; how many.
    pub(crate) async fn revoke_tool_access(
        &self,
        user_id: Option<&UserId>,
        email: Option<&str>,
        what: GrantedTool<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64> {
        Ok(self.store.revoke_tool_access(user_id, email, what, now).await?)
    }

    /// A tool's item rows, whoever asks (any tool id).
    pub(crate) async fn tool_item_rows(&self, tool_id: &ToolId) -> Result<Vec<ToolItemRow>> {
        Ok(self.store.tool_items(tool_id).await?)
    }

    /// Store a tool item.
    pub(crate) async fn add_tool_item(&self, item: ToolItemRow) -> Result<()> {
        self.store.insert_tool_item(item).await?;
        Ok(())
    }

    /// Delete a tool item; false when there is none.
    pub(crate) async fn remove_tool_item(&self, id: &ToolItemId) -> Result<bool> {
        Ok(self.store.delete_tool_item(id).await?)
    }
}

/// The onboarding steps' keys, in order (the admin funnel's rows).
pub(crate) const ONBOARDING_STEP_KEYS: [&str; 5] = {
    let s = crate::accounts::profile::ONBOARDING_STEPS;
    [s[0].0, s[1].0, s[2].0, s[3].0, s[4].0]
};
