//! The colour tools: harmonize (Reinhard statistics transfer in Oklab of the subject toward its
//! ground or a new background) and color-change (recolour the garment in Oklab keeping its
//! shading).

use image::{GrayImage, Rgb, RgbImage};

use super::ops::{self, Lab, Result, rejected};
use super::subject::{Stats, Subject};
use super::{Frame, Params};

/// A per-channel mean/std transfer in Oklab, applied at a strength.
#[derive(Debug, Clone, Copy)]
struct Transfer {
    from: Stats,
    to: Stats,
    /// Strength per channel (lightness moves less than colour).
    strength: [f32; 3],
    /// Std ratio per channel, clamped so texture is never flattened or blown up.
    scale: [f32; 3],
}

impl Transfer {
    fn new(from: Stats, to: Stats, strength: f32) -> Transfer {
        let ratio = |k: usize, lo: f32, hi: f32| {
            if from.std[k] < 1e-4 { 1.0 } else { (to.std[k] / from.std[k]).clamp(lo, hi) }
        };
        Transfer {
            from,
            to,
            strength: [0.5 * strength, strength, strength],
            scale: [ratio(0, 0.8, 1.25), ratio(1, 0.5, 2.0), ratio(2, 0.5, 2.0)],
        }
    }

    fn apply(&self, c: Lab) -> Lab {
        let v = c.to_array();
        Lab::from_array([0, 1, 2].map(|k| {
            let moved = self.to.mean[k] + (v[k] - self.from.mean[k]) * self.scale[k];
            ops::lerp(v[k], moved, self.strength[k])
        }))
    }
}

/// Oklab statistics of a whole image (at a working size).
fn image_stats(img: &RgbImage) -> Result<Stats> {
    let small = ops::working_copy(img, 256)?;
    let mut sum = [0.0f64; 3];
    let mut sq = [0.0f64; 3];
    for p in small.pixels() {
        for (k, v) in ops::rgb_to_lab(p.0).to_array().into_iter().enumerate() {
            sum[k] += f64::from(v);
            sq[k] += f64::from(v) * f64::from(v);
        }
    }
    let n = f64::from(small.width() * small.height());
    let mean = sum.map(|s| (s / n) as f32);
    let std = [0, 1, 2].map(|k| ((sq[k] / n - (sum[k] / n).powi(2)).max(0.0)).sqrt() as f32);
    Ok(Stats { mean, std, weight: n as f32 })
}

/// The subject's own colour at `(x, y)` of the full-frame `img`: the pixel itself when solid,
/// else the edge estimate (as bytes, for the colour conversions).
fn foreground(subject: &Subject, img: &RgbImage, alpha: &[f32], x: u32, y: u32) -> [u8; 3] {
    let i = (y * img.width() + x) as usize;
    if alpha[i] >= 1.0 {
        return img.get_pixel(x, y).0;
    }
    let uv = ((x as f32 + 0.5) / img.width() as f32, (y as f32 + 0.5) / img.height() as f32);
    subject.edge_foreground(img, alpha, x, y, uv).map(ops::to_u8)
}

/// harmonize's one option, `strength` (0–1, default 0.6), read and checked (the tool and the
/// submit's check both read it here).
pub(crate) fn harmonize_strength(params: &Params<'_>) -> Result<f32> {
    params.number("strength", 0.6, 0.0..=1.0)
}

/// color-change's target colour, `color` (or `colour`), read and checked (the tool and the
/// submit's check both read it here).
pub(crate) fn target_colour(params: &Params<'_>) -> Result<[u8; 3]> {
    let Some(text) = params.get("color").or_else(|| params.get("colour")) else {
        return Err(rejected(format!("color-change needs params.color: {}", ops::colour_forms())));
    };
    ops::parse_color(text)
        .ok_or_else(|| rejected(format!("params.color must be {}; not {text:?}", ops::colour_forms())))
}

/// Match the subject's colour statistics to its ground, or composite it onto `background` and
/// match it to that.
pub(crate) fn harmonize(
    src: &Frame,
    background: Option<&Frame>,
    params: &Params<'_>,
    long_edge: u32,
) -> Result<RgbImage> {
    let strength = harmonize_strength(params)?;
    let (w, h) = ops::fit_long_edge(src.rgb.width(), src.rgb.height(), long_edge);
    let img = ops::resize_rgb(&src.rgb, w, h)?;
    let subject = Subject::cut(&img, src.alpha.as_ref())?;
    let from = subject.stats(|a| a > 0.9);
    let alpha = subject.alpha_for([0.0, 0.0, 1.0, 1.0], &img);
    match background {
        Some(bg) => {
            let mut canvas = ops::resize_rgb_cover(&bg.rgb, w, h)?;
            let transfer = Transfer::new(from, image_stats(&canvas)?, strength);
            // On the soft edge the subject's own colour F (never the old ground) is moved and
            // laid over the background: out = a T(F) + (1 - a) B.
            for (i, (x, y, p)) in canvas.enumerate_pixels_mut().enumerate() {
                let a = alpha[i];
                if a <= 0.0 {
                    continue;
                }
                let f = foreground(&subject, &img, &alpha, x, y);
                let moved = ops::lab_to_rgb(transfer.apply(ops::rgb_to_lab(f)));
                p.0 = [0, 1, 2].map(|k| ops::to_u8(ops::lerp(f32::from(p.0[k]), f32::from(moved[k]), a)));
            }
            Ok(canvas)
        }
        None => {
            let to = subject.stats(|a| a < 0.05);
            if to.weight < 1.0 {
                return Err(rejected("harmonize found no ground around the subject"));
            }
            let transfer = Transfer::new(from, to, strength);
            let mut out = img.clone();
            // C = aF + (1 - a)G, so out = a T(F) + (1 - a)G = C + a (T(F) - F).
            for (i, (x, y, p)) in out.enumerate_pixels_mut().enumerate() {
                let a = alpha[i];
                if a <= 0.0 {
                    continue;
                }
                let f = foreground(&subject, &img, &alpha, x, y);
                let moved = ops::lab_to_rgb(transfer.apply(ops::rgb_to_lab(f)));
                p.0 = [0, 1, 2].map(|k| ops::to_u8(f32::from(p.0[k]) + a * (f32::from(moved[k]) - f32::from(f[k]))));
            }
            Ok(out)
        }
    }
}

/// The mask input as alpha: luminance, times its own alpha when it has one.
pub(crate) fn mask_alpha(mask: &Frame) -> GrayImage {
    let mut g = image::imageops::grayscale(&mask.rgb);
    if let Some(a) = &mask.alpha {
        for (p, a) in g.pixels_mut().zip(a.pixels()) {
            p.0[0] = ((u16::from(p.0[0]) * u16::from(a.0[0]) + 127) / 255) as u8;
        }
    }
    g
}

/// Recolour the garment (the `mask` input, else the segmented piece) to `params.color`, keeping
/// its shading: Oklab lightness keeps its variation around a new mean, hue and chroma become
/// the target's.
pub(crate) fn color_change(src: &Frame, mask: Option<&Frame>, params: &Params<'_>, long_edge: u32) -> Result<RgbImage> {
    let target = target_colour(params)?;
    let (w, h) = ops::fit_long_edge(src.rgb.width(), src.rgb.height(), long_edge);
    let img = ops::resize_rgb(&src.rgb, w, h)?;
    let exact = mask.map(mask_alpha).or_else(|| src.alpha.clone());
    let subject = Subject::cut(&img, exact.as_ref())?;
    let stats = subject.stats(|a| a > 0.9);
    let [low, high] = subject.subject_lightness_percentiles([0.02, 0.98]);
    let t = ops::rgb_to_lab(target);
    let mean = stats.mean[0];
    // Keep the shading's amplitude unless it would clip at black or white.
    let mut s = 1.0f32;
    if high > mean + 1e-3 {
        s = s.min((0.985 - t.l) / (high - mean));
    }
    if low < mean - 1e-3 {
        s = s.min((t.l - 0.02) / (mean - low));
    }
    let s = s.clamp(0.3, 1.0);
    let alpha = subject.alpha_for([0.0, 0.0, 1.0, 1.0], &img);
    let mut out = img.clone();
    // C = aF + (1 - a)G, so recolouring F gives out = C + a (R(F) - F).
    for (i, (x, y, p)) in out.enumerate_pixels_mut().enumerate() {
        let a = alpha[i];
        if a <= 0.0 {
            continue;
        }
        let f = foreground(&subject, &img, &alpha, x, y);
        let c = ops::rgb_to_lab(f);
        let l = t.l + (c.l - mean) * s;
        // Shadows of a dyed cloth lose chroma with lightness; highlights gain a little.
        let k = if t.l > 0.05 { (l / t.l).clamp(0.6, 1.25) } else { 1.0 };
        let new = ops::lab_to_rgb(Lab { l, a: t.a * k, b: t.b * k });
        *p = Rgb([0, 1, 2].map(|i| ops::to_u8(f32::from(p.0[i]) + a * (f32::from(new[i]) - f32::from(f[i])))));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::subject::tests::garment_on_ground;
    use super::*;
    use std::collections::BTreeMap;

    fn frame(img: RgbImage) -> Frame {
        Frame { rgb: img, alpha: None }
    }

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// Mean Oklab over a rectangle of an image.
    fn mean_lab(img: &RgbImage, x0: u32, y0: u32, x1: u32, y1: u32) -> Lab {
        let mut s = [0.0f32; 3];
        let mut n = 0.0;
        for y in y0..y1 {
            for x in x0..x1 {
                let c = ops::rgb_to_lab(img.get_pixel(x, y).0).to_array();
                for k in 0..3 {
                    s[k] += c[k];
                }
                n += 1.0;
            }
        }
        Lab::from_array(s.map(|v| v / n))
    }

    fn dist(a: Lab, b: Lab) -> f32 {
        ((a.l - b.l).powi(2) + (a.a - b.a).powi(2) + (a.b - b.b).powi(2)).sqrt()
    }

    #[test]
    fn harmonize_moves_the_subject_toward_its_ground() {
        let img = garment_on_ground();
        // Garment: source x 70..130, y 35..120 → ×5.12 at 1024 wide; sample well inside.
        let src = ops::resize_rgb(&img, 1024, 768).expect("resize");
        let before = mean_lab(&src, 420, 250, 600, 550);
        let ground = mean_lab(&src, 0, 0, 200, 150);
        let out = harmonize(&frame(img.clone()), None, &Params(&params(&[])), 1024).expect("harmonize");
        assert_eq!(out.dimensions(), (1024, 768));
        let after = mean_lab(&out, 420, 250, 600, 550);
        assert!(dist(after, ground) < dist(before, ground) - 0.03, "{before:?} -> {after:?} (ground {ground:?})");
        let ground_after = mean_lab(&out, 0, 0, 200, 150);
        assert!(dist(ground_after, ground) < 0.005, "the ground is left alone");
        let weak = harmonize(&frame(img), None, &Params(&params(&[("strength", "0.2")])), 1024).expect("harmonize");
        let weak_after = mean_lab(&weak, 420, 250, 600, 550);
        assert!(dist(weak_after, before) < dist(after, before), "strength scales the move");
    }

    #[test]
    fn harmonize_onto_a_background() {
        let img = garment_on_ground();
        let bg = frame(RgbImage::from_fn(80, 60, |x, _| Rgb([30, 60 + x as u8, 140])));
        let out = harmonize(&frame(img), Some(&bg), &Params(&params(&[])), 1024).expect("harmonize");
        let corner = mean_lab(&out, 0, 0, 60, 60);
        assert!(corner.b < -0.05, "the background shows in the corner: {corner:?}");
        let centre = out.get_pixel(512, 384).0;
        let src_centre = [180u8, 40, 50];
        assert!(centre[2] > src_centre[2], "the subject takes on the background's blue: {centre:?}");
        assert!(harmonize(&frame(garment_on_ground()), None, &Params(&params(&[("strength", "2")])), 1024).is_err());
    }

    #[test]
    fn color_change_recolours_the_garment_only() {
        let img = garment_on_ground();
        let out =
            color_change(&frame(img.clone()), None, &Params(&params(&[("color", "navy")])), 1024).expect("recolour");
        let target = ops::rgb_to_lab(ops::parse_color("navy").expect("navy"));
        let garment = mean_lab(&out, 420, 250, 600, 550);
        let dh = (garment.hue() - target.hue()).abs();
        assert!(dh.min(std::f32::consts::TAU - dh) < 0.15, "hue {} vs {}", garment.hue(), target.hue());
        assert!((garment.l - target.l).abs() < 0.05, "lightness {} vs {}", garment.l, target.l);
        // The shading survives: the garment's lightness still varies.
        let mut ls: Vec<f32> = (250..550).map(|y| ops::rgb_to_lab(out.get_pixel(500, y).0).l).collect();
        ls.sort_by(f32::total_cmp);
        assert!(ls[ls.len() - 5] - ls[5] > 0.04, "shading kept");
        // The ground is unchanged.
        let src = ops::resize_rgb(&img, 1024, 768).expect("resize");
        assert!(dist(mean_lab(&out, 0, 0, 250, 150), mean_lab(&src, 0, 0, 250, 150)) < 0.002);
    }

    #[test]
    fn color_change_follows_a_mask_and_refuses_bad_colours() {
        let img = garment_on_ground();
        // Mask only the left half of the garment.
        let mask = frame(RgbImage::from_fn(200, 150, |x, y| {
            if (70..100).contains(&x) && (35..120).contains(&y) { Rgb([255, 255, 255]) } else { Rgb([0, 0, 0]) }
        }));
        let out = color_change(&frame(img.clone()), Some(&mask), &Params(&params(&[("color", "#2060c0")])), 1024)
            .expect("ok");
        let left = mean_lab(&out, 380, 250, 480, 550);
        let right = mean_lab(&out, 540, 250, 640, 550);
        assert!(left.b < -0.05 && right.a > 0.1, "left blue {left:?}, right still red {right:?}");
        for bad in [params(&[]), params(&[("color", "#12")]), params(&[("color", "sparkly")])] {
            let err = color_change(&frame(img.clone()), None, &Params(&bad), 1024).expect_err("refused");
            assert!(matches!(err, crate::providers::ProviderError::Rejected(_)));
        }
    }
}
