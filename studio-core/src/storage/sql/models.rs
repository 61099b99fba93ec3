//! The SQL of kept models ([`ModelStore`](crate::storage::ModelStore)).

macro_rules! impl_model_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::ModelStore for $ty {
            async fn insert_model(&self, m: ModelRow) -> Result<(), StorageError> {
                let _w = self.write_lock().await;
                sqlx::query(concat!("INSERT INTO models (", model_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6, $7)"))
                    .bind(&m.id)
                    .bind(&m.org_id)
                    .bind(&m.created_by)
                    .bind(&m.name)
                    .bind(&m.asset_ids)
                    .bind(&m.traits)
                    .bind(m.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn list_models(&self, org_id: &str) -> Result<Vec<ModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!(
                    "SELECT ",
                    model_columns!(),
                    " FROM models WHERE org_id = $1 ORDER BY created_at DESC, id DESC"
                ))
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn model(&self, org_id: &str, id: &str) -> Result<Option<ModelRow>, StorageError> {
                Ok(sqlx::query_as(concat!("SELECT ", model_columns!(), " FROM models WHERE id = $1 AND org_id = $2"))
                    .bind(id)
                    .bind(org_id)
                    .fetch_optional(&self.pool)
                    .await?)
            }
        }
    };
}

pub(in crate::storage) use impl_model_store;
