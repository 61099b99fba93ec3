//! Support through the client (`02-route-groups.md` §4.11, docs/support.md): raise a ticket,
//! reply on a thread or note a report; list and read the caller's threads; send a screenshot
//! and fetch it back by its signed link; and the admin support queue. Writes are sent once.

use reqwest::Method;
use std::future::ready;
use studio_core::api::{
    AdminThread, AdminTicketList, AdminTicketsQuery, NewTicket, ScreenshotLink, SupportWords, TicketCreated,
    TicketList, TicketStatusChange, TicketThread, TicketsQuery,
};

use crate::client::{Client, encode, query};
use crate::error::Error;

impl Client {
    /// `POST /api/toolkit/support/tickets`: a new ticket, a reply on the caller's thread
    /// (`ticketId`), or a noted report (`needsReply: false`, answered with a null id). 400
    /// `TOO_LITTLE_SAID` (with `minChars`), `TOO_LONG`, `BAD_TOPIC`, `BAD_EMAIL`, `BAD_RATING`,
    /// `BAD_SCREENSHOTS`; 503 `THREAD_UNAVAILABLE`.
    pub async fn raise_ticket(&self, ticket: &NewTicket) -> Result<TicketCreated, Error> {
        self.post("/api/toolkit/support/tickets", ticket).await
    }

    /// `GET /api/toolkit/support/tickets`: the caller's tickets, newest message first (`limit`
    /// 1-100, `cursor` the previous page's `nextCursor`).
    pub async fn support_tickets(&self, page: &TicketsQuery) -> Result<TicketList, Error> {
        let q = query(&[("limit", page.limit.map(|l| l.to_string())), ("cursor", page.cursor.clone())]);
        self.get(&format!("/api/toolkit/support/tickets{q}")).await
    }

    /// `GET /api/toolkit/support/tickets/{id}`: one of the caller's threads, oldest first
    /// (support's replies become read). 503 `THREAD_UNAVAILABLE` for any other.
    pub async fn support_thread(&self, id: &str) -> Result<TicketThread, Error> {
        self.get(&format!("/api/toolkit/support/tickets/{}", encode(id))).await
    }

    /// `POST /api/toolkit/support/screenshots`: keep an image for a ticket; answers a signed
    /// link (7 days). 413 `IMAGE_TOO_LARGE`; 415 `UNSUPPORTED_MEDIA_TYPE`.
    pub async fn upload_screenshot(&self, bytes: Vec<u8>, file_name: &str) -> Result<ScreenshotLink, Error> {
        let name = file_name.to_string();
        let build = move |request: reqwest::RequestBuilder| {
            let part = reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.clone());
            ready(Ok(request.multipart(reqwest::multipart::Form::new().part("file", part))))
        };
        Ok(self.call(Method::POST, "/api/toolkit/support/screenshots", false, build).await?.0)
    }

    /// A screenshot by its signed link (the `url` answered on upload or in the admin queue),
    /// with no credential needed. 403 `BAD_SIGNATURE`, `LINK_EXPIRED`; 404 `SCREENSHOT_GONE`.
    pub async fn fetch_screenshot(&self, url: &str) -> Result<bytes::Bytes, Error> {
        self.get_bytes(url).await
    }

    /// `GET /api/toolkit/admin/support` (a platform admin's session): every house's tickets.
    pub async fn admin_support_queue(&self, filter: &AdminTicketsQuery) -> Result<AdminTicketList, Error> {
        let q = query(&[
            ("status", filter.status.clone()),
            ("house", filter.house.clone()),
            ("topic", filter.topic.clone()),
            ("limit", filter.limit.map(|l| l.to_string())),
            ("cursor", filter.cursor.clone()),
        ]);
        self.get(&format!("/api/toolkit/admin/support{q}")).await
    }

    /// `GET /api/toolkit/admin/support/{id}`: one ticket whole (notes, context, fresh links).
    pub async fn admin_support_ticket(&self, id: &str) -> Result<AdminThread, Error> {
        self.get(&format!("/api/toolkit/admin/support/{}", encode(id))).await
    }

    /// `POST /api/toolkit/admin/support/{id}/reply`: answer the person.
    pub async fn admin_support_reply(&self, id: &str, content: &str) -> Result<AdminThread, Error> {
        let words = SupportWords { content: content.into() };
        self.post(&format!("/api/toolkit/admin/support/{}/reply", encode(id)), &words).await
    }

    /// `POST /api/toolkit/admin/support/{id}/notes`: an internal note, never shown to the person.
    pub async fn admin_support_note(&self, id: &str, content: &str) -> Result<AdminThread, Error> {
        let words = SupportWords { content: content.into() };
        self.post(&format!("/api/toolkit/admin/support/{}/notes", encode(id)), &words).await
    }

    /// `PATCH /api/toolkit/admin/support/{id}`: set the status (new, open, pending, on_hold,
    /// resolved). 400 `BAD_STATUS`.
    pub async fn admin_support_status(&self, id: &str, status: &str) -> Result<AdminThread, Error> {
        let change = TicketStatusChange { status: Some(status.into()) };
        self.patch(&format!("/api/toolkit/admin/support/{}", encode(id)), &change).await
    }
}
