//! `kcontract conformance`: the model against real OCI runtimes (runc, crun, youki); needs root.

use std::path::PathBuf;
use std::process::ExitCode;

use super::conformance_cli::{Mode, run_conformance};
use crate::terminal::Outcome;

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

impl Conformance {
    pub(crate) fn run(self) -> Outcome {
        let (mode, args) = match self {
            Conformance::Run(a) => (Mode::Run, a),
            Conformance::Compare(a) => (Mode::Compare, a),
        };
        let code = run_conformance(
            mode,
            &args.runtime,
            &args.file,
            args.oci_version.as_deref(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        );
        super::model::outcome_of(ExitCode::from(code))
    }
}
