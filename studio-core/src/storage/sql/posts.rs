//! The SQL of posts ([`PostStore`](crate::storage::PostStore)). Each method is one statement,
//! declared in [`q`] (see stmt.rs); a change or a delete names the author in its `WHERE`, so only
//! the author's own row moves.

/// The columns of `posts` in [`PostRow`](crate::storage::PostRow) order.
macro_rules! post_columns {
    () => {
        "id, org_id, author_id, title, body, created_at, updated_at"
    };
}

/// The posts' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{OrgId, PostId, UserId};
    use crate::storage::PostRow;
    use crate::storage::sql::stmt::statements;

    statements! {
        /// Store a post.
        fn insert_post(
            id: &'q PostId,
            org_id: &'q OrgId,
            author_id: &'q UserId,
            title: &'q str,
            body: &'q str,
            created_at: DateTime<Utc>,
            updated_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO posts (", post_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7)"
        }

        /// A post of a house.
        fn post(org_id: &'q OrgId, id: &'q PostId) -> row<PostRow> [house] {
            "SELECT ", post_columns!(), " FROM posts WHERE org_id = $1 AND id = $2"
        }

        /// One page of a house's posts, newest first, after the cursor (`created_at`, `id`)
        /// when one is given.
        fn posts(org_id: &'q OrgId, created_at: Option<DateTime<Utc>>, id: Option<&'q str>, limit: i64) -> row<PostRow> [house] {
            "SELECT ", post_columns!(), " FROM posts WHERE org_id = $1 \
             AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
             ORDER BY created_at DESC, id DESC LIMIT $4"
        }

        /// Change the author's own post of a house (a field left `None` keeps its value); the
        /// post as changed.
        fn update_post(
            title: Option<&'q str>,
            body: Option<&'q str>,
            updated_at: DateTime<Utc>,
            org_id: &'q OrgId,
            id: &'q PostId,
            author_id: &'q UserId,
        ) -> row<PostRow> [house] {
            "UPDATE posts SET title = COALESCE($1, title), body = COALESCE($2, body), updated_at = $3 \
             WHERE org_id = $4 AND id = $5 AND author_id = $6 RETURNING ", post_columns!()
        }

        /// Delete the author's own post of a house.
        fn delete_post(org_id: &'q OrgId, id: &'q PostId, author_id: &'q UserId) -> exec [house] {
            "DELETE FROM posts WHERE org_id = $1 AND id = $2 AND author_id = $3"
        }
    }
}

macro_rules! impl_post_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::PostStore for $ty {
            async fn insert_post(&self, row: &$crate::storage::PostRow) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::posts::insert_post(
                    &row.id,
                    &row.org_id,
                    &row.author_id,
                    &row.title,
                    &row.body,
                    row.created_at,
                    row.updated_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn post(
                &self,
                org_id: &OrgId,
                id: &PostId,
            ) -> Result<Option<$crate::storage::PostRow>, $crate::storage::StorageError> {
                Ok(q::posts::post(org_id, id).fetch_optional(&self.pool).await?)
            }

            async fn posts(
                &self,
                org_id: &OrgId,
                limit: i64,
                before: Option<(chrono::DateTime<chrono::Utc>, &str)>,
            ) -> Result<Vec<$crate::storage::PostRow>, $crate::storage::StorageError> {
                let (at, id) = match before {
                    Some((at, id)) => (Some(at), Some(id)),
                    None => (None, None),
                };
                Ok(q::posts::posts(org_id, at, id, limit).fetch_all(&self.pool).await?)
            }

            async fn update_post(
                &self,
                org_id: &OrgId,
                id: &PostId,
                author_id: &UserId,
                title: Option<&str>,
                body: Option<&str>,
                now: chrono::DateTime<chrono::Utc>,
            ) -> Result<Option<$crate::storage::PostRow>, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                Ok(q::posts::update_post(title, body, now, org_id, id, author_id).fetch_optional(&self.pool).await?)
            }

            async fn delete_post(
                &self,
                org_id: &OrgId,
                id: &PostId,
                author_id: &UserId,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::posts::delete_post(org_id, id, author_id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }
        }
    };
}

pub(in crate::storage) use impl_post_store;
