//! Minimal dispatcher; the real CLI replaces this and calls `kcontract::model::replay_command`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "kcontract",
    about = "The Knative Runtime Contract as an executable specification"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The reference model of the OCI container lifecycle.
    Model {
        #[command(subcommand)]
        command: ModelCommand,
    },
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Replay a JSON trace against the model; prints one JSON object per step.
    Replay {
        /// The trace file.
        file: PathBuf,
        /// OCI runtime-spec version to follow (1.0.1 or 1.3.0), overriding the trace's `oci_version`.
        #[arg(long)]
        oci_version: Option<String>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Model {
            command: ModelCommand::Replay { file, oci_version },
        } => kcontract::model::replay_command(&file, oci_version.as_deref()),
    }
}
