//! `kcontract conformance run|compare --runtime R TRACE`.
//!
//! - `run` replays a trace on a real runtime and prints the observations as JSON lines, in the
//!   shape of `kcontract model replay`.
//! - `compare` also replays it on the model, with and without the runtime's profile, and prints
//!   per step the comparable parts side by side (`docs/runtimes.md`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::model_cli::{USAGE, malformed, report, runtime_arg, version_arg};
use kcontract_oci::conformance::is_root;
use kcontract_oci::model::{OciVersion, ReplayLine, Runtime, Trace, parse_trace, write_lines};

use kcontract_oci::conformance::OciRuntime;
use kcontract_oci::conformance::{Comparable, from_model, from_observed};
use kcontract_oci::conformance::{Observed, Session};

/// What the command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The runtime's observations (`conformance run`).
    Run,
    /// Runtime, profiled model and spec model, comparable fields (`conformance compare`).
    Compare,
}

/// One `compare` output line.
#[derive(Serialize)]
struct CompareLine {
    step: usize,
    /// Whether the runtime and the model with its profile agree on this step.
    agree: bool,
    runtime: Comparable,
    profile: Comparable,
    spec: Comparable,
    /// The deviations the profiled model applied in this step.
    deviations: Vec<&'static str>,
}

/// Runs the command; returns the exit code. `run`: 0 when every step was observed (failed
/// operations are data, as in `model replay`). `compare`: 0 when the runtime agrees with the model
/// under its profile on every step, 1 when it does not (an unexplained difference). Both: 1 for an
/// unreadable or malformed trace, a missing runtime, not being root, or a step the harness could
/// not carry out; 2 for an unknown `--runtime` or an unsupported `--oci-version` (usage errors,
/// named with the accepted values).
pub(crate) fn run_conformance(
    mode: Mode,
    runtime: &str,
    path: &Path,
    oci_version: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let flags = runtime_arg("--runtime", runtime)
        .and_then(|kind| Ok((kind, oci_version.map(version_arg).transpose()?)));
    let (kind, version) = match flags {
        Ok(flags) => flags,
        Err(message) => return report(err, &message, USAGE),
    };
    let (trace, mut session) = match prepare(kind, path, version) {
        Ok(p) => p,
        Err(e) => return report(err, &e, 1),
    };
    // Which binary answered, on stderr so that stdout stays JSON lines.
    let banner = writeln!(
        err,
        "{} {} ({})",
        kind,
        session.cli().version(),
        session.cli().program().display()
    );
    if let Err(e) = banner {
        return report(err, &format!("cannot write to standard error: {e}"), 1);
    }
    let observed = match session.run(&trace.steps) {
        Ok(o) => o,
        Err(e) => return report(err, &format!("the harness failed: {e}"), 1),
    };
    drop(session);
    let (written, agreed) = match mode {
        Mode::Run => {
            let lines: Vec<ReplayLine> = observed
                .iter()
                .enumerate()
                .map(|(i, o)| o.to_line(i))
                .collect();
            (write_lines(out, &lines), true)
        }
        Mode::Compare => {
            let (lines, agreed) = compare_lines(kind, &trace, &observed);
            (write_lines(out, &lines), agreed)
        }
    };
    match written {
        Err(e) => report(err, &format!("cannot write the output: {e}"), 1),
        Ok(()) if agreed => 0,
        Ok(()) => 1,
    }
}

/// The `compare` lines, and whether the runtime agreed with its profile on every step.
fn compare_lines(
    kind: OciRuntime,
    trace: &Trace,
    observed: &[Observed],
) -> (Vec<CompareLine>, bool) {
    let mut profiled = Runtime::with_profile(trace.version, kind);
    let mut spec = Runtime::new(trace.version);
    let lines: Vec<CompareLine> = trace
        .steps
        .iter()
        .zip(observed)
        .enumerate()
        .map(|(step, (op, o))| {
            let p = profiled.apply(op);
            let runtime = from_observed(o, kind).0;
            let profile = from_model(&p);
            CompareLine {
                step,
                agree: runtime == profile,
                runtime,
                profile,
                spec: from_model(&spec.apply(op)),
                deviations: p.deviations.iter().map(|d| d.id()).collect(),
            }
        })
        .collect();
    let all = lines.iter().all(|l| l.agree);
    (lines, all)
}

/// Reads and parses the trace, checks for root and sets up a harness session; the error is the
/// message for the user.
fn prepare(
    kind: OciRuntime,
    path: &Path,
    version: Option<OciVersion>,
) -> Result<(Trace, Session), String> {
    let text = kcontract_spec::fsutil::read_text(path)
        .map(kcontract_spec::fsutil::plain_text)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // The same message as `model replay` gives for the same file.
    let trace = parse_trace(&text, version).map_err(|e| malformed(path, &e))?;
    if !is_root() {
        return Err(
            "conformance needs root: the runtimes create namespaces, mounts and cgroups".into(),
        );
    }
    let session = Session::new(kind)?;
    Ok((trace, session))
}
