//! The lookbook (§4.4, §4.5): looks made of a model, pieces and a background; shot templates;
//! the house's standing preset; the composer's vocabulary ([`vocabulary`]) every route checks
//! against. The view is `studio.lookbook()`.
//!
//! Creating a look stores selections only: nothing develops and nothing is charged. Every asset
//! a look or a preset names must be a live asset of the house (404 `ASSET_NOT_FOUND`). A look's
//! detail reads its develop jobs (`jobs.look_id`): stage `lock` gives `lockDevelop`, stage
//! `variations` the variation frames. The factory (`factory.rs`) proposes looks from a pile of
//! pieces and drafts a confirmed batch through the same checks a hand-made look passes.

mod develop;
mod factory;
pub(crate) use develop::LOOK_TOOL;
pub(crate) mod output;
pub mod vocabulary;

pub use factory::{MAX_FACTORY_LOOKS, MAX_PLAN_ASSETS};

use crate::api::{
    Background, CreateLookRequest, LockDevelop, Look, LookDetail, LookItem, LookList, LookPreset, LookStatus,
    PresetRequest, PresetResponse, PresetSize, Quality, ShotTemplate, StandingPreset, TemplateDetail, TemplateList,
    TemplateShot, Vocabulary,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::{AssetId, LookId, TemplateId, now};
use crate::storage::{LookRow, PresetRow, TemplateRow};

/// The most looks a listing shows.
pub const LOOKS_LISTED: i64 = 50;
/// The longest look name, in characters.
const MAX_NAME_CHARS: usize = 120;
/// The most named sizes a standing preset keeps.
const MAX_PRESET_SIZES: usize = 20;
/// The largest side of a named size, in pixels.
const MAX_SIZE_PX: u32 = 8192;

crate::studio::view! {
    /// The lookbook's operations: `studio.lookbook()`.
    Lookbook over LookbookStore
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(Error::internal)
}

fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(Error::internal)
}

pub(crate) fn look_view(row: &LookRow) -> Result<Look> {
    let background: Background = parse(&row.background)?;
    let background_asset_id = match &background {
        Background::Asset { asset_id } => Some(asset_id.clone()),
        Background::Preset { .. } => None,
    };
    Ok(Look {
        id: row.id.clone().into(),
        organization_id: row.org_id.to_string(),
        created_by_user_id: row.created_by.clone().into(),
        brand_id: row.brand_id.clone(),
        name: row.name.clone(),
        model_asset_id: row.model_asset_id.clone().into(),
        background_asset_id,
        item_asset_ids: parse(&row.items)?,
        preset: LookPreset { aesthetic: row.aesthetic.clone(), background },
        status: row.status,
        look_base_asset_id: row.look_base_asset_id.clone().map(String::from),
        look_base_job_id: row.look_base_job_id.clone().map(String::from),
        look_base_parent_asset_id: row.look_base_parent_id.clone().map(String::from),
        batch_id: row.batch_id.clone(),
        planned_variation_keys: row.planned_keys.as_deref().map(parse).transpose()?,
        planned_quality: row.planned_quality.as_deref().and_then(|q| q.parse().ok()),
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

/// A look's own selections, checked for shape against the vocabulary (ownership is checked
/// with the other assets): what a hand-made look and each look of a factory run share.
struct Draft {
    /// 1 to [`MAX_NAME_CHARS`] characters, trimmed.
    name: String,
    /// The pieces.
    items: Vec<LookItem>,
    /// Where the look stands.
    background: Background,
}

/// A look's name: 400 `NAME_REQUIRED` when blank or longer than [`MAX_NAME_CHARS`].
fn checked_name(raw: Option<&str>) -> Result<String> {
    let name = raw.map(str::trim).unwrap_or_default();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::invalid("NAME_REQUIRED", format!("Name the look (1 to {MAX_NAME_CHARS} characters).")));
    }
    Ok(name.to_string())
}

/// The model's asset id: 400 `MODEL_REQUIRED` when blank.
fn checked_model(raw: Option<&str>) -> Result<String> {
    let model = raw.map(str::trim).unwrap_or_default();
    if model.is_empty() {
        return Err(Error::invalid("MODEL_REQUIRED", "Choose the model (modelAssetId)."));
    }
    Ok(model.to_string())
}

/// A brand id, or none when absent or blank.
fn brand(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim).filter(|b| !b.is_empty()).map(str::to_string)
}

/// The assets a look's pieces and background name, for the ownership check.
fn selection_ids(items: &[LookItem], background: &Background) -> Vec<String> {
    let mut ids: Vec<String> = items.iter().map(|i| i.asset_id.clone()).collect();
    if let Background::Asset { asset_id } = background {
        ids.push(asset_id.clone());
    }
    ids
}

/// A draft look's row, not in any factory batch.
fn draft_row(
    caller: &Caller,
    draft: Draft,
    model: &str,
    aesthetic: &str,
    brand_id: Option<String>,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<LookRow> {
    Ok(LookRow {
        id: LookId::generate(),
        org_id: caller.org_id.clone(),
        created_by: caller.user_id.clone(),
        brand_id,
        name: draft.name,
        model_asset_id: AssetId::from(model.to_string()),
        items: json(&draft.items)?,
        background: json(&draft.background)?,
        aesthetic: aesthetic.to_string(),
        status: LookStatus::Draft,
        look_base_asset_id: None,
        look_base_job_id: None,
        batch_id: None,
        created_at: at,
        updated_at: at,
        look_base_parent_id: None,
        planned_keys: None,
        planned_quality: None,
    })
}

fn template_view(t: &TemplateRow) -> Result<ShotTemplate> {
    Ok(ShotTemplate {
        id: t.id.clone().into(),
        organization_id: t.org_id.clone().map(String::from),
        name: t.name.clone(),
        slots: parse(&t.slots)?,
        shot_count: t.shot_count,
        created_at: t.created_at,
        updated_at: t.updated_at,
    })
}

/// The standing preset a house has before it saves one.
fn default_preset() -> StandingPreset {
    StandingPreset {
        model_asset_id: None,
        background: Background::Preset { value: "white".into() },
        aesthetic: "minimal".into(),
        variation_keys: vec!["full-front".into(), "back".into(), "detail".into()],
        quality: Quality::K2,
        sizes: Vec::new(),
    }
}

impl Lookbook<'_> {
    /// The composer's vocabulary.
    pub fn vocabulary(&self) -> Vocabulary {
        vocabulary::vocabulary()
    }

    /// A background whose asset, if any, is a live asset of the house.
    async fn checked_background(&self, caller: &Caller, raw: Option<&serde_json::Value>) -> Result<Background> {
        let background = vocabulary::background(raw)?;
        if let Background::Asset { asset_id } = &background {
            self.studio.models().live_assets(caller, std::slice::from_ref(asset_id), "ASSET_NOT_FOUND").await?;
        }
        Ok(background)
    }

    /// Pieces checked for shape, role and count (ownership is checked with the other assets).
    fn checked_items(raw: Option<&[serde_json::Value]>) -> Result<Vec<LookItem>> {
        let raw = raw.unwrap_or_default();
        if raw.is_empty() {
            return Err(Error::invalid("ITEMS_REQUIRED", "A look needs at least one piece."));
        }
        if raw.len() > vocabulary::MAX_ITEMS_PER_LOOK {
            return Err(Error::invalid(
                "TOO_MANY_ITEMS",
                format!("A look holds at most {} pieces.", vocabulary::MAX_ITEMS_PER_LOOK),
            )
            .with("max", vocabulary::MAX_ITEMS_PER_LOOK));
        }
        let mut items: Vec<LookItem> = Vec::with_capacity(raw.len());
        for entry in raw {
            let asset_id = entry.get("assetId").and_then(|v| v.as_str()).map(str::trim).unwrap_or_default();
            let role = entry.get("role").and_then(|v| v.as_str()).map(str::trim).unwrap_or_default();
            if asset_id.is_empty() {
                return Err(Error::invalid("BAD_ITEM", "Each piece is {assetId, role}.")
                    .with("roles", vocabulary::ITEM_ROLES.to_vec()));
            }
            let role = vocabulary::item_role(role)?;
            if items.iter().any(|i| i.asset_id == asset_id) {
                return Err(Error::invalid("BAD_ITEM", format!("The piece {asset_id} is named twice."))
                    .with("roles", vocabulary::ITEM_ROLES.to_vec()));
            }
            items.push(LookItem { asset_id: asset_id.to_string(), role: role.to_string() });
        }
        Ok(items)
    }

    /// Create a draft look: selections only, nothing develops or charges. Any role but viewer.
    pub async fn create_look(&self, caller: &Caller, req: CreateLookRequest) -> Result<Look> {
        caller.require_write_library()?;
        let name = checked_name(req.name.as_deref())?;
        let model = checked_model(req.model_asset_id.as_deref())?;
        let items = Self::checked_items(req.item_asset_ids.as_deref())?;
        let background = vocabulary::background(req.background.as_ref())?;
        let aesthetic = vocabulary::aesthetic(req.aesthetic.as_deref())?;
        let ids: Vec<String> = std::iter::once(model.clone()).chain(selection_ids(&items, &background)).collect();
        self.studio.models().live_assets(caller, &ids, "ASSET_NOT_FOUND").await?;
        let row = draft_row(
            caller,
            Draft { name, items, background },
            &model,
            aesthetic,
            brand(req.brand_id.as_deref()),
            now(),
        )?;
        self.store.insert_looks(vec![row.clone()]).await?;
        look_view(&row)
    }

    /// The house's looks, newest first (50).
    pub async fn looks(&self, caller: &Caller) -> Result<LookList> {
        let rows = self.store.looks(&caller.org_id, LOOKS_LISTED).await?;
        Ok(LookList { looks: rows.iter().map(look_view).collect::<Result<_>>()? })
    }

    /// A look with its variation frames and latest develop-lock; 404 `NOT_FOUND`.
    pub async fn look(&self, caller: &Caller, id: &LookId) -> Result<LookDetail> {
        let row = self
            .store
            .look(&caller.org_id, id)
            .await?
            .ok_or_else(|| Error::not_found("NOT_FOUND", "No such look in this house."))?;
        let look = look_view(&row)?;
        let jobs = self.store.look_jobs(&caller.org_id, id).await?;
        let lock_develop = jobs.iter().rev().find(|j| j.stage.as_deref() == Some("lock")).map(|j| LockDevelop {
            id: j.id.clone().into(),
            status: j.status.clone().to_string(),
            result_asset_id: j.result_asset_id.clone().map(String::from),
            error: j.error.clone(),
        });
        let variations = jobs
            .iter()
            .filter(|j| j.stage.as_deref() == Some("variations"))
            .map(|j| {
                let params: serde_json::Value = serde_json::from_str(&j.params).unwrap_or_default();
                let key = params.get("variation").and_then(|v| v.as_str()).unwrap_or_default().to_string();
                let framing = vocabulary::VARIATIONS.iter().find(|v| v.0 == key).map(|v| v.2).unwrap_or_default();
                crate::api::LookVariation {
                    framing: framing.to_string(),
                    key,
                    job_id: j.id.clone().into(),
                    asset_id: j.result_asset_id.clone().map(String::from),
                    locked: j.result_asset_id.is_some() && j.result_asset_id == row.look_base_asset_id,
                    status: j.status.clone().to_string(),
                    error: j.error.clone(),
                }
            })
            .collect();
        Ok(LookDetail { look, variations, lock_develop })
    }

    /// The built-in shot templates, then the house's.
    pub async fn templates(&self, caller: &Caller) -> Result<TemplateList> {
        let rows = self.store.templates(&caller.org_id).await?;
        Ok(TemplateList { templates: rows.iter().map(template_view).collect::<Result<_>>()? })
    }

    /// A template with its shots; 404 `NOT_FOUND` for one that is not built in nor the house's.
    pub async fn template(&self, caller: &Caller, id: &TemplateId) -> Result<TemplateDetail> {
        let id = id.trim();
        if id.is_empty() {
            return Err(Error::invalid("ID_REQUIRED", "Name the template."));
        }
        let row = self
            .store
            .template(&caller.org_id, &TemplateId::from(id))
            .await?
            .ok_or_else(|| Error::not_found("NOT_FOUND", "No such template."))?;
        let shots = self
            .store
            .template_shots(&row.id)
            .await?
            .into_iter()
            .map(|s| TemplateShot {
                id: s.id,
                kind: s.kind,
                framing: s.framing,
                pose: s.pose,
                expression: s.expression,
                sort_order: s.sort_order,
            })
            .collect();
        Ok(TemplateDetail { template: template_view(&row)?, shots })
    }

    /// The house's standing preset; the defaults until one is saved (never 404).
    pub async fn preset(&self, caller: &Caller) -> Result<PresetResponse> {
        let preset = match self.store.preset(&caller.org_id).await? {
            Some(row) => preset_view(&row)?,
            None => default_preset(),
        };
        Ok(PresetResponse { preset })
    }

    /// Save the standing preset, checked against the vocabulary. `sizes` absent leaves the stored
    /// list alone; an empty array clears it. Any role but viewer.
    pub async fn save_preset(&self, caller: &Caller, req: PresetRequest) -> Result<PresetResponse> {
        caller.require_write_library()?;
        let aesthetic = vocabulary::aesthetic(req.aesthetic.as_deref())?;
        let background = self.checked_background(caller, req.background.as_ref()).await?;
        let keys = vocabulary::variation_keys(req.variation_keys.as_deref())?;
        let model = req.model_asset_id.map(|m| m.trim().to_string()).filter(|m| !m.is_empty());
        if let Some(model) = &model {
            self.studio.models().live_assets(caller, std::slice::from_ref(model), "ASSET_NOT_FOUND").await?;
        }
        if let Some(sizes) = &req.sizes {
            check_sizes(sizes)?;
        }
        let row = PresetRow {
            org_id: caller.org_id.clone(),
            model_asset_id: model.map(AssetId::from),
            background: json(&background)?,
            aesthetic: aesthetic.to_string(),
            variation_keys: json(&keys)?,
            quality: req.quality.unwrap_or(Quality::K2).as_str().to_string(),
            sizes: json(&req.sizes.clone().unwrap_or_default())?,
            updated_at: now(),
        };
        let saved = self.store.save_preset(row, req.sizes.is_none()).await?;
        Ok(PresetResponse { preset: preset_view(&saved)? })
    }
}

fn check_sizes(sizes: &[PresetSize]) -> Result<()> {
    if sizes.len() > MAX_PRESET_SIZES {
        return Err(Error::invalid("BAD_SIZES", format!("A preset keeps at most {MAX_PRESET_SIZES} sizes."))
            .with("max", MAX_PRESET_SIZES));
    }
    for s in sizes {
        let name = s.name.trim();
        if name.is_empty() || name.chars().count() > 60 {
            return Err(Error::invalid("BAD_SIZES", "Each size has a name of 1 to 60 characters."));
        }
        if !(1..=MAX_SIZE_PX).contains(&s.width) || !(1..=MAX_SIZE_PX).contains(&s.height) {
            return Err(Error::invalid(
                "BAD_DIMENSIONS",
                format!("{name}: width and height are 1 to {MAX_SIZE_PX} pixels."),
            )
            .with("max", MAX_SIZE_PX));
        }
    }
    Ok(())
}

fn preset_view(row: &PresetRow) -> Result<StandingPreset> {
    Ok(StandingPreset {
        model_asset_id: row.model_asset_id.clone().map(String::from),
        background: parse(&row.background)?,
        aesthetic: row.aesthetic.clone(),
        variation_keys: parse(&row.variation_keys)?,
        quality: row.quality.parse().map_err(Error::internal)?,
        sizes: parse(&row.sizes)?,
    })
}
