//! The lookbook tool: a deterministic compositor that builds one look frame from a model photo,
//! the look's garments and a ground. It is not a generative model and does not pretend to be:
//! every input is cut from its own ground with the packshot's segmentation ([`Subject`]) and laid
//! out by simple, documented geometry, so each input visibly shapes the frame.
//!
//! The frame is `params.aspect` at the tier's long edge. Its layers, bottom to top: the ground (a
//! preset colour or the `background` photo cover-cropped), a soft contact shadow under the feet,
//! the model's cut-out, then each garment placed by its role on the figure's box (layered in
//! [`ITEM_ROLES`] order). The variation moves the whole figure through one mapping (scale, crop,
//! mirror, shear, leg compression); the aesthetic grades the finished frame; `restoreEdge`
//! upscales it last. `docs/providers.md` describes each step and parameter.

use image::{Rgb, RgbImage, RgbaImage};

use super::frame::{self, parse_aspect};
use super::ops::{self, Region, Result, rejected};
use super::subject::{CutError, Subject};
use super::{Frame, Params, decode};
use crate::api::vocabulary::{AESTHETICS, GROUNDS, ITEM_ROLES, MAX_ITEMS_PER_LOOK, VARIATIONS};
use crate::providers::{DevelopInput, DevelopRequest};

/// The largest long edge a restoration pass may reach.
pub(crate) const MAX_RESTORE_EDGE: u32 = 8192;
/// The composition's aspect (width / height) when `params.aspect` is absent: 4:5.
const DEFAULT_ASPECT: f64 = 4.0 / 5.0;
/// Where the feet stand, as a share of the frame's height from the top.
const FLOOR: f32 = 0.94;
/// How much of the frame's height a full figure fills.
const FILL: f32 = 0.86;
/// How much of the frame's width a figure may fill.
const MAX_WIDTH: f32 = 0.9;
/// The hips, in figure coordinates: where a seated figure's legs fold.
const HIPS: f32 = 0.5;
/// Mid-thigh: where a three-quarter frame ends and a walking stride opens.
const MID_THIGH: f32 = 0.62;

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
    fn parse(key: &str) -> Option<Variation> {
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
    fn parse(key: &str) -> Option<Aesthetic> {
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
    fn grade(self) -> Option<Grade> {
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
fn one_of<T>(
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

// ---------------------------------------------------------------------------------------------
// Cut-outs
// ---------------------------------------------------------------------------------------------

/// An input cut from its ground: the source, what the segmentation found and the source
/// rectangle that holds the piece.
struct Cut<'a> {
    frame: &'a Frame,
    subject: Subject,
    region: Region,
}

impl<'a> Cut<'a> {
    /// Cut the `what` input (`the model`, `garment #2`) from its ground; the subject gate refuses
    /// an implausible mask (`SUBJECT_NOT_FOUND`, the input named).
    fn new(frame: &'a Frame, what: &str) -> Result<Cut<'a>> {
        let img = &frame.rgb;
        let subject = match Subject::cut(img, frame.alpha.as_ref()) {
            Ok(s) => s,
            Err(CutError::NotFound(why)) => return Err(CutError::NotFound(format!("{what}: {why}")).into()),
            Err(e) => return Err(e.into()),
        };
        let (w, h) = (img.width() as f32, img.height() as f32);
        let b = subject.bbox.unwrap_or([0.0, 0.0, 1.0, 1.0]);
        let pad = 0.01 * w.max(h);
        let x0 = (b[0] * w - pad).max(0.0);
        let y0 = (b[1] * h - pad).max(0.0);
        let x1 = (b[2] * w + pad).min(w);
        let y1 = (b[3] * h + pad).min(h);
        let region = Region { left: x0.into(), top: y0.into(), width: (x1 - x0).into(), height: (y1 - y0).into() }
            .within(img.width(), img.height());
        Ok(Cut { frame, subject, region })
    }

    /// Width / height of the piece's rectangle.
    fn aspect(&self) -> f32 {
        (self.region.width / self.region.height) as f32
    }

    /// The part `[s0, t0, s1, t1]` (normalised to the piece's rectangle) at `w` × `h` pixels, as
    /// colour with alpha. Soft edges take the piece's own colour, never the old ground's. Larger
    /// than the source, the cut is made at the source's own size and then enlarged (colour
    /// filtered by alpha), so the edge stays as narrow as the source's and carries no ground.
    fn render(&self, part: [f32; 4], w: u32, h: u32) -> Result<RgbaImage> {
        let r = self.region;
        let sub = Region {
            left: r.left + f64::from(part[0]) * r.width,
            top: r.top + f64::from(part[1]) * r.height,
            width: f64::from(part[2] - part[0]) * r.width,
            height: f64::from(part[3] - part[1]) * r.height,
        };
        let (nw, nh) = ((sub.width.ceil() as u32).clamp(1, w), (sub.height.ceil() as u32).clamp(1, h));
        if (nw, nh) != (w, h) {
            return ops::resize_rgba(&self.cut(sub, nw, nh)?, w, h);
        }
        self.cut(sub, w, h)
    }

    /// The source rectangle `sub` at `w` × `h` (no larger than the source), as colour with alpha.
    fn cut(&self, sub: Region, w: u32, h: u32) -> Result<RgbaImage> {
        let img = &self.frame.rgb;
        let pixels = ops::resize_rgb_region(img, sub, w, h)?;
        let mut out = RgbaImage::new(w, h);
        let subject = &self.subject;
        let norm = sub.normalized(img.width(), img.height());
        let alpha = subject.alpha_for(norm, &pixels);
        let (nw, nh) = (norm[2] - norm[0], norm[3] - norm[1]);
        for (i, (x, y, p)) in pixels.enumerate_pixels().enumerate() {
            let a = alpha[i];
            let c = if a > 0.0 && a < 1.0 {
                let uv = (norm[0] + (x as f32 + 0.5) / w as f32 * nw, norm[1] + (y as f32 + 0.5) / h as f32 * nh);
                subject.edge_foreground(&pixels, &alpha, x, y, uv).map(ops::to_u8)
            } else {
                p.0
            };
            out.put_pixel(x, y, image::Rgba([c[0], c[1], c[2], ops::to_u8(a * 255.0)]));
        }
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------

/// Where a role's piece goes on the figure's box (figure coordinates: `u` across, `v` down, the
/// model's rectangle is `[0, 1]²`, head at the top, feet at the bottom), and how it sits there.
fn slot(role: &str) -> ([f32; 4], Anchor) {
    match role {
        "dress" => ([0.20, 0.16, 0.80, 0.80], Anchor::Hang),
        "bottom" => ([0.24, 0.42, 0.76, 0.96], Anchor::Hang),
        "top" => ([0.18, 0.16, 0.82, 0.50], Anchor::Hang),
        "outerwear" => ([0.12, 0.15, 0.88, 0.60], Anchor::Hang),
        "shoes" => ([0.26, 0.90, 0.74, 1.00], Anchor::Stand),
        "bag" => ([0.70, 0.42, 1.02, 0.64], Anchor::Centre),
        "accessory" => ([0.02, 0.46, 0.22, 0.58], Anchor::Centre),
        // jewelry, and anything else: small, at the neck.
        _ => ([0.41, 0.13, 0.59, 0.21], Anchor::Centre),
    }
}

/// The widest a hanging piece may be, as a share of the figure box's width.
const HANG_WIDTH: f32 = 1.1;

/// How a piece sits in its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// Worn: hung from the slot's top, as long as the slot (a flat-laid garment is about as wide
    /// as the body, so its width follows its aspect, at most [`HANG_WIDTH`]).
    Hang,
    /// Inside the slot, centred.
    Centre,
    /// Inside the slot, standing on its bottom.
    Stand,
}

/// The slot of the `k`-th piece (from 0) of the same role: odd ones go to the other side, and
/// from the third on they shrink and step down, so repeats never sit exactly on each other.
fn slot_for(role: &str, k: usize) -> ([f32; 4], Anchor) {
    let (mut s, anchor) = slot(role);
    if k % 2 == 1 {
        s = [1.0 - s[2], s[1], 1.0 - s[0], s[3]];
    }
    if k >= 2 {
        let shrink = 0.8f32.powi((k / 2) as i32);
        let (cx, cy) = (0.5 * (s[0] + s[2]), 0.5 * (s[1] + s[3]) + 0.04 * (k / 2) as f32);
        let (hw, hh) = (0.5 * (s[2] - s[0]) * shrink, 0.5 * (s[3] - s[1]) * shrink);
        s = [cx - hw, cy - hh, cx + hw, cy + hh];
    }
    (s, anchor)
}

/// The piece's box for its slot, keeping the piece's own aspect (`aspect`, width / height in
/// pixels; never stretched) and centred across the slot. A hanging piece takes the slot's height
/// unless that would make it wider than [`HANG_WIDTH`]; other pieces take as much of the slot as
/// fits. `figure_aspect` is the figure box's width / height in pixels.
fn fit(slot: [f32; 4], anchor: Anchor, aspect: f32, figure_aspect: f32) -> [f32; 4] {
    let (sw, sh) = (slot[2] - slot[0], slot[3] - slot[1]);
    let across = |h: f32| h * aspect / figure_aspect;
    let down = |w: f32| w * figure_aspect / aspect;
    let (w, h) = match anchor {
        Anchor::Hang if across(sh) > HANG_WIDTH => (HANG_WIDTH, down(HANG_WIDTH)),
        Anchor::Hang => (across(sh), sh),
        _ if across(sh) > sw => (sw, down(sw)),
        _ => (across(sh), sh),
    };
    let x0 = slot[0] + 0.5 * (sw - w);
    let y0 = match anchor {
        Anchor::Hang => slot[1],
        Anchor::Centre => slot[1] + 0.5 * (sh - h),
        Anchor::Stand => slot[3] - h,
    };
    [x0, y0, x0 + w, y0 + h]
}

/// How the figure (figure coordinates) lands on the frame (pixels). Forward:
/// mirror `u`; widen the legs below mid-thigh by `stride`; squeeze across by `turn`; fold the
/// legs below the hips to `legs` of their height; scale by `(sx, sy)` from `(ox, oy)`; shift
/// each row by `lean` times its height above the feet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct View {
    sx: f32,
    sy: f32,
    ox: f32,
    oy: f32,
    mirror: bool,
    stride: f32,
    turn: f32,
    legs: f32,
    lean: f32,
    /// Brightness of the figure (1 = as shot).
    dark: f32,
    /// Saturation of the figure (1 = as shot).
    sat: f32,
}

impl View {
    fn plain(sx: f32, sy: f32, ox: f32, oy: f32) -> View {
        View { sx, sy, ox, oy, mirror: false, stride: 0.0, turn: 1.0, legs: 1.0, lean: 0.0, dark: 1.0, sat: 1.0 }
    }

    /// The frame for `variation` on a `cw` × `ch` canvas, for a figure box of aspect
    /// `figure_aspect` (width / height) whose first piece sits at `hero` (figure coordinates).
    fn new(variation: Variation, cw: f32, ch: f32, figure_aspect: f32, hero: [f32; 4]) -> View {
        // A full figure `fill` of the height tall, narrowed when `width_factor` times its width
        // would not fit across, standing on the floor once `shown` of it is drawn.
        let full = |fill: f32, shown: f32, width_factor: f32| {
            let mut sy = fill * ch / shown;
            let limit = MAX_WIDTH * cw / (figure_aspect * width_factor);
            sy = sy.min(limit);
            let sx = sy * figure_aspect;
            View::plain(sx, sy, 0.5 * (cw - sx), FLOOR * ch - shown * sy)
        };
        match variation {
            Variation::FullFront => full(FILL, 1.0, 1.0),
            Variation::Back => View { mirror: true, dark: 0.78, sat: 0.75, ..full(FILL, 1.0, 1.0) },
            Variation::Walking => {
                let stride = 0.1;
                let mut v = full(0.97 * FILL, 1.0, 1.0 + 2.0 * stride + 0.1);
                v.lean = 0.07 * v.sy;
                v.stride = stride;
                v.ox += -0.5 * v.lean - 0.03 * cw;
                v
            }
            Variation::Seated => {
                let legs = 0.55;
                let shown = HIPS + (1.0 - HIPS) * legs;
                View { legs, ..full(FILL, shown, 1.0) }
            }
            Variation::ThreeQuarter => {
                let turn = 0.86;
                let mut sy = 0.92 * ch / MID_THIGH;
                sy = sy.min(0.95 * cw / (figure_aspect * turn));
                let sx = sy * figure_aspect;
                View { turn, ..View::plain(sx, sy, 0.5 * (cw - sx) + 0.02 * cw, 0.05 * ch) }
            }
            Variation::Detail => {
                let (hw, hh) = (hero[2] - hero[0], hero[3] - hero[1]);
                let window = (1.35 * hh).max(0.3);
                let mut sy = ch / window;
                let across = 1.3 * hw * sy * figure_aspect;
                if across > cw {
                    sy *= cw / across;
                }
                let sx = sy * figure_aspect;
                let (cu, cv) = (0.5 * (hero[0] + hero[2]), 0.5 * (hero[1] + hero[3]));
                View::plain(sx, sy, 0.5 * cw - cu * sx, 0.5 * ch - cv * sy)
            }
        }
    }

    fn stride_at(&self, v: f32) -> f32 {
        if v > MID_THIGH { self.stride * (v - MID_THIGH) / (1.0 - MID_THIGH) } else { 0.0 }
    }

    /// Figure coordinates to frame pixels.
    pub(crate) fn forward(&self, u: f32, v: f32) -> (f32, f32) {
        let u = if self.mirror { 1.0 - u } else { u };
        let d = self.stride_at(v);
        let u = u + d * (2.0 * u - 1.0);
        let u = 0.5 + (u - 0.5) * self.turn;
        let shown = if v > HIPS { HIPS + (v - HIPS) * self.legs } else { v };
        (self.ox + u * self.sx + self.lean * (1.0 - v), self.oy + shown * self.sy)
    }

    /// Frame pixels to figure coordinates (the inverse of [`View::forward`]).
    pub(crate) fn inverse(&self, x: f32, y: f32) -> (f32, f32) {
        let shown = (y - self.oy) / self.sy;
        let v = if shown > HIPS { HIPS + (shown - HIPS) / self.legs } else { shown };
        let u = (x - self.ox - self.lean * (1.0 - v)) / self.sx;
        let u = 0.5 + (u - 0.5) / self.turn;
        let d = self.stride_at(v);
        let u = (u + d) / (1.0 + 2.0 * d);
        (if self.mirror { 1.0 - u } else { u }, v)
    }

    /// The figure-coordinate rectangle the whole `cw` × `ch` frame shows (a bound: `u` is
    /// monotone along each row and `v` down the frame, so the frame's left and right edges
    /// hold every row's extremes).
    fn window(&self, cw: f32, ch: f32) -> [f32; 4] {
        let (mut u0, mut u1) = (f32::MAX, f32::MIN);
        for i in 0..=128 {
            let y = ch * i as f32 / 128.0;
            for x in [0.0, cw] {
                let (u, _) = self.inverse(x, y);
                u0 = u0.min(u);
                u1 = u1.max(u);
            }
        }
        let (_, v0) = self.inverse(0.0, 0.0);
        let (_, v1) = self.inverse(0.0, ch);
        let (mu, mv) = (2.0 / self.sx, 2.0 / self.sy);
        [u0 - mu, v0.min(v1) - mv, u1 + mu, v0.max(v1) + mv]
    }
}

/// Where everything goes: the frame's size, the view and each layer's figure rectangle
/// (model first, then the garments in layering order, each with its input index).
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The frame's size.
    pub(crate) size: (u32, u32),
    /// The figure's mapping onto the frame.
    pub(crate) view: View,
    /// Garments in layering order: (input index, figure rectangle).
    pub(crate) garments: Vec<(usize, [f32; 4])>,
}

impl Layout {
    /// The frame rectangle (pixels, `[x0, y0, x1, y1]`) a figure rectangle lands on: the
    /// bounds of its mapped outline.
    #[cfg(test)]
    pub(crate) fn on_frame(&self, r: [f32; 4]) -> [f32; 4] {
        let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for i in 0..=16 {
            let t = i as f32 / 16.0;
            for (u, v) in [
                (ops::lerp(r[0], r[2], t), r[1]),
                (ops::lerp(r[0], r[2], t), r[3]),
                (r[0], ops::lerp(r[1], r[3], t)),
                (r[2], ops::lerp(r[1], r[3], t)),
            ] {
                let (x, y) = self.view.forward(u, v);
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
        [x0, y0, x1, y1]
    }

    /// Where the input garment `index` landed on the frame.
    #[cfg(test)]
    pub(crate) fn garment_on_frame(&self, index: usize) -> [f32; 4] {
        let r = self.garments.iter().find(|g| g.0 == index).expect("a placed garment").1;
        self.on_frame(r)
    }
}

/// One layer ready to sample: the part of a piece the frame shows, rendered at about its
/// displayed size, and the figure rectangle that part covers.
struct Layer {
    rect: [f32; 4],
    pixels: RgbaImage,
}

impl Layer {
    /// Render the part of `cut` (placed at figure rectangle `placed`) that falls inside the
    /// frame's `window`; None when none of it shows.
    fn new(cut: &Cut<'_>, placed: [f32; 4], window: [f32; 4], view: &View, long: u32) -> Result<Option<Layer>> {
        let rect =
            [placed[0].max(window[0]), placed[1].max(window[1]), placed[2].min(window[2]), placed[3].min(window[3])];
        if rect[2] <= rect[0] || rect[3] <= rect[1] {
            return Ok(None);
        }
        let (pw, ph) = (placed[2] - placed[0], placed[3] - placed[1]);
        let part = [
            (rect[0] - placed[0]) / pw,
            (rect[1] - placed[1]) / ph,
            (rect[2] - placed[0]) / pw,
            (rect[3] - placed[1]) / ph,
        ];
        let cap = 2.0 * long as f32;
        let w = ((rect[2] - rect[0]) * view.sx).ceil().clamp(1.0, cap) as u32;
        let h = ((rect[3] - rect[1]) * view.sy).ceil().clamp(1.0, cap) as u32;
        Ok(Some(Layer { rect, pixels: cut.render(part, w, h)? }))
    }

    /// Bilinear sample at figure coordinates: premultiplied colour (0..255) and alpha (0..1).
    fn sample(&self, u: f32, v: f32) -> Option<([f32; 3], f32)> {
        let r = self.rect;
        if u < r[0] || u >= r[2] || v < r[1] || v >= r[3] {
            return None;
        }
        let (w, h) = self.pixels.dimensions();
        let fx = ((u - r[0]) / (r[2] - r[0]) * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
        let fy = ((v - r[1]) / (r[3] - r[1]) * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
        let (x0, y0) = (fx as u32, fy as u32);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let mut colour = [0.0f32; 3];
        let mut alpha = 0.0f32;
        for (x, y, k) in
            [(x0, y0, (1.0 - tx) * (1.0 - ty)), (x1, y0, tx * (1.0 - ty)), (x0, y1, (1.0 - tx) * ty), (x1, y1, tx * ty)]
        {
            let p = self.pixels.get_pixel(x, y).0;
            let a = k * f32::from(p[3]) / 255.0;
            for c in 0..3 {
                colour[c] += a * f32::from(p[c]);
            }
            alpha += a;
        }
        (alpha > 0.0).then_some((colour, alpha))
    }
}

// ---------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------

impl Layout {
    /// Lay out a `size` frame for a figure box of aspect `figure_aspect` and garments of
    /// `aspects` (width / height each, in input order, one role each in `settings`).
    fn plan(settings: &Settings, size: (u32, u32), figure_aspect: f32, aspects: &[f32]) -> Layout {
        // Each garment's box on the figure, then the layering order: by role, then by input order.
        let mut seen = [0usize; ITEM_ROLES.len()];
        let mut placed: Vec<(usize, usize, [f32; 4])> = Vec::with_capacity(aspects.len());
        for (i, (aspect, role)) in aspects.iter().zip(&settings.roles).enumerate() {
            let rank = ITEM_ROLES.iter().position(|r| r == role).unwrap_or(ITEM_ROLES.len() - 1);
            let (s, anchor) = slot_for(role, seen[rank]);
            seen[rank] += 1;
            placed.push((rank, i, fit(s, anchor, *aspect, figure_aspect)));
        }
        // The detail frame closes in on the look's first piece.
        let hero = placed.first().map_or([0.0, 0.0, 1.0, 1.0], |p| p.2);
        placed.sort_by_key(|p| (p.0, p.1));
        let view = View::new(settings.variation, size.0 as f32, size.1 as f32, figure_aspect, hero);
        Layout { size, view, garments: placed.iter().map(|p| (p.1, p.2)).collect() }
    }
}

/// Compose at the tier: ground, shadow, figure, grade.
fn compose(
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
fn contact_shadow(canvas: &mut RgbImage, view: &View) {
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

// ---------------------------------------------------------------------------------------------
// Grade
// ---------------------------------------------------------------------------------------------

/// A light per-aesthetic grade: a lightness curve, lifted blacks, a chroma scale and a warm or
/// cool shift in Oklab (through an 18³ lookup table), then a vignette and grain by position.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Grade {
    /// S-curve strength on lightness (negative flattens).
    contrast: f32,
    /// Where black lands (0 = black).
    lift: f32,
    /// Chroma scale (0 = monochrome).
    chroma: f32,
    /// Oklab `a`, `b` added, more in the highlights.
    warm: [f32; 2],
    /// Darkening at the corners.
    vignette: f32,
    /// Grain amplitude in 8-bit levels.
    grain: f32,
}

/// Points of the lookup table per channel: every 15th 8-bit level, so each point is exact.
const LUT_STEPS: usize = 18;

impl Grade {
    fn colour(&self, p: [u8; 3]) -> [f32; 3] {
        let c = ops::rgb_to_lab(p);
        let l = c.l.clamp(0.0, 1.0);
        let s = l * l * (3.0 - 2.0 * l);
        let l = l + self.contrast * (s - l);
        let l = self.lift + (1.0 - self.lift) * l;
        let highlight = 0.5 + 0.5 * l;
        let a = c.a * self.chroma + self.warm[0] * highlight;
        let b = c.b * self.chroma + self.warm[1] * highlight;
        ops::lab_to_rgb(ops::Lab { l, a, b }).map(f32::from)
    }

    fn apply(&self, img: &mut RgbImage) {
        let n = LUT_STEPS;
        let step = 255.0 / (n - 1) as f32;
        let mut lut = Vec::with_capacity(n * n * n);
        for r in 0..n {
            for g in 0..n {
                for b in 0..n {
                    lut.push(self.colour([r, g, b].map(|i| ops::to_u8(i as f32 * step))));
                }
            }
        }
        let at = |r: usize, g: usize, b: usize| lut[(r * n + g) * n + b];
        let (w, h) = img.dimensions();
        let (cx, cy) = (0.5 * w as f32, 0.5 * h as f32);
        let corner = (cx * cx + cy * cy).sqrt();
        for (x, y, p) in img.enumerate_pixels_mut() {
            let f = p.0.map(|c| f32::from(c) / step);
            let i = f.map(|v| (v as usize).min(n - 2));
            let t = [0, 1, 2].map(|k| f[k] - i[k] as f32);
            let mut out = [0.0f32; 3];
            for (dr, wr) in [(0, 1.0 - t[0]), (1, t[0])] {
                for (dg, wg) in [(0, 1.0 - t[1]), (1, t[1])] {
                    for (db, wb) in [(0, 1.0 - t[2]), (1, t[2])] {
                        let c = at(i[0] + dr, i[1] + dg, i[2] + db);
                        let k = wr * wg * wb;
                        for ch in 0..3 {
                            out[ch] += k * c[ch];
                        }
                    }
                }
            }
            let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let r = (dx * dx + dy * dy).sqrt() / corner;
            let shade = 1.0 - self.vignette * ops::smoothstep(0.35, 1.0, r);
            let grain = self.grain * ops::noise(x, y, 29);
            p.0 = out.map(|c| ops::to_u8(c * shade + grain));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Quality;
    use crate::providers::local::LocalProvider;
    use crate::providers::{DevelopOutput, ProviderError};
    use bytes::Bytes;
    use std::io::Cursor;

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
                let off = if ratio >= 1.0 {
                    f64::from(h) - f64::from(w) / ratio
                } else {
                    f64::from(w) - f64::from(h) * ratio
                };
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
        assert!(
            width(at("outerwear")) > width(at("top")) && at("outerwear")[3] > at("top")[3],
            "outerwear over the top"
        );

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
        let figure_px = [
            figure[0].max(0.0) as u32,
            figure[1].max(0.0) as u32,
            (figure[2] as u32).min(w),
            (figure[3] as u32).min(h),
        ];
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
        let romantic =
            run(Quality::K1, look(RED), &[("itemRoles", "top"), ("aesthetic", "romantic"), ("ground", "black")]);
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
}
