//! The AI reader's outcomes: every call the service makes to the reader is recorded (purpose,
//! outcome, time taken) by [`Studio::record_reader_call`], and the analyst's `chat-quality`
//! reads them back. There is no chat yet; the reader is the service's only conversational model.

use crate::ids::OrgId;
use std::collections::BTreeMap;

use crate::api::{AnalystQuery, ChatQuality, DEFAULT_WINDOW_HOURS, ReaderCalls, ReaderPurpose};
use crate::caller::{Machine, MachineKind};
use crate::error::Result;
use crate::storage::AiCallRow;

use super::{Internal, require, window};

/// How a reader call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReaderOutcome {
    /// A usable answer.
    Answered,
    /// An answer, but not what was asked (no JSON, the wrong shape).
    Unusable,
    /// The reader refused (4xx).
    Rejected,
    /// The reader could not answer (timeout, 5xx, 429, no connection).
    Unavailable,
}

impl ReaderOutcome {
    fn as_str(self) -> &'static str {
        match self {
            ReaderOutcome::Answered => "answered",
            ReaderOutcome::Unusable => "unusable",
            ReaderOutcome::Rejected => "rejected",
            ReaderOutcome::Unavailable => "unavailable",
        }
    }

    /// The outcome of a reader error.
    pub(crate) fn of(e: &crate::providers::ai::AiError) -> Self {
        use crate::providers::ai::AiError;
        match e {
            AiError::Unavailable(_) => ReaderOutcome::Unavailable,
            AiError::Rejected(_) => ReaderOutcome::Rejected,
            AiError::Malformed(_) => ReaderOutcome::Unusable,
        }
    }
}

impl Internal<'_> {
    /// Record one reader call. A failure to record is logged, never passed on: the call's own
    /// answer matters more than its statistics.
    pub(crate) async fn record_reader_call(
        &self,
        org_id: Option<&OrgId>,
        purpose: &str,
        outcome: ReaderOutcome,
        started: std::time::Instant,
    ) {
        let row = AiCallRow {
            id: crate::ids::new_id("aic"),
            org_id: org_id.cloned(),
            purpose: purpose.to_string(),
            outcome: outcome.as_str().to_string(),
            millis: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            created_at: crate::ids::now(),
        };
        if let Err(e) = self.store.record_ai_call(&row).await {
            tracing::warn!(error = %e, "could not record an AI reader call");
        }
    }
}

fn tally(rows: &[(&str, i64)]) -> ReaderCalls {
    let n = |o: &str| rows.iter().filter(|(x, _)| *x == o).count() as i64;
    let mut millis: Vec<i64> = rows.iter().map(|(_, m)| *m).collect();
    millis.sort_unstable();
    ReaderCalls {
        calls: rows.len() as i64,
        answered: n("answered"),
        unusable: n("unusable"),
        rejected: n("rejected"),
        unavailable: n("unavailable"),
        median_millis: millis.get(millis.len() / 2).copied().unwrap_or(0),
    }
}

impl Internal<'_> {
    /// `chat-quality`: the reader's recorded outcomes in the window, in all and by purpose.
    pub async fn chat_quality(&self, machine: &Machine, q: AnalystQuery) -> Result<ChatQuality> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.ai_calls_since(w.since).await?;
        let all: Vec<(&str, i64)> = rows.iter().map(|r| (r.detail.as_str(), r.amount)).collect();
        let mut purposes: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
        for r in &rows {
            purposes.entry(r.key.as_str()).or_default().push((r.detail.as_str(), r.amount));
        }
        Ok(ChatQuality {
            window: w,
            totals: tally(&all),
            by_purpose: purposes
                .into_iter()
                .map(|(p, calls)| ReaderPurpose { purpose: p.to_string(), calls: tally(&calls) })
                .collect(),
        })
    }
}
