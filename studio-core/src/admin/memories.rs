//! The memory desk (§4.12 "memory observation" and "memory review", docs/analyst.md): an admin
//! records what they saw that bears on a house's memory, which moves its confidence and evidence
//! count; memories whose confidence falls below the review line wait in a queue until an admin
//! keeps or retires them. A retired memory is never again given to the assistant (§2.8); the
//! house still reads it in its history.

use crate::accounts::memory::memory_view;
use crate::api::{
    MemoryObservation, MemoryStatus, ObserveMemoryRequest, ObservedMemory, ReviewDecision, ReviewItem,
    ReviewMemoryRequest, ReviewQueue, ReviewQueueQuery, ReviewedMemory,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::ids::{MemoryId, new_id, now};
use crate::storage::{ObservationRow, ReviewRow};

use super::Admin;
use super::analyst::note_of;

/// Active memories below this confidence wait for review.
pub(crate) const REVIEW_BELOW: f64 = 0.5;
/// How far one observation moves confidence: toward 1 by this share of the distance when it
/// supports the memory, toward 0 by the same share when it does not.
const OBSERVATION_WEIGHT: f64 = 0.25;

/// The confidence after one observation.
fn next_confidence(c: f64, supports: bool) -> f64 {
    let next = if supports { c + (1.0 - c) * OBSERVATION_WEIGHT } else { c * (1.0 - OBSERVATION_WEIGHT) };
    (next.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

fn observation_view(o: &ObservationRow) -> MemoryObservation {
    MemoryObservation {
        id: o.id.clone(),
        memory_id: o.memory_id.to_string(),
        supports: o.supports,
        note: o.note.clone(),
        confidence_before: o.confidence_before,
        confidence_after: o.confidence_after,
        observed_by: o.observed_by.clone(),
        created_at: o.created_at,
    }
}

fn memory_id(id: Option<&str>) -> Result<MemoryId> {
    id.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(MemoryId::from)
        .ok_or_else(|| Error::invalid("MEMORY_REQUIRED", "Give memoryId."))
}

fn not_found() -> Error {
    Error::not_found("MEMORY_NOT_FOUND", "No memory has that id.")
}

fn not_active(status: MemoryStatus) -> Error {
    Error::conflict("MEMORY_NOT_ACTIVE", "That memory was corrected or retired; only active memories move.")
        .with("status", status.as_str())
}

impl Admin<'_> {
    /// `POST /api/toolkit/admin/memory/observations`: 400 `MEMORY_REQUIRED`,
    /// `SUPPORTS_REQUIRED`, `NOTE_REQUIRED`, `NOTE_TOO_LONG`; 404 `MEMORY_NOT_FOUND`; 409
    /// `MEMORY_NOT_ACTIVE`.
    pub async fn observe_memory(&self, admin: &PlatformAdmin, req: ObserveMemoryRequest) -> Result<ObservedMemory> {
        let id = memory_id(req.memory_id.as_deref())?;
        let Some(supports) = req.supports else {
            return Err(Error::invalid("SUPPORTS_REQUIRED", "Say whether what you saw supports the memory."));
        };
        let note = note_of(req.note.as_deref())?;
        if note.is_empty() {
            return Err(Error::invalid("NOTE_REQUIRED", "Say what you saw."));
        }
        let obs = ObservationRow {
            id: new_id("obs"),
            memory_id: id.clone(),
            supports,
            note,
            confidence_before: 0.0,
            confidence_after: 0.0,
            observed_by: admin.user_id().to_string(),
            created_at: now(),
        };
        match self.store.observe_memory(obs, next_confidence).await? {
            Some((memory, obs)) => {
                Ok(ObservedMemory { memory: memory_view(&memory)?, observation: observation_view(&obs) })
            }
            None => match self.store.memory_by_id(&id).await? {
                Some(m) => Err(not_active(m.status)),
                None => Err(not_found()),
            },
        }
    }

    /// `GET /api/toolkit/admin/memory/review`: every house's active memories below the review
    /// line that no review has seen since they last changed, least confident first, paged.
    pub async fn review_queue(&self, _admin: &PlatformAdmin, q: ReviewQueueQuery) -> Result<ReviewQueue> {
        let (limit, cursor) = super::page(q.limit, q.cursor.as_deref(), "mem_")?;
        let after = match cursor {
            Some(c) => match self.store.memory_by_id(&MemoryId::from(&c)).await? {
                Some(m) => Some((m.confidence, c)),
                None => return Err(Error::invalid("BAD_CURSOR", "That cursor is not one we gave.")),
            },
            None => None,
        };
        let rows = self
            .store
            .memories_to_review(REVIEW_BELOW, limit + 1, after.as_ref().map(|(c, id)| (*c, id.as_str())))
            .await?;
        let more = rows.len() as i64 > limit;
        let mut items = Vec::new();
        for m in rows.iter().take(limit as usize) {
            let observations = self.store.observations(&m.id).await?;
            items.push(ReviewItem {
                organization_id: m.org_id.to_string(),
                memory: memory_view(m)?,
                observations: observations.iter().map(observation_view).collect(),
            });
        }
        let next_cursor = if more { items.last().map(|i| i.memory.id.clone()) } else { None };
        Ok(ReviewQueue { items, next_cursor })
    }

    /// `POST /api/toolkit/admin/memory/review`: keep (it leaves the queue until it changes
    /// again) or retire. 400 `MEMORY_REQUIRED`, `DECISION_REQUIRED`; 404; 409 `MEMORY_NOT_ACTIVE`.
    pub async fn review_memory(&self, admin: &PlatformAdmin, req: ReviewMemoryRequest) -> Result<ReviewedMemory> {
        let id = memory_id(req.memory_id.as_deref())?;
        let Some(decision) = req.decision else {
            return Err(Error::invalid("DECISION_REQUIRED", "Give decision: keep or retire."));
        };
        let review = ReviewRow {
            id: new_id("rev"),
            memory_id: id.clone(),
            decision: match decision {
                ReviewDecision::Keep => "keep",
                ReviewDecision::Retire => "retire",
            }
            .to_string(),
            note: note_of(req.note.as_deref())?,
            reviewed_by: admin.user_id().to_string(),
            created_at: now(),
        };
        match self.store.review_memory(&review).await? {
            Some(memory) => {
                Ok(ReviewedMemory { memory: memory_view(&memory)?, decision, reviewed_at: review.created_at })
            }
            None => match self.store.memory_by_id(&id).await? {
                Some(m) => Err(not_active(m.status)),
                None => Err(not_found()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::next_confidence;

    #[test]
    fn observations_move_confidence_toward_what_was_seen_and_stay_in_bounds() {
        assert_eq!(next_confidence(0.6, true), 0.7);
        assert_eq!(next_confidence(0.6, false), 0.45);
        assert_eq!(next_confidence(1.0, true), 1.0);
        assert_eq!(next_confidence(0.0, false), 0.0);
        let mut c = 0.9;
        for _ in 0..3 {
            c = next_confidence(c, false);
        }
        assert!(c < super::REVIEW_BELOW, "three contradictions bring a strong memory to review: {c}");
    }
}
