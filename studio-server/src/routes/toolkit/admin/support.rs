//! `/api/toolkit/admin/support...`: the admin support queue (allowlisted admins only, 403
//! otherwise): every house's tickets, one whole thread, reply, internal note, status
//! (docs/support.md).

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{AdminThread, AdminTicketList, AdminTicketsQuery, SupportWords, TicketStatusChange};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::state::AppState;

/// Path of one ticket.
#[derive(Debug, Deserialize, JsonSchema)]
struct TicketId {
    /// The ticket's id (`tkt_…`).
    id: String,
}

async fn queue(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<AdminTicketsQuery>,
) -> Result<ApiJson<AdminTicketList>, AppError> {
    Ok(ApiJson(state.studio.support().queue(&admin, query).await?))
}

async fn thread(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(TicketId { id }): ApiPath<TicketId>,
) -> Result<ApiJson<AdminThread>, AppError> {
    Ok(ApiJson(state.studio.support().admin_thread(&admin, &studio_core::TicketId::from(&id)).await?))
}

async fn set_status(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(TicketId { id }): ApiPath<TicketId>,
    ApiJson(body): ApiJson<TicketStatusChange>,
) -> Result<ApiJson<AdminThread>, AppError> {
    Ok(ApiJson(state.studio.support().set_status(&admin, &studio_core::TicketId::from(&id), body).await?))
}

async fn reply(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(TicketId { id }): ApiPath<TicketId>,
    ApiJson(body): ApiJson<SupportWords>,
) -> Result<ApiJson<AdminThread>, AppError> {
    Ok(ApiJson(state.studio.support().reply(&admin, &studio_core::TicketId::from(&id), body).await?))
}

async fn note(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiPath(TicketId { id }): ApiPath<TicketId>,
    ApiJson(body): ApiJson<SupportWords>,
) -> Result<ApiJson<AdminThread>, AppError> {
    Ok(ApiJson(state.studio.support().note(&admin, &studio_core::TicketId::from(&id), body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/support",
            get_with(queue, |op| {
                op.summary("The support queue: every house's tickets")
                    .description(
                        "Allowlisted admin session only (403 otherwise). Newest message first; filters `status`, \
                         `house` (`org_…`), `topic`; `limit` 1-100 (default 20), `cursor` the previous page's \
                         nextCursor. Codes: 400 BAD_STATUS, BAD_TOPIC, BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/support/{id}",
            get_with(thread, |op| {
                op.summary("One support ticket, whole")
                    .description(
                        "Allowlisted admin session only. Every message and internal note oldest first, the context \
                         read when it was raised, the escalated transcript, and fresh 7-day links to its screenshots. \
                         404 TICKET_NOT_FOUND.",
                    )
                    .tag("admin")
            })
            .patch_with(set_status, |op| {
                op.summary("Set a support ticket's status")
                    .description(
                        "Allowlisted admin session only. {status}: new, open, pending, on_hold or resolved. Answers \
                         the whole ticket. Codes: 400 BAD_STATUS; 404 TICKET_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/support/{id}/reply",
            post_with(reply, |op| {
                op.summary("Reply to the person")
                    .description(
                        "Allowlisted admin session only. {content}; unread for the person until they open the thread; \
                         the ticket becomes pending. Answers the whole ticket. Codes: 400 TOO_LITTLE_SAID, TOO_LONG; \
                         404 TICKET_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/support/{id}/notes",
            post_with(note, |op| {
                op.summary("Add an internal note")
                    .description(
                        "Allowlisted admin session only. {content}; never shown to the person; the status stays. \
                         Answers the whole ticket. Codes: 400 TOO_LITTLE_SAID, TOO_LONG; 404 TICKET_NOT_FOUND.",
                    )
                    .tag("admin")
            }),
        )
}
