//! Models a house keeps (cast_model): a name, reference frames from the house's own library
//! and optional traits. Casting is free. A develop input naming a kept model (`mdl_…`) casts
//! its first frame (see `Studio::input_asset` in develops.rs).
//!
//! Casting writes to the house's library, so it asks [`Caller::require_write_library`]: every
//! role but viewer, by key or session (the spec's "member key"); a viewer is 403 `FORBIDDEN`.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::{CastModelRequest, KeptModel};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::storage::{AssetRow, ModelRow};
use crate::studio::Studio;

/// The id prefix of a kept model.
pub(crate) const MODEL_ID_PREFIX: &str = "mdl_";
/// The tier of a model the house cast itself.
const TIER_YOURS: &str = "yours";
/// Longest model name.
const MAX_NAME_CHARS: usize = 200;
/// Most reference frames one model keeps.
pub(crate) const MAX_MODEL_FRAMES: usize = 24;
/// Most traits one model keeps.
const MAX_TRAITS: usize = 32;
/// Longest trait name.
const MAX_TRAIT_KEY_CHARS: usize = 64;
/// Longest trait value.
const MAX_TRAIT_VALUE_CHARS: usize = 2000;

impl ModelRow {
    /// The reference frames, in order.
    pub(crate) fn asset_id_list(&self) -> Vec<String> {
        serde_json::from_str(&self.asset_ids).unwrap_or_default()
    }

    /// The traits.
    pub(crate) fn trait_map(&self) -> BTreeMap<String, String> {
        serde_json::from_str(&self.traits).unwrap_or_default()
    }
}

fn model_not_found(id: &str) -> Error {
    Error::not_found("NOT_FOUND", format!("No model {id:?} in this house."))
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

/// Trait names and values trimmed and bounded; a blank value is kept (it is a real answer).
fn clean_traits(traits: Option<BTreeMap<String, String>>) -> Result<BTreeMap<String, String>> {
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
        if value.chars().count() > MAX_TRAIT_VALUE_CHARS {
            return Err(Error::invalid(
                "BAD_BODY",
                format!("The trait {key:?} is longer than {MAX_TRAIT_VALUE_CHARS} characters."),
            ));
        }
        clean.insert(key, value.trim().to_string());
    }
    Ok(clean)
}

impl Studio {
    fn model_view(&self, row: ModelRow) -> KeptModel {
        let asset_ids = row.asset_id_list();
        let cover_url = asset_ids
            .first()
            .map(|id| format!("{}/api/toolkit/assets/{id}/file", self.config.public_url))
            .unwrap_or_default();
        KeptModel {
            traits: row.trait_map(),
            id: row.id,
            name: row.name,
            tier: TIER_YOURS.to_string(),
            asset_ids,
            cover_url,
            created_at: row.created_at,
        }
    }

    /// The rows of `ids`, in order, when every one is a live asset of the caller's house;
    /// otherwise 404 with `code` naming the first that is not.
    pub(crate) async fn live_assets(
        &self,
        caller: &Caller,
        ids: &[String],
        code: &'static str,
    ) -> Result<Vec<AssetRow>> {
        let mut rows = Vec::with_capacity(ids.len());
        for id in ids {
            match self.storage.asset_by_id(id).await? {
                Some(a) if a.org_id == caller.org_id && a.deleted_at.is_none() => rows.push(a),
                _ => return Err(Error::not_found(code, format!("No asset {id:?} in this house."))),
            }
        }
        Ok(rows)
    }

    /// cast_model: keep a model of the house's own reference frames, so later develops cast it
    /// by id. Free. 400 `NAME_REQUIRED`, `BAD_BODY` (name or traits too long),
    /// `BAD_ASSET_IDS` (none, blank, repeated, more than 24); 403 for a viewer; 404
    /// `ASSET_NOT_FOUND` when a frame is not a live asset of the house.
    pub async fn cast_model(&self, caller: &Caller, req: CastModelRequest) -> Result<KeptModel> {
        caller.require_write_library()?;
        let name = req.name.trim();
        if name.is_empty() {
            return Err(Error::invalid("NAME_REQUIRED", "A model needs a name."));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(Error::invalid("BAD_BODY", format!("A model name is at most {MAX_NAME_CHARS} characters.")));
        }
        let asset_ids = clean_asset_ids(&req.asset_ids, MAX_MODEL_FRAMES)?;
        let traits = clean_traits(req.traits)?;
        self.live_assets(caller, &asset_ids, "ASSET_NOT_FOUND").await?;
        let row = ModelRow {
            id: new_id("mdl"),
            org_id: caller.org_id.clone(),
            created_by: Some(caller.user_id.clone()),
            name: name.to_string(),
            asset_ids: serde_json::to_string(&asset_ids).map_err(Error::internal)?,
            traits: serde_json::to_string(&traits).map_err(Error::internal)?,
            created_at: crate::ids::now(),
        };
        self.storage.insert_model(row.clone()).await?;
        Ok(self.model_view(row))
    }

    /// Every model the caller's house keeps, newest first. Any role.
    pub async fn list_models(&self, caller: &Caller) -> Result<Vec<KeptModel>> {
        let rows = self.storage.list_models(&caller.org_id).await?;
        Ok(rows.into_iter().map(|r| self.model_view(r)).collect())
    }

    /// One model of the caller's house; another house's is 404 `NOT_FOUND`, like an unknown one.
    pub async fn model(&self, caller: &Caller, id: &str) -> Result<KeptModel> {
        let row = self.storage.model(&caller.org_id, id.trim()).await?.ok_or_else(|| model_not_found(id))?;
        Ok(self.model_view(row))
    }

    /// The asset a develop casts for model `id` of the caller's house (its first frame); None
    /// when the house keeps no such model.
    pub(crate) async fn model_reference_asset(&self, caller: &Caller, id: &str) -> Result<Option<String>> {
        let row = self.storage.model(&caller.org_id, id).await?;
        Ok(row.and_then(|r| r.asset_id_list().into_iter().next()))
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
        let one = |k: &str, v: &str| Some(BTreeMap::from([(k.to_string(), v.to_string())]));
        assert_eq!(clean_traits(one(" age ", " 30s ")).expect("ok"), BTreeMap::from([("age".into(), "30s".into())]));
        assert_eq!(clean_traits(one("hair", "")).expect("ok").get("hair").map(String::as_str), Some(""));
        assert!(clean_traits(one(" ", "x")).is_err());
        assert!(clean_traits(one("x", &"y".repeat(MAX_TRAIT_VALUE_CHARS + 1))).is_err());
        assert!(clean_traits(None).expect("ok").is_empty());
    }
}
