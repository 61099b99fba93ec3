//! The facade: one `Studio` value holds the storage and configuration, and every domain
//! operation is a method on it (implemented in the domain modules).

use std::sync::Arc;

use crate::blobs::{BlobConfig, Blobs};
use crate::config::CoreConfig;
use crate::events::EventBus;
use crate::storage::{Storage, StorageError, open_storage};

/// The Studio domain. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Studio {
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) blobs: Blobs,
    pub(crate) config: Arc<CoreConfig>,
    pub(crate) events: EventBus,
    /// Wakes the pack worker when a pack is queued in this process.
    pub(crate) pack_wakeup: Arc<tokio::sync::Notify>,
    /// Wakes the job runner when a job is queued (here, or on a replica via the relay).
    pub(crate) job_wakeup: Arc<tokio::sync::Notify>,
    /// True once [`Studio::start_event_relay`] relays the database's shared channel.
    pub(crate) relaying: Arc<std::sync::atomic::AtomicBool>,
    /// Asset list answers, each with the library version it was read at.
    pub(crate) asset_lists: Arc<crate::asset_lists::AssetLists>,
}

/// Opening a Studio failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The database.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The blob store.
    #[error(transparent)]
    Blobs(#[from] crate::blobs::BlobError),
}

impl std::fmt::Debug for Studio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Studio").field("backend", &self.storage.backend()).finish_non_exhaustive()
    }
}

impl Studio {
    /// A Studio over an already opened storage and blob store.
    pub fn new(storage: Arc<dyn Storage>, blobs: Blobs, config: CoreConfig) -> Self {
        Studio {
            storage,
            blobs,
            config: Arc::new(config),
            events: EventBus::default(),
            pack_wakeup: Arc::new(tokio::sync::Notify::new()),
            job_wakeup: Arc::new(tokio::sync::Notify::new()),
            relaying: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            asset_lists: Arc::default(),
        }
    }

    /// Open the storage a database URL names (migrating it) and the blob store, and build a
    /// Studio over them.
    pub async fn open(database_url: &str, blobs: &BlobConfig, config: CoreConfig) -> Result<Self, OpenError> {
        let blobs = Blobs::open(blobs)?;
        Ok(Self::new(open_storage(database_url).await?, blobs, config))
    }

    /// Liveness: a round trip to the database; answers the backend's name.
    pub async fn health(&self) -> crate::error::Result<&'static str> {
        self.storage.ping().await?;
        Ok(self.storage.backend())
    }

    /// True while nobody has signed up yet (the first-run hint).
    pub async fn is_empty(&self) -> crate::error::Result<bool> {
        Ok(self.storage.user_count().await? == 0)
    }

    /// The house event bus (job changes, `pack.ready`).
    pub fn events(&self) -> &EventBus {
        &self.events
    }

    /// The blob store.
    pub fn blobs(&self) -> &Blobs {
        &self.blobs
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
