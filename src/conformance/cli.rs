//! `kcontract conformance run|compare --runtime R TRACE`.
//!
//! - `run` replays a trace on a real runtime and prints the observations as JSON lines, in the
//!   shape of `kcontract model replay`.
//! - `compare` also replays it on the model, with and without the runtime's profile, and prints
//!   per step the comparable parts side by side (`docs/runtimes.md`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::model::{OciVersion, Runtime, Trace, parse_trace};

use super::compare::{Comparable, from_model, from_observed};
use super::harness::{Observed, Session};
use super::oci::OciRuntime;

/// What the command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The runtime's observations (`conformance run`).
    Run,
    /// Runtime, profiled model and spec model, comparable fields (`conformance compare`).
    Compare,
}

/// One `compare` output line.
#[derive(Serialize)]
struct CompareLine<'a> {
    step: usize,
    /// Whether the runtime and the model with its profile agree on this step.
    agree: bool,
    runtime: &'a Comparable,
    profile: &'a Comparable,
    spec: &'a Comparable,
    /// The deviations the profiled model applied in this step.
    deviations: Vec<&'static str>,
}

/// Runs the command; returns the exit code. `run`: 0 when every step was observed (failed
/// operations are data, as in `model replay`). `compare`: 0 when the runtime agrees with the model
/// under its profile on every step, 1 when it does not (an unexplained difference). Both: 1 for an
/// unreadable or malformed trace, a missing runtime, or a step the harness could not carry out.
pub fn run_conformance(
    mode: Mode,
    runtime: &str,
    path: &Path,
    oci_version: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let prepared = prepare(runtime, path, oci_version);
    let (kind, trace, mut session) = match prepared {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
    };
    let _ = writeln!(
        err,
        "{} {} ({})",
        kind,
        session.cli().version(),
        session.cli().program().display()
    );
    let observed = match session.run(&trace.steps) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(err, "error: the harness failed: {e}");
            return 1;
        }
    };
    drop(session);
    let (lines, agreed) = match mode {
        Mode::Run => (
            observed
                .iter()
                .enumerate()
                .map(|(i, o)| o.to_json_line(i))
                .collect(),
            true,
        ),
        Mode::Compare => compare_lines(kind, &trace, &observed),
    };
    for line in &lines {
        if writeln!(out, "{line}").is_err() {
            return 1;
        }
    }
    if agreed { 0 } else { 1 }
}

/// The `compare` lines, and whether the runtime agreed with its profile on every step.
fn compare_lines(kind: OciRuntime, trace: &Trace, observed: &[Observed]) -> (Vec<String>, bool) {
    let mut profiled = Runtime::with_profile(trace.version, kind);
    let mut spec = Runtime::new(trace.version);
    let mut all = true;
    let lines = trace
        .steps
        .iter()
        .zip(observed)
        .enumerate()
        .map(|(step, (op, o))| {
            let p = profiled.apply(op);
            let runtime = from_observed(o, kind).0;
            let profile = from_model(&p);
            let spec = from_model(&spec.apply(op));
            let agree = runtime == profile;
            all &= agree;
            let line = CompareLine {
                step,
                agree,
                runtime: &runtime,
                profile: &profile,
                spec: &spec,
                deviations: p.deviations.iter().map(|d| d.id()).collect(),
            };
            serde_json::to_string(&line).unwrap_or_default()
        })
        .collect();
    (lines, all)
}

fn prepare(
    runtime: &str,
    path: &Path,
    oci_version: Option<&str>,
) -> Result<(OciRuntime, Trace, Session), String> {
    let kind = runtime
        .parse::<OciRuntime>()
        .map_err(|e| format!("--runtime: {e}"))?;
    let version = oci_version
        .map(str::parse::<OciVersion>)
        .transpose()
        .map_err(|e| format!("--oci-version: {e}"))?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    // The same message as `model replay` gives for the same file.
    let trace = parse_trace(&text, version).map_err(|e| {
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
    })?;
    if !is_root() {
        return Err(
            "conformance needs root: the runtimes create namespaces, mounts and cgroups".into(),
        );
    }
    let session = Session::new(kind)?;
    Ok((kind, trace, session))
}

/// Whether this process runs as root (effective uid 0, from `/proc/self/status`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}
