//! The lookbook tool: a deterministic compositor that builds one look frame from a model photo,
//! the look's garments and a ground. It is not a generative model and does not pretend to be:
//! every input is cut from its own ground with the packshot's segmentation (`Subject`) and laid
//! out by simple, documented geometry, so each input visibly shapes the frame.
//!
//! The frame is `params.aspect` at the tier's long edge. Its layers, bottom to top: the ground (a
//! preset colour or the `background` photo cover-cropped), a soft contact shadow under the feet,
//! the model's cut-out, then each garment placed by its role on the figure's box (layered in
//! `ITEM_ROLES` order). The variation moves the whole figure through one mapping (scale, crop,
//! mirror, shear, leg compression); the aesthetic grades the finished frame; `restoreEdge`
//! upscales it last. `docs/providers.md` describes each step and parameter.
//!
//! The compositor lives in one folder, a file per concern: `settings.rs` reads and checks the
//! options (variations, aesthetics, the ground presets); `cut.rs` cuts each input from its ground
//! behind the subject gate; `layout.rs` places the pieces on the figure and maps the figure onto
//! the frame by variation; `render.rs` composes the ground, the contact shadow and the layers;
//! `grade.rs` grades the finished frame by aesthetic. This file runs them in order.

mod cut;
mod grade;
mod layout;
mod render;
mod settings;
#[cfg(test)]
mod tests;

use image::RgbImage;

use super::ops::{Result, rejected};
use super::{Frame, Params, decode, frame};
use crate::api::vocabulary::MAX_ITEMS_PER_LOOK;
use crate::providers::{DevelopInput, DevelopRequest};

use layout::Layout;
use render::compose;
pub(crate) use settings::Settings;

/// Compose the look frame of a `lookbook` develop at the tier's `long_edge` (then restored to
/// `params.restoreEdge` when asked).
pub(crate) fn lookbook(request: &DevelopRequest, params: &Params<'_>, long_edge: u32) -> Result<RgbImage> {
    Ok(develop(request, params, long_edge)?.0)
}

/// [`lookbook`], with the layout it used (for tests that look at where things went).
fn develop(request: &DevelopRequest, params: &Params<'_>, long_edge: u32) -> Result<(RgbImage, Layout)> {
    let by_role = |role: &str| request.inputs.iter().filter(|i| i.role == role).collect::<Vec<&DevelopInput>>();
    let (models, garments, backgrounds) = (by_role("model"), by_role("garment"), by_role("background"));
    match models.len() {
        1 => {}
        0 => return Err(rejected("lookbook needs an input with role model (the model photo)")),
        n => return Err(rejected(format!("lookbook takes exactly one model input, not {n}"))),
    }
    if garments.is_empty() {
        return Err(rejected("lookbook needs at least one input with role garment"));
    }
    if garments.len() > MAX_ITEMS_PER_LOOK {
        return Err(rejected(format!(
            "lookbook takes at most {MAX_ITEMS_PER_LOOK} garment inputs, not {}",
            garments.len()
        )));
    }
    if backgrounds.len() > 1 {
        return Err(rejected(format!("lookbook takes at most one background input, not {}", backgrounds.len())));
    }
    let settings = Settings::parse(params, garments.len(), long_edge)?;

    let model = decode(&models[0].bytes, "model")?;
    let pieces = garments
        .iter()
        .enumerate()
        .map(|(i, g)| decode(&g.bytes, &format!("garment {}", i + 1)))
        .collect::<Result<Vec<Frame>>>()?;
    let background = backgrounds.first().map(|b| decode(&b.bytes, "background")).transpose()?;

    let (img, layout) = compose(&model, &pieces, background.as_ref(), &settings, long_edge)?;
    let img = match settings.restore_edge {
        Some(edge) => frame::upscale(&img, edge)?,
        None => img,
    };
    Ok((img, layout))
}
