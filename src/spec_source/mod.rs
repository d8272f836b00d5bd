//! Reading the contract: load → parse → validate → [`Spec`].
//!
//! This is the one data path every command goes through. It never stops at the first problem: it
//! reads all it can, collects every [`Diagnostic`], and hands back a best-effort `Spec` together with
//! them. Consumers that write output must refuse to run when [`Loaded::has_errors`] is true.

mod chapter;
mod clause_block;
pub mod fast_yaml;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;
use serde_saphyr::Spanned;

pub use chapter::{BOILERPLATE_MARKER, markdown_options, slugify};
pub use clause_block::FIELDS as CLAUSE_FIELDS;

use chapter::Piece;
use clause_block::Schema;

use crate::diagnostic::{Diagnostic, FileId, SourceFile, SourceMap, Span};
use crate::keywords::levels_in;
use crate::spec::{
    Block, Contract, Document, Spec, TestGlobs, Translation, TranslationState, Upstream,
};
use crate::timings::Timings;

/// The result of reading a spec directory.
#[derive(Debug, Default)]
pub struct Loaded {
    pub spec: Spec,
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// read / parse / validate, for `--timings`.
    pub timings: Timings,
}

impl Loaded {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawContract {
    title: String,
    version: Spanned<String>,
    languages: Vec<Spanned<String>>,
    chapters: Vec<Spanned<String>>,
    upstream: RawUpstream,
    #[serde(default)]
    tests: Option<RawTests>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTests {
    #[serde(default)]
    include: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    title: String,
    url: String,
    license: String,
    attribution: String,
}

/// Read a file as UTF-8 text into the source map, or explain why not (see [`add_source`]).
pub fn read_source(
    path: &Path,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    add_source(path, fs::read(path), sources, diags)
}

/// Register bytes read from `path` (or the error reading them) as UTF-8 source text.
///
/// Invalid UTF-8 is reported at the first bad byte (line, column and byte offset); the file is still
/// added (lossily) so the diagnostic can quote the line.
fn add_source(
    path: &Path,
    content: io::Result<Vec<u8>>,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    add_prepared(path, prepare(path, content), sources, diags)
}

/// A file read and checked, before it is registered: the UTF-8 check and the line index are the
/// costly part, so chapter files are prepared in parallel and registered in order afterwards.
enum Prepared {
    Text(SourceFile),
    /// Not UTF-8: the text with the bad bytes replaced, and the offset of the first one.
    BadUtf8(SourceFile, usize),
    Unreadable(io::Error),
}

fn prepare(path: &Path, content: io::Result<Vec<u8>>) -> Prepared {
    match content.map(String::from_utf8) {
        Ok(Ok(text)) => Prepared::Text(SourceFile::new(path.to_path_buf(), text)),
        Ok(Err(e)) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            Prepared::BadUtf8(SourceFile::new(path.to_path_buf(), text), at)
        }
        Err(e) => Prepared::Unreadable(e),
    }
}

fn add_prepared(
    path: &Path,
    prepared: Prepared,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileId> {
    match prepared {
        Prepared::Text(file) => Some(sources.add_file(file)),
        Prepared::Unreadable(e) => {
            diags.push(io_error(path, &e));
            None
        }
        Prepared::BadUtf8(file, at) => {
            let id = sources.add_file(file);
            let end = at + '\u{fffd}'.len_utf8();
            diags.push(
                Diagnostic::error("K0002", format!("invalid UTF-8 at byte offset {at}"))
                    .at(Span::new(id, at..end), "this byte is not valid UTF-8")
                    .help("spec files must be UTF-8; re-save the file as UTF-8 (the bad byte is shown as �)"),
            );
            None
        }
    }
}

pub fn io_error(path: &Path, e: &io::Error) -> Diagnostic {
    let (what, help) = match e.kind() {
        io::ErrorKind::NotFound => ("does not exist", "check the path, or create the file"),
        io::ErrorKind::PermissionDenied => (
            "cannot be read: permission denied",
            "check the file's permissions",
        ),
        io::ErrorKind::IsADirectory => (
            "is a directory, not a file",
            "a file was expected at this path",
        ),
        _ => ("cannot be read", "check that the path is a readable file"),
    };
    let detail = if e.kind() == io::ErrorKind::NotFound {
        String::new()
    } else {
        format!(" ({e})")
    };
    Diagnostic::error("K0001", format!("`{}` {what}{detail}", path.display()))
        .in_file(path)
        .help(help)
}

/// How strict validation is.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Missing and stale translations are errors instead of warnings.
    pub strict: bool,
}

/// Load and validate the contract in `dir` (the folder holding `contract.yaml`), with default options.
pub fn load(dir: &Path) -> Loaded {
    load_with(dir, LoadOptions::default())
}

/// Load and validate the contract in `dir`.
pub fn load_with(dir: &Path, opts: LoadOptions) -> Loaded {
    let mut out = load_structure(dir);
    if !out.has_errors() {
        let start = std::time::Instant::now();
        let extra = translation_diagnostics(&out.spec, opts.strict);
        out.diagnostics.extend(extra);
        out.timings.add("validate", start.elapsed());
    }
    out
}

fn load_structure(dir: &Path) -> Loaded {
    let mut out = Loaded::default();
    let diags = &mut out.diagnostics;
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            diags.push(
                Diagnostic::error(
                    "K0003",
                    format!("the spec path `{}` is not a directory", dir.display()),
                )
                .help("pass the folder that holds contract.yaml with --spec DIR"),
            );
            return out;
        }
        Err(_) => {
            diags.push(
                Diagnostic::error("K0003", format!("the spec directory `{}` does not exist", dir.display()))
                    .help("run kcontract from the repository root (the default is ./spec) or pass --spec DIR"),
            );
            return out;
        }
    }

    let contract_path = dir.join("contract.yaml");
    let Some(cid) = read_source(&contract_path, &mut out.sources, diags) else {
        return out;
    };
    let Some((contract, chapter_spans)) = parse_contract(cid, &out.sources, diags) else {
        return out;
    };

    let source_lang = contract.languages.first().cloned().unwrap_or_default();
    let chapters = &contract.chapters;
    // The source language's files are read, checked and parsed first, on the whole pool. Then its
    // chapters are assembled into the spec on one thread while the rest of the pool reads, checks
    // and parses the translations (a translation's assembly needs the source's). Files and
    // diagnostics join `out` afterwards, in the order a step-by-step load would give them.
    let start = Instant::now();
    let source = read_language(dir, &source_lang, chapters);
    out.timings.add("read", start.elapsed());
    let start = Instant::now();
    let source_ids = file_ids(&source, out.sources.len());
    let translations_first = source_ids.iter().flatten().count() + out.sources.len();
    let parsed = parse_read(&source, &source_ids, Schema::Source);
    let ((source_parsed, source_spec), translations) = rayon::join(
        || {
            let (pieces, parse_diags): (Vec<_>, Vec<_>) = parsed.into_iter().unzip();
            (parse_diags, assemble_source(&source, pieces, &source_lang))
        },
        || {
            // Each translation's ids follow the previous one's; they are counted as its files are
            // read, so the languages go one after the other (each in parallel inside).
            let mut done = Vec::new();
            let mut first = translations_first;
            for lang in contract.languages.iter().skip(1) {
                let read = read_language(dir, lang, chapters);
                let ids = file_ids(&read, first);
                first += ids.iter().flatten().count();
                let parsed = parse_read(&read, &ids, Schema::Translation);
                done.push((lang.clone(), read, ids, parsed));
            }
            done
        },
    );
    out.timings.add("parse", start.elapsed());

    let start = Instant::now();
    register(
        source,
        &source_ids,
        source_parsed,
        &chapter_spans,
        &mut out.sources,
        &mut out.diagnostics,
    );
    out.diagnostics.extend(source_spec.diagnostics);
    let mut spec = Spec {
        contract,
        documents: source_spec.documents,
        clauses: source_spec.clauses,
        by_id: source_spec.by_id,
        translations: Vec::new(),
        runtimes: None,
    };
    // The translations' files are registered before the runtimes catalogue (their ids were given
    // out first); their diagnostics come after its, as in a step-by-step load.
    let mut registered = Vec::new();
    for (lang, read, ids, parsed) in translations {
        let (pieces, parse_diags): (Vec<_>, Vec<_>) = parsed.into_iter().unzip();
        let parsed: Vec<_> = read
            .files
            .iter()
            .zip(pieces)
            .filter_map(|((chapter, path, _), p)| Some((chapter.clone(), path.clone(), p?)))
            .collect();
        let mut diags = Vec::new();
        register(
            read,
            &ids,
            parse_diags,
            &chapter_spans,
            &mut out.sources,
            &mut diags,
        );
        registered.push((lang, parsed, diags));
    }
    spec.runtimes = load_runtimes(dir, &mut out);
    out.timings.add("assemble", start.elapsed());
    for (lang, parsed, diags) in registered {
        out.diagnostics.extend(diags);
        let tr = load_translation(&lang, parsed, &spec, &mut out);
        spec.translations.push(tr);
    }
    out.spec = spec;
    out
}

/// The source language assembled: its documents and clauses in chapter order, the id index, and
/// what assembling reports (duplicate ids).
struct SourceSpec {
    documents: Vec<Document>,
    clauses: Vec<crate::spec::Clause>,
    by_id: BTreeMap<String, usize>,
    diagnostics: Vec<Diagnostic>,
}

fn assemble_source(
    read: &ReadLanguage,
    pieces: Vec<Option<chapter::ParsedChapter>>,
    source_lang: &str,
) -> SourceSpec {
    let count = pieces
        .iter()
        .flatten()
        .flat_map(|p| &p.pieces)
        .filter(|piece| matches!(piece, Piece::Clause(_)))
        .count();
    let mut clauses = Vec::with_capacity(count);
    let mut documents = Vec::with_capacity(pieces.len());
    for ((chapter, path, _), parsed) in read.files.iter().zip(pieces) {
        let Some(parsed) = parsed else { continue };
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
            chapter: chapter.clone(),
            lang: source_lang.to_string(),
            file: path.clone(),
            headings: parsed.headings,
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
    }
}

/// The id → index map. Ids are global: the first definition wins, later ones are errors pointing
/// back at it (reported in clause order).
///
/// Built from a sorted list rather than by inserting one id at a time: at 10,000 clauses the
/// inserts were a visible share of the single-threaded part of a build.
fn index_ids(
    clauses: &[crate::spec::Clause],
    diags: &mut Vec<Diagnostic>,
) -> BTreeMap<String, usize> {
    let mut sorted: Vec<(&str, usize)> = clauses
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    // (id, index) pairs are distinct, so the unstable sort is deterministic.
    sorted.par_sort_unstable();
    let mut again: Vec<(usize, usize)> = sorted
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| w[1].1)
        .map(|i| (i, by_first(&sorted, clauses[i].id.as_str())))
        .collect();
    again.sort_unstable();
    for (i, first) in again {
        diags.push(duplicate(
            &clauses[i].id,
            &clauses[i].id_span,
            &clauses[first].id_span,
        ));
    }
    sorted.dedup_by(|b, a| a.0 == b.0);
    // Sorted and without duplicates: `collect` builds the map in one pass.
    sorted
        .into_iter()
        .map(|(id, i)| (id.to_string(), i))
        .collect()
}

/// The index of the first clause with `id` in a list sorted by (id, index).
fn by_first(sorted: &[(&str, usize)], id: &str) -> usize {
    sorted[sorted.partition_point(|(x, _)| *x < id)].1
}

/// One language folder's chapter files, read and checked (UTF-8, line index) in parallel, in
/// contract order: each listed chapter with its path and the file, or the error reading it. The
/// unlisted-chapter check runs here too (it lists the folder), its findings kept for later.
struct ReadLanguage {
    files: Vec<(String, PathBuf, Result<Prepared, io::Error>)>,
    unlisted: Vec<Diagnostic>,
}

fn read_language(dir: &Path, lang: &str, chapters: &[String]) -> ReadLanguage {
    let lang_dir = dir.join(lang);
    let files = chapters
        .par_iter()
        .map(|c| {
            let path = lang_dir.join(format!("{c}.md"));
            let prepared = match fs::read(&path) {
                // A missing chapter is reported with the contract line that lists it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => Err(e),
                other => Ok(prepare(&path, other)),
            };
            (c.clone(), path, prepared)
        })
        .collect();
    let mut unlisted = Vec::new();
    check_unlisted(&lang_dir, chapters, &mut unlisted);
    ReadLanguage { files, unlisted }
}

/// The id each file will be registered under, counting from `first` (files that could not be
/// read get none; a file that is not UTF-8 gets one, so its diagnostic can quote it).
fn file_ids(read: &ReadLanguage, first: usize) -> Vec<Option<FileId>> {
    let mut next = first;
    read.files
        .iter()
        .map(|(_, _, f)| match f {
            Ok(Prepared::Text(_) | Prepared::BadUtf8(..)) => {
                next += 1;
                Some(FileId((next - 1) as u32))
            }
            _ => None,
        })
        .collect()
}

/// Parse the readable chapter files of a language in parallel: each file's chapter (`None` for a
/// file that is missing or not UTF-8) and what parsing it reported.
fn parse_read(
    read: &ReadLanguage,
    ids: &[Option<FileId>],
    schema: Schema,
) -> Vec<(Option<chapter::ParsedChapter>, Vec<Diagnostic>)> {
    read.files
        .par_iter()
        .zip(ids)
        .map(|((chapter, _, f), id)| match (f, id) {
            (Ok(Prepared::Text(file)), Some(id)) => {
                let mut d = Vec::new();
                let parsed = chapter::parse_chapter(*id, file, chapter, schema, &mut d);
                (Some(parsed), d)
            }
            _ => (None, Vec::new()),
        })
        .collect()
}

/// Register a language's files under the ids [`file_ids`] gave them, with what reading and
/// parsing them reported, in contract order: first each file's own problem (missing, unreadable,
/// not UTF-8), then the parse diagnostics, then the unlisted chapter files.
fn register(
    read: ReadLanguage,
    ids: &[Option<FileId>],
    parse_diags: Vec<Vec<Diagnostic>>,
    chapter_spans: &[Span],
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
) {
    for (((chapter, path, content), span), id) in read.files.into_iter().zip(chapter_spans).zip(ids)
    {
        match content {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                diags.push(
                    Diagnostic::error(
                        "K0011",
                        format!(
                            "chapter `{chapter}` is listed but `{}` does not exist",
                            path.display()
                        ),
                    )
                    .at(span.clone(), "listed here")
                    .help(format!(
                        "create {}, or remove the chapter from contract.yaml",
                        path.display()
                    )),
                );
            }
            Err(e) => diags.push(io_error(&path, &e)),
            Ok(prepared) => {
                let at = sources.len();
                add_prepared(&path, prepared, sources, diags);
                // A file that went in went in under the id `file_ids` gave it.
                let added = sources.len() > at;
                debug_assert_eq!(id.map(|i| i.0 as usize), added.then_some(at));
            }
        }
    }
    for d in parse_diags {
        diags.extend(d);
    }
    diags.extend(read.unlisted);
}

/// Load one translation: its chapters mirror the source's; each clause must translate an existing
/// source clause, keep its level, and carry the stamp of the source text it was made from.
fn load_translation(
    lang: &str,
    parsed: Vec<(String, PathBuf, chapter::ParsedChapter)>,
    spec: &Spec,
    out: &mut Loaded,
) -> Translation {
    let start = Instant::now();
    let mut tr = Translation {
        lang: lang.to_string(),
        ..Translation::default()
    };
    // Each translated clause's source index and keyword levels (its own and its source's), computed
    // in parallel (in piece order) before the sequential pass below that registers the
    // translations.
    let mut looked_up = parsed
        .par_iter()
        .flat_map_iter(|(_, _, p)| {
            p.pieces.iter().filter_map(|piece| match piece {
                Piece::Translated(t) => Some(t),
                _ => None,
            })
        })
        .map(|t| {
            spec.by_id
                .get(&t.id)
                .map(|&idx| (idx, levels_in(&t.text), levels_in(&spec.clauses[idx].text)))
        })
        .collect::<Vec<_>>()
        .into_iter();
    let diags = &mut out.diagnostics;
    // Per source clause, the translation registered for it.
    tr.clauses = vec![None; spec.clauses.len()];
    for (chapter, file, parsed) in parsed {
        let mut blocks = Vec::with_capacity(parsed.pieces.len());
        for piece in parsed.pieces {
            match piece {
                Piece::Prose(p) => blocks.push(Block::Prose(p)),
                Piece::Clause(_) => {}
                Piece::Translated(t) => {
                    let Some((idx, levels, expected)) = looked_up.next().flatten() else {
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
    out.timings.add("assemble", start.elapsed());
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
pub fn translation_diagnostics(spec: &Spec, strict: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let make = |code, msg: String| {
        if strict {
            Diagnostic::error(code, msg)
        } else {
            Diagnostic::warning(code, msg)
        }
    };
    // In parallel, in clause order (this was a serial step between loading and rendering).
    for tr in &spec.translations {
        let found = spec.clauses.par_iter().enumerate().filter_map(|(i, c)| {
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
        out.par_extend(found);
    }
    out
}

fn duplicate(id: &str, again: &Span, first: &Span) -> Diagnostic {
    Diagnostic::error("K0108", format!("duplicate clause id `{id}`"))
        .at(again.clone(), "defined again here")
        .with_context(first.clone(), "first defined here")
        .help(
            "ids are unique across the whole contract and never reused; give this clause a new id",
        )
}

/// `runtimes/deviations.yaml` (optional): the measured runtime deviations the site renders.
fn load_runtimes(dir: &Path, out: &mut Loaded) -> Option<crate::runtimes::Catalogue> {
    let path = dir.join("runtimes").join("deviations.yaml");
    if !path.exists() {
        return None;
    }
    let fid = read_source(&path, &mut out.sources, &mut out.diagnostics)?;
    let file = out.sources.get(fid);
    match serde_saphyr::from_str::<crate::runtimes::Catalogue>(&file.text) {
        Ok(c) if c.format == crate::runtimes::FORMAT => Some(c),
        Ok(c) => {
            out.diagnostics.push(
                Diagnostic::error(
                    "K0701",
                    format!("runtimes/deviations.yaml has format `{}`", c.format),
                )
                .in_file(&path)
                .help(format!(
                    "this kcontract reads `{}`; see docs/runtimes.md",
                    crate::runtimes::FORMAT
                )),
            );
            None
        }
        Err(e) => {
            let msg = e.without_snippet().to_string();
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.clone(), |i| msg[..i].to_string());
            let d = Diagnostic::error(
                "K0701",
                "runtimes/deviations.yaml is not a valid deviations catalogue",
            );
            let d = match e.location() {
                Some(loc) => {
                    let o = file.offset_of(loc.line() as usize, loc.column() as usize);
                    d.at(Span::new(fid, o..file.line_end(o)), msg)
                }
                None => d.in_file(&path).help(msg.clone()),
            };
            out.diagnostics
                .push(d.help("the shape is documented in docs/runtimes.md"));
            None
        }
    }
}

fn parse_contract(
    cid: FileId,
    sources: &SourceMap,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Contract, Vec<Span>)> {
    let file = sources.get(cid);
    let span_of = |loc: &serde_saphyr::Location| {
        let o = file.offset_of(loc.line() as usize, loc.column() as usize);
        let end = match loc.span().byte_len() {
            Some(n) if n > 0 => (o + n as usize).min(file.line_end(o)),
            _ => file.line_end(o),
        };
        Span::new(cid, o..end)
    };
    let raw: RawContract = match serde_saphyr::from_str(&file.text) {
        Ok(r) => r,
        Err(e) => {
            let msg = e.without_snippet().to_string();
            let msg = msg
                .rfind(" at line ")
                .map_or(msg.clone(), |i| msg[..i].to_string());
            let d = Diagnostic::error("K0010", "contract.yaml is not a valid contract description");
            let d = match e.location() {
                Some(loc) => d.at(span_of(&loc), msg),
                None => d.in_file(&file.path).help(msg.clone()),
            };
            diags.push(d.help(
                "contract.yaml has exactly: title, version, languages (list), chapters (list), upstream {title, url, license, attribution}, and optionally tests {include, exclude}; see spec/README.md",
            ));
            return None;
        }
    };
    let mut ok = true;
    let mut seen = BTreeSet::new();
    for c in &raw.chapters {
        let span = span_of(&c.referenced);
        if !is_chapter_name(&c.value) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "K0013",
                    format!("`{}` is not a valid chapter name", c.value.escape_debug()),
                )
                .at(span, "chapter names are file stems")
                .help("use lowercase a-z, 0-9 and `-` (the file is <lang>/<name>.md)"),
            );
        } else if !seen.insert(c.value.clone()) {
            ok = false;
            diags.push(
                Diagnostic::error("K0013", format!("chapter `{}` is listed twice", c.value))
                    .at(span, "listed again here")
                    .help("each chapter appears once in `chapters`"),
            );
        }
    }
    if raw.languages.is_empty() {
        ok = false;
        diags.push(
            Diagnostic::error("K0010", "contract.yaml lists no language")
                .at(span_of(&raw.version.referenced), "in this file")
                .help("add `languages: [en]`; the first language is the source"),
        );
    }
    for l in &raw.languages {
        if !is_chapter_name(&l.value) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    "K0010",
                    format!("`{}` is not a language tag", l.value.escape_debug()),
                )
                .at(span_of(&l.referenced), "expected a tag like `en` or `zh`")
                .help("languages are lowercase tags used as folder names: en, zh"),
            );
        }
    }
    let mut tests = TestGlobs::default();
    if let Some(t) = &raw.tests {
        for g in t.include.iter().flatten().chain(&t.exclude) {
            if let Err(e) = crate::globs::glob(&g.value) {
                ok = false;
                diags.push(
                    Diagnostic::error("K0507", format!("`{}` is not a valid glob", g.value.escape_debug()))
                        .at(span_of(&g.referenced), e.kind().to_string())
                        .help("globs are relative to the working directory, `/`-separated: `*` within a folder, `**` across folders, e.g. `tests/**/*.rs`"),
                );
            }
        }
        if let Some(include) = &t.include {
            tests.include = include.iter().map(|g| g.value.clone()).collect();
        }
        tests.exclude = t.exclude.iter().map(|g| g.value.clone()).collect();
    }
    if !ok {
        return None;
    }
    let spans = raw
        .chapters
        .iter()
        .map(|c| span_of(&c.referenced))
        .collect();
    Some((
        Contract {
            title: raw.title,
            version: raw.version.value,
            languages: raw.languages.into_iter().map(|l| l.value).collect(),
            chapters: raw.chapters.into_iter().map(|c| c.value).collect(),
            upstream: Upstream {
                title: raw.upstream.title,
                url: raw.upstream.url,
                license: raw.upstream.license,
                attribution: raw.upstream.attribution,
            },
            tests,
        },
        spans,
    ))
}

fn is_chapter_name(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A Markdown file in the language folder that the contract does not list is a chapter nobody will
/// see: report it (sorted, so the output is stable).
fn check_unlisted(lang_dir: &Path, chapters: &[String], diags: &mut Vec<Diagnostic>) {
    let Ok(entries) = fs::read_dir(lang_dir) else {
        return;
    };
    let listed: BTreeSet<&str> = chapters.iter().map(String::as_str).collect();
    let mut unlisted: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_none_or(|s| !listed.contains(s))
        })
        .collect();
    unlisted.sort();
    for p in unlisted {
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        diags.push(
            Diagnostic::error(
                "K0012",
                format!("`{}` is not listed in contract.yaml", p.display()),
            )
            .in_file(&p)
            .help(format!(
                "add `- {stem}` to `chapters` in contract.yaml, or delete the file"
            )),
        );
    }
}
