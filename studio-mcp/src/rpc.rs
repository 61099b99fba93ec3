//! JSON-RPC 2.0 over one HTTP POST: parsing, the lifecycle methods, authentication and the
//! error codes (-32700 parse error, -32600 invalid request, -32601 unknown method, -32001 no
//! valid key). A `tools/call` is never answered with a JSON-RPC error (spec §4.2.5): whatever
//! its params, it gets a tool result, a refusal with `isError: true` when it cannot run.

use std::future::Future;

use serde_json::{Map, Value, json};
use studio_core::{Caller, Studio};

use crate::tools;
use crate::{PROTOCOL_VERSION, SERVER_VERSION};

/// Protocol versions a client may name in `MCP-Protocol-Version` after initialize.
pub const KNOWN_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const UNAUTHORIZED: i64 = -32001;

const INSTRUCTIONS: &str = "Studio develops fashion images for a house. Tools: list_capabilities (tools and \
prices in tokens), check_balance, list_assets (the library; ids are inputs), preflight (free checks on garment \
photos before paying), start_develop (holds the price, then runs asynchronously: poll get_develop until done, \
failed or cancelled), list_develops, get_verdict and redraw (judge a landed frame; redraw re-develops at the \
frame's price), read_model and read_build (1 token each), cast_model (keep a model to cast by id as an input). \
Refusals come back as results with isError true and an error string starting with a CODE. Pass an \
idempotencyKey to start_develop so a retry never pays twice.";

/// What the endpoint answers: an HTTP status and, unless 202, one JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// HTTP status: 200, 202, 400 or 401.
    pub status: u16,
    /// The JSON-RPC response; None for 202.
    pub body: Option<Value>,
}

impl Reply {
    fn ok(id: &Value, result: Value) -> Reply {
        Reply { status: 200, body: Some(json!({"jsonrpc": "2.0", "id": id, "result": result})) }
    }

    pub(crate) fn error(status: u16, id: &Value, code: i64, message: impl Into<String>) -> Reply {
        let message: String = message.into();
        Reply { status, body: Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})) }
    }

    fn accepted() -> Reply {
        Reply { status: 202, body: None }
    }

    /// True when the answer is 401 (the frontend adds `WWW-Authenticate: Bearer`).
    pub fn is_unauthorized(&self) -> bool {
        self.status == 401
    }
}

/// The agent endpoint over one Studio.
#[derive(Debug, Clone)]
pub struct Endpoint {
    studio: Studio,
}

impl Endpoint {
    /// An endpoint answering for `studio`.
    pub fn new(studio: Studio) -> Self {
        Endpoint { studio }
    }

    /// Answer one POSTed message. `protocol_version` is the `MCP-Protocol-Version` header;
    /// `authenticate` is called only for methods that need a key and yields None when the
    /// request carried no credential.
    pub async fn handle<F, Fut>(&self, body: &[u8], protocol_version: Option<&str>, authenticate: F) -> Reply
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Option<studio_core::Result<Caller>>>,
    {
        let message: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => return Reply::error(400, &Value::Null, PARSE_ERROR, format!("Parse error: {e}")),
        };
        let Value::Object(message) = message else {
            let why = if message.is_array() {
                "Invalid Request: batches are not supported (protocol 2025-06-18)"
            } else {
                "Invalid Request: send one JSON-RPC object"
            };
            return Reply::error(400, &Value::Null, INVALID_REQUEST, why);
        };
        let Some(method) = message.get("method") else {
            // A response to something we never asked, or garbage without a method.
            if message.contains_key("result") || message.contains_key("error") {
                return Reply::accepted();
            }
            return Reply::error(
                400,
                message.get("id").unwrap_or(&Value::Null),
                INVALID_REQUEST,
                "Invalid Request: no method",
            );
        };
        let Some(id) = message.get("id") else { return Reply::accepted() };
        let id_ok = id.is_string() || id.is_i64() || id.is_u64();
        if !id_ok {
            return Reply::error(400, &Value::Null, INVALID_REQUEST, "Invalid Request: id is a string or an integer");
        }
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Reply::error(400, id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
        }
        let Some(method) = method.as_str() else {
            return Reply::error(400, id, INVALID_REQUEST, "Invalid Request: method is a string");
        };
        if method != "initialize"
            && let Some(v) = protocol_version
            && !KNOWN_VERSIONS.contains(&v.trim())
        {
            return Reply::error(400, id, INVALID_REQUEST, format!("Unsupported MCP-Protocol-Version {v:?}"));
        }
        let params = message.get("params").cloned().unwrap_or(Value::Object(Map::new()));
        match method {
            "initialize" => return Reply::ok(id, initialize_result()),
            "ping" => return Reply::ok(id, json!({})),
            _ => {}
        }
        let caller = match authenticate().await {
            Some(Ok(caller)) => caller,
            Some(Err(e)) => return Reply::error(401, id, UNAUTHORIZED, format!("Unauthorized: {}", e.message)),
            None => {
                return Reply::error(
                    401,
                    id,
                    UNAUTHORIZED,
                    "Unauthorized: send an organization key as Authorization: Bearer studio_sk_...",
                );
            }
        };
        match method {
            "tools/list" => Reply::ok(id, json!({"tools": tools::definitions()})),
            "tools/call" => {
                let result = match params.get("name").and_then(Value::as_str) {
                    Some(name) => {
                        let arguments = params.get("arguments").cloned().unwrap_or(Value::Object(Map::new()));
                        tools::call(&self.studio, &caller, name, arguments).await
                    }
                    None => tools::refusal(tools::bad_arguments(
                        "Name the tool to call in params.name (a string); tools/list names them.",
                    )),
                };
                Reply::ok(id, result)
            }
            other => Reply::error(200, id, METHOD_NOT_FOUND, format!("Method not found: {other}")),
        }
    }
}

fn initialize_result() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "studio", "title": "Studio", "version": SERVER_VERSION},
        "instructions": INSTRUCTIONS,
    })
}
