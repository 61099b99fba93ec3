//! The segmentation evaluation (issue 40): the photographs of `tests/data/segmentation` with their
//! hand-drawn polygons, rasterised by the set's rule (pixel centres at `x + 0.5, y + 0.5`, rings
//! even-odd, polygons filled then holes cleared), a segmenter run on each photo, and the IoU of its
//! mask with the drawn one; photos without a subject score by whether the gate refuses them.
//!
//! Three segmenters are compared: [`Segmenter::Legacy`], the border-ground threshold the cutout
//! tools used before issue 40 ([`Subject::find`] alone, no gate); [`Segmenter::Current`], the
//! classical path ([`Subject::cut_by`] without a model: the saliency-seeded segmentation behind
//! the subject gate); and [`Segmenter::Learned`], U²-Net behind the same clean-up and gate, what
//! the cutout tools run when its weights are installed.

use std::path::Path;

use image::RgbImage;
use serde::Deserialize;

use super::decode;
use super::learned::LearnedSegmenter;
use super::subject::Subject;

/// Which segmentation to evaluate.
#[derive(Debug, Clone, Copy)]
pub enum Segmenter<'a> {
    /// Before issue 40: the border-ground threshold, morphology and largest components, no gate.
    Legacy,
    /// The classical path: saliency seeding, GrabCut-style iterations and the subject gate.
    Current,
    /// The learned segmenter (U²-Net), its clean-up and the subject gate.
    Learned(&'a LearnedSegmenter),
}

impl Segmenter<'_> {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Segmenter::Legacy => "legacy (border threshold)",
            Segmenter::Current => "classical (saliency + GrabCut + gate)",
            Segmenter::Learned(_) => "learned (U²-Net + gate)",
        }
    }
}

/// One photo's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentationScore {
    /// The photo's name (`coffee`, `brick`, ...).
    pub name: String,
    /// Whether the photo has a drawn subject.
    pub has_subject: bool,
    /// IoU of the segmenter's mask with the drawn one (photos with a subject; 0 when refused).
    pub iou: Option<f64>,
    /// The refusal, when the segmenter (its gate) refused the photo.
    pub refused: Option<String>,
}

/// `masks/NAME.json` (the fields the evaluation reads).
#[derive(Debug, Deserialize)]
struct Drawn {
    image: String,
    width: u32,
    height: u32,
    subject: Option<String>,
    #[serde(default)]
    polygons: Vec<Vec<[f64; 2]>>,
    #[serde(default)]
    holes: Vec<Vec<[f64; 2]>>,
}

/// Rasterise `rings` (even-odd per ring) into `mask` (row-major `w × h`), setting (`value` 1) or
/// clearing (0) the pixels whose centre lies inside a ring: scanline crossings at `y = row + 0.5`
/// counted half-open (`y1 <= yc < y2`), a pixel inside when `xa <= col + 0.5 < xb`.
fn fill_rings(mask: &mut [u8], w: u32, h: u32, rings: &[Vec<[f64; 2]>], value: u8) {
    for ring in rings {
        if ring.len() < 3 {
            continue;
        }
        let mut xs = Vec::new();
        for row in 0..h {
            let yc = f64::from(row) + 0.5;
            xs.clear();
            for k in 0..ring.len() {
                let [x1, y1] = ring[k];
                let [x2, y2] = ring[(k + 1) % ring.len()];
                let (lo, hi) = if y1 <= y2 { ((x1, y1), (x2, y2)) } else { ((x2, y2), (x1, y1)) };
                if lo.1 <= yc && yc < hi.1 {
                    xs.push(lo.0 + (yc - lo.1) * (hi.0 - lo.0) / (hi.1 - lo.1));
                }
            }
            xs.sort_by(f64::total_cmp);
            for pair in xs.chunks_exact(2) {
                for col in 0..w {
                    let xc = f64::from(col) + 0.5;
                    if pair[0] <= xc && xc < pair[1] {
                        mask[(row * w + col) as usize] = value;
                    }
                }
            }
        }
    }
}

/// The drawn mask of `masks/NAME.json`: 1 inside at least one polygon and no hole.
fn rasterise(drawn: &Drawn) -> Vec<u8> {
    let mut mask = vec![0u8; (drawn.width * drawn.height) as usize];
    fill_rings(&mut mask, drawn.width, drawn.height, &drawn.polygons, 1);
    fill_rings(&mut mask, drawn.width, drawn.height, &drawn.holes, 0);
    mask
}

/// |A ∩ B| / |A ∪ B| of two masks of the same size (1 when both are empty).
pub(crate) fn iou(a: &[u8], b: &[u8]) -> f64 {
    let (mut both, mut either) = (0u64, 0u64);
    for (x, y) in a.iter().zip(b) {
        both += u64::from(*x != 0 && *y != 0);
        either += u64::from(*x != 0 || *y != 0);
    }
    if either == 0 { 1.0 } else { both as f64 / either as f64 }
}

/// The segmenter's full-size mask of `img` (alpha at least 0.5), or its refusal.
pub(crate) fn mask_of(img: &RgbImage, segmenter: Segmenter) -> Result<Vec<u8>, String> {
    let subject = match segmenter {
        Segmenter::Legacy => Some(Subject::find(img, None).map_err(|e| e.to_string())?)
            .filter(Subject::found)
            .ok_or("nothing stands out from the ground")?,
        Segmenter::Current => Subject::cut_by(img, None, None).map_err(|e| e.to_string())?,
        Segmenter::Learned(model) => Subject::cut_by(img, None, Some(model)).map_err(|e| e.to_string())?,
    };
    Ok(subject.alpha_for([0.0, 0.0, 1.0, 1.0], img).iter().map(|a| u8::from(*a >= 0.5)).collect())
}

/// One photo of the set, decoded, with its drawn mask (None without a subject).
pub(crate) struct Photo {
    /// Its name.
    pub(crate) name: String,
    /// The pixels.
    pub(crate) rgb: RgbImage,
    /// The drawn mask, row-major, 1 = subject.
    pub(crate) drawn: Option<Vec<u8>>,
}

/// Every photo of the set in `dir` (the folder holding `images/` and `masks/`), by name.
pub(crate) fn load_set(dir: &Path) -> Result<Vec<Photo>, String> {
    let masks = dir.join("masks");
    let mut names: Vec<String> = std::fs::read_dir(&masks)
        .map_err(|e| format!("{}: {e}", masks.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .collect();
    names.sort();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let path = masks.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let drawn: Drawn = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let image_path = dir.join(&drawn.image);
        let bytes = std::fs::read(&image_path).map_err(|e| format!("{}: {e}", image_path.display()))?;
        let rgb = decode(&bytes, "image").map_err(|e| format!("{name}: {e}"))?.rgb;
        if rgb.dimensions() != (drawn.width, drawn.height) {
            return Err(format!(
                "{name}: the JSON says {}×{}, the image is {:?}",
                drawn.width,
                drawn.height,
                rgb.dimensions()
            ));
        }
        let mask = drawn.subject.as_ref().map(|_| rasterise(&drawn));
        out.push(Photo { name, rgb, drawn: mask });
    }
    Ok(out)
}

/// Run `segmenter` over the set in `dir` (`tests/data/segmentation`): one score per photo, by name.
pub fn evaluate_segmentation(dir: &Path, segmenter: Segmenter) -> Result<Vec<SegmentationScore>, String> {
    let photos = load_set(dir)?;
    Ok(photos.iter().map(|p| score(p, segmenter)).collect())
}

/// One photo's score.
pub(crate) fn score(photo: &Photo, segmenter: Segmenter) -> SegmentationScore {
    let result = mask_of(&photo.rgb, segmenter);
    let has_subject = photo.drawn.is_some();
    let iou = photo.drawn.as_ref().map(|drawn| result.as_ref().map_or(0.0, |m| iou(m, drawn)));
    SegmentationScore { name: photo.name.clone(), has_subject, iou, refused: result.err() }
}

/// The mean IoU over the photos with a subject (0 when there are none).
pub fn mean_iou(scores: &[SegmentationScore]) -> f64 {
    let ious: Vec<f64> = scores.iter().filter_map(|s| s.iou).collect();
    if ious.is_empty() { 0.0 } else { ious.iter().sum::<f64>() / ious.len() as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/segmentation")
    }

    #[test]
    fn the_rasteriser_follows_the_sets_rule() {
        // A 4 × 3 square ring with a 2 × 1 hole: centres inside the ring and outside the hole.
        let drawn = Drawn {
            image: String::new(),
            width: 6,
            height: 5,
            subject: Some("a square".into()),
            polygons: vec![vec![[1.0, 1.0], [5.0, 1.0], [5.0, 4.0], [1.0, 4.0]]],
            holes: vec![vec![[2.0, 2.0], [4.0, 2.0], [4.0, 3.0], [2.0, 3.0]]],
        };
        let m = rasterise(&drawn);
        let rows: Vec<String> =
            m.chunks(6).map(|r| r.iter().map(|v| if *v == 1 { '#' } else { '.' }).collect()).collect();
        assert_eq!(rows, ["......", ".####.", ".#..#.", ".####.", "......"]);
        assert_eq!(iou(&m, &m), 1.0);
        assert_eq!(iou(&m, &[0; 30]), 0.0);
    }

    /// Target of issue 40 for the mean IoU over the photos with a subject (not yet met: see
    /// docs/providers.md); the test holds the line at what the current segmenter reaches.
    const TARGET_MEAN_IOU: f64 = 0.8;
    const REACHED_MEAN_IOU: f64 = 0.55;

    #[test]
    fn on_the_set_photos_without_a_subject_are_refused_and_the_new_segmenter_beats_the_old() {
        let photos = load_set(&set_dir()).expect("the set");
        assert_eq!(photos.len(), 14);
        let (mut old, mut new) = (Vec::new(), Vec::new());
        for p in &photos {
            let (a, b) = (score(p, Segmenter::Legacy), score(p, Segmenter::Current));
            eprintln!(
                "{:22} legacy {:>6} current {:>6} {}",
                p.name,
                a.iou.map_or("-".into(), |v| format!("{v:.3}")),
                b.iou.map_or("-".into(), |v| format!("{v:.3}")),
                b.refused.as_deref().unwrap_or("")
            );
            if p.drawn.is_none() {
                assert!(b.refused.is_some(), "{}: a photo without a subject is refused", p.name);
            } else {
                assert!(b.refused.is_none(), "{}: a photo with a subject passes the gate: {:?}", p.name, b.refused);
            }
            old.push(a);
            new.push(b);
        }
        let (old_mean, new_mean) = (mean_iou(&old), mean_iou(&new));
        eprintln!("mean IoU: legacy {old_mean:.3}, current {new_mean:.3} (target {TARGET_MEAN_IOU})");
        assert!(new_mean >= REACHED_MEAN_IOU, "mean IoU {new_mean:.3}");
        assert!(new_mean >= old_mean + 0.15, "legacy {old_mean:.3}, current {new_mean:.3}");
    }

    /// The learned segmenter on the set, with the weights `studio-server models fetch` installs
    /// (CI fetches them and names the file in `STUDIO_TEST_U2NET`): the target mean IoU, every
    /// photo without a subject refused, every photo with one passing the gate; and through
    /// [`super::super::learned::install`], the cutout tools' own [`Subject::cut`] uses it.
    #[test]
    #[ignore = "needs the U²-Net weights: STUDIO_TEST_U2NET=PATH (CI fetches them with `studio-server models fetch`)"]
    fn learned_on_the_set_meets_the_target() {
        let path =
            std::path::PathBuf::from(std::env::var("STUDIO_TEST_U2NET").expect("STUDIO_TEST_U2NET names the weights"));
        let model = LearnedSegmenter::load(&path).expect("the weights load");
        let photos = load_set(&set_dir()).expect("the set");
        let mut scores = Vec::new();
        for p in &photos {
            let s = score(p, Segmenter::Learned(&model));
            eprintln!(
                "{:22} learned {:>6} {}",
                p.name,
                s.iou.map_or("-".into(), |v| format!("{v:.3}")),
                s.refused.as_deref().unwrap_or("")
            );
            if p.drawn.is_none() {
                assert!(s.refused.is_some(), "{}: a photo without a subject is refused", p.name);
            } else {
                assert!(s.refused.is_none(), "{}: a photo with a subject passes the gate: {:?}", p.name, s.refused);
            }
            scores.push(s);
        }
        let mean = mean_iou(&scores);
        eprintln!("mean IoU: learned {mean:.3} (target {TARGET_MEAN_IOU})");
        assert!(mean >= TARGET_MEAN_IOU, "mean IoU {mean:.3}");

        super::super::learned::install(&path).expect("installed");
        color_change_on_the_set();
        let coffee = photos.iter().find(|p| p.name == "coffee").expect("coffee");
        let by_tools = Subject::cut(&coffee.rgb, None).expect("the cup is found");
        let by_model = Subject::cut_by(&coffee.rgb, None, Some(&model)).expect("the cup is found");
        assert_eq!(by_tools.coarse, by_model.coarse, "Subject::cut runs the installed model");
        let grass = photos.iter().find(|p| p.name == "grass").expect("grass");
        assert!(matches!(Subject::cut(&grass.rgb, None), Err(super::super::subject::CutError::NotFound(_))));
    }

    #[test]
    fn color_change_touches_the_garment_only_on_the_set() {
        color_change_on_the_set();
    }

    /// color-change (teal) on every photo with a subject, with whichever segmenter this process
    /// runs: the share of pixels changed outside the tool's own mask is at most 1 % (printed with
    /// the share outside the drawn mask).
    fn color_change_on_the_set() {
        use crate::api::Quality;
        use crate::providers::{DevelopInput, DevelopRequest};
        let dir = set_dir();
        let photos = load_set(&dir).expect("the set");
        for p in photos.iter().filter(|p| p.drawn.is_some()) {
            let bytes = std::fs::read(dir.join(format!("images/{}.jpg", p.name))).expect("photo");
            let request = DevelopRequest {
                job_id: "job_eval".into(),
                tool: "color-change".into(),
                quality: Quality::K1,
                inputs: vec![DevelopInput { role: "image".into(), bytes: bytes.into(), mime: "image/jpeg".into() }],
                params: [("color".to_string(), "teal".to_string())].into(),
            };
            let out = super::super::LocalProvider.develop_blocking(&request).expect("color-change");
            let got = image::load_from_memory(&out.bytes).expect("jpeg").into_rgb8();
            let (w, h) = got.dimensions();
            let plain = super::super::ops::resize_rgb(&p.rgb, w, h).expect("resize");
            let subject = Subject::cut(&plain, None).expect("the gate passes");
            let alpha = subject.alpha_for([0.0, 0.0, 1.0, 1.0], &plain);
            let own = super::super::ops::Mask {
                w: w as usize,
                h: h as usize,
                data: alpha.iter().map(|a| u8::from(*a > 0.0)).collect(),
            }
            .dilate(2);
            let drawn = image::imageops::resize(
                &image::GrayImage::from_raw(p.rgb.width(), p.rgb.height(), p.drawn.clone().unwrap_or_default())
                    .expect("mask"),
                w,
                h,
                image::imageops::FilterType::Nearest,
            );
            let drawn = super::super::ops::Mask { w: w as usize, h: h as usize, data: drawn.into_raw() }.dilate(2);
            let changed: Vec<bool> = got
                .pixels()
                .zip(plain.pixels())
                .map(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 12))
                .collect();
            let share = |m: &super::super::ops::Mask| {
                let outside = m.data.iter().filter(|v| **v == 0).count().max(1);
                changed.iter().zip(&m.data).filter(|(c, v)| **c && **v == 0).count() as f64 / outside as f64
            };
            let (by_own, by_drawn) = (share(&own), share(&drawn));
            eprintln!(
                "{:14} changed outside its own mask {:.3} %, outside the drawn mask {:.3} %",
                p.name,
                by_own * 100.0,
                by_drawn * 100.0
            );
            assert!(by_own <= 0.01, "{}: {:.3} % changed outside the garment", p.name, by_own * 100.0);
        }
    }

    #[test]
    #[ignore = "a diagnostic: prints measures and writes sheets to /tmp/pixseg"]
    fn dump() {
        let photos = load_set(&set_dir()).expect("the set");
        std::fs::create_dir_all("/tmp/pixseg").unwrap();
        let only = std::env::var("SEG_ONLY").unwrap_or_default();
        for p in photos.iter().filter(|p| only.is_empty() || only.split(',').any(|o| o == p.name)) {
            let (work, w, h) = super::super::subject::working_lab(&p.rgb).unwrap();
            let smooth = super::super::subject::smoothed(&work, w, h);
            let cut = super::super::grabcut::segment(&smooth, w, h);
            let v = super::super::gate::check(&cut, &smooth);
            let current = score(p, Segmenter::Current);
            eprintln!("{:22} current {:?} {:?}\n    {:?}", p.name, current.iou, v.refusal, v.measures);
            let small = super::super::ops::working_copy(&p.rgb, super::super::subject::WORK_EDGE).unwrap();
            let drawn = p.drawn.as_ref().map(|d| {
                image::imageops::resize(
                    &image::GrayImage::from_raw(p.rgb.width(), p.rgb.height(), d.iter().map(|v| v * 255).collect())
                        .unwrap(),
                    w as u32,
                    h as u32,
                    image::imageops::FilterType::Nearest,
                )
            });
            let sheet = image::RgbImage::from_fn(3 * w as u32, h as u32, |x, y| {
                let (k, xx) = (x as usize / w, x as usize % w);
                let i = y as usize * w + xx;
                let px = small.get_pixel(xx as u32, y).0;
                match k {
                    0 => image::Rgb(px),
                    1 => {
                        let m = cut.mask.data[i] != 0;
                        let d = drawn.as_ref().is_some_and(|d| d.get_pixel(xx as u32, y).0[0] > 0);
                        let g = px.map(|c| c / 3);
                        image::Rgb([if m { 255 } else { g[0] }, if d { 200 } else { g[1] }, g[2]])
                    }
                    _ => {
                        let s = (cut.saliency.data[i] * 100.0).clamp(0.0, 255.0) as u8;
                        image::Rgb([s, s, 255])
                    }
                }
            });
            sheet.save(format!("/tmp/pixseg/{}.png", p.name)).unwrap();
        }
    }
}
