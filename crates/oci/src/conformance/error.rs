//! Why the harness could not do what was asked of it: set up a session on a runtime, run one of
//! the runtime's commands, carry out a step. An operation the runtime refused is an observation,
//! never one of these. Each failure keeps what was being done and, for I/O, the `io::Error` (so its
//! kind); [`HarnessError::diagnostic`] is how the binary reports it (K0703).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use kcontract_spec::diagnostic::Diagnostic;

use crate::model::OciRuntime;

/// The catalogue's code of every harness failure (`docs/errors.md`).
const CODE: &str = "K0703";

/// Why the harness could not do what a session or a step needed.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// The process is not root; `command` is what needed it (`conformance`, `platform run`).
    #[error("{command} needs root: the runtime creates namespaces, mounts and cgroups")]
    NotRoot {
        /// The command that needs root.
        command: &'static str,
    },
    /// A program the harness needs is not on `PATH`.
    #[error("`{program}` is not installed (not found on PATH){why}")]
    NotInstalled {
        /// The program (`runc`, `busybox`, `unshare`).
        program: &'static str,
        /// Why it is needed, when not obvious (`" (crun needs it on this cgroup-hybrid host)"`).
        why: &'static str,
        /// How to install it.
        install: &'static str,
    },
    /// The host's busybox is dynamically linked: it would need the host's libraries inside the
    /// container.
    #[error(
        "{} is dynamically linked; the containers need a static busybox (Debian: apt-get install busybox-static)",
        path.display()
    )]
    NotStatic {
        /// The busybox found on `PATH`.
        path: PathBuf,
    },
    /// A file or folder operation failed.
    #[error("cannot {doing}: {source}")]
    Io {
        /// What was being done, with the path (`create /tmp/kcontract-…/state`).
        doing: String,
        /// The error, with its kind.
        #[source]
        source: io::Error,
    },
    /// A command could not be run to its end.
    #[error("`{command}`: {failure}")]
    Command {
        /// The command line (`runc --root … state a`).
        command: String,
        /// Why it did not end.
        #[source]
        failure: CommandFailure,
    },
    /// The runtime's `--version` names no version.
    #[error("cannot read the version from `{runtime} --version`")]
    NoVersion {
        /// The runtime.
        runtime: OciRuntime,
    },
    /// The runtime or the container did what the harness cannot go on from: a command that must
    /// succeed failed, output that is not what the runtime prints, a container without the process
    /// its status promises.
    #[error("{0}")]
    Unexpected(String),
}

/// Why a command did not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum CommandFailure {
    /// It could not be started.
    #[error("cannot start: {0}")]
    Start(#[source] io::Error),
    /// Waiting for it failed.
    #[error("cannot wait: {0}")]
    Wait(#[source] io::Error),
    /// It was killed at the deadline.
    #[error("did not finish within {} s", .0.as_secs())]
    Deadline(Duration),
}

impl HarnessError {
    /// The error as the binary reports it: K0703, with a hint fitting the cause.
    pub fn diagnostic(&self) -> Diagnostic {
        let help = match self {
            HarnessError::NotRoot { .. } => {
                "run it as root (e.g. with sudo) on a Linux host with the runtime installed"
                    .to_owned()
            }
            HarnessError::NotInstalled { install, .. } => format!("install it, e.g. {install}"),
            HarnessError::NotStatic { .. } => {
                "install a statically linked busybox (Debian: apt-get install busybox-static)"
                    .to_owned()
            }
            HarnessError::Io { .. } => {
                "the harness works in a private folder of the temporary folder ($TMPDIR): check that it can be written"
                    .to_owned()
            }
            HarnessError::Command { .. } | HarnessError::NoVersion { .. } => {
                "check that the runtime on PATH works: run the command by hand".to_owned()
            }
            HarnessError::Unexpected(_) => {
                "run it again; if it happens again, report it with the trace and the runtime's version"
                    .to_owned()
            }
        };
        Diagnostic::error(CODE, self.to_string()).help(help)
    }
}

/// What was being done when an I/O operation failed, added to its error: `fs::create_dir_all(&dir)
/// .doing(|| format!("create {}", dir.display()))?`.
pub trait IoContext<T> {
    /// The error as a [`HarnessError::Io`] saying what was being done.
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, HarnessError>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, HarnessError> {
        self.map_err(|source| HarnessError::Io {
            doing: what(),
            source,
        })
    }
}
