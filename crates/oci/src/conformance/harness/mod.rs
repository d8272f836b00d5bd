//! Running a replay-format trace against a real OCI runtime and observing what it does, step by
//! step, in the shape of `kcontract model replay`'s output.
//!
//! Per step the harness invokes the runtime's command line (the OCI operations), or acts as the
//! platform (the trace's `exit` event and Knative's `shutdown` and `reclaim`, built from OCI
//! operations as the model builds them), then waits for the runtime to settle and reads `state`.
//!
//! What each output field is, for a real runtime:
//!
//! - `ok`: the command's exit status was 0 (for `exit`: the container had a live process to end;
//!   for `shutdown`: its `kill SIGTERM` succeeded).
//! - `status`: the `status` of `state <id>` after the step, `null` when `state` fails.
//! - `error`: the runtime's standard error, normalised (see [`normalise_stderr`]), when `ok` is
//!   false. `warnings`: the same when `ok` is true and the runtime wrote anything (the spec's "log a
//!   warning"; these runtimes log to standard error).
//! - `hooks_run`: the lines the hook programs appended to the control folder's `hooks.log`, in
//!   order. The status each hook read from its stdin is kept in [`ObservedHook::status_seen`].
//! - `signals`: the signals whose `kill` the runtime accepted.
//! - `logs`: what the platform logs as failures of the developer's process (the Knative clause),
//!   from what it observed: a running program that exited non-zero on the `exit` trigger, or that a
//!   SIGKILL it sent ended.
//! - `state`: what a successful `state` step returned (`ociVersion`, `id` mapped back to the trace's
//!   ID, `status`, `pid`, `bundle`).
//!
//! Waiting. Runtimes apply signals and some hook failures asynchronously, so after `start`,
//! `kill`, `exit` and `shutdown` the harness waits for the event the step must cause — the
//! program's `started` marker, its log of a handled signal, the container process's end — watching
//! files and `/proc/PID/stat` rather than polling `state` (each `state` starts a process), up to a
//! deadline. Where nothing has to happen (a signal to a container whose program is not running
//! yet) it waits a quiet period for the process to die. `state` is read once, after the wait.
//!
//! The parts: [`observed`] (what one step did, the output line), [`session`] (a runtime's private
//! work folder), [`sequence`] (one sequence of steps on fresh container IDs, and its `actions`:
//! what the harness does per operation and how long it waits), [`cleanup`] (what is left behind
//! after a crash), [`host`] (host processes and files).

mod cleanup;
mod host;
mod observed;
mod sequence;
mod session;

pub use cleanup::cgroup_dirs_with_prefix;
pub use host::pid_alive;
pub use observed::{Observed, ObservedHook, normalise_stderr};
pub use sequence::{Sequence, Timing, real_id};
pub use session::Session;
