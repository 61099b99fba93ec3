//! Pieces every adapter to a third-party HTTP API shares (fal, the AI reader, Polar): the
//! HTTP client with its timeouts, the base URL check, data URIs, and making an upstream
//! message safe to pass on.

use std::time::Duration;

use base64::Engine;
use reqwest::Url;

/// How long connecting to any upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest upstream message passed on, in characters.
const MESSAGE_CHARS: usize = 300;

/// A client for the API named `what` at `base_url` (http or https, with a host), with the
/// shared connect timeout and `request_timeout` per request.
pub(crate) fn client(what: &str, base_url: &str, request_timeout: Duration) -> Result<(reqwest::Client, Url), String> {
    let base = Url::parse(base_url.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some() && !u.cannot_be_a_base())
        .ok_or_else(|| format!("the {what} base URL {base_url:?} is not an http(s) URL"))?;
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(request_timeout)
        .user_agent(concat!("studio/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("the {what} HTTP client could not be built: {e}"))?;
    Ok((client, base))
}

/// `data:<mime>;base64,<bytes>`.
pub(crate) fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Standard or URL-safe base64, padding optional, ASCII whitespace ignored; None otherwise.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let cleaned: String = text
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    base64::engine::general_purpose::STANDARD_NO_PAD.decode(cleaned.trim_end_matches('=')).ok()
}

/// An upstream message made safe to pass on: `secret` (should it ever be echoed) replaced by
/// `[key]`, whitespace collapsed, at most 300 characters.
pub(crate) fn clean_message(message: &str, secret: &str) -> String {
    let secret = secret.trim();
    let scrubbed = if secret.is_empty() { message.to_string() } else { message.replace(secret, "[key]") };
    let collapsed = scrubbed.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() > MESSAGE_CHARS {
        format!("{}…", collapsed.chars().take(MESSAGE_CHARS).collect::<String>())
    } else {
        collapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_is_lenient_in_what_it_reads() {
        assert_eq!(data_uri("image/png", b"foobar"), "data:image/png;base64,Zm9vYmFy");
        assert_eq!(data_uri("x", b"fo"), "data:x;base64,Zm8=");
        let vectors = [("", ""), ("f", "Zg=="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")];
        for (plain, encoded) in vectors {
            assert_eq!(data_uri("m", plain.as_bytes()), format!("data:m;base64,{encoded}"));
            assert_eq!(decode_base64(encoded).as_deref(), Some(plain.as_bytes()));
        }
        assert_eq!(data_uri("m", &[0xff, 0xfe, 0xfd]), "data:m;base64,//79");
        let bytes: Vec<u8> = (0..=255).collect();
        let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
        assert_eq!(decode_base64(&encoded), Some(bytes));
        assert_eq!(decode_base64("Zm9v\nYmE"), Some(b"fooba".to_vec()));
        assert_eq!(decode_base64("__-_"), Some(vec![0xff, 0xff, 0xbf]));
        assert_eq!(decode_base64("Zm9v!"), None);
        assert_eq!(decode_base64("Z"), None);
    }

    #[test]
    fn messages_lose_the_secret_and_their_length() {
        assert_eq!(clean_message("bad  key sk-123\n here", "sk-123"), "bad key [key] here");
        assert_eq!(clean_message("as is", ""), "as is");
        let long = "x".repeat(400);
        assert_eq!(clean_message(&long, "k").chars().count(), 301);
    }

    #[test]
    fn base_urls_must_be_http() {
        assert!(client("t", "https://api.example", Duration::from_secs(1)).is_ok());
        for bad in ["ftp://x", "not a url", "mailto:a@b"] {
            assert!(client("t", bad, Duration::from_secs(1)).unwrap_err().contains("the t base URL"));
        }
    }
}
