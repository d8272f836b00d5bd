//! `kcontract platform import-log`: read a vendor's log of Knative's conformance suite (`go test
//! -v`, `go test -json` or JUnit XML), judge every testable clause from its tests, write the
//! report, print the results and the results that decide no clause (K1123, a warning). Exit 0
//! when no MUST or MUST NOT clause fails, 1 otherwise, when the log cannot be read or names no
//! test (K1120), or lacks a test `--require-tests` lists (K1124); 2 for a platform name that is
//! not one word.

use std::path::{Path, PathBuf};

use super::shared::{
    contract_ref, docs_warnings, fail, load_contract, report_of, results_text, today, verdict,
    write_report,
};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_platform::docs::DocResult;
use kcontract_platform::import_log::{Form, GoTestLog};
use kcontract_platform::profile;
use kcontract_platform::report::{self, FileRef, Platform, sha256};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, SourceMap};

#[derive(clap::Args, Debug)]
pub(crate) struct ImportLogArgs {
    /// The platform's name (one word: the report's column, e.g. `google-cloud-run`).
    #[arg(long, value_name = "NAME")]
    platform: String,
    /// The suite's output: `go test -v` text, `go test -json` events or a JUnit XML report
    /// (gotestsum's, sonobuoy's), told from its content.
    #[arg(value_name = "LOG")]
    log: PathBuf,
    /// The tests the log must hold (one a line: `TestX`, `TestX/sub` or `path/file_test.go#TestX`
    /// as upstream-tests write them; `#` comment lines): exit 1 naming those it lacks (K1124).
    #[arg(long, value_name = "FILE")]
    require_tests: Option<PathBuf>,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
    /// The platform's profile: its reviewed `docs:` links decide the documentation clauses in the
    /// report (without it they are undocumented: a log says nothing about documentation).
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
}

/// The `platform.runtime` of such a report.
const LOG_RUNTIME: &str = "knative conformance log";

impl ImportLogArgs {
    /// Runs the command, after checking the name: one word, as a column's name must be.
    pub(super) fn run(self, ctx: &Ctx) -> Outcome {
        super::shared::outputs_apart(
            ctx,
            &[
                ("LOG", Some(&self.log), false),
                ("--require-tests", self.require_tests.as_deref(), false),
                ("--profile", self.profile.as_deref(), false),
                ("--report", Some(&self.report), true),
            ],
        )?;
        let word = !self.platform.is_empty()
            && self
                .platform
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !word {
            return Err(ctx.usage(
                &format!("`{}` is not a platform name", self.platform),
                "one word of letters, digits, `-`, `_` and `.` (the report's column), e.g. google-cloud-run",
            ));
        }
        import_log(ctx, &self)
    }
}

/// The command's steps: the contract, the profile's documentation clauses, the log, the report.
fn import_log(ctx: &Ctx, args: &ImportLogArgs) -> Outcome {
    let (loaded, _) = load_contract(ctx)?;
    let spec = &loaded.spec;
    // The profile first: a broken one stops the command before the log is read.
    let documentation = match &args.profile {
        Some(path) => documentation(ctx, spec, path)?,
        None => Vec::new(),
    };
    let required = match &args.require_tests {
        Some(path) => Some(read_list(path).map_err(|d| fail(ctx, d))?),
        None => None,
    };
    let (bytes, form, log) = read_log(&args.log).map_err(|d| fail(ctx, d))?;
    let log_ref = FileRef {
        name: args
            .log
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        path: Some(args.log.display().to_string()),
        sha256: sha256(&bytes),
    };
    let platform = Platform {
        kind: report::LOG_KIND.into(),
        runtime: LOG_RUNTIME.into(),
        runtime_version: String::new(),
        host: args.platform.clone(),
        date: date_of(&args.log),
        profile: profile_ref(args),
        service: log_ref.clone(),
        grace_period_s: 0,
        features: Vec::new(),
        probe: log_ref,
        kcontract: env!("CARGO_PKG_VERSION").to_owned(),
        contract: contract_ref(spec),
        control: None,
    };
    let clauses = kcontract_platform::import_log::clause_results(spec, &log);
    let report = report_of(platform, clauses, documentation);
    write_report(ctx, &args.report, &report)?;
    eprintln!(
        "platform import-log: {} tests in {} ({}), platform {}",
        log.results.len(),
        args.log.display(),
        form.as_str(),
        args.platform
    );
    print(&results_text(&report))?;
    unmapped(ctx, spec, &log, &args.log);
    let complete = match &required {
        Some((path, list)) => required_tests(ctx, path, list, &log),
        None => Ok(()),
    };
    verdict(&report).and(complete)
}

/// K1123, a warning: the results that decide no clause, counted and named (each with why, when
/// the suite's table knows the test), so that nothing of a log is dropped silently.
fn unmapped(ctx: &Ctx, spec: &Spec, log: &GoTestLog, path: &Path) {
    let list = kcontract_platform::import_log::unmapped(spec, log);
    if list.is_empty() {
        return;
    }
    let d = Diagnostic::warning(
        "K1123",
        format!(
            "{} of the log's {} results decide no clause",
            list.len(),
            log.results.len()
        ),
    )
    .in_file(path)
    .help("each is listed below with its result and, for a test of Knative's runtime suite, why it decides none; a test kcontract does not know is from another suite or a newer one (crates/platform/src/import_log/suite.rs maps the suite)");
    let _ = ctx.report(&[d], &SourceMap::default());
    let mut s = String::new();
    let w = list.iter().map(|u| u.name.len()).max().unwrap_or(0);
    for u in &list {
        s.push_str(&format!(
            "  {:<w$}  {:<10}  {}\n",
            u.name,
            u.outcome.as_str(),
            u.why
                .unwrap_or("not a test of the runtime suite kcontract knows")
        ));
    }
    eprint!("{s}");
}

/// K1124: the tests of `--require-tests` the log does not hold, listed.
fn required_tests(ctx: &Ctx, path: &Path, list: &str, log: &GoTestLog) -> Outcome {
    let missing = kcontract_platform::import_log::missing_required(list, log);
    if missing.is_empty() {
        return Ok(());
    }
    let d = Diagnostic::error(
        "K1124",
        format!(
            "the log lacks {} of the tests `{}` requires: {}",
            missing.len(),
            path.display(),
            missing.join(", ")
        ),
    )
    .in_file(path)
    .help("a run that leaves out a required test is not a run of the whole suite: run it again with every test (the report was written, but this gate fails)");
    Err(fail(ctx, d))
}

/// The `--require-tests` file's path and text, or why it cannot be read (K1124).
fn read_list(path: &Path) -> Result<(PathBuf, String), Diagnostic> {
    let bytes = kcontract_platform::input::read(path, kcontract_spec::fsutil::MAX_INPUT, |e| {
        Diagnostic::error(
            "K1124",
            format!(
                "cannot read the list of required tests `{}`: {e}",
                path.display()
            ),
        )
        .in_file(path)
        .help(
            "give a file with one test a line (`TestX`, `TestX/sub` or `path/file_test.go#TestX`)",
        )
    })?;
    Ok((
        path.to_owned(),
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}

/// The documentation clauses as the profile at `path` answers them, or the command's end after
/// reporting its problems.
fn documentation(ctx: &Ctx, spec: &Spec, path: &Path) -> Result<Vec<DocResult>, Failure> {
    let mut sources = SourceMap::default();
    let (profile, diags) = match profile::load(path, &mut sources) {
        Ok(p) => {
            let warnings = docs_warnings(spec, &p, path);
            (Some(p), warnings)
        }
        Err(d) => (None, d),
    };
    ctx.report(&diags, &sources)?;
    let profile = profile.ok_or(Failure::Input)?;
    Ok(kcontract_platform::docs::judge_all(spec, &profile))
}

/// The log's bytes, its form and its tests, or why it cannot be read (K1120): unreadable, or none
/// of the three forms' results in it.
fn read_log(path: &Path) -> Result<(Vec<u8>, Form, GoTestLog), Diagnostic> {
    let not_read =
        |message: String, help: &str| Diagnostic::error("K1120", message).in_file(path).help(help);
    let bytes = kcontract_platform::input::read(path, kcontract_spec::fsutil::MAX_INPUT, |e| {
        not_read(
            format!("cannot read the log `{}`: {e}", path.display()),
            "give the file `go test -v` wrote",
        )
    })?;
    match kcontract_platform::import_log::read(&String::from_utf8_lossy(&bytes)) {
        Ok((form, log)) => Ok((bytes, form, log)),
        Err(e) => Err(not_read(
            format!("`{}` is not a log of a go test run: {e}", path.display()),
            "give the output of `go test -v` (without -v there are no per-test lines) or `go test -json` of Knative's conformance suite, or a JUnit report of it (gotestsum --junitfile)",
        )),
    }
}

/// The report's `profile`: the column's name (see `Platform::column_name`), and the profile when
/// one was given.
fn profile_ref(args: &ImportLogArgs) -> FileRef {
    FileRef {
        name: args.platform.clone(),
        path: args.profile.as_ref().map(|p| p.display().to_string()),
        sha256: sha256(
            args.profile
                .as_ref()
                .and_then(|p| {
                    kcontract_spec::fsutil::read_given(p, kcontract_spec::fsutil::MAX_INPUT).ok()
                })
                .unwrap_or_default()
                .as_slice(),
        ),
    }
}

/// `YYYY-MM-DD` at the start of the log's file name (the vendors' logs are named by the day of
/// their run), else today.
fn date_of(log: &Path) -> String {
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.get(..10) {
        Some(day) if kcontract_platform::profile::is_date(day) => day.to_owned(),
        _ => today(),
    }
}
