//! `GET /openapi.json` (OpenAPI 3.1, generated from the mounted routes) and `GET /docs`, a
//! Swagger UI page whose scripts are compiled into the binary, so it works with no internet.
//! The document's links (create → read, change, delete) and create examples come from one
//! table here, [`LINKS`].

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
    .with(|mut api| {
        link(api.inner_mut());
        api
    })
}

/// What a create operation's answer leads to: the new thing's id sits at `id` (a JSON pointer
/// into the body of each of `statuses`), and every target operation takes it as its `{id}`.
struct CreateLinks {
    /// The create operation, `METHOD path`.
    source: &'static str,
    /// A JSON body that makes one (the request's `example`), or "" for none (a multipart form, or
    /// a row whose operation has its own). Ids of the caller's things are written `ast_example`
    /// (an image of the library) and `job_example` (a develop): a client puts its own there.
    example: &'static str,
    /// The answers that carry the id.
    statuses: &'static [u16],
    /// Where the id sits in the answer's body.
    id: &'static str,
    /// The operations that read, change or delete what was made, `METHOD path`.
    targets: &'static [&'static str],
}

/// The document's links (OpenAPI `links`), one row per create operation, so a client (and
/// Schemathesis's stateful phase) can follow create → read → update → delete.
const LINKS: &[CreateLinks] = &[
    CreateLinks {
        source: "POST /api/toolkit/folders",
        example: r#"{"name": "Spring coats"}"#,
        statuses: &[201],
        id: "/folder/id",
        targets: &["PATCH /api/toolkit/folders/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/assets/upload",
        example: "",
        statuses: &[201],
        id: "/asset/id",
        targets: &[
            "GET /api/toolkit/assets/{id}",
            "GET /api/toolkit/assets/{id}/file",
            "GET /api/toolkit/assets/{id}/provenance",
            "PATCH /api/toolkit/assets/{id}",
        ],
    },
    CreateLinks {
        source: "POST /api/keys",
        example: r#"{"name": "CI uploader", "role": "member"}"#,
        statuses: &[200],
        id: "/id",
        targets: &["DELETE /api/keys/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/lookbook/looks",
        example: r#"{"name": "Coat, look 1", "modelAssetId": "ast_example", "itemAssetIds": [{"assetId": "ast_example", "role": "outerwear"}], "background": {"kind": "preset", "value": "white"}, "aesthetic": "editorial"}"#,
        statuses: &[201],
        id: "/look/id",
        targets: &[
            "GET /api/toolkit/lookbook/looks/{id}",
            "POST /api/toolkit/lookbook/looks/{id}/lock",
            "POST /api/toolkit/lookbook/looks/{id}/unlock",
            "POST /api/toolkit/lookbook/looks/{id}/variations",
            "POST /api/toolkit/lookbook/looks/{id}/develop-lock",
        ],
    },
    CreateLinks {
        source: "POST /api/toolkit/lookbook/looks/{id}/develop-lock",
        example: "",
        statuses: &[202],
        id: "/jobId",
        targets: &["GET /api/toolkit/jobs/{id}", "POST /api/toolkit/jobs/{id}/cancel"],
    },
    CreateLinks {
        source: "POST /api/toolkit/brand/marks",
        example: r#"{"assetId": "ast_example", "material": "woven label", "placement": "inside collar"}"#,
        statuses: &[201],
        id: "/mark/id",
        targets: &["PATCH /api/toolkit/brand/marks/{id}", "DELETE /api/toolkit/brand/marks/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/pipelines/presets",
        example: r#"{"name": "Cut and enlarge", "nodes": [{"id": "cut", "tool": "packshot", "quality": "1k", "inputs": {"image": {"item": "image"}}}, {"id": "big", "tool": "upscale", "quality": "2k", "inputs": {"image": {"node": "cut"}}}]}"#,
        statuses: &[201],
        id: "/preset/id",
        targets: &["PATCH /api/toolkit/pipelines/presets/{id}", "DELETE /api/toolkit/pipelines/presets/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/pipelines/runs",
        example: r#"{"plan": {"name": "Enlarge", "nodes": [{"id": "big", "tool": "upscale", "quality": "1k", "inputs": {"image": {"item": "image"}}}]}, "items": [{"image": "ast_example"}]}"#,
        statuses: &[202],
        id: "/runId",
        targets: &["GET /api/toolkit/pipelines/runs/{id}", "POST /api/toolkit/pipelines/runs/{id}/cancel"],
    },
    CreateLinks {
        source: "POST /api/toolkit/pipelines/runs",
        example: "",
        statuses: &[202],
        id: "/developId",
        targets: &["POST /api/toolkit/develops/{id}/cancel"],
    },
    CreateLinks {
        source: "POST /api/toolkit/jobs/submit",
        example: "",
        statuses: &[202],
        id: "/jobId",
        targets: &[
            "GET /api/toolkit/jobs/{id}",
            "POST /api/toolkit/jobs/{id}/cancel",
            "POST /api/toolkit/jobs/{id}/duplicate",
        ],
    },
    CreateLinks {
        source: "POST /api/toolkit/jobs/{id}/duplicate",
        example: "",
        statuses: &[202],
        id: "/jobId",
        targets: &["GET /api/toolkit/jobs/{id}", "POST /api/toolkit/jobs/{id}/cancel"],
    },
    CreateLinks {
        source: "POST /api/toolkit/assets/pack",
        example: r#"{"assetIds": ["ast_example"]}"#,
        statuses: &[200, 202],
        id: "/packId",
        targets: &["GET /api/toolkit/packs/{id}", "GET /api/toolkit/packs/{id}/file"],
    },
    CreateLinks {
        source: "POST /api/toolkit/models/own",
        example: r#"{"name": "Ada", "assetIds": ["ast_example"]}"#,
        statuses: &[201],
        id: "/model/id",
        targets: &[
            "GET /api/toolkit/models/{id}",
            "PATCH /api/toolkit/models/{id}",
            "POST /api/toolkit/models/{id}/checkout",
        ],
    },
    CreateLinks {
        source: "POST /posts",
        example: r#"{"title": "Spring shoot", "body": "Coats on Monday, knitwear on Tuesday."}"#,
        statuses: &[201],
        id: "/id",
        targets: &["GET /posts/{id}", "PATCH /posts/{id}", "DELETE /posts/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/chat/sessions",
        example: r#"{"title": "Spring coats"}"#,
        statuses: &[201],
        id: "/id",
        targets: &["GET /api/toolkit/chat/sessions/{id}/turns", "POST /api/toolkit/chat/sessions/{id}/turns"],
    },
    CreateLinks {
        source: "POST /api/toolkit/support/tickets",
        example: r#"{"subject": "A grey develop", "body": "The develop of my wool coat came back grey.", "topic": "develop", "needsReply": true}"#,
        statuses: &[201],
        id: "/id",
        targets: &["GET /api/toolkit/support/tickets/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/support/screenshots",
        example: "",
        statuses: &[201],
        id: "/id",
        targets: &["GET /api/toolkit/support/screenshots/{id}"],
    },
    CreateLinks {
        source: "POST /api/account/memory",
        example: r#"{"statement": "The house shoots coats on a warm grey ground.", "scope": "house", "memoryClass": "fact"}"#,
        statuses: &[200, 201],
        id: "/id",
        targets: &["DELETE /api/account/memory/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/admin/tool-items",
        example: r#"{"tool_id": "lookbook", "category": "poses", "title_he": "Standing, three quarters"}"#,
        statuses: &[201],
        id: "/id",
        targets: &["DELETE /api/toolkit/admin/tool-items/{id}"],
    },
    CreateLinks {
        source: "POST /api/toolkit/admin/offerings",
        example: r#"{"name": "Ada", "kind": "model", "assetIds": ["ast_example"]}"#,
        statuses: &[201],
        id: "/offering/id",
        targets: &["POST /api/toolkit/admin/offerings/{id}/retire"],
    },
    CreateLinks {
        source: "POST /api/toolkit/admin/replay/evidence",
        example: r#"{"jobId": "job_example"}"#,
        statuses: &[200],
        id: "/evidence/id",
        targets: &["GET /api/toolkit/admin/replay/evidence/{id}"],
    },
];

/// The operation `METHOD path` names in `api`, if it is documented.
fn operation_mut<'a>(api: &'a mut OpenApi, route: &str) -> Option<&'a mut aide::openapi::Operation> {
    let (method, path) = route.split_once(' ')?;
    let aide::openapi::ReferenceOr::Item(item) = api.paths.as_mut()?.paths.get_mut(path)? else { return None };
    match method {
        "GET" => item.get.as_mut(),
        "POST" => item.post.as_mut(),
        "PUT" => item.put.as_mut(),
        "PATCH" => item.patch.as_mut(),
        "DELETE" => item.delete.as_mut(),
        _ => None,
    }
}

/// Add [`LINKS`] to the document: each create operation's request example, and on its answers
/// one link per target,
/// named `method.path` (`patch.api.toolkit.folders.id`), with an `operationRef`
/// (`#/paths/~1api~1toolkit~1folders~1%7Bid%7D/patch`: operations have no `operationId`) and
/// `parameters: {id: $response.body#<pointer>}`. A row whose operation is
/// not documented adds nothing (tests/api/docs.rs checks every row took).
fn link(api: &mut OpenApi) {
    use aide::openapi::{Link, LinkOperation, ReferenceOr, StatusCode};
    for row in LINKS {
        let links: Vec<(String, Link)> = row
            .targets
            .iter()
            .filter_map(|target| {
                let (method, path) = target.split_once(' ')?;
                let name = format!("{}{}", method.to_lowercase(), path.replace(['{', '}'], "").replace('/', "."));
                // A JSON Pointer (`~1` for `/`) in a URI fragment (`%7B` and `%7D` for the braces).
                let pointer = path.replace('~', "~0").replace('/', "~1").replace('{', "%7B").replace('}', "%7D");
                let mut link = Link {
                    description: Some(format!("`{target}` on what this answer made (its id at `{}`)", row.id)),
                    operation: LinkOperation::OperationRef(format!("#/paths/{pointer}/{}", method.to_lowercase())),
                    request_body: None,
                    parameters: Default::default(),
                    server: None,
                    extensions: Default::default(),
                };
                link.parameters.insert("id".to_string(), format!("$response.body#{}", row.id).into());
                Some((name, link))
            })
            .collect();
        let Some(op) = operation_mut(api, row.source) else { continue };
        if let (Ok(example), Some(ReferenceOr::Item(body))) =
            (serde_json::from_str::<serde_json::Value>(row.example), op.request_body.as_mut())
            && let Some(json) = body.content.get_mut("application/json")
        {
            json.example = Some(example);
        }
        let Some(responses) = op.responses.as_mut() else { continue };
        for status in row.statuses {
            let Some(ReferenceOr::Item(response)) = responses.responses.get_mut(&StatusCode::Code(*status)) else {
                continue;
            };
            for (name, link) in &links {
                response.links.insert(name.clone(), ReferenceOr::Item(link.clone()));
            }
        }
    }
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
