//! `/api/toolkit/chat/...`: the studio assistant (§4.15, docs/assistant.md): a person's
//! sessions, one turn, the turns so far, applying a proposed action, and warming a session's
//! context.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use schemars::JsonSchema;
use serde::Deserialize;
use studio_core::ChatSessionId;
use studio_core::api::{
    ChatApplied, ChatApplyRequest, ChatSession, ChatSessionList, ChatSessionsQuery, ChatTurnList, ChatTurnRequest,
    ChatTurnResponse, ChatTurnsQuery, ChatWarm, ChatWarmRequest, NewChatSession,
};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::respond::Created;
use crate::state::AppState;

/// Path of one session.
#[derive(Debug, Deserialize, JsonSchema)]
struct SessionId {
    /// The session's id (`chat_…`).
    id: String,
}

async fn list(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<ChatSessionsQuery>,
) -> Result<ApiJson<ChatSessionList>, AppError> {
    Ok(ApiJson(state.studio.ai().chat().sessions(&caller, query).await?))
}

async fn create(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<NewChatSession>,
) -> Result<Created<ChatSession>, AppError> {
    Ok(Created(state.studio.ai().chat().create(&caller, body).await?))
}

async fn turns(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(SessionId { id }): ApiPath<SessionId>,
    ApiQuery(query): ApiQuery<ChatTurnsQuery>,
) -> Result<ApiJson<ChatTurnList>, AppError> {
    Ok(ApiJson(state.studio.ai().chat().turns(&caller, &ChatSessionId::from(&id), query).await?))
}

async fn turn(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiPath(SessionId { id }): ApiPath<SessionId>,
    ApiJson(body): ApiJson<ChatTurnRequest>,
) -> Result<ApiJson<ChatTurnResponse>, AppError> {
    Ok(ApiJson(state.studio.ai().chat().turn(&caller, &ChatSessionId::from(&id), body).await?))
}

async fn apply(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<ChatApplyRequest>,
) -> Result<ApiJson<ChatApplied>, AppError> {
    Ok(ApiJson(state.studio.ai().chat().apply(&caller, body).await?))
}

async fn warm(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiJson(body): ApiJson<ChatWarmRequest>,
) -> Result<ApiJson<ChatWarm>, AppError> {
    Ok(ApiJson(state.studio.ai().chat().warm(&caller, body).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/chat/sessions",
            get_with(list, |op| {
                op.summary("The caller's chat sessions, latest first")
                    .description(
                        "Any role, key or session; only the caller's own sessions in this house. `limit` 1-100 \
                         (default 20), `cursor` the nextCursor of the page before. Codes: 400 BAD_LIMIT, \
                         BAD_CURSOR; 401.",
                    )
                    .tag("chat")
            })
            .post_with(create, |op| {
                op.summary("Start a chat session")
                    .description(
                        "JSON {title?} (at most 120 characters; absent, the first message names the session). 201 \
                         with the session. Codes: 400 BAD_BODY, TOO_LONG; 401.",
                    )
                    .tag("chat")
            }),
        )
        .api_route(
            "/api/toolkit/chat/sessions/{id}/turns",
            get_with(turns, |op| {
                op.summary("A session's turns, oldest first")
                    .description(
                        "Turns after `after` (a seq, default 0), `limit` 1-100 (default 20); `nextAfter` pages on. \
                         Each assistant turn carries the actions it proposed with their price and status. Codes: 400 \
                         BAD_LIMIT, BAD_AFTER; 401; 404 CHAT_SESSION_NOT_FOUND (not the caller's).",
                    )
                    .tag("chat")
            })
            .post_with(turn, |op| {
                op.summary("One turn: say something, get the assistant's answer")
                    .description(
                        "JSON {message (1-4,000 characters), toPerson?}. The core builds the context (this house \
                         only: active memories, brand clause, balance, price book, recent develops and assets) and \
                         asks the AI reader; the answer may propose actions, each with its exact price, which run \
                         only through /chat/apply. Free unless the deployment prices turns. A session at its turn \
                         limit, a toPerson request, a reader outage, an answer the leak guard withholds or one that \
                         asks for a person hands the session to support: the answer then carries a notice turn with \
                         {escalation: {reason, ticketId}}. Codes: 400 BAD_BODY, MESSAGE_REQUIRED, TOO_LONG; 401; \
                         402 INSUFFICIENT_TOKENS and 403 (priced turns only); 404 CHAT_SESSION_NOT_FOUND; 409 \
                         SESSION_ESCALATED (ticketId); 503 AI_NOT_CONFIGURED (nothing stored).",
                    )
                    .tag("chat")
            }),
        )
        .api_route(
            "/api/toolkit/chat/apply",
            post_with(apply, |op| {
                op.summary("Apply an action the assistant proposed")
                    .description(
                        "JSON {sessionId, actionId}. Runs the action through the same core call as its route, with \
                         the caller's roles and holds, exactly once: a second apply (or ten at once) answers the \
                         first one's result with replayed: true. Records an `action` turn. Codes: 400 BAD_BODY, \
                         SESSION_REQUIRED, ACTION_REQUIRED; 401; 402 INSUFFICIENT_TOKENS (need, spendable); 403 \
                         FORBIDDEN (a viewer's develop); 404 CHAT_SESSION_NOT_FOUND, ACTION_NOT_FOUND, and the \
                         action's own 404s; 409 ACTION_IN_PROGRESS.",
                    )
                    .tag("chat")
            }),
        )
        .api_route(
            "/api/toolkit/chat/context/warm",
            post_with(warm, |op| {
                op.summary("Build and keep a session's context ahead of its next turn")
                    .description(
                        "JSON {sessionId}. Builds the session's context and keeps it for 60 s; within that, a second \
                         call rebuilds nothing (cached: true). Memories and the balance are read fresh at every \
                         turn regardless. Codes: 400 BAD_BODY; 401; 404 CHAT_SESSION_NOT_FOUND.",
                    )
                    .tag("chat")
            }),
        )
}
