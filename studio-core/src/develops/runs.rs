//! Develop runs (spec §2.6): derived on read from the house's recent jobs, never stored.
//! Frames group by params.runId; else by lookbook batch (lookId plus stage); else by the same
//! tool with less than [`RUN_GAP_MINUTES`] between one frame and the next. A pipeline run's
//! counts come from its steps, waiting ones included.

use crate::develops::Develops;
use crate::ids::RunId;
use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use crate::api::{DevelopRun, JobStatus, RunCancelResponse, RunCounts, RunList, RunsQuery};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::storage::{CancelOutcome, JobRow};

/// Frames of one tool further apart than this start a new batch.
pub const RUN_GAP_MINUTES: i64 = 10;
/// Runs are derived from the jobs of this many days; older runs have aged out.
pub const RUN_WINDOW_DAYS: i64 = 30;
/// At most this many recent jobs are grouped.
const RUN_SCAN: i64 = 5000;
const DEFAULT_RUNS: usize = 20;
const MAX_RUNS: usize = 100;

/// One group of frames, oldest first.
struct Group {
    id: String,
    kind: &'static str,
    jobs: Vec<JobRow>,
}

/// The part of a job id after its prefix: the uuid.
fn uuid_part(id: &str) -> &str {
    id.split_once('_').map_or(id, |(_, rest)| rest)
}

/// Group jobs (any order) into runs, newest run first.
fn group(mut jobs: Vec<JobRow>) -> Vec<Group> {
    jobs.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    // The open batch of each tool and when its latest frame came.
    let mut open_batch: BTreeMap<String, (usize, DateTime<Utc>)> = BTreeMap::new();
    for job in jobs {
        let keyed = match (&job.run_id, &job.look_id) {
            (Some(run), _) => Some((format!("run.{run}"), "run")),
            (None, Some(look)) => {
                Some((format!("look.{look}.{}", job.stage.as_deref().unwrap_or("develop")), "lookbook"))
            }
            (None, None) => None,
        };
        if let Some((key, kind)) = keyed {
            match by_key.get(&key) {
                Some(&i) => groups[i].jobs.push(job),
                None => {
                    by_key.insert(key.clone(), groups.len());
                    groups.push(Group { id: key, kind, jobs: vec![job] });
                }
            }
            continue;
        }
        let gap = Duration::minutes(RUN_GAP_MINUTES);
        match open_batch.get_mut(&job.tool) {
            Some((i, last)) if job.created_at - *last <= gap => {
                *last = job.created_at;
                groups[*i].jobs.push(job);
            }
            _ => {
                open_batch.insert(job.tool.clone(), (groups.len(), job.created_at));
                groups.push(Group { id: format!("run.{}", uuid_part(&job.id)), kind: "batch", jobs: vec![job] });
            }
        }
    }
    groups.sort_by(|a, b| {
        let latest = |g: &Group| g.jobs.last().map(|j| (j.created_at, j.id.clone()));
        latest(b).cmp(&latest(a))
    });
    groups
}

impl Develops<'_> {
    fn run_view(&self, g: &Group) -> DevelopRun {
        let mut counts = RunCounts { total: g.jobs.len() as i64, ..RunCounts::default() };
        let mut rendering = false;
        for j in &g.jobs {
            match j.job_status() {
                JobStatus::Queued => counts.active += 1,
                JobStatus::Running => {
                    counts.active += 1;
                    rendering = true;
                }
                JobStatus::Done => counts.done += 1,
                JobStatus::Failed => counts.failed += 1,
                JobStatus::Cancelled => counts.cancelled += 1,
            }
        }
        let state = if counts.active > 0 {
            if rendering { "rendering" } else { "queued" }
        } else if counts.done == counts.total {
            "done"
        } else if counts.failed == counts.total {
            "failed"
        } else if counts.cancelled == counts.total {
            "cancelled"
        } else {
            "settled"
        };
        let first = &g.jobs[0];
        let tool = if g.jobs.iter().all(|j| j.tool == first.tool) { first.tool.clone() } else { "mixed".to_string() };
        let frames = if counts.total == 1 { "1 frame".to_string() } else { format!("{} frames", counts.total) };
        let title = match g.kind {
            "lookbook" => format!(
                "Look {} · {} · {frames}",
                first.look_id.as_deref().unwrap_or(""),
                first.stage.as_deref().unwrap_or("develop")
            ),
            "run" => format!("{} · {tool} · {frames}", first.run_id.as_deref().unwrap_or("")),
            _ => format!("{tool} · {frames}"),
        };
        DevelopRun {
            id: g.id.clone(),
            kind: g.kind.to_string(),
            tool,
            title,
            stage: if g.kind == "lookbook" { first.stage.clone().or(Some("develop".into())) } else { None },
            look_id: if g.kind == "lookbook" { first.look_id.clone().map(String::from) } else { None },
            state: state.to_string(),
            created_at: first.created_at,
            finished_at: if counts.active == 0 { g.jobs.iter().filter_map(|j| j.finished_at).max() } else { None },
            thumb_asset_id: (g.jobs.iter().rev().find_map(|j| j.result_asset_id.clone())).map(String::from),
            job_ids: g.jobs.iter().map(|j| j.id.to_string()).collect(),
            again_cost: g.jobs.iter().map(|j| self.frame_price(&j.tool, j.quality_tier())).sum(),
            counts,
        }
    }

    async fn groups(&self, caller: &Caller) -> Result<Vec<Group>> {
        let after = crate::ids::now() - Duration::days(RUN_WINDOW_DAYS);
        Ok(group(self.store.recent_jobs(&caller.org_id, after, RUN_SCAN).await?))
    }

    /// `GET /api/toolkit/develops`: the house's runs, newest first.
    pub async fn list_runs(&self, caller: &Caller, query: RunsQuery) -> Result<RunList> {
        let active_only = match query.state.as_deref().map(str::trim) {
            None | Some("") | Some("all") => false,
            Some("active") => true,
            Some(_) => return Err(Error::invalid("BAD_STATE", "state is active or all.")),
        };
        let limit = match query.limit.as_deref().map(str::trim) {
            None | Some("") => DEFAULT_RUNS,
            Some(l) => l.parse::<usize>().ok().filter(|n| (1..=MAX_RUNS).contains(n)).ok_or_else(|| {
                Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_RUNS}.")).with("max", MAX_RUNS)
            })?,
        };
        let views = self.views(caller, self.groups(caller).await?).await?;
        let runs = views.into_iter().filter(|r| !active_only || r.counts.active > 0).take(limit).collect();
        Ok(RunList { runs })
    }

    /// The runs' views, a pipeline run's counts and state taken from its steps (waiting
    /// steps have no job yet but are active frames of the run).
    async fn views(&self, caller: &Caller, groups: Vec<Group>) -> Result<Vec<DevelopRun>> {
        let ids: Vec<String> =
            groups.iter().filter(|g| g.kind == "run").map(|g| crate::pipelines::run_row_id(&g.id)).collect();
        let pipelines = self.studio.pipelines().pipeline_runs_by_id(&caller.org_id, &ids).await?;
        Ok(groups
            .iter()
            .map(|g| {
                let mut view = self.run_view(g);
                if let Some(p) = pipelines.get(&crate::pipelines::run_row_id(&g.id)) {
                    view.kind = "pipeline".into();
                    view.title = format!("{} · pipeline · {} frames", p.name, p.steps.total);
                    view.counts = RunCounts {
                        total: p.steps.total,
                        done: p.steps.done,
                        failed: p.steps.failed,
                        cancelled: p.steps.cancelled,
                        active: p.steps.active,
                    };
                    view.state = match p.status.as_str() {
                        "developing" if view.state == "rendering" => "rendering".into(),
                        "developing" => "queued".into(),
                        other => other.into(),
                    };
                    view.finished_at = if p.steps.active == 0 { p.finished_at.or(view.finished_at) } else { None };
                    view.again_cost = p.tokens_planned;
                }
                view
            })
            .collect())
    }

    /// `POST /api/toolkit/develops/{id}/cancel`: cancel the run's queued frames (released);
    /// rendering frames finish and cost. A pipeline run is cancelled as its own route does.
    pub async fn cancel_run(&self, caller: &Caller, id: &str) -> Result<RunCancelResponse> {
        caller.require_spend_tokens()?;
        let not_found = || Error::not_found("NOT_FOUND", "No such run in this house (runs age out after 30 days).");
        if id.starts_with("run.")
            && self
                .studio
                .pipelines()
                .run_row(&caller.org_id, &RunId::from(&crate::pipelines::run_row_id(id)))
                .await?
                .is_some()
        {
            let done = self.studio.pipelines().cancel_pipeline_run(caller, &RunId::from(id)).await?;
            let groups = self.groups(caller).await?;
            let run = self.views(caller, groups).await?.into_iter().find(|r| r.id == id).ok_or_else(not_found)?;
            return Ok(RunCancelResponse {
                id: id.to_string(),
                cancelled: done.cancelled,
                cancelled_job_ids: done.cancelled_job_ids,
                still_rendering: done.still_rendering,
                tokens_released: done.tokens_released,
                run,
            });
        }
        let groups = self.groups(caller).await?;
        let g = groups.iter().find(|g| g.id == id).ok_or_else(not_found)?;
        let mut cancelled_job_ids = Vec::new();
        let mut still_rendering = Vec::new();
        let mut tokens_released = 0;
        for job in &g.jobs {
            match job.job_status() {
                JobStatus::Queued => {}
                JobStatus::Running => {
                    still_rendering.push(job.id.to_string());
                    continue;
                }
                _ => continue,
            }
            match self.store.cancel_job(&caller.org_id, &job.id, crate::ids::now()).await? {
                CancelOutcome::Cancelled(row) => {
                    tokens_released += row.tokens;
                    cancelled_job_ids.push(row.id.to_string());
                    self.publish_job(&row).await;
                }
                CancelOutcome::Unchanged(row) if row.job_status() == JobStatus::Running => {
                    still_rendering.push(row.id.into())
                }
                _ => {}
            }
        }
        let groups = self.groups(caller).await?;
        let run = groups.iter().find(|g| g.id == id).map(|g| self.run_view(g)).ok_or_else(not_found)?;
        Ok(RunCancelResponse {
            id: id.to_string(),
            cancelled: !cancelled_job_ids.is_empty(),
            cancelled_job_ids,
            still_rendering,
            tokens_released,
            run,
        })
    }
}
