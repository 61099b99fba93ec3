//! `/api/toolkit/ai/...` route groups.

mod billing;
mod preflight;
mod test_checkout;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(billing::router()).merge(preflight::router()).merge(test_checkout::router())
}
