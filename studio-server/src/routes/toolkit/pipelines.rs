//! `/api/toolkit/pipelines/...`: presets, preview, runs and cancel (§4.6).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with};
use axum::extract::State;
use studio_core::api::{
    PipelineCancelResponse, PipelinePresetBody, PipelinePresetDeleted, PipelinePresetList, PipelinePresetPatch,
    PipelinePresetResponse, PipelinePreview, PipelinePreviewRequest, PipelineRunDetail, PipelineRunList,
    PipelineRunRequest, PipelineRunStarted,
};
use studio_core::{PresetId, RunId};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::respond::{Accepted, Created};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The preset's id, or the run's (`run_<uuid>`, or its develop id `run.<uuid>`).
    id: String,
}

async fn list_presets(
    State(state): State<AppState>,
    Auth(caller): Auth,
) -> Result<ApiJson<PipelinePresetList>, AppError> {
    Ok(ApiJson(state.studio.pipelines().pipeline_presets(&caller).await?))
}

async fn create_preset(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<PipelinePresetBody>,
) -> Result<Created<PipelinePresetResponse>, AppError> {
    Ok(Created(state.studio.pipelines().create_pipeline_preset(&caller, body.0).await?))
}

async fn update_preset(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(body): ApiJson<PipelinePresetPatch>,
) -> Result<ApiJson<PipelinePresetResponse>, AppError> {
    Ok(ApiJson(state.studio.pipelines().update_pipeline_preset(&caller, &id, body.plan).await?))
}

async fn delete_preset(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<PipelinePresetDeleted>, AppError> {
    Ok(ApiJson(state.studio.pipelines().delete_pipeline_preset(&caller, &PresetId::from(&id)).await?))
}

async fn preview(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<PipelinePreviewRequest>,
) -> Result<ApiJson<PipelinePreview>, AppError> {
    Ok(ApiJson(state.studio.pipelines().preview_pipeline(&caller, req).await?))
}

async fn list_runs(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<PipelineRunList>, AppError> {
    Ok(ApiJson(state.studio.pipelines().pipeline_runs(&caller).await?))
}

async fn start_run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<PipelineRunRequest>,
) -> Result<Accepted<PipelineRunStarted>, AppError> {
    Ok(Accepted(state.studio.pipelines().start_pipeline_run(&caller, req).await?, false))
}

async fn get_run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<PipelineRunDetail>, AppError> {
    Ok(ApiJson(state.studio.pipelines().pipeline_run(&caller, &RunId::from(&id)).await?))
}

async fn cancel_run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<PipelineCancelResponse>, AppError> {
    Ok(ApiJson(state.studio.pipelines().cancel_pipeline_run(&caller, &RunId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/pipelines/presets",
            get_with(list_presets, |op| {
                op.summary("The house's pipeline presets, newest first (100)").tag("pipelines")
            })
            .post_with(create_preset, |op| {
                op.summary("Save a plan as a preset")
                    .description(
                        "Body {plan} or the plan itself ({name, sinkFolderId?, nodes[]}; docs/pipelines.md). \
                             Any role but viewer. 400 BAD_BODY, BAD_PLAN (with node when one node is at fault).",
                    )
                    .tag("pipelines")
            }),
        )
        .api_route(
            "/api/toolkit/pipelines/presets/{id}",
            patch_with(update_preset, |op| {
                op.summary("Replace a preset's plan")
                    .description("400 BAD_BODY, BAD_PLAN; 403 viewer; 404 NOT_FOUND for a preset not the house's.")
                    .tag("pipelines")
            })
            .delete_with(delete_preset, |op| {
                op.summary("Delete a preset")
                    .description("Runs keep the plan they ran. 403 viewer; 404 NOT_FOUND.")
                    .tag("pipelines")
            }),
        )
        .api_route(
            "/api/toolkit/pipelines/preview",
            post_with(preview, |op| {
                op.summary("Compile a plan over items and price every frame")
                    .description(
                        "Reserves nothing. {compiled, spendable, affordable}: every step with its price from the \
                         price book, upstream first; steps an item cannot feed are listed in skipped. 400 BAD_BODY, \
                         BAD_PLAN, BAD_ITEMS; 404 ASSET_NOT_FOUND (with item); 422 LINE_TOO_WIDE {frames, max} past \
                         700 frames.",
                    )
                    .tag("pipelines")
            }),
        )
        .api_route(
            "/api/toolkit/pipelines/runs",
            get_with(list_runs, |op| op.summary("The house's pipeline runs, newest first (50)").tag("pipelines"))
                .post_with(start_run, |op| {
                    op.summary("Start a run: every step held, then developed as its inputs land")
                        .description(
                            "plan or planId, items (required), brandId, idempotencyKey. One hold per step is \
                             reserved, in the transaction that records the run, before any job row exists; steps \
                             whose inputs are the items' assets are queued at once (started), the others when their \
                             upstream frames land. A balance that cannot cover the whole line is 402 with nothing \
                             created. The run is also run.<uuid> in GET /api/toolkit/develops. 400 BAD_BODY, \
                             BAD_PLAN, BAD_ITEMS; 402 INSUFFICIENT_TOKENS; 403 viewer; 404 PRESET_NOT_FOUND or \
                             ASSET_NOT_FOUND; 409 IDEMPOTENCY_KEY_REUSED; 422 LINE_TOO_WIDE.",
                        )
                        .tag("pipelines")
                }),
        )
        .api_route(
            "/api/toolkit/pipelines/runs/{id}",
            get_with(get_run, |op| {
                op.summary("A run with every step and the plan it ran")
                    .description(
                        "Step status: waiting (held, inputs not landed), queued, running, done, failed, cancelled. \
                         404 NOT_FOUND.",
                    )
                    .tag("pipelines")
            }),
        )
        .api_route(
            "/api/toolkit/pipelines/runs/{id}/cancel",
            post_with(cancel_run, |op| {
                op.summary("Cancel a run")
                    .description(
                        "The run is flagged first so nothing more is queued; waiting steps and queued frames are \
                         cancelled and released; rendering frames finish and cost. 403 viewer; 404 NOT_FOUND.",
                    )
                    .tag("pipelines")
            }),
        )
}
