//! The console: the studio in a browser, served by this binary as plain files (ES modules,
//! styles, vendored libraries under `console/`), embedded at compile time by `build.rs`. It is a
//! client of the public API like the CLI: no route here answers data, only files.
//!
//! - `GET /console/{*file}`: one file, with its ETag (304 on `If-None-Match`).
//! - `GET /` and the console's page paths ([`PAGES`]: `/library`, `/develop/…`): `index.html`,
//!   whose modules route in the browser. A page path is answered only to a request that accepts
//!   HTML, so a script that asks for an unknown path still gets the JSON 404 envelope.
//! - Every answer carries a strict Content-Security-Policy (`default-src 'self'`, no inline
//!   script), `nosniff` and `frame-ancestors 'none'`.
//! - API paths (`/api`, `/docs`, `/openapi.json`, `/health`) are matched before any of this, so
//!   the console never shadows one. `STUDIO_CONSOLE=off` turns it all off.
//! - Debug builds read the files from `console/` on disk when it is there, so the console can be
//!   edited without rebuilding; release builds serve only what was embedded.

use std::borrow::Cow;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::error::no_route;
use crate::state::AppState;

/// The console's files: (path under `console/`, bytes, ETag), written by `build.rs`.
static FILES: &[(&str, &[u8], &str)] = include!(concat!(env!("OUT_DIR"), "/console_files.rs"));

/// The first path segments the console's router owns; `index.html` answers each of them.
/// Keep in step with the page table of `console/app.js`.
pub(crate) const PAGES: &[&str] = &[
    "sign-in",
    "sign-up",
    "verify-email",
    "reset-password",
    "forgot-password",
    "join",
    "library",
    "assets",
    "develop",
    "runs",
    "house",
    "account",
    "search",
    "looks",
    "pipelines",
    "brand",
    "models",
    "support",
    "admin",
];

/// The policy every console answer carries: nothing but this origin, no inline script or style,
/// never framed. Images may also be `blob:` (a picked file's preview before upload) and `data:`.
pub(crate) const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; \
     connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

struct File {
    bytes: Cow<'static, [u8]>,
    etag: String,
}

/// A relative path with no way out of `console/`.
fn safe(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && rel.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.starts_with('.'))
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn file(rel: &str) -> Option<File> {
    if !safe(rel) {
        return None;
    }
    if cfg!(debug_assertions) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("console").join(rel);
        if let Ok(bytes) = std::fs::read(&path) {
            let etag = format!("{:016x}", fnv(&bytes));
            return Some(File { bytes: Cow::Owned(bytes), etag });
        }
    }
    FILES
        .iter()
        .find(|(path, _, _)| *path == rel)
        .map(|(_, bytes, etag)| File { bytes: Cow::Borrowed(bytes), etag: (*etag).to_string() })
}

fn content_type(rel: &str) -> &'static str {
    match rel.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The headers every console answer carries.
fn guard(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// One file: 200 with its bytes, or 304 when the client's copy is current. Every answer is
/// revalidated (`no-cache`), so a new binary's files are seen at once.
fn serve(rel: &str, request: &HeaderMap, method: &Method) -> Response {
    let Some(file) = file(rel) else {
        return not_found_response();
    };
    let etag = format!("\"{}\"", file.etag);
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else if method == Method::HEAD {
        StatusCode::OK.into_response()
    } else {
        file.bytes.into_owned().into_response()
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type(rel)));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, value);
    }
    guard(headers);
    response
}

fn not_found_response() -> Response {
    no_route().into_response()
}

/// `GET /console/{*file}`.
pub(crate) async fn asset(
    State(state): State<AppState>,
    method: Method,
    Path(rel): Path<String>,
    headers: HeaderMap,
) -> Response {
    if !state.console {
        return not_found_response();
    }
    serve(&rel, &headers, &method)
}

/// Whether a path is one of the console's pages.
fn is_page(path: &str) -> bool {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or_default();
    path == "/" || PAGES.contains(&first)
}

/// What answers a path no API route matched: `index.html` for `/` and for a console page asked
/// for by a browser (a request that accepts HTML), else the JSON 404 envelope.
pub(crate) async fn fallback(State(state): State<AppState>, method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    let wants_html = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/html"));
    let page = path == "/" || (wants_html && is_page(path));
    if state.console && (method == Method::GET || method == Method::HEAD) && page {
        return serve("index.html", &headers, &method);
    }
    not_found_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_path_leaves_the_console_folder() {
        for bad in ["", "/etc/passwd", "../Cargo.toml", "a/../../b", "a//b", ".git/config", "a\\b", "./x"] {
            assert!(!safe(bad), "{bad:?}");
        }
        assert!(safe("index.html") && safe("pages/library.js") && safe("vendor/preact.mjs"));
        assert!(file("../build.rs").is_none());
    }

    #[test]
    fn pages_are_known_segments_only() {
        assert!(is_page("/") && is_page("/library") && is_page("/develop/job_1") && is_page("/verify-email"));
        assert!(!is_page("/api") && !is_page("/nope") && !is_page("/docs") && !is_page("/openapi.json"));
    }

    #[test]
    fn the_policy_allows_no_other_origin_and_no_inline_script() {
        assert!(CSP.starts_with("default-src 'self';"));
        assert!(!CSP.contains("unsafe-inline") && !CSP.contains("unsafe-eval") && !CSP.contains("http"));
    }
}
