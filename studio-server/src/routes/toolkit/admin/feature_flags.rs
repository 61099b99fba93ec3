//! `/api/toolkit/admin/feature-flags...`: the platform's feature flags: list and set.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, put_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{FeatureFlag, FlagList, FlagPut, FlagsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// Path of one flag.
#[derive(Debug, Deserialize, JsonSchema)]
struct FlagKey {
    /// The flag's key.
    key: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(q): ApiQuery<FlagsQuery>,
) -> Result<ApiJson<FlagList>, AppError> {
    Ok(ApiJson(state.studio.internal().flags(&admin, q).await?))
}

async fn put(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(FlagKey { key }): ApiPath<FlagKey>,
    ApiJson(body): ApiJson<FlagPut>,
) -> Result<ApiJson<FeatureFlag>, AppError> {
    Ok(ApiJson(state.studio.internal().put_flag(&admin, &key, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/feature-flags",
            get_with(list, |op| {
                op.summary("The feature flags by key, paged")
                    .description("Admin session only. `limit`, `active` (true, false, all), `after` a key.")
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/feature-flags/{key}",
            put_with(put, |op| {
                op.summary("Set a feature flag (created when new)")
                    .description(
                        "Admin session only. {active (required), description, rolloutPercent (0-100, default 100)}. \
                         400 BAD_KEY, ACTIVE_REQUIRED, BAD_ROLLOUT, TOO_LONG.",
                    )
                    .tag("admin")
            }),
        )
}
