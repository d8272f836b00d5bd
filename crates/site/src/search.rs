//! The offline search index: a script that defines `window.KC_SEARCH`, loaded with a plain
//! `<script src>` so it works from `file://` (no fetch, no server, no wasm). Tokenisation happens in
//! `site.js`, the same way for the index and the query: ASCII words, and overlapping character
//! bigrams for CJK text (Chinese has no spaces; bigrams find "容器" inside "容器进程").

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::Serialize;

use super::changes_page::SearchItem;
use super::pages::OwnPage;
use kcontract_oci::runtimes::Catalogue;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::markdown_options;
use kcontract_spec::{Block, Document, Prose, Spec};

/// The kind of an index entry that is not in force: an earlier version's text, on the Changes
/// page. site.js knows the kinds in force (`KIND_TIER`); every other kind, this one included, it
/// shows as not in force.
pub(super) const EARLIER: &str = "earlier";

/// One entry of the index: a clause, a heading, a paragraph of prose, a runtime deviation or a
/// removed clause on the Changes page, in the page's language. `kind` orders the results (site.js ranks clause ids and exact terms first,
/// then headings, then text).
#[derive(Serialize)]
struct Entry<'a> {
    kind: &'static str,
    /// The clause or deviation id (`None` for headings and prose).
    id: Option<&'a str>,
    /// The page and fragment, relative to the language's folder.
    url: String,
    /// The clause's level (`None` for the rest).
    level: Option<&'static str>,
    /// The title of the page it is on, in the page's language.
    page: &'a str,
    /// The heading it sits under, in the page's language.
    section: Option<&'a str>,
    /// The text searched and shown.
    text: String,
}

/// The index of one language: its chapters' clauses, headings and prose paragraphs, in reading
/// order, then the runtime deviations (`clause_text` is each clause's text without markup in the page's
/// language, in the order of `spec.clauses`; `runtimes_title` the runtimes page's title, when there is one),
/// then the Changes page's entries with its title.
pub(super) fn index_script(
    spec: &Spec,
    docs: &[Document],
    clause_text: &[String],
    lang: &str,
    runtimes: Option<(&Catalogue, &str)>,
    changes: (&[SearchItem], &str),
) -> Result<Vec<u8>, Diagnostic> {
    let mut entries: Vec<Entry> = Vec::with_capacity(clause_text.len() * 2);
    for doc in docs {
        let url = |frag: &str| format!("{}.html#{}", doc.chapter, frag);
        let mut heading = 0usize;
        let mut section: Option<(&str, &str)> = None; // (title, anchor)
        for block in &doc.blocks {
            match block {
                Block::Clause(i) => {
                    let c = &spec.clauses[*i];
                    entries.push(Entry {
                        kind: "clause",
                        id: Some(&c.id),
                        url: url(&c.id),
                        level: Some(c.level.as_str()),
                        page: &doc.title,
                        section: section.map(|s| s.0),
                        text: clause_text[*i].clone(),
                    });
                }
                Block::Prose(p) | Block::Untranslated(p) => {
                    for piece in prose_pieces(p) {
                        match piece {
                            Piece::Heading => {
                                if let Some(h) = doc.headings.get(heading) {
                                    section = Some((&h.title, &h.anchor));
                                    entries.push(Entry {
                                        kind: "heading",
                                        id: None,
                                        url: url(&h.anchor),
                                        level: None,
                                        page: &doc.title,
                                        section: None,
                                        text: h.title.clone(),
                                    });
                                }
                                heading += 1;
                            }
                            Piece::Text(text) => entries.push(Entry {
                                kind: "text",
                                id: None,
                                url: match section {
                                    Some((_, anchor)) => url(anchor),
                                    None => format!("{}.html", doc.chapter),
                                },
                                level: None,
                                page: &doc.title,
                                section: section.map(|s| s.0),
                                text,
                            }),
                        }
                    }
                }
            }
        }
    }
    if let Some((rt, title)) = runtimes {
        let zh = lang == "zh";
        for d in &rt.deviations {
            let (t, summary) = if zh {
                (&d.title_zh, &d.summary_zh)
            } else {
                (&d.title, &d.summary)
            };
            entries.push(Entry {
                kind: "deviation",
                id: Some(&d.id),
                url: format!("{}.html#{}", OwnPage::Runtimes.name(), d.id),
                level: None,
                page: title,
                section: None,
                text: format!("{} {}", plain(t), plain(summary)),
            });
        }
    }
    // The Changes page's entries other than its headings are texts of earlier versions, not in
    // force (issue #48: "L7 proxy" found the withdrawn 2019 MUST first, with its red badge): they
    // are entries of kind `earlier`, whatever the page calls them, with no level, which site.js
    // marks "not in force" and ranks after everything current. Their text is the words of their
    // Markdown, as a clause's is (not `[OCI interface](…)`).
    let (items, title) = changes;
    entries.extend(items.iter().map(|i| {
        let heading = i.kind == "heading";
        Entry {
            kind: if heading { "heading" } else { EARLIER },
            id: i.id.as_deref(),
            url: i.url.clone(),
            level: if heading { i.level } else { None },
            page: title,
            section: i.section.as_deref(),
            text: plain(&i.text),
        }
    }));
    const START: &[u8] = b"window.KC_SEARCH = ";
    let mut out: Vec<u8> =
        Vec::with_capacity(entries.iter().map(|e| e.text.len() + 160).sum::<usize>() + 32);
    out.extend_from_slice(START);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, ScriptSafe);
    entries
        .serialize(&mut ser)
        .map_err(|e| super::files::json_error("the search index", &e))?;
    out.extend_from_slice(b";\n");
    Ok(out)
}

/// A piece of a chapter's prose for the index.
enum Piece {
    /// A top-level heading (the next of the document's headings).
    Heading,
    /// A paragraph, list item or table cell's words.
    Text(String),
}

/// The headings and paragraphs of a prose piece, in order, as plain text.
fn prose_pieces(prose: &Prose) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut text = String::new();
    let mut in_heading = false;
    // A clause block in a list item: its clause has its own entry.
    let mut in_clause = false;
    let in_block = |at: usize| prose.clauses.iter().any(|c| c.range.contains(&at));
    for (ev, range) in Parser::new_ext(&prose.text, markdown_options()).into_offset_iter() {
        match ev {
            Event::Start(Tag::CodeBlock(_)) if in_block(range.start) => {
                depth += 1;
                in_clause = true;
            }
            Event::End(TagEnd::CodeBlock) if in_clause => {
                depth = depth.saturating_sub(1);
                in_clause = false;
            }
            _ if in_clause => {}
            Event::Start(Tag::Heading { .. }) if depth == 0 => {
                depth += 1;
                in_heading = true;
                out.push(Piece::Heading);
            }
            Event::Start(_) => depth += 1,
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                // The end of a block inside the piece (a list item, a paragraph in one, a table
                // cell) is a word break: without it the items of a list ran together
                // ("specification" + "Repository"), and the first word of each later item could
                // not be found.
                if is_block_end(&end) {
                    text.push(' ');
                }
                if matches!(end, TagEnd::Heading(_)) && depth == 0 {
                    in_heading = false;
                } else if depth == 0 {
                    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !words.is_empty() {
                        out.push(Piece::Text(words));
                    }
                }
                if depth == 0 {
                    text.clear();
                }
            }
            // Raw HTML is not text: its tags, and its comments, which are notes for editors that
            // the pages do not show (an `init`'s translation note among them). The words between
            // inline tags are `Text` of their own and stay.
            Event::Text(t) | Event::Code(t) if !in_heading => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            _ => {}
        }
    }
    out
}

/// Does `end` close a block (its text a word apart from what follows) rather than inline markup?
fn is_block_end(end: &TagEnd) -> bool {
    matches!(
        end,
        TagEnd::Paragraph
            | TagEnd::Item
            | TagEnd::TableCell
            | TagEnd::TableRow
            | TagEnd::TableHead
            | TagEnd::BlockQuote(_)
            | TagEnd::CodeBlock
            | TagEnd::List(_)
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::FootnoteDefinition
    )
}

/// Inline Markdown as plain words.
fn plain(markdown: &str) -> String {
    let mut out = String::new();
    for ev in Parser::new_ext(markdown, markdown_options()) {
        match ev {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::End(_) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Compact JSON in which `<` (only ever inside strings) is written `\u003c`, so a `</script>` in
/// a text stays inert in the script file.
struct ScriptSafe;

impl serde_json::ser::Formatter for ScriptSafe {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find('<') {
            w.write_all(&rest.as_bytes()[..at])?;
            w.write_all(b"\\u003c")?;
            rest = &rest[at + 1..];
        }
        w.write_all(rest.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The items of a list, the cells of a table: each its own words (issue #48: "specification"
    /// and "Repository" ran together, and "Repository" could not be found).
    #[test]
    fn list_items_and_cells_are_words_apart() {
        let prose = Prose {
            text: "- specification\n- Repository\n\n| Method | Status |\n| --- | --- |\n| GET | 404 |\n"
                .into(),
            clauses: Vec::new(),
        };
        let words: Vec<String> = prose_pieces(&prose)
            .into_iter()
            .filter_map(|p| match p {
                Piece::Text(t) => Some(t),
                Piece::Heading => None,
            })
            .flat_map(|t| t.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect();
        for word in [
            "specification",
            "Repository",
            "Method",
            "Status",
            "GET",
            "404",
        ] {
            assert!(words.iter().any(|w| w == word), "{word} in {words:?}");
        }
    }

    fn script_safe(v: &impl Serialize) -> String {
        let mut out = Vec::new();
        v.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out, ScriptSafe,
        ))
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    proptest! {
        /// Any strings: no `<` in the script, and the JSON reads back as the same strings.
        #[test]
        fn script_safe_json_has_no_lt_and_reads_back(texts in proptest::collection::vec("(<|/|script|\"|\\\\|容|\n| |a)*", 0..4)) {
            let json = script_safe(&texts);
            prop_assert!(!json.contains('<'), "{}", json);
            let back: Vec<String> = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, texts);
        }
    }

    #[test]
    fn a_closing_script_tag_is_escaped() {
        assert_eq!(script_safe(&"</script>"), r#""\u003c/script>""#);
    }
}
