//! `/api/toolkit/admin/...`: platform admin routes (allowlisted session emails only): token
//! grants here; the people pages, the mail archive and the platform gate's admin routes in their
//! own files, merged here.

mod access;
mod ai_costs;
mod analyst;
mod develops;
mod emails;
mod entitlements;
mod experiments;
mod failures;
mod feature_flags;
mod frames;
mod invite;
mod invite_codes;
mod invite_requests;
mod judge;
mod kept_cost;
mod longhorizon;
mod memory;
mod offerings;
mod onboarding;
mod overview;
mod payments;
mod reflection;
mod replay;
mod support;
mod tokenomics;
mod tool_items;
mod users;

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::api::{GrantTokensRequest, GrantTokensResponse};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn grant_tokens(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<GrantTokensRequest>,
) -> Result<ApiJson<GrantTokensResponse>, AppError> {
    Ok(ApiJson(state.studio.admin().grant_tokens(&admin, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(access::router())
        .merge(analyst::router())
        .merge(reflection::router())
        .merge(memory::router())
        .merge(onboarding::router())
        .merge(tool_items::router())
        .merge(users::router())
        .merge(emails::router())
        .merge(invite::router())
        .merge(invite_codes::router())
        .merge(invite_requests::router())
        .merge(offerings::router())
        .merge(entitlements::router())
        .merge(ai_costs::router())
        .merge(develops::router())
        .merge(failures::router())
        .merge(frames::router())
        .merge(judge::router())
        .merge(kept_cost::router())
        .merge(overview::router())
        .merge(payments::router())
        .merge(tokenomics::router())
        .merge(experiments::router())
        .merge(feature_flags::router())
        .merge(longhorizon::router())
        .merge(replay::router())
        .merge(support::router())
        .api_route(
        "/api/toolkit/admin/grant-tokens",
        post_with(grant_tokens, |op| {
            op.summary("Grant tokens into a person's house")
                .description("Allowlisted admin session only (403 otherwise). 400 USER_REQUIRED, BAD_TOKENS (with max); 404 USER_NOT_FOUND.")
                .tag("admin")
        }),
    )
}
