//! Composition at the tier: the ground (a preset or the background photo), the contact shadow
//! at the feet, the figure's layers sampled through the view, then the grade.

use image::{Rgb, RgbImage};

use super::super::Frame;
use super::super::ops::{self, Result};
use super::cut::Cut;
use super::layout::{Layer, Layout, View};
use super::settings::Settings;

/// Compose at the tier: ground, shadow, figure, grade.
pub(super) fn compose(
    model: &Frame,
    garments: &[Frame],
    background: Option<&Frame>,
    settings: &Settings,
    long_edge: u32,
) -> Result<(RgbImage, Layout)> {
    let figure = Cut::new(model, "the model")?;
    let cuts = garments
        .iter()
        .enumerate()
        .map(|(i, g)| Cut::new(g, &format!("garment #{}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let aspects: Vec<f32> = cuts.iter().map(Cut::aspect).collect();
    let layout = Layout::plan(settings, ops::aspect_size(settings.ratio, long_edge), figure.aspect(), &aspects);
    let (cw, ch) = layout.size;
    let view = layout.view;

    // Only what the frame shows of each layer is rendered.
    let window = view.window(cw as f32, ch as f32);
    let mut layers = Vec::with_capacity(1 + cuts.len());
    if let Some(l) = Layer::new(&figure, [0.0, 0.0, 1.0, 1.0], window, &view, long_edge)? {
        layers.push(l);
    }
    for (i, r) in &layout.garments {
        if let Some(l) = Layer::new(&cuts[*i], *r, window, &view, long_edge)? {
            layers.push(l);
        }
    }

    let mut canvas = match background {
        Some(bg) => ops::resize_rgb_cover(&bg.rgb, cw, ch)?,
        None => RgbImage::from_pixel(cw, ch, Rgb(settings.ground)),
    };
    contact_shadow(&mut canvas, &view);

    // The figure: every layer over the one below, then toned, then over the ground.
    let bounds = layers.iter().fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, l| {
        [b[0].min(l.rect[0]), b[1].min(l.rect[1]), b[2].max(l.rect[2]), b[3].max(l.rect[3])]
    });
    for (x, y, p) in canvas.enumerate_pixels_mut() {
        let (u, v) = view.inverse(x as f32 + 0.5, y as f32 + 0.5);
        if u < bounds[0] || u >= bounds[2] || v < bounds[1] || v >= bounds[3] {
            continue;
        }
        let (mut colour, mut alpha) = ([0.0f32; 3], 0.0f32);
        for layer in &layers {
            if let Some((c, a)) = layer.sample(u, v) {
                for k in 0..3 {
                    colour[k] = c[k] + colour[k] * (1.0 - a);
                }
                alpha = a + alpha * (1.0 - a);
            }
        }
        if alpha <= 0.0 {
            continue;
        }
        if view.dark != 1.0 || view.sat != 1.0 {
            let grey = 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2];
            colour = colour.map(|c| ops::lerp(grey, c, view.sat) * view.dark);
        }
        let alpha = alpha.min(1.0);
        p.0 = [0, 1, 2].map(|k| ops::to_u8(f32::from(p.0[k]) * (1.0 - alpha) + colour[k]));
    }

    if let Some(grade) = settings.aesthetic.grade() {
        grade.apply(&mut canvas);
    }
    Ok((canvas, layout))
}

/// A soft elliptical shadow where the feet meet the floor (none when the feet are out of the
/// frame), blurred at quarter size and multiplied into the ground.
pub(super) fn contact_shadow(canvas: &mut RgbImage, view: &View) {
    const OPACITY: f32 = 0.35;
    let (cw, ch) = canvas.dimensions();
    let (fx, fy) = view.forward(0.5, 1.0);
    let spread = view.turn * (1.0 + 2.0 * view.stride) * if view.legs < 1.0 { 1.3 } else { 1.0 };
    let rx = 0.34 * view.sx * spread;
    let ry = (0.022 * view.sy).max(2.0);
    if fy - 3.0 * ry > ch as f32 || fy + 3.0 * ry < 0.0 || fx + rx < 0.0 || fx - rx > cw as f32 {
        return;
    }
    let q = ops::SHADOW_SCALE as f32;
    ops::contact_shadow(canvas, (fx / q, fy / q), ((rx / q).max(2.0), (ry / q).max(1.0)), OPACITY);
}
