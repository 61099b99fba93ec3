//! The shared transaction helpers: lock the house's balance row, take a hold, append a ledger
//! entry and move the running totals with it, resolve a hold, the next eventSeq, and the
//! multi-row writes of a group of submits. **Only this file writes `ledger_entries` and
//! `balances`** (CI checks it with a grep), so every money path shares one arithmetic. Every
//! statement of fixed shape is declared in [`q`] (see stmt.rs); the multi-row writes of a group
//! are built with a `QueryBuilder`, because their row count varies (docs/storage.md).

/// The transaction helpers' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{EntryId, HoldId, OrgId, UserId};
    use crate::storage::sql::hold_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{BalanceRow, HoldRow, HoldStatus};

    statements! {
        /// Open a house's running totals at zero.
        fn open_balance(org_id: &'q OrgId, updated_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO balances (org_id, updated_at) VALUES ($1, $2)"
        }

        /// A house's running totals, locked (PostgreSQL).
        fn balance_locked(org_id: &'q OrgId) -> row<BalanceRow> [house, lock] {
            "SELECT grant_tokens, topup_tokens, held, settled, credited, job_event_seq FROM balances WHERE org_id = $1"
        }

        /// A house's running totals, the row created when missing and locked either way (PostgreSQL
        /// takes the row lock for `ON CONFLICT DO UPDATE` as for `FOR UPDATE`).
        fn balance_opened(org_id: &'q OrgId, updated_at: DateTime<Utc>) -> row<BalanceRow> [house] {
            "INSERT INTO balances (org_id, updated_at) VALUES ($1, $2) \
             ON CONFLICT (org_id) DO UPDATE SET org_id = excluded.org_id \
             RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq"
        }

        /// Take the house's next job event number.
        fn next_event_seq(org_id: &'q OrgId) -> scalar<i64> [house] {
            "UPDATE balances SET job_event_seq = job_event_seq + 1 WHERE org_id = $1 RETURNING job_event_seq"
        }

        /// Move a house's running totals (and eventSeq) by an entry's deltas; the new totals.
        fn move_totals(
            grant_delta: i64,
            topup_delta: i64,
            held_delta: i64,
            settled_delta: i64,
            credited_delta: i64,
            updated_at: DateTime<Utc>,
            seq_delta: i64,
            org_id: &'q OrgId,
        ) -> row<BalanceRow> [house] {
            "UPDATE balances SET grant_tokens = grant_tokens + $1, topup_tokens = topup_tokens + $2, \
             held = held + $3, settled = settled + $4, credited = credited + $5, updated_at = $6, \
             job_event_seq = job_event_seq + $7 \
             WHERE org_id = $8 RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq"
        }

        /// Take a hold.
        fn insert_hold(
            id: &'q HoldId,
            org_id: &'q OrgId,
            amount: i64,
            from_grant: i64,
            from_topup: i64,
            generation_id: Option<&'q str>,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO holds (id, org_id, amount, from_grant, from_topup, generation_id, status, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, 'held', $7)"
        }

        /// A hold of a house, locked (PostgreSQL) to be resolved.
        fn hold_locked(id: &'q HoldId, org_id: &'q OrgId) -> row<HoldRow> [house, lock] {
            "SELECT ", hold_columns!(), " FROM holds WHERE id = $1 AND org_id = $2"
        }

        /// Settle or release a held hold (no row when it was resolved already).
        fn resolve_hold(status: HoldStatus, resolved_at: DateTime<Utc>, id: &'q HoldId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE holds SET status = $1, resolved_at = $2 WHERE id = $3 AND org_id = $4 AND status = 'held'"
        }

        /// Append one ledger entry.
        fn insert_entry(
            id: &'q EntryId,
            org_id: &'q OrgId,
            kind: &'q str,
            grant_delta: i64,
            topup_delta: i64,
            held_delta: i64,
            settled_delta: i64,
            credited_delta: i64,
            hold_id: Option<&'q HoldId>,
            user_id: Option<&'q UserId>,
            reason: Option<&'q str>,
            expires_at: Option<DateTime<Utc>>,
            created_at: DateTime<Utc>,
            expires_entry_id: Option<&'q EntryId>,
        ) -> exec [house] {
            "INSERT INTO ledger_entries (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, \
             credited_delta, hold_id, user_id, reason, expires_at, created_at, expires_entry_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
        }

        /// Put a grant on the pending expiry list.
        fn expiry_pending(entry_id: &'q EntryId, org_id: &'q OrgId, expires_at: DateTime<Utc>) -> exec [house] {
            "INSERT INTO grant_expiries (entry_id, org_id, expires_at) VALUES ($1, $2, $3)"
        }

        /// Take a grant off the pending expiry list (no row when a concurrent sweep took it).
        fn expiry_taken(entry_id: &'q EntryId, org_id: &'q OrgId) -> exec [house] {
            "DELETE FROM grant_expiries WHERE entry_id = $1 AND org_id = $2"
        }
    }
}

macro_rules! impl_tx_helpers {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        /// Open a new house's running totals at zero (inside the transaction that creates it).
        async fn open_balance(tx: &mut Tx, org_id: &OrgId, now: DateTime<Utc>) -> Result<(), StorageError> {
            q::tx::open_balance(org_id, now).execute(&mut **tx).await?;
            Ok(())
        }

        /// Take a hold inside a write transaction whose balance row is locked (`bal` is its
        /// current value and covers the amount): the grant bucket first, then top-up.
        async fn apply_reserve(tx: &mut Tx, bal: &BalanceRow, h: &NewHold, seq_delta: i64) -> Result<(HoldRow, BalanceRow), StorageError> {
            let (from_grant, from_topup) = split_hold(bal, h.amount);
            let hold = HoldRow {
                id: h.id.clone(),
                org_id: h.org_id.clone(),
                amount: h.amount,
                from_grant,
                from_topup,
                generation_id: h.generation_id.clone(),
                status: HoldStatus::Held,
                created_at: h.now,
                resolved_at: None,
            };
            q::tx::insert_hold(&hold.id, &hold.org_id, hold.amount, from_grant, from_topup, hold.generation_id.as_deref(), h.now)
                .execute(&mut **tx)
                .await?;
            let entry = Entry {
                org_id: &h.org_id,
                kind: "reserve",
                grant_delta: -from_grant,
                topup_delta: -from_topup,
                held_delta: h.amount,
                settled_delta: 0,
                credited_delta: 0,
                hold_id: Some(&hold.id),
                user_id: h.user_id.as_ref(),
                reason: None,
                expires_at: None,
                expires_entry_id: None,
                now: h.now,
                seq_delta,
            };
            let after = apply_entry(tx, &entry).await?;
            Ok((hold, after))
        }

        /// What a group of submits writes, gathered so that each table takes one multi-row
        /// statement at the end: holds, ledger entries, jobs and takes records, and the house's
        /// running totals moved once. The balance is planned in memory against the row the
        /// group locked, so the totals written equal the entries' sums.
        #[derive(Default)]
        struct GroupWrites {
            holds: Vec<HoldRow>,
            /// Who asked for each hold of `holds`, by hold id, when no job of `jobs` says.
            hold_users: std::collections::HashMap<String, Option<UserId>>,
            jobs: Vec<JobRow>,
            takes: Vec<(TakeRecord, String, DateTime<Utc>)>,
        }

        impl GroupWrites {
            /// Plan one call against its house's balance (`bal`, moved in memory): a shortfall
            /// plans nothing.
            fn plan(&mut self, bal: &mut BalanceRow, jobs: Vec<JobRow>, take: Option<TakeRecord>) -> CreateJobsOutcome {
                let need: i64 = jobs.iter().map(|j| j.tokens).sum();
                if bal.spendable() < need {
                    return CreateJobsOutcome::Insufficient { need, spendable: bal.spendable() };
                }
                let mut created = Vec::with_capacity(jobs.len());
                for mut job in jobs {
                    let (from_grant, from_topup) = split_hold(bal, job.tokens);
                    bal.grant_tokens -= from_grant;
                    bal.topup_tokens -= from_topup;
                    bal.held += job.tokens;
                    bal.job_event_seq += 1;
                    self.holds.push(HoldRow {
                        id: job.hold_id.clone(),
                        org_id: job.org_id.clone(),
                        amount: job.tokens,
                        from_grant,
                        from_topup,
                        generation_id: Some(job.id.clone().into()),
                        status: HoldStatus::Held,
                        created_at: job.created_at,
                        resolved_at: None,
                    });
                    job.event_seq = bal.job_event_seq;
                    job.status = JobStatus::Queued;
                    created.push(job);
                }
                if let Some(take) = take {
                    let ids: Vec<&str> = created.iter().map(|j| j.id.as_str()).collect();
                    self.takes.push((take, serde_json::to_string(&ids).unwrap_or_default(), created[0].created_at));
                }
                self.jobs.extend(created.iter().cloned());
                CreateJobsOutcome::Created(created)
            }

            /// Plan holds that no job row carries yet (a pipeline's steps): the caller checked
            /// that `bal` covers them. The job event number does not move.
            fn plan_holds(&mut self, bal: &mut BalanceRow, holds: Vec<NewHold>) {
                for h in holds {
                    let (from_grant, from_topup) = split_hold(bal, h.amount);
                    bal.grant_tokens -= from_grant;
                    bal.topup_tokens -= from_topup;
                    bal.held += h.amount;
                    self.hold_users.insert(h.id.to_string(), h.user_id.clone());
                    self.holds.push(HoldRow {
                        id: h.id,
                        org_id: h.org_id,
                        amount: h.amount,
                        from_grant,
                        from_topup,
                        generation_id: h.generation_id,
                        status: HoldStatus::Held,
                        created_at: h.now,
                        resolved_at: None,
                    });
                }
            }

            /// Plan jobs whose holds are already reserved (or planned by [`Self::plan_holds`]):
            /// each takes the house's next event number and is queued.
            fn plan_held_jobs(&mut self, bal: &mut BalanceRow, jobs: Vec<JobRow>) -> Vec<JobRow> {
                let mut queued = Vec::with_capacity(jobs.len());
                for mut job in jobs {
                    bal.job_event_seq += 1;
                    job.event_seq = bal.job_event_seq;
                    job.status = JobStatus::Queued;
                    queued.push(job);
                }
                self.jobs.extend(queued.iter().cloned());
                queued
            }

            /// Write what was planned, moving the house's totals from `before` (as locked) to
            /// `after` (as planned). With `$one_statement` (PostgreSQL) every write is one
            /// statement, the inserts in data-modifying CTEs beside the totals' UPDATE, so the
            /// group holds the house's lock for one round trip instead of four.
            async fn flush(self, tx: &mut Tx, org_id: &OrgId, before: &BalanceRow, after: &BalanceRow) -> Result<(), StorageError> {
                if self.holds.is_empty() && self.jobs.is_empty() {
                    return Ok(());
                }
                let entry = Entry {
                    org_id,
                    kind: "reserve",
                    grant_delta: after.grant_tokens - before.grant_tokens,
                    topup_delta: after.topup_tokens - before.topup_tokens,
                    held_delta: after.held - before.held,
                    settled_delta: 0,
                    credited_delta: 0,
                    hold_id: None,
                    user_id: None,
                    reason: None,
                    expires_at: None,
                    expires_entry_id: None,
                    now: Utc::now(),
                    seq_delta: after.job_event_seq - before.job_event_seq,
                };
                if $one_statement {
                    let mut q = sqlx::QueryBuilder::new("WITH ");
                    let mut sep = "";
                    if !self.holds.is_empty() {
                        q.push("h AS (");
                        self.push_holds(&mut q);
                        q.push("), l AS (");
                        self.push_reserves(&mut q);
                        q.push(")");
                        sep = ", ";
                    }
                    if !self.jobs.is_empty() {
                        q.push(sep).push("j AS (");
                        self.push_jobs(&mut q);
                        q.push(")");
                        sep = ", ";
                    }
                    if !self.takes.is_empty() {
                        q.push(sep).push("t AS (");
                        self.push_takes(&mut q);
                        q.push(")");
                    }
                    q.push(" ");
                    push_move_totals(&mut q, &entry);
                    let written: BalanceRow =
                        q.build_query_as().fetch_one(&mut **tx).await.map_err(unique_as("idempotency or take key"))?;
                    debug_assert_eq!(&written, after);
                    return Ok(());
                }
                if !self.holds.is_empty() {
                    let mut q = sqlx::QueryBuilder::new("");
                    self.push_holds(&mut q);
                    q.build().execute(&mut **tx).await?;
                    let mut q = sqlx::QueryBuilder::new("");
                    self.push_reserves(&mut q);
                    q.build().execute(&mut **tx).await?;
                }
                let written = move_totals(tx, &entry).await?;
                debug_assert_eq!(&written, after);
                if !self.jobs.is_empty() {
                    let mut q = sqlx::QueryBuilder::new("");
                    self.push_jobs(&mut q);
                    q.build().execute(&mut **tx).await.map_err(unique_as("idempotency key"))?;
                }
                if !self.takes.is_empty() {
                    let mut q = sqlx::QueryBuilder::new("");
                    self.push_takes(&mut q);
                    q.build().execute(&mut **tx).await.map_err(unique_as("take key"))?;
                }
                Ok(())
            }

            /// `INSERT INTO holds` of every planned hold.
            fn push_holds<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push("INSERT INTO holds (id, org_id, amount, from_grant, from_topup, generation_id, status, created_at) ");
                q.push_values(&self.holds, |mut b, h| {
                    b.push_bind(&h.id)
                        .push_bind(&h.org_id)
                        .push_bind(h.amount)
                        .push_bind(h.from_grant)
                        .push_bind(h.from_topup)
                        .push_bind(&h.generation_id)
                        .push_bind("held")
                        .push_bind(h.created_at);
                });
            }

            /// `INSERT INTO ledger_entries` of every planned hold's `reserve` entry.
            fn push_reserves<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                let mut users: std::collections::HashMap<&str, Option<&str>> =
                    self.hold_users.iter().map(|(h, u)| (h.as_str(), u.as_deref())).collect();
                users.extend(self.jobs.iter().map(|j| (j.hold_id.as_str(), j.user_id.as_deref())));
                q.push(
                    "INSERT INTO ledger_entries (id, org_id, kind, grant_delta, topup_delta, held_delta, settled_delta, \
                     credited_delta, hold_id, user_id, reason, expires_at, created_at) ",
                );
                q.push_values(&self.holds, |mut b, h| {
                    b.push_bind(crate::ids::new_id("led"))
                        .push_bind(&h.org_id)
                        .push_bind("reserve")
                        .push_bind(-h.from_grant)
                        .push_bind(-h.from_topup)
                        .push_bind(h.amount)
                        .push_bind(0i64)
                        .push_bind(0i64)
                        .push_bind(&h.id)
                        .push_bind(users.get(h.id.as_str()).copied().flatten())
                        .push_bind(None::<&str>)
                        .push_bind(None::<DateTime<Utc>>)
                        .push_bind(h.created_at);
                });
            }

            /// `INSERT INTO jobs` of every planned job.
            fn push_jobs<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push(concat!("INSERT INTO jobs (", job_columns!(), ") "));
                q.push_values(&self.jobs, |mut b, job| {
                    b.push_bind(&job.id)
                        .push_bind(&job.org_id)
                        .push_bind(&job.user_id)
                        .push_bind(&job.tool)
                        .push_bind(&job.quality)
                        .push_bind(&job.params)
                        .push_bind(&job.inputs)
                        .push_bind(&job.status)
                        .push_bind(&job.hold_id)
                        .push_bind(job.tokens)
                        .push_bind(job.tokens_settled)
                        .push_bind(&job.idempotency_key)
                        .push_bind(&job.brand_id)
                        .push_bind(&job.run_id)
                        .push_bind(&job.look_id)
                        .push_bind(&job.stage)
                        .push_bind(&job.source_job_id)
                        .push_bind(&job.retry_of_job_id)
                        .push_bind(&job.result_asset_id)
                        .push_bind(&job.error)
                        .push_bind(job.event_seq)
                        .push_bind(job.attempts)
                        .push_bind(job.claimed_at)
                        .push_bind(job.created_at)
                        .push_bind(job.started_at)
                        .push_bind(job.finished_at);
                });
            }

            /// `INSERT INTO take_requests` of every planned takes record.
            fn push_takes<'a>(&'a self, q: &mut QueryBuilder<'a>) {
                q.push("INSERT INTO take_requests (user_id, idempotency_key, source_ids, job_ids, created_at) ");
                q.push_values(&self.takes, |mut b, (take, job_ids, at)| {
                    b.push_bind(&take.user_id)
                        .push_bind(&take.idempotency_key)
                        .push_bind(&take.source_ids)
                        .push_bind(job_ids)
                        .push_bind(*at);
                });
            }
        }

        /// The query builder of this backend.
        type QueryBuilder<'a> = sqlx::QueryBuilder<'a, Db>;

        /// [`move_totals`] as the tail of a statement `q` is building.
        fn push_move_totals<'a>(q: &mut QueryBuilder<'a>, e: &Entry<'a>) {
            q.push("UPDATE balances SET grant_tokens = grant_tokens + ")
                .push_bind(e.grant_delta)
                .push(", topup_tokens = topup_tokens + ")
                .push_bind(e.topup_delta)
                .push(", held = held + ")
                .push_bind(e.held_delta)
                .push(", settled = settled + ")
                .push_bind(e.settled_delta)
                .push(", credited = credited + ")
                .push_bind(e.credited_delta)
                .push(", updated_at = ")
                .push_bind(e.now)
                .push(", job_event_seq = job_event_seq + ")
                .push_bind(e.seq_delta)
                .push(" WHERE org_id = ")
                .push_bind(e.org_id)
                .push(" RETURNING grant_tokens, topup_tokens, held, settled, credited, job_event_seq");
        }

        /// How a hold of `amount` splits over the buckets: the grant bucket first, then top-up.
        fn split_hold(bal: &BalanceRow, amount: i64) -> (i64, i64) {
            let from_grant = bal.grant_tokens.min(amount);
            (from_grant, amount - from_grant)
        }

        /// Settle or release a hold inside a write transaction whose balance row is locked.
        async fn resolve_in(tx: &mut Tx, org_id: &OrgId, hold_id: &HoldId, now: DateTime<Utc>, charge: bool, seq_delta: i64) -> Result<(ResolveOutcome, i64), StorageError> {
            let hold = q::tx::hold_locked(hold_id, org_id).fetch_optional(&mut **tx).await?;
            let Some(mut hold) = hold else { return Ok((ResolveOutcome::NotFound, 0)) };
            if hold.status != HoldStatus::Held {
                return Ok((ResolveOutcome::AlreadyResolved(hold), 0));
            }
            let status = if charge { HoldStatus::Settled } else { HoldStatus::Released };
            let updated = q::tx::resolve_hold(status, now, hold_id, org_id).execute(&mut **tx).await?;
            if updated.rows_affected() != 1 {
                return Ok((ResolveOutcome::AlreadyResolved(hold), 0));
            }
            let entry = Entry {
                org_id,
                kind: status.as_str(),
                grant_delta: if charge { 0 } else { hold.from_grant },
                topup_delta: if charge { 0 } else { hold.from_topup },
                held_delta: -hold.amount,
                settled_delta: if charge { hold.amount } else { 0 },
                credited_delta: 0,
                hold_id: Some(hold_id),
                user_id: None,
                reason: None,
                expires_at: None,
                expires_entry_id: None,
                now,
                seq_delta,
            };
            let after = apply_entry(tx, &entry).await?;
            hold.status = status;
            hold.resolved_at = Some(now);
            Ok((ResolveOutcome::Resolved(hold), after.job_event_seq))
        }

        /// The house's next job event number (its balance row must be locked).
        async fn next_event_seq(tx: &mut Tx, org_id: &OrgId) -> Result<i64, StorageError> {
            Ok(q::tx::next_event_seq(org_id).fetch_one(&mut **tx).await?)
        }

        /// Lock (PostgreSQL) and read a house's running totals inside a write transaction,
        /// creating the row if the house has none yet.
        async fn lock_balance(tx: &mut Tx, org_id: &OrgId) -> Result<BalanceRow, StorageError> {
            // PostgreSQL: lock the row without writing it (the common case: it exists). SQLite
            // starts with the write: a transaction that reads first cannot write later if
            // another connection wrote in between (SQLITE_BUSY_SNAPSHOT, which no busy timeout
            // waits out).
            if $lock_by_select {
                let locked = q::tx::balance_locked(org_id).fetch_optional(&mut **tx).await?;
                if let Some(row) = locked {
                    return Ok(row);
                }
            }
            // Create the row if missing and lock it in one statement (PostgreSQL takes the row
            // lock for ON CONFLICT DO UPDATE just as for FOR UPDATE).
            Ok(q::tx::balance_opened(org_id, chrono::Utc::now()).fetch_one(&mut **tx).await?)
        }

        /// Append a credit entry and raise the totals.
        async fn apply_credit(tx: &mut Tx, c: &NewCredit) -> Result<BalanceRow, StorageError> {
            lock_balance(tx, &c.org_id).await?;
            let (grant_delta, topup_delta, kind) = match c.bucket {
                Bucket::Grant => (c.amount, 0, "grant"),
                Bucket::Topup => (0, c.amount, "topup"),
            };
            let entry = Entry {
                org_id: &c.org_id,
                kind,
                grant_delta,
                topup_delta,
                held_delta: 0,
                settled_delta: 0,
                credited_delta: c.amount,
                hold_id: None,
                user_id: c.user_id.as_ref(),
                reason: Some(&c.reason),
                expires_at: c.expires_at,
                expires_entry_id: None,
                now: c.now,
                seq_delta: 0,
            };
            let id = EntryId::from(crate::ids::new_id("led"));
            let after = apply_entry_as(tx, &id, &entry).await?;
            if let (Bucket::Grant, Some(expires_at)) = (c.bucket, c.expires_at) {
                q::tx::expiry_pending(&id, &c.org_id, expires_at).execute(&mut **tx).await?;
            }
            Ok(after)
        }

        /// Expire grant entry `entry_id` of `amount` tokens inside a fresh write transaction: lock
        /// the balance, take the grant off `grant_expiries` (the pending list), and append an
        /// `expire` entry taking what is left of it (at most the grant bucket) out of the grant
        /// bucket and the credited total. None when it was no longer pending (a concurrent sweep
        /// took it); else the tokens taken.
        async fn apply_expiry(tx: &mut Tx, org_id: &OrgId, entry_id: &EntryId, amount: i64, now: DateTime<Utc>) -> Result<Option<i64>, StorageError> {
            let bal = lock_balance(tx, org_id).await?;
            let pending = q::tx::expiry_taken(entry_id, org_id).execute(&mut **tx).await?.rows_affected();
            if pending == 0 {
                return Ok(None);
            }
            let taken = amount.min(bal.grant_tokens).max(0);
            let reason = format!("grant {entry_id} expired");
            let entry = Entry {
                org_id,
                kind: "expire",
                grant_delta: -taken,
                topup_delta: 0,
                held_delta: 0,
                settled_delta: 0,
                credited_delta: -taken,
                hold_id: None,
                user_id: None,
                reason: Some(&reason),
                expires_at: None,
                expires_entry_id: Some(entry_id),
                now,
                seq_delta: 0,
            };
            apply_entry(tx, &entry).await?;
            Ok(Some(taken))
        }

        /// Append one ledger entry and move the running totals by the same deltas.
        async fn apply_entry(tx: &mut Tx, e: &Entry<'_>) -> Result<BalanceRow, StorageError> {
            apply_entry_as(tx, &EntryId::from(crate::ids::new_id("led")), e).await
        }

        /// [`apply_entry`] with the entry's id chosen by the caller.
        async fn apply_entry_as(tx: &mut Tx, id: &EntryId, e: &Entry<'_>) -> Result<BalanceRow, StorageError> {
            q::tx::insert_entry(
                id,
                e.org_id,
                e.kind,
                e.grant_delta,
                e.topup_delta,
                e.held_delta,
                e.settled_delta,
                e.credited_delta,
                e.hold_id,
                e.user_id,
                e.reason,
                e.expires_at,
                e.now,
                e.expires_entry_id,
            )
            .execute(&mut **tx)
            .await?;
            move_totals(tx, e).await
        }

        /// Move a house's running totals (and eventSeq) by an entry's deltas; the new totals.
        async fn move_totals(tx: &mut Tx, e: &Entry<'_>) -> Result<BalanceRow, StorageError> {
            Ok(q::tx::move_totals(e.grant_delta, e.topup_delta, e.held_delta, e.settled_delta, e.credited_delta, e.now, e.seq_delta, e.org_id)
                .fetch_one(&mut **tx)
                .await?)
        }
    };
}

pub(in crate::storage) use impl_tx_helpers;
