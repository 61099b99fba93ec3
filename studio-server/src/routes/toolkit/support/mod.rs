//! `/api/toolkit/support/...` (§4.11): a person's tickets and threads (`tickets.rs`) and the
//! screenshots they attach, read back through signed links (`screenshots.rs`).

mod screenshots;
mod tickets;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(tickets::router()).merge(screenshots::router())
}
