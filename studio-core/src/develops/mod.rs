//! Develops: submit (multipart files or library assets), duplicate, takes, cancel and the
//! `since` backfill. Every path holds tokens for every frame in the same transaction that
//! queues it (storage `create_jobs`), so nothing is queued unpaid and a refusal writes nothing.

use crate::ids::UserId;
use crate::ids::{AssetId, JobId, LookId, ModelId, OrgId, RunId};
pub(crate) mod filing;
pub(crate) mod options;
pub(crate) mod preflight;
pub(crate) mod runner;
pub(crate) mod runs;
pub(crate) mod submit_cache;
pub(crate) mod verdict;

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::api::{
    CancelReason, CancelResponse, DevelopStatus, DuplicateRequest, DuplicateResponse, Job, JobList, JobStatus,
    OfferEvidence, Quality, RetakeOffer, StartDevelop, StartedDevelop, SubmitResponse, TakeJob, TakesRequest,
    TakesResponse,
};
use crate::blobs::BlobError;
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::events::HouseEvent;
use crate::ids::new_id;
use crate::images;
use crate::library::assets::accepted_image;
use crate::storage::{CancelOutcome, CreateJobsOutcome, JobRow, SubmitChecks, TakeRecord};
use submit_cache::InputImage;

/// Input roles a develop takes; a submit field with one of these names is an input.
pub const INPUT_ROLES: [&str; 5] = ["image", "garment", "model", "mask", "background"];
/// Most input images one develop may carry (garment repeats).
pub const MAX_INPUTS: usize = 8;
/// Submit fields that are never tool options.
const RESERVED_FIELDS: [&str; 3] = ["tool", "idempotencyKey", "brandId"];
/// The quality a submit without `quality` develops at.
const DEFAULT_QUALITY: Quality = Quality::K2;
/// Most frames one takes request may retake.
pub const MAX_TAKES: usize = 100;
/// Most jobs one backfill page returns; ask again from the last eventSeq for more.
pub const BACKFILL_PAGE: i64 = 1000;
/// list_develops: default page.
const DEFAULT_DEVELOPS: i64 = 20;
/// list_develops: the largest page (spec §8).
pub const MAX_DEVELOPS: i64 = 100;
/// Longest idempotency key, brand id and option value.
const MAX_FIELD_CHARS: usize = 2000;
/// Most options per develop.
const MAX_PARAMS: usize = 64;
const MAX_INPUT_BYTES: u64 = crate::images::MAX_IMAGE_MB * 1024 * 1024;

/// One stored input of a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JobInput {
    pub(crate) role: String,
    pub(crate) blob_key: String,
    pub(crate) mime: String,
    /// The library asset it came from, when it came from the library.
    pub(crate) asset_id: Option<String>,
}

/// A submit's file, streamed into the blob store before the form is complete.
#[derive(Debug)]
pub struct StagedInput {
    input: JobInput,
}

impl StagedInput {
    /// The role the image plays.
    pub fn role(&self) -> &str {
        &self.input.role
    }
}

/// A multipart submit, field by field (files are staged with [`Studio::stage_input`]).
#[derive(Debug, Default)]
pub struct SubmitForm {
    /// `tool`.
    pub tool: Option<String>,
    /// `idempotencyKey`.
    pub idempotency_key: Option<String>,
    /// `brandId`.
    pub brand_id: Option<String>,
    /// Every other text field, in order: an input role naming a library asset id, or an option.
    pub fields: Vec<(String, String)>,
    /// Staged files.
    pub files: Vec<StagedInput>,
}

/// What a new job needs besides what the caller gives.
#[derive(Clone)]
pub(crate) struct JobSpec {
    pub(crate) tool: String,
    pub(crate) quality: Quality,
    pub(crate) params: BTreeMap<String, String>,
    pub(crate) inputs: Vec<JobInput>,
    pub(crate) idempotency_key: Option<String>,
    pub(crate) brand_id: Option<String>,
    pub(crate) source_job_id: Option<String>,
    pub(crate) retry_of_job_id: Option<String>,
}

fn input_error(e: BlobError) -> Error {
    match e {
        BlobError::TooLarge { .. } => Error::new(
            ErrorKind::TooLarge,
            "IMAGE_TOO_LARGE",
            format!("Each image is at most {} MB.", crate::images::MAX_IMAGE_MB),
        )
        .with("maxMb", crate::images::MAX_IMAGE_MB),
        BlobError::Empty => Error::invalid("EMPTY_IMAGE", "An image field is empty."),
        BlobError::Unsupported(mime) => {
            Error::invalid("BAD_FORM", format!("Images are JPEG, PNG, WebP or GIF; this is {mime}."))
        }
        BlobError::Stream(detail) => Error::invalid("BAD_FORM", format!("The form did not arrive whole: {detail}")),
        other => Error::new(ErrorKind::Internal, "SUBMIT_FAILED", format!("The image could not be stored: {other}")),
    }
}

/// May one more input of `role` join the inputs whose roles are `taken`? Roles come from
/// [`INPUT_ROLES`]; only `garment` repeats; at most [`MAX_INPUTS`] in all.
pub fn check_input_role<'a>(taken: impl IntoIterator<Item = &'a str>, role: &str) -> Result<()> {
    if !INPUT_ROLES.contains(&role) {
        return Err(Error::invalid(
            "BAD_FORM",
            format!("{role:?} is not an input role; images go in {}.", INPUT_ROLES.join(", ")),
        ));
    }
    let taken: Vec<&str> = taken.into_iter().collect();
    if role != "garment" && taken.contains(&role) {
        return Err(Error::invalid("BAD_FORM", format!("One image per role; only garment repeats ({role}).")));
    }
    if taken.len() >= MAX_INPUTS {
        return Err(Error::invalid("BAD_FORM", format!("At most {MAX_INPUTS} images per develop.")));
    }
    Ok(())
}

/// A storage failure while queueing: nothing was written.
pub(crate) fn enqueue_failed(e: crate::storage::StorageError) -> Error {
    tracing::error!(error = %e, "queueing develops failed");
    Error::new(ErrorKind::Internal, "ENQUEUE_FAILED", "The develop could not be queued; nothing was charged. Retry.")
}

fn job_not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such job in this house.")
}

fn clean(value: Option<String>, what: &str) -> Result<Option<String>> {
    let value = value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if value.as_ref().is_some_and(|v| v.chars().count() > MAX_FIELD_CHARS) {
        return Err(Error::invalid("BAD_FORM", format!("{what} is at most {MAX_FIELD_CHARS} characters.")));
    }
    Ok(value)
}

fn parse_quality(raw: Option<&str>, default: Option<Quality>, code: &'static str) -> Result<Quality> {
    match raw.map(str::trim).filter(|q| !q.is_empty()) {
        Some(q) => q.parse().map_err(|_| Error::invalid(code, "quality is one of 1k, 2k, 4k.")),
        None => default.ok_or_else(|| Error::invalid(code, "quality is one of 1k, 2k, 4k.")),
    }
}

/// The rules every develop's options follow, whichever door they came through: `output` is
/// refused, at most [`MAX_PARAMS`] options, names of 1 to 100 bytes, values of at most
/// [`MAX_FIELD_CHARS`] characters.
pub(crate) fn check_params(params: &BTreeMap<String, String>, code: &'static str) -> Result<()> {
    if params.contains_key("output") {
        return Err(Error::invalid(code, "output is not an option: results are filed in the library."));
    }
    if params.len() > MAX_PARAMS {
        return Err(Error::invalid(code, format!("At most {MAX_PARAMS} options.")).with("max", MAX_PARAMS));
    }
    for (name, value) in params {
        if name.is_empty() || name.len() > 100 || value.chars().count() > MAX_FIELD_CHARS {
            return Err(Error::invalid(code, format!("Option {name:?} is empty or too long.")));
        }
    }
    Ok(())
}

impl JobRow {
    pub(crate) fn job_status(&self) -> JobStatus {
        self.status
    }

    pub(crate) fn params_map(&self) -> BTreeMap<String, String> {
        serde_json::from_str(&self.params).unwrap_or_default()
    }

    /// The options a duplicate or a take copies: a pipeline step's own (`pipelineStep`, and
    /// the run it belongs to) are left behind, so the new frame is not counted, cancelled or
    /// scheduled as part of that run.
    pub(crate) fn rerun_params(&self) -> BTreeMap<String, String> {
        let mut params = self.params_map();
        if params.remove("pipelineStep").is_some() {
            params.remove("runId");
        }
        params
    }

    pub(crate) fn input_list(&self) -> Vec<JobInput> {
        serde_json::from_str(&self.inputs).unwrap_or_default()
    }

    pub(crate) fn quality_tier(&self) -> Quality {
        self.quality.parse().unwrap_or(DEFAULT_QUALITY)
    }
}

crate::studio::view! {
    /// The develops domain (submit, the runner, runs, preflight, verdicts): `studio.develops()`.
    Develops over JobStore
}

impl Develops<'_> {
    /// The tools the configured providers can run, in the spec's order.
    pub fn runnable_tools(&self) -> Vec<&str> {
        self.studio.config.providers.tools().iter().map(String::as_str).collect()
    }

    /// The price of one frame of `tool` at `quality` today.
    pub(crate) fn frame_price(&self, tool: &str, quality: Quality) -> i64 {
        self.studio.config.prices.price(tool, quality, &self.runnable_tools())
    }

    fn unknown_tool(&self, tool: &str) -> Error {
        Error::invalid(
            "UNKNOWN_TOOL",
            format!("{tool:?} is not a tool this studio runs; it runs {}.", self.runnable_tools().join(", ")),
        )
    }

    pub(crate) fn job_view(&self, row: &JobRow) -> Job {
        Job {
            id: row.id.clone().into(),
            tool: row.tool.clone(),
            status: row.job_status(),
            result_url: row.result_asset_id.as_ref().map(|id| self.studio.library().asset_file_url(id)),
            result_asset_id: row.result_asset_id.clone().map(String::from),
            error: row.error.clone(),
            brand_id: row.brand_id.clone(),
            created_at: row.created_at,
            event_seq: row.event_seq,
        }
    }

    pub(crate) fn develop_status(&self, row: &JobRow) -> DevelopStatus {
        let job = self.job_view(row);
        DevelopStatus {
            job_id: job.id,
            tool: job.tool,
            status: job.status,
            result_url: job.result_url,
            result_asset_id: job.result_asset_id,
            error: job.error,
            tokens_estimated: row.tokens,
            tokens_settled: row.tokens_settled,
            created_at: row.created_at,
            finished_at: row.finished_at,
        }
    }

    /// The socket messages of the house's jobs whose latest change is newer than `since`, oldest
    /// change first, at most `limit` (each job as it is now: a change it went through since and
    /// left is not kept).
    pub(crate) async fn job_changes_since(&self, org_id: &OrgId, since: i64, limit: i64) -> Result<Vec<HouseEvent>> {
        let rows = self.store.jobs_since(org_id, since, limit).await?;
        Ok(rows.iter().map(|row| HouseEvent::new(org_id, &json!({"type": "job", "job": self.job_view(row)}))).collect())
    }

    /// Tell every socket of the house (on every replica sharing the database) that a job changed.
    pub(crate) async fn publish_job(&self, row: &JobRow) {
        let message = json!({"type": "job", "job": self.job_view(row)});
        let event = HouseEvent::new(&row.org_id, &message);
        if row.params.contains(crate::webhooks::WEBHOOK_URL_FIELD)
            && let Ok(options) = serde_json::from_str::<BTreeMap<String, String>>(&row.params)
        {
            self.studio.webhooks().enqueue_for_develop(&options, &event).await;
        }
        self.studio.publish(event).await;
    }

    /// Refuse a caller who may not develop before anything is read or stored.
    pub fn check_can_develop(&self, caller: &Caller) -> Result<()> {
        caller.require_spend_tokens()
    }

    /// Stream one submitted file into the blob store: sniffed, capped at 12 MB, followed to its
    /// end (a file cut short is refused) and checked against the pixel limits. Nothing is held yet; [`Studio::submit_develop`] takes it over,
    /// and [`Studio::abandon_inputs`] removes it if the request fails first.
    pub async fn stage_input<S, E>(&self, caller: &Caller, role: &str, body: S) -> Result<StagedInput>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        caller.require_spend_tokens()?;
        let key = format!("orgs/{}/inputs/{}", caller.org_id, new_id("in"));
        let mut whole = images::Whole::default();
        let body = body.inspect_ok(|chunk| whole.feed(chunk));
        let blob =
            self.studio.blobs.put_stream(&key, body, MAX_INPUT_BYTES, accepted_image).await.map_err(input_error)?;
        let staged = StagedInput {
            input: JobInput { role: role.to_string(), blob_key: blob.key.clone(), mime: blob.mime, asset_id: None },
        };
        let checked = if whole.is_whole() {
            images::header_dimensions(&blob.head).map(|_| ())
        } else {
            Err(images::cut_short(&format!("The {role} image")))
        };
        if let Err(e) = checked {
            self.abandon_inputs(vec![staged]).await;
            return Err(e);
        }
        Ok(staged)
    }

    /// Remove staged files of a request that failed.
    pub async fn abandon_inputs(&self, staged: Vec<StagedInput>) {
        for s in staged {
            if let Err(e) = self.studio.blobs.delete(&s.input.blob_key).await {
                tracing::warn!(error = %e, key = %s.input.blob_key, "could not remove a staged input");
            }
        }
    }

    /// `POST /api/toolkit/jobs/submit`: validate the form, hold the price and queue the job.
    /// Staged files are removed on any refusal and on an idempotent replay.
    pub async fn submit_develop(&self, caller: &Caller, mut form: SubmitForm) -> Result<SubmitResponse> {
        let files = std::mem::take(&mut form.files);
        let staged_keys: Vec<String> = files.iter().map(|f| f.input.blob_key.clone()).collect();
        let result = self.submit_form(caller, form, files.into_iter().map(|f| f.input).collect()).await;
        let keep = matches!(&result, Ok(r) if !r.replayed);
        if !keep {
            for key in staged_keys {
                let _ = self.studio.blobs.delete(&key).await;
            }
        }
        result
    }

    async fn submit_form(&self, caller: &Caller, form: SubmitForm, files: Vec<JobInput>) -> Result<SubmitResponse> {
        caller.require_spend_tokens()?;
        let tool = clean(form.tool, "tool")?.ok_or_else(|| Error::invalid("UNKNOWN_TOOL", "Name a tool."))?;
        let provider = self.studio.config.providers.get(&tool).ok_or_else(|| self.unknown_tool(&tool))?.clone();
        let idempotency_key = clean(form.idempotency_key, "idempotencyKey")?;
        let brand_id = clean(form.brand_id, "brandId")?;
        let inputs = files;
        // Library images by role, read when the job is planned (through the submit cache).
        let mut by_asset: Vec<(String, String)> = Vec::new();
        let mut params = BTreeMap::new();
        for (name, value) in form.fields {
            if RESERVED_FIELDS.contains(&name.as_str()) {
                continue;
            }
            if INPUT_ROLES.contains(&name.as_str()) {
                let roles = inputs.iter().map(|i| i.role.as_str()).chain(by_asset.iter().map(|(r, _)| r.as_str()));
                check_input_role(roles, &name)?;
                by_asset.push((name, value));
                continue;
            }
            params.insert(name, value);
        }
        check_params(&params, "BAD_FORM")?;
        self.check_develop_folder(caller, &mut params).await?;
        self.studio.webhooks().check_develop_webhook(caller, &mut params).await?;
        if tool == crate::lookbook::LOOK_TOOL && params.contains_key("lookId") {
            return Err(Error::invalid(
                "BAD_FORM",
                "A look develops through POST /api/toolkit/lookbook/looks/{id}/develop-lock or its variations.",
            ));
        }
        if inputs.is_empty() && by_asset.is_empty() && !provider.required_roles(&tool).is_empty() {
            return Err(Error::invalid("NO_IMAGE", "Send the image to develop in the `image` field."));
        }
        for role in provider.required_roles(&tool) {
            if !inputs.iter().any(|i| i.role == *role) && !by_asset.iter().any(|(r, _)| r == role) {
                return Err(Error::invalid("NO_IMAGE", format!("{tool} needs an image in the `{role}` field.")));
            }
        }
        let quality = parse_quality(params.get("quality").map(String::as_str), Some(DEFAULT_QUALITY), "BAD_FORM")?;
        let roles: Vec<&str> =
            inputs.iter().map(|i| i.role.as_str()).chain(by_asset.iter().map(|(r, _)| r.as_str())).collect();
        options::check_tool_options(&*provider, &tool, &params, quality, &roles)?;
        let spec = JobSpec {
            tool,
            quality,
            params,
            inputs,
            idempotency_key,
            brand_id,
            source_job_id: None,
            retry_of_job_id: None,
        };
        let (row, replayed) = self.queue_on_inputs(caller, spec, &by_asset, "NOT_FOUND").await?;
        Ok(SubmitResponse {
            job_id: row.id.clone().into(),
            status: row.job_status(),
            tokens_held: if replayed { 0 } else { row.tokens },
            replayed,
        })
    }

    /// The agent endpoint's start_develop: inputs are library assets by role. The roles follow
    /// the submit's rules ([`check_input_role`]: a known role, one asset per role, at most
    /// [`MAX_INPUTS`]), refused as `BAD_INPUTS` before anything is held.
    pub async fn start_develop(&self, caller: &Caller, req: StartDevelop) -> Result<StartedDevelop> {
        caller.require_spend_tokens()?;
        let tool = req.tool.trim().to_string();
        if tool == crate::lookbook::LOOK_TOOL && req.params.contains_key("lookId") {
            return self.studio.lookbook().start_develop(caller, req).await;
        }
        let provider = self.studio.config.providers.get(&tool).ok_or_else(|| self.unknown_tool(&tool))?.clone();
        let quality = parse_quality(Some(&req.quality), None, "BAD_QUALITY")?;
        check_params(&req.params, "BAD_PARAMS")?;
        let mut req = req;
        if let Some(folder) = req.folder_id.take() {
            req.params.insert(filing::FOLDER_FIELD.to_string(), folder);
        }
        if let Some(url) = req.webhook_url.take() {
            req.params.insert(crate::webhooks::WEBHOOK_URL_FIELD.to_string(), url);
        }
        self.check_develop_folder(caller, &mut req.params).await?;
        self.studio.webhooks().check_develop_webhook(caller, &mut req.params).await?;
        let idempotency_key = clean(req.idempotency_key.clone(), "idempotencyKey")?;
        let mut taken: Vec<&str> = Vec::with_capacity(req.inputs.len());
        for role in req.inputs.keys() {
            check_input_role(taken.iter().copied(), role).map_err(|e| Error { code: "BAD_INPUTS", ..e })?;
            taken.push(role);
        }
        for role in provider.required_roles(&tool) {
            if !req.inputs.contains_key(*role) {
                return Err(Error::invalid("NO_INPUTS", format!("{tool} needs inputs.{role} (an asset id).")));
            }
        }
        let roles: Vec<&str> = req.inputs.keys().map(String::as_str).collect();
        options::check_tool_options(&*provider, &tool, &req.params, quality, &roles)?;
        let spec = JobSpec {
            tool,
            quality,
            params: req.params,
            inputs: Vec::with_capacity(req.inputs.len()),
            idempotency_key: idempotency_key.clone(),
            brand_id: None,
            source_job_id: None,
            retry_of_job_id: None,
        };
        let by_asset: Vec<(String, String)> = req.inputs.into_iter().collect();
        let (row, replayed) = self.queue_on_inputs(caller, spec, &by_asset, "ASSET_NOT_FOUND").await?;
        Ok(StartedDevelop {
            job_id: row.id.clone().into(),
            status: row.job_status(),
            tokens_held: if replayed { 0 } else { row.tokens },
            idempotency_key,
        })
    }

    /// A live library image of the house as an input: its blob key and type. A model's id
    /// (`mdl_…`) names its first identity frame when the house may cast it (its own, held or
    /// free; a catalog model's frame lives in its publisher's library), so develops cast it by id.
    pub(crate) async fn input_asset(&self, caller: &Caller, id: &str, code: &'static str) -> Result<(String, String)> {
        self.input_image(caller, id, code, true, &mut SubmitChecks::default()).await
    }

    /// [`Studio::input_asset`], a library image taken from the submit cache unless `fresh`; a
    /// cached image is named in `checks`, so the transaction that holds the tokens confirms it
    /// is still live. A fresh read is kept for the next submit.
    async fn input_image(
        &self,
        caller: &Caller,
        id: &str,
        code: &'static str,
        fresh: bool,
        checks: &mut SubmitChecks,
    ) -> Result<(String, String)> {
        let image = if id.starts_with(crate::models::MODEL_ID_PREFIX) {
            let a = self
                .studio
                .models()
                .model_reference_asset(caller, &ModelId::from(id))
                .await?
                .ok_or_else(|| Error::not_found(code, format!("No model {id:?} this house may cast.")))?;
            InputImage { org_id: caller.org_id.to_string(), blob_key: a.blob_key, mime: a.mime, bytes: a.bytes }
        } else if let Some(image) = self.studio.submit_cache.image(id).filter(|_| !fresh) {
            checks.live_assets.push(id.to_string());
            image
        } else {
            match self.studio.library().asset(&AssetId::from(id)).await? {
                Some(a) if a.deleted_at.is_none() => {
                    let image =
                        InputImage { org_id: a.org_id.to_string(), blob_key: a.blob_key, mime: a.mime, bytes: a.bytes };
                    self.studio.submit_cache.keep_image(id, image.clone());
                    image
                }
                _ => return Err(Error::not_found(code, format!("No asset {id:?} in this house."))),
            }
        };
        if image.org_id != caller.org_id {
            return Err(Error::not_found(code, format!("No asset {id:?} in this house.")));
        }
        if image.bytes as u64 > MAX_INPUT_BYTES {
            return Err(input_error(BlobError::TooLarge { max: MAX_INPUT_BYTES }));
        }
        Ok((image.blob_key, image.mime))
    }

    pub(crate) fn new_job(&self, caller: &Caller, spec: JobSpec) -> JobRow {
        self.new_job_for(&caller.org_id, Some(caller.user_id.clone()), spec)
    }

    /// A new queued job of a house on its own hold, priced today.
    pub(crate) fn new_job_for(&self, org_id: &OrgId, user_id: Option<UserId>, spec: JobSpec) -> JobRow {
        let tokens = self.frame_price(&spec.tool, spec.quality);
        JobRow {
            run_id: (spec.params.get("runId").cloned()).map(RunId::from),
            look_id: (spec.params.get("lookId").cloned()).map(LookId::from),
            stage: spec.params.get("stage").cloned(),
            params: serde_json::to_string(&spec.params).unwrap_or_else(|_| "{}".into()),
            inputs: serde_json::to_string(&spec.inputs).unwrap_or_else(|_| "[]".into()),
            idempotency_key: spec.idempotency_key,
            brand_id: spec.brand_id,
            source_job_id: spec.source_job_id.map(JobId::from),
            retry_of_job_id: spec.retry_of_job_id.map(JobId::from),
            created_at: crate::ids::now(),
            ..JobRow::queued(new_id("job"), org_id, user_id, &spec.tool, spec.quality.as_str(), tokens)
        }
    }

    /// Hold and queue one job; true when an earlier request with the same key answered instead.
    async fn queue_one(&self, caller: &Caller, spec: JobSpec) -> Result<(JobRow, bool)> {
        self.queue_on_inputs(caller, spec, &[], "NOT_FOUND").await
    }

    /// Hold and queue one job with the library images `by_asset` (role, asset id) added to its
    /// inputs (missing: 404 `code`). It is planned on the submit cache first: its images and the
    /// house's brand profile, confirmed where its tokens are held. When the house changed under
    /// it, it is planned again on fresh reads, which carry no checks and so are never stale
    /// (develops/submit_cache.rs).
    async fn queue_on_inputs(
        &self,
        caller: &Caller,
        spec: JobSpec,
        by_asset: &[(String, String)],
        code: &'static str,
    ) -> Result<(JobRow, bool)> {
        for fresh in [false, true] {
            let mut checks = SubmitChecks::default();
            let mut planned = spec.clone();
            for (role, asset_id) in by_asset {
                let (blob_key, mime) = self.input_image(caller, asset_id.trim(), code, fresh, &mut checks).await?;
                planned.inputs.push(JobInput { role: role.clone(), blob_key, mime, asset_id: Some(asset_id.clone()) });
            }
            if let Some(queued) = self.queue_checked(caller, planned, checks, fresh).await? {
                return Ok(queued);
            }
        }
        Err(Error::internal("a submit planned on fresh reads came back stale"))
    }

    /// Hold and queue one job planned on `checks` and the house's brand profile, both from the
    /// submit cache unless `fresh`. None when the cache was stale: its entries are forgotten and
    /// nothing was written.
    async fn queue_checked(
        &self,
        caller: &Caller,
        spec: JobSpec,
        mut checks: SubmitChecks,
        fresh: bool,
    ) -> Result<Option<(JobRow, bool)>> {
        let mut jobs = vec![self.new_job(caller, spec)];
        let org_id = &caller.org_id;
        let profile = match self.studio.submit_cache.brand(org_id).filter(|_| !fresh) {
            Some(profile) => {
                checks.brand = Some(profile.clone());
                profile
            }
            None => {
                let profile = self.studio.brand().profile_row(org_id).await?;
                self.studio.submit_cache.keep_brand(org_id, profile.clone());
                profile
            }
        };
        self.studio.brand().carry_profile(&mut jobs, profile.as_ref()).await?;
        let outcome = self.store.create_jobs(jobs, None, checks.clone()).await.map_err(enqueue_failed)?;
        if outcome == CreateJobsOutcome::Stale {
            self.studio.submit_cache.forget(org_id, &checks.live_assets);
            return Ok(None);
        }
        let mut rows = self.queued(outcome).await?;
        rows.pop().map(Some).ok_or_else(|| Error::internal("no job came back from create_jobs"))
    }

    /// Hold and queue jobs all together; announce them and wake the runner.
    async fn queue(&self, mut jobs: Vec<JobRow>, take: Option<TakeRecord>) -> Result<Vec<(JobRow, bool)>> {
        self.studio.brand().carry(&mut jobs).await?;
        let outcome = self.store.create_jobs(jobs, take, SubmitChecks::default()).await.map_err(enqueue_failed)?;
        self.queued(outcome).await
    }

    /// Announce newly created jobs and wake the runner; map a refusal to its error.
    pub(crate) async fn queued(&self, outcome: CreateJobsOutcome) -> Result<Vec<(JobRow, bool)>> {
        match outcome {
            CreateJobsOutcome::Created(rows) => {
                for row in &rows {
                    self.publish_job(row).await;
                }
                self.studio.job_wakeup.notify_waiters();
                self.studio.job_wakeup.notify_one();
                Ok(rows.into_iter().map(|r| (r, false)).collect())
            }
            CreateJobsOutcome::Existing(rows) => Ok(rows.into_iter().map(|r| (r, true)).collect()),
            CreateJobsOutcome::KeyReused => Err(Error::conflict(
                "IDEMPOTENCY_KEY_REUSED",
                "This idempotency key was used for a different set of frames.",
            )),
            CreateJobsOutcome::Insufficient { need, spendable } => Err(Error::insufficient(need, spendable)),
            CreateJobsOutcome::Stale => Err(Error::internal("a submit that checked nothing came back stale")),
        }
    }

    /// A job of the caller's house.
    pub(crate) async fn own_job(&self, caller: &Caller, id: &JobId) -> Result<JobRow> {
        self.store.job(&caller.org_id, id).await?.ok_or_else(job_not_found)
    }

    /// The house's newest jobs, at most `limit`, of any status.
    pub(crate) async fn recent_develops(&self, org_id: &OrgId, limit: i64) -> Result<Vec<JobRow>> {
        Ok(self.store.list_jobs(org_id, None, limit).await?)
    }

    /// The job of the house that made asset `asset_id` (its result), if a develop made it.
    pub(crate) async fn origin_job(&self, org_id: &OrgId, asset_id: &AssetId) -> Result<Option<JobRow>> {
        Ok(self.store.job_made(org_id, asset_id).await?)
    }

    /// One develop's status (the agent endpoint's get_develop).
    pub async fn get_develop(&self, caller: &Caller, job_id: &JobId) -> Result<DevelopStatus> {
        Ok(self.develop_status(&self.own_job(caller, job_id).await?))
    }

    /// The house's develops, newest first (the agent endpoint's list_develops): `limit` 1 to
    /// 100 (default 20), optionally of one status.
    pub async fn list_develops(
        &self,
        caller: &Caller,
        status: Option<&str>,
        limit: Option<i64>,
    ) -> Result<Vec<DevelopStatus>> {
        let status = match status.map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(JobStatus::parse(s).ok_or_else(|| {
                Error::invalid("BAD_STATUS", "status is one of queued, running, done, failed, cancelled.")
            })?),
        };
        let limit = limit.unwrap_or(DEFAULT_DEVELOPS);
        if !(1..=MAX_DEVELOPS).contains(&limit) {
            return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_DEVELOPS}.")).with("max", MAX_DEVELOPS));
        }
        let rows = self.store.list_jobs(&caller.org_id, status.map(JobStatus::as_str), limit).await?;
        Ok(rows.iter().map(|r| self.develop_status(r)).collect())
    }

    /// `GET /api/toolkit/jobs?since=N`: the house's job changes after the cursor, ascending.
    pub async fn jobs_since(&self, caller: &Caller, since: Option<&str>) -> Result<JobList> {
        let since =
            match since.map(str::trim) {
                None | Some("") => 0,
                Some(s) => s.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                    Error::invalid("BAD_SINCE", "since is a non-negative whole number (an eventSeq).")
                })?,
            };
        let rows = self.store.jobs_since(&caller.org_id, since, BACKFILL_PAGE).await?;
        Ok(JobList { jobs: rows.iter().map(|r| self.job_view(r)).collect() })
    }

    /// `POST /api/toolkit/jobs/{id}/cancel`: a queued job is cancelled and released; a
    /// rendering one finishes and costs; an ended one is unchanged.
    pub async fn cancel_job(&self, caller: &Caller, id: &JobId) -> Result<CancelResponse> {
        caller.require_spend_tokens()?;
        match self.cancel_in(&caller.org_id, id).await? {
            CancelOutcome::NotFound => Err(job_not_found()),
            CancelOutcome::Cancelled(row) => Ok(CancelResponse {
                id: row.id.into(),
                cancelled: true,
                state: JobStatus::Cancelled,
                tokens_released: row.tokens,
                reason: None,
            }),
            CancelOutcome::Unchanged(row) => {
                let state = row.job_status();
                let reason = if state == JobStatus::Running {
                    CancelReason::AlreadyRendering
                } else {
                    CancelReason::AlreadySettled
                };
                Ok(CancelResponse {
                    id: row.id.into(),
                    cancelled: false,
                    state,
                    tokens_released: 0,
                    reason: Some(reason),
                })
            }
        }
    }

    /// Cancel a house's queued job (its hold released in the same transaction, once), announce
    /// it and let its pipeline know: the one cancel path of the house's own route and the admin
    /// console's action.
    pub(crate) async fn cancel_in(&self, org_id: &OrgId, id: &JobId) -> Result<CancelOutcome> {
        let outcome = self.store.cancel_job(org_id, id, crate::ids::now()).await?;
        if let CancelOutcome::Cancelled(row) = &outcome {
            self.publish_job(row).await;
            self.studio.pipelines().after_job_end(row).await;
        }
        Ok(outcome)
    }

    /// Cancel a house's queued job and release its hold, in storage only: the caller announces
    /// it and tells its pipeline (where [`Develops::cancel_in`] does both).
    pub(crate) async fn cancel_queued(&self, org_id: &OrgId, id: &JobId) -> Result<CancelOutcome> {
        Ok(self.store.cancel_job(org_id, id, crate::ids::now()).await?)
    }

    /// A new develop of a stored job's request for the same house and person, held and queued
    /// through the same path as a duplicate (today's price, one new hold; 402 when the house
    /// cannot pay), linked by `sourceJobId`.
    pub(crate) async fn develop_again(&self, source: &JobRow) -> Result<JobRow> {
        let spec = self.again_spec(source, None)?;
        let job = self.new_job_for(&source.org_id, source.user_id.clone(), spec);
        let mut rows = self.queue(vec![job], None).await?;
        let (row, _) = rows.pop().ok_or_else(|| Error::internal("no job came back from create_jobs"))?;
        Ok(row)
    }

    /// A stored job's request as a new develop linked by `sourceJobId` (its params as they
    /// were, its brand, `key` as the idempotency key), when it can run again today.
    fn again_spec(&self, source: &JobRow, key: Option<String>) -> Result<JobSpec> {
        Ok(JobSpec {
            tool: source.tool.clone(),
            quality: source.quality_tier(),
            params: source.rerun_params(),
            inputs: self.rerunnable(source, &source.rerun_params())?,
            idempotency_key: key,
            brand_id: source.brand_id.clone(),
            source_job_id: Some(source.id.clone().into()),
            retry_of_job_id: None,
        })
    }

    /// Check that a stored job can run again today with `params`: its tool is runnable, its
    /// inputs exist, and the provider that runs the tool today reads its options (400
    /// `BAD_PARAMS` before anything is held, as a new submit would be refused).
    fn rerunnable(&self, source: &JobRow, params: &BTreeMap<String, String>) -> Result<Vec<JobInput>> {
        let Some(provider) = self.studio.config.providers.get(&source.tool) else {
            return Err(Error::new(
                ErrorKind::Unprocessable,
                "UNKNOWN_TOOL",
                format!("{} is no longer a tool this studio runs.", source.tool),
            ));
        };
        let inputs = source.input_list();
        for role in provider.required_roles(&source.tool) {
            if !inputs.iter().any(|i| i.role == *role) {
                return Err(Error::new(ErrorKind::Unprocessable, "NO_INPUTS", "The job's inputs are gone."));
            }
        }
        let roles: Vec<&str> = inputs.iter().map(|i| i.role.as_str()).collect();
        options::check_tool_options(&**provider, &source.tool, params, source.quality_tier(), &roles)?;
        Ok(inputs)
    }

    /// `POST /api/toolkit/jobs/{id}/duplicate`: the same develop again with a fresh hold; params
    /// copied verbatim, the source never billed again.
    pub async fn duplicate_job(&self, caller: &Caller, id: &JobId, req: DuplicateRequest) -> Result<DuplicateResponse> {
        caller.require_spend_tokens()?;
        let source = self.own_job(caller, id).await?;
        let key = clean(req.idempotency_key, "idempotencyKey")?.map(|k| format!("duplicate:{}:{k}", source.id));
        let spec = self.again_spec(&source, key)?;
        let (row, replayed) = self.queue_one(caller, spec).await?;
        Ok(DuplicateResponse {
            job_id: row.id.clone().into(),
            status: row.job_status(),
            cost: if replayed { 0 } else { row.tokens },
        })
    }

    /// `POST /api/toolkit/takes`: develop landed frames again. Every frame is held before any
    /// is queued (one transaction); any refusal holds nothing. Returns true in `.1` on a replay.
    pub async fn take_again(&self, caller: &Caller, req: TakesRequest) -> Result<(TakesResponse, bool)> {
        caller.require_spend_tokens()?;
        let ids = req.job_ids.unwrap_or_default();
        let ids: Vec<String> = ids.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect();
        if ids.is_empty() {
            return Err(Error::invalid("BAD_BODY", "jobIds names at least one frame."));
        }
        if ids.len() > MAX_TAKES {
            return Err(
                Error::invalid("BAD_BODY", format!("At most {MAX_TAKES} frames per request.")).with("max", MAX_TAKES)
            );
        }
        let unique: BTreeSet<&String> = ids.iter().collect();
        if unique.len() != ids.len() {
            return Err(Error::invalid("BAD_BODY", "jobIds names each frame once."));
        }
        let direction = clean(req.direction, "direction")?;
        let key = clean(req.idempotency_key, "idempotencyKey")?;
        let mut sources = Vec::with_capacity(ids.len());
        for id in &ids {
            let source = self.own_job(caller, &JobId::from(id)).await?;
            if source.job_status() != JobStatus::Done {
                return Err(Error::conflict(
                    "NOT_DEVELOPED",
                    format!(
                        "Frame {id} has not been developed yet ({}); only landed frames can be taken again.",
                        source.status
                    ),
                ));
            }
            sources.push(source);
        }
        let mut jobs = Vec::with_capacity(sources.len());
        for source in &sources {
            let mut params = source.rerun_params();
            if let Some(d) = &direction {
                params.insert("direction".to_string(), d.clone());
            }
            let inputs = self.rerunnable(source, &params)?;
            let spec = JobSpec {
                tool: source.tool.clone(),
                quality: source.quality_tier(),
                params,
                inputs,
                idempotency_key: None,
                brand_id: source.brand_id.clone(),
                source_job_id: None,
                retry_of_job_id: Some(source.id.clone().into()),
            };
            jobs.push(self.new_job(caller, spec));
        }
        let take = key.map(|k| {
            let sorted: BTreeSet<&String> = ids.iter().collect();
            TakeRecord {
                user_id: caller.user_id.clone(),
                idempotency_key: k,
                source_ids: serde_json::to_string(&sorted).unwrap_or_default(),
            }
        });
        let rows = self.queue(jobs, take).await?;
        let replayed = rows.first().is_some_and(|r| r.1);
        let offer = direction.map(|said| RetakeOffer {
            text: said.clone(),
            scope_tools: sources.iter().map(|s| s.tool.clone()).collect::<BTreeSet<_>>().into_iter().collect(),
            evidence: sources
                .iter()
                .map(|s| OfferEvidence {
                    job_id: s.id.clone().into(),
                    tool: s.tool.clone(),
                    said: said.clone(),
                    at: rows.first().map(|r| r.0.created_at).unwrap_or_else(crate::ids::now),
                    shoot: s.run_id.clone().map(String::from),
                })
                .collect(),
            already_standing: Vec::new(),
        });
        let jobs = rows
            .iter()
            .map(|(r, _)| TakeJob {
                job_id: r.id.clone().into(),
                source_job_id: r.retry_of_job_id.clone().unwrap_or_default().into(),
                tokens: r.tokens,
            })
            .collect();
        Ok((TakesResponse { jobs, offer, replayed }, replayed))
    }
}
