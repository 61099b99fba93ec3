//! The client's one error type: the server's refusal (code, message, extra fields) or a
//! transport problem.

use serde_json::{Map, Value};

/// Anything a call can fail with.
///
/// A refusal by the server is [`Error::Api`], carrying the spec's code string and the extra
/// fields of the envelope (`need` and `spendable` on a 402, `maxMb` on a 413, `minCents` and
/// `maxCents`, `frames`, `max`, ...). Switch on [`Error::code`] and read the extras with
/// [`Error::extra_i64`] or [`Error::extra`]:
///
/// ```no_run
/// # async fn demo(client: studio_client::Client, develop: studio_client::DevelopSubmit) {
/// match client.submit_develop(&develop).await {
///     Ok(accepted) => println!("queued {}", accepted.job_id),
///     Err(e) if e.code() == Some("INSUFFICIENT_TOKENS") => {
///         let (need, spendable) = (e.extra_i64("need"), e.extra_i64("spendable"));
///         eprintln!("needs {need:?} tokens, {spendable:?} spendable: nothing was held");
///     }
///     Err(e) if e.code() == Some("IMAGE_TOO_LARGE") => {
///         eprintln!("each image is at most {} MB", e.extra_i64("maxMb").unwrap_or(12));
///     }
///     Err(e) if e.status() == Some(429) => eprintln!("still rate limited after the retries: {e}"),
///     Err(e) => eprintln!("{e}"),
/// }
/// # }
/// ```
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
    /// The spec's code when the server refused (`INSUFFICIENT_TOKENS`, `NOT_FOUND`, ...).
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

    /// The server's sentence when it refused.
    pub fn message(&self) -> Option<&str> {
        match self {
            Error::Api { message, .. } => Some(message),
            _ => None,
        }
    }

    /// An extra field of the refusal, as sent.
    pub fn extra(&self, field: &str) -> Option<&Value> {
        match self {
            Error::Api { extra, .. } => extra.get(field),
            _ => None,
        }
    }

    /// An integer extra field, e.g. `need` or `spendable` on a 402, `maxMb` on a 413.
    pub fn extra_i64(&self, field: &str) -> Option<i64> {
        self.extra(field).and_then(Value::as_i64)
    }

    /// A string extra field.
    pub fn extra_str(&self, field: &str) -> Option<&str> {
        self.extra(field).and_then(Value::as_str)
    }

    /// True for the answers the client retries when a call is safe to send again: 429, 502,
    /// 503 and a failed connection. Seen by a caller, it means the retries ran out (or the
    /// call was not safe to retry).
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Api { status, .. } => crate::retry::RETRY_STATUSES.contains(status),
            Error::Transport(e) => e.is_connect(),
            _ => false,
        }
    }
}
