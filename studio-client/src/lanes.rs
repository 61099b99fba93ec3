//! The AI utility lanes and text tools through the client (`02-route-groups.md` §4.1, §4.2):
//! one method per route (six image lanes posting one multipart `image` part, six JSON calls),
//! and [`Client::fetch_lane_result`], which downloads the short-lived signed URL depth and
//! segment answer.
//!
//! Every lane spends one token (refunded on any failure) and carries no idempotency key, so each
//! call is sent once, never retried: a timeout cannot charge twice. The refusals every lane
//! shares: 401; 402 `INSUFFICIENT_TOKENS` or `AI_NEEDS_BILLING` (extras `need`, `spendable`);
//! 403 `FORBIDDEN` (a viewer); 413 `IMAGE_TOO_LARGE` (extra `maxMb`, 12 MB per image);
//! 502 `AI_FAILED`, `AI_BAD_OUTPUT`; 503 `AI_NOT_CONFIGURED`.

use reqwest::{Method, RequestBuilder};
use serde::Serialize;
use serde::de::DeserializeOwned;
use studio_core::api::{
    DepthResponse, DescribeItemResponse, DetectItemsResponse, ExtractBuildResponse, ExtractCharacterResponse,
    FaceFeaturesRequest, FaceFeaturesResponse, InspirationRequest, InspirationResponse, PromptBuilderRequest,
    PromptBuilderResponse, PromptEnhancerRequest, PromptEnhancerResponse, RemoveBackgroundResponse, SegmentRequest,
    SegmentResponse, ShotPromptsRequest, ShotPromptsResponse,
};

use crate::client::{Client, IMAGE_UPLOAD, PartSource};
use crate::develops::InputSource;
use crate::error::Error;

/// The lanes' common prefix.
const LANES: &str = "/api/toolkit/ai";

impl Client {
    /// POST one image as the multipart part `image` to the lane at `{LANES}/{lane}` (sent once).
    /// A library asset ([`InputSource::Asset`]) is fetched first and sent as bytes.
    async fn image_lane<T: DeserializeOwned>(&self, lane: &str, image: &InputSource) -> Result<T, Error> {
        let part = match image {
            InputSource::Path(path) => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                PartSource::File(path, name.unwrap_or_else(|| "image".into()))
            }
            InputSource::Bytes { file_name, bytes } => {
                PartSource::Memory(bytes::Bytes::from(bytes.clone()), file_name.clone())
            }
            InputSource::Asset(id) => {
                // Sent under the asset's own name, so what the lane files is named after it.
                let name = self.asset_detail(id).await?.asset.name.replace(['/', '\\'], "-");
                PartSource::Memory(self.asset_bytes(id).await?, format!("{name}.img"))
            }
        };
        let part = &part;
        let build = |request: RequestBuilder| async move {
            let form = reqwest::multipart::Form::new().part("image", part.part().await?);
            Ok(request.multipart(form).timeout(IMAGE_UPLOAD))
        };
        Ok(self.call(Method::POST, &format!("{LANES}/{lane}"), false, build).await?.0)
    }

    /// POST a JSON body to the lane at `{LANES}/{lane}` (sent once), waiting as long as an image
    /// lane does: the server may wait minutes on its upstream (fal up to its time limit), and a
    /// client that gave up first would lose an answer it is charged for.
    async fn json_lane<B: Serialize + Sync, T: DeserializeOwned>(&self, lane: &str, body: &B) -> Result<T, Error> {
        let build = |request: RequestBuilder| std::future::ready(Ok(request.json(body).timeout(IMAGE_UPLOAD)));
        Ok(self.call(Method::POST, &format!("{LANES}/{lane}"), false, build).await?.0)
    }

    /// `POST /api/toolkit/ai/depth`: the image's grayscale depth map (near is light), answered
    /// as a short-lived signed `url` ([`Client::fetch_lane_result`] downloads it); never kept in
    /// the library. 1 token.
    ///
    /// Refusals: 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402; 403; 413
    /// `IMAGE_TOO_LARGE`; 502 `DEPTH_FAILED`; 503 `FAL_NOT_CONFIGURED`.
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
    /// use studio_client::InputSource;
    ///
    /// let depth = client.depth(&InputSource::Path("shots/coat.jpg".into())).await?;
    /// let png = client.fetch_lane_result(&depth.url).await?;
    /// std::fs::write("coat-depth.png", &png).expect("write");
    /// # Ok(()) }
    /// ```
    pub async fn depth(&self, image: &InputSource) -> Result<DepthResponse, Error> {
        self.image_lane("depth", image).await
    }

    /// `POST /api/toolkit/ai/describe-item`: what the piece is (`nameEn`, at most 40
    /// characters) and the library kind it belongs to (anything else is `clothes`). 1 token.
    ///
    /// Refusals: 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402 `INSUFFICIENT_TOKENS` or
    /// `AI_NEEDS_BILLING`; 403; 413; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn describe_item(&self, image: &InputSource) -> Result<DescribeItemResponse, Error> {
        self.image_lane("describe-item", image).await
    }

    /// `POST /api/toolkit/ai/detect-items`: the pieces seen (at most 20), each with an
    /// approximate box `[ymin, xmin, ymax, xmax]` from 0 to 1000 in the raw stored pixel matrix
    /// (EXIF orientation not applied). 1 token.
    ///
    /// Refusals: 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402; 403; 413; 502
    /// `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn detect_items(&self, image: &InputSource) -> Result<DetectItemsResponse, Error> {
        self.image_lane("detect-items", image).await
    }

    /// `POST /api/toolkit/ai/extract-build`: the body fields (height, build, presence, posture,
    /// hands) of one full-length figure; `figureDetected` false with every field empty otherwise.
    /// Never invents. 1 token.
    ///
    /// Refusals: 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402; 403; 413; 502
    /// `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn extract_build(&self, image: &InputSource) -> Result<ExtractBuildResponse, Error> {
        self.image_lane("extract-build", image).await
    }

    /// `POST /api/toolkit/ai/extract-character`: the face fields (age, skin, eyes, hair,
    /// extras); `faceDetected` false with every field empty when no face is seen. 1 token.
    ///
    /// Refusals: 400 `IMAGE_REQUIRED`, `EMPTY_IMAGE`, `BAD_FORM`; 402; 403; 413; 502
    /// `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn extract_character(&self, image: &InputSource) -> Result<ExtractCharacterResponse, Error> {
        self.image_lane("extract-character", image).await
    }

    /// `POST /api/toolkit/ai/remove-background`: the cutout (an RGBA PNG), saved in the library
    /// as a new asset (`assetId`; `url` is its file URL). 1 token, charged only when it lands.
    ///
    /// Refusals: 400 `NO_IMAGE`, `EMPTY_IMAGE`, `BAD_FORM`; 402 (extras `need`, `spendable`);
    /// 403 `FORBIDDEN` (a viewer); 413 `IMAGE_TOO_LARGE` (extra `maxMb`); 502 `REMOVE_BG_FAILED`
    /// (nothing charged). It runs on the server's own pixels: never 503.
    pub async fn remove_background(&self, image: &InputSource) -> Result<RemoveBackgroundResponse, Error> {
        self.image_lane("remove-background", image).await
    }

    /// `POST /api/toolkit/ai/segment` (JSON): cut one thing out of an image of this house.
    /// `imageUrl` is an asset id (`ast_…`), this house's asset file URL, or a URL a lane
    /// answered; at least one target (`label`, `box` or `point`, in pixels of the EXIF-applied
    /// frame). Answers the RGBA cutout as a short-lived signed `url` (never kept in the library)
    /// and the object's `bbox`. 1 token.
    ///
    /// Refusals: 400 `BAD_JSON`, `IMAGE_REQUIRED`, `TARGET_REQUIRED`, `BAD_TARGET`; 402; 403;
    /// 502 `SEGMENT_FAILED`; 503 `FAL_NOT_CONFIGURED`.
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
    /// use studio_client::api::SegmentRequest;
    ///
    /// let req = SegmentRequest {
    ///     image_url: "ast_0190abc".into(),
    ///     bbox: Some(vec![120.0, 80.0, 620.0, 900.0]),
    ///     ..SegmentRequest::default()
    /// };
    /// let cut = client.segment(&req).await?;
    /// let png = client.fetch_lane_result(&cut.url).await?;
    /// println!("{} bytes, object at {:?}", png.len(), cut.bbox);
    /// # Ok(()) }
    /// ```
    pub async fn segment(&self, req: &SegmentRequest) -> Result<SegmentResponse, Error> {
        self.json_lane("segment", req).await
    }

    /// `POST /api/toolkit/ai/face-features` (JSON `{imageUrl}`, as for [`Client::segment`]):
    /// twenty facial-feature keywords, or none with `faceDetected` false. 1 token.
    ///
    /// Refusals: 400 `BAD_JSON`, `IMAGE_REQUIRED`; 402 `INSUFFICIENT_TOKENS` or
    /// `AI_NEEDS_BILLING`; 403; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn face_features(&self, req: &FaceFeaturesRequest) -> Result<FaceFeaturesResponse, Error> {
        self.json_lane("face-features", req).await
    }

    /// `POST /api/toolkit/ai/inspiration-keywords` (JSON `{vibe}`): 1 to 8 groups of keywords
    /// for a mood. 1 token.
    ///
    /// Refusals: 400 `BAD_JSON`, `VIBE_REQUIRED`; 402 `INSUFFICIENT_TOKENS` or
    /// `AI_NEEDS_BILLING`; 403; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn inspiration_keywords(&self, req: &InspirationRequest) -> Result<InspirationResponse, Error> {
        self.json_lane("inspiration-keywords", req).await
    }

    /// `POST /api/toolkit/ai/imagemodel-prompts` (JSON `{description, direction?, count?}`):
    /// `count` shots (1 to 12, default 4), each a label and an image-model prompt. 1 token.
    ///
    /// Refusals: 400 `BAD_JSON`, `DESCRIPTION_REQUIRED`, `BAD_COUNT`; 402 `INSUFFICIENT_TOKENS`
    /// or `AI_NEEDS_BILLING`; 403; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn imagemodel_prompts(&self, req: &ShotPromptsRequest) -> Result<ShotPromptsResponse, Error> {
        self.json_lane("imagemodel-prompts", req).await
    }

    /// `POST /api/toolkit/ai/prompt-builder` (JSON `{subject, vibe?}`): one image prompt. 1
    /// token.
    ///
    /// Refusals: 400 `BAD_JSON`, `SUBJECT_REQUIRED`; 402 `INSUFFICIENT_TOKENS` or
    /// `AI_NEEDS_BILLING`; 403; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn prompt_builder(&self, req: &PromptBuilderRequest) -> Result<PromptBuilderResponse, Error> {
        self.json_lane("prompt-builder", req).await
    }

    /// `POST /api/toolkit/ai/prompt-enhancer` (JSON `{prompt, intent?}`): the improved prompt
    /// and what was changed (at most 8 notes). 1 token.
    ///
    /// Refusals: 400 `BAD_JSON`, `PROMPT_REQUIRED`; 402 `INSUFFICIENT_TOKENS` or
    /// `AI_NEEDS_BILLING`; 403; 502 `AI_BAD_OUTPUT` or `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn prompt_enhancer(&self, req: &PromptEnhancerRequest) -> Result<PromptEnhancerResponse, Error> {
        self.json_lane("prompt-enhancer", req).await
    }

    /// GET the PNG behind a lane's result URL (`{public base}/api/toolkit/ai/results/{id}?e=&s=`,
    /// as depth and segment answer), read whole. A relative URL (starting with `/`, answered by
    /// a server with no public URL) is resolved against this client's base URL. The signature is
    /// the permission: no credential is sent, so a key never leaves for another host. Retried
    /// per the policy (a GET). A forged URL is refused 403 `BAD_SIGNATURE`, an expired one 410
    /// `LINK_EXPIRED`, a swept result 404.
    pub async fn fetch_lane_result(&self, url: &str) -> Result<bytes::Bytes, Error> {
        let url = url.trim();
        let absolute = if url.starts_with("http://") || url.starts_with("https://") {
            url.to_string()
        } else if url.starts_with('/') {
            format!("{}{url}", self.base_url())
        } else {
            format!("{}/{url}", self.base_url())
        };
        self.get_bytes(&absolute).await
    }
}
