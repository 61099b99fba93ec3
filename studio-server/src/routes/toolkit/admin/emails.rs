//! `/api/toolkit/admin/emails`: the archive of every letter, for platform admins.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{AdminEmails, AdminEmailsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn emails(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<AdminEmailsQuery>,
) -> Result<ApiJson<AdminEmails>, AppError> {
    Ok(ApiJson(state.studio.mail().emails(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/emails",
        get_with(emails, |op| {
            op.summary("Letters sent (or queued) by the server, newest first; ?id= for one with its bodies")
                .description(
                    "Platform admin session only (403 otherwise). Without id: `{emails, nextCursor}` without bodies, \
                     filtered by to, kind and status, limit 1 to 200 (default 50), cursor from the previous page. \
                     With id: `{email}` with the archived html and text; 404 NOT_FOUND. 400 BAD_STATUS, BAD_LIMIT, \
                     BAD_CURSOR.",
                )
                .tag("admin")
        }),
    )
}
