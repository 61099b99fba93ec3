//! `/api/toolkit/support/tickets...`: raise a ticket (or reply on a thread, or note a report),
//! list the caller's tickets, read one thread (§4.11, docs/support.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::api::{NewTicket, TicketCreated, TicketList, TicketThread, TicketsQuery};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one ticket.
#[derive(Debug, Deserialize, JsonSchema)]
struct TicketId {
    /// The ticket's id (`tkt_…`).
    id: String,
}

async fn raise(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<NewTicket>,
) -> Result<Created<TicketCreated>, AppError> {
    Ok(Created(state.studio.support().raise(&caller, body).await?))
}

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<TicketsQuery>,
) -> Result<ApiJson<TicketList>, AppError> {
    Ok(ApiJson(state.studio.support().tickets(&caller, query).await?))
}

async fn thread(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(TicketId { id }): ApiPath<TicketId>,
) -> Result<ApiJson<TicketThread>, AppError> {
    Ok(ApiJson(state.studio.support().thread(&caller, &studio_core::TicketId::from(&id)).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/support/tickets",
            get_with(list, |op| {
                op.summary("The caller's support tickets")
                    .description(
                        "Any role, key or session. The caller's own tickets in this house (a key's are its minter's), \
                         newest message first; `limit` 1-100 (default 20), `cursor` the previous page's nextCursor. \
                         Codes: 400 BAD_LIMIT, BAD_CURSOR.",
                    )
                    .tag("support")
            })
            .post_with(raise, |op| {
                op.summary("Raise a support ticket, reply on a thread, or note a report")
                    .description(
                        "Any role, key or session. `body` is required: at least 10 characters (spaces not counted) \
                         for a new ticket or report, at least 1 for a reply (`ticketId`). The plan, spendable \
                         balance and last develop are read by the server and attached. 201 the ticket; with \
                         `needsReply: false` 201 {id: null, noted: true, reportId, createdAt}. Codes: 400 \
                         TOO_LITTLE_SAID (minChars), TOO_LONG, BAD_TOPIC, BAD_EMAIL, BAD_RATING, BAD_SCREENSHOTS, \
                         BAD_BODY; 503 THREAD_UNAVAILABLE (a ticketId that is not the caller's).",
                    )
                    .tag("support")
            }),
        )
        .api_route(
            "/api/toolkit/support/tickets/{id}",
            get_with(thread, |op| {
                op.summary("One of the caller's support threads")
                    .description(
                        "Any role. {status, messages[]} oldest first; internal notes are never shown. Reading marks \
                         support's replies read. A thread that is not the caller's (another person, another house, \
                         an unknown id) is 503 THREAD_UNAVAILABLE, as the spec says.",
                    )
                    .tag("support")
            }),
        )
}
