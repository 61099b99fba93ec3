//! Fuzz the agent endpoint's JSON-RPC layer, `studio_mcp::Endpoint::handle`, over a real Studio
//! with a member key (the key is looked up as the HTTP route looks it up).
//!
//! Input: byte 0 picks the mode. Even: the rest is the request body as sent (the seeds in
//! `seeds/jsonrpc` are real messages behind a 0 byte). Odd: the rest builds a well-formed
//! message (a method from the protocol's list or any string, an id of any JSON type, params of
//! any JSON shape, or a `tools/call` of one of the twelve tools with arguments of any shape) and
//! an `MCP-Protocol-Version` header.
//!
//! Properties: never a panic; the status is one of 200, 202, 400 and 401; 202 has no body and
//! every other answer is one JSON-RPC 2.0 response object carrying exactly one of `result` and
//! `error` (with an integer code and a message); a body that is not JSON is -32700 with a null
//! id; a 200 answer echoes the request's id.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};
use studio_fuzz::harness;

const METHODS: [&str; 6] =
    ["initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "resources/list"];
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "1999-01-01"];

/// Any JSON value, at most `depth` levels deep.
fn json_value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Value> {
    let pick = if depth == 0 { u.int_in_range(0..=4)? } else { u.int_in_range(0..=6)? };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(u.arbitrary()?).map(Value::Number).unwrap_or(Value::Null),
        4 => Value::String(u.arbitrary()?),
        5 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array((0..n).map(|_| json_value(u, depth - 1)).collect::<arbitrary::Result<_>>()?)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

/// A JSON object whose keys are often ones the tools read.
fn object(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Map<String, Value>> {
    const KEYS: [&str; 12] = [
        "assetIds",
        "lens",
        "tool",
        "inputs",
        "quality",
        "idempotencyKey",
        "jobId",
        "limit",
        "state",
        "folderId",
        "name",
        "frame",
    ];
    let mut map = Map::new();
    for _ in 0..u.int_in_range(0..=5)? {
        let key = if u.arbitrary()? { KEYS[u.choose_index(KEYS.len())?].to_string() } else { u.arbitrary()? };
        map.insert(key, json_value(u, depth)?);
    }
    Ok(map)
}

/// A well-formed message and the protocol version header to send with it.
fn message(u: &mut Unstructured) -> arbitrary::Result<(Value, Option<String>)> {
    let id = if u.arbitrary()? { json!(u.arbitrary::<u32>()?) } else { json_value(u, 1)? };
    let method =
        if u.ratio(1, 8)? { u.arbitrary::<String>()? } else { METHODS[u.choose_index(METHODS.len())?].to_string() };
    let params = if method == "tools/call" && u.ratio(7, 8)? {
        let tools = studio_mcp::TOOL_NAMES;
        let name = tools[u.choose_index(tools.len())?];
        json!({"name": name, "arguments": Value::Object(object(u, 2)?)})
    } else {
        json_value(u, 2)?
    };
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    if u.ratio(1, 16)? {
        message.as_object_mut().expect("an object").remove("id");
    }
    let version = match u.int_in_range(0..=4)? {
        0 => Some(u.arbitrary::<String>()?),
        1 | 2 => Some(VERSIONS[u.choose_index(VERSIONS.len())?].to_string()),
        _ => None,
    };
    Ok((message, version))
}

fuzz_target!(|data: &[u8]| {
    let [mode, rest @ ..] = data else { return };
    let (body, version, sent) = if mode & 1 == 0 {
        (rest.to_vec(), None, serde_json::from_slice::<Value>(rest).ok())
    } else {
        let Ok((message, version)) = message(&mut Unstructured::new(rest)) else { return };
        (serde_json::to_vec(&message).expect("serialise"), version, Some(message))
    };
    let h = harness();
    let endpoint = studio_mcp::Endpoint::new(h.studio.clone());
    let reply = h.block_on(
        endpoint.handle(&body, version.as_deref(), || async { Some(h.studio.accounts().authenticate_key(&h.key).await) }),
    );
    assert!([200, 202, 400, 401].contains(&reply.status), "status {}", reply.status);
    let Some(answer) = reply.body else {
        assert_eq!(reply.status, 202, "only 202 answers without a body");
        return;
    };
    assert_ne!(reply.status, 202, "202 has no body");
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    let has_result = answer.get("result").is_some();
    let error = answer.get("error");
    assert!(has_result != error.is_some(), "exactly one of result and error: {answer}");
    if let Some(error) = error {
        assert!(error["code"].is_i64() && error["message"].is_string(), "{answer}");
    }
    match &sent {
        None => {
            assert_eq!((reply.status, &answer["error"]["code"], &answer["id"]), (400, &json!(-32700), &Value::Null));
        }
        Some(sent) if reply.status == 200 => assert_eq!(answer["id"], sent["id"], "the id is echoed"),
        Some(_) => {}
    }
});
