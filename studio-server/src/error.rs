//! The one error mapping of the HTTP frontend: core errors become the shared envelope
//! `{"error": "CODE", "message": "…", …extra}` with the status their kind names (and
//! `WWW-Authenticate` on 401, `Retry-After` on 429). The extractors that reject with this
//! envelope are in extract.rs; other answers in respond.rs.

use aide::OperationOutput;
use aide::generate::GenContext;
use aide::openapi::{Operation, Response as ApiResponse, StatusCode as ApiStatus};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use studio_core::api::ErrorBody;
use studio_core::{Error, ErrorKind};

/// A refusal or failure on its way to the client.
#[derive(Debug)]
pub(crate) struct AppError(pub(crate) Error);

impl From<Error> for AppError {
    fn from(e: Error) -> Self {
        AppError(e)
    }
}

/// The status of a kind, from the core's one table (`ErrorKind::http_status`).
fn status_of(kind: ErrorKind) -> StatusCode {
    StatusCode::from_u16(kind.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let retry_after = self.0.retry_after();
        let Error { kind, code, message, extra } = self.0;
        let body = ErrorBody { error: code.to_string(), message, extra };
        let mut response = (status_of(kind), axum::Json(body)).into_response();
        match (kind, retry_after) {
            (ErrorKind::Unauthenticated, _) => {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            (ErrorKind::RateLimited, Some(secs)) => {
                response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            }
            _ => {}
        }
        response
    }
}

impl OperationOutput for AppError {
    type Inner = ErrorBody;

    fn operation_response(ctx: &mut GenContext, operation: &mut Operation) -> Option<ApiResponse> {
        let mut res = <axum::Json<ErrorBody> as OperationOutput>::operation_response(ctx, operation)?;
        res.description = "Refusal: `{error: CODE, message, ...extra}`".to_string();
        Some(res)
    }

    fn inferred_responses(ctx: &mut GenContext, operation: &mut Operation) -> Vec<(Option<ApiStatus>, ApiResponse)> {
        Self::operation_response(ctx, operation).map(|r| vec![(None, r)]).unwrap_or_default()
    }
}

/// The answer for a path nothing serves (the console's fallback ends here): 404 in the shared envelope.
pub(crate) fn no_route() -> AppError {
    AppError(Error::not_found("NOT_FOUND", "No such route."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_answers_the_status_it_always_did() {
        for (kind, status) in [
            (ErrorKind::Invalid, StatusCode::BAD_REQUEST),
            (ErrorKind::Unauthenticated, StatusCode::UNAUTHORIZED),
            (ErrorKind::InsufficientTokens, StatusCode::PAYMENT_REQUIRED),
            (ErrorKind::Forbidden, StatusCode::FORBIDDEN),
            (ErrorKind::NotFound, StatusCode::NOT_FOUND),
            (ErrorKind::Conflict, StatusCode::CONFLICT),
            (ErrorKind::Gone, StatusCode::GONE),
            (ErrorKind::TooLarge, StatusCode::PAYLOAD_TOO_LARGE),
            (ErrorKind::UnsupportedMedia, StatusCode::UNSUPPORTED_MEDIA_TYPE),
            (ErrorKind::Unprocessable, StatusCode::UNPROCESSABLE_ENTITY),
            (ErrorKind::RateLimited, StatusCode::TOO_MANY_REQUESTS),
            (ErrorKind::Upstream, StatusCode::BAD_GATEWAY),
            (ErrorKind::NotConfigured, StatusCode::SERVICE_UNAVAILABLE),
            (ErrorKind::Internal, StatusCode::INTERNAL_SERVER_ERROR),
        ] {
            assert_eq!(status_of(kind), status, "{kind:?}");
        }
    }
}
