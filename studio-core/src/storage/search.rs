//! Search: the house-wide full-text index as read (`search_docs`, kept by triggers on every
//! source table; migrations 0026), and the `SearchStore` trait.

use crate::ids::{FolderId, OrgId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// Whose things one search may answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchScope<'a> {
    /// The house.
    pub org_id: &'a str,
    /// The kinds searched (`asset`, `look`, `model`, `memory`, `ticket`, `preset`); never empty.
    pub kinds: &'a [&'a str],
    /// Whose personal memories are answered beside the house's ("" for nobody's).
    pub memory_person: &'a str,
    /// Whose tickets are answered.
    pub ticket_person: &'a str,
}

/// One document found, with its relevance.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct SearchHitRow {
    /// `asset`, `look`, `model`, `memory`, `ticket` or `preset`.
    pub kind: String,
    /// The source row's id.
    pub ref_id: String,
    /// The weighted text: a name, a memory's statement, a ticket's subject (may be empty).
    pub title: String,
    /// The rest of the text searched: an asset's sku, kind and folder name; a look's aesthetic;
    /// a model's note; a memory's kind and class; a ticket's summary and topic.
    pub body: String,
    /// Assets: the sku.
    pub sku: Option<String>,
    /// Assets: the collection.
    pub folder_id: Option<FolderId>,
    /// Assets: the collection's name.
    pub folder: Option<String>,
    /// An asset's kind, a look's or ticket's status, a memory's scope.
    pub tag: Option<String>,
    /// When the source row was made.
    pub created_at: DateTime<Utc>,
    /// Relevance, higher is better (-bm25 on SQLite, ts_rank on PostgreSQL).
    pub score: f64,
}

/// The search index.
#[async_trait::async_trait]
pub trait SearchStore: Send + Sync {
    /// Up to `limit` documents in `scope` that contain every one of `words` as the start of one
    /// of their words (words are lowercase runs of letters and digits, at least one), best
    /// first, ties by id; after `after` (a previous last row's `(score, ref_id)`) when given.
    async fn search(
        &self,
        scope: &SearchScope<'_>,
        words: &[String],
        after: Option<(f64, &str)>,
        limit: i64,
    ) -> Result<Vec<SearchHitRow>, StorageError>;

    /// For benchmarks and load tests: write `count` live assets into house `org_id` in one
    /// statement, named from a small fashion vocabulary (`SS27 silk dress ivory 42`, sku
    /// `SS27-0000042`), dated one second apart from 2025-01-01 and pointing at no blob. Ids
    /// are derived from the house and the ordinal, so seeding one house twice is a conflict.
    /// Answers how many rows were written.
    async fn seed_assets(&self, org_id: &OrgId, count: i64) -> Result<u64, StorageError>;
}
