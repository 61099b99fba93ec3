//! `GET /api/internal/analyst/support`: the support figures of a window, for the analyst
//! (bearer analyst token): counts by status, topic and reason, the median first-reply time and
//! the tickets themselves (docs/support.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{AnalystSupport, AnalystSupportQuery};

use crate::auth::{Analyst, MachineAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn support(
    State(state): State<AppState>,
    machine: MachineAuth<Analyst>,
    ApiQuery(query): ApiQuery<AnalystSupportQuery>,
) -> Result<ApiJson<AnalystSupport>, AppError> {
    Ok(ApiJson(state.studio.support().analyst(&machine.0, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/internal/analyst/support",
        get_with(support, |op| {
            op.summary("Support figures of a window (analyst)")
                .description(
                    "Bearer analyst token (STUDIO_ANALYST_TOKEN; unset: 401 for everyone). Query hours (1-2160, \
                     default 168), limit (1-200, default 50), ticketId, status (new, open, pending, on_hold, \
                     resolved). Tickets raised in the window: counts by status, topic and escalation reason, how many \
                     support answered, the median seconds to support's first reply, noted reports, and the tickets \
                     newest first. Codes: 400 BAD_HOURS, BAD_LIMIT, BAD_STATUS, BAD_QUERY; 401.",
                )
                .tag("internal")
        }),
    )
}
