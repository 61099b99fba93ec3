//! `POST /api/support/escalations`: the support bridge hands a chat to a human (§4.11). Its
//! authority is the `x-support-bridge-secret` header; unset on the server, 503 for everyone.

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::extract::State;
use studio_core::Escalator;
use studio_core::api::{Escalation, Ticket};

use crate::auth::{MachineAuth, SupportBridgeRoute};
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::respond::Created;
use crate::state::AppState;

async fn escalate(
    State(state): State<AppState>,
    machine: MachineAuth<SupportBridgeRoute>,
    ApiJson(body): ApiJson<Escalation>,
) -> Result<Created<Ticket>, AppError> {
    Ok(Created(state.studio.support().escalate(Escalator::Bridge(&machine.0), body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/support/escalations",
        post_with(escalate, |op| {
            op.summary("Escalate a chat to support (the support bridge)")
                .description(
                    "Header `x-support-bridge-secret` (STUDIO_SUPPORT_BRIDGE_SECRET). JSON reason (handoff, turn_limit, \
                     ai_down, leak_guard, requested), sessionId (required), organizationId (the house, `org_…`), \
                     contactEmail, transcript (objects, at most 200 and 256 KB). 201 the ticket. Codes: 400 \
                     BAD_REASON, SESSION_REQUIRED, BAD_EMAIL, TRANSCRIPT_TOO_LARGE, BAD_BODY; 401 wrong or missing \
                     secret; 404 HOUSE_NOT_FOUND; 503 SUPPORT_BRIDGE_NOT_CONFIGURED (no secret set).",
                )
                .tag("support")
        }),
    )
}
