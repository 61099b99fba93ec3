//! Where things go: each role's slot on the figure box, a piece fitted to its slot, the figure
//! mapped onto the frame by variation (`View`), the layout of a whole look, and a layer ready to
//! sample.

use image::RgbaImage;

#[cfg(test)]
use super::super::ops;
use super::super::ops::Result;
use super::cut::Cut;
use super::settings::{Settings, Variation};
use crate::api::vocabulary::ITEM_ROLES;

/// Where the feet stand, as a share of the frame's height from the top.
pub(super) const FLOOR: f32 = 0.94;
/// How much of the frame's height a full figure fills.
pub(super) const FILL: f32 = 0.86;
/// How much of the frame's width a figure may fill.
pub(super) const MAX_WIDTH: f32 = 0.9;
/// The hips, in figure coordinates: where a seated figure's legs fold.
pub(super) const HIPS: f32 = 0.5;
/// Mid-thigh: where a three-quarter frame ends and a walking stride opens.
pub(super) const MID_THIGH: f32 = 0.62;

/// Where a role's piece goes on the figure's box (figure coordinates: `u` across, `v` down, the
/// model's rectangle is `[0, 1]²`, head at the top, feet at the bottom), and how it sits there.
pub(super) fn slot(role: &str) -> ([f32; 4], Anchor) {
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
pub(super) const HANG_WIDTH: f32 = 1.1;

/// How a piece sits in its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Anchor {
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
pub(super) fn slot_for(role: &str, k: usize) -> ([f32; 4], Anchor) {
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
pub(super) fn fit(slot: [f32; 4], anchor: Anchor, aspect: f32, figure_aspect: f32) -> [f32; 4] {
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
    pub(super) sx: f32,
    pub(super) sy: f32,
    pub(super) ox: f32,
    pub(super) oy: f32,
    pub(super) mirror: bool,
    pub(super) stride: f32,
    pub(super) turn: f32,
    pub(super) legs: f32,
    pub(super) lean: f32,
    /// Brightness of the figure (1 = as shot).
    pub(super) dark: f32,
    /// Saturation of the figure (1 = as shot).
    pub(super) sat: f32,
}

impl View {
    pub(super) fn plain(sx: f32, sy: f32, ox: f32, oy: f32) -> View {
        View { sx, sy, ox, oy, mirror: false, stride: 0.0, turn: 1.0, legs: 1.0, lean: 0.0, dark: 1.0, sat: 1.0 }
    }

    /// The frame for `variation` on a `cw` × `ch` canvas, for a figure box of aspect
    /// `figure_aspect` (width / height) whose first piece sits at `hero` (figure coordinates).
    pub(super) fn new(variation: Variation, cw: f32, ch: f32, figure_aspect: f32, hero: [f32; 4]) -> View {
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

    pub(super) fn stride_at(&self, v: f32) -> f32 {
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
    pub(super) fn window(&self, cw: f32, ch: f32) -> [f32; 4] {
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
pub(super) struct Layer {
    pub(super) rect: [f32; 4],
    pub(super) pixels: RgbaImage,
}

impl Layer {
    /// Render the part of `cut` (placed at figure rectangle `placed`) that falls inside the
    /// frame's `window`; None when none of it shows.
    pub(super) fn new(
        cut: &Cut<'_>,
        placed: [f32; 4],
        window: [f32; 4],
        view: &View,
        long: u32,
    ) -> Result<Option<Layer>> {
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
    pub(super) fn sample(&self, u: f32, v: f32) -> Option<([f32; 3], f32)> {
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

impl Layout {
    /// Lay out a `size` frame for a figure box of aspect `figure_aspect` and garments of
    /// `aspects` (width / height each, in input order, one role each in `settings`).
    pub(super) fn plan(settings: &Settings, size: (u32, u32), figure_aspect: f32, aspects: &[f32]) -> Layout {
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
