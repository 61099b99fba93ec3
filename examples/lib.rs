//! Runnable examples for Studio users; see the `[[example]]` targets in this folder's Cargo.toml.
//! Run one against a local server: `cargo run -p studio-examples --example first_key`.
//!
//! The logic of the examples that talk to a server lives here, as plain async functions, so
//! `tests/examples.rs` runs exactly what a user runs: [`upload_and_develop`] (upload, develop,
//! wait, download through studio-client) and [`agent_session`] (raw JSON-RPC to `/api/mcp`).
//! Both print what they do as they go, like the examples.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use studio_client::api::{JobStatus, Quality};
use studio_client::{Client, DevelopSubmit, InputSource, UploadOptions};

/// The URL examples use when `STUDIO_URL` is not set.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8787";

/// How long [`upload_and_develop`] waits for its develop.
const DEVELOP_WAIT: Duration = Duration::from_secs(300);

/// `STUDIO_URL` (default [`DEFAULT_URL`]) and `STUDIO_API_KEY` (required) from the environment.
pub fn url_and_key_from_env() -> anyhow::Result<(String, String)> {
    let url = std::env::var("STUDIO_URL").unwrap_or_else(|_| DEFAULT_URL.to_string());
    let key = std::env::var("STUDIO_API_KEY").ok().filter(|k| !k.trim().is_empty()).context(
        "set STUDIO_API_KEY to an organization key (studio_sk_...): run `studio signup` or the first_key example",
    )?;
    Ok((url, key))
}

/// What [`upload_and_develop`] did.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The uploaded asset.
    pub asset_id: String,
    /// The develop.
    pub job_id: String,
    /// The developed frame, filed in the library.
    pub result_asset_id: String,
    /// Bytes written to the output file.
    pub bytes_written: u64,
    /// Tokens held when the develop was submitted.
    pub tokens_held: i64,
    /// Tokens the develop settled for.
    pub tokens_settled: i64,
    /// Spendable tokens just before the submit.
    pub balance_before: i64,
    /// Spendable tokens once the develop settled.
    pub balance_after: i64,
}

/// Upload `input` to the library, develop it with `upscale` at 2k (2,048 px on the long edge),
/// wait for the develop, and download the result to `output`.
///
/// The idempotency key is derived from the new asset's id, so a retried submit of this upload
/// can never hold (or charge) twice.
pub async fn upload_and_develop(client: &Client, input: &Path, output: &Path) -> anyhow::Result<Summary> {
    let uploaded = client
        .upload_file(input, &UploadOptions::default())
        .await
        .with_context(|| format!("uploading {}", input.display()))?;
    let asset_id = uploaded.asset.id;
    println!("uploaded {} as asset {asset_id}", input.display());

    let balance_before = client.balance().await.context("reading the balance")?.balance;
    let develop = DevelopSubmit::new("upscale")
        .input("image", InputSource::Asset(asset_id.clone()))
        .quality(Quality::K2)
        .idempotency_key(format!("upload_and_develop-{asset_id}"));
    let accepted = client.submit_develop(&develop).await.context("submitting the develop")?;
    println!("submitted job {} (upscale at 2k, {} tokens held)", accepted.job_id, accepted.tokens_held);

    let status = client.wait_for(&accepted.job_id, DEVELOP_WAIT).await.context("waiting for the develop")?;
    if status.status != JobStatus::Done {
        bail!(
            "job {} ended {}: {}",
            status.job_id,
            status.status.as_str(),
            status.error.as_deref().unwrap_or("no reason given")
        );
    }
    let result_asset_id = status.result_asset_id.clone().context("a done develop names its result asset")?;
    let bytes_written = client
        .download_asset(&result_asset_id, output)
        .await
        .with_context(|| format!("downloading {result_asset_id} to {}", output.display()))?;
    println!("downloaded result {result_asset_id} to {} ({bytes_written} bytes)", output.display());

    let tokens_settled = status.tokens_settled.unwrap_or(0);
    let balance_after = client.balance().await.context("reading the balance")?.balance;
    println!("settled {tokens_settled} tokens; balance {balance_before} -> {balance_after}");
    Ok(Summary {
        asset_id,
        job_id: accepted.job_id,
        result_asset_id,
        bytes_written,
        tokens_held: accepted.tokens_held,
        tokens_settled,
        balance_before,
        balance_after,
    })
}

/// What [`agent_session`] saw.
#[derive(Debug, Clone)]
pub struct AgentReport {
    /// `initialize` → `protocolVersion`.
    pub protocol_version: String,
    /// `initialize` → `serverInfo`.
    pub server_info: Value,
    /// The HTTP status of `notifications/initialized` (202 expected).
    pub initialized_status: u16,
    /// `tools/list` → the tool names, in order.
    pub tools: Vec<String>,
    /// `check_balance` → `structuredContent` (the balance object).
    pub balance: Value,
    /// `list_capabilities` → the tool slugs of the price book.
    pub priced_tools: Vec<String>,
    /// The refused call's `isError`.
    pub refusal_is_error: bool,
    /// The refused call's code: the part of `CODE: message` before the colon.
    pub refusal_code: String,
    /// The refused call's whole `CODE: message`.
    pub refusal: String,
}

/// The agent endpoint's protocol version (spec §9).
const MCP_PROTOCOL_VERSION: &str = "2025-06-18";

/// A bare JSON-RPC 2.0 client for `POST /api/mcp`: one message per request, one JSON object
/// back, no session (the endpoint is stateless).
struct Rpc {
    http: reqwest::Client,
    url: String,
    key: String,
    next_id: i64,
}

impl Rpc {
    /// POST one message; the HTTP status and the body as JSON (None when empty, as for a
    /// notification).
    async fn post(&self, message: &Value, with_version: bool) -> anyhow::Result<(u16, Option<Value>)> {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.key)
            .header("accept", "application/json, text/event-stream")
            .json(message);
        if with_version {
            request = request.header("mcp-protocol-version", MCP_PROTOCOL_VERSION);
        }
        let response = request.send().await.with_context(|| format!("POST {}", self.url))?;
        let status = response.status().as_u16();
        let text = response.text().await?;
        let body = if text.trim().is_empty() {
            None
        } else {
            Some(serde_json::from_str(&text).with_context(|| format!("HTTP {status}: not JSON: {text}"))?)
        };
        Ok((status, body))
    }

    /// A request: the `result`, or an error carrying the JSON-RPC error.
    async fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let (status, body) = self.post(&message, method != "initialize").await?;
        let body = body.with_context(|| format!("{method}: HTTP {status} with an empty body"))?;
        if let Some(error) = body.get("error") {
            bail!("{method}: HTTP {status}, JSON-RPC error {} {}", error["code"], error["message"]);
        }
        if body["id"] != json!(self.next_id) {
            bail!("{method}: the response answers id {} instead of {}", body["id"], self.next_id);
        }
        Ok(body["result"].clone())
    }

    /// `tools/call`: the tool result (`content`, `structuredContent`, `isError`).
    async fn call(&mut self, tool: &str, arguments: Value) -> anyhow::Result<Value> {
        self.request("tools/call", json!({"name": tool, "arguments": arguments})).await
    }
}

/// The structured result of a tool call that must have succeeded.
fn succeeded(tool: &str, result: &Value) -> anyhow::Result<Value> {
    if result["isError"] != json!(false) {
        bail!("{tool} refused: {}", result["structuredContent"]["error"]);
    }
    Ok(result["structuredContent"].clone())
}

/// Drive the agent endpoint as an agent would, with raw JSON-RPC: `initialize`,
/// `notifications/initialized` (202, empty body), `tools/list`, `check_balance`,
/// `list_capabilities`, then a `start_develop` the server must refuse (tool `tryon` with no
/// inputs), reported as its `CODE: message`. Prints each step.
pub async fn agent_session(base_url: &str, api_key: &str) -> anyhow::Result<AgentReport> {
    let mut rpc = Rpc {
        http: reqwest::Client::new(),
        url: format!("{}/api/mcp", base_url.trim_end_matches('/')),
        key: api_key.to_string(),
        next_id: 0,
    };

    let init = rpc
        .request(
            "initialize",
            json!({
                "protocolVersion": MCP_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "studio-examples agent_session", "version": "0.1.0"},
            }),
        )
        .await?;
    let protocol_version = init["protocolVersion"].as_str().unwrap_or_default().to_string();
    let server_info = init["serverInfo"].clone();
    println!("initialize: protocolVersion {protocol_version}, serverInfo {server_info}");

    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (initialized_status, body) = rpc.post(&notification, true).await?;
    if initialized_status != 202 || body.is_some() {
        bail!("notifications/initialized: expected 202 with an empty body, got {initialized_status} {body:?}");
    }
    println!("notifications/initialized: {initialized_status}");

    let listed = rpc.request("tools/list", json!({})).await?;
    let tools: Vec<String> = listed["tools"]
        .as_array()
        .context("tools/list answers a tools array")?
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    println!("tools/list: {} tools: {}", tools.len(), tools.join(", "));

    let balance = succeeded("check_balance", &rpc.call("check_balance", json!({})).await?)?;
    println!(
        "check_balance: {} spendable ({} grant, {} top-up, {} held)",
        balance["balance"], balance["grant"], balance["topup"], balance["held"]
    );

    let book = succeeded("list_capabilities", &rpc.call("list_capabilities", json!({})).await?)?;
    let priced_tools: Vec<String> = book["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["tool"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    println!("list_capabilities: {} priced tools: {}", priced_tools.len(), priced_tools.join(", "));

    let refused = rpc.call("start_develop", json!({"tool": "tryon", "inputs": {}, "quality": "2k"})).await?;
    let refusal_is_error = refused["isError"] == json!(true);
    let refusal = refused["structuredContent"]["error"].as_str().unwrap_or_default().to_string();
    if !refusal_is_error || refusal.is_empty() {
        bail!("start_develop of tryon with no inputs was expected to be refused: {refused}");
    }
    let refusal_code = refusal.split(':').next().unwrap_or_default().trim().to_string();
    println!("start_develop (tryon, no inputs) refused: {refusal}");

    Ok(AgentReport {
        protocol_version,
        server_info,
        initialized_status,
        tools,
        balance,
        priced_tools,
        refusal_is_error,
        refusal_code,
        refusal,
    })
}
