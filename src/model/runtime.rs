//! The executable model: an OCI runtime holding containers by ID, and the operations on them.
//!
//! Every operation is atomic in the model: between two steps no container is `creating` (that status
//! exists only while `create` runs, and the model shows it to the hooks that run then). The whole
//! runtime is plain data (`Clone + Eq + Hash`) so the exhaustive explorer can deduplicate states.
//!
//! Sentences quoted below are from `runtime-v1.0.1.md` and `runtime-v1.3.0.md`, whose §State,
//! §Errors and §Operations are identical apart from the lifecycle step numbers they point at; the
//! rules that differ are methods of [`OciVersion`].

use std::fmt;

use serde::Serialize;

use super::fault::Fault;
use super::hooks::{FailureRule, HookName, HookOutcome, HookRun, Hooks, Phase};
use super::profile::{Deviation, OciRuntime, ends_go_program};
use super::version::OciVersion;

/// The first PID the model hands out. PIDs only need to be present and distinct (runtime.md §State:
/// "`pid` … is the ID of the container process"); their values are the model's choice.
pub const PID_BASE: u32 = 1000;

/// `status` of a container (runtime.md §State; `state-schema-v1.3.0.json` enumerates exactly these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// "the container is being created" — only during `create`.
    Creating,
    /// "the runtime has finished the create operation …, and the container process has neither exited
    /// nor executed the user-specified program".
    Created,
    /// "the container process has executed the user-specified program but has not exited".
    Running,
    /// "the container process has exited".
    Stopped,
}

impl Status {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Creating => "creating",
            Status::Created => "created",
            Status::Running => "running",
            Status::Stopped => "stopped",
        }
    }

    /// Whether the container process exists: runtime.md §State, `pid` is "REQUIRED when `status` is
    /// `created` or `running` on Linux".
    pub fn has_process(self) -> bool {
        matches!(self, Status::Created | Status::Running)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How the developer's process reacts to SIGTERM (a property of the program, not of the runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OnSigterm {
    /// It shuts down gracefully and exits with status 0.
    #[default]
    Exit,
    /// It ignores (or handles without exiting) SIGTERM.
    Ignore,
}

/// The parts of a bundle's `config.json` the model needs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Config {
    /// Whether `process` is set. config.md §Process: "`process` (object, OPTIONAL) specifies the
    /// container process. This property is REQUIRED when `start` is called."
    pub process: bool,
    /// How the program reacts to SIGTERM.
    pub on_sigterm: OnSigterm,
    /// Configured hooks with their scripted outcomes.
    pub hooks: Hooks,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            process: true,
            on_sigterm: OnSigterm::Exit,
            hooks: Hooks::none(),
        }
    }
}

/// A signal, by name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// SIGTERM: ends a `running` process whose `on_sigterm` is `exit`.
    Term,
    /// SIGKILL: always ends the container process.
    Kill,
    /// Any other signal (`SIGUSR1`, `SIGHUP`, …): delivered, changes nothing by itself.
    Other(String),
}

impl Signal {
    /// Parses `SIG` followed by upper-case letters or digits (`SIGTERM`, `SIGRTMIN1`, …).
    pub fn parse(name: &str) -> Option<Signal> {
        let rest = name.strip_prefix("SIG")?;
        if rest.is_empty()
            || !rest
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        {
            return None;
        }
        Some(match name {
            "SIGTERM" => Signal::Term,
            "SIGKILL" => Signal::Kill,
            other => Signal::Other(other.to_owned()),
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        match self {
            Signal::Term => "SIGTERM",
            Signal::Kill => "SIGKILL",
            Signal::Other(name) => name,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a step does to the container it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// OCI `state <container-id>`.
    State,
    /// OCI `create <container-id> <path-to-bundle>`, with the bundle's config.
    Create(Config),
    /// OCI `start <container-id>`.
    Start,
    /// OCI `kill <container-id> <signal>`.
    Kill(Signal),
    /// OCI `delete <container-id>`.
    Delete,
    /// Not an operation: the container process exits on its own with this status code.
    Exit {
        /// Exit status; non-zero is a failure of the developer's process.
        code: i32,
    },
    /// Knative's orderly shutdown: SIGTERM, then SIGKILL if the process is alive after the grace
    /// period.
    Shutdown {
        /// The grace period. The model has no clock: a process that exits on SIGTERM does so within
        /// any grace period, one that ignores it is still alive after any grace period.
        grace_seconds: u64,
    },
    /// Knative: the platform reclaims a `stopped` container.
    Reclaim,
}

/// The operation (or event) names used in traces and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// `state`
    State,
    /// `create`
    Create,
    /// `start`
    Start,
    /// `kill`
    Kill,
    /// `delete`
    Delete,
    /// `exit`
    Exit,
    /// `shutdown`
    Shutdown,
    /// `reclaim`
    Reclaim,
}

impl OpKind {
    /// All kinds.
    pub const ALL: [OpKind; 8] = [
        OpKind::State,
        OpKind::Create,
        OpKind::Start,
        OpKind::Kill,
        OpKind::Delete,
        OpKind::Exit,
        OpKind::Shutdown,
        OpKind::Reclaim,
    ];

    /// The trace name.
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::State => "state",
            OpKind::Create => "create",
            OpKind::Start => "start",
            OpKind::Kill => "kill",
            OpKind::Delete => "delete",
            OpKind::Exit => "exit",
            OpKind::Shutdown => "shutdown",
            OpKind::Reclaim => "reclaim",
        }
    }

    /// Where the rule for this operation is written, for error messages.
    fn source(self) -> &'static str {
        match self {
            OpKind::State => "runtime.md#query-state",
            OpKind::Create => "runtime.md#create",
            OpKind::Start => "runtime.md#start",
            OpKind::Kill => "runtime.md#kill",
            OpKind::Delete => "runtime.md#delete",
            OpKind::Exit => "model: process exit event",
            OpKind::Shutdown => "Knative orderly shutdown via runtime.md#kill",
            OpKind::Reclaim => "Knative reclaim via runtime.md#delete",
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Action {
    /// The kind of this action.
    pub fn kind(&self) -> OpKind {
        match self {
            Action::State => OpKind::State,
            Action::Create(_) => OpKind::Create,
            Action::Start => OpKind::Start,
            Action::Kill(_) => OpKind::Kill,
            Action::Delete => OpKind::Delete,
            Action::Exit { .. } => OpKind::Exit,
            Action::Shutdown { .. } => OpKind::Shutdown,
            Action::Reclaim => OpKind::Reclaim,
        }
    }
}

/// One step: an action on the container with this ID. `id: None` models an operation invoked
/// without a container ID, which every OCI operation answers with an error ("This operation MUST
/// generate an error if it is not provided the container ID."). The empty string is treated the same
/// way (the model's choice: an empty ID is not an ID).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Op {
    /// The container ID, if provided.
    pub id: Option<String>,
    /// What to do.
    pub action: Action,
}

impl Op {
    /// A step on the container `id`.
    pub fn new(id: &str, action: Action) -> Op {
        Op {
            id: Some(id.to_owned()),
            action,
        }
    }

    /// A step invoked without a container ID.
    pub fn without_id(action: Action) -> Op {
        Op { id: None, action }
    }

    /// The ID if it is one (present and non-empty).
    pub fn valid_id(&self) -> Option<&str> {
        self.id.as_deref().filter(|id| !id.is_empty())
    }
}

/// One container of the runtime.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Container {
    /// Its ID, unique on this runtime.
    pub id: String,
    /// Its status (never `creating` between steps).
    pub status: Status,
    /// The container process's PID while it exists; `None` once it has exited (the model's choice:
    /// runtime.md makes `pid` required only for `created` and `running`).
    pub pid: Option<u32>,
    /// Its configuration, fixed at create: "Any changes made to the `config.json` file after this
    /// operation will not have an effect on the container."
    pub config: Config,
}

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
    fn new(version: OciVersion, op: &Op) -> Self {
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
    fn note(&mut self, deviation: Deviation) {
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
    pub fn error_message(&self) -> Option<String> {
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
    pub fn warning_messages(&self) -> Vec<String> {
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

/// The modelled runtime: every container on this host, by ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Runtime {
    version: OciVersion,
    /// Sorted by ID, so that equal sets of containers are equal values (for state deduplication).
    /// A `Vec` rather than a map so that "one container per ID" is a property the invariants check,
    /// not one the type system makes impossible to break.
    containers: Vec<Container>,
    fault: Option<Fault>,
    /// A real runtime's documented deviations to reproduce (`--profile`), or none: the spec.
    profile: Option<OciRuntime>,
    /// Under [`Deviation::SignalReportsCreatedRunning`]: containers reported `running` whose
    /// program never ran (the waiting container process is what a signal reaches).
    unstarted: Vec<String>,
}

/// How one phase of hooks ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PhaseEnd {
    /// Every hook ran (failures, if any, were warnings or ignored).
    Completed,
    /// An error-class failure: the remaining hooks of the phase did not run.
    Failed(HookName, usize),
    /// A failure after which the runtime skipped the remaining hooks without an error
    /// ([`Deviation::PoststopFailureSkipsRest`]).
    Stopped,
}

/// What a failing hook does, given the version's rule and the profile's deviations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnFailure {
    Error,
    Warn,
    WarnAndStop(Deviation),
    Ignore(Deviation),
}

impl Runtime {
    /// An empty runtime following `version`'s rules.
    pub fn new(version: OciVersion) -> Runtime {
        Runtime {
            version,
            containers: Vec::new(),
            fault: None,
            profile: None,
            unstarted: Vec::new(),
        }
    }

    /// A runtime with a deliberate bug, for mutation tests only (see [`Fault`]).
    #[doc(hidden)]
    pub fn with_fault(version: OciVersion, fault: Fault) -> Runtime {
        Runtime {
            fault: Some(fault),
            ..Runtime::new(version)
        }
    }

    /// A runtime following `version`'s rules except where `runtime` is documented to deviate from
    /// them (see [`super::profile`]): it reproduces that runtime's observed behaviour.
    pub fn with_profile(version: OciVersion, runtime: OciRuntime) -> Runtime {
        Runtime {
            profile: Some(runtime),
            ..Runtime::new(version)
        }
    }

    /// The profile.
    pub fn version(&self) -> OciVersion {
        self.version
    }

    /// The real runtime whose deviations apply, if any.
    pub fn profile(&self) -> Option<OciRuntime> {
        self.profile
    }

    /// All containers, sorted by ID.
    pub fn containers(&self) -> &[Container] {
        &self.containers
    }

    /// The container with this ID.
    pub fn container(&self, id: &str) -> Option<&Container> {
        self.containers.iter().find(|c| c.id == id)
    }

    /// What `state <id>` returns, if the container exists.
    pub fn state_doc(&self, id: &str) -> Option<StateDoc> {
        let c = self.container(id)?;
        Some(StateDoc {
            oci_version: self.version.as_str().to_owned(),
            id: c.id.clone(),
            status: c.status,
            pid: c.pid,
            bundle: format!("/bundles/{}", c.id),
        })
    }

    fn has_fault(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }

    /// Whether the profile's runtime has this deviation and it departs from this version's rules.
    fn dev(&self, deviation: Deviation) -> bool {
        self.profile.is_some_and(|r| r.has(deviation)) && deviation.deviates_at(self.version)
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.containers.iter().position(|c| c.id == id)
    }

    /// Applies one step and reports what happened. Never panics.
    pub fn apply(&mut self, op: &Op) -> StepResult {
        let mut out = StepResult::new(self.version, op);
        out.profile = self.profile;
        match op.valid_id() {
            None => out.error = Some(OpError::NoId),
            Some(id) => {
                let id = id.to_owned();
                let result = match &op.action {
                    Action::State => self.state(&id, &mut out),
                    Action::Create(config) => self.create(&id, config, &mut out),
                    Action::Start => self.start(&id, &mut out),
                    Action::Kill(signal) => self.kill(&id, signal, &mut out),
                    Action::Delete => self.delete(&id, true, &mut out),
                    Action::Exit { code } => self.exit(&id, *code, &mut out),
                    Action::Shutdown { grace_seconds } => {
                        self.shutdown(&id, *grace_seconds, &mut out)
                    }
                    Action::Reclaim => self.delete(&id, false, &mut out),
                };
                out.error = result.err();
                out.status = self.container(&id).map(|c| c.status);
            }
        }
        out
    }

    /// `state`: "Attempting to query a container that does not exist MUST generate an error. This
    /// operation MUST return the state of a container as specified in the State section."
    fn state(&mut self, id: &str, out: &mut StepResult) -> Result<(), OpError> {
        let doc = self.state_doc(id).ok_or(OpError::NotFound)?;
        if doc.status == Status::Stopped && doc.pid.is_some() {
            out.note(Deviation::StoppedPidKept);
        }
        out.state = Some(doc);
        Ok(())
    }

    /// `create` (lifecycle steps 1–2, and at v1.3.0 steps 3–5).
    fn create(&mut self, id: &str, config: &Config, out: &mut StepResult) -> Result<(), OpError> {
        // "If the ID provided is not unique across all containers within the scope of the runtime
        // … the implementation MUST generate an error and a new container MUST NOT be created."
        if let Some(existing) = self.container(id) {
            if self.has_fault(Fault::CreateReplacesExisting) {
                self.containers.retain(|c| c.id != id);
            } else {
                return Err(OpError::IdInUse(existing.status));
            }
        }
        let refuse = !config.process && self.dev(Deviation::CreateRequiresProcess);
        // runc and youki validate the configuration before anything runs; crun only after the
        // create-phase hooks (see the deviation).
        let refuse_after_hooks = self.profile == Some(OciRuntime::Crun);
        if refuse && !refuse_after_hooks {
            out.note(Deviation::CreateRequiresProcess);
            return Err(OpError::Deviated {
                deviation: Deviation::CreateRequiresProcess,
                hook: None,
            });
        }
        // Step 2 has created the environment; the status is `creating` while the create-phase hooks
        // run. "the user-specified program … MUST NOT be run at this time."
        if let PhaseEnd::Failed(hook, index) = self.run_hooks(config, Phase::Create, out) {
            // Nothing was inserted: destroying undoes step 2, then the poststop hooks run.
            if self.dev(Deviation::CreateHookFailureSkipsPoststop) {
                out.note(Deviation::CreateHookFailureSkipsPoststop);
                return Err(OpError::Deviated {
                    deviation: Deviation::CreateHookFailureSkipsPoststop,
                    hook: Some((hook, index)),
                });
            }
            self.run_poststop_after_error(config, out);
            return Err(OpError::HookFailed { hook, index });
        }
        if refuse {
            out.note(Deviation::CreateRequiresProcess);
            return Err(OpError::Deviated {
                deviation: Deviation::CreateRequiresProcess,
                hook: None,
            });
        }
        let pid = self.free_pid();
        let container = Container {
            id: id.to_owned(),
            status: Status::Created,
            pid: Some(pid),
            config: config.clone(),
        };
        let at = self.containers.partition_point(|c| c.id.as_str() < id);
        self.containers.insert(at, container);
        Ok(())
    }

    /// `start`: "Attempting to `start` a container that is not `created` MUST have no effect on the
    /// container and MUST generate an error. This operation MUST run the user-specified program as
    /// specified by `process`. This operation MUST generate an error if `process` was not set."
    fn start(&mut self, id: &str, out: &mut StepResult) -> Result<(), OpError> {
        let at = self.position(id).ok_or(OpError::NotFound)?;
        let c = &self.containers[at];
        if c.status != Status::Created {
            return Err(OpError::WrongStatus(c.status));
        }
        // Checked before any hook runs: an error must leave the state "as if the operation were
        // never attempted", and a hook that ran would be an effect of the attempt.
        if !c.config.process && !self.has_fault(Fault::StartWithoutProcess) {
            if self.has_fault(Fault::FailedStartStopsContainer) {
                let c = &mut self.containers[at];
                c.status = Status::Stopped;
                c.pid = None;
            }
            return Err(OpError::ProcessNotSet);
        }
        let config = c.config.clone();
        if let PhaseEnd::Failed(hook, index) =
            self.run_hooks(&config, Phase::StartBeforeProgram, out)
        {
            if hook == HookName::StartContainer
                && self.dev(Deviation::StartContainerFailureNotReported)
            {
                // The container process ends before the program; `start` goes on to the
                // poststart hooks and reports success.
                out.note(Deviation::StartContainerFailureNotReported);
                self.end_process(at);
                return match self.run_hooks(&config, Phase::StartAfterProgram, out) {
                    PhaseEnd::Failed(hook, index) => Err(self.poststart_error(hook, index, out)),
                    _ => Ok(()),
                };
            }
            self.destroy_after_error(id, &config, out);
            return Err(OpError::HookFailed { hook, index });
        }
        // The user-specified program runs in the container process (same PID).
        self.containers[at].status = Status::Running;
        if let PhaseEnd::Failed(hook, index) =
            self.run_hooks(&config, Phase::StartAfterProgram, out)
        {
            if self.dev(Deviation::PoststartFailureKeepsRunning) {
                return Err(self.poststart_error(hook, index, out));
            }
            self.destroy_after_error(id, &config, out);
            return Err(OpError::HookFailed { hook, index });
        }
        Ok(())
    }

    /// The error `start` reports for a failing poststart hook under
    /// [`Deviation::PoststartFailureKeepsRunning`] (the container is left as it is).
    fn poststart_error(&self, hook: HookName, index: usize, out: &mut StepResult) -> OpError {
        out.note(Deviation::PoststartFailureKeepsRunning);
        OpError::Deviated {
            deviation: Deviation::PoststartFailureKeepsRunning,
            hook: Some((hook, index)),
        }
    }

    /// `kill`: "Attempting to send a signal to a container that is neither `created` nor `running`
    /// MUST have no effect on the container and MUST generate an error. This operation MUST send the
    /// specified signal to the container process."
    fn kill(&mut self, id: &str, signal: &Signal, out: &mut StepResult) -> Result<(), OpError> {
        let at = self.position(id).ok_or(OpError::NotFound)?;
        let status = self.containers[at].status;
        if !status.has_process() && !self.has_fault(Fault::KillStoppedAccepted) {
            return Err(OpError::WrongStatus(status));
        }
        out.signals.push(signal.clone());
        if self.deliver(at, signal, out) && *signal == Signal::Kill {
            self.log(out, id, ProcessFailure::Killed);
        }
        Ok(())
    }

    /// Delivers a signal to a live container process; returns whether it ended a running developer
    /// process. SIGKILL always ends the process; SIGTERM ends a `running` program whose `on_sigterm`
    /// is `exit` (gracefully, status 0); anything else changes nothing by itself. Under a profile, a
    /// signal to a container whose program has not started (`created`, or reported `running` under
    /// [`Deviation::SignalReportsCreatedRunning`]) reaches the runtime's waiting process, with the
    /// effects the deviations describe.
    fn deliver(&mut self, at: usize, signal: &Signal, out: &mut StepResult) -> bool {
        let c = &self.containers[at];
        if !c.status.has_process() {
            return false;
        }
        let unstarted = self.unstarted.contains(&c.id);
        let waiting = c.status == Status::Created || unstarted;
        let mut ends = match signal {
            Signal::Kill => true,
            Signal::Term => {
                c.status == Status::Running && !unstarted && c.config.on_sigterm == OnSigterm::Exit
            }
            Signal::Other(_) => false,
        };
        if waiting && *signal != Signal::Kill {
            if self.dev(Deviation::SignalEndsCreated) && ends_go_program(signal.as_str()) {
                out.note(Deviation::SignalEndsCreated);
                ends = true;
            } else if self.dev(Deviation::SignalReportsCreatedRunning) {
                out.note(Deviation::SignalReportsCreatedRunning);
                if !unstarted {
                    let id = c.id.clone();
                    self.containers[at].status = Status::Running;
                    self.unstarted.push(id);
                }
                return false;
            }
        }
        if !ends {
            return false;
        }
        let was_running = self.containers[at].status == Status::Running && !unstarted;
        self.end_process(at);
        was_running
    }

    /// The container process has exited: the container is `stopped` and has no pid (unless the
    /// profile keeps it, [`Deviation::StoppedPidKept`]).
    fn end_process(&mut self, at: usize) {
        let keep_pid = self.dev(Deviation::StoppedPidKept);
        let c = &mut self.containers[at];
        c.status = Status::Stopped;
        if !keep_pid {
            c.pid = None;
        }
        let id = c.id.clone();
        self.unstarted.retain(|u| *u != id);
    }

    /// `delete` (and Knative's reclaim, which is the platform invoking `delete`): "Attempting to
    /// `delete` a container that is not `stopped` MUST have no effect on the container and MUST
    /// generate an error. Deleting a container MUST delete the resources that were created during
    /// the `create` step." Then the poststop hooks (lifecycle step 10 / 13). Reclaiming: "Containers
    /// with `status` of `stopped` MAY be immediately reclaimed by the system."
    fn delete(&mut self, id: &str, is_delete: bool, out: &mut StepResult) -> Result<(), OpError> {
        let at = self.position(id).ok_or(OpError::NotFound)?;
        let status = self.containers[at].status;
        let allowed = status == Status::Stopped
            || (status == Status::Running && is_delete && self.has_fault(Fault::DeleteFromRunning));
        let created = status == Status::Created && self.dev(Deviation::DeleteCreated);
        if !allowed && !created {
            return Err(OpError::WrongStatus(status));
        }
        if created {
            // The runtime kills the waiting container process, then deletes.
            out.note(Deviation::DeleteCreated);
            self.end_process(at);
        }
        let config = self.containers[at].config.clone();
        // Poststop failures are warnings at both versions; only a profile turns one into an error.
        if let PhaseEnd::Failed(hook, index) = self.run_hooks(&config, Phase::Destroy, out) {
            out.note(Deviation::PoststopFailureFailsDelete);
            return Err(OpError::Deviated {
                deviation: Deviation::PoststopFailureFailsDelete,
                hook: Some((hook, index)),
            });
        }
        self.containers.remove(at);
        Ok(())
    }

    /// The container process exits on its own (lifecycle step 7 / 10: "This MAY happen due to
    /// erroring out, exiting, crashing or the runtime's `kill` operation being invoked.").
    fn exit(&mut self, id: &str, code: i32, out: &mut StepResult) -> Result<(), OpError> {
        let at = self.position(id).ok_or(OpError::NotFound)?;
        let c = &self.containers[at];
        let was_running = match c.status {
            Status::Running => !self.unstarted.contains(&c.id),
            Status::Created => false,
            other => return Err(OpError::NoLiveProcess(other)),
        };
        self.end_process(at);
        // Only the developer's program can fail in the contract's sense: in `created` it never ran.
        if was_running && code != 0 && !self.has_fault(Fault::FailureNotLogged) {
            self.log(out, id, ProcessFailure::ExitCode(code));
        }
        Ok(())
    }

    fn log(&self, out: &mut StepResult, id: &str, failure: ProcessFailure) {
        out.logs.push(LogEntry {
            id: id.to_owned(),
            failure,
        });
    }

    /// Knative orderly shutdown. The contract: "The container is sent a `SIGTERM` signal when it is
    /// killed via the OCI specification's `kill` command to allow for a graceful shutdown of existing
    /// resources and connections. If the container has not shut down after a defined grace period,
    /// the container is forcibly killed via a `SIGKILL` signal."
    ///
    /// Both signals go through OCI `kill`, so its status rule applies: a container that is neither
    /// `created` nor `running` gets an error and no signal.
    fn shutdown(
        &mut self,
        id: &str,
        grace_seconds: u64,
        out: &mut StepResult,
    ) -> Result<(), OpError> {
        let at = self.position(id).ok_or(OpError::NotFound)?;
        let status = self.containers[at].status;
        if !status.has_process() {
            return Err(OpError::WrongStatus(status));
        }
        if !self.has_fault(Fault::ShutdownWithoutSigterm) {
            out.signals.push(Signal::Term);
            self.deliver(at, &Signal::Term, out);
        }
        // The grace period passes; a process that has not exited is still `created`/`running`.
        if self.containers[at].status.has_process() {
            out.signals.push(Signal::Kill);
            if self.deliver(at, &Signal::Kill, out) {
                self.log(out, id, ProcessFailure::KilledAfterGrace { grace_seconds });
            }
        }
        Ok(())
    }

    /// "stop the container, and continue the lifecycle at step 9 (v1.0.1) / 12 (v1.3.0)": the
    /// container process is ended, the container destroyed (it no longer exists), and the poststop
    /// hooks run.
    fn destroy_after_error(&mut self, id: &str, config: &Config, out: &mut StepResult) {
        self.containers.retain(|c| c.id != id);
        self.unstarted.retain(|u| u != id);
        self.run_poststop_after_error(config, out);
    }

    fn run_poststop_after_error(&mut self, config: &Config, out: &mut StepResult) {
        if !self.has_fault(Fault::PoststopSkippedOnHookError) {
            // The operation already failed; a poststop failure cannot add to that.
            let _ = self.run_hooks(config, Phase::Destroy, out);
        }
    }

    /// Runs every hook of `phase` in order. An error-class failure ends the phase
    /// ([`PhaseEnd::Failed`]); warning-class failures are recorded and the run continues; a
    /// profile may ignore a failure or stop after it.
    fn run_hooks(&self, config: &Config, phase: Phase, out: &mut StepResult) -> PhaseEnd {
        for hook in self.phase_hooks(phase) {
            for (index, &outcome) in config.hooks.get(hook).iter().enumerate() {
                let status_seen = match (phase, hook) {
                    (Phase::Create, HookName::Poststart) => Status::Created,
                    (Phase::Create, _) => Status::Creating,
                    (Phase::StartBeforeProgram, _) => Status::Created,
                    (Phase::StartAfterProgram, _) => Status::Running,
                    (Phase::Destroy, _) => Status::Stopped,
                };
                if let Some(d) = self.placement_deviation(hook, phase) {
                    out.note(d);
                }
                let status_label = self.status_label(hook, phase, status_seen, out);
                out.hooks_run.push(HookRun {
                    hook,
                    index,
                    outcome,
                    status_seen,
                    status_label,
                    namespace: self.version.hook_namespace(hook),
                });
                if outcome == HookOutcome::Fail {
                    match self.on_failure(hook, phase) {
                        OnFailure::Error => return PhaseEnd::Failed(hook, index),
                        OnFailure::Warn => out.warnings.push(Warning::HookFailed { hook, index }),
                        OnFailure::WarnAndStop(d) => {
                            out.note(d);
                            out.warnings.push(Warning::HookFailed { hook, index });
                            return PhaseEnd::Stopped;
                        }
                        OnFailure::Ignore(d) => out.note(d),
                    }
                }
            }
        }
        PhaseEnd::Completed
    }

    /// The hooks of a phase, in order: the version's ([`OciVersion::hooks_in_phase`]), moved or
    /// added where the profile's deviations say.
    fn phase_hooks(&self, phase: Phase) -> Vec<HookName> {
        let mut hooks = self.hooks_in_phase(phase);
        let add = |hook: HookName, to: Phase, hooks: &mut Vec<HookName>| {
            hooks.retain(|&h| h != hook);
            if phase == to {
                hooks.push(hook);
            }
        };
        if self.dev(Deviation::RunsHooksUndefinedAt101) {
            add(HookName::CreateRuntime, Phase::Create, &mut hooks);
            add(HookName::CreateContainer, Phase::Create, &mut hooks);
            add(
                HookName::StartContainer,
                Phase::StartBeforeProgram,
                &mut hooks,
            );
        }
        if self.dev(Deviation::PrestartInCreate) {
            add(HookName::Prestart, Phase::Create, &mut hooks);
        }
        if self.dev(Deviation::PoststartInCreate) {
            add(HookName::Poststart, Phase::Create, &mut hooks);
        }
        // Within a phase the kinds run in the lifecycle's (= the listing's) order.
        hooks.sort();
        hooks
    }

    /// The deviation that makes `hook` run in `phase`, if the version would not run it there.
    fn placement_deviation(&self, hook: HookName, phase: Phase) -> Option<Deviation> {
        if self.version.hook_phase(hook) == Some(phase) {
            return None;
        }
        [
            Deviation::RunsHooksUndefinedAt101,
            Deviation::PrestartInCreate,
            Deviation::PoststartInCreate,
        ]
        .into_iter()
        .find(|&d| {
            self.dev(d)
                && match d {
                    Deviation::PrestartInCreate => hook == HookName::Prestart,
                    Deviation::PoststartInCreate => hook == HookName::Poststart,
                    _ => !self.version.defines_hook(hook),
                }
        })
    }

    /// The status string a hook is shown: its phase's status, or what the profile's runtime shows.
    fn status_label(
        &self,
        hook: HookName,
        phase: Phase,
        status_seen: Status,
        out: &mut StepResult,
    ) -> &'static str {
        let relabel = match (phase, hook) {
            (Phase::Create, h) if h != HookName::Poststart => {
                Some((Deviation::CreateHooksSeeCreated, "created"))
            }
            (_, HookName::StartContainer) => [
                (Deviation::StartContainerSeesStarting, "starting"),
                (Deviation::StartContainerSeesCreating, "creating"),
            ]
            .into_iter()
            .find(|&(d, _)| self.dev(d)),
            _ => None,
        };
        match relabel {
            Some((d, label)) if self.dev(d) => {
                out.note(d);
                label
            }
            _ => status_seen.as_str(),
        }
    }

    /// What a failing hook does: the version's rule ([`OciVersion::hook_failure`]), unless the
    /// profile's runtime handles it otherwise. A hook that runs only because of a deviation (a
    /// v1.3.0 hook at v1.0.1, a moved hook in `create`) has the error rule of its phase.
    fn on_failure(&self, hook: HookName, phase: Phase) -> OnFailure {
        match phase {
            Phase::Destroy => {
                if self.dev(Deviation::PoststopFailureFailsDelete) {
                    OnFailure::Error
                } else if self.dev(Deviation::PoststopFailureSkipsRest) {
                    OnFailure::WarnAndStop(Deviation::PoststopFailureSkipsRest)
                } else if self.dev(Deviation::PoststopFailureNotLogged) {
                    OnFailure::Ignore(Deviation::PoststopFailureNotLogged)
                } else {
                    OnFailure::Warn
                }
            }
            Phase::StartAfterProgram => {
                if self.dev(Deviation::PoststartFailureIgnored) {
                    OnFailure::Ignore(Deviation::PoststartFailureIgnored)
                } else if self.dev(Deviation::PoststartFailureKeepsRunning) {
                    OnFailure::Error
                } else {
                    match self.failure_rule(hook) {
                        FailureRule::Warn => OnFailure::Warn,
                        FailureRule::ErrorStopAndDestroy => OnFailure::Error,
                    }
                }
            }
            Phase::Create | Phase::StartBeforeProgram => {
                if self.version.hook_phase(hook) == Some(phase) {
                    match self.failure_rule(hook) {
                        FailureRule::Warn => OnFailure::Warn,
                        FailureRule::ErrorStopAndDestroy => OnFailure::Error,
                    }
                } else {
                    OnFailure::Error
                }
            }
        }
    }

    fn hooks_in_phase(&self, phase: Phase) -> Vec<HookName> {
        if self.version == OciVersion::V1_3_0 && self.has_fault(Fault::PrestartInStartAt130) {
            let mut hooks = self.version.hooks_in_phase(phase);
            hooks.retain(|&h| h != HookName::Prestart);
            if phase == Phase::StartBeforeProgram {
                hooks.insert(0, HookName::Prestart);
            }
            return hooks;
        }
        self.version.hooks_in_phase(phase)
    }

    fn failure_rule(&self, hook: HookName) -> FailureRule {
        if hook == HookName::Poststart && self.has_fault(Fault::PoststartWarnsAt130) {
            return FailureRule::Warn;
        }
        // Only hooks the version defines are ever run (hooks_in_phase), so the rule exists.
        self.version
            .hook_failure(hook)
            .unwrap_or(FailureRule::ErrorStopAndDestroy)
    }

    /// The lowest PID at or above [`PID_BASE`] that no live container process uses.
    fn free_pid(&self) -> u32 {
        let mut pid = PID_BASE;
        while self.containers.iter().any(|c| c.pid == Some(pid)) {
            pid += 1;
        }
        pid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rt: &mut Runtime, op: Op) -> StepResult {
        rt.apply(&op)
    }

    #[test]
    fn hooks_see_the_status_of_their_phase() {
        let hooks = Hooks::none()
            .with(HookName::Prestart, &[HookOutcome::Ok])
            .with(HookName::CreateRuntime, &[HookOutcome::Ok])
            .with(HookName::StartContainer, &[HookOutcome::Ok])
            .with(HookName::Poststart, &[HookOutcome::Ok])
            .with(HookName::Poststop, &[HookOutcome::Ok]);
        let config = Config {
            hooks,
            ..Config::default()
        };
        let mut rt = Runtime::new(OciVersion::V1_3_0);
        let seen = |r: &StepResult| -> Vec<(String, Status)> {
            r.hooks_run
                .iter()
                .map(|h| (h.to_string(), h.status_seen))
                .collect()
        };
        let r = run(&mut rt, Op::new("a", Action::Create(config)));
        assert_eq!(
            seen(&r),
            vec![
                ("prestart[0]".into(), Status::Creating),
                ("createRuntime[0]".into(), Status::Creating)
            ]
        );
        let r = run(&mut rt, Op::new("a", Action::Start));
        assert_eq!(
            seen(&r),
            vec![
                ("startContainer[0]".into(), Status::Created),
                ("poststart[0]".into(), Status::Running)
            ]
        );
        run(&mut rt, Op::new("a", Action::Kill(Signal::Kill)));
        let r = run(&mut rt, Op::new("a", Action::Delete));
        assert_eq!(seen(&r), vec![("poststop[0]".into(), Status::Stopped)]);
    }

    #[test]
    fn namespaces_are_recorded_only_where_the_version_says() {
        let config = Config {
            hooks: Hooks::none()
                .with(HookName::CreateRuntime, &[HookOutcome::Ok])
                .with(HookName::CreateContainer, &[HookOutcome::Ok]),
            ..Config::default()
        };
        let mut rt = Runtime::new(OciVersion::V1_3_0);
        let r = run(&mut rt, Op::new("a", Action::Create(config.clone())));
        let ns: Vec<_> = r.hooks_run.iter().map(|h| h.namespace).collect();
        assert_eq!(
            ns,
            vec![
                Some(super::super::hooks::Namespace::Runtime),
                Some(super::super::hooks::Namespace::Container)
            ]
        );
        let mut old = Runtime::new(OciVersion::V1_0_1);
        let r = run(&mut old, Op::new("a", Action::Create(config)));
        // createRuntime / createContainer are unknown properties at v1.0.1: ignored, not run.
        assert!(r.hooks_run.is_empty() && r.ok());
    }

    #[test]
    fn pids_are_lowest_free_and_dropped_on_exit() {
        let mut rt = Runtime::new(OciVersion::V1_0_1);
        run(&mut rt, Op::new("a", Action::Create(Config::default())));
        run(&mut rt, Op::new("b", Action::Create(Config::default())));
        assert_eq!(rt.container("a").unwrap().pid, Some(PID_BASE));
        assert_eq!(rt.container("b").unwrap().pid, Some(PID_BASE + 1));
        run(&mut rt, Op::new("a", Action::Exit { code: 0 }));
        assert_eq!(rt.container("a").unwrap().pid, None);
        run(&mut rt, Op::new("c", Action::Create(Config::default())));
        assert_eq!(rt.container("c").unwrap().pid, Some(PID_BASE));
    }

    #[test]
    fn signal_names() {
        assert_eq!(Signal::parse("SIGTERM"), Some(Signal::Term));
        assert_eq!(Signal::parse("SIGKILL"), Some(Signal::Kill));
        assert_eq!(
            Signal::parse("SIGUSR1"),
            Some(Signal::Other("SIGUSR1".into()))
        );
        for bad in ["", "SIG", "TERM", "sigterm", "SIGterm", "SIG TERM", "9"] {
            assert_eq!(Signal::parse(bad), None, "{bad:?}");
        }
    }
}
