//! The hosted-model adapter: fal's queue API (submit, poll status, fetch result, cancel), with
//! a model id configured per tool.
//!
//! One develop is one queue request: `POST {base}/{model}` with a JSON input built from the
//! develop (input images as base64 data URIs, the options verbatim, the tier as `resolution`
//! and `long_edge`), then `GET …/status` every `poll_interval` until `COMPLETED`, then
//! `GET …/requests/{id}` for the result, whose first image is downloaded (at most
//! [`MAX_RESULT_MB`] MiB), sniffed and measured. Past `timeout` the request is cancelled
//! (`PUT …/cancel`, best effort) and the develop is [`ProviderError::Unavailable`]. The full
//! mapping is in `docs/fal.md`. The key is only ever sent to the queue's own origin and never
//! appears in a log line, an error or a `Debug` rendering.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use reqwest::{StatusCode, Url};
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::{DevelopOutput, DevelopRequest, Provider, ProviderError};

/// The largest result image downloaded, in MiB (data URIs included).
pub(crate) const MAX_RESULT_MB: usize = 48;
const MAX_RESULT_BYTES: usize = MAX_RESULT_MB * 1024 * 1024;
/// The largest JSON answer read (a result may carry its image inline as a data URI).
const MAX_JSON_BYTES: usize = MAX_RESULT_BYTES / 3 * 4 + 1024 * 1024;
/// How much of an error body is read to find the upstream message.
const MAX_ERROR_BODY: usize = 64 * 1024;
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);
/// Transient failures in a row (429, 5xx, network, malformed JSON) tolerated while polling or
/// fetching the result before the develop gives up as unavailable.
const MAX_TRANSIENT_FAILURES: u32 = 5;

/// Settings of the fal adapter.
#[derive(Clone, PartialEq, Eq)]
pub struct FalConfig {
    /// The queue API's base URL (`https://queue.fal.run`).
    pub base_url: String,
    /// The API key, sent as `Authorization: Key <key>`. Empty means not configured: nothing
    /// is advertised.
    pub key: String,
    /// Tool slug to model id (`tryon = "fal-ai/..."`); only these tools are advertised.
    pub models: BTreeMap<String, String>,
    /// How often a request's status is polled.
    pub poll_interval: Duration,
    /// How long a request may take before it is cancelled and the job failed.
    pub timeout: Duration,
}

impl FalConfig {
    /// fal's public queue endpoint.
    pub const DEFAULT_BASE_URL: &'static str = "https://queue.fal.run";
    /// The default poll interval (1.5 s).
    pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(1500);
    /// The default time limit of one develop (600 s).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// Parse a model map written `tool=model-id,tool=model-id` (the form of
    /// `STUDIO_FAL_MODELS`). Blank entries are skipped; an entry without `=`, with an empty side
    /// or naming a tool twice is an error naming the entry.
    pub fn parse_models(spec: &str) -> Result<BTreeMap<String, String>, String> {
        let mut models = BTreeMap::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((tool, model)) = entry.split_once('=') else {
                return Err(format!("{entry:?} is not tool=model-id"));
            };
            let (tool, model) = (tool.trim(), model.trim().trim_matches('/'));
            if tool.is_empty() || model.is_empty() {
                return Err(format!("{entry:?} is not tool=model-id"));
            }
            if models.insert(tool.to_string(), model.to_string()).is_some() {
                return Err(format!("tool {tool:?} is given twice"));
            }
        }
        Ok(models)
    }
}

impl Default for FalConfig {
    /// fal's public endpoint, no key, no models, 1.5 s polls, 600 s limit.
    fn default() -> Self {
        FalConfig {
            base_url: Self::DEFAULT_BASE_URL.to_string(),
            key: String::new(),
            models: BTreeMap::new(),
            poll_interval: Self::DEFAULT_POLL_INTERVAL,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }
}

impl fmt::Debug for FalConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FalConfig")
            .field("base_url", &self.base_url)
            .field("key", &if self.key.is_empty() { "" } else { "<redacted>" })
            .field("models", &self.models)
            .field("poll_interval", &self.poll_interval)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// fal for the AI utility lanes: the adapter and the model each lane runs.
#[derive(Debug, Clone)]
pub struct FalLanes {
    /// The adapter (its key, base URL and timeout).
    pub provider: FalProvider,
    /// The depth lane's model (input `image_url`; answers a grayscale image).
    pub depth_model: String,
    /// The model segment runs for a `label` (input `image_url` and `prompt`; answers a mask).
    pub segment_model: String,
    /// The model remove-background runs instead of the local segmentation, when set (input
    /// `image_url`; answers a cutout with alpha, or a mask): `STUDIO_FAL_CUTOUT_MODEL`.
    pub cutout_model: Option<String>,
}

impl FalLanes {
    /// The default depth model.
    pub const DEFAULT_DEPTH_MODEL: &'static str = "fal-ai/imageutils/depth";
    /// The default text-prompted segmentation model.
    pub const DEFAULT_SEGMENT_MODEL: &'static str = "fal-ai/evf-sam";
}

/// The fal queue adapter.
#[derive(Debug, Clone)]
pub struct FalProvider {
    config: FalConfig,
    /// The HTTP client and the parsed base URL, or why they could not be made (reported by
    /// every develop as unavailable).
    http: Result<(reqwest::Client, Url), String>,
}

impl FalProvider {
    /// An adapter over `config`. One HTTP client is built here (10 s connect timeout, 120 s per
    /// request); a bad base URL or a client that cannot be built makes every develop
    /// [`ProviderError::Unavailable`] rather than failing here.
    pub fn new(config: FalConfig) -> Self {
        let http = build_http(&config);
        if let Err(e) = &http {
            tracing::warn!(error = %e, "the fal adapter is not usable");
        }
        FalProvider { config, http }
    }

    /// The settings this adapter runs with.
    pub fn config(&self) -> &FalConfig {
        &self.config
    }

    fn timed_out(&self) -> ProviderError {
        ProviderError::Unavailable(format!("fal timed out after {}", human(self.config.timeout)))
    }
}

fn build_http(config: &FalConfig) -> Result<(reqwest::Client, Url), String> {
    crate::outbound::client("fal", &config.base_url, REQUEST_TIMEOUT)
}

#[async_trait::async_trait]
impl Provider for FalProvider {
    fn name(&self) -> &'static str {
        "fal"
    }

    /// Every tool with a non-empty model id, provided a key is set.
    fn tools(&self) -> Vec<String> {
        if self.config.key.trim().is_empty() {
            return Vec::new();
        }
        self.config.models.iter().filter(|(_, model)| !model.trim().is_empty()).map(|(tool, _)| tool.clone()).collect()
    }

    /// `tryon` and `lookbook`: a model and a garment (`lookbook`'s garments repeat, with its
    /// `itemRoles` among the options); `generate-character`: nothing (options only); every
    /// other tool: one `image`.
    fn required_roles(&self, tool: &str) -> &'static [&'static str] {
        match tool {
            "tryon" | "lookbook" => &["model", "garment"],
            "generate-character" => &[],
            _ => &["image"],
        }
    }

    async fn develop(&self, request: DevelopRequest) -> Result<DevelopOutput, ProviderError> {
        let (client, base) = self.http.as_ref().map_err(|e| ProviderError::Unavailable(e.clone()))?;
        let model = self
            .config
            .models
            .get(&request.tool)
            .map(|m| m.trim().trim_matches('/'))
            .filter(|m| !m.is_empty() && !self.config.key.trim().is_empty())
            .ok_or_else(|| ProviderError::Rejected(format!("fal has no model for the tool {}", request.tool)))?;
        if let Some(role) = self.required_roles(&request.tool).iter().find(|r| request.input(r).is_none()) {
            return Err(ProviderError::Rejected(format!("{} needs a {role} image", request.tool)));
        }
        let input = build_input(&request);
        tracing::info!(job = %request.job_id, tool = %request.tool, model, "fal develop");
        self.run(client, base, model, &input).await
    }
}

impl FalProvider {
    /// Run `model` on `input` outside a develop (an AI utility lane: depth, segment by label):
    /// submit, wait, and download the result's first image, under the same timeout, cancel
    /// and error mapping as a develop. [`ProviderError::Rejected`] when no key is set.
    pub async fn run_model(&self, model: &str, input: &Value) -> Result<DevelopOutput, ProviderError> {
        let (client, base) = self.http.as_ref().map_err(|e| ProviderError::Unavailable(e.clone()))?;
        let model = model.trim().trim_matches('/');
        if model.is_empty() || self.config.key.trim().is_empty() {
            return Err(ProviderError::Rejected("fal is not configured".to_string()));
        }
        self.run(client, base, model, input).await
    }

    async fn run(
        &self,
        client: &reqwest::Client,
        base: &Url,
        model: &str,
        input: &Value,
    ) -> Result<DevelopOutput, ProviderError> {
        let call = Call { client, base, key: self.config.key.trim(), model, poll_interval: self.config.poll_interval };
        let deadline = Instant::now() + self.config.timeout;

        let queued = match tokio::time::timeout_at(deadline, call.submit(input)).await {
            Ok(queued) => queued?,
            Err(_) => return Err(self.timed_out()),
        };
        tracing::info!(model, request_id = %queued.request_id, "fal request queued");

        match tokio::time::timeout_at(deadline, call.finish(&queued)).await {
            Ok(Ok(output)) => {
                tracing::info!(request_id = %queued.request_id, width = output.width, height = output.height, "fal request developed");
                Ok(output)
            }
            Ok(Err(ProviderError::Rejected(m))) => {
                tracing::info!(request_id = %queued.request_id, reason = %m, "fal request rejected");
                Err(ProviderError::Rejected(m))
            }
            Ok(Err(ProviderError::Unavailable(m))) => {
                tracing::warn!(request_id = %queued.request_id, reason = %m, "fal request abandoned");
                call.cancel(&queued).await;
                Err(ProviderError::Unavailable(m))
            }
            Err(_) => {
                tracing::warn!(request_id = %queued.request_id, "fal request timed out; cancelling");
                call.cancel(&queued).await;
                Err(self.timed_out())
            }
        }
    }
}

/// The JSON input of a develop.
///
/// - every option, verbatim, as a string field;
/// - each input role `image` as `image_url`, any other role `R` as `R_image_url`, holding the
///   first image of that role as a `data:<mime>;base64,…` URI; a role given more than once
///   also gets every image, in order, as an array under `image_urls` / `R_image_urls`;
/// - the tier as `resolution` (`"1k"`, `"2k"`, `"4k"`) and `long_edge` (1024, 2048, 4096).
///
/// The image fields, `resolution` and `long_edge` are written after the options and win over
/// an option of the same name.
fn build_input(request: &DevelopRequest) -> Value {
    let mut input = Map::new();
    for (name, value) in &request.params {
        input.insert(name.clone(), Value::String(value.clone()));
    }
    let mut by_role: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for image in &request.inputs {
        let uri = crate::outbound::data_uri(&image.mime, &image.bytes);
        by_role.entry(image.role.as_str()).or_default().push(uri);
    }
    for (role, mut uris) in by_role {
        let field = if role == "image" { "image_url".to_string() } else { format!("{role}_image_url") };
        if uris.len() > 1 {
            input.insert(format!("{field}s"), Value::from(uris.clone()));
        }
        input.insert(field, Value::String(uris.swap_remove(0)));
    }
    input.insert("resolution".to_string(), Value::String(request.quality.as_str().to_string()));
    input.insert("long_edge".to_string(), Value::from(request.quality.long_edge()));
    Value::Object(input)
}

/// A submitted request and where to ask about it.
#[derive(Debug)]
struct Queued {
    request_id: String,
    status_url: Url,
    response_url: Url,
    cancel_url: Url,
}

/// A status poll's reading.
enum Progress {
    Pending,
    Completed,
}

/// One develop's calls to the queue.
struct Call<'a> {
    client: &'a reqwest::Client,
    base: &'a Url,
    key: &'a str,
    model: &'a str,
    poll_interval: Duration,
}

impl Call<'_> {
    fn authorized(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        builder.header(reqwest::header::AUTHORIZATION, format!("Key {}", self.key))
    }

    /// `base` + slash-separated `segments` (each percent-encoded as a path segment).
    fn url<'s>(&self, segments: impl IntoIterator<Item = &'s str>) -> Url {
        let mut url = self.base.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments.into_iter().filter(|s| !s.is_empty()));
        }
        url
    }

    /// A URL the queue returned, if it is on the queue's own origin (the key is sent to it).
    fn returned_url(&self, answer: &Value, field: &str) -> Option<Url> {
        let url = Url::parse(answer.get(field)?.as_str()?).ok()?;
        (url.origin() == self.base.origin()).then_some(url)
    }

    async fn submit(&self, input: &Value) -> Result<Queued, ProviderError> {
        let url = self.url(self.model.split('/'));
        let response = self.send("submit", self.authorized(self.client.post(url)).json(input)).await?;
        let answer = read_json(response).await?;
        let request_id = answer
            .get("request_id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| ProviderError::Unavailable("fal answered the submit without a request_id".to_string()))?
            .to_string();
        // Status, result and cancel live under the app id (owner/name) without any subpath.
        let app: Vec<&str> = self.model.split('/').filter(|s| !s.is_empty()).take(2).collect();
        let under = |tail: &[&str]| {
            self.url(app.iter().copied().chain(["requests", request_id.as_str()]).chain(tail.iter().copied()))
        };
        Ok(Queued {
            status_url: self.returned_url(&answer, "status_url").unwrap_or_else(|| under(&["status"])),
            response_url: self.returned_url(&answer, "response_url").unwrap_or_else(|| under(&[])),
            cancel_url: self.returned_url(&answer, "cancel_url").unwrap_or_else(|| under(&["cancel"])),
            request_id,
        })
    }

    /// Poll until completed, fetch the result and download its image.
    async fn finish(&self, queued: &Queued) -> Result<DevelopOutput, ProviderError> {
        let mut failures = 0;
        loop {
            tokio::time::sleep(self.poll_interval).await;
            match self.status(queued).await {
                Ok(Progress::Completed) => break,
                Ok(Progress::Pending) => failures = 0,
                Err(ProviderError::Unavailable(m)) if failures < MAX_TRANSIENT_FAILURES => {
                    failures += 1;
                    tracing::debug!(request_id = %queued.request_id, reason = %m, "fal status poll failed; polling again");
                }
                Err(e) => return Err(e),
            }
        }
        let mut failures = 0;
        let result = loop {
            match self.result(queued).await {
                Ok(result) => break result,
                Err(ProviderError::Unavailable(m)) if failures < MAX_TRANSIENT_FAILURES => {
                    failures += 1;
                    tracing::debug!(request_id = %queued.request_id, reason = %m, "fal result fetch failed; trying again");
                    tokio::time::sleep(self.poll_interval).await;
                }
                Err(e) => return Err(e),
            }
        };
        let Some(url) = output_url(&result) else {
            let fields =
                result.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>().join(", ")).unwrap_or_default();
            return Err(ProviderError::Rejected(format!(
                "the fal model {} returned no image (result fields: {})",
                self.model,
                if fields.is_empty() { "none" } else { &fields }
            )));
        };
        let bytes = self.download(url).await?;
        output_from(bytes).await
    }

    async fn status(&self, queued: &Queued) -> Result<Progress, ProviderError> {
        let response = self.send("status poll", self.authorized(self.client.get(queued.status_url.clone()))).await?;
        let answer = read_json(response).await?;
        let status = answer.get("status").and_then(Value::as_str);
        let error = answer.get("error").filter(|e| !e.is_null() && e.as_str() != Some(""));
        if let Some(error) = error {
            let message = message_of(error).unwrap_or_else(|| error.to_string());
            return Err(ProviderError::Rejected(format!("fal reported the request failed: {}", self.clean(&message))));
        }
        match status {
            Some("IN_QUEUE" | "IN_PROGRESS") => Ok(Progress::Pending),
            Some("COMPLETED") => Ok(Progress::Completed),
            Some(other) => {
                let detail = message_of(&answer).map(|m| format!(": {}", self.clean(&m))).unwrap_or_default();
                Err(ProviderError::Rejected(format!("fal reported the request {}{detail}", self.clean(other))))
            }
            None => Err(ProviderError::Unavailable("fal answered a status poll without a status".to_string())),
        }
    }

    async fn result(&self, queued: &Queued) -> Result<Value, ProviderError> {
        let response = self.send("result", self.authorized(self.client.get(queued.response_url.clone()))).await?;
        read_json(response).await
    }

    /// Best effort: the outcome is only logged.
    async fn cancel(&self, queued: &Queued) {
        let sent = self.authorized(self.client.put(queued.cancel_url.clone())).send();
        match tokio::time::timeout(CANCEL_TIMEOUT, sent).await {
            Ok(Ok(response)) => {
                tracing::info!(request_id = %queued.request_id, status = %response.status(), "fal request cancel sent")
            }
            Ok(Err(e)) => {
                tracing::warn!(request_id = %queued.request_id, error = %e.without_url(), "fal cancel failed")
            }
            Err(_) => tracing::warn!(request_id = %queued.request_id, "fal cancel timed out"),
        }
    }

    /// The result image: a data URI, or an http(s) URL fetched without the key.
    async fn download(&self, url: &str) -> Result<Vec<u8>, ProviderError> {
        if let Some(data) = url.strip_prefix("data:") {
            return decode_data_uri(data);
        }
        let parsed = Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| ProviderError::Rejected("fal returned an image URL that is not http(s)".to_string()))?;
        let mut response = self.send("image download", self.client.get(parsed)).await?;
        if response.content_length().is_some_and(|n| n > MAX_RESULT_BYTES as u64) {
            return Err(too_big());
        }
        read_capped(&mut response, MAX_RESULT_BYTES).await?.ok_or_else(too_big)
    }

    /// Send and map the HTTP outcome: 2xx passes; 429 and 5xx (and anything else unexpected)
    /// are unavailable; other 4xx are rejected with the upstream message.
    async fn send(&self, what: &str, builder: reqwest::RequestBuilder) -> Result<reqwest::Response, ProviderError> {
        let mut response = builder.send().await.map_err(|e| {
            let e = e.without_url();
            ProviderError::Unavailable(format!("fal could not be reached for the {what}: {e}"))
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = read_capped(&mut response, MAX_ERROR_BODY).await.ok().flatten().unwrap_or_default();
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| message_of(&v))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned());
        let message = self.clean(&message);
        let message =
            if message.is_empty() { status.canonical_reason().unwrap_or("no message").to_string() } else { message };
        let line = format!("fal answered the {what} with {}: {message}", status.as_u16());
        if status.is_client_error() && status != StatusCode::TOO_MANY_REQUESTS {
            Err(ProviderError::Rejected(line))
        } else {
            Err(ProviderError::Unavailable(line))
        }
    }

    /// An upstream message made safe to pass on: the key (should it ever be echoed) removed,
    /// whitespace collapsed, at most 300 characters (see `crate::outbound::clean_message`).
    fn clean(&self, message: &str) -> String {
        crate::outbound::clean_message(message, self.key)
    }
}

fn too_big() -> ProviderError {
    ProviderError::Rejected(format!("fal returned an image larger than {MAX_RESULT_MB} MiB"))
}

/// A duration for people: whole seconds when it has no fraction, else milliseconds.
fn human(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Read a body up to `cap` bytes; None when it is longer.
async fn read_capped(response: &mut reqwest::Response, cap: usize) -> Result<Option<Vec<u8>>, ProviderError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| ProviderError::Unavailable(format!("fal's answer broke off: {}", e.without_url())))?
    {
        if body.len() + chunk.len() > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

async fn read_json(mut response: reqwest::Response) -> Result<Value, ProviderError> {
    let body = read_capped(&mut response, MAX_JSON_BYTES)
        .await?
        .ok_or_else(|| ProviderError::Unavailable("fal answered with an oversized body".to_string()))?;
    serde_json::from_slice(&body)
        .map_err(|_| ProviderError::Unavailable("fal answered with malformed JSON".to_string()))
}

/// The upstream message in an error body or field: `detail` (a string, or a list of
/// `{loc, msg}` validation errors), `error` (a string or an object with `message`), or
/// `message`.
fn message_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()).filter(|s| !s.trim().is_empty()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(message_of).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(object) => {
            if let Some(msg) = object.get("msg").and_then(Value::as_str) {
                let loc: Vec<String> = object
                    .get("loc")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter(|p| p.as_str() != Some("body"))
                            .map(|p| p.as_str().map(str::to_string).unwrap_or_else(|| p.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                return Some(if loc.is_empty() { msg.to_string() } else { format!("{}: {msg}", loc.join(".")) });
            }
            ["detail", "error", "message"].iter().find_map(|k| object.get(*k).and_then(message_of))
        }
        _ => None,
    }
}

/// The first output image's URL: `images[0].url` or `image.url` (a bare string also counts), at
/// the top level or under `response` / `data`.
fn output_url(result: &Value) -> Option<&str> {
    fn url_of(v: &Value) -> Option<&str> {
        v.as_str().or_else(|| v.get("url")?.as_str()).filter(|u| !u.is_empty())
    }
    [Some(result), result.get("response"), result.get("data")].into_iter().flatten().find_map(|o| {
        o.get("images")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(url_of)
            .or_else(|| o.get("image").and_then(url_of))
    })
}

/// The bytes of a `data:` URI (after the scheme); only base64 payloads are accepted.
fn decode_data_uri(data: &str) -> Result<Vec<u8>, ProviderError> {
    let (meta, payload) =
        data.split_once(',').ok_or_else(|| ProviderError::Rejected("fal returned a malformed data URI".to_string()))?;
    if !meta.to_ascii_lowercase().ends_with(";base64") {
        return Err(ProviderError::Rejected("fal returned a data URI that is not base64".to_string()));
    }
    if payload.len() / 4 * 3 > MAX_RESULT_BYTES + 3 {
        return Err(too_big());
    }
    let bytes = crate::outbound::decode_base64(payload)
        .ok_or_else(|| ProviderError::Rejected("fal returned a data URI with bad base64".to_string()))?;
    if bytes.len() > MAX_RESULT_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Sniff and measure the result. JPEG and PNG pass unchanged; WebP and GIF are decoded (under
/// the crate's decode limits) and stored as PNG; anything else is rejected.
async fn output_from(bytes: Vec<u8>) -> Result<DevelopOutput, ProviderError> {
    let sniffed = infer::get(&bytes).map(|k| k.mime_type());
    let (bytes, mime) = match sniffed {
        Some(mime @ ("image/jpeg" | "image/png")) => (bytes, mime),
        Some("image/webp" | "image/gif") => {
            let png = tokio::task::spawn_blocking(move || to_png(&bytes))
                .await
                .map_err(|e| ProviderError::Unavailable(format!("converting fal's image failed: {e}")))??;
            (png, "image/png")
        }
        Some(other) => return Err(ProviderError::Rejected(format!("fal returned {other}, not a JPEG or PNG image"))),
        None => return Err(ProviderError::Rejected("fal returned something that is not an image".to_string())),
    };
    let (width, height) = crate::images::header_dimensions(&bytes)
        .map_err(|e| ProviderError::Rejected(e.message))?
        .ok_or_else(|| ProviderError::Rejected("fal returned an image whose size cannot be read".to_string()))?;
    Ok(DevelopOutput { bytes, mime: mime.to_string(), width, height })
}

fn to_png(bytes: &[u8]) -> Result<Vec<u8>, ProviderError> {
    let bad =
        |e: image::ImageError| ProviderError::Rejected(format!("fal returned an image that cannot be decoded: {e}"));
    // Colour-managed: converted to sRGB through its profile, stored with the sRGB profile.
    let decoded = crate::images::colour::decode(bytes).map_err(bad)?.image;
    let mut out = Vec::new();
    let mut encoder = image::codecs::png::PngEncoder::new(&mut out);
    image::ImageEncoder::set_icc_profile(&mut encoder, crate::images::colour::srgb_icc().to_vec())
        .map_err(|e| bad(image::ImageError::Unsupported(e)))?;
    let color = decoded.color().into();
    image::ImageEncoder::write_image(encoder, decoded.as_bytes(), decoded.width(), decoded.height(), color)
        .map_err(bad)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use serde_json::json;
    use wiremock::matchers::{header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::api::Quality;
    use crate::providers::{DevelopInput, Providers};
    use std::io::Cursor;

    const KEY: &str = "fal-test-key-123";

    fn png(w: u32, h: u32, shade: u8) -> Vec<u8> {
        let mut out = Vec::new();
        image::RgbImage::from_pixel(w, h, image::Rgb([shade, 40, 90]))
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("png");
        out
    }

    fn config(server: &MockServer, models: &[(&str, &str)]) -> FalConfig {
        FalConfig {
            base_url: server.uri(),
            key: KEY.to_string(),
            models: models.iter().map(|(t, m)| (t.to_string(), m.to_string())).collect(),
            poll_interval: Duration::from_millis(10),
            timeout: Duration::from_secs(10),
        }
    }

    fn input(role: &str, bytes: Vec<u8>) -> DevelopInput {
        DevelopInput { role: role.to_string(), bytes: Bytes::from(bytes), mime: "image/png".to_string() }
    }

    fn request(tool: &str, inputs: Vec<DevelopInput>) -> DevelopRequest {
        DevelopRequest {
            job_id: "job-1".to_string(),
            tool: tool.to_string(),
            quality: Quality::K2,
            inputs,
            params: BTreeMap::new(),
        }
    }

    fn queued_answer(server: &MockServer, id: &str) -> Value {
        json!({
            "request_id": id,
            "status_url": format!("{}/q/{id}/status", server.uri()),
            "response_url": format!("{}/q/{id}", server.uri()),
            "cancel_url": format!("{}/q/{id}/cancel", server.uri()),
        })
    }

    async fn mount_submit(server: &MockServer, model_path: &str, answer: ResponseTemplate) {
        Mock::given(method("POST")).and(path(model_path)).respond_with(answer).mount(server).await;
    }

    fn status(s: &str) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(json!({"status": s}))
    }

    fn data_uri_bytes(uri: &Value) -> Vec<u8> {
        let uri = uri.as_str().expect("a string");
        let payload = uri.strip_prefix("data:image/png;base64,").expect("a png data URI");
        crate::outbound::decode_base64(payload).expect("base64")
    }

    #[tokio::test]
    async fn a_tryon_goes_through_the_queue_and_comes_back_as_a_frame() {
        let server = MockServer::start().await;
        let (model, garment_a, garment_b, out) = (png(8, 8, 1), png(8, 8, 2), png(6, 4, 3), png(40, 30, 4));
        mount_submit(
            &server,
            "/fal-ai/tryon/v2",
            ResponseTemplate::new(200).set_body_json(queued_answer(&server, "r1")),
        )
        .await;
        let poll = || {
            Mock::given(method("GET")).and(path("/q/r1/status")).and(header("authorization", "Key fal-test-key-123"))
        };
        poll().respond_with(status("IN_QUEUE")).up_to_n_times(1).expect(1).mount(&server).await;
        poll().respond_with(status("IN_PROGRESS")).up_to_n_times(1).expect(1).mount(&server).await;
        poll().respond_with(status("COMPLETED")).expect(1).mount(&server).await;
        Mock::given(method("GET"))
            .and(path("/q/r1"))
            .and(header("authorization", "Key fal-test-key-123"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "images": [{"url": format!("{}/files/out.png", server.uri()), "content_type": "image/png", "width": 40, "height": 30}],
                "seed": 7,
            })))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/files/out.png"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(out.clone(), "image/png"))
            .expect(1)
            .mount(&server)
            .await;

        let provider = FalProvider::new(config(&server, &[("tryon", "fal-ai/tryon/v2")]));
        let mut req = request(
            "tryon",
            vec![
                input("model", model.clone()),
                input("garment", garment_a.clone()),
                input("garment", garment_b.clone()),
            ],
        );
        req.params.insert("prompt".to_string(), "linen, daylight".to_string());
        req.params.insert("resolution".to_string(), "8k".to_string());
        let output = provider.develop(req).await.expect("developed");
        assert_eq!(output.bytes, out);
        assert_eq!(output.mime, "image/png");
        assert_eq!((output.width, output.height), (40, 30));

        let received = server.received_requests().await.expect("recorded");
        let submit = received.iter().find(|r| r.method.as_str() == "POST").expect("a submit");
        assert_eq!(submit.headers.get("authorization").and_then(|v| v.to_str().ok()), Some("Key fal-test-key-123"));
        let body: Value = serde_json::from_slice(&submit.body).expect("json input");
        assert_eq!(data_uri_bytes(&body["model_image_url"]), model);
        assert_eq!(data_uri_bytes(&body["garment_image_url"]), garment_a);
        let garments = body["garment_image_urls"].as_array().expect("garment array");
        assert_eq!(garments.len(), 2);
        assert_eq!(data_uri_bytes(&garments[1]), garment_b);
        assert!(body.get("model_image_urls").is_none(), "a single image has no array");
        assert_eq!(body["prompt"], "linen, daylight");
        assert_eq!(body["resolution"], "2k", "the tier wins over an option of the same name");
        assert_eq!(body["long_edge"], 2048);
        let download = received.iter().find(|r| r.url.path() == "/files/out.png").expect("a download");
        assert!(download.headers.get("authorization").is_none(), "the key never goes to the file host");
    }

    #[tokio::test]
    async fn the_advertised_tools_are_the_configured_models() {
        let server = MockServer::start().await;
        let models =
            [("tryon", "fal-ai/a"), ("generate-character", "fal-ai/b"), ("lookbook-video", "fal-ai/c"), ("x", " ")];
        let provider = FalProvider::new(config(&server, &models));
        assert_eq!(provider.name(), "fal");
        assert_eq!(provider.tools(), vec!["generate-character", "lookbook-video", "tryon"]);
        assert_eq!(provider.required_roles("tryon"), &["model", "garment"]);
        assert!(provider.required_roles("generate-character").is_empty());
        assert_eq!(provider.required_roles("fit-adjust"), &["image"]);

        let routed = Providers::new(vec![Arc::new(provider)]);
        assert!(routed.get("tryon").is_some() && routed.get("upscale").is_none());

        let keyless = FalProvider::new(FalConfig { key: String::new(), ..config(&server, &models) });
        assert!(keyless.tools().is_empty(), "without a key nothing is advertised");
        let refused = keyless.develop(request("tryon", vec![])).await.expect_err("refused");
        assert!(matches!(refused, ProviderError::Rejected(_)));
        let unknown = FalProvider::new(config(&server, &models)).develop(request("upscale", vec![])).await;
        assert!(matches!(unknown, Err(ProviderError::Rejected(m)) if m.contains("no model")));
        assert!(server.received_requests().await.expect("recorded").is_empty());
    }

    #[tokio::test]
    async fn a_configured_lookbook_model_takes_the_tool_from_the_local_compositor() {
        let server = MockServer::start().await;
        let fal = FalProvider::new(config(&server, &[("lookbook", "fal-ai/look"), ("upscale", "fal-ai/upscaler")]));
        assert_eq!(fal.required_roles("lookbook"), &["model", "garment"]);
        let local: Arc<dyn Provider> = Arc::new(crate::providers::local::LocalProvider);
        let fal: Arc<dyn Provider> = Arc::new(fal);
        for order in [vec![local.clone(), fal.clone()], vec![fal.clone(), local.clone()]] {
            let routed = Providers::new(order);
            assert_eq!(routed.get("lookbook").map(|p| p.name()), Some("fal"), "the configured model wins");
            assert_eq!(routed.tools().iter().filter(|t| *t == "lookbook").count(), 1);
        }
        // A real local tool stays local when it comes first (the server's order).
        let routed = Providers::new(vec![local.clone(), fal]);
        assert_eq!(routed.get("upscale").map(|p| p.name()), Some("local"));
        // Without a model for it, the compositor runs the tool.
        let keyless = FalProvider::new(FalConfig { key: String::new(), ..config(&server, &[("lookbook", "m/x")]) });
        let routed = Providers::new(vec![local, Arc::new(keyless)]);
        assert_eq!(routed.get("lookbook").map(|p| p.name()), Some("local"));
    }

    #[tokio::test]
    async fn an_unprocessable_submit_is_rejected_with_the_upstream_message() {
        let server = MockServer::start().await;
        let detail = json!({"detail": [{"loc": ["body", "image_url"], "msg": "Image too small for fal-test-key-123", "type": "value_error"}]});
        mount_submit(&server, "/fal-ai/upscaler", ResponseTemplate::new(422).set_body_json(detail)).await;
        let provider = FalProvider::new(config(&server, &[("upscale", "fal-ai/upscaler")]));
        let err = provider.develop(request("upscale", vec![input("image", png(4, 4, 9))])).await.expect_err("rejected");
        let ProviderError::Rejected(message) = err else { panic!("expected Rejected, got {err:?}") };
        assert!(message.contains("422") && message.contains("image_url: Image too small"), "{message}");
        assert!(!message.contains(KEY), "the key never leaks: {message}");
    }

    #[tokio::test]
    async fn an_upstream_failure_or_rate_limit_is_unavailable() {
        for code in [500, 503, 429] {
            let server = MockServer::start().await;
            mount_submit(&server, "/fal-ai/upscaler", ResponseTemplate::new(code).set_body_string("boom")).await;
            let provider = FalProvider::new(config(&server, &[("upscale", "fal-ai/upscaler")]));
            let err =
                provider.develop(request("upscale", vec![input("image", png(4, 4, 9))])).await.expect_err("failed");
            assert!(matches!(&err, ProviderError::Unavailable(m) if m.contains("boom")), "{code}: {err:?}");
        }
        let server = MockServer::start().await;
        mount_submit(&server, "/fal-ai/upscaler", ResponseTemplate::new(200).set_body_string("{not json")).await;
        let provider = FalProvider::new(config(&server, &[("upscale", "fal-ai/upscaler")]));
        let err = provider.develop(request("upscale", vec![input("image", png(4, 4, 9))])).await.expect_err("failed");
        assert!(matches!(&err, ProviderError::Unavailable(m) if m.contains("malformed")), "{err:?}");
    }

    #[tokio::test]
    async fn a_failed_status_is_rejected() {
        for answer in [
            json!({"status": "FAILED", "error": "NSFW content detected"}),
            json!({"status": "COMPLETED", "error": "NSFW content detected", "error_type": "content_policy"}),
        ] {
            let server = MockServer::start().await;
            mount_submit(
                &server,
                "/fal-ai/iron",
                ResponseTemplate::new(200).set_body_json(queued_answer(&server, "r2")),
            )
            .await;
            Mock::given(method("GET"))
                .and(path("/q/r2/status"))
                .respond_with(ResponseTemplate::new(200).set_body_json(answer))
                .mount(&server)
                .await;
            Mock::given(method("GET")).and(path("/q/r2")).respond_with(status("unused")).expect(0).mount(&server).await;
            let provider = FalProvider::new(config(&server, &[("iron", "fal-ai/iron")]));
            let err = provider.develop(request("iron", vec![input("image", png(4, 4, 9))])).await.expect_err("failed");
            assert!(matches!(&err, ProviderError::Rejected(m) if m.contains("NSFW content detected")), "{err:?}");
        }
    }

    #[tokio::test]
    async fn a_request_past_the_timeout_is_cancelled() {
        let server = MockServer::start().await;
        mount_submit(&server, "/fal-ai/slow", ResponseTemplate::new(200).set_body_json(queued_answer(&server, "r3")))
            .await;
        Mock::given(method("GET")).and(path("/q/r3/status")).respond_with(status("IN_QUEUE")).mount(&server).await;
        Mock::given(method("PUT"))
            .and(path("/q/r3/cancel"))
            .and(header("authorization", "Key fal-test-key-123"))
            .respond_with(ResponseTemplate::new(202).set_body_json(json!({"status": "CANCELLATION_REQUESTED"})))
            .expect(1)
            .mount(&server)
            .await;
        let provider = FalProvider::new(FalConfig {
            timeout: Duration::from_millis(150),
            ..config(&server, &[("harmonize", "fal-ai/slow")])
        });
        let err =
            provider.develop(request("harmonize", vec![input("image", png(4, 4, 9))])).await.expect_err("timed out");
        assert_eq!(err, ProviderError::Unavailable("fal timed out after 150 ms".to_string()));
        server.verify().await;
    }

    #[tokio::test]
    async fn a_result_without_an_image_is_rejected() {
        let server = MockServer::start().await;
        mount_submit(&server, "/fal-ai/video", ResponseTemplate::new(200).set_body_json(queued_answer(&server, "r4")))
            .await;
        Mock::given(method("GET")).and(path("/q/r4/status")).respond_with(status("COMPLETED")).mount(&server).await;
        Mock::given(method("GET"))
            .and(path("/q/r4"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"video": {"url": "https://x/v.mp4"}})))
            .mount(&server)
            .await;
        let provider = FalProvider::new(config(&server, &[("lookbook-video", "fal-ai/video")]));
        let err = provider
            .develop(request("lookbook-video", vec![input("image", png(4, 4, 9))]))
            .await
            .expect_err("no image");
        assert!(matches!(&err, ProviderError::Rejected(m) if m.contains("no image") && m.contains("video")), "{err:?}");
    }

    #[tokio::test]
    async fn without_returned_urls_the_paths_are_built_and_inline_results_are_read() {
        let server = MockServer::start().await;
        let out = png(12, 20, 5);
        // The submit answers only the id: status and result live under the app id, no subpath.
        mount_submit(
            &server,
            "/fal-ai/flux/dev",
            ResponseTemplate::new(200).set_body_json(json!({"request_id": "r5"})),
        )
        .await;
        let poll = || Mock::given(method("GET")).and(path("/fal-ai/flux/requests/r5/status"));
        poll().respond_with(ResponseTemplate::new(503)).up_to_n_times(1).expect(1).mount(&server).await;
        poll().respond_with(status("COMPLETED")).expect(1).mount(&server).await;
        Mock::given(method("GET"))
            .and(path("/fal-ai/flux/requests/r5"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"image": {"url": crate::outbound::data_uri("image/png", &out)}})),
            )
            .expect(1)
            .mount(&server)
            .await;
        let provider = FalProvider::new(config(&server, &[("generate-character", "fal-ai/flux/dev")]));
        let mut req = request("generate-character", vec![]);
        req.quality = Quality::K4;
        let output = provider.develop(req).await.expect("developed");
        assert_eq!((output.bytes, output.width, output.height), (out, 12, 20));
        server.verify().await;
        let received = server.received_requests().await.expect("recorded");
        let body: Value = serde_json::from_slice(&received[0].body).expect("json");
        assert_eq!(body, json!({"resolution": "4k", "long_edge": 4096}));
    }

    #[tokio::test]
    async fn results_are_sniffed_and_webp_is_stored_as_png() {
        let mut webp = Vec::new();
        image::RgbaImage::from_pixel(9, 5, image::Rgba([1, 2, 3, 255]))
            .write_to(&mut Cursor::new(&mut webp), image::ImageFormat::WebP)
            .expect("webp");
        let output = output_from(webp).await.expect("converted");
        assert_eq!((output.mime.as_str(), output.width, output.height), ("image/png", 9, 5));
        assert_eq!(infer::get(&output.bytes).map(|k| k.mime_type()), Some("image/png"));

        let not_image = output_from(b"%PDF-1.7 not a frame".to_vec()).await.expect_err("refused");
        assert!(matches!(not_image, ProviderError::Rejected(m) if m.contains("application/pdf")));
        assert!(matches!(output_from(b"hello".to_vec()).await, Err(ProviderError::Rejected(_))));
        assert!(
            matches!(decode_data_uri("image/png,plain"), Err(ProviderError::Rejected(m)) if m.contains("not base64"))
        );
    }

    #[test]
    fn models_parse_and_the_key_stays_out_of_debug() {
        let models = FalConfig::parse_models(" tryon = fal-ai/tryon , ,upscale=fal-ai/esrgan/").expect("parsed");
        assert_eq!(models.get("tryon").map(String::as_str), Some("fal-ai/tryon"));
        assert_eq!(models.get("upscale").map(String::as_str), Some("fal-ai/esrgan"));
        assert!(FalConfig::parse_models("tryon").is_err());
        assert!(FalConfig::parse_models("tryon=").is_err());
        assert!(FalConfig::parse_models("a=b,a=c").is_err());
        assert!(FalConfig::parse_models("").expect("empty").is_empty());

        let config = FalConfig { key: KEY.to_string(), models, ..FalConfig::default() };
        let shown = format!("{:?}", FalProvider::new(config));
        assert!(!shown.contains(KEY) && shown.contains("<redacted>"), "{shown}");
    }
}
