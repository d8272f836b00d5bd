//! The invariants: what must hold of every state and of every step, each tied to the sentence it
//! comes from.
//!
//! The checks are written from the spec texts, not from the runtime code: for each step they work
//! out, from the state *before* the step and the version profile, what the spec allows (which
//! operations must fail and with which error, which status the container must have afterwards, which
//! hooks must run in which order, which signals and log entries must appear), and compare that with
//! what the runtime reported and the state *after*. They share the version profile
//! ([`OciVersion`]) with the runtime — that is where the spec's per-version tables live — but nothing
//! else, so a bug in [`Runtime::apply`] shows up here (see [`super::fault`] and
//! `tests/model_mutants.rs`).
//!
//! Every check is local to one step `(before, op, result, after)` or one state. That is what makes the
//! bounded exhaustive exploration ([`super::explore`]) complete: a sequence is a path of steps, so
//! checking every step out of every reachable state checks every sequence.

use std::fmt;

use super::hooks::{FailureRule, HookName, HookOutcome, Phase};
use super::op::{Action, Config, OnSigterm, Op, Signal};
use super::runtime::{Container, Runtime};
use super::status::Status;
use super::step::{OpError, ProcessFailure, StateDoc, StepResult, Warning};
use super::version::OciVersion;

/// A rule the model must obey: where it is written and what it says.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Short stable name, used by tests.
    pub id: &'static str,
    /// File and section (OCI texts are `runtime-v{1.0.1,1.3.0}.md` / `config-v….md`; section
    /// wording is the same in both unless a version is named).
    pub source: &'static str,
    /// The sentence, quoted.
    pub quote: &'static str,
}

macro_rules! rule {
    ($name:ident, $id:literal, $source:literal, $quote:literal) => {
        #[doc = concat!("`", $id, "` — ", $source, ": \"", $quote, "\"")]
        pub const $name: Rule = Rule {
            id: $id,
            source: $source,
            quote: $quote,
        };
    };
}

rule!(
    NO_ID,
    "no-id",
    "runtime.md §Query State, §Start, §Kill, §Delete",
    "This operation MUST generate an error if it is not provided the container ID."
);
rule!(
    ERROR_NO_CHANGE,
    "error-no-change",
    "runtime.md §Errors",
    "Unless otherwise stated, generating an error MUST leave the state of the environment as if the operation were never attempted - modulo any possible trivial ancillary changes such as logging."
);
rule!(
    ONE_CONTAINER_PER_STEP,
    "one-container-per-step",
    "runtime.md §Operations (every operation names one `<container-id>`) and §Delete",
    "Note that resources associated with the container, but not created by this container, MUST NOT be deleted."
);
rule!(
    ID_UNIQUE,
    "id-unique",
    "runtime.md §State, `id`",
    "This MUST be unique across all containers on this host."
);
rule!(
    CREATE_DUPLICATE,
    "create-duplicate-id",
    "runtime.md §Create",
    "If the ID provided is not unique across all containers within the scope of the runtime, or is not valid in any other way, the implementation MUST generate an error and a new container MUST NOT be created."
);
rule!(
    CREATE_CREATES,
    "create-creates",
    "runtime.md §Create (and §Delete: \"Once a container is deleted its ID MAY be used by a subsequent container.\")",
    "This operation MUST create a new container."
);
rule!(
    PROGRAM_NOT_AT_CREATE,
    "program-not-run-at-create",
    "runtime.md §Lifecycle step 2",
    "While the resources requested in the config.json MUST be created, the user-specified program (from process) MUST NOT be run at this time."
);
rule!(
    STATE_MISSING,
    "state-missing",
    "runtime.md §Query State",
    "Attempting to query a container that does not exist MUST generate an error."
);
rule!(
    STATE_RETURNS,
    "state-returns",
    "runtime.md §Query State",
    "This operation MUST return the state of a container as specified in the State section."
);
rule!(
    STATE_FIELDS,
    "state-fields",
    "runtime.md §State and state-schema-v1.3.0.json (required: ociVersion, id, status, bundle)",
    "`bundle` (string, REQUIRED) is the absolute path to the container's bundle directory."
);
rule!(
    PID_REQUIRED,
    "pid-required",
    "runtime.md §State, `pid`",
    "`pid` (int, REQUIRED when `status` is `created` or `running` on Linux, OPTIONAL on other platforms) is the ID of the container process"
);
rule!(
    ATOMIC_CREATE,
    "creating-only-during-create",
    "runtime.md §State, `status` (model choice: operations are atomic)",
    "`creating`: the container is being created (step 2 in the lifecycle)"
);
rule!(
    START_ONLY_CREATED,
    "start-only-created",
    "runtime.md §Start",
    "Attempting to `start` a container that is not `created` MUST have no effect on the container and MUST generate an error."
);
rule!(
    START_RUNS,
    "start-runs-program",
    "runtime.md §Start and §State",
    "This operation MUST run the user-specified program as specified by `process`."
);
rule!(
    START_NEEDS_PROCESS,
    "start-needs-process",
    "runtime.md §Start",
    "This operation MUST generate an error if `process` was not set."
);
rule!(
    KILL_ONLY_LIVE,
    "kill-only-created-or-running",
    "runtime.md §Kill",
    "Attempting to send a signal to a container that is neither `created` nor `running` MUST have no effect on the container and MUST generate an error."
);
rule!(
    KILL_SENDS,
    "kill-sends-signal",
    "runtime.md §Kill",
    "This operation MUST send the specified signal to the container process."
);
rule!(
    EXITED_IS_STOPPED,
    "exited-is-stopped",
    "runtime.md §State, `status`",
    "`stopped`: the container process has exited"
);
rule!(
    DELETE_ONLY_STOPPED,
    "delete-only-stopped",
    "runtime.md §Delete",
    "Attempting to `delete` a container that is not `stopped` MUST have no effect on the container and MUST generate an error."
);
rule!(
    DELETE_DELETES,
    "delete-deletes",
    "runtime.md §Delete",
    "Deleting a container MUST delete the resources that were created during the `create` step."
);
rule!(
    HOOK_ORDER,
    "hook-order",
    "config.md §POSIX-platform Hooks and runtime.md §Lifecycle (placement per version: see OciVersion::hook_phase)",
    "Hooks MUST be called in the listed order."
);
rule!(
    HOOK_ERROR_V1_0_1,
    "hook-failure-error@1.0.1",
    "runtime-v1.0.1.md §Lifecycle step 4 (the only error-class hook at v1.0.1)",
    "If any prestart hook fails, the runtime MUST generate an error, stop the container, and continue the lifecycle at step 9."
);
rule!(
    HOOK_ERROR_V1_3_0,
    "hook-failure-error@1.3.0",
    "runtime-v1.3.0.md §Lifecycle steps 3, 4, 5, 7 and 9 (prestart, createRuntime, createContainer, startContainer, poststart; same sentence for each)",
    "If any `poststart` hook fails, the runtime MUST generate an error, stop the container, and continue the lifecycle at step 12."
);
rule!(
    HOOK_WARNING_V1_0_1,
    "hook-failure-warning@1.0.1",
    "runtime-v1.0.1.md §Lifecycle steps 6 (poststart) and 10 (poststop), and §Warnings",
    "If any poststart hook fails, the runtime MUST log a warning, but the remaining hooks and lifecycle continue as if the hook had succeeded."
);
rule!(
    HOOK_WARNING_V1_3_0,
    "hook-failure-warning@1.3.0",
    "runtime-v1.3.0.md §Lifecycle step 13 (poststop, the only warning-class hook at v1.3.0), and §Warnings",
    "If any `poststop` hook fails, the runtime MUST log a warning, but the remaining hooks and lifecycle continue as if the hook had succeeded."
);

/// The error-class hook failure rule of a version.
pub(crate) fn hook_error_rule(v: OciVersion) -> &'static Rule {
    match v {
        OciVersion::V1_0_1 => &HOOK_ERROR_V1_0_1,
        OciVersion::V1_3_0 => &HOOK_ERROR_V1_3_0,
    }
}

/// The warning-class hook failure rule of a version.
pub(crate) fn hook_warning_rule(v: OciVersion) -> &'static Rule {
    match v {
        OciVersion::V1_0_1 => &HOOK_WARNING_V1_0_1,
        OciVersion::V1_3_0 => &HOOK_WARNING_V1_3_0,
    }
}

rule!(
    POSTSTOP_RUNS,
    "poststop-runs",
    "runtime.md §Lifecycle: v1.0.1 steps 9–10, v1.3.0 steps 12–13",
    "The poststop hooks MUST be invoked by the runtime."
);
rule!(
    K_SIGTERM,
    "knative-sigterm-first",
    "runtime-contract.en.md §Lifecycle (lifecycle.sigterm-on-kill)",
    "The container is sent a SIGTERM signal when it is killed via the OCI specification's kill command to allow for a graceful shutdown of existing resources and connections."
);
rule!(
    K_SIGKILL,
    "knative-sigkill-after-grace",
    "runtime-contract.en.md §Lifecycle (lifecycle.sigkill-after-grace)",
    "If the container has not shut down after a defined grace period, the container is forcibly killed via a SIGKILL signal."
);
rule!(
    K_RECLAIM,
    "knative-reclaim-only-stopped",
    "runtime-contract.en.md §State (lifecycle.stopped-may-be-reclaimed)",
    "Containers with status of stopped MAY be immediately reclaimed by the system."
);
rule!(
    K_LOGGED,
    "knative-failures-logged",
    "runtime-contract.en.md §Lifecycle (lifecycle.process-failures-logged)",
    "Failures of the developer-specified process MUST be logged to a developer-visible logging system."
);

/// Every rule, for listing.
pub const ALL_RULES: &[&Rule] = &[
    &NO_ID,
    &ERROR_NO_CHANGE,
    &ONE_CONTAINER_PER_STEP,
    &ID_UNIQUE,
    &CREATE_DUPLICATE,
    &CREATE_CREATES,
    &PROGRAM_NOT_AT_CREATE,
    &STATE_MISSING,
    &STATE_RETURNS,
    &STATE_FIELDS,
    &PID_REQUIRED,
    &ATOMIC_CREATE,
    &START_ONLY_CREATED,
    &START_RUNS,
    &START_NEEDS_PROCESS,
    &KILL_ONLY_LIVE,
    &KILL_SENDS,
    &EXITED_IS_STOPPED,
    &DELETE_ONLY_STOPPED,
    &DELETE_DELETES,
    &HOOK_ORDER,
    &HOOK_ERROR_V1_0_1,
    &HOOK_ERROR_V1_3_0,
    &HOOK_WARNING_V1_0_1,
    &HOOK_WARNING_V1_3_0,
    &POSTSTOP_RUNS,
    &K_SIGTERM,
    &K_SIGKILL,
    &K_RECLAIM,
    &K_LOGGED,
];

/// A broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: &'static Rule,
    /// What was observed.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {}\n    spec: {}: \"{}\"",
            self.rule.id, self.detail, self.rule.source, self.rule.quote
        )
    }
}

impl std::error::Error for Violation {}

fn fail(rule: &'static Rule, detail: impl Into<String>) -> Result<(), Violation> {
    Err(Violation {
        rule,
        detail: detail.into(),
    })
}

fn ensure(
    cond: bool,
    rule: &'static Rule,
    detail: impl FnOnce() -> String,
) -> Result<(), Violation> {
    if cond { Ok(()) } else { fail(rule, detail()) }
}

/// Invariants of one state (between steps).
pub fn check_state(rt: &Runtime) -> Result<(), Violation> {
    let containers = rt.containers();
    for (i, a) in containers.iter().enumerate() {
        for b in &containers[i + 1..] {
            ensure(a.id != b.id, &ID_UNIQUE, || {
                format!("two containers have ID {:?}", a.id)
            })?;
            if let (Some(pa), Some(pb)) = (a.pid, b.pid) {
                ensure(pa != pb, &PID_REQUIRED, || {
                    format!(
                        "containers {:?} and {:?} both report pid {pa}: a pid identifies one process",
                        a.id, b.id
                    )
                })?;
            }
        }
        ensure(a.status != Status::Creating, &ATOMIC_CREATE, || {
            format!("container {:?} is `creating` between operations", a.id)
        })?;
        let doc = rt.state_doc(&a.id);
        ensure(doc.is_some(), &STATE_RETURNS, || {
            format!("no state for existing container {:?}", a.id)
        })?;
        if let Some(doc) = doc {
            check_state_doc(rt.version(), &a.id, a.status, &doc)?;
        }
    }
    Ok(())
}

/// The state document's fields, against runtime.md §State and `state-schema-v1.3.0.json`, checked on
/// its JSON serialization (the form the spec constrains: "When serialized in JSON, the format MUST
/// adhere to …").
fn check_state_doc(
    version: OciVersion,
    id: &str,
    status: Status,
    doc: &StateDoc,
) -> Result<(), Violation> {
    let json = serde_json::to_value(doc).map_err(|e| Violation {
        rule: &STATE_FIELDS,
        detail: format!("state of {id:?} does not serialize: {e}"),
    })?;
    let obj = json.as_object();
    let field = |name: &str| obj.and_then(|o| o.get(name));
    for required in ["ociVersion", "id", "status", "bundle"] {
        ensure(
            field(required).is_some_and(|v| v.is_string()),
            &STATE_FIELDS,
            || format!("state of {id:?} lacks string field {required:?}: {json}"),
        )?;
    }
    ensure(
        field("ociVersion").and_then(|v| v.as_str()) == Some(version.as_str()),
        &STATE_FIELDS,
        || format!("state of {id:?} has ociVersion other than {version}: {json}"),
    )?;
    ensure(
        field("id").and_then(|v| v.as_str()) == Some(id),
        &STATE_FIELDS,
        || format!("state of {id:?} names another id: {json}"),
    )?;
    ensure(
        field("status").and_then(|v| v.as_str()) == Some(status.as_str()),
        &STATE_FIELDS,
        || format!("state of {id:?} reports a status other than {status}: {json}"),
    )?;
    ensure(
        field("bundle")
            .and_then(|v| v.as_str())
            .is_some_and(|b| b.starts_with('/')),
        &STATE_FIELDS,
        || format!("state of {id:?} has a bundle that is not an absolute path: {json}"),
    )?;
    let pid = field("pid");
    ensure(
        pid.is_none_or(|p| p.as_u64().is_some()),
        &PID_REQUIRED,
        || format!("state of {id:?} has a pid that is not a non-negative integer: {json}"),
    )?;
    ensure(
        !status.has_process() || pid.is_some(),
        &PID_REQUIRED,
        || format!("state of {status} container {id:?} has no pid: {json}"),
    )?;
    Ok(())
}

/// One expected hook run.
type HookStep = (HookName, usize, HookOutcome);

/// The hooks the spec requires for a run through `phases`, in order, and the failure (if any) that
/// ends the run with an error. After such a failure the lifecycle continues at the destroy step, so
/// every poststop entry follows.
fn expected_hooks(
    v: OciVersion,
    config: &Config,
    phases: &[Phase],
) -> (Vec<HookStep>, Option<(HookName, usize)>) {
    let mut run = Vec::new();
    for &phase in phases {
        for hook in v.hooks_in_phase(phase) {
            for (index, &outcome) in config.hooks.get(hook).iter().enumerate() {
                run.push((hook, index, outcome));
                if outcome == HookOutcome::Fail
                    && v.hook_failure(hook) == Some(FailureRule::ErrorStopAndDestroy)
                {
                    run.extend(poststop_entries(v, config));
                    return (run, Some((hook, index)));
                }
            }
        }
    }
    (run, None)
}

fn poststop_entries(v: OciVersion, config: &Config) -> Vec<HookStep> {
    v.hooks_in_phase(Phase::Destroy)
        .into_iter()
        .flat_map(|hook| {
            config
                .hooks
                .get(hook)
                .iter()
                .enumerate()
                .map(move |(i, &o)| (hook, i, o))
        })
        .collect()
}

fn check_hooks(
    r: &StepResult,
    expected: &[HookStep],
    rule: &'static Rule,
) -> Result<(), Violation> {
    let got: Vec<HookStep> = r
        .hooks_run
        .iter()
        .map(|h| (h.hook, h.index, h.outcome))
        .collect();
    ensure(got == expected, rule, || {
        let show = |v: &[HookStep]| {
            v.iter()
                .map(|(h, i, o)| format!("{h}[{i}]={}", o.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{} {:?}: hooks run [{}], the spec requires [{}]",
            r.op,
            r.id.as_deref().unwrap_or(""),
            show(&got),
            show(expected)
        )
    })
}

fn require_error(
    r: &StepResult,
    expected: &OpError,
    rule: &'static Rule,
    why: &str,
) -> Result<(), Violation> {
    ensure(r.error.as_ref() == Some(expected), rule, || {
        format!(
            "{} {:?} ({why}) must fail with {expected:?}, got {}",
            r.op,
            r.id.as_deref().unwrap_or(""),
            match &r.error {
                None => "success".to_owned(),
                Some(e) => format!("{e:?}"),
            }
        )
    })
}

fn require_ok(r: &StepResult, rule: &'static Rule, why: &str) -> Result<(), Violation> {
    ensure(r.ok(), rule, || {
        format!(
            "{} {:?} ({why}) must succeed, got error {:?}",
            r.op,
            r.id.as_deref().unwrap_or(""),
            r.error
        )
    })
}

fn require_status(
    r: &StepResult,
    after: Option<Status>,
    expected: Option<Status>,
    rule: &'static Rule,
) -> Result<(), Violation> {
    ensure(after == expected, rule, || {
        format!(
            "after {} {:?} the container must be {}, it is {}",
            r.op,
            r.id.as_deref().unwrap_or(""),
            show_status(expected),
            show_status(after)
        )
    })
}

fn show_status(s: Option<Status>) -> String {
    s.map_or_else(|| "absent".to_owned(), |s| s.to_string())
}

/// Invariants of one step: `before` → `op` → (`r`, `after`). The checks run in a fixed order (the
/// first rule broken is the one reported): the step without an ID; the other containers untouched;
/// the status reported; what the operation must do in the container's status; an error's no-change;
/// the hooks; the warnings; the signals and the logs; the pid; the state after.
pub fn check_step(
    before: &Runtime,
    op: &Op,
    r: &StepResult,
    after: &Runtime,
) -> Result<(), Violation> {
    let Some(id) = op.valid_id() else {
        return check_without_id(before, r, after);
    };
    check_other_containers(before, id, r, after)?;
    let s = Step {
        v: before.version(),
        id,
        op,
        r,
        b: before.container(id),
        a: after.container(id),
    };
    ensure(r.status == s.a_status(), &STATE_RETURNS, || {
        format!(
            "step reports status {}, the container is {}",
            show_status(r.status),
            show_status(s.a_status())
        )
    })?;
    let required = s.required()?;
    s.check_error_changes_nothing()?;
    s.check_hooks_and_warnings(&required)?;
    s.check_signals_and_logs(&required)?;
    s.check_pid()?;
    check_state(after)
}

/// A step without a container ID fails and changes nothing.
fn check_without_id(before: &Runtime, r: &StepResult, after: &Runtime) -> Result<(), Violation> {
    require_error(r, &OpError::NoId, &NO_ID, "no container ID")?;
    ensure(
        after == before && r.hooks_run.is_empty() && r.signals.is_empty(),
        &ERROR_NO_CHANGE,
        || format!("{} without an ID changed something", r.op),
    )
}

/// A step touches only the container it names: every other one is as it was, and none is new.
fn check_other_containers(
    before: &Runtime,
    id: &str,
    r: &StepResult,
    after: &Runtime,
) -> Result<(), Violation> {
    for c in before.containers().iter().filter(|c| c.id != id) {
        ensure(
            after.container(&c.id) == Some(c),
            &ONE_CONTAINER_PER_STEP,
            || format!("{} {id:?} changed container {:?}", r.op, c.id),
        )?;
    }
    for c in after.containers().iter().filter(|c| c.id != id) {
        ensure(
            before.container(&c.id).is_some(),
            &ONE_CONTAINER_PER_STEP,
            || format!("{} {id:?} created container {:?}", r.op, c.id),
        )?;
    }
    Ok(())
}

/// One step with an ID, as the checks see it: the version, the operation, its result, and the
/// container it names before (`b`) and after (`a`).
struct Step<'a> {
    v: OciVersion,
    id: &'a str,
    op: &'a Op,
    r: &'a StepResult,
    b: Option<&'a Container>,
    a: Option<&'a Container>,
}

/// What the spec requires a step to have done besides succeeding or failing: the hooks run, the
/// signals delivered and the developer process's failures logged.
#[derive(Default)]
struct Required {
    hooks_run: Vec<HookStep>,
    signals: Vec<Signal>,
    logs: Vec<ProcessFailure>,
}

impl Step<'_> {
    /// The container's status after the step (`None`: absent).
    fn a_status(&self) -> Option<Status> {
        self.a.map(|c| c.status)
    }

    /// What the operation must do in the container's status before it, checked on its result and
    /// status after; what else it requires, for the checks that follow.
    fn required(&self) -> Result<Required, Violation> {
        match &self.op.action {
            Action::State => self.state().map(|()| Required::default()),
            Action::Create(config) => self.create(config),
            Action::Start => self.start(),
            Action::Kill(signal) => self.kill(signal),
            Action::Delete => self.remove(&DELETE_ONLY_STOPPED, &DELETE_DELETES),
            Action::Reclaim => self.remove(&K_RECLAIM, &K_RECLAIM),
            Action::Exit { code } => self.exit(*code),
            Action::Shutdown { grace_seconds } => self.shutdown(*grace_seconds),
        }
    }

    /// `state`: an existing container's state document; an error for a missing one.
    fn state(&self) -> Result<(), Violation> {
        let (r, id) = (self.r, self.id);
        let Some(c) = self.b else {
            return require_error(r, &OpError::NotFound, &STATE_MISSING, "no such container");
        };
        require_ok(r, &STATE_RETURNS, "the container exists")?;
        let doc = r.state.as_ref();
        ensure(doc.is_some(), &STATE_RETURNS, || {
            format!("state {id:?} returned no state document")
        })?;
        match doc {
            Some(doc) => check_state_doc(self.v, id, c.status, doc),
            None => Ok(()),
        }
    }

    /// `create`: a free ID gives a `created` container with the config, unless a create-phase
    /// hook fails (then nothing, after the poststop hooks); an ID in use is an error.
    fn create(&self, config: &Config) -> Result<Required, Violation> {
        let (r, id, v) = (self.r, self.id, self.v);
        if let Some(c) = self.b {
            require_error(
                r,
                &OpError::IdInUse(c.status),
                &CREATE_DUPLICATE,
                "the ID is in use",
            )?;
            return Ok(Required::default());
        }
        let (hooks_run, failed) = expected_hooks(v, config, &[Phase::Create]);
        match failed {
            Some((hook, index)) => {
                require_error(
                    r,
                    &OpError::HookFailed { hook, index },
                    hook_error_rule(v),
                    "a create-phase hook fails",
                )?;
                require_status(r, self.a_status(), None, hook_error_rule(v))?;
            }
            None => {
                require_ok(r, &CREATE_CREATES, "the ID is free and no hook fails")?;
                require_status(
                    r,
                    self.a_status(),
                    Some(Status::Created),
                    &PROGRAM_NOT_AT_CREATE,
                )?;
                ensure(
                    self.a.is_some_and(|c| &c.config == config),
                    &CREATE_CREATES,
                    || format!("create {id:?} did not keep the given config"),
                )?;
            }
        }
        Ok(Required {
            hooks_run,
            ..Required::default()
        })
    }

    /// `start`: a `created` container whose config has a process runs, unless a start-phase hook
    /// fails; anything else is an error.
    fn start(&self) -> Result<Required, Violation> {
        let (r, id, v) = (self.r, self.id, self.v);
        let c = match self.b {
            None => {
                require_error(
                    r,
                    &OpError::NotFound,
                    &START_ONLY_CREATED,
                    "no such container",
                )?;
                return Ok(Required::default());
            }
            Some(c) if c.status != Status::Created => {
                require_error(
                    r,
                    &OpError::WrongStatus(c.status),
                    &START_ONLY_CREATED,
                    "not created",
                )?;
                return Ok(Required::default());
            }
            Some(c) if !c.config.process => {
                require_error(
                    r,
                    &OpError::ProcessNotSet,
                    &START_NEEDS_PROCESS,
                    "config has no process",
                )?;
                return Ok(Required::default());
            }
            Some(c) => c,
        };
        let (hooks_run, failed) = expected_hooks(
            v,
            &c.config,
            &[Phase::StartBeforeProgram, Phase::StartAfterProgram],
        );
        match failed {
            Some((hook, index)) => {
                require_error(
                    r,
                    &OpError::HookFailed { hook, index },
                    hook_error_rule(v),
                    "a start-phase hook fails",
                )?;
                require_status(r, self.a_status(), None, hook_error_rule(v))?;
            }
            None => {
                require_ok(r, &START_RUNS, "created, process set, no hook error")?;
                require_status(r, self.a_status(), Some(Status::Running), &START_RUNS)?;
                ensure(self.a.is_some_and(|a| a.pid == c.pid), &START_RUNS, || {
                    format!("start {id:?} changed the container process's pid")
                })?;
            }
        }
        Ok(Required {
            hooks_run,
            ..Required::default()
        })
    }

    /// The container when it has a live process (`created` or `running`); else `None`, once the
    /// operation is checked to fail (`rule`) as for a missing container or with `no_process`'s
    /// error (`why`).
    fn live(
        &self,
        rule: &'static Rule,
        no_process: fn(Status) -> OpError,
        why: &str,
    ) -> Result<Option<&Container>, Violation> {
        match self.b {
            None => {
                require_error(self.r, &OpError::NotFound, rule, "no such container")?;
                Ok(None)
            }
            Some(c) if !c.status.has_process() => {
                require_error(self.r, &no_process(c.status), rule, why)?;
                Ok(None)
            }
            Some(c) => Ok(Some(c)),
        }
    }

    /// `kill`: a live container gets the signal; SIGKILL ends it, and so does SIGTERM a running
    /// program that exits on it. A running program killed is a failure to log.
    fn kill(&self, signal: &Signal) -> Result<Required, Violation> {
        let r = self.r;
        let Some(c) = self.live(
            &KILL_ONLY_LIVE,
            OpError::WrongStatus,
            "neither created nor running",
        )?
        else {
            return Ok(Required::default());
        };
        require_ok(r, &KILL_SENDS, "created or running")?;
        let running = c.status == Status::Running;
        let ends = match signal {
            Signal::Kill => true,
            Signal::Term => running && c.config.on_sigterm == OnSigterm::Exit,
            Signal::Other(_) => false,
        };
        let expected = if ends { Status::Stopped } else { c.status };
        require_status(r, self.a_status(), Some(expected), &EXITED_IS_STOPPED)?;
        let mut logs = Vec::new();
        if running && *signal == Signal::Kill {
            logs.push(ProcessFailure::Killed);
        }
        Ok(Required {
            signals: vec![signal.clone()],
            logs,
            ..Required::default()
        })
    }

    /// `delete` and Knative's reclaim: a `stopped` container is destroyed, after its poststop
    /// hooks; anything else is an error (`status_rule`).
    fn remove(
        &self,
        status_rule: &'static Rule,
        done_rule: &'static Rule,
    ) -> Result<Required, Violation> {
        let r = self.r;
        match self.b {
            None => {
                require_error(r, &OpError::NotFound, status_rule, "no such container")?;
                Ok(Required::default())
            }
            Some(c) if c.status != Status::Stopped => {
                require_error(
                    r,
                    &OpError::WrongStatus(c.status),
                    status_rule,
                    "not stopped",
                )?;
                Ok(Required::default())
            }
            Some(c) => {
                require_ok(r, done_rule, "stopped")?;
                require_status(r, self.a_status(), None, done_rule)?;
                Ok(Required {
                    hooks_run: poststop_entries(self.v, &c.config),
                    ..Required::default()
                })
            }
        }
    }

    /// The process's own exit: the container is `stopped`; a running program's non-zero code is a
    /// failure to log.
    fn exit(&self, code: i32) -> Result<Required, Violation> {
        let r = self.r;
        let Some(c) = self.live(
            &EXITED_IS_STOPPED,
            OpError::NoLiveProcess,
            "no live process",
        )?
        else {
            return Ok(Required::default());
        };
        require_ok(r, &EXITED_IS_STOPPED, "the process exits")?;
        require_status(
            r,
            self.a_status(),
            Some(Status::Stopped),
            &EXITED_IS_STOPPED,
        )?;
        let mut logs = Vec::new();
        if c.status == Status::Running && code != 0 {
            logs.push(ProcessFailure::ExitCode(code));
        }
        Ok(Required {
            logs,
            ..Required::default()
        })
    }

    /// Knative's shutdown: SIGTERM first, then SIGKILL unless a running program exits on SIGTERM;
    /// the container ends `stopped`, and a running program killed after the grace period is a
    /// failure to log.
    fn shutdown(&self, grace_seconds: u64) -> Result<Required, Violation> {
        let (r, id) = (self.r, self.id);
        let Some(c) = self.live(
            &KILL_ONLY_LIVE,
            OpError::WrongStatus,
            "neither created nor running",
        )?
        else {
            return Ok(Required::default());
        };
        require_ok(r, &K_SIGTERM, "created or running")?;
        ensure(r.signals.first() == Some(&Signal::Term), &K_SIGTERM, || {
            format!(
                "shutdown {id:?} must begin with SIGTERM, signals were {:?}",
                r.signals
            )
        })?;
        let exits_on_term = c.status == Status::Running && c.config.on_sigterm == OnSigterm::Exit;
        let signals = if exits_on_term {
            vec![Signal::Term]
        } else {
            vec![Signal::Term, Signal::Kill]
        };
        ensure(r.signals == signals, &K_SIGKILL, || {
            format!(
                "shutdown {id:?}: signals {:?}, the contract requires {:?}",
                r.signals, signals
            )
        })?;
        require_status(r, self.a_status(), Some(Status::Stopped), &K_SIGKILL)?;
        let mut logs = Vec::new();
        if c.status == Status::Running && !exits_on_term {
            logs.push(ProcessFailure::KilledAfterGrace { grace_seconds });
        }
        Ok(Required {
            signals,
            logs,
            ..Required::default()
        })
    }

    /// Errors leave everything as it was, except the "otherwise stated" hook failures, after which
    /// the container no longer exists (checked with the version's hook error rule).
    fn check_error_changes_nothing(&self) -> Result<(), Violation> {
        let (r, id, a, b) = (self.r, self.id, self.a, self.b);
        match &r.error {
            Some(error) if !error.destroys_container() => ensure(a == b, &ERROR_NO_CHANGE, || {
                format!(
                    "{} {id:?} failed with {error:?} but changed the container: {b:?} -> {a:?}",
                    r.op
                )
            }),
            _ => Ok(()),
        }
    }

    /// The poststop hooks required ran, the hooks ran in the required order, and each failing hook
    /// whose failure is a warning at this version is warned of.
    fn check_hooks_and_warnings(&self, required: &Required) -> Result<(), Violation> {
        let (r, v) = (self.r, self.v);
        let poststop_expected = required
            .hooks_run
            .iter()
            .filter(|(h, _, _)| *h == HookName::Poststop)
            .count();
        let poststop_run = r
            .hooks_run
            .iter()
            .filter(|h| h.hook == HookName::Poststop)
            .count();
        ensure(poststop_run == poststop_expected, &POSTSTOP_RUNS, || {
            format!("{poststop_run} poststop hooks ran, {poststop_expected} required")
        })?;
        check_hooks(r, &required.hooks_run, &HOOK_ORDER)?;
        let expected_warnings: Vec<Warning> = r
            .hooks_run
            .iter()
            .filter(|h| {
                h.outcome == HookOutcome::Fail && v.hook_failure(h.hook) == Some(FailureRule::Warn)
            })
            .map(|h| Warning::HookFailed {
                hook: h.hook,
                index: h.index,
            })
            .collect();
        ensure(
            r.warnings == expected_warnings,
            hook_warning_rule(v),
            || {
                format!(
                    "warnings {:?}, the spec requires {:?}",
                    r.warnings, expected_warnings
                )
            },
        )
    }

    /// The signals delivered are those required (a shutdown's were checked with it), and the
    /// failures logged are the developer process's, for this container.
    fn check_signals_and_logs(&self, required: &Required) -> Result<(), Violation> {
        let (r, id) = (self.r, self.id);
        if !matches!(self.op.action, Action::Shutdown { .. }) {
            ensure(r.signals == required.signals, &KILL_SENDS, || {
                format!(
                    "{} {id:?} delivered {:?}, expected {:?}",
                    r.op, r.signals, required.signals
                )
            })?;
        }
        let logs: Vec<ProcessFailure> = r.logs.iter().map(|l| l.failure.clone()).collect();
        ensure(
            logs == required.logs && r.logs.iter().all(|l| l.id == id),
            &K_LOGGED,
            || {
                format!(
                    "{} {id:?} logged {logs:?}, the developer process's failures require {:?}",
                    r.op, required.logs
                )
            },
        )
    }

    /// The container after the step has a pid exactly while its process lives.
    fn check_pid(&self) -> Result<(), Violation> {
        let id = self.id;
        match self.a {
            Some(c) => ensure(
                c.status.has_process() == c.pid.is_some(),
                &PID_REQUIRED,
                || {
                    format!(
                        "{id:?} is {} with pid {:?} (model: a pid while the process lives, none after)",
                        c.status, c.pid
                    )
                },
            ),
            None => Ok(()),
        }
    }
}
