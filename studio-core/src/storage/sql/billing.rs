//! The SQL of checkouts, billing accounts, auto top-up and payments
//! ([`BillingStore`](crate::storage::BillingStore)). Credits go through the helpers of `tx.rs`;
//! every statement is declared in [`q`] (see stmt.rs).
//!
//! Which statements run under the house's lock (its balance row, `lock_balance` in tx.rs):
//! in `reserve_autocharge`, every one after the lock (`account`, `recent_autocharges`,
//! `autocharge_spent`, `insert_checkout`); in `apply_payment`, those after the checkout is read
//! (`insert_grant`, the credit of tx.rs, `mark_paid`, `save_customer`). `record_webhook` and
//! `checkout_locked` run before it: the house is not known until the checkout row is read (which
//! PostgreSQL locks by itself). Every other statement runs outside it.

/// Billing's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{OrgId, ProviderRef, UserId};
    use crate::storage::sql::stmt::statements;
    use crate::storage::sql::{account_columns, checkout_columns};
    use crate::storage::{BillingAccountRow, CheckoutRow};

    statements! {
        /// Record the provider's answer for an open checkout: its id (`open`), or `failed`.
        fn checkout_created(provider_id: Option<&'q ProviderRef>, status: &'q str, reference: &'q str) -> exec [any "a checkout reference is unique across houses, minted by the caller, which stored the checkout for the asking house just before"] {
            "UPDATE billing_checkouts SET provider_id = $1, status = $2 WHERE reference = $3 AND status = 'open'"
        }

        /// A checkout or charge by reference, whatever its house.
        fn checkout(reference: &'q str) -> row<CheckoutRow> [any "a checkout reference is unique across houses: the test-mode checkout page, like the provider's, names a checkout by its reference alone"] {
            "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1"
        }

        /// A house's billing account (in `reserve_autocharge`, under the house's lock).
        fn account(org_id: &'q OrgId) -> row<BillingAccountRow> [house] {
            "SELECT ", account_columns!(), " FROM billing_accounts WHERE org_id = $1"
        }

        /// Save a house's auto top-up settings, creating its account row (without a card).
        fn save_autocharge(
            org_id: &'q OrgId,
            has_card: bool,
            autocharge_enabled: bool,
            threshold_tokens: i64,
            refill_pack: &'q str,
            monthly_cap_cents: i64,
            updated_at: DateTime<Utc>,
        ) -> row<BillingAccountRow> [house] {
            "INSERT INTO billing_accounts (org_id, has_card, autocharge_enabled, threshold_tokens, refill_pack, \
             monthly_cap_cents, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (org_id) DO UPDATE SET autocharge_enabled = excluded.autocharge_enabled, \
             threshold_tokens = excluded.threshold_tokens, refill_pack = excluded.refill_pack, \
             monthly_cap_cents = excluded.monthly_cap_cents, updated_at = excluded.updated_at \
             RETURNING ", account_columns!()
        }

        /// How many auto top-up charges of a house (not failed) were made since `created_at`
        /// (the debounce; under the house's lock).
        fn recent_autocharges(org_id: &'q OrgId, created_at: DateTime<Utc>) -> scalar<i64> [house] {
            "SELECT COUNT(*) FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
             AND status <> 'failed' AND created_at >= $2"
        }

        /// The provider accepted a pending charge: mark it `charged` with its payment id.
        fn autocharge_charged(payment_id: &'q ProviderRef, reference: &'q str) -> exec [any "a charge reference is unique across houses, minted by the caller, which reserved the charge for the asking house just before"] {
            "UPDATE billing_checkouts SET status = 'charged', payment_id = $1 WHERE reference = $2 AND status = 'open'"
        }

        /// The provider refused a pending charge: mark it `failed`.
        fn autocharge_failed(reference: &'q str) -> exec [any "a charge reference is unique across houses, minted by the caller, which reserved the charge for the asking house just before"] {
            "UPDATE billing_checkouts SET status = 'failed' WHERE reference = $1 AND status = 'open'"
        }

        /// A house's auto top-up charges that did not fail, newest first.
        fn autocharges(org_id: &'q OrgId, limit: i64) -> row<CheckoutRow> [house] {
            "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
             AND status <> 'failed' ORDER BY created_at DESC, reference DESC LIMIT $2"
        }

        /// Cents of a house's auto top-up charges (not failed) since `created_at` (in
        /// `reserve_autocharge`, under the house's lock).
        fn autocharge_spent(org_id: &'q OrgId, created_at: DateTime<Utc>) -> scalar<i64> [house] {
            "SELECT CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) FROM billing_checkouts \
             WHERE org_id = $1 AND kind = 'autocharge' AND status <> 'failed' AND created_at >= $2"
        }

        /// Record a payment event's webhook id (no row when it was applied before).
        fn record_webhook(webhook_id: &'q ProviderRef, event_type: &'q str, reference: Option<&'q str>, received_at: DateTime<Utc>) -> exec [any "billing_webhooks has no house: a provider's webhook id is applied once, whatever house it pays"] {
            "INSERT INTO billing_webhooks (webhook_id, event_type, reference, received_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (webhook_id) DO NOTHING"
        }

        /// The checkout a payment event names, locked (PostgreSQL), before its house's lock.
        fn checkout_locked(reference: &'q str) -> row<CheckoutRow> [any "a payment event names its checkout by reference alone (unique across houses); the house is the row's own, whose balance is locked next", lock] {
            "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1"
        }

        /// Record a grant once per key (no row when it was made before; under the house's lock).
        fn insert_grant(
            grant_key: &'q str,
            org_id: &'q OrgId,
            reference: &'q str,
            payment_id: Option<&'q ProviderRef>,
            tokens: i64,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO billing_grants (grant_key, org_id, reference, payment_id, tokens, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (grant_key) DO NOTHING"
        }

        /// Mark a house's checkout paid, keeping the first payment's time and id (under the
        /// house's lock).
        fn mark_paid(paid_at: DateTime<Utc>, payment_id: Option<&'q ProviderRef>, reference: &'q str, org_id: &'q OrgId) -> exec [house] {
            "UPDATE billing_checkouts SET status = 'paid', paid_at = COALESCE(paid_at, $1), \
             payment_id = COALESCE(payment_id, $2) WHERE reference = $3 AND org_id = $4"
        }

        /// Remember the customer (and card) a payment of the house saved (under the house's lock).
        fn save_customer(org_id: &'q OrgId, customer_id: &'q ProviderRef, has_card: bool, updated_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO billing_accounts (org_id, customer_id, has_card, updated_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org_id) DO UPDATE SET customer_id = excluded.customer_id, has_card = excluded.has_card, \
             updated_at = excluded.updated_at"
        }

        /// Store a checkout or charge (in `reserve_autocharge`, under the house's lock).
        fn insert_checkout(
            reference: &'q str,
            org_id: &'q OrgId,
            user_id: Option<&'q UserId>,
            kind: &'q str,
            item: &'q str,
            tokens: i64,
            amount_cents: i64,
            grant_cap: Option<i64>,
            status: &'q str,
            provider_id: Option<&'q ProviderRef>,
            payment_id: Option<&'q ProviderRef>,
            created_at: DateTime<Utc>,
            paid_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO billing_checkouts (", checkout_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        }
    }
}

macro_rules! impl_billing_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::BillingStore for $ty {
            async fn insert_checkout(&self, c: CheckoutRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                insert_checkout_in(&mut tx, &c).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn checkout_created(
                &self,
                reference: &str,
                provider_id: Option<&ProviderRef>,
            ) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let status = if provider_id.is_some() { "open" } else { "failed" };
                q::billing::checkout_created(provider_id, status, reference).execute(&self.pool).await?;
                Ok(())
            }

            async fn checkout(&self, reference: &str) -> Result<Option<CheckoutRow>, StorageError> {
                Ok(q::billing::checkout(reference).fetch_optional(&self.pool).await?)
            }

            async fn billing_account(&self, org_id: &OrgId) -> Result<Option<BillingAccountRow>, StorageError> {
                Ok(q::billing::account(org_id).fetch_optional(&self.pool).await?)
            }

            async fn save_autocharge(&self, s: AutochargeSettings) -> Result<BillingAccountRow, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::billing::save_autocharge(
                    &s.org_id,
                    false,
                    s.enabled,
                    s.threshold_tokens,
                    &s.refill_pack,
                    s.monthly_cap_cents,
                    s.now,
                )
                .fetch_one(&self.pool)
                .await?)
            }

            async fn reserve_autocharge(&self, r: NewAutocharge) -> Result<AutochargeOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                // The balance row lock serialises this against every ledger write and every
                // other reservation of the house, on any replica: every statement below runs
                // under it.
                let bal = lock_balance(&mut tx, &r.org_id).await?;
                let account = q::billing::account(&r.org_id).fetch_optional(&mut *tx).await?;
                let Some(account) = account.filter(|a| a.autocharge_enabled) else {
                    return Ok(AutochargeOutcome::Refused("disabled"));
                };
                let Some(customer_id) = account.customer_id.clone().filter(|_| account.has_card) else {
                    return Ok(AutochargeOutcome::Refused("no_card"));
                };
                let pack = account.refill_pack.as_deref().and_then(|slug| r.packs.iter().find(|p| p.slug == slug));
                let Some(pack) = pack else {
                    return Ok(AutochargeOutcome::Refused("pack_unavailable"));
                };
                let recent = q::billing::recent_autocharges(&r.org_id, r.debounce_since).fetch_one(&mut *tx).await?;
                if recent > 0 {
                    return Ok(AutochargeOutcome::Refused("debounced"));
                }
                let spent = autocharge_spent_in(&mut tx, &r.org_id, r.month_start).await?;
                if spent + pack.price_cents > account.monthly_cap_cents {
                    return Ok(AutochargeOutcome::Refused("monthly_cap"));
                }
                if bal.spendable() >= account.threshold_tokens {
                    return Ok(AutochargeOutcome::Refused("above_threshold"));
                }
                let charge = CheckoutRow {
                    reference: r.reference.clone(),
                    org_id: r.org_id.clone(),
                    user_id: r.user_id.clone(),
                    kind: "autocharge".to_string(),
                    item: pack.slug.clone(),
                    tokens: pack.tokens,
                    amount_cents: pack.price_cents,
                    grant_cap: None,
                    status: $crate::storage::CheckoutStatus::Open,
                    provider_id: None,
                    payment_id: None,
                    created_at: r.now,
                    paid_at: None,
                };
                insert_checkout_in(&mut tx, &charge).await?;
                tx.commit().await?;
                Ok(AutochargeOutcome::Reserved { charge: Box::new(charge), customer_id })
            }

            async fn autocharge_charged(&self, reference: &str, payment_id: &ProviderRef) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::billing::autocharge_charged(payment_id, reference).execute(&self.pool).await?;
                Ok(())
            }

            async fn autocharge_failed(&self, reference: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::billing::autocharge_failed(reference).execute(&self.pool).await?;
                Ok(())
            }

            async fn autocharges(&self, org_id: &OrgId, limit: i64) -> Result<Vec<CheckoutRow>, StorageError> {
                Ok(q::billing::autocharges(org_id, limit).fetch_all(&self.pool).await?)
            }

            async fn autocharge_spent(&self, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError> {
                let mut tx = self.begin_write().await?;
                let spent = autocharge_spent_in(&mut tx, org_id, since).await?;
                tx.commit().await?;
                Ok(spent)
            }

            async fn apply_payment(&self, p: NewPayment) -> Result<PaymentOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let fresh = q::billing::record_webhook(
                    &ProviderRef::from(&p.webhook_id),
                    &p.event_type,
                    p.reference.as_deref(),
                    p.now,
                )
                .execute(&mut *tx)
                .await?;
                if fresh.rows_affected() == 0 {
                    return Ok(PaymentOutcome::Duplicate);
                }
                if p.event_type != crate::payments::PAYMENT_SUCCEEDED {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::Ignored("event_type"));
                }
                if let Some(reference) = p.reference.as_deref().filter(|r| r.starts_with("clm_")) {
                    let outcome = apply_claim_payment_in(&mut tx, &p, reference).await?;
                    tx.commit().await?;
                    return Ok(outcome);
                }
                let checkout: Option<CheckoutRow> = match &p.reference {
                    Some(reference) => q::billing::checkout_locked(reference).fetch_optional(&mut *tx).await?,
                    None => None,
                };
                let Some(checkout) = checkout else {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::Ignored("unknown_reference"));
                };
                // The house's lock: every statement below runs under it.
                let bal = lock_balance(&mut tx, &checkout.org_id).await?;
                // One grant per one-off purchase; a subscription grants once per payment (renewals).
                let grant_key = match (checkout.kind.as_str(), &p.payment_id) {
                    ("subscription", Some(payment)) => format!("{}:{payment}", checkout.reference),
                    _ => checkout.reference.clone(),
                };
                let (bucket, tokens) = match checkout.grant_cap {
                    Some(cap) if checkout.kind == "subscription" => {
                        (Bucket::Grant, checkout.tokens.min(cap - bal.grant_tokens).max(0))
                    }
                    _ => (Bucket::Topup, checkout.tokens),
                };
                let first = q::billing::insert_grant(
                    &grant_key,
                    &checkout.org_id,
                    &checkout.reference,
                    p.payment_id.as_deref().map(ProviderRef::from).as_ref(),
                    tokens,
                    p.now,
                )
                .execute(&mut *tx)
                .await?;
                if first.rows_affected() == 0 {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::AlreadyGranted);
                }
                let balance = if tokens > 0 {
                    let credit = NewCredit {
                        org_id: checkout.org_id.clone(),
                        bucket,
                        amount: tokens,
                        user_id: checkout.user_id.clone(),
                        reason: format!("{} {} ({})", checkout.kind, checkout.item, checkout.reference),
                        expires_at: None,
                        now: p.now,
                    };
                    apply_credit(&mut tx, &credit).await?
                } else {
                    bal
                };
                q::billing::mark_paid(
                    p.now,
                    p.payment_id.as_deref().map(ProviderRef::from).as_ref(),
                    &checkout.reference,
                    &checkout.org_id,
                )
                .execute(&mut *tx)
                .await?;
                if let Some(customer) = &p.customer_id {
                    q::billing::save_customer(&checkout.org_id, &ProviderRef::from(customer), true, p.now)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(PaymentOutcome::Granted { org_id: checkout.org_id.to_string(), tokens, bucket, balance })
            }
        }

        /// Insert a checkout row inside a transaction.
        async fn insert_checkout_in(tx: &mut Tx, c: &CheckoutRow) -> Result<(), StorageError> {
            q::billing::insert_checkout(
                &c.reference,
                &c.org_id,
                c.user_id.as_ref(),
                &c.kind,
                &c.item,
                c.tokens,
                c.amount_cents,
                c.grant_cap,
                c.status.as_str(),
                c.provider_id.as_deref().map(ProviderRef::from).as_ref(),
                c.payment_id.as_deref().map(ProviderRef::from).as_ref(),
                c.created_at,
                c.paid_at,
            )
            .execute(&mut **tx)
            .await
            .map_err(unique_as("checkout reference"))?;
            Ok(())
        }

        /// Cents of a house's auto top-up charges (not failed) since a time.
        async fn autocharge_spent_in(tx: &mut Tx, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError> {
            Ok(q::billing::autocharge_spent(org_id, since).fetch_one(&mut **tx).await?)
        }
    };
}

pub(in crate::storage) use impl_billing_store;
