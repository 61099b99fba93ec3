//! An input of the compositor cut from its own ground (behind the subject gate), and the parts
//! of it rendered at their displayed size with soft alpha and edge colours from the piece.

use image::RgbaImage;

use super::super::Frame;
use super::super::ops::{self, Region, Result};
use super::super::subject::{CutError, Subject};

/// An input cut from its ground: the source, what the segmentation found and the source
/// rectangle that holds the piece.
pub(super) struct Cut<'a> {
    pub(super) frame: &'a Frame,
    pub(super) subject: Subject,
    pub(super) region: Region,
}

impl<'a> Cut<'a> {
    /// Cut the `what` input (`the model`, `garment #2`) from its ground; the subject gate refuses
    /// an implausible mask (`SUBJECT_NOT_FOUND`, the input named).
    pub(super) fn new(frame: &'a Frame, what: &str) -> Result<Cut<'a>> {
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
    pub(super) fn aspect(&self) -> f32 {
        (self.region.width / self.region.height) as f32
    }

    /// The part `[s0, t0, s1, t1]` (normalised to the piece's rectangle) at `w` × `h` pixels, as
    /// colour with alpha. Soft edges take the piece's own colour, never the old ground's. Larger
    /// than the source, the cut is made at the source's own size and then enlarged (colour
    /// filtered by alpha), so the edge stays as narrow as the source's and carries no ground.
    pub(super) fn render(&self, part: [f32; 4], w: u32, h: u32) -> Result<RgbaImage> {
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
    pub(super) fn cut(&self, sub: Region, w: u32, h: u32) -> Result<RgbaImage> {
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
