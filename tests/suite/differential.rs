//! Differential tests: the model against real OCI runtimes (runc, crun, youki).
//!
//! Generated operation sequences — the model's own proptest strategies (`tests/common`), over three
//! containers with random hooks, signals, exits, shutdowns and reclaims — are replayed on a real
//! runtime through the harness (`kcontract_oci::conformance`) and on the model. For every sequence and
//! both spec versions:
//!
//! - the model **with the runtime's profile** (its documented deviations,
//!   `spec/runtimes/deviations.yaml`) must agree with the runtime on every step — a difference is an
//!   *unexplained* difference, and the test fails with the shrunk sequence as a replayable trace;
//! - where the **spec model** (no profile) disagrees with the runtime, some deviation must have
//!   taken effect in the sequence — so every difference from the spec is explained by a named
//!   deviation. The counts per deviation are printed.
//!
//! Asking for them: the runc and crun tests run with `cargo test --features runtimes` (root, runc,
//! crun, busybox-static), the youki ones with `--features youki` (`.ci/install-youki`). Without the
//! feature `cargo test` lists them as ignored with that reason; with it, a missing runtime fails.
//!
//! Environment:
//!
//! - `KCONTRACT_DIFF_CASES` (default 16, a few seconds): sequences per runtime;
//!   `KCONTRACT_DIFF_CASES_YOUKI` (default 16) for youki, about ten times slower; at 500 or more
//!   every deviation of the runtime must have been exercised. `.ci/run` sets 1000.
//! - `KCONTRACT_DIFF_STEPS` (default 12): the longest sequence; `KCONTRACT_DIFF_SEED` (a number):
//!   another seed than the fixed one.
//!
//! `.ci/run` runs this file with `--nocapture`: progress every 100 sequences, then the counts and
//! wall times, are in the CI log.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

use kcontract_oci::conformance::RuntimeCli;
use kcontract_oci::conformance::Session;
use kcontract_oci::conformance::cgroup_dirs_with_prefix;
use kcontract_oci::conformance::{Comparable, first_difference, from_model, from_observed};
use kcontract_oci::conformance::{Rootfs, write_bundle};
use kcontract_oci::model::{
    Action, Config, Deviation, HookName, HookOutcome, Hooks, OciRuntime, OciVersion, Op, Runtime,
    Signal, parse_trace, trace_to_json,
};
use proptest::test_runner::{Config as PtConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// Sequences per runtime unless `KCONTRACT_DIFF_CASES` says otherwise: a few seconds, so that
/// `cargo test --features runtimes` stays quick; CI runs 1000.
const DEFAULT_CASES: u64 = 16;

/// The fixed seed (CI reproducibility). `KCONTRACT_DIFF_SEED` replaces its first eight bytes.
const SEED: [u8; 32] = *b"kcontract differential seed, v1.";

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// What a run found.
#[derive(Default)]
struct Stats {
    sequences: u64,
    steps: u64,
    /// Per version: sequences in which the spec model and the runtime differ.
    differ_from_spec: BTreeMap<OciVersion, u64>,
    /// Per (version, deviation): sequences in which the deviation took effect.
    by_deviation: BTreeMap<(OciVersion, Deviation), u64>,
}

/// Replays one sequence on the runtime and on the model; `Err` is an unexplained difference (or a
/// harness failure), with everything needed to reproduce it.
fn check_sequence(session: &mut Session, ops: &[Op], stats: &mut Stats) -> Result<(), String> {
    let runtime = session.cli().kind();
    let text = trace_to_json(OciVersion::V1_3_0, ops);
    // The printed trace must replay exactly these steps.
    let parsed = parse_trace(&text, None).map_err(|e| format!("trace_to_json: {e}"))?;
    if parsed.steps != ops {
        return Err(format!("trace_to_json does not round-trip:\n{text}"));
    }
    let observed = session
        .run(ops)
        .map_err(|e| format!("the harness failed: {e}\ntrace:\n{text}"))?;
    let mut reordered = false;
    let real: Vec<Comparable> = observed
        .iter()
        .map(|o| {
            let (c, r) = from_observed(o, runtime);
            reordered |= r;
            c
        })
        .collect();
    stats.sequences += 1;
    stats.steps += ops.len() as u64;
    for &version in OciVersion::VARIANTS {
        let mut profiled = Runtime::with_profile(version, runtime);
        let results: Vec<_> = ops.iter().map(|op| profiled.apply(op)).collect();
        let model: Vec<Comparable> = results.iter().map(from_model).collect();
        if let Some(d) = first_difference(&model, &real) {
            let raw: Vec<String> = observed
                .iter()
                .enumerate()
                .map(|(i, o)| o.to_line(i).to_json().map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            return Err(format!(
                "UNEXPLAINED DIFFERENCE: {runtime} {} vs the model at v{version} with the {runtime} profile\n{d}\n\
                 trace (replay with `kcontract conformance run --runtime {runtime} FILE` and \
                 `kcontract model replay --profile {runtime} --oci-version {version} FILE`):\n{text}\n\
                 runtime output:\n{}",
                session.cli().version(),
                raw.join("\n")
            ));
        }
        let mut deviations: BTreeSet<Deviation> = results
            .iter()
            .flat_map(|r| r.deviations.iter().copied())
            .collect();
        if reordered {
            deviations.insert(Deviation::PoststartBeforeProgram);
        }
        let mut spec = Runtime::new(version);
        let spec_side: Vec<Comparable> = ops.iter().map(|op| from_model(&spec.apply(op))).collect();
        if spec_side != real {
            if deviations.is_empty() {
                return Err(format!(
                    "{runtime} differs from the spec model at v{version} and agrees with its profile, \
                     but the profile noted no deviation:\n{}\ntrace:\n{text}",
                    first_difference(&spec_side, &real).unwrap_or_default()
                ));
            }
            *stats.differ_from_spec.entry(version).or_default() += 1;
        }
        for d in deviations {
            *stats.by_deviation.entry((version, d)).or_default() += 1;
        }
    }
    Ok(())
}

/// The differential run against one runtime: `KCONTRACT_DIFF_CASES` generated sequences, zero
/// unexplained differences, every deviation of the runtime exercised, nothing left behind.
fn differential(runtime: OciRuntime) {
    let session = crate::common::runtimes::session(runtime);
    // youki takes about ten times as long per command; a full run is done by hand.
    let cases = match runtime {
        OciRuntime::Youki => env_number("KCONTRACT_DIFF_CASES_YOUKI", DEFAULT_CASES),
        _ => env_number("KCONTRACT_DIFF_CASES", DEFAULT_CASES),
    };
    let max_steps = env_number("KCONTRACT_DIFF_STEPS", 12).max(1) as usize;
    let mut seed = SEED;
    if let Ok(v) = std::env::var("KCONTRACT_DIFF_SEED") {
        let n: u64 = v.parse().expect("KCONTRACT_DIFF_SEED is a number");
        seed[..8].copy_from_slice(&n.to_le_bytes());
    }
    let version = session.cli().version().to_owned();
    let prefix = session.id_prefix().to_owned();
    let config = PtConfig {
        cases: u32::try_from(cases).unwrap_or(u32::MAX),
        failure_persistence: None,
        max_shrink_iters: 300,
        ..PtConfig::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let state = RefCell::new((session, Stats::default()));
    let started = Instant::now();
    let strategy = proptest::collection::vec(crate::common::model::op(), 1..=max_steps);
    let result = runner.run(&strategy, |ops| {
        let (session, stats) = &mut *state.borrow_mut();
        let checked = check_sequence(session, &ops, stats).map_err(TestCaseError::fail);
        if checked.is_ok() && stats.sequences % 100 == 0 {
            eprintln!(
                "{runtime}: {} of {cases} sequences, {:.0} s",
                stats.sequences,
                started.elapsed().as_secs_f64()
            );
        }
        checked
    });
    let wall = started.elapsed();
    let (session, stats) = state.into_inner();
    if let Err(e) = result {
        panic!("{runtime} {version}: {e}");
    }
    println!(
        "\n{runtime} {version}: {} sequences, {} steps, {:.1} s ({:.0} ms per sequence); \
         0 unexplained differences",
        stats.sequences,
        stats.steps,
        wall.as_secs_f64(),
        wall.as_secs_f64() * 1000.0 / stats.sequences.max(1) as f64
    );
    for &v in OciVersion::VARIANTS {
        println!(
            "  v{v}: {} sequences differ from the spec model, each explained by deviations:",
            stats.differ_from_spec.get(&v).copied().unwrap_or(0)
        );
        for ((dv, d), n) in &stats.by_deviation {
            if *dv == v {
                println!("    {n:5}  {d}");
            }
        }
    }
    // Clean-up is part of correctness: the per-sequence guards must have removed everything.
    let listed = session
        .listed_containers()
        .expect("the runtime lists its containers");
    assert!(listed.is_empty(), "containers left behind: {listed:?}");
    let cgroups = session.leftover_cgroups();
    assert!(cgroups.is_empty(), "cgroups left behind: {cgroups:?}");
    drop(session);
    assert!(
        leftover_cgroups(&prefix).is_empty(),
        "cgroups left after the session"
    );
    // A run that never reached a deviation proves nothing about it.
    if cases >= 500 {
        for d in runtime.deviations() {
            for v in OciVersion::VARIANTS
                .iter()
                .copied()
                .filter(|&v| d.deviates_at(v))
            {
                assert!(
                    stats.by_deviation.contains_key(&(v, *d)),
                    "{cases} sequences never exercised {d} at v{v}"
                );
            }
        }
    }
}

/// Cgroup folders named after IDs of the session with this prefix.
fn leftover_cgroups(prefix: &str) -> Vec<String> {
    // IDs continue the prefix with a dash: session 1 must not match session 10.
    cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), &format!("{prefix}-"), 3)
        .into_iter()
        .map(|p| p.display().to_string())
        .collect()
}

/// Clean-up when a test panics in the middle of a sequence: the sequence guard force-deletes the
/// live containers while the panic unwinds; and when a guard never runs (leaked), dropping the
/// session deletes what the runtime still lists and removes the work folder.
fn cleanup_after_panic(runtime: OciRuntime) {
    let mut session = crate::common::runtimes::session(runtime);
    let prefix = session.id_prefix().to_owned();
    let work = session.work_dir().to_owned();
    let create = |id: &str| Op::new(id, Action::Create(Config::default()));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut seq = session.begin().expect("a sequence");
        let failing_poststop = Config {
            hooks: Hooks::none().with(HookName::Poststop, &[HookOutcome::Fail]),
            ..Config::default()
        };
        for op in [
            create("a"),
            Op::new("a", Action::Start),
            create("b"),
            Op::new("c", Action::Kill(Signal::Kill)),
            // A container whose poststop hook fails (youki then refuses to delete it).
            Op::new("p", Action::Create(failing_poststop)),
            Op::new("p", Action::Kill(Signal::Kill)),
            Op::new("p", Action::Delete),
        ] {
            seq.step(&op).expect("the step runs");
        }
        let a = seq.step(&Op::new("a", Action::State)).expect("state runs");
        assert_eq!(
            a.status.as_deref(),
            Some("running"),
            "container a is not running before the panic"
        );
        panic!("deliberate panic with live containers");
    }));
    assert!(outcome.is_err(), "the closure was meant to panic");
    assert_eq!(
        session.listed_containers().expect("list"),
        Vec::<String>::new()
    );
    assert_eq!(session.leftover_cgroups(), Vec::<std::path::PathBuf>::new());

    // A guard that never runs: the session's own clean-up must catch it.
    let mut seq = session.begin().expect("a sequence");
    seq.step(&create("x")).expect("create");
    seq.step(&Op::new("x", Action::Start)).expect("start");
    let x = seq.runtime_id("x");
    std::mem::forget(seq);
    assert_eq!(session.listed_containers().expect("list"), vec![x]);
    drop(session);
    assert!(!work.exists(), "{} was not removed", work.display());
    assert_eq!(leftover_cgroups(&prefix), Vec::<String>::new());
}

/// Whether a cgroup folder is named after exactly this container ID (the runtime made one for a
/// live container).
fn has_cgroup(id: &str) -> bool {
    cgroup_dirs_with_prefix(Path::new("/sys/fs/cgroup"), id, 3)
        .iter()
        .any(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().rsplit(':').next() == Some(id))
        })
}

/// A session whose process died without running destructors (killed by a signal) is cleaned up
/// by the next session of the same runtime: its containers deleted, its folder removed.
fn stale_session_is_swept(runtime: OciRuntime) {
    // Fail clearly if the runtime cannot be used, before making a session by hand.
    drop(crate::common::runtimes::session(runtime));
    // No process has this pid (pid_max is at most 2^22).
    let name = format!("kc{runtime}-999999999-0");
    let work = std::env::temp_dir().join(format!("kcontract-{name}"));
    let _ = std::fs::remove_dir_all(&work);
    let cli = RuntimeCli::locate(runtime, &work.join("state"), &work.join("scratch"))
        .expect("the runtime");
    let rootfs = Rootfs::prepare(&work.join("rootfs")).expect("a rootfs");
    let seq = work.join("seq-1");
    let failing_poststop = Config {
        hooks: Hooks::none().with(HookName::Poststop, &[HookOutcome::Fail]),
        ..Config::default()
    };
    let mut ids = Vec::new();
    for (n, config) in [Config::default(), failing_poststop]
        .into_iter()
        .enumerate()
    {
        let dir = seq.join(format!("c{n}"));
        std::fs::create_dir_all(&dir).expect("bundle folder");
        let id = format!("{name}-1-i{n}");
        // The cgroup is named like the ID, with the session's prefix, as the harness names it.
        write_bundle(&rootfs, &dir, &seq.join("cleanup"), &config, &id).expect("bundle");
        let bundle = dir.display().to_string();
        let out = cli
            .run(&["create", "--bundle", bundle.as_str(), id.as_str()])
            .expect("create runs");
        assert!(out.success, "create failed: {}", out.stderr);
        ids.push(id);
    }
    assert!(has_cgroup(&ids[0]), "no cgroup for {}", ids[0]);
    let session = Session::new(runtime).expect("a new session");
    assert!(!work.exists(), "{} was not swept", work.display());
    for id in &ids {
        assert!(!has_cgroup(id), "the cgroup of {id} is left");
    }
    drop(session);
}

use crate::common::runtimes::runtime_test;
use strum::VariantArray;

runtime_test!(runc, differential_runc, differential);
runtime_test!(crun, differential_crun, differential);
runtime_test!(youki, differential_youki, differential);
runtime_test!(runc, cleanup_after_panic_runc, cleanup_after_panic);
runtime_test!(crun, cleanup_after_panic_crun, cleanup_after_panic);
runtime_test!(youki, cleanup_after_panic_youki, cleanup_after_panic);
runtime_test!(runc, stale_session_is_swept_runc, stale_session_is_swept);
runtime_test!(crun, stale_session_is_swept_crun, stale_session_is_swept);
runtime_test!(youki, stale_session_is_swept_youki, stale_session_is_swept);
