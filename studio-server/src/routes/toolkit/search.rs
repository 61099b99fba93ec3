//! `/api/toolkit/search`: one query over the house's assets, looks, models, memories, tickets
//! and pipeline presets, best first, paged by cursor (docs/search.md).

use aide::axum::ApiRouter;
use aide::axum::routing::get_with;
use axum::extract::State;
use studio_core::api::{SearchQuery, SearchResults};

use crate::auth::Auth;
use crate::error::AppError;
use crate::extract::{ApiJson, ApiQuery};
use crate::state::AppState;

async fn search(
    State(state): State<AppState>,
    Auth(caller): Auth,
    ApiQuery(query): ApiQuery<SearchQuery>,
) -> Result<ApiJson<SearchResults>, AppError> {
    Ok(ApiJson(state.studio.search().query(&caller, query).await?))
}

pub(super) fn router() -> ApiRouter<AppState> {
    ApiRouter::new().api_route(
        "/api/toolkit/search",
        get_with(search, |op| {
            op.summary("Search the house: assets, looks, models, memories, tickets, presets")
                .description(
                    "`{results: [{kind, id, title, highlight: {field, text, ranges: [{start, end}]}, score, \
                     createdAt, url?, assetKind?, sku?, folderId?, folder?, status?, scope?}], nextCursor?}`, best \
                     first (ties by id). `q` is split on anything but letters and digits; every word must start a \
                     word of the result (prefix match). `kinds` a comma list of asset, look, model, memory, \
                     ticket, preset (default all); `limit` 1-50 (default 20); `cursor` the nextCursor of the same \
                     query. Any role; memories are the house's and the caller's own personal ones (a session's), \
                     tickets the caller's own. Codes: 400 QUERY_REQUIRED, TOO_LONG (q past 200 characters or 12 \
                     words), BAD_KINDS, BAD_LIMIT, BAD_CURSOR, BAD_QUERY; 401.",
                )
                .tag("search")
        }),
    )
}
