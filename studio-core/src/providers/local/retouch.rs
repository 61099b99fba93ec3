//! The retouching tools: iron (an edge-preserving guided filter on lightness that flattens
//! creases and keeps seams) and cleanup (multi-scale push-pull diffusion inpainting of a masked
//! region, with the surrounding grain restored).

use image::RgbImage;

use super::ops::{self, Mask, Plane, Result, rejected};
use super::tone::mask_alpha;
use super::{Frame, Params};

/// Rec. 601 luma of a pixel, 0..1.
fn luma(p: [u8; 3]) -> f32 {
    (0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])) / 255.0
}

/// iron's one option, `strength` (0–1, default 0.5), read and checked (the tool and the
/// submit's check both read it here).
pub(crate) fn iron_strength(params: &Params<'_>) -> Result<f32> {
    params.number("strength", 0.5, 0.0..=1.0)
}

/// Smooth creases: a self-guided filter on luma (He, Sun and Tang), computed at a reduced size
/// (the "fast guided filter") and applied at full size, so flat areas lose their low-contrast
/// ripples while edges stronger than the threshold stay sharp. Colour is kept: the luma change
/// is added equally to the three channels.
pub(crate) fn iron(src: &Frame, params: &Params<'_>, long_edge: u32) -> Result<RgbImage> {
    let strength = iron_strength(params)?;
    let (w, h) = ops::fit_long_edge(src.rgb.width(), src.rgb.height(), long_edge);
    let mut img = ops::resize_rgb(&src.rgb, w, h)?;
    let (wu, hu) = (w as usize, h as usize);
    let y = Plane { w: wu, h: hu, data: img.pixels().map(|p| luma(p.0)).collect() };

    let radius = (w.max(h) as f32 * (0.003 + 0.009 * strength)).max(2.0);
    let eps = (0.015 + 0.06 * strength).powi(2);
    // Subsample by a power of two no larger than a third of the radius.
    let mut small = y.clone();
    let mut factor = 1usize;
    while (factor * 2) as f32 <= radius / 3.0 && small.w > 8 && small.h > 8 {
        small = small.half();
        factor *= 2;
    }
    let r = ((radius / factor as f32).round() as usize).max(1);
    let mean_i = small.box_blur(r);
    let sq = Plane { w: small.w, h: small.h, data: small.data.iter().map(|v| v * v).collect() };
    let corr = sq.box_blur(r);
    let mut a = Plane::new(small.w, small.h, 0.0);
    let mut b = Plane::new(small.w, small.h, 0.0);
    for i in 0..small.data.len() {
        let m = mean_i.data[i];
        let var = (corr.data[i] - m * m).max(0.0);
        a.data[i] = var / (var + eps);
        b.data[i] = m - a.data[i] * m;
    }
    let (mean_a, mean_b) = (a.box_blur(r), b.box_blur(r));
    let f = factor as f32;
    for (i, (x, yy, p)) in img.enumerate_pixels_mut().enumerate() {
        let (sx, sy) = ((x as f32 + 0.5) / f, (yy as f32 + 0.5) / f);
        let q = mean_a.sample(sx, sy) * y.data[i] + mean_b.sample(sx, sy);
        let delta = (q - y.data[i]) * 255.0;
        p.0 = p.0.map(|c| ops::to_u8(f32::from(c) + delta));
    }
    Ok(img)
}

/// One level of the push-pull pyramid: colours and their confidence (0 = unknown).
struct Level {
    w: usize,
    h: usize,
    colour: Vec<[f32; 3]>,
    weight: Vec<f32>,
}

impl Level {
    /// The next coarser level: a 3 × 3 tent filter at stride 2, weighted by confidence.
    fn push(&self) -> Level {
        let (w, h) = (self.w.div_ceil(2), self.h.div_ceil(2));
        let mut colour = vec![[0.0f32; 3]; w * h];
        let mut weight = vec![0.0f32; w * h];
        const K: [f32; 3] = [0.25, 0.5, 0.25];
        for y in 0..h {
            for x in 0..w {
                let (mut sc, mut sw) = ([0.0f32; 3], 0.0f32);
                for (dy, ky) in (-1isize..=1).zip(K) {
                    let cy = (2 * y) as isize + dy;
                    if cy < 0 || cy >= self.h as isize {
                        continue;
                    }
                    for (dx, kx) in (-1isize..=1).zip(K) {
                        let cx = (2 * x) as isize + dx;
                        if cx < 0 || cx >= self.w as isize {
                            continue;
                        }
                        let i = cy as usize * self.w + cx as usize;
                        let k = kx * ky * self.weight[i];
                        if k > 0.0 {
                            for (s, v) in sc.iter_mut().zip(self.colour[i]) {
                                *s += k * v;
                            }
                            sw += k;
                        }
                    }
                }
                if sw > 0.0 {
                    colour[y * w + x] = sc.map(|v| v / sw);
                    weight[y * w + x] = sw.min(1.0);
                }
            }
        }
        Level { w, h, colour, weight }
    }

    fn sample(&self, x: f32, y: f32) -> [f32; 3] {
        let fx = (x - 0.5).clamp(0.0, (self.w - 1) as f32);
        let fy = (y - 0.5).clamp(0.0, (self.h - 1) as f32);
        let (x0, y0) = (fx as usize, fy as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
        let at = |x: usize, y: usize| self.colour[y * self.w + x];
        [0, 1, 2].map(|c| {
            let top = ops::lerp(at(x0, y0)[c], at(x1, y0)[c], tx);
            let bottom = ops::lerp(at(x0, y1)[c], at(x1, y1)[c], tx);
            ops::lerp(top, bottom, ty)
        })
    }

    /// Fill this level's unknowns from the coarser one, then relax the wholly unknown ones with
    /// a few Jacobi steps of the Laplace equation (everything else held fixed).
    fn pull(&mut self, coarse: &Level, relax: usize) {
        let empty: Vec<usize> = (0..self.w * self.h).filter(|i| self.weight[*i] <= 0.0).collect();
        for i in 0..self.w * self.h {
            let wt = self.weight[i];
            if wt >= 1.0 {
                continue;
            }
            let (x, y) = (i % self.w, i / self.w);
            // Coarse pixel j is centred on fine pixel 2j (the tent's middle tap).
            let up = coarse.sample(x as f32 / 2.0 + 0.5, y as f32 / 2.0 + 0.5);
            self.colour[i] = [0, 1, 2].map(|c| wt * self.colour[i][c] + (1.0 - wt) * up[c]);
        }
        for _ in 0..relax {
            let prev = self.colour.clone();
            for &i in &empty {
                let (x, y) = (i % self.w, i / self.w);
                let mut s = [0.0f32; 3];
                let mut n = 0.0;
                for (nx, ny) in [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)] {
                    if nx < self.w && ny < self.h {
                        let p = prev[ny * self.w + nx];
                        for c in 0..3 {
                            s[c] += p[c];
                        }
                        n += 1.0;
                    }
                }
                if n > 0.0 {
                    self.colour[i] = s.map(|v| v / n);
                }
            }
        }
        self.weight.fill(1.0);
    }
}

/// Remove what the mask covers (white = remove): the hole (grown a little to take the halo) is
/// filled from its surroundings by push-pull over an image pyramid, each level relaxed by
/// diffusion, and the surrounding grain is laid back over the fill.
pub(crate) fn cleanup(src: &Frame, mask: &Frame, long_edge: u32) -> Result<RgbImage> {
    let hole_src = mask_alpha(mask);
    if hole_src.pixels().all(|p| p.0[0] < 128) {
        return Err(rejected("the mask is empty: paint what to remove in white"));
    }
    let (w, h) = ops::fit_long_edge(src.rgb.width(), src.rgb.height(), long_edge);
    let mut img = ops::resize_rgb(&src.rgb, w, h)?;
    let (wu, hu) = (w as usize, h as usize);
    let scaled = ops::resize_gray(&hole_src, w, h)?;
    let grow = ((w.max(h) as f32 * 0.002).round() as usize).max(1);
    let hole = Mask { w: wu, h: hu, data: scaled.as_raw().iter().map(|v| u8::from(*v >= 128)).collect() }.dilate(grow);
    if hole.count() == wu * hu {
        return Err(rejected("the mask covers the whole image: nothing is left to fill from"));
    }
    let Some((bx0, by0, bx1, by1)) = hole.bbox() else {
        return Err(rejected("the mask is empty: paint what to remove in white"));
    };
    let margin = ((bx1 - bx0).max(by1 - by0) / 4).max(8);
    let (rx0, ry0) = (bx0.saturating_sub(margin), by0.saturating_sub(margin));
    let (rx1, ry1) = ((bx1 + margin).min(wu), (by1 + margin).min(hu));
    let (rw, rh) = (rx1 - rx0, ry1 - ry0);

    let mut base = Level { w: rw, h: rh, colour: vec![[0.0; 3]; rw * rh], weight: vec![0.0; rw * rh] };
    for y in 0..rh {
        for x in 0..rw {
            let (gx, gy) = (rx0 + x, ry0 + y);
            if hole.data[gy * wu + gx] == 0 {
                base.colour[y * rw + x] = img.get_pixel(gx as u32, gy as u32).0.map(f32::from);
                base.weight[y * rw + x] = 1.0;
            }
        }
    }
    // Push down until a level is fully known.
    let mut levels = vec![base];
    while let Some(top) = levels.last() {
        if top.weight.iter().all(|w| *w > 0.0) || (top.w == 1 && top.h == 1) {
            break;
        }
        let next = top.push();
        levels.push(next);
    }
    // Pull back up.
    for k in (0..levels.len() - 1).rev() {
        let (fine, coarse) = levels.split_at_mut(k + 1);
        fine[k].pull(&coarse[0], 6);
    }
    let fill = &levels[0];

    // The grain of a ring around the hole: luma high-pass deviation of known pixels.
    let region_luma = Plane {
        w: rw,
        h: rh,
        data: (0..rw * rh).map(|i| luma(img.get_pixel((rx0 + i % rw) as u32, (ry0 + i / rw) as u32).0)).collect(),
    };
    let smooth = region_luma.box_blur(1);
    let ring =
        Mask { w: rw, h: rh, data: (0..rw * rh).map(|i| hole.data[(ry0 + i / rw) * wu + rx0 + i % rw]).collect() }
            .dilate(margin.min(24));
    let (mut sum, mut n) = (0.0f64, 0.0f64);
    for i in 0..rw * rh {
        let g = (ry0 + i / rw) * wu + rx0 + i % rw;
        if ring.data[i] != 0 && hole.data[g] == 0 {
            sum += f64::from((region_luma.data[i] - smooth.data[i]).powi(2));
            n += 1.0;
        }
    }
    let grain = if n > 0.0 { (sum / n).sqrt() as f32 * 255.0 } else { 0.0 };
    // Uniform noise in -1..1 has a standard deviation of 1/√3; box high-pass loses about a
    // tenth of white noise's variance.
    let amplitude = (grain * 3.0f32.sqrt() * 1.05).min(20.0);

    for y in 0..rh {
        for x in 0..rw {
            let (gx, gy) = (rx0 + x, ry0 + y);
            if hole.data[gy * wu + gx] == 0 {
                continue;
            }
            let n = ops::noise(gx as u32, gy as u32, 23) * amplitude;
            let c = fill.colour[y * rw + x];
            img.get_pixel_mut(gx as u32, gy as u32).0 = c.map(|v| ops::to_u8(v + n));
        }
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;
    use std::collections::BTreeMap;

    fn frame(img: RgbImage) -> Frame {
        Frame { rgb: img, alpha: None }
    }

    fn std_dev(values: &[f32]) -> f32 {
        let n = values.len() as f32;
        let m = values.iter().sum::<f32>() / n;
        (values.iter().map(|v| (v - m).powi(2)).sum::<f32>() / n).sqrt()
    }

    /// Width of the 10–90 % rise of a step along row `y`, in pixels.
    fn edge_width(img: &RgbImage, y: u32, lo: f32, hi: f32) -> usize {
        let (a, b) = (lo + 0.1 * (hi - lo), lo + 0.9 * (hi - lo));
        (0..img.width()).filter(|x| (a..b).contains(&f32::from(img.get_pixel(*x, y).0[1]))).count()
    }

    #[test]
    fn iron_flattens_creases_and_keeps_edges() {
        // Two flat halves with crease-like ripples and noise, split by a hard edge at x = 100.
        let img = RgbImage::from_fn(200, 150, |x, y| {
            let ripple = 6.0 * ((x as f32 * 0.9 + y as f32 * 0.4).sin()) + 5.0 * ops::noise(x, y, 3);
            let base = if x < 100 { 70.0 } else { 180.0 };
            let v = ops::to_u8(base + ripple);
            Rgb([v, v, v])
        });
        let map = BTreeMap::new();
        let out = iron(&frame(img.clone()), &Params(&map), 1024).expect("iron");
        let plain = ops::resize_rgb(&img, 1024, 768).expect("resize");
        let patch = |im: &RgbImage, x0: u32| -> Vec<f32> {
            (300..460)
                .flat_map(|y| (x0..x0 + 160).map(move |x| (x, y)))
                .map(|(x, y)| f32::from(im.get_pixel(x, y).0[1]))
                .collect()
        };
        for x0 in [100, 700] {
            let (before, after) = (std_dev(&patch(&plain, x0)), std_dev(&patch(&out, x0)));
            assert!(after < before * 0.5, "flat area at {x0}: std {before} -> {after}");
        }
        let (w_before, w_after) = (edge_width(&plain, 384, 70.0, 180.0), edge_width(&out, 384, 70.0, 180.0));
        assert!(w_after <= w_before + 1, "edge width {w_before} -> {w_after}");
        let mean = |v: Vec<f32>| v.iter().sum::<f32>() / v.len() as f32;
        assert!((mean(patch(&out, 100)) - 70.0).abs() < 3.0 && (mean(patch(&out, 700)) - 180.0).abs() < 3.0);
    }

    #[test]
    fn cleanup_fills_the_hole_from_its_surroundings() {
        // A horizontal gradient with a dark blob at (100, 75), radius 20.
        let blob = |x: u32, y: u32| (x as f32 - 100.0).powi(2) + (y as f32 - 75.0).powi(2) <= 400.0;
        let ground = |x: u32| 120.0 + x as f32 * 0.5;
        let img = RgbImage::from_fn(200, 150, |x, y| {
            if blob(x, y) {
                Rgb([20, 20, 25])
            } else {
                let g = ops::to_u8(ground(x) + 3.0 * ops::noise(x, y, 5));
                Rgb([g, g, ops::to_u8(ground(x) - 10.0)])
            }
        });
        let mask = RgbImage::from_fn(200, 150, |x, y| {
            let inside = (x as f32 - 100.0).powi(2) + (y as f32 - 75.0).powi(2) <= 24.0f32.powi(2);
            if inside { Rgb([255, 255, 255]) } else { Rgb([0, 0, 0]) }
        });
        let out = cleanup(&frame(img), &frame(mask), 1024).expect("cleanup");
        assert_eq!(out.dimensions(), (1024, 768));
        // Inside the old blob (×5.12): the fill follows the gradient, not a flat colour.
        let col_mean = |sx: u32| -> f32 {
            let x = (sx as f32 * 5.12) as u32;
            (350..420).map(|y| f32::from(out.get_pixel(x, y).0[0])).sum::<f32>() / 70.0
        };
        for sx in [88u32, 100, 112] {
            let got = col_mean(sx);
            assert!((got - ground(sx)).abs() < 6.0, "column {sx}: {got} vs {}", ground(sx));
        }
        assert!(col_mean(112) - col_mean(88) > 6.0, "the gradient carries through the fill");
        // Not a flat fill: some grain is laid back.
        let vals: Vec<f32> = (360..400).map(|y| f32::from(out.get_pixel(512, y).0[0])).collect();
        assert!(std_dev(&vals) > 0.3, "grain restored");
    }

    #[test]
    fn cleanup_refuses_an_empty_mask() {
        let img = RgbImage::from_pixel(50, 40, Rgb([100, 100, 100]));
        let mask = RgbImage::from_pixel(50, 40, Rgb([0, 0, 0]));
        assert!(matches!(
            cleanup(&frame(img.clone()), &frame(mask), 1024),
            Err(crate::providers::ProviderError::Rejected(_))
        ));
        let full = RgbImage::from_pixel(50, 40, Rgb([255, 255, 255]));
        assert!(cleanup(&frame(img), &frame(full), 1024).is_err());
    }
}
