//! `/api/internal/...`: the machine routes (§4.13), each behind its own machine credential.

mod analyst;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(analyst::router())
}
