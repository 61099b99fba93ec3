//! The request extractors and the JSON answer every route shares: a JSON body, an optional
//! JSON body and a path parameter whose rejections are the shared error envelope (code
//! `BAD_BODY`, `BAD_JSON` for the AI lanes, or `BAD_PATH`), so a malformed request is answered like every other refusal.

use aide::generate::GenContext;
use aide::openapi::{Operation, Response as ApiResponse, StatusCode as ApiStatus};
use aide::{OperationInput, OperationOutput};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use studio_core::Error;

use crate::error::AppError;

mod strict;

/// A JSON body whose rejection (malformed JSON, wrong shape, wrong content type) is the shared
/// envelope with code `BAD_BODY`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ApiJson<T>(pub(crate) T);

/// Read a JSON object body into `T`, refusing with `code` (malformed JSON, wrong shape, wrong
/// content type, not an object, an array where the document says object: see [`strict`]).
async fn json_body<T: DeserializeOwned, S: Send + Sync>(
    req: Request,
    state: &S,
    code: &'static str,
) -> Result<T, AppError> {
    let bad = |message: String| AppError(Error::invalid(code, message));
    let value = match axum::Json::<serde_json::Value>::from_request(req, state).await {
        Ok(axum::Json(value)) => value,
        Err(rejection) => return Err(bad(rejection.body_text())),
    };
    // Every JSON body of the API is an object; serde would otherwise read `[]` as a struct.
    if !value.is_object() {
        return Err(bad("The body must be a JSON object.".to_string()));
    }
    strict::from_value(value).map_err(|e| bad(format!("The body does not fit this route: {e}")))
}

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        json_body(req, state, "BAD_BODY").await.map(ApiJson)
    }
}

/// A JSON body read as [`ApiJson`] reads it, refused with code `BAD_JSON` (the AI lanes' and
/// text tools' code, `02-route-groups.md` §4.1–4.2).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LaneJson<T>(pub(crate) T);

impl<T, S> FromRequest<S> for LaneJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        json_body(req, state, "BAD_JSON").await.map(LaneJson)
    }
}

impl<T: JsonSchema> OperationInput for LaneJson<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        <axum::Json<T> as OperationInput>::operation_input(ctx, operation);
    }
}

/// A JSON body that may be left out: an empty body reads as `T::default()`; anything else is
/// read as [`ApiJson`] reads it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OptionalJson<T>(pub(crate) T);

impl<T, S> FromRequest<S> for OptionalJson<T>
where
    T: DeserializeOwned + Default,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::Bytes::from_request(req, state)
            .await
            .map_err(|e| AppError(Error::invalid("BAD_BODY", e.body_text())))?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        let value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| AppError(Error::invalid("BAD_BODY", format!("The body is not JSON: {e}"))))?;
        if !value.is_object() {
            return Err(AppError(Error::invalid("BAD_BODY", "The body must be a JSON object.")));
        }
        strict::from_value(value)
            .map(OptionalJson)
            .map_err(|e| AppError(Error::invalid("BAD_BODY", format!("The body does not fit this route: {e}"))))
    }
}

impl<T: JsonSchema> OperationInput for OptionalJson<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        <axum::Json<T> as OperationInput>::operation_input(ctx, operation);
        if let Some(aide::openapi::ReferenceOr::Item(body)) = operation.request_body.as_mut() {
            body.required = false;
        }
    }
}

impl<T: JsonSchema> OperationInput for ApiJson<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        <axum::Json<T> as OperationInput>::operation_input(ctx, operation);
    }
}

impl<T: Serialize> IntoResponse for ApiJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

impl<T: JsonSchema> OperationOutput for ApiJson<T> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        <axum::Json<T> as OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        Self::operation_response(ctx, operation).map(|r| vec![(Some(ApiStatus::Code(200)), r)]).unwrap_or_default()
    }
}

/// A path parameter whose rejection is the shared envelope.
#[derive(Debug)]
pub(crate) struct ApiPath<T>(pub(crate) T);

impl<T, S> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(ApiPath(v)),
            Err(rejection) => Err(AppError(Error::invalid("BAD_PATH", rejection.body_text()))),
        }
    }
}

impl<T: JsonSchema> OperationInput for ApiPath<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        <axum::extract::Path<T> as OperationInput>::operation_input(ctx, operation);
    }
}

/// The Standard Webhooks headers of a request (the payment and mail webhooks).
pub(crate) fn webhook_headers(headers: &axum::http::HeaderMap) -> studio_core::WebhookHeaders {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    studio_core::WebhookHeaders {
        id: get("webhook-id"),
        timestamp: get("webhook-timestamp"),
        signature: get("webhook-signature"),
    }
}

/// A query string whose rejection is the shared envelope: 400 `BAD_QUERY` naming what did not
/// fit, never axum's plain-text answer.
#[derive(Debug)]
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<T, S> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(rejection) => Err(AppError(Error::invalid("BAD_QUERY", rejection.body_text()))),
        }
    }
}

impl<T: JsonSchema> OperationInput for ApiQuery<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        <axum::extract::Query<T> as OperationInput>::operation_input(ctx, operation);
    }
}
