//! `kcontract model replay FILE [--oci-version V] [--profile R]`: everything but the argument
//! parsing, so the real CLI can call [`replay_command`] in one line.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use kcontract_oci::model::OciRuntime;
use kcontract_oci::model::OciVersion;
use kcontract_oci::model::{TraceError, replay_profiled};
use kcontract_oci::model::{replay_lines, write_lines};
use strum::VariantArray;

/// Exit code of a usage error (a flag value the command does not accept), as clap exits.
pub(crate) const USAGE: u8 = 2;

/// Runs the replay command, printing JSON lines to stdout and errors to stderr.
///
/// Exit code 0 whenever the trace is well-formed (failed operations are data); 1 for an unreadable
/// file or a malformed trace (with `FILE:LINE:COL` and the path of the offending step/field); 2 for
/// an unsupported `--oci-version` or an unknown `--profile` (usage errors, named with the accepted
/// values).
///
/// With `profile` (`runc`, `crun`, `youki`) the model reproduces that runtime's documented
/// deviations (`spec/runtimes/deviations.yaml`) and each line gains a `deviations` field listing
/// the ids that took effect in the step.
pub(crate) fn replay_command(
    path: &Path,
    oci_version: Option<&str>,
    profile: Option<&str>,
) -> ExitCode {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = run_replay_with(
        path,
        oci_version,
        profile,
        &mut stdout.lock(),
        &mut stderr.lock(),
    );
    ExitCode::from(code)
}

/// [`replay_command`] with explicit output streams; returns the exit code.
pub(crate) fn run_replay_with(
    path: &Path,
    oci_version: Option<&str>,
    profile: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let flags = profile
        .map(profile_arg)
        .transpose()
        .and_then(|p| Ok((p, oci_version.map(version_arg).transpose()?)));
    let (profile, version_override) = match flags {
        Ok(flags) => flags,
        Err(message) => return report(err, &message, USAGE),
    };
    let text = match kcontract_spec::fsutil::read_text(path) {
        Ok(text) => kcontract_spec::fsutil::plain_text(text),
        Err(e) => return report(err, &format!("cannot read {}: {e}", path.display()), 1),
    };
    match replay_profiled(&text, version_override, profile) {
        Ok(results) => match write_lines(out, &replay_lines(&results)) {
            Ok(()) => 0,
            Err(e) => report(err, &format!("cannot write the output: {e}"), 1),
        },
        Err(e) => report(err, &malformed(path, &e), 1),
    }
}

/// The value of `--oci-version`, or the usage error naming the accepted values.
pub(crate) fn version_arg(value: &str) -> Result<OciVersion, String> {
    choice(
        "unsupported",
        "--oci-version",
        value,
        OciVersion::VARIANTS,
        |v| v.as_str(),
    )
}

/// The value of `--profile`, or the usage error naming the accepted values.
pub(crate) fn profile_arg(value: &str) -> Result<OciRuntime, String> {
    runtime_arg("--profile", value)
}

/// A runtime name given to `flag` (`--profile`, `--runtime`), or the usage error naming the
/// accepted values.
pub(crate) fn runtime_arg(flag: &str, value: &str) -> Result<OciRuntime, String> {
    choice(
        "unknown",
        flag,
        value,
        OciRuntime::VARIANTS,
        OciRuntime::as_str,
    )
}

/// One of `all` by name, or clap's wording of a bad value: ``unknown --flag `x` (expected a, b or c)``.
fn choice<T: Copy>(
    adjective: &str,
    flag: &str,
    value: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
) -> Result<T, String> {
    if let Some(&found) = all.iter().find(|&&t| name(t) == value) {
        return Ok(found);
    }
    let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
    let expected = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    Err(format!(
        "{adjective} {flag} `{value}` (expected {expected})"
    ))
}

/// The message for a malformed trace file: `FILE:LINE:COL: malformed trace at PATH: what`. The
/// same for `model replay` and `conformance`.
pub(crate) fn malformed(path: &Path, e: &TraceError) -> String {
    let at = if e.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", e.path)
    };
    format!(
        "{}:{}:{}: malformed trace{at}: {}",
        path.display(),
        e.line,
        e.column,
        e.message
    )
}

/// Writes `error: MESSAGE` to `err` and returns `code`. A failure to write to standard error
/// cannot be reported anywhere else; the exit code still says that the command failed.
pub(crate) fn report(err: &mut dyn Write, message: &str, code: u8) -> u8 {
    let _ = writeln!(err, "error: {message}");
    code
}
