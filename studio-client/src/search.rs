//! House-wide search through the client (issue 23): `GET /api/toolkit/search`, one page of the
//! house's assets, looks, models, memories, tickets and presets matching a query, best first.

use studio_core::api::{SearchQuery, SearchResults};

use crate::client::{Client, encode};
use crate::error::Error;

impl Client {
    /// `GET /api/toolkit/search?q&kinds&limit&cursor`: one page of results, best first; pass the
    /// answer's `next_cursor` as `cursor` (with the same `q` and `kinds`) for the next. 400
    /// `QUERY_REQUIRED`, `TOO_LONG`, `BAD_KINDS`, `BAD_LIMIT`, `BAD_CURSOR`. Retried like every
    /// `GET`.
    pub async fn search(&self, query: &SearchQuery) -> Result<SearchResults, Error> {
        let params: Vec<String> =
            [("q", &query.q), ("kinds", &query.kinds), ("limit", &query.limit), ("cursor", &query.cursor)]
                .into_iter()
                .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={}", encode(v))))
                .collect();
        let path = if params.is_empty() {
            "/api/toolkit/search".to_string()
        } else {
            format!("/api/toolkit/search?{}", params.join("&"))
        };
        self.get(&path).await
    }
}
