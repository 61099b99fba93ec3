//! The compositor's tests: settings, placement by role, framing by variation, grades, and
//! whole develops through the provider.

use std::io::Cursor;

use bytes::Bytes;
use image::{Rgb, RgbImage};

use super::super::Params;
use super::super::ops::{self, Result};
use super::develop;
use super::layout::{FLOOR, Layout};
use super::settings::{Aesthetic, Variation};
use crate::api::Quality;
use crate::api::vocabulary::{AESTHETICS, GROUNDS, VARIATIONS};
use crate::providers::local::LocalProvider;
use crate::providers::{DevelopInput, DevelopOutput, DevelopRequest, ProviderError};

/// A 160 × 400 studio shot: a light grey sweep with a standing figure (skin tones, dark hair
/// on the left of the head, a dark band on the left wrist), head at the top, feet at y 384.
pub(crate) fn model_on_ground() -> RgbImage {
    RgbImage::from_fn(160, 400, |x, y| {
        let n = ops::noise(x, y, 5) * 3.0;
        let (xf, yf) = (x as f32, y as f32);
        let head = (xf - 80.0).powi(2) + (yf - 48.0).powi(2) <= 22.0f32.powi(2);
        let hair = head && x < 80 && y < 50;
        let neck = (72..88).contains(&x) && (68..82).contains(&y);
        let torso = (50..110).contains(&x) && (80..200).contains(&y);
        let arms = ((36..50).contains(&x) || (110..124).contains(&x)) && (84..210).contains(&y);
        let band = (36..50).contains(&x) && (190..200).contains(&y);
        let legs = ((54..78).contains(&x) || (82..106).contains(&x)) && (200..372).contains(&y);
        let feet = ((50..78).contains(&x) || (82..110).contains(&x)) && (372..384).contains(&y);
        if hair || band {
            Rgb([ops::to_u8(60.0 + n), ops::to_u8(40.0 + n), ops::to_u8(30.0 + n)])
        } else if head || neck || torso || arms || legs || feet {
            let shade = 14.0 * (xf * 0.15).sin();
            Rgb([ops::to_u8(196.0 + shade + n), ops::to_u8(150.0 + shade + n), ops::to_u8(128.0 + shade + n)])
        } else {
            let g = 236.0 - yf * 0.03 + n;
            Rgb([ops::to_u8(g), ops::to_u8(g), ops::to_u8(g - 2.0)])
        }
    })
}

/// The subject tests' garment shape (x 70..130, y 35..120 of 200 × 150) in another colour.
fn garment_in(colour: [f32; 3]) -> RgbImage {
    RgbImage::from_fn(200, 150, |x, y| {
        let n = ops::noise(x, y, 7) * 3.0;
        if (70..130).contains(&x) && (35..120).contains(&y) {
            let shade = 12.0 * ((x as f32 * 0.3).sin() * (y as f32 * 0.2).cos());
            Rgb(colour.map(|c| ops::to_u8(c + shade + n)))
        } else {
            let g = 236.0 - y as f32 * 0.08 + n;
            Rgb([ops::to_u8(g), ops::to_u8(g), ops::to_u8(g - 2.0)])
        }
    })
}

const RED: [f32; 3] = [185.0, 35.0, 45.0];
const BLUE: [f32; 3] = [35.0, 60.0, 185.0];

fn png(img: &RgbImage) -> Bytes {
    let mut out = Vec::new();
    img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
    Bytes::from(out)
}

fn request(quality: Quality, inputs: Vec<(&str, Bytes)>, params: &[(&str, &str)]) -> DevelopRequest {
    DevelopRequest {
        job_id: "job_look".into(),
        tool: "lookbook".into(),
        quality,
        inputs: inputs
            .into_iter()
            .map(|(role, bytes)| DevelopInput { role: role.into(), bytes, mime: "image/png".into() })
            .collect(),
        params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    }
}

/// A model and one garment of `colour`.
fn look(colour: [f32; 3]) -> Vec<(&'static str, Bytes)> {
    vec![("model", png(&model_on_ground())), ("garment", png(&garment_in(colour)))]
}

fn run(quality: Quality, inputs: Vec<(&str, Bytes)>, params: &[(&str, &str)]) -> (RgbImage, Layout) {
    let req = request(quality, inputs, params);
    develop(&req, &Params(&req.params), quality.long_edge()).expect("lookbook")
}

fn mean(img: &RgbImage, r: [u32; 4]) -> [f32; 3] {
    let mut s = [0.0f32; 3];
    let mut n = 0.0;
    for y in r[1]..r[3] {
        for x in r[0]..r[2] {
            for (acc, v) in s.iter_mut().zip(img.get_pixel(x, y).0) {
                *acc += f32::from(v);
            }
            n += 1.0;
        }
    }
    s.map(|v| v / n)
}

/// Mean absolute difference per channel over a rectangle of two same-size frames.
fn diff(a: &RgbImage, b: &RgbImage, r: [u32; 4]) -> f32 {
    let mut s = 0.0f64;
    let mut n = 0.0f64;
    for y in r[1]..r[3] {
        for x in r[0]..r[2] {
            for (p, q) in a.get_pixel(x, y).0.iter().zip(b.get_pixel(x, y).0) {
                s += f64::from(p.abs_diff(q));
                n += 1.0;
            }
        }
    }
    (s / n) as f32
}

/// The middle of a frame rectangle, `keep` of it each way, in whole pixels.
fn inner(r: [f32; 4], keep: f32) -> [u32; 4] {
    let (cx, cy, hw, hh) =
        (0.5 * (r[0] + r[2]), 0.5 * (r[1] + r[3]), 0.5 * keep * (r[2] - r[0]), 0.5 * keep * (r[3] - r[1]));
    [(cx - hw).round() as u32, (cy - hh).round() as u32, (cx + hw).round() as u32, (cy + hh).round() as u32]
}

fn corners(w: u32, h: u32) -> [[u32; 4]; 4] {
    let s = 24;
    [[0, 0, s, s], [w - s, 0, w, s], [0, h - s, s, h], [w - s, h - s, w, h]]
}

fn rejection(result: Result<DevelopOutput>) -> String {
    match result {
        Err(ProviderError::Rejected(m)) => m,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn every_vocabulary_key_is_understood() {
    for (key, ..) in VARIATIONS {
        assert!(Variation::parse(key).is_some(), "{key}");
    }
    for (key, _) in AESTHETICS {
        assert!(Aesthetic::parse(key).is_some(), "{key}");
    }
    for (key, _, tone, _) in GROUNDS {
        assert!(ops::parse_color(tone).is_some(), "{key}");
    }
}

#[test]
fn the_frame_takes_the_tier_and_the_aspect() {
    for quality in [Quality::K1, Quality::K2] {
        for (aspect, ratio) in [("4:5", 0.8), ("9:16", 9.0 / 16.0), ("16:9", 16.0 / 9.0), ("2:3", 2.0 / 3.0)] {
            let (img, layout) = run(quality, look(RED), &[("itemRoles", "top"), ("aspect", aspect)]);
            let (w, h) = img.dimensions();
            assert_eq!(layout.size, (w, h));
            assert_eq!(w.max(h), quality.long_edge(), "{aspect} at {quality:?}");
            let off =
                if ratio >= 1.0 { f64::from(h) - f64::from(w) / ratio } else { f64::from(w) - f64::from(h) * ratio };
            assert!(off.abs() <= 1.0, "{aspect} at {quality:?}: {w} × {h}");
        }
    }
    // The destinations' own pixels name the aspect too; the frame is never resampled to them.
    let (img, _) = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("aspect", "1200:1500")]);
    assert_eq!(img.dimensions(), (819, 1024));
    let (img, _) = run(Quality::K1, look(RED), &[("itemRoles", "top")]);
    assert_eq!(img.dimensions(), (819, 1024), "4:5 by default");
}

#[test]
fn the_ground_changes_the_border_not_the_figure() {
    let white = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("ground", "white")]);
    let charcoal = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("ground", "charcoal")]);
    let (w, h) = white.0.dimensions();
    for c in corners(w, h) {
        let (a, b) = (mean(&white.0, c), mean(&charcoal.0, c));
        assert!(a.iter().all(|v| (v - 255.0).abs() < 1.0), "white corner {a:?}");
        assert!(b.iter().all(|v| (v - 51.0).abs() < 1.0), "charcoal corner {b:?}");
    }
    // The torso (the garment on it) is the same on either ground.
    let garment = inner(white.1.garment_on_frame(0), 0.6);
    assert!(diff(&white.0, &charcoal.0, garment) < 1.0, "the figure keeps its pixels");
    // The model's legs, below the garment, too.
    let (lx, ly) = white.1.view.forward(0.35, 0.8);
    let legs = [lx as u32 - 4, ly as u32 - 8, lx as u32 + 4, ly as u32 + 8];
    assert!(diff(&white.0, &charcoal.0, legs) < 2.0, "legs {legs:?}");
    let skin = mean(&white.0, legs);
    assert!(skin[0] > 150.0 && skin[0] > skin[2] + 30.0, "skin on the legs {skin:?}");

    // A background photo replaces the preset: green at the corners, the figure untouched.
    let bg = RgbImage::from_fn(300, 200, |x, _| Rgb([20, 100 + (x / 6) as u8, 60]));
    let mut inputs = look(RED);
    inputs.push(("background", png(&bg)));
    let photo = run(Quality::K1, inputs, &[("itemRoles", "top"), ("ground", "charcoal")]);
    for c in corners(w, h) {
        let m = mean(&photo.0, c);
        assert!(m[1] > m[0] + 60.0 && m[1] > m[2] + 40.0, "the photo shows in the corner {m:?}");
    }
    assert!(diff(&white.0, &photo.0, garment) < 1.0, "the figure keeps its pixels on a photo");
}

#[test]
fn a_garment_shapes_its_placed_box() {
    let red = run(Quality::K1, look(RED), &[("itemRoles", "top")]);
    let blue = run(Quality::K1, look(BLUE), &[("itemRoles", "top")]);
    let placed = red.1.garment_on_frame(0);
    assert_eq!(placed, blue.1.garment_on_frame(0));
    // A top sits on the upper torso: between the figure's shoulders and its hips.
    let (_, shoulders) = red.1.view.forward(0.5, 0.12);
    let (_, hips) = red.1.view.forward(0.5, 0.55);
    assert!(placed[1] > shoulders && placed[3] < hips, "top at {placed:?}, figure {shoulders}..{hips}");
    let r = inner(placed, 0.6);
    let (a, b) = (mean(&red.0, r), mean(&blue.0, r));
    assert!(a[0] > 150.0 && a[0] > a[2] + 100.0, "red garment {a:?}");
    assert!(b[2] > 150.0 && b[2] > b[0] + 100.0, "blue garment {b:?}");
    assert!(diff(&red.0, &blue.0, r) > 80.0);
    // Elsewhere nothing moves: the corners and the legs below the box.
    let (w, h) = red.0.dimensions();
    for c in corners(w, h) {
        assert!(diff(&red.0, &blue.0, c) < 0.5, "corner {c:?}");
    }
    let (lx, ly) = red.1.view.forward(0.35, 0.8);
    assert!(diff(&red.0, &blue.0, [lx as u32 - 4, ly as u32 - 8, lx as u32 + 4, ly as u32 + 8]) < 0.5);
}

#[test]
fn the_role_places_the_piece() {
    // All eight roles in one look, each piece its own colour, given in reverse layering order.
    let roles = ["jewelry", "accessory", "bag", "shoes", "outerwear", "top", "bottom", "dress"];
    let colours: [[f32; 3]; 8] = [
        [220.0, 190.0, 40.0],
        [40.0, 150.0, 60.0],
        [120.0, 40.0, 150.0],
        [50.0, 50.0, 55.0],
        RED,
        BLUE,
        [20.0, 130.0, 130.0],
        [230.0, 120.0, 30.0],
    ];
    let mut inputs = vec![("model", png(&model_on_ground()))];
    inputs.extend(colours.iter().map(|c| ("garment", png(&garment_in(*c)))));
    let (img, layout) = run(Quality::K1, inputs, &[("itemRoles", &roles.join(","))]);
    assert_eq!(layout.garments.iter().map(|g| g.0).collect::<Vec<_>>(), [7, 6, 5, 4, 3, 2, 1, 0]);
    let at = |role: &str| layout.garment_on_frame(roles.iter().position(|r| *r == role).expect("role"));

    // Where each role goes on the figure.
    let (_, neck) = layout.view.forward(0.5, 0.17);
    let (_, feet) = layout.view.forward(0.5, 1.0);
    let (centre, _) = layout.view.forward(0.5, 0.5);
    let mid_y = |b: [f32; 4]| 0.5 * (b[1] + b[3]);
    let width = |b: [f32; 4]| b[2] - b[0];
    assert!((at("jewelry")[1]..at("jewelry")[3]).contains(&neck), "jewelry at the neck");
    assert!(width(at("jewelry")) < 0.5 * width(at("top")) && width(at("accessory")) < 0.5 * width(at("top")));
    assert!(at("accessory")[2] < centre && at("bag")[0] > centre, "accessory at a wrist, bag at the side");
    assert!((mid_y(at("bag")) - mid_y(at("accessory"))).abs() < 0.1 * feet, "both at hand height");
    assert!((at("shoes")[3] - feet).abs() < 2.0 && at("shoes")[1] > at("top")[3], "shoes at the feet");
    assert!(at("bottom")[1] > mid_y(at("top")) && at("bottom")[3] > at("dress")[3], "a bottom on the lower half");
    assert!(at("dress")[3] > at("top")[3] && at("dress")[1] <= at("top")[1] + 1.0, "a dress spans");
    assert!(width(at("outerwear")) > width(at("top")) && at("outerwear")[3] > at("top")[3], "outerwear over the top");

    // Every piece no later layer covers shows its own colour in its box.
    for (i, role) in roles.iter().enumerate() {
        let rank = layout.garments.iter().position(|g| g.0 == i).expect("placed");
        let core = inner(at(role), 0.5);
        let covered = layout.garments[rank + 1..].iter().any(|g| {
            let b = layout.on_frame(g.1);
            b[0] < core[2] as f32 && b[2] > core[0] as f32 && b[1] < core[3] as f32 && b[3] > core[1] as f32
        });
        if covered {
            continue;
        }
        let m = mean(&img, core);
        let d = (0..3).map(|k| (m[k] - colours[i][k]).abs()).fold(0.0f32, f32::max);
        assert!(d < 30.0, "{role}: its own colour {m:?} vs {:?}", colours[i]);
    }
}

#[test]
fn pieces_layer_in_role_order() {
    // A red outerwear given first and a blue top second: the coat still lies over the top.
    let inputs = vec![
        ("model", png(&model_on_ground())),
        ("garment", png(&garment_in(RED))),
        ("garment", png(&garment_in(BLUE))),
    ];
    let (img, layout) = run(Quality::K1, inputs, &[("itemRoles", "outerwear, top")]);
    assert_eq!(layout.garments.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 0], "top, then outerwear");
    let both = inner(layout.garment_on_frame(1), 0.5);
    let m = mean(&img, both);
    assert!(m[0] > m[2] + 80.0, "the outerwear covers the top {m:?}");
}

#[test]
fn the_variation_reframes_the_figure() {
    let params = |v: &'static str| [("itemRoles", "top"), ("variation", v)];
    let front = run(Quality::K1, look(RED), &params("full-front"));
    let (w, h) = front.0.dimensions();
    let figure = front.1.on_frame([0.0, 0.0, 1.0, 1.0]);
    let figure_px =
        [figure[0].max(0.0) as u32, figure[1].max(0.0) as u32, (figure[2] as u32).min(w), (figure[3] as u32).min(h)];
    // The full figure stands inside the frame, feet on the floor.
    assert!(figure[1] > 0.0 && figure[3] <= FLOOR * h as f32 + 1.0 && figure[3] > 0.9 * h as f32, "{figure:?}");

    // Back: mirrored and darker, over the figure; the ground's corners are unchanged.
    let back = run(Quality::K1, look(RED), &params("back"));
    assert!(diff(&front.0, &back.0, figure_px) > 8.0, "back differs over the figure");
    let torso = inner(front.1.garment_on_frame(0), 0.6);
    let (f, b) = (mean(&front.0, torso), mean(&back.0, torso));
    assert!(b[0] < f[0] - 25.0, "the back is darker {f:?} vs {b:?}");
    for c in corners(w, h) {
        assert!(diff(&front.0, &back.0, c) < 0.5, "corner {c:?}");
    }
    // The hair on the figure's left moves to the right of the frame.
    let (hx, hy) = front.1.view.forward(0.38, 0.06);
    let (mx, my) = back.1.view.forward(0.38, 0.06);
    assert!(mx > hx + 20.0 && (my - hy).abs() < 1.0);
    let hair = |img: &RgbImage, x: f32, y: f32| mean(img, [x as u32 - 3, y as u32 - 3, x as u32 + 3, y as u32 + 3]);
    assert!(hair(&front.0, hx, hy)[0] < 90.0 && hair(&back.0, mx, my)[0] < 90.0, "hair follows the mirror");

    // Three-quarter: larger, cut at the bottom of the frame, so the legs reach the edge.
    let three = run(Quality::K1, look(RED), &params("three-quarter"));
    assert!(three.1.view.sy > 1.3 * front.1.view.sy);
    let bottom_row = |img: &RgbImage| mean(img, [w / 2 - 40, h - 3, w / 2 + 40, h]);
    assert!(bottom_row(&front.0)[1] > 245.0, "full figure: white ground below the feet");
    assert!(bottom_row(&three.0)[1] < 200.0, "three-quarter: the figure runs out of the frame");

    // Seated: the same figure's head drops as its legs fold.
    let seated = run(Quality::K1, look(RED), &params("seated"));
    let head = |l: &Layout| l.view.forward(0.5, 0.0).1;
    let feet = |l: &Layout| l.view.forward(0.5, 1.0).1;
    let height = |l: &Layout| feet(l) - head(l);
    assert!(height(&seated.1) / seated.1.view.sy < 0.8, "legs folded");
    assert!(diff(&front.0, &seated.0, figure_px) > 8.0, "seated differs over the figure");

    // Walking: sheared and off-centre; the frame differs over the figure.
    let walking = run(Quality::K1, look(RED), &params("walking"));
    let (top_x, _) = walking.1.view.forward(0.5, 0.0);
    let (foot_x, _) = walking.1.view.forward(0.5, 1.0);
    assert!(top_x - foot_x > 0.05 * walking.1.view.sy, "leaning");
    assert!(diff(&front.0, &walking.0, figure_px) > 8.0, "walking differs over the figure");

    // Detail: a close crop on the piece, which now fills the middle of the frame.
    let detail = run(Quality::K1, look(RED), &params("detail"));
    let centre = mean(&detail.0, [w / 2 - 60, h / 2 - 60, w / 2 + 60, h / 2 + 60]);
    assert!(centre[0] > 150.0 && centre[0] > centre[2] + 100.0, "the garment fills the middle {centre:?}");
    let piece = detail.1.garment_on_frame(0);
    assert!(piece[2] - piece[0] > 0.6 * w as f32, "close: {piece:?}");

    let frames = [&front.0, &back.0, &three.0, &seated.0, &walking.0, &detail.0];
    for (i, a) in frames.iter().enumerate() {
        for b in &frames[i + 1..] {
            assert!(a.as_raw() != b.as_raw(), "every variation gives its own frame");
        }
    }
}

#[test]
fn the_aesthetic_grades_the_frame() {
    let minimal = run(Quality::K1, look(RED), &[("itemRoles", "top")]);
    let noir = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("aesthetic", "noir")]);
    let r = inner(minimal.1.garment_on_frame(0), 0.6);
    let m = mean(&noir.0, r);
    assert!((m[0] - m[1]).abs() < 4.0 && (m[1] - m[2]).abs() < 4.0, "noir is monochrome {m:?}");
    let romantic = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("aesthetic", "romantic"), ("ground", "black")]);
    let (w, _) = romantic.0.dimensions();
    let corner = mean(&romantic.0, [w / 2 - 20, 0, w / 2 + 20, 20]);
    assert!(corner.iter().all(|c| *c > 8.0), "romantic lifts the blacks {corner:?}");
    assert!(corner[0] > corner[2] + 4.0, "and warms them {corner:?}");
    for a in ["editorial", "classic", "street"] {
        let graded = run(Quality::K1, look(RED), &[("itemRoles", "top"), ("aesthetic", a)]);
        assert!(diff(&minimal.0, &graded.0, r) > 2.0, "{a} grades the frame");
    }
}

#[test]
fn the_same_request_gives_the_same_bytes() {
    let params = [("itemRoles", "top,shoes"), ("variation", "walking"), ("aesthetic", "editorial")];
    let mut inputs = look(RED);
    inputs.push(("garment", png(&garment_in(BLUE))));
    let req = request(Quality::K1, inputs, &params);
    let a = LocalProvider.develop_blocking(&req).expect("lookbook");
    let b = LocalProvider.develop_blocking(&req).expect("lookbook");
    assert_eq!(a.bytes, b.bytes);
    assert_eq!((a.mime.as_str(), a.width, a.height), ("image/jpeg", 819, 1024));
    let img = image::load_from_memory(&a.bytes).expect("jpeg").into_rgb8();
    assert_eq!(img.dimensions(), (819, 1024));
}

#[test]
fn restore_edge_sets_the_long_edge() {
    let req = request(Quality::K1, look(RED), &[("itemRoles", "top"), ("restoreEdge", "1500")]);
    let out = LocalProvider.develop_blocking(&req).expect("restored");
    assert_eq!((out.width, out.height), (1200, 1500));
    let req = request(Quality::K1, look(RED), &[("itemRoles", "top"), ("aspect", "16:9"), ("restoreEdge", "2000")]);
    let out = LocalProvider.develop_blocking(&req).expect("restored");
    assert_eq!((out.width, out.height), (2000, 1125));
}

#[test]
fn bad_requests_are_rejected_by_name() {
    let p = LocalProvider;
    let model = || ("model", png(&model_on_ground()));
    let garment = || ("garment", png(&garment_in(RED)));
    let top = [("itemRoles", "top")];
    type Case<'a> = (Vec<(&'a str, Bytes)>, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (vec![garment()], top.to_vec(), "model"),
        (vec![model(), model(), garment()], top.to_vec(), "model"),
        (vec![model()], top.to_vec(), "garment"),
        (vec![model(), garment()], vec![], "itemRoles"),
        (vec![model(), garment()], vec![("itemRoles", "top,shoes")], "itemRoles"),
        (vec![model(), garment()], vec![("itemRoles", "hat")], "\"hat\""),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("ground", "sand")], "ground"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("variation", "sideways")], "variation"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("aesthetic", "grunge")], "aesthetic"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("aspect", "tall")], "aspect"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("aspect", "1:20")], "aspect"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("restoreEdge", "big")], "restoreEdge"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("restoreEdge", "1024")], "restoreEdge"),
        (vec![model(), garment()], vec![("itemRoles", "top"), ("restoreEdge", "9000")], "restoreEdge"),
        (vec![model(), ("garment", Bytes::from_static(b"not an image"))], top.to_vec(), "garment 1"),
    ];
    for (inputs, params, needle) in cases {
        let message = rejection(p.develop_blocking(&request(Quality::K1, inputs, &params)));
        assert!(message.contains(needle), "{needle}: {message}");
    }
    let nine: Vec<(&str, Bytes)> = std::iter::once(model()).chain((0..9).map(|_| garment())).collect();
    let roles = ["top"; 9].join(",");
    let message = rejection(p.develop_blocking(&request(Quality::K1, nine, &[("itemRoles", roles.as_str())])));
    assert!(message.contains("at most 8 garment"), "{message}");
    let message = rejection(p.develop_blocking(&request(
        Quality::K1,
        vec![model(), garment(), ("background", png(&model_on_ground())), ("background", png(&model_on_ground()))],
        &top,
    )));
    assert!(message.contains("background"), "{message}");
    // The unknown-value refusals list the legal ones.
    let message = rejection(p.develop_blocking(&request(
        Quality::K1,
        vec![model(), garment()],
        &[("itemRoles", "top"), ("ground", "sand")],
    )));
    assert!(message.contains("white, bone, dove, charcoal, black"), "{message}");
}
