//! The factory (§4.5): from a pile of pieces to a batch of draft looks. `plan` groups the pieces
//! into proposed looks (a hand-made group beats a shared SKU; a piece with neither stands alone),
//! guesses each piece's role, fills background and variation keys from the standing preset and
//! prices the develops; it reads only. `run` checks every confirmed look exactly as a hand-made
//! look is checked, and only then drafts them all in one storage transaction under a fresh
//! `batchId`, with the planned variation keys and quality; it spends nothing. The rules are
//! written out in docs/factory.md.

use std::collections::{HashMap, HashSet};

use crate::api::{
    FactoryCost, FactoryLookRequest, FactoryPlan, FactoryPlanRequest, FactoryRunLook, FactoryRunRequest,
    FactoryRunResponse, GroupedBy, LookItem, PlannedLook, StandingPreset,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::{AssetId, new_id, now};
use crate::storage::AssetRow;

use super::{
    Draft, Lookbook, MAX_NAME_CHARS, brand, checked_model, checked_name, draft_row, json, selection_ids, vocabulary,
};

/// The most pieces one plan takes.
pub const MAX_PLAN_ASSETS: usize = 200;
/// The most looks a plan proposes and a run drafts.
pub const MAX_FACTORY_LOOKS: usize = 50;
/// The frames of a look before its variations: the develop-lock.
const LOCK_FRAMES: i64 = 1;

/// Words of a piece's name that say which piece it is, by role. A word matches itself and its
/// plurals in `s` and `es`.
const ROLE_WORDS: [(&str, &[&str]); 8] = [
    ("dress", &["dress", "gown", "jumpsuit", "playsuit", "romper", "kaftan", "caftan", "sundress"]),
    ("bottom", &["trouser", "pant", "jean", "skirt", "short", "legging", "culotte", "chino", "jogger"]),
    (
        "top",
        &[
            "top",
            "shirt",
            "tshirt",
            "blouse",
            "tee",
            "sweater",
            "jumper",
            "knit",
            "hoodie",
            "sweatshirt",
            "polo",
            "camisole",
            "cami",
            "tank",
            "bodysuit",
            "turtleneck",
            "pullover",
            "tunic",
        ],
    ),
    (
        "outerwear",
        &["coat", "jacket", "blazer", "parka", "trench", "anorak", "gilet", "cape", "puffer", "bomber", "cardigan"],
    ),
    (
        "shoes",
        &[
            "shoe",
            "boot",
            "sneaker",
            "trainer",
            "heel",
            "pump",
            "sandal",
            "loafer",
            "mule",
            "espadrille",
            "slipper",
            "stiletto",
            "clog",
        ],
    ),
    ("bag", &["bag", "handbag", "tote", "clutch", "purse", "backpack", "satchel", "pouch", "crossbody", "shopper"]),
    (
        "accessory",
        &["belt", "scarf", "hat", "cap", "beanie", "glove", "sunglasses", "glasses", "tie", "headband", "shawl"],
    ),
    (
        "jewelry",
        &[
            "ring",
            "necklace",
            "earring",
            "bracelet",
            "bangle",
            "pendant",
            "brooch",
            "choker",
            "anklet",
            "cufflink",
            "watch",
            "jewelry",
            "jewellery",
        ],
    ),
];

/// The role a piece's name says, if any: the name's words are read from the last to the first
/// (an English garment name ends in what it is: a shirt dress is a dress, a dress shirt a top),
/// and the first word naming a role decides.
fn role_in_name(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let names = |word: &str, stem: &str| {
        word == stem || word.strip_prefix(stem).is_some_and(|rest| rest == "s" || rest == "es")
    };
    words.iter().rev().find_map(|word| {
        ROLE_WORDS.iter().find(|(_, stems)| stems.iter().any(|stem| names(word, stem))).map(|(role, _)| *role)
    })
}

/// A piece's role, guessed from its wardrobe bucket and its name: jewelry is `jewelry`; an
/// accessory is `shoes`, `bag` or `jewelry` when its name says so, else `accessory`; clothes
/// take the role their name says, else `top`. Fit and wearer say how a piece is cut and for
/// whom, not which piece it is, so they take no part.
fn guess_role(asset: &AssetRow) -> &'static str {
    let named = role_in_name(&asset.name);
    match asset.kind.as_str() {
        "jewelry" => "jewelry",
        "accessory" => named.filter(|r| ["shoes", "bag", "jewelry"].contains(r)).unwrap_or("accessory"),
        _ => named.unwrap_or("top"),
    }
}

fn trimmed(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// A piece's name for a look: its own, or its id when it has none.
fn piece_name(asset: &AssetRow) -> &str {
    trimmed(Some(&asset.name)).unwrap_or(&asset.id)
}

/// `name` cut so that `suffix` still fits in a look's name.
fn look_name(name: &str, suffix: &str) -> String {
    let room = MAX_NAME_CHARS - suffix.chars().count();
    let cut: String = name.chars().take(room).collect();
    format!("{}{suffix}", cut.trim_end())
}

/// Pieces that belong together, in the order their first piece was asked for.
struct Bunch {
    grouped_by: GroupedBy,
    name: String,
    items: Vec<LookItem>,
}

/// Group the pieces: those sharing a hand-made group form one bunch; of the rest, those sharing
/// a SKU (exactly, after trimming) form one; a piece with neither stands alone.
fn bunches(assets: &[AssetRow]) -> Vec<Bunch> {
    let mut out: Vec<Bunch> = Vec::new();
    let mut index: HashMap<(GroupedBy, &str), usize> = HashMap::new();
    for asset in assets {
        let (grouped_by, key, name) = match (trimmed(asset.group_id.as_deref()), trimmed(asset.sku.as_deref())) {
            (Some(group), _) => (GroupedBy::Group, group, piece_name(asset)),
            (None, Some(sku)) => (GroupedBy::Sku, sku, sku),
            (None, None) => (GroupedBy::Piece, asset.id.as_str(), piece_name(asset)),
        };
        let at = *index.entry((grouped_by, key)).or_insert_with(|| {
            out.push(Bunch { grouped_by, name: name.to_string(), items: Vec::new() });
            out.len() - 1
        });
        out[at].items.push(LookItem { asset_id: asset.id.clone().into(), role: guess_role(asset).to_string() });
    }
    out
}

/// The proposed looks: each bunch as one look, or split in order into looks of at most
/// [`vocabulary::MAX_ITEMS_PER_LOOK`] pieces named `name (1/2)`, `name (2/2)`; background and
/// variation keys from the standing preset.
fn propose(assets: &[AssetRow], preset: &StandingPreset) -> Vec<PlannedLook> {
    let mut looks = Vec::new();
    for bunch in bunches(assets) {
        let parts = bunch.items.len().div_ceil(vocabulary::MAX_ITEMS_PER_LOOK);
        for (n, items) in bunch.items.chunks(vocabulary::MAX_ITEMS_PER_LOOK).enumerate() {
            let suffix = if parts > 1 { format!(" ({}/{parts})", n + 1) } else { String::new() };
            looks.push(PlannedLook {
                name: look_name(&bunch.name, &suffix),
                item_asset_ids: items.to_vec(),
                background: preset.background.clone(),
                variation_keys: preset.variation_keys.clone(),
                grouped_by: bunch.grouped_by,
            });
        }
    }
    looks
}

/// A plan's asset ids: 400 `ASSETS_REQUIRED` for none, `BAD_BODY` for a blank one or past
/// [`MAX_PLAN_ASSETS`]; repeated ids count once, in the order first asked.
fn plan_ids(raw: Option<&[String]>) -> Result<Vec<String>> {
    let raw = raw.unwrap_or_default();
    if raw.is_empty() {
        return Err(Error::invalid("ASSETS_REQUIRED", "Name the pieces to plan (assetIds)."));
    }
    if raw.len() > MAX_PLAN_ASSETS {
        return Err(Error::invalid("BAD_BODY", format!("A plan takes at most {MAX_PLAN_ASSETS} pieces."))
            .with("max", MAX_PLAN_ASSETS));
    }
    let mut seen = HashSet::new();
    let mut ids = Vec::with_capacity(raw.len());
    for id in raw {
        let id = id.trim();
        if id.is_empty() {
            return Err(Error::invalid("BAD_BODY", "assetIds holds a blank id."));
        }
        if seen.insert(id) {
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}

/// The refusal about the look at `index` says which look it is (our own failures stay bare).
fn at_look(index: usize) -> impl Fn(Error) -> Error {
    move |e| if e.kind == ErrorKind::Internal { e } else { e.with("lookIndex", index) }
}

impl Lookbook<'_> {
    /// `POST /api/toolkit/factory/plan`: group the pieces into proposed looks and price their
    /// develops (the develop-lock and the preset's variations, at `quality` or the preset's).
    /// Reads only: nothing is written or held. Any role, viewers included.
    pub async fn plan(&self, caller: &Caller, req: FactoryPlanRequest) -> Result<FactoryPlan> {
        let ids = plan_ids(req.asset_ids.as_deref())?;
        let assets = self.studio.models().live_assets(caller, &ids, "ASSET_NOT_FOUND").await?;
        let not_pieces: Vec<&str> =
            assets.iter().filter(|a| a.kind == "model" || a.kind == "background").map(|a| a.id.as_str()).collect();
        if !not_pieces.is_empty() {
            return Err(Error::invalid(
                "BAD_BODY",
                "Models and backgrounds are not pieces: the standing preset names the model and the background.",
            )
            .with("assetIds", not_pieces));
        }
        let preset = self.preset(caller).await?.preset;
        let quality = req.quality.unwrap_or(preset.quality);
        let mut looks = propose(&assets, &preset);
        let truncated = looks.len() > MAX_FACTORY_LOOKS;
        looks.truncate(MAX_FACTORY_LOOKS);
        let model_ready = match &preset.model_asset_id {
            Some(id) => self
                .studio
                .library()
                .asset(&AssetId::from(id))
                .await?
                .is_some_and(|a| a.org_id == caller.org_id && a.deleted_at.is_none()),
            None => false,
        };
        let per_frame = self.look_frame_price(quality);
        let frames_per_look = LOCK_FRAMES + preset.variation_keys.len() as i64;
        let frames = looks.len() as i64 * frames_per_look;
        let cost = FactoryCost { per_frame, frames_per_look, frames, total: frames * per_frame, quality };
        let balance = self.studio.billing().balance(caller).await?.balance;
        Ok(FactoryPlan { preset, looks, truncated, model_ready, cost, balance })
    }

    /// One confirmed look checked for shape, as a hand-made look is, with the frames planned
    /// after its develop-lock, checked as a variations request checks them (a key named twice is
    /// another take of it).
    fn checked_look(look: &FactoryLookRequest) -> Result<(Draft, Vec<&'static str>)> {
        let name = checked_name(look.name.as_deref())?;
        let items = Self::checked_items(look.item_asset_ids.as_deref())?;
        let background = vocabulary::background(look.background.as_ref())?;
        let keys = vocabulary::variation_frames(look.variation_keys.as_deref())?;
        Ok((Draft { name, items, background }, keys))
    }

    /// `POST /api/toolkit/factory/run`: draft one look per confirmed look under one new batch.
    /// Every look is checked (shape, then ownership) before anything is written, and one bad
    /// look refuses the whole run, its refusal carrying `lookIndex`. Spends nothing. Any role
    /// but viewer.
    pub async fn run(&self, caller: &Caller, req: FactoryRunRequest) -> Result<FactoryRunResponse> {
        caller.require_write_library()?;
        let looks = req.looks.unwrap_or_default();
        if looks.is_empty() {
            return Err(Error::invalid("LOOKS_REQUIRED", "Name at least one look to draft (looks)."));
        }
        if looks.len() > MAX_FACTORY_LOOKS {
            return Err(Error::invalid("TOO_MANY_LOOKS", format!("A run drafts at most {MAX_FACTORY_LOOKS} looks."))
                .with("max", MAX_FACTORY_LOOKS));
        }
        let model = checked_model(req.model_asset_id.as_deref())?;
        let aesthetic = vocabulary::aesthetic(req.aesthetic.as_deref())?;
        let drafts = looks
            .iter()
            .enumerate()
            .map(|(i, look)| Self::checked_look(look).map_err(at_look(i)))
            .collect::<Result<Vec<_>>>()?;
        self.studio.models().live_assets(caller, std::slice::from_ref(&model), "ASSET_NOT_FOUND").await?;
        let mut checked = HashSet::from([model.clone()]);
        for (i, (draft, _)) in drafts.iter().enumerate() {
            let ids: Vec<String> = selection_ids(&draft.items, &draft.background)
                .into_iter()
                .filter(|id| checked.insert(id.clone()))
                .collect();
            self.studio.models().live_assets(caller, &ids, "ASSET_NOT_FOUND").await.map_err(at_look(i))?;
        }
        let quality = match req.quality {
            Some(q) => q,
            None => self.preset(caller).await?.preset.quality,
        };
        let batch_id = new_id("batch");
        let brand_id = brand(req.brand_id.as_deref());
        let at = now();
        let mut rows = Vec::with_capacity(drafts.len());
        let mut drafted = Vec::with_capacity(drafts.len());
        for (draft, keys) in drafts {
            let mut row = draft_row(caller, draft, &model, aesthetic, brand_id.clone(), at)?;
            row.batch_id = Some(batch_id.clone());
            row.planned_keys = Some(json(&keys)?);
            row.planned_quality = Some(quality.as_str().to_string());
            drafted.push(FactoryRunLook {
                id: row.id.clone().into(),
                name: row.name.clone(),
                variation_keys: keys.iter().map(|k| k.to_string()).collect(),
            });
            rows.push(row);
        }
        self.store.insert_looks(rows).await?;
        Ok(FactoryRunResponse { batch_id, quality, looks: drafted })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Background, Quality};

    fn asset(id: &str, name: &str, kind: &str, group: Option<&str>, sku: Option<&str>) -> AssetRow {
        AssetRow {
            id: id.into(),
            org_id: "org_1".into(),
            created_by: None,
            name: name.into(),
            sku: sku.map(str::to_string),
            kind: kind.into(),
            folder_id: None,
            group_id: group.map(str::to_string).map(crate::ids::GroupId::from),
            fit: None,
            wearer: None,
            fit_guessed: false,
            wearer_guessed: false,
            carries_mark: false,
            mark_guessed: false,
            mime: "image/png".into(),
            tool: None,
            blob_key: String::new(),
            sha256: String::new(),
            bytes: 0,
            width: None,
            height: None,
            approved_by: None,
            approved_at: None,
            created_at: chrono::Utc::now(),
            deleted_at: None,
            provenance: None,
        }
    }

    fn preset() -> StandingPreset {
        StandingPreset {
            model_asset_id: None,
            background: Background::Preset { value: "white".into() },
            aesthetic: "minimal".into(),
            variation_keys: vec!["back".into()],
            quality: Quality::K2,
            sizes: Vec::new(),
        }
    }

    #[test]
    fn the_last_word_that_names_a_piece_decides() {
        let role = |name: &str, kind: &str| guess_role(&asset("a", name, kind, None, None));
        assert_eq!(role("Shirt dress, navy", "clothes"), "dress");
        assert_eq!(role("Oxford dress shirt", "clothes"), "top");
        assert_eq!(role("wide_leg_TROUSERS_ss25", "clothes"), "bottom");
        assert_eq!(role("Dresses 02", "clothes"), "dress");
        assert_eq!(role("Trench coat", "clothes"), "outerwear");
        assert_eq!(role("Chelsea boots", "clothes"), "shoes");
        assert_eq!(role("IMG_2044", "clothes"), "top");
        assert_eq!(role("Leather tote", "accessory"), "bag");
        assert_eq!(role("Dress clip", "accessory"), "accessory");
        assert_eq!(role("Silk scarf", "accessory"), "accessory");
        assert_eq!(role("Anything at all", "jewelry"), "jewelry");
        assert_eq!(role("Signet ring", "clothes"), "jewelry");
        assert_eq!(role("Stringer", "clothes"), "top", "a role word inside another word does not count");
    }

    #[test]
    fn a_group_beats_a_shared_sku_and_lone_pieces_stand_alone() {
        let assets = vec![
            asset("a1", "Blazer", "clothes", Some("grp_1"), Some("SKU-1")),
            asset("a2", "Trousers", "clothes", None, Some("SKU-1")),
            asset("a3", "Shoes", "clothes", Some("grp_1"), None),
            asset("a4", "Tee", "clothes", None, None),
            asset("a5", "Skirt", "clothes", None, Some(" SKU-1 ")),
        ];
        let looks = propose(&assets, &preset());
        let summary: Vec<(GroupedBy, &str, Vec<&str>)> = looks
            .iter()
            .map(|l| (l.grouped_by, l.name.as_str(), l.item_asset_ids.iter().map(|i| i.asset_id.as_str()).collect()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (GroupedBy::Group, "Blazer", vec!["a1", "a3"]),
                (GroupedBy::Sku, "SKU-1", vec!["a2", "a5"]),
                (GroupedBy::Piece, "Tee", vec!["a4"]),
            ]
        );
        assert_eq!(looks[0].item_asset_ids[1].role, "shoes");
        assert!(looks.iter().all(|l| l.variation_keys == ["back"]));
    }

    #[test]
    fn a_bunch_past_the_cap_splits_in_order() {
        let assets: Vec<AssetRow> =
            (0..11).map(|n| asset(&format!("a{n}"), "Piece", "clothes", Some("grp_big"), None)).collect();
        let looks = propose(&assets, &preset());
        assert_eq!(looks.len(), 2);
        assert_eq!((looks[0].name.as_str(), looks[0].item_asset_ids.len()), ("Piece (1/2)", 8));
        assert_eq!((looks[1].name.as_str(), looks[1].item_asset_ids.len()), ("Piece (2/2)", 3));
        assert_eq!(looks[1].item_asset_ids[0].asset_id, "a8");
        let long = "x".repeat(300);
        assert_eq!(look_name(&long, " (1/2)").chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn plan_ids_fold_repeats_and_refuse_blanks() {
        assert_eq!(plan_ids(None).unwrap_err().code, "ASSETS_REQUIRED");
        assert_eq!(plan_ids(Some(&[])).unwrap_err().code, "ASSETS_REQUIRED");
        assert_eq!(plan_ids(Some(&[" ".into()])).unwrap_err().code, "BAD_BODY");
        let many: Vec<String> = (0..=MAX_PLAN_ASSETS).map(|n| format!("a{n}")).collect();
        assert_eq!(plan_ids(Some(&many)).unwrap_err().code, "BAD_BODY");
        assert_eq!(plan_ids(Some(&["b".into(), "a".into(), "b".into()])).unwrap(), vec!["b", "a"]);
    }
}
