//! Lanes: the unkept results of the AI utility lanes (a depth map, a segment cutout) as stored
//! until they expire, with the `LaneStore` trait.

use crate::ids::{LaneResultId, OrgId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A lane's result, fetchable by a signed URL until `expires_at`.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct LaneResultRow {
    /// Id (`lres_…`).
    pub id: LaneResultId,
    /// The house whose lane made it.
    pub org_id: OrgId,
    /// The lane (`depth`, `segment`).
    pub lane: String,
    /// Where the bytes are in the blob store.
    pub blob_key: String,
    /// Their type (`image/png`).
    pub mime: String,
    /// Their size.
    pub bytes: i64,
    /// When the URL stops working (and the sweep may delete it).
    pub expires_at: DateTime<Utc>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
}

/// Lane results.
#[async_trait::async_trait]
pub trait LaneStore: Send + Sync {
    /// Record a result whose blob is written.
    async fn insert_lane_result(&self, row: &LaneResultRow) -> Result<(), StorageError>;
    /// One result, expired or not.
    async fn lane_result(&self, id: &LaneResultId) -> Result<Option<LaneResultRow>, StorageError>;
    /// Up to `limit` results that expired before `before`, oldest first.
    async fn expired_lane_results(&self, before: DateTime<Utc>, limit: i64)
    -> Result<Vec<LaneResultRow>, StorageError>;
    /// Forget a result (its blob is the caller's to delete); false when already gone.
    async fn delete_lane_result(&self, id: &LaneResultId) -> Result<bool, StorageError>;
}
