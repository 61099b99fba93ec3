//! The console's files as the server serves them (docs/console.md): `/` and the page paths
//! answer `index.html` to a browser, the files under `/console/` carry ETags and 304, every
//! answer carries the strict Content-Security-Policy, no path climbs out of the console's
//! folder, API paths and scripts still get the JSON envelope, and `STUDIO_CONSOLE=off` turns
//! it all off. The browser run itself is tests/console/.

use reqwest::header::{ACCEPT, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::Value;
use studio_tests::{Backend, spawn};

const HTML: &str = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_is_served_strictly_and_never_shadows_the_api() {
    let app = spawn(Backend::Sqlite, |_| {}).await.expect("app");
    let http = reqwest::Client::new();
    let get = |path: &str, accept: Option<&str>| {
        let req = http.get(format!("{}{path}", app.base));
        match accept {
            Some(a) => req.header(ACCEPT, a),
            None => req,
        }
        .send()
    };

    // `/` and a page path (for a browser) are the console's index, under the strict policy.
    for (path, accept) in [("/", None), ("/", Some(HTML)), ("/library", Some(HTML)), ("/develop/job_x", Some(HTML))] {
        let res = get(path, accept).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()[CONTENT_TYPE], "text/html; charset=utf-8", "{path}");
        let csp = res.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap().to_string();
        assert!(csp.starts_with("default-src 'self';") && csp.contains("script-src 'self';"), "{csp}");
        assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), "{csp}");
        assert_eq!(res.headers()["x-content-type-options"], "nosniff");
        let html = res.text().await.unwrap();
        assert!(html.contains("<script type=\"module\" src=\"/console/"), "{html}");
        for script in html.split("<script").skip(1) {
            let tag = script.split('>').next().unwrap_or_default();
            assert!(tag.contains("src=\"/console/"), "every script is a file of this origin: <script{tag}>");
        }
        assert!(!html.contains("http://") && !html.contains("https://"), "no other origin is named");
    }

    // A console file: its type, an ETag, 304 when current.
    let res = get("/console/app.js", None).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()[CONTENT_TYPE], "text/javascript; charset=utf-8");
    assert!(res.headers().contains_key(CONTENT_SECURITY_POLICY));
    let etag = res.headers()[ETAG].to_str().unwrap().to_string();
    let again = http.get(format!("{}/console/app.js", app.base)).header(IF_NONE_MATCH, &etag).send().await.unwrap();
    assert_eq!(again.status(), 304);

    // What is not the console's: the JSON envelope, as before.
    for (path, accept) in [
        ("/library", None),
        ("/nope", Some(HTML)),
        ("/api/nope", Some(HTML)),
        ("/console/missing.js", None),
        ("/console/%2e%2e/Cargo.toml", None),
        ("/console/.hidden", None),
    ] {
        let res = get(path, accept).await.unwrap();
        assert_eq!(res.status(), 404, "{path}");
        let body: Value = res.json().await.unwrap_or(Value::Null);
        assert_eq!(body["error"], "NOT_FOUND", "{path}: {body}");
    }
    let health: Value = get("/health", Some(HTML)).await.unwrap().json().await.expect("health stays JSON");
    assert!(health.is_object());
    let doc: Value = get("/openapi.json", Some(HTML)).await.unwrap().json().await.expect("the document stays JSON");
    assert_eq!(doc["openapi"], "3.1.0");
    let docs = get("/docs", Some(HTML)).await.unwrap().text().await.unwrap();
    assert!(docs.contains("SwaggerUIBundle"), "/docs is still the API viewer");

    // STUDIO_CONSOLE=off: the API only.
    let off = spawn(Backend::Sqlite, |c| c.console = false).await.expect("app");
    for (path, accept) in [("/", Some(HTML)), ("/library", Some(HTML)), ("/console/app.js", None)] {
        let res = http.get(format!("{}{path}", off.base));
        let res = match accept {
            Some(a) => res.header(ACCEPT, a),
            None => res,
        };
        let res = res.send().await.unwrap();
        assert_eq!(res.status(), 404, "off: {path}");
    }
}
