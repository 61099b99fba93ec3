//! studio-mcp: the agent endpoint (`POST /api/mcp`, JSON-RPC 2.0 over Streamable HTTP with the
//! twelve tools of spec §4.2).
//!
//! Not built yet: the endpoint is the subject of the agent-endpoint issue, which builds on the
//! develops issue. Until then studio-server mounts nothing at `/api/mcp` and this crate exports
//! only the protocol constants the endpoint will answer with, so the server and clients can
//! already agree on them.

/// The protocol version the endpoint answers with, whatever the client asks (spec §9.1).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// `serverInfo.version` (spec §9.1).
pub const SERVER_VERSION: &str = "1.0.0";
