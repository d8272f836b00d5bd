//! What one step did: the result the runtime returns for every operation (error, status, hook
//! runs, signals, log entries, the state document, the deviations that took effect) and the messages
//! that cite the rule behind each error or warning. Separate from [`super::runtime`] so that its
//! readers (the invariants, the replay line, the comparison with real runtimes) do not depend on how
//! the runtime computes it.

use std::fmt;

use serde::Serialize;

use super::hooks::{HookName, HookRun};
use super::op::{Op, OpKind, Signal};
use super::profile::{Deviation, OciRuntime};
use super::status::Status;
use super::version::OciVersion;

/// The state of a container as the `state` operation returns it (runtime.md §State,
/// `state-schema-v1.3.0.json`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct StateDoc {
    /// REQUIRED. v1.0.1: "the OCI specification version used when creating the container"; v1.3.0:
    /// "version of the Open Container Initiative Runtime Specification with which the state
    /// complies". Both are the profile's version in the model.
    #[serde(rename = "ociVersion")]
    pub oci_version: String,
    /// REQUIRED.
    pub id: String,
    /// REQUIRED.
    pub status: Status,
    /// REQUIRED when `created` or `running` (on Linux, which the model assumes); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// REQUIRED, "the absolute path to the container's bundle directory". The model uses
    /// `/bundles/<id>`. `annotations` (OPTIONAL, "MAY either be absent or an empty map") is absent.
    pub bundle: String,
}

/// Why an operation generated an error.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OpError {
    /// No (or an empty) container ID was provided.
    NoId,
    /// No container has this ID.
    NotFound,
    /// `create` with an ID already in use by a container in this status.
    IdInUse(Status),
    /// The container's status does not allow the operation.
    WrongStatus(Status),
    /// `start` of a container whose config has no `process`.
    ProcessNotSet,
    /// A hook whose failure rule is "generate an error, stop the container, and continue the
    /// lifecycle at step 9/12" failed; the container was destroyed.
    HookFailed {
        /// Which kind.
        hook: HookName,
        /// Which entry.
        index: usize,
    },
    /// The `exit` event for a container with no live process.
    NoLiveProcess(Status),
    /// An error that only a real runtime's documented deviation produces (never under the spec
    /// profile), with the failing hook if a hook caused it.
    Deviated {
        /// Which deviation.
        deviation: Deviation,
        /// The failing hook and its index, if any.
        hook: Option<(HookName, usize)>,
    },
}

impl OpError {
    /// Whether the error is one of the "otherwise stated" cases of runtime.md §Errors, after which the
    /// state is *not* as if the operation were never attempted.
    pub fn destroys_container(&self) -> bool {
        matches!(self, OpError::HookFailed { .. })
    }
}

/// A warning-class outcome.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Warning {
    /// A hook whose failure rule is "log a warning … continue as if the hook had succeeded" failed.
    HookFailed {
        /// Which kind.
        hook: HookName,
        /// Which entry.
        index: usize,
    },
}

/// How the developer's process failed (Knative: "Failures of the developer-specified process MUST be
/// logged to a developer-visible logging system").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProcessFailure {
    /// It exited on its own with a non-zero status.
    ExitCode(i32),
    /// It was ended by SIGKILL from `kill`.
    Killed,
    /// It was still alive after the shutdown grace period and was ended by SIGKILL.
    KilledAfterGrace {
        /// The grace period that passed.
        grace_seconds: u64,
    },
}

/// One entry of the developer-visible log.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LogEntry {
    /// The container.
    pub id: String,
    /// What happened.
    pub failure: ProcessFailure,
}

impl fmt::Display for LogEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.failure {
            ProcessFailure::ExitCode(code) => {
                write!(f, "{}: developer process exited with code {code}", self.id)
            }
            ProcessFailure::Killed => {
                write!(f, "{}: developer process killed by SIGKILL", self.id)
            }
            ProcessFailure::KilledAfterGrace { grace_seconds } => write!(
                f,
                "{}: developer process still alive {grace_seconds} s after SIGTERM; killed by SIGKILL",
                self.id
            ),
        }
    }
}

/// Everything one step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepResult {
    /// The profile the step ran under (for messages).
    pub version: OciVersion,
    /// The operation.
    pub op: OpKind,
    /// The ID as given (`None` when absent).
    pub id: Option<String>,
    /// `None` on success.
    pub error: Option<OpError>,
    /// The container's status after the step; `None` when it does not exist.
    pub status: Option<Status>,
    /// Warning-class outcomes, in order.
    pub warnings: Vec<Warning>,
    /// Every hook run during the step, in execution order.
    pub hooks_run: Vec<HookRun>,
    /// Signals delivered to the container process during the step, in order.
    pub signals: Vec<Signal>,
    /// Developer-visible log entries written during the step.
    pub logs: Vec<LogEntry>,
    /// The state returned by a successful `state`.
    pub state: Option<StateDoc>,
    /// The real runtime whose deviations the model followed (`None`: the spec).
    pub profile: Option<OciRuntime>,
    /// The deviations that made this step differ from the spec, in the order they took effect
    /// (always empty without a profile).
    pub deviations: Vec<Deviation>,
}

impl StepResult {
    pub(super) fn new(version: OciVersion, op: &Op) -> Self {
        StepResult {
            version,
            op: op.action.kind(),
            id: op.id.clone(),
            error: None,
            status: None,
            warnings: Vec::new(),
            hooks_run: Vec::new(),
            signals: Vec::new(),
            logs: Vec::new(),
            state: None,
            profile: None,
            deviations: Vec::new(),
        }
    }

    /// Records that a deviation took effect in this step.
    pub(super) fn note(&mut self, deviation: Deviation) {
        if !self.deviations.contains(&deviation) {
            self.deviations.push(deviation);
        }
    }

    /// Whether the operation succeeded.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    fn id_str(&self) -> &str {
        self.id.as_deref().unwrap_or("")
    }

    /// The error as a message that cites its rule.
    pub(crate) fn error_message(&self) -> Option<String> {
        let error = self.error.as_ref()?;
        let op = self.op;
        let id = self.id_str();
        let source = op.source();
        Some(match error {
            OpError::NoId => format!(
                "no container ID provided ({source}: \"This operation MUST generate an error if it is not provided the container ID.\")"
            ),
            OpError::NotFound => format!("container {id:?} does not exist ({source})"),
            OpError::IdInUse(status) => format!(
                "ID {id:?} is already used by a {status} container ({source}: \"If the ID provided is not unique … MUST generate an error and a new container MUST NOT be created.\")"
            ),
            OpError::WrongStatus(status) => {
                let needs = match op {
                    OpKind::Start => "created",
                    OpKind::Kill | OpKind::Shutdown => "created or running",
                    _ => "stopped",
                };
                format!(
                    "cannot {op} container {id:?}: its status is {status}, {op} needs {needs} ({source}: MUST have no effect on the container and MUST generate an error)"
                )
            }
            OpError::ProcessNotSet => format!(
                "cannot start container {id:?}: its config has no `process` ({source}: \"This operation MUST generate an error if `process` was not set.\")"
            ),
            OpError::HookFailed { hook, index } => {
                let v = self.version;
                format!(
                    "{hook}[{index}] failed: the runtime stopped and destroyed the container and ran the poststop hooks (runtime.md v{v} lifecycle step {}: MUST generate an error, stop the container, and continue the lifecycle at step {})",
                    v.hook_step(*hook).unwrap_or(0),
                    v.destroy_step()
                )
            }
            OpError::NoLiveProcess(status) => {
                format!("container {id:?} has no live process to exit (status {status})")
            }
            OpError::Deviated { deviation, hook } => {
                let what = match deviation {
                    Deviation::CreateRequiresProcess => {
                        "create refuses a config without `process` (config.md: REQUIRED only when `start` is called)"
                    }
                    Deviation::CreateHookFailureSkipsPoststop => {
                        "create failed; the poststop hooks did not run"
                    }
                    Deviation::PoststartFailureKeepsRunning => {
                        "start failed; the container was left as it was"
                    }
                    Deviation::PoststopFailureFailsDelete => {
                        "delete failed; the container was not deleted"
                    }
                    Deviation::IdCharsetRestricted => "the runtime refuses the ID's characters",
                    Deviation::IdLengthLimited => "the runtime refuses an ID this long",
                    Deviation::SignalNamesRestricted => "the runtime does not know the signal",
                    _ => "the operation failed",
                };
                let runtime = self.profile.map_or("", OciRuntime::as_str);
                match hook {
                    Some((hook, index)) => {
                        format!(
                            "{hook}[{index}] failed: {what} (deviation {deviation} of {runtime})"
                        )
                    }
                    None => format!("{what} (deviation {deviation} of {runtime})"),
                }
            }
        })
    }

    /// The warnings as messages that cite their rule.
    pub(crate) fn warning_messages(&self) -> Vec<String> {
        let v = self.version;
        self.warnings
            .iter()
            .map(|w| match w {
                Warning::HookFailed { hook, index } => format!(
                    "{hook}[{index}] failed: warning; the remaining hooks and lifecycle continue (runtime.md v{v} lifecycle step {})",
                    v.hook_step(*hook).unwrap_or(0)
                ),
            })
            .collect()
    }
}
