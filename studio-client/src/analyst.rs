//! The analyst and the memory desk through the client (admin sessions only; docs/analyst.md):
//! the latest digest, the cadence, a run, reflection findings and their decisions, memory
//! observations and the review queue.

use studio_core::api::{
    AnalystCadence, AnalystRun, AnalystView, CadenceRequest, DecideFindingRequest, FindingsQuery, ObserveMemoryRequest,
    ObservedMemory, ReflectionFinding, ReflectionFindingList, ReviewMemoryRequest, ReviewQueue, ReviewQueueQuery,
    ReviewedMemory,
};

use crate::client::{Client, encode};
use crate::error::Error;

/// `?limit=&cursor=` plus `extra`, or nothing.
fn page_query(limit: Option<i64>, cursor: Option<&str>, mut extra: Vec<String>) -> String {
    if let Some(limit) = limit {
        extra.push(format!("limit={limit}"));
    }
    if let Some(cursor) = cursor {
        extra.push(format!("cursor={}", encode(cursor)));
    }
    if extra.is_empty() { String::new() } else { format!("?{}", extra.join("&")) }
}

impl Client {
    /// `GET /api/toolkit/admin/analyst`: the latest digest and `history` earlier ones.
    pub async fn analyst(&self, history: Option<u32>) -> Result<AnalystView, Error> {
        let query = history.map(|n| format!("?history={n}")).unwrap_or_default();
        self.get(&format!("/api/toolkit/admin/analyst{query}")).await
    }

    /// `PATCH /api/toolkit/admin/analyst/cadence`. 400 `HOURS_REQUIRED`, `BAD_HOURS`.
    pub async fn set_analyst_cadence(&self, req: &CadenceRequest) -> Result<AnalystCadence, Error> {
        self.patch("/api/toolkit/admin/analyst/cadence", req).await
    }

    /// `POST /api/toolkit/admin/analyst/run`: the digest inside the window, or a new one.
    pub async fn run_analyst(&self) -> Result<AnalystRun, Error> {
        self.post("/api/toolkit/admin/analyst/run", &serde_json::json!({})).await
    }

    /// `GET /api/toolkit/admin/reflection/findings`, newest first.
    pub async fn findings(&self, q: &FindingsQuery) -> Result<ReflectionFindingList, Error> {
        let status = q.status.and_then(|s| serde_json::to_value(s).ok()).and_then(|v| v.as_str().map(str::to_string));
        let extra = status.map(|s| vec![format!("status={s}")]).unwrap_or_default();
        self.get(&format!("/api/toolkit/admin/reflection/findings{}", page_query(q.limit, q.cursor.as_deref(), extra)))
            .await
    }

    /// `POST /api/toolkit/admin/reflection/findings/{id}/decision`. 409 `FINDING_DECIDED`.
    pub async fn decide_finding(&self, id: &str, req: &DecideFindingRequest) -> Result<ReflectionFinding, Error> {
        self.post(&format!("/api/toolkit/admin/reflection/findings/{}/decision", encode(id)), req).await
    }

    /// `POST /api/toolkit/admin/memory/observations` (201).
    pub async fn observe_memory(&self, req: &ObserveMemoryRequest) -> Result<ObservedMemory, Error> {
        self.post("/api/toolkit/admin/memory/observations", req).await
    }

    /// `GET /api/toolkit/admin/memory/review`: doubtful memories, least confident first.
    pub async fn memory_review_queue(&self, q: &ReviewQueueQuery) -> Result<ReviewQueue, Error> {
        self.get(&format!("/api/toolkit/admin/memory/review{}", page_query(q.limit, q.cursor.as_deref(), vec![]))).await
    }

    /// `POST /api/toolkit/admin/memory/review`: keep or retire. 409 `MEMORY_NOT_ACTIVE`.
    pub async fn review_memory(&self, req: &ReviewMemoryRequest) -> Result<ReviewedMemory, Error> {
        self.post("/api/toolkit/admin/memory/review", req).await
    }
}
