//! Parsed chapter files kept between loads of the same spec folder, for `kcontract serve`: after an
//! edit of one chapter file, only that file is parsed again (parsing is most of a load: ~55 of
//! ~120 ms at ×100), and the others' parse results are reused.
//!
//! What parsing a chapter file depends on, and so what a kept result is keyed by: the file's text
//! and path, its [`FileId`] (the spans of the result and of its diagnostics point into the source
//! map by id), its language and schema, and the contract (its vocabulary). The contract is not
//! compared field by field: when `contract.yaml`'s path or text changed, nothing is reused. The
//! file id is the file's place in the order of reading (contract.yaml, the source language's
//! chapters, then each translation's), so it stays the same as long as the contract and the set of
//! readable chapter files do; when a file before it goes missing, the ids after it move and those
//! files are parsed again. Everything after parsing (assembly, the translations, validation) runs
//! in full on every load, so a load that reuses is the same as a fresh one by construction of the
//! key — `tests/reuse.rs` holds the two equal over random sequences of edits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::chapter::ParsedChapter;
use super::clause_block::Schema;
use crate::diagnostic::{Diagnostic, FileId};

/// Parsed chapter files of the last load (see the module documentation). Start with
/// `ParseCache::default()` and pass the same value to every [`super::load_reusing`] of a folder.
#[derive(Default)]
pub struct ParseCache {
    /// `contract.yaml`'s path and text when the chapters below were parsed.
    contract: Option<(PathBuf, String)>,
    /// By language and chapter: the chapter files read by the last load.
    chapters: HashMap<(String, String), Kept>,
    /// Of the chapter files the last load read, how many it parsed (the others it reused).
    parsed: usize,
}

impl ParseCache {
    /// The chapter files the last load parsed, and how many it read: serve's log says so.
    pub fn parsed(&self) -> (usize, usize) {
        (self.parsed, self.chapters.len())
    }

    /// The path and text of `contract.yaml` the last load read.
    pub(super) fn contract(&self) -> Option<(&Path, &str)> {
        self.contract
            .as_ref()
            .map(|(p, t)| (p.as_path(), t.as_str()))
    }

    /// The id and path the last load gave the chapter file of `chapter` in `lang`, if it read it.
    pub(super) fn file(&self, lang: &str, chapter: &str) -> Option<(FileId, &Path)> {
        let k = self
            .chapters
            .get(&(lang.to_string(), chapter.to_string()))?;
        Some((k.id, k.path.as_path()))
    }
}

/// One chapter file's parse, and what it was parsed from.
struct Kept {
    id: FileId,
    path: PathBuf,
    text: String,
    schema: Schema,
    parsed: ParsedChapter,
    diagnostics: Vec<Diagnostic>,
}

/// What a chapter file's parse depends on (see the module documentation): a kept parse is reused
/// only for a file that matches it in all of these.
#[derive(Clone, Copy)]
pub(super) struct FileKey<'a> {
    pub(super) lang: &'a str,
    pub(super) chapter: &'a str,
    pub(super) id: FileId,
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
    pub(super) schema: Schema,
}

/// One load's use of the cache: what the last load kept (taken out of the cache), and what this
/// load keeps for the next. Only chapter files this load read are kept, so a removed or renamed
/// chapter's result goes.
pub(super) struct Reuse<'c> {
    cache: &'c mut ParseCache,
    last: HashMap<(String, String), Kept>,
}

impl<'c> Reuse<'c> {
    /// Start a load whose `contract.yaml` (at `path`) reads `text`: a different contract drops
    /// everything kept.
    pub(super) fn start(cache: &'c mut ParseCache, path: &std::path::Path, text: &str) -> Self {
        let mut last = std::mem::take(&mut cache.chapters);
        let same = cache
            .contract
            .as_ref()
            .is_some_and(|(p, t)| p == path && t == text);
        if !same {
            last.clear();
            cache.contract = Some((path.to_path_buf(), text.to_string()));
        }
        cache.parsed = 0;
        Reuse { cache, last }
    }

    /// The kept parse of this chapter file, if it was parsed from exactly this file.
    pub(super) fn get(&self, file: &FileKey) -> Option<(ParsedChapter, Vec<Diagnostic>)> {
        let k = self
            .last
            .get(&(file.lang.to_string(), file.chapter.to_string()))?;
        (k.id == file.id && k.path == file.path && k.schema == file.schema && k.text == file.text)
            .then(|| (k.parsed.clone(), k.diagnostics.clone()))
    }

    /// Keep this load's parse of a chapter file for the next load. `reused`: it came from
    /// [`Self::get`], so the entry of the last load is moved over instead of copied again.
    pub(super) fn keep(
        &mut self,
        file: &FileKey,
        parsed: &ParsedChapter,
        diagnostics: &[Diagnostic],
        reused: bool,
    ) {
        let FileKey {
            lang,
            chapter,
            id,
            path,
            text,
            schema,
        } = *file;
        let key = (lang.to_string(), chapter.to_string());
        let kept = match self.last.remove(&key) {
            Some(k) if reused => k,
            _ => {
                self.cache.parsed += 1;
                Kept {
                    id,
                    path: path.to_path_buf(),
                    text: text.to_string(),
                    schema,
                    parsed: parsed.clone(),
                    diagnostics: diagnostics.to_vec(),
                }
            }
        };
        self.cache.chapters.insert(key, kept);
    }
}
