//! Posts: a house's notes board as stored, and the `PostStore` trait.

use crate::ids::{OrgId, PostId, UserId};
use chrono::{DateTime, Utc};

use super::StorageError;

/// A post as stored.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PostRow {
    /// Id (`post_…`).
    pub id: PostId,
    /// The house.
    pub org_id: OrgId,
    /// The author.
    pub author_id: UserId,
    /// Title.
    pub title: String,
    /// Body.
    pub body: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// Posts.
#[async_trait::async_trait]
pub trait PostStore: Send + Sync {
    /// Write a new post.
    async fn insert_post(&self, row: &PostRow) -> Result<(), StorageError>;
    /// One post of the house.
    async fn post(&self, org_id: &OrgId, id: &PostId) -> Result<Option<PostRow>, StorageError>;
    /// Up to `limit` posts of the house, newest first, written before `before` (its
    /// `(created_at, id)`) when given.
    async fn posts(
        &self,
        org_id: &OrgId,
        limit: i64,
        before: Option<(DateTime<Utc>, &str)>,
    ) -> Result<Vec<PostRow>, StorageError>;
    /// Change a post of the house written by `author_id` (the fields given); None when there is
    /// no such post by that author.
    async fn update_post(
        &self,
        org_id: &OrgId,
        id: &PostId,
        author_id: &UserId,
        title: Option<&str>,
        body: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Option<PostRow>, StorageError>;
    /// Delete a post of the house written by `author_id`; false when there is no such post.
    async fn delete_post(&self, org_id: &OrgId, id: &PostId, author_id: &UserId) -> Result<bool, StorageError>;
}
