//! Translations: a language's chapters mirror the source's; each translated clause is matched to
//! its source clause (by id), keeps its keywords, and carries the stamp of the source text it was
//! made from, so a changed source shows the translation as stale instead of silently wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::assemble::duplicate;
use super::chapter::{ParsedChapter, Piece};
use crate::diagnostic::Diagnostic;
use crate::keywords::levels_in;
use crate::spec::{Block, Document, Spec, Translation, TranslationState};

/// Load one translation: its chapters mirror the source's; each clause must translate an existing
/// source clause, keep its level, and carry the stamp of the source text it was made from.
pub(super) fn load_translation(
    lang: &str,
    parsed: Vec<(String, PathBuf, ParsedChapter)>,
    spec: &Spec,
    source_broken: bool,
    diags: &mut Vec<Diagnostic>,
) -> Translation {
    let mut tr = Translation {
        lang: lang.to_string(),
        ..Translation::default()
    };
    // Per source clause, the translation registered for it.
    tr.clauses = vec![None; spec.clauses.len()];
    for (chapter, file, parsed) in parsed {
        let mut blocks = Vec::with_capacity(parsed.pieces.len());
        for piece in parsed.pieces {
            match piece {
                Piece::Prose(p) => blocks.push(Block::Prose(p)),
                Piece::Clause(_) => {}
                Piece::Translated(t) => {
                    let Some(&idx) = spec.by_id.get(&t.id) else {
                        // With errors in the source language, its clause may be one that did not
                        // parse: that error is reported, and this would only be its echo.
                        if source_broken {
                            continue;
                        }
                        diags.push(
                            Diagnostic::error("K0302", format!("`{}` translates a clause that does not exist", t.id))
                                .at(t.span.clone(), format!("no clause `{}` in the source language", t.id))
                                .help("use the id of the source clause this translates; if the source clause was removed, remove its translation too"),
                        );
                        continue;
                    };
                    if let Some(first) = &tr.clauses[idx] {
                        diags.push(duplicate(&t.id, &t.span, &first.span));
                        continue;
                    }
                    let source = &spec.clauses[idx];
                    let (levels, expected) = (levels_in(&t.text), levels_in(&source.text));
                    // The translation uses the same keywords as the source text (none for an
                    // `implicit` clause), so the level stays visible in every language.
                    if levels != expected {
                        let says = |ls: &[crate::keywords::Level]| {
                            if ls.is_empty() {
                                "no keyword".to_string()
                            } else {
                                ls.iter()
                                    .map(|l| l.to_string())
                                    .collect::<Vec<_>>()
                                    .join(" and ")
                            }
                        };
                        diags.push(
                            Diagnostic::error("K0304", format!("the translation of `{}` says {}, the source text says {}", t.id, says(&levels), says(&expected)))
                                .at(t.span.clone(), "in this translated clause")
                                .help(format!("keep the English keyword next to the translation, e.g. 必须（{}）; a translation never changes the level", source.level)),
                        );
                    }
                    blocks.push(Block::Clause(idx));
                    tr.clauses[idx] = Some(t);
                }
            }
        }
        tr.documents.push(Document {
            title: parsed.title.unwrap_or_else(|| chapter.clone()),
            chapter,
            lang: lang.to_string(),
            file,
            headings: parsed.headings,
            blocks,
        });
    }
    place_untranslated(spec, &mut tr);
    tr
}

/// A source clause with no translation still appears on the translated page (with the source text
/// and a "not yet translated" badge), right after the translated clause that precedes it in the
/// source chapter — so a reader never silently misses a requirement.
fn place_untranslated(spec: &Spec, tr: &mut Translation) {
    let Translation {
        documents,
        clauses: translated,
        ..
    } = tr;
    let by_chapter: BTreeMap<&str, &Document> = spec
        .documents
        .iter()
        .map(|d| (d.chapter.as_str(), d))
        .collect();
    for doc in documents.iter_mut() {
        let Some(source_doc) = by_chapter.get(doc.chapter.as_str()) else {
            continue;
        };
        let mut previous: Option<usize> = None;
        for block in &source_doc.blocks {
            let Block::Clause(i) = block else { continue };
            if translated[*i].is_none() {
                let at = match previous {
                    Some(p) => doc
                        .blocks
                        .iter()
                        .position(|b| matches!(b, Block::Clause(x) if *x == p))
                        .map_or(doc.blocks.len(), |pos| pos + 1),
                    None => doc
                        .blocks
                        .iter()
                        .position(|b| matches!(b, Block::Clause(_)))
                        .unwrap_or(doc.blocks.len()),
                };
                doc.blocks.insert(at, Block::Clause(*i));
            }
            previous = Some(*i);
        }
    }
}

/// Missing and stale translations: warnings by default, errors under `--strict`.
pub(crate) fn translation_diagnostics(spec: &Spec, strict: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let make = |code, msg: String| {
        if strict {
            Diagnostic::error(code, msg)
        } else {
            Diagnostic::warning(code, msg)
        }
    };
    for tr in &spec.translations {
        let found = spec.clauses.iter().enumerate().filter_map(|(i, c)| {
            match tr.lookup(i, c) {
                (TranslationState::Missing, _) => Some(
                    make("K0301", format!("clause `{}` has no `{}` translation", c.id, tr.lang))
                        .at(c.id_span.clone(), format!("not translated into {}", tr.lang))
                        .help(format!("add a clause block with `id: {}`, `text:` and `source: {}` to spec/{}/{}.md", c.id, c.stamp, tr.lang, c.chapter)),
                ),
                (TranslationState::Stale, Some(t)) => Some(
                    make("K0303", format!("the `{}` translation of `{}` is stale: the source text changed", tr.lang, c.id))
                        .at(t.source_span.clone(), format!("made from {}, the source text is now {}", t.source, c.stamp))
                        .with_context(c.id_span.clone(), "the source clause")
                        .help(format!("update the translation to the current source text, then run `kcontract i18n stamp {}`", c.id)),
                ),
                _ => None,
            }
        });
        out.extend(found);
    }
    out
}
