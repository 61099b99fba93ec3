//! `/api/toolkit/invite/...`: the platform gate's public doors (`02-route-groups.md` §4.10):
//! looking up and accepting an invitation, redeeming a code, asking to be let in and previewing
//! links. Redeem, request and preview are limited per client address (`ratelimit.rs`).
//! Redeem and request post a letter (the invitation with its token, or a receipt) to the mail
//! outbox in the core.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::{Query, State};
use studio_core::Error;
use studio_core::api::{
    AcceptInvitationRequest, AcceptInvitationResponse, InvitationLookup, InviteRequestBody, InviteRequestReceived,
    InviteTokenQuery, PreviewRequest, PreviewResponse, RedeemRequest, RedeemResponse,
};

use crate::auth::SessionAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn lookup_invitation(
    State(state): State<AppState>,
    query: Result<Query<InviteTokenQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<ApiJson<InvitationLookup>, AppError> {
    let Query(query) = query.map_err(|_| Error::invalid("BAD_TOKEN", "That is not an invitation token."))?;
    Ok(ApiJson(state.studio.accounts().invitations().lookup(query.token.as_deref()).await?))
}

async fn accept_invitation(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<AcceptInvitationRequest>,
) -> Result<ApiJson<AcceptInvitationResponse>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().accept(&caller, req).await?))
}

async fn preview_links(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<PreviewRequest>,
) -> Result<ApiJson<PreviewResponse>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().preview(req).await?))
}

async fn redeem_code(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<RedeemRequest>,
) -> Result<ApiJson<RedeemResponse>, AppError> {
    let redeemed = state.studio.accounts().invitations().redeem(req).await?;
    Ok(ApiJson(redeemed.answer))
}

async fn request_invitation(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<InviteRequestBody>,
) -> Result<ApiJson<InviteRequestReceived>, AppError> {
    let received = state.studio.accounts().invitations().request(req).await?;
    Ok(ApiJson(received.answer))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/invite/accept",
            get_with(lookup_invitation, |op| {
                op.summary("Whom an invitation is for")
                    .description(
                        "Public. `{email}`. 400 `TOKEN_REQUIRED`, `BAD_TOKEN`; 404 `INVITATION_NOT_FOUND`; \
                         410 `INVITATION_ACCEPTED`.",
                    )
                    .tag("invitations")
            })
            .post_with(accept_invitation, |op| {
                op.summary("Accept an invitation with the invited person's session")
                    .description(
                        "The session's email must be the invitation's (403 `EMAIL_MISMATCH`; a key is 403 \
                         `SESSION_REQUIRED`). Records the acceptance and credits the invitation's tokens to the \
                         person's home house, once; a replay answers `alreadyAccepted: true` and changes nothing. \
                         400 `TOKEN_REQUIRED`, `BAD_TOKEN`; 404 `INVITATION_NOT_FOUND`.",
                    )
                    .tag("invitations")
            }),
        )
        .api_route(
            "/api/toolkit/invite/preview",
            post_with(preview_links, |op| {
                op.summary("Cards for one to six links, in order")
                    .description(
                        "Public, limited per client address. Only public http(s) addresses on ports 80 and 443, \
                         at most 3 redirects, 1 MB and 5 s per link; a link that cannot be read or is refused is a \
                         card with `ok: false`. 400 `LINKS_REQUIRED`, `TOO_MANY_LINKS`, `BAD_LINKS`.",
                    )
                    .tag("invitations")
            }),
        )
        .api_route(
            "/api/toolkit/invite/redeem",
            post_with(redeem_code, |op| {
                op.summary("Redeem an invite code for an address")
                    .description(
                        "Public, limited per client address. Writes an invitation for the address (never an \
                         account); an address already invited takes no use. 400 `CODE_REQUIRED`, `BAD_CODE`, \
                         `EMAIL_REQUIRED`, `BAD_EMAIL`, `THROWAWAY_EMAIL`, `CODE_REVOKED`, `CODE_EXPIRED`, \
                         `CODE_SPENT`; 404 `CODE_NOT_FOUND`.",
                    )
                    .tag("invitations")
            }),
        )
        .api_route(
            "/api/toolkit/invite/request",
            post_with(request_invitation, |op| {
                op.summary("Ask to be let in")
                    .description(
                        "Public, limited per client address. `{status: received}`, or `already_requested` for an \
                         address that asked before. 400 `EMAIL_REQUIRED`, `BAD_EMAIL`, `THROWAWAY_EMAIL`, \
                         `BAD_NAME`, `BAD_HOUSE`, `BAD_COLLECTION`, `BAD_INTAKE`, `BAD_LINK`, `TOO_MANY_LINKS`, \
                         `BAD_LOGO_URL`, `BAD_WEBSITE`.",
                    )
                    .tag("invitations")
            }),
        )
}
