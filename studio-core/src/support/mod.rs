//! Support (`02-route-groups.md` §2.9, §4.11): the view `studio.support()`. A person's tickets
//! and threads, noted reports and the context the server reads and attaches (`mod.rs`); the
//! screenshots and their signed links (`screenshots.rs`); escalations from the support bridge or
//! the chat assistant (`escalations.rs`); the admin queue and the analyst's aggregates
//! (`queue.rs`). Every choice the spec leaves open is in docs/support.md.
//!
//! "The caller" of a thread is the pair (house, person): a session's person, or for a key the
//! person who minted it (`Caller::user_id`), so an agent's tickets land in its minter's list and
//! the minter reads support's answers from their browser. A thread that is not the caller's
//! (another person, another house, an unknown id) is 503 `THREAD_UNAVAILABLE`, as the spec says.

use crate::ids::{OrgId, TicketId};
use chrono::Utc;
use serde_json::{Value, json};

use crate::accounts::Email;
use crate::admin::window::{cursor, next_cursor};
use crate::api::{
    DEFAULT_TICKETS_PAGE, MAX_SUPPORT_BODY_CHARS, MAX_TICKET_SCREENSHOTS, MAX_TICKETS_PAGE, MIN_SUPPORT_BODY_CHARS,
    NewTicket, NotedReport, SUPPORT_TOPICS, TICKET_STATUSES, ThreadMessage, Ticket, TicketCreated, TicketList,
    TicketThread, TicketsQuery,
};
use crate::caller::Caller;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::new_id;
use crate::storage::{MessageEffect, SupportReportRow, ThreadMessageRow, TicketLineRow, TicketMessageRow, TicketRow};

mod escalations;
mod queue;
mod screenshots;

pub use escalations::Escalator;

/// Longest subject.
const MAX_SUBJECT_CHARS: usize = 200;
/// Longest summary.
const MAX_SUMMARY_CHARS: usize = 120;
/// Longest page address or screen name.
const MAX_URL_CHARS: usize = 2048;
const MAX_SCREEN_CHARS: usize = 200;
/// The name support replies carry.
pub(crate) const SUPPORT_NAME: &str = "Studio support";

crate::studio::view! {
    /// Support's operations: `studio.support()`.
    Support over SupportStore
}

/// 503 `THREAD_UNAVAILABLE`: a thread that is not the caller's, answered exactly as an unknown
/// one (§4.11).
pub(crate) fn thread_unavailable() -> Error {
    Error::new(ErrorKind::NotConfigured, "THREAD_UNAVAILABLE", "This support thread is not available to you.")
}

/// 400 `TOO_LITTLE_SAID` (with `minChars`).
fn too_little(min: usize) -> Error {
    Error::invalid(
        "TOO_LITTLE_SAID",
        format!("Say a little more so support can help: at least {min} characters (spaces not counted)."),
    )
    .with("minChars", min)
}

/// Characters that are not whitespace.
fn said(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// An optional text field: trimmed, blank as absent, 400 `TOO_LONG` (with `field`, `max`) past `max`.
pub(crate) fn optional(value: Option<&str>, field: &str, max: usize) -> Result<Option<String>> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    if value.chars().count() > max {
        return Err(Error::invalid("TOO_LONG", format!("{field} is at most {max} characters."))
            .with("field", field)
            .with("max", max));
    }
    Ok(Some(value.to_string()))
}

/// A body, reply or note: trimmed, at least `min` characters said, at most the longest.
pub(crate) fn words(value: &str, min: usize) -> Result<String> {
    let value = value.trim();
    if said(value) < min.max(1) {
        return Err(too_little(min.max(1)));
    }
    if value.chars().count() > MAX_SUPPORT_BODY_CHARS {
        return Err(Error::invalid("TOO_LONG", format!("A message is at most {MAX_SUPPORT_BODY_CHARS} characters."))
            .with("field", "body")
            .with("max", MAX_SUPPORT_BODY_CHARS));
    }
    Ok(value.to_string())
}

/// A contact address, normalised; 400 `BAD_EMAIL`.
pub(crate) fn contact(value: Option<&str>) -> Result<Option<String>> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => Ok(Some(Email::parse(v)?.as_str().to_string())),
        None => Ok(None),
    }
}

/// A topic of the spec's list; 400 `BAD_TOPIC`.
pub(crate) fn topic(value: Option<&str>) -> Result<Option<String>> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if SUPPORT_TOPICS.contains(&v) => Ok(Some(v.to_string())),
        Some(_) => Err(Error::invalid("BAD_TOPIC", format!("topic is one of {}.", SUPPORT_TOPICS.join(", ")))),
        None => Ok(None),
    }
}

/// A status of the spec's list; 400 `BAD_STATUS`.
pub(crate) fn status(value: &str) -> Result<&'static str> {
    let v = value.trim();
    TICKET_STATUSES
        .iter()
        .find(|s| **s == v)
        .copied()
        .ok_or_else(|| Error::invalid("BAD_STATUS", format!("status is one of {}.", TICKET_STATUSES.join(", "))))
}

/// A page size; 400 `BAD_LIMIT`.
pub(crate) fn page_limit(limit: Option<u32>) -> Result<i64> {
    let limit = limit.unwrap_or(DEFAULT_TICKETS_PAGE);
    if !(1..=MAX_TICKETS_PAGE).contains(&limit) {
        return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_TICKETS_PAGE}.")));
    }
    Ok(i64::from(limit))
}

/// The summary lists show: the subject, else the start of the first words.
fn summary(subject: Option<&str>, body: &str) -> String {
    let text = subject.unwrap_or(body).split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= MAX_SUMMARY_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_SUMMARY_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

pub(crate) fn ticket_view(row: &TicketLineRow) -> Ticket {
    Ticket {
        id: row.ticket.id.clone().into(),
        status: row.ticket.status.to_string(),
        summary: row.ticket.summary.clone(),
        message_count: row.message_count,
        unread_count: row.unread_count,
        created_at: row.ticket.created_at,
        last_message_at: row.ticket.last_message_at,
    }
}

pub(crate) fn message_view(row: &ThreadMessageRow) -> ThreadMessage {
    let m = &row.message;
    let author_name = match m.author.as_str() {
        "support" => SUPPORT_NAME.to_string(),
        _ => row.author_name.clone().unwrap_or_else(|| "Guest".to_string()),
    };
    ThreadMessage {
        id: m.id.clone(),
        content: m.content.clone(),
        author: m.author.clone(),
        author_name,
        created_at: m.created_at,
    }
}

/// What a ticket's fields become once checked (shared by tickets and noted reports).
struct Checked {
    subject: Option<String>,
    topic: Option<String>,
    contact_email: Option<String>,
    current_url: Option<String>,
    screen: Option<String>,
    rating: Option<i64>,
    screenshots: String,
}

fn check(new: &NewTicket) -> Result<Checked> {
    let screenshots = new.screenshots.clone().unwrap_or_default();
    if screenshots.len() > MAX_TICKET_SCREENSHOTS {
        return Err(Error::invalid("BAD_SCREENSHOTS", format!("At most {MAX_TICKET_SCREENSHOTS} screenshots.")));
    }
    let mut links = Vec::new();
    for link in &screenshots {
        let link = link.trim();
        if link.is_empty() || link.chars().count() > MAX_URL_CHARS || link.chars().any(char::is_whitespace) {
            return Err(Error::invalid(
                "BAD_SCREENSHOTS",
                format!("Each screenshot is a link of at most {MAX_URL_CHARS} characters."),
            ));
        }
        links.push(link.to_string());
    }
    if let Some(r) = new.rating
        && !(1..=5).contains(&r)
    {
        return Err(Error::invalid("BAD_RATING", "rating is a whole number from 1 to 5."));
    }
    Ok(Checked {
        subject: optional(new.subject.as_deref(), "subject", MAX_SUBJECT_CHARS)?,
        topic: topic(new.topic.as_deref())?,
        contact_email: contact(new.contact_email.as_deref())?,
        current_url: optional(new.current_url.as_deref(), "currentUrl", MAX_URL_CHARS)?,
        screen: optional(new.screen.as_deref(), "screen", MAX_SCREEN_CHARS)?,
        rating: new.rating,
        screenshots: Value::from(links).to_string(),
    })
}

impl Support<'_> {
    /// What the server reads and attaches to a ticket of `org_id`: the plan, the spendable
    /// balance and the house's last develop (never taken from the client).
    pub(crate) async fn context(&self, org_id: &OrgId) -> Result<Value> {
        let studio = self.studio;
        let plan = studio.billing().plan_view(org_id).await?;
        let spendable = studio.billing().totals(org_id).await?.spendable();
        let last = studio.develops().recent_develops(org_id, 1).await?.into_iter().next();
        Ok(json!({
            "plan": plan.map(|p| json!({ "tier": p.tier, "name": p.name, "status": p.status, "renewsAt": p.renews_at })),
            "spendable": spendable,
            "lastDevelop": last.map(|j| json!({ "id": j.id, "tool": j.tool, "status": j.status, "createdAt": j.created_at })),
            "readAt": Utc::now(),
        }))
    }

    /// The caller's own ticket, else 503 `THREAD_UNAVAILABLE`.
    async fn own(&self, caller: &Caller, id: &str) -> Result<TicketLineRow> {
        let row = self.store.ticket_line(&TicketId::from(id.trim())).await?.ok_or_else(thread_unavailable)?;
        let mine = row.ticket.org_id.as_deref() == Some(caller.org_id.as_str())
            && row.ticket.user_id.as_deref() == Some(caller.user_id.as_str());
        if !mine {
            return Err(thread_unavailable());
        }
        Ok(row)
    }

    /// `POST /api/toolkit/support/tickets`: raise a ticket, reply on one of the caller's threads
    /// (`ticketId`), or note a report (`needsReply: false`). Any role. 400 `TOO_LITTLE_SAID`,
    /// `TOO_LONG`, `BAD_TOPIC`, `BAD_EMAIL`, `BAD_RATING`, `BAD_SCREENSHOTS`; 503
    /// `THREAD_UNAVAILABLE` (a `ticketId` that is not the caller's).
    pub async fn raise(&self, caller: &Caller, new: NewTicket) -> Result<TicketCreated> {
        let checked = check(&new)?;
        let storage = &self.store;
        let now = crate::ids::now();
        if let Some(id) = new.ticket_id.as_deref().map(str::trim).filter(|id| !id.is_empty()) {
            let body = words(&new.body, 1)?;
            let row = self.own(caller, id).await?;
            let message = TicketMessageRow {
                id: new_id("tmsg"),
                ticket_id: row.ticket.id.clone(),
                author: "person".into(),
                author_id: Some(caller.user_id.clone()),
                internal: false,
                content: body,
                created_at: now,
                read_at: None,
            };
            // The person wrote again: support is owed an answer (a new ticket stays new).
            let status = if row.ticket.status == crate::storage::TicketStatus::New { None } else { Some("open") };
            if !storage.add_ticket_message(&message, MessageEffect { status, visible: true }).await? {
                return Err(thread_unavailable());
            }
            let row = storage.ticket_line(&row.ticket.id).await?.ok_or_else(thread_unavailable)?;
            return Ok(TicketCreated::Ticket(ticket_view(&row)));
        }
        let body = words(&new.body, MIN_SUPPORT_BODY_CHARS)?;
        let context = self.context(&caller.org_id).await?.to_string();
        if new.needs_reply == Some(false) {
            let report = SupportReportRow {
                id: new_id("srep"),
                org_id: caller.org_id.clone(),
                user_id: caller.user_id.clone(),
                topic: checked.topic,
                subject: checked.subject,
                body,
                contact_email: checked.contact_email,
                current_url: checked.current_url,
                screen: checked.screen,
                rating: checked.rating,
                screenshots: checked.screenshots,
                context,
                created_at: now,
            };
            storage.insert_support_report(&report).await?;
            return Ok(TicketCreated::Noted(NotedReport {
                id: None,
                noted: true,
                report_id: report.id,
                created_at: now,
            }));
        }
        let ticket = TicketRow {
            id: TicketId::generate(),
            org_id: Some(caller.org_id.clone()),
            user_id: Some(caller.user_id.clone()),
            source: "person".into(),
            status: crate::storage::TicketStatus::New,
            summary: summary(checked.subject.as_deref(), &body),
            topic: checked.topic,
            subject: checked.subject,
            contact_email: checked.contact_email,
            current_url: checked.current_url,
            screen: checked.screen,
            rating: checked.rating,
            screenshots: checked.screenshots,
            context,
            reason: None,
            session_id: None,
            transcript: "[]".into(),
            created_at: now,
            last_message_at: now,
        };
        let first = TicketMessageRow {
            id: new_id("tmsg"),
            ticket_id: ticket.id.clone(),
            author: "person".into(),
            author_id: Some(caller.user_id.clone()),
            internal: false,
            content: body,
            created_at: now,
            read_at: None,
        };
        storage.insert_ticket(&ticket, Some(&first)).await?;
        let row = storage.ticket_line(&ticket.id).await?.ok_or_else(|| Error::internal("ticket vanished"))?;
        Ok(TicketCreated::Ticket(ticket_view(&row)))
    }

    /// `GET /api/toolkit/support/tickets`: the caller's tickets in the house, newest message
    /// first, paged. 400 `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn tickets(&self, caller: &Caller, query: TicketsQuery) -> Result<TicketList> {
        let limit = page_limit(query.limit)?;
        let before = cursor(query.cursor.as_deref())?;
        let rows = self
            .store
            .person_tickets(&caller.org_id, &caller.user_id, limit, before.as_ref().map(|(at, id)| (*at, id.as_str())))
            .await?;
        let next_cursor = (rows.len() as i64 == limit)
            .then(|| rows.last().map(|r| next_cursor(r.ticket.last_message_at, &r.ticket.id)))
            .flatten();
        Ok(TicketList { tickets: rows.iter().map(ticket_view).collect(), next_cursor })
    }

    /// `GET /api/toolkit/support/tickets/{id}`: the caller's thread, oldest first, internal
    /// notes excluded; support's replies are marked read. 503 `THREAD_UNAVAILABLE`.
    pub async fn thread(&self, caller: &Caller, id: &TicketId) -> Result<TicketThread> {
        let row = self.own(caller, id).await?;
        let storage = &self.store;
        if row.unread_count > 0 {
            storage.mark_support_read(&row.ticket.id, crate::ids::now()).await?;
        }
        let messages = storage.ticket_messages(&row.ticket.id, false).await?;
        Ok(TicketThread {
            status: row.ticket.status.to_string(),
            messages: messages.iter().map(message_view).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_little_said_counts_what_is_not_space() {
        assert_eq!(words("  help me!!  ", 10).unwrap_err().code, "TOO_LITTLE_SAID");
        assert_eq!(words("h e l p m e n o w !", 10).unwrap(), "h e l p m e n o w !");
        assert_eq!(words("", 1).unwrap_err().code, "TOO_LITTLE_SAID");
        assert_eq!(words("ok", 1).unwrap(), "ok");
        assert_eq!(words(&"x".repeat(MAX_SUPPORT_BODY_CHARS + 1), 1).unwrap_err().code, "TOO_LONG");
    }

    #[test]
    fn summaries_prefer_the_subject_and_stay_short() {
        assert_eq!(summary(Some("Export  failed"), "long body"), "Export failed");
        let long = "word ".repeat(60);
        let s = summary(None, &long);
        assert!(s.chars().count() <= MAX_SUMMARY_CHARS && s.ends_with('…'), "{s}");
    }

    #[test]
    fn vocabularies_refuse_with_their_codes() {
        assert_eq!(topic(Some("billing")).unwrap().as_deref(), Some("billing"));
        assert_eq!(topic(Some("Billing")).unwrap_err().code, "BAD_TOPIC");
        assert_eq!(status("on_hold").unwrap(), "on_hold");
        assert_eq!(status("closed").unwrap_err().code, "BAD_STATUS");
        assert_eq!(page_limit(Some(0)).unwrap_err().code, "BAD_LIMIT");
        assert_eq!(contact(Some("not an address")).unwrap_err().code, "BAD_EMAIL");
    }
}
