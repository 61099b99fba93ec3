//! The admin support queue (every house's tickets, for platform admins: list with filters, the
//! whole thread with notes, context and fresh screenshot links, reply, internal note, status)
//! and the analyst's support aggregates (`GET /api/internal/analyst/support`).

use crate::ids::{OrgId, ScreenshotId, TicketId, UserId};
use chrono::Duration;
use serde_json::Value;

use crate::admin::window::{cursor, next_cursor};
use crate::api::{
    AdminScreenshot, AdminThread, AdminThreadMessage, AdminTicket, AdminTicketList, AdminTicketsQuery, AnalystSupport,
    AnalystSupportQuery, DEFAULT_INTERNAL_LIMIT, DEFAULT_WINDOW_HOURS, MAX_INTERNAL_LIMIT, MAX_WINDOW_HOURS,
    SupportCount, SupportWords, TicketStatusChange,
};
use crate::caller::{Machine, MachineKind, PlatformAdmin};
use crate::error::{Error, Result};
use crate::ids::new_id;
use crate::storage::{MessageEffect, TicketFilter, TicketLineRow, TicketMessageRow};

use super::{Support, message_view, page_limit, status, ticket_view, topic, words};

fn not_found() -> Error {
    Error::not_found("TICKET_NOT_FOUND", "No such support ticket.")
}

fn admin_ticket(row: &TicketLineRow) -> AdminTicket {
    AdminTicket {
        ticket: ticket_view(row),
        source: row.ticket.source.clone(),
        topic: row.ticket.topic.clone(),
        reason: row.ticket.reason.clone(),
        house_id: row.ticket.org_id.clone().map(String::from),
        house_name: row.house_name.clone(),
        person_id: row.ticket.user_id.clone().map(String::from),
        person_email: row.person_email.clone(),
        contact_email: row.ticket.contact_email.clone(),
        last_author: row.last_author.clone(),
    }
}

/// Counts of `key` over `rows`, most first, then by name.
fn counts<'a>(
    rows: impl Iterator<Item = &'a TicketLineRow>,
    key: impl Fn(&TicketLineRow) -> Option<String>,
) -> Vec<SupportCount> {
    let mut map = std::collections::BTreeMap::<String, i64>::new();
    for row in rows {
        *map.entry(key(row).unwrap_or_else(|| "none".to_string())).or_default() += 1;
    }
    let mut out: Vec<SupportCount> = map.into_iter().map(|(key, count)| SupportCount { key, count }).collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    out
}

/// The median of `values` (the lower middle of an even count); None when empty.
fn median(mut values: Vec<i64>) -> Option<i64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    Some(values[(values.len() - 1) / 2])
}

impl Support<'_> {
    /// `GET /api/toolkit/admin/support`: every house's tickets, newest message first, filtered
    /// by status, house and topic, paged. 400 `BAD_STATUS`, `BAD_TOPIC`, `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn queue(&self, _admin: &PlatformAdmin, query: AdminTicketsQuery) -> Result<AdminTicketList> {
        let limit = page_limit(query.limit)?;
        let filter = TicketFilter {
            status: query
                .status
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(status)
                .transpose()?
                .map(String::from),
            org_id: query.house.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(OrgId::from),
            topic: topic(query.topic.as_deref())?,
            ticket_id: None,
            since: None,
        };
        let storage = &self.store;
        let before = cursor(query.cursor.as_deref())?;
        let rows = storage.queue_tickets(&filter, limit, before.as_ref().map(|(at, id)| (*at, id.as_str()))).await?;
        let next_cursor = (rows.len() as i64 == limit)
            .then(|| rows.last().map(|r| next_cursor(r.ticket.last_message_at, &r.ticket.id)))
            .flatten();
        Ok(AdminTicketList { tickets: rows.iter().map(admin_ticket).collect(), next_cursor })
    }

    /// `GET /api/toolkit/admin/support/{id}`: the whole ticket: every message and internal note,
    /// the context read when it was raised, the transcript, and fresh links to its screenshots.
    /// Reading it marks nothing read. 404 `TICKET_NOT_FOUND`.
    pub async fn admin_thread(&self, _admin: &PlatformAdmin, id: &TicketId) -> Result<AdminThread> {
        let storage = &self.store;
        let row = storage.ticket_line(&TicketId::from(id.trim())).await?.ok_or_else(not_found)?;
        let messages = storage.ticket_messages(&row.ticket.id, true).await?;
        let now = crate::ids::now();
        let links: Vec<String> = serde_json::from_str(&row.ticket.screenshots).unwrap_or_default();
        let mut screenshots = Vec::new();
        for link in links {
            let kept = match Support::screenshot_id(&link) {
                Some(shot) => storage
                    .screenshot(&ScreenshotId::from(shot))
                    .await?
                    .filter(|s| Some(&s.org_id) == row.ticket.org_id.as_ref()),
                None => None,
            };
            screenshots.push(match kept.filter(|s| s.expires_at > now) {
                Some(shot) => {
                    let fresh = self.fresh_link(&shot, now);
                    AdminScreenshot { id: Some(fresh.id), url: fresh.url, expires_at: Some(fresh.expires_at) }
                }
                None => AdminScreenshot { id: None, url: link, expires_at: None },
            });
        }
        Ok(AdminThread {
            ticket: admin_ticket(&row),
            subject: row.ticket.subject.clone(),
            current_url: row.ticket.current_url.clone(),
            screen: row.ticket.screen.clone(),
            rating: row.ticket.rating,
            context: serde_json::from_str(&row.ticket.context).unwrap_or(Value::Null),
            session_id: row.ticket.session_id.clone(),
            transcript: serde_json::from_str(&row.ticket.transcript).unwrap_or_default(),
            screenshots,
            messages: messages
                .iter()
                .map(|m| AdminThreadMessage {
                    message: message_view(m),
                    internal: m.message.internal,
                    author_id: m.message.author_id.clone().map(String::from),
                    read_at: m.message.read_at,
                })
                .collect(),
        })
    }

    async fn admin_write(
        &self,
        admin: &PlatformAdmin,
        id: &TicketId,
        words_: SupportWords,
        internal: bool,
    ) -> Result<AdminThread> {
        let content = words(&words_.content, 1)?;
        let message = TicketMessageRow {
            id: new_id("tmsg"),
            ticket_id: TicketId::from(id.trim().to_string()),
            author: "support".into(),
            author_id: Some(UserId::from(admin.user_id().to_string())),
            internal,
            content,
            created_at: crate::ids::now(),
            read_at: None,
        };
        // A reply waits on the person; a note changes nothing they see.
        let effect = if internal {
            MessageEffect { status: None, visible: false }
        } else {
            MessageEffect { status: Some("pending"), visible: true }
        };
        if !self.store.add_ticket_message(&message, effect).await? {
            return Err(not_found());
        }
        self.admin_thread(admin, id).await
    }

    /// `POST /api/toolkit/admin/support/{id}/reply`: answer the person (unread for them until
    /// they open the thread); the ticket becomes `pending`. 400 `TOO_LITTLE_SAID`, `TOO_LONG`;
    /// 404 `TICKET_NOT_FOUND`.
    pub async fn reply(&self, admin: &PlatformAdmin, id: &TicketId, words: SupportWords) -> Result<AdminThread> {
        self.admin_write(admin, id, words, false).await
    }

    /// `POST /api/toolkit/admin/support/{id}/notes`: an internal note, never shown to the
    /// person; the status stays. 400 `TOO_LITTLE_SAID`, `TOO_LONG`; 404 `TICKET_NOT_FOUND`.
    pub async fn note(&self, admin: &PlatformAdmin, id: &TicketId, words: SupportWords) -> Result<AdminThread> {
        self.admin_write(admin, id, words, true).await
    }

    /// `PATCH /api/toolkit/admin/support/{id}`: set the status. 400 `BAD_STATUS`; 404
    /// `TICKET_NOT_FOUND`.
    pub async fn set_status(
        &self,
        admin: &PlatformAdmin,
        id: &TicketId,
        change: TicketStatusChange,
    ) -> Result<AdminThread> {
        let status = status(change.status.as_deref().unwrap_or_default())?;
        if !self.store.set_ticket_status(&TicketId::from(id.trim()), status).await? {
            return Err(not_found());
        }
        self.admin_thread(admin, id).await
    }

    /// `GET /api/internal/analyst/support` (the analyst's token): the tickets raised in the last
    /// `hours` (optionally one status or one ticket): counts by status, topic and reason, how
    /// many support answered and the median time to its first reply, the noted reports, and
    /// the tickets themselves. 400 `BAD_HOURS`, `BAD_LIMIT`, `BAD_STATUS`; 401 another kind.
    pub async fn analyst(&self, machine: &Machine, query: AnalystSupportQuery) -> Result<AnalystSupport> {
        crate::internal::require(machine, MachineKind::Analyst)?;
        // The other analyst reads clamp these; support refuses what is out of range, with the
        // same bounds.
        let hours = query.hours.unwrap_or(DEFAULT_WINDOW_HOURS);
        if !(1..=MAX_WINDOW_HOURS).contains(&hours) {
            return Err(
                Error::invalid("BAD_HOURS", format!("hours is 1 to {MAX_WINDOW_HOURS}.")).with("max", MAX_WINDOW_HOURS)
            );
        }
        let limit = query.limit.unwrap_or(DEFAULT_INTERNAL_LIMIT);
        if !(1..=MAX_INTERNAL_LIMIT).contains(&limit) {
            return Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_INTERNAL_LIMIT}.")));
        }
        let since = crate::ids::now() - Duration::hours(hours);
        let filter = TicketFilter {
            status: query
                .status
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(status)
                .transpose()?
                .map(String::from),
            org_id: None,
            topic: None,
            ticket_id: query.ticket_id.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from),
            since: Some(since),
        };
        let rows = self.store.window_tickets(&filter).await?;
        let waits: Vec<i64> = rows
            .iter()
            .filter_map(|r| r.first_reply_at.map(|at| (at - r.ticket.created_at).num_seconds().max(0)))
            .collect();
        Ok(AnalystSupport {
            hours,
            since,
            tickets_raised: rows.len() as i64,
            reports_noted: self.store.support_reports_since(since).await?,
            by_status: counts(rows.iter(), |r| Some(r.ticket.status.to_string())),
            by_topic: counts(rows.iter(), |r| r.ticket.topic.clone()),
            by_reason: counts(rows.iter().filter(|r| r.ticket.source == "escalation"), |r| r.ticket.reason.clone()),
            answered: waits.len() as i64,
            median_first_reply_secs: median(waits),
            tickets: rows.iter().take(limit as usize).map(admin_ticket).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_lower_middle() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![5]), Some(5));
        assert_eq!(median(vec![9, 1, 5]), Some(5));
        assert_eq!(median(vec![4, 1, 3, 2]), Some(2));
    }
}
