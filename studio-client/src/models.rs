//! The casting board and its market (§4.7): models (list, show, patch, keep, preview, checkout),
//! explore's offerings and takes, the house's entitlements, and the admin's catalog.

use studio_core::api::{
    AdminEntitlements, AdminOfferingList, AdminOfferingResponse, CastModelRequest, Entitlements, ModelCheckout,
    ModelList, ModelPatch, ModelResponse, OfferingCreate, OfferingList, RevokeEntitlement, RevokedEntitlement,
    TakeResponse,
};

use crate::Error;
use crate::client::{Client, encode};

/// A page query suffix (`?limit=&cursor=&house=`), empty when nothing is asked.
fn page_suffix(limit: Option<i64>, cursor: Option<&str>, house: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(limit) = limit {
        parts.push(format!("limit={limit}"));
    }
    if let Some(cursor) = cursor {
        parts.push(format!("cursor={}", encode(cursor)));
    }
    if let Some(house) = house {
        parts.push(format!("house={}", encode(house)));
    }
    if parts.is_empty() { String::new() } else { format!("?{}", parts.join("&")) }
}

impl Client {
    /// `GET /api/toolkit/models`: the board (yours and held, then free, sale, exclusive).
    pub async fn models(&self) -> Result<ModelList, Error> {
        self.get("/api/toolkit/models").await
    }

    /// `GET /api/toolkit/models/{id}`: out of scope is 404.
    pub async fn model(&self, id: &str) -> Result<ModelResponse, Error> {
        self.get(&format!("/api/toolkit/models/{}", encode(id))).await
    }

    /// `PATCH /api/toolkit/models/{id}`: add identity sheets, merge traits (own models only).
    pub async fn patch_model(&self, id: &str, patch: &ModelPatch) -> Result<ModelResponse, Error> {
        self.patch(&format!("/api/toolkit/models/{}", encode(id)), patch).await
    }

    /// `POST /api/toolkit/models/own`: keep a model of the house's own frames (free).
    pub async fn own_model(&self, req: &CastModelRequest) -> Result<ModelResponse, Error> {
        self.post("/api/toolkit/models/own", req).await
    }

    /// `POST /api/toolkit/models/{id}/checkout`: the owner's checkout for a priced model.
    pub async fn checkout_model(&self, id: &str) -> Result<ModelCheckout, Error> {
        self.post(&format!("/api/toolkit/models/{}/checkout", encode(id)), &serde_json::json!({})).await
    }

    /// `GET /api/toolkit/models/{id}/preview/{n}`: an identity frame's bytes.
    pub async fn model_preview(&self, id: &str, n: usize) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/models/{}/preview/{n}", encode(id))).await
    }

    /// `GET /api/toolkit/explore`: the catalog's offerings.
    pub async fn explore(&self) -> Result<OfferingList, Error> {
        self.get("/api/toolkit/explore").await
    }

    /// `POST /api/toolkit/explore/{kind}/{id}/take`: free now, priced opens a checkout.
    pub async fn take_offering(&self, kind: &str, id: &str) -> Result<TakeResponse, Error> {
        let path = format!("/api/toolkit/explore/{}/{}/take", encode(kind), encode(id));
        self.post(&path, &serde_json::json!({})).await
    }

    /// `GET /api/toolkit/entitlements`: holdings and open checkouts.
    pub async fn entitlements(&self) -> Result<Entitlements, Error> {
        self.get("/api/toolkit/entitlements").await
    }

    /// `GET /api/toolkit/admin/offerings` (platform admin).
    pub async fn admin_offerings(&self, limit: Option<i64>, cursor: Option<&str>) -> Result<AdminOfferingList, Error> {
        self.get(&format!("/api/toolkit/admin/offerings{}", page_suffix(limit, cursor, None))).await
    }

    /// `POST /api/toolkit/admin/offerings` (platform admin).
    pub async fn admin_create_offering(&self, req: &OfferingCreate) -> Result<AdminOfferingResponse, Error> {
        self.post("/api/toolkit/admin/offerings", req).await
    }

    /// `POST /api/toolkit/admin/offerings/{id}/retire` (platform admin).
    pub async fn admin_retire_offering(&self, id: &str) -> Result<AdminOfferingResponse, Error> {
        self.post(&format!("/api/toolkit/admin/offerings/{}/retire", encode(id)), &serde_json::json!({})).await
    }

    /// `GET /api/toolkit/admin/entitlements` (platform admin).
    pub async fn admin_entitlements(
        &self,
        limit: Option<i64>,
        cursor: Option<&str>,
        house: Option<&str>,
    ) -> Result<AdminEntitlements, Error> {
        self.get(&format!("/api/toolkit/admin/entitlements{}", page_suffix(limit, cursor, house))).await
    }

    /// `POST /api/toolkit/admin/entitlements/revoke` (platform admin).
    pub async fn admin_revoke_entitlement(&self, req: &RevokeEntitlement) -> Result<RevokedEntitlement, Error> {
        self.post("/api/toolkit/admin/entitlements/revoke", req).await
    }
}
