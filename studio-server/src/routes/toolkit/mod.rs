//! `/api/toolkit/...` route groups.

mod admin;
mod ai;
mod assets;
mod check_email;
mod develops;
mod folders;
mod jobs;
mod packs;

use aide::axum::ApiRouter;

use crate::state::AppState;

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new()
        .merge(check_email::router())
        .merge(ai::router())
        .merge(admin::router())
        .merge(folders::router())
        .merge(assets::router())
        .merge(packs::router())
        .merge(jobs::router())
        .merge(develops::router())
}
