//! The pack thresholds of spec §4.4 and §8.

/// The thresholds of spec §4.4 and §8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackLimits {
    /// Fewer frames than this (and fewer bytes than `instant_bytes`) build inside the request.
    pub instant_frames: usize,
    /// Fewer bytes than this (and fewer frames than `instant_frames`) build inside the request.
    pub instant_bytes: u64,
    /// More frames than this are refused (413).
    pub max_frames: usize,
    /// More bytes than this are refused (413).
    pub max_bytes: u64,
    /// How long a link lives.
    pub link_days: i64,
    /// A build whose claim was not renewed for this long is taken over (the claim is renewed
    /// every quarter of it while the build runs), so a pack whose builder died is resumed soon
    /// after a restart or by another replica.
    pub stale_after_secs: i64,
    /// Builds are attempted at most this often before the pack fails.
    pub max_attempts: i64,
}

impl Default for PackLimits {
    fn default() -> Self {
        PackLimits {
            instant_frames: 250,
            instant_bytes: 256 * 1024 * 1024,
            max_frames: 700,
            max_bytes: 4 * 1024 * 1024 * 1024,
            link_days: 7,
            stale_after_secs: 30,
            max_attempts: 3,
        }
    }
}
