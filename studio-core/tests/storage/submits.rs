//! Develop submits under concurrency: many tasks submitting groups of jobs for one house through
//! `create_jobs` (group-committed per house, see `storage/group_commit.rs`), while others credit
//! the house and cancel queued jobs, so its totals keep moving between groups. On PostgreSQL the
//! tasks are split over two storages on one database, as two replicas are. Afterwards nothing is
//! overspent, every idempotency key made one job, no two jobs took one event number, and
//! Σcredits = spendable + held + settled, with the running totals equal to the entries.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use studio_core::JobId;

use chrono::Utc;
use studio_core::{Bucket, CancelOutcome, CreateJobsOutcome, JobRow, NewCredit, Storage};

use crate::{Rng, new_house, queued_job as job};

mod sqlite {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn group_submits_keep_the_books() {
        let s = crate::subject("sqlite").await.expect("sqlite is always available");
        super::group_submits_keep_the_books(s.storage.clone(), s.storage.clone()).await
    }
}

mod postgres {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn group_submits_on_two_replicas_keep_the_books() {
        let Some((s, replica)) = crate::two_replicas().await else { return };
        super::group_submits_keep_the_books(s.storage.clone(), replica).await
    }
}

#[derive(Default)]
struct Tally {
    /// Created jobs: id → (tokens, event number at creation, idempotency key).
    created: HashMap<String, (i64, i64, Option<String>)>,
    cancelled: HashSet<String>,
    credits: Vec<i64>,
    replayed: u32,
    short: u32,
}

const TASKS: u64 = 12;
const OPS_PER_TASK: u64 = 30;
const GRANT: i64 = 150;
const KEYS: u64 = 15;

async fn group_submits_keep_the_books(a: Arc<dyn Storage>, b: Arc<dyn Storage>) {
    let (user, org) = new_house(a.as_ref(), GRANT).await;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut tasks = Vec::new();
    for seed in 1..=TASKS {
        let storage = if seed % 2 == 0 { a.clone() } else { b.clone() };
        let (org, user, tally) = (org.clone(), user.clone(), tally.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for _ in 0..OPS_PER_TASK {
                match rng.below(10) {
                    0..=6 => {
                        let n = 1 + rng.below(3);
                        let key = (n == 1 && rng.below(3) == 0).then(|| format!("key-{}", rng.below(KEYS)));
                        let jobs: Vec<JobRow> = (0..n)
                            .map(|i| job(&org, &user, 1 + rng.below(12) as i64, key.clone().filter(|_| i == 0)))
                            .collect();
                        match storage.create_jobs(jobs, None, Default::default()).await.expect("create_jobs") {
                            CreateJobsOutcome::Created(rows) => {
                                let mut t = tally.lock().unwrap();
                                for r in rows {
                                    assert_eq!(r.status, studio_core::api::JobStatus::Queued);
                                    t.created.insert(
                                        r.id.clone().into(),
                                        (r.tokens, r.event_seq, r.idempotency_key.clone()),
                                    );
                                }
                            }
                            CreateJobsOutcome::Existing(rows) => {
                                assert!(key.is_some() && rows.len() == 1, "only a keyed call replays");
                                assert_eq!(rows[0].idempotency_key, key);
                                tally.lock().unwrap().replayed += 1;
                            }
                            CreateJobsOutcome::Insufficient { need, spendable } => {
                                assert!(spendable < need, "refused while affordable: {spendable} of {need}");
                                tally.lock().unwrap().short += 1;
                            }
                            CreateJobsOutcome::KeyReused => panic!("no takes record was sent"),
                            CreateJobsOutcome::Stale => panic!("no checks were sent"),
                        }
                    }
                    7 => {
                        let amount = 5 + rng.below(25) as i64;
                        let credit = NewCredit {
                            org_id: org.clone(),
                            bucket: Bucket::Topup,
                            amount,
                            user_id: None,
                            reason: "test top-up".into(),
                            expires_at: None,
                            now: Utc::now(),
                        };
                        storage.credit(credit).await.expect("credit");
                        tally.lock().unwrap().credits.push(amount);
                    }
                    _ => {
                        let target = {
                            let t = tally.lock().unwrap();
                            let open: Vec<&String> = t.created.keys().filter(|id| !t.cancelled.contains(*id)).collect();
                            (!open.is_empty()).then(|| open[rng.below(open.len() as u64) as usize].clone())
                        };
                        let Some(id) = target else { continue };
                        if let CancelOutcome::Cancelled(_) =
                            storage.cancel_job(&org, &JobId::from(&id), Utc::now()).await.expect("cancel")
                        {
                            assert!(tally.lock().unwrap().cancelled.insert(id), "a job was cancelled twice");
                        }
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }

    let t = std::mem::take(&mut *tally.lock().unwrap());
    assert!(t.created.len() > 20 && !t.cancelled.is_empty() && !t.credits.is_empty(), "the run exercised every path");
    let mut seqs = HashSet::new();
    let mut keyed = HashMap::new();
    for (id, (_, seq, key)) in &t.created {
        assert!(seqs.insert(*seq), "job {id} took event number {seq}, which another job took too");
        if let Some(key) = key {
            *keyed.entry(key.clone()).or_insert(0) += 1;
        }
    }
    assert!(keyed.values().all(|n| *n == 1), "an idempotency key made more than one job: {keyed:?}");

    let bal = a.balance(&org).await.unwrap();
    let audit = a.audit(&org).await.unwrap();
    let credited = GRANT + t.credits.iter().sum::<i64>();
    assert_eq!(bal.credited, credited);
    assert!(bal.grant_tokens >= 0 && bal.topup_tokens >= 0 && bal.held >= 0, "never overspent: {bal:?}");
    assert_eq!(bal.credited, bal.spendable() + bal.held + bal.settled, "Σcredits = spendable + held + settled");
    assert_eq!(
        (bal.grant_tokens, bal.topup_tokens, bal.held, bal.settled, bal.credited),
        (audit.grant_tokens, audit.topup_tokens, audit.held, audit.settled, audit.credited),
        "running totals equal the entries"
    );
    let open: i64 =
        t.created.iter().filter(|(id, _)| !t.cancelled.contains(*id)).map(|(_, (tokens, _, _))| tokens).sum();
    assert_eq!(bal.held, open, "held is exactly the jobs still queued");
    let holds: i64 = a.open_holds(&org).await.unwrap().iter().map(|h| h.amount).sum();
    assert_eq!(holds, bal.held, "held equals the open holds");
    let expected = 1 + t.credits.len() as i64 + t.created.len() as i64 + t.cancelled.len() as i64;
    assert_eq!(audit.entries, expected, "one entry per credit, reserve and release; nothing for refusals or replays");
}
