//! `/api/toolkit/factory/...`: plan looks from pieces, then draft the confirmed ones in one batch
//! (§4.5).

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{FactoryPlan, FactoryPlanRequest, FactoryRunRequest, FactoryRunResponse};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::respond::Created;
use crate::state::AppState;

async fn plan(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<FactoryPlanRequest>,
) -> Result<ApiJson<FactoryPlan>, AppError> {
    Ok(ApiJson(state.studio.lookbook().plan(&caller, req).await?))
}

async fn run(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(req): ApiJson<FactoryRunRequest>,
) -> Result<Created<FactoryRunResponse>, AppError> {
    Ok(Created(state.studio.lookbook().run(&caller, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/factory/plan",
            post_with(plan, |op| {
                op.summary("Propose looks from pieces and price them")
                    .description(
                        "Reads only: nothing is written or held. Any role. Pieces sharing a hand-made group form one \
                         look; of the rest, pieces sharing a SKU form one; a piece with neither is its own look. Each \
                         piece gets a role guessed from its kind and name; a look holds at most 8 pieces (a larger \
                         group splits into several looks); background and variation keys come from the standing \
                         preset. At most 50 looks are returned (truncated true past it). cost: perFrame is the \
                         lookbook frame's price at quality (the preset's when absent), framesPerLook is 1 (the \
                         develop-lock) plus the preset's variation keys, frames = looks × framesPerLook, total = \
                         frames × perFrame; balance is what the house can spend now; modelReady says the preset's \
                         model is still a live asset of the house. 400 BAD_BODY (a blank id, a model or background \
                         asset, more than 200 ids), ASSETS_REQUIRED; 404 ASSET_NOT_FOUND.",
                    )
                    .tag("lookbook")
            }),
        )
        .api_route(
            "/api/toolkit/factory/run",
            post_with(run, |op| {
                op.summary("Draft the confirmed looks in one batch")
                    .description(
                        "Creates one draft look per look asked, all under one new batchId with the planned \
                         variation keys and quality (the standing preset's when absent); spends nothing. Every look \
                         is checked as a hand-made look is before anything is written: one bad look refuses the \
                         whole run, and its refusal carries lookIndex. Any role but viewer. 400 BAD_BODY, \
                         LOOKS_REQUIRED, TOO_MANY_LOOKS (with max, 50), MODEL_REQUIRED, BAD_AESTHETIC (with the \
                         presets), NAME_REQUIRED, ITEMS_REQUIRED, TOO_MANY_ITEMS, BAD_ITEM (with the roles), \
                         BAD_BACKGROUND (with the ground presets), KEYS_REQUIRED, TOO_MANY_FRAMES, UNKNOWN_VARIATION \
                         (with the keys); 403 viewer; 404 ASSET_NOT_FOUND.",
                    )
                    .tag("lookbook")
            }),
        )
}
