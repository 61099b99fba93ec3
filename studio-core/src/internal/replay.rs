//! Replay evidence and its renders. An evidence freezes one develop (request, inputs, output,
//! status timeline, hold, verdict) for later review; an admin opens it (once per job) and asks
//! for renders, which renderers claim from a queue with a lease (`SKIP LOCKED` on PostgreSQL),
//! complete with the file's bytes (kept in the blob store) or fail with a code. The analyst reads
//! the same evidence as recordings with their figures, and any asset's thumbnail.

use crate::ids::{AssetId, EvidenceId, JobId, RenderId};
use bytes::Bytes;
use chrono::Duration;

use crate::api::{
    DEFAULT_WINDOW_HOURS, Evidence, EvidenceItem, EvidenceList, EvidenceOpen, EvidenceOpened, EvidenceQuery,
    InternalOk, KeyCount, Recording, RecordingAnalysis, Recordings, Render, RenderClaim, RenderFail, RenderJob,
    RenderRequest, ReplayHold, ReplayInput, ReplayJob, ReplayMoment, ReplayOutput, ReplaySnapshot,
};
use crate::caller::{Machine, MachineKind, PlatformAdmin};
use crate::error::{Error, Result};
use crate::storage::{EvidenceRow, JobRow, RenderRow, RenderStatus};

use super::{Internal, limit, require, window};

/// The render formats: a contact sheet of the develop's inputs and frame, or its timeline.
pub const RENDER_FORMATS: [&str; 2] = ["contact-sheet", "timeline"];
/// The largest render file taken, in bytes (32 MiB).
pub const MAX_RENDER_BYTES: usize = 32 * 1024 * 1024;
/// The long edge of an asset preview, in pixels.
pub const PREVIEW_EDGE: u32 = 256;

fn evidence_not_found() -> Error {
    Error::not_found("EVIDENCE_NOT_FOUND", "No replay evidence has that id.")
}

fn render_not_found() -> Error {
    Error::not_found("RENDER_NOT_FOUND", "No render has that id in that state.")
}

fn render_view(r: RenderRow) -> Render {
    Render {
        id: r.id.into(),
        evidence_id: r.evidence_id.into(),
        format: r.format,
        status: r.status.to_string(),
        attempts: r.attempts,
        mime: r.mime,
        bytes: r.bytes,
        error_code: r.error_code,
        created_at: r.created_at,
        finished_at: r.finished_at,
    }
}

fn snapshot_of(row: &EvidenceRow) -> Result<ReplaySnapshot> {
    serde_json::from_str(&row.snapshot).map_err(Error::internal)
}

fn millis(from: Option<chrono::DateTime<chrono::Utc>>, to: Option<chrono::DateTime<chrono::Utc>>) -> Option<i64> {
    Some((to? - from?).num_milliseconds())
}

/// A cursor of an evidence page: the evidence it names, else 400 `BAD_CURSOR`.
async fn cursor(internal: &Internal<'_>, before: Option<&str>) -> Result<Option<EvidenceRow>> {
    match before.map(str::trim).filter(|b| !b.is_empty()) {
        None => Ok(None),
        Some(id) => match internal.store.evidence(&EvidenceId::from(id)).await? {
            Some(row) => Ok(Some(row)),
            None => Err(Error::invalid("BAD_CURSOR", "before names no evidence.")),
        },
    }
}

impl Internal<'_> {
    /// Freeze one develop.
    async fn freeze(&self, job: &JobRow) -> Result<ReplaySnapshot> {
        let hold = self.studio.billing().hold(&job.org_id, &job.hold_id).await?;
        let output = match &job.result_asset_id {
            Some(id) => self.studio.library().asset(id).await?.map(|a| ReplayOutput {
                asset_id: a.id.into(),
                mime: a.mime,
                bytes: a.bytes,
                width: a.width,
                height: a.height,
            }),
            None => None,
        };
        let mut timeline = vec![ReplayMoment { at: job.created_at, event: "queued".into() }];
        if let Some(at) = job.started_at {
            timeline.push(ReplayMoment { at, event: "started".into() });
        }
        if let Some(at) = job.finished_at {
            timeline.push(ReplayMoment { at, event: job.status.clone().to_string() });
        }
        if let Some(h) = &hold {
            timeline.push(ReplayMoment { at: h.created_at, event: "held".into() });
            if let Some(at) = h.resolved_at {
                timeline.push(ReplayMoment { at, event: h.status.as_str().to_string() });
            }
        }
        timeline.sort_by_key(|m| m.at);
        let verdict = match self.studio.develops().judge(job).await {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!(error = %e, job = %job.id, "no verdict for a replay evidence");
                None
            }
        };
        Ok(ReplaySnapshot {
            job: ReplayJob {
                id: job.id.clone().into(),
                organization_id: job.org_id.to_string(),
                user_id: job.user_id.clone().map(String::from),
                tool: job.tool.clone(),
                quality: job.quality.clone(),
                params: serde_json::from_str(&job.params).unwrap_or(serde_json::Value::Null),
                status: job.status.clone().to_string(),
                error: job.error.clone(),
                attempts: job.attempts,
                tokens: job.tokens,
                tokens_settled: job.tokens_settled,
                retry_of_job_id: job.retry_of_job_id.clone().map(String::from),
                source_job_id: job.source_job_id.clone().map(String::from),
            },
            inputs: job
                .input_list()
                .into_iter()
                .map(|i| ReplayInput { role: i.role, asset_id: i.asset_id, mime: i.mime })
                .collect(),
            output,
            timeline,
            hold: hold.map(|h| ReplayHold {
                id: h.id.into(),
                amount: h.amount,
                from_grant: h.from_grant,
                from_topup: h.from_topup,
                status: h.status.as_str().to_string(),
                created_at: h.created_at,
                resolved_at: h.resolved_at,
            }),
            verdict,
        })
    }

    async fn evidence_view(&self, row: EvidenceRow) -> Result<Evidence> {
        let renders = self.store.renders_of(&row.id).await?.into_iter().map(render_view).collect();
        Ok(Evidence {
            snapshot: snapshot_of(&row)?,
            id: row.id.into(),
            job_id: row.job_id.into(),
            organization_id: row.org_id.to_string(),
            tool: row.tool,
            job_status: row.job_status,
            summary: row.summary,
            summary_focus: row.summary_focus,
            summarized_at: row.summarized_at,
            created_at: row.created_at,
            renders,
        })
    }

    /// An evidence by id, else 404 `EVIDENCE_NOT_FOUND`.
    pub(crate) async fn evidence_row(&self, id: &EvidenceId) -> Result<EvidenceRow> {
        self.store.evidence(&EvidenceId::from(id.trim())).await?.ok_or_else(evidence_not_found)
    }

    /// Admin "evidence open": the job's evidence, made now unless it exists. 400
    /// `JOB_REQUIRED`; 404 `JOB_NOT_FOUND`.
    pub async fn open_evidence(&self, admin: &PlatformAdmin, req: EvidenceOpen) -> Result<EvidenceOpened> {
        let id = req.job_id.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let id = id.ok_or_else(|| Error::invalid("JOB_REQUIRED", "Name the develop with jobId."))?;
        let job = self.studio.admin().any_job(&JobId::from(id)).await?;
        let job = job.ok_or_else(|| Error::not_found("JOB_NOT_FOUND", "No develop has that id."))?;
        let snapshot = self.freeze(&job).await?;
        let row = EvidenceRow {
            id: EvidenceId::generate(),
            job_id: job.id.clone(),
            org_id: job.org_id.clone(),
            tool: job.tool.clone(),
            job_status: job.status.clone().to_string(),
            snapshot: serde_json::to_string(&snapshot).map_err(Error::internal)?,
            summary: None,
            summary_focus: None,
            summarized_at: None,
            opened_by: Some(admin.user_id().to_string()),
            created_at: crate::ids::now(),
        };
        let (row, created) = self.store.open_evidence(&row).await?;
        Ok(EvidenceOpened { created, evidence: self.evidence_view(row).await? })
    }

    /// Admin: a page of evidence, newest first.
    pub async fn evidence_list(&self, _admin: &PlatformAdmin, q: EvidenceQuery) -> Result<EvidenceList> {
        let n = limit(q.limit);
        let after = cursor(self, q.before.as_deref()).await?;
        let before = after.as_ref().map(|r| (r.created_at, r.id.as_str()));
        let since = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
        let rows = self.store.evidence_page(since, n + 1, before).await?;
        let more = rows.len() as i64 > n;
        let evidence: Vec<EvidenceItem> = rows
            .into_iter()
            .take(n as usize)
            .map(|r| EvidenceItem {
                summarized: r.summary.is_some(),
                id: r.id.into(),
                job_id: r.job_id.into(),
                organization_id: r.org_id.to_string(),
                tool: r.tool,
                job_status: r.job_status,
                created_at: r.created_at,
            })
            .collect();
        let next_cursor = if more { evidence.last().map(|e| e.id.clone()) } else { None };
        Ok(EvidenceList { evidence, next_cursor })
    }

    /// Admin: one evidence with its renders. 404 `EVIDENCE_NOT_FOUND`.
    pub async fn evidence(&self, _admin: &PlatformAdmin, id: &EvidenceId) -> Result<Evidence> {
        let row = self.evidence_row(id).await?;
        self.evidence_view(row).await
    }

    /// Admin "render request": queue a render of an evidence. 400 `EVIDENCE_REQUIRED`,
    /// `FORMAT_REQUIRED`, `BAD_FORMAT` (with `formats`); 404 `EVIDENCE_NOT_FOUND`.
    pub async fn request_render(&self, admin: &PlatformAdmin, req: RenderRequest) -> Result<Render> {
        let id = req.evidence_id.as_deref().map(str::trim).filter(|i| !i.is_empty());
        let id = id.ok_or_else(|| Error::invalid("EVIDENCE_REQUIRED", "Name the evidence with evidenceId."))?;
        let format = req.format.as_deref().map(str::trim).filter(|f| !f.is_empty());
        let format = format.ok_or_else(|| Error::invalid("FORMAT_REQUIRED", "Say which format to render."))?;
        if !RENDER_FORMATS.contains(&format) {
            return Err(Error::invalid("BAD_FORMAT", format!("format is one of {}.", RENDER_FORMATS.join(", ")))
                .with("formats", RENDER_FORMATS.to_vec()));
        }
        let evidence = self.evidence_row(&EvidenceId::from(id)).await?;
        let row = RenderRow {
            id: RenderId::generate(),
            evidence_id: evidence.id,
            format: format.to_string(),
            status: RenderStatus::Queued,
            attempts: 0,
            claimed_at: None,
            blob_key: None,
            mime: None,
            bytes: None,
            error_code: None,
            requested_by: Some(admin.user_id().to_string()),
            created_at: crate::ids::now(),
            finished_at: None,
        };
        self.store.insert_render(&row).await?;
        Ok(render_view(row))
    }

    /// Admin: a render's state. 404 `RENDER_NOT_FOUND`.
    pub async fn render(&self, _admin: &PlatformAdmin, id: &RenderId) -> Result<Render> {
        Ok(render_view(self.store.render(&RenderId::from(id.trim())).await?.ok_or_else(render_not_found)?))
    }

    /// Admin "download": a complete render's type and bytes; 404 `RENDER_NOT_FOUND` until then.
    pub async fn render_file(&self, _admin: &PlatformAdmin, id: &RenderId) -> Result<(String, Bytes)> {
        let row = self.store.render(&RenderId::from(id.trim())).await?.filter(|r| r.status == RenderStatus::Complete);
        let row = row.ok_or_else(render_not_found)?;
        let (Some(key), Some(mime)) = (row.blob_key, row.mime) else { return Err(render_not_found()) };
        let bytes = self.studio.blobs.get_bytes(&key).await.map_err(Error::internal)?;
        Ok((mime, bytes))
    }

    /// Renderer: claim the oldest waiting render (or one whose claim lapsed) with the evidence
    /// inline; `{job: null}` when none waits.
    pub async fn claim_render(&self, machine: &Machine) -> Result<RenderClaim> {
        require(machine, MachineKind::Renderer)?;
        let now = crate::ids::now();
        let stale_before = now - Duration::seconds(self.studio.config.replay_render_lease_secs);
        let Some(render) = self.store.claim_render(now, stale_before).await? else {
            return Ok(RenderClaim { job: None });
        };
        let evidence = self.evidence_row(&render.evidence_id).await?;
        Ok(RenderClaim {
            job: Some(RenderJob {
                id: render.id.into(),
                evidence_id: render.evidence_id.into(),
                format: render.format,
                archive: self.evidence_view(evidence).await?,
            }),
        })
    }

    /// Renderer: the file of a claimed render. 400 `EMPTY_RENDER`, `RENDER_TOO_LARGE` (with
    /// `maxBytes`); 404 `RENDER_NOT_FOUND` when unknown or not being rendered.
    pub async fn complete_render(&self, machine: &Machine, id: &RenderId, body: Bytes) -> Result<InternalOk> {
        require(machine, MachineKind::Renderer)?;
        if body.is_empty() {
            return Err(Error::invalid("EMPTY_RENDER", "Send the render's bytes as the body."));
        }
        if body.len() > MAX_RENDER_BYTES {
            return Err(too_large());
        }
        let row = self.store.render(&RenderId::from(id.trim())).await?.filter(|r| r.status == RenderStatus::Rendering);
        let row = row.ok_or_else(render_not_found)?;
        let key = format!("replays/{}", row.id);
        let stored = self.studio.blobs.put_bytes(&key, body, MAX_RENDER_BYTES as u64, |_| true).await;
        let stored = stored.map_err(Error::internal)?;
        let bytes = i64::try_from(stored.bytes).unwrap_or(i64::MAX);
        if !self.store.complete_render(&row.id, &key, &stored.mime, bytes, crate::ids::now()).await? {
            let _ = self.studio.blobs.delete(&key).await;
            return Err(render_not_found());
        }
        Ok(InternalOk { ok: true })
    }

    /// Renderer: a claimed render failed. 400 `CODE_REQUIRED`, `BAD_CODE`; 404
    /// `RENDER_NOT_FOUND` when unknown or not being rendered.
    pub async fn fail_render(&self, machine: &Machine, id: &RenderId, req: RenderFail) -> Result<InternalOk> {
        require(machine, MachineKind::Renderer)?;
        let code = req.code.as_deref().map(str::trim).filter(|c| !c.is_empty());
        let code = code.ok_or_else(|| Error::invalid("CODE_REQUIRED", "Say why with code."))?;
        if code.len() > 64 || !code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.') {
            return Err(Error::invalid("BAD_CODE", "code is 1 to 64 letters, digits, '_', '-' or '.'."));
        }
        if !self.store.fail_render(&RenderId::from(id.trim()), code, crate::ids::now()).await? {
            return Err(render_not_found());
        }
        Ok(InternalOk { ok: true })
    }

    /// Analyst `recordings`: evidence opened in the window, newest first, with its figures.
    pub async fn recordings(&self, machine: &Machine, q: EvidenceQuery) -> Result<Recordings> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let rows = self.store.evidence_page(w.since, limit(q.limit), None).await?;
        let mut recordings = Vec::with_capacity(rows.len());
        for r in rows {
            let s = snapshot_of(&r)?;
            recordings.push(Recording {
                tokens_held: s.job.tokens,
                tokens_settled: s.job.tokens_settled.unwrap_or(0),
                attempts: s.job.attempts,
                total_millis: s
                    .timeline
                    .iter()
                    .find(|m| ["done", "failed", "cancelled"].contains(&m.event.as_str()))
                    .map(|m| (m.at - s.timeline[0].at).num_milliseconds()),
                verdict_score: s.verdict.as_ref().filter(|v| v.readable).map(|v| v.score),
                summarized: r.summary.is_some(),
                id: r.id.into(),
                job_id: r.job_id.into(),
                organization_id: r.org_id.to_string(),
                tool: r.tool,
                job_status: r.job_status,
                created_at: r.created_at,
            });
        }
        Ok(Recordings { window: w, recordings })
    }

    /// Analyst `recordings/{id}/analysis`: durations, cost, retries and verdict of one
    /// evidence. 404 `EVIDENCE_NOT_FOUND`.
    pub async fn analysis(&self, machine: &Machine, id: &EvidenceId) -> Result<RecordingAnalysis> {
        require(machine, MachineKind::Analyst)?;
        let row = self.evidence_row(id).await?;
        let s = snapshot_of(&row)?;
        let at = |event: &str| s.timeline.iter().find(|m| m.event == event).map(|m| m.at);
        let queued = at("queued");
        let started = at("started");
        let ended = at("done").or(at("failed")).or(at("cancelled"));
        let renders = self.store.renders_of(&row.id).await?;
        let mut by_status: Vec<KeyCount> = Vec::new();
        for r in &renders {
            match by_status.iter_mut().find(|c| c.key == r.status.as_str()) {
                Some(c) => c.n += 1,
                None => by_status.push(KeyCount { key: r.status.to_string(), n: 1 }),
            }
        }
        Ok(RecordingAnalysis {
            evidence_id: row.id.into(),
            job_id: row.job_id.into(),
            tool: row.tool,
            job_status: row.job_status,
            wait_millis: millis(queued, started),
            run_millis: millis(started, ended),
            total_millis: millis(queued, ended),
            attempts: s.job.attempts,
            retries: (s.job.attempts - 1).max(0),
            tokens_held: s.job.tokens,
            tokens_settled: s.job.tokens_settled.unwrap_or(0),
            hold_status: s.hold.as_ref().map(|h| h.status.clone()),
            hold_millis: s.hold.as_ref().and_then(|h| millis(Some(h.created_at), h.resolved_at)),
            verdict_score: s.verdict.as_ref().map(|v| v.score),
            verdict_readable: s.verdict.as_ref().map(|v| v.readable),
            retry_futile: s.verdict.as_ref().map(|v| v.retry_futile),
            marks: s.verdict.as_ref().map(|v| v.marks.iter().map(|m| m.code.clone()).collect()).unwrap_or_default(),
            renders: by_status,
            summary: row.summary,
        })
    }

    /// Analyst: a JPEG thumbnail (at most [`PREVIEW_EDGE`] px a side) of any live asset. 404
    /// `ASSET_NOT_FOUND`.
    pub async fn asset_preview(&self, machine: &Machine, id: &AssetId) -> Result<Vec<u8>> {
        require(machine, MachineKind::Analyst)?;
        let row = self.studio.library().asset(&AssetId::from(id.trim())).await?.filter(|a| a.deleted_at.is_none());
        let row = row.ok_or_else(|| Error::not_found("ASSET_NOT_FOUND", "No asset has that id."))?;
        let bytes = self.studio.blobs.get_bytes(&row.blob_key).await.map_err(Error::internal)?;
        tokio::task::spawn_blocking(move || crate::images::rendition_jpeg(&bytes, PREVIEW_EDGE, PREVIEW_EDGE))
            .await
            .map_err(Error::internal)?
    }
}

fn too_large() -> Error {
    Error::invalid("RENDER_TOO_LARGE", format!("A render is at most {MAX_RENDER_BYTES} bytes."))
        .with("maxBytes", MAX_RENDER_BYTES as i64)
}

/// The refusal of a body over the limit, for the frontend that reads it.
pub fn render_too_large() -> Error {
    too_large()
}
