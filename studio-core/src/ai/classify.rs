//! Classification on upload (`classify=1`): one read of the new asset through the AI reader at
//! the utility charge (1 token), held before the read and settled only on an answer. The answer
//! files the piece into a kind and names it in English, but a name or kind the uploader gave is
//! never overwritten and a SKU is never invented. Any failure (no reader, too few tokens, the
//! reader failed) keeps the upload, charges nothing, and says why in the result.

use crate::ai::Ai;
use serde_json::{Map, Value};

use crate::api::{AssetKind, ClassifyResult};
use crate::caller::Caller;
use crate::error::Result;
use crate::storage::{AssetChanges, AssetRow};

/// Longest English name the read may give an asset.
pub(crate) const MAX_NAME_EN_CHARS: usize = 40;

const CLASSIFY_SYSTEM: &str = "You file product photographs for a fashion house's image library. Describe only \
    what is visible. Answer with one JSON object and nothing else.";
const CLASSIFY_PROMPT: &str = "File this image. Answer with a JSON object with exactly these keys: \"kind\" (one of \
    \"clothes\" for garments, \"accessory\" for bags, belts, shoes, hats and similar, \"jewelry\", \"model\" for a \
    photograph of a person, \"background\" for a ground or scene with no product), \"nameEn\" (a short English name \
    for the piece, at most 40 characters, e.g. \"camel wool coat\").";

/// What the uploader already decided, which the read must leave alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Supplied {
    /// A name was given in the form.
    pub(crate) name: bool,
    /// A kind was given in the form.
    pub(crate) kind: bool,
}

/// The kind of an answer: one of the five, read leniently; anything else is clothes.
fn kind_of(answer: &Map<String, Value>) -> AssetKind {
    let raw = answer.get("kind").and_then(Value::as_str).unwrap_or_default().trim().to_ascii_lowercase();
    let raw = match raw.as_str() {
        "jewellery" => "jewelry",
        "accessories" => "accessory",
        other => other,
    };
    AssetKind::parse(raw).unwrap_or(AssetKind::Clothes)
}

/// The English name of an answer, whitespace folded and cut to [`MAX_NAME_EN_CHARS`].
fn name_of(answer: &Map<String, Value>) -> Option<String> {
    let raw = answer.get("nameEn").or_else(|| answer.get("name_en")).and_then(Value::as_str)?;
    let name: String = raw.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(MAX_NAME_EN_CHARS).collect();
    (!name.is_empty()).then_some(name)
}

impl Ai<'_> {
    /// Classify a just-stored asset; the asset row as it stands afterwards and the result.
    pub(crate) async fn classify_upload(
        &self,
        caller: &Caller,
        row: AssetRow,
        supplied: Supplied,
    ) -> Result<(AssetRow, ClassifyResult)> {
        let refused = |code: &str| ClassifyResult {
            ok: false,
            name_en: None,
            kind: None,
            error: Some(code.to_string()),
            tokens: 0,
        };
        let (answer, tokens) =
            match self.ai_read(caller, "classify", vec![row.clone()], CLASSIFY_SYSTEM, CLASSIFY_PROMPT).await {
                Ok(read) => read,
                Err(e) => return Ok((row, refused(e.code))),
            };
        let (kind, name_en) = (kind_of(&answer), name_of(&answer));
        let changes = AssetChanges {
            name: name_en.clone().filter(|_| !supplied.name),
            kind: (!supplied.kind).then(|| kind.as_str().to_string()),
            ..AssetChanges::default()
        };
        let mut row = row;
        if changes.name.is_some() || changes.kind.is_some() {
            self.studio.library().change_assets(&caller.org_id, &[row.id.to_string()], &changes).await?;
            if let Some(name) = changes.name {
                row.name = name;
            }
            if let Some(kind) = changes.kind {
                row.kind = kind;
            }
        }
        Ok((row, ClassifyResult { ok: true, name_en, kind: Some(kind), error: None, tokens }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn answers_are_read_leniently_and_bounded() {
        let a = answer(
            serde_json::json!({"kind": " Jewellery ", "nameEn": "  a   very long name for a small gold ring with three stones  "}),
        );
        assert_eq!(kind_of(&a), AssetKind::Jewelry);
        let name = name_of(&a).expect("name");
        assert_eq!(name.chars().count(), MAX_NAME_EN_CHARS);
        assert!(name.starts_with("a very long name"));
        let odd = answer(serde_json::json!({"kind": "spaceship", "nameEn": ""}));
        assert_eq!((kind_of(&odd), name_of(&odd)), (AssetKind::Clothes, None), "unknown kinds are clothes");
    }
}
