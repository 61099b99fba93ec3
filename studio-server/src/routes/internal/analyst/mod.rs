//! `/api/internal/analyst/...`: the analyst's reads (bearer analyst token; unset: 401 for
//! everyone), one file per read.

mod support;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(support::router())
}
