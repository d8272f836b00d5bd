//! The executable model: an OCI runtime holding containers by ID, and the operations on them.
//!
//! Every operation is atomic in the model: between two steps no container is `creating` (that status
//! exists only while `create` runs, and the model shows it to the hooks that run then). The whole
//! runtime is plain data (`Clone + Eq + Hash`) so the exhaustive explorer can deduplicate states.
//!
//! Sentences quoted below are from `runtime-v1.0.1.md` and `runtime-v1.3.0.md`, whose §State,
//! §Errors and §Operations are identical apart from the lifecycle step numbers they point at; the
//! rules that differ are methods of [`OciVersion`].

mod phases;

use super::fault::Fault;
use super::hooks::{HookName, Phase};
use super::op::{Action, Config, OnSigterm, Op, Signal};
use super::profile::{Deviation, OciRuntime, ends_go_program};
use super::status::Status;
use super::step::{LogEntry, OpError, ProcessFailure, StateDoc, StepResult};
use super::version::OciVersion;

use phases::PhaseEnd;

/// The first PID the model hands out. PIDs only need to be present and distinct (runtime.md §State:
/// "`pid` … is the ID of the container process"); their values are the model's choice.
pub(crate) const PID_BASE: u32 = 1000;
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
    pub(crate) fn version(&self) -> OciVersion {
        self.version
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
    pub(crate) fn state_doc(&self, id: &str) -> Option<StateDoc> {
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
                if let Some(d) = self.refused_id(&id) {
                    // The runtime refuses the ID before it looks for a container: no effect.
                    out.note(d);
                    out.error = Some(OpError::Deviated {
                        deviation: d,
                        hook: None,
                    });
                    out.status = self.container(&id).map(|c| c.status);
                    return out;
                }
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

    /// The deviation under which the profile's runtime refuses `id` (the spec sets no format or
    /// length for IDs, so the spec model refuses none).
    fn refused_id(&self, id: &str) -> Option<Deviation> {
        let charset = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.');
        if self.dev(Deviation::IdLengthLimited) && id.len() > 255 {
            Some(Deviation::IdLengthLimited)
        } else if self.dev(Deviation::IdCharsetRestricted) && !id.bytes().all(charset) {
            Some(Deviation::IdCharsetRestricted)
        } else {
            None
        }
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
        // The container process exists from step 2 (`created` is "after step 2 … the container
        // process has neither exited nor executed the user-specified program"): the hooks read
        // the pid it will keep.
        let pid = self.free_pid();
        if let PhaseEnd::Failed(hook, index) = self.run_hooks(config, Phase::Create, Some(pid), out)
        {
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
        let pid = c.pid;
        if let PhaseEnd::Failed(hook, index) =
            self.run_hooks(&config, Phase::StartBeforeProgram, pid, out)
        {
            if hook == HookName::StartContainer
                && self.dev(Deviation::StartContainerFailureNotReported)
            {
                // The container process ends before the program; `start` goes on to the
                // poststart hooks and reports success.
                out.note(Deviation::StartContainerFailureNotReported);
                self.end_process(at);
                let pid = self.containers[at].pid;
                return match self.run_hooks(&config, Phase::StartAfterProgram, pid, out) {
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
            self.run_hooks(&config, Phase::StartAfterProgram, pid, out)
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
        let name = signal.as_str();
        if self.dev(Deviation::SignalNamesRestricted)
            && (!signal.is_known()
                || name.starts_with("SIGRTMIN+")
                || name.starts_with("SIGRTMAX-"))
        {
            out.note(Deviation::SignalNamesRestricted);
            return Err(OpError::Deviated {
                deviation: Deviation::SignalNamesRestricted,
                hook: None,
            });
        }
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
        let pid = self.containers[at].pid;
        // Poststop failures are warnings at both versions; only a profile turns one into an error.
        if let PhaseEnd::Failed(hook, index) = self.run_hooks(&config, Phase::Destroy, pid, out) {
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
    use crate::model::hooks::{HookOutcome, Hooks, Namespace};

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
            vec![Some(Namespace::Runtime), Some(Namespace::Container)]
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
}
