//! The reference model of the OCI container lifecycle, as the OCI runtime spec texts define it
//! (`runtime.md`, `config.md` §POSIX-platform Hooks, `state-schema.json`; versions 1.0.1 and 1.3.0),
//! with the Knative runtime contract's additions (orderly shutdown, reclaiming stopped containers,
//! logging process failures).
//!
//! - [`version`]: the two spec-version profiles; every rule that differs between them is a method
//!   whose documentation quotes the sentence it comes from.
//! - [`hooks`]: the six hook kinds, configured hooks, hook runs.
//! - [`status`]: a container's `status`; [`op`]: the operations a trace asks for and the
//!   configuration `create` takes; [`step`]: what one step did, with the messages citing each rule.
//! - [`runtime`]: the runtime (containers by ID) and the operations `state`, `create`, `start`,
//!   `kill`, `delete`, the process `exit` event, and Knative's `shutdown` and `reclaim`; its child
//!   `phases` runs each lifecycle phase's hooks.
//!
//! Dependencies go one way: `status` ← `hooks` ← `version` ← `profile` ← `op`/`step` ← `runtime`
//! ← `invariants`/`explore`/`trace`/`line`.
//! - [`invariants`]: the rules every state and step must obey, each citing its sentence.
//! - [`explore`]: bounded exhaustive exploration against the invariants.
//! - [`profile`]: real runtimes' documented deviations, which the model can reproduce
//!   (`--profile runc|crun|youki`).
//! - [`trace`] and [`line`](mod@line): the `kcontract model replay` trace format and output line
//!   (the line is also what `kcontract conformance run` prints).
//!
//! `docs/model.md` has the state diagram, the operation × status table with the sentence behind each
//! cell, the version differences, and the choices made where the texts are silent.

pub mod explore;
mod fault;
mod hooks;
pub mod invariants;
mod line;
mod op;
mod profile;
mod runtime;
mod status;
mod step;
mod trace;
mod version;

pub use fault::Fault;
pub use hooks::{FailureRule, HookName, HookOutcome, HookRun, Hooks, Namespace, Phase};
pub use line::{HookState, LineState, ReplayLine, replay_lines, to_json_lines, write_lines};
pub use op::{Action, Config, OnSigterm, Op, OpKind, Signal};
pub use profile::{Deviation, OciRuntime};
pub use runtime::{Container, Runtime};
pub use status::Status;
pub use step::{LogEntry, OpError, ProcessFailure, StateDoc, StepResult, Warning};
pub use trace::{Trace, TraceError, parse_trace, replay, replay_profiled, trace_to_json};
pub use version::{OciVersion, UnsupportedVersion};
