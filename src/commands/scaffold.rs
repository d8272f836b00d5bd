//! `kcontract scaffold`: Rust test stubs for the clauses, one file per chapter, regenerated without
//! losing work. The plan, the merge and the writing are `kcontract_trace::scaffold`'s; this command
//! runs the stages (the spec, the test scan), calls it and renders what it returns.

use std::path::{Path, PathBuf};

use crate::commands::tests_flags::Setup;
use crate::pipeline::{Show, Stages, TestsAt};
use crate::terminal::{Ctx, Failure, Outcome, plural, print, shell_word, unified_diff};
use kcontract_spec::LoadOptions;
use kcontract_trace::scaffold::{self, Folder, Job, Prepared, Stubs, Target};
use kcontract_trace::selector::Selector;

/// Write Rust test stubs for the clauses (one file per chapter); regeneration keeps your work.
#[derive(clap::Args, Debug)]
pub(crate) struct Scaffold {
    /// Folder of test modules (default tests/contract); with --crate, the crate's root (default ./NAME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write a standalone crate NAME (Cargo.toml and src/lib.rs when missing, tests/contract/).
    #[arg(long = "crate", value_name = "NAME", value_parser = scaffold::check_crate_name)]
    crate_name: Option<String>,
    /// Write nothing; exit 1 when a file would change.
    #[arg(long)]
    check: bool,
    /// Only stubs for these clauses (the selector grammar of `matrix --require`, e.g.
    /// `actor:platform,verify:conformance`); remembered in the crate's kcontract.toml, whose
    /// `select` is used when this is not given. Untouched stubs of other clauses are removed.
    #[arg(long, value_name = "SELECTOR")]
    select: Option<Selector>,
    /// The language of the stubs: `go` writes one `<chapter>_test.go` per chapter with
    /// `t.Skip("not yet written: <id>")` bodies, `python` one `test_<chapter>.py` with
    /// `pytest.skip(…)` bodies (neither with --crate).
    #[arg(long, value_enum, default_value_t = StubLang::Rust)]
    lang: StubLang,
    /// With --lang go: the package of new files (default: the folder's existing one, else the
    /// module's last path element when go.mod is in the folder, else the folder's name).
    #[arg(long, value_name = "NAME", requires = "lang")]
    package: Option<String>,
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
}

/// The languages `scaffold` writes stubs in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StubLang {
    /// `#[test]` functions in tests/contract/ (a Cargo test binary).
    Rust,
    /// `func TestX(t *testing.T)` in `<chapter>_test.go` files of one package.
    Go,
    /// pytest's `def test_…()` in `test_<chapter>.py` files.
    Python,
}

impl Scaffold {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        if self.lang != StubLang::Rust && self.crate_name.is_some() {
            return Err(ctx.usage(
                "`--crate` writes a Cargo crate, not Go or Python stubs",
                "name the folder of the stubs with --out DIR",
            ));
        }
        if self.lang != StubLang::Go && self.package.is_some() {
            return Err(ctx.usage(
                "`--package` names a Go package",
                "add --lang go, or leave --package out",
            ));
        }
        // With --crate, the crate's kcontract.toml is in --out (default ./NAME).
        let flags = match &self.crate_name {
            Some(name) => {
                let root = self.out.clone().unwrap_or_else(|| PathBuf::from(name));
                let mut f = self.tests.clone();
                if root.is_dir() {
                    f = f.or_root(root);
                }
                f
            }
            None => self.tests.clone(),
        };
        let setup = flags.setup_for_authors(ctx, false)?;
        let ctx = &setup.ctx.writing("nothing was written");
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::TranslationStateCounted)?;
        setup.check_config(&loaded.spec)?;
        if let Some(sel) = &self.select {
            if let Some((term, known)) = sel.unknown_name(&loaded.spec.contract) {
                return Err(ctx.usage(&format!("`{term}` names nothing in this contract"), &known));
            }
            if let Some(hint) = sel.selects_nothing(&loaded.spec) {
                return Err(ctx.usage(&format!("`--select {sel}` selects no clause"), &hint));
            }
        }
        let crate_root = if self.crate_name.is_some() {
            None
        } else {
            setup.at.root.clone()
        };
        let mut target = Target::new(self.out, self.crate_name, crate_root);
        match self.lang {
            StubLang::Rust => {}
            StubLang::Go => {
                let package = scaffold::package_for(&target.dir, self.package.as_deref());
                target = target.writing(Stubs::Go { package });
            }
            StubLang::Python => target = target.writing(Stubs::Python),
        }
        // The tests real tests claim clauses in: the project's, or the crate's own (Cargo's
        // layout in its root, which need not exist yet).
        let at = TestsAt {
            root: target.is_crate().then(|| target.root.clone()),
            ..setup.at.clone()
        };
        let scan = stages.tests_unreported(&loaded.spec, &at);
        let mut scope = setup.scope();
        if let Some(sel) = &self.select {
            scope.select = Some(sel.clone());
        }
        let job = Job {
            spec: &loaded.spec,
            spec_dir: (!crate::embedded::is_built_in(&ctx.spec)).then_some(ctx.spec.as_path()),
            target: &target,
            scope: &scope,
            select: self.select.as_ref(),
            scan: &scan,
            review: &review_command(&setup, &target),
        };
        let folder = Folder::read_for(&target.dir, &target.stubs);
        ctx.report(&folder.diagnostics(), &folder.sources)?;
        let prepared = match job.prepare(&folder) {
            Ok(p) => p,
            Err(e) => {
                ctx.report(&[e.diagnostic()], &folder.sources)?;
                return Err(Failure::Input);
            }
        };
        ctx.report(prepared.orphans(), &folder.sources)?;
        if self.check {
            check(ctx, &target, &prepared, &folder)
        } else {
            write(ctx, &prepared, &folder)
        }
    }
}

/// The review command as the user can run it, for the hint of a renamed clause's orphan: the
/// crate named as this run named it.
fn review_command(setup: &Setup, target: &Target) -> String {
    if target.is_crate() && setup.at.tests_flag.is_empty() && target.root != Path::new(".") {
        format!(
            "kcontract{} review --tests-root {}",
            setup.at.spec_flag,
            shell_word(&target.root.display().to_string())
        )
    } else {
        setup.at.command("review")
    }
}

/// `--check`: say that the folder is up to date, or which files would change and how (a unified
/// diff each; a missing file is all additions), and fail.
fn check(ctx: &Ctx, target: &Target, prepared: &Prepared, folder: &Folder) -> Outcome {
    if prepared.up_to_date() {
        return print(&format!(
            "up to date: {}\n{}",
            target.dir.display(),
            prepared.summary()
        ));
    }
    let diags = prepared.out_of_date();
    ctx.print_diagnostics(&diags, &folder.sources);
    for (p, old, new) in prepared.changes() {
        eprint!("{}", unified_diff(p, old, new));
    }
    eprintln!(
        "error: {} file{} would change",
        diags.len(),
        plural(diags.len())
    );
    Err(Failure::Input)
}

/// Write the files and list them; on a file that cannot be written, list those that were, then
/// the error.
fn write(ctx: &Ctx, prepared: &Prepared, folder: &Folder) -> Outcome {
    match prepared.write() {
        Ok(out) => print(&out),
        Err(failure) => {
            print(&failure.written)?;
            let ctx = ctx.writing("files listed above as written were written");
            ctx.report(&[failure.error.diagnostic()], &folder.sources)?;
            Err(Failure::Input)
        }
    }
}
