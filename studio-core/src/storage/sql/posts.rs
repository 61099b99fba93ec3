//! The SQL of posts ([`PostStore`](crate::storage::PostStore)). Each method is one statement;
//! a change or a delete names the author in its `WHERE`, so only the author's own row moves.

/// The columns of `posts` in [`PostRow`](crate::storage::PostRow) order.
macro_rules! post_columns {
    () => {
        "id, org_id, author_id, title, body, created_at, updated_at"
    };
}

pub(in crate::storage) use post_columns;

macro_rules! impl_post_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::PostStore for $ty {
            async fn insert_post(&self, row: &$crate::storage::PostRow) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO posts (",
                    $crate::storage::sql::posts::post_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7)"
                ))
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.author_id)
                .bind(&row.title)
                .bind(&row.body)
                .bind(row.created_at)
                .bind(row.updated_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn post(
                &self,
                org_id: &OrgId,
                id: &PostId,
            ) -> Result<Option<$crate::storage::PostRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::posts::post_columns!(),
                    " FROM posts WHERE org_id = $1 AND id = $2"
                ))
                .bind(org_id)
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
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
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::posts::post_columns!(),
                    " FROM posts WHERE org_id = $1 AND ($2 IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3)) \
                     ORDER BY created_at DESC, id DESC LIMIT $4"
                ))
                .bind(org_id)
                .bind(at)
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
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
                Ok(sqlx::query_as(concat!(
                    "UPDATE posts SET title = COALESCE($4, title), body = COALESCE($5, body), updated_at = $6 \
                     WHERE org_id = $1 AND id = $2 AND author_id = $3 RETURNING ",
                    $crate::storage::sql::posts::post_columns!()
                ))
                .bind(org_id)
                .bind(id)
                .bind(author_id)
                .bind(title)
                .bind(body)
                .bind(now)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn delete_post(
                &self,
                org_id: &OrgId,
                id: &PostId,
                author_id: &UserId,
            ) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM posts WHERE org_id = $1 AND id = $2 AND author_id = $3")
                    .bind(org_id)
                    .bind(id)
                    .bind(author_id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }
        }
    };
}

pub(in crate::storage) use impl_post_store;
