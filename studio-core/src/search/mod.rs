//! House-wide search (issue 23) on the view `studio.search()`: one query over the house's assets,
//! looks, models, memories, tickets and pipeline presets, answered from the full-text index the
//! database keeps in step with every write (migrations 0026; storage/search.rs). Every role may
//! search, by session or key; what one may find is the house's, plus the caller's own personal
//! memories (a session's person; a key has none) and the caller's own tickets, as support's own
//! list shows them. Designed in docs/search.md; the highlight is in `highlight.rs`.

mod highlight;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::api::{
    AssetKind, DEFAULT_SEARCH_PAGE, MAX_SEARCH_PAGE, MAX_SEARCH_QUERY, MAX_SEARCH_WORDS, SearchKind, SearchQuery,
    SearchResult, SearchResults,
};
use crate::caller::Caller;
use crate::error::{Error, Result};
use crate::storage::{SearchHitRow, SearchScope};

crate::studio::view! {
    /// The view of search.
    Search over SearchStore
}

/// The query's words: runs of letters and digits, lowercased, each once, in order. 400
/// `QUERY_REQUIRED` when there is none, `TOO_LONG` past [`MAX_SEARCH_QUERY`] characters or
/// [`MAX_SEARCH_WORDS`] words.
pub(crate) fn words(q: Option<&str>) -> Result<Vec<String>> {
    let q = q.map(str::trim).unwrap_or_default();
    if q.is_empty() {
        return Err(Error::invalid("QUERY_REQUIRED", "Say what to search for in q."));
    }
    if q.chars().count() > MAX_SEARCH_QUERY {
        return Err(Error::invalid("TOO_LONG", format!("q is at most {MAX_SEARCH_QUERY} characters."))
            .with("max", MAX_SEARCH_QUERY));
    }
    let mut words: Vec<String> = Vec::new();
    for word in q.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    if words.is_empty() {
        return Err(Error::invalid("QUERY_REQUIRED", "q has no letters or digits to search for."));
    }
    if words.len() > MAX_SEARCH_WORDS {
        return Err(Error::invalid("TOO_LONG", format!("q has at most {MAX_SEARCH_WORDS} words."))
            .with("maxWords", MAX_SEARCH_WORDS));
    }
    Ok(words)
}

/// The kinds asked for (all when `kinds` is absent or blank), in the documented order. 400
/// `BAD_KINDS` for a name that is not a kind.
pub(crate) fn kinds(kinds: Option<&str>) -> Result<Vec<SearchKind>> {
    let mut asked = Vec::new();
    for name in kinds.unwrap_or_default().split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let kind = SearchKind::parse(&name.to_ascii_lowercase()).ok_or_else(|| {
            Error::invalid(
                "BAD_KINDS",
                format!("{name} is not a kind: kinds is a comma list of asset, look, model, memory, ticket, preset."),
            )
            .with("allowed", SearchKind::ALL.map(SearchKind::as_str))
        })?;
        if !asked.contains(&kind) {
            asked.push(kind);
        }
    }
    if asked.is_empty() {
        return Ok(SearchKind::ALL.to_vec());
    }
    asked.sort();
    Ok(asked)
}

/// The page size: 1 to [`MAX_SEARCH_PAGE`], [`DEFAULT_SEARCH_PAGE`] when absent. 400 `BAD_LIMIT`.
fn page_limit(limit: Option<&str>) -> Result<i64> {
    let Some(raw) = limit.map(str::trim).filter(|l| !l.is_empty()) else {
        return Ok(i64::from(DEFAULT_SEARCH_PAGE));
    };
    match raw.parse::<u32>() {
        Ok(n) if (1..=MAX_SEARCH_PAGE).contains(&n) => Ok(i64::from(n)),
        _ => Err(Error::invalid("BAD_LIMIT", format!("limit is 1 to {MAX_SEARCH_PAGE}.")).with("max", MAX_SEARCH_PAGE)),
    }
}

/// What ties a cursor to the query that made it: the words and kinds, hashed short.
fn fingerprint(words: &[String], kinds: &[SearchKind]) -> String {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    crate::ids::sha256_hex(&format!("{}\n{}", words.join(" "), kinds.join(",")))[..12].to_string()
}

/// The cursor after a row: its score's bits, its id and the query's fingerprint.
fn next_cursor(row: &SearchHitRow, print: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{:016x}|{}|{print}", row.score.to_bits(), row.ref_id))
}

/// A cursor we gave for this query, as `(score, id)`. 400 `BAD_CURSOR` otherwise.
fn read_cursor(cursor: Option<&str>, print: &str) -> Result<Option<(f64, String)>> {
    let Some(cursor) = cursor.map(str::trim).filter(|c| !c.is_empty()) else { return Ok(None) };
    let bad = || {
        Error::invalid(
            "BAD_CURSOR",
            "That cursor is not one this search gave: pass nextCursor with the same q and kinds.",
        )
    };
    let text = URL_SAFE_NO_PAD.decode(cursor).ok().and_then(|b| String::from_utf8(b).ok()).ok_or_else(bad)?;
    let mut parts = text.splitn(3, '|');
    let (Some(bits), Some(id), Some(theirs)) = (parts.next(), parts.next(), parts.next()) else { return Err(bad()) };
    let score = u64::from_str_radix(bits, 16).map(f64::from_bits).map_err(|_| bad())?;
    if theirs != print || id.is_empty() || !score.is_finite() {
        return Err(bad());
    }
    Ok(Some((score, id.to_string())))
}

impl Search<'_> {
    /// `GET /api/toolkit/search`: a page of what the caller may see in the house that matches
    /// every word of `q` as a prefix, best first (ties by id). Any role. 400 `QUERY_REQUIRED`,
    /// `TOO_LONG`, `BAD_KINDS`, `BAD_LIMIT`, `BAD_CURSOR`.
    pub async fn query(&self, caller: &Caller, query: SearchQuery) -> Result<SearchResults> {
        let words = words(query.q.as_deref())?;
        let kinds = kinds(query.kinds.as_deref())?;
        let limit = page_limit(query.limit.as_deref())?;
        let print = fingerprint(&words, &kinds);
        let after = read_cursor(query.cursor.as_deref(), &print)?;
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        let person = crate::accounts::memory::person_of(caller);
        let scope = SearchScope {
            org_id: &caller.org_id,
            kinds: &names,
            memory_person: &person,
            ticket_person: &caller.user_id,
        };
        let after_ref = after.as_ref().map(|(score, id)| (*score, id.as_str()));
        let mut rows = self.store.search(&scope, &words, after_ref, limit + 1).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = more.then(|| rows.last().map(|r| next_cursor(r, &print))).flatten();
        let results = rows.into_iter().filter_map(|row| self.result(row, &words)).collect();
        Ok(SearchResults { results, next_cursor })
    }

    /// A row as the wire shows it; None for a kind this build does not know (never written by
    /// the index's triggers).
    fn result(&self, row: SearchHitRow, words: &[String]) -> Option<SearchResult> {
        let kind = SearchKind::parse(&row.kind)?;
        let fields: Vec<(&str, &str)> = match kind {
            SearchKind::Asset => {
                [("title", Some(row.title.as_str())), ("sku", row.sku.as_deref()), ("folder", row.folder.as_deref())]
                    .into_iter()
                    .filter_map(|(f, t)| Some((f, t?)))
                    .collect()
            }
            SearchKind::Memory | SearchKind::Preset => vec![("title", row.title.as_str())],
            _ => vec![("title", row.title.as_str()), ("body", row.body.as_str())],
        };
        let highlight = highlight::highlight(&fields, words);
        let mut result = SearchResult {
            kind,
            title: row.title.clone(),
            highlight,
            score: row.score,
            created_at: row.created_at,
            url: None,
            asset_kind: None,
            sku: None,
            folder_id: None,
            folder: None,
            status: None,
            scope: None,
            id: row.ref_id,
        };
        match kind {
            SearchKind::Asset => {
                result.url = Some(self.studio.library().asset_file_url(&result.id));
                result.asset_kind = row.tag.as_deref().and_then(AssetKind::parse);
                result.sku = row.sku;
                result.folder_id = row.folder_id.map(String::from);
                result.folder = row.folder;
            }
            SearchKind::Look | SearchKind::Ticket => result.status = row.tag,
            SearchKind::Memory => result.scope = row.tag,
            SearchKind::Model | SearchKind::Preset => {}
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(e: Error) -> String {
        e.code.to_string()
    }

    #[test]
    fn words_are_letter_and_digit_runs_lowercased_once() {
        assert_eq!(words(Some("  Silk-dress SS27_01 silk ")).unwrap(), ["silk", "dress", "ss27", "01"]);
        assert_eq!(words(Some("Été")).unwrap(), ["été"]);
        assert_eq!(code(words(None).unwrap_err()), "QUERY_REQUIRED");
        assert_eq!(code(words(Some("   ")).unwrap_err()), "QUERY_REQUIRED");
        assert_eq!(code(words(Some("-- !! *")).unwrap_err()), "QUERY_REQUIRED");
        assert_eq!(code(words(Some(&"a".repeat(MAX_SEARCH_QUERY + 1))).unwrap_err()), "TOO_LONG");
        let many: Vec<String> = (0..=MAX_SEARCH_WORDS).map(|i| format!("w{i}")).collect();
        assert_eq!(code(words(Some(&many.join(" "))).unwrap_err()), "TOO_LONG");
    }

    #[test]
    fn kinds_default_to_all_and_refuse_unknown_names() {
        assert_eq!(kinds(None).unwrap(), SearchKind::ALL.to_vec());
        assert_eq!(kinds(Some(" , ")).unwrap(), SearchKind::ALL.to_vec());
        assert_eq!(kinds(Some("ticket, Asset,asset")).unwrap(), [SearchKind::Asset, SearchKind::Ticket]);
        assert_eq!(code(kinds(Some("asset,folder")).unwrap_err()), "BAD_KINDS");
    }

    #[test]
    fn cursors_belong_to_their_query() {
        let row = SearchHitRow {
            kind: "asset".into(),
            ref_id: "ast_1".into(),
            title: String::new(),
            body: String::new(),
            sku: None,
            folder_id: None,
            folder: None,
            tag: None,
            created_at: chrono::Utc::now(),
            score: 0.123_456_789,
        };
        let print = fingerprint(&["silk".into()], &[SearchKind::Asset]);
        let cursor = next_cursor(&row, &print);
        assert_eq!(read_cursor(Some(&cursor), &print).unwrap(), Some((0.123_456_789, "ast_1".to_string())));
        let other = fingerprint(&["silk".into()], &SearchKind::ALL);
        assert_eq!(code(read_cursor(Some(&cursor), &other).unwrap_err()), "BAD_CURSOR");
        assert_eq!(code(read_cursor(Some("not a cursor"), &print).unwrap_err()), "BAD_CURSOR");
        assert_eq!(read_cursor(Some(" "), &print).unwrap(), None);
        assert_eq!(code(page_limit(Some("51")).unwrap_err()), "BAD_LIMIT");
        assert_eq!(code(page_limit(Some("x")).unwrap_err()), "BAD_LIMIT");
        assert_eq!(page_limit(None).unwrap(), 20);
    }
}
