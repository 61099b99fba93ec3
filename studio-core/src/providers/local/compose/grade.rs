//! The per-aesthetic grade of a finished look frame: an Oklab lightness curve, lifted blacks, a
//! chroma scale and a warm or cool shift through a lookup table, then a vignette and grain.

use image::RgbImage;

use super::super::ops;

/// A light per-aesthetic grade: a lightness curve, lifted blacks, a chroma scale and a warm or
/// cool shift in Oklab (through an 18³ lookup table), then a vignette and grain by position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Grade {
    /// S-curve strength on lightness (negative flattens).
    pub(super) contrast: f32,
    /// Where black lands (0 = black).
    pub(super) lift: f32,
    /// Chroma scale (0 = monochrome).
    pub(super) chroma: f32,
    /// Oklab `a`, `b` added, more in the highlights.
    pub(super) warm: [f32; 2],
    /// Darkening at the corners.
    pub(super) vignette: f32,
    /// Grain amplitude in 8-bit levels.
    pub(super) grain: f32,
}

/// Points of the lookup table per channel: every 15th 8-bit level, so each point is exact.
pub(super) const LUT_STEPS: usize = 18;

impl Grade {
    pub(super) fn colour(&self, p: [u8; 3]) -> [f32; 3] {
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

    pub(super) fn apply(&self, img: &mut RgbImage) {
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
