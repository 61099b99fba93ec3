//! Group commit for develop submits. Every submit of a house locks that house's balance row
//! for its whole transaction, so one after another they pay a commit each (an fsync on
//! PostgreSQL) while the lock is held. Submits that arrive while a transaction is running
//! instead wait in this queue, and the next transaction takes all of them: one lock, one
//! commit, many submits. A lone submit runs at once, as before.
//!
//! The queue holds no SQL: the storage backends drain it (see `sql.rs`). The drain runs on its
//! own task, so a caller that goes away (a dropped request) never cancels a transaction that
//! others' submits ride in.

use std::sync::Mutex;

use tokio::sync::oneshot;

use super::{CreateJobsOutcome, JobRow, StorageError, TakeRecord};

/// The most submits one transaction takes.
pub(crate) const MAX_GROUP: usize = 64;

/// One queued `create_jobs` call and where its answer goes.
pub(crate) struct PendingJobs {
    /// The jobs to hold and queue together.
    pub jobs: Vec<JobRow>,
    /// The takes record, for a takes request.
    pub take: Option<TakeRecord>,
    /// The caller waiting for its outcome.
    pub reply: oneshot::Sender<Result<CreateJobsOutcome, StorageError>>,
}

/// Submits waiting for the next transaction, and whether a drain task is running.
#[derive(Default)]
pub(crate) struct JobQueue {
    state: Mutex<(Vec<PendingJobs>, bool)>,
}

impl std::fmt::Debug for JobQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobQueue").finish_non_exhaustive()
    }
}

impl JobQueue {
    /// Queue a call; true when no drain task is running and the caller must start one.
    pub(crate) fn push(&self, pending: PendingJobs) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0.push(pending);
        !std::mem::replace(&mut state.1, true)
    }

    /// Up to [`MAX_GROUP`] queued calls, oldest first. Empty means the queue was empty and the
    /// drain task must stop: it is marked stopped in the same step, so a call queued after
    /// this starts a new one.
    pub(crate) fn take(&self) -> Vec<PendingJobs> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let n = state.0.len().min(MAX_GROUP);
        if n == 0 {
            state.1 = false;
        }
        state.0.drain(..n).collect()
    }

    /// The drain task ended without emptying the queue (it panicked): drop what waits, so its
    /// callers get an error instead of waiting for ever, and let the next call start a drain.
    fn abandon(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0.clear();
        state.1 = false;
    }
}

/// Held by a drain task; [`DrainGuard::stopped`] once `take` came back empty. Dropped before
/// that (an unwinding panic), it abandons the queue.
pub(crate) struct DrainGuard<'a> {
    queue: &'a JobQueue,
    stopped: bool,
}

impl<'a> DrainGuard<'a> {
    /// Guard `queue` for the drain task's lifetime.
    pub(crate) fn new(queue: &'a JobQueue) -> Self {
        DrainGuard { queue, stopped: false }
    }

    /// The next group, or None when the queue is empty and the task must return.
    pub(crate) fn next_group(&mut self) -> Option<Vec<PendingJobs>> {
        let group = self.queue.take();
        self.stopped = group.is_empty();
        (!group.is_empty()).then_some(group)
    }
}

impl Drop for DrainGuard<'_> {
    fn drop(&mut self) {
        if !self.stopped {
            self.queue.abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending() -> (PendingJobs, oneshot::Receiver<Result<CreateJobsOutcome, StorageError>>) {
        let (reply, rx) = oneshot::channel();
        (PendingJobs { jobs: Vec::new(), take: None, reply }, rx)
    }

    #[test]
    fn one_drain_at_a_time_and_a_new_one_after_it_stops() {
        let queue = JobQueue::default();
        assert!(queue.push(pending().0), "the first call starts a drain");
        assert!(!queue.push(pending().0), "a drain is running");
        let mut guard = DrainGuard::new(&queue);
        assert_eq!(guard.next_group().map(|g| g.len()), Some(2));
        assert!(guard.next_group().is_none(), "empty: the drain stops");
        drop(guard);
        assert!(queue.push(pending().0), "after it stopped, the next call starts one");
    }

    #[test]
    fn groups_are_capped() {
        let queue = JobQueue::default();
        for _ in 0..MAX_GROUP + 3 {
            queue.push(pending().0);
        }
        let mut guard = DrainGuard::new(&queue);
        assert_eq!(guard.next_group().map(|g| g.len()), Some(MAX_GROUP));
        assert_eq!(guard.next_group().map(|g| g.len()), Some(3));
        assert!(guard.next_group().is_none());
    }

    #[test]
    fn a_drain_that_dies_releases_its_waiters() {
        let queue = JobQueue::default();
        let (p, mut rx) = pending();
        queue.push(p);
        let (q, mut rx2) = pending();
        queue.push(q);
        {
            let mut guard = DrainGuard::new(&queue);
            let group = guard.next_group().expect("group");
            drop(group); // taken and dropped unanswered, as by a panic
            queue.push(pending().0);
        } // dropped before the queue ran empty
        assert!(rx.try_recv().is_err() && rx2.try_recv().is_err());
        assert!(queue.push(pending().0), "a new drain can start");
    }
}
