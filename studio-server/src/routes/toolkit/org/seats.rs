//! `/api/toolkit/org/seats...`: list, invite, accept, re-seat and remove (§4.9). The role
//! matrix is the core's (`accounts/seats.rs`).

use aide::axum::ApiRouter;
use aide::axum::routing::{delete_with, get_with, post_with};
use axum::extract::State;
use studio_core::api::{
    ActiveHouse, SeatAcceptRequest, SeatInvitation, SeatInviteRequest, SeatList, SeatRemoved, SeatRoleChanged,
    SeatRoleRequest,
};

use crate::auth::{Auth, PersonSession, SessionAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiPath};
use crate::state::AppState;

/// The path's parameter.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct UserPath {
    /// The seated person's id.
    #[serde(rename = "userId")]
    user_id: studio_core::UserId,
}

async fn list(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<SeatList>, AppError> {
    Ok(ApiJson(state.studio.accounts().seats(&caller).await?))
}

async fn invite(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<SeatInviteRequest>,
) -> Result<ApiJson<SeatInvitation>, AppError> {
    Ok(ApiJson(state.studio.accounts().invite_seat(&caller, req).await?))
}

async fn accept(
    State(state): State<AppState>,
    PersonSession(caller, session): PersonSession,
    ApiJson(req): ApiJson<SeatAcceptRequest>,
) -> Result<ApiJson<ActiveHouse>, AppError> {
    Ok(ApiJson(state.studio.accounts().accept_seat(&caller, &session, req).await?))
}

async fn role(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<SeatRoleRequest>,
) -> Result<ApiJson<SeatRoleChanged>, AppError> {
    Ok(ApiJson(state.studio.accounts().set_seat_role(&caller, req).await?))
}

async fn remove(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiPath(UserPath { user_id }): ApiPath<UserPath>,
) -> Result<ApiJson<SeatRemoved>, AppError> {
    Ok(ApiJson(state.studio.accounts().remove_seat(&caller, &user_id).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/org/seats",
            get_with(list, |op| {
                op.summary("The house's seats and pending invitations")
                    .description("Seats owner first; invitations pending and unexpired, newest first.")
                    .tag("seats")
            }),
        )
        .api_route(
            "/api/toolkit/org/seats/invite",
            post_with(invite, |op| {
                op.summary("Invite an address to a seat")
                    .description(
                        "Owner or admin session; only the owner offers the owner seat (403 \
                         OWNER_SEAT_OWNER_ONLY). Re-inviting an address supersedes its pending invitation. 400 \
                         ALREADY_MEMBER, BAD_EMAIL; 429 INVITE_LIMIT past the house's weekly limit.",
                    )
                    .tag("seats")
            }),
        )
        .api_route(
            "/api/toolkit/org/seats/accept",
            post_with(accept, |op| {
                op.summary("Accept a seat invitation")
                    .description(
                        "The session's verified email must be the invited one (403 EMAIL_MISMATCH, \
                         EMAIL_UNVERIFIED). The session then acts for that house. Accepting an owner seat moves \
                         ownership (the previous owner becomes admin). 404 INVITATION_NOT_FOUND.",
                    )
                    .tag("seats")
            }),
        )
        .api_route(
            "/api/toolkit/org/seats/role",
            post_with(role, |op| {
                op.summary("Re-seat a person")
                    .description(
                        "The owner re-seats any admin, member or viewer; an admin only a member or a viewer. \
                         `owner` is never set here (400 BAD_ROLE) and nobody re-seats themselves (403). 404 \
                         SEAT_NOT_FOUND.",
                    )
                    .tag("seats")
            }),
        )
        .api_route(
            "/api/toolkit/org/seats/{userId}",
            delete_with(remove, |op| {
                op.summary("Remove a seat")
                    .description(
                        "Owner, admin (members and viewers only) or oneself. The owner seat is never removed \
                         (403 OWNER_MUST_TRANSFER) nor the founder of a personal house (403 FOUNDER_SEAT). Work \
                         stays with the house; the person's sessions acting for it end at once; organization \
                         keys belong to the house and stay valid.",
                    )
                    .tag("seats")
            }),
        )
}
