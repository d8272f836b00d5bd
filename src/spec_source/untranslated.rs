//! What a translation has not translated yet, taken from the source chapter: a chapter file that
//! does not exist, the sections after the translation's last heading, and a section whose heading
//! is translated but none of its prose. The reader sees them in the source language under a banner
//! (`Block::Untranslated`), never a page with parts silently missing.
//!
//! Sections are matched by position, as headings are ([`super::translation`]: a translated heading
//! takes the id of the source heading at the same position). Where the translation's headings do
//! not follow the source's (K0307), its page is left as written.

use pulldown_cmark::{Event, Parser, Tag};

use crate::spec::{Block, Document};

/// A piece of a chapter's blocks: a top-level heading (its Markdown), other prose, or a clause.
#[derive(Clone, Debug)]
enum Item {
    Heading(String),
    Prose(String),
    Clause(usize),
}

/// The items of one section: what follows a heading up to the next (the first section is what
/// comes before the first heading).
type Section = Vec<Item>;

/// `blocks` cut into sections at their top-level headings (the headings `Document::headings`
/// lists, in the same order).
fn sections(blocks: &[Block]) -> Vec<Section> {
    let mut out: Vec<Section> = vec![Vec::new()];
    for b in blocks {
        match b {
            Block::Clause(i) => out.last_mut().map_or((), |s| s.push(Item::Clause(*i))),
            Block::Prose(p) | Block::Untranslated(p) => {
                let mut at = 0;
                for range in top_level_headings(p) {
                    push_prose(&mut out, &p[at..range.start]);
                    out.push(vec![Item::Heading(p[range.clone()].to_string())]);
                    at = range.end;
                }
                push_prose(&mut out, &p[at..]);
            }
        }
    }
    out
}

fn push_prose(out: &mut [Section], text: &str) {
    if !text.trim().is_empty()
        && let Some(s) = out.last_mut()
    {
        s.push(Item::Prose(text.to_string()));
    }
}

/// The byte ranges of the top-level headings of `markdown` (as the chapter parser counts them).
fn top_level_headings(markdown: &str) -> Vec<std::ops::Range<usize>> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (ev, range) in Parser::new_ext(markdown, super::markdown_options()).into_offset_iter() {
        match ev {
            Event::Start(Tag::Heading { .. }) if depth == 0 => {
                out.push(range);
                depth += 1;
            }
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    out
}

/// How many paragraphs `markdown` has: its top-level blocks other than headings and HTML blocks
/// (comments to translators), counted by `i18n status` and telling whether a section has prose.
pub(crate) fn paragraphs(markdown: &str) -> usize {
    let mut depth = 0usize;
    let mut n = 0;
    for ev in Parser::new_ext(markdown, super::markdown_options()) {
        match ev {
            Event::Start(tag) => {
                if depth == 0 && !matches!(tag, Tag::Heading { .. } | Tag::HtmlBlock) {
                    n += 1;
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    n
}

fn has_prose(section: &Section) -> bool {
    section
        .iter()
        .any(|i| matches!(i, Item::Prose(p) if paragraphs(p) > 0))
}

/// Fill `doc`, a translated chapter, with what it lacks of `source`, its source chapter, in the
/// source language (see the module's documentation). A section's untranslated clauses stay to
/// [`super::translation::place_untranslated_in`].
pub(super) fn fill_in(source: &Document, doc: &mut Document) {
    let follows = doc.headings.len() <= source.headings.len()
        && doc
            .headings
            .iter()
            .zip(&source.headings)
            .all(|(t, s)| t.level == s.level);
    if !follows {
        return;
    }
    let (src, tr) = (sections(&source.blocks), sections(&doc.blocks));
    let present = clauses_in(doc);
    let mut out: Vec<Block> = Vec::with_capacity(doc.blocks.len());
    let mut filled = false;
    // Consecutive untranslated pieces are one block: one banner over them.
    let mut push = |b: Block| match (out.last_mut(), b) {
        (Some(Block::Untranslated(last)), Block::Untranslated(more)) => {
            last.push_str("\n\n");
            last.push_str(&more);
        }
        (_, b) => {
            filled |= matches!(b, Block::Untranslated(_));
            out.push(b);
        }
    };
    for (k, s) in src.iter().enumerate() {
        let Some(t) = tr.get(k) else {
            // A section the translation does not have: its heading and prose from the source, its
            // clauses where the translation does not show them elsewhere.
            for item in s {
                match item {
                    Item::Heading(p) => push(Block::Untranslated(p.clone())),
                    Item::Prose(p) if paragraphs(p) > 0 => push(Block::Untranslated(p.clone())),
                    Item::Prose(_) => {}
                    Item::Clause(i) if !present.contains(i) => push(Block::Clause(*i)),
                    Item::Clause(_) => {}
                }
            }
            continue;
        };
        if has_prose(t) || !has_prose(s) {
            for item in t {
                push(as_block(item));
            }
            continue;
        }
        // The heading is translated, the prose is not: the source's prose, in its order with the
        // clauses of the translated section.
        let mut shown = std::collections::BTreeSet::new();
        for item in t.iter().filter(|i| matches!(i, Item::Heading(_))) {
            push(as_block(item));
        }
        for item in s {
            match item {
                Item::Prose(p) if paragraphs(p) > 0 => push(Block::Untranslated(p.clone())),
                Item::Clause(i) if t.iter().any(|x| matches!(x, Item::Clause(j) if j == i)) => {
                    shown.insert(*i);
                    push(Block::Clause(*i));
                }
                _ => {}
            }
        }
        for item in t {
            match item {
                Item::Clause(i) if !shown.contains(i) => push(Block::Clause(*i)),
                Item::Prose(p) => push(Block::Prose(p.clone())),
                _ => {}
            }
        }
    }
    if !filled {
        return;
    }
    doc.blocks = out;
    let have = doc.headings.len();
    doc.headings.extend(source.headings[have..].iter().cloned());
    for (label, def) in &source.link_defs {
        doc.link_defs
            .entry(label.clone())
            .or_insert_with(|| def.clone());
    }
}

/// The clauses `doc` shows (by index into `Spec::clauses`).
pub(super) fn clauses_in(doc: &Document) -> std::collections::BTreeSet<usize> {
    doc.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Clause(i) => Some(*i),
            _ => None,
        })
        .collect()
}

fn as_block(item: &Item) -> Block {
    match item {
        Item::Heading(p) | Item::Prose(p) => Block::Prose(p.clone()),
        Item::Clause(i) => Block::Clause(*i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_count_top_level_blocks_but_headings_and_comments() {
        assert_eq!(paragraphs("# T\n\nOne.\n\n- a\n- b\n\n<!-- note -->\n"), 2);
        assert_eq!(paragraphs("## Only a heading\n"), 0);
    }

    #[test]
    fn sections_cut_at_top_level_headings() {
        let s = sections(&[
            Block::Prose("Intro.\n\n# A\n\nText.\n\n> # quoted\n".into()),
            Block::Clause(0),
            Block::Prose("## B\n".into()),
        ]);
        assert_eq!(s.len(), 3);
        assert!(matches!(
            &s[1][..],
            [Item::Heading(_), Item::Prose(_), Item::Clause(0)]
        ));
    }
}
