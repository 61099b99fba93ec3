//! Billing through the client (spec §4.5): the public catalog, checkouts (top-up, subscription,
//! custom amount), the billing portal and auto top-up.
//!
//! Checkouts, the portal and arming auto top-up spend money: the server takes them only from an
//! owner's signed-in session ([`Client::with_session`]), never from a key. Each answers the
//! provider's checkout URL: nothing is credited until the provider's signed payment reaches the
//! server. These calls are sent once (never retried), so a timeout cannot open two checkouts.
//!
use std::future::ready;

use reqwest::Method;
use serde_json::json;
use studio_core::api::{
    AutochargeRun, AutochargeSaved, AutochargeUpdate, AutochargeView, BillingCatalog, CheckoutResponse,
    CustomCheckoutRequest, CustomCheckoutResponse, PortalResponse, SubscriptionCheckoutRequest, TopupCheckoutRequest,
};

use crate::client::Client;
use crate::error::Error;

/// The billing routes' common prefix.
const BILLING: &str = "/api/toolkit/ai/billing";

impl Client {
    /// `GET /api/toolkit/ai/billing/catalog` (public): `{provider, tiers[], packs[]}`, tiers
    /// with `slug, name, priceUsd, monthlyTokens, rolloverMultiple, featured`, packs with
    /// `slug, tokens, priceUsd`.
    pub async fn billing_catalog(&self) -> Result<BillingCatalog, Error> {
        self.get(&format!("{BILLING}/catalog")).await
    }

    /// `POST /api/toolkit/ai/billing/checkout/topup` (owner session): a checkout for a token
    /// pack (`pack_250`, `pack_1000`, `pack_3000`); `{url}`. Refusals: 400 `BAD_PACK`,
    /// 502 `CHECKOUT_FAILED`, 503 `BILLING_NOT_CONFIGURED`.
    pub async fn checkout_topup(&self, pack: &str) -> Result<CheckoutResponse, Error> {
        let body = TopupCheckoutRequest { pack: Some(pack.to_string()) };
        self.post(&format!("{BILLING}/checkout/topup"), &body).await
    }

    /// `POST /api/toolkit/ai/billing/checkout/subscription` (owner session): a checkout for a
    /// tier (`studio`, `editorial`, `couture`); `{url}`. Refusals: 400 `BAD_TIER`, 502, 503.
    pub async fn checkout_subscription(&self, tier: &str) -> Result<CheckoutResponse, Error> {
        let body = SubscriptionCheckoutRequest { tier: Some(tier.to_string()) };
        self.post(&format!("{BILLING}/checkout/subscription"), &body).await
    }

    /// `POST /api/toolkit/ai/billing/checkout/custom` (owner session): a checkout for a custom
    /// amount in US dollars, quantised down to whole tokens at the highest per-token pack rate;
    /// `{url, tokens, amountCents}`. Refusals: 400 `BAD_AMOUNT`, or `AMOUNT_OUT_OF_RANGE` with
    /// `minCents` and `maxCents` ([`Error::extra_i64`]); 403; 502; 503.
    pub async fn checkout_custom(&self, amount_usd: f64) -> Result<CustomCheckoutResponse, Error> {
        let body = CustomCheckoutRequest { amount_usd: Some(json!(amount_usd)) };
        self.post(&format!("{BILLING}/checkout/custom"), &body).await
    }

    /// `POST /api/toolkit/ai/billing/portal` (owner session): the provider's billing portal for
    /// the house; `{url}`. Refusals: 400 `NO_CUSTOMER`, 403 `role_cannot_spend_money`,
    /// 502 `PORTAL_FAILED` or `PORTAL_NO_URL`, 503.
    pub async fn billing_portal(&self) -> Result<PortalResponse, Error> {
        self.post(&format!("{BILLING}/portal"), &json!({})).await
    }

    /// `GET /api/toolkit/ai/billing/autocharge` (session or key): auto top-up's settings, this
    /// month's spend, the packs, the limits and the recent charges.
    pub async fn autocharge(&self) -> Result<AutochargeView, Error> {
        self.get(&format!("{BILLING}/autocharge")).await
    }

    /// `PUT /api/toolkit/ai/billing/autocharge` (owner session): arm or disarm auto top-up:
    /// below `threshold_tokens` spendable, buy `pack`, at most `monthly_cap_usd` a month;
    /// `{ok, settings}`. Refusals: 400 `BAD_THRESHOLD`, `BAD_CAP`, `BAD_PACK`,
    /// `CAP_BELOW_REFILL`; 403 `role_cannot_spend_money`; 409 `AMBIGUOUS_PACK_PRICE`.
    pub async fn set_autocharge(
        &self,
        enabled: bool,
        threshold_tokens: i64,
        pack: &str,
        monthly_cap_usd: f64,
    ) -> Result<AutochargeSaved, Error> {
        let body = AutochargeUpdate {
            enabled: Some(json!(enabled)),
            threshold_tokens: Some(json!(threshold_tokens)),
            pack: Some(json!(pack)),
            monthly_cap_usd: Some(json!(monthly_cap_usd)),
        };
        let path = format!("{BILLING}/autocharge");
        Ok(self.call(Method::PUT, &path, false, |r| ready(Ok(r.json(&body)))).await?.0)
    }

    /// `POST /api/toolkit/ai/billing/autocharge/run` (member or above): ask for an auto top-up
    /// now. The server re-checks everything (armed, the 10-minute debounce, the monthly cap,
    /// the live balance) and answers 200 either way: `{charged, reason, pack, tokens,
    /// amountCents, paymentId}`. Refusals: 403 `role_cannot_spend_tokens`, 502 `charge_failed`.
    pub async fn run_autocharge(&self) -> Result<AutochargeRun, Error> {
        self.post(&format!("{BILLING}/autocharge/run"), &json!({})).await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use wiremock::matchers::{body_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    #[tokio::test]
    async fn routes_and_bodies() {
        let server = MockServer::start().await;
        let ok = |v: Value| ResponseTemplate::new(200).set_body_json(v);
        Mock::given(method("GET"))
            .and(path("/api/toolkit/ai/billing/catalog"))
            .respond_with(ok(json!({"provider": "test", "tiers": [], "packs": []})))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/api/toolkit/ai/billing/checkout/topup"))
            .and(header("cookie", "studio_session=s1"))
            .and(body_json(json!({"pack": "pack_250"})))
            .respond_with(ok(json!({"url": "http://x/pay/1"})))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/api/toolkit/ai/billing/checkout/custom"))
            .and(body_json(json!({"amountUsd": 25.5})))
            .respond_with(ok(json!({"url": "http://x/pay/2", "tokens": 728, "amountCents": 2548})))
            .mount(&server)
            .await;
        Mock::given(method("PUT"))
            .and(path("/api/toolkit/ai/billing/autocharge"))
            .and(body_json(
                json!({"enabled": true, "thresholdTokens": 50, "pack": "pack_1000", "monthlyCapUsd": 100.0}),
            ))
            .respond_with(ok(json!({"ok": true, "settings": {"enabled": true, "thresholdTokens": 50,
                "refillCents": 3500, "refillPack": "pack_1000", "monthlyCapCents": 10000}})))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/api/toolkit/ai/billing/autocharge/run"))
            .respond_with(
                ResponseTemplate::new(502).set_body_json(json!({"error": "charge_failed", "message": "declined"})),
            )
            .expect(1)
            .mount(&server)
            .await;
        let client = Client::builder(server.uri()).session("s1").build().unwrap();
        assert_eq!(client.billing_catalog().await.unwrap().provider.as_deref(), Some("test"));
        assert_eq!(client.checkout_topup("pack_250").await.unwrap().url, "http://x/pay/1");
        assert_eq!(client.checkout_custom(25.5).await.unwrap().tokens, 728);
        let saved = client.set_autocharge(true, 50, "pack_1000", 100.0).await.unwrap();
        assert!(saved.ok && saved.settings.monthly_cap_cents == 10000, "{saved:?}");
        // A 502 on a money route is not retried.
        let err = client.run_autocharge().await.unwrap_err();
        assert_eq!(err.code(), Some("charge_failed"), "{err:?}");
    }
}
