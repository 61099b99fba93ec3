//! Group commit for develop submits. Every submit of a house locks that house's balance row
//! for its whole transaction, so one after another they pay a commit each (an fsync on
//! PostgreSQL) while the lock is held. Submits that arrive while a transaction of their house
//! is running instead wait in that house's queue, and the next transaction takes all of them:
//! one lock, one commit, many submits. A lone submit runs at once, as before, and different
//! houses' groups run side by side.
//!
//! After a group of several, the drain waits a moment for its callers to come back (PostgreSQL's
//! `commit_delay` idea): callers that submit again as soon as they are answered would otherwise
//! miss the next transaction, which starts at once with only those who were already waiting,
//! and split into two cohorts that alternate at half the group size. It waits until as many as
//! it just answered (counted before they are answered) have joined those waiting, or
//! [`FOLLOWER_PATIENCE`], whichever is first; a lone submit never waits.
//!
//! The queue holds no SQL: the storage backends drain it (see `sql.rs`). The drain runs on its
//! own task, so a caller that goes away (a dropped request) never cancels a transaction that
//! others' submits ride in.

use crate::ids::OrgId;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{Notify, oneshot};

use super::{CreateJobsOutcome, JobRow, StorageError, SubmitChecks, TakeRecord};

/// The most submits one transaction takes.
pub(crate) const MAX_GROUP: usize = 64;

/// How long a drain waits after a group for its callers' next submits (tokio's timer rounds it
/// up to the next millisecond; the wait usually ends sooner, when they have arrived).
pub(crate) const FOLLOWER_PATIENCE: Duration = Duration::from_micros(500);

/// One queued `create_jobs` call and where its answer goes.
pub(crate) struct PendingJobs {
    /// The jobs to hold and queue together.
    pub jobs: Vec<JobRow>,
    /// The takes record, for a takes request.
    pub take: Option<TakeRecord>,
    /// What the call was planned on, confirmed in its transaction.
    pub checks: SubmitChecks,
    /// The caller waiting for its outcome.
    pub reply: oneshot::Sender<Result<CreateJobsOutcome, StorageError>>,
}

/// Per house: the submits waiting for its next transaction. A house is in the map while its
/// drain task runs.
#[derive(Default)]
pub(crate) struct JobQueue {
    houses: Mutex<HashMap<OrgId, Vec<PendingJobs>>>,
    /// Told of every call queued, for drains waiting for followers.
    arrived: Notify,
}

impl std::fmt::Debug for JobQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobQueue").finish_non_exhaustive()
    }
}

impl JobQueue {
    /// Queue a call of house `org_id`; true when that house has no drain task running and the
    /// caller must start one.
    pub(crate) fn push(&self, org_id: &OrgId, pending: PendingJobs) -> bool {
        let mut houses = self.houses.lock().unwrap_or_else(|p| p.into_inner());
        match houses.get_mut(org_id) {
            Some(waiting) => {
                waiting.push(pending);
                self.arrived.notify_waiters();
                false
            }
            None => {
                houses.insert(org_id.clone(), vec![pending]);
                true
            }
        }
    }

    /// Up to [`MAX_GROUP`] of the house's queued calls, oldest first. Empty means none were
    /// waiting and the drain task must stop: the house leaves the map in the same step, so a
    /// call queued after this starts a new one.
    fn take(&self, org_id: &OrgId) -> Vec<PendingJobs> {
        let mut houses = self.houses.lock().unwrap_or_else(|p| p.into_inner());
        let Some(waiting) = houses.get_mut(org_id) else { return Vec::new() };
        let n = waiting.len().min(MAX_GROUP);
        if n == 0 {
            houses.remove(org_id);
            return Vec::new();
        }
        waiting.drain(..n).collect()
    }

    /// How many of the house's calls are waiting.
    fn waiting(&self, org_id: &OrgId) -> usize {
        self.houses.lock().unwrap_or_else(|p| p.into_inner()).get(org_id).map_or(0, Vec::len)
    }

    /// The drain task ended without emptying the queue (it panicked): drop what waits, so its
    /// callers get an error instead of waiting for ever, and let the next call start a drain.
    fn abandon(&self, org_id: &OrgId) {
        self.houses.lock().unwrap_or_else(|p| p.into_inner()).remove(org_id);
    }
}

/// Held by a drain task; [`DrainGuard::stopped`] once `take` came back empty. Dropped before
/// that (an unwinding panic), it abandons the queue.
pub(crate) struct DrainGuard<'a> {
    queue: &'a JobQueue,
    org_id: &'a OrgId,
    stopped: bool,
}

impl<'a> DrainGuard<'a> {
    /// Guard house `org_id`'s queue for the drain task's lifetime.
    pub(crate) fn new(queue: &'a JobQueue, org_id: &'a OrgId) -> Self {
        DrainGuard { queue, org_id, stopped: false }
    }

    /// The next group, or None when the queue is empty and the task must return.
    pub(crate) fn next_group(&mut self) -> Option<Vec<PendingJobs>> {
        let group = self.queue.take(self.org_id);
        self.stopped = group.is_empty();
        (!group.is_empty()).then_some(group)
    }
}

impl DrainGuard<'_> {
    /// How many calls to wait for after answering a group of `answered`, counted before any of
    /// them is answered: that many more than are waiting now. None after a lone call.
    pub(crate) fn followers(&self, answered: usize) -> Option<usize> {
        (answered >= 2).then(|| (self.queue.waiting(self.org_id) + answered).min(MAX_GROUP))
    }

    /// Wait until `expected` calls ([`DrainGuard::followers`]) are waiting, or
    /// [`FOLLOWER_PATIENCE`] has passed.
    pub(crate) async fn await_followers(&self, expected: Option<usize>) {
        let Some(expected) = expected else { return };
        let deadline = tokio::time::Instant::now() + FOLLOWER_PATIENCE;
        loop {
            let mut arrived = std::pin::pin!(self.queue.arrived.notified());
            // Registered before the count is read, so an arrival in between is not missed.
            arrived.as_mut().enable();
            if self.queue.waiting(self.org_id) >= expected {
                return;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for DrainGuard<'_> {
    fn drop(&mut self) {
        if !self.stopped {
            self.queue.abandon(self.org_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A house id that lives as long as the test (a drain guard borrows it).
    fn house(name: &str) -> &'static OrgId {
        Box::leak(Box::new(OrgId::from(name)))
    }

    fn pending() -> (PendingJobs, oneshot::Receiver<Result<CreateJobsOutcome, StorageError>>) {
        let (reply, rx) = oneshot::channel();
        (PendingJobs { jobs: Vec::new(), take: None, checks: SubmitChecks::default(), reply }, rx)
    }

    #[test]
    fn one_drain_per_house_and_a_new_one_after_it_stops() {
        let queue = JobQueue::default();
        assert!(queue.push(&"a".into(), pending().0), "the first call starts a drain");
        assert!(!queue.push(&"a".into(), pending().0), "a drain is running for this house");
        assert!(queue.push(&"b".into(), pending().0), "another house drains on its own");
        let mut guard = DrainGuard::new(&queue, house("a"));
        assert_eq!(guard.next_group().map(|g| g.len()), Some(2));
        assert!(guard.next_group().is_none(), "empty: the drain stops");
        drop(guard);
        assert!(queue.push(&"a".into(), pending().0), "after it stopped, the next call starts one");
        assert!(!queue.push(&"b".into(), pending().0), "house b's drain has not stopped");
    }

    #[tokio::test]
    async fn a_drain_waits_for_as_many_followers_as_it_answered_and_no_longer() {
        let queue = std::sync::Arc::new(JobQueue::default());
        queue.push(&"a".into(), pending().0);
        let guard = DrainGuard::new(&queue, house("a"));
        let started = tokio::time::Instant::now();
        assert_eq!(guard.followers(1), None, "after a lone call it does not wait");
        guard.await_followers(guard.followers(1)).await;
        assert!(started.elapsed() < FOLLOWER_PATIENCE);

        // One waits and three are answered: counted before they are, the wait ends when four
        // are queued, however soon the three come back.
        let expected = guard.followers(3);
        assert_eq!(expected, Some(4));
        let adder = {
            let queue = queue.clone();
            tokio::spawn(async move {
                for _ in 0..3 {
                    tokio::task::yield_now().await;
                    queue.push(&"a".into(), pending().0);
                }
            })
        };
        guard.await_followers(expected).await;
        adder.await.unwrap();
        assert_eq!(queue.waiting(&"a".into()), 4);

        // Nobody comes back: the wait gives up.
        let started = tokio::time::Instant::now();
        guard.await_followers(guard.followers(8)).await;
        assert!(started.elapsed() >= FOLLOWER_PATIENCE);
        assert_eq!(queue.waiting(&"a".into()), 4, "it took nothing");
        let mut guard = guard;
        assert_eq!(guard.next_group().map(|g| g.len()), Some(4));
    }

    #[tokio::test]
    async fn callers_back_before_the_wait_starts_end_it_at_once() {
        let queue = JobQueue::default();
        queue.push(&"a".into(), pending().0);
        let guard = DrainGuard::new(&queue, house("a"));
        // Counted, then answered: all eight are back (on another thread) before the drain
        // waits. Counting after they were back would wait for eight more, who never come.
        let expected = guard.followers(8);
        for _ in 0..8 {
            queue.push(&"a".into(), pending().0);
        }
        let started = tokio::time::Instant::now();
        guard.await_followers(expected).await;
        assert!(started.elapsed() < FOLLOWER_PATIENCE, "waited {:?}", started.elapsed());
        let mut guard = guard;
        assert_eq!(guard.next_group().map(|g| g.len()), Some(9));
    }

    #[test]
    fn groups_are_capped() {
        let queue = JobQueue::default();
        for _ in 0..MAX_GROUP + 3 {
            queue.push(&"a".into(), pending().0);
        }
        let mut guard = DrainGuard::new(&queue, house("a"));
        assert_eq!(guard.next_group().map(|g| g.len()), Some(MAX_GROUP));
        assert_eq!(guard.next_group().map(|g| g.len()), Some(3));
        assert!(guard.next_group().is_none());
    }

    #[test]
    fn a_drain_that_dies_releases_its_waiters() {
        let queue = JobQueue::default();
        let (p, mut rx) = pending();
        queue.push(&"a".into(), p);
        let (q, mut rx2) = pending();
        {
            let mut guard = DrainGuard::new(&queue, house("a"));
            let group = guard.next_group().expect("group");
            queue.push(&"a".into(), q);
            drop(group); // taken and dropped unanswered, as by a panic
        } // dropped before the queue ran empty
        assert!(rx.try_recv().is_err() && rx2.try_recv().is_err());
        assert!(queue.push(&"a".into(), pending().0), "a new drain can start");
    }
}
