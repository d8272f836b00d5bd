//! The stages the commands are made of, in the order data flows through them:
//!
//! ```text
//! spec/ ──load──▶ Spec ──scan tests──▶ Scan ──┐
//!                  │      results files ──▶ Results ──▶ Matrix ──▶ site / list / matrix / scaffold
//!                  ├─ runtimes/deviations.yaml ──▶ Catalogue ──────▶ site
//!                  └─ history: folders ──load, diff──▶ History ───▶ site (Changes page)
//! ```
//!
//! Each stage reads the values of earlier stages and returns a new value of its own, with its own
//! source files and diagnostics; nothing writes back into an earlier stage's value (the `Spec` is
//! immutable once loaded). Each stage prints what it found through [`Ctx::report`] and stops the
//! command when that includes an error, so a command reads top to bottom as the list of stages it
//! runs (see `commands/build.rs`).
//!
//! What needs only `contract.yaml` runs alongside the chapters' load ([`Stages::spec_and_tests`]):
//! the test files read and tokenised (`annotations::find`), the runtimes catalogue, the earlier
//! versions of `history:` and `build`'s templates; the claims are checked once the `Spec` is there
//! (`Found::scan`), the earlier versions compared with it in [`Stages::history`]. In the real build
//! (`cargo run --release -- build` here) that took 11 % off the wall time and 4 % off the CPU time
//! (`bench/ab_bins.py 41 repo`, docs/benchmarks-history.md, "Session 11"); loading the earlier versions there
//! too took another 7 % off its wall time (docs/benchmarks-history.md, "Session 19").

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::terminal::{Ctx, Failure};
use kcontract_edit::diff::history::{self, History};
use kcontract_oci::runtimes::{self, Catalogue};
use kcontract_platform::report;
use kcontract_spec::diagnostic::{Diagnostic, SourceMap, Span};
use kcontract_spec::timings::Timings;
use kcontract_spec::{Contract, Spec, TestGlobs};
use kcontract_spec::{LoadOptions, Loaded};
use kcontract_trace::annotations::{self, Scan};
use kcontract_trace::matrix::{self, Matrix};
use kcontract_trace::results::{self, Results};

/// The stages of one command, with the time each took (for `build --timings`).
pub(crate) struct Stages<'c> {
    ctx: &'c Ctx,
    pub(crate) timings: Timings,
}

/// Which of the spec's diagnostics a command shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Show {
    All,
    /// All but missing and stale translations: the i18n commands report those themselves.
    AllButTranslationState,
    /// Missing and stale translations counted in one line instead of one diagnostic each: the
    /// commands of test authors (`matrix`, `scaffold`, `review`), whose readers cannot act on them
    /// and whose own warnings (suspect tests, missing results) would be buried under them.
    TranslationStateCounted,
}

impl<'c> Stages<'c> {
    pub(crate) fn new(ctx: &'c Ctx) -> Self {
        Stages {
            ctx,
            timings: Timings::default(),
        }
    }

    /// Load → `Spec`: read, parse, assemble and validate the spec folder (the contract built into
    /// the binary when the command chose it: [`crate::embedded::BUILT_IN_DIR`]).
    pub(crate) fn spec(&mut self, opts: LoadOptions, show: Show) -> Result<Loaded, Failure> {
        if crate::embedded::is_built_in(&self.ctx.spec) {
            return self.built_in();
        }
        let mut loaded = kcontract_spec::load_with(&self.ctx.spec, self.named(opts));
        let before = loaded.diagnostics.len();
        if show != Show::All {
            loaded
                .diagnostics
                .retain(|d| !matches!(d.code, "K0301" | "K0303" | "K0310") || d.is_error());
        }
        let translations = before - loaded.diagnostics.len();
        let loaded = self.loaded(loaded)?;
        if show == Show::TranslationStateCounted && translations > 0 {
            eprintln!(
                "note: {translations} translation warning{} (missing or stale translations) for the spec's editors: `kcontract{} i18n status` lists them",
                if translations == 1 { "" } else { "s" },
                if self.ctx.spec_given {
                    format!(
                        " --spec {}",
                        crate::terminal::shell_word(&self.ctx.spec.display().to_string())
                    )
                } else {
                    String::new()
                }
            );
        }
        Ok(loaded)
    }

    /// The contract built into the binary (`spec/` as it was at build time), for a test author's
    /// command run where there is no spec folder: only its errors are reported (its warnings are
    /// its editors'), and a note says which contract is used, so the choice is never silent.
    fn built_in(&mut self) -> Result<Loaded, Failure> {
        let mut loaded = crate::embedded::built_in();
        loaded.diagnostics.retain(Diagnostic::is_error);
        let loaded = self.loaded(loaded)?;
        let c = &loaded.spec.contract;
        eprintln!(
            "note: no spec folder here (`spec/`, `--spec DIR` or `spec =` in kcontract.toml): using the contract built into kcontract, {} {} ({} clauses)",
            c.title,
            c.version,
            loaded.spec.clauses.len()
        );
        Ok(loaded)
    }

    /// `opts` with how the spec folder was named (for the hint when it is missing).
    fn named(&self, opts: LoadOptions) -> LoadOptions {
        LoadOptions {
            named: self.ctx.spec_given,
            ..opts
        }
    }

    /// The load's timings kept and its diagnostics printed; stops on an error.
    fn loaded(&mut self, loaded: Loaded) -> Result<Loaded, Failure> {
        self.timings.extend(&loaded.timings);
        self.ctx.report(&loaded.diagnostics, &loaded.sources)?;
        Ok(loaded)
    }

    /// The tests that claim clauses: the `tests:` globs of contract.yaml, relative to its folder
    /// (or the Cargo layout of `--tests-root`). Unknown or malformed clause ids are errors; suspect
    /// tests (their clause changed since they were reviewed) are warnings, errors with `strict`.
    /// Files unchanged since the last scan are not lexed again (`annotations::CacheChoice::for_root`).
    pub(crate) fn tests(&mut self, spec: &Spec, at: &TestsAt) -> Result<Scan, Failure> {
        let scan = self.tests_unreported(spec, at);
        self.ctx.report(&scan.diagnostics, &scan.sources)?;
        Ok(scan)
    }

    /// [`Self::tests`] with its diagnostics left in the scan, not reported: for `scaffold`, which
    /// needs only the clauses real tests claim (problems in those files are `check`'s business).
    pub(crate) fn tests_unreported(&mut self, spec: &Spec, at: &TestsAt) -> Scan {
        let start = Instant::now();
        let (root, globs) = where_tests_are(&self.ctx.spec, &spec.contract, at);
        let found = annotations::find(&root, &globs, &annotations::CacheChoice::for_root(&root));
        let scan = self.claims(spec, found, at, &globs, &root);
        self.timings.add("tests", start.elapsed());
        scan
    }

    /// [`Self::tests`], but claims of ids the contract lacks (K0501: a removed or renamed clause)
    /// do not stop the command: they are returned for it to report after its output (`matrix`
    /// prints its table with the stale claims marked; `review --rename` re-points them).
    pub(crate) fn tests_keeping_stale(
        &mut self,
        spec: &Spec,
        at: &TestsAt,
    ) -> Result<(Scan, Vec<Diagnostic>), Failure> {
        let start = Instant::now();
        let (root, globs) = where_tests_are(&self.ctx.spec, &spec.contract, at);
        let found = annotations::find(&root, &globs, &annotations::CacheChoice::for_root(&root));
        let mut scan = self.claims(spec, found, at, &globs, &root);
        self.timings.add("tests", start.elapsed());
        let (stale, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
            scan.diagnostics.drain(..).partition(|d| d.code == "K0501");
        scan.diagnostics = rest;
        self.ctx.report(&scan.diagnostics, &scan.sources)?;
        Ok((scan, stale))
    }

    /// The second half of the test scan: the claims checked against `spec`, the review
    /// diagnostics added, how the scan cache served noted.
    fn claims(
        &mut self,
        spec: &Spec,
        found: annotations::Found,
        at: &TestsAt,
        globs: &TestGlobs,
        root: &Path,
    ) -> Scan {
        let mut scan = found.scan_for(spec, &at.command("review"));
        add_review(spec, &mut scan, at, globs, root);
        self.timings.note(scan.cache.to_string());
        scan
    }

    /// Load → `Spec` ([`Self::spec`], all diagnostics shown), and the runtimes catalogue
    /// (`runtimes/deviations.yaml` beside the chapters, when there is one) and the tests
    /// ([`Self::tests`]). Reading and tokenising the test files, loading the catalogue and loading
    /// the earlier versions of `history:` need only `contract.yaml`, so they run alongside the
    /// chapters' load; only the claims wait for the `Spec`, and the versions' comparison waits for
    /// [`Self::history`]. `also`, work of a later stage that needs none of these (`build`'s
    /// templates), runs alongside too; its result is returned as it is. Diagnostics are reported
    /// in the same order as one stage after the other: the spec's (stopping there on an error),
    /// the catalogue's, the tests'; the earlier versions' by [`Self::history`].
    pub(crate) fn spec_and_tests<T: Send>(
        &mut self,
        opts: LoadOptions,
        at: &TestsAt,
        also: impl FnOnce() -> T + Send,
    ) -> Result<Loads<T>, Failure> {
        if crate::embedded::is_built_in(&self.ctx.spec) {
            return self.built_in_and_tests(at, also);
        }
        let spec_dir = &self.ctx.spec;
        let alongside = |contract: &Contract| {
            let start = Instant::now();
            let (root, globs) = where_tests_are(spec_dir, contract, at);
            let cache = annotations::CacheChoice::for_root(&root);
            let catalogue_cache = kcontract_spec::fsutil::cache_folder(&root);
            let ((runtimes, found), earlier) = rayon::join(
                || {
                    rayon::join(
                        || runtimes::load_cached(spec_dir, catalogue_cache.as_deref()),
                        || annotations::find(&root, &globs, &cache),
                    )
                },
                || {
                    let start = Instant::now();
                    (history::load(spec_dir, contract), start.elapsed())
                },
            );
            Side {
                runtimes,
                found,
                root,
                globs,
                earlier,
                took: start.elapsed(),
            }
        };
        let opts = self.named(opts);
        let ((loaded, side), also) = rayon::join(
            || kcontract_spec::load_alongside(spec_dir, opts, alongside),
            also,
        );
        if loaded.has_errors() {
            return Err(self.failed_load(loaded, side));
        }
        let loaded = self.loaded(loaded)?;
        // The contract was read when the spec loaded without errors; should it ever not have
        // been, the same work runs now.
        let side = match side {
            Some(s) => s,
            None => alongside(&loaded.spec.contract),
        };
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        self.timings.note(if side.earlier.0.is_empty() {
            format!(
                "runtimes+tests: {:.1} ms, alongside the load (read … validate)",
                ms(side.took)
            )
        } else {
            format!(
                "runtimes+tests+earlier versions: {:.1} ms, alongside the load (read … validate); the earlier versions {:.1} ms of it",
                ms(side.took),
                ms(side.earlier.1)
            )
        });
        let start = Instant::now();
        let scan = self.claims(&loaded.spec, side.found, at, &side.globs, &side.root);
        self.timings.add("claims", start.elapsed());
        self.timings
            .extend_notes(side.runtimes.cache.iter().cloned());
        self.ctx
            .report(&side.runtimes.diagnostics, &side.runtimes.sources)?;
        self.ctx.report(&scan.diagnostics, &scan.sources)?;
        Ok(Loads {
            loaded,
            catalogue: side.runtimes.catalogue,
            scan,
            earlier: side.earlier.0,
            also,
        })
    }

    /// The spec did not load: its errors reported together with those of what was read beside it
    /// and does not depend on its chapters (the runtimes catalogue, the earlier versions of
    /// `history:`), so that one run shows them all. The test annotations are not reported: a clause
    /// that failed may be the one a test claims. Always a failure.
    fn failed_load(&mut self, loaded: Loaded, side: Option<Side>) -> Failure {
        self.timings.extend(&loaded.timings);
        let mut printed = 0;
        let mut diags = loaded.diagnostics;
        if let Some(side) = side {
            let catalogue: Vec<Diagnostic> = (side.runtimes.diagnostics.into_iter())
                .filter(Diagnostic::is_error)
                .collect();
            self.ctx
                .print_diagnostics(&catalogue, &side.runtimes.sources);
            printed += catalogue.len();
            for v in &side.earlier.0 {
                let errors = v.errors();
                self.ctx.print_diagnostics(&errors, &v.loaded.sources);
                printed += errors.len();
            }
            diags.extend(history::broken(&side.earlier.0, &self.ctx.spec));
        }
        match self.ctx.report_after(printed, &diags, &loaded.sources) {
            Err(f) => f,
            Ok(()) => Failure::Input,
        }
    }

    /// [`Self::spec_and_tests`] with the built-in contract: its tests are the crate's (`at`), and
    /// it has no runtimes catalogue or earlier versions to read from disk (they were checked when
    /// kcontract was built).
    fn built_in_and_tests<T: Send>(
        &mut self,
        at: &TestsAt,
        also: impl FnOnce() -> T + Send,
    ) -> Result<Loads<T>, Failure> {
        let loaded = self.built_in()?;
        let also = also();
        let scan = self.tests(&loaded.spec, at)?;
        Ok(Loads {
            loaded,
            catalogue: None,
            scan,
            earlier: Vec::new(),
            also,
        })
    }

    /// The earlier versions of the contract (`history:`, loaded alongside the spec by
    /// [`Self::spec_and_tests`]), each compared with the next (`sources`: the current spec's
    /// files, where `history:` is written). An earlier version with errors stops the command: its
    /// errors are printed with its own files, then K0016 names its entry.
    pub(crate) fn history(
        &mut self,
        versions: &[history::Version],
        spec: &Spec,
        sources: &SourceMap,
    ) -> Result<History, Failure> {
        let start = Instant::now();
        let mut printed = 0;
        for v in versions {
            let errors = v.errors();
            self.ctx.print_diagnostics(&errors, &v.loaded.sources);
            printed += errors.len();
        }
        let broken = history::broken(versions, &self.ctx.spec);
        self.ctx.report_after(printed, &broken, sources)?;
        let compared = history::compare(versions, spec);
        self.timings.add("history", start.elapsed());
        Ok(compared)
    }

    /// The test results files (`--results`) for the tests of `scan`; `None` when none were given.
    pub(crate) fn results(
        &mut self,
        files: &[PathBuf],
        scan: &Scan,
    ) -> Result<Option<Results>, Failure> {
        if files.is_empty() {
            return Ok(None);
        }
        let start = Instant::now();
        let mut res = Results::default();
        let mut sources = SourceMap::default();
        let mut diags = Vec::new();
        let packages: std::collections::BTreeSet<String> = scan
            .tests
            .iter()
            .filter_map(|t| t.package.clone())
            .collect();
        for f in files {
            results::read(f, &mut res, &mut sources, &mut diags, &packages);
        }
        self.timings.add("results", start.elapsed());
        self.ctx.report(&diags, &sources)?;
        Ok(Some(res))
    }

    /// The results files must be newer than every test file they report on (by more than
    /// [`SAME_MOMENT`]): results older than a
    /// test's file are of the test before it changed, and a gate on them would pass what was never
    /// run (K0620: an error, a warning with `allow_stale`). Each file is compared with the files of
    /// the annotated tests it names.
    pub(crate) fn results_fresh(
        &mut self,
        files: &[PathBuf],
        scan: &Scan,
        allow_stale: bool,
    ) -> Result<(), Failure> {
        let packages: std::collections::BTreeSet<String> = scan
            .tests
            .iter()
            .filter_map(|t| t.package.clone())
            .collect();
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let mut diags = Vec::new();
        for f in files {
            let Some(when) = modified(f) else { continue };
            let (mut one, mut sources, mut ignored) =
                (Results::default(), SourceMap::default(), Vec::new());
            results::read(f, &mut one, &mut sources, &mut ignored, &packages);
            let newest = scan
                .tests
                .iter()
                .filter(|t| one.reports_on(t))
                .filter_map(|t| {
                    let path = &scan.sources.get(t.name_span.file).path;
                    Some((modified(path)?, path.clone()))
                })
                .max_by(|a, b| a.0.cmp(&b.0));
            let Some((test_time, test_file)) = newest.filter(|(t, _)| *t > when + SAME_MOMENT)
            else {
                continue;
            };
            let later = test_time.duration_since(when).unwrap_or_default().as_secs();
            let msg = format!(
                "the results `{}` are older than `{}`, a test file they report on (changed {later} s after them)",
                f.display(),
                test_file.display()
            );
            let d = if allow_stale {
                Diagnostic::warning("K0620", msg)
            } else {
                Diagnostic::error("K0620", msg)
            };
            diags.push(d.in_file(f).help(if allow_stale {
                "the results are used as they are (--allow-stale); run the tests again to refresh them"
            } else {
                "run the tests again so the results are of the tests as they are now, or pass --allow-stale to use them anyway (a warning then)"
            }));
        }
        self.ctx.report(&diags, &SourceMap::default())
    }

    /// The platforms' run reports (`--platform [NAME=]FILE`), beside the results: each read as a
    /// `kcontract-run/1` report (K1107 at its `file:line:col` otherwise), named by the name given
    /// with it, else by its platform's runtime. Reports given with one name are one column (an
    /// http and an https verify, a verify and a vendor's log); two reports of one name without one
    /// given to both are K0613, naming both files. Entries for ids the contract lacks are warned of
    /// (K0612, with the nearest id when there is one). Only the files given are read.
    pub(crate) fn platforms(
        &mut self,
        given: &[PlatformArg],
        spec: &Spec,
    ) -> Result<Vec<matrix::PlatformRun>, Failure> {
        if given.is_empty() {
            return Ok(Vec::new());
        }
        let start = Instant::now();
        let mut sources = SourceMap::default();
        let mut diags = Vec::new();
        let mut runs: Vec<matrix::PlatformRun> = Vec::new();
        for arg in given {
            let f = &arg.file;
            let Some(read) = report::load(f, &mut sources, &mut diags) else {
                continue;
            };
            let run = matrix::PlatformRun {
                file: f.display().to_string(),
                given_name: arg.name.clone(),
                report: read.report,
            };
            let clash = runs.iter().find(|r| {
                r.name() == run.name() && (r.given_name.is_none() || run.given_name.is_none())
            });
            if let Some(first) = clash {
                diags.push(
                    Diagnostic::error(
                        "K0613",
                        format!(
                            "two run reports of the platform `{}`: `{}` and `{}`",
                            run.name(),
                            first.file,
                            run.file
                        ),
                    )
                    .in_file(f)
                    .help(format!(
                        "each report is a column named by its platform's runtime: give one report \
                         per platform, or give both the column's name to merge them into one \
                         (`--platform {0}={1} --platform {0}={2}`)",
                        run.name(),
                        first.file,
                        run.file
                    )),
                );
                continue;
            }
            let unknown = report::unknown_ids(&run.report, &read.id_spans, |id| {
                spec.by_id.contains_key(id)
            });
            for (id, span) in &unknown.shown {
                let d = Diagnostic::warning(
                    "K0612",
                    format!(
                        "the run report of `{}` names `{id}`, a clause the contract does not have",
                        run.name(),
                    ),
                )
                .at(
                    Span::new(read.file, span.clone()),
                    "not a clause of this contract",
                );
                diags.push(match annotations::closest(spec, id) {
                    Some(near) => d.help(format!(
                        "did you mean `{near}`? The entry is left out of the matrix; run the platform again against this contract"
                    )),
                    None => d.help("the entry is left out of the matrix: the report was judged against another contract, or an older one (run the platform again)"),
                });
            }
            if unknown.more > 0 {
                diags.push(
                    Diagnostic::warning(
                        "K0612",
                        format!(
                            "the run report of `{}` names {} more clauses the contract does not have",
                            run.name(),
                            unknown.more
                        ),
                    )
                    .in_file(&run.file)
                    .help("their entries are left out of the matrix: the report was judged against another contract, or an older one (run the platform again)"),
                );
            }
            runs.push(run);
        }
        self.timings.add("platforms", start.elapsed());
        self.ctx.report(&diags, &sources)?;
        Ok(runs)
    }

    /// Each clause's tests and status, and its status in each platform's run report. Warns about
    /// real annotated tests the results do not mention (their clauses count as implemented, not
    /// passing).
    pub(crate) fn matrix<'a>(
        &mut self,
        spec: &'a Spec,
        scan: &'a Scan,
        results: Option<&Results>,
        platforms: &[matrix::PlatformRun],
    ) -> Result<Matrix<'a>, Failure> {
        self.matrix_in(spec, scan, results, platforms, &matrix::Scope::default())
    }

    /// [`Self::matrix`] of the clauses a tested crate answers for, its exemptions applied.
    pub(crate) fn matrix_in<'a>(
        &mut self,
        spec: &'a Spec,
        scan: &'a Scan,
        results: Option<&Results>,
        platforms: &[matrix::PlatformRun],
        scope: &matrix::Scope,
    ) -> Result<Matrix<'a>, Failure> {
        let start = Instant::now();
        let mut m = matrix::compute_in(spec, &scan.tests, results, scope);
        m.add_platforms(platforms);
        m.fold_platform_failures();
        self.timings.add("matrix", start.elapsed());
        if let Some(r) = results
            && let Some(d) = nothing_matched(r, scan)
        {
            self.ctx.report(&[d], &scan.sources)?;
        }
        self.ctx.report(&not_run_warnings(&m), &scan.sources)?;
        Ok(m)
    }
}

/// What [`Stages::spec_and_tests`] returns.
pub(crate) struct Loads<T> {
    /// The spec (loaded without errors).
    pub(crate) loaded: Loaded,
    /// The runtimes catalogue, when the spec has one.
    pub(crate) catalogue: Option<Catalogue>,
    /// The tests and their claims.
    pub(crate) scan: Scan,
    /// The earlier versions of `history:`, loaded, not yet compared ([`Stages::history`]).
    pub(crate) earlier: Vec<history::Version>,
    /// What `also` returned.
    pub(crate) also: T,
}

/// What [`Stages::spec_and_tests`] does alongside the load.
struct Side {
    runtimes: runtimes::Loaded,
    found: annotations::Found,
    root: PathBuf,
    globs: TestGlobs,
    /// The earlier versions, and how long their load took.
    earlier: (Vec<history::Version>, std::time::Duration),
    took: std::time::Duration,
}

/// The folder walked for tests and the globs relative to it.
fn where_tests_are(spec_dir: &Path, contract: &Contract, at: &TestsAt) -> (PathBuf, TestGlobs) {
    // A crate's own `tests` (kcontract.toml), else the Cargo layout.
    let layout = || at.globs.clone().unwrap_or_else(annotations::cargo_layout);
    match &at.root {
        Some(dir) => (dir.clone(), layout()),
        // The built-in contract's `tests:` are kcontract's own: a crate using it is the one in
        // the working directory.
        None if crate::embedded::is_built_in(spec_dir) => (PathBuf::from("."), layout()),
        None => annotations::rooted(spec_dir, &contract.tests),
    }
}

/// Where a command looks for tests.
#[derive(Clone, Debug, Default)]
pub(crate) struct TestsAt {
    /// `--tests-root DIR`: the Cargo layout of DIR (`tests/**/*.rs`, `src/**/*.rs`) instead of
    /// the `tests:` globs of contract.yaml.
    pub(crate) root: Option<PathBuf>,
    /// The crate's `tests`/`languages` of its kcontract.toml: its test files instead of the
    /// Cargo layout (`None`: the Cargo layout).
    pub(crate) globs: Option<TestGlobs>,
    /// `--strict`: suspect tests are errors, and tests without a review stamp are reported.
    pub(crate) strict: bool,
    /// ` --spec DIR` as given on the command line, or empty: repeated in hints.
    pub(crate) spec_flag: String,
    /// ` --tests-root DIR` or ` --manifest-path FILE` as given, or empty: repeated in hints.
    pub(crate) tests_flag: String,
}

impl TestsAt {
    /// `kcontract [--spec DIR] SUB [--tests-root DIR | --manifest-path FILE]`: the start of a
    /// command a hint tells the user to run, with the options this command was run with, so that
    /// it works when run as printed (the flags of a subcommand may come before its arguments).
    pub(crate) fn command(&self, sub: &str) -> String {
        format!("kcontract{} {sub}{}", self.spec_flag, self.tests_flag)
    }
}

/// Add the review diagnostics (suspect and, with `--strict`, unreviewed tests) and, when the
/// globs found no annotated test at all, a warning naming them: a gate must never pass because it
/// selected nothing.
fn add_review(spec: &Spec, scan: &mut Scan, at: &TestsAt, globs: &TestGlobs, root: &Path) {
    scan.diagnostics.extend(annotations::review_diagnostics_for(
        spec,
        &scan.tests,
        at.strict,
        &at.command("review"),
    ));
    // Only for globs set in contract.yaml (or `--tests-root`): a contract without tests of its
    // own (the defaults, nothing there) is not warned about.
    let configured = at.root.is_some() || spec.contract.tests != TestGlobs::default();
    if scan.tests.is_empty() && configured {
        let list = |v: &[String]| {
            v.iter()
                .map(|g| format!("`{g}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut what = format!("include {}", list(&globs.include));
        if !globs.exclude.is_empty() {
            what.push_str(&format!(", exclude {}", list(&globs.exclude)));
        }
        scan.diagnostics.push(
            Diagnostic::warning(
                "K0516",
                format!(
                    "no annotated test found: {} file{} scanned in `{}` ({what})",
                    scan.files,
                    if scan.files == 1 { "" } else { "s" },
                    root.display()
                ),
            )
            .help(match at.root {
                Some(_) => "`--tests-root DIR` scans DIR's `tests/**/*.rs` and `src/**/*.rs`; annotate a test with `/// Clause: <id>`",
                None => "the `tests:` globs of contract.yaml are relative to its folder (e.g. `../tests/**/*.rs`); annotate a test with `/// Clause: <id>`, or pass `--tests-root DIR` for a crate elsewhere",
            }),
        );
    }
}

/// An error when results were given and not one of their tests is an annotated test of the crate
/// at all: the results are of another project, or the tests were not found (a gate on them would
/// check nothing). Every annotated test counts, not only those of the selected clauses (a crate
/// gating one chapter runs all its tests) and not only those of clauses the contract still has
/// (after a rename, the stale claims are what the matrix must show). Names a few of the results'
/// tests.
fn nothing_matched(r: &Results, scan: &Scan) -> Option<Diagnostic> {
    if r.is_empty() || scan.tests.iter().any(|t| r.reports_on(t)) {
        return None;
    }
    let names = r.names();
    let few: Vec<String> = names.iter().take(5).map(|n| format!("`{n}`")).collect();
    let more = names.len().saturating_sub(few.len());
    Some(
        Diagnostic::error(
            "K0606",
            format!(
                "none of the {} test{} in the results is an annotated test here",
                names.len(),
                if names.len() == 1 { "" } else { "s" }
            ),
        )
        .help(format!(
            "the results name {}{}; are they from another project, or were the annotated tests not found (see `kcontract check`)?",
            few.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        )),
    )
}

/// Warnings for real annotated tests that the results do not mention.
fn not_run_warnings(m: &Matrix) -> Vec<Diagnostic> {
    m.not_run
        .iter()
        .map(|t| {
            let what = match t.binary_id() {
                Some(b) => format!("`{b} {}`", t.path),
                None => format!("`{}`", t.path),
            };
            let d = Diagnostic::warning("K0605", format!("no result for the annotated test {what}"))
                .at(t.name_span.clone(), "not in the results");
            if t.target.is_none() {
                d.help("its file is not where Cargo looks for tests (tests/, src/, benches/, examples/), so its test binary cannot be told")
            } else {
                d.help("was it filtered out, or are the results from an older run? Its clauses count as implemented, not passing")
            }
        })
        .collect()
}

/// How much newer than results a test file may be and still count as written with them: a copy or
/// a checkout writes a folder's files within moments of each other, in no set order, so only a
/// change later than this is a test edited after its run (K0620).
const SAME_MOMENT: std::time::Duration = std::time::Duration::from_secs(2);

/// A `--platform` argument of `matrix` and `build`: `FILE`, or `NAME=FILE` (the column's name;
/// reports given with one name are one column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlatformArg {
    /// The column's name, when given.
    pub(crate) name: Option<String>,
    /// The run report.
    pub(crate) file: PathBuf,
}

impl std::str::FromStr for PlatformArg {
    type Err = String;

    /// `NAME=FILE` when what is before the first `=` is a name (letters, digits, `.`, `_`, `-`)
    /// and the whole is not an existing file; else the whole is the file.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let whole = || PlatformArg {
            name: None,
            file: PathBuf::from(s),
        };
        let Some((name, file)) = s.split_once('=') else {
            return Ok(whole());
        };
        let is_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !is_name || std::path::Path::new(s).exists() {
            return Ok(whole());
        }
        if file.is_empty() {
            return Err(format!("`{s}`: no report after `{name}=`"));
        }
        Ok(PlatformArg {
            name: Some(name.to_owned()),
            file: PathBuf::from(file),
        })
    }
}
