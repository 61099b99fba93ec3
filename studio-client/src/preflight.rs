//! Pre-flight through the client: `POST /api/toolkit/ai/preflight`, free pixel checks on up to
//! six images before paying for a develop.

use reqwest::{Method, RequestBuilder};
use studio_core::api::PreflightResult;

use crate::client::{Client, IMAGE_UPLOAD, PartSource};
use crate::develops::{Field, InputSource, form_of};
use crate::error::Error;

/// The images and questions of one pre-flight ([`Client::preflight`]).
///
/// ```no_run
/// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
/// use studio_client::{InputSource, PreflightCheck};
///
/// let check = PreflightCheck::new()
///     .image(InputSource::Path("shots/coat-front.jpg".into()))
///     .image(InputSource::Asset("ast_coat_back".into()));
/// let answer = client.preflight(&check).await?;
/// for finding in &answer.findings {
///     println!("{} on images {:?}: {} ({})", finding.code, finding.images, finding.says, finding.fix);
/// }
/// if answer.clear {
///     println!("nothing to fix before the develop");
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct PreflightCheck {
    /// The images, in order (findings name them by 1-based position); at most
    /// [`MAX_PREFLIGHT_IMAGES`](studio_core::api::MAX_PREFLIGHT_IMAGES). A library asset ([`InputSource::Asset`]) is fetched first and
    /// sent as bytes.
    pub images: Vec<InputSource>,
    /// Narrow the question: `casting look` or `build sheet` (see
    /// [`PREFLIGHT_LENSES`](studio_core::api::PREFLIGHT_LENSES)); empty asks the garment questions.
    pub lens: Vec<String>,
    /// Finding codes the caller says it fixed; the answer reports them as cleared or remaining.
    pub clearing: Vec<String>,
}

impl PreflightCheck {
    /// A pre-flight with no images yet.
    pub fn new() -> Self {
        PreflightCheck::default()
    }

    /// Add an image.
    pub fn image(mut self, source: InputSource) -> Self {
        self.images.push(source);
        self
    }

    /// Add a lens (`casting look` or `build sheet`).
    pub fn lens(mut self, lens: impl Into<String>) -> Self {
        self.lens.push(lens.into());
        self
    }

    /// Add a finding code the caller says it fixed.
    pub fn clearing(mut self, code: impl Into<String>) -> Self {
        self.clearing.push(code.into());
        self
    }
}

impl Client {
    /// `POST /api/toolkit/ai/preflight`: free pixel checks on 1 to 6 images (multipart `images`
    /// parts with `lens` and `clearing` text fields). Nothing is held or charged.
    ///
    /// Refusals: 400 `IMAGES_REQUIRED` (a form with no field at all is `BAD_FORM`),
    /// `TOO_MANY_IMAGES` (extra `max`), `EMPTY_IMAGE`, `BAD_FORM`; 401; 413 `IMAGE_TOO_LARGE`
    /// (extra `maxMb`). Sent once (a POST without an idempotency key is never retried).
    pub async fn preflight(&self, check: &PreflightCheck) -> Result<PreflightResult, Error> {
        let mut fields: Vec<(String, Field<'_>)> = Vec::with_capacity(check.images.len() + 2);
        for (index, source) in check.images.iter().enumerate() {
            let part = match source {
                InputSource::Path(path) => {
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    PartSource::File(path, name.unwrap_or_else(|| format!("image-{}", index + 1)))
                }
                InputSource::Bytes { file_name, bytes } => {
                    PartSource::Memory(bytes::Bytes::from(bytes.clone()), file_name.clone())
                }
                InputSource::Asset(id) => PartSource::Memory(self.asset_bytes(id).await?, format!("{id}.img")),
            };
            fields.push(("images".into(), Field::File(part)));
        }
        for lens in &check.lens {
            fields.push(("lens".into(), Field::Text(lens.clone())));
        }
        for code in &check.clearing {
            fields.push(("clearing".into(), Field::Text(code.clone())));
        }
        let fields = &fields;
        let build = |request: RequestBuilder| async move {
            Ok(request.multipart(form_of(fields).await?).timeout(IMAGE_UPLOAD))
        };
        Ok(self.call(Method::POST, "/api/toolkit/ai/preflight", false, build).await?.0)
    }
}
