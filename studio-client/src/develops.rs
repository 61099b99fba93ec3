//! Develops through the client: submit (files, bytes or library assets by role), the job
//! routes, runs, takes, the price book, and [`Client::wait_for`].

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::{Method, RequestBuilder};
use studio_core::api::{
    CancelResponse, DevelopStatus, DuplicateRequest, DuplicateResponse, JobList, PriceBook, Quality, RunCancelResponse,
    RunList, SubmitResponse, TakesRequest, TakesResponse,
};

use crate::client::{Client, IMAGE_UPLOAD, PartSource, encode};
use crate::error::Error;
use crate::retry::new_idempotency_key;

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
    /// The collection the landed frame is filed in (the library's root when None).
    pub folder_id: Option<String>,
    /// An https URL this develop's changes are also delivered to, signed with the house's
    /// default webhook endpoint's secret (docs/webhooks.md).
    pub webhook_url: Option<String>,
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
            folder_id: None,
            webhook_url: None,
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

    /// Set the idempotency key. Without one, [`Client::submit_develop`] generates a fresh key
    /// per call (see [`new_idempotency_key`](crate::new_idempotency_key)), which makes its own
    /// retries safe; set one yourself to recognise the same develop across calls or processes.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// Set the brand it is for.
    pub fn brand_id(mut self, brand_id: impl Into<String>) -> Self {
        self.brand_id = Some(brand_id.into());
        self
    }

    /// File the landed frame in the collection `folder_id` (sent as the form's `folderId`); an
    /// unknown collection is refused 404 `NOT_FOUND` before anything is held.
    pub fn folder(mut self, folder_id: impl Into<String>) -> Self {
        self.folder_id = Some(folder_id.into());
        self
    }

    /// Deliver this develop's changes to `url` too (sent as the form's `webhookUrl`), signed with
    /// the house's default webhook endpoint's secret; refused 400 `NO_WEBHOOK_ENDPOINT` when the
    /// house has none, and like an endpoint's URL when it is not public https.
    pub fn webhook_url(mut self, url: impl Into<String>) -> Self {
        self.webhook_url = Some(url.into());
        self
    }

    /// The form's text fields and file parts, in order, ready to become a form for each attempt
    /// (bytes in memory are shared between attempts, files are opened again).
    fn prepare(&self, key: &str) -> Vec<(String, Field<'_>)> {
        let mut fields = vec![
            ("tool".to_string(), Field::Text(self.tool.clone())),
            ("idempotencyKey".to_string(), Field::Text(key.to_string())),
        ];
        if let Some(b) = &self.brand_id {
            fields.push(("brandId".into(), Field::Text(b.clone())));
        }
        if let Some(f) = &self.folder_id {
            fields.push(("folderId".into(), Field::Text(f.clone())));
        }
        if let Some(u) = &self.webhook_url {
            fields.push(("webhookUrl".into(), Field::Text(u.clone())));
        }
        if let Some(q) = self.quality {
            fields.push(("quality".into(), Field::Text(q.as_str().to_string())));
        }
        for (k, v) in &self.params {
            fields.push((k.clone(), Field::Text(v.clone())));
        }
        for (role, source) in &self.inputs {
            let field = match source {
                InputSource::Asset(id) => Field::Text(id.clone()),
                InputSource::Bytes { file_name, bytes } => {
                    Field::File(PartSource::Memory(bytes::Bytes::from(bytes.clone()), file_name.clone()))
                }
                InputSource::Path(path) => {
                    let name =
                        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| role.clone());
                    Field::File(PartSource::File(path, name))
                }
            };
            fields.push((role.clone(), field));
        }
        fields
    }
}

/// One field of a prepared multipart form.
#[derive(Debug, Clone)]
pub(crate) enum Field<'a> {
    /// A text field.
    Text(String),
    /// A file part.
    File(PartSource<'a>),
}

/// A fresh multipart form from prepared fields (one per attempt).
pub(crate) async fn form_of(fields: &[(String, Field<'_>)]) -> Result<reqwest::multipart::Form, Error> {
    let mut form = reqwest::multipart::Form::new();
    for (name, field) in fields {
        form = match field {
            Field::Text(value) => form.text(name.clone(), value.clone()),
            Field::File(source) => form.part(name.clone(), source.part().await?),
        };
    }
    Ok(form)
}

impl Client {
    /// `POST /api/toolkit/jobs/submit`: hold the price and queue the develop.
    ///
    /// The submit always carries an idempotency key (the caller's, or a fresh one), so it is
    /// retried on 429/502/503 and connection failures like a read: a retry the server already
    /// took returns the same job with `replayed` true and holds nothing more. The form is built
    /// afresh for every attempt (files are opened again).
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
    /// use std::time::Duration;
    /// use studio_client::api::{JobStatus, Quality};
    /// use studio_client::{DevelopSubmit, InputSource};
    ///
    /// let develop = DevelopSubmit::new("tryon")
    ///     .input("model", InputSource::Asset("ast_model".into()))
    ///     .input("garment", InputSource::Path("shots/coat.jpg".into()))
    ///     .quality(Quality::K2)
    ///     .param("runId", "ss27-coats");
    /// let accepted = client.submit_develop(&develop).await?;
    /// println!("{} holds {} tokens", accepted.job_id, accepted.tokens_held);
    /// let done = client.wait_for(&accepted.job_id, Duration::from_secs(600)).await?;
    /// if done.status == JobStatus::Done {
    ///     let frame = client.asset_bytes(done.result_asset_id.as_deref().unwrap_or_default()).await?;
    ///     std::fs::write("coat-tryon.png", frame).ok();
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn submit_develop(&self, develop: &DevelopSubmit) -> Result<SubmitResponse, Error> {
        let key = develop.idempotency_key.clone().unwrap_or_else(new_idempotency_key);
        let fields = develop.prepare(&key);
        let fields = &fields;
        let build = |request: RequestBuilder| async move {
            Ok(request.multipart(form_of(fields).await?).timeout(IMAGE_UPLOAD))
        };
        Ok(self.call(Method::POST, "/api/toolkit/jobs/submit", true, build).await?.0)
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

    /// `POST /api/toolkit/jobs/{id}/duplicate`: the same develop again with a fresh hold.
    ///
    /// Without `idempotency_key` a fresh key is generated for this call, so its own retries
    /// are safe; pass the same key again to get the same duplicate back (`cost` 0).
    pub async fn duplicate_job(&self, id: &str, idempotency_key: Option<&str>) -> Result<DuplicateResponse, Error> {
        let key = idempotency_key.map_or_else(new_idempotency_key, str::to_string);
        let body = DuplicateRequest { idempotency_key: Some(key) };
        self.post_json(&format!("/api/toolkit/jobs/{}/duplicate", encode(id)), &body, true).await
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

    /// `POST /api/toolkit/takes`: take landed frames again (every frame is held before any
    /// is queued).
    ///
    /// When `req.idempotency_key` is None a fresh key is generated for this call, so its own
    /// retries are safe; a replay answers `replayed` true and holds nothing more.
    pub async fn take_again(&self, req: &TakesRequest) -> Result<TakesResponse, Error> {
        if req.idempotency_key.is_some() {
            return self.post_json("/api/toolkit/takes", req, true).await;
        }
        let keyed = TakesRequest { idempotency_key: Some(new_idempotency_key()), ..req.clone() };
        self.post_json("/api/toolkit/takes", &keyed, true).await
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
