//! Models a house keeps (cast_model): the row and the `ModelStore` trait.

use chrono::{DateTime, Utc};

use super::StorageError;

/// A model a house keeps (cast from its own reference frames).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ModelRow {
    /// Id (`mdl_…`).
    pub id: String,
    /// The owning house.
    pub org_id: String,
    /// Who cast it.
    pub created_by: Option<String>,
    /// Name, 1 to 200 characters (a CHECK constraint).
    pub name: String,
    /// The reference frames (asset ids of the house), as a JSON array; the first is cast.
    pub asset_ids: String,
    /// Traits, as a JSON object of strings.
    pub traits: String,
    /// Cast time.
    pub created_at: DateTime<Utc>,
}

/// Models a house keeps.
#[async_trait::async_trait]
pub trait ModelStore: Send + Sync {
    /// Store a newly cast model.
    async fn insert_model(&self, model: ModelRow) -> Result<(), StorageError>;
    /// A house's models, newest first.
    async fn list_models(&self, org_id: &str) -> Result<Vec<ModelRow>, StorageError>;
    /// One model of a house.
    async fn model(&self, org_id: &str, id: &str) -> Result<Option<ModelRow>, StorageError>;
}
