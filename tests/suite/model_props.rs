//! Property tests (proptest + proptest-state-machine): random operation sequences over three
//! containers and random hook configurations, at both spec versions.
//!
//! - The *reference* state machine ([`Table`]) is the operation × status table of `docs/model.md`,
//!   written out as a small pure function: for each step it predicts whether the operation succeeds
//!   and the container's status afterwards.
//! - The *system under test* is the executable model ([`Runtime`]). After every step the test checks
//!   every invariant of `kcontract_oci::model::invariants` (each cites its spec sentence; a failure prints
//!   it) and that the model agrees with the table.
//!
//! A deliberately broken model (`Fault::DeleteFromRunning`) is caught and proptest shrinks the
//! random failing sequence to the minimal one: create, start, delete.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kcontract_oci::model::invariants::{check_state, check_step};
use kcontract_oci::model::{
    Action, Config, Fault, HookName, HookOutcome, OciVersion, OnSigterm, Op, OpKind,
    ProcessFailure, Runtime, Signal, Status,
};
use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestError, TestRng, TestRunner};
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

use crate::common::model::{IDS, op};
use strum::VariantArray;

// ---------------------------------------------------------------------------------------------
// The reference: the operation × status table of docs/model.md

/// The reference state: per ID, the status and config the table says the container has.
#[derive(Debug, Clone)]
struct TableState {
    version: OciVersion,
    containers: BTreeMap<String, (Status, Config)>,
    /// Whether the table says the last step succeeds.
    last_ok: bool,
}

/// Whether a create-phase hook fails: only at v1.3.0 do hooks run in `create` (prestart,
/// createRuntime, createContainer; config-v1.3.0.md), and any failure there is an error.
fn create_hook_fails(v: OciVersion, c: &Config) -> bool {
    let fails = |h| c.hooks.get(h).contains(&HookOutcome::Fail);
    v == OciVersion::V1_3_0
        && (fails(HookName::Prestart)
            || fails(HookName::CreateRuntime)
            || fails(HookName::CreateContainer))
}

/// Whether a start-phase hook failure is an error: v1.0.1 prestart (a poststart failure is only a
/// warning); v1.3.0 startContainer and poststart.
fn start_hook_fails(v: OciVersion, c: &Config) -> bool {
    let fails = |h| c.hooks.get(h).contains(&HookOutcome::Fail);
    match v {
        OciVersion::V1_0_1 => fails(HookName::Prestart),
        OciVersion::V1_3_0 => fails(HookName::StartContainer) || fails(HookName::Poststart),
    }
}

/// The table: (container before, action) → (succeeds?, container after).
fn table(
    v: OciVersion,
    before: Option<(Status, Config)>,
    action: &Action,
) -> (bool, Option<(Status, Config)>) {
    use Status::{Created, Running, Stopped};
    match (action, before) {
        (Action::State, b) => (b.is_some(), b),
        (Action::Create(c), None) if create_hook_fails(v, c) => (false, None),
        (Action::Create(c), None) => (true, Some((Created, c.clone()))),
        (Action::Start, Some((Created, c))) if !c.process => (false, Some((Created, c))),
        (Action::Start, Some((Created, c))) if start_hook_fails(v, &c) => (false, None),
        (Action::Start, Some((Created, c))) => (true, Some((Running, c))),
        (Action::Kill(s), Some((st @ (Created | Running), c))) => {
            let ends = *s == Signal::Kill
                || (*s == Signal::Term && st == Running && c.on_sigterm == OnSigterm::Exit);
            (true, Some((if ends { Stopped } else { st }, c)))
        }
        (Action::Exit { .. } | Action::Shutdown { .. }, Some((Created | Running, c))) => {
            (true, Some((Stopped, c)))
        }
        (Action::Delete | Action::Reclaim, Some((Stopped, _))) => (true, None),
        // Every other cell is an error that leaves the container as it was.
        (_, b) => (false, b),
    }
}

struct Table;

impl ReferenceStateMachine for Table {
    type State = TableState;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<TableState> {
        prop_oneof![Just(OciVersion::V1_0_1), Just(OciVersion::V1_3_0)]
            .prop_map(|version| TableState {
                version,
                containers: BTreeMap::new(),
                last_ok: true,
            })
            .boxed()
    }

    fn transitions(_: &TableState) -> BoxedStrategy<Op> {
        op().boxed()
    }

    fn apply(mut state: TableState, op: &Op) -> TableState {
        let Some(id) = op.valid_id() else {
            state.last_ok = false;
            return state;
        };
        let before = state.containers.remove(id);
        let (ok, after) = table(state.version, before, &op.action);
        if let Some(after) = after {
            state.containers.insert(id.to_owned(), after);
        }
        state.last_ok = ok;
        state
    }
}

// ---------------------------------------------------------------------------------------------
// The system under test: the model

thread_local! {
    static STEPS: Cell<usize> = const { Cell::new(0) };
    static FAILED: Cell<usize> = const { Cell::new(0) };
    static HOOK_ERRORS: Cell<usize> = const { Cell::new(0) };
    static WARNINGS: Cell<usize> = const { Cell::new(0) };
    static SHUTDOWN_SIGKILLS: Cell<usize> = const { Cell::new(0) };
    static LOGS: Cell<usize> = const { Cell::new(0) };
    static RECLAIMS: Cell<usize> = const { Cell::new(0) };
    static SUCCEEDED: Cell<[usize; 8]> = const { Cell::new([0; 8]) };
}

fn bump(c: &'static std::thread::LocalKey<Cell<usize>>, by: usize) {
    c.with(|c| c.set(c.get() + by));
}

/// Applies one step to the model and checks it: every invariant, then agreement with the table.
fn step(rt: &mut Runtime, table: &TableState, op: &Op) -> Result<(), String> {
    let before = rt.clone();
    let r = rt.apply(op);
    bump(&STEPS, 1);
    bump(&FAILED, usize::from(!r.ok()));
    bump(
        &HOOK_ERRORS,
        usize::from(matches!(r.error, Some(ref e) if e.destroys_container())),
    );
    bump(&WARNINGS, r.warnings.len());
    bump(&LOGS, r.logs.len());
    if r.op == OpKind::Shutdown && r.signals.contains(&Signal::Kill) {
        bump(&SHUTDOWN_SIGKILLS, 1);
    }
    if r.op == OpKind::Reclaim && r.ok() {
        bump(&RECLAIMS, 1);
    }
    if r.ok() {
        SUCCEEDED.with(|s| {
            let mut v = s.get();
            v[OpKind::VARIANTS
                .iter()
                .position(|&k| k == r.op)
                .unwrap_or(0)] += 1;
            s.set(v);
        });
    }
    check_step(&before, op, &r, rt).map_err(|v| format!("invariant broken by {op:?}:\n{v}"))?;
    if r.ok() != table.last_ok {
        return Err(format!(
            "{op:?}: the model says ok={}, the table says ok={}",
            r.ok(),
            table.last_ok
        ));
    }
    let model: BTreeMap<&str, Status> = rt
        .containers()
        .iter()
        .map(|c| (c.id.as_str(), c.status))
        .collect();
    let expected: BTreeMap<&str, Status> = table
        .containers
        .iter()
        .map(|(id, (s, _))| (id.as_str(), *s))
        .collect();
    if model != expected {
        return Err(format!(
            "{op:?}: the model has {model:?}, the table has {expected:?}"
        ));
    }
    Ok(())
}

struct Model;

impl StateMachineTest for Model {
    type SystemUnderTest = Runtime;
    type Reference = Table;

    fn init_test(table: &TableState) -> Runtime {
        Runtime::new(table.version)
    }

    fn apply(mut rt: Runtime, table: &TableState, op: Op) -> Runtime {
        if let Err(e) = step(&mut rt, table, &op) {
            panic!("{e}");
        }
        rt
    }

    fn check_invariants(rt: &Runtime, _: &TableState) {
        if let Err(v) = check_state(rt) {
            panic!("state invariant broken:\n{v}");
        }
    }
}

fn pt_config(cases: u32) -> PtConfig {
    PtConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 10_000,
        ..PtConfig::default()
    }
}

/// Random sequences of 1–40 steps over three containers with random hook configurations, at a
/// random version: every invariant holds and the model agrees with the operation × status table.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
/// Clause: lifecycle.sigterm-on-kill @ cf9b86d282b4
/// Clause: lifecycle.sigkill-after-grace @ e138acfd03af
/// Clause: lifecycle.stopped-may-be-reclaimed @ df9f38887532
/// Clause: lifecycle.process-failures-logged @ e30e9b65c51d
#[test]
fn random_sequences_obey_every_invariant() {
    const CASES: u32 = 512;
    let mut runner = TestRunner::new(pt_config(CASES));
    let result = runner.run(&Table::sequential_strategy(1..40), |(init, ops, seen)| {
        Model::test_sequential(pt_config(CASES), init, ops, seen);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let succeeded = SUCCEEDED.with(Cell::get);
    println!(
        "{CASES} cases, {} steps: {} failed operations, {} hook errors, {} hook warnings, \
         {} shutdowns needing SIGKILL, {} log entries, {} reclaims; successes per op {:?}",
        STEPS.with(Cell::get),
        FAILED.with(Cell::get),
        HOOK_ERRORS.with(Cell::get),
        WARNINGS.with(Cell::get),
        SHUTDOWN_SIGKILLS.with(Cell::get),
        LOGS.with(Cell::get),
        RECLAIMS.with(Cell::get),
        OpKind::VARIANTS.iter().zip(succeeded).collect::<Vec<_>>(),
    );
    // The generator must actually reach the interesting cases, or the test proves little.
    assert!(
        succeeded.iter().all(|&n| n > 0),
        "some operation never succeeded"
    );
    for (name, counter) in [
        ("hook errors", &HOOK_ERRORS),
        ("hook warnings", &WARNINGS),
        ("shutdown SIGKILLs", &SHUTDOWN_SIGKILLS),
        ("log entries", &LOGS),
        ("reclaims", &RECLAIMS),
    ] {
        assert!(counter.with(Cell::get) > 0, "no {name} were generated");
    }
}

/// A model that lets `delete` remove a running container is caught by the same check, and proptest
/// shrinks the random failing sequence to the minimal one: create, start, delete of one container.
#[test]
fn broken_model_is_caught_and_shrunk_to_a_minimal_sequence() {
    let config = pt_config(512);
    let mut runner = TestRunner::new_with_rng(
        config.clone(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let result = runner.run(
        &Table::sequential_strategy(1..40),
        |(init, ops, seen): (TableState, Vec<Op>, Option<Arc<AtomicUsize>>)| {
            let mut rt = Runtime::with_fault(init.version, Fault::DeleteFromRunning);
            let mut table = init;
            for op in &ops {
                if let Some(seen) = &seen {
                    seen.fetch_add(1, Ordering::SeqCst);
                }
                table = Table::apply(table, op);
                step(&mut rt, &table, op).map_err(TestCaseError::fail)?;
            }
            Ok(())
        },
    );
    let Err(TestError::Fail(reason, (_, minimal, _))) = result else {
        panic!("the broken model was not caught: {result:?}");
    };
    println!(
        "shrunk to {} steps: {minimal:#?}\nbecause: {reason}",
        minimal.len()
    );
    let kinds: Vec<OpKind> = minimal.iter().map(|op| op.action.kind()).collect();
    assert_eq!(kinds, [OpKind::Create, OpKind::Start, OpKind::Delete]);
    assert!(minimal.iter().all(|op| op.id == minimal[0].id));
    assert!(
        reason.message().contains("[delete-only-stopped]"),
        "{reason}"
    );
}

// ---------------------------------------------------------------------------------------------
// Focused properties for the Knative clauses

/// Runs a random prefix, returning the runtime (the prefix's own steps are checked too).
fn run_prefix(version: OciVersion, ops: &[Op]) -> Runtime {
    let mut rt = Runtime::new(version);
    for op in ops {
        let before = rt.clone();
        let r = rt.apply(op);
        if let Err(v) = check_step(&before, op, &r, &rt) {
            panic!("{v}");
        }
    }
    rt
}

fn version() -> impl Strategy<Value = OciVersion> {
    prop_oneof![Just(OciVersion::V1_0_1), Just(OciVersion::V1_3_0)]
}

proptest! {
    #![proptest_config(pt_config(256))]

    /// Orderly shutdown of any container after any history: a live container is sent SIGTERM first
    /// ("The container is sent a SIGTERM signal when it is killed via the OCI specification's kill
    /// command"); if it has not shut down, SIGKILL follows and it ends stopped ("If the container has
    /// not shut down after a defined grace period, the container is forcibly killed via a SIGKILL
    /// signal."). A container with no live process gets no signal and an error (runtime.md §Kill).
    ///
    /// Clause: lifecycle.sigterm-on-kill @ cf9b86d282b4
    /// Clause: lifecycle.sigkill-after-grace @ e138acfd03af
    /// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
    #[test]
    fn shutdown_sends_sigterm_then_sigkill_after_grace(
        v in version(),
        prefix in proptest::collection::vec(op(), 0..25),
        grace in 0u64..600,
    ) {
        let mut rt = run_prefix(v, &prefix);
        for id in IDS {
            let before = rt.container(id).cloned();
            let r = rt.apply(&Op::new(id, Action::Shutdown { grace_seconds: grace }));
            match before {
                Some(c) if c.status.has_process() => {
                    prop_assert!(r.ok());
                    prop_assert_eq!(r.signals.first(), Some(&Signal::Term));
                    let graceful = c.status == Status::Running && c.config.on_sigterm == OnSigterm::Exit;
                    let expected = if graceful { vec![Signal::Term] } else { vec![Signal::Term, Signal::Kill] };
                    prop_assert_eq!(&r.signals, &expected);
                    prop_assert_eq!(r.status, Some(Status::Stopped));
                }
                other => {
                    prop_assert!(!r.ok());
                    prop_assert!(r.signals.is_empty());
                    prop_assert_eq!(rt.container(id).cloned(), other);
                }
            }
        }
    }

    /// Reclaiming: only a `stopped` container is reclaimed ("Containers with status of stopped MAY be
    /// immediately reclaimed by the system"); afterwards its ID is free again (runtime.md §Delete:
    /// "Once a container is deleted its ID MAY be used by a subsequent container."). Any other
    /// container is left exactly as it was, with an error.
    ///
    /// Clause: lifecycle.stopped-may-be-reclaimed @ df9f38887532
    /// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
    #[test]
    fn only_stopped_containers_are_reclaimed(
        v in version(),
        prefix in proptest::collection::vec(op(), 0..25),
    ) {
        let mut rt = run_prefix(v, &prefix);
        for id in IDS {
            let before = rt.container(id).cloned();
            let r = rt.apply(&Op::new(id, Action::Reclaim));
            if before.as_ref().is_some_and(|c| c.status == Status::Stopped) {
                prop_assert!(r.ok());
                prop_assert!(rt.container(id).is_none());
                let again = rt.apply(&Op::new(id, Action::Create(Config::default())));
                prop_assert!(again.ok(), "the reclaimed ID {} is not reusable: {:?}", id, again.error);
            } else {
                prop_assert!(!r.ok());
                prop_assert_eq!(rt.container(id).cloned(), before);
                prop_assert!(r.hooks_run.is_empty());
            }
        }
    }

    /// A running developer process that fails — exits non-zero, or is killed by SIGKILL — produces a
    /// developer-visible log entry naming the container and the failure; a clean exit (status 0, or
    /// a graceful exit on SIGTERM) produces none ("Failures of the developer-specified process MUST
    /// be logged to a developer-visible logging system.").
    ///
    /// Clause: lifecycle.process-failures-logged @ e30e9b65c51d
    #[test]
    fn developer_process_failures_are_logged(
        v in version(),
        prefix in proptest::collection::vec(op(), 0..25),
        code in any::<i32>(),
        how in 0u8..4,
    ) {
        let mut rt = run_prefix(v, &prefix);
        // Make sure "z" is running a developer process.
        rt.apply(&Op::new("z", Action::Create(Config { on_sigterm: OnSigterm::Ignore, ..Config::default() })));
        rt.apply(&Op::new("z", Action::Start));
        prop_assert_eq!(rt.container("z").map(|c| c.status), Some(Status::Running));
        let (action, expected) = match how {
            0 => (Action::Exit { code }, (code != 0).then_some(ProcessFailure::ExitCode(code))),
            1 => (Action::Kill(Signal::Kill), Some(ProcessFailure::Killed)),
            2 => (Action::Shutdown { grace_seconds: 5 }, Some(ProcessFailure::KilledAfterGrace { grace_seconds: 5 })),
            _ => (Action::Kill(Signal::Term), None),
        };
        let r = rt.apply(&Op::new("z", action));
        let logged: Vec<_> = r.logs.iter().map(|l| (l.id.as_str(), l.failure.clone())).collect();
        let wanted: Vec<_> = expected.into_iter().map(|f| ("z", f)).collect();
        prop_assert_eq!(logged, wanted);
    }
}
