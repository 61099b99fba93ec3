//! Fuzz the three multipart forms through the real router: `POST /api/toolkit/assets/upload`,
//! `POST /api/toolkit/jobs/submit` and `POST /api/toolkit/ai/preflight`, with a member key.
//!
//! Input: byte 0 picks the route, byte 1 the mode. Raw mode sends the rest as the body under a
//! fixed boundary (the seeds in `seeds/multipart` are real forms); structured mode reads the
//! rest as parts with route-relevant names, free-form headers and contents that are text,
//! bytes or a real small PNG or JPEG, possibly cut short or with one byte changed.
//!
//! Properties: never a 5xx (a panic aborts the run); every refusal is the shared envelope;
//! a refused upload or submit leaves no file in the blob store; an accepted upload stored
//! exactly the `file` part's bytes as one of the four image types, within the pixel limits; an
//! accepted submit holds tokens (a replay none); a pre-flight answer's `clear` is exactly "no findings".

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use studio_fuzz::{assert_envelope, harness, image};

const BOUNDARY: &str = "studiofuzzboundary";
const ROUTES: [&str; 3] = ["/api/toolkit/assets/upload", "/api/toolkit/jobs/submit", "/api/toolkit/ai/preflight"];
/// Text values the handlers act on, so structured inputs get past the first checks.
const WORDS: [&str; 16] = [
    "upscale",
    "packshot",
    "tryon",
    "cleanup",
    "1k",
    "2k",
    "4k",
    "clothes",
    "background",
    "true",
    "0",
    "TT-01",
    "casting look",
    "build sheet",
    "too-small",
    "fld_missing",
];

#[derive(Arbitrary, Debug)]
enum Field {
    File,
    Image,
    Images,
    Garment,
    Model,
    Mask,
    Background,
    Tool,
    Quality,
    IdempotencyKey,
    Kind,
    Sku,
    FolderId,
    Name,
    Classify,
    Lens,
    Clearing,
    Output,
    Other(String),
}

impl Field {
    fn as_str(&self) -> &str {
        match self {
            Field::File => "file",
            Field::Image => "image",
            Field::Images => "images",
            Field::Garment => "garment",
            Field::Model => "model",
            Field::Mask => "mask",
            Field::Background => "background",
            Field::Tool => "tool",
            Field::Quality => "quality",
            Field::IdempotencyKey => "idempotencyKey",
            Field::Kind => "kind",
            Field::Sku => "sku",
            Field::FolderId => "folderId",
            Field::Name => "name",
            Field::Classify => "classify",
            Field::Lens => "lens",
            Field::Clearing => "clearing",
            Field::Output => "output",
            Field::Other(s) => s,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Data {
    Word(u8),
    Text(String),
    Bytes(Vec<u8>),
    /// A real image of up to 64 × 64, kept to its first `keep` bytes and with one byte changed.
    Image {
        jpeg: bool,
        width: u8,
        height: u8,
        keep: Option<u16>,
        poke: Option<(u16, u8)>,
    },
}

impl Data {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Data::Word(i) => WORDS[usize::from(*i) % WORDS.len()].as_bytes().to_vec(),
            Data::Text(s) => s.as_bytes().to_vec(),
            Data::Bytes(b) => b.clone(),
            Data::Image { jpeg, width, height, keep, poke } => {
                let format = if *jpeg { image::ImageFormat::Jpeg } else { image::ImageFormat::Png };
                let mut bytes = image(u32::from(*width % 64), u32::from(*height % 64), format);
                if let Some((at, value)) = poke {
                    let at = usize::from(*at) % bytes.len();
                    bytes[at] = *value;
                }
                if let Some(keep) = keep {
                    bytes.truncate(usize::from(*keep));
                }
                bytes
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Part {
    name: Field,
    file_name: Option<String>,
    content_type: Option<String>,
    data: Data,
}

/// The parts as one multipart body; the `file` part's bytes, if there is one.
fn encode(parts: &[Part]) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut body = Vec::new();
    let mut file = None;
    for part in parts {
        let data = part.data.bytes();
        if part.name.as_str() == "file" && file.is_none() {
            file = Some(data.clone());
        }
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", part.name.as_str());
        if let Some(file_name) = &part.file_name {
            disposition.push_str(&format!("; filename=\"{file_name}\""));
        }
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(b"\r\n");
        if let Some(content_type) = &part.content_type {
            body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(&data);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    (body, file)
}

fuzz_target!(|data: &[u8]| {
    let [route, mode, rest @ ..] = data else { return };
    let route = ROUTES[usize::from(*route) % ROUTES.len()];
    let (body, parts) = if mode & 1 == 0 {
        (rest.to_vec(), None)
    } else {
        let Ok(parts) = Vec::<Part>::arbitrary_take_rest(Unstructured::new(rest)) else { return };
        let (body, file) = encode(&parts);
        (body, Some(file))
    };
    let h = harness();
    let request = Request::post(route)
        .header(header::AUTHORIZATION, format!("Bearer {}", h.key))
        .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(Body::from(body))
        .expect("request");
    let (status, body) = h.send(request);
    assert!(!status.is_server_error(), "{route} answered {status}: {}", String::from_utf8_lossy(&body));
    if !status.is_success() {
        assert_envelope(status, &body);
        assert_eq!(h.stored_files(), 0, "{route} refused with {status} but left files in the blob store");
        return;
    }
    let answer: Value = serde_json::from_slice(&body).expect("a JSON answer");
    match route {
        "/api/toolkit/assets/upload" => {
            assert_eq!(status, StatusCode::CREATED);
            let asset = &answer["asset"];
            let mime = asset["mime"].as_str().expect("mime");
            assert!(["image/jpeg", "image/png", "image/webp", "image/gif"].contains(&mime), "stored a {mime}");
            for side in ["width", "height"] {
                assert!(asset[side].as_u64().is_none_or(|v| v <= 16_384), "{side} past the limit: {asset}");
            }
            if let Some(Some(file)) = parts {
                assert_eq!(asset["bytes"].as_u64(), Some(file.len() as u64), "stored other bytes than sent");
            }
        }
        "/api/toolkit/jobs/submit" if answer["replayed"] == true => {
            assert_eq!(answer["tokensHeld"], 0, "a replay holds nothing: {answer}");
        }
        "/api/toolkit/jobs/submit" => {
            assert!(answer["tokensHeld"].as_i64().is_some_and(|t| t > 0), "a develop queued for nothing: {answer}");
        }
        _ => {
            let findings = answer["findings"].as_array().expect("findings");
            assert_eq!(answer["clear"].as_bool(), Some(findings.is_empty()), "clear is exactly no findings: {answer}");
        }
    }
    h.clear_blobs();
});
