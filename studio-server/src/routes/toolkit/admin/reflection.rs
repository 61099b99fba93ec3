//! `/api/toolkit/admin/reflection/...`: the findings the analyst's digests raise, and an
//! admin's decision on each (docs/analyst.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{DecideFindingRequest, FindingsQuery, ReflectionFinding, ReflectionFindingList};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The finding's id (`fnd_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<FindingsQuery>,
) -> Result<ApiJson<ReflectionFindingList>, AppError> {
    Ok(ApiJson(state.studio.admin().findings(&admin, query).await?))
}

async fn decide(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
    ApiJson(body): ApiJson<DecideFindingRequest>,
) -> Result<ApiJson<ReflectionFinding>, AppError> {
    Ok(ApiJson(state.studio.admin().decide_finding(&admin, &id, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/reflection/findings",
            get_with(list, |op| {
                op.summary("The analyst's findings, newest first")
                    .description(
                        "Admin only. `status` open, accepted or dismissed; `limit` 1 to 200 (default 50), `cursor` the \
                         previous `nextCursor`. 400 BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/reflection/findings/{id}/decision",
            post_with(decide, |op| {
                op.summary("Accept or dismiss a finding")
                    .description(
                        "Admin only. Once: 409 FINDING_DECIDED (with status) after. 400 DECISION_REQUIRED, NOTE_TOO_LONG; \
                         404 FINDING_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
}
