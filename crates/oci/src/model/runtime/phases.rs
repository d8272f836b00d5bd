//! The hooks of each lifecycle phase as the runtime runs them: which hooks run where (the version's
//! placement, moved by a profile's deviations), the status each is shown, what a failure does, and
//! destroying a container after an error-class failure. A child of [`super`] because it works on the
//! runtime's private state; a file of its own because it is one job (hook dispatch) that every
//! operation uses.

use super::Runtime;
use crate::model::fault::Fault;
use crate::model::hooks::{FailureRule, HookName, HookOutcome, HookRun, Namespace, Phase};
use crate::model::op::Config;
use crate::model::profile::Deviation;
use crate::model::status::Status;
use crate::model::step::{StepResult, Warning};
use crate::model::version::OciVersion;

/// How one phase of hooks ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PhaseEnd {
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
    /// "stop the container, and continue the lifecycle at step 9 (v1.0.1) / 12 (v1.3.0)": the
    /// container process is ended, the container destroyed (it no longer exists), and the poststop
    /// hooks run.
    pub(super) fn destroy_after_error(&mut self, id: &str, config: &Config, out: &mut StepResult) {
        self.containers.retain(|c| c.id != id);
        self.unstarted.retain(|u| u != id);
        self.run_poststop_after_error(config, out);
    }

    pub(super) fn run_poststop_after_error(&mut self, config: &Config, out: &mut StepResult) {
        if !self.has_fault(Fault::PoststopSkippedOnHookError) {
            // The operation already failed; a poststop failure cannot add to that.
            // The container process has ended: the state the hooks read has no pid.
            let _ = self.run_hooks(config, Phase::Destroy, None, out);
        }
    }

    /// Runs every hook of `phase` in order. An error-class failure ends the phase
    /// ([`PhaseEnd::Failed`]); warning-class failures are recorded and the run continues; a
    /// profile may ignore a failure or stop after it. `pid` is the container process's, as the
    /// state passed to each hook holds it (`None`: no live process).
    pub(super) fn run_hooks(
        &self,
        config: &Config,
        phase: Phase,
        pid: Option<u32>,
        out: &mut StepResult,
    ) -> PhaseEnd {
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
                let namespace = self.version.hook_namespace(hook);
                // v1.3.0 runtime.md §State, `pid`: "For hooks executed in the container namespace,
                // it is the pid as seen by the container." The model's containers have a PID
                // namespace of their own (as the harness's bundles do), where the container process
                // is pid 1 (runc, crun: observed).
                let pid_seen = match namespace {
                    Some(Namespace::Container) => pid.map(|_| 1),
                    _ => pid,
                };
                out.hooks_run.push(HookRun {
                    hook,
                    index,
                    outcome,
                    status_seen,
                    status_label,
                    pid_seen,
                    namespace,
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
}
