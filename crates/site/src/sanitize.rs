//! Inline HTML in spec text, made safe: the HTML a chapter's Markdown renders to goes through
//! ammonia (a maintained html5ever-based sanitizer) with an allow-list when, and only when, the
//! Markdown holds raw HTML. Why an allow-list and not escaping everything: specs commonly write
//! `<sup>`, `<sub>`, `<br>`, `<kbd>` or `<abbr>`, and a reader should see superscripts and key caps,
//! not literal tags. Why ammonia and not a hand-written filter: HTML's parsing rules (unclosed
//! tags, attributes without quotes, entities in URLs) are where hand-written filters fail.
//!
//! Kept: the elements Markdown itself renders to (with their attributes: heading ids, link
//! targets, table alignment, footnotes) and the inline elements below; links only with the
//! schemes links may have elsewhere (`LINK_SCHEMES`, relative ones as they are). Removed: every
//! other element (`<script>`, `<style>`, `<iframe>`, … with their content), every event handler
//! (`onclick`, `onerror`, …) and other attribute not listed, `javascript:` and other URLs, comments.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// What Markdown renders to (pulldown-cmark, with tables, strikethrough and footnotes).
const MARKDOWN_TAGS: &[&str] = &[
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "hr",
    "br",
    "img",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
    "sup",
    "div",
    "span",
];

/// The inline elements specs write in their text.
pub(crate) const INLINE_TAGS: &[&str] = &[
    "sup", "sub", "br", "wbr", "kbd", "code", "em", "strong", "b", "i", "u", "s", "del", "ins",
    "mark", "small", "abbr", "q", "cite", "dfn", "var", "samp", "span",
];

static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::empty();
    b.tags(MARKDOWN_TAGS.iter().chain(INLINE_TAGS).copied().collect())
        // Their content goes too: a script's text is no reading matter.
        .clean_content_tags(HashSet::from([
            "script", "style", "template", "iframe", "object",
        ]))
        .tag_attributes(HashMap::from([
            ("a", HashSet::from(["href", "title", "id"])),
            ("img", HashSet::from(["src", "alt", "title"])),
            ("abbr", HashSet::from(["title"])),
            ("q", HashSet::from(["cite"])),
            ("ol", HashSet::from(["start"])),
            ("th", HashSet::from(["style"])),
            ("td", HashSet::from(["style"])),
            ("h1", HashSet::from(["id"])),
            ("h2", HashSet::from(["id"])),
            ("h3", HashSet::from(["id"])),
            ("h4", HashSet::from(["id"])),
            ("h5", HashSet::from(["id"])),
            ("h6", HashSet::from(["id"])),
            ("div", HashSet::from(["id"])),
            ("li", HashSet::from(["id"])),
        ]))
        // The classes kcontract's own markup uses: keyword highlighting, section numbers,
        // footnotes.
        .allowed_classes(HashMap::from([
            (
                "strong",
                HashSet::from([
                    "kw",
                    "kw-must",
                    "kw-must-not",
                    "kw-should",
                    "kw-should-not",
                    "kw-may",
                ]),
            ),
            ("span", HashSet::from(["secno"])),
            (
                "sup",
                HashSet::from(["footnote-reference", "footnote-definition-label"]),
            ),
            ("div", HashSet::from(["footnote-definition"])),
        ]))
        .filter_style_properties(HashSet::from(["text-align"]))
        .url_schemes(kcontract_spec::LINK_SCHEMES.iter().copied().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(None)
        .strip_comments(true);
    b
});

/// `html` with only what the allow-list keeps.
pub(crate) fn sanitize(html: &str) -> String {
    SANITIZER.clean(html).to_string()
}
