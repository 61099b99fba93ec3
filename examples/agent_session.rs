//! Agent session: talk to the agent endpoint (`POST /api/mcp`) with raw JSON-RPC 2.0, the way an
//! MCP client does: initialize, notifications/initialized, tools/list, two free tool calls
//! (check_balance, list_capabilities) and one call the server refuses.
//!
//! Start a server in one terminal (`cargo run -p studio-server`), get a key (`studio signup`, or
//! the `first_key` example), then:
//!
//! ```text
//! STUDIO_URL=http://127.0.0.1:8787 STUDIO_API_KEY=studio_sk_... \
//!   cargo run -p studio-examples --example agent_session
//! ```
//!
//! What to notice: `initialize` needs no key, everything after it does (sent as
//! `Authorization: Bearer`); a notification answers 202 with an empty body; a refused tool call
//! is still a JSON-RPC *result*, with `isError: true` and `structuredContent.error` of the form
//! `CODE: message`, and agents switch on the code before the colon. The logic lives in
//! `studio_examples::agent_session` so the integration test runs the same code.

use studio_examples::{agent_session, url_and_key_from_env};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (url, key) = url_and_key_from_env()?;
    let report = agent_session(&url, &key).await?;
    println!(
        "done: {} tools over protocol {}; the refusal's code was {}",
        report.tools.len(),
        report.protocol_version,
        report.refusal_code
    );
    Ok(())
}
