//! `kcontract check`: validate the spec, the runtimes catalogue and the test annotations; print a
//! summary.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::pipeline::Stages;
use crate::terminal::{Ctx, Outcome, plural, print};
use kcontract_spec::LoadOptions;
use kcontract_trace::annotations::{Scan, TestKind};

/// Validate the spec; print a summary. Exit 0 when there are no errors, 1 otherwise.
#[derive(clap::Args, Debug)]
pub(crate) struct Check {
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
    /// Missing or stale translations are errors, not warnings; so are suspect tests (their clause
    /// changed since they were reviewed), and tests without a review stamp are reported.
    #[arg(long)]
    strict: bool,
    /// Only the tests' part of --strict: suspect tests are errors and tests without a review
    /// stamp are reported; translations stay warnings (a test crate's CI, which cannot fix them).
    #[arg(long)]
    strict_tests: bool,
    /// The templates folder `build` would use (default: `templates/` beside the spec folder, when
    /// it holds `i18n/`): its templates and interface text are checked too, so that `check`
    /// passes only where `build` can render.
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
}

impl Check {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let setup = self
            .tests
            .setup_for_authors(ctx, self.strict || self.strict_tests)?;
        let ctx = &setup.ctx;
        let mut stages = Stages::new(ctx);
        let templates = kcontract_site::templates_folder(self.templates.as_deref(), &ctx.spec);
        let crate::pipeline::Loads {
            loaded,
            scan,
            earlier,
            also: tpl,
            ..
        } = stages.spec_and_tests(
            LoadOptions {
                strict: self.strict,
                ..LoadOptions::default()
            },
            &setup.at,
            || kcontract_site::templates(templates.as_deref()),
        )?;
        setup.check_config(&loaded.spec)?;
        // What `build` reads besides the spec and the tests: the earlier versions of `history:`,
        // the templates and interface text.
        stages.history(&earlier, &loaded.spec, &loaded.sources)?;
        let mut tpl =
            tpl.map_err(|d| ctx.fail(&d, &loaded.sources, "error: `build` would fail"))?;
        tpl.for_languages(&loaded.spec.contract.languages);
        ctx.report(&tpl.warnings, &loaded.sources)?;
        let verdict = match ctx.warnings() {
            0 => "ok: no problems found".to_string(),
            n => format!(
                "ok: no errors, {n} warning{} {}{}",
                plural(n),
                ctx.warnings_shown(),
                who_acts(&loaded.diagnostics, &scan)
            ),
        };
        print(&format!(
            "{}{}{verdict}\n",
            kcontract_spec::list::summary(&loaded.spec, &ctx.spec),
            tests_summary(&scan),
        ))
    }
}

/// The warnings by who must act on them: the spec's editors (of which the translations) and the
/// test authors, so that a test author's few are not lost under the translators' many. Empty when
/// all are of one kind.
fn who_acts(spec: &[kcontract_spec::diagnostic::Diagnostic], scan: &Scan) -> String {
    let warn = |d: &&kcontract_spec::diagnostic::Diagnostic| !d.is_error();
    let translations = spec
        .iter()
        .filter(warn)
        .filter(|d| matches!(d.code, "K0301" | "K0303" | "K0310"))
        .count();
    let editors = spec.iter().filter(warn).count();
    let authors = scan.diagnostics.iter().filter(warn).count();
    if editors == 0 || authors == 0 {
        return String::new();
    }
    format!(
        ": {editors} for the spec's editors ({translations} of them translations), {authors} for the test authors"
    )
}

/// The `check` summary line for tests.
fn tests_summary(scan: &Scan) -> String {
    let stubs = scan
        .tests
        .iter()
        .filter(|t| t.kind == TestKind::Stub)
        .count();
    let clauses: BTreeSet<&str> = scan
        .tests
        .iter()
        .flat_map(|t| t.claims.iter().map(|c| c.id.as_str()))
        .collect();
    format!(
        "  tests   {} annotated test{} ({} stub{}) claim {} clause{}; {} file{} scanned\n",
        scan.tests.len(),
        plural(scan.tests.len()),
        stubs,
        plural(stubs),
        clauses.len(),
        plural(clauses.len()),
        scan.files,
        plural(scan.files)
    )
}
