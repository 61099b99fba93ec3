//! Develops through the client: submit (files, bytes or library assets by role), the job
//! routes, runs, takes, the price book, and [`Client::wait_for`].

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;
use studio_core::api::{
    CancelResponse, DevelopStatus, DuplicateRequest, DuplicateResponse, JobList, PriceBook, Quality, RunCancelResponse,
    RunList, SubmitResponse, TakesRequest, TakesResponse,
};

use crate::client::{Client, encode};
use crate::error::Error;

/// Where one input image of a develop comes from.
#[derive(Debug, Clone)]
pub enum InputSource {
    /// A file on disk, streamed.
    Path(std::path::PathBuf),
    /// Bytes in memory, with a file name.
    Bytes {
        /// The part's file name.
        file_name: String,
        /// The encoded image.
        bytes: Vec<u8>,
    },
    /// An asset already in the house's library.
    Asset(String),
}

/// A develop to submit.
#[derive(Debug, Clone)]
pub struct DevelopSubmit {
    /// The tool slug (see [`Client::prices`]).
    pub tool: String,
    /// Inputs by role (`image`, `garment` (repeatable), `model`, `mask`, `background`).
    pub inputs: Vec<(String, InputSource)>,
    /// Output tier; the server's default (2k) when None.
    pub quality: Option<Quality>,
    /// Tool options (`runId` groups frames into a run).
    pub params: BTreeMap<String, String>,
    /// Replaying the same key returns the same job and holds nothing more.
    pub idempotency_key: Option<String>,
    /// The brand it is for.
    pub brand_id: Option<String>,
}

impl DevelopSubmit {
    /// A develop of `tool` with no inputs yet.
    pub fn new(tool: impl Into<String>) -> Self {
        DevelopSubmit {
            tool: tool.into(),
            inputs: Vec::new(),
            quality: None,
            params: BTreeMap::new(),
            idempotency_key: None,
            brand_id: None,
        }
    }

    /// Add an input image for `role`.
    pub fn input(mut self, role: impl Into<String>, source: InputSource) -> Self {
        self.inputs.push((role.into(), source));
        self
    }

    /// Set the output tier.
    pub fn quality(mut self, quality: Quality) -> Self {
        self.quality = Some(quality);
        self
    }

    /// Set a tool option.
    pub fn param(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.insert(key.into(), value.into());
        self
    }

    /// Set the idempotency key.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
}

/// The timeout of a submit: its images may be large.
const SUBMIT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

impl Client {
    /// `POST /api/toolkit/jobs/submit`: hold the price and queue the develop.
    pub async fn submit_develop(&self, develop: &DevelopSubmit) -> Result<SubmitResponse, Error> {
        let mut form = reqwest::multipart::Form::new().text("tool", develop.tool.clone());
        if let Some(k) = &develop.idempotency_key {
            form = form.text("idempotencyKey", k.clone());
        }
        if let Some(b) = &develop.brand_id {
            form = form.text("brandId", b.clone());
        }
        if let Some(q) = develop.quality {
            form = form.text("quality", q.as_str());
        }
        for (k, v) in &develop.params {
            form = form.text(k.clone(), v.clone());
        }
        for (role, source) in &develop.inputs {
            form = match source {
                InputSource::Asset(id) => form.text(role.clone(), id.clone()),
                InputSource::Bytes { file_name, bytes } => {
                    form.part(role.clone(), reqwest::multipart::Part::bytes(bytes.clone()).file_name(file_name.clone()))
                }
                InputSource::Path(path) => {
                    let file = tokio::fs::File::open(path)
                        .await
                        .map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
                    let len =
                        file.metadata().await.map_err(|e| Error::Config(format!("{}: {e}", path.display())))?.len();
                    let name =
                        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| role.clone());
                    let part =
                        reqwest::multipart::Part::stream_with_length(reqwest::Body::from(file), len).file_name(name);
                    form.part(role.clone(), part)
                }
            };
        }
        let request = self.request(Method::POST, "/api/toolkit/jobs/submit")?.multipart(form).timeout(SUBMIT_TIMEOUT);
        Ok(self.send(request).await?.0)
    }

    /// `GET /api/toolkit/jobs/{id}`: one develop's status.
    pub async fn job(&self, id: &str) -> Result<DevelopStatus, Error> {
        self.get(&format!("/api/toolkit/jobs/{}", encode(id))).await
    }

    /// `GET /api/toolkit/jobs?since=N`: one page of job changes after the cursor, ascending.
    pub async fn jobs_since(&self, since: i64) -> Result<JobList, Error> {
        self.get(&format!("/api/toolkit/jobs?since={since}")).await
    }

    /// `POST /api/toolkit/jobs/{id}/cancel`.
    pub async fn cancel_job(&self, id: &str) -> Result<CancelResponse, Error> {
        self.post(&format!("/api/toolkit/jobs/{}/cancel", encode(id)), &serde_json::json!({})).await
    }

    /// `POST /api/toolkit/jobs/{id}/duplicate`.
    pub async fn duplicate_job(&self, id: &str, idempotency_key: Option<&str>) -> Result<DuplicateResponse, Error> {
        let body = DuplicateRequest { idempotency_key: idempotency_key.map(str::to_string) };
        self.post(&format!("/api/toolkit/jobs/{}/duplicate", encode(id)), &body).await
    }

    /// `GET /api/toolkit/develops?state=...&limit=...`.
    pub async fn list_runs(&self, active_only: bool, limit: Option<u32>) -> Result<RunList, Error> {
        let state = if active_only { "active" } else { "all" };
        let limit = limit.map(|l| format!("&limit={l}")).unwrap_or_default();
        self.get(&format!("/api/toolkit/develops?state={state}{limit}")).await
    }

    /// `POST /api/toolkit/develops/{id}/cancel`.
    pub async fn cancel_run(&self, id: &str) -> Result<RunCancelResponse, Error> {
        self.post(&format!("/api/toolkit/develops/{}/cancel", encode(id)), &serde_json::json!({})).await
    }

    /// `POST /api/toolkit/takes`: take landed frames again.
    pub async fn take_again(&self, req: &TakesRequest) -> Result<TakesResponse, Error> {
        self.post("/api/toolkit/takes", req).await
    }

    /// `GET /api/toolkit/ai/billing/prices`: the tools this deployment runs and their prices.
    pub async fn prices(&self) -> Result<PriceBook, Error> {
        self.get("/api/toolkit/ai/billing/prices").await
    }

    /// Poll a develop until it ends (done, failed or cancelled), backing off from 250 ms to
    /// 2 s between polls. `timeout` bounds the whole wait.
    pub async fn wait_for(&self, job_id: &str, timeout: Duration) -> Result<DevelopStatus, Error> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut every = Duration::from_millis(250);
        loop {
            let status = self.job(job_id).await?;
            if status.status.is_terminal() {
                return Ok(status);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Error::Timeout(format!(
                    "job {job_id} is still {} after {timeout:?}",
                    status.status.as_str()
                )));
            }
            tokio::time::sleep(every).await;
            every = (every * 2).min(Duration::from_secs(2));
        }
    }
}
