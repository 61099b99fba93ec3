//! The client's one error type: the server's refusal (code, message, extra fields) or a
//! transport problem.

use serde_json::{Map, Value};

/// Anything a call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused with the shared envelope.
    #[error("{code} ({status}): {message}")]
    Api {
        /// HTTP status.
        status: u16,
        /// The spec's code string, e.g. `INSUFFICIENT_TOKENS`.
        code: String,
        /// The server's sentence.
        message: String,
        /// Extra fields (`need`, `spendable`, `maxMb`, `max`, ...).
        extra: Map<String, Value>,
    },
    /// The request did not complete (connection, timeout, TLS).
    #[error("transport")]
    Transport(#[from] reqwest::Error),
    /// The answer was not the JSON we expected.
    #[error("unexpected answer ({status}): {detail}")]
    Decode {
        /// HTTP status.
        status: u16,
        /// What went wrong.
        detail: String,
    },
    /// The client was configured wrongly (bad base URL, header value).
    #[error("configuration: {0}")]
    Config(String),
    /// A wait ran out of time (the work goes on server-side).
    #[error("timed out: {0}")]
    Timeout(String),
    /// The event socket failed (it reconnects by itself; this is only reported when it cannot).
    #[error("event socket: {0}")]
    Socket(String),
}

impl Error {
    /// The spec's code when the server refused.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Api { code, .. } => Some(code),
            _ => None,
        }
    }

    /// The HTTP status when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } | Error::Decode { status, .. } => Some(*status),
            Error::Transport(e) => e.status().map(|s| s.as_u16()),
            Error::Config(_) | Error::Timeout(_) | Error::Socket(_) => None,
        }
    }

    /// An integer extra field, e.g. `need` or `spendable` on a 402.
    pub fn extra_i64(&self, field: &str) -> Option<i64> {
        match self {
            Error::Api { extra, .. } => extra.get(field).and_then(Value::as_i64),
            _ => None,
        }
    }
}
