//! Escalations: a chat the support bridge (or the studio assistant, `chat/`) hands to a
//! human becomes a ticket carrying the chat's transcript. One path for both callers: the
//! bridge's `POST /api/support/escalations` and [`Support::escalate`] with
//! [`Escalator::Chat`].

use crate::api::{ESCALATION_REASONS, Escalation, Ticket};
use crate::caller::{Caller, Machine, MachineKind};
use crate::error::{Error, Result};
use crate::ids::{OrgId, TicketId};
use crate::storage::TicketRow;

use super::{Support, contact, ticket_view};

/// The most transcript items kept, and the most bytes they take.
const MAX_TRANSCRIPT_ITEMS: usize = 200;
const MAX_TRANSCRIPT_BYTES: usize = 256 * 1024;
/// Longest chat session id.
const MAX_SESSION_CHARS: usize = 200;

/// Who escalates.
#[derive(Debug, Clone, Copy)]
pub enum Escalator<'a> {
    /// The support bridge (its verified secret): the house comes from `organizationId` (absent:
    /// a visitor's chat, filed with no house and no person).
    Bridge(&'a Machine),
    /// The chat assistant for a signed-in caller: the ticket is the caller's own thread in
    /// their house (an `organizationId` naming another house is 404).
    Chat(&'a Caller),
}

impl Support<'_> {
    /// Escalate a chat into a ticket (status `new`, source `escalation`). 400 `BAD_REASON`,
    /// `SESSION_REQUIRED`, `TOO_LONG`, `BAD_EMAIL`, `TRANSCRIPT_TOO_LARGE`; 401 (a machine
    /// credential of another kind); 404 `HOUSE_NOT_FOUND`.
    pub async fn escalate(&self, by: Escalator<'_>, req: Escalation) -> Result<Ticket> {
        if let Escalator::Bridge(machine) = by {
            crate::internal::require(machine, MachineKind::SupportBridge)?;
        }
        let reason = req.reason.as_deref().unwrap_or_default().trim();
        if !ESCALATION_REASONS.contains(&reason) {
            return Err(Error::invalid("BAD_REASON", format!("reason is one of {}.", ESCALATION_REASONS.join(", "))));
        }
        let session_id = super::optional(Some(&req.session_id), "sessionId", MAX_SESSION_CHARS)?
            .ok_or_else(|| Error::invalid("SESSION_REQUIRED", "sessionId names the chat escalated."))?;
        let contact_email = contact(req.contact_email.as_deref())?;
        let transcript = serde_json::Value::from(
            req.transcript.unwrap_or_default().into_iter().map(serde_json::Value::Object).collect::<Vec<_>>(),
        );
        let items = transcript.as_array().map(Vec::len).unwrap_or(0);
        let transcript = transcript.to_string();
        if items > MAX_TRANSCRIPT_ITEMS || transcript.len() > MAX_TRANSCRIPT_BYTES {
            return Err(Error::invalid(
                "TRANSCRIPT_TOO_LARGE",
                format!("A transcript is at most {MAX_TRANSCRIPT_ITEMS} items and 256 KB."),
            ));
        }
        let named = req.organization_id.as_deref().map(str::trim).filter(|o| !o.is_empty());
        let no_house = || Error::not_found("HOUSE_NOT_FOUND", "organizationId names no house.");
        let (org_id, user_id) = match by {
            Escalator::Chat(caller) => {
                if named.is_some_and(|o| o != caller.org_id) {
                    return Err(no_house());
                }
                (Some(caller.org_id.clone()), Some(caller.user_id.clone()))
            }
            Escalator::Bridge(_) => match named {
                Some(org) => {
                    let house = self.studio.accounts().house(&OrgId::from(org)).await?.ok_or_else(no_house)?;
                    (Some(house.id), None)
                }
                None => (None, None),
            },
        };
        let context = match &org_id {
            Some(org) => self.context(org).await?.to_string(),
            None => "{}".to_string(),
        };
        let now = crate::ids::now();
        let ticket = TicketRow {
            id: TicketId::generate(),
            org_id,
            user_id,
            source: "escalation".into(),
            status: crate::storage::TicketStatus::New,
            topic: None,
            subject: None,
            summary: format!("Chat escalated ({reason})"),
            contact_email,
            current_url: None,
            screen: None,
            rating: None,
            screenshots: "[]".into(),
            context,
            reason: Some(reason.to_string()),
            session_id: Some(session_id),
            transcript,
            created_at: now,
            last_message_at: now,
        };
        self.store.insert_ticket(&ticket, None).await?;
        let row = self.store.ticket_line(&ticket.id).await?.ok_or_else(|| Error::internal("ticket vanished"))?;
        Ok(ticket_view(&row))
    }
}
