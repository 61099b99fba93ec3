//! The facade: one `Studio` value holds the storage and configuration and hands out the domain
//! views, each with only the stores its domain owns (the storage itself is private to this file);
//! every domain operation is a method of its view (implemented in the domain folders). The facade
//! also owns the event relay: publishing a house event and relaying the database's shared channel.

use crate::ids::OrgId;
use std::sync::Arc;

use crate::blobs::{BlobConfig, Blobs};
use crate::config::CoreConfig;
use crate::events::{EventBus, HouseEvent};
use crate::storage::{Storage, StorageError, open_storage};
use serde_json::Value;
use std::sync::atomic::Ordering;

/// The Studio domain. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Studio {
    /// Private to this file: a domain reaches only the stores its view was handed.
    storage: Arc<dyn Storage>,
    pub(crate) blobs: Blobs,
    pub(crate) config: Arc<CoreConfig>,
    pub(crate) events: EventBus,
    /// Wakes the pack worker when a pack is queued in this process.
    pub(crate) pack_wakeup: Arc<tokio::sync::Notify>,
    /// Wakes the job runner when a job is queued (here, or on a replica via the relay).
    pub(crate) job_wakeup: Arc<tokio::sync::Notify>,
    /// Wakes the mail worker when a letter is posted in this process.
    pub(crate) mail_wakeup: Arc<tokio::sync::Notify>,
    /// Wakes the webhook workers when an event is queued for delivery (here, or on a replica).
    pub(crate) webhook_wakeup: Arc<tokio::sync::Notify>,
    /// True once [`Studio::start_event_relay`] relays the database's shared channel.
    pub(crate) relaying: Arc<std::sync::atomic::AtomicBool>,
    /// Asset list answers, each with the library version it was read at.
    pub(crate) asset_lists: Arc<crate::library::asset_lists::AssetLists>,
    /// Verified organization keys, each with its house's key epoch.
    pub(crate) keys: Arc<crate::accounts::key_cache::KeyCache>,
    /// Input images and brand profiles develop submits were planned on, confirmed when held.
    pub(crate) submit_cache: Arc<crate::develops::submit_cache::SubmitCache>,
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
            mail_wakeup: Arc::new(tokio::sync::Notify::new()),
            webhook_wakeup: Arc::new(tokio::sync::Notify::new()),
            relaying: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            asset_lists: Arc::default(),
            keys: Arc::default(),
            submit_cache: Arc::default(),
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

impl Studio {
    /// Deliver a house event to every socket: through the storage's shared channel when the
    /// relay runs (every replica, this one included, receives it), else in-process.
    pub(crate) async fn publish(&self, event: HouseEvent) {
        // Into the webhook outbox first: a socket may miss an event, a subscribed endpoint may not.
        self.webhooks().enqueue(&event).await;
        if self.relaying.load(Ordering::Acquire) {
            match self.storage.announce(&OrgId::from(&*event.org_id), event.as_str()).await {
                Ok(true) => return,
                Ok(false) => {}
                Err(e) => tracing::warn!(error = %e, "announcing an event failed; delivering it here only"),
            }
        }
        self.events.publish(event);
    }

    /// Relay the storage's shared event channel (PostgreSQL LISTEN) into this process's bus, and
    /// wake the runner when another replica queues a job. False when the backend has none
    /// (SQLite: one process, events stay in-process). Call once per process.
    pub async fn start_event_relay(&self) -> crate::error::Result<bool> {
        let Some(mut rx) = self.storage.listen().await? else { return Ok(false) };
        let me = self.clone();
        tokio::spawn(async move {
            while let Some((org_id, text)) = rx.recv().await {
                if org_id.is_empty() {
                    me.events.publish(HouseEvent::resync());
                    continue;
                }
                let Ok(message) = serde_json::from_str::<Value>(&text) else { continue };
                if message["type"] == "job" && message["job"]["status"] == "queued" {
                    me.job_wakeup.notify_one();
                }
                me.webhook_wakeup.notify_waiters();
                me.events.publish(HouseEvent::from_text(&org_id, text));
            }
        });
        self.relaying.store(true, Ordering::Release);
        Ok(true)
    }
}

/// Handing out the domain views: every domain's operations are methods of its view, so a call
/// names the domain it reaches (`studio.develops().submit_develop(..)`). A view is made here, the
/// one place that can read the storage, with the stores its domain owns and nothing more
/// (`studio.ai().chat()` and `studio.accounts().invitations()` are made by [`chat`] and
/// [`invitations`] below).
impl Studio {
    /// Sign-up, sessions, keys, profiles, seats, memories and the platform's invitations.
    pub fn accounts(&self) -> crate::accounts::Accounts<'_> {
        crate::accounts::Accounts::new(self, &*self.storage)
    }

    /// The platform admin console.
    pub fn admin(&self) -> crate::admin::Admin<'_> {
        crate::admin::Admin::new(self, &*self.storage)
    }

    /// The AI lanes, reads, vision and text helpers.
    pub fn ai(&self) -> crate::ai::Ai<'_> {
        crate::ai::Ai::new(self, &*self.storage)
    }

    /// The ledger, its holds, checkouts, plans and autocharge.
    pub fn billing(&self) -> crate::billing::Billing<'_> {
        crate::billing::Billing::new(self, &*self.storage)
    }

    /// The house's brand profile, its DNA read and its marks.
    pub fn brand(&self) -> crate::brand::Brand<'_> {
        crate::brand::Brand::new(self, &*self.storage)
    }

    /// Develop submits, the job runner, runs, preflight and verdicts.
    pub fn develops(&self) -> crate::develops::Develops<'_> {
        crate::develops::Develops::new(self, &*self.storage)
    }

    /// The internal machine routes and their admin twins.
    pub fn internal(&self) -> crate::internal::Internal<'_> {
        crate::internal::Internal::new(self, &*self.storage)
    }

    /// Assets, folders, packs, renditions and signed links.
    pub fn library(&self) -> crate::library::Library<'_> {
        crate::library::Library::new(self, &*self.storage)
    }

    /// Looks, templates, the standing preset and the composer's vocabulary.
    pub fn lookbook(&self) -> crate::lookbook::Lookbook<'_> {
        crate::lookbook::Lookbook::new(self, &*self.storage)
    }

    /// Mail: the delivery worker, the admin's archive, the delivery webhook and the drip.
    pub fn mail(&self) -> crate::mail::Mail<'_> {
        crate::mail::Mail::new(self, &*self.storage)
    }

    /// Kept models and the casting market.
    pub fn models(&self) -> crate::models::Models<'_> {
        crate::models::Models::new(self, &*self.storage)
    }

    /// Pipeline plans, presets and runs.
    pub fn pipelines(&self) -> crate::pipelines::Pipelines<'_> {
        crate::pipelines::Pipelines::new(self, &*self.storage)
    }

    /// The house's posts.
    pub fn posts(&self) -> crate::posts::Posts<'_> {
        crate::posts::Posts::new(self, &*self.storage)
    }

    /// House-wide search.
    pub fn search(&self) -> crate::search::Search<'_> {
        crate::search::Search::new(self, &*self.storage)
    }

    /// Tickets, threads, screenshots, escalations and the admin support queue.
    pub fn support(&self) -> crate::support::Support<'_> {
        crate::support::Support::new(self, &*self.storage)
    }

    /// The webhook endpoints' view.
    pub fn webhooks(&self) -> crate::webhooks::Webhooks<'_> {
        crate::webhooks::Webhooks::new(self, &*self.storage)
    }
}

/// The assistant's view, handed out by `studio.ai().chat()`.
pub(crate) fn chat(studio: &Studio) -> crate::chat::Chat<'_> {
    crate::chat::Chat::new(studio, &*studio.storage)
}

/// The platform gate's view, handed out by `studio.accounts().invitations()`.
pub(crate) fn invitations(studio: &Studio) -> crate::invitations::Invitations<'_> {
    crate::invitations::Invitations::new(studio, &*studio.storage)
}

/// Declares a domain's view: the [`Studio`] it was handed out by (configuration, blobs, events,
/// the other domains' views) and `store`, the stores its domain owns. `store` is private to the
/// domain's module, and [`Studio`]'s storage to this file, so a domain that wants another's rows
/// has to call that domain's view: the type says what a domain may touch.
macro_rules! view {
    ($(#[$attr:meta])* $name:ident over $store:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            /// The Studio this view was handed out by (a domain that needs nothing beside its
            /// stores, as posts, leaves it unread).
            #[allow(dead_code)]
            pub(crate) studio: &'a crate::studio::Studio,
            /// The stores this domain owns.
            store: &'a dyn crate::storage::$store,
        }

        impl<'a> $name<'a> {
            /// The view over `studio` with its domain's stores (made in `studio.rs`).
            pub(crate) fn new(studio: &'a crate::studio::Studio, store: &'a dyn crate::storage::$store) -> Self {
                $name { studio, store }
            }
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use view;
