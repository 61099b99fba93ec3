//! The SQL of the ledger's own operations ([`LedgerStore`](crate::storage::LedgerStore)): credit,
//! reserve, settle, release and the reads. Every write goes through the helpers of `tx.rs`; every
//! statement is declared in [`q`] (see stmt.rs).

/// The ledger's declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{HoldId, OrgId};
    use crate::storage::sql::hold_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{BalanceRow, HoldRow, LedgerAudit};

    statements! {
        /// A hold by id, whatever its house: reserve compares the row's house with its own.
        fn hold_by_id(id: &'q HoldId) -> row<HoldRow> [any "hold ids are unique across houses; reserve refuses another house's hold as a conflict"] {
            "SELECT ", hold_columns!(), " FROM holds WHERE id = $1"
        }

        /// A house's running totals.
        fn balance(org_id: &'q OrgId) -> row<BalanceRow> [house] {
            "SELECT grant_tokens, topup_tokens, held, settled, credited, job_event_seq FROM balances WHERE org_id = $1"
        }

        /// A hold of a house.
        fn hold(id: &'q HoldId, org_id: &'q OrgId) -> row<HoldRow> [house] {
            "SELECT ", hold_columns!(), " FROM holds WHERE id = $1 AND org_id = $2"
        }

        /// A house's holds still held, oldest first.
        fn open_holds(org_id: &'q OrgId) -> row<HoldRow> [house] {
            "SELECT ", hold_columns!(), " FROM holds WHERE org_id = $1 AND status = 'held' ORDER BY created_at, id"
        }

        /// Every hold of a house, oldest first.
        fn holds(org_id: &'q OrgId) -> row<HoldRow> [house] {
            "SELECT ", hold_columns!(), " FROM holds WHERE org_id = $1 ORDER BY created_at, id"
        }

        /// Grants due to expire by `expires_at` (of one house, or of every house): entry, house, amount.
        fn due_grants(expires_at: DateTime<Utc>, org_id: Option<&'q OrgId>) -> row<(String, OrgId, i64)> [any "the expiry sweep reads every house's due grants when it is given no house"] {
            "SELECT e.entry_id, e.org_id, g.grant_delta FROM grant_expiries e \
             JOIN ledger_entries g ON g.id = e.entry_id \
             WHERE e.expires_at <= $1 AND ($2 IS NULL OR e.org_id = $2) \
             ORDER BY e.expires_at, e.entry_id LIMIT 500"
        }

        /// The sums of a house's ledger entries.
        fn audit(org_id: &'q OrgId) -> row<LedgerAudit> [house] {
            "SELECT CAST(COALESCE(SUM(grant_delta), 0) AS BIGINT) AS grant_tokens, \
                    CAST(COALESCE(SUM(topup_delta), 0) AS BIGINT) AS topup_tokens, \
                    CAST(COALESCE(SUM(held_delta), 0) AS BIGINT) AS held, \
                    CAST(COALESCE(SUM(settled_delta), 0) AS BIGINT) AS settled, \
                    CAST(COALESCE(SUM(credited_delta), 0) AS BIGINT) AS credited, \
                    COUNT(*) AS entries \
             FROM ledger_entries WHERE org_id = $1"
        }
    }
}

macro_rules! impl_ledger_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LedgerStore for $ty {
            async fn credit(&self, credit: NewCredit) -> Result<BalanceRow, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let after = apply_credit(&mut tx, &credit).await?;
                tx.commit().await?;
                Ok(after)
            }

            async fn reserve(&self, h: NewHold) -> Result<ReserveOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let bal = lock_balance(&mut tx, &h.org_id).await?;
                let existing = q::ledger::hold_by_id(&h.id).fetch_optional(&mut *tx).await?;
                if let Some(existing) = existing {
                    if existing.org_id != h.org_id {
                        return Err(StorageError::Conflict("hold id"));
                    }
                    return Ok(ReserveOutcome::Existing(existing));
                }
                if bal.spendable() < h.amount {
                    return Ok(ReserveOutcome::Insufficient { need: h.amount, spendable: bal.spendable() });
                }
                let (hold, _) = apply_reserve(&mut tx, &bal, &h, 0).await?;
                tx.commit().await?;
                Ok(ReserveOutcome::Reserved(hold))
            }

            async fn settle(
                &self,
                org_id: &OrgId,
                hold_id: &HoldId,
                now: DateTime<Utc>,
            ) -> Result<ResolveOutcome, StorageError> {
                self.resolve(org_id, hold_id, now, true).await
            }

            async fn release(
                &self,
                org_id: &OrgId,
                hold_id: &HoldId,
                now: DateTime<Utc>,
            ) -> Result<ResolveOutcome, StorageError> {
                self.resolve(org_id, hold_id, now, false).await
            }

            async fn balance(&self, org_id: &OrgId) -> Result<BalanceRow, StorageError> {
                Ok(q::ledger::balance(org_id).fetch_optional(&self.pool).await?.unwrap_or_default())
            }

            async fn hold(&self, org_id: &OrgId, hold_id: &HoldId) -> Result<Option<HoldRow>, StorageError> {
                Ok(q::ledger::hold(hold_id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn open_holds(&self, org_id: &OrgId) -> Result<Vec<HoldRow>, StorageError> {
                Ok(q::ledger::open_holds(org_id).fetch_all(&self.pool).await?)
            }

            async fn holds(&self, org_id: &OrgId) -> Result<Vec<HoldRow>, StorageError> {
                Ok(q::ledger::holds(org_id).fetch_all(&self.pool).await?)
            }

            async fn expire_grants(&self, org_id: Option<&OrgId>, now: DateTime<Utc>) -> Result<i64, StorageError> {
                let due = q::ledger::due_grants(now, org_id).fetch_all(&self.pool).await?;
                let mut expired = 0;
                for (entry_id, org_id, amount) in due {
                    let _w = self.write_lock().await;
                    let mut tx = self.begin_write().await?;
                    if let Some(taken) = apply_expiry(&mut tx, &org_id, &EntryId::from(&entry_id), amount, now).await? {
                        tx.commit().await?;
                        expired += taken;
                    }
                }
                Ok(expired)
            }

            async fn audit(&self, org_id: &OrgId) -> Result<LedgerAudit, StorageError> {
                Ok(q::ledger::audit(org_id).fetch_one(&self.pool).await?)
            }
        }

        impl $ty {
            /// Settle (`charge`) or release a hold exactly once.
            async fn resolve(
                &self,
                org_id: &OrgId,
                hold_id: &HoldId,
                now: DateTime<Utc>,
                charge: bool,
            ) -> Result<ResolveOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                lock_balance(&mut tx, org_id).await?;
                let (outcome, _) = resolve_in(&mut tx, org_id, hold_id, now, charge, 0).await?;
                if matches!(outcome, ResolveOutcome::Resolved(_)) {
                    tx.commit().await?;
                }
                Ok(outcome)
            }
        }
    };
}

pub(in crate::storage) use impl_ledger_store;
