//! Runtime profiles: the documented behaviour of a real OCI runtime, as a set of *deviations* applied
//! on top of the spec model.
//!
//! Each [`Deviation`] is one way a real runtime (runc 1.1.5, crun 1.8.1, youki 0.7.0, as measured by
//! `tests/suite/differential.rs`) differs from the model. Its full record — title and summary in English
//! and Chinese, the spec sentence, the runtimes and versions affected, a minimal trace and the
//! observed and expected output lines — is in `spec/runtimes/deviations.yaml`; `docs/runtimes.md`
//! describes it. The code cites the deviation by its id; `tests/deviations.rs` checks that the
//! enum, the profiles and the data file agree.
//!
//! A deviation is *active* in a runtime profile at a spec version when the runtime has it and it
//! differs from that version's rules ([`Deviation::deviates_at`]): running `prestart` during
//! `create` is a deviation from v1.0.1 but exactly what v1.3.0 requires. The model under a profile
//! is expected to reproduce the runtime at both versions.

use std::fmt;

use strum::VariantArray;

use super::version::OciVersion;

/// A real OCI runtime whose documented behaviour the model can reproduce (`--profile`). Its name
/// (binary name, `--profile` value, key in the deviations file), its list and its parsing come
/// from this declaration (strum).
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
pub enum OciRuntime {
    /// runc (Go), measured at 1.1.5 (Debian 12).
    Runc,
    /// crun (C), measured at 1.8.1 (Debian 12).
    Crun,
    /// youki (Rust), measured at 0.7.0 (crates.io).
    Youki,
}

impl OciRuntime {
    /// The name (binary name, `--profile` value, key in the deviations file).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The version the profile was measured against.
    pub fn measured_version(self) -> &'static str {
        match self {
            OciRuntime::Runc => "1.1.5",
            OciRuntime::Crun => "1.8.1",
            OciRuntime::Youki => "0.7.0",
        }
    }

    /// The runtime's deviations (at any version).
    pub fn deviations(self) -> &'static [Deviation] {
        use Deviation::*;
        match self {
            OciRuntime::Runc => &[
                DeleteCreated,
                CreateRequiresProcess,
                SignalEndsCreated,
                StartContainerFailureNotReported,
                PoststartInCreate,
                PoststopFailureSkipsRest,
                PrestartInCreate,
                RunsHooksUndefinedAt101,
                IdCharsetRestricted,
                IdLengthLimited,
                SignalNamesRestricted,
            ],
            OciRuntime::Crun => &[
                DeleteCreated,
                CreateRequiresProcess,
                CreateHookFailureSkipsPoststop,
                StartContainerFailureNotReported,
                PoststartFailureIgnored,
                PoststartBeforeProgram,
                PoststopFailureNotLogged,
                CreateHooksSeeCreated,
                StartContainerSeesStarting,
                PrestartInCreate,
                RunsHooksUndefinedAt101,
                IdLengthLimited,
            ],
            OciRuntime::Youki => &[
                DeleteCreated,
                CreateRequiresProcess,
                SignalReportsCreatedRunning,
                CreateHookFailureSkipsPoststop,
                StartContainerFailureNotReported,
                PoststartFailureKeepsRunning,
                PoststartBeforeProgram,
                PoststopFailureFailsDelete,
                StoppedPidKept,
                StartContainerSeesCreating,
                PrestartInCreate,
                RunsHooksUndefinedAt101,
            ],
        }
    }

    /// Whether the runtime has this deviation.
    pub fn has(self, deviation: Deviation) -> bool {
        self.deviations().contains(&deviation)
    }
}

impl fmt::Display for OciRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One documented difference between a real runtime and the model. The doc comment says what the
/// runtime does; the sentence it departs from is in `spec/runtimes/deviations.yaml`. Its id (the
/// kebab-case name but where `serialize` says otherwise), its list and its parsing come from this
/// declaration (strum).
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
#[strum(serialize_all = "kebab-case")]
pub enum Deviation {
    /// `delete-created`: `delete` (and so Knative reclaim) of a `created` container succeeds: the
    /// container process is killed, the container destroyed and the poststop hooks run.
    DeleteCreated,
    /// `create-requires-process`: `create` with no `process` in `config.json` fails and creates
    /// nothing (crun first runs the create-phase hooks, and no poststop hooks after).
    CreateRequiresProcess,
    /// `signal-ends-created`: a signal whose Go-runtime default is to terminate (SIGTERM, SIGHUP,
    /// SIGINT, …; not SIGUSR1) ends a `created` container: runc's init process, waiting for
    /// `start`, dies from it.
    SignalEndsCreated,
    /// `signal-reports-created-running`: after any signal but SIGKILL, `state` of a `created`
    /// container reports `running` although the program never ran; `start` then fails. The signal
    /// itself does nothing (the waiting init process is the namespace's PID 1 without a handler).
    SignalReportsCreatedRunning,
    /// `create-hook-failure-skips-poststop`: after a failing `prestart`, `createRuntime` or
    /// `createContainer` hook, `create` fails and nothing is created, but the poststop hooks do not
    /// run.
    CreateHookFailureSkipsPoststop,
    /// `start-container-hook-failure-not-reported`: a failing `startContainer` hook ends the
    /// container process (the program never runs; the remaining `startContainer` hooks are skipped)
    /// but `start` succeeds, the container is left `stopped` rather than destroyed, and the
    /// poststop hooks run only at a later `delete`. crun and youki still run the `poststart` hooks.
    #[strum(serialize = "start-container-hook-failure-not-reported")]
    StartContainerFailureNotReported,
    /// `poststart-in-create`: the `poststart` hooks run at the end of `create` (after
    /// `createContainer`, shown status `created`), before `start` and the program; a failure fails
    /// `create` (destroy, poststop).
    PoststartInCreate,
    /// `poststart-failure-ignored`: a failing `poststart` hook changes nothing: `start` succeeds,
    /// the remaining hooks run, the program keeps running, and nothing is logged (only with
    /// `--debug`).
    PoststartFailureIgnored,
    /// `poststart-failure-keeps-running`: a failing `poststart` hook makes `start` fail, skips the
    /// remaining poststart hooks, and leaves the program running (not stopped, not destroyed, no
    /// poststop).
    PoststartFailureKeepsRunning,
    /// `poststart-before-program`: the `poststart` hooks run concurrently with the container's
    /// `startContainer` hooks and the program's execution, so they are sometimes observed before
    /// them. Non-deterministic: the comparison orders the `start` step's hooks by phase.
    PoststartBeforeProgram,
    /// `poststop-failure-skips-rest`: after a failing `poststop` hook (logged as an error) the
    /// remaining poststop hooks do not run; `delete` succeeds.
    PoststopFailureSkipsRest,
    /// `poststop-failure-not-logged`: a failing `poststop` hook is not logged at all (only with
    /// `--debug`); the remaining hooks run and `delete` succeeds.
    PoststopFailureNotLogged,
    /// `poststop-failure-fails-delete`: a failing `poststop` hook makes `delete` fail and the
    /// container stays (`stopped`); the remaining poststop hooks are skipped. Every later `delete`
    /// runs the hooks again and fails again (only `delete --force` removes it).
    PoststopFailureFailsDelete,
    /// `stopped-pid-kept`: `state` of a `stopped` container still reports the pid its process had.
    StoppedPidKept,
    /// `create-hooks-see-created`: the create-phase hooks (`prestart`, `createRuntime`,
    /// `createContainer`) are passed a state whose status is `created`, where the model passes
    /// `creating`.
    CreateHooksSeeCreated,
    /// `start-container-sees-starting`: `startContainer` hooks are passed the status `starting`,
    /// which is not one of the statuses runtime.md §State defines.
    StartContainerSeesStarting,
    /// `start-container-sees-creating`: `startContainer` hooks are passed the status `creating`
    /// although `create` has finished.
    StartContainerSeesCreating,
    /// `prestart-in-create` (v1.0.1 only): `prestart` hooks run during `create`, as v1.3.0
    /// requires, not during `start` as v1.0.1 does.
    PrestartInCreate,
    /// `runs-hooks-undefined-at-1.0.1` (v1.0.1 only): `createRuntime`, `createContainer` and
    /// `startContainer` hooks are run (with their v1.3.0 placement and failure rules) although
    /// v1.0.1 does not define them and requires unknown properties to be ignored.
    #[strum(serialize = "runs-hooks-undefined-at-1.0.1")]
    RunsHooksUndefinedAt101,
    /// `id-charset-restricted`: every operation given an ID with a character other than an ASCII
    /// letter, digit, `_`, `+`, `-` or `.` fails ("invalid container ID format") and changes
    /// nothing. The spec sets no format for IDs; the model (and crun) accept any.
    IdCharsetRestricted,
    /// `id-length-limited`: every operation given an ID longer than 255 bytes fails and changes
    /// nothing: the runtime names its state folder after the ID, and a file name has at most 255
    /// bytes on Linux file systems. The spec sets no length; the model accepts any.
    IdLengthLimited,
    /// `signal-names-restricted`: `kill` with a signal name the runtime does not know (`SIGFOO`)
    /// or written as `SIGRTMIN+n`/`SIGRTMAX-n` fails ("unknown signal") and sends nothing; a
    /// signal number works. The spec does not say how a signal is named; the model (and crun)
    /// accept these.
    SignalNamesRestricted,
}

impl Deviation {
    /// The stable id used in the data file, the output and the docs.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// Whether this behaviour departs from `version`'s rules. Two are what v1.3.0 itself requires
    /// (the runtimes implement a later spec than v1.0.1); every other one departs from both.
    pub fn deviates_at(self, version: OciVersion) -> bool {
        match self {
            Deviation::PrestartInCreate | Deviation::RunsHooksUndefinedAt101 => {
                version == OciVersion::V1_0_1
            }
            _ => true,
        }
    }

    /// The runtimes (as profiled) that have it.
    pub fn runtimes(self) -> Vec<OciRuntime> {
        OciRuntime::VARIANTS
            .iter()
            .copied()
            .filter(|r| r.has(self))
            .collect()
    }
}

impl fmt::Display for Deviation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The signals whose default in a Go program is to end it ("A SIGHUP, SIGINT, or SIGTERM signal
/// causes the program to exit"; SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGSTKFLT, SIGEMT and SIGSYS
/// make it exit with a stack dump; synchronous faults sent with kill(2) behave the same), besides
/// SIGKILL. runc's init process is a Go program with no handler of its own for them while it waits
/// for `start` ([`Deviation::SignalEndsCreated`]).
pub(crate) fn ends_go_program(signal: &str) -> bool {
    matches!(
        signal,
        "SIGKILL"
            | "SIGHUP"
            | "SIGINT"
            | "SIGTERM"
            | "SIGQUIT"
            | "SIGILL"
            | "SIGTRAP"
            | "SIGABRT"
            | "SIGSTKFLT"
            | "SIGEMT"
            | "SIGSYS"
            | "SIGBUS"
            | "SIGFPE"
            | "SIGSEGV"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_parse_back() {
        let mut ids: Vec<&str> = Deviation::VARIANTS.iter().map(|d| d.id()).collect();
        for &d in Deviation::VARIANTS {
            assert_eq!(d.id().parse::<Deviation>(), Ok(d));
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Deviation::VARIANTS.len());
    }

    /// The ids are the data file's and the output's words: the derive must keep them.
    #[test]
    fn ids_are_the_catalogued_words() {
        let ids: Vec<&str> = Deviation::VARIANTS.iter().map(|d| d.id()).collect();
        assert_eq!(
            ids,
            [
                "delete-created",
                "create-requires-process",
                "signal-ends-created",
                "signal-reports-created-running",
                "create-hook-failure-skips-poststop",
                "start-container-hook-failure-not-reported",
                "poststart-in-create",
                "poststart-failure-ignored",
                "poststart-failure-keeps-running",
                "poststart-before-program",
                "poststop-failure-skips-rest",
                "poststop-failure-not-logged",
                "poststop-failure-fails-delete",
                "stopped-pid-kept",
                "create-hooks-see-created",
                "start-container-sees-starting",
                "start-container-sees-creating",
                "prestart-in-create",
                "runs-hooks-undefined-at-1.0.1",
                "id-charset-restricted",
                "id-length-limited",
                "signal-names-restricted",
            ]
        );
        let runtimes: Vec<&str> = OciRuntime::VARIANTS.iter().map(|r| r.as_str()).collect();
        assert_eq!(runtimes, ["runc", "crun", "youki"]);
    }

    #[test]
    fn every_deviation_belongs_to_a_runtime() {
        for d in Deviation::VARIANTS {
            assert!(!d.runtimes().is_empty(), "{d} belongs to no runtime");
        }
        for &r in OciRuntime::VARIANTS {
            assert_eq!(r.as_str().parse::<OciRuntime>(), Ok(r));
        }
    }

    #[test]
    fn the_later_spec_deviations_apply_only_at_1_0_1() {
        assert!(Deviation::PrestartInCreate.deviates_at(OciVersion::V1_0_1));
        assert!(!Deviation::PrestartInCreate.deviates_at(OciVersion::V1_3_0));
        assert!(Deviation::DeleteCreated.deviates_at(OciVersion::V1_3_0));
    }
}
