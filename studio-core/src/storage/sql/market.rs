//! The market's transaction helpers: an offering's row lock, holdings inserted under the
//! partial unique indexes that forbid a second owner, and a claim's payment applied inside the
//! billing webhook's transaction. Module-level functions shared by the model store
//! ([`ModelStore`](crate::storage::ModelStore)) and the billing store's `apply_payment`. Every
//! statement is declared in [`q`] (see stmt.rs).

/// The market helpers' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{ModelId, OrgId};
    use crate::storage::sql::model_columns;
    use crate::storage::sql::models::{case_columns, claim_columns, entitlement_columns};
    use crate::storage::sql::stmt::statements;
    use crate::storage::{ClaimRow, ModelRow};

    statements! {
        /// An offering's model row by id, locked (PostgreSQL) for the rest of the transaction.
        fn model_locked(id: &'q ModelId) -> row<ModelRow> [any "an offering is sold to every house: its row is locked by id to serialise every house's claims, grants and payments of it", lock] {
            "SELECT ", model_columns!(), " FROM models WHERE id = $1"
        }

        /// Insert a holding unless the partial unique indexes refuse it (no row then).
        fn insert_holding(
            id: &'q str,
            org_id: &'q OrgId,
            kind: &'q str,
            offering_id: &'q str,
            name: &'q str,
            source: &'q str,
            price_cents: i64,
            currency: &'q str,
            payment_ref: Option<&'q str>,
            exclusive: bool,
            acquired_at: DateTime<Utc>,
            revoked_at: Option<DateTime<Utc>>,
            revoked_by: Option<&'q str>,
            revoke_reason: Option<&'q str>,
        ) -> exec [house] {
            "INSERT INTO entitlements (", entitlement_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING"
        }

        /// A house's live holding of a model offering.
        fn holding(offering_id: &'q ModelId, org_id: &'q OrgId) -> row<(String,)> [house] {
            "SELECT id FROM entitlements WHERE kind = 'model' AND offering_id = $1 AND org_id = $2 \
             AND revoked_at IS NULL"
        }

        /// A claim by its checkout reference.
        fn claim(reference: &'q str) -> row<ClaimRow> [any "a claim's reference is unique across houses: the payment webhook names it and the claim's house is read from the row"] {
            "SELECT ", claim_columns!(), " FROM offering_claims WHERE reference = $1"
        }

        /// Mark a house's claim paid.
        fn claim_paid(
            payment_id: Option<&'q str>,
            resolved_at: DateTime<Utc>,
            reference: &'q str,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE offering_claims SET status = 'paid', payment_id = $1, resolved_at = $2 \
             WHERE reference = $3 AND org_id = $4"
        }

        /// Mark a house's claim lapsed (paid, but no holding came of it).
        fn claim_lapsed(
            payment_id: Option<&'q str>,
            resolved_at: DateTime<Utc>,
            reference: &'q str,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE offering_claims SET status = 'lapsed', payment_id = $1, \
             resolved_at = COALESCE(resolved_at, $2) WHERE reference = $3 AND org_id = $4"
        }

        /// Open a payment case for a paid claim that could not become a holding.
        fn insert_case(
            id: &'q str,
            reference: &'q str,
            org_id: &'q OrgId,
            payment_id: Option<&'q str>,
            amount_cents: i64,
            currency: &'q str,
            reason: &'q str,
            status: &'q str,
            created_at: DateTime<Utc>,
            resolved_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO entitlement_cases (", case_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        }
    }
}

macro_rules! impl_market_helpers {
    ($lock:literal) => {
        /// Lock an offering's model row for the rest of the transaction (PostgreSQL; SQLite's
        /// writers are already serialised) and read it.
        async fn lock_model(tx: &mut Tx, id: &ModelId) -> Result<Option<ModelRow>, StorageError> {
            Ok(q::market::model_locked(id).fetch_optional(&mut **tx).await?)
        }

        /// Insert a holding unless the house already holds it or, for an exclusive face,
        /// another house does (the partial unique indexes decide); true when inserted.
        async fn insert_holding_in(tx: &mut Tx, e: &$crate::storage::EntitlementRow) -> Result<bool, StorageError> {
            let done = q::market::insert_holding(
                &e.id,
                &e.org_id,
                &e.kind,
                &e.offering_id,
                &e.name,
                &e.source,
                e.price_cents,
                &e.currency,
                e.payment_ref.as_deref(),
                e.exclusive,
                e.acquired_at,
                e.revoked_at,
                e.revoked_by.as_deref(),
                e.revoke_reason.as_deref(),
            )
            .execute(&mut **tx)
            .await?;
            Ok(done.rows_affected() == 1)
        }

        /// Whether `org_id` holds offering `id`.
        async fn holds_in(tx: &mut Tx, org_id: &OrgId, id: &ModelId) -> Result<bool, StorageError> {
            let row = q::market::holding(id, org_id).fetch_optional(&mut **tx).await?;
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
            let claim: Option<ClaimRow> = q::market::claim(reference).fetch_optional(&mut **tx).await?;
            let Some(claim) = claim else {
                return Ok(PaymentOutcome::Ignored("unknown_reference"));
            };
            let model = lock_model(tx, &ModelId::from(&claim.offering_id)).await?;
            // Re-read under the offering's lock: a concurrent delivery of the same payment (a new
            // webhook id) waits here and then sees the claim resolved.
            let claim: ClaimRow = q::market::claim(reference).fetch_one(&mut **tx).await?;
            if matches!(claim.status, $crate::storage::ClaimStatus::Paid | $crate::storage::ClaimStatus::Lapsed) {
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
                    id: $crate::ids::EntitlementId::generate(),
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
                    q::market::claim_paid(p.payment_id.as_deref(), p.now, &claim.reference, &claim.org_id)
                        .execute(&mut **tx)
                        .await?;
                    return Ok(PaymentOutcome::Entitled {
                        org_id: claim.org_id.to_string(),
                        holding: Box::new(holding),
                    });
                }
                reason = Some(if holds_in(tx, &claim.org_id, &ModelId::from(&claim.offering_id)).await? {
                    "already_held"
                } else {
                    "taken"
                });
            }
            q::market::claim_lapsed(p.payment_id.as_deref(), p.now, &claim.reference, &claim.org_id)
                .execute(&mut **tx)
                .await?;
            let case = EntitlementCaseRow {
                id: $crate::ids::CaseId::generate(),
                reference: claim.reference.clone(),
                org_id: claim.org_id.clone(),
                payment_id: p.payment_id.clone(),
                amount_cents: p.amount_cents.unwrap_or(claim.price_cents),
                currency: p.currency.clone().unwrap_or_else(|| claim.currency.clone()),
                reason: reason.unwrap_or("taken").to_string(),
                status: $crate::storage::CaseStatus::Review,
                created_at: p.now,
                resolved_at: None,
            };
            q::market::insert_case(
                &case.id,
                &case.reference,
                &case.org_id,
                case.payment_id.as_deref(),
                case.amount_cents,
                &case.currency,
                &case.reason,
                case.status.as_str(),
                case.created_at,
                case.resolved_at,
            )
            .execute(&mut **tx)
            .await?;
            Ok(PaymentOutcome::Lapsed(Box::new(case)))
        }
    };
}

pub(in crate::storage) use impl_market_helpers;
