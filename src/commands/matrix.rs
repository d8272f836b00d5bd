//! `kcontract matrix`: each clause's tests and status, coverage per level and actor, the
//! `--require` gate and the `--ci` coverage ratchet for CI.

use std::io::Write as _;
use std::path::PathBuf;

use crate::pipeline::{Show, Stages};
use crate::terminal::shell_word;
use crate::terminal::{Ctx, Failure, Outcome, plural, print};
use kcontract_spec::LoadOptions;
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_trace::matrix::{self, Requirement, Status};
use kcontract_trace::ratchet;
use kcontract_trace::selector::Selector;

/// The traceability matrix: each clause's tests and status, coverage per level and actor.
#[derive(clap::Args, Debug)]
pub(crate) struct Matrix {
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
    /// Test results: cargo-nextest JUnit XML or libtest's plain output (repeatable).
    #[arg(long, value_name = "FILE")]
    results: Vec<PathBuf>,
    /// A platform's run report (`kcontract platform run|verify|import-log --report`): a column
    /// named by its runtime, each clause's status there and the route it was decided on (`stale`
    /// when judged against an older text; repeatable). `NAME=REPORT`: the column's name; reports
    /// given with one name are one column (an http and an https verify, a verify and a vendor log).
    #[arg(long, value_name = "[NAME=]REPORT")]
    platform: Vec<crate::pipeline::PlatformArg>,
    #[arg(long, default_value = "table")]
    format: MatrixFormat,
    /// SELECTOR=STATUS: exit 1 unless every selected clause has at least STATUS
    /// (e.g. `MUST=implemented`, `verify:model=passing`, `id:config.*|MUST,actor:platform=passing`;
    /// `,` joins terms that must all hold, `|` alternatives; repeatable); with a `platform:NAME`
    /// (or `platform:*`) term, at least STATUS (`not-run` or `pass`) in that platform's column
    /// (e.g. `MUST,platform:runc=pass`). docs/ci-gates.md.
    #[arg(long, value_name = "SELECTOR=STATUS")]
    require: Vec<Requirement>,
    /// Only these clauses (the selector grammar of --require), instead of the crate's `select`
    /// in its kcontract.toml.
    #[arg(long, value_name = "SELECTOR")]
    select: Option<Selector>,
    /// Table only: show only the clauses of these statuses (comma-separated, e.g. `failing,suspect`).
    #[arg(long, value_name = "STATUS,...", value_delimiter = ',', value_parser = parse_status)]
    only: Vec<Status>,
    /// Coverage ratchet: exit 1 when a clause's status is below the one in FILE (a committed
    /// snapshot, kcontract-coverage/1).
    #[arg(long, value_name = "FILE")]
    ci: Option<PathBuf>,
    /// With --ci: write the current statuses into FILE (to commit), accepting the change.
    #[arg(long, requires = "ci")]
    accept: bool,
    /// Use results older than a test file they report on (K0620 is then a warning, not an
    /// error): they are of the test before it changed.
    #[arg(long, requires = "results")]
    allow_stale: bool,
}

fn parse_status(s: &str) -> Result<Status, String> {
    Status::named(s.trim()).ok_or_else(|| {
        let all: Vec<&str> = Status::REPORTED.iter().map(|s| s.as_str()).collect();
        format!("`{s}` is not a status: use {}", all.join(", "))
    })
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum MatrixFormat {
    Table,
    Json,
    Csv,
}

/// This command line with `--accept` added, for the ratchet's hint: it must work as printed.
fn accept_command() -> String {
    let mut words: Vec<String> = vec!["kcontract".into()];
    words.extend(
        std::env::args()
            .skip(1)
            .filter(|a| a != "--accept")
            .map(|a| shell_word(&a)),
    );
    words.push("--accept".into());
    words.join(" ")
}

impl Matrix {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        if !self.only.is_empty() && !matches!(self.format, MatrixFormat::Table) {
            return Err(ctx.usage(
                "--only applies to the table",
                "the JSON and CSV have every clause of the selection (use --select to narrow them)",
            ));
        }
        let setup = self.tests.setup_for_authors(ctx, false)?;
        let ctx = &setup.ctx.clone();
        let mut stages = Stages::new(ctx);
        let loaded = stages.spec(LoadOptions::default(), Show::TranslationStateCounted)?;
        let spec = &loaded.spec;
        setup.check_config(spec)?;
        let mut scope = setup.scope();
        if let Some(sel) = &self.select {
            scope.select = Some(sel.clone());
        }
        for sel in self
            .require
            .iter()
            .map(|q| &q.selector)
            .chain(self.select.as_ref())
        {
            if let Some((term, known)) = sel.unknown_name(&spec.contract) {
                return Err(ctx.usage(&format!("`{term}` names nothing in this contract"), &known));
            }
        }
        if let Some(hint) = self.select.as_ref().and_then(|s| s.selects_nothing(spec)) {
            return Err(ctx.usage(
                &format!(
                    "`--select {}` selects no clause",
                    self.select
                        .as_ref()
                        .map(|s| s.text.as_str())
                        .unwrap_or_default()
                ),
                &hint,
            ));
        }
        vacuous_requirements(ctx, spec, &scope, &self.require)?;
        let (scan, stale) = stages.tests_keeping_stale(spec, &setup.at)?;
        let results = stages.results(&self.results, &scan)?;
        stages.results_fresh(&self.results, &scan, self.allow_stale)?;
        let platforms = stages.platforms(&self.platform, spec)?;
        let m = stages.matrix_in(spec, &scan, results.as_ref(), &platforms, &scope)?;
        missing_columns(ctx, &m, &self.require)?;
        let text = match self.format {
            MatrixFormat::Table => matrix::table(&m, &self.only),
            MatrixFormat::Json => {
                matrix::json(&m).map_err(|e| ctx.output_failed("the matrix as JSON", &e))?
            }
            MatrixFormat::Csv => matrix::csv(&m),
        };
        print(&text)?;
        // Stale claims, after the table that marks them: an error, but not one that hides it.
        let stale_failed = ctx.report(&stale, &scan.sources).is_err();
        if let Some(fix) = crate::commands::review::rename_all_hint(&m, &setup.at) {
            eprintln!("note: {fix}");
        }
        let gate = gate(ctx, &loaded.sources, &m, &self.require);
        let ratchet = match &self.ci {
            Some(file) => ratchet_run(ctx, &m, file, self.accept, results.is_some()),
            None => Ok(()),
        };
        if stale_failed {
            return Err(Failure::Input);
        }
        gate.and(ratchet)
    }
}

/// A requirement that could not fail is a usage error (exit 2), as a gate over nothing would pass
/// by default: one that selects no clause of the scope, or only clauses that are waived
/// (untestable) or exempt here, which meet every requirement.
fn vacuous_requirements(
    ctx: &Ctx,
    spec: &kcontract_spec::Spec,
    scope: &matrix::Scope,
    require: &[Requirement],
) -> Outcome {
    for q in require {
        let picked: Vec<&kcontract_spec::Clause> = spec
            .clauses
            .iter()
            .filter(|c| scope.select.as_ref().is_none_or(|s| s.selects(c)))
            .filter(|c| q.selects(c))
            .collect();
        if picked.is_empty() {
            let hint = q.selector.selects_nothing(spec).unwrap_or_else(|| {
                format!(
                    "every clause it picks is outside the selection `{}`",
                    scope
                        .select
                        .as_ref()
                        .map(|s| s.text.as_str())
                        .unwrap_or("*")
                )
            });
            return Err(ctx.usage(&format!("`--require {}` selects no clause", q.text), &hint));
        }
        let testable = picked
            .iter()
            .filter(|c| !c.verify.is_untestable() && !scope.exempt.contains_key(&c.id))
            .count();
        if testable == 0 {
            return Err(ctx.usage(
                &format!(
                    "`--require {}` selects no testable clause: its {} clause{} {} waived (untestable) or exempt here",
                    q.text,
                    picked.len(),
                    plural(picked.len()),
                    if picked.len() == 1 { "is" } else { "are" }
                ),
                "waived and exempt clauses meet every requirement, so it could never fail; select clauses that can be tested (`kcontract list` shows each clause's verify)",
            ));
        }
    }
    Ok(())
}

/// A `platform:NAME` requirement whose column was not given (no `--platform` report of that
/// name; `platform:*` with none) is a usage error: it would check nothing.
fn missing_columns(ctx: &Ctx, m: &matrix::Matrix, require: &[Requirement]) -> Outcome {
    let columns: Vec<&str> = m.platforms.iter().map(|p| p.name.as_str()).collect();
    for q in require {
        if let Some(name) = q.missing_column(&columns) {
            let what = if name == "*" {
                "no platform column: no `--platform REPORT` was given".to_string()
            } else {
                format!("no platform column `{name}`")
            };
            return Err(ctx.usage(
                &format!("`--require {}` gates {what}", q.text),
                &if columns.is_empty() {
                    "give the platform's run report with `--platform REPORT` (a column named by its platform)".to_string()
                } else {
                    format!("the columns are {}", columns.join(", "))
                },
            ));
        }
    }
    Ok(())
}

/// The `--require` gate: K0610 for each requirement with clauses below it, listed.
fn gate(
    ctx: &Ctx,
    sources: &kcontract_spec::diagnostic::SourceMap,
    m: &matrix::Matrix,
    require: &[Requirement],
) -> Outcome {
    let offenders = matrix::offenders(m, require);
    if offenders.is_empty() {
        return Ok(());
    }
    for q in require {
        let rows: Vec<&matrix::Offence> = offenders
            .iter()
            .filter(|o| std::ptr::eq(o.requirement, q))
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
        .help(q.explain());
        let mut s = ctx.render(&d, sources);
        s.push('\n');
        let w = rows
            .iter()
            .map(|o| o.row.clause.id.len())
            .max()
            .unwrap_or(0);
        let h = rows.iter().map(|o| o.has.len()).max().unwrap_or(0).max(11);
        for o in rows {
            let c = o.row.clause;
            s.push_str(&format!(
                "  {:<w$}  {:<h$}  {}:{}\n",
                c.id,
                o.has,
                c.file.display(),
                c.line
            ));
        }
        let _ = std::io::stderr().write_all(s.as_bytes());
    }
    Err(Failure::Input)
}

/// `--ci FILE [--accept]`: compare with the committed snapshot, or write it.
fn ratchet_run(
    ctx: &Ctx,
    m: &matrix::Matrix,
    file: &std::path::Path,
    accept: bool,
    results: bool,
) -> Outcome {
    let now = ratchet::snapshot(m);
    let accept_hint = || {
        format!(
            "if the change is intended, run `{}` and commit {}",
            accept_command(),
            file.display()
        )
    };
    if accept {
        kcontract_spec::fsutil::write_atomic(file, ratchet::to_text(&now).as_bytes())
            .map_err(|e| ctx.output_failed(&format!("`{}`", file.display()), &e))?;
        eprintln!(
            "wrote {} (coverage {}): commit it; `--ci {}` fails when a clause drops below it",
            file.display(),
            now.covered,
            file.display()
        );
        return Ok(());
    }
    let old: ratchet::Snapshot = match kcontract_spec::fsutil::read_text(file)
        .map(kcontract_spec::fsutil::plain_text)
    {
        Ok(text) => match serde_json::from_str::<ratchet::Snapshot>(&text) {
            Ok(s) if s.format == ratchet::FORMAT => s,
            Ok(s) => {
                eprintln!(
                    "error[K0611]: `{}` is a `{}` file, not `{}`\n  = help: {}",
                    file.display(),
                    s.format,
                    ratchet::FORMAT,
                    accept_hint()
                );
                return Err(Failure::Input);
            }
            Err(e) => {
                eprintln!(
                    "error[K0611]: `{}` is not a coverage snapshot: {e}\n  = help: {}",
                    file.display(),
                    accept_hint()
                );
                return Err(Failure::Input);
            }
        },
        Err(e) => {
            eprintln!(
                "error[K0611]: no coverage snapshot to compare with: `{}`: {e}\n  = help: write one with `{}`, and commit it",
                file.display(),
                accept_command()
            );
            return Err(Failure::Input);
        }
    };
    let cmp = ratchet::compare(&old, m, results);
    let w = cmp
        .dropped
        .iter()
        .chain(&cmp.rose)
        .map(|(id, _, _)| id.len())
        .max()
        .unwrap_or(0);
    let list = |v: &[(String, String, String)]| {
        v.iter()
            .map(|(id, was, now)| format!("  {id:<w$}  {was} → {now}\n"))
            .collect::<String>()
    };
    if !cmp.rose.is_empty() {
        eprint!(
            "note: {} clause{} rose above {} (coverage {} then, {} now):\n{}  = help: run `{}` to raise the ratchet\n",
            cmp.rose.len(),
            plural(cmp.rose.len()),
            file.display(),
            old.covered,
            now.covered,
            list(&cmp.rose),
            accept_command()
        );
    }
    if cmp.dropped.is_empty() {
        return Ok(());
    }
    let d = Diagnostic::error(
        "K0611",
        format!(
            "coverage dropped: {} clause{} below the snapshot {} (coverage {} then, {} now)",
            cmp.dropped.len(),
            plural(cmp.dropped.len()),
            file.display(),
            old.covered,
            now.covered
        ),
    )
    .help(accept_hint());
    let mut s = ctx.render(&d, &kcontract_spec::diagnostic::SourceMap::default());
    s.push('\n');
    s.push_str(&list(&cmp.dropped));
    let _ = std::io::stderr().write_all(s.as_bytes());
    Err(Failure::Input)
}
