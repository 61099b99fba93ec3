//! The local provider: real, deterministic pixel work in-process (the embedded default).
//!
//! Nine tools — upscale, reframe, packshot, harmonize, color-change, iron, cleanup and
//! camera-lens on one `image` input, and lookbook, which composes a look frame from a `model`,
//! its `garment`s and a ground — decode their inputs under the service's decode limits (EXIF
//! orientation applied), work on `image` buffers on a blocking thread and answer a JPEG
//! (quality 92) whose long edge is the tier's. Heavy analysis (segmentation, statistics) runs at a
//! small working size; pixels are produced at full size with separable or pyramid filters. The
//! same request always gives the same bytes. `docs/providers.md` says what each tool does to the
//! pixels.
//!
//! The lookbook compositor is a stand-in for a generative model ([`Provider::stands_in`]): a
//! provider configured with a model for `lookbook` takes the tool whatever the routing order.

mod compose;
mod cutout;
mod evaluate;
mod frame;
mod gate;
mod grabcut;
mod jpeg;
mod learned;
mod lens;
pub(crate) mod ops;
mod options;
mod retouch;
pub(crate) mod subject;
mod tone;

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use image::{DynamicImage, GrayImage, RgbImage};

use crate::images::{OutputSpace, colour};

use super::{DevelopOutput, DevelopRequest, Provider, ProviderError};
use ops::rejected;

pub use cutout::{Cutout, CutoutError, SegmentTarget};
pub use evaluate::{SegmentationScore, Segmenter, evaluate_segmentation, mean_iou};
pub use learned::{LearnedSegmenter, U2NET, Weights};
/// Installing, fetching and checking the learned segmenter's weights (see `learned.rs`).
pub mod segmenter {
    pub use super::learned::{fetch, install, verify, weights_path};
}

/// The tools the local provider performs.
pub(crate) const TOOLS: [&str; 9] =
    ["upscale", "reframe", "packshot", "harmonize", "color-change", "iron", "cleanup", "camera-lens", "lookbook"];

/// The tools that only resample the pixels: kept in the input's RGB space (`colourOutput`
/// `keep`), they work in that space instead of converting to sRGB and back.
const RESAMPLING_TOOLS: [&str; 1] = ["upscale"];

/// The tools the local provider performs only until a provider configured for them is present.
const STAND_INS: [&str; 1] = ["lookbook"];

/// JPEG quality of every local output.
pub(crate) const JPEG_QUALITY: u8 = 92;

/// The in-process image provider. Stateless: clones are free and every call is independent.
#[derive(Debug, Clone, Default)]
pub struct LocalProvider;

/// A decoded input: upright RGB, and its alpha when it has real transparency (the RGB is then
/// flattened onto the default packshot ground).
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// The pixels.
    pub(crate) rgb: RgbImage,
    /// Alpha, only when some pixel is not opaque.
    pub(crate) alpha: Option<GrayImage>,
}

/// Decode `bytes` under the decode limits and turn the picture upright by its EXIF orientation.
pub(crate) fn decode(bytes: &[u8], role: &str) -> Result<Frame, ProviderError> {
    decode_as(bytes, role, false)
}

/// [`decode`]; `native`: an RGB image with its own profile keeps its pixels in that space
/// (`colour::decode_native`), for a resampling tool writing back in it.
fn decode_as(bytes: &[u8], role: &str, native: bool) -> Result<Frame, ProviderError> {
    let bad = |e: image::ImageError| match e {
        image::ImageError::Limits(_) => rejected(format!(
            "the {role} image is larger than this service decodes (at most {} px a side)",
            crate::images::MAX_SIDE
        )),
        e => rejected(format!("the {role} image could not be decoded: {e}")),
    };
    // Colour-managed: the pixels in sRGB whatever profile the input carries (images/colour.rs),
    // unless `native` asks for them as stored.
    let read = if native { colour::decode_native } else { colour::decode };
    let img = read(bytes).map_err(bad)?.image;
    if img.width() == 0 || img.height() == 0 {
        return Err(rejected(format!("the {role} image has no pixels")));
    }
    if !img.color().has_alpha() {
        return Ok(Frame { rgb: img.into_rgb8(), alpha: None });
    }
    let rgba = img.into_rgba8();
    if rgba.pixels().all(|p| p.0[3] == 255) {
        return Ok(Frame { rgb: DynamicImage::ImageRgba8(rgba).into_rgb8(), alpha: None });
    }
    let ground = frame::DEFAULT_GROUND.map(u32::from);
    let mut rgb = RgbImage::new(rgba.width(), rgba.height());
    let mut alpha = GrayImage::new(rgba.width(), rgba.height());
    for ((src, dst), a) in rgba.pixels().zip(rgb.pixels_mut()).zip(alpha.pixels_mut()) {
        let k = u32::from(src.0[3]);
        dst.0 = [0, 1, 2].map(|c| ((u32::from(src.0[c]) * k + ground[c] * (255 - k) + 127) / 255) as u8);
        a.0[0] = src.0[3];
    }
    Ok(Frame { rgb, alpha: Some(alpha) })
}

/// A develop's string options, read with validation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params<'a>(pub(crate) &'a BTreeMap<String, String>);

impl Params<'_> {
    /// The trimmed value of `key`; None when absent or blank.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    /// A number within `range`, `default` when absent; a refusal when malformed or out of range.
    pub(crate) fn number(&self, key: &str, default: f32, range: RangeInclusive<f32>) -> Result<f32, ProviderError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f32>() {
                Ok(n) if range.contains(&n) => Ok(n),
                _ => Err(rejected(format!(
                    "params.{key} must be a number from {} to {}, not {v:?}",
                    range.start(),
                    range.end()
                ))),
            },
        }
    }
}

impl LocalProvider {
    /// Develop one frame on the calling thread: what [`Provider::develop`] runs on a blocking
    /// thread. For embedding in synchronous code and for benchmarks.
    pub fn develop_blocking(&self, request: &DevelopRequest) -> Result<DevelopOutput, ProviderError> {
        let tool = request.tool.as_str();
        if !TOOLS.contains(&tool) {
            return Err(rejected(format!("the local provider has no tool {tool:?}")));
        }
        for role in self.required_roles(tool) {
            if request.input(role).is_none() {
                return Err(rejected(format!("{tool} needs an input with role {role}")));
            }
        }
        let params = Params(&request.params);
        let long_edge = request.quality.long_edge();
        // The house's `colour.output` (docs/colour.md): sRGB unless `keep` and the input is RGB
        // with its own profile.
        let space = params.get(COLOUR_OUTPUT).map(OutputSpace::from_policy).unwrap_or_default();
        let target = match (space, request.input("image")) {
            (OutputSpace::Keep, Some(input)) => colour::Target::of(space, &colour::source_of(&input.bytes)),
            _ => colour::Target::srgb(),
        };
        // A resampling tool kept in the input's space works in it: no round trip through sRGB.
        let native = !target.is_srgb() && RESAMPLING_TOOLS.contains(&tool);
        let (out, target) = match tool {
            // Many inputs by role (model, garments, background): the compositor reads them.
            "lookbook" => (compose::lookbook(request, &params, long_edge)?, target),
            "upscale" if native => match Self::upscale_native(request, long_edge)? {
                Some(out) => (out, target.already_in_space()),
                None => (Self::develop_image(tool, request, &params, long_edge)?, target),
            },
            _ => (Self::develop_image(tool, request, &params, long_edge)?, target),
        };
        let mut bytes = jpeg::encode_in(&out, JPEG_QUALITY, &target)?;
        if let Some(clause) = params.get(BRAND_CLAUSE).filter(|c| !c.trim().is_empty()) {
            bytes = with_comment(bytes, &format!("{BRAND_CLAUSE}: {clause}"));
        }
        Ok(DevelopOutput { bytes, mime: "image/jpeg".to_string(), width: out.width(), height: out.height() })
    }

    /// An upscale of the `image` input in its own RGB space; None when it has transparency
    /// (flattened onto the sRGB ground, it is read the usual way).
    fn upscale_native(request: &DevelopRequest, long_edge: u32) -> Result<Option<RgbImage>, ProviderError> {
        let input = request.input("image").ok_or_else(|| rejected("upscale needs an input with role image"))?;
        let image = decode_as(&input.bytes, "image", true)?;
        if image.alpha.is_some() {
            return Ok(None);
        }
        frame::upscale(&image.rgb, long_edge).map(Some)
    }

    /// The tools that work on one `image` input (with an optional `mask` or `background`).
    fn develop_image(
        tool: &str,
        request: &DevelopRequest,
        params: &Params<'_>,
        long_edge: u32,
    ) -> Result<RgbImage, ProviderError> {
        let input = |role: &str| request.input(role).map(|i| decode(&i.bytes, role)).transpose();
        let image = input("image")?.ok_or_else(|| rejected(format!("{tool} needs an input with role image")))?;
        Ok(match tool {
            "upscale" => frame::upscale(&image.rgb, long_edge)?,
            "reframe" => frame::reframe(&image, params, long_edge)?,
            "packshot" => frame::packshot(&image, input("background")?.as_ref(), params, long_edge)?,
            "harmonize" => tone::harmonize(&image, input("background")?.as_ref(), params, long_edge)?,
            "color-change" => tone::color_change(&image, input("mask")?.as_ref(), params, long_edge)?,
            "iron" => retouch::iron(&image, params, long_edge)?,
            "cleanup" => {
                let mask = input("mask")?.ok_or_else(|| rejected("cleanup needs an input with role mask"))?;
                retouch::cleanup(&image, &mask, long_edge)?
            }
            _ => lens::camera_lens(&image, params, long_edge)?,
        })
    }

    /// The upscale tool's pixel path alone (no decode, no encode): a SIMD Lanczos3 resize of
    /// `image` so its long edge is `long_edge`, keeping the aspect.
    pub fn upscale_rgb(&self, image: &RgbImage, long_edge: u32) -> Result<RgbImage, ProviderError> {
        frame::upscale(image, long_edge)
    }

    /// The encoder every local output goes through: baseline JPEG at quality 92, encoded in
    /// bands on up to four threads and joined with restart markers (same bytes on any machine).
    pub fn encode_jpeg(&self, image: &RgbImage) -> Result<Vec<u8>, ProviderError> {
        jpeg::encode(image, JPEG_QUALITY)
    }
}

/// The option a develop carries the house's colour output policy in (`srgb` or `keep`, the brand
/// profile's `colour.output`; docs/colour.md). Absent is sRGB.
pub(crate) const COLOUR_OUTPUT: &str = "colourOutput";

/// The option a develop carries the house's brand clause in (docs/brand.md); the local tools
/// draw no words, so they record it in the frame's metadata rather than its pixels.
const BRAND_CLAUSE: &str = "brandClause";

/// `jpeg` with a JPEG comment segment (`FF FE`) holding `text` right after its start marker;
/// the pixels are untouched. Text past one segment's 65,533 bytes is cut at a character edge.
fn with_comment(jpeg: Vec<u8>, text: &str) -> Vec<u8> {
    if jpeg.len() < 2 || jpeg[..2] != [0xFF, 0xD8] {
        return jpeg;
    }
    let mut end = text.len().min(65_533);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let body = &text.as_bytes()[..end];
    let length = u16::try_from(body.len() + 2).unwrap_or(u16::MAX);
    let mut out = Vec::with_capacity(jpeg.len() + body.len() + 4);
    out.extend_from_slice(&jpeg[..2]);
    out.extend_from_slice(&[0xFF, 0xFE]);
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&jpeg[2..]);
    out
}

#[async_trait::async_trait]
impl Provider for LocalProvider {
    fn name(&self) -> &'static str {
        "local"
    }

    fn tools(&self) -> Vec<String> {
        TOOLS.iter().map(|t| t.to_string()).collect()
    }

    fn required_roles(&self, tool: &str) -> &'static [&'static str] {
        match tool {
            "cleanup" => &["image", "mask"],
            "lookbook" => &["model", "garment"],
            _ => &["image"],
        }
    }

    /// The lookbook compositor: deterministic geometry, not a generative model.
    fn stands_in(&self, tool: &str) -> bool {
        STAND_INS.contains(&tool)
    }

    /// The same reading of the options each tool makes when it develops (`local/options.rs`).
    fn check_params(
        &self,
        tool: &str,
        params: &BTreeMap<String, String>,
        quality: crate::api::Quality,
        roles: &[&str],
    ) -> Result<(), ProviderError> {
        options::check(tool, params, quality, roles)
    }

    async fn develop(&self, request: DevelopRequest) -> Result<DevelopOutput, ProviderError> {
        let provider = self.clone();
        match tokio::task::spawn_blocking(move || provider.develop_blocking(&request)).await {
            Ok(result) => result,
            // A panic is a bug that the same inputs would hit again: do not retry.
            Err(e) if e.is_panic() => Err(rejected("the local provider failed on these inputs")),
            Err(e) => Err(ProviderError::Unavailable(format!("the local develop did not finish: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Quality;
    use crate::providers::DevelopInput;
    use bytes::Bytes;
    use image::Rgb;
    use std::io::Cursor;

    fn png(img: &RgbImage) -> Bytes {
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png).expect("png");
        Bytes::from(out)
    }

    fn request(tool: &str, inputs: Vec<(&str, Bytes)>, params: &[(&str, &str)]) -> DevelopRequest {
        DevelopRequest {
            job_id: "job_test".into(),
            tool: tool.into(),
            quality: Quality::K1,
            inputs: inputs
                .into_iter()
                .map(|(role, bytes)| DevelopInput { role: role.into(), bytes, mime: "image/png".into() })
                .collect(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    fn garment_png() -> Bytes {
        png(&subject::tests::garment_on_ground())
    }

    fn mask_png() -> Bytes {
        png(&RgbImage::from_fn(200, 150, |x, y| {
            if (55..95).contains(&x) && (25..70).contains(&y) { Rgb([255, 255, 255]) } else { Rgb([0, 0, 0]) }
        }))
    }

    fn decode_out(out: &DevelopOutput) -> RgbImage {
        image::load_from_memory(&out.bytes).expect("jpeg").into_rgb8()
    }

    fn rejected_message(result: Result<DevelopOutput, ProviderError>) -> String {
        match result {
            Err(ProviderError::Rejected(m)) => m,
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    #[test]
    fn advertises_the_nine_tools_and_their_roles() {
        let p = LocalProvider;
        assert_eq!(p.name(), "local");
        assert_eq!(
            p.tools(),
            [
                "upscale",
                "reframe",
                "packshot",
                "harmonize",
                "color-change",
                "iron",
                "cleanup",
                "camera-lens",
                "lookbook"
            ]
        );
        assert_eq!(p.required_roles("cleanup"), &["image", "mask"]);
        assert_eq!(p.required_roles("lookbook"), &["model", "garment"]);
        for tool in TOOLS.iter().filter(|t| !["cleanup", "lookbook"].contains(*t)) {
            assert_eq!(p.required_roles(tool), &["image"], "{tool}");
            assert!(!p.stands_in(tool), "{tool} is the real thing");
        }
        assert!(p.stands_in("lookbook"), "the compositor gives way to a configured model");
        for tool in ["tryon", "generate-character", "fit-adjust", "lookbook-video"] {
            assert!(!p.tools().iter().any(|t| t == tool), "{tool} is not local");
        }
    }

    #[test]
    fn upscale_reaches_the_tier_and_stays_faithful() {
        let src = subject::tests::garment_on_ground();
        let out =
            LocalProvider.develop_blocking(&request("upscale", vec![("image", png(&src))], &[])).expect("upscale");
        assert_eq!((out.mime.as_str(), out.width, out.height), ("image/jpeg", 1024, 768));
        let img = decode_out(&out);
        assert_eq!(img.dimensions(), (1024, 768));
        let back = ops::resize_rgb(&img, 200, 150).expect("down");
        let diff: f64 = back.as_raw().iter().zip(src.as_raw()).map(|(a, b)| f64::from(a.abs_diff(*b))).sum::<f64>()
            / src.as_raw().len() as f64;
        assert!(diff < 2.5, "mean abs difference {diff}");
        // Portrait sources keep their aspect with the long edge on the height.
        let tall = RgbImage::from_fn(90, 120, |x, y| Rgb([x as u8, y as u8, 90]));
        let out = LocalProvider.develop_blocking(&request("upscale", vec![("image", png(&tall))], &[])).expect("tall");
        assert_eq!((out.width, out.height), (768, 1024));
    }

    #[test]
    fn every_tool_is_deterministic_and_sized_to_the_tier() {
        type Case = (&'static str, Vec<(&'static str, Bytes)>, Vec<(&'static str, &'static str)>);
        let cases: Vec<Case> = vec![
            ("upscale", vec![("image", garment_png())], vec![]),
            ("reframe", vec![("image", garment_png())], vec![("aspect", "4:5")]),
            ("packshot", vec![("image", garment_png())], vec![]),
            ("harmonize", vec![("image", garment_png())], vec![]),
            ("color-change", vec![("image", garment_png())], vec![("color", "green")]),
            ("iron", vec![("image", garment_png())], vec![]),
            ("cleanup", vec![("image", garment_png()), ("mask", mask_png())], vec![]),
            ("camera-lens", vec![("image", garment_png())], vec![]),
        ];
        let source = subject::tests::garment_on_ground();
        for (tool, inputs, params) in cases {
            let req = request(tool, inputs, &params);
            let a = LocalProvider.develop_blocking(&req).expect(tool);
            let b = LocalProvider.develop_blocking(&req).expect(tool);
            assert_eq!(a.bytes, b.bytes, "{tool} is deterministic");
            assert_eq!(a.width.max(a.height), 1024, "{tool} long edge");
            let img = decode_out(&a);
            assert_eq!(img.dimensions(), (a.width, a.height), "{tool} reports its size");
            if tool != "reframe" {
                assert_eq!((a.width, a.height), (1024, 768), "{tool} keeps the aspect");
                let plain = ops::resize_rgb(&source, 1024, 768).expect("resize");
                let changed = img.as_raw().iter().zip(plain.as_raw()).filter(|(x, y)| x.abs_diff(**y) > 4).count();
                if tool != "upscale" {
                    assert!(changed > 2_000, "{tool} changes pixels ({changed})");
                }
            } else {
                assert_eq!((a.width, a.height), (819, 1024));
            }
        }
    }

    #[tokio::test]
    async fn develop_runs_on_a_blocking_thread() {
        let provider: std::sync::Arc<dyn Provider> = std::sync::Arc::new(LocalProvider);
        let out = provider.develop(request("iron", vec![("image", garment_png())], &[("strength", "0.3")])).await;
        let out = out.expect("iron");
        assert_eq!((out.width, out.height, out.mime.as_str()), (1024, 768, "image/jpeg"));
    }

    #[test]
    fn a_brand_clause_rides_in_a_comment_not_the_pixels() {
        let image = png(&RgbImage::from_pixel(40, 30, Rgb([120, 80, 40])));
        let plain = LocalProvider.develop_blocking(&request("upscale", vec![("image", image.clone())], &[])).unwrap();
        let clause = "Brand vision: quiet tailoring.";
        let branded = LocalProvider
            .develop_blocking(&request("upscale", vec![("image", image)], &[("brandClause", clause)]))
            .unwrap();
        let needle = format!("brandClause: {clause}");
        assert!(branded.bytes.windows(needle.len()).any(|w| w == needle.as_bytes()));
        assert!(!plain.bytes.windows(11).any(|w| w == b"brandClause"));
        assert_eq!(branded.bytes[2..4], [0xFF, 0xFE]);
        assert_eq!(decode_out(&branded), decode_out(&plain), "the same pixels");
    }

    #[test]
    fn bad_inputs_are_rejected() {
        let p = LocalProvider;
        let garbage = Bytes::from_static(b"this is not an image at all");
        assert!(
            rejected_message(p.develop_blocking(&request("upscale", vec![("image", garbage)], &[])))
                .contains("decoded")
        );
        assert!(rejected_message(p.develop_blocking(&request("upscale", vec![], &[]))).contains("image"));
        assert!(
            rejected_message(p.develop_blocking(&request("cleanup", vec![("image", garment_png())], &[])))
                .contains("mask")
        );
        let msg = rejected_message(p.develop_blocking(&request(
            "color-change",
            vec![("image", garment_png())],
            &[("color", "#zz0000")],
        )));
        assert!(msg.contains("color"), "{msg}");
        assert!(
            rejected_message(p.develop_blocking(&request("tryon", vec![("image", garment_png())], &[])))
                .contains("tryon")
        );
        let msg = rejected_message(p.develop_blocking(&request(
            "iron",
            vec![("image", garment_png())],
            &[("strength", "lots")],
        )));
        assert!(msg.contains("strength"), "{msg}");
        let empty = png(&RgbImage::new(200, 150));
        let msg = rejected_message(p.develop_blocking(&request(
            "cleanup",
            vec![("image", garment_png()), ("mask", empty)],
            &[],
        )));
        assert!(msg.contains("empty"), "{msg}");
    }

    #[test]
    fn a_cut_out_uses_its_own_alpha() {
        // A transparent PNG with an opaque blue square: the packshot finds exactly that square.
        let rgba = image::RgbaImage::from_fn(160, 160, |x, y| {
            if (50..110).contains(&x) && (40..120).contains(&y) {
                image::Rgba([30, 60, 170, 255])
            } else {
                image::Rgba([0, 0, 0, 0])
            }
        });
        let mut bytes = Vec::new();
        rgba.write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png).expect("png");
        let frame = decode(&bytes, "image").expect("decode");
        let alpha = frame.alpha.as_ref().expect("alpha kept");
        assert_eq!(alpha.get_pixel(0, 0).0[0], 0);
        assert_eq!(frame.rgb.get_pixel(0, 0).0, frame::DEFAULT_GROUND);
        let out = LocalProvider
            .develop_blocking(&request("packshot", vec![("image", Bytes::from(bytes))], &[("ground", "#ffffff")]))
            .expect("packshot");
        let img = decode_out(&out);
        assert_eq!(img.dimensions(), (1024, 1024));
        let centre = img.get_pixel(512, 480).0;
        assert!(centre[2] > 140 && centre[0] < 60, "{centre:?}");
        let corner = img.get_pixel(5, 5).0;
        assert!(corner.iter().all(|c| *c > 250), "{corner:?}");
    }
}
