//! The house event bus: every change a house's open sockets should see (job state changes,
//! `pack.ready`). In-process broadcast; each subscriber filters by house. When the storage has a
//! shared channel (PostgreSQL LISTEN/NOTIFY), events travel through it, so the sockets on every
//! replica see every change, whichever replica made it.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use tokio::sync::broadcast;

/// The `org_id` of an event for every house: events may have been lost (the shared channel
/// reconnected), so every socket should close and let its client backfill.
pub const RESYNC: &str = "*";

/// One event for one house (or [`RESYNC`] for all), serialized once: every subscriber gets
/// the same shared text (a clone is two reference counts), never a copy of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct HouseEvent {
    /// The house it belongs to.
    pub org_id: Arc<str>,
    /// The socket message as JSON text, e.g. `{"type": "pack.ready", "pack": {...}}`.
    text: Bytes,
}

impl HouseEvent {
    /// The event `message` for house `org_id`.
    pub fn new(org_id: &str, message: &Value) -> Self {
        HouseEvent::from_text(org_id, message.to_string())
    }

    /// An event whose message is already JSON text.
    pub fn from_text(org_id: &str, text: String) -> Self {
        HouseEvent { org_id: org_id.into(), text: Bytes::from(text) }
    }

    /// The event that tells every socket to close and let its client backfill.
    pub fn resync() -> Self {
        HouseEvent::from_text(RESYNC, "null".to_string())
    }

    /// The message's JSON text, shared (UTF-8).
    pub fn text(&self) -> Bytes {
        self.text.clone()
    }

    /// The message as JSON text.
    pub fn as_str(&self) -> &str {
        // Built only from a `String` (see `from_text`), so always UTF-8.
        std::str::from_utf8(&self.text).unwrap_or_default()
    }

    /// The message, parsed.
    pub fn message(&self) -> Value {
        serde_json::from_slice(&self.text).unwrap_or(Value::Null)
    }
}

/// A broadcast channel of house events.
#[derive(Debug, Clone)]
pub struct EventBus {
    tx: broadcast::Sender<HouseEvent>,
}

impl Default for EventBus {
    fn default() -> Self {
        EventBus { tx: broadcast::channel(1024).0 }
    }
}

impl EventBus {
    /// Send to every subscriber; no subscriber is fine.
    pub fn publish(&self, event: HouseEvent) {
        let _ = self.tx.send(event);
    }

    /// A receiver of every event from now on (filter on `org_id`).
    pub fn subscribe(&self) -> broadcast::Receiver<HouseEvent> {
        self.tx.subscribe()
    }

    /// How many receivers are listening now (one per open socket in the server).
    pub fn subscribers(&self) -> usize {
        self.tx.receiver_count()
    }
}
