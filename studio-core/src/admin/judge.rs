//! The console's judge (§4.12): the verdicts kept each time a landed frame is judged
//! (`develops/verdict.rs`), listed and filtered, one job's verdict (judged and kept on the spot
//! when none is kept yet), and the rollup of kept verdicts by day, week or month.

use crate::ids::JobId;
use std::collections::BTreeMap;

use crate::api::{
    JobStatus, JudgeRollup, RollupBucket, RollupQuery, StoredVerdict, VerdictMark, VerdictPage, VerdictsQuery,
};
use crate::caller::PlatformAdmin;
use crate::develops::verdict::{PASS_SCORE, VERDICT_RUBRIC};
use crate::error::{Error, Result};
use crate::storage::{VerdictFilter, VerdictRow};

use super::Admin;
use super::window::{Bucket, cursor, days_back, filter, next_cursor, optional_since, page_limit, since_days};

/// The most verdicts one rollup reads.
const MAX_ROLLUP_READ: i64 = 100_000;
/// The most buckets a rollup answers.
const MAX_BUCKETS: i64 = 400;

fn stored(row: VerdictRow) -> StoredVerdict {
    let marks: Vec<VerdictMark> = serde_json::from_str(&row.marks).unwrap_or_default();
    StoredVerdict {
        id: row.id,
        job_id: row.job_id.into(),
        frame_id: row.frame_id.map(String::from),
        house_id: row.org_id.to_string(),
        tool: row.tool,
        model: row.model,
        rubric: row.rubric,
        score: row.score,
        readable: row.readable,
        passed: row.passed,
        marks,
        created_at: row.created_at,
    }
}

fn rate(part: i64, whole: i64) -> f64 {
    if whole == 0 { 0.0 } else { ((part as f64 / whole as f64) * 10_000.0).round() / 10_000.0 }
}

impl Admin<'_> {
    /// Keep a verdict unless one of the same job and rubric is kept already; answers the kept one.
    pub(crate) async fn store_verdict(&self, row: &VerdictRow) -> Result<VerdictRow> {
        Ok(self.store.keep_verdict(row).await?)
    }

    /// `GET /api/toolkit/admin/judge/verdicts`: kept verdicts, newest first.
    pub async fn verdicts(&self, _admin: &PlatformAdmin, q: VerdictsQuery) -> Result<VerdictPage> {
        let limit = page_limit(q.limit)?;
        let before = cursor(q.cursor.as_deref())?;
        let f = VerdictFilter {
            org_id: filter(&q.house),
            tool: filter(&q.tool),
            rubric: q.rubric,
            model: filter(&q.model),
            since: optional_since(q.since)?,
            before: before.as_ref().map(|(at, id)| (*at, id.as_str())),
            limit: limit + 1,
        };
        let mut rows = self.store.verdicts(&f).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(|r| next_cursor(r.created_at, &r.id)) } else { None };
        Ok(VerdictPage { verdicts: rows.into_iter().map(stored).collect(), next_cursor: next })
    }

    /// `GET /api/toolkit/admin/judge/verdicts/{jobId}`: the kept verdict of a develop under the
    /// current rubric, judged and kept now when there is none yet. 404 `NOT_FOUND` for an
    /// unknown job; 409 `NOT_LANDED` when the develop has no frame to judge.
    pub async fn verdict_of(&self, _admin: &PlatformAdmin, job_id: &JobId) -> Result<StoredVerdict> {
        let studio = self.studio;
        let job = self
            .store
            .any_job(&JobId::from(job_id.trim()))
            .await?
            .ok_or_else(|| Error::not_found("NOT_FOUND", "No develop has that id."))?;
        if let Some(row) = self.store.verdict_of(&job.id, VERDICT_RUBRIC).await? {
            return Ok(stored(row));
        }
        if job.job_status() != JobStatus::Done {
            return Err(Error::conflict(
                "NOT_LANDED",
                format!("The develop is {}; only a landed frame is judged.", job.status),
            )
            .with("status", job.status.as_str()));
        }
        let verdict = studio.develops().judge(&job).await?;
        Ok(stored(studio.develops().keep_verdict(&job, &verdict).await?))
    }

    /// `GET /api/toolkit/admin/judge/rollup`: kept verdicts of the window by bucket: counts,
    /// readable, passed, pass rate and mean score of the readable ones.
    pub async fn judge_rollup(&self, _admin: &PlatformAdmin, q: RollupQuery) -> Result<JudgeRollup> {
        let bucket = Bucket::parse(&q.bucket)?;
        let days = since_days(q.since, 30)?;
        let limit = match q.limit {
            None => MAX_BUCKETS,
            Some(l) if (1..=MAX_BUCKETS).contains(&l) => l,
            Some(_) => {
                return Err(
                    Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_BUCKETS}.")).with("max", MAX_BUCKETS)
                );
            }
        };
        let f = VerdictFilter {
            org_id: filter(&q.house),
            tool: filter(&q.tool),
            rubric: q.rubric,
            model: filter(&q.model),
            since: Some(days_back(days)),
            before: None,
            limit: MAX_ROLLUP_READ,
        };
        let rows = self.store.verdicts(&f).await?;
        // start → (count, readable, passed, score sum of the readable)
        let mut by: BTreeMap<String, (i64, i64, i64, i64)> = BTreeMap::new();
        for r in &rows {
            let b = by.entry(bucket.start(r.created_at)).or_default();
            b.0 += 1;
            if r.readable {
                b.1 += 1;
                b.3 += r.score;
            }
            if r.passed {
                b.2 += 1;
            }
        }
        let mut buckets: Vec<RollupBucket> = by
            .into_iter()
            .map(|(start, (count, readable, passed, sum))| RollupBucket {
                start,
                count,
                readable,
                passed,
                pass_rate: rate(passed, count),
                mean_score: if readable == 0 { 0.0 } else { ((sum as f64 / readable as f64) * 100.0).round() / 100.0 },
            })
            .collect();
        let skip = buckets.len().saturating_sub(limit as usize);
        buckets.drain(..skip);
        Ok(JudgeRollup {
            bucket: bucket.as_str().to_string(),
            since_days: days,
            pass_score: PASS_SCORE,
            total: rows.len() as i64,
            passed: rows.iter().filter(|r| r.passed).count() as i64,
            buckets,
        })
    }
}
