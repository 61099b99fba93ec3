//! Pipeline runs: start (every step's hold reserved in the transaction that records the run,
//! before any job row exists), the run's view derived from its steps and their jobs (so its
//! counts are true at every moment), the list, the detail and cancel.

use crate::ids::{FolderId, HoldId, OrgId, PresetId, RunId};
use crate::pipelines::Pipelines;
use serde::{Deserialize, Serialize};

use super::{Source, parse_items, parse_plan, wire_source};
use crate::api::JobStatus;
use crate::api::{
    NodeProgress, PipelineCancelResponse, PipelineRun, PipelineRunDetail, PipelineRunList, PipelineRunRequest,
    PipelineRunStarted, Plan, Quality, RunStep, StepCounts, StepSource,
};
use crate::caller::Caller;
use crate::develops::{JobInput, JobSpec, enqueue_failed};
use crate::error::{Error, Result};
use crate::ids::{now, sha256_hex};
use crate::storage::{
    CancelOutcome, CreateJobsOutcome, JobRow, PipelineRunRow, PipelineStepRow, RunCreateOutcome, StepState,
};
use crate::storage::{RunStatus, StepStatus};

/// Most runs a listing shows.
pub const RUNS_LISTED: i64 = 50;
/// Longest idempotency key and brand id.
const MAX_KEY_CHARS: usize = 200;

/// One input of a stored step: an asset of the item, or an upstream step's frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StoredInput {
    pub(super) role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) asset_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) blob_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) mime: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) step: Option<usize>,
}

/// A step's state as the wire shows it: waiting, queued, running, done, failed or cancelled.
pub(super) fn step_status(s: &StepState) -> &str {
    match s.step.status.as_str() {
        "started" => s.job_status.as_deref().unwrap_or("queued"),
        other => other,
    }
}

fn counts<'a>(states: impl Iterator<Item = &'a StepState>) -> StepCounts {
    let mut c = StepCounts::default();
    for s in states {
        c.total += 1;
        match step_status(s) {
            "done" => c.done += 1,
            "failed" => c.failed += 1,
            "cancelled" => c.cancelled += 1,
            _ => c.active += 1,
        }
    }
    c
}

/// A run's status from its counts: developing while a step is active, then done (every step
/// landed), cancelled (a cancel was asked and cancelled something), failed (nothing landed) or
/// settled (mixed endings).
pub(super) fn run_status(c: &StepCounts, cancel_requested: bool) -> &'static str {
    if c.active > 0 {
        "developing"
    } else if c.done == c.total {
        "done"
    } else if cancel_requested && c.cancelled > 0 {
        "cancelled"
    } else if c.done == 0 && c.failed > 0 {
        "failed"
    } else if c.done == 0 {
        "cancelled"
    } else {
        "settled"
    }
}

/// `run_<uuid>` from either `run_<uuid>` or the develop-run id `run.<uuid>`.
pub(crate) fn run_row_id(id: &str) -> String {
    match id.strip_prefix("run.") {
        Some(uuid) => format!("run_{uuid}"),
        None => id.to_string(),
    }
}

fn clean(value: Option<String>, what: &str) -> Result<Option<String>> {
    let value = value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if value.as_ref().is_some_and(|v| v.chars().count() > MAX_KEY_CHARS) {
        return Err(Error::invalid("BAD_BODY", format!("{what} is at most {MAX_KEY_CHARS} characters.")));
    }
    Ok(value)
}

fn run_not_found() -> Error {
    Error::not_found("NOT_FOUND", "No such pipeline run in this house.")
}

impl Pipelines<'_> {
    /// The job that develops a step, on its step's hold and at the price held.
    pub(super) fn step_job(&self, run: &PipelineRunRow, step: &PipelineStepRow, inputs: Vec<JobInput>) -> JobRow {
        let mut params: std::collections::BTreeMap<String, String> =
            serde_json::from_str(&step.params).unwrap_or_default();
        params.insert("runId".into(), run.id.trim_start_matches("run_").to_string());
        params.insert("pipelineStep".into(), step.id.clone());
        if let Some(sink) = &step.sink_folder_id {
            params.insert("destination".into(), sink.clone().into());
        }
        let spec = JobSpec {
            tool: step.tool.clone(),
            quality: step.quality.parse().unwrap_or(Quality::K2),
            params,
            inputs,
            idempotency_key: None,
            brand_id: run.brand_id.clone(),
            source_job_id: None,
            retry_of_job_id: None,
        };
        let mut job = self.studio.develops().new_job_for(&run.org_id, run.user_id.clone(), spec);
        job.hold_id = step.hold_id.clone();
        job.tokens = step.tokens;
        job
    }

    /// `POST /api/toolkit/pipelines/runs`: compile, then hold every step and queue the steps
    /// that can start, in one transaction: a shortfall is 402 with nothing written.
    pub async fn start_pipeline_run(&self, caller: &Caller, req: PipelineRunRequest) -> Result<PipelineRunStarted> {
        caller.require_spend_tokens()?;
        let plan = match (req.plan, clean(req.plan_id, "planId")?) {
            (Some(_), Some(_)) => return Err(Error::invalid("BAD_BODY", "Send plan or planId, not both.")),
            (Some(value), None) => parse_plan(value)?,
            (None, Some(id)) => {
                let row = self.store.pipeline_preset(&caller.org_id, &PresetId::from(&id)).await?.ok_or_else(|| {
                    Error::not_found("PRESET_NOT_FOUND", format!("No pipeline preset {id:?} in this house."))
                })?;
                let mut plan: Plan = serde_json::from_str(&row.plan).map_err(Error::internal)?;
                plan.id = Some(row.id.into());
                plan
            }
            (None, None) => return Err(Error::invalid("BAD_BODY", "Send a plan or a preset's planId.")),
        };
        let items = parse_items(req.items)?;
        let key = clean(req.idempotency_key, "idempotencyKey")?;
        let brand_id = clean(req.brand_id, "brandId")?;
        let hash = sha256_hex(&serde_json::to_string(&(&plan, &items, &brand_id)).map_err(Error::internal)?);
        let compiled = self.compile(caller, plan, items).await?;
        let at = now();
        let uuid = uuid::Uuid::now_v7().simple().to_string();
        let run = PipelineRunRow {
            id: RunId::from(format!("run_{uuid}")),
            org_id: caller.org_id.clone(),
            user_id: Some(caller.user_id.clone()),
            name: compiled.plan.name.clone(),
            plan_id: compiled.plan.id.clone(),
            plan: serde_json::to_string(&compiled.plan).map_err(Error::internal)?,
            brand_id,
            idempotency_key: key,
            request_hash: hash,
            status: RunStatus::Developing,
            cancel_requested: false,
            frames_planned: compiled.line.frames,
            frames_skipped: compiled.line.frames_skipped,
            tokens_planned: compiled.line.tokens,
            created_at: at,
            finished_at: None,
        };
        let mut steps = Vec::with_capacity(compiled.steps.len());
        let mut jobs = Vec::new();
        for s in &compiled.steps {
            let id = crate::ids::new_id("pst");
            let stored: Vec<StoredInput> = s
                .inputs
                .iter()
                .map(|(role, src)| match src {
                    Source::Asset { asset_id, blob_key, mime } => StoredInput {
                        role: role.clone(),
                        asset_id: Some(asset_id.clone()),
                        blob_key: Some(blob_key.clone()),
                        mime: Some(mime.clone()),
                        step: None,
                    },
                    Source::Step(i) => {
                        StoredInput { role: role.clone(), asset_id: None, blob_key: None, mime: None, step: Some(*i) }
                    }
                })
                .collect();
            let mut step = PipelineStepRow {
                hold_id: HoldId::from(format!("hold_{id}")),
                run_id: run.id.clone(),
                org_id: run.org_id.clone(),
                idx: s.index as i64,
                item: s.item as i64,
                node_id: s.node.clone(),
                tool: s.tool.clone(),
                quality: s.quality.as_str().to_string(),
                params: serde_json::to_string(&s.params).map_err(Error::internal)?,
                inputs: serde_json::to_string(&stored).map_err(Error::internal)?,
                upstream: serde_json::to_string(&s.after).map_err(Error::internal)?,
                sink_folder_id: s.sink.clone().map(FolderId::from),
                tokens: s.tokens,
                status: StepStatus::Waiting,
                job_id: None,
                error: None,
                created_at: at,
                updated_at: at,
                id,
            };
            if s.after.is_empty() {
                let inputs = stored
                    .iter()
                    .map(|i| JobInput {
                        role: i.role.clone(),
                        blob_key: i.blob_key.clone().unwrap_or_default(),
                        mime: i.mime.clone().unwrap_or_default(),
                        asset_id: i.asset_id.clone(),
                    })
                    .collect();
                let job = self.step_job(&run, &step, inputs);
                step.status = StepStatus::Started;
                step.job_id = Some(job.id.clone());
                jobs.push(job);
            }
            steps.push(step);
        }
        let asked = run.request_hash.clone();
        self.studio.brand().carry_clause(&mut jobs).await?;
        let outcome = self.store.create_pipeline_run(run, steps, jobs).await.map_err(enqueue_failed)?;
        match outcome {
            RunCreateOutcome::Created(run, jobs) => {
                let started = jobs.len() as i64;
                self.studio.develops().queued(CreateJobsOutcome::Created(jobs)).await?;
                Ok(PipelineRunStarted {
                    develop_id: run.id.replacen("run_", "run.", 1),
                    run_id: run.id.into(),
                    started,
                    compiled: compiled.line,
                    replayed: false,
                })
            }
            RunCreateOutcome::Existing(prior) if prior.request_hash == asked => Ok(PipelineRunStarted {
                develop_id: prior.id.replacen("run_", "run.", 1),
                run_id: prior.id.into(),
                started: 0,
                compiled: compiled.line,
                replayed: true,
            }),
            RunCreateOutcome::Existing(_) => Err(Error::conflict(
                "IDEMPOTENCY_KEY_REUSED",
                "This idempotency key started a different run (another plan, items or brand).",
            )),
            RunCreateOutcome::Insufficient { need, spendable } => Err(Error::insufficient(need, spendable)),
        }
    }

    /// A run's wire view from its steps.
    pub(super) fn pipeline_view(&self, run: &PipelineRunRow, states: &[StepState]) -> PipelineRun {
        let steps = counts(states.iter());
        let status = if run.status == RunStatus::Developing || run.cancel_requested || steps.active > 0 {
            run_status(&steps, run.cancel_requested)
        } else {
            run.status.as_str()
        };
        let plan: Option<Plan> = serde_json::from_str(&run.plan).ok();
        let line = plan
            .map(|p| {
                p.nodes
                    .iter()
                    .map(|n| NodeProgress {
                        node: n.id.clone(),
                        tool: n.tool.clone(),
                        steps: counts(states.iter().filter(|s| s.step.node_id == n.id)),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let held = |s: &&StepState| matches!(step_status(s), "waiting" | "queued" | "running");
        PipelineRun {
            id: run.id.clone().into(),
            name: run.name.clone(),
            develop_id: run.id.replacen("run_", "run.", 1),
            status: status.to_string(),
            plan_id: run.plan_id.clone(),
            brand_id: run.brand_id.clone(),
            frames_planned: run.frames_planned,
            frames_skipped: run.frames_skipped,
            tokens_planned: run.tokens_planned,
            tokens_spent: states.iter().filter_map(|s| s.job_tokens_settled).sum(),
            tokens_held: states.iter().filter(held).map(|s| s.step.tokens).sum(),
            steps,
            line,
            cancel_requested: run.cancel_requested,
            created_at: run.created_at,
            finished_at: run.finished_at,
        }
    }

    fn run_step(s: &StepState) -> RunStep {
        let stored: Vec<StoredInput> = serde_json::from_str(&s.step.inputs).unwrap_or_default();
        let after: Vec<i64> = serde_json::from_str(&s.step.upstream).unwrap_or_default();
        RunStep {
            id: s.step.id.clone(),
            index: s.step.idx,
            item: s.step.item,
            node: s.step.node_id.clone(),
            tool: s.step.tool.clone(),
            quality: s.step.quality.parse().unwrap_or(Quality::K2),
            status: step_status(s).to_string(),
            tokens: s.step.tokens,
            tokens_settled: s.job_tokens_settled.or(match s.step.status.as_str() {
                "failed" | "cancelled" => Some(0),
                _ => None,
            }),
            job_id: s.step.job_id.clone().map(String::from),
            result_asset_id: s.job_result_asset_id.clone().map(String::from),
            inputs: stored
                .iter()
                .map(|i| {
                    let src = match i.step {
                        Some(u) => wire_source(&Source::Step(u)),
                        None => StepSource { asset_id: i.asset_id.clone(), step: None },
                    };
                    (i.role.clone(), src)
                })
                .collect(),
            after,
            error: s.step.error.clone().or_else(|| s.job_error.clone()),
            sink_folder_id: s.step.sink_folder_id.clone().map(String::from),
        }
    }

    /// A run of the house by its row id (`run_…`), if it is that house's.
    pub(crate) async fn run_row(&self, org_id: &OrgId, id: &RunId) -> Result<Option<PipelineRunRow>> {
        Ok(self.store.pipeline_run(org_id, id).await?)
    }

    async fn own_run(&self, caller: &Caller, id: &str) -> Result<PipelineRunRow> {
        self.store.pipeline_run(&caller.org_id, &RunId::from(&run_row_id(id))).await?.ok_or_else(run_not_found)
    }

    /// The house's pipeline runs among `ids`, viewed, by id.
    pub(crate) async fn pipeline_runs_by_id(
        &self,
        org_id: &OrgId,
        ids: &[String],
    ) -> Result<std::collections::HashMap<String, PipelineRun>> {
        let mut views = std::collections::HashMap::new();
        for row in self.store.pipeline_runs_in(org_id, ids).await? {
            let states = self.store.pipeline_steps(&row.id).await?;
            views.insert(row.id.to_string(), self.pipeline_view(&row, &states));
        }
        Ok(views)
    }

    /// `GET /api/toolkit/pipelines/runs`: newest first, at most [`RUNS_LISTED`].
    pub async fn pipeline_runs(&self, caller: &Caller) -> Result<PipelineRunList> {
        let rows = self.store.pipeline_runs(&caller.org_id, RUNS_LISTED).await?;
        let mut runs = Vec::with_capacity(rows.len());
        for row in &rows {
            let states = self.store.pipeline_steps(&row.id).await?;
            runs.push(self.pipeline_view(row, &states));
        }
        Ok(PipelineRunList { runs })
    }

    /// `GET /api/toolkit/pipelines/runs/{id}` (`run_<uuid>` or `run.<uuid>`).
    pub async fn pipeline_run(&self, caller: &Caller, id: &RunId) -> Result<PipelineRunDetail> {
        let row = self.own_run(caller, id).await?;
        let states = self.store.pipeline_steps(&row.id).await?;
        let plan: Plan = serde_json::from_str(&row.plan).map_err(Error::internal)?;
        Ok(PipelineRunDetail {
            run: self.pipeline_view(&row, &states),
            steps: states.iter().map(Self::run_step).collect(),
            plan,
        })
    }

    /// `POST /api/toolkit/pipelines/runs/{id}/cancel`: the run is flagged first (nothing more
    /// is queued) and its waiting steps released in that transaction; then its queued jobs are
    /// cancelled and released; rendering frames finish and cost.
    pub async fn cancel_pipeline_run(&self, caller: &Caller, id: &RunId) -> Result<PipelineCancelResponse> {
        caller.require_spend_tokens()?;
        let run_id = run_row_id(id);
        let flagged = self
            .store
            .cancel_pipeline(&caller.org_id, &RunId::from(&run_id), now())
            .await?
            .ok_or_else(run_not_found)?;
        let mut tokens_released: i64 = flagged.steps.iter().map(|(_, t)| t).sum();
        let cancelled_step_ids: Vec<String> = flagged.steps.into_iter().map(|(id, _)| id).collect();
        let mut cancelled_job_ids = Vec::new();
        let mut still_rendering = Vec::new();
        for state in self.store.pipeline_steps(&RunId::from(&run_id)).await? {
            let Some(job_id) = &state.step.job_id else { continue };
            match step_status(&state) {
                "queued" => match self.studio.develops().cancel_queued(&caller.org_id, job_id).await? {
                    CancelOutcome::Cancelled(row) => {
                        tokens_released += row.tokens;
                        cancelled_job_ids.push(row.id.to_string());
                        self.studio.develops().publish_job(&row).await;
                    }
                    CancelOutcome::Unchanged(row) if row.status == JobStatus::Running => {
                        still_rendering.push(row.id.into())
                    }
                    _ => {}
                },
                "running" => still_rendering.push(job_id.to_string()),
                _ => {}
            }
        }
        if let Err(e) = self.advance_run(&caller.org_id, &RunId::from(&run_id)).await {
            // The cancel has committed; the sweep records the ending.
            tracing::warn!(error = %e, run = %run_id, "the pass after a cancel failed");
        }
        let row = self.own_run(caller, &run_id).await?;
        let states = self.store.pipeline_steps(&RunId::from(&run_id)).await?;
        Ok(PipelineCancelResponse {
            id: row.id.clone().into(),
            cancelled: !cancelled_job_ids.is_empty() || !cancelled_step_ids.is_empty(),
            cancelled_job_ids,
            cancelled_step_ids,
            still_rendering,
            tokens_released,
            run: self.pipeline_view(&row, &states),
        })
    }
}
