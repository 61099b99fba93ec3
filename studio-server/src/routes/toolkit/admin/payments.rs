//! `GET /api/toolkit/admin/payments`: Payments, newest first, with totals by status (admin console, §4.12; docs/admin.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{PaymentPage, PaymentsQuery};

use crate::auth::AdminAuth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn payments(
    State(state): State<AppState>,
    AdminAuth(admin): AdminAuth,
    ApiQuery(query): ApiQuery<PaymentsQuery>,
) -> Result<ApiJson<PaymentPage>, AppError> {
    Ok(ApiJson(state.studio.admin().payments(&admin, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/admin/payments",
        get_with(payments, |op| {
            op.summary("Payments, newest first, with totals by status")
                .description("Admin only. Checkouts and auto top-up charges of every house; `house` and `status` (open, charged, paid, failed) filter; `limit` 1 to 200, `cursor`. Totals by status follow the house filter. 400 BAD_STATUS, BAD_LIMIT, BAD_CURSOR.")
                .tag("admin")
        }),
    )
}
