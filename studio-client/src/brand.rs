//! Brand (§4.3) through the client: the house's profile (show, patch), the brand DNA read
//! over 1 to 10 images, and the house's marks (list, register, change, unregister).

use std::future::ready;

use reqwest::{Method, RequestBuilder};
use studio_core::api::{
    BrandDnaResponse, BrandPatch, BrandResponse, CreateMarkRequest, MarkDeleted, MarkList, MarkPatch, MarkResponse,
};

use crate::Error;
use crate::client::{Client, IMAGE_UPLOAD, PartSource, encode};
use crate::develops::{Field, InputSource, form_of};

impl Client {
    /// `GET /api/toolkit/brand`: the profile, with the clause develops carry and the colour and
    /// metadata policies; a house that never ran a read gets the empty defaults (`srgb`,
    /// `rights`).
    pub async fn brand_profile(&self) -> Result<BrandResponse, Error> {
        self.get("/api/toolkit/brand").await
    }

    /// `PATCH /api/toolkit/brand`: given fields replace the stored ones, then the whole is
    /// clamped (docs/brand.md); `colour` and `metadata` set the house's colour and metadata
    /// policies (docs/colour.md). 400 `BAD_JSON`, `BAD_COLOUR_OUTPUT`, `BAD_METADATA_OUTPUT`; 403
    /// for a viewer.
    pub async fn patch_brand(&self, patch: &BrandPatch) -> Result<BrandResponse, Error> {
        self.patch("/api/toolkit/brand", patch).await
    }

    /// `POST /api/toolkit/brand/dna`: read the house's visual identity from 1 to 10 images
    /// (12 MB each, 32 MB together), with the house's own `vibe` words and what it makes. The
    /// first successful read is free, later ones cost 2 tokens; a failure charges nothing. A
    /// library asset ([`InputSource::Asset`]) is fetched first and sent as bytes. Sent once.
    ///
    /// Refusals: 400 `NO_IMAGES`, `BAD_FORM`; 402; 403; 413 `IMAGE_TOO_LARGE`, `SET_TOO_LARGE`
    /// (extra `maxMb`); 502 `AI_FAILED`, `AI_BAD_OUTPUT`; 503 `AI_NOT_CONFIGURED`.
    pub async fn brand_dna(
        &self,
        images: &[InputSource],
        vibe: &[String],
        products: Option<&str>,
    ) -> Result<BrandDnaResponse, Error> {
        let mut fields: Vec<(String, Field<'_>)> = Vec::with_capacity(images.len() + 2);
        for (index, source) in images.iter().enumerate() {
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
            fields.push(("image".into(), Field::File(part)));
        }
        if !vibe.is_empty() {
            let json = serde_json::to_string(vibe).map_err(|e| Error::Decode { status: 0, detail: e.to_string() })?;
            fields.push(("vibe".into(), Field::Text(json)));
        }
        if let Some(products) = products {
            fields.push(("products".into(), Field::Text(products.to_string())));
        }
        let fields = &fields;
        let build = |request: RequestBuilder| async move {
            Ok(request.multipart(form_of(fields).await?).timeout(IMAGE_UPLOAD))
        };
        Ok(self.call(Method::POST, "/api/toolkit/brand/dna", false, build).await?.0)
    }

    /// `GET /api/toolkit/brand/marks?collectionId`: the house's set, the collection's set and
    /// which one rides. 404 `COLLECTION_NOT_FOUND`.
    pub async fn brand_marks(&self, collection_id: Option<&str>) -> Result<MarkList, Error> {
        match collection_id {
            Some(c) => self.get(&format!("/api/toolkit/brand/marks?collectionId={}", encode(c))).await,
            None => self.get("/api/toolkit/brand/marks").await,
        }
    }

    /// `POST /api/toolkit/brand/marks`: register an uploaded image as a mark. 400
    /// `ASSET_REQUIRED`, `BAD_MATERIAL`; 403 `role_cannot_edit_marks`; 404; 409
    /// `ALREADY_REGISTERED`.
    pub async fn create_mark(&self, req: &CreateMarkRequest) -> Result<MarkResponse, Error> {
        self.post("/api/toolkit/brand/marks", req).await
    }

    /// `PATCH /api/toolkit/brand/marks/{id}`: absent fields stay; null clears placement and
    /// note. 400 `BAD_MATERIAL`; 403; 404.
    pub async fn update_mark(&self, id: &str, patch: &MarkPatch) -> Result<MarkResponse, Error> {
        self.patch(&format!("/api/toolkit/brand/marks/{}", encode(id)), patch).await
    }

    /// `DELETE /api/toolkit/brand/marks/{id}`: unregister; the asset stays in the library.
    pub async fn delete_mark(&self, id: &str) -> Result<MarkDeleted, Error> {
        let path = format!("/api/toolkit/brand/marks/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }
}
