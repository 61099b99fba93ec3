//! The analyst (§4.12 `analyst`, `analyst/cadence`, `analyst/run`) and reflection findings
//! (docs/analyst.md). A digest covers the cadence window before it (`hours`): the platform's
//! figures over that period, read in one place by storage, and a summary in words. Below the
//! readable-verdict floor (too few frames judged readable for a model to add anything) or
//! without an AI reader, the words are the plain figures and no model is called; above it the reader writes
//! them, and a reader failure falls back to the plain figures. A run inside the window returns
//! the digest already written; the cadence's own runs happen in the minute sweep, one per
//! window on any number of replicas (a unique slot). Each new digest raises findings by fixed
//! rules, which an admin accepts or dismisses once.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use crate::accounts::memory::{enum_of, wire};
use crate::api::{
    AnalystCadence, AnalystRun, AnalystView, CadenceRequest, DEFAULT_CADENCE_HOURS, DecideFindingRequest, Digest,
    DigestFigures, DigestQuery, DigestTrigger, DigestWriter, FindingDecision, FindingStatus, FindingsQuery,
    MAX_CADENCE_HOURS, MAX_DIGEST_HISTORY, MIN_CADENCE_HOURS, ReflectionFinding, ReflectionFindingList, TokenFigures,
    ToolFigures,
};
use crate::caller::PlatformAdmin;
use crate::error::{Error, Result};
use crate::ids::{FindingId, new_id, now};
use crate::storage::{AnalystSettingsRow, DigestRow, FindingRow, PeriodCounts};

use super::Admin;

/// Fewer readable verdicts than this in the period: the digest is the plain figures, no model
/// call.
pub(crate) const READABLE_FLOOR: i64 = 5;
/// A tool with at least this many develops in the period is judged for its failure rate.
const FAILURE_MIN_DEVELOPS: i64 = 5;
/// The failure share that raises a `failure_rate` finding.
const FAILURE_SHARE: f64 = 0.2;
/// The previous period's spend below which a drop is not worth a finding.
const SPEND_DROP_MIN: i64 = 50;
/// Longest decision note.
const MAX_NOTE_CHARS: usize = 2000;

const SYSTEM: &str = "You are the analyst of an image studio for fashion houses. You are given one period's \
    platform figures as JSON. Write a short digest for the studio's operators: three to six plain sentences on \
    what changed and what needs attention, using only the figures given. Answer as JSON: {\"summary\": \"...\"}.";

fn cadence_of(row: Option<&AnalystSettingsRow>) -> AnalystCadence {
    match row {
        Some(r) => AnalystCadence { hours: r.hours, enabled: r.enabled, updated_at: Some(r.updated_at) },
        None => AnalystCadence { hours: DEFAULT_CADENCE_HOURS, enabled: false, updated_at: None },
    }
}

/// The figures of a period as the wire shows them.
fn figures(c: &PeriodCounts) -> DigestFigures {
    let mut by_tool: Vec<ToolFigures> = Vec::new();
    for (tool, status, n) in &c.develops {
        let i = match by_tool.iter().position(|t| &t.tool == tool) {
            Some(i) => i,
            None => {
                by_tool.push(ToolFigures { tool: tool.clone(), ..ToolFigures::default() });
                by_tool.len() - 1
            }
        };
        let t = &mut by_tool[i];
        t.total += n;
        match status.as_str() {
            "done" => t.done += n,
            "failed" => t.failed += n,
            "cancelled" => t.cancelled += n,
            _ => t.open += n,
        }
    }
    let mut tokens = TokenFigures::default();
    for (kind, entries, amount) in &c.ledger {
        match kind.as_str() {
            "grant" => tokens.granted += amount,
            "topup" => tokens.topped_up += amount,
            "settled" => tokens.settled += amount,
            "released" => tokens.releases += entries,
            _ => {}
        }
    }
    DigestFigures {
        houses: c.houses,
        people: c.people,
        uploads: c.uploads,
        develops: by_tool.iter().map(|t| t.total).sum(),
        by_tool,
        readable_frames: c.readable_frames,
        readable_verdicts: c.readable_verdicts,
        tokens,
        stale_holds: c.stale_holds,
    }
}

/// The plain figures in words.
fn plain_summary(f: &DigestFigures, hours: i64) -> String {
    let done: i64 = f.by_tool.iter().map(|t| t.done).sum();
    let failed: i64 = f.by_tool.iter().map(|t| t.failed).sum();
    let cancelled: i64 = f.by_tool.iter().map(|t| t.cancelled).sum();
    let busiest =
        f.by_tool.iter().max_by_key(|t| t.total).map(|t| format!(" The busiest tool was {} ({}).", t.tool, t.total));
    format!(
        "Over the last {hours} hours: {} houses opened, {} people signed up, {} images uploaded. {} develops were \
         queued ({done} landed, {failed} failed, {cancelled} cancelled) and {} frames landed; {} verdicts read \
         their frame.{} Tokens: {} granted, \
         {} bought, {} spent; {} holds released. {} holds have been open for more than an hour.",
        f.houses,
        f.people,
        f.uploads,
        f.develops,
        f.readable_frames,
        f.readable_verdicts,
        busiest.unwrap_or_default(),
        f.tokens.granted,
        f.tokens.topped_up,
        f.tokens.settled,
        f.tokens.releases,
        f.stale_holds,
    )
}

/// The findings the figures raise, by fixed rules; `previous` is the last digest's figures.
fn reflect(f: &DigestFigures, previous: Option<&DigestFigures>) -> Vec<(String, String, String, serde_json::Value)> {
    let mut found = Vec::new();
    for t in &f.by_tool {
        let finished = t.done + t.failed;
        if finished >= FAILURE_MIN_DEVELOPS && t.failed as f64 / finished as f64 >= FAILURE_SHARE {
            let share = (t.failed as f64 * 100.0 / finished as f64).round();
            found.push((
                "failure_rate".to_string(),
                t.tool.clone(),
                format!("{}: {} of {finished} finished develops failed ({share}%).", t.tool, t.failed),
                json!({ "failed": t.failed, "finished": finished }),
            ));
        }
    }
    if f.develops >= FAILURE_MIN_DEVELOPS && f.readable_frames == 0 {
        found.push((
            "no_landing".to_string(),
            "platform".to_string(),
            format!("{} develops were queued and not one frame landed.", f.develops),
            json!({ "develops": f.develops, "readableFrames": 0 }),
        ));
    }
    if f.stale_holds > 0 {
        found.push((
            "stale_holds".to_string(),
            "platform".to_string(),
            format!("{} holds have been open for more than an hour.", f.stale_holds),
            json!({ "staleHolds": f.stale_holds }),
        ));
    }
    if let Some(p) = previous.filter(|p| p.tokens.settled >= SPEND_DROP_MIN && f.tokens.settled * 2 <= p.tokens.settled)
    {
        found.push((
            "spend_drop".to_string(),
            "platform".to_string(),
            format!("Tokens spent fell from {} to {} against the previous digest.", p.tokens.settled, f.tokens.settled),
            json!({ "previous": p.tokens.settled, "now": f.tokens.settled }),
        ));
    }
    found
}

fn digest_view(d: &DigestRow) -> Result<Digest> {
    Ok(Digest {
        id: d.id.clone(),
        period_start: d.period_start,
        period_end: d.period_end,
        figures: serde_json::from_str(&d.figures).map_err(Error::internal)?,
        summary: d.summary.clone(),
        writer: enum_of(&d.writer)?,
        trigger: enum_of(&d.trigger_kind)?,
        requested_by: d.requested_by.clone(),
        created_at: d.created_at,
    })
}

fn finding_view(f: &FindingRow) -> Result<ReflectionFinding> {
    Ok(ReflectionFinding {
        id: f.id.to_string(),
        digest_id: f.digest_id.clone(),
        rule: f.rule.clone(),
        subject: f.subject.clone(),
        statement: f.statement.clone(),
        figures: serde_json::from_str(&f.figures).map_err(Error::internal)?,
        status: f.status,
        note: f.note.clone(),
        decided_by: f.decided_by.clone(),
        decided_at: f.decided_at,
        created_at: f.created_at,
    })
}

/// A note as given: trimmed, at most 2,000 characters (400 `NOTE_TOO_LONG`).
pub(super) fn note_of(note: Option<&str>) -> Result<String> {
    let note = note.map(str::trim).unwrap_or_default();
    if note.chars().count() > MAX_NOTE_CHARS {
        return Err(Error::invalid("NOTE_TOO_LONG", format!("A note is at most {MAX_NOTE_CHARS} characters."))
            .with("max", MAX_NOTE_CHARS));
    }
    Ok(note.to_string())
}

impl Admin<'_> {
    /// The cadence in force.
    async fn analyst_cadence(&self) -> Result<AnalystCadence> {
        Ok(cadence_of(self.store.analyst_settings().await?.as_ref()))
    }

    /// Write the digest of `[start, end)` filling `slot` for `trigger` (`previous` is the digest
    /// before it, for the findings that compare). When another replica or a simultaneous run
    /// filled the slot first, that digest stands and is returned as reused.
    async fn write_digest(
        &self,
        trigger: DigestTrigger,
        requested_by: Option<&str>,
        (start, end): (DateTime<Utc>, DateTime<Utc>),
        slot: String,
        previous: Option<&DigestRow>,
    ) -> Result<AnalystRun> {
        let hours = (end - start).num_hours();
        let figures = figures(&self.store.period_counts(start, end).await?);
        let mut summary = plain_summary(&figures, hours);
        let mut writer = DigestWriter::Figures;
        let mut model_called = false;
        if figures.readable_verdicts >= READABLE_FLOOR
            && let Ok(client) = self.studio.ai().ai_client()
        {
            model_called = true;
            let prompt =
                serde_json::to_string(&json!({ "hours": hours, "figures": figures })).map_err(Error::internal)?;
            match client.read_json(SYSTEM, &prompt, &[]).await {
                Ok(answer) => match answer.get("summary").and_then(|s| s.as_str()).map(str::trim) {
                    Some(words) if !words.is_empty() => {
                        summary = crate::ai::vision::tidy(words, 4000);
                        writer = DigestWriter::Reader;
                    }
                    _ => tracing::warn!("the analyst's reader answered without a summary; plain figures kept"),
                },
                Err(e) => tracing::warn!(error = %e, "the analyst's reader failed; plain figures kept"),
            }
        }
        let previous = match previous {
            Some(d) => Some(digest_view(d)?.figures),
            None => None,
        };
        let id = new_id("dig");
        let created_at = now();
        let findings: Vec<FindingRow> = reflect(&figures, previous.as_ref())
            .into_iter()
            .map(|(rule, subject, statement, figures)| FindingRow {
                id: FindingId::generate(),
                digest_id: id.clone(),
                rule,
                subject,
                statement,
                figures: figures.to_string(),
                status: FindingStatus::Open,
                note: None,
                decided_by: None,
                decided_at: None,
                created_at,
            })
            .collect();
        let trigger_kind = wire(&trigger);
        let row = DigestRow {
            id,
            period_start: start,
            period_end: end,
            figures: serde_json::to_string(&figures).map_err(Error::internal)?,
            summary,
            writer: wire(&writer),
            trigger_kind: trigger_kind.clone(),
            slot,
            requested_by: requested_by.map(str::to_string),
            created_at,
        };
        if !self.store.insert_digest(&row, &findings).await? {
            let stands = self
                .store
                .digest_in_slot(&trigger_kind, &row.slot)
                .await?
                .ok_or_else(|| Error::internal("a digest slot is taken yet no digest fills it"))?;
            return Ok(AnalystRun { digest: digest_view(&stands)?, reused: true, model_called, findings: vec![] });
        }
        Ok(AnalystRun {
            digest: digest_view(&row)?,
            reused: false,
            model_called,
            findings: findings.iter().map(finding_view).collect::<Result<_>>()?,
        })
    }

    /// The cadence's own run, from the minute sweep (`at` is its clock): when the analyst is on,
    /// the digest of the last whole cadence window before `at` (windows are aligned to the Unix
    /// epoch, so every replica computes the same one), unless it is written already. True when
    /// this call wrote it.
    pub async fn analyst_tick(&self, at: DateTime<Utc>) -> Result<bool> {
        let cadence = self.analyst_cadence().await?;
        if !cadence.enabled {
            return Ok(false);
        }
        let len = cadence.hours * 3600;
        let index = at.timestamp().div_euclid(len);
        let end =
            DateTime::from_timestamp(index * len, 0).ok_or_else(|| Error::internal("a window end out of range"))?;
        let slot = slot_of(cadence.hours, index);
        if self.store.digest_in_slot(&wire(&DigestTrigger::Cadence), &slot).await?.is_some() {
            return Ok(false);
        }
        let previous = self.store.digests(1).await?.into_iter().next();
        let window = (end - Duration::hours(cadence.hours), end);
        Ok(!self.write_digest(DigestTrigger::Cadence, None, window, slot, previous.as_ref()).await?.reused)
    }
}

/// The slot of cadence window `index` at `hours` a window.
fn slot_of(hours: i64, index: i64) -> String {
    format!("{hours}h:{index}")
}

impl Admin<'_> {
    /// `GET /api/toolkit/admin/analyst`: the latest digest, `history` earlier ones, the cadence
    /// and how many findings wait for a decision.
    pub async fn analyst(&self, _admin: &PlatformAdmin, q: DigestQuery) -> Result<AnalystView> {
        let history = i64::from(q.history.unwrap_or(0).min(MAX_DIGEST_HISTORY));
        let rows = self.store.digests(1 + history).await?;
        let mut digests = rows.iter().map(digest_view).collect::<Result<Vec<_>>>()?.into_iter();
        let open = self.store.open_findings().await?;
        Ok(AnalystView {
            digest: digests.next(),
            history: digests.collect(),
            cadence: self.analyst_cadence().await?,
            open_findings: open,
        })
    }

    /// `PATCH /api/toolkit/admin/analyst/cadence`: 400 `HOURS_REQUIRED`, `BAD_HOURS` (with min
    /// and max) outside 1 to 672.
    pub async fn set_cadence(&self, admin: &PlatformAdmin, req: CadenceRequest) -> Result<AnalystCadence> {
        let Some(hours) = req.hours else {
            return Err(Error::invalid("HOURS_REQUIRED", "Give hours: how often the analyst writes a digest."));
        };
        if !(MIN_CADENCE_HOURS..=MAX_CADENCE_HOURS).contains(&hours) {
            return Err(Error::invalid(
                "BAD_HOURS",
                format!("hours is {MIN_CADENCE_HOURS} to {MAX_CADENCE_HOURS} (four weeks)."),
            )
            .with("min", MIN_CADENCE_HOURS)
            .with("max", MAX_CADENCE_HOURS));
        }
        let current = self.analyst_cadence().await?;
        let row = AnalystSettingsRow {
            hours,
            enabled: req.enabled.unwrap_or(current.enabled),
            updated_by: Some(admin.user_id().to_string()),
            updated_at: now(),
        };
        self.store.set_analyst_settings(&row).await?;
        Ok(cadence_of(Some(&row)))
    }

    /// `POST /api/toolkit/admin/analyst/run`: the digest inside the window if there is one,
    /// else a new one.
    pub async fn run_analyst(&self, admin: &PlatformAdmin) -> Result<AnalystRun> {
        let studio = self.studio;
        let cadence = studio.admin().analyst_cadence().await?;
        let at = now();
        let window = Duration::hours(cadence.hours);
        let latest = self.store.digests(1).await?.into_iter().next();
        if let Some(d) = latest.as_ref().filter(|d| d.created_at > at - window) {
            return Ok(AnalystRun { digest: digest_view(d)?, reused: true, model_called: false, findings: vec![] });
        }
        // Runs in the same cadence window share a slot, so two simultaneous runs write one digest.
        let slot = slot_of(cadence.hours, at.timestamp().div_euclid(cadence.hours * 3600));
        studio
            .admin()
            .write_digest(DigestTrigger::Admin, Some(admin.user_id()), (at - window, at), slot, latest.as_ref())
            .await
    }

    /// `GET /api/toolkit/admin/reflection/findings`: newest first, paged.
    pub async fn findings(&self, _admin: &PlatformAdmin, q: FindingsQuery) -> Result<ReflectionFindingList> {
        let limit = super::window::page_limit(q.limit)?;
        let before = super::window::cursor(q.cursor.as_deref())?;
        let rows = self.store.findings(q.status, limit + 1, before.as_ref().map(|(at, id)| (*at, id.as_str()))).await?;
        let more = rows.len() as i64 > limit;
        let findings: Vec<ReflectionFinding> =
            rows.iter().take(limit as usize).map(finding_view).collect::<Result<_>>()?;
        let next_cursor =
            if more { findings.last().map(|f| super::window::next_cursor(f.created_at, &f.id)) } else { None };
        Ok(ReflectionFindingList { findings, next_cursor })
    }

    /// `POST /api/toolkit/admin/reflection/findings/{id}/decision`: once; 404
    /// `FINDING_NOT_FOUND`, 409 `FINDING_DECIDED` (with its status), 400 `DECISION_REQUIRED`.
    pub async fn decide_finding(
        &self,
        admin: &PlatformAdmin,
        id: &str,
        req: DecideFindingRequest,
    ) -> Result<ReflectionFinding> {
        let Some(decision) = req.decision else {
            return Err(Error::invalid("DECISION_REQUIRED", "Give decision: accept or dismiss."));
        };
        let note = note_of(req.note.as_deref())?;
        let status = match decision {
            FindingDecision::Accept => FindingStatus::Accepted,
            FindingDecision::Dismiss => FindingStatus::Dismissed,
        };
        let decided = self.store.decide_finding(&FindingId::from(id), status, &note, admin.user_id(), now()).await?;
        match decided {
            Some(f) => finding_view(&f),
            None => match self.store.finding(&FindingId::from(id)).await? {
                Some(f) => Err(Error::conflict("FINDING_DECIDED", "That finding was already decided.")
                    .with("status", f.status.as_str())),
                None => Err(Error::not_found("FINDING_NOT_FOUND", "No finding has that id.")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> PeriodCounts {
        PeriodCounts {
            houses: 2,
            people: 3,
            uploads: 4,
            develops: vec![
                ("upscale".into(), "done".into(), 6),
                ("upscale".into(), "failed".into(), 4),
                ("packshot".into(), "done".into(), 5),
                ("packshot".into(), "queued".into(), 1),
            ],
            readable_frames: 11,
            readable_verdicts: 3,
            ledger: vec![("grant".into(), 2, 200), ("released".into(), 4, 36), ("settled".into(), 11, 99)],
            stale_holds: 0,
        }
    }

    #[test]
    fn figures_add_up_per_tool_and_per_kind() {
        let f = figures(&counts());
        assert_eq!(f.develops, 16);
        let upscale = f.by_tool.iter().find(|t| t.tool == "upscale").expect("upscale");
        assert_eq!((upscale.total, upscale.done, upscale.failed), (10, 6, 4));
        let packshot = f.by_tool.iter().find(|t| t.tool == "packshot").expect("packshot");
        assert_eq!((packshot.total, packshot.open), (6, 1));
        assert_eq!(f.tokens, TokenFigures { granted: 200, topped_up: 0, settled: 99, releases: 4 });
        let words = plain_summary(&f, 24);
        assert!(words.contains("16 develops were queued (11 landed, 4 failed, 0 cancelled)"), "{words}");
    }

    #[test]
    fn findings_fire_on_their_rules_only() {
        let f = figures(&counts());
        let rules: Vec<_> = reflect(&f, None).into_iter().map(|(rule, subject, ..)| (rule, subject)).collect();
        assert_eq!(rules, vec![("failure_rate".to_string(), "upscale".to_string())], "40% of upscales failed");

        let mut quiet = counts();
        quiet.develops = vec![("upscale".into(), "done".into(), 5), ("upscale".into(), "failed".into(), 1)];
        quiet.stale_holds = 2;
        let previous = DigestFigures { tokens: TokenFigures { settled: 300, ..TokenFigures::default() }, ..f.clone() };
        let rules: Vec<_> = reflect(&figures(&quiet), Some(&previous)).into_iter().map(|(rule, ..)| rule).collect();
        assert_eq!(rules, vec!["stale_holds", "spend_drop"], "1 in 6 is under the line; 99 is under half of 300");

        let mut dark = counts();
        dark.develops = vec![("upscale".into(), "queued".into(), 7)];
        dark.readable_frames = 0;
        let rules: Vec<_> = reflect(&figures(&dark), None).into_iter().map(|(rule, ..)| rule).collect();
        assert_eq!(rules, vec!["no_landing"]);
    }
}
