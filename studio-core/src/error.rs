//! The core's one error type: a kind (which frontends map to a status), the spec's code string,
//! a message for people and the extra fields the spec names.

use serde_json::{Map, Value};

use crate::storage::StorageError;

/// Result with the core's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The class of a refusal; frontends map it to an HTTP status or a tool refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input (400).
    Invalid,
    /// No valid key or session (401).
    Unauthenticated,
    /// Not enough tokens (402).
    InsufficientTokens,
    /// Role or ownership (403).
    Forbidden,
    /// Unknown or foreign (404).
    NotFound,
    /// A conflict with what is stored (409).
    Conflict,
    /// Existed once and is gone for good: an expired or spent link or token (410).
    Gone,
    /// Too large (413).
    TooLarge,
    /// A body of a media type the route does not take (415).
    UnsupportedMedia,
    /// Cannot run (422).
    Unprocessable,
    /// Too many requests; the error's `retryAfter` extra says how many seconds to wait, and
    /// frontends send it as `Retry-After` too (429).
    RateLimited,
    /// Something upstream failed (502).
    Upstream,
    /// A feature is not configured (503).
    NotConfigured,
    /// Our own fault (500); details stay in the log.
    Internal,
}

impl ErrorKind {
    /// The HTTP status this kind answers with: the one table every HTTP frontend uses (the
    /// server and `examples/embed_core.rs`), kept here so the core needs no HTTP crate.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::Invalid => 400,
            ErrorKind::Unauthenticated => 401,
            ErrorKind::InsufficientTokens => 402,
            ErrorKind::Forbidden => 403,
            ErrorKind::NotFound => 404,
            ErrorKind::Conflict => 409,
            ErrorKind::Gone => 410,
            ErrorKind::TooLarge => 413,
            ErrorKind::UnsupportedMedia => 415,
            ErrorKind::Unprocessable => 422,
            ErrorKind::RateLimited => 429,
            ErrorKind::Upstream => 502,
            ErrorKind::NotConfigured => 503,
            ErrorKind::Internal => 500,
        }
    }
}

/// A refusal or failure from the core.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// The class of failure.
    pub kind: ErrorKind,
    /// The spec's code string, e.g. `INSUFFICIENT_TOKENS`.
    pub code: &'static str,
    /// A sentence for people. For `Internal` it is generic; details went to the log.
    pub message: String,
    /// Extra fields the spec names for this code (`need`, `spendable`, `max`, ...).
    pub extra: Map<String, Value>,
}

impl Error {
    /// A refusal of the given kind and code.
    pub fn new(kind: ErrorKind, code: &'static str, message: impl Into<String>) -> Self {
        Error { kind, code, message: message.into(), extra: Map::new() }
    }

    /// Attach an extra field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// 400 with a route-specific code.
    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, code, message)
    }

    /// 401: neither a key nor a session.
    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthenticated, "UNAUTHORIZED", message)
    }

    /// 403 with a code.
    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, code, message)
    }

    /// 404 with a code.
    pub fn not_found(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, code, message)
    }

    /// 409 with a code.
    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, code, message)
    }

    /// 410 with a code.
    pub fn gone(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Gone, code, message)
    }

    /// 415 with a code.
    pub fn unsupported_media(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::UnsupportedMedia, code, message)
    }

    /// 429 `RATE_LIMITED` with `retryAfter` (whole seconds, at least 1).
    pub fn rate_limited(message: impl Into<String>, retry_after_secs: u64) -> Self {
        Self::new(ErrorKind::RateLimited, "RATE_LIMITED", message).with("retryAfter", retry_after_secs.max(1))
    }

    /// The seconds a [`ErrorKind::RateLimited`] refusal asks the caller to wait.
    pub fn retry_after(&self) -> Option<u64> {
        self.extra.get("retryAfter").and_then(Value::as_u64)
    }

    /// 402 with `need` and `spendable`.
    pub fn insufficient(need: i64, spendable: i64) -> Self {
        Self::new(
            ErrorKind::InsufficientTokens,
            "INSUFFICIENT_TOKENS",
            format!("This needs {need} tokens; the house has {spendable} spendable."),
        )
        .with("need", need)
        .with("spendable", spendable)
    }

    /// 500; the detail is logged here and never shown to the caller.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(ErrorKind::Internal, "INTERNAL", "Something went wrong on our side; it has been logged.")
    }
}

impl From<StorageError> for Error {
    /// A text PostgreSQL cannot store (a NUL character: SQLSTATE 22021, or 22P05) is the
    /// caller's input, not our fault: 400 `BAD_TEXT` on every route. Anything else is ours.
    fn from(e: StorageError) -> Self {
        if let StorageError::Database(sqlx::Error::Database(db)) = &e
            && matches!(db.code().as_deref(), Some("22021" | "22P05"))
        {
            return Error::invalid("BAD_TEXT", "Text may not contain the NUL character.");
        }
        Error::internal(e)
    }
}
