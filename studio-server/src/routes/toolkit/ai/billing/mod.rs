//! `/api/toolkit/ai/billing/...`: the token balance, the price book, and billing (spec §4.5):
//! the catalog, checkouts, the portal, auto top-up and the payment provider's webhook.

mod test_checkout;

use aide::axum::ApiRouter;
use aide::axum::routing::{get_with, post_with};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use studio_core::api::{
    AutochargeRun, AutochargeSaved, AutochargeUpdate, AutochargeView, Balance, BillingCatalog, CheckoutResponse,
    CustomCheckoutRequest, CustomCheckoutResponse, PortalResponse, PriceBook, SubscriptionCheckoutRequest,
    TopupCheckoutRequest, WebhookAck,
};

use crate::auth::{Auth, SessionAuth};
use crate::error::AppError;
use crate::extract::{ApiJson, webhook_headers};
use crate::state::AppState;

async fn get_balance(State(state): State<AppState>, Auth(caller): Auth) -> Result<ApiJson<Balance>, AppError> {
    Ok(ApiJson(state.studio.billing().balance(&caller).await?))
}

/// A `Result` although it cannot fail: the key or session is still refused (401, the envelope),
/// and the document lists that refusal from the error type.
async fn get_prices(State(state): State<AppState>, Auth(_caller): Auth) -> Result<ApiJson<PriceBook>, AppError> {
    Ok(ApiJson(state.studio.billing().price_book(&state.studio.develops().runnable_tools())))
}

async fn get_catalog(State(state): State<AppState>) -> ApiJson<BillingCatalog> {
    ApiJson(state.studio.billing().billing_catalog())
}

async fn post_topup(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<TopupCheckoutRequest>,
) -> Result<ApiJson<CheckoutResponse>, AppError> {
    Ok(ApiJson(state.studio.billing().checkout_topup(&caller, req).await?))
}

async fn post_subscription(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<SubscriptionCheckoutRequest>,
) -> Result<ApiJson<CheckoutResponse>, AppError> {
    Ok(ApiJson(state.studio.billing().checkout_subscription(&caller, req).await?))
}

async fn post_custom(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<CustomCheckoutRequest>,
) -> Result<ApiJson<CustomCheckoutResponse>, AppError> {
    Ok(ApiJson(state.studio.billing().checkout_custom(&caller, req).await?))
}

async fn post_portal(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
) -> Result<ApiJson<PortalResponse>, AppError> {
    Ok(ApiJson(state.studio.billing().billing_portal(&caller).await?))
}

async fn get_autocharge(
    State(state): State<AppState>,
    Auth(caller): Auth,
) -> Result<ApiJson<AutochargeView>, AppError> {
    Ok(ApiJson(state.studio.billing().autocharge(&caller).await?))
}

async fn put_autocharge(
    State(state): State<AppState>,
    SessionAuth(caller): SessionAuth,
    ApiJson(req): ApiJson<AutochargeUpdate>,
) -> Result<ApiJson<AutochargeSaved>, AppError> {
    Ok(ApiJson(state.studio.billing().set_autocharge(&caller, req).await?))
}

async fn post_autocharge_run(
    State(state): State<AppState>,
    Auth(caller): Auth,
) -> Result<ApiJson<AutochargeRun>, AppError> {
    Ok(ApiJson(state.studio.billing().run_autocharge(&caller).await?))
}

async fn post_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<ApiJson<WebhookAck>, AppError> {
    Ok(ApiJson(state.studio.billing().payment_webhook(&webhook_headers(&headers), &body).await?))
}

pub(in crate::routes) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(test_checkout::router())
        .api_route(
            "/api/toolkit/ai/billing/balance",
            get_with(get_balance, |op| op.summary("The house's token balance and open holds").tag("billing")),
        )
        .api_route(
            "/api/toolkit/ai/billing/prices",
            get_with(get_prices, |op| {
                op.summary("The live price book: exactly the tools this deployment runs, per quality")
                    .description("The same book the agent endpoint's list_capabilities returns (spec §2.8).")
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/catalog",
            get_with(get_catalog, |op| {
                op.summary("Subscription tiers and token packs on sale (public)")
                    .description("`provider` is null when billing is off.")
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/checkout/topup",
            post_with(post_topup, |op| {
                op.summary("Checkout for a token pack (owner's session)")
                    .description(
                        "Answers the payment page. Nothing is credited here: the provider's signed \
                         payment.succeeded grants. 400 BAD_PACK; 403 role_cannot_spend_money; 502 \
                         CHECKOUT_FAILED; 503 BILLING_NOT_CONFIGURED.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/checkout/subscription",
            post_with(post_subscription, |op| {
                op.summary("Checkout for a subscription tier (owner's session)")
                    .description(
                        "400 BAD_TIER; 403 role_cannot_spend_money; 502 CHECKOUT_FAILED; 503 BILLING_NOT_CONFIGURED.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/checkout/custom",
            post_with(post_custom, |op| {
                op.summary("Checkout for a custom amount (owner's session)")
                    .description(
                        "At the highest per-token price of any active pack, quantised down to whole \
                         tokens; the charge reflects the quantised amount. 400 BAD_AMOUNT or \
                         AMOUNT_OUT_OF_RANGE (minCents, maxCents); 403 role_cannot_spend_money; 502; 503.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/portal",
            post_with(post_portal, |op| {
                op.summary("The provider's billing portal (owner's session)")
                    .description(
                        "400 NO_CUSTOMER; 403 role_cannot_spend_money; 502 PORTAL_FAILED or PORTAL_NO_URL; 503.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/autocharge",
            get_with(get_autocharge, |op| {
                op.summary("Auto top-up settings, this month and recent charges").tag("billing")
            })
            .put_with(put_autocharge, |op| {
                op.summary("Save auto top-up settings (owner's session; every field required)")
                    .description(
                        "400 BAD_BODY, BAD_THRESHOLD, BAD_CAP, BAD_PACK, CAP_BELOW_REFILL; 403 \
                             role_cannot_spend_money; 409 AMBIGUOUS_PACK_PRICE; 503.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/autocharge/run",
            post_with(post_autocharge_run, |op| {
                op.summary("Run auto top-up if due (member or above)")
                    .description(
                        "A hint: enabled, the 10-minute debounce, the monthly ceiling and the live balance \
                         are re-checked in one atomic reservation. 200 {charged, reason, ...} either way; \
                         403 role_cannot_spend_tokens; 502 charge_failed (reservation rolled back); 503.",
                    )
                    .tag("billing")
            }),
        )
        .api_route(
            "/api/toolkit/ai/billing/webhook/provider",
            post_with(post_webhook, |op| {
                op.summary("The payment provider's signed delivery (Standard Webhooks)")
                    .description(
                        "The signature (webhook-id, webhook-timestamp, webhook-signature) is the only \
                         authority. payment.succeeded is the only event that grants; others answer \
                         {ok, ignored}. Repeats answer {ok, duplicate}. 400 UNPARSEABLE; 401 \
                         BAD_SIGNATURE; 500 APPLY_FAILED.",
                    )
                    .tag("billing")
            }),
        )
}
