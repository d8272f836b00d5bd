//! What the platform commands share: the contract they judge against, the profile's `docs:`
//! warnings, the static probe, the report they write and the results they print.

use std::path::{Path, PathBuf};

use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Failure, Outcome};
use kcontract_oci::conformance::is_static_elf;
use kcontract_platform::checks::Status;
use kcontract_platform::contract::Source;
use kcontract_platform::docs::{DocResult, DocStatus};
use kcontract_platform::profile::Profile;
use kcontract_platform::report::{self, ClauseResult, ContractRef, Platform, Report};
use kcontract_spec::diagnostic::{Diagnostic, SourceMap};
use kcontract_spec::{LoadOptions, Loaded, Spec};

/// Where the static probe is looked for when `--probe` is not given (after `$KCONTRACT_PROBE` and
/// beside the kcontract binary): the path the build command in the README writes it to.
const PROBE_BUILD_PATH: &str = "target/probe/x86_64-unknown-linux-gnu/release/kcontract-probe";

/// The command that builds it.
const PROBE_BUILD_COMMAND: &str = "RUSTFLAGS=-Ctarget-feature=+crt-static CARGO_TARGET_DIR=target/probe \
     cargo build -p kcontract-probe --release --target x86_64-unknown-linux-gnu";

/// The contract a platform command judges against: the folder `--spec` names when it was given
/// (its problems reported as every command reports a spec's), else the built-in one (only its
/// errors reported: its warnings are for the contract's editors, not for whoever runs the
/// command). Stops the command on an error.
pub(super) fn load_contract(ctx: &Ctx) -> Result<(Loaded, Source), Failure> {
    if ctx.spec_given {
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::All)?;
        return Ok((loaded, Source::Given(ctx.spec.clone())));
    }
    let mut loaded = crate::embedded::built_in();
    loaded.diagnostics.retain(Diagnostic::is_error);
    ctx.report(&loaded.diagnostics, &loaded.sources)?;
    Ok((loaded, Source::BuiltIn))
}

/// The rows of `table` whose clause the contract lacks
/// ([`kcontract_platform::contract::missing`]), reported; stops on an error.
pub(super) fn report_missing(
    ctx: &Ctx,
    spec: &Spec,
    source: &Source,
    table: &kcontract_platform::contract::Table,
) -> Outcome {
    ctx.report(
        &kcontract_platform::contract::missing(spec, source, table),
        &SourceMap::default(),
    )
}

/// Reports `d`, an error that ends the command; the failure to return.
pub(super) fn fail(ctx: &Ctx, d: Diagnostic) -> Failure {
    ctx.report(&[d], &SourceMap::default())
        .err()
        .unwrap_or(Failure::Input)
}

/// A warning per `docs:` id of `profile` that is not a documentation clause of `spec`: its link
/// answers nothing (a typo, a renamed clause, a clause a check decides).
pub(super) fn docs_warnings(spec: &Spec, profile: &Profile, path: &Path) -> Vec<Diagnostic> {
    kcontract_platform::docs::unknown_ids(spec, profile)
        .into_iter()
        .map(|id| {
            Diagnostic::warning(
                "K1102",
                format!("the profile's docs name `{id}`, which is not a documentation clause of the spec: ignored"),
            )
            .in_file(path)
            .help("the documentation clauses are those with `route_reason: documentation` in `kcontract matrix --format json`")
        })
        .collect()
}

/// `--probe`, else the first static executable of `$KCONTRACT_PROBE`, `kcontract-probe` beside
/// this binary (a plain `cargo build` puts a dynamically linked one there, which is passed over) and
/// the build path under the working folder. It must be static: the container holds nothing else.
/// The error is K1110.
pub(super) fn find_probe(given: Option<&Path>) -> Result<PathBuf, Diagnostic> {
    let is_static = |p: &Path| {
        kcontract_spec::fsutil::read_regular(p, 256 << 20).is_ok_and(|b| is_static_elf(&b))
    };
    let build = format!("build it with `{PROBE_BUILD_COMMAND}`");
    if let Some(p) = given {
        if !p.is_file() {
            return Err(Diagnostic::error(
                "K1110",
                format!("the probe {} does not exist", p.display()),
            )
            .help(format!("check the path given to --probe, or {build}")));
        }
        if !is_static(p) {
            return Err(Diagnostic::error(
                "K1110",
                format!(
                    "{} is not a static executable; the container holds nothing but the probe",
                    p.display()
                ),
            )
            .help(build));
        }
        return Ok(p.to_owned());
    }
    let candidates: Vec<PathBuf> = std::env::var_os("KCONTRACT_PROBE")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            std::env::current_exe()
                .ok()
                .and_then(|e| e.parent().map(|d| d.join("kcontract-probe"))),
        )
        .chain([PathBuf::from(PROBE_BUILD_PATH)])
        .collect();
    let shown: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    candidates
        .into_iter()
        .find(|p| p.is_file() && is_static(p))
        .ok_or_else(|| {
            Diagnostic::error(
                "K1110",
                format!("no static probe found (looked at {})", shown.join(", ")),
            )
            .help(format!("{build}, or pass --probe FILE"))
        })
}

/// Today (UTC) as `YYYY-MM-DD` (the civil-from-days algorithm of H. Hinnant's `chrono`-compatible
/// date algorithms).
pub(super) fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `text` written to `path` (atomically); a failure is K0006.
pub(super) fn write_output(ctx: &Ctx, path: &Path, text: &str) -> Outcome {
    kcontract_spec::fsutil::write_atomic(path, text.as_bytes()).map_err(|e| {
        fail(
            ctx,
            Diagnostic::error("K0006", format!("cannot write {}: {e}", path.display()))
                .in_file(path)
                .help("check the path and its folder's permissions; the file was left as it was"),
        )
    })
}

/// The report as JSON, written to `path`.
pub(super) fn write_report(ctx: &Ctx, path: &Path, report: &Report) -> Outcome {
    let json = serde_json::to_string_pretty(report).map_err(|e| {
        fail(
            ctx,
            Diagnostic::error("K0006", format!("cannot write the report: {e}")).in_file(path),
        )
    })? + "\n";
    write_output(ctx, path, &json)
}

/// A report of `clauses` about `platform` in this version's format, with the counts;
/// `documentation`: the documentation clauses judged from the profile's `docs` (none without a
/// profile).
pub(super) fn report_of(
    platform: Platform,
    clauses: Vec<ClauseResult>,
    documentation: Vec<DocResult>,
) -> Report {
    Report {
        format: report::RUN_FORMAT.to_owned(),
        platform,
        summary: report::summary(&clauses),
        clauses,
        documentation,
    }
}

/// The spec a report is judged against.
pub(super) fn contract_ref(spec: &Spec) -> ContractRef {
    ContractRef {
        title: spec.contract.title.clone(),
        version: spec.contract.version.clone(),
    }
}

/// The exit of a command that wrote `report`: 1 when a MUST or MUST NOT clause fails or errs.
pub(super) fn verdict(report: &Report) -> Outcome {
    if report::passes(&report.clauses) {
        Ok(())
    } else {
        Err(Failure::Input)
    }
}

/// The results as the commands print them: a line per clause that a check decided, then the
/// counts and the verdict, then the documentation clauses' counts.
pub(super) fn results_text(r: &Report) -> String {
    let mut out = String::new();
    for c in r.clauses.iter().filter(|c| c.check.is_some()) {
        out.push_str(&format!(
            "{:<8} {:<10} {:<54} {}\n",
            c.status.as_str(),
            c.level,
            c.id,
            c.message
        ));
    }
    out.push_str(&counts_line(r));
    out.push_str(&verdict_line(r));
    if !r.documentation.is_empty() {
        let count = |s: DocStatus| r.documentation.iter().filter(|d| d.status == s).count();
        out.push_str(&format!(
            "documentation clauses: {} documented (a reviewed link), {} undocumented, {} n/a\n",
            count(DocStatus::Documented),
            count(DocStatus::Undocumented),
            count(DocStatus::NotApplicable),
        ));
    }
    out
}

/// `N clauses: … pass, … fail, …`.
fn counts_line(r: &Report) -> String {
    let count = |s: Status| r.summary.get(s.as_str()).copied().unwrap_or(0);
    format!(
        "{} clauses: {} pass, {} fail, {} n/a, {} not-run, {} error\n",
        r.clauses.len(),
        count(Status::Pass),
        count(Status::Fail),
        count(Status::NotApplicable),
        count(Status::NotRun),
        count(Status::Error),
    )
}

/// `ok: …`, or the MUST and MUST NOT clauses that fail or err.
fn verdict_line(r: &Report) -> String {
    let blocking: Vec<&str> = r
        .clauses
        .iter()
        .filter(|c| report::blocks(&c.level) && matches!(c.status, Status::Fail | Status::Error))
        .map(|c| c.id.as_str())
        .collect();
    if blocking.is_empty() {
        "ok: no MUST or MUST NOT clause fails\n".to_owned()
    } else {
        format!("failed: {}\n", blocking.join(", "))
    }
}

/// Whether two paths name one file: the same path once resolved (symbolic links followed), or,
/// when both exist, the same file (a hard link).
fn same_file(a: &Path, b: &Path) -> bool {
    let resolved = |p: &Path| kcontract_spec::fsutil::resolved(p).ok();
    if resolved(a).is_some_and(|r| Some(r) == resolved(b)) {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Refuses, as a usage error (exit 2) before anything runs, an output of the command (`--report`,
/// `--junit`, `--tap`) that names one of its inputs (`--profile`, `--service`, the log, …) or
/// another output: written at the end, it would replace the file the command read (a person who
/// typed `--report platforms/x.yaml` for `--profile` loses the profile) or the other output.
/// `flags`: (flag, path, is an output).
pub(super) fn outputs_apart(ctx: &Ctx, flags: &[(&str, Option<&Path>, bool)]) -> Outcome {
    for (i, (out_flag, out, is_out)) in flags.iter().enumerate() {
        let (Some(out), true) = (out, is_out) else {
            continue;
        };
        for (j, (flag, path, _)) in flags.iter().enumerate() {
            if i == j {
                continue;
            }
            if let Some(path) = path
                && same_file(out, path)
            {
                return Err(ctx.usage(
                    &format!(
                        "{out_flag} `{}` is the file of {flag}: writing it would replace it",
                        out.display()
                    ),
                    &format!("give {out_flag} another file"),
                ));
            }
        }
    }
    Ok(())
}
