//! The house event bus: every change a house's open sockets should see (job state changes,
//! `pack.ready`). In-process broadcast; each subscriber filters by house. A replica only sees
//! its own events for now; PostgreSQL LISTEN/NOTIFY fan-out arrives with the job socket.

use serde_json::Value;
use tokio::sync::broadcast;

/// One event for one house.
#[derive(Debug, Clone, PartialEq)]
pub struct HouseEvent {
    /// The house it belongs to.
    pub org_id: String,
    /// The socket message, e.g. `{"type": "pack.ready", "pack": {...}}`.
    pub message: Value,
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
}
