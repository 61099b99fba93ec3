//! The test-mode provider's pages, on this server: a checkout (`GET` shows what is bought,
//! `POST` confirms: the core signs a `payment.succeeded` and applies it through the webhook
//! path) and a stand-in billing portal. 404 unless billing runs in test mode.

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::{RawQuery, State};
use axum::response::Html;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::AppError;
use crate::extract::ApiPath;
use crate::state::AppState;

/// Path of one test-mode checkout or customer.
#[derive(Debug, Deserialize, JsonSchema)]
struct PathId {
    /// The checkout reference (`chk_…`) or customer id.
    id: String,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title></head>\
         <body style=\"font-family: sans-serif; max-width: 32rem; margin: 3rem auto\"><h1>{t}</h1>{body}\
         <p><small>Test mode: no money moves.</small></p></body></html>",
        t = escape(title)
    ))
}

async fn get_checkout(
    State(state): State<AppState>,
    ApiPath(PathId { id }): ApiPath<PathId>,
) -> Result<Html<String>, AppError> {
    let c = state.studio.billing().test_checkout(&id).await?;
    let amount = format!("${}.{:02}", c.amount_cents / 100, c.amount_cents % 100);
    let body = if c.paid {
        format!("<p>{} for {amount}: already paid.</p>", escape(&c.description))
    } else {
        format!(
            "<p>{} for {amount}.</p><form method=\"post\"><button type=\"submit\">Pay {amount}</button></form>",
            escape(&c.description)
        )
    };
    Ok(page("Test-mode checkout", &body))
}

async fn post_checkout(
    State(state): State<AppState>,
    ApiPath(PathId { id }): ApiPath<PathId>,
    RawQuery(query): RawQuery,
) -> Result<Html<String>, AppError> {
    let decline = query.as_deref().is_some_and(|q| q.split('&').any(|p| p == "card=decline"));
    let ack = state.studio.billing().confirm_test_checkout(&id, decline).await?;
    let body = match (ack.granted, ack.duplicate, ack.entitlement.is_some(), ack.lapsed.as_deref()) {
        (Some(tokens), ..) => format!("<p>Paid. {tokens} tokens were granted.</p>"),
        (_, Some(true), ..) => "<p>Already paid; nothing was granted again.</p>".to_string(),
        (_, _, true, _) => "<p>Paid. The offering is now the house's.</p>".to_string(),
        (.., Some("refunded")) => "<p>The offering was no longer available: the payment was refunded.</p>".to_string(),
        (.., Some(_)) => "<p>The offering was no longer available: the payment waits for a refund.</p>".to_string(),
        _ => "<p>Payment recorded.</p>".to_string(),
    };
    Ok(page("Payment confirmed", &body))
}

async fn get_portal(
    State(state): State<AppState>,
    ApiPath(PathId { id }): ApiPath<PathId>,
) -> Result<Html<String>, AppError> {
    let test_mode = state.studio.config().payments.as_ref().is_some_and(|p| p.name() == studio_core::TEST_MODE);
    if !test_mode {
        return Err(studio_core::Error::not_found("NOT_FOUND", "No test-mode portal here.").into());
    }
    Ok(page("Test-mode billing portal", &format!("<p>Customer {}: one test card on file.</p>", escape(&id))))
}

pub(in crate::routes) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/api/toolkit/ai/billing/test-checkout/{id}",
            get_with(get_checkout, |op| op.summary("Test mode: the checkout page (what is bought)").tag("billing"))
                .post_with(post_checkout, |op| {
                    op.summary("Test mode: confirm the checkout")
                        .description(
                            "Delivers a signed payment.succeeded through the webhook path; confirming twice \
                         grants once. `?card=decline` saves a card that refuses auto top-up charges.",
                        )
                        .tag("billing")
                }),
        )
        .api_route(
            "/api/toolkit/ai/billing/test-portal/{id}",
            get_with(get_portal, |op| op.summary("Test mode: the billing portal stand-in").tag("billing")),
        )
}
