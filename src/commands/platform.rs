//! `kcontract platform run`: the probe under a local OCI runtime, as the platform a profile
//! describes; every clause judged (needs root).

use std::path::PathBuf;

use crate::conformance::OciRuntime;
use crate::platform::cli::{ImportRequest, RunRequest, import_log, lint, run};
use crate::platform::controls::Control;
use crate::terminal::{Ctx, Outcome};

/// Platforms: run the probe as a profile's platform and judge the contract's clauses.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Platform {
    /// Run the probe under runc or crun as the profile's platform would (config from the profile
    /// and the Service, SIGTERM, grace period, SIGKILL), judge every clause, write the report.
    /// Needs root. Exit 0 when no MUST or MUST NOT clause fails, 1 otherwise.
    Run(RunArgs),
    /// Read the `go test -v` log of Knative's runtime conformance suite as a platform's results:
    /// each clause judged from the tests its `upstream-tests` name (a skipped test is not-run,
    /// never a pass), written as a report. Exit 0 when no MUST or MUST NOT clause fails, 1
    /// otherwise or when the log cannot be read.
    ImportLog(ImportLogArgs),
    /// Check Knative Service, Configuration and Revision manifests for what the contract says a
    /// developer must not or should not set, each finding at its line with its clause. Exit 1
    /// when a MUST or MUST NOT clause is broken or a file is not a Knative manifest, 0 otherwise
    /// (SHOULD and SHOULD NOT findings are warnings).
    Lint(LintArgs),
}

#[derive(clap::Args, Debug)]
pub(crate) struct LintArgs {
    /// The manifests (YAML, several documents separated by `---` allowed).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// `human`: rustc-style diagnostics on stderr; `json`: the findings on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: LintFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LintFormat {
    Human,
    Json,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ImportLogArgs {
    /// The platform's name (one word: the report's column, e.g. `google-cloud-run`).
    #[arg(long, value_name = "NAME")]
    platform: String,
    /// The `go test -v` output.
    #[arg(value_name = "LOG")]
    log: PathBuf,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
}

/// The local runtimes a run can use.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum LocalRuntime {
    Runc,
    Crun,
}

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// The OCI runtime (found on PATH).
    #[arg(long, value_enum)]
    runtime: LocalRuntime,
    /// The platform profile (docs/platforms.md).
    #[arg(long, value_name = "FILE")]
    profile: PathBuf,
    /// The Knative Service to deploy [default: platforms/services/conformance.yaml, built in].
    #[arg(long, value_name = "FILE")]
    service: Option<PathBuf>,
    /// Where to write the report (kcontract-run/1 JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
    /// Also write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the results as TAP version 13.
    #[arg(long, value_name = "FILE")]
    tap: Option<PathBuf>,
    /// The static probe [default: $KCONTRACT_PROBE, kcontract-probe beside this binary, or
    /// target/probe/x86_64-unknown-linux-gnu/release/kcontract-probe].
    #[arg(long, value_name = "FILE")]
    probe: Option<PathBuf>,
    /// Apply a negative control (docs/platforms.md lists them): the run must then fail exactly
    /// the clauses whose checks name it.
    #[arg(long, value_name = "NAME")]
    control: Option<String>,
}

impl Platform {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let a = match self {
            Platform::Run(a) => a,
            Platform::ImportLog(a) => return import(ctx, a),
            Platform::Lint(a) => return lint(ctx, &a.files, a.format == LintFormat::Json),
        };
        let control = match a.control.as_deref().map(|n| (n, Control::from_name(n))) {
            None => None,
            Some((_, Some(c))) => Some(c),
            Some((n, None)) => {
                let names: Vec<&str> = Control::ALL.iter().map(|c| c.name()).collect();
                return Err(ctx.usage(
                    &format!("no negative control `{n}`"),
                    &format!("one of: {}", names.join(", ")),
                ));
            }
        };
        run(
            ctx,
            RunRequest {
                runtime: match a.runtime {
                    LocalRuntime::Runc => OciRuntime::Runc,
                    LocalRuntime::Crun => OciRuntime::Crun,
                },
                profile: a.profile,
                service: a.service,
                report: a.report,
                junit: a.junit,
                tap: a.tap,
                probe: a.probe,
                control,
            },
        )
    }
}

/// `platform import-log`, after checking the name: one word, as a column's name must be.
fn import(ctx: &Ctx, a: ImportLogArgs) -> Outcome {
    let word = !a.platform.is_empty()
        && a.platform
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !word {
        return Err(ctx.usage(
            &format!("`{}` is not a platform name", a.platform),
            "one word of letters, digits, `-`, `_` and `.` (the report's column), e.g. google-cloud-run",
        ));
    }
    import_log(
        ctx,
        ImportRequest {
            platform: a.platform,
            log: a.log,
            report: a.report,
        },
    )
}
