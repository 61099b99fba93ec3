//! The ledger under concurrency: many tasks reserving, settling and releasing against one
//! house at once, over a shared pool of hold ids so that replays, double resolves and
//! resolve-before-reserve all happen. Afterwards nothing is overspent, no hold resolved twice,
//! and Σcredits = spendable + held + settled, with the running totals equal to the entries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use studio_core::HoldId;

use chrono::Utc;
use studio_core::{NewHold, ReserveOutcome, ResolveOutcome, Storage};

use crate::{Rng, conformance, new_house};

conformance!(concurrent_reserve_settle_release_keeps_the_books);

#[derive(Default)]
struct Tally {
    reserved: HashMap<String, i64>,
    resolved: HashMap<String, u32>,
    insufficient: u32,
}

const TASKS: u64 = 12;
const OPS_PER_TASK: u64 = 40;
const HOLD_IDS: u64 = 90;
const CREDIT: i64 = 400;

async fn concurrent_reserve_settle_release_keeps_the_books(storage: Arc<dyn Storage>) {
    let (_, org) = new_house(storage.as_ref(), CREDIT).await;
    let tally = Arc::new(Mutex::new(Tally::default()));
    let mut tasks = Vec::new();
    for seed in 1..=TASKS {
        let storage = storage.clone();
        let org = org.clone();
        let tally = tally.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for _ in 0..OPS_PER_TASK {
                let id = format!("hold_{}_{org}", rng.below(HOLD_IDS));
                match rng.below(3) {
                    0 => {
                        let amount = 1 + rng.below(40) as i64;
                        let hold = NewHold {
                            id: HoldId::from(&id),
                            org_id: org.clone(),
                            amount,
                            generation_id: None,
                            user_id: None,
                            now: Utc::now(),
                        };
                        match storage.reserve(hold).await.expect("reserve") {
                            ReserveOutcome::Reserved(h) => {
                                let previous = tally.lock().unwrap().reserved.insert(id, h.amount);
                                assert!(previous.is_none(), "a hold id was reserved twice");
                            }
                            ReserveOutcome::Existing(_) => {}
                            ReserveOutcome::Insufficient { need, spendable } => {
                                assert!(spendable < need, "refused while affordable");
                                tally.lock().unwrap().insufficient += 1;
                            }
                        }
                    }
                    op => {
                        let outcome = if op == 1 {
                            storage.settle(&org, &HoldId::from(&id), Utc::now()).await
                        } else {
                            storage.release(&org, &HoldId::from(&id), Utc::now()).await
                        };
                        if let ResolveOutcome::Resolved(_) = outcome.expect("resolve") {
                            *tally.lock().unwrap().resolved.entry(id).or_default() += 1;
                        }
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }

    let tally = std::mem::take(&mut *tally.lock().unwrap());
    for (id, times) in &tally.resolved {
        assert_eq!(*times, 1, "hold {id} resolved {times} times");
        assert!(tally.reserved.contains_key(id), "hold {id} resolved without a reservation");
    }
    let b = storage.balance(&org).await.unwrap();
    let a = storage.audit(&org).await.unwrap();
    assert_eq!(b.credited, CREDIT);
    assert!(b.grant_tokens >= 0 && b.topup_tokens >= 0 && b.held >= 0, "never overspent: {b:?}");
    assert_eq!(b.credited, b.spendable() + b.held + b.settled, "Σcredits = spendable + held + settled");
    assert_eq!(
        (b.grant_tokens, b.topup_tokens, b.held, b.settled, b.credited),
        (a.grant_tokens, a.topup_tokens, a.held, a.settled, a.credited),
        "running totals equal the entries"
    );
    let open: i64 = storage.open_holds(&org).await.unwrap().iter().map(|h| h.amount).sum();
    assert_eq!(open, b.held, "held equals the open holds");
    let expected_entries = 1 + tally.reserved.len() as i64 + tally.resolved.len() as i64;
    assert_eq!(a.entries, expected_entries, "one entry per grant, reserve and resolve; nothing for refusals");
    assert!(!tally.reserved.is_empty() && !tally.resolved.is_empty(), "the run exercised reserves and resolves");
}
