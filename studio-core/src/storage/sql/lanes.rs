//! The SQL of lane results ([`LaneStore`](crate::storage::LaneStore)). Each method is one
//! statement.

/// The columns of `lane_results` in [`LaneResultRow`](crate::storage::LaneResultRow) order.
macro_rules! lane_result_columns {
    () => {
        "id, org_id, lane, blob_key, mime, bytes, expires_at, created_at"
    };
}

pub(in crate::storage) use lane_result_columns;

macro_rules! impl_lane_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LaneStore for $ty {
            async fn insert_lane_result(
                &self,
                row: &$crate::storage::LaneResultRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!(
                    "INSERT INTO lane_results (",
                    $crate::storage::sql::lanes::lane_result_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                ))
                .bind(&row.id)
                .bind(&row.org_id)
                .bind(&row.lane)
                .bind(&row.blob_key)
                .bind(&row.mime)
                .bind(row.bytes)
                .bind(row.expires_at)
                .bind(row.created_at)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn lane_result(
                &self,
                id: &LaneResultId,
            ) -> Result<Option<$crate::storage::LaneResultRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::lanes::lane_result_columns!(),
                    " FROM lane_results WHERE id = $1"
                ))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn expired_lane_results(
                &self,
                before: chrono::DateTime<chrono::Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::LaneResultRow>, $crate::storage::StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    $crate::storage::sql::lanes::lane_result_columns!(),
                    " FROM lane_results WHERE expires_at < $1 ORDER BY expires_at LIMIT $2"
                ))
                .bind(before)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn delete_lane_result(&self, id: &LaneResultId) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = sqlx::query("DELETE FROM lane_results WHERE id = $1").bind(id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }
        }
    };
}

pub(in crate::storage) use impl_lane_store;
