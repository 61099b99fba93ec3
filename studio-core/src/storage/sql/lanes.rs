//! The SQL of lane results ([`LaneStore`](crate::storage::LaneStore)). Each method is one
//! statement, declared in [`q`] (see stmt.rs).

/// The columns of `lane_results` in [`LaneResultRow`](crate::storage::LaneResultRow) order.
macro_rules! lane_result_columns {
    () => {
        "id, org_id, lane, blob_key, mime, bytes, expires_at, created_at"
    };
}

/// The lane results' declared statements.
pub(in crate::storage) mod q {
    use chrono::{DateTime, Utc};

    use crate::ids::{LaneResultId, OrgId};
    use crate::storage::LaneResultRow;
    use crate::storage::sql::stmt::statements;

    statements! {
        /// Record a lane result.
        fn insert_lane_result(
            id: &'q LaneResultId,
            org_id: &'q OrgId,
            lane: &'q str,
            blob_key: &'q str,
            mime: &'q str,
            bytes: i64,
            expires_at: DateTime<Utc>,
            created_at: DateTime<Utc>,
        ) -> exec [house] {
            "INSERT INTO lane_results (", lane_result_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        }

        /// A lane result by id, whatever its house.
        fn lane_result(id: &'q LaneResultId) -> row<LaneResultRow> [any "a result is read by its signed link alone, whose signature is the authority; the caller answers the row with its house to check"] {
            "SELECT ", lane_result_columns!(), " FROM lane_results WHERE id = $1"
        }

        /// Results that expired before `expires_at`, oldest first.
        fn expired_lane_results(expires_at: DateTime<Utc>, limit: i64) -> row<LaneResultRow> [any "the expiry sweep serves every house"] {
            "SELECT ", lane_result_columns!(), " FROM lane_results WHERE expires_at < $1 ORDER BY expires_at LIMIT $2"
        }

        /// Forget a lane result.
        fn delete_lane_result(id: &'q LaneResultId) -> exec [any "the expiry sweep forgets the expired results it read, by id, whatever their house"] {
            "DELETE FROM lane_results WHERE id = $1"
        }
    }
}

macro_rules! impl_lane_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::LaneStore for $ty {
            async fn insert_lane_result(
                &self,
                row: &$crate::storage::LaneResultRow,
            ) -> Result<(), $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                q::lanes::insert_lane_result(
                    &row.id,
                    &row.org_id,
                    &row.lane,
                    &row.blob_key,
                    &row.mime,
                    row.bytes,
                    row.expires_at,
                    row.created_at,
                )
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn lane_result(
                &self,
                id: &LaneResultId,
            ) -> Result<Option<$crate::storage::LaneResultRow>, $crate::storage::StorageError> {
                Ok(q::lanes::lane_result(id).fetch_optional(&self.pool).await?)
            }

            async fn expired_lane_results(
                &self,
                before: chrono::DateTime<chrono::Utc>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::LaneResultRow>, $crate::storage::StorageError> {
                Ok(q::lanes::expired_lane_results(before, limit).fetch_all(&self.pool).await?)
            }

            async fn delete_lane_result(&self, id: &LaneResultId) -> Result<bool, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let done = q::lanes::delete_lane_result(id).execute(&self.pool).await?;
                Ok(done.rows_affected() > 0)
            }
        }
    };
}

pub(in crate::storage) use impl_lane_store;
