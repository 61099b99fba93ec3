//! The pipeline scheduler: a pass over a run queues each waiting step whose upstream frames
//! landed (its job reuses the hold reserved at the start), ends each step behind a failed or
//! cancelled one (releasing its hold), and records the run's ending once nothing is active.
//! A pass runs after every pipeline job ends and from a sweep over open runs, on every
//! replica: storage guards each step so no step is queued twice, whoever passes.

use crate::ids::{OrgId, RunId};
use crate::pipelines::Pipelines;
use crate::storage::RunStatus;
use std::time::Duration;

use super::runs::{StoredInput, run_status, step_status};
use crate::develops::JobInput;
use crate::error::Result;
use crate::ids::now;
use crate::storage::{CreateJobsOutcome, JobRow, PipelineRunRow, StepAdvance, StepEnd, StepState};

/// How often the sweep looks at open runs (a restart or a lost pass is caught up by it).
pub const SWEEP_EVERY: Duration = Duration::from_secs(5);
/// Open runs read per page of a sweep.
const SWEEP_BATCH: i64 = 200;

impl Pipelines<'_> {
    /// What one pass should do, read from the steps' states (which only move forward, so a
    /// stale read asks for less, never for something wrong).
    fn plan_pass(&self, run: &PipelineRunRow, states: &[StepState]) -> StepAdvance {
        let mut status: Vec<String> = states.iter().map(|s| step_status(s).to_string()).collect();
        let mut pass = StepAdvance::default();
        for (i, state) in states.iter().enumerate() {
            if status[i] != "waiting" {
                continue;
            }
            let upstream: Vec<usize> = serde_json::from_str(&state.step.upstream).unwrap_or_default();
            let at = |u: usize| status.get(u).map(String::as_str).unwrap_or("failed");
            let describe = |u: usize| {
                let s = &states[u.min(states.len() - 1)];
                let why = s.step.error.clone().or_else(|| s.job_error.clone()).unwrap_or_default();
                format!(
                    "step {u} ({}) {}{}",
                    s.step.node_id,
                    at(u),
                    if why.is_empty() { String::new() } else { format!(": {why}") }
                )
            };
            if let Some(&u) = upstream.iter().find(|&&u| at(u) == "failed") {
                pass.end.push(StepEnd {
                    step_id: state.step.id.clone(),
                    status: "failed",
                    error: format!("Upstream {}", describe(u)),
                });
                status[i] = "failed".into();
            } else if let Some(&u) = upstream.iter().find(|&&u| at(u) == "cancelled") {
                pass.end.push(StepEnd {
                    step_id: state.step.id.clone(),
                    status: "cancelled",
                    error: format!("Upstream {}", describe(u)),
                });
                status[i] = "cancelled".into();
            } else if !run.cancel_requested && upstream.iter().all(|&u| at(u) == "done") {
                let stored: Vec<StoredInput> = serde_json::from_str(&state.step.inputs).unwrap_or_default();
                let all = stored.len();
                let mut inputs = Vec::with_capacity(stored.len());
                for input in stored {
                    let (blob_key, mime, asset_id) = match input.step {
                        Some(u) => match states.get(u) {
                            Some(up) => (
                                up.result_blob_key.clone(),
                                up.result_mime.clone(),
                                up.job_result_asset_id.clone().map(String::from),
                            ),
                            None => (None, None, None),
                        },
                        None => (input.blob_key, input.mime, input.asset_id),
                    };
                    match (blob_key, mime) {
                        (Some(blob_key), Some(mime)) => {
                            inputs.push(JobInput { role: input.role, blob_key, mime, asset_id })
                        }
                        _ => break,
                    }
                }
                if inputs.len() == all {
                    pass.queue.push((state.step.id.clone(), self.step_job(run, &state.step, inputs)));
                    status[i] = "queued".into();
                } else {
                    pass.end.push(StepEnd {
                        step_id: state.step.id.clone(),
                        status: "failed",
                        error: "An upstream frame is no longer in the library.".into(),
                    });
                    status[i] = "failed".into();
                }
            }
        }
        pass
    }

    /// One scheduler pass over a run of a house; records its ending once nothing is active.
    pub(crate) async fn advance_run(&self, org_id: &OrgId, run_id: &RunId) -> Result<()> {
        let Some(run) = self.store.pipeline_run(org_id, run_id).await? else { return Ok(()) };
        if run.status != RunStatus::Developing {
            return Ok(());
        }
        let mut states = self.store.pipeline_steps(run_id).await?;
        let mut pass = self.plan_pass(&run, &states);
        if !pass.queue.is_empty() {
            let mut jobs: Vec<JobRow> = pass.queue.iter().map(|(_, job)| job.clone()).collect();
            self.studio.brand().carry_clause(&mut jobs).await?;
            for ((_, queued), carried) in pass.queue.iter_mut().zip(jobs) {
                *queued = carried;
            }
        }
        if !pass.queue.is_empty() || !pass.end.is_empty() {
            let done = self.store.advance_pipeline(org_id, run_id, pass, now()).await?;
            let queued: Vec<JobRow> = done.queued;
            if !queued.is_empty() {
                self.studio.develops().queued(CreateJobsOutcome::Created(queued)).await?;
            }
            states = self.store.pipeline_steps(run_id).await?;
        }
        // Read the run again: a cancel since the pass began must end it `cancelled`.
        let Some(run) = self.store.pipeline_run(org_id, run_id).await? else { return Ok(()) };
        let view = self.pipeline_view(&run, &states);
        let ended = run_status(&view.steps, run.cancel_requested);
        if ended != "developing" {
            self.store.finish_pipeline_run(org_id, run_id, ended, now()).await?;
        }
        Ok(())
    }

    /// After a job ends or is cancelled: if it is a pipeline step, pass over its run.
    pub(crate) async fn after_job_end(&self, job: &JobRow) {
        if !job.params_map().contains_key("pipelineStep") {
            return;
        }
        let Some(uuid) = &job.run_id else { return };
        let run_id = format!("run_{uuid}");
        if let Err(e) = self.advance_run(&job.org_id, &RunId::from(&run_id)).await {
            // The sweep passes over the run again shortly; nothing is lost.
            tracing::warn!(error = %e, run = %run_id, "a pipeline pass failed");
        }
    }

    /// One pass over every open run, a page of [`SWEEP_BATCH`] at a time.
    async fn sweep_open_runs(&self) {
        let mut after = String::new();
        loop {
            let open = match self.store.open_pipeline_runs(&after, SWEEP_BATCH).await {
                Ok(open) => open,
                Err(e) => {
                    tracing::warn!(error = %e, "listing open pipeline runs failed");
                    return;
                }
            };
            let full = open.len() as i64 == SWEEP_BATCH;
            for (org_id, run_id) in open {
                if let Err(e) = self.advance_run(&OrgId::from(org_id), &RunId::from(&run_id)).await {
                    tracing::warn!(error = %e, run = %run_id, "a pipeline pass failed");
                }
                after = run_id;
            }
            if !full {
                return;
            }
        }
    }

    /// Pass over every open run every [`SWEEP_EVERY`] until `shutdown` resolves: runs
    /// interrupted by a restart, or whose pass after a job was lost, move on.
    pub async fn run_pipeline_sweep(&self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            self.sweep_open_runs().await;
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(SWEEP_EVERY) => {}
            }
        }
    }
}
