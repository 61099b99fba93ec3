//! `/api/me`: the person's own record: read, export everything stored about them, erase them
//! (§4.15, designed in docs/decisions.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use studio_core::api::{Erased, MeView};

use crate::auth::{Auth, SessionAuth};
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn me(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<MeView>, AppError> {
    Ok(ApiJson(state.studio.accounts().me(&caller).await?))
}

/// One JSON document, offered as a download.
async fn export(State(state): State<AppState>, SessionAuth(caller): SessionAuth) -> Result<Response, AppError> {
    let document = state.studio.accounts().export_me(&caller).await?;
    let mut res = axum::Json(document).into_response();
    res.headers_mut()
        .insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment; filename=\"studio-export.json\""));
    Ok(res)
}

async fn erase(State(state): State<AppState>, SessionAuth(caller): SessionAuth) -> Result<ApiJson<Erased>, AppError> {
    Ok(ApiJson(state.studio.accounts().erase_me(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/me",
            get_with(me, |op| {
                op.summary("The person, their houses and roles")
                    .description("`active` marks the house this request acts for.")
                    .tag("account")
            })
            .delete_with(erase, |op| {
                op.summary("Erase the signed-in person")
                    .description(
                        "The person's own session only. Seats, sessions, personal memories, onboarding, intake and \
                         tool grants go; the profile is cleared; work stays with the houses. 409 SOLE_OWNER while \
                         they are the only owner of a house with other members (transfer it first).",
                    )
                    .tag("account")
            }),
        )
        .api_route(
            "/api/me/export",
            get_with(export, |op| {
                op.summary("Everything stored about the person, as JSON")
                    .description(
                        "The person's own session only. Profile, houses and roles, personal memories, seat \
                         invitations sent to their address, intake answers, onboarding and tool access; not the \
                         houses' libraries.",
                    )
                    .tag("account")
                    .response::<200, axum::Json<serde_json::Map<String, serde_json::Value>>>()
            }),
        )
}
