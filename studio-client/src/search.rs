//! House-wide search through the client (issue 23): `GET /api/toolkit/search`, one page of the
//! house's assets, looks, models, memories, tickets and presets matching a query, best first.

use studio_core::api::{SearchQuery, SearchResults};

use crate::client::{Client, query};
use crate::error::Error;

impl Client {
    /// `GET /api/toolkit/search?q&kinds&limit&cursor`: one page of results, best first; pass the
    /// answer's `next_cursor` as `cursor` (with the same `q` and `kinds`) for the next. 400
    /// `QUERY_REQUIRED`, `TOO_LONG`, `BAD_KINDS`, `BAD_LIMIT`, `BAD_CURSOR`. Retried like every
    /// `GET`.
    pub async fn search(&self, search: &SearchQuery) -> Result<SearchResults, Error> {
        let q = query(&[
            ("q", search.q.clone()),
            ("kinds", search.kinds.clone()),
            ("limit", search.limit.clone()),
            ("cursor", search.cursor.clone()),
        ]);
        let path = format!("/api/toolkit/search{q}");
        self.get(&path).await
    }
}
