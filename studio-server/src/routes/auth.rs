//! `/api/auth/...`: sign-up, sign-in, sign-out, the current session and switching the house a
//! session acts for; email verification and password reset live in the submodules their URLs
//! name.

mod password_reset;
mod verify_email;

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{
    ActiveHouse, SessionInfo, SignInRequest, SignUpRequest, SignUpResponse, SignedOut, SwitchHouseRequest,
};

use crate::auth::{Auth, MaybeSession, PersonSession, SetCookie, session_clear_cookie, session_set_cookie};
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::respond::Created;
use crate::state::AppState;

async fn sign_up(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<SignUpRequest>,
) -> Result<SetCookie<Created<SignUpResponse>>, AppError> {
    let (body, token) = state.studio.accounts().sign_up(req).await?;
    let cookie = session_set_cookie(&token, state.studio.config().session_days, state.secure_cookies);
    Ok(SetCookie(cookie, Created(body)))
}

async fn sign_in(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<SignInRequest>,
) -> Result<SetCookie<ApiJson<SignUpResponse>>, AppError> {
    let (body, token) = state.studio.accounts().sign_in(req).await?;
    let cookie = session_set_cookie(&token, state.studio.config().session_days, state.secure_cookies);
    Ok(SetCookie(cookie, ApiJson(body)))
}

async fn sign_out(
    State(state): State<AppState>,
    MaybeSession(token): MaybeSession,
) -> Result<SetCookie<ApiJson<SignedOut>>, AppError> {
    if let Some(token) = token {
        state.studio.accounts().sign_out(&token).await?;
    }
    Ok(SetCookie(session_clear_cookie(state.secure_cookies), ApiJson(SignedOut { signed_out: true })))
}

async fn get_session(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<SessionInfo>, AppError> {
    Ok(ApiJson(state.studio.accounts().session_info(&caller).await?))
}

async fn switch_house(
    State(state): State<AppState>,
    PersonSession(caller, session): PersonSession,
    ApiJson(req): ApiJson<SwitchHouseRequest>,
) -> Result<ApiJson<ActiveHouse>, AppError> {
    Ok(ApiJson(state.studio.accounts().switch_house(&caller, &session, &req.organization_id.as_str().into()).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(verify_email::router())
        .merge(password_reset::router())
        .api_route(
            "/api/auth/sign-up",
            post_with(sign_up, |op| {
                op.summary("Create a person and their house; sets the session cookie")
                    .description("201 `{user, organization}`. 409 EMAIL_TAKEN; 400 BAD_EMAIL, WEAK_PASSWORD.")
                    .tag("auth")
            }),
        )
        .api_route(
            "/api/auth/sign-in",
            post_with(sign_in, |op| {
                op.summary("Sign in with email and password; sets the session cookie")
                    .description("401 BAD_CREDENTIALS for an unknown email and a wrong password alike.")
                    .tag("auth")
            }),
        )
        .api_route(
            "/api/auth/sign-out",
            post_with(sign_out, |op| op.summary("End the session and clear the cookie").tag("auth")),
        )
        .api_route(
            "/api/auth/session",
            get_with(get_session, |op| op.summary("Who is calling: person, house and role").tag("auth")),
        )
        .api_route(
            "/api/auth/switch-house",
            post_with(switch_house, |op| {
                op.summary("Act for another house the person sits in")
                    .description(
                        "A signed-in session only (a key belongs to one house: 403 SESSION_REQUIRED). The same \
                         session then acts for that house. 404 HOUSE_NOT_FOUND when the person has no seat there.",
                    )
                    .tag("auth")
            }),
        )
}
