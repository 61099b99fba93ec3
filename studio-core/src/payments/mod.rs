//! Payments: the seam between the house's money and a payment provider. A provider creates
//! checkouts, opens a billing portal and charges a saved card (auto top-up); it never grants
//! tokens itself: only its signed `payment.succeeded` delivery to the webhook route does.

/// What a checkout sells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purchase {
    /// A token pack (`pack_250`, `pack_1000`, `pack_3000`): tokens into the top-up bucket.
    Topup {
        /// The pack slug.
        pack: String,
    },
    /// A subscription tier (`studio`, `editorial`, `couture`): monthly tokens into the grant bucket.
    Subscription {
        /// The tier slug.
        tier: String,
    },
    /// A custom number of tokens at the highest per-token pack rate: into the top-up bucket.
    Custom,
    /// An offering of the catalog (a model): the signed payment grants a holding, no tokens.
    Offering {
        /// The offering's kind (`model`).
        kind: String,
        /// The offering's id.
        id: String,
    },
}

/// A checkout to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    /// Our reference for this checkout (`chk_…`); the provider echoes it in the webhook metadata.
    pub reference: String,
    /// The house that pays and receives the tokens.
    pub org_id: String,
    /// The owner who asked.
    pub user_id: String,
    /// The owner's email, for the provider's receipt.
    pub email: String,
    /// What is bought.
    pub purchase: Purchase,
    /// Tokens delivered when the payment succeeds.
    pub tokens: i64,
    /// The charge, in US cents.
    pub amount_cents: i64,
    /// A line for people ("1,000 tokens", "Editorial plan").
    pub description: String,
    /// The provider's customer for this house, once known.
    pub customer_id: Option<String>,
}

/// A created checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// Where the owner pays.
    pub url: String,
    /// The provider's id for it.
    pub provider_id: String,
    /// When the provider lets the checkout lapse, when it says (a claim expires with it).
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// An off-session charge of a saved card (auto top-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChargeRequest {
    /// Our reference (`chg_…`), echoed in the webhook metadata; also the idempotency key.
    pub reference: String,
    /// The house.
    pub org_id: String,
    /// The provider's customer with the saved card.
    pub customer_id: String,
    /// The pack bought.
    pub pack: String,
    /// Tokens delivered when the payment succeeds.
    pub tokens: i64,
    /// The charge, in US cents.
    pub amount_cents: i64,
}

/// A failure talking to the provider.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaymentsError {
    /// The provider refused or could not be reached (502 to the caller).
    #[error("{0}")]
    Failed(String),
    /// The provider answered without what was asked (e.g. a portal without a URL).
    #[error("{0}")]
    Incomplete(String),
}

/// A payment provider.
#[async_trait::async_trait]
pub trait PaymentsProvider: Send + Sync + std::fmt::Debug + 'static {
    /// A short name for the catalog (`test`, …).
    fn name(&self) -> &'static str;
    /// The secret its webhooks are signed with (Standard Webhooks: `whsec_` + base64, or raw).
    fn webhook_secret(&self) -> &str;
    /// Create a checkout for `request`.
    async fn create_checkout(&self, request: &CheckoutRequest) -> Result<Checkout, PaymentsError>;
    /// A billing-portal URL for a customer.
    async fn portal(&self, customer_id: &str) -> Result<String, PaymentsError>;
    /// Send the customer's receipts to `email` from now on.
    async fn set_customer_email(&self, customer_id: &str, email: &str) -> Result<(), PaymentsError>;
    /// Charge a saved card off-session; the grant still arrives through the webhook. Returns the
    /// provider's payment id.
    async fn charge(&self, request: &ChargeRequest) -> Result<String, PaymentsError>;
    /// Stop renewing the customer's subscriptions at the end of the period already paid
    /// (nothing is refunded; tokens already granted stay).
    async fn cancel_subscription(&self, customer_id: &str) -> Result<(), PaymentsError>;
    /// The provider's own name for a succeeded payment, the one event that grants: read as
    /// [`PAYMENT_SUCCEEDED`] (Polar calls it `order.paid`).
    fn payment_succeeded_event(&self) -> &'static str {
        PAYMENT_SUCCEEDED
    }
    /// Refund `amount_cents` of a payment (a paid claim that could not become a holding).
    /// A provider without refunds answers an error; the payment then waits for a person.
    async fn refund(&self, payment_id: &str, amount_cents: i64) -> Result<(), PaymentsError> {
        let _ = (payment_id, amount_cents);
        Err(PaymentsError::Failed(format!("{} does not refund through the API", self.name())))
    }
    /// Whether [`PaymentsProvider::charge`] can charge a saved card at all (auto top-up).
    fn can_charge_off_session(&self) -> bool {
        true
    }
}

pub(crate) mod polar;

pub(crate) mod test_mode;
/// Standard Webhooks signing and verification, compiled at the crate root under the `signing`
/// feature (which `engine` includes) and named here as before.
pub(crate) use crate::standard_webhooks as webhooks;

/// The one event type that grants tokens.
pub const PAYMENT_SUCCEEDED: &str = "payment.succeeded";

/// What the core reads from a provider's webhook body. The body is the provider's own JSON
/// event; these fields are looked up in the shapes Standard-Webhooks providers use:
/// `type`; `data.metadata.reference` (or `data.reference`); `data.payment_id` (or
/// `data.paymentId`, `data.id`); `data.customer.customer_id` (or `data.customer_id`,
/// `data.customerId`, a string `data.customer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentEvent {
    /// The event type (`payment.succeeded`, `payment.failed`, `subscription.renewed`, ...).
    pub event_type: String,
    /// Our checkout or charge reference, echoed from the metadata.
    pub reference: Option<String>,
    /// The provider's payment id (a subscription renewal is a new payment).
    pub payment_id: Option<String>,
    /// The provider's customer, to remember for the portal and auto top-up.
    pub customer_id: Option<String>,
    /// What was paid, in cents, when the event says (`data.total_amount`, `data.amount`).
    pub amount_cents: Option<i64>,
    /// The currency paid in, lower case, when the event says (`data.currency`).
    pub currency: Option<String>,
}

impl PaymentEvent {
    /// Read an event body; None when it is not a JSON object with a string `type`.
    pub fn parse(body: &[u8]) -> Option<PaymentEvent> {
        let value: serde_json::Value = serde_json::from_slice(body).ok()?;
        let event_type = value.get("type")?.as_str()?.trim().to_string();
        if event_type.is_empty() {
            return None;
        }
        let data = value.get("data").cloned().unwrap_or(serde_json::Value::Null);
        let text = |v: Option<&serde_json::Value>| {
            v.and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
        };
        let reference = text(data.pointer("/metadata/reference")).or_else(|| text(data.get("reference")));
        let payment_id =
            text(data.get("payment_id")).or_else(|| text(data.get("paymentId"))).or_else(|| text(data.get("id")));
        let customer_id = text(data.pointer("/customer/customer_id"))
            .or_else(|| text(data.pointer("/customer/id")))
            .or_else(|| text(data.get("customer_id")))
            .or_else(|| text(data.get("customerId")))
            .or_else(|| text(data.get("customer")));
        let amount_cents = data.get("total_amount").or_else(|| data.get("amount")).and_then(|v| v.as_i64());
        let currency = text(data.get("currency")).map(|c| c.to_lowercase());
        Some(PaymentEvent { event_type, reference, payment_id, customer_id, amount_cents, currency })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_in_the_usual_shapes() {
        let nested = br#"{"type":"payment.succeeded","data":{"payment_id":"pay_1","customer":{"customer_id":"cus_1"},"metadata":{"reference":"chk_1"}}}"#;
        assert_eq!(
            PaymentEvent::parse(nested),
            Some(PaymentEvent {
                event_type: PAYMENT_SUCCEEDED.into(),
                reference: Some("chk_1".into()),
                payment_id: Some("pay_1".into()),
                customer_id: Some("cus_1".into()),
                amount_cents: None,
                currency: None,
            })
        );
        let flat = br#"{"type":"payment.failed","data":{"id":"pay_2","customerId":"cus_2","reference":"chg_2"}}"#;
        let flat = PaymentEvent::parse(flat).unwrap();
        assert_eq!((flat.reference.as_deref(), flat.customer_id.as_deref()), (Some("chg_2"), Some("cus_2")));
        for bad in [&b"not json"[..], b"[]", b"{}", br#"{"type": 3}"#, br#"{"type": " "}"#] {
            assert_eq!(PaymentEvent::parse(bad), None);
        }
    }
}
