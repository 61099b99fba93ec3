//! The SQL of models and their market ([`ModelStore`](crate::storage::ModelStore)). Lock order:
//! the offering's model row first (every claim, grant and payment of one offering runs under
//! it), then claims and holdings; never the balance row, since buying a face moves no tokens.

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

pub(in crate::storage) use {
    board_scope, case_columns, catalog_counts, claim_columns, entitlement_columns, model_m_columns, owned_column,
};

macro_rules! impl_model_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ModelStore for $ty {
            async fn insert_model(&self, m: ModelRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO models (",
                    model_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
                ))
                .bind(&m.id)
                .bind(&m.org_id)
                .bind(&m.created_by)
                .bind(&m.name)
                .bind(&m.asset_ids)
                .bind(&m.traits)
                .bind(m.created_at)
                .bind(&m.tier)
                .bind(m.price_cents)
                .bind(&m.currency)
                .bind(&m.note)
                .bind(&m.collage_asset_id)
                .bind(&m.sheet_asset_ids)
                .bind(m.retired_at)
                .bind(m.updated_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn board_models(
                &self,
                org_id: &OrgId,
                now: DateTime<Utc>,
            ) -> Result<Vec<$crate::storage::BoardModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::model_m_columns!(),
                    ", ",
                    $crate::storage::sql::models::owned_column!(),
                    " FROM models m WHERE ",
                    $crate::storage::sql::models::board_scope!(),
                    " ORDER BY m.created_at DESC, m.id DESC"
                ))
                .bind(org_id)
                .bind(now)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn board_model(
                &self,
                org_id: &OrgId,
                id: &ModelId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::BoardModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::model_m_columns!(),
                    ", ",
                    $crate::storage::sql::models::owned_column!(),
                    " FROM models m WHERE m.id = $3 AND ",
                    $crate::storage::sql::models::board_scope!()
                ))
                .bind(org_id)
                .bind(now)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
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
                let current: Option<ModelRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    model_columns!(),
                    " FROM models WHERE id = $1 AND org_id = $2 AND tier = 'yours'",
                    $lock
                ))
                .bind(id)
                .bind(org_id)
                .fetch_optional(&mut *tx)
                .await?;
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
                sqlx::query("UPDATE models SET traits = $1, sheet_asset_ids = $2, updated_at = $3 WHERE id = $4")
                    .bind(&row.traits)
                    .bind(&row.sheet_asset_ids)
                    .bind(now)
                    .bind(&row.id)
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::model_m_columns!(),
                    $crate::storage::sql::models::catalog_counts!(),
                    " FROM models m WHERE m.tier <> 'yours' AND ($2 = '' OR (m.created_at, m.id) < \
                       (SELECT a.created_at, a.id FROM models a WHERE a.id = $2)) \
                     ORDER BY m.created_at DESC, m.id DESC LIMIT $3"
                ))
                .bind(now)
                .bind(after.unwrap_or(""))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn catalog_offering(
                &self,
                id: &ModelId,
                now: DateTime<Utc>,
            ) -> Result<Option<$crate::storage::CatalogRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::model_m_columns!(),
                    $crate::storage::sql::models::catalog_counts!(),
                    " FROM models m WHERE m.tier <> 'yours' AND m.id = $2"
                ))
                .bind(now)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn retire_offering(&self, id: &ModelId, now: DateTime<Utc>) -> Result<Option<ModelRow>, StorageError> {
                let _w = self.write_lock().await;
                Ok(sqlx::query_as(concat!(
                    "UPDATE models SET retired_at = COALESCE(retired_at, $1), updated_at = $1 \
                     WHERE id = $2 AND tier <> 'yours' RETURNING ",
                    model_columns!()
                ))
                .bind(now)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
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
                sqlx::query(
                    "UPDATE offering_claims SET status = 'expired', resolved_at = $1 WHERE kind = $2 \
                     AND offering_id = $3 AND status = 'pending' \
                     AND (expires_at <= $1 OR (checkout_url IS NULL AND created_at <= $4))",
                )
                .bind(request.now)
                .bind(&c.kind)
                .bind(&c.offering_id)
                .bind(request.stale_before)
                .execute(&mut *tx)
                .await?;
                if holds_in(&mut tx, &c.org_id, &ModelId::from(&c.offering_id)).await? {
                    tx.commit().await?;
                    return Ok(ClaimOutcome::AlreadyHeld);
                }
                let pending: Vec<ClaimRow> = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::claim_columns!(),
                    " FROM offering_claims WHERE kind = $1 AND offering_id = $2 AND status = 'pending'"
                ))
                .bind(&c.kind)
                .bind(&c.offering_id)
                .fetch_all(&mut *tx)
                .await?;
                if let Some(mine) = pending.iter().find(|p| p.org_id == c.org_id) {
                    tx.commit().await?;
                    return Ok(ClaimOutcome::Existing(mine.clone()));
                }
                if c.exclusive {
                    let held: Option<(String,)> = sqlx::query_as(
                        "SELECT id FROM entitlements WHERE kind = $1 AND offering_id = $2 AND revoked_at IS NULL",
                    )
                    .bind(&c.kind)
                    .bind(&c.offering_id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if held.is_some() || !pending.is_empty() {
                        tx.commit().await?;
                        return Ok(ClaimOutcome::Taken);
                    }
                }
                let done = sqlx::query(concat!(
                    "INSERT INTO offering_claims (",
                    $crate::storage::sql::models::claim_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING"
                ))
                .bind(&c.reference)
                .bind(&c.org_id)
                .bind(&c.user_id)
                .bind(&c.kind)
                .bind(&c.offering_id)
                .bind(c.exclusive)
                .bind(c.price_cents)
                .bind(&c.currency)
                .bind(&c.status)
                .bind(&c.checkout_url)
                .bind(&c.provider_id)
                .bind(&c.payment_id)
                .bind(c.expires_at)
                .bind(c.created_at)
                .bind(c.resolved_at)
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
                sqlx::query(
                    "UPDATE offering_claims SET checkout_url = $1, provider_id = $2, expires_at = $3 \
                     WHERE reference = $4",
                )
                .bind(url)
                .bind(provider_id)
                .bind(expires_at)
                .bind(reference)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn release_claim(&self, reference: &str, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE offering_claims SET status = 'released', resolved_at = $1 \
                     WHERE reference = $2 AND status = 'pending'",
                )
                .bind(now)
                .bind(reference)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn claim(&self, reference: &str) -> Result<Option<$crate::storage::ClaimRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::claim_columns!(),
                    " FROM offering_claims WHERE reference = $1"
                ))
                .bind(reference)
                .fetch_optional(&self.pool)
                .await?)
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
                let holdings = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::entitlement_columns!(),
                    " FROM entitlements WHERE org_id = $1 AND revoked_at IS NULL ORDER BY acquired_at DESC, id DESC"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?;
                let open = sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::claim_columns!(),
                    " FROM offering_claims WHERE org_id = $1 AND status = 'pending' AND expires_at > $2 \
                     ORDER BY created_at DESC, reference DESC"
                ))
                .bind(org_id)
                .bind(now)
                .fetch_all(&self.pool)
                .await?;
                Ok((holdings, open))
            }

            async fn all_entitlements(
                &self,
                org_id: Option<&OrgId>,
                after: Option<&str>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::EntitlementRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::entitlement_columns!(),
                    " FROM entitlements e WHERE ($1 = '' OR e.org_id = $1) AND ($2 = '' OR (e.acquired_at, e.id) < \
                       (SELECT a.acquired_at, a.id FROM entitlements a WHERE a.id = $2)) \
                     ORDER BY e.acquired_at DESC, e.id DESC LIMIT $3"
                ))
                .bind(org_id.map_or("", |o| o.as_str()))
                .bind(after.unwrap_or(""))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn entitlement_cases(
                &self,
                limit: i64,
            ) -> Result<Vec<$crate::storage::EntitlementCaseRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::models::case_columns!(),
                    " FROM entitlement_cases ORDER BY created_at DESC, id DESC LIMIT $1"
                ))
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn case_refunded(&self, id: &CaseId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(
                    "UPDATE entitlement_cases SET status = 'refunded', resolved_at = $1 WHERE id = $2 AND status = 'review'",
                )
                .bind(now)
                .bind(id)
                .execute(&self.pool)
                .await?;
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
                Ok(sqlx::query_as(concat!(
                    "UPDATE entitlements SET revoked_at = $1, revoked_by = $2, revoke_reason = $3 \
                     WHERE id = $4 AND revoked_at IS NULL RETURNING ",
                    $crate::storage::sql::models::entitlement_columns!()
                ))
                .bind(now)
                .bind(by)
                .bind(reason)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_model_store;
