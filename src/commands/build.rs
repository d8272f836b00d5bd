//! `kcontract build`: check the spec, then render the site. The whole data path, stage by stage.

use std::path::PathBuf;

use crate::pipeline::{Show, Stages};
use crate::site::{self, BuildOptions};
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Outcome, print};

/// Check the spec and render the site.
#[derive(clap::Args, Debug)]
pub(crate) struct Build {
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
    /// Output folder.
    #[arg(long, default_value = "site", value_name = "DIR")]
    out: PathBuf,
    /// Folder of templates overriding the embedded ones (same file names).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Missing or stale translations are errors, not warnings; so are suspect tests.
    #[arg(long)]
    strict: bool,
    /// Print where the time went to stderr: each stage (read, parse, assemble, validate,
    /// runtimes+tests, matrix, templates, prepare, render+write, swap), the parts of render+write,
    /// and how the test scan's cache served.
    #[arg(long)]
    timings: bool,
    /// Test results (JUnit XML or libtest output) to show in the matrix page.
    #[arg(long, value_name = "FILE")]
    results: Vec<PathBuf>,
}

impl Build {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &ctx.writing(format!(
            "the site was not built; {} is unchanged",
            self.out.display()
        ));
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(
            LoadOptions {
                strict: self.strict,
                ..LoadOptions::default()
            },
            Show::All,
        )?;
        let spec = &loaded.spec;
        let (runtimes, scan) =
            stages.runtimes_and_tests(spec, &self.tests.at(ctx, self.strict)?)?;
        let results = stages.results(&self.results)?;
        let matrix = stages.matrix(spec, &scan, results.as_ref())?;
        let opts = BuildOptions {
            out: self.out.clone(),
            templates: self.templates,
        };
        let built = site::build(&matrix, runtimes.as_ref(), &opts).map_err(|d| {
            ctx.fail(
                &d,
                &loaded.sources,
                &format!(
                    "error: the site was not built; {} is unchanged",
                    self.out.display()
                ),
            )
        })?;
        if self.timings {
            let mut t = stages.timings;
            t.extend(&built.timings);
            eprint!("{}", t.report());
        }
        print(&format!(
            "{}built {} pages ({} files) into {}\n",
            crate::list::summary(spec, &ctx.spec),
            built.pages,
            built.files,
            self.out.display()
        ))
    }
}
