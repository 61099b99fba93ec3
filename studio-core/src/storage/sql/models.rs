//! The SQL of models and their market ([`ModelStore`](crate::storage::ModelStore)). Lock order:
//! the offering's model row first (every claim, grant and payment of one offering runs under
//! it), then claims and holdings; never the balance row, since buying a face moves no tokens.
//! Every statement is declared in [`q`] (see stmt.rs).

/// The columns of `models m` in [`ModelRow`](crate::storage::ModelRow) order.
macro_rules! model_m_columns {
    () => {
        "m.id, m.org_id, m.created_by, m.name, m.asset_ids, m.traits, m.created_at, m.tier, m.price_cents, \
         m.currency, m.note, m.collage_asset_id, m.sheet_asset_ids, m.retired_at, m.updated_at"
    };
}

/// The columns of `offering_claims` in [`ClaimRow`](crate::storage::ClaimRow) order.
macro_rules! claim_columns {
    () => {
        "reference, org_id, user_id, kind, offering_id, exclusive, price_cents, currency, status, checkout_url, \
         provider_id, payment_id, expires_at, created_at, resolved_at"
    };
}

/// The columns of `entitlements` in [`EntitlementRow`](crate::storage::EntitlementRow) order.
macro_rules! entitlement_columns {
    () => {
        "id, org_id, kind, offering_id, name, source, price_cents, currency, payment_ref, exclusive, acquired_at, \
         revoked_at, revoked_by, revoke_reason"
    };
}

/// The columns of `entitlement_cases` in [`EntitlementCaseRow`](crate::storage::EntitlementCaseRow) order.
macro_rules! case_columns {
    () => {
        "id, reference, org_id, payment_id, amount_cents, currency, reason, status, created_at, resolved_at"
    };
}

/// The board of house `$1` at time `$2`: its own models, and catalog offerings that are live or
/// that it holds, minus an exclusive face another house holds or claims (pending, unexpired).
macro_rules! board_scope {
    () => {
        "((m.tier = 'yours' AND m.org_id = $1) OR (m.tier <> 'yours' \
          AND (m.retired_at IS NULL OR EXISTS (SELECT 1 FROM entitlements h WHERE h.kind = 'model' \
               AND h.offering_id = m.id AND h.org_id = $1 AND h.revoked_at IS NULL)) \
          AND NOT (m.tier = 'exclusive' AND (EXISTS (SELECT 1 FROM entitlements x WHERE x.kind = 'model' \
               AND x.offering_id = m.id AND x.org_id <> $1 AND x.revoked_at IS NULL) \
            OR EXISTS (SELECT 1 FROM offering_claims c WHERE c.kind = 'model' AND c.offering_id = m.id \
               AND c.org_id <> $1 AND c.status = 'pending' AND c.expires_at > $2)))))"
    };
}

/// A catalog row's counts at time `$1`: live holdings and live claims, as `holders` and
/// `open_claims` (after the model's columns).
macro_rules! catalog_counts {
    () => {
        ", (SELECT COUNT(*) FROM entitlements e WHERE e.kind = 'model' AND e.offering_id = m.id \
           AND e.revoked_at IS NULL) AS holders, \
          (SELECT COUNT(*) FROM offering_claims c WHERE c.kind = 'model' AND c.offering_id = m.id \
           AND c.status = 'pending' AND c.expires_at > $1) AS open_claims"
    };
}

/// Whether house `$1` holds the model (a live holding), as the column `owned`.
macro_rules! owned_column {
    () => {
        "EXISTS (SELECT 1 FROM entitlements o WHERE o.kind = 'model' AND o.offering_id = m.id AND o.org_id = $1 \
         AND o.revoked_at IS NULL) AS owned"
    };
}

pub(in crate::storage) use {case_columns, claim_columns, entitlement_columns};

/// The declared statements of models and their market.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{CaseId, EntitlementId, ModelId, OrgId, ProviderRef, UserId};
    use crate::storage::sql::model_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{BoardModelRow, CatalogRow, ClaimRow, EntitlementCaseRow, EntitlementRow, ModelRow};

    statements! {
        /// Insert a model.
        fn insert_model(
            id: &'q ModelId,
            org_id: &'q OrgId,
            created_by: Option<&'q UserId>,
            name: &'q str,
            asset_ids: &'q str,
            traits: &'q str,
            created_at: DateTime<Utc>,
            tier: &'q str,
            price_cents: i64,
            currency: &'q str,
            note: &'q str,
            collage_asset_id: Option<&'q str>,
            sheet_asset_ids: &'q str,
            retired_at: Option<DateTime<Utc>>,
            updated_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO models (", model_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        }

        /// A house's board (claims counted live while they expire after `expires_at`), newest first.
        fn board_models(org_id: &'q OrgId, expires_at: DateTime<Utc>) -> row<BoardModelRow> [house] {
            "SELECT ", model_m_columns!(), ", ", owned_column!(), " FROM models m WHERE ", board_scope!(),
            " ORDER BY m.created_at DESC, m.id DESC"
        }

        /// One model of a house's board.
        fn board_model(org_id: &'q OrgId, expires_at: DateTime<Utc>, id: &'q ModelId) -> row<BoardModelRow> [house] {
            "SELECT ", model_m_columns!(), ", ", owned_column!(), " FROM models m WHERE m.id = $3 AND ", board_scope!()
        }

        /// A house's own model, locked (PostgreSQL) to be patched.
        fn own_model_locked(id: &'q ModelId, org_id: &'q OrgId) -> row<ModelRow> [house, lock] {
            "SELECT ", model_columns!(), " FROM models WHERE id = $1 AND org_id = $2 AND tier = 'yours'"
        }

        /// Write a house's model's traits and sheets.
        fn patch_model(
            traits: &'q str,
            sheet_asset_ids: &'q str,
            updated_at: DateTime<Utc>,
            id: &'q ModelId,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE models SET traits = $1, sheet_asset_ids = $2, updated_at = $3 WHERE id = $4 AND org_id = $5"
        }

        /// A page of the catalog with its counts (claims live while they expire after
        /// `expires_at`), newest first, after the offering `id` ('' for the first page).
        fn catalog(expires_at: DateTime<Utc>, id: &'q str, limit: i64) -> row<CatalogRow> [any "the catalog is the console's list of the offerings sold to every house"] {
            "SELECT ", model_m_columns!(), catalog_counts!(),
            " FROM models m WHERE m.tier <> 'yours' AND ($2 = '' OR (m.created_at, m.id) < \
               (SELECT a.created_at, a.id FROM models a WHERE a.id = $2)) \
             ORDER BY m.created_at DESC, m.id DESC LIMIT $3"
        }

        /// One catalog offering with its counts.
        fn catalog_offering(expires_at: DateTime<Utc>, id: &'q ModelId) -> row<CatalogRow> [any "a catalog offering is sold to every house, not one house's"] {
            "SELECT ", model_m_columns!(), catalog_counts!(), " FROM models m WHERE m.tier <> 'yours' AND m.id = $2"
        }

        /// Retire a catalog offering.
        fn retire_offering(updated_at: DateTime<Utc>, id: &'q ModelId) -> row<ModelRow> [any "an operator retires a catalog offering, which is sold to every house"] {
            "UPDATE models SET retired_at = COALESCE(retired_at, $1), updated_at = $1 \
             WHERE id = $2 AND tier <> 'yours' RETURNING ", model_columns!()
        }

        /// Expire an offering's pending claims that lapsed (expired, or without a checkout since
        /// `created_at`).
        fn expire_claims(
            resolved_at: DateTime<Utc>,
            kind: &'q str,
            offering_id: &'q str,
            expires_at: DateTime<Utc>,
            created_at: DateTime<Utc>,
        ) -> exec [any "an offering's lapsed claims, whatever their house, are expired under its model row's lock before a new claim"] {
            "UPDATE offering_claims SET status = 'expired', resolved_at = $1 WHERE kind = $2 \
             AND offering_id = $3 AND status = 'pending' \
             AND (expires_at <= $4 OR (checkout_url IS NULL AND created_at <= $5))"
        }

        /// An offering's pending claims.
        fn pending_claims(kind: &'q str, offering_id: &'q str) -> row<ClaimRow> [any "every house's pending claim of an offering decides whether an exclusive face is free, read under its model row's lock"] {
            "SELECT ", claim_columns!(), " FROM offering_claims WHERE kind = $1 AND offering_id = $2 AND status = 'pending'"
        }

        /// A live holding of an offering, whatever its house.
        fn live_holding(kind: &'q str, offering_id: &'q str) -> row<(String,)> [any "an exclusive face held by any house is taken, read under its model row's lock"] {
            "SELECT id FROM entitlements WHERE kind = $1 AND offering_id = $2 AND revoked_at IS NULL"
        }

        /// Insert a claim unless the partial unique indexes refuse it (no row then).
        fn insert_claim(
            reference: &'q str,
            org_id: &'q OrgId,
            user_id: Option<&'q UserId>,
            kind: &'q str,
            offering_id: &'q str,
            exclusive: bool,
            price_cents: i64,
            currency: &'q str,
            status: &'q str,
            checkout_url: Option<&'q str>,
            provider_id: Option<&'q str>,
            payment_id: Option<&'q str>,
            expires_at: DateTime<Utc>,
            created_at: DateTime<Utc>,
            resolved_at: Option<DateTime<Utc>>,
        ) -> exec [house] {
            "INSERT INTO offering_claims (", claim_columns!(), ") \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING"
        }

        /// Record a claim's checkout.
        fn claim_checkout_created(
            checkout_url: &'q str,
            provider_id: &'q ProviderRef,
            expires_at: DateTime<Utc>,
            reference: &'q str,
        ) -> exec [any "a claim's reference is unique across houses; the market records the checkout of the claim it just took"] {
            "UPDATE offering_claims SET checkout_url = $1, provider_id = $2, expires_at = $3 WHERE reference = $4"
        }

        /// Release a pending claim.
        fn release_claim(resolved_at: DateTime<Utc>, reference: &'q str) -> exec [any "a claim's reference is unique across houses; the market releases the claim it just took when its checkout fails"] {
            "UPDATE offering_claims SET status = 'released', resolved_at = $1 WHERE reference = $2 AND status = 'pending'"
        }

        /// A claim by its checkout reference.
        fn claim(reference: &'q str) -> row<ClaimRow> [any "a claim's reference is unique across houses: billing names it and reads the claim's house from the row"] {
            "SELECT ", claim_columns!(), " FROM offering_claims WHERE reference = $1"
        }

        /// A house's live holdings, newest first.
        fn holdings(org_id: &'q OrgId) -> row<EntitlementRow> [house] {
            "SELECT ", entitlement_columns!(),
            " FROM entitlements WHERE org_id = $1 AND revoked_at IS NULL ORDER BY acquired_at DESC, id DESC"
        }

        /// A house's pending claims that expire after `expires_at`, newest first.
        fn open_claims(org_id: &'q OrgId, expires_at: DateTime<Utc>) -> row<ClaimRow> [house] {
            "SELECT ", claim_columns!(), " FROM offering_claims WHERE org_id = $1 AND status = 'pending' \
             AND expires_at > $2 ORDER BY created_at DESC, reference DESC"
        }

        /// A page of the holdings of one house (`org_id`, or '' for every house), revoked
        /// included, newest first, after the holding `id` ('' for the first page).
        fn all_entitlements(org_id: &'q str, id: &'q str, limit: i64) -> row<EntitlementRow> [any "the console lists every house's holdings when given no house"] {
            "SELECT ", entitlement_columns!(),
            " FROM entitlements e WHERE ($1 = '' OR e.org_id = $1) AND ($2 = '' OR (e.acquired_at, e.id) < \
               (SELECT a.acquired_at, a.id FROM entitlements a WHERE a.id = $2)) \
             ORDER BY e.acquired_at DESC, e.id DESC LIMIT $3"
        }

        /// The newest payment cases.
        fn entitlement_cases(limit: i64) -> row<EntitlementCaseRow> [any "the console reviews the payment cases of every house"] {
            "SELECT ", case_columns!(), " FROM entitlement_cases ORDER BY created_at DESC, id DESC LIMIT $1"
        }

        /// Mark a case under review refunded.
        fn case_refunded(resolved_at: DateTime<Utc>, id: &'q CaseId) -> exec [any "a case id is unique across houses; the market marks the case it just refunded"] {
            "UPDATE entitlement_cases SET status = 'refunded', resolved_at = $1 WHERE id = $2 AND status = 'review'"
        }

        /// Revoke a live holding.
        fn revoke_entitlement(
            revoked_at: DateTime<Utc>,
            revoked_by: &'q str,
            revoke_reason: Option<&'q str>,
            id: &'q EntitlementId,
        ) -> row<EntitlementRow> [any "an operator revokes a holding by its id, which is unique across houses"] {
            "UPDATE entitlements SET revoked_at = $1, revoked_by = $2, revoke_reason = $3 \
             WHERE id = $4 AND revoked_at IS NULL RETURNING ", entitlement_columns!()
        }
    }
}

macro_rules! impl_model_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ModelStore for $ty {
            async fn insert_model(&self, m: ModelRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::models::insert_model(
                    &m.id,
                    &m.org_id,
                    m.created_by.as_ref(),
                    &m.name,
                    &m.asset_ids,
                    &m.traits,
                    m.created_at,
                    &m.tier,
                    m.price_cents,
                    &m.currency,
                    &m.note,
                    m.collage_asset_id.as_deref(),
                    &m.sheet_asset_ids,
                    m.retired_at,
                    m.updated_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn board_models(
                &self,
                org_id: &OrgId,
                now: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::BoardModelRow>, StorageError> {
                Ok(q::models::board_models(org_id, now).fetch_all(&self.pool).await?)
            }

            async fn board_model(
                &self,
                org_id: &OrgId,
                id: &ModelId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::BoardModelRow>, StorageError> {
                Ok(q::models::board_model(org_id, now, id).fetch_optional(&self.pool).await?)
            }

            async fn patch_model(
                &self,
                org_id: &OrgId,
                id: &ModelId,
                sheets: &[String],
                traits: &serde_json::Map<String, serde_json::Value>,
                now: DateTime<Utc>,
            ) -> Result<Option<ModelRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let current = q::models::own_model_locked(id, org_id).fetch_optional(&mut *tx).await?;
                let Some(mut row) = current else {
                    return Ok(None);
                };
                let mut merged: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&row.traits).unwrap_or_default();
                for (key, value) in traits {
                    merged.insert(key.clone(), value.clone());
                }
                let mut all_sheets: Vec<String> = serde_json::from_str(&row.sheet_asset_ids).unwrap_or_default();
                let originals: Vec<String> = serde_json::from_str(&row.asset_ids).unwrap_or_default();
                for sheet in sheets {
                    let known = all_sheets.contains(sheet)
                        || originals.contains(sheet)
                        || row.collage_asset_id.as_deref() == Some(sheet.as_str());
                    if !known {
                        all_sheets.push(sheet.clone());
                    }
                }
                row.traits = serde_json::Value::Object(merged).to_string();
                row.sheet_asset_ids = serde_json::to_string(&all_sheets).unwrap_or_else(|_| "[]".into());
                row.updated_at = Some(now);
                q::models::patch_model(&row.traits, &row.sheet_asset_ids, now, &row.id, org_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(Some(row))
            }

            async fn catalog(
                &self,
                after: Option<&str>,
                limit: i64,
                now: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::CatalogRow>, StorageError> {
                Ok(q::models::catalog(now, after.unwrap_or(""), limit).fetch_all(&self.pool).await?)
            }

            async fn catalog_offering(
                &self,
                id: &ModelId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::CatalogRow>, StorageError> {
                Ok(q::models::catalog_offering(now, id).fetch_optional(&self.pool).await?)
            }

            async fn retire_offering(
                &self,
                id: &ModelId,
                now: DateTime<Utc>,
            ) -> Result<Option<ModelRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::models::retire_offering(now, id).fetch_optional(&self.pool).await?)
            }

            async fn claim_offering(
                &self,
                request: $crate::storage::NewClaim,
            ) -> Result<$crate::storage::ClaimOutcome, StorageError> {
                use $crate::storage::{ClaimOutcome, ClaimRow};
                let c = request.claim;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let model = lock_model(&mut tx, &ModelId::from(&c.offering_id)).await?;
                let for_sale = model.as_ref().is_some_and(|m| {
                    matches!(m.tier.as_str(), "sale" | "exclusive") && m.price_cents > 0 && m.retired_at.is_none()
                });
                if !for_sale {
                    return Ok(ClaimOutcome::NotForSale);
                }
                q::models::expire_claims(request.now, &c.kind, &c.offering_id, request.now, request.stale_before)
                    .execute(&mut *tx)
                    .await?;
                if holds_in(&mut tx, &c.org_id, &ModelId::from(&c.offering_id)).await? {
                    tx.commit().await?;
                    return Ok(ClaimOutcome::AlreadyHeld);
                }
                let pending: Vec<ClaimRow> =
                    q::models::pending_claims(&c.kind, &c.offering_id).fetch_all(&mut *tx).await?;
                if let Some(mine) = pending.iter().find(|p| p.org_id == c.org_id) {
                    tx.commit().await?;
                    return Ok(ClaimOutcome::Existing(mine.clone()));
                }
                if c.exclusive {
                    let held = q::models::live_holding(&c.kind, &c.offering_id).fetch_optional(&mut *tx).await?;
                    if held.is_some() || !pending.is_empty() {
                        tx.commit().await?;
                        return Ok(ClaimOutcome::Taken);
                    }
                }
                let done = q::models::insert_claim(
                    &c.reference,
                    &c.org_id,
                    c.user_id.as_ref(),
                    &c.kind,
                    &c.offering_id,
                    c.exclusive,
                    c.price_cents,
                    &c.currency,
                    c.status.as_str(),
                    c.checkout_url.as_deref(),
                    c.provider_id.as_deref(),
                    c.payment_id.as_deref(),
                    c.expires_at,
                    c.created_at,
                    c.resolved_at,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(if done.rows_affected() == 1 { ClaimOutcome::Claimed(c) } else { ClaimOutcome::Taken })
            }

            async fn claim_checkout_created(
                &self,
                reference: &str,
                url: &str,
                provider_id: &ProviderRef,
                expires_at: DateTime<Utc>,
            ) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::models::claim_checkout_created(url, provider_id, expires_at, reference).execute(&self.pool).await?;
                Ok(())
            }

            async fn release_claim(&self, reference: &str, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::models::release_claim(now, reference).execute(&self.pool).await?;
                Ok(())
            }

            async fn claim(&self, reference: &str) -> Result<Option<$crate::storage::ClaimRow>, StorageError> {
                Ok(q::models::claim(reference).fetch_optional(&self.pool).await?)
            }

            async fn grant_entitlement(
                &self,
                holding: $crate::storage::EntitlementRow,
            ) -> Result<$crate::storage::GrantOutcome, StorageError> {
                use $crate::storage::GrantOutcome;
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                lock_model(&mut tx, &ModelId::from(&holding.offering_id)).await?;
                let outcome = if insert_holding_in(&mut tx, &holding).await? {
                    GrantOutcome::Granted(Box::new(holding))
                } else if holds_in(&mut tx, &holding.org_id, &ModelId::from(&holding.offering_id)).await? {
                    GrantOutcome::AlreadyHeld
                } else {
                    GrantOutcome::Taken
                };
                tx.commit().await?;
                Ok(outcome)
            }

            async fn entitlements(
                &self,
                org_id: &OrgId,
                now: DateTime<Utc>,
            ) -> Result<(Vec<$crate::storage::EntitlementRow>, Vec<$crate::storage::ClaimRow>), StorageError> {
                let holdings = q::models::holdings(org_id).fetch_all(&self.pool).await?;
                let open = q::models::open_claims(org_id, now).fetch_all(&self.pool).await?;
                Ok((holdings, open))
            }

            async fn all_entitlements(
                &self,
                org_id: Option<&OrgId>,
                after: Option<&str>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::EntitlementRow>, StorageError> {
                Ok(q::models::all_entitlements(org_id.map_or("", |o| o.as_str()), after.unwrap_or(""), limit)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn entitlement_cases(
                &self,
                limit: i64,
            ) -> Result<Vec<$crate::storage::EntitlementCaseRow>, StorageError> {
                Ok(q::models::entitlement_cases(limit).fetch_all(&self.pool).await?)
            }

            async fn case_refunded(&self, id: &CaseId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::models::case_refunded(now, id).execute(&self.pool).await?;
                Ok(())
            }

            async fn revoke_entitlement(
                &self,
                id: &EntitlementId,
                by: &str,
                reason: Option<&str>,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::EntitlementRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(q::models::revoke_entitlement(now, by, reason, id).fetch_optional(&self.pool).await?)
            }
        }
    };
}

pub(in crate::storage) use impl_model_store;
