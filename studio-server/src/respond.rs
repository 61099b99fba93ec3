//! Answers with a status other than 200: `201 Created` (or `200` when an existing record was
//! amended), and `202 Accepted` (or `200` for a replayed request); and a `200` whose JSON the
//! core has already serialized ([`JsonBytes`]).

use aide::OperationOutput;
use aide::generate::GenContext;
use aide::openapi::{Operation, Response as ApiResponse, StatusCode as ApiStatus};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;

/// A JSON body answered with `201 Created`.
#[derive(Debug)]
pub(crate) struct Created<T>(pub(crate) T);

impl<T: Serialize> IntoResponse for Created<T> {
    fn into_response(self) -> Response {
        (StatusCode::CREATED, axum::Json(self.0)).into_response()
    }
}

impl<T: JsonSchema> OperationOutput for Created<T> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        <axum::Json<T> as OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        Self::operation_response(ctx, operation).map(|r| vec![(Some(ApiStatus::Code(201)), r)]).unwrap_or_default()
    }
}

/// A JSON body answered with `202 Accepted`, or `200 OK` when the request replayed an earlier
/// one (the second field).
#[derive(Debug)]
pub(crate) struct Accepted<T>(pub(crate) T, pub(crate) bool);

impl<T: Serialize> IntoResponse for Accepted<T> {
    fn into_response(self) -> Response {
        let status = if self.1 { StatusCode::OK } else { StatusCode::ACCEPTED };
        (status, axum::Json(self.0)).into_response()
    }
}

impl<T: JsonSchema> OperationOutput for Accepted<T> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        <axum::Json<T> as OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        Self::operation_response(ctx, operation).map(|r| vec![(Some(ApiStatus::Code(202)), r)]).unwrap_or_default()
    }
}

/// A JSON body answered with `201 Created`, or `200 OK` when the write amended what existed
/// (the second field), e.g. a memory correction.
#[derive(Debug)]
pub(crate) struct CreatedOrAmended<T>(pub(crate) T, pub(crate) bool);

impl<T: Serialize> IntoResponse for CreatedOrAmended<T> {
    fn into_response(self) -> Response {
        let status = if self.1 { StatusCode::OK } else { StatusCode::CREATED };
        (status, axum::Json(self.0)).into_response()
    }
}

impl<T: JsonSchema> OperationOutput for CreatedOrAmended<T> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        <axum::Json<T> as OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        let Some(r) = Self::operation_response(ctx, operation) else { return Vec::new() };
        vec![(Some(ApiStatus::Code(201)), r.clone()), (Some(ApiStatus::Code(200)), r)]
    }
}

/// A `200` JSON body the core serialized already (a kept answer's bytes), documented as `T`.
#[derive(Debug)]
pub(crate) struct JsonBytes<T>(pub(crate) axum::body::Bytes, pub(crate) std::marker::PhantomData<T>);

impl<T> JsonBytes<T> {
    /// Answer `json`, which must be a serialized `T`.
    pub(crate) fn new(json: axum::body::Bytes) -> Self {
        JsonBytes(json, std::marker::PhantomData)
    }
}

impl<T> IntoResponse for JsonBytes<T> {
    fn into_response(self) -> Response {
        ([(axum::http::header::CONTENT_TYPE, "application/json")], self.0).into_response()
    }
}

impl<T: JsonSchema> OperationOutput for JsonBytes<T> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        <axum::Json<T> as OperationOutput>::operation_response(ctx, operation)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        Self::operation_response(ctx, operation).map(|r| vec![(Some(ApiStatus::Code(200)), r)]).unwrap_or_default()
    }
}
