//! A stand-in AI reader for the suites: an app whose OpenAI-compatible reader is a local
//! wiremock server, and the chat-completion answer such a reader gives.

use wiremock::{MockServer, ResponseTemplate};

use crate::{Backend, TestApp, spawn};

/// An app whose AI reader is `server` (bearer `k`, model `m`), with the job runner off.
pub async fn app_with_reader(
    backend: Backend,
    server: &MockServer,
    tweak: impl FnOnce(&mut studio_server::ServerConfig),
) -> Option<TestApp> {
    let uri = server.uri();
    spawn(backend, |c| {
        c.ai_url = Some(format!("{uri}/v1"));
        c.ai_key = Some("k".into());
        c.ai_model = Some("m".into());
        c.runner_concurrency = 0;
        tweak(c);
    })
    .await
}

/// A chat completion whose message content is `content`.
pub fn completion(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }))
}
