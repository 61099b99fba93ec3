//! The SQL of checkouts, billing accounts, auto top-up and payments
//! ([`BillingStore`](crate::storage::BillingStore)). Credits go through the helpers of `tx.rs`.

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

            async fn checkout_created(&self, reference: &str, provider_id: Option<&ProviderRef>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                let status = if provider_id.is_some() { "open" } else { "failed" };
                sqlx::query("UPDATE billing_checkouts SET provider_id = $1, status = $2 WHERE reference = $3 AND status = 'open'")
                    .bind(provider_id)
                    .bind(status)
                    .bind(reference)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn checkout(&self, reference: &str) -> Result<Option<CheckoutRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1"))
                    .bind(reference)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn billing_account(&self, org_id: &OrgId) -> Result<Option<BillingAccountRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", account_columns!(), " FROM billing_accounts WHERE org_id = $1"))
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn save_autocharge(&self, s: AutochargeSettings) -> Result<BillingAccountRow, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "INSERT INTO billing_accounts (org_id, has_card, autocharge_enabled, threshold_tokens, refill_pack, \
                     monthly_cap_cents, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (org_id) DO UPDATE SET autocharge_enabled = excluded.autocharge_enabled, \
                     threshold_tokens = excluded.threshold_tokens, refill_pack = excluded.refill_pack, \
                     monthly_cap_cents = excluded.monthly_cap_cents, updated_at = excluded.updated_at \
                     RETURNING ", account_columns!()
                ))
                .bind(&s.org_id)
                .bind(false)
                .bind(s.enabled)
                .bind(s.threshold_tokens)
                .bind(&s.refill_pack)
                .bind(s.monthly_cap_cents)
                .bind(s.now)
                .fetch_one(&self.pool)
                .await?)
            }

            async fn reserve_autocharge(&self, r: NewAutocharge) -> Result<AutochargeOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                // The balance row lock serialises this against every ledger write and every
                // other reservation of the house, on any replica.
                let bal = lock_balance(&mut tx, &r.org_id).await?;
                let account: Option<BillingAccountRow> =
                    sqlx::query_as(concat!("SELECT ", account_columns!(), " FROM billing_accounts WHERE org_id = $1"))
                        .bind(&r.org_id)
                        .fetch_optional(&mut *tx)
                        .await?;
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
                let (recent,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
                     AND status <> 'failed' AND created_at >= $2",
                )
                .bind(&r.org_id)
                .bind(r.debounce_since)
                .fetch_one(&mut *tx)
                .await?;
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
                    status: "open".to_string(),
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
                sqlx::query(
                    "UPDATE billing_checkouts SET status = 'charged', payment_id = $1 WHERE reference = $2 AND status = 'open'",
                )
                .bind(payment_id)
                .bind(reference)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn autocharge_failed(&self, reference: &str) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query("UPDATE billing_checkouts SET status = 'failed' WHERE reference = $1 AND status = 'open'")
                    .bind(reference)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn autocharges(&self, org_id: &OrgId, limit: i64) -> Result<Vec<CheckoutRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE org_id = $1 AND kind = 'autocharge' \
                     AND status <> 'failed' ORDER BY created_at DESC, reference DESC LIMIT $2"
                ))
                .bind(org_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
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
                let fresh = sqlx::query(
                    "INSERT INTO billing_webhooks (webhook_id, event_type, reference, received_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (webhook_id) DO NOTHING",
                )
                .bind(&p.webhook_id)
                .bind(&p.event_type)
                .bind(&p.reference)
                .bind(p.now)
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
                    Some(reference) => sqlx::query_as(concat!(
                        "SELECT ", checkout_columns!(), " FROM billing_checkouts WHERE reference = $1", $lock
                    ))
                    .bind(reference)
                    .fetch_optional(&mut *tx)
                    .await?,
                    None => None,
                };
                let Some(checkout) = checkout else {
                    tx.commit().await?;
                    return Ok(PaymentOutcome::Ignored("unknown_reference"));
                };
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
                let first = sqlx::query(
                    "INSERT INTO billing_grants (grant_key, org_id, reference, payment_id, tokens, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (grant_key) DO NOTHING",
                )
                .bind(&grant_key)
                .bind(&checkout.org_id)
                .bind(&checkout.reference)
                .bind(&p.payment_id)
                .bind(tokens)
                .bind(p.now)
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
                sqlx::query(
                    "UPDATE billing_checkouts SET status = 'paid', paid_at = COALESCE(paid_at, $1), \
                     payment_id = COALESCE(payment_id, $2) WHERE reference = $3",
                )
                .bind(p.now)
                .bind(&p.payment_id)
                .bind(&checkout.reference)
                .execute(&mut *tx)
                .await?;
                if let Some(customer) = &p.customer_id {
                    sqlx::query(
                        "INSERT INTO billing_accounts (org_id, customer_id, has_card, updated_at) VALUES ($1, $2, $3, $4) \
                         ON CONFLICT (org_id) DO UPDATE SET customer_id = excluded.customer_id, has_card = excluded.has_card, \
                         updated_at = excluded.updated_at",
                    )
                    .bind(&checkout.org_id)
                    .bind(customer)
                    .bind(true)
                    .bind(p.now)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(PaymentOutcome::Granted { org_id: checkout.org_id.to_string(), tokens, bucket, balance })
            }
        }

        /// Insert a checkout row inside a transaction.
        async fn insert_checkout_in(tx: &mut Tx, c: &CheckoutRow) -> Result<(), StorageError> {
            sqlx::query(concat!(
                "INSERT INTO billing_checkouts (", checkout_columns!(), ") \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            ))
            .bind(&c.reference)
            .bind(&c.org_id)
            .bind(&c.user_id)
            .bind(&c.kind)
            .bind(&c.item)
            .bind(c.tokens)
            .bind(c.amount_cents)
            .bind(c.grant_cap)
            .bind(&c.status)
            .bind(&c.provider_id)
            .bind(&c.payment_id)
            .bind(c.created_at)
            .bind(c.paid_at)
            .execute(&mut **tx)
            .await
            .map_err(unique_as("checkout reference"))?;
            Ok(())
        }

        /// Cents of a house's auto top-up charges (not failed) since a time.
        async fn autocharge_spent_in(tx: &mut Tx, org_id: &OrgId, since: DateTime<Utc>) -> Result<i64, StorageError> {
            let (spent,): (i64,) = sqlx::query_as(
                "SELECT CAST(COALESCE(SUM(amount_cents), 0) AS BIGINT) FROM billing_checkouts \
                 WHERE org_id = $1 AND kind = 'autocharge' AND status <> 'failed' AND created_at >= $2",
            )
            .bind(org_id)
            .bind(since)
            .fetch_one(&mut **tx)
            .await?;
            Ok(spent)
        }
    };
}

pub(in crate::storage) use impl_billing_store;
