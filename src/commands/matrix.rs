//! `kcontract matrix`: each clause's tests and status, coverage per level and actor, and the
//! `--require` gate for CI.

use std::io::Write as _;
use std::path::PathBuf;

use crate::diagnostic::Diagnostic;
use crate::matrix::{self, Requirement};
use crate::pipeline::{Show, Stages};
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Failure, Outcome, plural, print};

/// The traceability matrix: each clause's tests and status, coverage per level and actor.
#[derive(clap::Args, Debug)]
pub(crate) struct Matrix {
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
    /// Test results: cargo-nextest JUnit XML or libtest's plain output (repeatable).
    #[arg(long, value_name = "FILE")]
    results: Vec<PathBuf>,
    #[arg(long, default_value = "table")]
    format: MatrixFormat,
    /// SELECTOR=STATUS: exit 1 unless every selected clause has at least STATUS
    /// (e.g. `MUST=implemented`, `verify:model=passing`; repeatable).
    #[arg(long, value_name = "SELECTOR=STATUS")]
    require: Vec<Requirement>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum MatrixFormat {
    Table,
    Json,
    Csv,
}

impl Matrix {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::All)?;
        if let Some((term, known)) = self
            .require
            .iter()
            .find_map(|q| q.unknown_name(&loaded.spec.contract))
        {
            return Err(ctx.usage(&format!("`{term}` names nothing in this contract"), &known));
        }
        if let Some((q, hint)) = matrix::selects_nothing(&loaded.spec, &self.require)
            .into_iter()
            .next()
        {
            return Err(ctx.usage(&format!("`--require {}` selects no clause", q.text), &hint));
        }
        let scan = stages.tests(&loaded.spec, &self.tests.at(ctx, false)?)?;
        let results = stages.results(&self.results)?;
        let m = stages.matrix(&loaded.spec, &scan, results.as_ref())?;
        let text = match self.format {
            MatrixFormat::Table => matrix::table(&m),
            MatrixFormat::Json => matrix::json(&m).map_err(|e| {
                eprintln!("error: the matrix could not be serialised: {e}");
                Failure::Input
            })?,
            MatrixFormat::Csv => matrix::csv(&m),
        };
        print(&text)?;
        let offenders = matrix::offenders(&m, &self.require);
        if offenders.is_empty() {
            return Ok(());
        }
        for q in &self.require {
            let rows: Vec<_> = offenders
                .iter()
                .filter(|(r, _)| std::ptr::eq(*r, q))
                .map(|(_, row)| row)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let d = Diagnostic::error(
                "K0610",
                format!(
                    "{} clause{} do{} not meet `--require {}`",
                    rows.len(),
                    plural(rows.len()),
                    if rows.len() == 1 { "es" } else { "" },
                    q.text
                ),
            )
            .help(format!(
                "each needs at least `{}` (untested < stub < external < implemented < passing; failing meets nothing, waived meets everything)",
                q.status
            ));
            let mut s = ctx.render(&d, &loaded.sources);
            s.push('\n');
            let w = rows.iter().map(|r| r.clause.id.len()).max().unwrap_or(0);
            for r in rows {
                let c = r.clause;
                s.push_str(&format!(
                    "  {:<w$}  {:<11}  {}:{}\n",
                    c.id,
                    r.status.as_str(),
                    c.file.display(),
                    c.line
                ));
            }
            let _ = std::io::stderr().write_all(s.as_bytes());
        }
        Err(Failure::Input)
    }
}
