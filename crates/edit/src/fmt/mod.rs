//! `kcontract fmt`: the canonical form of clause blocks.
//!
//! What is canonical: fields in the documented order (`id`, `level`, `actor`, `text`, `verify`,
//! `reason`, `implicit`, `oci`, `upstream-tests`, `review`, then a translation's `source` stamp, last
//! because it seals the fields above it); a value on the key's line without
//! quotes when YAML allows it and the line fits in [`WIDTH`] characters, else folded (`>-`) into
//! lines of at most [`WIDTH`] (a block in a list item: its indent included), else double-quoted; one
//! blank line before and after each top-level block.
//! Line breaks an editor chose inside a folded text are kept when every line fits (as Prettier's
//! `proseWrap: preserve` does), and a literal text (`|`, a text holding a list) is kept as written:
//! rewrapping prose an editor laid out by hand would make reviews noisy for nothing.
//!
//! Formatting never changes meaning: a block is rewritten only when its new text reads back to the
//! same fields (a block holding a comment, which rewriting would lose, is left exactly as it is),
//! and the command re-reads the formatted spec and compares its [`Meaning`] with the original's
//! before writing anything.

use std::fmt::Write as _;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use kcontract_spec::{Block, Spec};
use kcontract_spec::{ClauseYaml, FieldValue, markdown_options};

/// The widest a line of a clause block may be, in characters, before a text is folded.
pub(crate) const WIDTH: usize = 100;

/// A chapter file's text with its clause blocks in canonical form.
pub fn format_chapter(src: &str) -> String {
    format_chapter_with_kept(src).0
}

/// [`format_chapter`], and the byte ranges of the opening fence lines of the top-level clause
/// blocks left as written (a comment, YAML that does not parse: see [`format_block`]), so that the command
/// can say so rather than skip them silently.
pub fn format_chapter_with_kept(src: &str) -> (String, Vec<std::ops::Range<usize>>) {
    // The blocks in list items first: their YAML is rewritten in place (the list around them is
    // the editor's), then the top-level blocks and the blank lines around them.
    let (inner, mut kept, shifts) = format_nested(src);
    let (out, top_kept) = format_top_level(&inner);
    // The top-level blocks left as written, in `src`'s offsets (`inner` moved what followed each
    // nested block that was rewritten).
    kept.extend(top_kept.into_iter().map(|r| {
        let back: isize = shifts
            .iter()
            .filter(|(at, _)| *at <= r.start)
            .map(|(_, by)| by)
            .sum();
        let at = |o: usize| o.saturating_add_signed(-back);
        at(r.start)..at(r.end)
    }));
    kept.sort_by_key(|r| r.start);
    (out, kept)
}

/// The clause blocks in list items of `src` in canonical form, each at its item's indent: the
/// text, the opening fences of those left as written, and where the text moved (an offset of the
/// new text and by how many bytes what follows it moved).
fn format_nested(src: &str) -> (String, Vec<std::ops::Range<usize>>, Vec<(usize, isize)>) {
    let mut out = String::with_capacity(src.len());
    let (mut kept, mut shifts) = (Vec::new(), Vec::new());
    let mut from = 0;
    for (fence, content, indent) in nested_blocks(src) {
        let yaml: String = src[content.clone()]
            .split_inclusive('\n')
            .map(|l| l.get(indent..).unwrap_or("\n"))
            .collect();
        // Its lines are as wide as a top-level block's, indent included.
        let Some(body) = format_block(&yaml, WIDTH.saturating_sub(indent).max(WIDTH / 2)) else {
            kept.push(fence);
            continue;
        };
        let body: String = body
            .split_inclusive('\n')
            .map(|l| match l {
                "\n" => l.to_string(),
                _ => format!("{:indent$}{l}", ""),
            })
            .collect();
        out.push_str(&src[from..content.start]);
        out.push_str(&body);
        shifts.push((out.len(), body.len() as isize - content.len() as isize));
        from = content.end;
    }
    out.push_str(&src[from..]);
    (out, kept, shifts)
}

/// The clause blocks inside list items (as the loader reads them), each as its opening fence, its
/// YAML lines and the indent they share with the fences. A block whose fences are not exactly
/// ```` ```clause ```` and ```` ``` ```` at that indent, or whose lines are indented less, is not
/// offered: its layout is left alone.
fn nested_blocks(src: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>, usize)> {
    clause_fences(src)
        .into_iter()
        .filter(|(top, _)| !top)
        .filter_map(|(_, range)| indented_fences(src, range))
        .collect()
}

/// Every ```` ```clause ```` block of a chapter as pulldown-cmark (and so the loader) sees it: whether
/// it is top-level, and its range.
fn clause_fences(src: &str) -> Vec<(bool, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (ev, range) in Parser::new_ext(src, markdown_options()).into_offset_iter() {
        match ev {
            Event::Start(tag) => {
                if let Tag::CodeBlock(CodeBlockKind::Fenced(info)) = &tag
                    && info.as_ref() == "clause"
                {
                    out.push((depth == 0, range));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    out
}

/// The nested block at `range` (from its ```` ```clause ```` to its closing fence): its fence,
/// content and indent (the fence's column), if every line of it is indented by that much and the
/// closing fence is ```` ``` ```` at that indent.
fn indented_fences(
    src: &str,
    range: std::ops::Range<usize>,
) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>, usize)> {
    let line_start = src[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = src[line_start..range.start].chars().count();
    if !src[range.start..].starts_with("```clause\n") || !src.is_char_boundary(range.start) {
        return None;
    }
    let content_start = range.start + "```clause\n".len();
    let body = src[..range.end].trim_end_matches('\n');
    let last_start = body.rfind('\n')? + 1;
    if last_start < content_start || body[last_start..] != format!("{:indent$}```", "") {
        return None;
    }
    let content = content_start..last_start;
    let lines_indented = src[content.clone()].split_inclusive('\n').all(|l| {
        let spaces = l.bytes().take_while(|b| *b == b' ').count();
        spaces >= indent || l.trim().is_empty() && l.bytes().all(|b| b == b' ' || b == b'\n')
    });
    lines_indented.then(|| {
        (
            range.start..range.start + "```clause".len(),
            content,
            indent,
        )
    })
}

/// [`format_chapter_with_kept`] for the top-level blocks only.
fn format_top_level(src: &str) -> (String, Vec<std::ops::Range<usize>>) {
    let mut kept = Vec::new();
    let mut out = String::with_capacity(src.len() + 64);
    let mut from = 0;
    for (block, content) in clause_blocks(src) {
        // The text before the block, without blank lines at its end (its leading ones were
        // skipped after the previous block), a blank line on each side.
        let before = &src[from..block.start];
        let prose = &before[..content_end(before)];
        if !prose.is_empty() {
            if from > 0 {
                out.push('\n');
            }
            out.push_str(prose);
        }
        if !out.is_empty() {
            out.push('\n');
        }
        match format_block(&src[content], WIDTH) {
            Some(body) => {
                out.push_str("```clause\n");
                out.push_str(&body);
                out.push_str("```\n");
            }
            None => {
                kept.push(block.start..block.start + "```clause".len());
                out.push_str(&src[block.clone()]);
                if !out.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        from = block.end + blank_start(&src[block.end..]);
    }
    let tail = &src[from..];
    if from == 0 {
        out.push_str(src);
    } else if !tail.trim().is_empty() {
        out.push('\n');
        out.push_str(tail);
    }
    (out, kept)
}

/// Where the blank lines at the end of `s` start: just after the newline of its last line that
/// holds more than whitespace (0 when there is none). Trailing spaces of that line are kept: in
/// an indented code block they are content.
fn content_end(s: &str) -> usize {
    let (mut end, mut offset) = (0, 0);
    for line in s.split_inclusive('\n') {
        offset += line.len();
        if !line.trim().is_empty() {
            end = offset;
        }
    }
    end
}

/// How many bytes of blank lines `s` starts with (whole lines only).
fn blank_start(s: &str) -> usize {
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        if !line.trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        offset += line.len();
    }
    offset
}

/// The top-level ```` ```clause ```` blocks of a chapter (as pulldown-cmark, and so the loader, sees
/// them), each as its whole range (fences included, to the end of the closing fence's line) and
/// its content. A block whose fences are not exactly ```` ```clause ```` and ```` ``` ```` lines
/// is not offered: its layout is left alone.
fn clause_blocks(src: &str) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    clause_fences(src)
        .into_iter()
        .filter(|(top, _)| *top)
        .filter_map(|(_, range)| exact_fences(src, range))
        .collect()
}

/// The block at `range` if its first line is ```` ```clause ```` and its last ```` ``` ````, both
/// at the start of a line.
fn exact_fences(
    src: &str,
    range: std::ops::Range<usize>,
) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    if range.start > 0 && src.as_bytes()[range.start - 1] != b'\n' {
        return None;
    }
    let text = &src[range.clone()];
    let first_end = text.find('\n')?;
    if &text[..first_end] != "```clause" {
        return None;
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    let last_start = body.rfind('\n')? + 1;
    if &body[last_start..] != "```" || last_start <= first_end {
        return None;
    }
    let end = range.start + body.len() + usize::from(text.ends_with('\n'));
    Some((
        range.start..end,
        range.start + first_end + 1..range.start + last_start,
    ))
}

/// A block's YAML in canonical form, or `None` to leave the block as it is (a comment, which
/// rewriting would lose; YAML that does not parse; an unknown field; a layout this formatter does
/// not understand).
///
/// The block is read as the loader reads it ([`ClauseYaml`]) and its fields written in the
/// canonical order. Where each piece of the block is one field, a folded or literal text an editor
/// laid out is kept when it is already canonical; any other value is written anew. The result must
/// read back to the same fields, or the block is kept as written.
fn format_block(content: &str, width: usize) -> Option<String> {
    if has_comment(content) {
        return None;
    }
    let block = ClauseYaml::parse(content).ok()?;
    if block.unknown().next().is_some() {
        return None;
    }
    let fields = block.fields();
    let chunks = chunks(content);
    let written: Option<Vec<&str>> = if chunks.len() == fields.len() {
        fields
            .iter()
            .map(|(k, _)| {
                let head = format!("{k}:");
                chunks.iter().find(|c| c.starts_with(&head)).copied()
            })
            .collect()
    } else {
        None
    };
    let out = format_fields(&fields, written.as_deref(), width)?;
    let again = ClauseYaml::parse(&out).ok()?;
    (values(&again) == values(&block)).then_some(out)
}

/// What a block says, without where: each field's name and value(s).
fn values(block: &ClauseYaml) -> Vec<(&'static str, Vec<String>)> {
    block
        .fields()
        .into_iter()
        .map(|(k, v)| match v {
            FieldValue::Text(s) => (k, vec![s.value.clone()]),
            FieldValue::List(items) => (k, items.iter().map(|i| i.value.clone()).collect()),
        })
        .collect()
}

/// Does the block hold something YAML reads as a comment (a `#` starting a line or after a space
/// or tab, outside the text of a `>`/`|` block scalar, where it is a character)? Conservative: a
/// `#` after a space inside a quoted text counts too, and such a block is left as written.
fn has_comment(content: &str) -> bool {
    // Inside a block scalar: the indentation of its first text line, once seen.
    let mut block_scalar: Option<Option<usize>> = None;
    for line in content.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(text_indent) = &mut block_scalar {
            if line.trim().is_empty() {
                continue;
            }
            let at = *text_indent.get_or_insert(indent);
            if indent > 0 && indent >= at {
                continue;
            }
        }
        if line.trim_start().starts_with('#') || line.contains(" #") || line.contains("\t#") {
            return true;
        }
        block_scalar = line
            .split_once(':')
            .is_some_and(|(_, v)| v.trim_start().starts_with(['>', '|']))
            .then_some(None);
    }
    false
}

/// The canonical text of `fields` (already in the canonical order, see [`ClauseYaml::fields`]).
/// With `written` (each field as written, in the same order), a folded or literal text already in
/// canonical shape is kept as the editor wrote it; without, every value is written anew.
fn format_fields(
    fields: &[(&str, FieldValue)],
    written: Option<&[&str]>,
    width: usize,
) -> Option<String> {
    let mut out = String::new();
    for (i, (key, value)) in fields.iter().enumerate() {
        let text = match value {
            FieldValue::Text(s) => match written {
                Some(chunks) => scalar(key, &s.value, chunks[i], width)?,
                None => scalar_within(key, &s.value, width)?,
            },
            FieldValue::List([]) => return None,
            FieldValue::List(items) => {
                let mut t = format!("{key}:\n");
                for item in *items {
                    let _ = writeln!(t, "  - {}", inline(&item.value)?);
                }
                t
            }
        };
        out.push_str(&text);
    }
    Some(out)
}

/// The block's text cut at each line that starts a field (not indented, not blank), each piece
/// without its trailing blank lines.
fn chunks(content: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            starts.push(offset);
        }
        offset += line.len();
    }
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(content.len());
        let piece = &content[s..e];
        let piece = &piece[..content_end(piece)];
        out.push(piece.strip_suffix('\n').unwrap_or(piece));
    }
    out
}

/// `key: value` (with its newline) for a scalar field; `chunk` is the field as written.
fn scalar(key: &str, value: &str, chunk: &str, width: usize) -> Option<String> {
    let header = chunk.lines().next().unwrap_or("");
    if value.contains('\n') && header == format!("{key}: |") {
        // A literal text (a list inside it): kept as written.
        return Some(format!("{chunk}\n"));
    }
    if header == format!("{key}: >-") && folded_as_is(value, chunk, width) {
        return Some(format!("{chunk}\n"));
    }
    scalar_within(key, value, width)
}

/// `key: value` (with its newline) written anew: plain when YAML allows it and the line fits,
/// else folded, else double-quoted; a text of several lines as a literal block (`|`, or `|-`
/// without a final line break) when its lines allow one.
pub(crate) fn fresh_scalar(key: &str, value: &str) -> Option<String> {
    scalar_within(key, value, WIDTH)
}

/// [`fresh_scalar`] in lines of at most `width` characters.
fn scalar_within(key: &str, value: &str, width: usize) -> Option<String> {
    if value.contains('\n') {
        return literal(key, value);
    }
    if plain_safe(value) && key.chars().count() + 2 + value.chars().count() <= width {
        return Some(format!("{key}: {value}\n"));
    }
    let quoted = quoted(value)?;
    if key.chars().count() + 2 + quoted.chars().count() <= width || !fold_safe(value) {
        return Some(format!("{key}: {quoted}\n"));
    }
    Some(format!("{key}: >-\n{}", fold(value, width)))
}

/// A text of several lines as a literal block, or `None` when a literal block cannot hold it as
/// it is (its first line indented, more than one final line break, a line of only spaces, a
/// control character): such a block is left as written.
fn literal(key: &str, value: &str) -> Option<String> {
    let (body, chomp) = match value.strip_suffix('\n') {
        Some(b) if b.ends_with('\n') => return None,
        Some(b) => (b, ""),
        None => (value, "-"),
    };
    let bad = |l: &str| {
        (!l.is_empty() && l.trim_matches(' ').is_empty())
            || l.chars().any(|c| c.is_control() && c != '\t')
            || l.contains('\u{feff}')
    };
    if body.starts_with([' ', '\t']) || body.is_empty() || body.lines().any(bad) {
        return None;
    }
    let mut out = format!("{key}: |{chomp}\n");
    for line in body.split('\n') {
        if !line.is_empty() {
            out.push_str("  ");
            out.push_str(line);
        }
        out.push('\n');
    }
    Some(out)
}

/// A list item or other value that must stay on one line: plain when YAML allows, else quoted.
fn inline(value: &str) -> Option<String> {
    if plain_safe(value) {
        Some(value.to_owned())
    } else {
        quoted(value)
    }
}

/// A JSON string is a YAML double-quoted scalar with the same value.
fn quoted(value: &str) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// Is the folded text `chunk` already in canonical shape: each line indented by two spaces, no
/// blank or trailing-space lines, each line at most `width` but for its last word (a long link
/// may end a line rather than stand alone), and the lines joined by spaces exactly the value?
fn folded_as_is(value: &str, chunk: &str, width: usize) -> bool {
    let lines: Vec<&str> = chunk.lines().skip(1).collect();
    !lines.is_empty()
        && fold_safe(value)
        && (!wraps(value) && lines.len() == 1 || wraps(value))
        && lines.iter().all(|l| {
            l.strip_prefix("  ").is_some_and(|t| {
                !t.is_empty()
                    && !t.starts_with(' ')
                    && !t.ends_with(' ')
                    && (!wraps(value)
                        || l.rsplit_once(' ')
                            .is_none_or(|(head, _)| head.chars().count() <= width))
            })
        })
        && lines.iter().map(|l| &l[2..]).collect::<Vec<_>>().join(" ") == value
}

/// Can `value` be written as a folded scalar whose lines join back to it: words separated by
/// single spaces, nothing else that YAML would fold or keep differently.
fn fold_safe(value: &str) -> bool {
    !value.is_empty()
        && value.split(' ').all(|w| !w.is_empty())
        && !value.chars().any(char::is_control)
        && !value.contains('\u{feff}')
        && !value.chars().any(|c| c != ' ' && c.is_whitespace())
}

/// Is `value` folded into lines at all? Not when it holds Chinese, Japanese or Korean: written
/// without spaces between words, such a text could only be broken at the spaces around an
/// embedded Latin word or link, which scatters a sentence (`SHOULD` / `NOT` on two lines); it
/// stays on one line.
fn wraps(value: &str) -> bool {
    !value.chars().any(|c| {
        matches!(c,
            '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{A4CF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FE30}'..='\u{FE4F}'
            | '\u{FF00}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}'
            | '\u{20000}'..='\u{3FFFD}')
    })
}

/// The value folded greedily into lines of at most `width` characters (indent included); one
/// line when it does not [`wrap`](wraps).
fn fold(value: &str, width: usize) -> String {
    if !wraps(value) {
        return format!("  {value}\n");
    }
    let mut out = String::new();
    let mut line = String::from("  ");
    for word in value.split(' ') {
        if line.len() > 2 && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = String::from("  ");
        }
        if line.len() > 2 {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Can `value` be written without quotes and read back as the same string? Exactly when the
/// loader's reader ([`ClauseYaml`]) reads `text: value` back as it: one definition of what a plain
/// scalar is.
fn plain_safe(value: &str) -> bool {
    if value.contains(['\n', '\r']) || value.starts_with('"') {
        return false;
    }
    ClauseYaml::parse(&format!("text: {value}\n"))
        .ok()
        .and_then(|c| c.text)
        .is_some_and(|t| t.value == value)
}

/// What a spec says, without where it says it: every clause's fields, every translation, every
/// heading and every piece of prose (without the blank lines around it), and the codes of the
/// diagnostics. Formatting must leave it unchanged.
#[derive(Debug, PartialEq, Eq)]
pub struct Meaning(Vec<String>);

impl Meaning {
    /// The meaning of `spec`, whose load reported `codes`.
    pub fn of(spec: &Spec, codes: &[&str]) -> Self {
        let mut out = Vec::new();
        let c = &spec.contract;
        out.push(format!(
            "contract {:?} {:?} {:?} {:?}",
            c.title, c.version, c.languages, c.chapters
        ));
        for cl in &spec.clauses {
            // Every field is named, so a new one does not compile until it is part of the meaning
            // (or said not to be: the stamp follows from the text, the rest is where it is written).
            let kcontract_spec::Clause {
                id,
                level,
                keyword,
                actor,
                text,
                stamp: _,
                verify,
                reason,
                implicit,
                oci,
                upstream_tests,
                review,
                chapter,
                section,
                file: _,
                line: _,
                span: _,
                id_span: _,
            } = cl;
            let review = review.as_ref().map(|(note, _)| note);
            out.push(format!(
                "clause {id} {level:?} {keyword:?} {actor} {text:?} {verify} {reason:?} {implicit:?} \
                 {oci:?} {upstream_tests:?} {review:?} {chapter} {section:?}"
            ));
        }
        let translated = spec.translations.iter().flat_map(|t| {
            t.clauses.iter().flatten().map(move |c| {
                format!(
                    "translation {} {} {:?} {:?} {:?} {}",
                    t.lang, c.id, c.text, c.reason, c.implicit, c.source
                )
            })
        });
        out.extend(translated);
        let docs = spec
            .documents
            .iter()
            .chain(spec.translations.iter().flat_map(|t| &t.documents));
        for d in docs {
            out.push(format!("document {} {} {:?}", d.lang, d.chapter, d.title));
            for h in &d.headings {
                out.push(format!("heading {} {:?} {}", h.level, h.title, h.anchor));
            }
            for b in &d.blocks {
                out.push(match b {
                    // The clause blocks of its list items are clauses above.
                    Block::Prose(p) => {
                        format!("prose {:?}", p.without_clauses().trim_matches(['\n', ' ']))
                    }
                    Block::Clause(i) => format!("block {i}"),
                    Block::Untranslated(p) => {
                        format!("untranslated {:?}", p.without_clauses().trim())
                    }
                });
            }
        }
        let mut codes: Vec<&str> = codes.to_vec();
        codes.sort_unstable();
        out.push(format!("diagnostics {codes:?}"));
        Meaning(out)
    }

    /// The first line where two meanings differ, for an error message.
    pub fn first_difference(&self, other: &Meaning) -> Option<(String, String)> {
        let n = self.0.len().max(other.0.len());
        (0..n).find_map(|i| {
            let (a, b) = (self.0.get(i), other.0.get(i));
            (a != b).then(|| {
                (
                    a.cloned().unwrap_or_default(),
                    b.cloned().unwrap_or_default(),
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_in_a_block_scalars_text_is_no_comment() {
        assert!(!has_comment(
            "text: >-\n  see knative/serving #9683\n  and # more\nverify: manual\n"
        ));
        assert!(has_comment(
            "text: >-\n  some text\n # a comment, less indented\nverify: manual\n"
        ));
        assert!(has_comment("text: plain #comment\n"));
        assert!(has_comment("# first\nid: a.b\n"));
        assert!(has_comment("text: |\n  a\nverify: manual # why\n"));
    }

    /// A clause block in a list item is formatted at its item's indent; the list is left as
    /// written; one left as written (a comment) is named at its fence in the original text, after
    /// a nested block above it that formatting made shorter.
    #[test]
    fn a_block_in_a_list_item_is_formatted_in_place() {
        let src = "# T\n\n- Item:\n\n  ```clause\n  level: MUST\n  id: a.b\n  actor: \"platform\"\n  text: The platform MUST do it.\n  verify: manual\n  ```\n- ```clause\n  id: a.c\n  level: MAY\n  actor: platform\n  text: The platform MAY do it.\n  verify: manual\n  ```\n\n```clause\nid: a.d # a comment\nlevel: MAY\nactor: platform\ntext: The platform MAY rest.\nverify: manual\n```\n";
        let want = "# T\n\n- Item:\n\n  ```clause\n  id: a.b\n  level: MUST\n  actor: platform\n  text: The platform MUST do it.\n  verify: manual\n  ```\n- ```clause\n  id: a.c\n  level: MAY\n  actor: platform\n  text: The platform MAY do it.\n  verify: manual\n  ```\n\n```clause\nid: a.d # a comment\nlevel: MAY\nactor: platform\ntext: The platform MAY rest.\nverify: manual\n```\n";
        let (out, kept) = format_chapter_with_kept(src);
        assert_eq!(out, want);
        assert_eq!(format_chapter(&out), out);
        let at = src.rfind("```clause").unwrap();
        assert_eq!(kept, vec![at..at + "```clause".len()]);
    }

    /// A long text of a block in a list item is folded so that its lines, indent included, are
    /// no wider than a top-level block's.
    #[test]
    fn a_block_in_a_list_item_folds_within_the_width() {
        let words = "The platform MUST keep every word of this sentence on lines that fit the width of the page even when indented.";
        let src = format!(
            "- Item:\n  - Part:\n\n    ```clause\n    id: a.b\n    level: MUST\n    actor: platform\n    text: {words} {words}\n    verify: manual\n    ```\n"
        );
        let out = format_chapter(&src);
        assert!(out.contains("    text: >-\n"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= WIDTH), "{out}");
        assert_eq!(format_chapter(&out), out);
    }

    #[test]
    fn orders_unquotes_folds_and_spaces_blocks() {
        let src = "# T\nSome prose.\n```clause\nlevel: MUST\nid: a.b\nactor: \"platform\"\ntext: The platform MUST do a thing that is described at such a length that the line is far over the limit of a hundred characters.\nverify: manual\n```\n\n\n\nMore.\n";
        let want = "# T\nSome prose.\n\n```clause\nid: a.b\nlevel: MUST\nactor: platform\ntext: >-\n  The platform MUST do a thing that is described at such a length that the line is far over the\n  limit of a hundred characters.\nverify: manual\n```\n\nMore.\n";
        assert_eq!(format_chapter(src), want);
        assert_eq!(format_chapter(want), want);
    }

    #[test]
    fn every_clause_field_has_its_place_and_the_stamp_is_last() {
        // `review:` (the loader's field list, one definition) is formatted, not left as written;
        // a translation's `source` stamp goes after everything it seals.
        let src = "```clause\nreview: split it\nsource: 0123456789ab\nverify: manual\nid: a.b\nlevel: MUST\nactor: platform\ntext: The platform MUST x.\n```\n";
        let want = "```clause\nid: a.b\nlevel: MUST\nactor: platform\ntext: The platform MUST x.\nverify: manual\nreview: split it\nsource: 0123456789ab\n```\n";
        assert_eq!(format_chapter(src), want);
    }

    #[test]
    fn leaves_blocks_outside_the_subset_alone() {
        let src = "```clause\nid: a.b # a comment\nlevel: MUST\n```\n";
        assert_eq!(format_chapter(src), src);
        // In a list item too (`a_block_in_a_list_item_is_formatted_in_place` formats one).
        let nested = "- item\n\n  ```clause\n  level: MUST # a comment\n  id: a.b\n  ```\n";
        assert_eq!(format_chapter(nested), nested);
    }

    /// A clause block never closed (K0122), at the end of the file or of its list item, is left
    /// byte for byte as written, trailing blank lines included; the blocks before it are formatted.
    #[test]
    fn a_block_never_closed_is_left_as_written() {
        let open = "```clause\nlevel: MUST\nid: a.c\nactor: platform\ntext: \"It MUST.\"\nverify: manual\n\n";
        let src = format!(
            "# T\n\n```clause\nlevel: MAY\nid: a.b\nactor: platform\ntext: It MAY.\nverify: manual\n```\nProse.\n\n{open}"
        );
        let out = format_chapter(&src);
        assert!(out.ends_with(&format!("Prose.\n\n{open}")), "{out}");
        assert!(
            out.starts_with("# T\n\n```clause\nid: a.b\nlevel: MAY\n"),
            "{out}"
        );
        let nested = "- Item:\n  ```clause\n  level: MUST\n  id: a.c\n  actor: platform\n  text: It MUST.\n  verify: manual\n- Next.\n";
        assert_eq!(format_chapter(nested), nested);
        for end in [open.trim_end(), "```clause"] {
            assert_eq!(format_chapter(end), end);
        }
    }

    #[test]
    fn plain_only_when_safe() {
        for v in [
            "- x", "a: b", "a #b", "\"q\"", " x", "x ", "", "[a]", "*x", "a\nb",
        ] {
            assert!(!plain_safe(v), "{v:?}");
        }
        assert!(plain_safe("The container MUST do `x`."));
    }
}
