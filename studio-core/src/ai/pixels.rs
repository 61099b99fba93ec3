//! The lanes that answer pixels (`02-route-groups.md` §4.1): remove-background and segment by
//! box or point run on the local provider (real segmentation, no network); depth and segment by
//! label run on fal when `STUDIO_FAL_KEY` is set (503 `FAL_NOT_CONFIGURED` otherwise, nothing
//! held), and so does remove-background when `STUDIO_FAL_CUTOUT_MODEL` names a model. A hosted
//! mask passes the same subject gate as a local one (422 `SUBJECT_NOT_FOUND`, nothing charged).
//! remove-background keeps its cutout in the library; depth and segment answer a short-lived
//! signed URL (lanes.rs).
//!
//! segment's target: a `box` wins over a `point`, which wins over a `label`; box and point are
//! in pixels of the EXIF-applied frame and are checked against its size before anything is held
//! (400 `BAD_TARGET` with `width` and `height`).

use crate::ai::Ai;
use std::io::Cursor;

use serde_json::json;

use crate::admin::{FAL, LOCAL};
use crate::api::{DepthResponse, RemoveBackgroundResponse, SegmentRequest, SegmentResponse};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::new_id;
use crate::provenance::{Develop, SignedInput, sign_output};
use crate::providers::ProviderError;
use crate::providers::fal::FalLanes;
use crate::providers::local::subject::SUBJECT_NOT_FOUND;
use crate::providers::local::{Cutout, CutoutError, LocalProvider, SegmentTarget};
use crate::storage::AssetRow;

use super::lanes::{LaneImage, MAX_LANE_IMAGE_BYTES, check_upload, lane_failed, prepare_async, stored_failed};

fn fal_not_configured() -> Error {
    Error::new(
        ErrorKind::NotConfigured,
        "FAL_NOT_CONFIGURED",
        "This lane runs on fal, which is not configured on this studio (STUDIO_FAL_KEY); nothing was charged.",
    )
}

fn bad_target(message: impl Into<String>) -> Error {
    Error::invalid("BAD_TARGET", message)
}

/// A cutout failure as the lane's answer: an undecodable image is 400 `BAD_FORM`, a target
/// outside the frame 400 `BAD_TARGET`, no clear subject to cut 422 `SUBJECT_NOT_FOUND` (the subject
/// gate's sentence; nothing charged).
fn cutout_error(e: CutoutError) -> Error {
    match e {
        CutoutError::Undecodable(m) => Error::invalid("BAD_FORM", format!("The image could not be decoded: {m}.")),
        CutoutError::OutsideFrame { width, height } => {
            bad_target(format!("The target lies outside the {width} × {height} frame."))
                .with("width", width)
                .with("height", height)
        }
        CutoutError::NothingFound(m) => Error::new(
            ErrorKind::Unprocessable,
            SUBJECT_NOT_FOUND,
            format!("No clear subject to cut: {m}; nothing was charged."),
        ),
    }
}

fn provider_failed(code: &'static str, e: &ProviderError) -> Error {
    lane_failed(code, format!("fal could not answer: {e}"))
}

/// The target a segment request names, checked for shape (not yet against the frame).
enum Target {
    Local(SegmentTarget),
    Label(String),
}

fn target(req: &SegmentRequest) -> Result<Target> {
    let finite = |v: &[f64]| v.iter().all(|n| n.is_finite() && *n >= 0.0);
    if let Some(b) = &req.bbox {
        if b.len() != 4 || !finite(b) || b[2] <= b[0] || b[3] <= b[1] {
            return Err(bad_target("box is [x0, y0, x1, y1] in pixels, with x1 > x0 and y1 > y0."));
        }
        return Ok(Target::Local(SegmentTarget::Box([b[0] as f32, b[1] as f32, b[2] as f32, b[3] as f32])));
    }
    if let Some(p) = &req.point {
        if p.len() != 2 || !finite(p) {
            return Err(bad_target("point is [x, y] in pixels."));
        }
        return Ok(Target::Local(SegmentTarget::Point([p[0] as f32, p[1] as f32])));
    }
    match req.label.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
        Some(label) if label.chars().count() <= 200 => Ok(Target::Label(label.to_string())),
        Some(_) => Err(bad_target("label is at most 200 characters.")),
        None => Err(Error::invalid("TARGET_REQUIRED", "Say what to cut: box, point or label.")),
    }
}

/// 400 `BAD_TARGET` unless the box or point touches the `w` × `h` frame.
fn within(t: &SegmentTarget, (w, h): (u32, u32)) -> Result<()> {
    let (fw, fh) = (w as f32, h as f32);
    let inside = match t {
        SegmentTarget::Box(b) => b[0] < fw && b[1] < fh,
        SegmentTarget::Point(p) => p[0] < fw && p[1] < fh,
    };
    if inside {
        Ok(())
    } else {
        Err(bad_target(format!("The target lies outside the {w} × {h} frame.")).with("width", w).with("height", h))
    }
}

/// A grayscale PNG of whatever image fal answered (its depth map).
fn gray_png(bytes: &[u8]) -> Result<Vec<u8>> {
    let img =
        image::load_from_memory(bytes).map_err(|e| lane_failed("DEPTH_FAILED", format!("fal's depth map: {e}")))?;
    let mut png = Cursor::new(Vec::new());
    img.to_luma8().write_to(&mut png, image::ImageFormat::Png).map_err(Error::internal)?;
    Ok(png.into_inner())
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(work).await.map_err(Error::internal)
}

impl Ai<'_> {
    fn fal_lanes(&self) -> Result<FalLanes> {
        self.studio.config.fal_lanes.clone().ok_or_else(fal_not_configured)
    }

    /// `POST /api/toolkit/ai/remove-background`: the subject cut from its ground (the packshot
    /// tool's segmentation, or the hosted model `STUDIO_FAL_CUTOUT_MODEL` names; either behind
    /// the subject gate) as an RGBA PNG, saved in the library. 400 `NO_IMAGE`, `EMPTY_IMAGE`,
    /// `BAD_FORM`; 402; 403 viewer; 413; 422 `SUBJECT_NOT_FOUND` (no clear subject; nothing
    /// charged); 502 `REMOVE_BG_FAILED` (the hosted model failed, or the cutout could not be kept).
    pub async fn remove_background(
        &self,
        caller: &Caller,
        image: Option<LaneImage>,
    ) -> Result<RemoveBackgroundResponse> {
        caller.require_spend_tokens()?;
        caller.require_write_library()?;
        check_upload(image.as_ref(), "NO_IMAGE")?;
        let image = image.unwrap_or_else(|| unreachable!("checked above"));
        let (studio, who) = (self.studio.clone(), caller.clone());
        let hosted = self.studio.config.fal_lanes.clone().and_then(|f| Some((f.cutout_model.clone()?, f)));
        let (asset_id, spent) = match hosted {
            None => {
                self.charged(caller, ("remove-background", LOCAL), None, async move {
                    let bytes = image.bytes.clone();
                    let cut = blocking(move || LocalProvider.remove_background_blocking(&bytes))
                        .await?
                        .map_err(cutout_error)?;
                    studio.ai().keep_cutout(&who, &image, cut, LOCAL).await
                })
                .await?
            }
            Some((model, fal)) => {
                let prepared = prepare_async(image.bytes.clone()).await?;
                self.charged(caller, ("remove-background", FAL), None, async move {
                    let uri = crate::outbound::data_uri(&prepared.image.mime, &prepared.image.bytes);
                    let answer = fal
                        .provider
                        .run_model(&model, &json!({"image_url": uri}))
                        .await
                        .map_err(|e| provider_failed("REMOVE_BG_FAILED", &e))?;
                    let bytes = image.bytes.clone();
                    let cut = blocking(move || LocalProvider.cutout_by_mask_blocking(&bytes, &answer.bytes))
                        .await?
                        .map_err(cutout_error)?;
                    studio.ai().keep_cutout(&who, &image, cut, FAL).await
                })
                .await?
            }
        };
        Ok(RemoveBackgroundResponse { url: self.studio.library().asset_file_url(&asset_id), spent, asset_id })
    }

    /// File a cutout of `source` as a new asset of the house (kind clothes, tool
    /// `remove-background`), signed with content credentials naming `source` as its parent and
    /// `provider` as the one that cut it.
    async fn keep_cutout(&self, caller: &Caller, source: &LaneImage, cut: Cutout, provider: &str) -> Result<String> {
        let id = new_id("ast");
        let key = format!("orgs/{}/assets/{id}", caller.org_id);
        let house = self.studio.accounts().house_name(&caller.org_id).await?;
        let develop = Develop {
            tool: "remove-background".into(),
            quality: String::new(),
            provider: provider.into(),
            job_id: String::new(),
            house_id: caller.org_id.to_string(),
            house_name: house,
        };
        let input = SignedInput {
            title: source.file_name.clone().unwrap_or_else(|| "image (sent with the request)".into()),
            mime: infer::get(&source.bytes).map_or("image/jpeg", |t| t.mime_type()).to_string(),
            bytes: source.bytes.clone(),
        };
        let credentials = self.studio.config.credentials.clone();
        let (png, provenance) = sign_output(credentials, cut.png, "image/png".into(), develop, vec![input])
            .await
            .map_err(|e| lane_failed("REMOVE_BG_FAILED", e))?;
        let blob = self
            .studio
            .blobs
            .put_bytes(&key, png, (MAX_LANE_IMAGE_BYTES * 8) as u64, |mime| mime == "image/png")
            .await
            .map_err(|e| stored_failed(e, "REMOVE_BG_FAILED"))?;
        let stem = source.file_name.as_deref().map(crate::images::display_name).filter(|n| !n.is_empty());
        let name = format!("{} · cutout", stem.as_deref().unwrap_or("Upload"));
        let kind = crate::api::AssetKind::Clothes.as_str();
        let dims = Some((cut.width, cut.height));
        let name: String = name.chars().take(200).collect();
        let filed =
            AssetRow::over_blob(id.clone(), &caller.org_id, Some(caller.user_id.to_string()), name, kind, &blob, dims);
        let row = AssetRow { tool: Some("remove-background".to_string()), ..filed.with_provenance(&provenance) };
        if let Err(e) = self.studio.library().add_asset(row).await {
            let _ = self.studio.blobs.delete(&key).await;
            return Err(e);
        }
        Ok(id)
    }

    /// `POST /api/toolkit/ai/segment`: one object cut out of an image of this house, as an RGBA
    /// PNG behind a short-lived signed URL, with its bounds. 400 `BAD_JSON`, `IMAGE_REQUIRED`,
    /// `BAD_IMAGE_URL`, `TARGET_REQUIRED`, `BAD_TARGET`; 402; 403; 404 `ASSET_NOT_FOUND`; 422
    /// `SUBJECT_NOT_FOUND` (nothing to cut at the box or point, or the gate refuses fal's mask
    /// for a label; nothing charged); 502
    /// `SEGMENT_FAILED`; 503 `FAL_NOT_CONFIGURED` (label only).
    pub async fn segment(&self, caller: &Caller, req: SegmentRequest) -> Result<SegmentResponse> {
        caller.require_spend_tokens()?;
        if req.image_url.trim().is_empty() {
            return Err(Error::invalid("IMAGE_REQUIRED", "Name the image in imageUrl."));
        }
        let target = target(&req)?;
        let source = self.lane_source(caller, &req.image_url).await?;
        let (studio, org) = (self.studio.clone(), caller.org_id.clone());
        let ((url, bbox), spent) = match target {
            Target::Local(t) => {
                let dims = crate::images::header_dimensions(&source.bytes)?
                    .ok_or_else(|| Error::invalid("BAD_FORM", "The image's size cannot be read."))?;
                within(&t, dims)?;
                self.charged(caller, ("segment", LOCAL), None, async move {
                    let bytes = source.bytes.clone();
                    let cut =
                        blocking(move || LocalProvider.segment_blocking(&bytes, t)).await?.map_err(cutout_error)?;
                    let url = studio.ai().keep_lane_result(&org, "segment", "SEGMENT_FAILED", cut.png).await?;
                    Ok((url, cut.bbox))
                })
                .await?
            }
            Target::Label(label) => {
                let fal = self.fal_lanes()?;
                let prepared = prepare_async(source.bytes.clone()).await?;
                self.charged(caller, ("segment", FAL), None, async move {
                    let uri = crate::outbound::data_uri(&prepared.image.mime, &prepared.image.bytes);
                    let input = json!({"image_url": uri, "prompt": label, "mask_only": true});
                    let mask = fal
                        .provider
                        .run_model(&fal.segment_model, &input)
                        .await
                        .map_err(|e| provider_failed("SEGMENT_FAILED", &e))?;
                    let bytes = source.bytes.clone();
                    let cut = blocking(move || LocalProvider.cutout_by_mask_blocking(&bytes, &mask.bytes))
                        .await?
                        .map_err(cutout_error)?;
                    let url = studio.ai().keep_lane_result(&org, "segment", "SEGMENT_FAILED", cut.png).await?;
                    Ok((url, cut.bbox))
                })
                .await?
            }
        };
        Ok(SegmentResponse { url, bbox, spent })
    }

    /// `POST /api/toolkit/ai/depth`: a grayscale depth map from fal behind a short-lived signed
    /// URL. 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402; 403; 413; 502 `DEPTH_FAILED`;
    /// 503 `FAL_NOT_CONFIGURED`.
    pub async fn depth(&self, caller: &Caller, image: Option<LaneImage>) -> Result<DepthResponse> {
        caller.require_spend_tokens()?;
        check_upload(image.as_ref(), "IMAGE_REQUIRED")?;
        let fal = self.fal_lanes()?;
        let prepared = prepare_async(image.map(|i| i.bytes).unwrap_or_default()).await?;
        let (studio, org) = (self.studio.clone(), caller.org_id.clone());
        let (url, spent) = self
            .charged(caller, ("depth", FAL), None, async move {
                let uri = crate::outbound::data_uri(&prepared.image.mime, &prepared.image.bytes);
                let map = fal
                    .provider
                    .run_model(&fal.depth_model, &json!({"image_url": uri}))
                    .await
                    .map_err(|e| provider_failed("DEPTH_FAILED", &e))?;
                let png = blocking(move || gray_png(&map.bytes)).await??;
                studio.ai().keep_lane_result(&org, "depth", "DEPTH_FAILED", png).await
            })
            .await?;
        Ok(DepthResponse { url, spent })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(bbox: Option<Vec<f64>>, point: Option<Vec<f64>>, label: Option<&str>) -> SegmentRequest {
        SegmentRequest { image_url: "ast_1".into(), label: label.map(str::to_string), bbox, point }
    }

    #[test]
    fn targets_are_checked_before_anything_is_held() {
        let code = |r: SegmentRequest| target(&r).err().map(|e| e.code);
        assert_eq!(code(req(None, None, None)), Some("TARGET_REQUIRED"));
        assert_eq!(code(req(None, None, Some("  "))), Some("TARGET_REQUIRED"));
        assert_eq!(code(req(Some(vec![10.0, 10.0, 5.0, 20.0]), None, None)), Some("BAD_TARGET"));
        assert_eq!(code(req(Some(vec![1.0, 2.0]), None, None)), Some("BAD_TARGET"));
        assert_eq!(code(req(None, Some(vec![-1.0, 2.0]), None)), Some("BAD_TARGET"));
        assert!(matches!(
            target(&req(Some(vec![0.0, 0.0, 5.0, 5.0]), Some(vec![1.0, 1.0]), Some("coat"))),
            Ok(Target::Local(SegmentTarget::Box(_)))
        ));
        assert!(matches!(target(&req(None, None, Some("coat"))), Ok(Target::Label(_))));
        assert!(within(&SegmentTarget::Point([99.0, 10.0]), (100, 50)).is_ok());
        assert_eq!(within(&SegmentTarget::Box([100.0, 0.0, 120.0, 10.0]), (100, 50)).unwrap_err().code, "BAD_TARGET");
    }
}
