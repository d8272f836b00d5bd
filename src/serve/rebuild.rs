//! One rebuild of the site into memory: the stages of `kcontract build` (spec, runtimes catalogue
//! and test scan, matrix), then every page rendered with `serve` set. Diagnostics go to the
//! terminal as `build` prints them, and, when there is an error, also come back as plain text for
//! the overlay on the open pages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use annotate_snippets::Renderer;

use super::{Options, Site};
use crate::annotations::{self, CacheChoice, TestFn};
use crate::diagnostic::{Diagnostic, SourceMap, render_all};
use crate::runtimes::Catalogue;
use crate::spec::{Spec, TestGlobs};
use crate::spec_source::{self, LoadOptions, ParseCache, Tree};
use crate::terminal::Ctx;
use crate::timings::Timings;
use crate::{matrix, runtimes, site};

/// Rendered files: (relative path, bytes).
pub(super) type Pages = Vec<(String, Vec<u8>)>;

/// A good rebuild.
pub(super) struct Built {
    pub(super) site: Site,
    /// The folder of the test globs, and the globs: which files the watcher follows.
    pub(super) tests_root: PathBuf,
    pub(super) tests: TestGlobs,
    /// What the pages were made from, for the first pages after the next edit ([`first_pass`]).
    pub(super) kept: Kept,
}

/// What a good rebuild's pages were made from: its `Spec`, the tests that claim clauses, the
/// runtimes catalogue and the compiled templates.
pub(super) struct Kept {
    spec: Spec,
    tests: Vec<TestFn>,
    catalogue: Option<Catalogue>,
    templates: site::Templates,
}

/// The pages to show before the whole site is rendered: those of these chapters, handed to the
/// function as soon as they are rendered (see [`build`]), with the load's timings.
pub(super) type First<'f> = (
    &'f BTreeSet<String>,
    &'f dyn Fn(Vec<(String, Vec<u8>)>, &Timings),
);

/// Build the site into memory. `Err` holds the diagnostics as plain text (already printed).
/// `cache`: the chapter files parsed by the last rebuild, of which the unchanged ones are reused.
///
/// With `first`, once the spec has loaded without errors the pages of those chapters (every
/// language) are rendered and handed over before everything else: an edit of one chapter shows
/// on its open page without waiting for the other pages, the clause index, the matrix, the print
/// pages and the search index. They are byte for byte the full render's pages, so the full render
/// that follows changes them no further.
pub(super) fn build(
    ctx: &Ctx,
    opts: &Options,
    cache: &mut ParseCache,
    first: Option<First>,
) -> Result<Built, String> {
    let mut shown = Shown::new(ctx);
    let loaded = spec_source::load_reusing(
        &Tree::Disk,
        &ctx.spec,
        LoadOptions {
            strict: opts.strict,
            named: ctx.spec_given,
        },
        cache,
    );
    shown.stage(&loaded.diagnostics, &loaded.sources)?;
    let spec = &loaded.spec;
    // The tests where every command finds them: `tests:` globs relative to contract.yaml's folder.
    let (root, globs) = annotations::rooted(&ctx.spec, &spec.contract.tests);
    let cache = CacheChoice::for_root(&root);
    let spec_dir = &ctx.spec;
    let (catalogue, scan) = rayon::join(
        || runtimes::load(spec_dir),
        || annotations::scan_with(spec, &root, &globs, &cache),
    );
    shown.stage(&catalogue.diagnostics, &catalogue.sources)?;
    shown.stage(&scan.diagnostics, &scan.sources)?;
    // Suspect tests (their clause changed since review), as `build` reports them.
    let review = annotations::review_diagnostics(spec, &scan.tests, opts.strict);
    shown.stage(&review, &scan.sources)?;
    let m = matrix::compute(spec, &scan.tests, None);
    let mut tpl = match site::templates(opts.templates.as_deref()) {
        Ok(tpl) => tpl,
        Err(d) => return Err(shown.fail(&d)),
    };
    shown.stage(&tpl.warnings, &loaded.sources)?;
    tpl.serving();
    let rendered = (|| {
        if let Some((chapters, show)) = first {
            let pages = site::render_chapters(&m, catalogue.catalogue.as_ref(), &tpl, chapters)?;
            show(pages, &loaded.timings);
        }
        site::render(&m, catalogue.catalogue.as_ref(), &tpl)
    })();
    let files = rendered.map_err(|d| shown.fail(&d))?;
    drop(m);
    Ok(Built {
        site: files
            .into_iter()
            .map(|(rel, bytes)| (rel, Arc::from(bytes)))
            .collect::<BTreeMap<_, _>>(),
        tests_root: root,
        tests: globs,
        kept: Kept {
            spec: loaded.spec,
            tests: scan.tests,
            catalogue: catalogue.catalogue,
            templates: tpl,
        },
    })
}

/// The pages of the edited `chapters` (every language) made from the last good rebuild's `kept`
/// with only those chapters' files read and parsed again ([`spec_source::load_edited`]), its tests,
/// catalogue and templates: byte for byte the pages the full rebuild that follows makes, in a few
/// milliseconds instead of a whole load's time. `None` (nothing shown; the full rebuild shows
/// its pages first, or the errors) when the loader cannot be sure, or the rebuild would fail: an
/// error in the edited files, a clause id added, removed or renamed, a link broken, a test made
/// suspect under `--strict`, a template that fails on the new text. Prints nothing: the full
/// rebuild prints the diagnostics.
pub(super) fn first_pass(
    ctx: &Ctx,
    opts: &Options,
    kept: Kept,
    cache: &ParseCache,
    chapters: &BTreeSet<String>,
) -> Option<FirstPass> {
    let mut timings = Timings::default();
    let start = std::time::Instant::now();
    let load = LoadOptions {
        strict: opts.strict,
        named: ctx.spec_given,
    };
    let spec = spec_source::load_edited(&Tree::Disk, &ctx.spec, load, kept.spec, cache, chapters)?;
    timings.add("edited chapters", start.elapsed());
    let start = std::time::Instant::now();
    let review = annotations::review_diagnostics(&spec, &kept.tests, opts.strict);
    if review.iter().any(Diagnostic::is_error) {
        return None;
    }
    let m = matrix::compute(&spec, &kept.tests, None);
    timings.add("review+matrix", start.elapsed());
    let start = std::time::Instant::now();
    let pages =
        site::render_chapters(&m, kept.catalogue.as_ref(), &kept.templates, chapters).ok()?;
    timings.add("render", start.elapsed());
    drop(m);
    Some(FirstPass {
        pages,
        timings,
        spec,
    })
}

/// What [`first_pass`] made.
pub(super) struct FirstPass {
    pub(super) pages: Pages,
    pub(super) timings: Timings,
    /// The `Spec` the pages were made from, handed back so that freeing it (some ~100,000
    /// allocations at ×100) waits until the page shows them.
    pub(super) spec: Spec,
}

/// The diagnostics of one rebuild: printed stage by stage like `build` prints them, and kept as
/// plain text for the overlay.
struct Shown<'c> {
    ctx: &'c Ctx,
    errors: usize,
    warnings: usize,
}

impl<'c> Shown<'c> {
    fn new(ctx: &'c Ctx) -> Self {
        Shown {
            ctx,
            errors: 0,
            warnings: 0,
        }
    }

    /// Print one stage's diagnostics; stop the rebuild (with the overlay's text) at an error.
    fn stage(&mut self, diags: &[Diagnostic], sources: &SourceMap) -> Result<(), String> {
        self.ctx.print_diagnostics(diags, sources);
        let errors = diags.iter().filter(|d| d.is_error()).count();
        self.errors += errors;
        self.warnings += diags.len() - errors;
        if errors == 0 {
            return Ok(());
        }
        // Only the errors: they are why the page is stale; warnings stay in the terminal.
        let errs: Vec<Diagnostic> = diags.iter().filter(|d| d.is_error()).cloned().collect();
        Err(self.text(&errs, sources))
    }

    /// A diagnostic without a source file (a template, the output): print it, and the overlay text.
    fn fail(&mut self, d: &Diagnostic) -> String {
        let none = SourceMap::default();
        self.ctx.print_diagnostics(std::slice::from_ref(d), &none);
        self.errors += 1;
        self.text(std::slice::from_ref(d), &none)
    }

    fn text(&self, errs: &[Diagnostic], sources: &SourceMap) -> String {
        let summary = format!(
            "error: {} error{} and {} warning{} found; still serving the last good site\n",
            self.errors,
            if self.errors == 1 { "" } else { "s" },
            self.warnings,
            if self.warnings == 1 { "" } else { "s" },
        );
        eprint!("{summary}");
        format!(
            "kcontract serve: the rebuild failed; this page is the last good build. Fix the \
             problems below and save: the page reloads.\n\n{}\n{summary}",
            render_all(errs, sources, &Renderer::plain())
        )
    }
}
