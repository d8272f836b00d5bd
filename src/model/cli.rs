//! `kcontract model replay FILE [--oci-version V] [--profile R]`: everything but the argument
//! parsing, so the real CLI can call [`replay_command`] in one line.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::profile::OciRuntime;
use super::trace::{replay_profiled, to_json_lines};
use super::version::OciVersion;

/// Runs the replay command, printing JSON lines to stdout and errors to stderr.
///
/// Exit code 0 whenever the trace is well-formed (failed operations are data); 1 for an unreadable
/// file, an unsupported `--oci-version`, or a malformed trace (with `FILE:LINE:COL` and the path of
/// the offending step/field).
///
/// With `profile` (`runc`, `crun`, `youki`) the model reproduces that runtime's documented
/// deviations (`spec/runtimes/deviations.yaml`) and each line gains a `deviations` field listing
/// the ids that took effect in the step.
pub fn replay_command(path: &Path, oci_version: Option<&str>, profile: Option<&str>) -> ExitCode {
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

/// [`replay_command`] without a profile, with explicit output streams; returns the exit code.
pub fn run_replay(
    path: &Path,
    oci_version: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    run_replay_with(path, oci_version, None, out, err)
}

/// [`replay_command`] with explicit output streams; returns the exit code.
pub fn run_replay_with(
    path: &Path,
    oci_version: Option<&str>,
    profile: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let profile = match profile.map(str::parse::<OciRuntime>).transpose() {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "error: --profile: {e}");
            return 1;
        }
    };
    let version_override = match oci_version.map(str::parse::<OciVersion>).transpose() {
        Ok(v) => v,
        Err(e) => {
            let _ = writeln!(err, "error: --oci-version: {e}");
            return 1;
        }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            let _ = writeln!(err, "error: cannot read {}: {e}", path.display());
            return 1;
        }
    };
    match replay_profiled(&text, version_override, profile) {
        Ok(results) => {
            for line in to_json_lines(&results) {
                if writeln!(out, "{line}").is_err() {
                    return 1;
                }
            }
            0
        }
        Err(e) => {
            let location = if e.path.is_empty() {
                String::new()
            } else {
                format!(" at {}", e.path)
            };
            let _ = writeln!(
                err,
                "error: {}:{}:{}: malformed trace{location}: {}",
                path.display(),
                e.line,
                e.column,
                e.message
            );
            1
        }
    }
}
