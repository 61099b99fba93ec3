//! The facade: one `Studio` value holds the storage and configuration, and every domain
//! operation is a method on it (implemented in the domain modules).

use std::sync::Arc;

use crate::config::CoreConfig;
use crate::storage::{Storage, StorageError, open_storage};

/// The Studio domain. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Studio {
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) config: Arc<CoreConfig>,
}

impl std::fmt::Debug for Studio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Studio").field("backend", &self.storage.backend()).finish_non_exhaustive()
    }
}

impl Studio {
    /// A Studio over an already opened storage.
    pub fn new(storage: Arc<dyn Storage>, config: CoreConfig) -> Self {
        Studio { storage, config: Arc::new(config) }
    }

    /// Open the storage a database URL names (migrating it) and build a Studio over it.
    pub async fn open(database_url: &str, config: CoreConfig) -> Result<Self, StorageError> {
        Ok(Self::new(open_storage(database_url).await?, config))
    }

    /// The storage (for embedding servers that add their own background work).
    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.storage
    }

    /// The configuration this Studio runs with.
    pub fn config(&self) -> &CoreConfig {
        &self.config
    }
}
