//! `kcontract conformance run --runtime R TRACE`: replay a trace on a real runtime and print the
//! observations as JSON lines, in the shape of `kcontract model replay`.

use std::io::Write;
use std::path::Path;

use crate::model::{OciVersion, parse_trace};

use super::harness::Session;
use super::oci::OciRuntime;

/// Runs the command; returns the exit code: 0 when every step was observed (failed operations are
/// data, as in `model replay`), 1 for an unreadable or malformed trace, a missing runtime, or a
/// step the harness could not carry out.
pub fn run_conformance(
    runtime: &str,
    path: &Path,
    oci_version: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let kind = match runtime.parse::<OciRuntime>() {
        Ok(k) => k,
        Err(e) => {
            let _ = writeln!(err, "error: --runtime: {e}");
            return 1;
        }
    };
    // The version only matters for reading the trace: the real runtime follows its own rules.
    let version = match oci_version.map(str::parse::<OciVersion>).transpose() {
        Ok(v) => v,
        Err(e) => {
            let _ = writeln!(err, "error: --oci-version: {e}");
            return 1;
        }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: cannot read {}: {e}", path.display());
            return 1;
        }
    };
    let trace = match parse_trace(&text, version) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {}:{e}", path.display());
            return 1;
        }
    };
    let mut session = match Session::new(kind) {
        Ok(s) => s,
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
    match session.run(&trace.steps) {
        Ok(observed) => {
            for (i, o) in observed.iter().enumerate() {
                if writeln!(out, "{}", o.to_json_line(i)).is_err() {
                    return 1;
                }
            }
            0
        }
        Err(e) => {
            let _ = writeln!(err, "error: the harness failed: {e}");
            1
        }
    }
}
