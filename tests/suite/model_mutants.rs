//! Mutation tests: a deliberately broken model must be caught. For each [`Fault`], the bounded
//! exhaustive exploration (the same one `model_exhaustive.rs` runs on the correct model) must find a
//! counterexample that breaks the expected rule, and — exploration being breadth-first — a shortest
//! one, which is printed. This shows the invariants are not vacuous.
//!
//! The proptest side (random sequences, shrunk to a minimal failing sequence) is in
//! `model_props.rs`.

use kcontract_oci::model::explore::{
    Counterexample, describe, explore, standard_alphabet, standard_configs,
};
use kcontract_oci::model::invariants::{self, Rule};
use kcontract_oci::model::{Fault, OciVersion, Runtime};
use strum::VariantArray;

fn catch(version: OciVersion, fault: Fault) -> Counterexample {
    let alphabet = standard_alphabet(&["a", "b"], &standard_configs());
    match explore(&Runtime::with_fault(version, fault), &alphabet, 6) {
        Ok(stats) => panic!(
            "{fault:?} at v{version} survived {} transitions over {} states",
            stats.transitions, stats.states
        ),
        Err(cx) => {
            println!("{fault:?} at v{version}:\n{cx}\n");
            *cx
        }
    }
}

fn assert_caught(version: OciVersion, fault: Fault, rule: &Rule, steps: &[&str]) {
    let cx = catch(version, fault);
    assert_eq!(
        cx.violation.rule.id, rule.id,
        "{fault:?} was caught by the wrong rule: {}",
        cx.violation
    );
    let got: Vec<String> = cx.ops.iter().map(describe).collect();
    assert_eq!(
        got, steps,
        "{fault:?}: not the expected shortest counterexample"
    );
}

/// Deleting a running container is caught by runtime.md §Delete, in three steps.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn delete_from_running_is_caught() {
    for &v in OciVersion::VARIANTS {
        assert_caught(
            v,
            Fault::DeleteFromRunning,
            &invariants::DELETE_ONLY_STOPPED,
            &[
                "create a process=true on_sigterm=Exit hooks=[]",
                "start a",
                "delete a",
            ],
        );
    }
}

/// Re-creating an ID in use is caught by runtime.md §Create.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn duplicate_id_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::CreateReplacesExisting,
        &invariants::CREATE_DUPLICATE,
        &[
            "create a process=true on_sigterm=Exit hooks=[]",
            "create a process=true on_sigterm=Exit hooks=[]",
        ],
    );
}

/// Starting without `process` is caught by runtime.md §Start.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn start_without_process_is_caught() {
    assert_caught(
        OciVersion::V1_0_1,
        Fault::StartWithoutProcess,
        &invariants::START_NEEDS_PROCESS,
        &["create a process=false on_sigterm=Exit hooks=[]", "start a"],
    );
}

/// A failed start that changes the container is caught by runtime.md §Errors.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn error_with_side_effect_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::FailedStartStopsContainer,
        &invariants::ERROR_NO_CHANGE,
        &["create a process=false on_sigterm=Exit hooks=[]", "start a"],
    );
}

/// Treating a failing poststart hook as a warning at v1.3.0 (the v1.0.1 rule) is caught.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn v1_0_1_poststart_rule_at_v1_3_0_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::PoststartWarnsAt130,
        &invariants::HOOK_ERROR_V1_3_0,
        &[
            "create a process=true on_sigterm=Exit hooks=[poststart=fail/ok poststop=fail]",
            "start a",
        ],
    );
}

/// The fault only exists at v1.3.0, so v1.0.1 is unaffected: the exploration passes.
#[test]
fn v1_3_0_only_faults_do_not_affect_v1_0_1() {
    let alphabet = standard_alphabet(&["a", "b"], &standard_configs());
    for fault in [Fault::PoststartWarnsAt130, Fault::PrestartInStartAt130] {
        let result = explore(
            &Runtime::with_fault(OciVersion::V1_0_1, fault),
            &alphabet,
            4,
        );
        assert!(result.is_ok(), "{fault:?}: {}", result.unwrap_err());
    }
}

/// Running `prestart` during `start` at v1.3.0 (the v1.0.1 placement) is caught by the hook order.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn v1_0_1_prestart_placement_at_v1_3_0_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::PrestartInStartAt130,
        &invariants::HOOK_ORDER,
        &[
            "create a process=true on_sigterm=Exit hooks=[prestart=ok createRuntime=ok createContainer=ok startContainer=ok poststart=ok poststop=ok]",
        ],
    );
}

/// Skipping poststop after a hook error is caught by lifecycle steps 9–10 / 12–13.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn poststop_skipped_is_caught() {
    assert_caught(
        OciVersion::V1_0_1,
        Fault::PoststopSkippedOnHookError,
        &invariants::POSTSTOP_RUNS,
        &[
            "create a process=true on_sigterm=Exit hooks=[prestart=ok/fail poststop=fail/ok]",
            "start a",
        ],
    );
}

/// Accepting `kill` on a stopped container is caught by runtime.md §Kill.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
#[test]
fn kill_of_stopped_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::KillStoppedAccepted,
        &invariants::KILL_ONLY_LIVE,
        &[
            "create a process=true on_sigterm=Exit hooks=[]",
            "kill a SIGKILL",
            "kill a SIGTERM",
        ],
    );
}

/// A shutdown without SIGTERM is caught by the Knative rule.
///
/// Clause: lifecycle.sigterm-on-kill @ cf9b86d282b4
#[test]
fn shutdown_without_sigterm_is_caught() {
    assert_caught(
        OciVersion::V1_0_1,
        Fault::ShutdownWithoutSigterm,
        &invariants::K_SIGTERM,
        &[
            "create a process=true on_sigterm=Exit hooks=[]",
            "shutdown a grace=30s",
        ],
    );
}

/// An unlogged non-zero exit of the developer's process is caught by the Knative rule.
///
/// Clause: lifecycle.process-failures-logged @ e30e9b65c51d
#[test]
fn unlogged_failure_is_caught() {
    assert_caught(
        OciVersion::V1_3_0,
        Fault::FailureNotLogged,
        &invariants::K_LOGGED,
        &[
            "create a process=true on_sigterm=Exit hooks=[]",
            "start a",
            "exit a code=1",
        ],
    );
}
