//! `/api/toolkit/admin/longhorizon...`: a house's long-horizon autonomy: read and revise.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{Autonomy, AutonomyQuery, AutonomyRevision};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn read(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(q): ApiQuery<AutonomyQuery>,
) -> Result<ApiJson<Autonomy>, AppError> {
    Ok(ApiJson(state.studio.internal().autonomy(&admin, q).await?))
}

async fn revise(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<AutonomyRevision>,
) -> Result<ApiJson<Autonomy>, AppError> {
    Ok(ApiJson(state.studio.internal().revise_autonomy(&admin, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/longhorizon",
            get_with(read, |op| {
                op.summary("A house's long-horizon autonomy")
                    .description(
                        "Admin session only. `organizationId` required (400 ORGANIZATION_REQUIRED; 404 \
                         ORGANIZATION_NOT_FOUND). `manual` at revision 0 until first revised.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/longhorizon/revise",
            post_with(revise, |op| {
                op.summary("Revise a house's long-horizon autonomy")
                    .description(
                        "Admin session only. {organizationId, level (manual, suggest, supervised, autonomous), note, \
                         expectedRevision}. 400 ORGANIZATION_REQUIRED, BAD_LEVEL, TOO_LONG, \
                         EXPECTED_REVISION_REQUIRED; 404 ORGANIZATION_NOT_FOUND; 409 STALE_REVISION (with revision).",
                    )
                    .tag("admin")
            }),
        )
}
