//! The agent endpoint over HTTP: every transport rule (guide/mcp.md, spec §4.2 and §7.1) and
//! every start_develop refusal code, with raw JSON-RPC as agent clients send it.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use studio_client::api::KeyRole;
use studio_core::AssetId;
use studio_tests::images::png;
use studio_tests::{Backend, House, TestApp, backend_tests, spawn};

backend_tests!(
    transport_rules,
    tools_call_is_always_a_result,
    start_develop_refuses_unknown_roles_holding_nothing,
    tools_answer_and_refuse,
    quality_and_model_tools
);

/// POST one message; (status, headers, body as JSON if any).
async fn post(app: &TestApp, key: Option<&str>, body: &str, extra: &[(&str, &str)]) -> (u16, HeaderMap, Option<Value>) {
    let mut req = reqwest::Client::new()
        .post(format!("{}/api/mcp", app.base))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(key) = key {
        req = req.bearer_auth(key);
    }
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let res = req.send().await.expect("send");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let text = res.text().await.unwrap();
    (status, headers, (!text.is_empty()).then(|| serde_json::from_str(&text).expect("a JSON body")))
}

async fn rpc(app: &TestApp, key: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    let (status, _, body) = post(app, key, &body, &[]).await;
    (status, body.expect("a response body"))
}

async fn call(app: &TestApp, key: &str, tool: &str, arguments: Value) -> Value {
    let (status, body) = rpc(app, Some(key), "tools/call", json!({"name": tool, "arguments": arguments})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], 7);
    body["result"].clone()
}

/// The code before the colon of a refusal.
fn refused(result: &Value) -> String {
    assert_eq!(result["isError"], true, "expected a refusal: {result}");
    let error = result["structuredContent"]["error"].as_str().expect("error string");
    assert_eq!(result["content"][0]["text"], error);
    error.split(':').next().unwrap().to_string()
}

fn ok(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "expected success: {result}");
    let structured = &result["structuredContent"];
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text block")).unwrap();
    assert_eq!(&text, structured, "the text block carries the same JSON");
    structured
}

async fn transport_rules(backend: Backend) {
    let app = spawn(backend, |_| {}).await.expect("app");
    let House { session, secret: key, .. } = House::new(&app, "mcp").await;

    // initialize and ping need no key; the version is ours whatever the client asks.
    let (status, init) = rpc(
        &app,
        None,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    )
    .await;
    assert_eq!(status, 200);
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["serverInfo"]["version"], "1.0.0");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], false);
    assert!(result["instructions"].as_str().is_some_and(|s| s.len() > 40));
    let (status, pong) = rpc(&app, None, "ping", json!({})).await;
    assert_eq!((status, &pong["result"]), (200, &json!({})));
    // initialize is answered whatever MCP-Protocol-Version says; later requests check it.
    let init_body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}})
            .to_string();
    assert_eq!(post(&app, None, &init_body, &[("mcp-protocol-version", "1999-01-01")]).await.0, 200);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    assert_eq!(post(&app, Some(&key), &list, &[("mcp-protocol-version", "2025-06-18")]).await.0, 200);
    assert_eq!(post(&app, Some(&key), &list, &[]).await.0, 200, "absent header: carry on");
    let (status, _, body) = post(&app, Some(&key), &list, &[("mcp-protocol-version", "1999-01-01")]).await;
    assert_eq!(status, 400);
    assert_eq!(body.unwrap()["error"]["code"], -32600);

    // Everything else needs a key: 401, WWW-Authenticate: Bearer, a JSON-RPC error body.
    for bad in [None, Some("studio_sk_not-a-key")] {
        let (status, headers, body) = post(&app, bad, &list, &[]).await;
        assert_eq!(status, 401);
        assert_eq!(headers["www-authenticate"], "Bearer");
        let body = body.expect("a JSON-RPC error");
        assert_eq!((body["jsonrpc"].as_str(), body["id"].as_i64()), (Some("2.0"), Some(2)));
        assert!(body["error"]["message"].as_str().is_some_and(|m| m.starts_with("Unauthorized")));
    }
    // A revoked key is refused on the next request.
    let doomed = session.mint_key("doomed", None).await.unwrap();
    assert_eq!(post(&app, doomed.key.as_deref(), &list, &[]).await.0, 200);
    session.revoke_key(&doomed.id).await.unwrap();
    assert_eq!(post(&app, doomed.key.as_deref(), &list, &[]).await.0, 401);

    // Notifications and responses: 202, no body.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, headers, body) = post(&app, None, &note, &[]).await;
    assert_eq!((status, body), (202, None));
    assert!(headers.get("content-length").is_none_or(|v| v == "0"));
    let response = json!({"jsonrpc": "2.0", "id": 9, "result": {}}).to_string();
    assert_eq!(post(&app, None, &response, &[]).await.0, 202);

    // GET and DELETE: 405 with Allow: POST, before any credential is looked at.
    let http = reqwest::Client::new();
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        for auth in [None, Some("studio_sk_bogus")] {
            let mut req = http.request(method.clone(), format!("{}/api/mcp", app.base));
            if let Some(a) = auth {
                req = req.bearer_auth(a);
            }
            let res = req.send().await.unwrap();
            assert_eq!(res.status().as_u16(), 405, "{method} {auth:?}");
            assert_eq!(res.headers()["allow"], "POST");
        }
    }

    // Malformed messages.
    let cases: Vec<(&str, u16, i64)> = vec![
        ("{not json", 400, -32700),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, 400, -32600),
        (r#""ping""#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, 400, -32600),
        (r#"{"id":1,"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, 400, -32600),
    ];
    for (body, status, code) in cases {
        let (got, _, reply) = post(&app, Some(&key), body, &[]).await;
        assert_eq!(got, status, "{body}");
        assert_eq!(reply.expect("error body")["error"]["code"], code, "{body}");
    }
    // An unknown method keeps its JSON-RPC error; a tools/call never gets one (see
    // tools_call_is_always_a_result).
    let (status, body) = rpc(&app, Some(&key), "resources/list", json!({})).await;
    assert_eq!((status, body["error"]["code"].as_i64()), (200, Some(-32601)));
    // String ids are echoed as strings.
    let (_, _, body) = post(&app, None, r#"{"jsonrpc":"2.0","id":"abc","method":"ping"}"#, &[]).await;
    assert_eq!(body.unwrap()["id"], "abc");

    // Origin: a foreign one is refused, ours passes.
    let (status, _, _) = post(&app, Some(&key), &list, &[("origin", "https://evil.example")]).await;
    assert_eq!(status, 403);
    let ours = format!("http://{}", app.addr);
    assert_eq!(post(&app, Some(&key), &list, &[("origin", &ours)]).await.0, 200);

    // The tools: titles, short descriptions, object input schemas, annotations.
    let (_, listed) = rpc(&app, Some(&key), "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let twelve = [
        "list_capabilities",
        "check_balance",
        "list_assets",
        "preflight",
        "start_develop",
        "get_develop",
        "list_develops",
        "get_verdict",
        "redraw",
        "read_model",
        "read_build",
        "cast_model",
    ];
    assert_eq!(names, twelve.to_vec());
    for tool in tools {
        assert!(tool["title"].is_string() && tool["description"].as_str().is_some_and(|d| d.len() < 300), "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["annotations"]["readOnlyHint"].is_boolean());
        if let Some(output) = tool.get("outputSchema") {
            assert_eq!(output["type"], "object", "{tool}");
        }
    }
}

/// DNS-rebinding defence (guide/mcp.md; the npm conformance suite's `dns-rebinding-protection`
/// scenario): on a loopback listener a Host or Origin naming neither a loopback host nor the public
/// URL's host is refused with 403 before anything runs, initialize included and whatever the key;
/// loopback names on any port and the public URL's host pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dns_rebinding_is_refused() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let key = House::new(&app, "rebinding").await.secret;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).to_string();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let port = app.addr.port();

    // What a page on evil.example.com whose name now resolves to 127.0.0.1 sends: its own name as
    // Host and as Origin (which agree, so an Origin-equals-Host check alone lets it through).
    for (body, who) in [(&init, None), (&list, Some(key.as_str()))] {
        for headers in [
            vec![("host", "evil.example.com".to_string()), ("origin", "http://evil.example.com".to_string())],
            vec![("host", format!("evil.example.com:{port}"))],
            vec![("host", format!("localhost.evil.example:{port}"))],
            vec![("host", format!("127.0.0.1:{port}")), ("origin", "http://evil.example.com".to_string())],
            vec![("host", format!("localhost:{port}")), ("origin", format!("http://evil.example.com:{port}"))],
        ] {
            let extra: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let (status, _, reply) = post(&app, who, body, &extra).await;
            assert_eq!(status, 403, "{headers:?}");
            let reply = reply.expect("a JSON-RPC error body");
            assert_eq!((reply["error"]["code"].as_i64(), &reply["id"]), (Some(-32000), &Value::Null), "{headers:?}");
        }
    }
    // Loopback names pass on any port, with or without a matching Origin.
    for host in
        [format!("localhost:{port}"), format!("127.0.0.1:{port}"), "localhost".to_string(), format!("[::1]:{port}")]
    {
        let origin = format!("http://{host}");
        assert_eq!(post(&app, None, &init, &[("host", &host)]).await.0, 200, "{host}");
        assert_eq!(post(&app, None, &init, &[("host", &host), ("origin", &origin)]).await.0, 200, "{host}");
        assert_eq!(post(&app, Some(&key), &list, &[("host", &host), ("origin", &origin)]).await.0, 200, "{host}");
    }
    // The check is the agent endpoint's: the rest of the API is unchanged.
    let res = reqwest::Client::new().get(format!("{}/health", app.base)).header("host", "evil.example.com").send();
    assert_eq!(res.await.unwrap().status().as_u16(), 200);

    // With a public URL its host passes too (a reverse proxy on the same machine forwarding Host).
    let app = spawn(Backend::Sqlite, |c| c.public_url = Some("https://studio.example".into())).await.expect("app");
    let public = [("host", "studio.example"), ("origin", "https://studio.example")];
    assert_eq!(post(&app, None, &init, &public).await.0, 200);
    assert_eq!(post(&app, None, &init, &[("host", "Studio.Example:443")]).await.0, 200);
    assert_eq!(post(&app, None, &init, &[("host", "evil.example.com")]).await.0, 403);
    let foreign = [("host", "studio.example"), ("origin", "https://evil.example.com")];
    assert_eq!(post(&app, None, &init, &foreign).await.0, 403);
}

/// Spec §4.2.5: every tools/call is answered with a JSON-RPC result, never a JSON-RPC error: an
/// unknown tool is the refusal `UNKNOWN_TOOL`, a missing name or arguments its input type cannot
/// read `BAD_ARGUMENTS`. Malformed envelopes and unknown methods keep their errors.
async fn tools_call_is_always_a_result(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "always-result").await.secret;

    let cases: Vec<(Value, &str)> = vec![
        (json!({"name": "no_such_tool", "arguments": {}}), "UNKNOWN_TOOL"),
        (json!({"name": "no_such_tool"}), "UNKNOWN_TOOL"),
        (json!({"name": "", "arguments": {}}), "UNKNOWN_TOOL"),
        (json!({"arguments": {}}), "BAD_ARGUMENTS"),
        (json!({"name": 5, "arguments": {}}), "BAD_ARGUMENTS"),
        (json!([]), "BAD_ARGUMENTS"),
        (json!({"name": "get_develop", "arguments": {"jobid": "x"}}), "BAD_ARGUMENTS"),
        (json!({"name": "get_develop", "arguments": {"jobId": 5}}), "BAD_ARGUMENTS"),
        (json!({"name": "list_assets", "arguments": {"limit": "ten"}}), "BAD_ARGUMENTS"),
        (json!({"name": "list_develops", "arguments": 5}), "BAD_ARGUMENTS"),
        (json!({"name": "start_develop", "arguments": {"tool": "upscale", "inputs": {}}}), "BAD_ARGUMENTS"),
        (
            json!({"name": "start_develop", "arguments": {"tool": "upscale", "quality": "1k", "inputs": {"image": 1}}}),
            "BAD_ARGUMENTS",
        ),
    ];
    for (params, code) in cases {
        let (status, body) = rpc(&app, Some(&key), "tools/call", params.clone()).await;
        assert_eq!(status, 200, "{params}: {body}");
        assert!(body.get("error").is_none(), "a tools/call got a JSON-RPC error: {params}: {body}");
        assert_eq!((body["jsonrpc"].as_str(), body["id"].as_i64()), (Some("2.0"), Some(7)), "{body}");
        let result = &body["result"];
        assert_eq!(refused(result), code, "{params}: {result}");
        let error = result["structuredContent"]["error"].as_str().unwrap();
        assert!(error.starts_with(&format!("{code}: ")) && error.len() > code.len() + 2, "{error}");
    }
    let unknown = call(&app, &key, "no_such_tool", json!({})).await;
    let error = unknown["structuredContent"]["error"].as_str().unwrap();
    assert!(error.contains("no_such_tool") && error.contains("tools/list"), "{error}");
    let missing = call(&app, &key, "get_develop", json!({})).await;
    assert!(missing["structuredContent"]["error"].as_str().unwrap().contains("jobId"), "names the field: {missing}");

    // A tools/call still needs a key, and a malformed envelope is still a JSON-RPC error.
    let (status, body) = rpc(&app, None, "tools/call", json!({"name": "no_such_tool"})).await;
    assert_eq!((status, body["error"]["code"].as_i64()), (401, Some(-32001)));
    let (status, _, body) =
        post(&app, Some(&key), r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}"#, &[]).await;
    assert_eq!((status, body.unwrap()["error"]["code"].as_i64()), (400, Some(-32600)));
    // Nothing a refused call did reached the ledger.
    assert_eq!(ok(&call(&app, &key, "check_balance", json!({})).await)["held"], 0);
}

/// start_develop applies the submit's input-role rules in the core (`check_input_role`): an
/// unknown role is refused `BAD_INPUTS` before anything is held or queued.
async fn start_develop_refuses_unknown_roles_holding_nothing(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let key = House::new(&app, "roles").await.secret;
    let client = app.client.with_api_key(&key);
    let asset = client.upload_bytes("r.png", png(40, 30), &Default::default()).await.unwrap().asset.id;
    let before = ok(&call(&app, &key, "check_balance", json!({})).await).clone();
    assert_eq!((before["balance"].as_i64(), before["held"].as_i64()), (Some(100), Some(0)));

    let develop = |inputs: Value| {
        let key = "roles-1";
        json!({"tool": "upscale", "inputs": inputs, "quality": "1k", "params": {}, "idempotencyKey": key})
    };
    for inputs in [
        // With a valid image beside it, the old endpoint held and queued this one.
        json!({"image": asset, "picture": asset}),
        json!({"picture": asset}),
        json!({"image": asset, "Image": asset}),
        json!({"image": asset, "output": asset}),
        json!({" image": asset}),
    ] {
        let refusal = call(&app, &key, "start_develop", develop(inputs.clone())).await;
        assert_eq!(refused(&refusal), "BAD_INPUTS", "{inputs}: {refusal}");
        assert!(refusal["structuredContent"]["error"].as_str().unwrap().contains("not an input role"), "{refusal}");
        let now = ok(&call(&app, &key, "check_balance", json!({})).await).clone();
        assert_eq!(now, before, "a refused start_develop holds nothing ({inputs})");
    }
    let develops = call(&app, &key, "list_develops", json!({})).await;
    assert_eq!(ok(&develops)["develops"], json!([]), "nothing was queued");

    // The refusals did not spend the idempotency key: the same key with a valid role develops.
    let started = call(&app, &key, "start_develop", develop(json!({"image": asset}))).await;
    assert_eq!(ok(&started)["tokensHeld"], 9);
    let after = ok(&call(&app, &key, "check_balance", json!({})).await).clone();
    assert_eq!((after["balance"].as_i64(), after["held"].as_i64()), (Some(91), Some(9)));
}

async fn tools_answer_and_refuse(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { session, key: client, secret: key, .. } = House::new(&app, "tools").await;

    let book = call(&app, &key, "list_capabilities", json!({})).await;
    let tools: Vec<&str> = ok(&book)["tools"].as_array().unwrap().iter().map(|t| t["tool"].as_str().unwrap()).collect();
    assert!(tools.contains(&"upscale") && !tools.contains(&"tryon"), "{tools:?}");
    let balance = call(&app, &key, "check_balance", json!({})).await;
    assert_eq!(ok(&balance)["balance"], 100);

    let mut asset_ids = Vec::new();
    for i in 0..3 {
        asset_ids.push(
            client.upload_bytes(&format!("p{i}.png"), png(40 + i, 30), &Default::default()).await.unwrap().asset.id,
        );
    }
    let listed = call(&app, &key, "list_assets", json!({"limit": 2})).await;
    assert_eq!(ok(&listed)["assets"].as_array().unwrap().len(), 2);
    assert_eq!(ok(&listed)["total"], 3);
    assert_eq!(refused(&call(&app, &key, "list_assets", json!({"limit": 0})).await), "BAD_LIMIT");
    let all = call(&app, &key, "list_assets", json!({"limit": 5000})).await;
    assert_eq!(ok(&all)["assets"].as_array().unwrap().len(), 3, "capped at 200, not refused");

    // start_develop, its replay, and every refusal code of the §4.2 table.
    let develop = |tool: &str, inputs: Value, quality: &str, key: Option<&str>| {
        let mut args = json!({"tool": tool, "inputs": inputs, "quality": quality, "params": {"runId": "agent"}});
        if let Some(k) = key {
            args["idempotencyKey"] = json!(k);
        }
        args
    };
    let image = json!({"image": asset_ids[0]});
    let started = call(&app, &key, "start_develop", develop("upscale", image.clone(), "1k", Some("k1"))).await;
    let started = ok(&started).clone();
    assert_eq!((started["status"].as_str(), started["tokensHeld"].as_i64()), (Some("queued"), Some(9)));
    assert_eq!(started["idempotencyKey"], "k1");
    let replay = call(&app, &key, "start_develop", develop("upscale", image.clone(), "1k", Some("k1"))).await;
    assert_eq!(ok(&replay)["jobId"], started["jobId"]);
    assert_eq!(ok(&replay)["tokensHeld"], 0);
    assert_eq!(
        refused(
            &call(
                &app,
                &key,
                "start_develop",
                develop("tryon", json!({"model": asset_ids[0], "garment": asset_ids[1]}), "1k", None)
            )
            .await
        ),
        "UNKNOWN_TOOL"
    );
    assert_eq!(
        refused(&call(&app, &key, "start_develop", develop("upscale", json!({}), "1k", None)).await),
        "NO_INPUTS"
    );
    assert_eq!(
        refused(&call(&app, &key, "start_develop", develop("cleanup", image.clone(), "1k", None)).await),
        "NO_INPUTS"
    );
    assert_eq!(
        refused(&call(&app, &key, "start_develop", develop("upscale", json!({"image": "ast_nope"}), "1k", None)).await),
        "ASSET_NOT_FOUND"
    );
    let stranger = House::new(&app, "stranger").await.secret;
    assert_eq!(
        refused(&call(&app, &stranger, "start_develop", develop("upscale", image.clone(), "1k", None)).await),
        "ASSET_NOT_FOUND"
    );
    let viewer = session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    assert_eq!(
        refused(&call(&app, &viewer, "start_develop", develop("upscale", image.clone(), "1k", None)).await),
        "FORBIDDEN"
    );
    assert_eq!(
        refused(&call(&app, &key, "start_develop", develop("upscale", image.clone(), "8k", None)).await),
        "BAD_QUALITY"
    );
    // IMAGE_TOO_LARGE: an asset row over the 12 MB cap (as a library filled elsewhere could hold).
    let org = client.session().await.unwrap().organization.id;
    let mut big = app.studio.storage().asset_by_id(&AssetId::from(&asset_ids[2])).await.unwrap().unwrap();
    big.id = format!("{}big", big.id).into();
    big.bytes = 13 * 1024 * 1024;
    app.studio.storage().insert_asset(big.clone()).await.unwrap();
    let too_large = call(&app, &key, "start_develop", develop("upscale", json!({"image": big.id}), "1k", None)).await;
    assert_eq!(refused(&too_large), "IMAGE_TOO_LARGE");
    assert_eq!(too_large["structuredContent"]["maxMb"], 12);
    // INSUFFICIENT_TOKENS with need and spendable; nothing held by any refusal.
    assert_eq!(client.balance().await.unwrap().balance, 91);
    let short = call(&app, &key, "start_develop", develop("upscale", image.clone(), "4k", None)).await;
    for _ in 0..4 {
        call(&app, &key, "start_develop", develop("upscale", image.clone(), "4k", None)).await;
    }
    let short_now = call(&app, &key, "start_develop", develop("upscale", image.clone(), "4k", None)).await;
    assert_eq!(ok(&short)["tokensHeld"], 19);
    assert_eq!(refused(&short_now), "INSUFFICIENT_TOKENS");
    assert_eq!(short_now["structuredContent"]["need"], 19);
    assert_eq!(short_now["structuredContent"]["spendable"], 91 - 19 * 4);

    // get_develop and list_develops.
    let job_id = started["jobId"].as_str().unwrap();
    let status = call(&app, &key, "get_develop", json!({"jobId": job_id})).await;
    assert_eq!(ok(&status)["status"], "queued");
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let status = call(&app, &key, "get_develop", json!({"jobId": job_id})).await;
    assert_eq!((ok(&status)["status"].as_str(), ok(&status)["tokensSettled"].as_i64()), (Some("done"), Some(9)));
    assert!(ok(&status)["resultUrl"].as_str().is_some_and(|u| u.contains("/api/toolkit/assets/")));
    assert_eq!(refused(&call(&app, &stranger, "get_develop", json!({"jobId": job_id})).await), "NOT_FOUND");
    let develops = call(&app, &key, "list_develops", json!({})).await;
    assert_eq!(ok(&develops)["develops"].as_array().unwrap().len(), 5);
    let done = call(&app, &key, "list_develops", json!({"status": "done", "limit": 1})).await;
    assert_eq!(ok(&done)["develops"][0]["jobId"], job_id);
    assert_eq!(refused(&call(&app, &key, "list_develops", json!({"status": "soon"})).await), "BAD_STATUS");
    assert_eq!(refused(&call(&app, &key, "list_develops", json!({"limit": 0})).await), "BAD_LIMIT");

    // ENQUEUE_FAILED charges nothing (a trigger in the app's own database fails the queue step).
    let fault = studio_tests::refuse_inserts(&app, "jobs").await;
    let before = client.balance().await.unwrap();
    let failed = call(&app, &key, "start_develop", develop("upscale", image.clone(), "1k", None)).await;
    assert_eq!(refused(&failed), "ENQUEUE_FAILED");
    let after = client.balance().await.unwrap();
    assert_eq!((after.balance, after.held), (before.balance, before.held));
    fault.lift().await;
    let _ = org;
}

async fn quality_and_model_tools(backend: Backend) {
    let app = spawn(backend, |c| c.runner_concurrency = 0).await.expect("app");
    let House { session, key: client, secret: key, .. } = House::new(&app, "quality").await;
    let viewer = session.mint_key("viewer", Some(KeyRole::Viewer)).await.unwrap().key.unwrap();
    let tiny = client.upload_bytes("tiny.png", png(40, 30), &Default::default()).await.unwrap().asset.id;
    let big = client.upload_bytes("big.png", png(1400, 1000), &Default::default()).await.unwrap().asset.id;

    // preflight: free, findings in the closed vocabulary, refusals.
    let checked = call(&app, &key, "preflight", json!({"assetIds": [tiny]})).await;
    let result = ok(&checked);
    assert_eq!(result["clear"], false);
    assert!(
        result["findings"].as_array().unwrap().iter().any(|f| f["code"] == "too-small" && f["images"] == json!([1]))
    );
    assert_eq!(refused(&call(&app, &key, "preflight", json!({"assetIds": []})).await), "IMAGES_REQUIRED");
    assert_eq!(refused(&call(&app, &key, "preflight", json!({"assetIds": ["ast_nope"]})).await), "ASSET_NOT_FOUND");
    let seven = vec![big.clone(); 7];
    assert_eq!(refused(&call(&app, &key, "preflight", json!({"assetIds": seven})).await), "TOO_MANY_IMAGES");
    assert_eq!(client.balance().await.unwrap().balance, 100, "preflight reserves nothing");

    // get_verdict and redraw.
    let start = |asset: &str| json!({"tool": "upscale", "inputs": {"image": asset}, "quality": "1k", "params": {}});
    let queued = ok(&call(&app, &key, "start_develop", start(&big)).await)["jobId"].as_str().unwrap().to_string();
    let unreadable = call(&app, &key, "get_verdict", json!({"jobId": queued})).await;
    assert_eq!(ok(&unreadable)["readable"], false);
    assert_eq!(refused(&call(&app, &key, "redraw", json!({"jobId": queued})).await), "VERDICT_UNREADABLE");
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let verdict = call(&app, &key, "get_verdict", json!({"jobId": queued})).await;
    assert!(ok(&verdict)["score"].is_number());
    assert_eq!(refused(&call(&app, &key, "get_verdict", json!({"jobId": "job_nope"})).await), "NOT_FOUND");
    let futile = ok(&call(&app, &key, "start_develop", start(&tiny)).await)["jobId"].as_str().unwrap().to_string();
    assert!(app.studio.develops().run_next_job().await.unwrap());
    let before = client.balance().await.unwrap().balance;
    assert_eq!(refused(&call(&app, &key, "redraw", json!({"jobId": futile})).await), "REDRAW_FUTILE");
    assert_eq!(client.balance().await.unwrap().balance, before, "a refused redraw charges nothing");
    assert_eq!(refused(&call(&app, &viewer, "redraw", json!({"jobId": queued})).await), "FORBIDDEN");

    // read_model and read_build: no AI configured here, so refused and never charged.
    assert_eq!(refused(&call(&app, &key, "read_model", json!({"assetIds": [big]})).await), "AI_NOT_CONFIGURED");
    assert_eq!(refused(&call(&app, &key, "read_build", json!({"assetId": big})).await), "AI_NOT_CONFIGURED");
    assert_eq!(refused(&call(&app, &key, "read_model", json!({"assetIds": []})).await), "BAD_ASSET_IDS");
    assert_eq!(refused(&call(&app, &viewer, "read_build", json!({"assetId": big})).await), "FORBIDDEN");
    assert_eq!(client.balance().await.unwrap().balance, before);

    // cast_model keeps a model that a later develop casts by id.
    let cast =
        call(&app, &key, "cast_model", json!({"name": "Ines", "assetIds": [big], "traits": {"hair": "short"}})).await;
    let model_id = ok(&cast)["id"].as_str().unwrap().to_string();
    assert!(model_id.starts_with("mdl_"));
    let cast_develop = call(&app, &key, "start_develop", start(&model_id)).await;
    assert_eq!(ok(&cast_develop)["tokensHeld"], 9);
    assert_eq!(refused(&call(&app, &key, "cast_model", json!({"name": "", "assetIds": [big]})).await), "NAME_REQUIRED");
    assert_eq!(refused(&call(&app, &key, "cast_model", json!({"name": "X", "assetIds": []})).await), "BAD_ASSET_IDS");
    assert_eq!(
        refused(&call(&app, &key, "cast_model", json!({"name": "X", "assetIds": ["ast_nope"]})).await),
        "ASSET_NOT_FOUND"
    );
    assert_eq!(refused(&call(&app, &viewer, "cast_model", json!({"name": "X", "assetIds": [big]})).await), "FORBIDDEN");
}
