//! Looks, shot templates, the standing preset and the composer's vocabulary.

use studio_core::api::{
    CreateLookRequest, LookDetail, LookList, LookResponse, PresetRequest, PresetResponse, TemplateDetail, TemplateList,
    Vocabulary,
};

use crate::Error;
use crate::client::{Client, encode};

impl Client {
    /// `GET /api/toolkit/lookbook/vocabulary`: every legal value of the composer.
    pub async fn lookbook_vocabulary(&self) -> Result<Vocabulary, Error> {
        self.get("/api/toolkit/lookbook/vocabulary").await
    }

    /// `GET /api/toolkit/lookbook/looks`: newest first, 50.
    pub async fn looks(&self) -> Result<LookList, Error> {
        self.get("/api/toolkit/lookbook/looks").await
    }

    /// `POST /api/toolkit/lookbook/looks`: a draft look from selections (nothing is charged).
    pub async fn create_look(&self, req: &CreateLookRequest) -> Result<LookResponse, Error> {
        self.post("/api/toolkit/lookbook/looks", req).await
    }

    /// `GET /api/toolkit/lookbook/looks/{id}`.
    pub async fn look(&self, id: &str) -> Result<LookDetail, Error> {
        self.get(&format!("/api/toolkit/lookbook/looks/{}", encode(id))).await
    }

    /// `GET /api/toolkit/lookbook/templates`.
    pub async fn shot_templates(&self) -> Result<TemplateList, Error> {
        self.get("/api/toolkit/lookbook/templates").await
    }

    /// `GET /api/toolkit/lookbook/templates/{id}`.
    pub async fn shot_template(&self, id: &str) -> Result<TemplateDetail, Error> {
        self.get(&format!("/api/toolkit/lookbook/templates/{}", encode(id))).await
    }

    /// `GET /api/toolkit/presets`: the standing preset (defaults until saved).
    pub async fn standing_preset(&self) -> Result<PresetResponse, Error> {
        self.get("/api/toolkit/presets").await
    }

    /// `POST /api/toolkit/presets`.
    pub async fn save_standing_preset(&self, req: &PresetRequest) -> Result<PresetResponse, Error> {
        self.post("/api/toolkit/presets", req).await
    }
}
