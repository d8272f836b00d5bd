//! What a translation has not translated yet, taken from the source chapter: a chapter file that
//! does not exist, the sections after the translation's last heading, and a section whose heading
//! is translated but none of its prose. The reader sees them in the source language under a banner
//! (`Block::Untranslated`), never a page with parts silently missing.
//!
//! Sections are matched by position, as headings are ([`super::translation`]: a translated heading
//! takes the id of the source heading at the same position). Where the translation's headings do
//! not follow the source's (K0307: a heading that keeps an id of its own text), its page is left as
//! written.

use pulldown_cmark::{Event, Parser, Tag};

use crate::spec::{Block, Document, Prose};

/// A piece of a chapter's blocks: a top-level heading (its Markdown), other prose, or a clause.
#[derive(Clone, Debug)]
enum Item {
    Heading(Prose),
    Prose(Prose),
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
                for range in top_level_headings(&p.text) {
                    push_prose(&mut out, p, at..range.start);
                    out.push(vec![Item::Heading(p.slice(range.clone()))]);
                    at = range.end;
                }
                push_prose(&mut out, p, at..p.text.len());
            }
        }
    }
    out
}

/// The part of `prose` at `range`, unless blank, as the last section's next item.
fn push_prose(out: &mut [Section], prose: &Prose, range: std::ops::Range<usize>) {
    if !prose.text[range.clone()].trim().is_empty()
        && let Some(s) = out.last_mut()
    {
        s.push(Item::Prose(prose.slice(range)));
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
pub fn paragraphs(markdown: &str) -> usize {
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
        .any(|i| matches!(i, Item::Prose(p) if paragraphs(&p.text) > 0))
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
            .all(|(t, s)| t.level == s.level && t.anchor == s.anchor);
    if !follows {
        return;
    }
    let (src, tr) = (sections(&source.blocks), sections(&doc.blocks));
    let present = clauses_in(doc);
    let mut out: Vec<Block> = Vec::with_capacity(doc.blocks.len());
    let mut filled = false;
    // Consecutive untranslated pieces are one block: one banner over them.
    let mut push = |b: Block| match (out.last_mut(), b) {
        (Some(Block::Untranslated(last)), Block::Untranslated(more)) => last.append(more),
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
                    Item::Prose(p) if paragraphs(&p.text) > 0 => {
                        push(Block::Untranslated(p.clone()))
                    }
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
                Item::Prose(p) if paragraphs(&p.text) > 0 => push(Block::Untranslated(p.clone())),
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

    /// The source's prose a translation lacks is cut at headings and joined again under one
    /// banner: the clause blocks of its list items keep their places through both, so that the
    /// page still shows each clause in its list item and nothing reads its YAML as prose.
    #[test]
    fn untranslated_prose_keeps_its_clause_blocks() {
        use std::path::{Path, PathBuf};
        let block = |id: &str| {
            format!(
                "  ```clause\n  id: {id}\n  level: MAY\n  actor: platform\n  \
                 text: The platform MAY wait.\n  verify: manual\n  ```\n"
            )
        };
        let (a, b) = (block("one.a"), block("one.b"));
        let mut files = std::collections::BTreeMap::new();
        for (path, text) in [
            (
                "s/contract.yaml",
                "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one]\n".to_string(),
            ),
            (
                "s/en/one.md",
                format!(
                    "# One\n\nIntro.\n\n## A\n\nText a.\n\n- a:\n{a}- after a\n\n## B\n\n- b:\n{b}"
                ),
            ),
            ("s/zh/one.md", "# 一\n\n介绍。\n".to_string()),
        ] {
            files.insert(PathBuf::from(path), text.into_bytes());
        }
        let opts = super::super::LoadOptions::default();
        let loaded =
            super::super::load_from(&super::super::Tree::Memory(files), Path::new("s"), opts);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let zh = &loaded.spec.translations[0].documents[0];
        let untranslated: Vec<&Prose> = zh
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Untranslated(p) => Some(p),
                _ => None,
            })
            .collect();
        let held: Vec<_> = untranslated.iter().flat_map(|p| p.blocks()).collect();
        assert_eq!(
            held,
            [(a.as_str(), Some("one.a")), (b.trim_end(), Some("one.b"))]
        );
        let around: Vec<String> = untranslated
            .iter()
            .map(|p| p.without_clauses().into_owned())
            .collect();
        assert_eq!(
            around,
            [
                "## A\n\n\n\nText a.\n\n- a:\n- after a",
                "## B\n\n\n\n- b:\n"
            ]
        );
    }

    /// Prose that holds no clause block.
    fn plain(text: &str) -> Prose {
        Prose {
            text: text.to_string(),
            clauses: Vec::new(),
        }
    }

    #[test]
    fn sections_cut_at_top_level_headings() {
        let s = sections(&[
            Block::Prose(plain("Intro.\n\n# A\n\nText.\n\n> # quoted\n")),
            Block::Clause(0),
            Block::Prose(plain("## B\n")),
        ]);
        assert_eq!(s.len(), 3);
        assert!(matches!(
            &s[1][..],
            [Item::Heading(_), Item::Prose(_), Item::Clause(0)]
        ));
    }
}
