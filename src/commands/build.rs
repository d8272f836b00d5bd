//! `kcontract build`: check the spec, then render the site. The whole data path, stage by stage.

use std::path::PathBuf;
use std::time::Instant;

use crate::pipeline::Stages;
use crate::terminal::{Ctx, Outcome, print};
use kcontract_site as site;
use kcontract_spec::LoadOptions;

/// Check the spec and render the site.
#[derive(clap::Args, Debug)]
pub(crate) struct Build {
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
    /// Output folder.
    #[arg(long, default_value = "site", value_name = "DIR")]
    out: PathBuf,
    /// Folder overriding the embedded templates (same file names), interface text
    /// (`i18n/<lang>.yaml`) and assets (`assets/`: style.css, site.js, and files they use).
    /// Without it: `templates/` beside the spec folder, when it holds `i18n/`.
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Missing or stale translations are errors, not warnings; so are suspect tests.
    #[arg(long)]
    strict: bool,
    /// Print where the time went to stderr: each stage (read, parse, assemble, validate, claims,
    /// matrix, history, prepare, render+write, swap), the parts of render+write, what ran alongside the load
    /// (the test scan with the runtimes catalogue and the earlier versions, the templates) and how
    /// the test scan's cache served.
    #[arg(long)]
    timings: bool,
    /// Test results (JUnit XML or libtest output) to show in the matrix page.
    #[arg(long, value_name = "FILE")]
    results: Vec<PathBuf>,
    /// A platform's run report (`kcontract platform run|verify|import-log --report`): a column of
    /// the matrix and platforms pages (repeatable). `NAME=REPORT`: the column's name; reports given
    /// with one name are one column. Without it: every `*.json` in `platforms/results/` beside the
    /// spec folder (the committed results).
    #[arg(long, value_name = "[NAME=]REPORT")]
    platform: Vec<crate::pipeline::PlatformArg>,
}

impl Build {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &ctx.writing(format!(
            "the site was not built; {} is unchanged",
            self.out.display()
        ));
        let setup = self.tests.setup(ctx, self.strict)?;
        let ctx = &setup.ctx;
        // Refused at once (nothing read, nothing written) when the folder is a person's; a site
        // a stopped build moved aside is put back first.
        let checked = site::restore_output(&self.out).and_then(|restored| {
            if let Some(r) = restored {
                eprintln!("note: {r}");
            }
            site::check_output(&self.out, &ctx.spec)
        });
        if let Err(d) = checked {
            return Err(ctx.fail(
                &d,
                &Default::default(),
                &format!(
                    "error: the site was not built; {} is unchanged",
                    self.out.display()
                ),
            ));
        }
        let mut stages = Stages::new(ctx);
        // The templates need nothing of the spec: they are read and compiled while it loads.
        let templates = site::templates_folder(self.templates.as_deref(), &ctx.spec);
        let crate::pipeline::Loads {
            mut loaded,
            catalogue: runtimes,
            scan,
            earlier,
            also: tpl,
        } = stages.spec_and_tests(
            LoadOptions {
                strict: self.strict,
                ..LoadOptions::default()
            },
            &setup.at,
            || {
                let start = Instant::now();
                (site::templates(templates.as_deref()), start.elapsed())
            },
        )?;
        let (tpl, took) = tpl;
        stages.timings.note(format!(
            "templates: {:.1} ms, alongside the load",
            took.as_secs_f64() * 1e3
        ));
        setup.check_config(&loaded.spec)?;
        // The tested crate's `tests-link` (kcontract.toml): the matrix page links its tests there,
        // as `links: tests:` of contract.yaml does for the spec's own repository.
        if let Some(base) = setup.config.as_ref().and_then(|c| c.tests_link.clone()) {
            loaded.spec.contract.links.tests = Some(kcontract_spec::LinkBase {
                base,
                labels: Default::default(),
                suffix: None,
            });
        }
        let spec = &loaded.spec;
        let results = stages.results(&self.results, &scan)?;
        let reports = if self.platform.is_empty() {
            site::platform_reports(&ctx.spec)
                .into_iter()
                .map(|file| crate::pipeline::PlatformArg { name: None, file })
                .collect()
        } else {
            self.platform.clone()
        };
        let platforms = stages.platforms(&reports, spec)?;
        let matrix = stages.matrix(spec, &scan, results.as_ref(), &platforms)?;
        let history = stages.history(&earlier, spec, &loaded.sources)?;
        let failed = |d: kcontract_spec::diagnostic::Diagnostic| {
            ctx.fail(
                &d,
                &loaded.sources,
                &format!(
                    "error: the site was not built; {} is unchanged",
                    self.out.display()
                ),
            )
        };
        let mut tpl = tpl.map_err(failed)?;
        tpl.for_languages(&spec.contract.languages);
        ctx.report(&tpl.warnings, &loaded.sources)?;
        let output = site::Output {
            out: &self.out,
            spec: &ctx.spec,
            at: &kill_at,
        };
        let built =
            site::build(&matrix, runtimes.as_ref(), &history, &tpl, &output).map_err(failed)?;
        if let Some(r) = &built.restored {
            eprintln!("note: {r}");
        }
        if self.timings {
            let mut t = stages.timings;
            t.extend(&built.timings);
            eprint!("{}", t.report());
        }
        print(&format!(
            "{}built {} pages ({} files) into {}\n",
            kcontract_spec::list::summary(spec, &ctx.spec),
            built.pages,
            built.files,
            self.out.display()
        ))
    }
}

/// The test hook of `tests/suite/boundaries.rs`: with `KCONTRACT_TEST_KILL_AT=<step>` the process
/// stops at that step of the site's swap as a kill would (no clean-up, no message), so the test can
/// check that the next build finds the old site or the new one, whole.
fn kill_at(step: site::SwapStep) {
    if std::env::var_os("KCONTRACT_TEST_KILL_AT").is_some_and(|v| v == step.as_str()) {
        std::process::abort();
    }
}
