//! Looks, shot templates, the standing preset and the composer's vocabulary.

use studio_core::api::{
    CreateLookRequest, DevelopLockRequest, DevelopLockResponse, LockRequest, LookDetail, LookList, LookResponse,
    PresetRequest, PresetResponse, TemplateDetail, TemplateList, VariationsRequest, VariationsResponse, Vocabulary,
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

    /// `POST /api/toolkit/lookbook/looks/{id}/develop-lock`: develop a draft look's base frame
    /// (the whole cost is held first; 409 `LOOK_LOCKED`, `DEVELOP_IN_FLIGHT`).
    pub async fn develop_look(&self, id: &str, req: &DevelopLockRequest) -> Result<DevelopLockResponse, Error> {
        self.post(&format!("/api/toolkit/lookbook/looks/{}/develop-lock", encode(id)), req).await
    }

    /// `POST /api/toolkit/lookbook/looks/{id}/lock`: lock on one of the look's landed frames.
    pub async fn lock_look(&self, id: &str, asset_id: &str) -> Result<LookResponse, Error> {
        let req = LockRequest { asset_id: Some(asset_id.to_string()) };
        self.post(&format!("/api/toolkit/lookbook/looks/{}/lock", encode(id)), &req).await
    }

    /// `POST /api/toolkit/lookbook/looks/{id}/unlock`: back to draft (a draft is unchanged).
    pub async fn unlock_look(&self, id: &str) -> Result<LookResponse, Error> {
        self.post(&format!("/api/toolkit/lookbook/looks/{}/unlock", encode(id)), &serde_json::json!({})).await
    }

    /// `POST /api/toolkit/lookbook/looks/{id}/variations`: one frame per key, all held or none.
    pub async fn look_variations(&self, id: &str, req: &VariationsRequest) -> Result<VariationsResponse, Error> {
        self.post(&format!("/api/toolkit/lookbook/looks/{}/variations", encode(id)), req).await
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
