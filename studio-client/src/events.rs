//! The self-backfilling event stream: the job socket plus `GET /api/toolkit/jobs?since=`.
//!
//! [`Client::events`] opens the socket first and then backfills from the cursor, so nothing
//! falls between the two; it remembers the newest eventSeq of every job so a change seen both
//! in the backfill and on the socket is delivered once. When the socket drops (or the server
//! closes it because the client fell behind) it reconnects with backoff and backfills again.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use studio_core::api::{Job, SocketMessage};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::client::{Client, Credential};
use crate::error::Error;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Longest wait between reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// A stream of the house's events that never misses or repeats a job change.
#[derive(Debug)]
pub struct EventStream {
    client: Client,
    socket: Option<Socket>,
    /// The highest eventSeq seen: where a backfill starts.
    cursor: i64,
    /// The newest eventSeq seen per job.
    seen: HashMap<String, i64>,
    ready: VecDeque<SocketMessage>,
    backoff: Duration,
    /// Reconnects so far (for callers that report it).
    reconnects: u64,
}

impl Client {
    /// Follow the house's events from `since` (0: replay every job's latest state first).
    pub fn events(&self, since: i64) -> EventStream {
        EventStream {
            client: self.clone(),
            socket: None,
            cursor: since,
            seen: HashMap::new(),
            ready: VecDeque::new(),
            backoff: Duration::from_millis(200),
            reconnects: 0,
        }
    }

    async fn open_socket(&self) -> Result<Socket, Error> {
        let url = self.base_url().replacen("http", "ws", 1) + "/api/toolkit/jobs/ws";
        let mut request = url.into_client_request().map_err(|e| Error::Socket(e.to_string()))?;
        let header = match self.credential() {
            Credential::ApiKey(key) => Some(("authorization", format!("Bearer {key}"))),
            Credential::Session(token) => Some(("cookie", format!("studio_session={token}"))),
            Credential::None => None,
        };
        if let Some((name, value)) = header {
            let value = value.parse().map_err(|_| Error::Config("credential is not a valid header".into()))?;
            request.headers_mut().insert(name, value);
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(socket),
            Err(tokio_tungstenite::tungstenite::Error::Http(res)) => {
                let body = res.body().clone().unwrap_or_default();
                Err(crate::client::refusal(
                    reqwest::StatusCode::from_u16(res.status().as_u16()).unwrap_or(reqwest::StatusCode::BAD_GATEWAY),
                    &body,
                ))
            }
            Err(e) => Err(Error::Socket(e.to_string())),
        }
    }
}

impl EventStream {
    /// The highest eventSeq delivered so far.
    pub fn cursor(&self) -> i64 {
        self.cursor
    }

    /// How many times the stream reconnected.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// Queue a job change unless this job's change was already delivered.
    fn offer_job(&mut self, job: Job) {
        let newest = self.seen.entry(job.id.clone()).or_insert(i64::MIN);
        if job.event_seq <= *newest {
            return;
        }
        *newest = job.event_seq;
        self.cursor = self.cursor.max(job.event_seq);
        self.ready.push_back(SocketMessage::Job { job });
    }

    /// Connect (socket first), then backfill everything after the cursor.
    async fn connect(&mut self) -> Result<(), Error> {
        let socket = self.client.open_socket().await?;
        self.socket = Some(socket);
        loop {
            let page = self.client.jobs_since(self.cursor).await?;
            let full = page.jobs.len() as i64 >= 1000;
            for job in page.jobs {
                self.offer_job(job);
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// The next event. Reconnects and backfills by itself; an error is returned only when the
    /// server refuses the credential (401) or the house (403).
    pub async fn next(&mut self) -> Result<SocketMessage, Error> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Ok(message);
            }
            let Some(socket) = self.socket.as_mut() else {
                match self.connect().await {
                    Ok(()) => self.backoff = Duration::from_millis(200),
                    Err(e @ Error::Api { status: 401 | 403, .. }) => return Err(e),
                    Err(_) => {
                        tokio::time::sleep(self.backoff).await;
                        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                        self.reconnects += 1;
                    }
                }
                continue;
            };
            match socket.next().await {
                Some(Ok(Message::Text(text))) => match serde_json::from_str::<SocketMessage>(&text) {
                    Ok(SocketMessage::Job { job }) => self.offer_job(job),
                    Ok(other) => self.ready.push_back(other),
                    Err(_) => {}
                },
                Some(Ok(Message::Ping(payload))) => {
                    let _ = socket.send(Message::Pong(payload)).await;
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => {
                    self.socket = None;
                    self.reconnects += 1;
                }
            }
        }
    }

    /// Close the socket politely.
    pub async fn close(mut self) {
        if let Some(mut socket) = self.socket.take() {
            let _ = socket.close(None).await;
        }
    }
}
