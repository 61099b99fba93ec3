//! The analyst's actions (action token) and its read of the platform gate (analyst token):
//! approving a request to be let in through the same path an admin invites by, researching an
//! applicant from what the service knows (stored as a note on the request), and having the AI
//! reader summarize a replay evidence with a focus.

use crate::accounts::Email;
use crate::api::{
    AnalystInvitations, AnalystInvitationsQuery, AnalystInviteRequest, ApproveRequest, Approved, DEFAULT_WINDOW_HOURS,
    RequestCounts, Research, ResearchFindings, SummarizeRequest, Summarized,
};
use crate::caller::{Machine, MachineKind};
use crate::error::{Error, Result};
use crate::ids::{EvidenceId, InviteRequestId};
use crate::invitations::request_view;
use crate::storage::{InviteRequestRow, InviteRequestStatus, ResearchRow};

use super::quality::ReaderOutcome;
use super::{Internal, limit, require, window};

const SUMMARY_SYSTEM: &str = "You review one develop (an image generation job) of a fashion studio service for its \
    operators. You are given a JSON record of the job: its request, inputs, output, status timeline, token hold \
    and the automatic verdict on its frame. Answer with one JSON object {\"summary\": \"...\"}: at most 120 words, \
    plain sentences, only facts the record shows, focused on what the operator asks about.";

fn application_not_found() -> Error {
    Error::not_found("APPLICATION_NOT_FOUND", "No request to be let in has that id.")
}

impl Internal<'_> {
    async fn application(&self, id: &InviteRequestId) -> Result<InviteRequestRow> {
        self.store.invite_request(&InviteRequestId::from(id.trim())).await?.ok_or_else(application_not_found)
    }

    /// Analyst `invitations`: requests of the window, newest first, of `status` (`pending`,
    /// `invited`, `declined` or `all`; else 400 `BAD_STATUS`), with every status's count.
    pub async fn invitations(&self, machine: &Machine, q: AnalystInvitationsQuery) -> Result<AnalystInvitations> {
        require(machine, MachineKind::Analyst)?;
        let w = window(q.hours, DEFAULT_WINDOW_HOURS);
        let status = q.status.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("all");
        // `declined` is a status the analyst may ask for, but no request is ever declined yet
        // (a request's status is derived: pending, or invited): it names none.
        let filter = match status {
            "all" | "declined" => None,
            s => Some(
                InviteRequestStatus::parse(s)
                    .ok_or_else(|| Error::invalid("BAD_STATUS", "status is pending, invited, declined or all."))?,
            ),
        };
        let s = &self.store;
        let every = s.invite_requests_since(w.since, None, i64::MAX).await?;
        let counts = RequestCounts {
            pending: every.iter().filter(|r| r.status == InviteRequestStatus::Pending).count() as i64,
            invited: every.iter().filter(|r| r.status == InviteRequestStatus::Invited).count() as i64,
            declined: 0,
        };
        let rows = match status {
            "declined" => Vec::new(),
            _ => s.invite_requests_since(w.since, filter, limit(q.limit)).await?,
        };
        let mut requests = Vec::with_capacity(rows.len());
        for r in rows {
            let research_notes = s.research_of(&r.id).await?.len() as i64;
            requests.push(AnalystInviteRequest { request: request_view(r), research_notes });
        }
        Ok(AnalystInvitations { window: w, status: status.to_string(), counts, requests })
    }

    /// Action: approve a pending request, inviting its address as an admin's invitation does
    /// (the letter goes out). 400 `REASON_REQUIRED`, `TOO_LONG`; 404 `APPLICATION_NOT_FOUND`;
    /// 409 `NOT_PENDING`.
    pub async fn approve(&self, machine: &Machine, id: &InviteRequestId, req: ApproveRequest) -> Result<Approved> {
        require(machine, MachineKind::Action)?;
        let reason = req.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
        let reason = reason.ok_or_else(|| Error::invalid("REASON_REQUIRED", "Say why with reason."))?;
        if reason.chars().count() > 1000 {
            return Err(Error::invalid("TOO_LONG", "reason is at most 1000 characters."));
        }
        let request = self.application(id).await?;
        if request.status != InviteRequestStatus::Pending {
            return Err(Error::conflict("NOT_PENDING", "That request is no longer pending.")
                .with("status", request.status.as_str()));
        }
        let email = Email::parse(&request.email)?;
        let invited = self.studio.accounts().invitations().invite_address(email, None).await?;
        let note = serde_json::json!({ "kind": "approval", "reason": reason, "outcome": invited.answer.status });
        self.store
            .insert_research(&ResearchRow {
                id: crate::ids::new_id("irr"),
                request_id: request.id.clone(),
                findings: note.to_string(),
                created_at: crate::ids::now(),
            })
            .await?;
        Ok(Approved {
            request_id: request.id.into(),
            email: request.email,
            status: InviteRequestStatus::Invited.to_string(),
            reason: reason.into(),
        })
    }

    /// Action: what the service knows about an applicant, stored as a research note on the
    /// request. 404 `APPLICATION_NOT_FOUND`.
    pub async fn research(&self, machine: &Machine, id: &InviteRequestId) -> Result<Research> {
        require(machine, MachineKind::Action)?;
        let request = self.application(id).await?;
        let s = &self.store;
        let domain = request.email.rsplit_once('@').map(|(_, d)| d.to_string()).unwrap_or_default();
        let account = self.studio.accounts().user_with_email(&request.email).await?;
        let earlier_notes = s.research_of(&request.id).await?.len() as i64;
        let same_domain = s.requests_from_domain(&domain, &request.id).await?;
        let view = request_view(request.clone());
        let findings = ResearchFindings {
            throwaway_domain: crate::invitations::throwaway::is_throwaway(&request.email),
            email_domain: domain,
            existing_account: account.is_some(),
            account_created_at: account.map(|a| a.created_at),
            invited: request.status == InviteRequestStatus::Invited,
            same_domain_requests: same_domain.into_iter().map(request_view).collect(),
            earlier_notes,
            answers: view.answers,
            links: view.links,
            website: view.website,
        };
        let row = ResearchRow {
            id: crate::ids::new_id("irr"),
            request_id: request.id.clone(),
            findings: serde_json::json!({ "kind": "research", "findings": findings }).to_string(),
            created_at: crate::ids::now(),
        };
        s.insert_research(&row).await?;
        Ok(Research {
            note_id: row.id,
            request_id: request.id.into(),
            email: request.email,
            status: request.status.to_string(),
            findings,
            created_at: row.created_at,
        })
    }

    /// Action: the AI reader summarizes a replay evidence with a focus; the summary is stored
    /// with the evidence. 400 `FOCUS_AREA_REQUIRED`, `TOO_LONG`; 404 `EVIDENCE_NOT_FOUND`;
    /// 502 `AI_FAILED`; 503 `AI_NOT_CONFIGURED`.
    pub async fn summarize(&self, machine: &Machine, id: &EvidenceId, req: SummarizeRequest) -> Result<Summarized> {
        require(machine, MachineKind::Action)?;
        let focus = req.focus_area.as_deref().map(str::trim).filter(|f| !f.is_empty());
        let focus = focus.ok_or_else(|| Error::invalid("FOCUS_AREA_REQUIRED", "Say what to focus on: focusArea."))?;
        if focus.chars().count() > 500 {
            return Err(Error::invalid("TOO_LONG", "focusArea is at most 500 characters."));
        }
        let evidence = self.evidence_row(id).await?;
        let client = self.studio.ai().ai_client()?;
        let prompt = format!("Focus on: {focus}\n\nThe record:\n{}", evidence.snapshot);
        let started = std::time::Instant::now();
        let answer = client.read_json(SUMMARY_SYSTEM, &prompt, &[]).await;
        let summary: Option<String> = match &answer {
            Ok(v) => v.get("summary").and_then(|s| s.as_str()).map(str::trim).filter(|s| !s.is_empty()).map(Into::into),
            Err(_) => None,
        };
        let outcome = match (&answer, &summary) {
            (Ok(_), Some(_)) => ReaderOutcome::Answered,
            (Ok(_), None) => ReaderOutcome::Unusable,
            (Err(e), _) => ReaderOutcome::of(e),
        };
        self.record_reader_call(Some(&evidence.org_id), "replay-summary", outcome, started).await;
        let summary = match (answer, summary) {
            (_, Some(s)) => s.chars().take(4000).collect::<String>(),
            (Err(e), _) => return Err(crate::ai::reads::ai_failed(&e)),
            (Ok(_), None) => {
                let e = crate::providers::ai::AiError::Malformed("the answer has no summary".into());
                return Err(crate::ai::reads::ai_failed(&e));
            }
        };
        let now = crate::ids::now();
        if !self.store.summarize_evidence(&evidence.id, focus, &summary, now).await? {
            return Err(Error::not_found("EVIDENCE_NOT_FOUND", "No replay evidence has that id."));
        }
        Ok(Summarized { evidence_id: evidence.id.into(), focus_area: focus.to_string(), summary, summarized_at: now })
    }
}
