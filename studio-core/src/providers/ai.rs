//! The AI reader: an OpenAI-compatible vision chat endpoint that looks at images and answers
//! one JSON object (read_model, read_build, and later classify).
//!
//! One read is one request: `POST {base_url}/chat/completions` with `Authorization: Bearer
//! <key>` (omitted when the key is empty), a system message, and a user message carrying the
//! prompt and each image as a `data:<mime>;base64,…` URI; `response_format` asks for a JSON
//! object and `temperature` is 0. The answer is `choices[0].message.content`, parsed as JSON
//! (a fenced ```` ```json ```` block is tolerated).
//!
//! Failures: no connection, a timeout, 429, 5xx and a malformed body are
//! [`AiError::Unavailable`]; any other 4xx is [`AiError::Rejected`] with the upstream message; a
//! message that holds no JSON is [`AiError::Malformed`]. The reads turn each into 502
//! `AI_FAILED` (the lanes a malformed answer into `AI_BAD_OUTPUT`) and release what they held. The key is never part
//! of a log line, an error or a `Debug` rendering.

use std::time::Duration;

use bytes::Bytes;
use reqwest::{StatusCode, Url};
use serde_json::{Value, json};

/// The largest answer read.
const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// How much of an error body is read to find the upstream message.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Settings of the AI reader.
#[derive(Clone, PartialEq, Eq)]
pub struct AiConfig {
    /// Base URL of the OpenAI-compatible API (e.g. `https://api.openai.com/v1`).
    pub base_url: String,
    /// Bearer key (may be empty for local servers).
    pub key: String,
    /// Model name.
    pub model: String,
    /// Longest a whole read may take (request, thinking and answer); [`AiConfig::DEFAULT_TIMEOUT`].
    pub timeout: Duration,
}

impl AiConfig {
    /// The default time limit of one read (120 s).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
}

impl std::fmt::Debug for AiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// One image shown to the reader.
#[derive(Debug, Clone)]
pub(crate) struct AiImage {
    /// Its MIME type (`image/jpeg`, `image/png`, `image/webp`, `image/gif`).
    pub(crate) mime: String,
    /// The encoded bytes.
    pub(crate) bytes: Bytes,
}

/// Why a read produced no answer. Either way nothing may be charged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AiError {
    /// The reader could not answer now: no connection, a timeout, 429, 5xx, or an answer that
    /// is not the JSON asked for.
    #[error("{0}")]
    Unavailable(String),
    /// The reader refused the request (a 4xx other than 429), with its message.
    #[error("{0}")]
    Rejected(String),
    /// The reader answered, but its message holds no JSON (prose, or a cut-off object).
    #[error("{0}")]
    Malformed(String),
}

/// A client of one configured reader.
#[derive(Debug)]
pub(crate) struct AiClient {
    config: AiConfig,
    endpoint: Url,
    http: reqwest::Client,
}

impl AiClient {
    /// A client for `config`, with connect and request timeouts. Fails when the base URL is
    /// not an http(s) URL.
    pub(crate) fn new(config: &AiConfig) -> Result<Self, AiError> {
        let (http, base) =
            crate::outbound::client("AI", &config.base_url, config.timeout).map_err(AiError::Unavailable)?;
        let endpoint = Url::parse(&format!("{}/chat/completions", base.as_str().trim_end_matches('/')))
            .map_err(|e| AiError::Unavailable(format!("the AI endpoint cannot be formed: {e}")))?;
        Ok(AiClient { config: config.clone(), endpoint, http })
    }

    /// Show `images` with `prompt` under the `system` instructions and return the answer's
    /// JSON value (normally an object; the caller checks its shape).
    pub(crate) async fn read_json(&self, system: &str, prompt: &str, images: &[AiImage]) -> Result<Value, AiError> {
        let mut content = vec![json!({"type": "text", "text": prompt})];
        for image in images {
            let url = crate::outbound::data_uri(&image.mime, &image.bytes);
            content.push(json!({"type": "image_url", "image_url": {"url": url}}));
        }
        let body = json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": content},
            ],
            "response_format": {"type": "json_object"},
            "temperature": 0,
        });
        let mut request = self.http.post(self.endpoint.clone()).json(&body);
        if !self.config.key.trim().is_empty() {
            request = request.bearer_auth(self.config.key.trim());
        }
        let mut response = request.send().await.map_err(|e| {
            let what = if e.is_timeout() { "timed out" } else { "could not be reached" };
            AiError::Unavailable(format!("the AI reader {what}: {}", self.clean(&e.without_url().to_string())))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(self.refusal(status, &mut response).await);
        }
        let bytes = read_capped(&mut response, MAX_ANSWER_BYTES)
            .await?
            .ok_or_else(|| AiError::Unavailable("the AI reader answered with an oversized body".to_string()))?;
        let answer: Value = serde_json::from_slice(&bytes)
            .map_err(|_| AiError::Unavailable("the AI reader answered with malformed JSON".to_string()))?;
        let message = &answer["choices"][0]["message"];
        let text = content_text(&message["content"]);
        if text.trim().is_empty() {
            if let Some(refusal) = message["refusal"].as_str().filter(|r| !r.trim().is_empty()) {
                return Err(AiError::Rejected(format!("the AI reader declined: {}", self.clean(refusal))));
            }
            return Err(AiError::Unavailable("the AI reader's answer has no content".to_string()));
        }
        parse_answer(&text).ok_or_else(|| AiError::Malformed("the AI reader's answer is not JSON".to_string()))
    }

    /// Map a non-2xx answer: 429 and 5xx (and anything unexpected) are unavailable; other 4xx
    /// are rejected with the upstream message.
    async fn refusal(&self, status: StatusCode, response: &mut reqwest::Response) -> AiError {
        let body = read_capped(response, MAX_ERROR_BODY).await.ok().flatten().unwrap_or_default();
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| message_of(&v))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned());
        let message = self.clean(&message);
        let message =
            if message.is_empty() { status.canonical_reason().unwrap_or("no message").to_string() } else { message };
        let line = format!("the AI reader answered {}: {message}", status.as_u16());
        if status.is_client_error() && status != StatusCode::TOO_MANY_REQUESTS {
            AiError::Rejected(line)
        } else {
            AiError::Unavailable(line)
        }
    }

    /// An upstream message made safe to pass on: the key (should it ever be echoed) removed,
    /// whitespace collapsed, at most 300 characters (see `crate::outbound::clean_message`).
    fn clean(&self, message: &str) -> String {
        crate::outbound::clean_message(message, &self.config.key)
    }
}

/// The text of a message's content: a string, or the text parts of a content array.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.as_str().or_else(|| p["text"].as_str())).collect::<Vec<_>>().join("")
        }
        _ => String::new(),
    }
}

/// The JSON in an answer: the whole text, else the first fenced block (```` ```json ````),
/// else the span from the first `{` to the last `}`.
fn parse_answer(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Ok(v) = serde_json::from_str(text) {
        return Some(v);
    }
    if let Some((_, after)) = text.split_once("```") {
        // Skip the info string (`json`) up to the end of the fence line.
        let body = after.split_once('\n').map_or(after, |(_, rest)| rest);
        let inner = body.split_once("```").map_or(body, |(inner, _)| inner);
        if let Ok(v) = serde_json::from_str(inner.trim()) {
            return Some(v);
        }
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    (start < end).then(|| serde_json::from_str(&text[start..=end]).ok()).flatten()
}

/// The upstream message in an error body: `error.message`, `error` (a string), `message` or
/// `detail`.
fn message_of(value: &Value) -> Option<String> {
    let candidates = [&value["error"]["message"], &value["error"], &value["message"], &value["detail"]];
    candidates.into_iter().find_map(|v| v.as_str().map(str::to_string)).filter(|m| !m.trim().is_empty())
}

/// Read a body up to `cap` bytes; None when it is longer.
async fn read_capped(response: &mut reqwest::Response, cap: usize) -> Result<Option<Vec<u8>>, AiError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| AiError::Unavailable(format!("the AI reader's answer broke off: {}", e.without_url())))?
    {
        if body.len() + chunk.len() > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wiremock::matchers::{body_partial_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    fn config(server: &MockServer, key: &str) -> AiConfig {
        AiConfig {
            base_url: format!("{}/v1/", server.uri()),
            key: key.into(),
            model: "vision-1".into(),
            timeout: AiConfig::DEFAULT_TIMEOUT,
        }
    }

    fn answer(content: &str) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        }))
    }

    fn image() -> AiImage {
        AiImage { mime: "image/png".into(), bytes: Bytes::from_static(b"\x89PNG-bytes") }
    }

    async fn read(server: &MockServer, key: &str) -> Result<Value, AiError> {
        AiClient::new(&config(server, key)).expect("client").read_json("system words", "look", &[image()]).await
    }

    #[test]
    fn debug_hides_the_key() {
        let c = AiConfig {
            base_url: "https://ai.example/v1".into(),
            key: "sk-secret-value".into(),
            model: "m".into(),
            timeout: AiConfig::DEFAULT_TIMEOUT,
        };
        assert!(!format!("{c:?}").contains("secret-value"));
        let client = AiClient::new(&c).expect("client");
        assert!(!format!("{client:?}").contains("secret-value"));
        assert!(AiClient::new(&AiConfig { base_url: "ftp://x".into(), ..c }).is_err());
    }

    #[tokio::test]
    async fn the_request_has_the_openai_shape() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(header("authorization", "Bearer sk-test"))
            .and(body_partial_json(json!({
                "model": "vision-1",
                "response_format": {"type": "json_object"},
                "temperature": 0,
            })))
            .respond_with(answer(r#"{"age": "mid-20s", "extras": ["freckles"]}"#))
            .expect(1)
            .mount(&server)
            .await;
        let value = read(&server, "sk-test").await.expect("read");
        assert_eq!(value, json!({"age": "mid-20s", "extras": ["freckles"]}));

        let sent = &server.received_requests().await.expect("recorded")[0];
        let body: Value = serde_json::from_slice(&sent.body).expect("json body");
        let messages = body["messages"].as_array().expect("messages");
        assert_eq!(
            (messages[0]["role"].as_str(), messages[0]["content"].as_str()),
            (Some("system"), Some("system words"))
        );
        assert_eq!(messages[1]["role"], "user");
        let parts = messages[1]["content"].as_array().expect("parts");
        assert_eq!(parts[0], json!({"type": "text", "text": "look"}));
        assert_eq!(parts[1]["type"], "image_url");
        let expected = crate::outbound::data_uri("image/png", b"\x89PNG-bytes");
        assert_eq!(parts[1]["image_url"]["url"].as_str(), Some(expected.as_str()));
    }

    #[tokio::test]
    async fn an_empty_key_sends_no_authorization() {
        let server = MockServer::start().await;
        Mock::given(method("POST")).respond_with(answer("{}")).mount(&server).await;
        assert_eq!(read(&server, "").await.expect("read"), json!({}));
        let sent = &server.received_requests().await.expect("recorded")[0];
        assert!(!sent.headers.contains_key("authorization"));
    }

    #[tokio::test]
    async fn a_fenced_answer_is_accepted() {
        let server = MockServer::start().await;
        let fenced = "Here you go:\n```json\n{\"hair\": \"short, black\"}\n```\nAnything else?";
        Mock::given(method("POST")).respond_with(answer(fenced)).mount(&server).await;
        assert_eq!(read(&server, "k").await.expect("read"), json!({"hair": "short, black"}));
    }

    #[tokio::test]
    async fn prose_is_not_an_answer() {
        let server = MockServer::start().await;
        Mock::given(method("POST")).respond_with(answer("I cannot tell from these pictures.")).mount(&server).await;
        assert!(matches!(read(&server, "k").await, Err(AiError::Malformed(_))));
    }

    #[tokio::test]
    async fn a_malformed_body_is_unavailable() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_string("<html>"))
            .mount(&server)
            .await;
        assert!(matches!(read(&server, "k").await, Err(AiError::Unavailable(_))));
    }

    #[tokio::test]
    async fn server_errors_and_rate_limits_are_unavailable() {
        for status in [500, 503, 429] {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(ResponseTemplate::new(status).set_body_json(json!({"error": {"message": "busy"}})))
                .mount(&server)
                .await;
            let err = read(&server, "k").await.expect_err("fails");
            assert!(matches!(&err, AiError::Unavailable(m) if m.contains(&status.to_string()) && m.contains("busy")));
        }
    }

    #[tokio::test]
    async fn client_errors_are_rejected_with_the_message_but_never_the_key() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(401).set_body_json(json!({
                "error": {"message": "Incorrect API key provided: sk-very-secret", "type": "invalid_request_error"}
            })))
            .mount(&server)
            .await;
        let err = read(&server, "sk-very-secret").await.expect_err("fails");
        let AiError::Rejected(message) = err else { panic!("rejected: {err:?}") };
        assert!(message.contains("401") && message.contains("Incorrect API key"), "{message}");
        assert!(!message.contains("sk-very-secret"), "{message}");
    }

    #[tokio::test]
    async fn no_server_is_unavailable() {
        // A port nobody listens on (wiremock pools its servers, so a dropped one still answers).
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        let c = AiConfig {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            key: "k".into(),
            model: "m".into(),
            timeout: AiConfig::DEFAULT_TIMEOUT,
        };
        let err = AiClient::new(&c).expect("client").read_json("s", "p", &[]).await.expect_err("fails");
        assert!(matches!(&err, AiError::Unavailable(m) if m.contains("could not be reached")), "{err:?}");
    }

    #[test]
    fn answers_are_found_in_text() {
        assert_eq!(parse_answer(" {\"a\": 1} "), Some(json!({"a": 1})));
        assert_eq!(parse_answer("```\n{\"a\": 2}\n```"), Some(json!({"a": 2})));
        assert_eq!(parse_answer("Sure! {\"a\": 3} Done."), Some(json!({"a": 3})));
        assert_eq!(parse_answer("no json here"), None);
        assert_eq!(
            content_text(&json!([{"type": "text", "text": "{\"a\":"}, {"type": "text", "text": "4}"}])),
            "{\"a\":4}"
        );
    }
}
