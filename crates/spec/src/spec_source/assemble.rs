//! The source language's chapters assembled into documents and one list of clauses, with the id
//! index (ids are global across chapters).

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::chapter::{ParsedChapter, Piece};
use crate::diagnostic::{Diagnostic, Span};
use crate::spec::{Block, Clause, Document};

/// The source language assembled: its documents and clauses in chapter order, the id index, and
/// what assembling reports (duplicate ids).
pub(super) struct SourceSpec {
    pub(super) documents: Vec<Document>,
    pub(super) clauses: Vec<Clause>,
    pub(super) by_id: BTreeMap<String, usize>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Ids of clause blocks left out for their errors (already reported).
    pub(super) unbuilt: std::collections::BTreeSet<String>,
}

/// `parsed`: each readable chapter file in contract order, with its chapter name and path.
pub(super) fn assemble_source(
    parsed: Vec<(String, std::path::PathBuf, ParsedChapter)>,
    source_lang: &str,
) -> SourceSpec {
    let mut clauses = Vec::new();
    let mut documents = Vec::with_capacity(parsed.len());
    let mut unbuilt = std::collections::BTreeSet::new();
    for (chapter, path, parsed) in parsed {
        unbuilt.extend(parsed.unbuilt);
        let mut blocks = Vec::with_capacity(parsed.pieces.len());
        for piece in parsed.pieces {
            match piece {
                Piece::Prose(p) => blocks.push(Block::Prose(p)),
                Piece::Clause(c) => {
                    blocks.push(Block::Clause(clauses.len()));
                    clauses.push(*c);
                }
                Piece::Translated(_) => {}
            }
        }
        documents.push(Document {
            title: parsed.title.unwrap_or_else(|| chapter.clone()),
            chapter,
            lang: source_lang.to_string(),
            file: path,
            headings: parsed.headings,
            links: parsed.links,
            link_defs: parsed.link_defs,
            blocks,
        });
    }
    let mut diagnostics = Vec::new();
    let by_id = index_ids(&clauses, &mut diagnostics);
    SourceSpec {
        documents,
        clauses,
        by_id,
        diagnostics,
        unbuilt,
    }
}

/// The id → index map. Ids are global: the first definition wins, later ones are errors pointing
/// back at it (reported in clause order).
fn index_ids(clauses: &[Clause], diags: &mut Vec<Diagnostic>) -> BTreeMap<String, usize> {
    let mut by_id = BTreeMap::new();
    for (i, c) in clauses.iter().enumerate() {
        match by_id.entry(c.id.clone()) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(first) => {
                diags.push(duplicate(&c.id, &c.id_span, &clauses[*first.get()].id_span));
            }
        }
    }
    by_id
}

/// A clause id defined twice in the source language.
fn duplicate(id: &str, again: &Span, first: &Span) -> Diagnostic {
    Diagnostic::error("K0108", format!("duplicate clause id `{id}`"))
        .at(again.clone(), "defined again here")
        .with_context(first.clone(), "first defined here")
        .help(
            "ids are unique across the whole contract and never reused; give this clause a new id",
        )
}

/// A clause translated twice in one language: one of the two is to go, not to be renamed.
pub(super) fn translated_twice(id: &str, again: &Span, first: &Span) -> Diagnostic {
    Diagnostic::error("K0108", format!("duplicate clause id `{id}`"))
        .at(again.clone(), "translated again here")
        .with_context(first.clone(), "first translated here")
        .help("a clause has one translation per language: remove one of the two (or fix the id of the one that translates another clause)")
}
