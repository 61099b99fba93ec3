//! The framing tools: upscale (Lanczos3), reframe (subject-aware crop or canvas extension) and
//! packshot (cut the piece from its ground and set it on a clean one with a contact shadow).

use image::{Rgb, RgbImage};

use super::ops::{self, Plane, Region, Result, rejected};
use super::subject::Subject;
use super::{Frame, Params};

/// Default packshot ground: a warm near-white.
pub(crate) const DEFAULT_GROUND: [u8; 3] = [0xF5, 0xF5, 0xF3];

/// Lanczos3 resize so the long edge is `long_edge`, keeping the aspect.
pub(crate) fn upscale(img: &RgbImage, long_edge: u32) -> Result<RgbImage> {
    let (w, h) = ops::fit_long_edge(img.width(), img.height(), long_edge);
    ops::resize_rgb(img, w, h)
}

/// Parse an aspect ratio: `W:H` (also `WxH`, `W/H`) or one positive number (width / height).
pub(crate) fn parse_aspect(text: &str) -> Option<f64> {
    let t = text.trim();
    let ratio = match t.split_once([':', 'x', 'X', '/']) {
        Some((w, h)) => w.trim().parse::<f64>().ok()? / h.trim().parse::<f64>().ok()?,
        None => t.parse::<f64>().ok()?,
    };
    (ratio.is_finite() && (0.1..=10.0).contains(&ratio)).then_some(ratio)
}

/// The output size asked of reframe: `width` + `height`, or `aspect` at the tier's long edge.
fn reframe_size(params: &Params<'_>, long_edge: u32) -> Result<(u32, u32)> {
    let side = |key: &str| -> Result<Option<u32>> {
        match params.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<u32>() {
                Ok(n) if (16..=8192).contains(&n) => Ok(Some(n)),
                _ => Err(rejected(format!("params.{key} must be a whole number of pixels from 16 to 8192, not {v:?}"))),
            },
        }
    };
    match (side("width")?, side("height")?) {
        (Some(w), Some(h)) => {
            let ratio = f64::from(w) / f64::from(h);
            if !(0.1..=10.0).contains(&ratio) {
                return Err(rejected("params.width and params.height must be within 10:1 of each other"));
            }
            Ok((w, h))
        }
        (Some(_), None) | (None, Some(_)) => Err(rejected("reframe needs both params.width and params.height")),
        (None, None) => match params.get("aspect") {
            Some(text) => match parse_aspect(text) {
                Some(ratio) => Ok(ops::aspect_size(ratio, long_edge)),
                None => Err(rejected(format!(
                    "params.aspect must be W:H (like 4:5, 1:1 or 16:9) between 1:10 and 10:1, not {text:?}"
                ))),
            },
            None => Err(rejected("reframe needs params.aspect (like 4:5) or params.width and params.height")),
        },
    }
}

/// reframe's options, read and checked (the tool and the submit's check both read them here):
/// the output size, and the mode (`Some(true)` extend, `Some(false)` crop, `None` auto).
pub(crate) fn reframe_options(params: &Params<'_>, long_edge: u32) -> Result<((u32, u32), Option<bool>)> {
    let size = reframe_size(params, long_edge)?;
    let mode = match params.get("mode").map(|m| m.to_ascii_lowercase()) {
        None => None,
        Some(m) if m == "auto" => None,
        Some(m) if m == "crop" => Some(false),
        Some(m) if m == "extend" => Some(true),
        Some(m) => return Err(rejected(format!("params.mode must be crop, extend or auto, not {m:?}"))),
    };
    Ok((size, mode))
}

/// Recompose to another aspect: crop around the subject when the target is narrower, extend the
/// canvas when it is wider (`params.mode` = crop | extend forces one).
pub(crate) fn reframe(src: &Frame, params: &Params<'_>, long_edge: u32) -> Result<RgbImage> {
    let ((tw, th), mode) = reframe_options(params, long_edge)?;
    let img = &src.rgb;
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let (source_ratio, target_ratio) = (w / h, f64::from(tw) / f64::from(th));
    let extend = mode.unwrap_or(target_ratio > source_ratio);
    if (target_ratio / source_ratio - 1.0).abs() < 0.002 {
        return ops::resize_rgb(img, tw, th);
    }
    let subject = Subject::find(img, src.alpha.as_ref())?;
    if extend { extend_canvas(img, &subject, tw, th) } else { crop_to(img, &subject, tw, th) }
}

/// Place a window of length `window` within `0..full`, centred on `centre`, and keeping
/// `[lo, hi)` (the subject's extent) inside when it fits.
fn place_window(full: f64, window: f64, centre: f64, lo: f64, hi: f64) -> f64 {
    let mut start = centre - window / 2.0;
    if hi - lo <= window {
        start = start.clamp(hi - window, lo);
    }
    start.clamp(0.0, (full - window).max(0.0))
}

fn crop_to(img: &RgbImage, subject: &Subject, tw: u32, th: u32) -> Result<RgbImage> {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let ratio = f64::from(tw) / f64::from(th);
    let (cw, ch) = if ratio < w / h { (h * ratio, h) } else { (w, w / ratio) };
    let (fx, fy) = (f64::from(subject.focus.0) * w, f64::from(subject.focus.1) * h);
    let b =
        subject.bbox.map(|b| b.map(f64::from)).unwrap_or([subject.focus.0.into(), subject.focus.1.into(), 0.0, 0.0]);
    let (bx0, by0, bx1, by1) = (b[0] * w, b[1] * h, (b[2] * w).max(b[0] * w), (b[3] * h).max(b[1] * h));
    let left = place_window(w, cw, fx, bx0, bx1);
    let top = place_window(h, ch, fy, by0, by1);
    ops::resize_rgb_region(img, Region { left, top, width: cw, height: ch }, tw, th)
}

/// Colours along one side of the placed image, at three softness levels plus the ground.
struct EdgeProfile {
    near: Vec<[f32; 3]>,
    mid: Vec<[f32; 3]>,
    far: Vec<[f32; 3]>,
    ground: Vec<[f32; 3]>,
}

fn blurred_planes(img: &RgbImage, long_edge: u32, radius: usize) -> Result<[Plane; 3]> {
    let small = ops::working_copy(img, long_edge)?;
    let (w, h) = (small.width() as usize, small.height() as usize);
    Ok([0, 1, 2].map(|k| Plane { w, h, data: small.pixels().map(|p| f32::from(p.0[k])).collect() }.blur(radius)))
}

fn extend_canvas(img: &RgbImage, subject: &Subject, tw: u32, th: u32) -> Result<RgbImage> {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let (sw, sh) = if f64::from(tw) / f64::from(th) > w / h {
        (((w * f64::from(th) / h).round() as u32).clamp(1, tw), th)
    } else {
        (tw, ((h * f64::from(tw) / w).round() as u32).clamp(1, th))
    };
    let placed = ops::resize_rgb(img, sw, sh)?;
    let place = |total: u32, size: u32, focus: f32| -> u32 {
        let ideal = f64::from(total) / 2.0 - f64::from(focus) * f64::from(size);
        ideal.round().clamp(0.0, f64::from(total - size)) as u32
    };
    let (ox, oy) = (place(tw, sw, subject.focus.0), place(th, sh, subject.focus.1));

    let mid = blurred_planes(&placed, 256, 1)?;
    let far = blurred_planes(&placed, 48, 2)?;
    let sample = |planes: &[Plane; 3], u: f32, v: f32| [0, 1, 2].map(|k| planes[k].sample_norm(u, v));
    // One profile per side: index by the position along that side.
    let profile = |points: Vec<(u32, u32)>| -> EdgeProfile {
        let mut p = EdgeProfile { near: Vec::new(), mid: Vec::new(), far: Vec::new(), ground: Vec::new() };
        for (x, y) in points {
            let (u, v) = ((x as f32 + 0.5) / sw as f32, (y as f32 + 0.5) / sh as f32);
            p.near.push(placed.get_pixel(x, y).0.map(f32::from));
            p.mid.push(sample(&mid, u, v));
            p.far.push(sample(&far, u, v));
            p.ground.push(subject.ground_rgb(u, v));
        }
        p
    };
    let left = profile((0..sh).map(|y| (0, y)).collect());
    let right = profile((0..sh).map(|y| (sw - 1, y)).collect());
    let top = profile((0..sw).map(|x| (x, 0)).collect());
    let bottom = profile((0..sw).map(|x| (x, sh - 1)).collect());

    let long = tw.max(th) as f32;
    let grain = (subject.noise * 255.0).min(6.0);
    let mut out = RgbImage::new(tw, th);
    for (x, y, px) in out.enumerate_pixels_mut() {
        let inside_x = x >= ox && x < ox + sw;
        let inside_y = y >= oy && y < oy + sh;
        if inside_x && inside_y {
            *px = *placed.get_pixel(x - ox, y - oy);
            continue;
        }
        let cx = x.clamp(ox, ox + sw - 1);
        let cy = y.clamp(oy, oy + sh - 1);
        let d = ((x as f32 - cx as f32).powi(2) + (y as f32 - cy as f32).powi(2)).sqrt();
        let (side, i) = if x < ox {
            (&left, (cy - oy) as usize)
        } else if x >= ox + sw {
            (&right, (cy - oy) as usize)
        } else if y < oy {
            (&top, (cx - ox) as usize)
        } else {
            (&bottom, (cx - ox) as usize)
        };
        let t1 = ops::smoothstep(0.0, 0.03 * long, d);
        let t2 = ops::smoothstep(0.01 * long, 0.12 * long, d);
        let t3 = 0.85 * ops::smoothstep(0.02 * long, 0.25 * long, d);
        let n = ops::noise(x, y, 11) * grain;
        *px = Rgb([0, 1, 2].map(|k| {
            let c = ops::lerp(side.near[i][k], side.mid[i][k], t1);
            let c = ops::lerp(c, side.far[i][k], t2);
            ops::to_u8(ops::lerp(c, side.ground[i][k], t3) + n)
        }));
    }
    Ok(out)
}

/// Where the packshot's ground comes from.
enum Ground<'a> {
    Colour([u8; 3]),
    Image(&'a RgbImage),
}

/// packshot's options, read and checked (the tool and the submit's check both read them here).
pub(crate) struct PackshotOptions {
    /// The ground colour asked for (`bg` before `ground`), if any.
    colour: Option<[u8; 3]>,
    /// `bg=image`: the background input is the ground.
    wants_image: bool,
    /// The margin, a share of the frame's short side.
    margin: f32,
    /// The contact shadow's opacity.
    shadow: f32,
    /// The frame's aspect, when set.
    aspect: Option<f64>,
}

/// Read packshot's options for a develop that has (or not) a `background` input.
pub(crate) fn packshot_options(params: &Params<'_>, has_background: bool) -> Result<PackshotOptions> {
    let colour_param = |key: &str| -> Result<Option<[u8; 3]>> {
        match params.get(key) {
            None => Ok(None),
            Some(v) if key == "bg" && v.eq_ignore_ascii_case("image") => Ok(None),
            Some(v) => ops::parse_color(v).map(Some).ok_or_else(|| {
                let forms = ops::colour_forms();
                let forms =
                    if key == "bg" { format!("image (the background input) or a colour: {forms}") } else { forms };
                rejected(format!("params.{key} must be {forms}; not {v:?}"))
            }),
        }
    };
    let bg_colour = colour_param("bg")?;
    let ground_colour = colour_param("ground")?;
    let wants_image = params.get("bg").is_some_and(|v| v.eq_ignore_ascii_case("image"));
    if wants_image && !has_background {
        return Err(rejected("params.bg is image but no background input was given"));
    }
    let margin = params.number("margin", 0.08, 0.0..=0.4)?;
    let shadow = params.number("shadow", 0.35, 0.0..=1.0)?;
    let aspect = match params.get("aspect") {
        Some(text) => Some(parse_aspect(text).ok_or_else(|| {
            rejected(format!("params.aspect must be W:H (like 4:5 or 1:1) between 1:10 and 10:1, not {text:?}"))
        })?),
        None => None,
    };
    Ok(PackshotOptions { colour: bg_colour.or(ground_colour), wants_image, margin, shadow, aspect })
}

/// Cut the piece from its ground, crop to it and centre it with margins on a clean ground (a
/// colour or the `background` image) over a soft elliptical contact shadow.
pub(crate) fn packshot(
    src: &Frame,
    background: Option<&Frame>,
    params: &Params<'_>,
    long_edge: u32,
) -> Result<RgbImage> {
    let options = packshot_options(params, background.is_some())?;
    let ground = match (background, options.colour) {
        (Some(b), None) => Ground::Image(&b.rgb),
        (Some(b), Some(_)) if options.wants_image => Ground::Image(&b.rgb),
        (_, colour) => Ground::Colour(colour.unwrap_or(DEFAULT_GROUND)),
    };
    let (margin, opacity) = (options.margin, options.shadow);

    let img = &src.rgb;
    let subject = Subject::cut(img, src.alpha.as_ref())?;
    let b = subject.bbox.unwrap_or([0.0, 0.0, 1.0, 1.0]);
    let (w, h) = (img.width() as f32, img.height() as f32);
    let pad = 0.01 * w.max(h);
    let x0 = (b[0] * w - pad).max(0.0);
    let y0 = (b[1] * h - pad).max(0.0);
    let x1 = (b[2] * w + pad).min(w);
    let y1 = (b[3] * h + pad).min(h);
    let region = Region { left: x0.into(), top: y0.into(), width: (x1 - x0).into(), height: (y1 - y0).into() }
        .within(img.width(), img.height());

    let (cw, ch) = match options.aspect {
        Some(r) => ops::aspect_size(r, long_edge),
        None => ops::fit_long_edge(img.width(), img.height(), long_edge),
    };
    let m = margin * cw.min(ch) as f32;
    let shadow_room = 0.03 * ch as f32;
    let avail_w = (cw as f32 - 2.0 * m).max(8.0);
    let avail_h = (ch as f32 - 2.0 * m - shadow_room).max(8.0);
    let scale = (avail_w / (x1 - x0)).min(avail_h / (y1 - y0));
    let pw = ((x1 - x0) * scale).round().clamp(1.0, cw as f32) as u32;
    let ph = ((y1 - y0) * scale).round().clamp(1.0, ch as f32) as u32;
    let px0 = (cw - pw) / 2;
    let py0 = ((ch as f32 - ph as f32 - shadow_room) / 2.0).round().max(0.0) as u32;

    let piece = ops::resize_rgb_region(img, region, pw, ph)?;
    let norm = region.normalized(img.width(), img.height());
    let alpha = subject.alpha_for(norm, &piece);

    let mut canvas = match ground {
        Ground::Colour(c) => RgbImage::from_pixel(cw, ch, Rgb(c)),
        Ground::Image(bg) => ops::resize_rgb_cover(bg, cw, ch)?,
    };

    // Contact shadow: a hard ellipse under the piece, blurred at quarter size.
    let q = ops::SHADOW_SCALE as f32;
    let centre = ((px0 as f32 + pw as f32 / 2.0) / q, (py0 as f32 + ph as f32 * 0.995) / q);
    let radii = ((0.42 * pw as f32 / q).max(2.0), (0.035 * ph as f32 / q).max(1.5));
    ops::contact_shadow(&mut canvas, centre, radii, opacity);

    // The piece; its soft edge takes the piece's own colour, never the old ground's.
    let (nw, nh) = (norm[2] - norm[0], norm[3] - norm[1]);
    for (i, (x, y, p)) in piece.enumerate_pixels().enumerate() {
        let a = alpha[i];
        if a <= 0.0 {
            continue;
        }
        let target = canvas.get_pixel_mut(px0 + x, py0 + y);
        if a >= 1.0 {
            *target = *p;
            continue;
        }
        let uv = (norm[0] + (x as f32 + 0.5) / pw as f32 * nw, norm[1] + (y as f32 + 0.5) / ph as f32 * nh);
        let f = subject.edge_foreground(&piece, &alpha, x, y, uv);
        target.0 = [0, 1, 2].map(|k| ops::to_u8(ops::lerp(f32::from(target.0[k]), f[k], a)));
    }
    Ok(canvas)
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

    fn mean_rgb(img: &RgbImage, x0: u32, y0: u32, x1: u32, y1: u32) -> [f32; 3] {
        let mut s = [0.0f32; 3];
        let mut n = 0.0;
        for y in y0..y1 {
            for x in x0..x1 {
                for (acc, v) in s.iter_mut().zip(img.get_pixel(x, y).0) {
                    *acc += f32::from(v);
                }
                n += 1.0;
            }
        }
        s.map(|v| v / n)
    }

    #[test]
    fn aspects_parse() {
        assert_eq!(parse_aspect("1:1"), Some(1.0));
        assert_eq!(parse_aspect("16:9"), Some(16.0 / 9.0));
        assert_eq!(parse_aspect("4x5"), Some(0.8));
        assert_eq!(parse_aspect("1.5"), Some(1.5));
        assert_eq!(parse_aspect("0:1"), None);
        assert_eq!(parse_aspect("wide"), None);
        assert_eq!(parse_aspect("100:1"), None);
    }

    #[test]
    fn reframe_crops_around_the_subject() {
        // The garment sits off-centre (right); a 1:1 crop of a 4:3 frame must keep it inside.
        let img = RgbImage::from_fn(200, 150, |x, y| {
            if (140..180).contains(&x) && (40..110).contains(&y) { Rgb([30, 60, 160]) } else { Rgb([235, 235, 233]) }
        });
        let map = params(&[("aspect", "1:1")]);
        let out = reframe(&frame(img), &Params(&map), 1024).expect("reframe");
        assert_eq!(out.dimensions(), (1024, 1024));
        // The whole garment is inside: the blue area is about 40 × 70 source px at 1024/150 scale.
        let blue = out.pixels().filter(|p| p.0[2] > 120 && p.0[0] < 80).count() as f32;
        let expected = 40.0 * 70.0 * (1024.0f32 / 150.0).powi(2);
        assert!((blue / expected - 1.0).abs() < 0.05, "blue {blue} vs {expected}");
        // And it does not touch the frame's sides.
        for y in 0..1024 {
            assert!(out.get_pixel(0, y).0[0] > 200, "left edge is ground");
            assert!(out.get_pixel(1023, y).0[0] > 200, "right edge is ground");
        }
    }

    #[test]
    fn reframe_extends_with_the_ground() {
        let img = garment_on_ground();
        let map = params(&[("aspect", "16:9")]);
        let out = reframe(&frame(img), &Params(&map), 1024).expect("reframe");
        assert_eq!(out.dimensions(), (1024, 576));
        // The extended bands (the source is 768 px wide once scaled to 576 high) are ground.
        let left = mean_rgb(&out, 0, 100, 60, 476);
        let right = mean_rgb(&out, 964, 100, 1024, 476);
        for c in [left, right] {
            assert!(c.iter().all(|v| (v - 233.0).abs() < 8.0), "extension {c:?}");
        }
        // The garment stays in the middle.
        let centre = out.get_pixel(512, 288).0;
        assert!(centre[0] > 130 && centre[1] < 110, "centre {centre:?}");
    }

    #[test]
    fn reframe_to_explicit_pixels_and_refuses_bad_aspects() {
        let img = garment_on_ground();
        let map = params(&[("width", "300"), ("height", "500")]);
        let out = reframe(&frame(img.clone()), &Params(&map), 1024).expect("reframe");
        assert_eq!(out.dimensions(), (300, 500));
        for bad in
            [params(&[("aspect", "square")]), params(&[("aspect", "4:0")]), params(&[]), params(&[("width", "300")])]
        {
            let err = reframe(&frame(img.clone()), &Params(&bad), 1024).expect_err("refused");
            assert!(matches!(err, crate::providers::ProviderError::Rejected(_)));
        }
        let forced = params(&[("aspect", "1:1"), ("mode", "sideways")]);
        assert!(reframe(&frame(img), &Params(&forced), 1024).is_err());
    }

    #[test]
    fn packshot_sets_the_piece_on_a_clean_ground_with_a_shadow() {
        let img = garment_on_ground();
        let map = params(&[("ground", "#E0E8F0")]);
        let out = packshot(&frame(img), None, &Params(&map), 1024).expect("packshot");
        assert_eq!(out.dimensions(), (1024, 768));
        // Ground near the requested colour, in the corners.
        for c in [mean_rgb(&out, 0, 0, 40, 40), mean_rgb(&out, 984, 728, 1024, 768)] {
            assert!((c[0] - 224.0).abs() < 3.0 && (c[1] - 232.0).abs() < 3.0 && (c[2] - 240.0).abs() < 3.0, "{c:?}");
        }
        // The red piece fills the middle.
        let mid = out.get_pixel(512, 360).0;
        assert!(mid[0] > 130 && mid[1] < 100, "centre {mid:?}");
        // Find the piece's bottom on the centre column, then the shadow just below it.
        let bottom = (0..768).rev().find(|y| out.get_pixel(512, *y).0[0] > 150 && out.get_pixel(512, *y).0[1] < 120);
        let bottom = bottom.expect("piece bottom");
        let below = mean_rgb(&out, 480, bottom + 3, 544, (bottom + 10).min(767));
        let far = mean_rgb(&out, 40, bottom + 3, 104, (bottom + 10).min(767));
        assert!(below[2] < far[2] - 8.0, "shadow {below:?} vs ground {far:?}");
    }

    #[test]
    fn packshot_uses_a_background_image() {
        let img = garment_on_ground();
        let bg = Frame { rgb: RgbImage::from_pixel(64, 64, Rgb([20, 120, 40])), alpha: None };
        let map = params(&[("bg", "image")]);
        let out = packshot(&frame(img.clone()), Some(&bg), &Params(&map), 1024).expect("packshot");
        let corner = mean_rgb(&out, 0, 0, 30, 30);
        assert!((corner[1] - 120.0).abs() < 4.0 && corner[0] < 30.0, "{corner:?}");
        let plain = RgbImage::from_pixel(100, 80, Rgb([200, 200, 200]));
        assert!(packshot(&frame(plain), None, &Params(&params(&[])), 1024).is_err(), "no piece");
        assert!(packshot(&frame(img), None, &Params(&map), 1024).is_err(), "bg=image without a background");
    }

    /// A piece that runs off the frame's right edge and its bottom: the crop box ends at the
    /// frame's edge, never past it, whatever the size (issue 40: "Size of the crop box is out
    /// of the image boundaries").
    #[test]
    fn packshot_of_a_piece_touching_the_border() {
        for (w, h) in [(200, 150), (201, 149), (333, 250), (640, 427), (997, 751)] {
            let img = RgbImage::from_fn(w, h, |x, y| {
                let n = ops::noise(x, y, 7) * 3.0;
                if x >= w * 7 / 10 && y >= h * 2 / 5 {
                    let shade = 20.0 * ((x as f32 * 0.3).sin() * (y as f32 * 0.2).cos());
                    Rgb([ops::to_u8(180.0 + shade + n), ops::to_u8(40.0 + shade * 0.3 + n), ops::to_u8(50.0 + n)])
                } else {
                    let g = 236.0 - y as f32 * 0.08 + n;
                    Rgb([ops::to_u8(g), ops::to_u8(g), ops::to_u8(g - 2.0)])
                }
            });
            let map = params(&[]);
            let out = packshot(&frame(img), None, &Params(&map), 1024).unwrap_or_else(|e| panic!("{w}x{h}: {e}"));
            assert_eq!(out.dimensions(), ops::fit_long_edge(w, h, 1024), "{w}x{h}");
        }
    }

    /// The box the packshot computed before the fix for a piece running to the right edge of a
    /// 1000 px frame: its right edge lands past the frame in `f64` and the resizer refused it.
    #[test]
    fn a_crop_box_past_the_edge_is_clamped() {
        let img = RgbImage::from_fn(1000, 40, |x, _| Rgb([(x % 256) as u8, 90, 200]));
        let (x0, x1) = (0.1f32, 1000.0f32);
        let region = Region { left: x0.into(), top: 0.0, width: (x1 - x0).into(), height: 40.0 };
        assert!(region.left + region.width > 1000.0, "the case of the bug");
        let out = ops::resize_rgb_region(&img, region, 250, 10).expect("clamped, not refused");
        assert_eq!(out.dimensions(), (250, 10));
        let inside = Region { left: 10.5, top: 2.0, width: 500.25, height: 30.0 };
        assert_eq!(inside.within(1000, 40), inside, "a box inside is unchanged");
        let clamped = region.within(1000, 40);
        assert!(clamped.left + clamped.width <= 1000.0 && clamped.left == region.left);
    }
}
