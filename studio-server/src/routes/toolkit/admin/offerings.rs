//! `/api/toolkit/admin/offerings/...`: the catalog, for platform admins.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{AdminOfferingList, AdminOfferingResponse, AdminPageQuery, OfferingCreate};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct IdPath {
    /// The offering's id (`mdl_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<AdminPageQuery>,
) -> Result<ApiJson<AdminOfferingList>, AppError> {
    Ok(ApiJson(state.studio.admin().offerings(&admin, query).await?))
}

async fn create(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<OfferingCreate>,
) -> Result<Created<AdminOfferingResponse>, AppError> {
    Ok(Created(state.studio.admin().create_offering(&admin, body).await?))
}

async fn retire(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(IdPath { id }): ApiPath<IdPath>,
) -> Result<ApiJson<AdminOfferingResponse>, AppError> {
    Ok(ApiJson(state.studio.admin().retire_offering(&admin, &studio_core::ModelId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/offerings",
            get_with(list, |op| {
                op.summary("Every offering, retired included, newest first")
                    .description("Admin only. `limit` 1 to 200 (default 50), `cursor` the previous `nextCursor`. 400 BAD_LIMIT, BAD_CURSOR.")
                    .tag("admin")
            })
            .post_with(create, |op| {
                op.summary("Publish a model from the admin's own frames")
                    .description(
                        "Admin only. priceCents 0 is free; priced may be exclusive (one house at a time). 201. 400 \
                         BAD_KIND, NAME_REQUIRED, BAD_BODY, BAD_PRICE, BAD_CURRENCY, BAD_ASSET_IDS; 404 ASSET_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/offerings/{id}/retire",
            post_with(retire, |op| {
                op.summary("Retire an offering")
                    .description("Admin only. No new claims or takes; holdings stay. Idempotent. 404 OFFERING_NOT_FOUND.")
                    .tag("admin")
            }),
        )
}
