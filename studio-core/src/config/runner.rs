//! How the job runner works: concurrency, leases, attempts, timeouts.

/// How the runner works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerConfig {
    /// Jobs developed at once by this process.
    pub concurrency: usize,
    /// A running job whose lease is not renewed for this long is taken over.
    pub lease_secs: i64,
    /// Claims before a job is failed and released for good.
    pub max_attempts: i64,
    /// Longest one develop may take before it counts as a transient failure.
    pub timeout_secs: u64,
    /// Wait before a transiently failed job is tried again.
    pub retry_after_secs: i64,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        RunnerConfig { concurrency: 2, lease_secs: 30, max_attempts: 3, timeout_secs: 600, retry_after_secs: 5 }
    }
}
