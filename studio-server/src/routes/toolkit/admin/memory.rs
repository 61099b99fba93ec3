//! `/api/toolkit/admin/memory/...`: the memory desk: observations that move a memory's
//! confidence, and the review queue of doubtful memories (docs/analyst.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{
    ObserveMemoryRequest, ObservedMemory, ReviewMemoryRequest, ReviewQueue, ReviewQueueQuery, ReviewedMemory,
};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

async fn observe(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<ObserveMemoryRequest>,
) -> Result<Created<ObservedMemory>, AppError> {
    Ok(Created(state.studio.admin().observe_memory(&admin, body).await?))
}

async fn queue(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<ReviewQueueQuery>,
) -> Result<ApiJson<ReviewQueue>, AppError> {
    Ok(ApiJson(state.studio.admin().review_queue(&admin, query).await?))
}

async fn review(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(body): ApiJson<ReviewMemoryRequest>,
) -> Result<ApiJson<ReviewedMemory>, AppError> {
    Ok(ApiJson(state.studio.admin().review_memory(&admin, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/memory/observations",
            post_with(observe, |op| {
                op.summary("Record what was seen that bears on a memory")
                    .description(
                        "Admin only. Moves the memory's confidence a quarter of the way toward 1 (supports) or 0, and \
                         its evidence count by one. 201. 400 MEMORY_REQUIRED, SUPPORTS_REQUIRED, NOTE_REQUIRED, \
                         NOTE_TOO_LONG; 404 MEMORY_NOT_FOUND; 409 MEMORY_NOT_ACTIVE.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/memory/review",
            get_with(queue, |op| {
                op.summary("Memories waiting for review")
                    .description(
                        "Admin only. Every house's active memories below confidence 0.5 that no review has seen since \
                         they last changed, least confident first, with their observations. `limit` 1 to 200, \
                         `cursor`. 400 BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            })
            .post_with(review, |op| {
                op.summary("Keep or retire a doubtful memory")
                    .description(
                        "Admin only. keep takes it off the queue until it changes again; retire retires it (never \
                         again given to the assistant). 400 MEMORY_REQUIRED, DECISION_REQUIRED; 404 \
                         MEMORY_NOT_FOUND; 409 MEMORY_NOT_ACTIVE.",
                    )
                    .tag("admin")
            }),
        )
}
