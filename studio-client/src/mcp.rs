//! The agent endpoint through the client: `POST /api/mcp`, one raw JSON-RPC 2.0 message.
//!
//! `GET` and `DELETE /api/mcp` answer 405 by design (no event stream, no session), so they
//! have no method.

use std::future::ready;

use reqwest::header::{ACCEPT, HeaderValue};
use reqwest::{Method, StatusCode};
use serde_json::{Map, Value};

use crate::client::Client;
use crate::error::Error;

/// The MCP protocol version this client speaks (sent as `MCP-Protocol-Version`).
pub const MCP_PROTOCOL_VERSION: &str = "2025-06-18";

impl Client {
    /// `POST /api/mcp`: send one JSON-RPC 2.0 message to the agent endpoint and return the
    /// answer's body; `None` for a notification or response (HTTP 202, no body).
    ///
    /// The message is sent as is, with this client's key as the bearer token
    /// (`initialize` and `ping` need none). A JSON-RPC error answered with HTTP 200 (an
    /// unknown method, -32601) and a tool refusal (`isError` true, an unknown tool included)
    /// come back as `Some(body)`. An HTTP refusal is [`Error::Api`]: 401 `UNAUTHORIZED`
    /// (no valid key), 403 `FORBIDDEN` (Origin), 400 `PARSE_ERROR` or `INVALID_REQUEST`,
    /// with the JSON-RPC error's message and the extra fields `rpcCode` and `id`. Sent once
    /// (never retried).
    ///
    /// ```no_run
    /// # async fn demo(client: studio_client::Client) -> Result<(), studio_client::Error> {
    /// use serde_json::json;
    ///
    /// let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
    ///     "params": {"protocolVersion": studio_client::MCP_PROTOCOL_VERSION, "capabilities": {},
    ///                "clientInfo": {"name": "sync", "version": "1"}}});
    /// let answer = client.mcp(&init).await?.expect("a request gets an answer");
    /// assert_eq!(answer["result"]["serverInfo"]["version"], "1.0.0");
    /// // A notification is accepted with no body.
    /// assert!(client.mcp(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?.is_none());
    /// let tools = client.mcp(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await?;
    /// println!("{}", tools.unwrap_or_default()["result"]["tools"]);
    /// # Ok(()) }
    /// ```
    pub async fn mcp(&self, message: &Value) -> Result<Option<Value>, Error> {
        let build = |r: reqwest::RequestBuilder| {
            ready(Ok(r
                .header(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"))
                .header("mcp-protocol-version", HeaderValue::from_static(MCP_PROTOCOL_VERSION))
                .json(message)))
        };
        let res = self.execute(Method::POST, "/api/mcp", false, build).await?;
        let status = res.status();
        let bytes = res.bytes().await?;
        if status.is_success() {
            if status == StatusCode::ACCEPTED && bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(None);
            }
            let body = serde_json::from_slice(&bytes)
                .map_err(|e| Error::Decode { status: status.as_u16(), detail: e.to_string() })?;
            return Ok(Some(body));
        }
        Err(rpc_refusal(status, &bytes))
    }
}

/// An HTTP refusal of the agent endpoint as [`Error::Api`]: the code from the status (or the
/// JSON-RPC error code for a 400), the JSON-RPC error's message, `rpcCode` and `id` as extras.
fn rpc_refusal(status: StatusCode, bytes: &[u8]) -> Error {
    let body: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let rpc_code = body["error"]["code"].as_i64();
    let code = match (status.as_u16(), rpc_code) {
        (401, _) => "UNAUTHORIZED".to_string(),
        (403, _) => "FORBIDDEN".to_string(),
        (405, _) => "METHOD_NOT_ALLOWED".to_string(),
        (_, Some(-32700)) => "PARSE_ERROR".to_string(),
        (_, Some(-32600)) => "INVALID_REQUEST".to_string(),
        (s, _) => format!("HTTP_{s}"),
    };
    let message = match body["error"]["message"].as_str() {
        Some(m) => m.to_string(),
        None => String::from_utf8_lossy(bytes).chars().take(300).collect(),
    };
    let mut extra = Map::new();
    if let Some(c) = rpc_code {
        extra.insert("rpcCode".into(), c.into());
    }
    if let Some(id) = body.get("id") {
        extra.insert("id".into(), id.clone());
    }
    Error::Api { status: status.as_u16(), code, message, extra }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_carry_the_rpc_error() {
        let body = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"Unauthorized: send a key"}}"#;
        let e = rpc_refusal(StatusCode::UNAUTHORIZED, body);
        assert_eq!((e.status(), e.code()), (Some(401), Some("UNAUTHORIZED")));
        assert_eq!(e.extra_i64("rpcCode"), Some(-32001));
        assert_eq!(e.extra_i64("id"), Some(3));
        let e = rpc_refusal(
            StatusCode::BAD_REQUEST,
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        );
        assert_eq!(e.code(), Some("PARSE_ERROR"));
        let e = rpc_refusal(StatusCode::BAD_GATEWAY, b"<html>bad gateway</html>");
        assert_eq!((e.code(), e.to_string().contains("bad gateway")), (Some("HTTP_502"), true));
    }
}
