//! `kcontract model`: the reference model of the OCI container lifecycle. It reads a trace, not
//! the spec, so it works from any folder.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::terminal::{Failure, Outcome};

/// The reference model of the OCI container lifecycle.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Model {
    /// Replay a JSON trace against the model; prints one JSON object per step.
    Replay {
        /// The trace file.
        file: PathBuf,
        /// OCI runtime-spec version to follow (1.0.1 or 1.3.0), overriding the trace's `oci_version`.
        #[arg(long)]
        oci_version: Option<String>,
        /// Reproduce a real runtime's documented deviations (runc, crun or youki; see
        /// spec/runtimes/deviations.yaml); each line then lists the deviations that took effect.
        #[arg(long, value_name = "RUNTIME")]
        profile: Option<String>,
    },
}

impl Model {
    pub(crate) fn run(self) -> Outcome {
        match self {
            Model::Replay {
                file,
                oci_version,
                profile,
            } => outcome_of(super::model_cli::replay_command(
                &file,
                oci_version.as_deref(),
                profile.as_deref(),
            )),
        }
    }
}

/// The model's and the harness's entry points report themselves and return their exit code.
pub(crate) fn outcome_of(code: ExitCode) -> Outcome {
    if code == ExitCode::SUCCESS {
        Ok(())
    } else if code == ExitCode::from(2) {
        Err(Failure::Usage)
    } else {
        Err(Failure::Input)
    }
}
