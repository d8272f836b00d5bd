//! `kcontract conformance run|compare --runtime R TRACE`: the model against real OCI runtimes
//! (runc, crun, youki); needs root.
//!
//! - `run` replays a trace on a real runtime and prints the observations as JSON lines, in the
//!   shape of `kcontract model replay`.
//! - `compare` also replays it on the model, with and without the runtime's profile, and prints
//!   per step the comparable parts side by side (`docs/runtimes.md`).

use std::path::PathBuf;

use serde::Serialize;

use super::model::{malformed, print_lines, read_trace, runtime_arg, version_arg};
use crate::terminal::{Ctx, Failure, Outcome};
use kcontract_oci::conformance::{
    Comparable, Observed, OciRuntime, Session, from_model, from_observed, require_root,
};
use kcontract_oci::model::{ReplayLine, Runtime, Trace, parse_trace};
use kcontract_spec::diagnostic::SourceMap;

/// The model against real OCI runtimes (runc, crun, youki); needs root.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Conformance {
    /// Replay a JSON trace on a real OCI runtime; prints one JSON object per step, like
    /// `model replay`.
    Run(ConformanceArgs),
    /// Replay a trace on a real OCI runtime and on the model (with and without the runtime's
    /// profile); prints the comparable fields side by side. Exit 1 on an unexplained difference.
    Compare(ConformanceArgs),
}

#[derive(clap::Args, Debug)]
pub(crate) struct ConformanceArgs {
    /// runc, crun or youki (found on PATH).
    #[arg(long)]
    runtime: String,
    /// The trace file.
    file: PathBuf,
    /// Read the trace as this OCI version (1.0.1 or 1.3.0), overriding its `oci_version`.
    #[arg(long)]
    oci_version: Option<String>,
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

impl Conformance {
    /// Runs the command. `run`: exit 0 when every step was observed (failed operations are data,
    /// as in `model replay`). `compare`: 0 when the runtime agrees with the model under its profile
    /// on every step, 1 when it does not (an unexplained difference). Both: 1 for an unreadable
    /// (K0001, K0004) or malformed (K0702) trace, not being root, a missing runtime or a step the
    /// harness could not carry out (K0703); 2 for an unknown `--runtime` or an unsupported
    /// `--oci-version` (usage errors naming the accepted values).
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let (compare, args) = match self {
            Conformance::Run(a) => (false, a),
            Conformance::Compare(a) => (true, a),
        };
        let kind = runtime_arg(ctx, "--runtime", &args.runtime)?;
        let version = args
            .oci_version
            .as_deref()
            .map(|v| version_arg(ctx, v))
            .transpose()?;
        let text = read_trace(ctx, &args.file)?;
        // The same error as `model replay` gives for the same file.
        let trace =
            parse_trace(&text, version).map_err(|e| malformed(ctx, &args.file, &text, &e))?;
        let mut session = require_root("conformance")
            .and_then(|()| Session::new(kind))
            .map_err(|e| harness_failed(ctx, &e))?;
        // Which binary answered, on stderr so that stdout stays JSON lines.
        eprintln!(
            "{} {} ({})",
            kind,
            session.cli().version(),
            session.cli().program().display()
        );
        let observed = session
            .run(&trace.steps)
            .map_err(|e| harness_failed(ctx, &e))?;
        drop(session);
        if !compare {
            let lines: Vec<ReplayLine> = observed
                .iter()
                .enumerate()
                .map(|(i, o)| o.to_line(i))
                .collect();
            return print_lines(&lines);
        }
        let (lines, agreed) = compare_lines(kind, &trace, &observed);
        print_lines(&lines)?;
        if agreed { Ok(()) } else { Err(Failure::Input) }
    }
}

/// Reports a harness failure (K0703); the failure to return.
fn harness_failed(ctx: &Ctx, e: &kcontract_oci::conformance::HarnessError) -> Failure {
    ctx.report(&[e.diagnostic()], &SourceMap::default())
        .err()
        .unwrap_or(Failure::Input)
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
