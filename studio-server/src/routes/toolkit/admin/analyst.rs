//! `/api/toolkit/admin/analyst/...`: the analyst's latest digest, its cadence and a run, for
//! platform admins (docs/analyst.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with};
use axum::extract::State;
use studio_core::api::{AnalystCadence, AnalystRun, AnalystView, CadenceRequest, DigestQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn read(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<DigestQuery>,
) -> Result<ApiJson<AnalystView>, AppError> {
    Ok(ApiJson(state.studio.admin().analyst(&admin, query).await?))
}

async fn set_cadence(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<CadenceRequest>,
) -> Result<ApiJson<AnalystCadence>, AppError> {
    Ok(ApiJson(state.studio.admin().set_cadence(&admin, body).await?))
}

async fn run(State(state): State<AppState>, AdminAuth(admin): AdminAuth) -> Result<ApiJson<AnalystRun>, AppError> {
    Ok(ApiJson(state.studio.admin().run_analyst(&admin).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/analyst",
            get_with(read, |op| {
                op.summary("The analyst's latest digest")
                    .description(
                        "Admin only. The latest digest (null before the first), `history` (at most 50) earlier ones \
                         newest first, the cadence and the findings waiting for a decision.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/analyst/cadence",
            patch_with(set_cadence, |op| {
                op.summary("Set how often the analyst writes a digest")
                    .description(
                        "Admin only. hours 1 to 672 (required), enabled turns the analyst's own runs on or off. 400 \
                         HOURS_REQUIRED, BAD_HOURS (with min, max).",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/analyst/run",
            post_with(run, |op| {
                op.summary("Run the analyst now")
                    .description(
                        "Admin only. Returns the digest already written inside the cadence window (reused: true), \
                         else writes one over the window's figures: by the AI reader when one is configured and at \
                         least 5 frames landed in the period, else as plain figures with no model call.",
                    )
                    .tag("admin")
            }),
        )
}
