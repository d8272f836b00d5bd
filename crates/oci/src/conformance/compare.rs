//! What the differential tests compare between the model and a real runtime, step by step.
//!
//! Both sides are reduced to a [`Comparable`]: the fields that mean the same thing in the model and
//! on a real runtime. Left out, on purpose:
//!
//! - error and warning *texts* (each runtime words them its own way): only whether the step
//!   succeeded and, for a successful step, whether anything was logged as a warning are compared
//!   (when a step fails, everything the runtime wrote is its error, and warnings logged on the way,
//!   such as a failing poststop hook after a failed `create`, cannot be told apart from it);
//! - the state's `ociVersion` (each runtime reports the spec version it implements: runc
//!   `1.0.2-dev`, crun `1.0.0`, youki `1.1.0`), `bundle` (a path) and the pid's value: only
//!   whether a pid is reported is compared, and `pid: 0` counts as none (runc and crun report 0
//!   for a `stopped` container; no Linux process has pid 0, and the state schema's `"minimum": 0`
//!   allows it).
//!
//! One normalisation follows a documented deviation: for a runtime with
//! [`Deviation::PoststartBeforeProgram`] the hooks of a `start` step are put in lifecycle order
//! (`startContainer` before `poststart`, each kind's entries in their order) before comparing,
//! because that runtime runs them concurrently and the observed order varies from run to run.

use std::fmt;

use serde::Serialize;

use crate::model::{Deviation, HookName, OciRuntime, OpKind, StepResult};

use super::harness::Observed;

/// The comparable part of one step's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparable {
    /// The operation.
    pub op: &'static str,
    /// The trace's ID.
    pub id: Option<String>,
    /// Whether it succeeded.
    pub ok: bool,
    /// Status afterwards (`None`: no such container).
    pub status: Option<String>,
    /// Whether a warning was logged, for a successful step (always false for a failed one).
    pub warned: bool,
    /// The hooks run, in order, as `name[index]@status-shown`.
    pub hooks: Vec<String>,
    /// Signals delivered.
    pub signals: Vec<String>,
    /// Developer-visible log entries.
    pub logs: Vec<String>,
    /// For a successful `state`: its status and whether it has a pid.
    pub state: Option<(String, bool)>,
}

impl fmt::Display for Comparable {
    /// The JSON object, as recorded in `spec/runtimes/deviations.yaml`. A serialisation error is
    /// passed on as a formatting error (never an empty string).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}

/// The comparable part of a model step.
pub fn from_model(r: &StepResult) -> Comparable {
    Comparable {
        op: r.op.as_str(),
        id: r.id.clone(),
        ok: r.ok(),
        status: r.status.map(|s| s.as_str().to_owned()),
        warned: r.ok() && !r.warnings.is_empty(),
        hooks: r
            .hooks_run
            .iter()
            .map(|h| format!("{h}@{}", h.status_label))
            .collect(),
        signals: r.signals.iter().map(|s| s.as_str().to_owned()).collect(),
        logs: r.logs.iter().map(ToString::to_string).collect(),
        state: r
            .state
            .as_ref()
            .map(|s| (s.status.as_str().to_owned(), s.pid.is_some())),
    }
}

/// Warnings a runtime writes about its own retries, not about the operation (the spec's "log a
/// warning" is about the container): runc's `delete` removes a cgroup folder with `rmdir`, which
/// fails with EBUSY while the kernel is still tearing the cgroup down, and retries, warning each
/// time; the delete then succeeds. Seen only on a loaded machine (CI's differential run failed on
/// it once at load average 15). The warning stays in the step's output; only the comparison skips it.
const TRANSIENT_WARNINGS: &[&str] = &["Failed to remove cgroup (will retry)"];

fn is_transient(warning: &str) -> bool {
    TRANSIENT_WARNINGS.iter().any(|t| warning.contains(t))
}

/// The comparable part of an observed step, and whether the hooks had to be put back in lifecycle
/// order (which happens only under [`Deviation::PoststartBeforeProgram`]).
pub fn from_observed(o: &Observed, runtime: OciRuntime) -> (Comparable, bool) {
    let mut hooks: Vec<(HookName, String)> = o
        .hooks_run
        .iter()
        .map(|h| {
            let kind = h
                .name
                .split('[')
                .next()
                .and_then(|k| k.parse::<HookName>().ok())
                .unwrap_or(HookName::Poststop);
            (kind, format!("{}@{}", h.name, h.status_seen))
        })
        .collect();
    let mut reordered = false;
    if o.op == OpKind::Start && runtime.has(Deviation::PoststartBeforeProgram) {
        let before = hooks.clone();
        // Stable: each kind's entries keep their order.
        hooks.sort_by_key(|(kind, _)| *kind);
        reordered = hooks != before;
    }
    let state = o.state.as_ref().map(|doc| {
        let status = doc.status.clone().unwrap_or_default();
        (status, doc.pid.is_some_and(|p| p > 0))
    });
    let comparable = Comparable {
        op: o.op.as_str(),
        id: o.id.clone(),
        ok: o.ok,
        status: o.status.clone(),
        warned: o.ok && o.warnings.iter().any(|w| !is_transient(w)),
        hooks: hooks.into_iter().map(|(_, h)| h).collect(),
        signals: o.signals.clone(),
        logs: o.logs.clone(),
        state,
    };
    (comparable, reordered)
}

/// The first step at which two comparable sequences differ, rendered for a test failure.
pub fn first_difference(model: &[Comparable], runtime: &[Comparable]) -> Option<String> {
    let at = model
        .iter()
        .zip(runtime)
        .position(|(m, r)| m != r)
        .or_else(|| (model.len() != runtime.len()).then_some(model.len().min(runtime.len())))?;
    let show = |c: Option<&Comparable>| c.map_or_else(|| "(no step)".to_owned(), |c| c.to_string());
    Some(format!(
        "step {at}:\n  model:   {}\n  runtime: {}",
        show(model.get(at)),
        show(runtime.get(at))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtimes_retry_warning_is_not_a_warning_of_the_step() {
        let mut o = observed(OpKind::Delete, &[]);
        o.warnings = vec!["warning: Failed to remove cgroup (will retry)".into(); 3];
        assert!(!from_observed(&o, OciRuntime::Runc).0.warned);
        o.warnings.push("warning: container is not stopped".into());
        assert!(from_observed(&o, OciRuntime::Runc).0.warned);
    }
    use crate::conformance::harness::ObservedHook;
    use crate::model::LineState;
    use crate::model::{Action, Config, Op, OpKind, Runtime, Signal};

    fn observed(op: OpKind, hooks: &[(&str, &str)]) -> Observed {
        Observed {
            op,
            id: Some("a".into()),
            ok: true,
            error: None,
            warnings: Vec::new(),
            status: Some("running".into()),
            hooks_run: hooks
                .iter()
                .map(|(n, s)| ObservedHook {
                    name: (*n).into(),
                    status_seen: (*s).into(),
                    pid_seen: None,
                })
                .collect(),
            signals: Vec::new(),
            logs: Vec::new(),
            state: Some(LineState {
                oci_version: Some("1.0.2-dev".into()),
                id: "a".into(),
                status: Some("stopped".into()),
                pid: Some(0),
                bundle: Some("$WORK/seq-1/c1".into()),
            }),
        }
    }

    #[test]
    fn start_hooks_are_reordered_only_for_runtimes_that_race() {
        let o = observed(
            OpKind::Start,
            &[
                ("poststart[0]", "running"),
                ("startContainer[0]", "starting"),
            ],
        );
        let (c, reordered) = from_observed(&o, OciRuntime::Crun);
        assert!(reordered);
        assert_eq!(
            c.hooks,
            ["startContainer[0]@starting", "poststart[0]@running"]
        );
        let (c, reordered) = from_observed(&o, OciRuntime::Runc);
        assert!(!reordered);
        assert_eq!(c.hooks[0], "poststart[0]@running");
        // pid 0 is no pid.
        assert_eq!(c.state, Some(("stopped".into(), false)));
    }

    #[test]
    fn a_difference_names_the_step_and_both_sides() {
        let mut rt = Runtime::new(crate::model::OciVersion::V1_3_0);
        let a = from_model(&rt.apply(&Op::new("a", Action::Create(Config::default()))));
        let b = from_model(&rt.apply(&Op::new("a", Action::Kill(Signal::Kill))));
        let one = std::slice::from_ref(&a);
        assert_eq!(first_difference(one, one), None);
        let d = first_difference(&[a.clone(), b.clone()], &[a.clone(), a.clone()]).unwrap();
        assert!(d.starts_with("step 1:"), "{d}");
        assert!(d.contains("\"op\":\"kill\"") && d.contains("\"op\":\"create\""));
        assert!(first_difference(one, &[a.clone(), b]).is_some());
    }
}
