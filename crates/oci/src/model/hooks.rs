//! Hooks: the six names of config.md §POSIX-platform Hooks, a container's configured hooks (each a list
//! of scripted outcomes), and the record of one hook run.
//!
//! Which hooks exist at which version, where each runs and what a failure does are *version rules*
//! and live in [`super::version::OciVersion`].

use std::fmt;

use super::status::Status;

/// A hook kind, in the order config-v1.3.0.md §POSIX-platform Hooks lists them (which is also the
/// lifecycle order). The property names (in `config.json` and in traces), the list and the parsing
/// come from this declaration (strum).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "camelCase")]
pub enum HookName {
    /// `prestart` (both versions; deprecated at v1.3.0).
    Prestart,
    /// `createRuntime` (v1.3.0 only).
    CreateRuntime,
    /// `createContainer` (v1.3.0 only).
    CreateContainer,
    /// `startContainer` (v1.3.0 only).
    StartContainer,
    /// `poststart` (both versions).
    Poststart,
    /// `poststop` (both versions).
    Poststop,
}

impl HookName {
    /// The property name in `config.json` (and in traces).
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for HookName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The scripted result of one hook program: the model does not run programs, the trace (or the test)
/// decides whether each one succeeds.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "lowercase")]
pub enum HookOutcome {
    /// The hook program succeeds.
    Ok,
    /// The hook program fails (non-zero exit, timeout, …: the spec says "fails" and the model does not
    /// distinguish how).
    Fail,
}

impl HookOutcome {
    /// `ok` / `fail`, as in traces.
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Where in the lifecycle a hook kind runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Inside `create`, after the runtime environment exists, while the status is `creating`.
    Create,
    /// Inside `start`, before the user-specified program runs (status `created`).
    StartBeforeProgram,
    /// Inside `start`, after the user-specified program runs, before `start` returns (status
    /// `running`).
    StartAfterProgram,
    /// After the container is destroyed (by `delete`, or by the runtime after a failing hook), before
    /// the operation returns.
    Destroy,
}

/// What a failing hook does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureRule {
    /// "the runtime MUST generate an error, stop the container, and continue the lifecycle at step
    /// 9 (v1.0.1) / 12 (v1.3.0)": the remaining hooks of the failing phase do not run, the container
    /// is destroyed and the `poststop` hooks run.
    ErrorStopAndDestroy,
    /// "the runtime MUST log a warning, but the remaining hooks and lifecycle continue as if the hook
    /// had succeeded."
    Warn,
}

/// The namespace a hook is executed in (v1.3.0 config.md; v1.0.1 does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// The runtime namespace.
    Runtime,
    /// The container namespace.
    Container,
}

/// A container's configured hooks: for each kind, the outcomes of its entries in array order.
///
/// Hooks the container's version does not define may be configured (a `config.json` may carry any
/// property); the version profile decides that they never run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Hooks {
    lists: [Vec<HookOutcome>; 6],
}

impl Hooks {
    /// No hooks at all (`hooks` absent from `config.json`).
    pub fn none() -> Self {
        Hooks::default()
    }

    /// Builder: set one kind's entries.
    pub fn with(mut self, hook: HookName, outcomes: &[HookOutcome]) -> Self {
        self.lists[hook.index()] = outcomes.to_vec();
        self
    }

    /// Set one kind's entries.
    pub(crate) fn set(&mut self, hook: HookName, outcomes: Vec<HookOutcome>) {
        self.lists[hook.index()] = outcomes;
    }

    /// One kind's entries (empty when not configured).
    pub fn get(&self, hook: HookName) -> &[HookOutcome] {
        &self.lists[hook.index()]
    }
}

/// One hook program run during a step.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HookRun {
    /// Its kind.
    pub hook: HookName,
    /// Its index in that kind's array.
    pub index: usize,
    /// Its scripted outcome.
    pub outcome: HookOutcome,
    /// The `status` in the state passed to the hook on stdin (config.md: "The state of the container
    /// MUST be passed to hooks over stdin").
    pub status_seen: Status,
    /// That status as the hook reads it: `status_seen`'s name, or under a runtime profile what that
    /// runtime passes (which may be no OCI status at all, e.g. crun's `starting`).
    pub status_label: &'static str,
    /// The `pid` in that state: the container process's while it lives (runtime.md §State: "REQUIRED
    /// when `status` is `created` or `running`"), `None` once it has ended (the poststop hooks).
    pub pid_seen: Option<u32>,
    /// Where it executed, when the version says (v1.3.0 only).
    pub namespace: Option<Namespace>,
}

impl fmt::Display for HookRun {
    /// `name[index]`, the replay output format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.hook, self.index)
    }
}
