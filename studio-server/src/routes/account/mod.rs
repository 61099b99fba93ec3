//! `/api/account...`: the account page, the billing contact and cancelling the plan (§4.8).
//! The avatar and memories live in their own files.

mod avatar;
mod memory;

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, patch_with, post_with};
use axum::extract::State;
use studio_core::api::{AccountPatch, AccountQuery, AccountView, BillingEmailRequest, BillingEmailView, PlanCanceled};

use crate::auth::{Auth, SessionAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn account(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<AccountQuery>,
) -> Result<ApiJson<AccountView>, AppError> {
    let days = studio_core::account_days(query.days.as_deref());
    Ok(ApiJson(state.studio.accounts().account(&caller, days).await?))
}

async fn patch_account(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<AccountPatch>,
) -> Result<ApiJson<AccountView>, AppError> {
    Ok(ApiJson(state.studio.accounts().rename_person(&caller, req).await?))
}

async fn billing_email(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<BillingEmailRequest>,
) -> Result<ApiJson<BillingEmailView>, AppError> {
    Ok(ApiJson(state.studio.accounts().set_billing_email(&caller, req).await?))
}

async fn cancel_plan(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
) -> Result<ApiJson<PlanCanceled>, AppError> {
    Ok(ApiJson(state.studio.billing().cancel_plan(&caller).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/account",
            get_with(account, |op| {
                op.summary("The account page: profile, plan, tokens, invoices, billing contact")
                    .description(
                        "`days` is 7, 30 or 90 (anything else is 30): the window of `tokens.byWorkflow`, \
                         tokens settled per develop tool from finished jobs, plus `reads` for charged AI reads.",
                    )
                    .tag("account")
            })
            .patch_with(patch_account, |op| {
                op.summary("Change the person's own display name")
                    .description(
                        "`{name}`: 1 to 200 characters after trimming, no control characters (400 BAD_NAME). \
                         The person's own session only. Answers the account page (30-day window).",
                    )
                    .tag("account")
            }),
        )
        .api_route(
            "/api/account/billing-email",
            patch_with(billing_email, |op| {
                op.summary("Set where the house's receipts go")
                    .description(
                        "The owner's session only (403 otherwise). 400 BAD_EMAIL. When the house is a customer \
                         of the payment provider, the provider is told first: 502 BILLING_EMAIL_FAILED when it \
                         refuses, and nothing changes.",
                    )
                    .tag("account")
            }),
        )
        .api_route(
            "/api/account/plan/cancel",
            post_with(cancel_plan, |op| {
                op.summary("Stop the plan renewing")
                    .description(
                        "The owner's session only. The provider is told first: 502 CANCEL_FAILED when it does \
                         not confirm (nothing changes). The plan runs to `endsAt` and does not renew; tokens \
                         already granted stay. 404 NO_ACTIVE_PLAN; 503 BILLING_NOT_CONFIGURED.",
                    )
                    .tag("account")
            }),
        )
        .merge(avatar::router())
        .merge(memory::router())
}
