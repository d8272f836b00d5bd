//! The offline search index: a script that defines `window.KC_SEARCH`, loaded with a plain
//! `<script src>` so it works from `file://` (no fetch, no server, no wasm). Tokenisation happens in
//! `site.js`, the same way for the index and the query: ASCII words, and overlapping character
//! bigrams for CJK text (Chinese has no spaces; bigrams find "容器" inside "容器进程").

use serde::Serialize;

use crate::spec::Spec;

#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    url: String,
    level: String,
    section: Option<&'a str>,
    text: &'a str,
}

/// The index of one language: each clause's id, page, level, section and plain text (`clauses`
/// are the language's clause contexts, in the order of `spec.clauses`).
pub(crate) fn index_script(spec: &Spec, clauses: &[super::ClauseCtx]) -> String {
    let entries: Vec<Entry> = spec
        .clauses
        .iter()
        .zip(clauses)
        .map(|(c, ctx)| Entry {
            id: &c.id,
            url: format!("{}.html#{}", c.chapter, c.id),
            level: c.level.to_string(),
            section: c.section.as_ref().map(|s| s.title.as_str()),
            text: &ctx.plain,
        })
        .collect();
    let mut out =
        String::with_capacity(clauses.iter().map(|c| c.plain.len() + 160).sum::<usize>() + 32);
    out.push_str("window.KC_SEARCH = ");
    let json = serde_json::to_string(&entries).unwrap_or_else(|_| "[]".into());
    // `<` only occurs inside JSON strings; escaping it keeps `</script>` in a text inert.
    let mut rest = json.as_str();
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        out.push_str("\\u003c");
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push_str(";\n");
    out
}
