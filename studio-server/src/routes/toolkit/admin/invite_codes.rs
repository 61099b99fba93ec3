//! `/api/toolkit/admin/invite-codes`: list, mint and revoke campaign invite codes.

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::extract::State;
use studio_core::api::{InviteCode, InviteCodeList, MintInviteCodeRequest, RevokeInviteCodeRequest};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::ApiJson;
use crate::state::AppState;

async fn list_codes(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
) -> Result<ApiJson<InviteCodeList>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().admin_codes(&admin).await?))
}

async fn mint_code(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<MintInviteCodeRequest>,
) -> Result<ApiJson<InviteCode>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().mint_code(&admin, req).await?))
}

async fn revoke_code(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiJson(req): ApiJson<RevokeInviteCodeRequest>,
) -> Result<ApiJson<InviteCode>, AppError> {
    Ok(ApiJson(state.studio.accounts().invitations().revoke_code(&admin, req).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/admin/invite-codes",
            get_with(list_codes, |op| {
                op.summary("Every campaign invite code, newest first").description("Admin session only.").tag("admin")
            })
            .post_with(mint_code, |op| {
                op.summary("Mint a campaign code LABEL-XXXXXX")
                    .description(
                        "Admin session only. 400 `MAX_USES_REQUIRED`, `BAD_MAX_USES`, `BAD_LABEL`, `BAD_GRANT`, \
                         `BAD_EXPIRY` (with `max`); 409 `CODE_COLLISION` when a live code has the label.",
                    )
                    .tag("admin")
            }),
        )
        .api_route(
            "/api/toolkit/admin/invite-codes/revoke",
            post_with(revoke_code, |op| {
                op.summary("Revoke a code, at once and for good")
                    .description("Admin session only. 400 `ID_REQUIRED`; 404 `CODE_NOT_FOUND`.")
                    .tag("admin")
            }),
        )
}
