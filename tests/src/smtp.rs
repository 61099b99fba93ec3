//! A tiny SMTP sink for the mail tests: a tokio listener on 127.0.0.1 speaking just enough SMTP
//! (220 greeting, EHLO/HELO, MAIL FROM, RCPT TO, DATA until `<CRLF>.<CRLF>`, RSET, NOOP, QUIT)
//! to take letters from lettre, and keeping every message it accepted.
//!
//! [`SmtpSink::fail_next`] makes the next transactions answer `451` to MAIL FROM, a temporary
//! failure the server's outbox must retry.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, Notify};

/// One message the sink accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// The envelope sender (MAIL FROM).
    pub from: String,
    /// The envelope recipients (RCPT TO).
    pub to: Vec<String>,
    /// The message as sent (headers and body), dot-unstuffed, lines joined with CRLF.
    pub data: String,
}

impl Captured {
    /// The message with quoted-printable soft line breaks and `=XX` escapes undone, so a link
    /// reads as written.
    pub fn decoded(&self) -> String {
        let joined = self.data.replace("=\r\n", "");
        let bytes = joined.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'='
                && i + 2 < bytes.len()
                && let Some(b) =
                    std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The first `token=<64 hex>` of the message's links.
    pub fn token(&self) -> Option<String> {
        token_in(&self.decoded())
    }
}

/// The first `token=` followed by 64 hex characters in `text`.
pub fn token_in(text: &str) -> Option<String> {
    text.match_indices("token=").find_map(|(at, _)| {
        let rest = &text[at + "token=".len()..];
        let token: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
        (token.len() == 64).then_some(token)
    })
}

/// A running sink; it stops when dropped.
#[derive(Debug)]
pub struct SmtpSink {
    /// Where it listens.
    pub addr: SocketAddr,
    messages: Arc<Mutex<Vec<Captured>>>,
    arrived: Arc<Notify>,
    failures: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SmtpSink {
    /// Listen on a free loopback port.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the SMTP sink");
        let addr = listener.local_addr().expect("sink address");
        let messages = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(Notify::new());
        let failures = Arc::new(AtomicUsize::new(0));
        let (m, a, f) = (messages.clone(), arrived.clone(), failures.clone());
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (m, a, f) = (m.clone(), a.clone(), f.clone());
                tokio::spawn(async move {
                    let _ = converse(stream, m, a, f).await;
                });
            }
        });
        SmtpSink { addr, messages, arrived, failures, task }
    }

    /// The URL for `STUDIO_SMTP_URL`.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// Answer the next `n` transactions' MAIL FROM with `451` (try again later).
    pub fn fail_next(&self, n: usize) {
        self.failures.store(n, Ordering::SeqCst);
    }

    /// Every message accepted so far.
    pub async fn messages(&self) -> Vec<Captured> {
        self.messages.lock().await.clone()
    }

    /// Wait (up to `timeout`) for a message to `to`; the first one.
    pub async fn wait_for(&self, to: &str, timeout: Duration) -> Option<Captured> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let arrived = self.arrived.notified();
            if let Some(m) = self.messages.lock().await.iter().find(|m| m.to.iter().any(|t| t == to)) {
                return Some(m.clone());
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return None;
            }
        }
    }
}

/// The address inside `MAIL FROM:<a@b>` or `RCPT TO:<a@b> PARAM`.
fn address(arg: &str) -> String {
    let arg = arg.trim();
    match (arg.find('<'), arg.find('>')) {
        (Some(start), Some(end)) if start < end => arg[start + 1..end].to_string(),
        _ => arg.split_whitespace().next().unwrap_or_default().to_string(),
    }
}

async fn converse(
    stream: TcpStream,
    messages: Arc<Mutex<Vec<Captured>>>,
    arrived: Arc<Notify>,
    failures: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_string();
        let upper = command.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") {
            b"250-sink.test\r\n250-8BITMIME\r\n250 SIZE 10485760\r\n"
        } else if upper.starts_with("HELO") || upper.starts_with("NOOP") {
            b"250 OK\r\n"
        } else if upper.starts_with("RSET") {
            (from, to) = (String::new(), Vec::new());
            b"250 OK\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            let fail = failures.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok();
            if fail {
                b"451 4.3.0 Try again later\r\n"
            } else {
                from = address(&command["MAIL FROM:".len()..]);
                to.clear();
                b"250 OK\r\n"
            }
        } else if upper.starts_with("RCPT TO:") {
            to.push(address(&command["RCPT TO:".len()..]));
            b"250 OK\r\n"
        } else if upper == "DATA" {
            write.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n").await?;
            let mut data = Vec::new();
            loop {
                line.clear();
                if lines.read_line(&mut line).await? == 0 {
                    return Ok(());
                }
                let text = line.trim_end_matches(['\r', '\n']);
                if text == "." {
                    break;
                }
                data.push(text.strip_prefix('.').filter(|_| text.starts_with("..")).unwrap_or(text).to_string());
            }
            messages.lock().await.push(Captured {
                from: from.clone(),
                to: std::mem::take(&mut to),
                data: data.join("\r\n"),
            });
            arrived.notify_waiters();
            b"250 OK queued\r\n"
        } else if upper.starts_with("QUIT") {
            write.write_all(b"221 Bye\r\n").await?;
            return Ok(());
        } else {
            b"502 Command not implemented\r\n"
        };
        write.write_all(reply).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_found_through_quoted_printable() {
        let token = "ab".repeat(32);
        let data = format!("Confirm: http://x/verify-email?token=3D{}=\r\n{}\r\n", &token[..20], &token[20..]);
        let m = Captured { from: String::new(), to: vec![], data };
        assert_eq!(m.token(), Some(token));
        assert_eq!(token_in("token=abc"), None);
        assert_eq!(address(" <a@b.example> SIZE=10"), "a@b.example");
    }
}
