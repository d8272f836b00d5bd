//! Markdown → HTML for spec text, made safe for the page.
//!
//! Spec text is Markdown; raw HTML in it passes through a sanitizer with an allow-list
//! (`sanitize.rs`: `<sup>`, `<br>`, `<kbd>`, `<abbr>` … kept, `<script>`, event handlers and other
//! URLs removed), and links may only use `http`, `https`, fragments or relative paths (a
//! `javascript:` or `data:` URL becomes an inert `#`). Links to `chapter.md#anchor` become links to the rendered `chapter.html#anchor`.
//! RFC 2119 keywords in running text are wrapped for highlighting, except in a chapter's
//! informative notes (a quote opening with "Note" or "Example", or the block after the line
//! `<!-- kcontract: informative -->`: what `check` reads as prose though it uses a keyword), which are
//! framed and labelled as informative instead, so a reader never takes their keywords for a
//! requirement.

use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Parser, Tag, TagEnd, html};

use kcontract_spec::keywords::{Level, find_keywords};
use kcontract_spec::{
    BOILERPLATE_MARKER, INFORMATIVE_MARKER, is_note_quote, markdown_options, resolver,
};
use kcontract_spec::{LinkDefs, Prose};

/// Spec Markdown as safe HTML: raw HTML sanitized, only http(s), fragment and relative links,
/// RFC 2119 keywords marked.
pub(super) fn to_html(markdown: &str) -> String {
    to_html_in(markdown, None, None)
}

/// [`to_html`] of Markdown written in `chapter`, whose link reference definitions are `defs`: a
/// link to a fragment alone (`#root`) becomes `chapter.html#root`, so that it lands wherever the
/// text is shown.
pub(super) fn to_html_in(markdown: &str, chapter: Option<&str>, defs: Option<&LinkDefs>) -> String {
    render(markdown, None, None, chapter, defs)
}

/// A heading of a chapter as its page shows it: its id (the same in every language) and its
/// section number.
pub(super) struct SectionHead<'a> {
    pub id: &'a str,
    pub number: &'a str,
}

/// A chapter's prose as HTML, like [`to_html`], with each top-level heading given the next of
/// `heads` (the chapter's headings in source order, shared by its prose pieces): its `id` and its
/// section number.
///
/// A clause block inside a list item (the loader recorded where) is shown in its place, as
/// `nested` gives it (the clause's piece, by its id), so that the list keeps its items around it;
/// one `nested` does not know (its clause did not load) stays a code block, as written.
///
/// An informative note among the prose is framed and labelled `note_label` (the page's word for
/// "Informative"), its keywords not highlighted.
pub(super) fn prose_html<'h>(
    prose: &Prose,
    heads: &mut dyn Iterator<Item = SectionHead<'h>>,
    defs: &LinkDefs,
    nested: Nested<'_>,
    note_label: &str,
) -> String {
    let clauses: Vec<(Range<usize>, Option<String>)> = prose
        .clauses
        .iter()
        .map(|c| (c.range.clone(), c.id.as_deref().and_then(nested)))
        .collect();
    let shown = Shown {
        clauses: &clauses,
        note_label: Some(note_label),
    };
    render_with(&prose.text, None, Some(heads), None, Some(defs), shown)
}

/// What a chapter's prose shows besides its Markdown: the clause blocks of its list items (each
/// one's lines and the HTML it gives), and the label of its informative notes (`None` for text
/// that is not a chapter's prose, a clause's text or a reason, where no note is framed).
#[derive(Clone, Copy, Default)]
struct Shown<'a> {
    clauses: &'a [(Range<usize>, Option<String>)],
    note_label: Option<&'a str>,
}

/// The informative notes of a chapter's prose as it is rendered: which top-level block is one (as
/// the loader decides, so the site frames exactly what `check` read as prose), and whether one is
/// open.
struct Notes<'a> {
    label: Option<&'a str>,
    /// The informative marker was the last HTML block: the next top-level block is a note.
    marked: bool,
    /// A note's block is being rendered: its keywords are not highlighted.
    open: bool,
}

impl Notes<'_> {
    /// Top-level block `tag` starts, its source `src`: a note opens its frame and label.
    fn start(&mut self, tag: &Tag, src: &str, events: &mut Vec<Event<'_>>) {
        let Some(label) = self.label else { return };
        if matches!(tag, Tag::HtmlBlock) {
            return;
        }
        let marked = std::mem::take(&mut self.marked);
        if marked || matches!(tag, Tag::BlockQuote(_)) && is_note_quote(src) {
            self.open = true;
            events.push(Event::Html(NOTE_OPEN.into()));
            events.push(Event::Text(label.to_string().into()));
            events.push(Event::Html(NOTE_LABEL_END.into()));
        }
    }

    /// Top-level block `tag` ended (its end event pushed), its source `src`: a note closes its
    /// frame; the informative marker makes the next block a note.
    fn end(&mut self, tag: TagEnd, src: &str, events: &mut Vec<Event<'_>>) {
        if tag == TagEnd::HtmlBlock {
            self.marked |= src.trim() == INFORMATIVE_MARKER;
        } else if std::mem::take(&mut self.open) {
            events.push(Event::Html(NOTE_CLOSE.into()));
        }
    }
}

/// [`to_html`], and the plain text of the same parse for the search index: words of text and code,
/// breaks and the ends of paragraphs and list items as spaces, runs of whitespace as one space.
///
/// `chapter` is the page the text belongs to: a link to a fragment alone (`#root`) becomes
/// `chapter.html#root`, so it lands wherever the text is shown (the clause index, the matrix).
pub(super) fn to_html_and_text(
    markdown: &str,
    chapter: &str,
    defs: Option<&LinkDefs>,
) -> (String, String) {
    let mut text = String::with_capacity(markdown.len());
    let html = render(markdown, Some(&mut text), None, Some(chapter), defs);
    (html, collapse_whitespace(&text))
}

/// The words of `text` joined by single spaces.
fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn render<'h>(
    markdown: &str,
    plain: Option<&mut String>,
    heads: Option<&mut dyn Iterator<Item = SectionHead<'h>>>,
    chapter: Option<&str>,
    defs: Option<&LinkDefs>,
) -> String {
    render_with(markdown, plain, heads, chapter, defs, Shown::default())
}

/// The HTML a page shows for the clause of an id: its piece.
pub(super) type Nested<'a> = &'a dyn Fn(&str) -> Option<String>;

/// [`render`], with the clause blocks at the ranges of `shown` (each one's lines in `markdown`)
/// shown as the HTML it gives, or as written, without keyword marks, when it gives none, and the
/// informative notes framed when `shown` has their label.
fn render_with<'h>(
    markdown: &str,
    mut plain: Option<&mut String>,
    mut heads: Option<&mut dyn Iterator<Item = SectionHead<'h>>>,
    chapter: Option<&str>,
    defs: Option<&LinkDefs>,
    shown: Shown<'_>,
) -> String {
    let mut events = Vec::with_capacity(16);
    let mut depth = 0usize;
    let mut notes = Notes {
        label: shown.note_label,
        marked: false,
        open: false,
    };
    // A clause block being read: its events so far and the HTML it is shown as.
    let mut clause: Option<(Vec<Event>, Option<&String>)> = None;
    // The pieces of the clauses shown in list items: put in after the sanitizer ran, which is for
    // the spec's own raw HTML, not for kcontract's markup (a placeholder stands in for each).
    let mut pieces: Vec<String> = Vec::new();
    let mut has_raw_html = false;
    let parser =
        Parser::new_with_broken_link_callback(markdown, markdown_options(), Some(resolver(defs)));
    for (ev, range) in parser.into_offset_iter() {
        if let Some((held, _)) = clause.as_mut() {
            let end = matches!(ev, Event::End(TagEnd::CodeBlock));
            held.push(ev);
            if end {
                depth = depth.saturating_sub(1);
                match clause.take() {
                    Some((_, Some(html))) => {
                        events.push(Event::Html(piece_placeholder(pieces.len()).into()));
                        pieces.push(html.clone());
                    }
                    // No piece for it: the block as written.
                    Some((held, None)) => events.extend(held),
                    None => {}
                }
            }
            continue;
        }
        if let Event::Start(Tag::CodeBlock(_)) = &ev
            && let Some((_, html)) = shown.clauses.iter().find(|(r, _)| r.contains(&range.start))
        {
            depth += 1;
            clause = Some((vec![ev], html.as_ref()));
            continue;
        }
        match &ev {
            Event::Start(tag) => {
                if depth == 0 {
                    notes.start(tag, &markdown[range.clone()], &mut events);
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        let top_end = match &ev {
            Event::End(tag) if depth == 0 => Some(*tag),
            _ => None,
        };
        if let Some(out) = plain.as_deref_mut() {
            match &ev {
                Event::Text(t) | Event::Code(t) => out.push_str(t),
                Event::SoftBreak
                | Event::HardBreak
                | Event::End(TagEnd::Item | TagEnd::Paragraph) => out.push(' '),
                _ => {}
            }
        }
        match ev {
            // The markers that exempt the RFC 2119 boilerplate and a note are for `check`, not
            // for readers (a note shows its frame and label instead).
            Event::Html(h) if h.trim() == BOILERPLATE_MARKER || h.trim() == INFORMATIVE_MARKER => {}
            // Raw HTML is kept for the sanitizer, which then runs over the whole fragment (a tag
            // and its closing tag are separate events).
            raw @ (Event::Html(_) | Event::InlineHtml(_)) => {
                has_raw_html = true;
                events.push(raw);
            }
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) if depth == 1 => match heads.as_deref_mut().and_then(Iterator::next) {
                Some(head) => {
                    events.push(Event::Start(Tag::Heading {
                        level,
                        id: Some(CowStr::from(head.id.to_string())),
                        classes,
                        attrs,
                    }));
                    if !head.number.is_empty() {
                        let mut number = String::with_capacity(40);
                        number.push_str("<span class=\"secno\">");
                        number.push_str(head.number);
                        number.push_str("</span> ");
                        events.push(Event::InlineHtml(number.into()));
                    }
                }
                None => events.push(Event::Start(Tag::Heading {
                    level,
                    id,
                    classes,
                    attrs,
                })),
            },
            Event::Start(tag @ (Tag::Link { .. } | Tag::Image { .. })) => {
                events.push(Event::Start(safe_target(tag, chapter)));
            }
            // A note's keywords illustrate: not marked as a requirement's.
            Event::Text(t) if notes.open => events.push(Event::Text(t)),
            Event::Text(t) => highlight_keywords(&t, &mut events),
            // A table of the spec in a frame of its own, which scrolls sideways on a phone rather
            // than the page, or the words in its cells being broken to fit (style.css,
            // `.spec-table`). A placeholder until the sanitizer has run: the frame is kcontract's
            // markup, and is focusable so a keyboard can scroll it.
            table @ Event::Start(Tag::Table(_)) => {
                events.push(Event::Html(TABLE_OPEN.into()));
                events.push(table);
            }
            table @ Event::End(TagEnd::Table) => {
                events.push(table);
                events.push(Event::Html(TABLE_CLOSE.into()));
            }
            other => events.push(other),
        }
        if let Some(tag) = top_end {
            notes.end(tag, &markdown[range], &mut events);
        }
    }
    finish(events, markdown.len(), has_raw_html, &pieces)
}

/// A link or an image with a safe target ([`safe_url`]); a link to a fragment alone (`#root`) of
/// text written in `chapter` to `chapter.html#root`.
fn safe_target<'a>(tag: Tag<'a>, chapter: Option<&str>) -> Tag<'a> {
    match tag {
        Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        } => Tag::Link {
            link_type,
            dest_url: match (chapter, dest_url.strip_prefix('#')) {
                (Some(ch), Some(frag)) => CowStr::from(format!("{ch}.html#{frag}")),
                _ => safe_url(&dest_url),
            },
            title,
            id,
        },
        Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        } => Tag::Image {
            link_type,
            dest_url: safe_url(&dest_url),
            title,
            id,
        },
        other => other,
    }
}

/// The HTML of the events [`render_with`] gathered: soft breaks between Chinese text dropped, the
/// sanitizer run when the spec's text has raw HTML, then kcontract's own markup put in for its
/// placeholders (the clause pieces, the tables' frames). `len` is the Markdown's length.
fn finish(mut events: Vec<Event>, len: usize, has_raw_html: bool, pieces: &[String]) -> String {
    // A line break inside a Chinese paragraph is not a space: drop soft breaks between CJK text.
    for i in 1..events.len().saturating_sub(1) {
        if matches!(events[i], Event::SoftBreak)
            && let (Some(a), Some(b)) = (last_char(&events[i - 1]), first_char(&events[i + 1]))
            && is_cjk(a)
            && is_cjk(b)
        {
            events[i] = Event::Text(CowStr::Borrowed(""));
        }
    }
    // Room for the markup and escapes a typical clause adds, so the string is allocated once.
    let mut out = String::with_capacity(len + len / 4 + 64);
    html::push_html(&mut out, events.into_iter());
    // Only text with raw HTML pays for the sanitizer; what Markdown alone renders is safe as is.
    if has_raw_html {
        out = super::sanitize::sanitize(&out);
    }
    for (n, piece) in pieces.iter().enumerate() {
        out = out.replacen(&piece_placeholder(n), piece, 1);
    }
    if out.contains(NOTE_OPEN) {
        out = out
            .replace(
                NOTE_OPEN,
                "<div class=\"informative\" role=\"note\"><p class=\"informative-label\">",
            )
            .replace(NOTE_LABEL_END, "</p>\n")
            .replace(NOTE_CLOSE, "</div>\n");
    }
    if out.contains(TABLE_OPEN) {
        out = out
            .replace(TABLE_OPEN, "<div class=\"spec-table\" tabindex=\"0\">")
            .replace(TABLE_CLOSE, "</div>");
    }
    out
}

/// What stands for the frame of a table until the sanitizer has run (as [`piece_placeholder`]).
const TABLE_OPEN: &str = "\u{E000}kcontract-table\u{E000}";
const TABLE_CLOSE: &str = "\u{E000}/kcontract-table\u{E000}";

/// What stands for the frame of an informative note, the end of its label and the frame's end until
/// the sanitizer has run (as [`piece_placeholder`]).
const NOTE_OPEN: &str = "\u{E000}kcontract-note\u{E000}";
const NOTE_LABEL_END: &str = "\u{E000}/kcontract-note-label\u{E000}";
const NOTE_CLOSE: &str = "\u{E000}/kcontract-note\u{E000}";

/// What stands for the `n`th clause piece of a fragment until the sanitizer has run: text of
/// private-use characters, which the sanitizer keeps as it is and no spec writes.
fn piece_placeholder(n: usize) -> String {
    format!("\u{E000}kcontract-clause-{n}\u{E000}")
}

/// `html` with each code span that is a clause id (`<code>lifecycle.sigterm-on-kill</code>`, as
/// texts and reasons cite other clauses) a link to the clause's card, `href` giving where it is;
/// a code span already inside a link, or naming no clause, stays as it is. Why after rendering:
/// the ids are the contract's, not Markdown's, and the HTML of a code span is fixed.
pub(super) fn link_clause_ids(html: String, href: &dyn Fn(&str) -> Option<String>) -> String {
    const OPEN: &str = "<code>";
    const CLOSE: &str = "</code>";
    if !html.contains(OPEN) {
        return html;
    }
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html.as_str();
    // Inside an `<a …>` of the text, as of the end of `out`.
    let mut in_link = false;
    while let Some(at) = rest.find(OPEN) {
        let before = &rest[..at];
        match (before.rfind("<a "), before.rfind("</a>")) {
            (Some(o), Some(c)) => in_link = o > c,
            (Some(_), None) => in_link = true,
            (None, Some(_)) => in_link = false,
            (None, None) => {}
        }
        out.push_str(before);
        let from = &rest[at..];
        let Some(len) = from[OPEN.len()..].find(CLOSE) else {
            out.push_str(from);
            return out;
        };
        let whole = &from[..OPEN.len() + len + CLOSE.len()];
        let id = &from[OPEN.len()..OPEN.len() + len];
        match href(id).filter(|_| !in_link && id.contains('.')) {
            Some(h) => {
                out.push_str("<a class=\"cref\" href=\"");
                out.push_str(&h);
                out.push_str("\">");
                out.push_str(whole);
                out.push_str("</a>");
            }
            None => out.push_str(whole),
        }
        rest = &from[whole.len()..];
    }
    out.push_str(rest);
    out
}

/// A keyword as highlighted: `<strong class="kw kw-must-not">MUST NOT</strong>`.
fn push_keyword(out: &mut String, level: Level, written: &str) {
    out.push_str("<strong class=\"kw kw-");
    out.push_str(level_class(level));
    out.push_str("\">");
    for (i, word) in written.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push_str("</strong>");
}

fn last_char(e: &Event) -> Option<char> {
    match e {
        Event::Text(t) | Event::Code(t) => t.chars().next_back(),
        _ => None,
    }
}

fn first_char(e: &Event) -> Option<char> {
    match e {
        Event::Text(t) | Event::Code(t) => t.chars().next(),
        _ => None,
    }
}

/// CJK ideographs, kana, Hangul and full-width punctuation: scripts written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

/// Inline Markdown for a one-paragraph text: the same, without the surrounding `<p>`.
pub(super) fn to_inline_html(markdown: &str) -> String {
    to_inline_html_in(markdown, None, None)
}

/// [`to_inline_html`] of Markdown written in `chapter`, as [`to_html_in`].
pub(super) fn to_inline_html_in(
    markdown: &str,
    chapter: Option<&str>,
    defs: Option<&LinkDefs>,
) -> String {
    let mut html = to_html_in(markdown, chapter, defs);
    let trimmed = html.trim_end();
    match trimmed
        .strip_prefix("<p>")
        .and_then(|s| s.strip_suffix("</p>"))
    {
        Some(inner) if !inner.contains("<p>") => {
            // Cut the paragraph tags off in place.
            let end = 3 + inner.len();
            html.truncate(end);
            html.drain(..3);
            html
        }
        _ => html,
    }
}

fn highlight_keywords<'a>(text: &CowStr<'a>, events: &mut Vec<Event<'a>>) {
    let hits = find_keywords(text);
    if hits.is_empty() {
        events.push(Event::Text(text.clone()));
        return;
    }
    let mut at = 0;
    for h in hits {
        if h.range.start > at {
            events.push(Event::Text(slice(text, at..h.range.start)));
        }
        let mut html = String::with_capacity(48);
        push_keyword(&mut html, h.level, &text[h.range.clone()]);
        events.push(Event::InlineHtml(html.into()));
        at = h.range.end;
    }
    if at < text.len() {
        events.push(Event::Text(slice(text, at..text.len())));
    }
}

/// Part of a parser string: borrowed from the Markdown source when the string is, else copied.
fn slice<'a>(text: &CowStr<'a>, range: std::ops::Range<usize>) -> CowStr<'a> {
    match text {
        CowStr::Borrowed(s) => CowStr::Borrowed(&s[range]),
        other => other[range].to_string().into(),
    }
}

/// CSS class suffix of a level: `must`, `must-not`, …
pub(super) fn level_class(level: Level) -> &'static str {
    match level {
        Level::Must => "must",
        Level::MustNot => "must-not",
        Level::Should => "should",
        Level::ShouldNot => "should-not",
        Level::May => "may",
    }
}

fn safe_url<'a>(url: &CowStr<'a>) -> CowStr<'a> {
    let u = url.trim();
    let lower: String = u
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    // Judged with what browsers strip removed (`java\tscript:` is `javascript:`).
    let kind = kcontract_spec::url::judge(&lower);
    if kind.is_err() {
        return CowStr::from("#");
    }
    let has_scheme = kcontract_spec::url::scheme_of(&lower).is_some();
    if !has_scheme && !u.starts_with("//") {
        // A relative link to another chapter's Markdown file points at its rendered page.
        let (path, frag) = u.split_once('#').unwrap_or((u, ""));
        if let Some(stem) = path.strip_suffix(".md")
            && !stem.contains('/')
        {
            return CowStr::from(if frag.is_empty() {
                format!("{stem}.html")
            } else {
                format!("{stem}.html#{frag}")
            });
        }
    }
    url.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_and_script_urls_are_inert() {
        let h = to_html(
            "<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> and <b>bold</b>.\n\n[x](javascript:alert(1)) [y]( JaVa\tScRiPt:alert(1)) [z](vbscript:x) ![i](data:text/html,x) [ok](https://example.com)",
        );
        assert!(!h.contains("<script"), "{h}");
        assert!(
            !h.contains("alert(1)</"),
            "a script's content goes with it: {h}"
        );
        assert!(!h.contains("onerror"), "{h}");
        assert!(h.contains("<img src=\"x\">"), "{h}");
        assert!(h.contains("<b>bold</b>"), "{h}");
        let lower = h.to_ascii_lowercase();
        assert!(!lower.contains("javascript:"), "{h}");
        assert!(!lower.contains("vbscript:"), "{h}");
        assert!(!lower.contains("data:"), "{h}");
        assert_eq!(lower.matches(r##"="#""##).count(), 3, "{h}");
        assert!(h.contains(r#"href="https://example.com""#), "{h}");
    }

    #[test]
    fn inline_html_specs_use_is_rendered() {
        let h = to_html(
            "E = mc<sup>2</sup>, H<sub>2</sub>O,<br>press <kbd>Ctrl</kbd>+<kbd>C</kbd>; <abbr title=\"Open Container Initiative\">OCI</abbr> <em>MUST</em> <code>x</code>.\n\n<!-- a note to translators -->\n",
        );
        assert_eq!(
            h,
            "<p>E = mc<sup>2</sup>, H<sub>2</sub>O,<br>press <kbd>Ctrl</kbd>+<kbd>C</kbd>; <abbr title=\"Open Container Initiative\">OCI</abbr> <em><strong class=\"kw kw-must\">MUST</strong></em> <code>x</code>.</p>\n\n"
        );
    }

    #[test]
    fn handlers_scripts_and_script_urls_in_html_are_removed() {
        let h = to_html(
            "A <sup onclick=\"alert(1)\" style=\"color:red\">1</sup> <a href=\"javascript:alert(1)\">x</a> <a href=\"other.html\" target=\"_blank\">y</a> <iframe src=\"https://e.org\"></iframe><style>p{}</style>",
        );
        assert_eq!(
            h,
            "<p>A <sup>1</sup> <a>x</a> <a href=\"other.html\">y</a> </p>\n"
        );
    }

    /// Text without raw HTML is not sanitized: its output stays byte for byte what Markdown
    /// renders (the committed site changes only where the spec has inline HTML).
    #[test]
    fn markdown_alone_is_not_touched() {
        let md = "# T\n\n| a | b |\n|:--|--:|\n| `x` | [l](#f) |\n\nNote[^1].\n\n[^1]: It MUST.\n";
        let plain = to_html(md);
        assert!(plain.contains("<th style=\"text-align: left\">"), "{plain}");
        assert!(plain.contains("class=\"footnote-reference\""), "{plain}");
        // With a tag added, the sanitizer keeps what Markdown rendered (the style normalised).
        let with = to_html(&format!("{md}\nH<sub>2</sub>O\n"));
        for kept in [
            "<h1>T</h1>",
            "<th style=\"text-align:left\">a</th>",
            "<a href=\"#f\">l</a>",
            "<sup class=\"footnote-reference\"><a href=\"#1\">1</a></sup>",
            "<div class=\"footnote-definition\" id=\"1\">",
            "<strong class=\"kw kw-must\">MUST</strong>",
            "H<sub>2</sub>O",
        ] {
            assert!(with.contains(kept), "{kept} in {with}");
        }
    }

    #[test]
    fn no_space_between_chinese_lines() {
        assert_eq!(
            to_html("容器进程\n必须（MUST）退出。\nEnglish\nwords"),
            "<p>容器进程必须（<strong class=\"kw kw-must\">MUST</strong>）退出。\nEnglish\nwords</p>\n"
        );
    }

    #[test]
    fn clause_ids_in_code_spans_are_links() {
        let href = |id: &str| (id == "a.b").then(|| format!("one.html#{id}"));
        let html = to_html("See `a.b`, `c.d`, `a` and [`a.b`](x.html).");
        assert_eq!(
            link_clause_ids(html, &href),
            "<p>See <a class=\"cref\" href=\"one.html#a.b\"><code>a.b</code></a>, <code>c.d</code>, <code>a</code> and <a href=\"x.html\"><code>a.b</code></a>.</p>\n"
        );
        // After a link closes, an id is linked again.
        let html = to_html("[x](y.html) `a.b`");
        assert!(link_clause_ids(html, &href).contains("<a class=\"cref\""));
    }

    #[test]
    fn links_and_keywords() {
        let h = to_inline_html(
            "It MUST NOT use `MUST` — see [fs](configuration.md#default-filesystems) and [k](https://knative.dev).",
        );
        assert!(
            h.contains(r#"<strong class="kw kw-must-not">MUST NOT</strong>"#),
            "{h}"
        );
        assert!(h.contains("<code>MUST</code>"), "{h}");
        assert!(
            h.contains(r#"href="configuration.html#default-filesystems""#),
            "{h}"
        );
        assert!(h.contains(r#"href="https://knative.dev""#), "{h}");
        assert!(!h.starts_with("<p>"));
    }
}
