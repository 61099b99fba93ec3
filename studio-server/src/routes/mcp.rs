//! `/api/mcp`: the agent endpoint. POST carries one JSON-RPC message to studio-mcp; GET and
//! DELETE answer 405 with `Allow: POST` before any credential is looked at (there is no event
//! stream and no session to delete). A present Origin must be this server's, and on a loopback
//! listener the Host and Origin must name a loopback host or the public URL's (DNS rebinding).

use aide::axum::ApiRouter;
use aide::axum::routing::post_with;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use studio_mcp::{Endpoint, Reply};

use crate::auth::{bearer_secret, host_is_ours, origin_is_ours};
use crate::state::AppState;

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The endpoint's answer as an HTTP response.
struct McpReply(Response);

impl IntoResponse for McpReply {
    fn into_response(self) -> Response {
        self.0
    }
}

impl aide::OperationOutput for McpReply {
    type Inner = ();

    fn inferred_responses(
        _ctx: &mut aide::generate::GenContext,
        _operation: &mut aide::openapi::Operation,
    ) -> Vec<(Option<aide::openapi::StatusCode>, aide::openapi::Response)> {
        let described = |code: u16, text: &str| {
            let response = aide::openapi::Response { description: text.to_string(), ..Default::default() };
            (Some(aide::openapi::StatusCode::Code(code)), response)
        };
        vec![
            described(
                200,
                "One JSON-RPC response object (a result, a tool refusal with isError, or -32601 for an unknown method)",
            ),
            described(202, "A notification or response was accepted; no body"),
            described(
                400,
                "-32700 parse error or -32600 invalid request (batches, bad ids, unknown MCP-Protocol-Version)",
            ),
            described(401, "No valid key (WWW-Authenticate: Bearer); the body is a JSON-RPC error"),
            described(403, "The Host or Origin header names another site (DNS-rebinding defence)"),
        ]
    }
}

fn into_response(reply: Reply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match &reply.body {
        Some(body) => json_response(status, body),
        None => status.into_response(),
    };
    if reply.is_unauthorized() {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

async fn post_mcp(
    State(state): State<AppState>,
    uri: Uri,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> McpReply {
    if !host_is_ours(&headers, &uri, &state) {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Forbidden: this Host or Origin may not call the agent endpoint (DNS-rebinding defence)"}});
        return McpReply(json_response(StatusCode::FORBIDDEN, &body));
    }
    if !origin_is_ours(&headers, &state) {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Forbidden: this Origin may not call the agent endpoint"}});
        return McpReply(json_response(StatusCode::FORBIDDEN, &body));
    }
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let message = format!("Invalid Request: {}", rejection.body_text());
            let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}});
            return McpReply(json_response(rejection.status(), &body));
        }
    };
    let version = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
    let secret = bearer_secret(&headers);
    let studio = &state.studio;
    let reply = Endpoint::new(studio.clone())
        .handle(&body, version, || async move {
            match secret {
                None => None,
                Some(secret) => Some(studio.accounts().authenticate_key(secret).await),
            }
        })
        .await;
    McpReply(into_response(reply))
}

/// 405 with `Allow: POST` and a JSON-RPC error body.
struct MethodNotAllowed;

impl IntoResponse for MethodNotAllowed {
    fn into_response(self) -> Response {
        let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Method not allowed: POST one JSON-RPC message; this endpoint has no event stream and no session"}});
        let mut response = json_response(StatusCode::METHOD_NOT_ALLOWED, &body);
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
        response
    }
}

impl aide::OperationOutput for MethodNotAllowed {
    type Inner = ();

    fn inferred_responses(
        _ctx: &mut aide::generate::GenContext,
        _operation: &mut aide::openapi::Operation,
    ) -> Vec<(Option<aide::openapi::StatusCode>, aide::openapi::Response)> {
        let response = aide::openapi::Response {
            description: "Not allowed: the agent endpoint takes POST only (header Allow: POST)".to_string(),
            ..Default::default()
        };
        vec![(Some(aide::openapi::StatusCode::Code(405)), response)]
    }
}

async fn method_not_allowed() -> MethodNotAllowed {
    MethodNotAllowed
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/mcp",
        post_with(post_mcp, |op| {
            op.summary("The agent endpoint: one JSON-RPC 2.0 message (initialize, ping, tools/list, tools/call)")
                .description(
                    "Streamable HTTP without a stream: every request gets one JSON object, a notification 202 with no \
                     body. initialize and ping need no key; everything else answers 401 (WWW-Authenticate: Bearer) \
                     without one. Tool refusals are results with isError true. See docs/mcp.md.",
                )
                .tag("agent")
                .security_requirement(crate::auth::BEARER_KEY)
                // ...or none: initialize and ping need no key (docs/mcp.md), so a message without
                // one is read (and may be refused 400 as malformed) before any 401.
                .with(|mut op| {
                    op.inner_mut().security.push(Default::default());
                    op
                })
        })
        .get_with(method_not_allowed, |op| op.summary("405: there is no event stream (Allow: POST)").tag("agent"))
        .delete_with(method_not_allowed, |op| op.summary("405: there is no session to end (Allow: POST)").tag("agent")),
    )
}
