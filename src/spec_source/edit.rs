//! The load after an edit of chapter files only, for the page `kcontract serve` shows first: the
//! last load's [`Spec`] with those chapters read, parsed and put in again, instead of every chapter
//! file read, the kept parses copied and the whole contract assembled (~170 ms at ×100 against a
//! few milliseconds).
//!
//! It is taken only where the result is sure to be what a full load gives, and that load to have
//! no errors; anywhere else it declines and the caller loads in full. What it relies on: the last
//! load (with the same [`ParseCache`]) had no errors, and since then no file but the chapter files
//! of the named chapters has changed (serve's watcher names every changed file). What it checks:
//! contract.yaml still reads as then; each language's file of each named chapter was read by the
//! last load and is UTF-8, and parses without an error; the source chapter defines the same clause
//! ids in the same order (so every clause keeps its index and no id can collide); each translated
//! clause of the chapter is in that language's file of the chapter and translates one of its
//! clauses, before and after (so no other chapter's translation depends on it); the translation
//! raises no error; and the whole contract's validation (translations, links, review notes) finds
//! none — of the links, only the edited chapters' when their sections kept their ids (clause ids
//! do): the others resolve as they did. `tests/edit.rs` holds the result equal to a full load after random edits.

use std::collections::BTreeSet;
use std::path::Path;

use super::chapter::{ParsedChapter, Piece, parse_chapter};
use super::clause_block::{self, Schema};
use super::translation::{place_untranslated_in, translate_chapter, translation_diagnostics};
use super::{LoadOptions, ParseCache, Tree, links};
use crate::diagnostic::{Diagnostic, FileId, SourceFile};
use crate::spec::{Block, Spec};

/// `last`, the [`Spec`] of the last load with `cache` (which had no errors), with the files of
/// `chapters` in every language read from `tree` again: what [`super::load_reusing`] would return
/// (see the module documentation), or `None` when that is not sure or that load has an error.
pub fn load_edited(
    tree: &Tree,
    dir: &Path,
    opts: LoadOptions,
    mut last: Spec,
    cache: &ParseCache,
    chapters: &BTreeSet<String>,
) -> Option<Spec> {
    let (contract_path, contract_text) = cache.contract()?;
    let contract = dir.join("contract.yaml");
    if contract_path != contract || tree.read(&contract).ok()? != contract_text.as_bytes() {
        return None;
    }
    if chapters.is_empty() {
        return None;
    }
    // Whether every edited chapter's sections kept their ids, in every language.
    let mut same_anchors = true;
    for chapter in chapters {
        same_anchors &= put_chapter(tree, &mut last, cache, chapter)?;
    }
    // The links: when no anchor changed (clause ids do not), the other chapters' links resolve
    // as they did in the last load, which had no errors; only the edited chapters' are checked.
    let links = if same_anchors {
        links::check_links_in(&last, Some(chapters))
    } else {
        links::check_links(&last)
    };
    let errors = |d: Vec<Diagnostic>| d.iter().any(Diagnostic::is_error);
    if errors(links)
        || errors(translation_diagnostics(&last, opts.strict))
        || errors(clause_block::review_diagnostics(&last, opts.strict))
    {
        return None;
    }
    Some(last)
}

/// One language's file of `chapter`, read and parsed as the full load would; `None` if it cannot
/// be, or has an error.
fn parse_again(
    tree: &Tree,
    spec: &Spec,
    cache: &ParseCache,
    chapter: &str,
    lang: &str,
    schema: Schema,
) -> Option<(FileId, std::path::PathBuf, ParsedChapter)> {
    let (id, path) = cache.file(lang, chapter)?;
    let text = String::from_utf8(tree.read(path).ok()?).ok()?;
    let file = SourceFile::new(path.to_path_buf(), text);
    let mut diags = Vec::new();
    let parsed = parse_chapter(id, &file, chapter, lang, schema, &spec.contract, &mut diags);
    if diags.iter().any(Diagnostic::is_error) || !parsed.unbuilt.is_empty() {
        return None;
    }
    Some((id, file.path, parsed))
}

/// Put `chapter`'s files (every language) into `spec` in place of what the last load read; whether
/// its sections kept their ids (anchors) in every language.
fn put_chapter(tree: &Tree, spec: &mut Spec, cache: &ParseCache, chapter: &str) -> Option<bool> {
    let d = spec.documents.iter().position(|d| d.chapter == chapter)?;
    let source_lang = spec.contract.languages.first()?.clone();
    let (_, path, parsed) = parse_again(tree, spec, cache, chapter, &source_lang, Schema::Source)?;
    // The chapter's clauses, by index: the same ids in the same order, or nothing is reused.
    let indices: Vec<usize> = spec.documents[d]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Clause(i) => Some(*i),
            Block::Prose(_) => None,
        })
        .collect();
    let new_clauses: Vec<_> = parsed
        .pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Clause(c) => Some(c),
            _ => None,
        })
        .collect();
    if new_clauses.len() != indices.len()
        || new_clauses
            .iter()
            .zip(&indices)
            .any(|(c, &i)| spec.clauses.get(i).is_none_or(|old| old.id != c.id))
    {
        return None;
    }
    let mut blocks = Vec::with_capacity(parsed.pieces.len());
    let mut at = indices.iter();
    for piece in parsed.pieces {
        match piece {
            Piece::Prose(p) => blocks.push(Block::Prose(p)),
            Piece::Clause(c) => {
                let i = *at.next()?;
                spec.clauses[i] = *c;
                blocks.push(Block::Clause(i));
            }
            Piece::Translated(_) => {}
        }
    }
    let doc = &mut spec.documents[d];
    let mut same_anchors = anchors(&doc.headings) == anchors(&parsed.headings);
    doc.title = parsed.title.unwrap_or_else(|| chapter.to_string());
    doc.file = path;
    doc.headings = parsed.headings;
    doc.links = parsed.links;
    doc.blocks = blocks;

    let ours: BTreeSet<usize> = indices.iter().copied().collect();
    for t in 0..spec.translations.len() {
        let lang = spec.translations[t].lang.clone();
        let (id, path, parsed) =
            parse_again(tree, spec, cache, chapter, &lang, Schema::Translation)?;
        let mut tr = std::mem::take(&mut spec.translations[t]);
        let done = translate_again(spec, &mut tr, &ours, chapter, id, path, parsed);
        spec.translations[t] = tr;
        same_anchors &= done?;
    }
    Some(same_anchors)
}

/// The ids of a chapter's sections, in order.
fn anchors(headings: &[crate::spec::Heading]) -> Vec<&str> {
    headings.iter().map(|h| h.anchor.as_str()).collect()
}

/// The translation `tr`'s file of `chapter` (file `id`) put in again from `parsed`; whether its
/// sections kept their ids.
fn translate_again(
    spec: &Spec,
    tr: &mut crate::spec::Translation,
    ours: &BTreeSet<usize>,
    chapter: &str,
    id: FileId,
    path: std::path::PathBuf,
    parsed: ParsedChapter,
) -> Option<bool> {
    let td = tr.documents.iter().position(|d| d.chapter == chapter)?;
    // Each translated clause of this file translates a clause of this chapter, and each clause of
    // this chapter that is translated is translated in this file: before the edit and after it.
    let from_file = |tr: &crate::spec::Translation| -> bool {
        tr.clauses.iter().enumerate().all(|(i, t)| match t {
            Some(t) => (t.span.file == id) == ours.contains(&i),
            None => true,
        })
    };
    if !from_file(tr) {
        return None;
    }
    for &i in ours {
        tr.clauses[i] = None;
    }
    let mut diags = Vec::new();
    let mut doc = translate_chapter(
        &tr.lang,
        chapter.to_string(),
        path,
        parsed,
        spec,
        &BTreeSet::new(),
        &mut tr.clauses,
        &mut diags,
    );
    if diags.iter().any(Diagnostic::is_error) || !from_file(tr) {
        return None;
    }
    let source_doc = spec.documents.iter().find(|d| d.chapter == chapter)?;
    place_untranslated_in(source_doc, &mut doc, &tr.clauses);
    let same_anchors = anchors(&tr.documents[td].headings) == anchors(&doc.headings);
    tr.documents[td] = doc;
    Some(same_anchors)
}
