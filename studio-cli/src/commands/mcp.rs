//! `studio mcp`: MCP's stdio transport bridged to a deployment's agent endpoint, so a desktop
//! agent that only launches local servers reaches any Studio with the configured key.
//!
//! Each line on stdin is one JSON-RPC message. It is POSTed as-is to `{url}/api/mcp` with the key
//! as `Authorization: Bearer`; the answer's JSON body, made compact, is written to stdout as one
//! line, and a 202 writes nothing. Requests are forwarded concurrently (at most [`IN_FLIGHT`] at
//! once), so responses may come back in another order than the requests, as MCP allows. Only
//! JSON-RPC messages go to stdout; diagnostics go to stderr. EOF on stdin ends the bridge (exit 0)
//! once every request in flight is answered.

use std::io::{BufRead, ErrorKind, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, Result};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::Context;

/// Requests forwarded at once; further lines wait for a free slot.
const IN_FLIGHT: usize = 16;

/// JSON-RPC: the line is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: internal error (here: the deployment could not be reached or answered no JSON-RPC).
const INTERNAL_ERROR: i64 = -32603;

/// Bridge MCP's stdio transport to the deployment's agent endpoint.
#[derive(clap::Args)]
pub(crate) struct Args {}

/// What the deployment said that later requests repeat, as Streamable HTTP clients do.
#[derive(Default)]
struct Negotiated {
    /// `protocolVersion` of the initialize result, sent as `MCP-Protocol-Version`.
    version: Option<String>,
    /// `Mcp-Session-Id`, if a deployment ever issues one (Studio is stateless and does not).
    session: Option<String>,
}

/// The forwarding half: one HTTP client, the endpoint and the key.
struct Bridge {
    http: reqwest::Client,
    /// `{url}`, as configured, for messages.
    base: String,
    /// `{url}/api/mcp`.
    endpoint: String,
    key: Option<String>,
    negotiated: Mutex<Negotiated>,
}

/// One stdin line, sorted.
enum Line {
    /// Blank: ignored.
    Blank,
    /// Not JSON: answered here with -32700 and never forwarded.
    Unparseable(String),
    /// A JSON message to forward; `id` is set for a request (a message with a method and an id).
    Message { body: Vec<u8>, id: Option<Value> },
}

/// Read stdin line by line and forward each message until EOF.
pub(crate) async fn run(ctx: &Context, _args: Args) -> Result<()> {
    let bridge = Arc::new(Bridge::new(ctx)?);
    if bridge.key.is_none() {
        eprintln!(
            "studio mcp: no API key configured (run `studio login` or set STUDIO_API_KEY); \
             {} will answer initialize and ping only",
            bridge.endpoint
        );
    } else {
        eprintln!("studio mcp: forwarding stdin to {}", bridge.endpoint);
    }

    // std's stdin is blocking: read it on a thread of its own (not the runtime's blocking pool,
    // which would hold the process open at exit while the read waits).
    let (tx, mut rx) = mpsc::channel::<std::io::Result<Vec<u8>>>(IN_FLIGHT);
    std::thread::spawn(move || read_lines(&tx));

    let slots = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut tasks: JoinSet<std::io::Result<()>> = JoinSet::new();
    while let Some(line) = rx.recv().await {
        let line = line.context("cannot read stdin")?;
        while let Some(done) = tasks.try_join_next() {
            if stop(done.context("a forwarding task panicked")?)? {
                return Ok(());
            }
        }
        let (body, id) = match sort(&line) {
            Line::Blank => continue,
            Line::Unparseable(why) => {
                let reply = error_line(&Value::Null, PARSE_ERROR, &format!("Parse error: {why}"));
                if stop(emit(&reply))? {
                    return Ok(());
                }
                continue;
            }
            Line::Message { body, id } => (body, id),
        };
        let slot = slots.clone().acquire_owned().await.context("the request slots closed")?;
        let bridge = bridge.clone();
        tasks.spawn(async move {
            let written = bridge.forward(body, id).await;
            drop(slot);
            written
        });
    }
    while let Some(done) = tasks.join_next().await {
        if stop(done.context("a forwarding task panicked")?)? {
            return Ok(());
        }
    }
    Ok(())
}

/// Whether writing stdout failed because the agent went away (a broken pipe: stop quietly);
/// any other write failure is an error.
fn stop(written: std::io::Result<()>) -> Result<bool> {
    match written {
        Ok(()) => Ok(false),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(true),
        Err(e) => Err(e).context("cannot write to stdout"),
    }
}

/// Send every stdin line (without its end) to `tx`, then stop at EOF or a read error.
fn read_lines(tx: &mpsc::Sender<std::io::Result<Vec<u8>>>) {
    let mut stdin = std::io::stdin().lock();
    loop {
        let mut line = Vec::new();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {
                if tx.blocking_send(Ok(line)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.blocking_send(Err(e));
                return;
            }
        }
    }
}

/// Decide what one stdin line is.
fn sort(line: &[u8]) -> Line {
    let body = line.trim_ascii();
    if body.is_empty() {
        return Line::Blank;
    }
    match serde_json::from_slice::<Value>(body) {
        Err(e) => Line::Unparseable(e.to_string()),
        Ok(message) => {
            let id = message
                .as_object()
                .filter(|m| m.contains_key("method"))
                .and_then(|m| m.get("id"))
                .filter(|id| !id.is_null())
                .cloned();
            Line::Message { body: body.to_vec(), id }
        }
    }
}

impl Bridge {
    fn new(ctx: &Context) -> Result<Bridge> {
        let http = reqwest::Client::builder()
            .user_agent(format!("studio-cli/{} (mcp)", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(300))
            .build()
            .context("cannot build the HTTP client")?;
        Ok(Bridge {
            http,
            base: ctx.url.clone(),
            endpoint: format!("{}/api/mcp", ctx.url),
            key: ctx.api_key.clone(),
            negotiated: Mutex::new(Negotiated::default()),
        })
    }

    /// Forward one message and write what comes back. A request the deployment could not
    /// answer gets a -32603 error line; a notification's failure is only logged.
    async fn forward(&self, body: Vec<u8>, id: Option<Value>) -> std::io::Result<()> {
        match self.post(body).await {
            Ok(lines) => {
                for line in lines {
                    emit(&line)?;
                }
                Ok(())
            }
            Err(why) => {
                let why = format!("studio mcp: {why}");
                match id {
                    Some(id) => emit(&error_line(&id, INTERNAL_ERROR, &why)),
                    None => {
                        eprintln!("{why}");
                        Ok(())
                    }
                }
            }
        }
    }

    /// POST one message; the JSON-RPC messages of the answer, each compact on one line (none
    /// for a 202), or why there are none.
    async fn post(&self, body: Vec<u8>) -> Result<Vec<String>, String> {
        let mut request = self
            .http
            .post(&self.endpoint)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        {
            let negotiated = self.negotiated.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(version) = &negotiated.version {
                request = request.header("mcp-protocol-version", version);
            }
            if let Some(session) = &negotiated.session {
                request = request.header("mcp-session-id", session);
            }
        }
        let cannot_reach = |e: reqwest::Error| format!("cannot reach {}: {}", self.base, crate::chain(&e));
        let response = request.send().await.map_err(cannot_reach)?;
        let status = response.status();
        self.remember_session(response.headers());
        let is_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
        let bytes = response.bytes().await.map_err(cannot_reach)?;
        if bytes.trim_ascii().is_empty() {
            return if status.is_success() {
                Ok(Vec::new())
            } else {
                Err(format!("{} answered HTTP {status} with no JSON-RPC body", self.endpoint))
            };
        }
        let messages = if is_stream { sse_data(&bytes) } else { vec![bytes.to_vec()] };
        let mut lines = Vec::with_capacity(messages.len());
        for message in messages {
            let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                return Err(format!("{} answered HTTP {status} with a body that is not JSON-RPC", self.endpoint));
            };
            self.remember_version(&value);
            // Valid JSON is valid UTF-8.
            lines.push(compact(&String::from_utf8_lossy(&message)));
        }
        Ok(lines)
    }

    /// An initialize result names the protocol version later requests carry.
    fn remember_version(&self, message: &Value) {
        let result = &message["result"];
        if let (Some(version), true) = (result["protocolVersion"].as_str(), result["serverInfo"].is_object()) {
            self.negotiated.lock().unwrap_or_else(|e| e.into_inner()).version = Some(version.to_string());
        }
    }

    fn remember_session(&self, headers: &HeaderMap) {
        if let Some(session) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            self.negotiated.lock().unwrap_or_else(|e| e.into_inner()).session = Some(session.to_string());
        }
    }
}

/// The `data` of each event of a `text/event-stream` body (a deployment that streams its
/// answer; Studio never does).
fn sse_data(body: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(body);
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push(d.into_bytes());
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            let rest = rest.strip_prefix(' ').unwrap_or(rest);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(rest);
                }
                None => data = Some(rest.to_string()),
            }
        }
    }
    events.retain(|e| !e.trim_ascii().is_empty());
    events
}

/// Valid JSON with the whitespace between tokens removed: one line, keys in their order,
/// strings untouched.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

/// A JSON-RPC error response, fields in the usual order.
fn error_line(id: &Value, code: i64, message: &str) -> String {
    let message = Value::String(message.to_string());
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
}

/// Write one line to stdout and flush it.
fn emit(line: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacts_without_touching_strings() {
        let pretty = "{\n  \"b\": [1, 2],\n  \"a\": \"x y\\\" \\\\\",\n  \"c\": {}\n}\n";
        assert_eq!(compact(pretty), r#"{"b":[1,2],"a":"x y\" \\","c":{}}"#);
        let parsed: Value = serde_json::from_str(&compact(pretty)).unwrap();
        assert_eq!(parsed["a"], "x y\" \\");
    }

    #[test]
    fn sorts_lines() {
        assert!(matches!(sort(b"  \r\n"), Line::Blank));
        assert!(matches!(sort(b"{nope\n"), Line::Unparseable(_)));
        let Line::Message { body, id } = sort(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\r\n") else {
            panic!("a message");
        };
        assert_eq!((body.last(), id), (Some(&b'}'), Some(Value::from("a"))));
        let Line::Message { id, .. } = sort(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) else {
            panic!("a message");
        };
        assert_eq!(id, None);
        let Line::Message { id, .. } = sort(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#) else { panic!("a message") };
        assert_eq!(id, None, "a response is not answered");
    }

    #[test]
    fn error_lines_are_json_rpc() {
        let line = error_line(&Value::from(7), INTERNAL_ERROR, "studio mcp: cannot reach \"x\"");
        assert_eq!(
            line,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"studio mcp: cannot reach \"x\""}}"#
        );
        let null = error_line(&Value::Null, PARSE_ERROR, "Parse error");
        assert!(null.starts_with(r#"{"jsonrpc":"2.0","id":null,"#), "{null}");
    }

    #[test]
    fn reads_event_streams() {
        let body = b"event: message\ndata: {\"a\":1}\n\n: comment\ndata: {\"b\":\ndata: 2}\n\n";
        assert_eq!(sse_data(body), vec![b"{\"a\":1}".to_vec(), b"{\"b\":\n2}".to_vec()]);
    }
}
