//! The console's develops (§4.12): every house's develops with filters, the retry and cancel
//! action through the develops' own paths, and failed develops grouped by tool and error code.

use crate::ids::JobId;
use std::collections::BTreeMap;

use crate::api::{
    AdminDevelop, AdminDevelopPage, AdminDevelopsQuery, DevelopAction, DevelopActionRequest, DevelopActionResult,
    FailureExample, FailureGroup, FailurePage, FailuresQuery, JobStatus,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::storage::{CancelOutcome, JobFilter, JobRow};

use super::Admin;
use super::window::{cursor, days_back, filter, next_cursor, optional_since, page_limit, since_days};

/// Examples shown per failure group.
const EXAMPLES: usize = 5;
/// The most failed develops one failures read groups.
const MAX_FAILED_READ: i64 = 10_000;

fn develop(row: JobRow) -> AdminDevelop {
    AdminDevelop {
        id: row.id.into(),
        house_id: row.org_id.to_string(),
        user_id: row.user_id.map(String::from),
        tool: row.tool,
        quality: row.quality,
        status: row.status.to_string(),
        tokens: row.tokens,
        tokens_settled: row.tokens_settled,
        error: row.error,
        result_asset_id: row.result_asset_id.map(String::from),
        source_job_id: row.source_job_id.map(String::from),
        attempts: row.attempts,
        created_at: row.created_at,
        finished_at: row.finished_at,
    }
}

/// The error code of a failed develop's recorded reason: the runner records sentences, so the
/// console classifies them (docs/admin.md lists the rules).
pub(crate) fn failure_code(error: Option<&str>) -> &'static str {
    let e = error.unwrap_or("").to_lowercase();
    if e.is_empty() {
        "UNKNOWN"
    } else if e.starts_with("gave up after") {
        "ATTEMPTS_EXHAUSTED"
    } else if e.contains("took longer than") {
        "TIMEOUT"
    } else if e.contains("no longer a tool") {
        "TOOL_GONE"
    } else if e.contains("could not be read") {
        "INPUT_UNREADABLE"
    } else if e.contains("nsfw") || e.contains("content policy") || e.contains("content_policy") {
        "CONTENT_POLICY"
    } else if e.contains("not configured") {
        "PROVIDER_NOT_CONFIGURED"
    } else {
        "REJECTED"
    }
}

impl Admin<'_> {
    /// A job of any house by id.
    pub(crate) async fn any_job(&self, id: &JobId) -> Result<Option<JobRow>> {
        Ok(self.store.any_job(id).await?)
    }

    /// `GET /api/toolkit/admin/develops`: develops of every house, newest first.
    pub async fn develops(&self, _admin: &PlatformAdmin, q: AdminDevelopsQuery) -> Result<AdminDevelopPage> {
        let status = match filter(&q.status) {
            None => None,
            Some(s) => Some(JobStatus::parse(s).ok_or_else(|| {
                Error::invalid("BAD_STATUS", "status is one of queued, running, done, failed, cancelled.")
            })?),
        };
        let limit = page_limit(q.limit)?;
        let before = cursor(q.cursor.as_deref())?;
        let f = JobFilter {
            org_id: filter(&q.house),
            tool: filter(&q.tool),
            status: status.map(JobStatus::as_str),
            since: optional_since(q.since)?,
            before: before.as_ref().map(|(at, id)| (*at, id.as_str())),
            limit: limit + 1,
        };
        let mut rows = self.store.console_jobs(&f).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(|r| next_cursor(r.created_at, &r.id)) } else { None };
        Ok(AdminDevelopPage { develops: rows.into_iter().map(develop).collect(), next_cursor: next })
    }

    /// `POST /api/toolkit/admin/develops/action`: `cancel` a queued develop through the house's
    /// own cancel (hold released once); `retry` a failed or cancelled one as a new develop of the
    /// same request for the same house (today's price, a new hold; 402 when it cannot pay).
    /// 404 `NOT_FOUND` for an unknown job; 409 `JOB_NOT_CANCELLABLE` / `JOB_NOT_RETRYABLE`.
    pub async fn develop_action(
        &self,
        _admin: &PlatformAdmin,
        req: DevelopActionRequest,
    ) -> Result<DevelopActionResult> {
        let studio = self.studio;
        let not_found = || Error::not_found("NOT_FOUND", "No develop has that id.");
        let job = self.store.any_job(&JobId::from(req.job_id.trim())).await?.ok_or_else(not_found)?;
        match req.action {
            DevelopAction::Cancel => match studio.develops().cancel_in(&job.org_id, &job.id).await? {
                CancelOutcome::NotFound => Err(not_found()),
                CancelOutcome::Cancelled(row) => Ok(DevelopActionResult {
                    job_id: row.id.into(),
                    action: req.action,
                    new_job_id: None,
                    status: row.status.to_string(),
                    tokens_held: 0,
                    tokens_released: row.tokens,
                }),
                CancelOutcome::Unchanged(row) => Err(Error::conflict(
                    "JOB_NOT_CANCELLABLE",
                    format!("The develop is {}; only a queued develop can be cancelled.", row.status),
                )
                .with("status", row.status.as_str())),
            },
            DevelopAction::Retry => {
                if !matches!(job.job_status(), JobStatus::Failed | JobStatus::Cancelled) {
                    return Err(Error::conflict(
                        "JOB_NOT_RETRYABLE",
                        format!("The develop is {}; only a failed or cancelled develop is retried.", job.status),
                    )
                    .with("status", job.status.as_str()));
                }
                let row = studio.develops().develop_again(&job).await?;
                Ok(DevelopActionResult {
                    job_id: job.id.into(),
                    action: req.action,
                    new_job_id: Some(row.id.into()),
                    status: row.status.to_string(),
                    tokens_held: row.tokens,
                    tokens_released: 0,
                })
            }
        }
    }

    /// `GET /api/toolkit/admin/failures`: failed develops of the window grouped by tool and
    /// error code, largest first, each with its newest examples; paged by group.
    pub async fn failures(&self, _admin: &PlatformAdmin, q: FailuresQuery) -> Result<FailurePage> {
        let days = since_days(q.since, 30)?;
        let limit = page_limit(q.limit)?;
        let offset = match filter(&q.cursor) {
            None => 0usize,
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| Error::invalid("BAD_CURSOR", "That cursor is not one we gave."))?,
        };
        let f = JobFilter {
            status: Some("failed"),
            since: Some(days_back(days)),
            limit: MAX_FAILED_READ,
            ..JobFilter::default()
        };
        let rows = self.store.console_jobs(&f).await?;
        let total_failed = rows.len() as i64;
        let mut groups: BTreeMap<(String, &'static str), FailureGroup> = BTreeMap::new();
        for row in rows {
            let code = failure_code(row.error.as_deref());
            let at = row.finished_at.unwrap_or(row.created_at);
            let g = groups.entry((row.tool.clone(), code)).or_insert_with(|| FailureGroup {
                tool: row.tool.clone(),
                code: code.to_string(),
                count: 0,
                last_at: at,
                examples: Vec::new(),
            });
            g.count += 1;
            g.last_at = g.last_at.max(at);
            if g.examples.len() < EXAMPLES {
                g.examples.push(FailureExample {
                    job_id: row.id.into(),
                    house_id: row.org_id.to_string(),
                    error: row.error.unwrap_or_default(),
                    at,
                });
            }
        }
        let mut groups: Vec<FailureGroup> = groups.into_values().collect();
        groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| (&a.tool, &a.code).cmp(&(&b.tool, &b.code))));
        let more = groups.len() > offset + limit as usize;
        let groups: Vec<FailureGroup> = groups.into_iter().skip(offset).take(limit as usize).collect();
        let next_cursor = more.then(|| (offset + limit as usize).to_string());
        Ok(FailurePage { groups, total_failed, next_cursor })
    }
}
