//! The lookbook's options, read and checked: the variation and aesthetic keys, the ground
//! presets, `itemRoles`, `aspect` and `restoreEdge` (the submit's check reads them here too).

use super::super::Params;
use super::super::frame::parse_aspect;
use super::super::ops::{self, Result, rejected};
use super::grade::Grade;
use crate::api::vocabulary::{AESTHETICS, GROUNDS, ITEM_ROLES, VARIATIONS};

/// The largest long edge a restoration pass may reach.
pub(crate) const MAX_RESTORE_EDGE: u32 = 8192;
/// The composition's aspect (width / height) when `params.aspect` is absent: 4:5.
pub(super) const DEFAULT_ASPECT: f64 = 4.0 / 5.0;

/// A variation key of [`VARIATIONS`], as the compositor frames it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variation {
    /// Full figure, facing the camera.
    FullFront,
    /// From mid-thigh up, larger, squeezed a little across as if turned.
    ThreeQuarter,
    /// Full figure, mirrored and darkened.
    Back,
    /// A close crop onto the look's first piece.
    Detail,
    /// Full figure, leaning and striding, off-centre.
    Walking,
    /// Full figure with the legs folded to 55 % below the hips.
    Seated,
}

impl Variation {
    pub(super) fn parse(key: &str) -> Option<Variation> {
        Some(match key {
            "full-front" => Variation::FullFront,
            "three-quarter" => Variation::ThreeQuarter,
            "back" => Variation::Back,
            "detail" => Variation::Detail,
            "walking" => Variation::Walking,
            "seated" => Variation::Seated,
            _ => return None,
        })
    }
}

/// An aesthetic key of [`AESTHETICS`], as a grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Aesthetic {
    /// Contrast, slightly cool and muted, a vignette and a little grain.
    Editorial,
    /// No grade: the pieces' own colours.
    Minimal,
    /// Warm with a gentle falloff toward the corners.
    Classic,
    /// Hard contrast and more colour.
    Street,
    /// Low contrast, warm, lifted blacks.
    Romantic,
    /// Monochrome, high contrast, vignette and grain.
    Noir,
}

impl Aesthetic {
    pub(super) fn parse(key: &str) -> Option<Aesthetic> {
        Some(match key {
            "editorial" => Aesthetic::Editorial,
            "minimal" => Aesthetic::Minimal,
            "classic" => Aesthetic::Classic,
            "street" => Aesthetic::Street,
            "romantic" => Aesthetic::Romantic,
            "noir" => Aesthetic::Noir,
            _ => return None,
        })
    }

    /// The grade's numbers; None for a look left as shot.
    pub(super) fn grade(self) -> Option<Grade> {
        let g = |contrast, lift, chroma, warm, vignette, grain| Grade { contrast, lift, chroma, warm, vignette, grain };
        match self {
            Aesthetic::Minimal => None,
            Aesthetic::Editorial => Some(g(0.35, 0.0, 0.9, [0.0, -0.004], 0.12, 2.5)),
            Aesthetic::Classic => Some(g(0.15, 0.0, 1.0, [0.006, 0.016], 0.16, 0.0)),
            Aesthetic::Street => Some(g(0.5, 0.0, 1.15, [0.0, -0.006], 0.0, 1.5)),
            Aesthetic::Romantic => Some(g(-0.3, 0.18, 0.85, [0.01, 0.018], 0.06, 0.0)),
            Aesthetic::Noir => Some(g(0.8, 0.0, 0.0, [0.0, 0.0], 0.18, 3.0)),
        }
    }
}

/// The validated options of one lookbook develop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// One role per garment input, in the inputs' order.
    pub(crate) roles: Vec<&'static str>,
    /// The preset ground's colour (used when there is no background input).
    pub(crate) ground: [u8; 3],
    /// How the figure is framed.
    pub(crate) variation: Variation,
    /// How the frame is graded.
    pub(crate) aesthetic: Aesthetic,
    /// The composition's width / height.
    pub(crate) ratio: f64,
    /// The long edge of the restoration pass, when one was asked for.
    pub(crate) restore_edge: Option<u32>,
}

/// The value of `key` (`default` when absent) as one of `keys`, read by `parse`; a refusal that
/// names the param and lists `keys` otherwise.
pub(super) fn one_of<T>(
    params: &Params<'_>,
    key: &str,
    default: &str,
    keys: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T> {
    let raw = params.get(key).unwrap_or(default);
    parse(&raw.to_ascii_lowercase())
        .ok_or_else(|| rejected(format!("params.{key} must be one of {}, not {raw:?}", keys.join(", "))))
}

impl Settings {
    /// Read and check the options for `garments` garment inputs at a tier of `long_edge`.
    pub(crate) fn parse(params: &Params<'_>, garments: usize, long_edge: u32) -> Result<Settings> {
        let Some(list) = params.get("itemRoles") else {
            return Err(rejected(format!(
                "lookbook needs params.itemRoles: one role per garment input ({garments} here), from {}",
                ITEM_ROLES.join(", ")
            )));
        };
        let mut roles = Vec::new();
        for raw in list.split(',').map(str::trim) {
            let role = ITEM_ROLES.iter().find(|r| r.eq_ignore_ascii_case(raw)).ok_or_else(|| {
                rejected(format!("params.itemRoles names {raw:?}, which is not one of {}", ITEM_ROLES.join(", ")))
            })?;
            roles.push(*role);
        }
        if roles.len() != garments {
            return Err(rejected(format!(
                "params.itemRoles names {} roles but there are {garments} garment inputs: give one role per garment, \
                 in the same order",
                roles.len()
            )));
        }
        let ground_keys: Vec<&str> = GROUNDS.iter().map(|g| g.0).collect();
        let ground = one_of(params, "ground", "white", &ground_keys, |k| {
            GROUNDS.iter().find(|g| g.0 == k).and_then(|g| ops::parse_color(g.2))
        })?;
        let variation_keys: Vec<&str> = VARIATIONS.iter().map(|v| v.0).collect();
        let variation = one_of(params, "variation", "full-front", &variation_keys, Variation::parse)?;
        let aesthetic_keys: Vec<&str> = AESTHETICS.iter().map(|a| a.0).collect();
        let aesthetic = one_of(params, "aesthetic", "minimal", &aesthetic_keys, Aesthetic::parse)?;
        let ratio = match params.get("aspect") {
            None => DEFAULT_ASPECT,
            Some(text) => parse_aspect(text).ok_or_else(|| {
                rejected(format!(
                    "params.aspect must be W:H (like 4:5, 2:3 or 1200:1500) between 1:10 and 10:1, not {text:?}"
                ))
            })?,
        };
        let restore_edge = match params.get("restoreEdge") {
            None => None,
            Some(v) => match v.parse::<u32>() {
                Ok(n) if n > long_edge && n <= MAX_RESTORE_EDGE => Some(n),
                _ => {
                    return Err(rejected(format!(
                        "params.restoreEdge must be a whole number of pixels above the tier's {long_edge} and at most \
                         {MAX_RESTORE_EDGE}, not {v:?}"
                    )));
                }
            },
        };
        Ok(Settings { roles, ground, variation, aesthetic, ratio, restore_edge })
    }
}
