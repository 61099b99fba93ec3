//! Memories (§2.8, §4.8): what the studio knows about a house and about each person in it.
//!
//! History is append-only: a correction writes a successor and marks its predecessor
//! `corrected`; retiring marks a memory `retired`. Both stay readable, and only `active`
//! memories are ever given to the assistant ([`Studio::active_memories`]). A person sees the
//! house's memories plus only their own personal ones; viewers read but never write.
//! Personal memories are a person's, so an organization key (which belongs to the house) reads
//! and writes house memories only.

use crate::accounts::Accounts;
use crate::api::{Memory, MemoryList, MemoryRequest, MemoryScope, MemoryStatus};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::ids::now;
use crate::ids::{MemoryId, UserId};
use crate::storage::{MemoryRow, MemoryWrite};

/// The longest statement kept, in characters.
pub const MAX_STATEMENT_CHARS: usize = 2000;

/// A stored word read back as its wire enum (a stored value the enum lacks is a fault of ours).
pub(crate) fn enum_of<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(Error::internal)
}

/// A wire enum as the word it is stored as.
pub(crate) fn wire<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Whose personal memories the caller sees: the person of a session; nobody's for a key (no
/// user id matches the empty string).
pub(crate) fn person_of(caller: &Caller) -> UserId {
    if caller.is_session() { caller.user_id.clone() } else { UserId::default() }
}

pub(crate) fn memory_view(m: &MemoryRow) -> Result<Memory> {
    Ok(Memory {
        id: m.id.clone().into(),
        scope: enum_of(&m.scope)?,
        memory_class: enum_of(&m.memory_class)?,
        kind: m.kind.clone(),
        statement: m.statement.clone(),
        confidence: m.confidence,
        status: m.status,
        evidence_count: m.evidence_count,
        supersedes_id: m.supersedes_id.clone().map(String::from),
        projected: m.projected && m.status == MemoryStatus::Active,
        created_at: m.created_at,
        updated_at: m.updated_at,
    })
}

impl Accounts<'_> {
    /// The house's memories and the caller's own personal ones, newest first, history included.
    pub async fn memories(&self, caller: &Caller) -> Result<MemoryList> {
        let rows = self.store.memories(&caller.org_id, &person_of(caller)).await?;
        Ok(MemoryList { memories: rows.iter().map(memory_view).collect::<Result<_>>()? })
    }

    /// Only the active memories the caller may see: what the assistant's context is built from.
    pub async fn active_memories(&self, caller: &Caller) -> Result<Vec<Memory>> {
        let rows = self.store.memories(&caller.org_id, &person_of(caller)).await?;
        rows.iter().filter(|m| m.status == MemoryStatus::Active).map(memory_view).collect()
    }

    /// Write a memory, or correct one (`replacesMemoryId`). The bool is true for a correction.
    pub async fn remember(&self, caller: &Caller, req: MemoryRequest) -> Result<(Memory, bool)> {
        if caller.role == crate::api::SeatRole::Viewer {
            return Err(Error::forbidden("FORBIDDEN", "A viewer reads memories but does not write them."));
        }
        if req.scope == MemoryScope::Person && !caller.is_session() {
            return Err(Error::forbidden(
                "SESSION_REQUIRED",
                "Personal memories are a person's: sign in to write one; a key writes house memories.",
            ));
        }
        let statement = req.statement.trim().to_string();
        let chars = statement.chars().count();
        if chars == 0 || chars > MAX_STATEMENT_CHARS {
            return Err(Error::invalid(
                "BAD_STATEMENT",
                format!("A memory is a statement of 1 to {MAX_STATEMENT_CHARS} characters."),
            ));
        }
        let confidence = req.confidence.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&confidence) {
            return Err(Error::invalid("BAD_CONFIDENCE", "Confidence is a number from 0 to 1."));
        }
        let kind =
            req.kind.map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).unwrap_or_else(|| "statement".into());
        if kind.chars().count() > 64 {
            return Err(Error::invalid("BAD_KIND", "A memory's kind is at most 64 characters."));
        }
        let replaces = req.replaces_memory_id.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let at = now();
        let row = MemoryRow {
            id: MemoryId::generate(),
            org_id: caller.org_id.clone(),
            scope: wire(&req.scope),
            user_id: (req.scope == MemoryScope::Person).then(|| caller.user_id.clone()),
            memory_class: wire(&req.memory_class),
            kind,
            statement,
            confidence,
            status: MemoryStatus::Active,
            evidence_count: 1,
            supersedes_id: replaces.map(MemoryId::from),
            projected: true,
            created_by: caller.user_id.clone(),
            created_at: at,
            updated_at: at,
        };
        match self.store.write_memory(row.clone(), replaces).await? {
            MemoryWrite::Stored => Ok((memory_view(&row)?, replaces.is_some())),
            MemoryWrite::PredecessorNotActive => Err(Error::not_found(
                "MEMORY_NOT_FOUND",
                "The memory to correct is not an active memory of that scope.",
            )),
        }
    }

    /// Retire a memory (history kept).
    pub async fn retire_memory(&self, caller: &Caller, id: &MemoryId) -> Result<Memory> {
        if caller.role == crate::api::SeatRole::Viewer {
            return Err(Error::forbidden("FORBIDDEN", "A viewer reads memories but does not retire them."));
        }
        let row = self
            .store
            .retire_memory(&caller.org_id, &person_of(caller), id, now())
            .await?
            .ok_or_else(|| Error::not_found("MEMORY_NOT_FOUND", "No active memory you can see has that id."))?;
        memory_view(&row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::MemoryClass;

    #[test]
    fn wire_names_round_trip() {
        for class in [MemoryClass::Fact, MemoryClass::OutcomePattern, MemoryClass::ImageReading] {
            let name = wire(&class);
            assert!(!name.is_empty());
            assert_eq!(enum_of::<MemoryClass>(&name).ok(), Some(class));
        }
        assert_eq!(wire(&MemoryClass::OutcomePattern), "outcome_pattern");
    }
}
