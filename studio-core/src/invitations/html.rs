//! A small, careful reader of the tags a link card needs: `<title>`, `<meta>`, `<link>` and
//! `<base>`. It walks the markup once, skipping comments, declarations and the raw text of
//! `script`, `style`, `template`, `textarea` and `noscript`, and never allocates more than the
//! tags it keeps. It is not an HTML parser; it reads what a card shows, and anything it cannot
//! read is simply absent from the card.

use crate::markup::decode_references as decode;

/// The longest title and description kept, in characters.
const TEXT_CHARS: usize = 300;
/// The longest URL kept, in bytes.
const URL_BYTES: usize = 2048;

/// What a page says about itself, as written (URLs not yet resolved).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PageFacts {
    /// `og:title`, else `twitter:title`, else `<title>`.
    pub(crate) title: Option<String>,
    /// `og:description`, else `description`, else `twitter:description`.
    pub(crate) description: Option<String>,
    /// `og:image` (or `og:image:url`, `og:image:secure_url`), else `twitter:image`.
    pub(crate) image: Option<String>,
    /// `<link rel="icon">` or `shortcut icon`, else `apple-touch-icon`.
    pub(crate) icon: Option<String>,
    /// `<base href>`.
    pub(crate) base: Option<String>,
}

/// Elements whose content is raw text, never tags.
const RAW_TEXT: &[&str] = &["script", "style", "template", "textarea", "noscript", "xmp", "iframe"];

/// Read the facts of a page.
pub(crate) fn facts(html: &str) -> PageFacts {
    let mut found = Found::default();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(offset) = html[i..].find('<') {
        let start = i + offset;
        let rest = &html[start..];
        if rest.starts_with("<!--") {
            i = rest.find("-->").map_or(html.len(), |e| start + e + 3);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") || rest.starts_with("</") {
            i = rest.find('>').map_or(html.len(), |e| start + e + 1);
            continue;
        }
        let Some((tag, end)) = read_tag(html, start + 1) else {
            i = start + 1;
            continue;
        };
        i = end;
        match tag.name.as_str() {
            "title" if found.title_tag.is_none() => {
                let close = find_close(html, i, "title");
                found.title_tag = Some(text(&html[i..close.0]));
                i = close.1;
            }
            "meta" => found.meta(&tag),
            "link" => found.link(&tag),
            "base" if found.base.is_none() => found.base = tag.attr("href").map(str::to_string),
            name if RAW_TEXT.contains(&name) => i = find_close(html, i, name).1,
            _ => {}
        }
        debug_assert!(i <= bytes.len());
    }
    found.into_facts()
}

/// A start tag's lowercased name and attributes (names lowercased, values as written).
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Read a start tag whose name begins at `at`; the tag and the index just past its `>`.
fn read_tag(html: &str, at: usize) -> Option<(Tag, usize)> {
    let bytes = html.as_bytes();
    let mut i = at;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b':') {
        i += 1;
    }
    if i == at || !bytes[at].is_ascii_alphabetic() {
        return None;
    }
    let name = html[at..i].to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        if i >= bytes.len() {
            return None;
        }
        if bytes[i] == b'>' {
            return Some((Tag { name, attrs }, i + 1));
        }
        let name_start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let attr = html[name_start..i].to_ascii_lowercase();
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < bytes.len() && bytes[i] == b'=' {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') {
                let quote = bytes[i];
                let from = i + 1;
                let to = html[from..].bytes().position(|b| b == quote).map(|p| from + p)?;
                value = decode(&html[from..to]);
                i = to + 1;
            } else {
                let from = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                    i += 1;
                }
                value = decode(&html[from..i]);
            }
        }
        if !attr.is_empty() {
            attrs.push((attr, value));
        }
    }
}

/// The content's end and the index past the closing tag `</name ...>` searched from `from`
/// (case-insensitively); the end of the page when there is none.
fn find_close(html: &str, from: usize, name: &str) -> (usize, usize) {
    let needle = format!("</{name}");
    let lower = html[from..].to_ascii_lowercase();
    match lower.find(&needle) {
        Some(p) => {
            let start = from + p;
            let end = html[start..].find('>').map_or(html.len(), |e| start + e + 1);
            (start, end)
        }
        None => (html.len(), html.len()),
    }
}

/// Decoded text with whitespace collapsed, at most [`TEXT_CHARS`] characters.
fn text(raw: &str) -> String {
    let collapsed = decode(raw).split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &collapsed[..cut]),
        None => collapsed,
    }
}

/// What was found so far, by source, so the preferred source wins whatever the order.
#[derive(Default)]
struct Found {
    title_tag: Option<String>,
    og_title: Option<String>,
    twitter_title: Option<String>,
    og_description: Option<String>,
    description: Option<String>,
    twitter_description: Option<String>,
    og_image: Option<String>,
    twitter_image: Option<String>,
    icon: Option<String>,
    touch_icon: Option<String>,
    base: Option<String>,
}

fn keep(slot: &mut Option<String>, value: String) {
    if slot.is_none() && !value.is_empty() {
        *slot = Some(value);
    }
}

fn url(value: &str) -> String {
    let value = value.trim();
    if value.len() > URL_BYTES { String::new() } else { value.to_string() }
}

impl Found {
    fn meta(&mut self, tag: &Tag) {
        let Some(content) = tag.attr("content") else { return };
        let key = tag.attr("property").or_else(|| tag.attr("name")).unwrap_or_default().trim().to_ascii_lowercase();
        match key.as_str() {
            "og:title" => keep(&mut self.og_title, text(content)),
            "twitter:title" => keep(&mut self.twitter_title, text(content)),
            "og:description" => keep(&mut self.og_description, text(content)),
            "description" => keep(&mut self.description, text(content)),
            "twitter:description" => keep(&mut self.twitter_description, text(content)),
            "og:image" | "og:image:url" | "og:image:secure_url" => keep(&mut self.og_image, url(content)),
            "twitter:image" | "twitter:image:src" => keep(&mut self.twitter_image, url(content)),
            _ => {}
        }
    }

    fn link(&mut self, tag: &Tag) {
        let (Some(rel), Some(href)) = (tag.attr("rel"), tag.attr("href")) else { return };
        let rels: Vec<String> = rel.split_ascii_whitespace().map(str::to_ascii_lowercase).collect();
        if rels.iter().any(|r| r == "icon") {
            keep(&mut self.icon, url(href));
        } else if rels.iter().any(|r| r == "apple-touch-icon" || r == "apple-touch-icon-precomposed") {
            keep(&mut self.touch_icon, url(href));
        }
    }

    fn into_facts(self) -> PageFacts {
        let nonempty = |s: Option<String>| s.filter(|s| !s.is_empty());
        PageFacts {
            title: nonempty(self.og_title.or(self.twitter_title).or(self.title_tag)),
            description: nonempty(self.og_description.or(self.description).or(self.twitter_description)),
            image: nonempty(self.og_image.or(self.twitter_image)),
            icon: nonempty(self.icon.or(self.touch_icon)),
            base: nonempty(self.base.map(|b| url(&b))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_card_of_an_ordinary_page() {
        let page = r#"<!doctype html><html><head>
            <meta charset="utf-8"><title> Maison  Ardente &amp; Co </title>
            <meta name="description" content="Ready-to-wear, &quot;slow&quot;.">
            <META PROPERTY='og:image' CONTENT='/img/cover.jpg'>
            <link rel="shortcut icon" href="/favicon.png">
            <link rel=apple-touch-icon href=/touch.png>
            </head><body><h1>Hi</h1></body></html>"#;
        let f = facts(page);
        assert_eq!(f.title.as_deref(), Some("Maison Ardente & Co"));
        assert_eq!(f.description.as_deref(), Some("Ready-to-wear, \"slow\"."));
        assert_eq!(f.image.as_deref(), Some("/img/cover.jpg"));
        assert_eq!(f.icon.as_deref(), Some("/favicon.png"));
        assert_eq!(f.base, None);
    }

    #[test]
    fn open_graph_wins_wherever_it_stands() {
        let page = r#"<title>Plain</title><meta name="description" content="plain">
            <meta property="og:description" content="graph"><meta property="og:title" content="Graph">"#;
        let f = facts(page);
        assert_eq!((f.title.as_deref(), f.description.as_deref()), (Some("Graph"), Some("graph")));
    }

    #[test]
    fn scripts_comments_and_broken_markup_hide_nothing_and_invent_nothing() {
        let page = r#"<script>var s = "<title>Not this</title><meta property='og:title' content='no'>";</script>
            <!-- <title>Nor this</title> -->
            <style>a::before { content: "<link rel=icon href=/x.ico>" }</style>
            <title>Real</title><meta name="description" content="unterminated
            <link rel="icon" href="/i.ico">"#;
        let f = facts(page);
        assert_eq!(f.title.as_deref(), Some("Real"));
        assert_eq!(f.icon, None, "the unterminated quote swallows the rest: nothing is made up");
        assert_eq!(facts("<"), PageFacts::default());
        assert_eq!(facts("<title>open"), PageFacts { title: Some("open".into()), ..PageFacts::default() });
        assert_eq!(facts("<meta content>").title, None);
    }

    #[test]
    fn entities_and_lengths_are_bounded() {
        assert_eq!(decode("a &#233;&#xE9;&#X41; &bogus; & &#0; &#x110000;"), "a ééA &bogus; & &#0; &#x110000;");
        let long = format!("<title>{}</title>", "é".repeat(400));
        assert_eq!(facts(&long).title.map(|t| t.chars().count()), Some(TEXT_CHARS + 1));
        let huge = format!("<meta property=og:image content='{}'>", "a".repeat(URL_BYTES + 1));
        assert_eq!(facts(&huge).image, None);
        assert_eq!(facts("<base href='https://cdn.example/'>").base.as_deref(), Some("https://cdn.example/"));
    }
}
