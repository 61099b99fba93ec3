//! Opaque identifiers: a short type prefix and a time-ordered UUID, so ids sort by creation.

/// A new id such as `usr_0190c6…`.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// A random secret of 32 bytes as lowercase hex (64 characters), from the OS-seeded CSPRNG.
pub(crate) fn random_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    hex::encode(bytes)
}

/// SHA-256 of a secret as lowercase hex: the only form in which keys and sessions are stored.
pub(crate) fn sha256_hex(secret: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(secret.as_bytes()))
}

/// The current time, to the microsecond: what both backends store exactly, so a value returned
/// by a write equals the one a later read returns.
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::{DurationRound, TimeDelta};
    let t = chrono::Utc::now();
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}
