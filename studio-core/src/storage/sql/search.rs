//! The SQL of search ([`SearchStore`](crate::storage::SearchStore)). The index itself is kept by
//! the triggers of migration 0026; this file only reads it (and seeds a benchmark house). The two
//! backends match differently (FTS5 `MATCH` ranked by bm25 against a `tsvector` `@@` ranked by
//! ts_rank), so each statement comes in two spellings chosen by `$backend`; the filters, the
//! order and the page are the same.

/// Every word as a quoted FTS5 prefix term, all required: `"silk"* AND "dre"*`. Words are
/// letters and digits only; quoting keeps any of them from reading as FTS5 syntax.
pub(in crate::storage) fn fts5_query(words: &[String]) -> String {
    words.iter().map(|w| format!("\"{}\"*", w.replace('"', "\"\""))).collect::<Vec<_>>().join(" AND ")
}

/// Every word as a quoted tsquery prefix lexeme, all required: `'silk':* & 'dre':*`.
pub(in crate::storage) fn ts_query(words: &[String]) -> String {
    words.iter().map(|w| format!("'{}':*", w.replace('\\', "\\\\").replace('\'', "''"))).collect::<Vec<_>>().join(" & ")
}

/// The kinds as the `LIKE` haystack the statements test each document's kind against:
/// `,asset,look,`.
pub(in crate::storage) fn kinds_list(kinds: &[&str]) -> String {
    format!(",{},", kinds.join(","))
}

/// The filters both backends share, on documents `d` with score `score`: `$2` house, `$3` kinds
/// list, `$4` memory person, `$5` ticket person, `$6`/`$7` the cursor.
macro_rules! search_filters {
    () => {
        "d.org_id = $2 AND $3 LIKE '%,' || d.kind || ',%' \
         AND (d.owner_id IS NULL OR (d.kind = 'memory' AND d.owner_id = $4) \
              OR (d.kind = 'ticket' AND d.owner_id = $5))"
    };
}

/// The vocabulary benchmark assets are named from (JSON arrays both backends index by `i`).
macro_rules! seed_words {
    (garments) => {
        r#"["dress","coat","shirt","skirt","trousers","jacket","scarf","blouse","cardigan","gown","blazer","jeans","parka","hoodie","tote","loafer","boot","sandal","belt","beret"]"#
    };
    (colours) => {
        r#"["ivory","black","navy","camel","olive","burgundy","blush","charcoal","sage","cobalt","rust","sand","plum"]"#
    };
    (fabrics) => {
        r#"["silk","wool","linen","cotton","denim","leather","cashmere"]"#
    };
}

pub(in crate::storage) use {search_filters, seed_words};

macro_rules! impl_search_store {
    ($ty:ty, $backend:literal, $lock:literal, $skip_locked:literal, $one_statement:literal, $lock_by_select:literal) => {
        #[async_trait::async_trait]
        impl $crate::storage::SearchStore for $ty {
            async fn search(
                &self,
                scope: &$crate::storage::SearchScope<'_>,
                words: &[String],
                after: Option<(f64, &str)>,
                limit: i64,
            ) -> Result<Vec<$crate::storage::SearchHitRow>, $crate::storage::StorageError> {
                use $crate::storage::sql::search::{fts5_query, kinds_list, ts_query};
                let sqlite = $backend == "sqlite";
                let (statement, matching) = if sqlite {
                    (
                        concat!(
                            "SELECT d.kind, d.ref_id, d.title, d.body, d.sku, d.folder_id, d.folder, d.tag, \
                             d.created_at, s.score \
                             FROM (SELECT rowid AS doc_id, -bm25(search_fts, 10.0, 1.0) AS score \
                                   FROM search_fts WHERE search_fts MATCH $1) s \
                             JOIN search_docs d ON d.id = s.doc_id WHERE ",
                            $crate::storage::sql::search::search_filters!(),
                            " AND ($6 IS NULL OR s.score < $6 OR (s.score = $6 AND d.ref_id > $7)) \
                             ORDER BY s.score DESC, d.ref_id LIMIT $8"
                        ),
                        fts5_query(words),
                    )
                } else {
                    (
                        concat!(
                            "SELECT kind, ref_id, title, body, sku, folder_id, folder, tag, created_at, score FROM \
                             (SELECT d.kind, d.ref_id, d.title, d.body, d.sku, d.folder_id, d.folder, d.tag, \
                                     d.created_at, ts_rank(d.doc, q.query, 1)::float8 AS score \
                              FROM search_docs d, (SELECT to_tsquery('simple', $1) AS query) q \
                              WHERE d.doc @@ q.query AND ",
                            $crate::storage::sql::search::search_filters!(),
                            ") s WHERE ($6::float8 IS NULL OR s.score < $6 \
                               OR (s.score = $6 AND s.ref_id COLLATE \"C\" > $7)) \
                             ORDER BY s.score DESC, s.ref_id COLLATE \"C\" LIMIT $8"
                        ),
                        ts_query(words),
                    )
                };
                let (score, id) = match after {
                    Some((score, id)) => (Some(score), Some(id)),
                    None => (None, None),
                };
                Ok(sqlx::query_as(statement)
                    .bind(matching)
                    .bind(scope.org_id)
                    .bind(kinds_list(scope.kinds))
                    .bind(scope.memory_person)
                    .bind(scope.ticket_person)
                    .bind(score)
                    .bind(id)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn seed_assets(&self, org_id: &OrgId, count: i64) -> Result<u64, $crate::storage::StorageError> {
                let _w = self.write_lock().await;
                let statement = if $backend == "sqlite" {
                    concat!(
                        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1) \
                         INSERT INTO assets (id, org_id, name, sku, kind, mime, blob_key, sha256, bytes, width, \
                                             height, created_at) \
                         SELECT 'ast_' || substr($2, 5) || printf('_%08d', i), $2, \
                                'SS27 ' || json_extract('",
                        $crate::storage::sql::search::seed_words!(fabrics),
                        "', '$[' || (i % 7) || ']') || ' ' || json_extract('",
                        $crate::storage::sql::search::seed_words!(garments),
                        "', '$[' || (i % 20) || ']') || ' ' || json_extract('",
                        $crate::storage::sql::search::seed_words!(colours),
                        "', '$[' || (i % 13) || ']') || ' ' || i, \
                                printf('SS27-%07d', i), 'clothes', 'image/png', 'seed/' || $2 || '/' || i, \
                                printf('%064x', i), 4096, 8, 8, \
                                strftime('%Y-%m-%dT%H:%M:%S+00:00', '2025-01-01', '+' || i || ' seconds') \
                         FROM n"
                    )
                } else {
                    concat!(
                        "INSERT INTO assets (id, org_id, name, sku, kind, mime, blob_key, sha256, bytes, width, \
                                             height, created_at) \
                         SELECT 'ast_' || substr($2, 5) || '_' || lpad(i::text, 8, '0'), $2, \
                                'SS27 ' || ('",
                        $crate::storage::sql::search::seed_words!(fabrics),
                        "'::jsonb ->> (i % 7)::int) || ' ' || ('",
                        $crate::storage::sql::search::seed_words!(garments),
                        "'::jsonb ->> (i % 20)::int) || ' ' || ('",
                        $crate::storage::sql::search::seed_words!(colours),
                        "'::jsonb ->> (i % 13)::int) || ' ' || i, \
                                'SS27-' || lpad(i::text, 7, '0'), 'clothes', 'image/png', \
                                'seed/' || $2 || '/' || i, lpad(to_hex(i), 64, '0'), 4096, 8, 8, \
                                TIMESTAMPTZ '2025-01-01 00:00:00+00' + make_interval(secs => i) \
                         FROM generate_series(1::bigint, $1::bigint) AS i"
                    )
                };
                let done = sqlx::query(statement)
                    .bind(count)
                    .bind(org_id)
                    .execute(&self.pool)
                    .await
                    .map_err($crate::storage::sql::unique_as("asset id"))?;
                Ok(done.rows_affected())
            }
        }
    };
}

pub(in crate::storage) use impl_search_store;
