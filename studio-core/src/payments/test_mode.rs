//! The test-mode provider, the embedded default (like a payment provider's test mode).
//!
//! A checkout's URL is a page on this server (`GET` shows what is bought, `POST` confirms). On
//! confirmation, and after an auto top-up charge, the core signs a `payment.succeeded` event
//! with this provider's webhook secret (Standard Webhooks) and hands the same headers and raw
//! body to the same function the webhook route calls, so granting always goes through the one
//! real path. Customers whose id contains `decline` have a card that refuses off-session
//! charges (a confirmation with `?card=decline` creates one), for trying the failure path.

use super::webhooks::{WebhookHeaders, sign};
use super::{ChargeRequest, Checkout, CheckoutRequest, PAYMENT_SUCCEEDED, PaymentsError, PaymentsProvider};

/// Where a test-mode checkout is paid: `GET`/`POST {TEST_CHECKOUT_PATH}/{reference}`.
pub const TEST_CHECKOUT_PATH: &str = "/api/toolkit/ai/billing/test-checkout";
/// The test-mode billing portal: `GET {TEST_PORTAL_PATH}/{customer}`.
pub const TEST_PORTAL_PATH: &str = "/api/toolkit/ai/billing/test-portal";
/// The name the catalog shows for the test-mode provider.
pub const TEST_MODE: &str = "test";

/// The test-mode provider.
#[derive(Debug, Clone)]
pub struct TestModeProvider {
    base_url: String,
    secret: String,
}

impl TestModeProvider {
    /// A provider whose URLs start with `base_url` (no trailing slash; empty for relative
    /// URLs) and whose deliveries are signed with `secret` (`whsec_…`).
    pub fn new(base_url: impl Into<String>, secret: impl Into<String>) -> Self {
        TestModeProvider { base_url: base_url.into().trim_end_matches('/').to_string(), secret: secret.into() }
    }

    /// A fresh random `whsec_` secret, for a process that was given none.
    pub fn random_secret() -> String {
        use base64::Engine;
        let bytes: [u8; 24] = rand::random();
        format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    /// The payment id test mode gives a reference: the same for every confirmation of it.
    pub fn payment_id(reference: &str) -> String {
        format!("pay_test_{reference}")
    }
}

/// A signed `payment.succeeded` delivery, as the provider would POST it: headers and raw body.
pub fn signed_payment(
    secret: &str,
    reference: &str,
    customer_id: &str,
    amount_cents: i64,
    now: i64,
) -> Result<(WebhookHeaders, Vec<u8>), PaymentsError> {
    let body = serde_json::json!({
        "type": PAYMENT_SUCCEEDED,
        "timestamp": chrono::DateTime::from_timestamp(now, 0).map(|t| t.to_rfc3339()),
        "data": {
            "payment_id": TestModeProvider::payment_id(reference),
            "customer": { "customer_id": customer_id },
            "metadata": { "reference": reference },
            "total_amount": amount_cents,
            "currency": "USD",
        }
    });
    let body = serde_json::to_vec(&body).map_err(|e| PaymentsError::Failed(e.to_string()))?;
    let id = format!("msg_{}", uuid::Uuid::new_v4().simple());
    let signature = sign(secret, &id, now, &body).map_err(|e| PaymentsError::Failed(e.to_string()))?;
    let headers = WebhookHeaders { id: Some(id), timestamp: Some(now.to_string()), signature: Some(signature) };
    Ok((headers, body))
}

#[async_trait::async_trait]
impl PaymentsProvider for TestModeProvider {
    fn name(&self) -> &'static str {
        TEST_MODE
    }

    fn webhook_secret(&self) -> &str {
        &self.secret
    }

    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentsError> {
        Ok(Checkout {
            url: format!("{}{TEST_CHECKOUT_PATH}/{}", self.base_url, request.reference),
            provider_id: format!("cs_test_{}", request.reference),
            expires_at: None,
        })
    }

    async fn portal(&self, customer_id: &str) -> Result<String, PaymentsError> {
        Ok(format!("{}{TEST_PORTAL_PATH}/{customer_id}", self.base_url))
    }

    async fn charge(&self, request: &ChargeRequest) -> Result<String, PaymentsError> {
        if request.customer_id.contains("decline") {
            return Err(PaymentsError::Failed("The test card was declined.".into()));
        }
        Ok(TestModeProvider::payment_id(&request.reference))
    }

    /// Test mode moves no real money: a refund of a test payment is always accepted.
    async fn refund(&self, _payment_id: &str, _amount_cents: i64) -> Result<(), PaymentsError> {
        Ok(())
    }

    /// Test mode keeps no customer record of its own: the stored billing contact is the record.
    async fn set_customer_email(&self, _customer_id: &str, _email: &str) -> Result<(), PaymentsError> {
        Ok(())
    }

    /// Test mode holds no subscription of its own: the house's stored plan is the record, so
    /// there is nothing further to tell.
    async fn cancel_subscription(&self, _customer_id: &str) -> Result<(), PaymentsError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_payment_verifies_and_reads_back() {
        let secret = TestModeProvider::random_secret();
        let (headers, body) = signed_payment(&secret, "chk_1", "cus_1", 1000, 1_700_000_000).unwrap();
        let id = super::super::webhooks::verify(&secret, &headers, &body, 1_700_000_000).unwrap();
        assert!(id.starts_with("msg_"));
        let event = super::super::PaymentEvent::parse(&body).unwrap();
        assert_eq!(event.reference.as_deref(), Some("chk_1"));
        assert_eq!(event.payment_id.as_deref(), Some("pay_test_chk_1"));
        assert_eq!(event.customer_id.as_deref(), Some("cus_1"));
    }
}
