//! `/api/internal/...`: the machine routes (§4.13): the analyst's reads and actions, and the
//! replay renderers' queue. Each takes its own machine credential.

mod analyst;
mod replay_renders;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().merge(analyst::router()).merge(replay_renders::router())
}
