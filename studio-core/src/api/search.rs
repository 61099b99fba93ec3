//! House-wide search on the wire (issue 23): `GET /api/toolkit/search?q=&kinds=&limit=&cursor=`
//! answers the house's assets, looks, models, memories, tickets and pipeline presets that match
//! every word of `q` as a prefix, best first, a page at a time. Designed in docs/search.md.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::AssetKind;

/// Longest query, in characters.
pub const MAX_SEARCH_QUERY: usize = 200;
/// Most words a query may have.
pub const MAX_SEARCH_WORDS: usize = 12;
/// Results a page has when `limit` is not given.
pub const DEFAULT_SEARCH_PAGE: u32 = 20;
/// The most results one page has.
pub const MAX_SEARCH_PAGE: u32 = 50;

/// What a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// An image of the library.
    Asset,
    /// A look of the lookbook.
    Look,
    /// One of the house's own models.
    Model,
    /// An active memory: the house's, or the caller's own personal one.
    Memory,
    /// One of the caller's own support tickets.
    Ticket,
    /// A pipeline preset.
    Preset,
}

impl SearchKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [SearchKind; 6] = [
        SearchKind::Asset,
        SearchKind::Look,
        SearchKind::Model,
        SearchKind::Memory,
        SearchKind::Ticket,
        SearchKind::Preset,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            SearchKind::Asset => "asset",
            SearchKind::Look => "look",
            SearchKind::Model => "model",
            SearchKind::Memory => "memory",
            SearchKind::Ticket => "ticket",
            SearchKind::Preset => "preset",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<SearchKind> {
        SearchKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// `GET /api/toolkit/search` query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchQuery {
    /// The words to find (required): split on anything but letters and digits, each matched as
    /// the start of a word, all of them required. At most 200 characters and 12 words. An
    /// `Option` so that a missing one reaches the handler's own 400 `QUERY_REQUIRED`; the
    /// document still marks it required.
    #[schemars(required)]
    pub q: Option<String>,
    /// A comma list of kinds to search: asset, look, model, memory, ticket, preset (default:
    /// all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinds: Option<String>,
    /// Results per page, 1 to 50 (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The `nextCursor` of the previous page of the same query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// A run of matched characters in [`SearchHighlight::text`]: `start` inclusive, `end`
/// exclusive, both counted in Unicode scalar values (characters), not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HighlightRange {
    /// First matched character.
    pub start: u32,
    /// One past the last matched character.
    pub end: u32,
}

/// Why a result matched: a piece of one of its fields as plain text (never markup) and where
/// the query's words are in it. `ranges` is empty when the match lies elsewhere (an asset's
/// kind) or differs only by accents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHighlight {
    /// Which field the text is from: `title`, `sku`, `folder` or `body`.
    pub field: String,
    /// The field's text, cut to about 160 characters around the first match (with `…` where
    /// it was cut).
    pub text: String,
    /// The matched runs in `text`, in order, not overlapping.
    pub ranges: Vec<HighlightRange>,
}

/// One thing found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// What it is.
    pub kind: SearchKind,
    /// Its id (`ast_…`, `look_…`, `mdl_…`, `mem_…`, a ticket's or a preset's id).
    pub id: String,
    /// Its name: an asset's, look's, model's or preset's name, a memory's statement, a ticket's
    /// subject (or its summary when it has none).
    pub title: String,
    /// Why it matched.
    pub highlight: SearchHighlight,
    /// Relevance, higher is better; comparable only within one answer (it is the backend's
    /// bm25 or ts_rank).
    pub score: f64,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// Assets: the file route of the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Assets: the wardrobe bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_kind: Option<AssetKind>,
    /// Assets: the brand's own code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// Assets: the collection (absent at the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    /// Assets: the collection's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Looks: `draft` or `locked`; tickets: `new`, `open`, `pending`, `on_hold` or `resolved`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Memories: `house` or `person`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// `GET /api/toolkit/search`: best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    /// The page of results, best first (ties by id).
    pub results: Vec<SearchResult>,
    /// The cursor of the next page (pass it as `cursor` with the same `q` and `kinds`),
    /// absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}
