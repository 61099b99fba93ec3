//! `GET /openapi.json` (OpenAPI 3.1, generated from the mounted routes) and `GET /docs`, a
//! Swagger UI page whose scripts are compiled into the binary, so it works with no internet.

use std::sync::Arc;

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use aide::openapi::{Info, MediaType, OpenApi, SecurityScheme, Tag};
use aide::transform::{TransformOpenApi, TransformOperation};
use axum::Extension;
use axum::Router;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

use crate::auth;
use crate::state::AppState;

/// Where the viewer's static files are served.
const ASSETS: &str = "/docs/assets";

/// The finished document, serialised once.
#[derive(Debug)]
pub(crate) struct Document {
    json: String,
}

impl Document {
    pub(crate) fn new(api: OpenApi) -> Self {
        Document { json: serde_json::to_string(&api).unwrap_or_else(|_| "{}".to_string()) }
    }
}

/// The document's fixed parts; paths are added from the router.
pub(crate) fn base_document() -> OpenApi {
    OpenApi {
        openapi: "3.1.0".into(),
        info: Info {
            title: "Studio API".to_string(),
            description: Some(
                "A studio for fashion houses: an image library, asynchronous develops paid in tokens, \
                 organization keys. Send a key as `Authorization: Bearer studio_sk_…` or use the session cookie. \
                 Errors share one envelope: `{\"error\": \"CODE\", \"message\": \"…\", …}`."
                    .to_string(),
            ),
            version: env!("CARGO_PKG_VERSION").to_string(),
            ..Info::default()
        },
        ..OpenApi::default()
    }
}

/// Security schemes and tags. Each route's own `security` is written by the credential
/// extractor it takes (see auth.rs); a route with none needs no credential.
pub(crate) fn finish(api: TransformOpenApi<'_>) -> TransformOpenApi<'_> {
    api.security_scheme(
        auth::BEARER_KEY,
        SecurityScheme::Http {
            scheme: "bearer".to_string(),
            bearer_format: Some("studio_sk_…".to_string()),
            description: Some("An organization key.".to_string()),
            extensions: Default::default(),
        },
    )
    .security_scheme(
        auth::SESSION,
        SecurityScheme::ApiKey {
            location: aide::openapi::ApiKeyLocation::Cookie,
            name: auth::SESSION_COOKIE.to_string(),
            description: Some("The browser session set by sign-up and sign-in.".to_string()),
            extensions: Default::default(),
        },
    )
    .security_scheme(
        auth::MACHINE_BEARER,
        SecurityScheme::Http {
            scheme: "bearer".to_string(),
            bearer_format: None,
            description: Some(
                "A machine token: the analyst's, the action token or the renderer's, each opening only its own routes."
                    .to_string(),
            ),
            extensions: Default::default(),
        },
    )
    .security_scheme(
        auth::SUPPORT_BRIDGE,
        SecurityScheme::ApiKey {
            location: aide::openapi::ApiKeyLocation::Header,
            name: auth::SUPPORT_BRIDGE_HEADER.to_string(),
            description: Some("The support bridge's shared secret.".to_string()),
            extensions: Default::default(),
        },
    )
    .tag(Tag { name: "auth".into(), description: Some("People and sessions".into()), ..Tag::default() })
    .tag(Tag { name: "keys".into(), description: Some("Organization keys".into()), ..Tag::default() })
    .tag(Tag { name: "billing".into(), description: Some("Tokens and money".into()), ..Tag::default() })
}

/// Document a `status` answer of raw bytes sent as one of `types` (aide alone documents bytes
/// as `application/octet-stream`, which is not what an image or archive route sends).
pub(crate) fn bytes_response<'t, const STATUS: u16>(
    op: TransformOperation<'t>,
    description: &str,
    types: &[&str],
) -> TransformOperation<'t> {
    op.response_with::<STATUS, Vec<u8>, _>(|mut res| {
        let inner = res.inner();
        inner.description = description.to_string();
        inner.content = types.iter().map(|t| (t.to_string(), MediaType::default())).collect();
        res
    })
}

/// The types the library takes and the file routes send (sniffed at upload).
pub(crate) const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/webp", "image/gif"];

async fn get_openapi(Extension(doc): Extension<Arc<Document>>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], doc.json.clone()).into_response()
}

async fn get_docs() -> Html<String> {
    Html(format!(
        r##"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Studio API</title>
  <link rel="stylesheet" href="{ASSETS}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{ASSETS}/swagger-ui-bundle.js"></script>
  <script>
    window.onload = function () {{
      window.ui = SwaggerUIBundle({{ url: "/openapi.json", dom_id: "#swagger-ui", validatorUrl: null, deepLinking: true }});
    }};
  </script>
</body>
</html>"##
    ))
}

/// `/openapi.json` and `/docs`, documented like every other route.
pub(crate) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .api_route(
            "/openapi.json",
            get_with(get_openapi, |op| {
                bytes_response::<200>(
                    op.summary("This document (OpenAPI 3.1)").tag("meta"),
                    "This document",
                    &["application/json"],
                )
            }),
        )
        .api_route("/docs", get_with(get_docs, |op| op.summary("Interactive API viewer (works offline)").tag("meta")))
}

/// The viewer's bundled scripts and styles (static files, not API routes).
pub(crate) fn assets() -> Router {
    swagger_ui_dist::generate_routes(swagger_ui_dist::ApiDefinition {
        uri_prefix: ASSETS,
        api_definition: swagger_ui_dist::OpenApiSource::Uri("/openapi.json"),
        title: Some("Studio API"),
    })
}

/// What the OpenAPI linters (`@redocly/cli lint`, Spectral's `spectral:oas`) ask of the finished
/// document that the generator leaves out: a server (the document's own origin, `/`); an explicit
/// security requirement on every operation, an empty requirement (`{}`: no credential) on the
/// public ones; and an object schema for the multipart bodies, which the generator writes as an
/// array without items (each route's description names its parts).
pub(crate) fn lint_clean(api: &mut OpenApi) {
    use aide::openapi::{ReferenceOr, Server};
    if api.servers.is_empty() {
        api.servers.push(Server {
            url: "/".to_string(),
            description: Some("This deployment".to_string()),
            ..Server::default()
        });
    }
    let Some(paths) = api.paths.as_mut() else { return };
    for (_, item) in paths.paths.iter_mut() {
        let ReferenceOr::Item(item) = item else { continue };
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for op in operations.into_iter().flatten() {
            if op.security.is_empty() {
                op.security.push(Default::default());
            }
            let Some(ReferenceOr::Item(body)) = op.request_body.as_mut() else { continue };
            let Some(form) = body.content.get_mut("multipart/form-data") else { continue };
            let Some(schema) = form.schema.as_mut() else { continue };
            let loose_array = schema.json_schema.get("type").and_then(|t| t.as_str()) == Some("array")
                && schema.json_schema.get("items").is_none();
            if loose_array {
                schema.json_schema = schemars::json_schema!({ "type": "object" });
            }
        }
    }
}
