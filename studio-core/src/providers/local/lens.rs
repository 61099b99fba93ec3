//! The camera-lens tool: depth fall-off (blur growing with distance from the subject or a focus
//! point, blended across a Gaussian-like pyramid), a vignette and a touch of warmth, the last two
//! in linear light.

use image::RgbImage;

use super::ops::{self, ColourPlane, Result, rejected};
use super::subject::Subject;
use super::{Frame, Params};

/// Parse `params.focus`: `x,y` in 0..1 each.
fn parse_focus(text: &str) -> Option<(f32, f32)> {
    let (x, y) = text.trim().split_once([',', ' ', ';'])?;
    let (x, y) = (x.trim().parse::<f32>().ok()?, y.trim().parse::<f32>().ok()?);
    ((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y)).then_some((x, y))
}

/// camera-lens's options: aperture, vignette, warmth and the focus point when given.
type LensOptions = (f32, f32, f32, Option<(f32, f32)>);

/// camera-lens's options, read and checked (the tool and the submit's check both read them
/// here): aperture, vignette, warmth and the focus point when given.
pub(crate) fn lens_options(params: &Params<'_>) -> Result<LensOptions> {
    let aperture = params.number("aperture", 0.5, 0.0..=1.0)?;
    let vignette = params.number("vignette", 0.35, 0.0..=1.0)?;
    let warmth = params.number("warmth", 0.15, 0.0..=1.0)?;
    let focus = match params.get("focus") {
        None => None,
        Some(text) => Some(
            parse_focus(text)
                .ok_or_else(|| rejected(format!("params.focus must be x,y with each in 0..1, not {text:?}")))?,
        ),
    };
    Ok((aperture, vignette, warmth, focus))
}

/// Lens look: sharp at the focus (the subject when none is given), increasingly soft away from
/// it, darker toward the corners, slightly warm.
pub(crate) fn camera_lens(src: &Frame, params: &Params<'_>, long_edge: u32) -> Result<RgbImage> {
    let (aperture, vignette, warmth, focus_param) = lens_options(params)?;
    let (w, h) = ops::fit_long_edge(src.rgb.width(), src.rgb.height(), long_edge);
    let img = ops::resize_rgb(&src.rgb, w, h)?;

    // Focus point and the radius (as a share of the half-diagonal) that stays sharp.
    let subject = match focus_param {
        Some(_) => None,
        None => Some(Subject::find(&img, src.alpha.as_ref())?).filter(Subject::found),
    };
    let (fw, fh) = (w as f32, h as f32);
    let half_diag = 0.5 * fw.hypot(fh);
    let (focus, sharp) = match (&focus_param, &subject) {
        (Some(f), _) => (*f, 0.12),
        (None, Some(s)) => {
            let b = s.bbox.unwrap_or([0.5, 0.5, 0.5, 0.5]);
            let extent = 0.5 * ((b[2] - b[0]) * fw).hypot((b[3] - b[1]) * fh) / half_diag;
            (s.focus, extent.clamp(0.1, 0.6))
        }
        (None, None) => ((0.5, 0.5), 0.15),
    };

    // The pyramid: level k is about 2^k px of blur.
    let max_blur = w.max(h) as f32 * 0.02 * aperture;
    let depth = if max_blur < 1.0 { 0 } else { (max_blur.log2().ceil() as usize).clamp(1, 7) };
    let mut levels: Vec<ColourPlane> = Vec::with_capacity(depth);
    for k in 0..depth {
        let next = if k == 0 { ColourPlane::reduce_rgb(&img) } else { levels[k - 1].reduce() };
        levels.push(next);
    }

    let warm = [1.0 + 0.08 * warmth, 1.0 + 0.02 * warmth, 1.0 - 0.08 * warmth];
    let mut out = RgbImage::new(w, h);
    for (x, y, p) in out.enumerate_pixels_mut() {
        let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
        let d = (px - focus.0 * fw).hypot(py - focus.1 * fh) / half_diag;
        let mut t = ops::smoothstep(sharp, sharp + 0.55, d);
        if let Some(s) = &subject {
            t *= 1.0 - s.coarse.sample_norm(px / fw, py / fh);
        }
        let source = img.get_pixel(x, y).0.map(f32::from);
        let level = (1.0 + max_blur * t).log2().min(depth as f32);
        let colour = if level <= 0.0 || depth == 0 {
            source
        } else {
            let i = level.floor() as usize;
            let f = level - i as f32;
            let read = |k: usize| {
                if k == 0 {
                    source
                } else {
                    let s = (1usize << k) as f32;
                    levels[k - 1].sample(px / s, py / s)
                }
            };
            let a = read(i);
            if f <= 0.0 || i >= depth {
                a
            } else {
                let b = read(i + 1);
                [0, 1, 2].map(|c| ops::lerp(a[c], b[c], f))
            }
        };
        let rx = (px / fw - 0.5) * fw / half_diag;
        let ry = (py / fh - 0.5) * fh / half_diag;
        let r2 = rx * rx + ry * ry; // 1 at the corners
        let fall = 1.0 - 0.7 * vignette * r2 * r2.sqrt().sqrt();
        p.0 = [0, 1, 2].map(|c| ops::to_srgb(ops::to_linear(ops::to_u8(colour[c])) * fall * warm[c]));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;
    use std::collections::BTreeMap;

    fn frame(img: RgbImage) -> Frame {
        Frame { rgb: img, alpha: None }
    }

    /// A busy texture (checks plus noise) everywhere, so sharpness can be measured anywhere.
    fn texture() -> RgbImage {
        RgbImage::from_fn(200, 150, |x, y| {
            let check = if (x / 4 + y / 4) % 2 == 0 { 90.0 } else { 170.0 };
            let v = ops::to_u8(check + 10.0 * ops::noise(x, y, 9));
            Rgb([v, v, v])
        })
    }

    fn patch_stats(img: &RgbImage, x0: u32, y0: u32, size: u32) -> (f32, f32) {
        let (mut sum, mut grad, mut n) = (0.0f32, 0.0f32, 0.0f32);
        for y in y0..y0 + size {
            for x in x0..x0 + size {
                let v = f32::from(img.get_pixel(x, y).0[1]);
                sum += v;
                grad += (v - f32::from(img.get_pixel(x + 1, y).0[1])).abs();
                n += 1.0;
            }
        }
        (sum / n, grad / n)
    }

    #[test]
    fn corners_are_darker_and_softer_than_the_centre() {
        let map: BTreeMap<String, String> =
            [("focus", "0.5,0.5"), ("aperture", "0.8")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let out = camera_lens(&frame(texture()), &Params(&map), 1024).expect("lens");
        assert_eq!(out.dimensions(), (1024, 768));
        let (centre_mean, centre_grad) = patch_stats(&out, 462, 334, 100);
        for (x0, y0) in [(0, 0), (922, 0), (0, 666), (922, 666)] {
            let (mean, grad) = patch_stats(&out, x0, y0, 100);
            assert!(mean < centre_mean * 0.95, "corner ({x0},{y0}) mean {mean} vs centre {centre_mean}");
            assert!(grad < centre_grad * 0.5, "corner ({x0},{y0}) detail {grad} vs centre {centre_grad}");
        }
        // The centre keeps its detail compared with the plain resize.
        let plain = ops::resize_rgb(&texture(), 1024, 768).expect("resize");
        let (_, plain_grad) = patch_stats(&plain, 462, 334, 100);
        assert!(centre_grad > plain_grad * 0.9, "centre detail {centre_grad} vs {plain_grad}");
        // Warmth: red gains on blue.
        let c = out.get_pixel(512, 384).0;
        assert!(c[0] >= c[2], "{c:?}");
    }

    #[test]
    fn bad_focus_is_refused() {
        for bad in ["2,0.5", "middle", "0.5"] {
            let map: BTreeMap<String, String> = [("focus".to_string(), bad.to_string())].into_iter().collect();
            assert!(camera_lens(&frame(texture()), &Params(&map), 1024).is_err(), "{bad}");
        }
        assert_eq!(parse_focus("0.25, 0.75"), Some((0.25, 0.75)));
    }
}
