//! The Polar adapter (polar.sh): a real payment provider behind [`PaymentsProvider`].
//!
//! - **Checkout**: `POST {base}/v1/checkouts/` with the product configured for the pack or tier
//!   slug (`custom` for custom amounts), `amount` in cents (Polar applies it to pay-what-you-want
//!   prices and ignores it for fixed ones), the owner's `customer_email`, the house as
//!   `external_customer_id` (or the known `customer_id`), `success_url`, and `metadata` carrying
//!   our `reference`, `org_id`, `user_id`, the kind, the slug, `tokens` and `amount_cents`.
//!   Polar copies checkout metadata onto the resulting order and subscription, so the signed
//!   webhook brings the reference back. The answer's `url` and `id` become the [`Checkout`].
//! - **Portal**: `POST {base}/v1/customer-sessions/` with `customer_id`; the answer's
//!   `customer_portal_url`.
//! - **Charge**: Polar has no API to charge a saved card off-session (a payment always goes
//!   through a checkout the customer completes), so [`PolarProvider::charge`] refuses honestly
//!   without calling Polar.
//!
//! Every call carries `Authorization: Bearer <access token>`. The token is only sent to the
//! configured base URL and never appears in a log line, an error or a `Debug` rendering; an
//! upstream message that happens to quote it is redacted. Nothing here grants tokens: only
//! Polar's signed `payment.succeeded` delivery to the webhook route does. See `docs/payments.md`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use reqwest::{StatusCode, Url};
use serde_json::{Map, Value, json};

use super::{ChargeRequest, Checkout, CheckoutRequest, PaymentsError, PaymentsProvider, Purchase};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read, error or success.
const MAX_BODY: usize = 256 * 1024;

/// The message of [`PolarProvider::charge`]: Polar cannot do what auto top-up needs.
pub(crate) const NO_OFF_SESSION_CHARGE: &str = "Polar cannot charge a saved card off-session; auto top-up needs a provider \
     that can (Polar only takes payments through a checkout the customer completes)";

/// Settings of the Polar adapter.
#[derive(Clone, PartialEq, Eq)]
pub struct PolarConfig {
    /// The API's base URL: `https://api.polar.sh` ([`PolarConfig::DEFAULT_BASE_URL`]), or
    /// `https://sandbox-api.polar.sh` for Polar's sandbox.
    pub base_url: String,
    /// An organization access token (`polar_oat_…`) with the `checkouts:write` and
    /// `customer_sessions:write` scopes, sent as `Authorization: Bearer <token>`.
    pub access_token: String,
    /// The secret of the Polar webhook endpoint, as Polar shows it; deliveries are verified with
    /// it (Standard Webhooks).
    pub webhook_secret: String,
    /// Pack or tier slug to Polar product id (`pack_250`, …, `studio`, …, and `custom` for
    /// custom amounts). A slug without a product cannot be bought.
    pub products: BTreeMap<String, String>,
    /// Where Polar sends the owner after paying (Polar replaces `{CHECKOUT_ID}` in it). Empty:
    /// Polar's own confirmation page. The return grants nothing.
    pub success_url: String,
}

impl PolarConfig {
    /// Polar's production API.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.polar.sh";
    /// The product slug used for custom amounts.
    pub const CUSTOM_SLUG: &'static str = "custom";
    /// The product slug used for catalog offerings (a pay-what-you-want product; the amount is
    /// the offering's price).
    pub const OFFERING_SLUG: &'static str = "offering";

    /// Parse a product map written `slug=product-id,slug=product-id` (the form of
    /// `STUDIO_POLAR_PRODUCTS`). Blank entries are skipped; an entry without `=`, with an empty
    /// side or naming a slug twice is an error naming the entry.
    pub fn parse_products(spec: &str) -> Result<BTreeMap<String, String>, String> {
        let mut products = BTreeMap::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((slug, product)) = entry.split_once('=') else {
                return Err(format!("{entry:?} is not slug=product-id"));
            };
            let (slug, product) = (slug.trim(), product.trim());
            if slug.is_empty() || product.is_empty() {
                return Err(format!("{entry:?} is not slug=product-id"));
            }
            if products.insert(slug.to_string(), product.to_string()).is_some() {
                return Err(format!("the slug {slug:?} is given twice"));
            }
        }
        Ok(products)
    }
}

impl Default for PolarConfig {
    /// Polar's production API, no token, no secret, no products, no success URL.
    fn default() -> Self {
        PolarConfig {
            base_url: Self::DEFAULT_BASE_URL.to_string(),
            access_token: String::new(),
            webhook_secret: String::new(),
            products: BTreeMap::new(),
            success_url: String::new(),
        }
    }
}

impl fmt::Debug for PolarConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted = |s: &str| if s.is_empty() { "" } else { "<redacted>" };
        f.debug_struct("PolarConfig")
            .field("base_url", &self.base_url)
            .field("access_token", &redacted(&self.access_token))
            .field("webhook_secret", &redacted(&self.webhook_secret))
            .field("products", &self.products)
            .field("success_url", &self.success_url)
            .finish()
    }
}

/// The Polar adapter.
#[derive(Debug, Clone)]
pub struct PolarProvider {
    config: PolarConfig,
    /// The HTTP client and the parsed base URL, or why they could not be made (reported by
    /// every call as [`PaymentsError::Failed`]).
    http: Result<(reqwest::Client, Url), String>,
}

impl PolarProvider {
    /// An adapter over `config`. One HTTP client is built here (10 s connect timeout, 30 s per
    /// request); a bad base URL or a client that cannot be built makes every call fail rather
    /// than failing here.
    pub fn new(config: PolarConfig) -> Self {
        let http = build_http(&config);
        if let Err(e) = &http {
            tracing::warn!(error = %e, "the Polar adapter is not usable");
        }
        PolarProvider { config, http }
    }

    /// The settings this adapter runs with.
    pub fn config(&self) -> &PolarConfig {
        &self.config
    }

    /// The product for a purchase, or why there is none.
    fn product_for(&self, purchase: &Purchase) -> Result<&str, PaymentsError> {
        let slug = match purchase {
            Purchase::Topup { pack } => pack.as_str(),
            Purchase::Subscription { tier } => tier.as_str(),
            Purchase::Custom => PolarConfig::CUSTOM_SLUG,
            Purchase::Offering { .. } => PolarConfig::OFFERING_SLUG,
        };
        self.config.products.get(slug).map(|p| p.trim()).filter(|p| !p.is_empty()).ok_or_else(|| {
            PaymentsError::Failed(format!("no Polar product is configured for {slug:?} (STUDIO_POLAR_PRODUCTS)"))
        })
    }

    /// POST `body` to `path` and read the JSON answer; `what` names the call in errors.
    async fn post(&self, path: &str, body: &Value, what: &str) -> Result<Value, PaymentsError> {
        self.call(reqwest::Method::POST, path, Some(body), what).await
    }

    /// Send `body` (if any) to `path` with `method` and read the JSON answer.
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        what: &str,
    ) -> Result<Value, PaymentsError> {
        let (client, base) = self.http.as_ref().map_err(|e| PaymentsError::Failed(e.clone()))?;
        let token = self.config.access_token.trim();
        if token.is_empty() {
            return Err(PaymentsError::Failed("Polar is not configured: no access token (STUDIO_POLAR_TOKEN)".into()));
        }
        let url = base.join(path).map_err(|e| PaymentsError::Failed(format!("bad Polar URL for {path}: {e}")))?;
        let mut request = client.request(method, url).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let mut response = request.send().await.map_err(|e| {
            PaymentsError::Failed(format!("Polar could not be reached for {what}: {}", e.without_url()))
        })?;
        let status = response.status();
        let bytes = read_capped(&mut response, what).await?;
        if !status.is_success() {
            return Err(PaymentsError::Failed(self.refusal(status, &bytes, what)));
        }
        serde_json::from_slice(&bytes)
            .map_err(|_| PaymentsError::Failed(format!("Polar answered {what} with malformed JSON")))
    }

    /// A refusal as one line: the status and Polar's own message, the token never included.
    fn refusal(&self, status: StatusCode, body: &[u8], what: &str) -> String {
        let verb = if status.is_server_error() { "failed" } else { "refused" };
        let message = serde_json::from_slice::<Value>(body).ok().as_ref().and_then(message_of);
        let line = match message {
            Some(m) => format!("Polar {verb} {what} (HTTP {}): {m}", status.as_u16()),
            None => format!("Polar {verb} {what} (HTTP {})", status.as_u16()),
        };
        crate::outbound::clean_message(&line, &self.config.access_token)
    }
}

fn build_http(config: &PolarConfig) -> Result<(reqwest::Client, Url), String> {
    crate::outbound::client("Polar", &config.base_url, REQUEST_TIMEOUT)
}

/// The body of `POST /v1/checkouts/` for `request` buying `product`.
fn checkout_body(request: &CheckoutRequest, product: &str, success_url: &str) -> Value {
    let (kind, slug) = match &request.purchase {
        Purchase::Topup { pack } => ("topup", Some(pack.as_str())),
        Purchase::Subscription { tier } => ("subscription", Some(tier.as_str())),
        Purchase::Custom => ("custom", None),
        Purchase::Offering { .. } => ("offering", None),
    };
    let mut metadata = Map::new();
    metadata.insert("reference".into(), json!(request.reference));
    metadata.insert("org_id".into(), json!(request.org_id));
    metadata.insert("user_id".into(), json!(request.user_id));
    metadata.insert("kind".into(), json!(kind));
    match &request.purchase {
        Purchase::Topup { .. } => {
            metadata.insert("pack".into(), json!(slug));
        }
        Purchase::Subscription { .. } => {
            metadata.insert("tier".into(), json!(slug));
        }
        Purchase::Custom => {}
        Purchase::Offering { kind, id } => {
            metadata.insert("offering_kind".into(), json!(kind));
            metadata.insert("offering_id".into(), json!(id));
        }
    }
    let offering = matches!(request.purchase, Purchase::Offering { .. });
    metadata.insert("tokens".into(), json!(request.tokens));
    metadata.insert("amount_cents".into(), json!(request.amount_cents));

    let mut body = Map::new();
    body.insert("products".into(), json!([product]));
    body.insert("amount".into(), json!(request.amount_cents));
    if offering {
        // An offering's price is fixed: no discount code may lower it (the webhook also refuses
        // a payment below the price).
        body.insert("allow_discount_codes".into(), json!(false));
    }
    body.insert("metadata".into(), Value::Object(metadata));
    if !request.email.trim().is_empty() {
        body.insert("customer_email".into(), json!(request.email.trim()));
    }
    match request.customer_id.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(customer) => {
            body.insert("customer_id".into(), json!(customer));
        }
        None => {
            body.insert("external_customer_id".into(), json!(request.org_id));
        }
    }
    if !success_url.trim().is_empty() {
        body.insert("success_url".into(), json!(success_url.trim()));
    }
    Value::Object(body)
}

#[async_trait::async_trait]
impl PaymentsProvider for PolarProvider {
    fn name(&self) -> &'static str {
        "polar"
    }

    /// Polar announces a paid order as `order.paid`; that is its succeeded payment.
    fn payment_succeeded_event(&self) -> &'static str {
        "order.paid"
    }

    /// Polar cannot charge a saved card without the customer (see [`PolarProvider::charge`]).
    fn can_charge_off_session(&self) -> bool {
        false
    }

    fn webhook_secret(&self) -> &str {
        &self.config.webhook_secret
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentsError> {
        let product = self.product_for(&request.purchase)?;
        let body = checkout_body(request, product, &self.config.success_url);
        let answer = self.post("/v1/checkouts/", &body, "the checkout").await?;
        let url = non_empty(&answer, "url")
            .ok_or_else(|| PaymentsError::Incomplete("Polar answered the checkout without a url".into()))?;
        let id = non_empty(&answer, "id")
            .ok_or_else(|| PaymentsError::Incomplete("Polar answered the checkout without an id".into()))?;
        tracing::info!(reference = %request.reference, checkout = %id, "Polar checkout created");
        let expires_at = non_empty(&answer, "expires_at")
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&chrono::Utc));
        Ok(Checkout { url: url.to_string(), provider_id: id.to_string(), expires_at })
    }

    async fn portal(&self, customer_id: &str) -> Result<String, PaymentsError> {
        let customer_id = customer_id.trim();
        if customer_id.is_empty() {
            return Err(PaymentsError::Failed("no Polar customer to open the portal for".into()));
        }
        let body = json!({ "customer_id": customer_id });
        let answer = self.post("/v1/customer-sessions/", &body, "the customer portal").await?;
        non_empty(&answer, "customer_portal_url")
            .map(str::to_string)
            .ok_or_else(|| PaymentsError::Incomplete("Polar answered the customer session without a portal URL".into()))
    }

    /// `PATCH /v1/customers/{id}` with the new email.
    async fn set_customer_email(&self, customer_id: &str, email: &str) -> Result<(), PaymentsError> {
        let customer_id = customer_id.trim();
        if customer_id.is_empty() {
            return Err(PaymentsError::Failed("no Polar customer to update".into()));
        }
        let body = json!({ "email": email });
        self.call(reqwest::Method::PATCH, &format!("/v1/customers/{customer_id}"), Some(&body), "the customer email")
            .await?;
        Ok(())
    }

    /// Lists the customer's active subscriptions and sets each to cancel at the end of its
    /// period (`PATCH /v1/subscriptions/{id}` with `cancel_at_period_end`).
    async fn cancel_subscription(&self, customer_id: &str) -> Result<(), PaymentsError> {
        let customer_id = customer_id.trim();
        if customer_id.is_empty() {
            return Err(PaymentsError::Failed("no Polar customer to cancel the plan for".into()));
        }
        let list = Url::parse_with_params(
            "http://polar/v1/subscriptions/",
            [("customer_id", customer_id), ("active", "true")],
        )
        .map_err(|e| PaymentsError::Failed(format!("bad subscription query: {e}")))?;
        let path = format!("{}?{}", list.path(), list.query().unwrap_or_default());
        let answer = self.call(reqwest::Method::GET, &path, None, "the subscription list").await?;
        let ids: Vec<&str> = answer
            .get("items")
            .and_then(Value::as_array)
            .ok_or_else(|| PaymentsError::Incomplete("Polar answered the subscription list without items".into()))?
            .iter()
            .filter_map(|s| non_empty(s, "id"))
            .collect();
        // Nothing active: already cancelled at Polar (its portal, say), which is what was asked.
        if ids.is_empty() {
            return Ok(());
        }
        for id in ids {
            let body = json!({ "cancel_at_period_end": true });
            self.call(reqwest::Method::PATCH, &format!("/v1/subscriptions/{id}"), Some(&body), "the cancellation")
                .await?;
        }
        Ok(())
    }

    /// `POST /v1/refunds/` for the order (Polar's payment id is the order id), the whole amount
    /// given, reason `other`, without revoking the order's benefits (we grant none through Polar).
    async fn refund(&self, payment_id: &str, amount_cents: i64) -> Result<(), PaymentsError> {
        let order = payment_id.trim();
        if order.is_empty() || amount_cents <= 0 {
            return Err(PaymentsError::Failed("no Polar order or amount to refund".into()));
        }
        let body = json!({
            "order_id": order,
            "reason": "other",
            "amount": amount_cents,
            "comment": "The offering was no longer available when the payment arrived.",
            "revoke_benefits": false,
        });
        self.post("/v1/refunds/", &body, "the refund").await.map(|_| ())
    }

    /// Always [`PaymentsError::Failed`] with [`NO_OFF_SESSION_CHARGE`], without calling Polar:
    /// Polar offers no off-session charge of a saved card.
    async fn charge(&self, request: &ChargeRequest) -> Result<String, PaymentsError> {
        tracing::warn!(reference = %request.reference, "auto top-up asked Polar for an off-session charge it cannot make");
        Err(PaymentsError::Failed(NO_OFF_SESSION_CHARGE.to_string()))
    }
}

/// A non-blank string field of an answer.
fn non_empty<'a>(answer: &'a Value, field: &str) -> Option<&'a str> {
    answer.get(field).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// The answer's body, at most [`MAX_BODY`] bytes.
async fn read_capped(response: &mut reqwest::Response, what: &str) -> Result<Vec<u8>, PaymentsError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| PaymentsError::Failed(format!("Polar's answer to {what} broke off: {}", e.without_url())))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(PaymentsError::Failed(format!("Polar answered {what} with an oversized body")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The upstream message in an error body: `detail` (a string, or a list of `{loc, msg}`
/// validation errors), `error` (a string or an object with `message`), or `message`.
fn message_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(message_of).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(object) => {
            if let Some(msg) = object.get("msg").and_then(Value::as_str) {
                let loc: Vec<String> = object
                    .get("loc")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter(|p| p.as_str() != Some("body"))
                            .map(|p| p.as_str().map(str::to_string).unwrap_or_else(|| p.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                return Some(if loc.is_empty() { msg.to_string() } else { format!("{}: {msg}", loc.join(".")) });
            }
            ["detail", "message", "error"].iter().find_map(|k| object.get(*k).and_then(message_of))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{body_partial_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const TOKEN: &str = "polar_oat_secret_token_123";

    fn config(base_url: &str) -> PolarConfig {
        PolarConfig {
            base_url: base_url.to_string(),
            access_token: TOKEN.to_string(),
            webhook_secret: "polar_whs_abc".to_string(),
            products: PolarConfig::parse_products(
                "pack_250=prod_250, pack_1000=prod_1000, studio=prod_studio, custom=prod_custom",
            )
            .unwrap(),
            success_url: "https://studio.example/billing/return?checkout={CHECKOUT_ID}".to_string(),
        }
    }

    fn topup() -> CheckoutRequest {
        CheckoutRequest {
            reference: "chk_0001".into(),
            org_id: "org_1".into(),
            user_id: "usr_1".into(),
            email: "ada@maison.example".into(),
            purchase: Purchase::Topup { pack: "pack_1000".into() },
            tokens: 1000,
            amount_cents: 3500,
            description: "1,000 tokens".into(),
            customer_id: None,
        }
    }

    fn checkout_answer() -> Value {
        json!({"id": "co_123", "url": "https://buy.polar.sh/co_123", "status": "open", "client_secret": "cs"})
    }

    #[tokio::test]
    async fn checkout_sends_the_product_metadata_email_and_bearer() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/checkouts/"))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .and(body_partial_json(json!({
                "products": ["prod_1000"],
                "amount": 3500,
                "customer_email": "ada@maison.example",
                "external_customer_id": "org_1",
                "success_url": "https://studio.example/billing/return?checkout={CHECKOUT_ID}",
                "metadata": {
                    "reference": "chk_0001", "org_id": "org_1", "user_id": "usr_1",
                    "kind": "topup", "pack": "pack_1000", "tokens": 1000, "amount_cents": 3500
                }
            })))
            .respond_with(ResponseTemplate::new(201).set_body_json(checkout_answer()))
            .expect(1)
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let checkout = polar.create_checkout(&topup()).await.unwrap();
        assert_eq!(
            checkout,
            Checkout { url: "https://buy.polar.sh/co_123".into(), provider_id: "co_123".into(), expires_at: None }
        );
    }

    #[tokio::test]
    async fn subscription_and_custom_use_their_products_and_a_known_customer() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/checkouts/"))
            .and(body_partial_json(json!({
                "products": ["prod_studio"], "customer_id": "cus_9",
                "metadata": {"kind": "subscription", "tier": "studio"}
            })))
            .respond_with(ResponseTemplate::new(201).set_body_json(checkout_answer()))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/checkouts/"))
            .and(body_partial_json(json!({
                "products": ["prod_custom"], "amount": 1234, "metadata": {"kind": "custom", "tokens": 300}
            })))
            .respond_with(ResponseTemplate::new(201).set_body_json(checkout_answer()))
            .expect(1)
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let mut sub = topup();
        sub.purchase = Purchase::Subscription { tier: "studio".into() };
        sub.customer_id = Some("cus_9".into());
        polar.create_checkout(&sub).await.unwrap();
        let mut custom = topup();
        custom.purchase = Purchase::Custom;
        custom.tokens = 300;
        custom.amount_cents = 1234;
        polar.create_checkout(&custom).await.unwrap();

        let requests = server.received_requests().await.unwrap();
        let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
        assert!(first.get("external_customer_id").is_none(), "{first}");
    }

    #[tokio::test]
    async fn a_slug_without_a_product_fails_without_calling_polar() {
        let server = MockServer::start().await;
        let polar = PolarProvider::new(config(&server.uri()));
        let mut request = topup();
        request.purchase = Purchase::Topup { pack: "pack_3000".into() };
        let err = polar.create_checkout(&request).await.unwrap_err();
        assert!(matches!(&err, PaymentsError::Failed(m) if m.contains("pack_3000")), "{err:?}");
        assert!(server.received_requests().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_4xx_is_failed_with_polars_message_and_never_the_token() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/checkouts/"))
            .respond_with(ResponseTemplate::new(422).set_body_json(json!({
                "detail": [{"loc": ["body", "products", 0], "msg": "Product does not exist.", "type": "value_error"}]
            })))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path("/v1/customer-sessions/"))
            .respond_with(ResponseTemplate::new(401).set_body_json(json!({
                "error": "Unauthorized", "detail": format!("The token {TOKEN} is invalid")
            })))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let err = polar.create_checkout(&topup()).await.unwrap_err();
        let PaymentsError::Failed(message) = &err else { panic!("{err:?}") };
        assert!(message.contains("HTTP 422") && message.contains("products.0: Product does not exist."), "{message}");
        let err = polar.portal("cus_9").await.unwrap_err();
        let PaymentsError::Failed(message) = &err else { panic!("{err:?}") };
        assert!(message.contains("HTTP 401") && message.contains("is invalid"), "{message}");
        assert!(!message.contains(TOKEN), "{message}");
    }

    #[tokio::test]
    async fn a_5xx_or_an_unreachable_polar_is_failed() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(503).set_body_string("upstream down"))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let err = polar.create_checkout(&topup()).await.unwrap_err();
        assert!(matches!(&err, PaymentsError::Failed(m) if m.contains("HTTP 503")), "{err:?}");

        // Nothing listens on a port just released.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let polar = PolarProvider::new(config(&format!("http://127.0.0.1:{port}")));
        let err = polar.create_checkout(&topup()).await.unwrap_err();
        let PaymentsError::Failed(message) = &err else { panic!("{err:?}") };
        assert!(message.contains("could not be reached"), "{message}");
        assert!(!message.contains(TOKEN), "{message}");
    }

    #[tokio::test]
    async fn a_checkout_answer_without_a_url_is_incomplete() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/checkouts/"))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": "co_1"})))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let err = polar.create_checkout(&topup()).await.unwrap_err();
        assert!(matches!(err, PaymentsError::Incomplete(_)), "{err:?}");
    }
    #[tokio::test]
    async fn the_customer_email_is_patched_and_a_refusal_fails() {
        let server = MockServer::start().await;
        Mock::given(method("PATCH"))
            .and(path("/v1/customers/cus_9"))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .and(body_partial_json(json!({"email": "books@maison.example"})))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": "cus_9"})))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("PATCH"))
            .and(path("/v1/customers/cus_gone"))
            .respond_with(ResponseTemplate::new(404).set_body_json(json!({"detail": "Customer not found"})))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        polar.set_customer_email("cus_9", "books@maison.example").await.unwrap();
        let refused = polar.set_customer_email("cus_gone", "books@maison.example").await;
        assert!(matches!(refused, Err(PaymentsError::Failed(m)) if m.contains("Customer not found")));
    }

    #[tokio::test]
    async fn cancelling_sets_each_active_subscription_to_end_with_its_period() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v1/subscriptions/"))
            .and(wiremock::matchers::query_param("customer_id", "cus_9"))
            .and(wiremock::matchers::query_param("active", "true"))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"items": [{"id": "sub_1"}, {"id": "sub_2"}]})),
            )
            .expect(1)
            .mount(&server)
            .await;
        for id in ["sub_1", "sub_2"] {
            Mock::given(method("PATCH"))
                .and(path(format!("/v1/subscriptions/{id}")))
                .and(body_partial_json(json!({"cancel_at_period_end": true})))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": id})))
                .expect(1)
                .mount(&server)
                .await;
        }
        let polar = PolarProvider::new(config(&server.uri()));
        polar.cancel_subscription("cus_9").await.unwrap();
    }

    #[tokio::test]
    async fn cancelling_with_nothing_active_succeeds_and_a_refusal_fails() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v1/subscriptions/"))
            .and(wiremock::matchers::query_param("customer_id", "cus_none"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"items": []})))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/v1/subscriptions/"))
            .and(wiremock::matchers::query_param("customer_id", "cus_down"))
            .respond_with(ResponseTemplate::new(503))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        assert!(polar.cancel_subscription("cus_none").await.is_ok(), "nothing active is already cancelled");
        assert!(matches!(polar.cancel_subscription("cus_down").await, Err(PaymentsError::Failed(_))));
        assert!(matches!(polar.cancel_subscription(" ").await, Err(PaymentsError::Failed(_))));
    }

    #[tokio::test]
    async fn the_portal_is_a_customer_session_url() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/customer-sessions/"))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .and(body_partial_json(json!({"customer_id": "cus_9"})))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({
                "id": "cs_1", "token": "polar_cst_x", "customer_id": "cus_9",
                "customer_portal_url": "https://polar.sh/maison/portal?customer_session_token=polar_cst_x"
            })))
            .expect(1)
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let url = polar.portal("cus_9").await.unwrap();
        assert_eq!(url, "https://polar.sh/maison/portal?customer_session_token=polar_cst_x");
    }

    #[tokio::test]
    async fn a_portal_answer_without_a_url_is_incomplete() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/customer-sessions/"))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": "cs_1", "customer_portal_url": ""})))
            .mount(&server)
            .await;
        let polar = PolarProvider::new(config(&server.uri()));
        let err = polar.portal("cus_9").await.unwrap_err();
        assert!(matches!(err, PaymentsError::Incomplete(_)), "{err:?}");
    }

    #[tokio::test]
    async fn charge_refuses_honestly_without_calling_polar() {
        let server = MockServer::start().await;
        let polar = PolarProvider::new(config(&server.uri()));
        let request = ChargeRequest {
            reference: "chg_1".into(),
            org_id: "org_1".into(),
            customer_id: "cus_9".into(),
            pack: "pack_250".into(),
            tokens: 250,
            amount_cents: 1000,
        };
        let err = polar.charge(&request).await.unwrap_err();
        assert_eq!(err, PaymentsError::Failed(NO_OFF_SESSION_CHARGE.to_string()));
        assert!(NO_OFF_SESSION_CHARGE.starts_with("Polar cannot charge a saved card off-session; auto top-up needs"));
        assert!(server.received_requests().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn no_token_or_a_bad_base_url_fails_every_call() {
        let mut no_token = config("https://api.polar.sh");
        no_token.access_token = String::new();
        let err = PolarProvider::new(no_token).create_checkout(&topup()).await.unwrap_err();
        assert!(matches!(&err, PaymentsError::Failed(m) if m.contains("STUDIO_POLAR_TOKEN")), "{err:?}");
        let err = PolarProvider::new(config("not a url")).portal("cus_9").await.unwrap_err();
        assert!(matches!(&err, PaymentsError::Failed(m) if m.contains("base URL")), "{err:?}");
    }

    #[test]
    fn debug_redacts_the_token_and_the_secret() {
        let text = format!("{:?}", PolarProvider::new(config("https://api.polar.sh")));
        assert!(!text.contains(TOKEN) && !text.contains("polar_whs_abc"), "{text}");
        assert!(text.contains("<redacted>") && text.contains("prod_1000"), "{text}");
    }

    #[test]
    fn products_parse_as_slug_equals_id() {
        let parsed = PolarConfig::parse_products(" pack_250 = prod_a ,, studio=prod_b").unwrap();
        assert_eq!(parsed.get("pack_250").map(String::as_str), Some("prod_a"));
        assert_eq!(parsed.get("studio").map(String::as_str), Some("prod_b"));
        assert!(PolarConfig::parse_products("pack_250").unwrap_err().contains("pack_250"));
        assert!(PolarConfig::parse_products("=prod").is_err());
        assert!(PolarConfig::parse_products("a=1,a=2").unwrap_err().contains("twice"));
    }
}
