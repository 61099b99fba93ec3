//! The composer's vocabulary: every name a look, a standing preset or a factory line may use,
//! in one place. Routes validate against these lists; a refusal carries the legal values; the
//! OpenAPI document shows the lists (`GET /api/toolkit/lookbook/vocabulary` serves them whole).

use serde_json::Value;

use crate::api::{Background, Vocabulary, VocabularyEntry};
use crate::error::{Error, Result};

pub use crate::api::vocabulary::{
    AESTHETICS, CUSTOM_DESTINATION, DESTINATIONS, GROUNDS, ITEM_ROLES, MAX_ITEMS_PER_LOOK, MAX_VARIATION_FRAMES,
    VARIATIONS,
};

fn keys<T>(list: &[T], key: impl Fn(&T) -> &str) -> Vec<String> {
    list.iter().map(|e| key(e).to_string()).collect()
}

/// The ground presets a background may name (the built-in plain grounds).
pub fn background_presets() -> Vec<String> {
    keys(&GROUNDS, |g| g.0)
}

/// The whole vocabulary, for the wire.
pub fn vocabulary() -> Vocabulary {
    let entry = |key: &str, name: &str, note: &str| VocabularyEntry {
        key: key.to_string(),
        name: name.to_string(),
        note: note.to_string(),
    };
    Vocabulary {
        item_roles: keys(&ITEM_ROLES, |r| r),
        max_items_per_look: MAX_ITEMS_PER_LOOK as i64,
        aesthetics: AESTHETICS.iter().map(|(k, note)| entry(k, k, note)).collect(),
        backgrounds: GROUNDS.iter().map(|g| entry(g.0, g.1, g.3)).collect(),
        variations: VARIATIONS.iter().map(|(k, name, note)| entry(k, name, note)).collect(),
        max_variation_frames: MAX_VARIATION_FRAMES as i64,
        destinations: DESTINATIONS
            .iter()
            .map(|(k, w, h, note)| entry(k, &format!("{w} × {h}"), note))
            .chain([entry(CUSTOM_DESTINATION, "custom", "Your own width and height")])
            .collect(),
    }
}

/// A piece's role, checked: 400 `BAD_ITEM` with the legal `roles`.
pub fn item_role(role: &str) -> Result<&'static str> {
    ITEM_ROLES.iter().find(|r| **r == role).copied().ok_or_else(|| {
        Error::invalid("BAD_ITEM", format!("{role:?} is not a piece's role.")).with("roles", keys(&ITEM_ROLES, |r| r))
    })
}

/// An aesthetic, checked: 400 `BAD_AESTHETIC` with the legal `presets`.
pub fn aesthetic(key: Option<&str>) -> Result<&'static str> {
    let key = key.map(str::trim).unwrap_or_default();
    AESTHETICS.iter().map(|a| a.0).find(|a| *a == key).ok_or_else(|| {
        Error::invalid("BAD_AESTHETIC", format!("{key:?} is not one of the composer's presets."))
            .with("presets", keys(&AESTHETICS, |a| a.0))
    })
}

/// Variation keys, checked and de-duplicated in order: 400 `KEYS_REQUIRED` for none,
/// `UNKNOWN_VARIATION` (with the legal `keys`) for a name not in the list, `TOO_MANY_FRAMES`
/// (with `max`) past the cap.
pub fn variation_keys(raw: Option<&[String]>) -> Result<Vec<&'static str>> {
    let raw = raw.unwrap_or_default();
    if raw.is_empty() {
        return Err(Error::invalid("KEYS_REQUIRED", "Name at least one variation key."));
    }
    let mut out: Vec<&'static str> = Vec::new();
    for key in raw {
        let known = VARIATIONS.iter().map(|v| v.0).find(|v| *v == key.trim()).ok_or_else(|| {
            Error::invalid("UNKNOWN_VARIATION", format!("{key:?} is not a variation key."))
                .with("keys", keys(&VARIATIONS, |v| v.0))
        })?;
        if !out.contains(&known) {
            out.push(known);
        }
    }
    if out.len() > MAX_VARIATION_FRAMES {
        return Err(Error::invalid("TOO_MANY_FRAMES", format!("At most {MAX_VARIATION_FRAMES} frames at once."))
            .with("max", MAX_VARIATION_FRAMES));
    }
    Ok(out)
}

/// The frames of a variations request: each key checked like [`variation_keys`], a key named
/// twice developed twice (another take), at most [`MAX_VARIATION_FRAMES`] in all.
pub fn variation_frames(raw: Option<&[String]>) -> Result<Vec<&'static str>> {
    let raw = raw.unwrap_or_default();
    if raw.len() > MAX_VARIATION_FRAMES {
        return Err(Error::invalid("TOO_MANY_FRAMES", format!("At most {MAX_VARIATION_FRAMES} frames at once."))
            .with("max", MAX_VARIATION_FRAMES));
    }
    let known = variation_keys(Some(raw))?;
    Ok(raw.iter().filter_map(|k| known.iter().find(|v| **v == k.trim()).copied()).collect())
}

/// A background object, checked for its shape (the asset's ownership is the caller's to check):
/// `{kind: preset, value}` naming a ground preset, or `{kind: asset, assetId}`. 400
/// `BAD_BACKGROUND` with the legal `presets`.
pub fn background(raw: Option<&Value>) -> Result<Background> {
    let bad = |why: &str| {
        Error::invalid(
            "BAD_BACKGROUND",
            format!("{why} A background is {{kind: preset, value}} or {{kind: asset, assetId}}."),
        )
        .with("presets", background_presets())
    };
    let raw = raw.ok_or_else(|| bad("The background is missing."))?;
    match raw.get("kind").and_then(Value::as_str) {
        Some("preset") => {
            let value = raw.get("value").and_then(Value::as_str).map(str::trim).unwrap_or_default();
            if !background_presets().iter().any(|p| p == value) {
                return Err(bad(&format!("{value:?} is not a ground preset.")));
            }
            Ok(Background::Preset { value: value.to_string() })
        }
        Some("asset") => {
            let id = raw.get("assetId").and_then(Value::as_str).map(str::trim).unwrap_or_default();
            if id.is_empty() {
                return Err(bad("An asset background needs its assetId."));
            }
            Ok(Background::Asset { asset_id: id.to_string() })
        }
        _ => Err(bad("The background's kind is missing or unknown.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refusals_carry_the_legal_values() {
        let e = item_role("hat").unwrap_err();
        assert_eq!(e.code, "BAD_ITEM");
        assert_eq!(e.extra["roles"].as_array().map(Vec::len), Some(ITEM_ROLES.len()));
        let e = aesthetic(Some("baroque")).unwrap_err();
        assert_eq!((e.code, e.extra["presets"][0].as_str()), ("BAD_AESTHETIC", Some("editorial")));
        let e = variation_keys(Some(&["full-front".into(), "upside-down".into()])).unwrap_err();
        assert_eq!((e.code, e.extra["keys"].as_array().map(Vec::len)), ("UNKNOWN_VARIATION", Some(VARIATIONS.len())));
        assert_eq!(variation_keys(Some(&[])).unwrap_err().code, "KEYS_REQUIRED");
        let e = background(Some(&json!({"kind": "preset", "value": "plaid"}))).unwrap_err();
        assert_eq!((e.code, e.extra["presets"][0].as_str()), ("BAD_BACKGROUND", Some("white")));
    }

    #[test]
    fn good_values_pass_and_duplicates_fold() {
        assert_eq!(item_role("shoes").unwrap(), "shoes");
        assert_eq!(aesthetic(Some(" noir ")).unwrap(), "noir");
        let keys = variation_keys(Some(&["back".into(), "detail".into(), "back".into()])).unwrap();
        assert_eq!(keys, vec!["back", "detail"]);
        assert_eq!(
            background(Some(&json!({"kind": "preset", "value": "bone"}))).unwrap(),
            Background::Preset { value: "bone".into() }
        );
        assert_eq!(
            background(Some(&json!({"kind": "asset", "assetId": "ast_1"}))).unwrap(),
            Background::Asset { asset_id: "ast_1".into() }
        );
        let v = vocabulary();
        assert_eq!(v.destinations.last().map(|d| d.key.as_str()), Some(CUSTOM_DESTINATION));
        assert_eq!(v.backgrounds.len(), background_presets().len());
    }
}
