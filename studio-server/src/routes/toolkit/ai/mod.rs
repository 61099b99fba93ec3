//! `/api/toolkit/ai/...` route groups.

mod billing;
mod preflight;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(billing::router()).merge(preflight::router())
}
