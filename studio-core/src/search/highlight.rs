//! Why a result matched, as plain text and ranges: the first of a result's fields in which a
//! word starts with one of the query's words, cut to a window around the first match. Nothing
//! here is markup, so a client renders a name like `<b>` as the text it is.

use crate::api::{HighlightRange, SearchHighlight};

/// The longest highlight text, in characters (plus the `…` marks where it was cut).
pub(crate) const SNIPPET_CHARS: usize = 160;
/// How much of the text before the first match a cut window keeps, in characters.
const LEAD_CHARS: usize = 40;

/// The matched runs of `text` (in characters): for each word of `text` (a run of letters and
/// digits) that starts with one of `words` (lowercase), the part the longest such word covers.
pub(crate) fn ranges(text: &str, words: &[String]) -> Vec<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_alphanumeric() {
            i += 1;
        }
        let token: String = chars[start..i].iter().flat_map(|c| c.to_lowercase()).collect();
        let Some(word) = words.iter().filter(|w| token.starts_with(w.as_str())).max_by_key(|w| w.len()) else {
            continue;
        };
        // How many of the token's own characters the word covers (lowercasing may change lengths).
        let (mut covered, mut bytes) = (0, 0);
        while bytes < word.len() && start + covered < i {
            bytes += chars[start + covered].to_lowercase().map(char::len_utf8).sum::<usize>();
            covered += 1;
        }
        out.push((start, start + covered));
    }
    out
}

/// The highlight of the first of `fields` (name, text) with a match, else of the first field
/// with no ranges.
pub(crate) fn highlight(fields: &[(&str, &str)], words: &[String]) -> SearchHighlight {
    let found = fields.iter().find_map(|(field, text)| {
        let r = ranges(text, words);
        (!r.is_empty()).then_some((*field, *text, r))
    });
    let (field, text, found) = match found {
        Some(hit) => hit,
        None => {
            let (field, text) = fields.first().copied().unwrap_or(("title", ""));
            (field, text, Vec::new())
        }
    };
    let (text, ranges) = window(text, &found);
    SearchHighlight { field: field.to_string(), text, ranges }
}

/// `text` cut to [`SNIPPET_CHARS`] around the first of `ranges`, with the ranges moved to match
/// and those past the cut dropped (or shortened).
fn window(text: &str, ranges: &[(usize, usize)]) -> (String, Vec<HighlightRange>) {
    let chars: Vec<char> = text.chars().collect();
    let (from, to) = if chars.len() <= SNIPPET_CHARS {
        (0, chars.len())
    } else {
        let first = ranges.first().map_or(0, |r| r.0);
        let from = first.saturating_sub(LEAD_CHARS).min(chars.len() - SNIPPET_CHARS);
        (from, from + SNIPPET_CHARS)
    };
    let lead = usize::from(from > 0);
    let mut out: String = if from > 0 { "…".into() } else { String::new() };
    out.extend(&chars[from..to]);
    if to < chars.len() {
        out.push('…');
    }
    let moved = ranges
        .iter()
        .filter(|(start, _)| *start >= from && *start < to)
        .map(|(start, end)| HighlightRange {
            start: (start - from + lead) as u32,
            end: ((*end).min(to) - from + lead) as u32,
        })
        .collect();
    (out, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    fn marked(h: &SearchHighlight) -> String {
        let chars: Vec<char> = h.text.chars().collect();
        let mut out = String::new();
        let mut at = 0;
        for r in &h.ranges {
            out.extend(&chars[at..r.start as usize]);
            out.push('[');
            out.extend(&chars[r.start as usize..r.end as usize]);
            out.push(']');
            at = r.end as usize;
        }
        out.extend(&chars[at..]);
        out
    }

    #[test]
    fn marks_the_typed_prefix_of_each_matching_word() {
        let h = highlight(&[("title", "Silk dress, SILK-01 <b>")], &words(&["sil", "dr", "b"]));
        assert_eq!(h.field, "title");
        assert_eq!(marked(&h), "[Sil]k [dr]ess, [SIL]K-01 <[b]>");
    }

    #[test]
    fn takes_the_first_field_that_matches_and_counts_characters() {
        let fields = [("title", "Évening gown"), ("sku", "ÉTÉ-27"), ("folder", "Été")];
        let h = highlight(&fields, &words(&["été"]));
        assert_eq!((h.field.as_str(), marked(&h).as_str()), ("sku", "[ÉTÉ]-27"));
        let none = highlight(&fields, &words(&["zzz"]));
        assert_eq!((none.field.as_str(), none.text.as_str(), none.ranges.len()), ("title", "Évening gown", 0));
    }

    #[test]
    fn long_text_is_cut_around_the_first_match() {
        let text = format!("{} velvet {}", "word ".repeat(100), "tail ".repeat(100));
        let h = highlight(&[("title", &text)], &words(&["velv"]));
        assert!(h.text.starts_with('…') && h.text.ends_with('…'));
        assert_eq!(h.text.chars().count(), SNIPPET_CHARS + 2);
        assert_eq!(h.ranges.len(), 1);
        let r = h.ranges[0];
        let got: String = h.text.chars().skip(r.start as usize).take((r.end - r.start) as usize).collect();
        assert_eq!(got, "velv");
        assert_eq!(r.start as usize, LEAD_CHARS + 1);
    }
}
