//! `/api/toolkit/...` route groups.

mod admin;
mod ai;
mod check_email;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(check_email::router()).merge(ai::router()).merge(admin::router())
}
