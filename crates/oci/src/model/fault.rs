//! Deliberate bugs, for mutation testing only.
//!
//! A check that never fails proves nothing. Each [`Fault`] breaks one rule of the model; the tests
//! (`tests/model_mutants.rs`, `tests/model_props.rs`) build a runtime with
//! [`Runtime::with_fault`](super::Runtime::with_fault) and show that the invariants, the exhaustive
//! exploration and the property tests catch it (and that proptest shrinks the failing sequence to a
//! minimal one). Nothing outside tests constructs a faulty runtime; the replay command cannot.
//!
//! This is a plain public item (hidden from the docs) rather than a `#[cfg(test)]` item because
//! integration tests in `tests/` compile the library without `cfg(test)`.

/// One deliberate deviation from the spec.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// `delete` also succeeds on a `running` container (breaks runtime.md §Delete).
    DeleteFromRunning,
    /// `create` with an ID in use replaces the existing container (breaks runtime.md §Create).
    CreateReplacesExisting,
    /// `start` runs a container whose config has no `process` (breaks runtime.md §Start).
    StartWithoutProcess,
    /// At v1.3.0 a failing `poststart` hook only warns, as at v1.0.1 (breaks v1.3.0 lifecycle step 9).
    PoststartWarnsAt130,
    /// At v1.3.0 `prestart` runs during `start`, as at v1.0.1 (breaks v1.3.0 config.md §Prestart).
    PrestartInStartAt130,
    /// `kill` of a `stopped` container "succeeds" (breaks runtime.md §Kill).
    KillStoppedAccepted,
    /// Knative shutdown sends SIGKILL without SIGTERM first (breaks the contract's Lifecycle section).
    ShutdownWithoutSigterm,
    /// A developer process that exits non-zero is not logged (breaks the contract's Lifecycle section).
    FailureNotLogged,
    /// After an error-class hook failure the `poststop` hooks are skipped (breaks lifecycle steps
    /// 9–10 / 12–13).
    PoststopSkippedOnHookError,
    /// `start` without `process` reports the error but leaves the container `stopped` (breaks
    /// runtime.md §Errors: an error leaves the state as if the operation were never attempted).
    FailedStartStopsContainer,
}
