//! The market's transaction helpers: an offering's row lock, holdings inserted under the
//! partial unique indexes that forbid a second owner, and a claim's payment applied inside the
//! billing webhook's transaction. Module-level functions shared by the model store
//! ([`ModelStore`](crate::storage::ModelStore)) and the billing store's `apply_payment`.

macro_rules! impl_market_helpers {
    ($lock:literal) => {
        /// Lock an offering's model row for the rest of the transaction (PostgreSQL; SQLite's
        /// writers are already serialised) and read it.
        async fn lock_model(tx: &mut Tx, id: &ModelId) -> Result<Option<ModelRow>, StorageError> {
            Ok(sqlx::query_as(concat!("SELECT ", model_columns!(), " FROM models WHERE id = $1", $lock))
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?)
        }

        /// Insert a holding unless the house already holds it or, for an exclusive face,
        /// another house does (the partial unique indexes decide); true when inserted.
        async fn insert_holding_in(tx: &mut Tx, e: &$crate::storage::EntitlementRow) -> Result<bool, StorageError> {
            let done = sqlx::query(concat!(
                "INSERT INTO entitlements (",
                $crate::storage::sql::models::entitlement_columns!(),
                ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING"
            ))
            .bind(&e.id)
            .bind(&e.org_id)
            .bind(&e.kind)
            .bind(&e.offering_id)
            .bind(&e.name)
            .bind(&e.source)
            .bind(e.price_cents)
            .bind(&e.currency)
            .bind(&e.payment_ref)
            .bind(e.exclusive)
            .bind(e.acquired_at)
            .bind(e.revoked_at)
            .bind(&e.revoked_by)
            .bind(&e.revoke_reason)
            .execute(&mut **tx)
            .await?;
            Ok(done.rows_affected() == 1)
        }

        /// Whether `org_id` holds offering `id`.
        async fn holds_in(tx: &mut Tx, org_id: &OrgId, id: &ModelId) -> Result<bool, StorageError> {
            let row: Option<(String,)> = sqlx::query_as(
                "SELECT id FROM entitlements WHERE kind = 'model' AND offering_id = $1 AND org_id = $2 \
                 AND revoked_at IS NULL",
            )
            .bind(id)
            .bind(org_id)
            .fetch_optional(&mut **tx)
            .await?;
            Ok(row.is_some())
        }

        /// Apply a verified `payment.succeeded` for a claim (`clm_…`) inside the billing
        /// webhook's transaction: a pending claim becomes a holding (source `purchase`); a
        /// claim that expired or was released, or a face someone else now holds, becomes a
        /// payment case to refund or review. Never a second owner of an exclusive face.
        async fn apply_claim_payment_in(
            tx: &mut Tx,
            p: &$crate::storage::NewPayment,
            reference: &str,
        ) -> Result<$crate::storage::PaymentOutcome, StorageError> {
            use $crate::storage::{ClaimRow, EntitlementCaseRow, EntitlementRow, PaymentOutcome};
            let claim: Option<ClaimRow> = sqlx::query_as(concat!(
                "SELECT ",
                $crate::storage::sql::models::claim_columns!(),
                " FROM offering_claims WHERE reference = $1"
            ))
            .bind(reference)
            .fetch_optional(&mut **tx)
            .await?;
            let Some(claim) = claim else {
                return Ok(PaymentOutcome::Ignored("unknown_reference"));
            };
            let model = lock_model(tx, &ModelId::from(&claim.offering_id)).await?;
            // Re-read under the offering's lock: a concurrent delivery of the same payment (a new
            // webhook id) waits here and then sees the claim resolved.
            let claim: ClaimRow = sqlx::query_as(concat!(
                "SELECT ",
                $crate::storage::sql::models::claim_columns!(),
                " FROM offering_claims WHERE reference = $1"
            ))
            .bind(reference)
            .fetch_one(&mut **tx)
            .await?;
            if claim.status == "paid" || claim.status == "lapsed" {
                return Ok(PaymentOutcome::AlreadyGranted);
            }
            // Less than the price, or another currency (a discount, a changed amount): never a
            // holding, whatever the claim's state.
            let underpaid = p.amount_cents.is_some_and(|paid| paid < claim.price_cents)
                || p.currency.as_deref().is_some_and(|c| !c.eq_ignore_ascii_case(&claim.currency));
            let mut reason = match claim.status.as_str() {
                "released" => Some("claim_released"),
                "expired" => Some("claim_expired"),
                _ if underpaid => Some("underpaid"),
                _ => None,
            };
            if reason.is_none() {
                let holding = EntitlementRow {
                    id: $crate::ids::new_id("ent"),
                    org_id: claim.org_id.clone(),
                    kind: claim.kind.clone(),
                    offering_id: claim.offering_id.clone(),
                    name: model.as_ref().map(|m| m.name.clone()).unwrap_or_default(),
                    source: "purchase".to_string(),
                    price_cents: claim.price_cents,
                    currency: claim.currency.clone(),
                    payment_ref: Some(p.payment_id.clone().unwrap_or_else(|| claim.reference.clone())),
                    exclusive: claim.exclusive,
                    acquired_at: p.now,
                    revoked_at: None,
                    revoked_by: None,
                    revoke_reason: None,
                };
                if insert_holding_in(tx, &holding).await? {
                    sqlx::query(
                        "UPDATE offering_claims SET status = 'paid', payment_id = $1, resolved_at = $2 WHERE reference = $3",
                    )
                    .bind(&p.payment_id)
                    .bind(p.now)
                    .bind(&claim.reference)
                    .execute(&mut **tx)
                    .await?;
                    return Ok(PaymentOutcome::Entitled { org_id: claim.org_id.to_string(), holding: Box::new(holding) });
                }
                reason = Some(if holds_in(tx, &claim.org_id, &ModelId::from(&claim.offering_id)).await? {
                    "already_held"
                } else {
                    "taken"
                });
            }
            sqlx::query(
                "UPDATE offering_claims SET status = 'lapsed', payment_id = $1, \
                 resolved_at = COALESCE(resolved_at, $2) WHERE reference = $3",
            )
            .bind(&p.payment_id)
            .bind(p.now)
            .bind(&claim.reference)
            .execute(&mut **tx)
            .await?;
            let case = EntitlementCaseRow {
                id: $crate::ids::new_id("case"),
                reference: claim.reference.clone(),
                org_id: claim.org_id.clone(),
                payment_id: p.payment_id.clone(),
                amount_cents: p.amount_cents.unwrap_or(claim.price_cents),
                currency: p.currency.clone().unwrap_or_else(|| claim.currency.clone()),
                reason: reason.unwrap_or("taken").to_string(),
                status: "review".to_string(),
                created_at: p.now,
                resolved_at: None,
            };
            sqlx::query(concat!(
                "INSERT INTO entitlement_cases (",
                $crate::storage::sql::models::case_columns!(),
                ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            ))
            .bind(&case.id)
            .bind(&case.reference)
            .bind(&case.org_id)
            .bind(&case.payment_id)
            .bind(case.amount_cents)
            .bind(&case.currency)
            .bind(&case.reason)
            .bind(&case.status)
            .bind(case.created_at)
            .bind(case.resolved_at)
            .execute(&mut **tx)
            .await?;
            Ok(PaymentOutcome::Lapsed(Box::new(case)))
        }
    };
}

pub(in crate::storage) use impl_market_helpers;
