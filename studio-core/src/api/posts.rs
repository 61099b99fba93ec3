//! Posts on the wire (`02-route-groups.md` §4.14): a house's notes board: any member's short
//! posts, newest first, each changed or removed only by its author. Designed in docs/posts.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest title, in characters.
pub const MAX_POST_TITLE: usize = 200;
/// Longest body, in characters.
pub const MAX_POST_BODY: usize = 20_000;
/// Posts one page lists when `limit` is not given, and the most it lists.
pub const DEFAULT_POSTS_PAGE: u32 = 50;
/// The most posts one page lists.
pub const MAX_POSTS_PAGE: u32 = 100;

/// A post (§4.14).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    /// Id (`post_…`).
    pub id: String,
    /// Title, 1 to 200 characters.
    pub title: String,
    /// Body, 1 to 20,000 characters.
    pub body: String,
    /// The person who wrote it (the only one who may change or delete it).
    pub author_id: String,
    /// When it was written.
    pub created_at: DateTime<Utc>,
    /// When it last changed (equal to `createdAt` until then).
    pub updated_at: DateTime<Utc>,
}

/// `POST /posts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NewPost {
    /// Required, at most 200 characters (trimmed).
    #[serde(default)]
    pub title: String,
    /// Required, at most 20,000 characters (trimmed).
    #[serde(default)]
    pub body: String,
}

/// `PATCH /posts/{id}`: each field given replaces the stored one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PostPatch {
    /// A new title (not blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A new body (not blank).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// `GET /posts`: one page, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PostsQuery {
    /// 1 to 100 (default 50).
    pub limit: Option<u32>,
    /// A post id: list only the posts written before it (the last id of the previous page).
    pub before: Option<String>,
}
