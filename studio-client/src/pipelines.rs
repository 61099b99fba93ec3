//! Pipelines (§4.6): presets, the priced preview of a plan over items, and runs (start, list,
//! show, cancel).

use std::future::ready;

use reqwest::Method;
use serde::Serialize;
use studio_core::api::{
    PipelineCancelResponse, PipelinePresetDeleted, PipelinePresetList, PipelinePresetResponse, PipelinePreview,
    PipelineRunDetail, PipelineRunList, PipelineRunRequest, PipelineRunStarted, Plan, PlanItem,
};

use crate::Error;
use crate::client::{Client, encode};
use crate::retry::new_idempotency_key;

/// `{plan}`: the body of a preset's create and replace.
#[derive(Serialize)]
struct PlanBody<'a> {
    plan: &'a Plan,
}

/// `{plan, items}`: the body of a preview (the wire shape of `PipelinePreviewRequest`).
#[derive(Serialize)]
struct PreviewBody<'a> {
    plan: &'a Plan,
    items: &'a [PlanItem],
}

impl Client {
    /// `GET /api/toolkit/pipelines/presets`: newest first, 100.
    pub async fn pipeline_presets(&self) -> Result<PipelinePresetList, Error> {
        self.get("/api/toolkit/pipelines/presets").await
    }

    /// `POST /api/toolkit/pipelines/presets`: save a plan (400 `BAD_PLAN` naming the node at
    /// fault).
    pub async fn create_pipeline_preset(&self, plan: &Plan) -> Result<PipelinePresetResponse, Error> {
        self.post("/api/toolkit/pipelines/presets", &PlanBody { plan }).await
    }

    /// `PATCH /api/toolkit/pipelines/presets/{id}`: replace the preset's name, sink and nodes.
    pub async fn update_pipeline_preset(&self, id: &str, plan: &Plan) -> Result<PipelinePresetResponse, Error> {
        self.patch(&format!("/api/toolkit/pipelines/presets/{}", encode(id)), &PlanBody { plan }).await
    }

    /// `DELETE /api/toolkit/pipelines/presets/{id}`: runs keep the plan they ran.
    pub async fn delete_pipeline_preset(&self, id: &str) -> Result<PipelinePresetDeleted, Error> {
        let path = format!("/api/toolkit/pipelines/presets/{}", encode(id));
        Ok(self.call(Method::DELETE, &path, false, |r| ready(Ok(r))).await?.0)
    }

    /// `POST /api/toolkit/pipelines/preview`: every frame of the plan over `items` with its
    /// price, and whether the balance covers the line; reserves nothing.
    pub async fn preview_pipeline(&self, plan: &Plan, items: &[PlanItem]) -> Result<PipelinePreview, Error> {
        self.post("/api/toolkit/pipelines/preview", &PreviewBody { plan, items }).await
    }

    /// `GET /api/toolkit/pipelines/runs`: newest first, 50.
    pub async fn pipeline_runs(&self) -> Result<PipelineRunList, Error> {
        self.get("/api/toolkit/pipelines/runs").await
    }

    /// `POST /api/toolkit/pipelines/runs` (202): hold every step of the line, queue those whose
    /// inputs are the items' assets.
    ///
    /// The request always carries an idempotency key (the caller's, or a fresh one), so it is
    /// retried like a read: a retry the server already took answers the same run with
    /// `replayed` true and holds nothing more.
    pub async fn start_pipeline_run(&self, mut req: PipelineRunRequest) -> Result<PipelineRunStarted, Error> {
        req.idempotency_key.get_or_insert_with(new_idempotency_key);
        self.post_json("/api/toolkit/pipelines/runs", &req, true).await
    }

    /// `GET /api/toolkit/pipelines/runs/{id}`: the run, every step and the plan it ran (`id` is
    /// `run_…` or its develop id `run.…`).
    pub async fn pipeline_run(&self, id: &str) -> Result<PipelineRunDetail, Error> {
        self.get(&format!("/api/toolkit/pipelines/runs/{}", encode(id))).await
    }

    /// `POST /api/toolkit/pipelines/runs/{id}/cancel`: nothing more is queued; waiting and
    /// queued steps are released; rendering frames finish and cost.
    pub async fn cancel_pipeline_run(&self, id: &str) -> Result<PipelineCancelResponse, Error> {
        self.post(&format!("/api/toolkit/pipelines/runs/{}/cancel", encode(id)), &serde_json::json!({})).await
    }
}
