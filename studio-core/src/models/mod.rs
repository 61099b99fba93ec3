//! The casting board (D2 §4.7): a house's own models (cast_model, `POST models/own`) and the
//! catalog's offerings in one model store. A model's identity reads collage, sheets, originals;
//! a develop input naming a usable model (`mdl_…`: the house's own, one it holds, or a free
//! one) casts its first identity frame (see `Studio::input_asset` in develops). Buying lives
//! in `market.rs`, the admin's catalog in `admin/offerings.rs`.
//!
//! Casting and patching write to the house's library, so they ask
//! [`Caller::require_write_library`]: every role but viewer; a viewer is 403 `FORBIDDEN`.

use crate::ids::{AssetId, ModelId, OrgId, UserId};
mod market;

pub(crate) use market::{KIND_MODEL, holding_view};

use std::collections::{BTreeMap, BTreeSet};

use crate::api::{CastModelRequest, Model, ModelList, ModelPatch, TraitValue};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::storage::{AssetRow, BoardModelRow, ModelRow};

/// The id prefix of a model.
pub(crate) const MODEL_ID_PREFIX: &str = "mdl_";
/// The tier of a model the house cast itself.
const TIER_YOURS: &str = "yours";
/// Longest model name.
const MAX_NAME_CHARS: usize = 200;
/// Most original reference frames one model keeps.
pub(crate) const MAX_MODEL_FRAMES: usize = 24;
/// Most identity sheets one model keeps.
const MAX_SHEETS: usize = 12;
/// Most traits one model keeps.
const MAX_TRAITS: usize = 32;
/// Longest trait name.
const MAX_TRAIT_KEY_CHARS: usize = 64;
/// Longest trait text.
const MAX_TRAIT_VALUE_CHARS: usize = 2000;
/// Most texts in one list trait.
const MAX_TRAIT_LIST: usize = 32;

fn json_list(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

impl BoardModelRow {
    /// Whether house `org_id` may cast it: its own, held, or free.
    pub(crate) fn usable_by(&self, org_id: &OrgId) -> bool {
        (self.model.tier == TIER_YOURS && self.model.org_id == org_id) || self.owned || self.model.tier == "free"
    }
}

impl ModelRow {
    /// The original reference frames, in order.
    pub(crate) fn asset_id_list(&self) -> Vec<String> {
        json_list(&self.asset_ids)
    }

    /// Collage, sheets, originals: the identity order develops read.
    pub(crate) fn identity(&self) -> Vec<String> {
        self.collage_asset_id
            .iter()
            .map(|c| c.to_string())
            .chain(json_list(&self.sheet_asset_ids))
            .chain(self.asset_id_list())
            .collect()
    }

    /// The traits (values that are neither a text nor a list of texts are skipped).
    pub(crate) fn trait_map(&self) -> BTreeMap<String, TraitValue> {
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&self.traits).unwrap_or_default();
        map.into_iter().filter_map(|(k, v)| serde_json::from_value(v).ok().map(|v| (k, v))).collect()
    }
}

fn model_not_found(id: &str) -> Error {
    Error::not_found("NOT_FOUND", format!("No model {id:?} on this house's board."))
}

/// Trimmed, distinct, non-empty ids: 400 `BAD_ASSET_IDS` otherwise, or when there are more
/// than `max`.
pub(crate) fn clean_asset_ids(ids: &[String], max: usize) -> Result<Vec<String>> {
    let ids: Vec<String> = ids.iter().map(|id| id.trim().to_string()).collect();
    if ids.is_empty() || ids.iter().any(String::is_empty) {
        return Err(Error::invalid("BAD_ASSET_IDS", "assetIds names at least one asset, each a non-empty id."));
    }
    if ids.len() > max {
        return Err(Error::invalid("BAD_ASSET_IDS", format!("assetIds names at most {max} assets.")).with("max", max));
    }
    if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
        return Err(Error::invalid("BAD_ASSET_IDS", "assetIds names each asset once."));
    }
    Ok(ids)
}

fn clean_text(key: &str, value: &str) -> Result<String> {
    if value.chars().count() > MAX_TRAIT_VALUE_CHARS {
        return Err(Error::invalid(
            "BAD_BODY",
            format!("The trait {key:?} is longer than {MAX_TRAIT_VALUE_CHARS} characters."),
        ));
    }
    Ok(value.trim().to_string())
}

/// Trait names and values trimmed and bounded; a blank text is kept (it is a real answer).
fn clean_traits(traits: Option<BTreeMap<String, TraitValue>>) -> Result<BTreeMap<String, TraitValue>> {
    let traits = traits.unwrap_or_default();
    if traits.len() > MAX_TRAITS {
        return Err(Error::invalid("BAD_BODY", format!("A model keeps at most {MAX_TRAITS} traits.")));
    }
    let mut clean = BTreeMap::new();
    for (key, value) in traits {
        let key = key.trim().to_string();
        if key.is_empty() || key.chars().count() > MAX_TRAIT_KEY_CHARS {
            return Err(Error::invalid("BAD_BODY", format!("A trait name is 1 to {MAX_TRAIT_KEY_CHARS} characters.")));
        }
        let value = match value {
            TraitValue::Text(text) => TraitValue::Text(clean_text(&key, &text)?),
            TraitValue::List(list) if list.len() > MAX_TRAIT_LIST => {
                return Err(Error::invalid(
                    "BAD_BODY",
                    format!("The trait {key:?} lists at most {MAX_TRAIT_LIST} texts."),
                ));
            }
            TraitValue::List(list) => {
                TraitValue::List(list.iter().map(|t| clean_text(&key, t)).collect::<Result<Vec<_>>>()?)
            }
        };
        clean.insert(key, value);
    }
    Ok(clean)
}

/// The catalog's order of tiers: free, sale, exclusive.
pub(crate) fn tier_rank(tier: &str) -> u8 {
    match tier {
        "free" => 0,
        "sale" => 1,
        _ => 2,
    }
}

/// The board's groups: yours (cast or held), then the catalog's tiers.
fn board_rank(model: &Model) -> u8 {
    if model.mine || model.owned { 0 } else { 1 + tier_rank(&model.tier) }
}

crate::studio::view! {
    /// The models domain (kept models and the casting market): `studio.models()`.
    Models over ModelStore
}

impl Models<'_> {
    /// A model as the house `org_id` sees it.
    pub(crate) fn model_view(&self, org_id: &OrgId, row: BoardModelRow) -> Model {
        let usable = row.usable_by(org_id);
        let BoardModelRow { model: m, owned } = row;
        let mine = m.tier == TIER_YOURS && m.org_id == org_id;
        let identity = m.identity();
        // A face the house may not use yet shows its cover only: its other frames are what a
        // purchase buys.
        let shown = if usable { identity.len() } else { identity.len().min(1) };
        let preview_urls: Vec<String> = if mine {
            identity.iter().map(|id| self.studio.library().asset_file_url(id)).collect()
        } else {
            (0..shown)
                .map(|n| format!("{}/api/toolkit/models/{}/preview/{n}", self.studio.config.public_url, m.id))
                .collect()
        };
        let own = |v: Vec<String>| if mine { v } else { Vec::new() };
        Model {
            traits: m.trait_map(),
            cover_url: preview_urls.first().cloned().unwrap_or_default(),
            preview_urls,
            owned,
            mine,
            usable,
            exclusive_yours: owned && m.tier == "exclusive",
            asset_ids: own(m.asset_id_list()),
            sheet_asset_ids: own(json_list(&m.sheet_asset_ids)),
            collage_asset_id: m.collage_asset_id.filter(|_| mine).map(String::from),
            identity_asset_ids: own(identity),
            id: m.id.into(),
            name: m.name,
            tier: m.tier,
            price_cents: m.price_cents,
            currency: m.currency,
            note: m.note,
            created_at: m.created_at,
        }
    }

    fn own_view(&self, row: ModelRow) -> Model {
        let org_id = row.org_id.clone();
        self.model_view(&org_id, BoardModelRow { model: row, owned: false })
    }

    /// The rows of `ids`, in order, when every one is a live asset of the caller's house;
    /// otherwise 404 with `code` naming the first that is not.
    pub(crate) async fn live_assets(
        &self,
        caller: &Caller,
        ids: &[String],
        code: &'static str,
    ) -> Result<Vec<AssetRow>> {
        self.live_assets_of(&caller.org_id, ids, code).await
    }

    /// [`Studio::live_assets`] of any house.
    pub(crate) async fn live_assets_of(
        &self,
        org_id: &OrgId,
        ids: &[String],
        code: &'static str,
    ) -> Result<Vec<AssetRow>> {
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            match self.studio.library().asset(&AssetId::from(id)).await? {
                Some(a) if a.org_id == org_id && a.deleted_at.is_none() => rows.push(a),
                _ => return Err(Error::not_found(code, format!("No asset {id:?} in this house."))),
            }
        }
        Ok(rows)
    }

    /// A new model row of `org_id` from a cast request, its frames checked against that house.
    pub(crate) async fn model_row(
        &self,
        org_id: &OrgId,
        created_by: &UserId,
        req: CastModelRequest,
    ) -> Result<ModelRow> {
        let name = req.name.trim();
        if name.is_empty() {
            return Err(Error::invalid("NAME_REQUIRED", "A model needs a name."));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(Error::invalid("BAD_BODY", format!("A model name is at most {MAX_NAME_CHARS} characters.")));
        }
        let asset_ids = clean_asset_ids(&req.asset_ids, MAX_MODEL_FRAMES)?;
        let traits = clean_traits(req.traits)?;
        let collage = req.collage_asset_id.map(|c| c.trim().to_string()).filter(|c| !c.is_empty());
        if collage.as_ref().is_some_and(|c| asset_ids.contains(c)) {
            return Err(Error::invalid("BAD_ASSET_IDS", "The collage is not also an original frame."));
        }
        self.live_assets_of(org_id, &asset_ids, "ASSET_NOT_FOUND").await?;
        if let Some(c) = &collage {
            self.live_assets_of(org_id, std::slice::from_ref(c), "ASSET_NOT_FOUND").await?;
        }
        Ok(ModelRow {
            id: ModelId::generate(),
            org_id: org_id.clone(),
            created_by: Some(created_by.clone()),
            name: name.to_string(),
            asset_ids: serde_json::to_string(&asset_ids).map_err(Error::internal)?,
            traits: serde_json::to_string(&traits).map_err(Error::internal)?,
            created_at: crate::ids::now(),
            tier: TIER_YOURS.to_string(),
            price_cents: 0,
            currency: "usd".to_string(),
            note: String::new(),
            collage_asset_id: collage.map(AssetId::from),
            sheet_asset_ids: "[]".to_string(),
            retired_at: None,
            updated_at: None,
        })
    }

    /// Store a model row (a house's own model or a catalog offering).
    pub(crate) async fn add_model(&self, row: ModelRow) -> Result<()> {
        self.store.insert_model(row).await?;
        Ok(())
    }

    /// cast_model and `POST models/own`: keep a model of the house's own reference frames, so
    /// later develops cast it by id. Free; all or nothing. 400 `NAME_REQUIRED`, `BAD_BODY`
    /// (name or traits too long), `BAD_ASSET_IDS` (none, blank, repeated, more than 24); 403
    /// for a viewer; 404 `ASSET_NOT_FOUND` when a frame is not a live asset of the house.
    pub async fn cast_model(&self, caller: &Caller, req: CastModelRequest) -> Result<Model> {
        caller.require_write_library()?;
        let row = self.model_row(&caller.org_id, &caller.user_id, req).await?;
        self.store.insert_model(row.clone()).await?;
        Ok(self.own_view(row))
    }

    /// The casting board: the house's own models and what it holds, then free, sale and
    /// exclusive offerings, newest first within each; an exclusive face another house holds
    /// or claims is absent. Any role.
    pub async fn list_models(&self, caller: &Caller) -> Result<ModelList> {
        let rows = self.store.board_models(&caller.org_id, crate::ids::now()).await?;
        let mut models: Vec<Model> = rows.into_iter().map(|r| self.model_view(&caller.org_id, r)).collect();
        models.sort_by_key(board_rank);
        Ok(ModelList { models })
    }

    /// One model of the board; out of scope (another house's own, an exclusive face held or
    /// claimed elsewhere, unknown) is 404 `NOT_FOUND`, never 403.
    pub async fn model(&self, caller: &Caller, id: &ModelId) -> Result<Model> {
        let row = self.board_row(caller, id).await?;
        Ok(self.model_view(&caller.org_id, row))
    }

    pub(crate) async fn board_row(&self, caller: &Caller, id: &ModelId) -> Result<BoardModelRow> {
        self.store
            .board_model(&caller.org_id, &ModelId::from(id.trim()), crate::ids::now())
            .await?
            .ok_or_else(|| model_not_found(id))
    }

    /// Patch one of the house's own models: identity sheets added after the collage and the
    /// sheets already there (before the originals), traits merged key by key. Free. 400
    /// `BAD_BODY` (nothing to change, bad traits), `BAD_ASSET_IDS` (a sheet that is not a live
    /// asset of the house, repeated, too many); 403 `FORBIDDEN` for a viewer or a model the
    /// house did not cast; 404 when out of scope.
    pub async fn patch_model(&self, caller: &Caller, id: &ModelId, patch: ModelPatch) -> Result<Model> {
        let current = self.board_row(caller, id).await?;
        caller.require_write_library()?;
        if current.model.tier != TIER_YOURS {
            return Err(Error::forbidden("FORBIDDEN", "Only a model the house cast itself can be changed."));
        }
        if patch.sheet_asset_ids.is_none() && patch.traits.is_none() {
            return Err(Error::invalid("BAD_BODY", "Send sheetAssetIds, traits or both."));
        }
        let sheets = match &patch.sheet_asset_ids {
            None => Vec::new(),
            Some(ids) if ids.is_empty() => Vec::new(),
            Some(ids) => {
                let ids = clean_asset_ids(ids, MAX_SHEETS)?;
                let have = json_list(&current.model.sheet_asset_ids);
                let fresh = ids.iter().filter(|id| !have.contains(id)).count();
                if have.len() + fresh > MAX_SHEETS {
                    return Err(Error::invalid(
                        "BAD_ASSET_IDS",
                        format!("A model keeps at most {MAX_SHEETS} identity sheets."),
                    )
                    .with("max", MAX_SHEETS));
                }
                for id in &ids {
                    match self.studio.library().asset(&AssetId::from(id)).await? {
                        Some(a) if a.org_id == caller.org_id && a.deleted_at.is_none() => {}
                        _ => {
                            return Err(Error::invalid(
                                "BAD_ASSET_IDS",
                                format!("{id:?} is not a live asset of this house."),
                            )
                            .with("assetId", id.as_str()));
                        }
                    }
                }
                ids
            }
        };
        let traits = clean_traits(patch.traits)?;
        let existing = current.model.trait_map();
        if existing.len() + traits.keys().filter(|k| !existing.contains_key(*k)).count() > MAX_TRAITS {
            return Err(Error::invalid("BAD_BODY", format!("A model keeps at most {MAX_TRAITS} traits.")));
        }
        let traits: serde_json::Map<String, serde_json::Value> = traits
            .into_iter()
            .map(|(k, v)| serde_json::to_value(v).map(|v| (k, v)))
            .collect::<std::result::Result<_, _>>()
            .map_err(Error::internal)?;
        let row = self
            .store
            .patch_model(&caller.org_id, &current.model.id, &sheets, &traits, crate::ids::now())
            .await?
            .ok_or_else(|| model_not_found(id))?;
        Ok(self.own_view(row))
    }

    /// `GET models/{id}/preview/{n}`: the `n`th identity frame (from 0) of a model on the
    /// caller's board, wherever its file lives (a catalog model's frames are in its
    /// publisher's library). A face the house may not use yet shows frame 0 only. 404
    /// `NOT_FOUND` when the model is out of scope or has no such frame.
    pub async fn model_preview(
        &self,
        caller: &Caller,
        id: &ModelId,
        n: usize,
        if_none_match: Option<&str>,
    ) -> Result<crate::AssetFile> {
        let row = self.board_row(caller, id).await?;
        let missing = || Error::not_found("NOT_FOUND", format!("Model {id:?} has no frame {n} to show."));
        if !row.usable_by(&caller.org_id) && n > 0 {
            return Err(missing());
        }
        let frame = row.model.identity().into_iter().nth(n).ok_or_else(missing)?;
        let asset = self
            .studio
            .library()
            .asset(&AssetId::from(&frame))
            .await?
            .filter(|a| a.org_id == row.model.org_id && a.deleted_at.is_none())
            .ok_or_else(missing)?;
        self.studio.library().file_of(asset, if_none_match).await
    }

    /// The frame a develop casts for model `id` (its first identity frame): a model on the
    /// caller's board that the house may use (its own, held, or free). None otherwise. The
    /// frame of a catalog model lives in its publisher's library.
    pub(crate) async fn model_reference_asset(&self, caller: &Caller, id: &ModelId) -> Result<Option<AssetRow>> {
        let Some(row) = self.store.board_model(&caller.org_id, id, crate::ids::now()).await? else {
            return Ok(None);
        };
        let usable = row.usable_by(&caller.org_id);
        let Some(first) = row.model.identity().into_iter().next().filter(|_| usable) else {
            return Ok(None);
        };
        Ok(self
            .studio
            .library()
            .asset(&AssetId::from(&first))
            .await?
            .filter(|a| a.org_id == row.model.org_id && a.deleted_at.is_none()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_ids_are_checked() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(clean_asset_ids(&ids(&[" a ", "b"]), 6).expect("ok"), ids(&["a", "b"]));
        for bad in [ids(&[]), ids(&["a", " "]), ids(&["a", "a "]), ids(&["a", "b", "c"])] {
            assert_eq!(clean_asset_ids(&bad, 2).expect_err("refused").code, "BAD_ASSET_IDS", "{bad:?}");
        }
    }

    #[test]
    fn traits_are_bounded() {
        let one = |k: &str, v: &str| Some(BTreeMap::from([(k.to_string(), TraitValue::Text(v.to_string()))]));
        assert_eq!(
            clean_traits(one(" age ", " 30s ")).expect("ok"),
            BTreeMap::from([("age".into(), TraitValue::Text("30s".into()))])
        );
        assert_eq!(clean_traits(one("hair", "")).expect("ok").get("hair"), Some(&TraitValue::Text(String::new())));
        assert!(clean_traits(one(" ", "x")).is_err());
        assert!(clean_traits(one("x", &"y".repeat(MAX_TRAIT_VALUE_CHARS + 1))).is_err());
        assert!(clean_traits(None).expect("ok").is_empty());
        let list = Some(BTreeMap::from([("marks".to_string(), TraitValue::List(vec![" mole ".into()]))]));
        assert_eq!(clean_traits(list).expect("ok")["marks"], TraitValue::List(vec!["mole".into()]));
        let long = Some(BTreeMap::from([("marks".to_string(), TraitValue::List(vec![String::new(); 33]))]));
        assert!(clean_traits(long).is_err());
    }

    #[test]
    fn identity_reads_collage_sheets_originals() {
        let row = ModelRow {
            id: "mdl_1".into(),
            org_id: "org".into(),
            created_by: None,
            name: "n".into(),
            asset_ids: r#"["o1","o2"]"#.into(),
            traits: r#"{"height":"tall","marks":["mole"],"odd":3}"#.into(),
            created_at: crate::ids::now(),
            tier: "yours".into(),
            price_cents: 0,
            currency: "usd".into(),
            note: String::new(),
            collage_asset_id: Some("c".into()),
            sheet_asset_ids: r#"["s1"]"#.into(),
            retired_at: None,
            updated_at: None,
        };
        assert_eq!(row.identity(), ["c", "s1", "o1", "o2"]);
        assert_eq!(row.trait_map().len(), 2, "a value that is not text is skipped");
    }
}
