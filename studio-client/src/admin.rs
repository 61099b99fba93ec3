//! The admin console's reads and the develop action through the client (§4.12; an allowlisted
//! admin's session, 403 `FORBIDDEN` otherwise): overview, AI costs, develops and their
//! retry/cancel, failures, frames and a frame's bytes, the judge's verdicts and rollup, kept
//! cost, payments and tokenomics.

use serde::Serialize;
use studio_core::api::{
    AdminDevelopPage, AdminDevelopsQuery, AdminFramePage, AiCosts, DevelopActionRequest, DevelopActionResult,
    FailurePage, FailuresQuery, FramesQuery, JudgeRollup, KeptCost, Overview, PaymentPage, PaymentsQuery, RollupQuery,
    SinceQuery, StoredVerdict, Tokenomics, TokenomicsQuery, VerdictPage, VerdictsQuery,
};

use crate::client::{Client, encode};
use crate::error::Error;

/// `path?k=v&…` from a query type's fields that are set.
fn with_query<Q: Serialize>(path: &str, query: &Q) -> String {
    let mut params = Vec::new();
    if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(query) {
        for (k, v) in map {
            let v = match v {
                serde_json::Value::Null => continue,
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            params.push(format!("{}={}", encode(&k), encode(&v)));
        }
    }
    if params.is_empty() { path.to_string() } else { format!("{path}?{}", params.join("&")) }
}

impl Client {
    /// `GET /api/toolkit/admin/overview`.
    pub async fn admin_overview(&self) -> Result<Overview, Error> {
        self.get("/api/toolkit/admin/overview").await
    }

    /// `GET /api/toolkit/admin/ai-costs`. 400 `BAD_SINCE`.
    pub async fn admin_ai_costs(&self, query: &SinceQuery) -> Result<AiCosts, Error> {
        self.get(&with_query("/api/toolkit/admin/ai-costs", query)).await
    }

    /// `GET /api/toolkit/admin/develops`. 400 `BAD_STATUS`, `BAD_SINCE`, `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn admin_develops(&self, query: &AdminDevelopsQuery) -> Result<AdminDevelopPage, Error> {
        self.get(&with_query("/api/toolkit/admin/develops", query)).await
    }

    /// `POST /api/toolkit/admin/develops/action`. 402; 404 `NOT_FOUND`; 409
    /// `JOB_NOT_CANCELLABLE`, `JOB_NOT_RETRYABLE`.
    pub async fn admin_develop_action(&self, req: &DevelopActionRequest) -> Result<DevelopActionResult, Error> {
        self.post("/api/toolkit/admin/develops/action", req).await
    }

    /// `GET /api/toolkit/admin/failures`.
    pub async fn admin_failures(&self, query: &FailuresQuery) -> Result<FailurePage, Error> {
        self.get(&with_query("/api/toolkit/admin/failures", query)).await
    }

    /// `GET /api/toolkit/admin/frames`. 400 `BAD_ORIGIN`, `BAD_AGE`.
    pub async fn admin_frames(&self, query: &FramesQuery) -> Result<AdminFramePage, Error> {
        self.get(&with_query("/api/toolkit/admin/frames", query)).await
    }

    /// `GET /api/toolkit/admin/frames/{id}/file`: the frame's bytes. 404 `NOT_FOUND`.
    pub async fn admin_frame_file(&self, id: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(&format!("/api/toolkit/admin/frames/{}/file", encode(id))).await
    }

    /// `GET /api/toolkit/admin/judge/verdicts`.
    pub async fn admin_verdicts(&self, query: &VerdictsQuery) -> Result<VerdictPage, Error> {
        self.get(&with_query("/api/toolkit/admin/judge/verdicts", query)).await
    }

    /// `GET /api/toolkit/admin/judge/verdicts/{jobId}`. 404 `NOT_FOUND`; 409 `NOT_LANDED`.
    pub async fn admin_verdict(&self, job_id: &str) -> Result<StoredVerdict, Error> {
        self.get(&format!("/api/toolkit/admin/judge/verdicts/{}", encode(job_id))).await
    }

    /// `GET /api/toolkit/admin/judge/rollup`. 400 `BAD_BUCKET`, `BAD_SINCE`, `BAD_LIMIT`.
    pub async fn admin_judge_rollup(&self, query: &RollupQuery) -> Result<JudgeRollup, Error> {
        self.get(&with_query("/api/toolkit/admin/judge/rollup", query)).await
    }

    /// `GET /api/toolkit/admin/kept-cost`.
    pub async fn admin_kept_cost(&self, query: &SinceQuery) -> Result<KeptCost, Error> {
        self.get(&with_query("/api/toolkit/admin/kept-cost", query)).await
    }

    /// `GET /api/toolkit/admin/payments`. 400 `BAD_STATUS`.
    pub async fn admin_payments(&self, query: &PaymentsQuery) -> Result<PaymentPage, Error> {
        self.get(&with_query("/api/toolkit/admin/payments", query)).await
    }

    /// `GET /api/toolkit/admin/tokenomics`. 400 `BAD_BUCKET`, `BAD_SINCE`.
    pub async fn admin_tokenomics(&self, query: &TokenomicsQuery) -> Result<Tokenomics, Error> {
        self.get(&with_query("/api/toolkit/admin/tokenomics", query)).await
    }
}
