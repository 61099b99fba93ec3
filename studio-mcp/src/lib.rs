//! studio-mcp: the agent endpoint (`POST /api/mcp`), JSON-RPC 2.0 over Streamable HTTP with the
//! twelve tools of spec §4.2.
//!
//! The crate is transport-light: [`Endpoint::handle`] takes one request body, the
//! `MCP-Protocol-Version` header and a way to authenticate the caller, and answers an HTTP
//! status and an optional JSON body. studio-server mounts it (and answers GET and DELETE with
//! 405 before any of this runs). It keeps no session: any replica answers any request.
//!
//! Every tool calls the same `studio_core::Studio` method as the HTTP route that does the same
//! thing, so no rule is implemented twice; refusals become results with `isError: true` and
//! `structuredContent: {error: "CODE: message"}` in one place ([`tools::refusal`]).

mod rpc;
mod tools;

pub use crate::rpc::{Endpoint, KNOWN_VERSIONS, Reply};
pub use crate::tools::{JobIdInput, ListAssetsInput, ListDevelopsInput, TOOL_NAMES};

/// The protocol version the endpoint answers with, whatever the client asks (spec §9.1).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// `serverInfo.version` (spec §9.1).
pub const SERVER_VERSION: &str = "1.0.0";
