//! The SQL of develop jobs ([`JobStore`](crate::storage::JobStore)): created with their holds
//! (one call alone, or a group commit of waiting calls), claimed, finished and cancelled. Every
//! statement of fixed shape is declared in [`q`] (see stmt.rs).

/// The develop jobs' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::api::JobStatus;
    use crate::ids::{AssetId, JobId, OrgId, UserId};
    use crate::storage::sql::job_columns;
    use crate::storage::sql::stmt::statements;
    use crate::storage::{BrandProfileRow, JobRow};

    /// A house's running totals, its brand profile (JSON) and which of the assets named (a JSON
    /// array) are live (a JSON array), read in one statement.
    type Checked = (i64, i64, i64, i64, i64, i64, Option<String>, Option<String>);

    statements! {
        /// A job of a house.
        fn job(id: &'q JobId, org_id: &'q OrgId) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE id = $1 AND org_id = $2"
        }

        /// A job of a house, locked (PostgreSQL) to be finished or cancelled.
        fn job_locked(id: &'q JobId, org_id: &'q OrgId) -> row<JobRow> [house, lock] {
            "SELECT ", job_columns!(), " FROM jobs WHERE id = $1 AND org_id = $2"
        }

        /// The job that made an asset of a house.
        fn job_made(org_id: &'q OrgId, result_asset_id: &'q AssetId) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND result_asset_id = $2 ORDER BY created_at LIMIT 1"
        }

        /// A house's jobs whose event number is past `event_seq`, in event order.
        fn jobs_since(org_id: &'q OrgId, event_seq: i64, limit: i64) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT $3"
        }

        /// A house's jobs made since `created_at`, newest first.
        fn recent_jobs(org_id: &'q OrgId, created_at: DateTime<Utc>, limit: i64) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND created_at >= $2 \
             ORDER BY created_at DESC, id DESC LIMIT $3"
        }

        /// A house's jobs (of one status, or all), newest first.
        fn list_jobs(org_id: &'q OrgId, status: Option<&'q str>, limit: i64) -> row<JobRow> [house] {
            "SELECT ", job_columns!(), " FROM jobs WHERE org_id = $1 AND (CAST($2 AS TEXT) IS NULL OR status = $2) \
             ORDER BY created_at DESC, id DESC LIMIT $3"
        }

        /// The oldest job waiting for a worker (queued, or running on a claim older than `claimed_at`).
        fn claimable(claimed_at: DateTime<Utc>) -> row<JobRow> [any "the worker serves every house: it claims the oldest waiting job", skip_locked] {
            "SELECT ", job_columns!(), " FROM jobs WHERE status = 'queued' OR (status = 'running' AND claimed_at < $1) \
             ORDER BY created_at, id LIMIT 1"
        }

        /// Claim a job for a worker.
        fn claim(claimed_at: DateTime<Utc>, started_at: Option<DateTime<Utc>>, attempts: i64, event_seq: i64, id: &'q JobId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE jobs SET status = 'running', claimed_at = $1, started_at = $2, attempts = $3, event_seq = $4 \
             WHERE id = $5 AND org_id = $6"
        }

        /// Renew a worker's claim on a running job.
        fn renew_claim(claimed_at: DateTime<Utc>, id: &'q JobId) -> exec [any "a worker renews its own claim, named by the id of the job it runs"] {
            "UPDATE jobs SET claimed_at = $1 WHERE id = $2 AND status = 'running'"
        }

        /// End a job: done (with its asset) or failed (with its error).
        fn finish(
            status: &'q JobStatus,
            result_asset_id: Option<&'q AssetId>,
            error: Option<&'q str>,
            tokens_settled: Option<i64>,
            finished_at: Option<DateTime<Utc>>,
            event_seq: i64,
            id: &'q JobId,
            org_id: &'q OrgId,
        ) -> exec [house] {
            "UPDATE jobs SET status = $1, result_asset_id = $2, error = $3, tokens_settled = $4, finished_at = $5, \
             event_seq = $6 WHERE id = $7 AND org_id = $8"
        }

        /// Cancel a queued job.
        fn cancel(finished_at: DateTime<Utc>, event_seq: i64, id: &'q JobId, org_id: &'q OrgId) -> exec [house] {
            "UPDATE jobs SET status = 'cancelled', tokens_settled = 0, finished_at = $1, event_seq = $2 \
             WHERE id = $3 AND org_id = $4"
        }

        /// Lock a house's running totals and read what a group's submit checks ask, in one
        /// statement (`live_assets` is a JSON array of asset ids).
        fn checks_locked(org_id: &'q OrgId, live_assets: &'q str) -> row<Checked> [house, lock, postgres_only] {
            "SELECT b.grant_tokens, b.topup_tokens, b.held, b.settled, b.credited, b.job_event_seq, \
             (SELECT CAST(row_to_json(p) AS TEXT) FROM brand_profiles p WHERE p.org_id = $1), \
             (SELECT CAST(json_agg(a.id) AS TEXT) FROM assets a WHERE a.org_id = $1 AND a.deleted_at IS NULL \
             AND a.id IN (SELECT json_array_elements_text(CAST($2 AS json)))) \
             FROM balances b WHERE b.org_id = $1"
        }

        /// A house's brand profile, for a submit's checks.
        fn checked_profile(org_id: &'q OrgId) -> row<BrandProfileRow> [house] {
            "SELECT ", crate::storage::sql::brand::brand_profile_columns!(), " FROM brand_profiles WHERE org_id = $1"
        }

        /// A person's takes record under a key: the frames it named and the jobs it made.
        fn take_record(user_id: &'q UserId, idempotency_key: &'q str) -> row<(String, String)> [any "a takes key is a person's own (take_requests has no house)"] {
            "SELECT source_ids, job_ids FROM take_requests WHERE user_id = $1 AND idempotency_key = $2"
        }

        /// A job by id, whatever its house.
        fn job_by_id(id: &'q JobId) -> row<JobRow> [any "the ids come from the asking person's own takes record"] {
            "SELECT ", job_columns!(), " FROM jobs WHERE id = $1"
        }

        /// A person's job under an idempotency key.
        fn job_by_key(user_id: &'q UserId, idempotency_key: &'q str) -> row<JobRow> [any "an idempotency key is the asking person's own"] {
            "SELECT ", job_columns!(), " FROM jobs WHERE user_id = $1 AND idempotency_key = $2"
        }
    }
}

macro_rules! impl_job_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::JobStore for $ty {
            async fn create_jobs(
                &self,
                jobs: Vec<JobRow>,
                take: Option<TakeRecord>,
                checks: $crate::storage::SubmitChecks,
            ) -> Result<CreateJobsOutcome, StorageError> {
                if jobs.is_empty() {
                    return Ok(CreateJobsOutcome::Created(Vec::new()));
                }
                let (reply, answer) = tokio::sync::oneshot::channel();
                let org_id = jobs[0].org_id.clone();
                if self.job_queue.push(&org_id, PendingJobs { jobs, take, checks, reply }) {
                    tokio::spawn(self.clone().drain_job_queue(org_id.clone()));
                }
                answer
                    .await
                    .map_err(|_| StorageError::Unsupported("the submit queue stopped before answering".into()))?
            }

            async fn job(&self, org_id: &OrgId, id: &JobId) -> Result<Option<JobRow>, StorageError> {
                Ok(q::jobs::job(id, org_id).fetch_optional(&self.pool).await?)
            }

            async fn job_made(&self, org_id: &OrgId, asset_id: &AssetId) -> Result<Option<JobRow>, StorageError> {
                Ok(q::jobs::job_made(org_id, asset_id).fetch_optional(&self.pool).await?)
            }

            async fn jobs_since(&self, org_id: &OrgId, since: i64, limit: i64) -> Result<Vec<JobRow>, StorageError> {
                Ok(q::jobs::jobs_since(org_id, since, limit).fetch_all(&self.pool).await?)
            }

            async fn recent_jobs(
                &self,
                org_id: &OrgId,
                after: DateTime<Utc>,
                limit: i64,
            ) -> Result<Vec<JobRow>, StorageError> {
                Ok(q::jobs::recent_jobs(org_id, after, limit).fetch_all(&self.pool).await?)
            }

            async fn list_jobs(
                &self,
                org_id: &OrgId,
                status: Option<&str>,
                limit: i64,
            ) -> Result<Vec<JobRow>, StorageError> {
                Ok(q::jobs::list_jobs(org_id, status, limit).fetch_all(&self.pool).await?)
            }

            async fn claim_job(
                &self,
                now: DateTime<Utc>,
                stale_before: DateTime<Utc>,
            ) -> Result<Option<JobRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let candidate = q::jobs::claimable(stale_before).fetch_optional(&mut *tx).await?;
                let Some(mut job) = candidate else { return Ok(None) };
                if job.status == JobStatus::Queued {
                    lock_balance(&mut tx, &job.org_id).await?;
                    job.event_seq = next_event_seq(&mut tx, &job.org_id).await?;
                }
                job.status = JobStatus::Running;
                job.claimed_at = Some(now);
                job.started_at = job.started_at.or(Some(now));
                job.attempts += 1;
                q::jobs::claim(now, job.started_at, job.attempts, job.event_seq, &job.id, &job.org_id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(Some(job))
            }

            async fn renew_job_claim(&self, id: &JobId, now: DateTime<Utc>) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                q::jobs::renew_claim(now, id).execute(&self.pool).await?;
                Ok(())
            }

            async fn finish_job(
                &self,
                org_id: &OrgId,
                id: &JobId,
                end: JobEnd,
                now: DateTime<Utc>,
            ) -> Result<Option<JobRow>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let job = q::jobs::job_locked(id, org_id).fetch_optional(&mut *tx).await?;
                let Some(mut job) = job else { return Ok(None) };
                if job.status != JobStatus::Queued && job.status != JobStatus::Running {
                    return Ok(None);
                }
                lock_balance(&mut tx, org_id).await?;
                let charge = matches!(end, JobEnd::Done(_));
                let (outcome, seq) = resolve_in(&mut tx, org_id, &job.hold_id, now, charge, 1).await?;
                let settled = match outcome {
                    ResolveOutcome::Resolved(h) if charge => h.amount,
                    _ => 0,
                };
                match end {
                    JobEnd::Done(asset) => {
                        insert_asset_in(&mut tx, &asset).await?;
                        job.status = JobStatus::Done;
                        job.result_asset_id = Some(asset.id.clone());
                    }
                    JobEnd::Failed(error) => {
                        job.status = JobStatus::Failed;
                        job.error = Some(error);
                    }
                }
                job.tokens_settled = Some(settled);
                job.finished_at = Some(now);
                job.event_seq = if seq > 0 { seq } else { next_event_seq(&mut tx, org_id).await? };
                q::jobs::finish(
                    &job.status,
                    job.result_asset_id.as_ref(),
                    job.error.as_deref(),
                    job.tokens_settled,
                    job.finished_at,
                    job.event_seq,
                    &job.id,
                    org_id,
                )
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Some(job))
            }

            async fn cancel_job(
                &self,
                org_id: &OrgId,
                id: &JobId,
                now: DateTime<Utc>,
            ) -> Result<CancelOutcome, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let job = q::jobs::job_locked(id, org_id).fetch_optional(&mut *tx).await?;
                let Some(mut job) = job else { return Ok(CancelOutcome::NotFound) };
                if job.status != JobStatus::Queued {
                    return Ok(CancelOutcome::Unchanged(job));
                }
                lock_balance(&mut tx, org_id).await?;
                let (_, seq) = resolve_in(&mut tx, org_id, &job.hold_id, now, false, 1).await?;
                job.event_seq = if seq > 0 { seq } else { next_event_seq(&mut tx, org_id).await? };
                job.status = JobStatus::Cancelled;
                job.tokens_settled = Some(0);
                job.finished_at = Some(now);
                q::jobs::cancel(now, job.event_seq, &job.id, org_id).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok(CancelOutcome::Cancelled(job))
            }

            async fn announce(&self, org_id: &OrgId, message: &str) -> Result<bool, StorageError> {
                self.announce_event(org_id, message).await
            }

            async fn listen(&self) -> Result<Option<tokio::sync::mpsc::Receiver<(String, String)>>, StorageError> {
                self.listen_events().await
            }
        }

        /// Group commit of develop submits (see `group_commit.rs`): the queue's drain task.
        impl $ty {
            /// Run a house's queued submits, as many per transaction as are waiting, until none are.
            async fn drain_job_queue(self, org_id: OrgId) {
                let mut guard = DrainGuard::new(&self.job_queue, &org_id);
                while let Some(group) = guard.next_group() {
                    let answers = self.run_group(group).await;
                    // Counted before anyone is answered: a caller answered on another thread can
                    // be back in the queue before this line would otherwise run.
                    let followers = guard.followers(answers.len());
                    for (reply, outcome) in answers {
                        let _ = reply.send(outcome);
                    }
                    guard.await_followers(followers).await;
                }
            }

            /// Run one group: together, or (when it is one call, or the shared transaction
            /// failed) call by call. Each call's answer, not sent yet.
            async fn run_group(
                &self,
                group: Vec<PendingJobs>,
            ) -> Vec<(Reply, Result<CreateJobsOutcome, StorageError>)> {
                if group.len() > 1 {
                    let calls: Vec<Call> =
                        group.iter().map(|p| (p.jobs.clone(), p.take.clone(), p.checks.clone())).collect();
                    if let Ok(outcomes) = self.create_jobs_together(calls).await {
                        return group.into_iter().zip(outcomes).map(|(p, outcome)| (p.reply, Ok(outcome))).collect();
                    }
                    // One call failed the shared transaction (nothing of it was written): run
                    // each alone, so only that call sees its error.
                }
                let mut answers = Vec::with_capacity(group.len());
                for p in group {
                    let outcome = self.create_jobs_together(vec![(p.jobs, p.take, p.checks)]).await;
                    answers.push((p.reply, outcome.map(|mut o| o.remove(0))));
                }
                answers
            }

            /// Calls of one house (one, or a group) in one transaction, in order, its balance row
            /// locked once. A refused call writes nothing, so the others' outcomes stand.
            async fn create_jobs_together(&self, calls: Vec<Call>) -> Result<Vec<CreateJobsOutcome>, StorageError> {
                let _w = self.write_lock().await;
                let mut tx = self.begin_write().await?;
                let org_id = calls[0].0[0].org_id.clone();
                let (before, (brand, live)) = lock_for_checks(&mut tx, &org_id, calls.iter().map(|c| &c.2)).await?;
                let mut bal = before.clone();
                let mut writes = GroupWrites::default();
                let mut outcomes = Vec::with_capacity(calls.len());
                for (jobs, take, checks) in calls {
                    match prior_jobs(&mut tx, &jobs[0], &take).await? {
                        Some(prior) => outcomes.push(prior),
                        None if !checks.hold(&brand, &live) => outcomes.push(CreateJobsOutcome::Stale),
                        None => outcomes.push(writes.plan(&mut bal, jobs, take)),
                    }
                }
                writes.flush(&mut tx, &org_id, &before, &bal).await?;
                tx.commit().await?;
                Ok(outcomes)
            }
        }

        /// Where a queued call's answer goes.
        type Reply = tokio::sync::oneshot::Sender<Result<CreateJobsOutcome, StorageError>>;

        /// One queued call: its jobs, takes record and checks.
        type Call = (Vec<JobRow>, Option<TakeRecord>, $crate::storage::SubmitChecks);

        /// The house as `checks` read it: its brand profile and which of the images they name
        /// are live.
        type Checked = (Option<$crate::storage::BrandProfileRow>, std::collections::HashSet<String>);

        /// Lock the house's balance row ([`lock_balance`]) and read what `checks` ask about the
        /// house in the same transaction. On PostgreSQL that is one statement, so checks cost a
        /// group no round trip.
        async fn lock_for_checks<'c>(
            tx: &mut Tx,
            org_id: &OrgId,
            checks: impl Iterator<Item = &'c $crate::storage::SubmitChecks>,
        ) -> Result<(BalanceRow, Checked), StorageError> {
            let mut brand = false;
            let mut assets: Vec<&str> = Vec::new();
            for c in checks {
                brand |= c.brand.is_some();
                assets.extend(c.live_assets.iter().map(String::as_str));
            }
            assets.sort_unstable();
            assets.dedup();
            if $lock_by_select && (brand || !assets.is_empty()) {
                let live_assets = serde_json::to_string(&assets).unwrap_or_default();
                let row = q::jobs::checks_locked(org_id, &live_assets).fetch_optional(&mut **tx).await?;
                if let Some((grant_tokens, topup_tokens, held, settled, credited, job_event_seq, profile, live)) = row {
                    let bal = BalanceRow { grant_tokens, topup_tokens, held, settled, credited, job_event_seq };
                    let bad = |e: serde_json::Error| StorageError::Unsupported(format!("a submit check's read: {e}"));
                    let profile = profile.map(|p| serde_json::from_str(&p)).transpose().map_err(bad)?;
                    let live: Vec<String> =
                        live.map(|l| serde_json::from_str(&l)).transpose().map_err(bad)?.unwrap_or_default();
                    return Ok((bal, (profile, live.into_iter().collect())));
                }
            }
            let bal = lock_balance(tx, org_id).await?;
            Ok((bal, read_for_checks(tx, org_id, brand, &assets).await?))
        }

        /// What checks ask about the house (its brand profile when `brand`, which of `assets`
        /// are live), read in the transaction that writes them.
        async fn read_for_checks(
            tx: &mut Tx,
            org_id: &OrgId,
            brand: bool,
            assets: &[&str],
        ) -> Result<Checked, StorageError> {
            let profile = if brand { q::jobs::checked_profile(org_id).fetch_optional(&mut **tx).await? } else { None };
            let mut live = std::collections::HashSet::new();
            if !assets.is_empty() {
                let mut q = sqlx::QueryBuilder::new("SELECT id FROM assets WHERE deleted_at IS NULL AND org_id = ");
                q.push_bind(org_id).push(" AND id IN (");
                let mut ids = q.separated(", ");
                for id in assets {
                    ids.push_bind(id);
                }
                q.push(")");
                let rows: Vec<(String,)> = q.build_query_as().fetch_all(&mut **tx).await?;
                live.extend(rows.into_iter().map(|(id,)| id));
            }
            Ok((profile, live))
        }

        /// An earlier call with the same idempotency key: its jobs, or `KeyReused` for a takes
        /// key reused for other frames. None when the call is new.
        async fn prior_jobs(
            tx: &mut Tx,
            first: &JobRow,
            take: &Option<TakeRecord>,
        ) -> Result<Option<CreateJobsOutcome>, StorageError> {
            if let Some(take) = &take {
                let prior =
                    q::jobs::take_record(&take.user_id, &take.idempotency_key).fetch_optional(&mut **tx).await?;
                if let Some((source_ids, job_ids)) = prior {
                    if source_ids != take.source_ids {
                        return Ok(Some(CreateJobsOutcome::KeyReused));
                    }
                    let ids: Vec<String> = serde_json::from_str(&job_ids).unwrap_or_default();
                    let mut existing = Vec::with_capacity(ids.len());
                    for id in ids {
                        existing.extend(q::jobs::job_by_id(&JobId::from(id)).fetch_optional(&mut **tx).await?);
                    }
                    return Ok(Some(CreateJobsOutcome::Existing(existing)));
                }
            } else if let (Some(user_id), Some(key)) = (&first.user_id, &first.idempotency_key) {
                let prior = q::jobs::job_by_key(user_id, key).fetch_optional(&mut **tx).await?;
                if let Some(prior) = prior {
                    return Ok(Some(CreateJobsOutcome::Existing(vec![prior])));
                }
            }
            Ok(None)
        }
    };
}

pub(in crate::storage) use impl_job_store;
