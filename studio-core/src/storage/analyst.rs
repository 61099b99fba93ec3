//! The analyst as stored (docs/analyst.md): its cadence, its digests and the period figures
//! they are written from, reflection findings and their decisions, and the admins'
//! observations and reviews of memories; the `AnalystStore` trait.

use crate::api::FindingStatus;
use crate::ids::{FindingId, MemoryId};
use chrono::{DateTime, Utc};

use super::{MemoryRow, StorageError};

/// The analyst's cadence as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct AnalystSettingsRow {
    /// Hours between the digests the analyst writes by itself.
    pub hours: i64,
    /// Whether it writes them.
    pub enabled: bool,
    /// The admin who last changed it.
    pub updated_by: Option<String>,
    /// When.
    pub updated_at: DateTime<Utc>,
}

/// A digest as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct DigestRow {
    /// Id (`dig_…`).
    pub id: String,
    /// The period's start (inclusive).
    pub period_start: DateTime<Utc>,
    /// The period's end (exclusive).
    pub period_end: DateTime<Utc>,
    /// The period's figures, JSON.
    pub figures: String,
    /// The summary in words.
    pub summary: String,
    /// `figures` (plain figures) or `reader` (written by the AI reader).
    pub writer: String,
    /// `admin` or `cadence`.
    pub trigger_kind: String,
    /// The cadence window the digest fills (unique per trigger).
    pub slot: String,
    /// The admin who asked, for an admin run.
    pub requested_by: Option<String>,
    /// When it was written.
    pub created_at: DateTime<Utc>,
}

/// A reflection finding as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct FindingRow {
    /// Id (`fnd_…`).
    pub id: FindingId,
    /// The digest that raised it.
    pub digest_id: String,
    /// The rule that fired.
    pub rule: String,
    /// What it is about (a tool, `platform`).
    pub subject: String,
    /// The finding in words.
    pub statement: String,
    /// The figures behind it, JSON.
    pub figures: String,
    /// `open`, `accepted` or `dismissed`.
    pub status: FindingStatus,
    /// The decider's note.
    pub note: Option<String>,
    /// Who decided.
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<DateTime<Utc>>,
    /// When it was raised.
    pub created_at: DateTime<Utc>,
}

/// An observation of a memory as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ObservationRow {
    /// Id (`obs_…`).
    pub id: String,
    /// The memory.
    pub memory_id: MemoryId,
    /// Whether what was seen bears the memory out.
    pub supports: bool,
    /// What was seen.
    pub note: String,
    /// The memory's confidence before.
    pub confidence_before: f64,
    /// And after.
    pub confidence_after: f64,
    /// The admin.
    pub observed_by: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A review of a memory as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ReviewRow {
    /// Id (`rev_…`).
    pub id: String,
    /// The memory.
    pub memory_id: MemoryId,
    /// `keep` or `retire`.
    pub decision: String,
    /// Why.
    pub note: String,
    /// The admin.
    pub reviewed_by: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// The platform's figures over one period, read in one place for the digest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PeriodCounts {
    /// Houses opened.
    pub houses: i64,
    /// People signed up.
    pub people: i64,
    /// Images uploaded (assets no develop made).
    pub uploads: i64,
    /// Develops queued in the period by `(tool, status now)`.
    pub develops: Vec<(String, String, i64)>,
    /// Develops that landed a frame in the period.
    pub readable_frames: i64,
    /// Verdicts judged in the period that could read their frame.
    pub readable_verdicts: i64,
    /// Ledger movements in the period by kind: `(kind, entries, tokens)`, tokens being the
    /// credited amount of grants and top-ups and the settled amount of settlements.
    pub ledger: Vec<(String, i64, i64)>,
    /// Holds still open that were taken more than an hour before the period's end.
    pub stale_holds: i64,
}

/// The analyst's storage.
#[async_trait::async_trait]
pub trait AnalystStore: Send + Sync {
    /// The cadence, if it was ever set.
    async fn analyst_settings(&self) -> Result<Option<AnalystSettingsRow>, StorageError>;
    /// Set the cadence.
    async fn set_analyst_settings(&self, row: &AnalystSettingsRow) -> Result<(), StorageError>;
    /// The figures of `[from, to)`.
    async fn period_counts(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<PeriodCounts, StorageError>;
    /// Write a digest and its findings in one transaction; false (nothing written) when a digest
    /// of the same trigger already fills the slot.
    async fn insert_digest(&self, digest: &DigestRow, findings: &[FindingRow]) -> Result<bool, StorageError>;
    /// The digest of `trigger` filling `slot`, if any.
    async fn digest_in_slot(&self, trigger: &str, slot: &str) -> Result<Option<DigestRow>, StorageError>;
    /// Up to `limit` digests, newest first.
    async fn digests(&self, limit: i64) -> Result<Vec<DigestRow>, StorageError>;
    /// Up to `limit` findings, newest first, with `status` when given, raised before `before`
    /// (its `(created_at, id)`) when given.
    async fn findings(
        &self,
        status: Option<FindingStatus>,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<FindingRow>, StorageError>;
    /// Decide an open finding; None when there is no open finding of that id.
    async fn decide_finding(
        &self,
        id: &FindingId,
        status: FindingStatus,
        note: &str,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<FindingRow>, StorageError>;
    /// How many findings wait for a decision.
    async fn open_findings(&self) -> Result<i64, StorageError>;
    /// One finding.
    async fn finding(&self, id: &FindingId) -> Result<Option<FindingRow>, StorageError>;

    /// Any house's memory by id.
    async fn memory_by_id(&self, id: &MemoryId) -> Result<Option<MemoryRow>, StorageError>;
    /// Record an observation of an active memory and move its evidence count and its confidence
    /// (to `next(confidence, supports)`) in the same transaction, filling the observation's
    /// before and after; None when the memory is not active (or does not exist).
    async fn observe_memory(
        &self,
        obs: ObservationRow,
        next: fn(f64, bool) -> f64,
    ) -> Result<Option<(MemoryRow, ObservationRow)>, StorageError>;
    /// Observations of a memory, oldest first.
    async fn observations(&self, memory_id: &MemoryId) -> Result<Vec<ObservationRow>, StorageError>;
    /// Active memories (every house) whose confidence is below `below` and which no review has
    /// looked at since they last changed, least confident first, then oldest; after `after`
    /// (its `(confidence, id)`) when given.
    async fn memories_to_review(
        &self,
        below: f64,
        limit: i64,
        after: Option<(f64, &str)>,
    ) -> Result<Vec<MemoryRow>, StorageError>;
    /// Record a review; `retire` also retires the memory in the same transaction. None when the
    /// memory is not active.
    async fn review_memory(&self, review: &ReviewRow) -> Result<Option<MemoryRow>, StorageError>;
}
