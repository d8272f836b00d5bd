//! Reading the contract: load → parse → validate → [`Spec`].
//!
//! The first stage of every command. It never stops at the first problem: it reads all it can,
//! collects every [`Diagnostic`], and hands back a best-effort `Spec` together with them.
//! Consumers that write output must refuse to run when [`Loaded::has_errors`] is true. Nothing
//! after this stage changes the `Spec` or adds to its sources: later stages (the test scan, test
//! results, the runtimes catalogue) return their own files and diagnostics.

mod assemble;
mod chapter;
mod clause_block;
mod contract;
mod fast_yaml;
mod files;
mod images;
mod links;
mod translation;
mod untranslated;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

pub use chapter::{
    BOILERPLATE_MARKER, INFORMATIVE_MARKER, is_note_quote, markdown_options, resolver,
};
pub use clause_block::{ClauseYaml, FieldValue};
pub use contract::is_chapter_name as is_language_tag;
pub use files::Tree;
pub use files::{chapter_file, io_error, read_source, read_spec_source};
pub use images::{IMAGE_EXTENSIONS, IMAGES_FOLDER, image_of_link, is_image_name, spec_images};
pub use links::LINK_SCHEMES;
pub(crate) use translation::translation_diagnostics;
pub use untranslated::paragraphs;

use chapter::{ChapterInput, ParsedChapter};
use clause_block::Schema;

use crate::diagnostic::{Diagnostic, FileId, SourceMap};
use crate::spec::{Contract, Spec};
use crate::timings::Timings;

/// The result of reading a spec directory.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The contract as read: best effort when there are errors.
    pub spec: Spec,
    /// Every file read, for rendering the diagnostics.
    pub sources: SourceMap,
    /// Every problem found, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
    /// read / parse / assemble / validate, for `--timings`.
    pub timings: Timings,
}

impl Loaded {
    /// Any error? Then commands that write output must refuse to run.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
    /// How many of the diagnostics are errors.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// How strict validation is, and how the spec folder was named (for hints).
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Missing and stale translations, and clause blocks mistyped or never closed, are errors
    /// instead of warnings.
    pub strict: bool,
    /// The folder was named by the user (`--spec DIR`), not the default `spec/`: a hint about a
    /// missing folder then points at that name rather than at the default.
    pub named: bool,
}

/// Load and validate the contract in `dir` (the folder holding `contract.yaml`), with default options.
pub fn load(dir: &Path) -> Loaded {
    load_with(dir, LoadOptions::default())
}

/// Load and validate the contract in `dir`.
pub fn load_with(dir: &Path, opts: LoadOptions) -> Loaded {
    load_from(&Tree::Disk, dir, opts)
}

/// Load and validate the contract in folder `dir` of `tree`.
pub fn load_from(tree: &Tree, dir: &Path, opts: LoadOptions) -> Loaded {
    let mut out = Loaded::default();
    if let Some(start) = load_contract(tree, dir, opts, &mut out) {
        load_rest(tree, dir, start, opts, &mut out);
    }
    out
}

/// [`load_with`], running `alongside` on another thread while the chapters are read, parsed,
/// assembled and validated. It gets the contract as soon as `contract.yaml` is parsed, for work
/// that needs nothing else of the spec (the test files' scan, `pipeline::Stages::spec_and_tests`);
/// its result is `None` when the contract could not be read (the `Loaded` then has the errors).
/// (The other loads make no such call: `serve` loads from its own thread, where a rayon call
/// waits for a pool thread to wake; docs/benchmarks-history.md, "Session 10".)
pub fn load_alongside<T: Send>(
    dir: &Path,
    opts: LoadOptions,
    alongside: impl FnOnce(&Contract) -> T + Send,
) -> (Loaded, Option<T>) {
    let tree = &Tree::Disk;
    let mut out = Loaded::default();
    let Some(start) = load_contract(tree, dir, opts, &mut out) else {
        return (out, None);
    };
    let contract = start.contract.clone();
    let ((), side) = rayon::join(
        || load_rest(tree, dir, start, opts, &mut out),
        || alongside(&contract),
    );
    (out, Some(side))
}

/// Everything after the contract: the chapters, then the checks that need the whole spec. Those
/// run when a chapter has errors too, so that one run reports every error it can (a broken link
/// beside a bad level, not after it is fixed); what an error may have hidden from them is left
/// out ([`validate`]).
fn load_rest(tree: &Tree, dir: &Path, start: ContractRead, opts: LoadOptions, out: &mut Loaded) {
    load_languages(tree, dir, start, out);
    validate(out, opts, &images::images_in(tree, dir));
    if opts.strict {
        // A mistyped or unclosed clause block (K0121, K0122) may have lost a requirement: under
        // `--strict`, as a stale translation does, it fails the check.
        for d in &mut out.diagnostics {
            if matches!(d.code, "K0121" | "K0122") {
                d.severity = crate::diagnostic::Severity::Error;
            }
        }
    }
}

/// The checks that need the whole spec: translations, links, review stamps.
///
/// When the load has errors, a clause block with an error built no clause: the translations are
/// not compared (a translated clause would seem to translate nothing), and a link into a
/// chapter with an error that finds no section or clause there is not reported (it may name the
/// clause that failed); every other link is checked, and the review notes of the clauses built.
fn validate(out: &mut Loaded, opts: LoadOptions, images: &std::collections::BTreeSet<String>) {
    let start = Instant::now();
    let failed = failed_chapters(out);
    if !out.has_errors() {
        let extra = translation_diagnostics(&out.spec, opts.strict);
        out.diagnostics.extend(extra);
    }
    out.diagnostics
        .extend(links::check_links(&out.spec, &failed, images));
    let reviews = clause_block::review_diagnostics(&out.spec, opts.strict);
    out.diagnostics.extend(reviews);
    out.timings.add("validate", start.elapsed());
}

/// The chapters (by name) of which a file, in any language, has an error: what they hold may be
/// incomplete. Empty when the load has no error.
fn failed_chapters(out: &Loaded) -> std::collections::BTreeSet<String> {
    let mut files = std::collections::BTreeSet::new();
    for d in out.diagnostics.iter().filter(|d| d.is_error()) {
        let spans = d.span.iter().chain(d.context.iter().map(|(s, _)| s));
        files.extend(spans.map(|s| out.sources.get(s.file).path.clone()));
        files.extend(d.path.clone());
    }
    if files.is_empty() {
        return std::collections::BTreeSet::new();
    }
    let translated = out.spec.translations.iter().flat_map(|t| &t.documents);
    out.spec
        .documents
        .iter()
        .chain(translated)
        .filter(|doc| files.contains(&doc.file))
        .map(|doc| doc.chapter.clone())
        .collect()
}

/// `contract.yaml` read and parsed: what the chapters' load starts from.
struct ContractRead {
    contract: Contract,
    chapter_spans: Vec<crate::diagnostic::Span>,
}

/// Read and parse `contract.yaml` (after checking the spec folder exists); `None` when that failed
/// (`out` then has the errors).
fn load_contract(
    tree: &Tree,
    dir: &Path,
    opts: LoadOptions,
    out: &mut Loaded,
) -> Option<ContractRead> {
    if !tree.is_dir(dir) {
        let what = if tree.exists(dir) {
            "is not a folder"
        } else {
            "does not exist"
        };
        out.diagnostics.push(
            Diagnostic::error(
                "K0003",
                format!("the spec folder `{}` {what}", dir.display()),
            )
            .help(if opts.named {
                "check the path given to --spec: the folder holding contract.yaml (a relative path starts at the working directory)"
            } else {
                "kcontract reads ./spec by default, relative to the working directory: run it from the folder above spec/, or pass --spec DIR"
            }),
        );
        return None;
    }
    let cid = files::read_spec_source(
        tree,
        dir,
        &dir.join("contract.yaml"),
        &mut out.sources,
        &mut out.diagnostics,
    )?;
    let (contract, chapter_spans) =
        contract::parse_contract(tree, dir, cid, &out.sources, &mut out.diagnostics)?;
    Some(ContractRead {
        contract,
        chapter_spans,
    })
}

/// Read, parse and assemble the chapters: the source language, then each translation.
fn load_languages(tree: &Tree, dir: &Path, start: ContractRead, out: &mut Loaded) {
    let ContractRead {
        contract,
        chapter_spans,
    } = start;
    let folder = Folder {
        tree,
        dir,
        chapter_spans: &chapter_spans,
    };
    let source_lang = contract.languages.first().cloned().unwrap_or_default();
    let mut parsed = read_and_parse(&folder, &source_lang, Schema::Source, &contract, out);
    for (_, _, p) in &mut parsed {
        chapter::settle_references(p, None, &mut out.diagnostics);
    }
    let start = Instant::now();
    let source = assemble::assemble_source(parsed, &source_lang);
    out.diagnostics.extend(source.diagnostics);
    let unbuilt = source.unbuilt;
    let mut spec = Spec {
        documents: source.documents,
        clauses: source.clauses,
        by_id: source.by_id,
        translations: Vec::new(),
        contract,
    };
    out.timings.add("assemble", start.elapsed());
    let translations = spec.contract.languages[1..].to_owned();
    for lang in translations {
        let mut parsed = read_and_parse(&folder, &lang, Schema::Translation, &spec.contract, out);
        for (chapter, _, p) in &mut parsed {
            let source = spec.documents.iter().find(|d| d.chapter == *chapter);
            chapter::settle_references(p, source.map(|d| &d.link_defs), &mut out.diagnostics);
        }
        let start = Instant::now();
        let tr =
            translation::load_translation(&lang, parsed, &spec, &unbuilt, &mut out.diagnostics);
        spec.translations.push(tr);
        out.timings.add("assemble", start.elapsed());
    }
    out.spec = spec;
}

/// A chapter file parsed: its chapter name, its path, what it holds.
type Chapter = (String, PathBuf, ParsedChapter);

/// Where every language's chapter files are read: the spec folder in its tree, and where
/// `contract.yaml` lists each chapter.
struct Folder<'a> {
    tree: &'a Tree,
    dir: &'a Path,
    chapter_spans: &'a [crate::diagnostic::Span],
}

/// One language's chapter files (the contract's `chapters`), read and registered in contract
/// order, then parsed (files in parallel; their diagnostics joined in contract order).
fn read_and_parse(
    folder: &Folder<'_>,
    lang: &str,
    schema: Schema,
    contract: &crate::spec::Contract,
    out: &mut Loaded,
) -> Vec<Chapter> {
    let start = Instant::now();
    let language = files::LanguageFiles {
        tree: folder.tree,
        dir: folder.dir,
        lang,
        source: schema == Schema::Source,
        chapters: &contract.chapters,
        chapter_spans: folder.chapter_spans,
    };
    let files = files::read_language(&language, &mut out.sources, &mut out.diagnostics);
    out.timings.add("read", start.elapsed());
    let start = Instant::now();
    let sources = &out.sources;
    let parsed: Vec<(String, PathBuf, ParsedChapter, Vec<Diagnostic>)> = files
        .into_par_iter()
        .filter_map(|(chapter, path, id): (String, PathBuf, Option<FileId>)| {
            let file = sources.get(id?);
            let mut diags = Vec::new();
            let input = ChapterInput {
                file_id: id?,
                file,
                chapter: &chapter,
                lang,
                schema,
                contract,
            };
            let p = chapter::parse_chapter(&input, &mut diags);
            Some((chapter, path, p, diags))
        })
        .collect();
    let mut chapters = Vec::with_capacity(parsed.len());
    for (chapter, path, p, diags) in parsed {
        out.diagnostics.extend(diags);
        chapters.push((chapter, path, p));
    }
    out.timings.add("parse", start.elapsed());
    chapters
}
