//! `kcontract fmt [--check]`: put the clause blocks of every chapter, in every language, in their
//! canonical form (`kcontract_edit::fmt`), after proving the formatted spec means the same.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Failure, Outcome, plural, print};
use kcontract_edit::fmt::{Meaning, format_chapter_with_kept};
use kcontract_spec::diagnostic::{Diagnostic, SourceFile, SourceMap, Span};
use kcontract_spec::fsutil::{Encoding, plain_text, write_atomic};
use kcontract_spec::{LoadOptions, Loaded, Tree};

/// Format the clause blocks of the spec's chapter files in place.
#[derive(clap::Args, Debug)]
pub(crate) struct Fmt {
    /// Write nothing; exit 1 when a file is not formatted (for CI).
    #[arg(long)]
    check: bool,
}

impl Fmt {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &ctx.writing("nothing was formatted");
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::All)?;
        let files: Vec<PathBuf> = loaded
            .spec
            .documents
            .iter()
            .chain(loaded.spec.translations.iter().flat_map(|t| {
                // A chapter a translation has no file for has nothing to format.
                t.documents
                    .iter()
                    .filter(|d| t.missing_chapters.iter().all(|(c, _)| *c != d.chapter))
            }))
            .map(|d| d.file.clone())
            .collect();
        let mut originals = BTreeMap::new();
        // Each file is formatted as plain text and written back with its own BOM and line ends.
        let mut encodings = BTreeMap::new();
        let mut changed: Vec<(PathBuf, String)> = Vec::new();
        let (mut kept_sources, mut kept) = (SourceMap::default(), Vec::new());
        for path in &files {
            let text = match kcontract_spec::fsutil::read_text(path) {
                Ok(raw) => {
                    encodings.insert(path.clone(), Encoding::of(&raw));
                    plain_text(raw)
                }
                Err(e) => {
                    let d = kcontract_spec::io_error(path, &e);
                    return Err(ctx.fail(&d, &SourceMap::default(), "nothing was formatted"));
                }
            };
            let (formatted, left) = format_chapter_with_kept(&text);
            if !left.is_empty() {
                let id = kept_sources.add_file(SourceFile::new(path.clone(), text.clone()));
                kept.extend(left.into_iter().map(|range| {
                    Diagnostic::warning("K0806", "clause block left as written")
                        .at(Span::new(id, range), "this block is kept as written")
                        .help("a comment in a block (a `#` at the start of a line or after a space) would be lost by rewriting it, so fmt keeps such a block byte for byte, as it does one whose YAML does not parse or holds an unknown or repeated field; move the comment out of the block to have it formatted")
                }));
            }
            if formatted != text {
                changed.push((path.clone(), formatted));
            }
            originals.insert(path.clone(), text);
        }
        if changed.is_empty() || !self.check {
            ctx.report(&kept, &kept_sources)?;
        }
        if changed.is_empty() {
            // Blocks left as written are not formatted either: say so beside the "ok".
            let left = match kept.len() {
                0 => String::new(),
                n => format!(" ({n} clause block{} left as written, above)", plural(n)),
            };
            return print(&format!(
                "ok: {} file{} already formatted{left}\n",
                files.len(),
                plural(files.len())
            ));
        }
        same_meaning(ctx, &loaded, &originals, &changed)?;
        if self.check {
            return not_formatted(ctx, &originals, &changed, kept_sources, kept);
        }
        for (path, text) in &changed {
            let text = encodings.get(path).copied().unwrap_or_default().apply(text);
            if let Err(e) = write_atomic(path, text.as_bytes()) {
                let d = Diagnostic::error("K0805", format!("cannot write `{}`: {e}", path.display()))
                    .in_file(path)
                    .help("check the file's permissions and the free space; files listed above as formatted were written, this one is unchanged");
                return Err(ctx.fail(
                    &d,
                    &SourceMap::default(),
                    "the other files were not written",
                ));
            }
            print(&format!("formatted {}\n", path.display()))?;
        }
        let (n, total) = (changed.len(), files.len());
        print(&format!(
            "ok: {n} file{} formatted, {} unchanged\n",
            plural(n),
            total - n
        ))
    }
}

/// Load the formatted spec from memory and compare it with the one read: a difference is a bug of
/// the formatter (K0804), and nothing is written.
fn same_meaning(
    ctx: &Ctx,
    loaded: &Loaded,
    originals: &BTreeMap<PathBuf, String>,
    changed: &[(PathBuf, String)],
) -> Outcome {
    let mut files: BTreeMap<PathBuf, Vec<u8>> = originals
        .iter()
        .map(|(p, t)| (p.clone(), t.clone().into_bytes()))
        .collect();
    for (path, text) in changed {
        files.insert(path.clone(), text.clone().into_bytes());
    }
    let contract = ctx.spec.join("contract.yaml");
    match kcontract_spec::fsutil::read_inside(
        &ctx.spec,
        &contract,
        kcontract_spec::fsutil::MAX_INPUT,
    ) {
        Ok(bytes) => files.insert(contract, bytes),
        Err(e) => {
            let d = kcontract_spec::io_error(&contract, &e);
            return Err(ctx.fail(&d, &SourceMap::default(), "nothing was formatted"));
        }
    };
    let after = kcontract_spec::load_from(&Tree::Memory(files), &ctx.spec, LoadOptions::default());
    let codes =
        |l: &Loaded| -> Vec<&'static str> { l.diagnostics.iter().map(|d| d.code).collect() };
    let (was, now) = (
        Meaning::of(&loaded.spec, &codes(loaded)),
        Meaning::of(&after.spec, &codes(&after)),
    );
    match was.first_difference(&now) {
        None => Ok(()),
        Some((a, b)) => {
            let d = Diagnostic::error("K0804", "formatting would change what the spec says")
                .help(format!(
                    "this is a bug in kcontract fmt; please report it with the spec. Before: {a}; after: {b}"
                ));
            Err(ctx.fail(&d, &SourceMap::default(), "nothing was formatted"))
        }
    }
}

/// `--check`: what formatting would change, as a unified diff on stdout, and one K0802 per file
/// that is not formatted, at its first line that would change, reported with the warnings
/// already found (`diags`, pointing into `sources`).
fn not_formatted(
    ctx: &Ctx,
    originals: &BTreeMap<PathBuf, String>,
    changed: &[(PathBuf, String)],
    mut sources: SourceMap,
    mut diags: Vec<Diagnostic>,
) -> Outcome {
    for (path, formatted) in changed {
        let text = originals.get(path).cloned().unwrap_or_default();
        print(&crate::terminal::unified_diff(path, &text, formatted))?;
        let line = text
            .split_inclusive('\n')
            .zip(formatted.split_inclusive('\n'))
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a.len())
            .sum::<usize>();
        let end = text[line..].find('\n').map_or(text.len(), |e| line + e);
        let lines = |s: &str| s.lines().count();
        let id = sources.add_file(SourceFile::new(path.clone(), text.clone()));
        diags.push(
            Diagnostic::error("K0802", format!("`{}` is not formatted", path.display()))
                .at(Span::new(id, line..end), "the first line that formatting changes")
                .help(format!(
                    "run `kcontract fmt` (it rewrites the clause blocks: field order, quoting, folding, blank lines; {} → {} lines)",
                    lines(&text),
                    lines(formatted)
                )),
        );
    }
    ctx.report(&diags, &sources)?;
    Err(Failure::Input)
}
