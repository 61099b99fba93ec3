//! `/api/toolkit/admin/judge/...`: the kept verdicts, one develop's verdict and their rollup
//! (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::JobId;
use studio_core::api::{JudgeRollup, RollupQuery, StoredVerdict, VerdictPage, VerdictsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct JobPath {
    /// The develop (job) id.
    job_id: String,
}

async fn rollup(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<RollupQuery>,
) -> Result<ApiJson<JudgeRollup>, AppError> {
    Ok(ApiJson(state.studio.admin().judge_rollup(&admin, query).await?))
}

async fn verdicts(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<VerdictsQuery>,
) -> Result<ApiJson<VerdictPage>, AppError> {
    Ok(ApiJson(state.studio.admin().verdicts(&admin, query).await?))
}

async fn verdict(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(JobPath { job_id }): ApiPath<JobPath>,
) -> Result<ApiJson<StoredVerdict>, AppError> {
    Ok(ApiJson(state.studio.admin().verdict_of(&admin, &JobId::from(&job_id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/judge/rollup",
            get_with(rollup, |op| {
                op.summary("Kept verdicts rolled up by day, week or month")
                    .description(
                        "Admin only. Filters `house`, `tool`, `rubric` (integer), `model`; `bucket` day, week or \
                         month (default day); `since` days 1 to 366 (default 30); `limit` the most recent buckets, 1 \
                         to 400. Each bucket: count, readable, passed, passRate, meanScore. 400 BAD_BUCKET, \
                         BAD_SINCE, BAD_LIMIT.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/judge/verdicts",
            get_with(verdicts, |op| {
                op.summary("Kept verdicts, newest first")
                    .description(
                        "Admin only. Filters `house`, `tool`, `rubric`, `model`, `since` days; `limit` 1 to 200, \
                         `cursor`. 400 BAD_SINCE, BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/judge/verdicts/{jobId}",
            get_with(verdict, |op| {
                op.summary("One develop's verdict")
                    .description(
                        "Admin only. The kept verdict under the current rubric, judged and kept now when there is \
                         none yet. 404 NOT_FOUND; 409 NOT_LANDED when the develop has no frame.",
                    )
                    .tag("admin")
            }),
        )
}
