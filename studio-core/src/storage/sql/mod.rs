//! The SQL both backends share, one file per domain. `$N` placeholders and `ON CONFLICT` read
//! the same on SQLite and PostgreSQL, so one macro body per domain implements its store for each
//! backend, and [`impl_storage`] implements them all. The backends differ in how a write
//! transaction is made exclusive (`$lock`): PostgreSQL locks the house's balance row with
//! `FOR UPDATE`; SQLite serialises writers in-process (see sqlite.rs). And a group of develop
//! submits is written in one statement on PostgreSQL (`$one_statement`: data-modifying CTEs, which
//! SQLite lacks) and in one statement a table on SQLite, whose round trips are free; and
//! PostgreSQL locks an existing balance row with a read (`$lock_by_select`), while SQLite's
//! transactions start with the write (see `lock_balance` in tx.rs).

pub(super) mod accounts;
pub(super) mod analyst;
pub(super) mod billing;
pub(super) mod brand;
pub(super) mod chat;
pub(super) mod console;
pub(super) mod internal;
pub(super) mod invitations;
pub(super) mod jobs;
pub(super) mod lanes;
pub(super) mod ledger;
pub(super) mod library;
pub(super) mod lookbook;
pub(super) mod mail;
pub(super) mod market;
pub(super) mod models;
pub(super) mod pipelines;
pub(super) mod posts;
pub(super) mod profiles;
pub(super) mod search;
pub(super) mod seats;
pub(super) mod stmt;
pub(super) mod support;
pub(super) mod tx;
pub(super) mod webhooks;

/// `q::<domain>`: the declared statements of each domain that has them (see stmt.rs), and
/// `q::all()`, every one of them, for the statement check. The list is the one `.ci/invariants`
/// reads to hold those files to their declared statements.
macro_rules! declared {
    ($($domain:ident),+) => {
        pub(super) mod q {
            $(pub(in crate::storage) use super::$domain::q as $domain;)+

            /// Every declared statement.
            #[cfg(test)]
            pub(in crate::storage) fn all() -> Vec<&'static super::stmt::Statement> {
                [$($domain::ALL),+].into_iter().flatten().collect()
            }
        }
    };
}
declared!(
    accounts,
    analyst,
    billing,
    brand,
    chat,
    console,
    internal,
    invitations,
    jobs,
    lanes,
    ledger,
    library,
    lookbook,
    mail,
    market,
    models,
    pipelines,
    posts,
    profiles,
    seats,
    support,
    tx,
    webhooks
);

/// Implement [`Storage`](super::Storage) and every per-domain store for a backend type.
macro_rules! impl_storage {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::Storage for $ty {
            fn backend(&self) -> &'static str {
                $backend
            }

            async fn ping(&self) -> Result<(), StorageError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }
        }
        $crate::storage::sql::accounts::impl_account_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::library::impl_library_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::market::impl_market_helpers!($lock);
        $crate::storage::sql::models::impl_model_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::jobs::impl_job_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::ledger::impl_ledger_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::billing::impl_billing_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::seats::impl_seat_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::profiles::impl_profile_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::mail::impl_mail_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::invitations::impl_invitation_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::lookbook::impl_lookbook_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::pipelines::impl_pipeline_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::brand::impl_brand_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::lanes::impl_lane_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::posts::impl_post_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::webhooks::impl_webhook_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::analyst::impl_analyst_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::console::impl_console_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::internal::impl_internal_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::support::impl_support_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::chat::impl_chat_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::search::impl_search_store!(
            $ty,
            $backend,
            $lock,
            $skip_locked,
            $one_statement,
            $lock_by_select
        );
        $crate::storage::sql::tx::impl_tx_helpers!($ty, $backend, $lock, $skip_locked, $one_statement, $lock_by_select);
    };
}

/// The columns of `api_keys` in [`KeyRow`](super::KeyRow) order.
macro_rules! key_columns {
    () => {
        "id, org_id, created_by, name, role, prefix, secret_hash, last_used_at, revoked_at, created_at"
    };
}

/// The columns of `assets` in [`AssetRow`](super::AssetRow) order.
macro_rules! asset_columns {
    () => {
        "id, org_id, created_by, name, sku, kind, folder_id, group_id, fit, wearer, fit_guessed, wearer_guessed, \
         carries_mark, mark_guessed, mime, tool, blob_key, sha256, bytes, width, height, approved_by, approved_at, \
         created_at, deleted_at, provenance"
    };
}

/// The columns of `packs` in [`PackRow`](super::PackRow) order.
macro_rules! pack_columns {
    () => {
        "id, org_id, created_by, filename, asset_ids, sizes, mode, status, items, bytes, seconds, blob_key, error, \
         attempts, created_at, claimed_at, ready_at, expires_at"
    };
}

/// The columns of `models` in [`ModelRow`](super::ModelRow) order.
macro_rules! model_columns {
    () => {
        "id, org_id, created_by, name, asset_ids, traits, created_at, tier, price_cents, currency, note, \
         collage_asset_id, sheet_asset_ids, retired_at, updated_at"
    };
}

/// The columns of `jobs` in [`JobRow`](super::JobRow) order.
macro_rules! job_columns {
    () => {
        "id, org_id, user_id, tool, quality, params, inputs, status, hold_id, tokens, tokens_settled, idempotency_key, \
         brand_id, run_id, look_id, stage, source_job_id, retry_of_job_id, result_asset_id, error, event_seq, attempts, \
         claimed_at, created_at, started_at, finished_at"
    };
}

/// The columns of `holds` in [`HoldRow`](super::HoldRow) order.
macro_rules! hold_columns {
    () => {
        "id, org_id, amount, from_grant, from_topup, generation_id, status, created_at, resolved_at"
    };
}

/// The columns of `billing_checkouts` in [`CheckoutRow`](super::CheckoutRow) order.
macro_rules! checkout_columns {
    () => {
        "reference, org_id, user_id, kind, item, tokens, amount_cents, grant_cap, status, provider_id, payment_id, \
         created_at, paid_at"
    };
}

/// The columns of `billing_accounts` in [`BillingAccountRow`](super::BillingAccountRow) order.
macro_rules! account_columns {
    () => {
        "org_id, customer_id, has_card, autocharge_enabled, threshold_tokens, refill_pack, monthly_cap_cents, updated_at"
    };
}

/// The columns of a seat listing (`memberships m` joined to `users u` and `organizations o`)
/// in [`SeatRow`](super::SeatRow) order.
macro_rules! seat_columns {
    () => {
        "m.org_id, o.name AS org_name, m.user_id, u.email, u.name, m.role, m.created_at"
    };
}

/// The columns of `seat_invitations` in [`SeatInvitationRow`](super::SeatInvitationRow) order.
macro_rules! seat_invitation_columns {
    () => {
        "id, org_id, email, role, invited_by, status, created_at, expires_at, resolved_at"
    };
}

/// The columns of `memories` in [`MemoryRow`](super::MemoryRow) order.
macro_rules! memory_columns {
    () => {
        "id, org_id, scope, user_id, memory_class, kind, statement, confidence, status, evidence_count, \
         supersedes_id, projected, created_by, created_at, updated_at"
    };
}

/// The columns of `looks` in [`LookRow`](super::LookRow) order.
macro_rules! look_columns {
    () => {
        "id, org_id, created_by, brand_id, name, model_asset_id, items, background, aesthetic, status, \
         look_base_asset_id, look_base_job_id, batch_id, created_at, updated_at, look_base_parent_id, planned_keys, \
         planned_quality"
    };
}

/// The columns of `shot_templates t` in [`TemplateRow`](super::TemplateRow) order.
macro_rules! template_columns {
    () => {
        "t.id, t.org_id, t.name, t.slots, t.shot_count, t.created_at, t.updated_at"
    };
}

/// The columns of `standing_presets` in [`PresetRow`](super::PresetRow) order.
macro_rules! preset_columns {
    () => {
        "org_id, model_asset_id, background, aesthetic, variation_keys, quality, sizes, updated_at"
    };
}

pub(super) use {
    account_columns, asset_columns, checkout_columns, hold_columns, impl_storage, job_columns, key_columns,
    look_columns, memory_columns, model_columns, pack_columns, preset_columns, seat_columns, seat_invitation_columns,
    template_columns,
};

/// One ledger entry's deltas; the running totals move by exactly these.
pub(super) struct Entry<'a> {
    pub(super) org_id: &'a crate::ids::OrgId,
    pub(super) kind: &'a str,
    pub(super) grant_delta: i64,
    pub(super) topup_delta: i64,
    pub(super) held_delta: i64,
    pub(super) settled_delta: i64,
    pub(super) credited_delta: i64,
    pub(super) hold_id: Option<&'a crate::ids::HoldId>,
    pub(super) user_id: Option<&'a crate::ids::UserId>,
    pub(super) reason: Option<&'a str>,
    pub(super) expires_at: Option<chrono::DateTime<chrono::Utc>>,
    /// For an `expire` entry: the grant entry it expires.
    pub(super) expires_entry_id: Option<&'a crate::ids::EntryId>,
    pub(super) now: chrono::DateTime<chrono::Utc>,
    /// 1 when the entry also records a job state change: the house's eventSeq moves with it.
    pub(super) seq_delta: i64,
}

/// Map a unique-constraint violation to `Conflict(what)`; other errors pass through.
pub(super) fn unique_as(what: &'static str) -> impl Fn(sqlx::Error) -> super::StorageError {
    move |e| match &e {
        sqlx::Error::Database(d) if d.is_unique_violation() => super::StorageError::Conflict(what),
        _ => super::StorageError::Database(e),
    }
}

/// Both backends' check that `ledger_entries` refuses UPDATE and DELETE (the triggers fire):
/// `execute` runs one raw statement on the backend's pool.
#[cfg(test)]
pub(super) async fn assert_ledger_append_only<F, Fut>(storage: &dyn super::Storage, execute: F)
where
    F: Fn(&'static str) -> Fut,
    Fut: std::future::Future<Output = Result<u64, sqlx::Error>>,
{
    let now = chrono::Utc::now();
    let user = super::UserRow {
        id: "usr_t".into(),
        email: "t@example.com".into(),
        name: None,
        password_hash: None,
        created_at: now,
    };
    let org = super::OrgRow { id: "org_t".into(), name: "T".into(), created_at: now };
    storage.create_account(super::NewAccount { user, org, grant_tokens: 5 }).await.expect("account");
    assert_eq!(storage.audit(&"org_t".into()).await.expect("audit").entries, 1);
    for statement in ["UPDATE ledger_entries SET grant_delta = 500", "DELETE FROM ledger_entries"] {
        let refused = execute(statement).await;
        assert!(refused.is_err_and(|e| e.to_string().contains("append-only")), "{statement} must be refused");
    }
    assert_eq!(storage.audit(&"org_t".into()).await.expect("audit").grant_tokens, 5);
}

/// Many concurrent submits to one storage (so the group commit takes several per transaction):
/// the balance never goes below zero, the totals equal the ledger's sums, every created job has
/// exactly one hold and its own eventSeq, and a key used by several calls at once creates one job.
#[cfg(test)]
pub(super) async fn assert_grouped_submits(storage: std::sync::Arc<dyn super::Storage>) {
    use super::{CreateJobsOutcome, JobRow};
    use chrono::SubsecRound;
    // Microseconds: what PostgreSQL keeps of a timestamp.
    let now = chrono::Utc::now().trunc_subsecs(6);
    let user = super::UserRow {
        id: "usr_g".into(),
        email: "g@example.com".into(),
        name: None,
        password_hash: None,
        created_at: now,
    };
    let org = super::OrgRow { id: "org_g".into(), name: "G".into(), created_at: now };
    storage.create_account(super::NewAccount { user, org, grant_tokens: 100 }).await.expect("account");
    let job = move |i: usize, key: Option<&str>| JobRow {
        idempotency_key: key.map(str::to_string),
        created_at: now,
        ..JobRow::queued(format!("job_g{i}"), &"org_g".into(), Some("usr_g".into()), "upscale", "1k", 9)
    };
    // 30 calls for 9 tokens each against 100 tokens; two idempotency keys are shared.
    let calls = (0..30).map(|i| {
        // "first-key" is also the first call's, which runs alone; the calls sharing "late-key"
        // land in one group, whose transaction then fails on the duplicate and is rerun call by
        // call.
        let key = if i % 6 == 0 { Some("first-key") } else { (i % 7 == 3).then_some("late-key") };
        let (storage, row) = (storage.clone(), job(i, key));
        tokio::spawn(async move { storage.create_jobs(vec![row], None, Default::default()).await.expect("create") })
    });
    let calls: Vec<_> = calls.collect(); // all in flight at once
    let mut created = Vec::new();
    let (mut keyed, mut short) = (std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new(), 0);
    for call in calls {
        match call.await.expect("task") {
            CreateJobsOutcome::Created(jobs) => {
                if let Some(key) = &jobs[0].idempotency_key {
                    keyed.entry(key.clone()).or_default().insert(jobs[0].id.clone().into());
                }
                created.extend(jobs);
            }
            CreateJobsOutcome::Existing(jobs) => {
                let key = jobs[0].idempotency_key.clone().expect("only keyed calls replay");
                keyed.entry(key).or_default().insert(jobs[0].id.clone().into());
            }
            CreateJobsOutcome::Insufficient { need, spendable } => {
                assert_eq!(need, 9);
                assert!(spendable < 9, "refused with {spendable} spendable");
                short += 1;
            }
            CreateJobsOutcome::KeyReused => panic!("no takes here"),
            CreateJobsOutcome::Stale => panic!("no checks here"),
        }
    }
    assert_eq!(created.len(), 11, "100 tokens hold eleven frames of 9");
    assert!(keyed.values().all(|ids| ids.len() == 1), "one job per shared key: {keyed:?}");
    assert!(short >= 30 - 11 - 5 - 4, "the rest were refused");
    let mut seqs: Vec<i64> = created.iter().map(|j| j.event_seq).collect();
    seqs.sort();
    assert_eq!(seqs, (1..=11).collect::<Vec<_>>(), "one eventSeq per job");
    let balance = storage.balance(&"org_g".into()).await.expect("balance");
    let audit = storage.audit(&"org_g".into()).await.expect("audit");
    assert_eq!((balance.grant_tokens, balance.held, balance.job_event_seq), (1, 99, 11));
    assert_eq!((audit.grant_tokens, audit.held, audit.credited, audit.entries), (1, 99, 100, 12));
    for j in &created {
        let stored = storage.job(&"org_g".into(), &j.id).await.expect("job").expect("stored");
        assert_eq!(&stored, j, "the job as answered is the job as stored");
    }
}
