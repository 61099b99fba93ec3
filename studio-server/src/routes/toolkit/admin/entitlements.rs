//! `/api/toolkit/admin/entitlements/...`: what houses hold (and the payments that could not
//! become holdings), and revoking a holding, for platform admins.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{AdminEntitlements, AdminPageQuery, RevokeEntitlement, RevokedEntitlement};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn entitlements(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<AdminPageQuery>,
) -> Result<ApiJson<AdminEntitlements>, AppError> {
    Ok(ApiJson(state.studio.admin().entitlements(&admin, query).await?))
}

async fn revoke(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<RevokeEntitlement>,
) -> Result<ApiJson<RevokedEntitlement>, AppError> {
    Ok(ApiJson(state.studio.admin().revoke_entitlement(&admin, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/entitlements",
            get_with(entitlements, |op| {
                op.summary("Holdings, newest first, and the latest payment cases")
                    .description(
                        "Admin only. `house` filters by organization; `limit` 1 to 200 (default 50); `cursor`. A \
                         case is a payment that could not become a holding: refunded, or waiting for review.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/entitlements/revoke",
            post_with(revoke, |op| {
                op.summary("Revoke a holding")
                    .description("Admin only. 400 ID_REQUIRED; 404 ENTITLEMENT_NOT_FOUND. Nothing is refunded here.")
                    .tag("admin")
            }),
        )
}
