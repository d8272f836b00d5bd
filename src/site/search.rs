//! The offline search index: a script that defines `window.KC_SEARCH`, loaded with a plain
//! `<script src>` so it works from `file://` (no fetch, no server, no wasm). Tokenisation happens in
//! `site.js`, the same way for the index and the query: ASCII words, and overlapping character
//! bigrams for CJK text (Chinese has no spaces; bigrams find "容器" inside "容器进程").

use serde::Serialize;

use crate::spec::{Spec, Translation};

#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    url: String,
    level: String,
    section: Option<&'a str>,
    text: String,
}

pub fn index_script(spec: &Spec, tr: Option<&Translation>) -> String {
    let entries: Vec<Entry> = spec
        .clauses
        .iter()
        .map(|c| {
            let text = tr
                .and_then(|t| t.clauses.get(&c.id))
                .map_or(c.text.as_str(), |t| t.text.as_str());
            Entry {
                id: &c.id,
                url: format!("{}.html#{}", c.chapter, c.id),
                level: c.level.to_string(),
                section: c.section.as_ref().map(|s| s.title.as_str()),
                text: plain(text),
            }
        })
        .collect();
    let json = serde_json::to_string(&entries).unwrap_or_else(|_| "[]".into());
    // `<` only occurs inside JSON strings; escaping it keeps `</script>` in a text inert.
    format!("window.KC_SEARCH = {};\n", json.replace('<', "\\u003c"))
}

/// Markdown to plain text for display in results: drop code backticks, emphasis and link targets.
fn plain(md: &str) -> String {
    let mut out = String::new();
    for ev in pulldown_cmark::Parser::new(md) {
        match ev {
            pulldown_cmark::Event::Text(t) | pulldown_cmark::Event::Code(t) => out.push_str(&t),
            pulldown_cmark::Event::SoftBreak | pulldown_cmark::Event::HardBreak => out.push(' '),
            pulldown_cmark::Event::End(
                pulldown_cmark::TagEnd::Item | pulldown_cmark::TagEnd::Paragraph,
            ) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
