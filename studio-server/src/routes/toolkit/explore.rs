//! `/api/toolkit/explore/...`: the catalog's offerings and taking one (§4.7).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{OfferingList, TakeResponse};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// An offering.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct OfferingPath {
    /// The offering's kind (`model`).
    kind: String,
    /// The offering's id.
    id: String,
}

async fn explore(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<OfferingList>, AppError> {
    Ok(ApiJson(state.studio.models().explore(&caller).await?))
}

async fn take(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(OfferingPath { kind, id }): ApiPath<OfferingPath>,
) -> Result<ApiJson<TakeResponse>, AppError> {
    Ok(ApiJson(state.studio.models().take_offering(&caller, &kind, &id).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/explore",
            get_with(explore, |op| {
                op.summary("The catalog's offerings").description("Free, then sale, then exclusive.").tag("models")
            }),
        )
        .api_route(
            "/api/toolkit/explore/{kind}/{id}/take",
            post_with(take, |op| {
                op.summary("Take an offering")
                    .description(
                        "A free one is granted now (any role but viewer); a priced one opens the house's checkout \
                         (owner's session) and answers pending true. 403; 404; 409 TAKEN or CHECKOUT_PENDING; 502 \
                         CHECKOUT_FAILED; 503 NOT_FOR_SALE or BILLING_NOT_CONFIGURED.",
                    )
                    .tag("models")
            }),
        )
}
