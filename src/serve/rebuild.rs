//! One rebuild of the site into memory: the stages of `kcontract build` (spec, runtimes catalogue
//! and test scan, matrix, history), then every page rendered with `serve` set. Diagnostics go to the
//! terminal as `build` prints them, and, when there is an error, also come back as plain text for
//! the overlay on the open pages.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use annotate_snippets::Renderer;

use super::{Options, Site};
use crate::terminal::Ctx;
use kcontract_edit::diff::history;
use kcontract_oci::runtimes;
use kcontract_site as site;
use kcontract_spec::LoadOptions;
use kcontract_spec::TestGlobs;
use kcontract_spec::diagnostic::{Diagnostic, SourceMap, render_all};
use kcontract_trace::annotations::{self, CacheChoice};
use kcontract_trace::matrix;

/// A good rebuild.
pub(super) struct Built {
    pub(super) site: Site,
    /// The folder of the test globs, and the globs: which files the watcher follows.
    pub(super) tests_root: PathBuf,
    pub(super) tests: TestGlobs,
}

/// Build the site into memory. `Err` holds the diagnostics as plain text (already printed).
pub(super) fn build(ctx: &Ctx, opts: &Options) -> Result<Built, String> {
    let mut shown = Shown::new(ctx);
    let loaded = kcontract_spec::load_with(
        &ctx.spec,
        LoadOptions {
            strict: opts.strict,
            named: ctx.spec_given,
        },
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
    // The earlier versions, as `build` loads and compares them.
    let versions = history::load(&ctx.spec, &spec.contract);
    for v in &versions {
        shown.earlier(&v.errors(), &v.loaded.sources);
    }
    shown.stage(&history::broken(&versions, &ctx.spec), &loaded.sources)?;
    let history = history::compare(&versions, spec);
    drop(versions);
    let mut tpl = match site::templates(opts.templates.as_deref()) {
        Ok(tpl) => tpl,
        Err(d) => return Err(shown.fail(&d)),
    };
    tpl.for_languages(&spec.contract.languages);
    shown.stage(&tpl.warnings, &loaded.sources)?;
    tpl.serving();
    let mut files = site::render(&m, catalogue.catalogue.as_ref(), &history, &tpl)
        .map_err(|d| shown.fail(&d))?;
    files.extend(site::images(spec_dir).map_err(|d| shown.fail(&d))?);
    Ok(Built {
        site: files
            .into_iter()
            .map(|(rel, bytes)| (rel, Arc::from(bytes)))
            .collect::<BTreeMap<_, _>>(),
        tests_root: root,
        tests: globs,
    })
}

/// The diagnostics of one rebuild: printed stage by stage like `build` prints them, and kept as
/// plain text for the overlay.
struct Shown<'c> {
    ctx: &'c Ctx,
    errors: usize,
    warnings: usize,
    /// The errors of earlier versions, as plain text: the overlay shows them above the K0016
    /// that stops the rebuild (they are in other files than its own).
    earlier: String,
}

impl<'c> Shown<'c> {
    fn new(ctx: &'c Ctx) -> Self {
        Shown {
            ctx,
            errors: 0,
            warnings: 0,
            earlier: String::new(),
        }
    }

    /// Print the errors of an earlier version's load, and keep them for the overlay; the stage
    /// that follows (K0016) stops the rebuild.
    fn earlier(&mut self, errs: &[Diagnostic], sources: &SourceMap) {
        self.ctx.print_diagnostics(errs, sources);
        self.errors += errs.len();
        self.earlier
            .push_str(&render_all(errs, sources, &Renderer::plain()));
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
             problems below and save: the page reloads.\n\n{}{}\n{summary}",
            self.earlier,
            render_all(errs, sources, &Renderer::plain())
        )
    }
}
