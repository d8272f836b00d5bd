//! `spec/runtimes/deviations.yaml`, the catalogue of how real OCI runtimes differ from the model,
//! checked against the code that claims to reproduce it:
//!
//! - its deviations are exactly [`Deviation::VARIANTS`], each with the runtimes, versions and spec
//!   versions the model's profiles give it, and English and Chinese text;
//! - each minimal trace's `expected` lines are what the spec model outputs, and each runtime's
//!   `observed` comparable lines are what the model outputs under that runtime's profile — which
//!   applies the deviation — while its raw `lines` agree with its `comparable` ones;
//! - `breaks` names the model invariant the runtime's behaviour violates (the spec model violates
//!   none on the same trace);
//! - the hook observations (order, statuses shown, each hook kind failing) likewise;
//! - on the real runtimes, every trace is run again and must still give the recorded comparable
//!   lines: with `cargo test --features runtimes` (root, runc, crun, busybox-static) or
//!   `--features youki`; without the feature these tests are listed as ignored with that reason,
//!   with it a missing runtime fails;
//! - the platform findings (what the probe of `kcontract platform run` found the runtimes doing with
//!   a config) are well formed, show a difference between the runtimes, and on the real runtimes
//!   (`--features runtimes`) give the recorded facts again.

use std::collections::BTreeSet;
use std::path::Path;

use kcontract_oci::conformance::{Comparable, from_model, from_observed};
use kcontract_oci::model::invariants::check_step;
use kcontract_oci::model::{
    Deviation, OciRuntime, OciVersion, Runtime, StepResult, Trace, parse_trace, to_json_lines,
};
use kcontract_oci::runtimes::Catalogue;
use serde_json::Value;

fn catalogue() -> Catalogue {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/runtimes/deviations.yaml");
    let text = std::fs::read_to_string(&path).expect("spec/runtimes/deviations.yaml");
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn trace_of(value: &Value) -> Trace {
    parse_trace(&value.to_string(), None).unwrap_or_else(|e| panic!("{e}\n{value}"))
}

fn run_model(trace: &Trace, version: OciVersion, profile: Option<OciRuntime>) -> Vec<StepResult> {
    let mut rt = match profile {
        Some(p) => Runtime::with_profile(version, p),
        None => Runtime::new(version),
    };
    trace.steps.iter().map(|op| rt.apply(op)).collect()
}

fn comparable_lines(results: &[StepResult]) -> Vec<String> {
    results.iter().map(|r| from_model(r).to_string()).collect()
}

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The first invariant a trace breaks on a model, if any — with `only`, the first broken at a step
/// where that deviation took effect (so a runtime's other deviations earlier in the trace do not
/// count).
fn first_violation(
    trace: &Trace,
    version: OciVersion,
    profile: Option<OciRuntime>,
    only: Option<Deviation>,
) -> Option<String> {
    let mut rt = match profile {
        Some(p) => Runtime::with_profile(version, p),
        None => Runtime::new(version),
    };
    for op in &trace.steps {
        let before = rt.clone();
        let r = rt.apply(op);
        let counts = only.is_none_or(|d| r.deviations.contains(&d));
        if let (true, Err(v)) = (counts, check_step(&before, op, &r, &rt)) {
            return Some(v.rule.id.to_owned());
        }
    }
    None
}

/// A stored raw line agrees with its comparable line (so neither was edited alone).
fn raw_matches_comparable(raw: &str, comparable: &str) -> Result<(), String> {
    let r: Value = serde_json::from_str(raw).map_err(|e| format!("{e}: {raw}"))?;
    let c: Value = serde_json::from_str(comparable).map_err(|e| format!("{e}: {comparable}"))?;
    let ok = r["ok"].as_bool() == Some(true);
    let warned = ok && r["warnings"].as_array().is_some_and(|w| !w.is_empty());
    let names: Vec<String> = c["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h.as_str()?.split('@').next().map(str::to_owned))
        .collect();
    let mut raw_names: Vec<String> = r["hooks_run"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h.as_str().map(str::to_owned))
        .collect();
    let mut sorted_names = names.clone();
    // The comparable side may be put in lifecycle order (poststart-before-program).
    raw_names.sort();
    sorted_names.sort();
    let checks = [
        ("op", r["op"] == c["op"]),
        ("ok", r["ok"] == c["ok"]),
        ("status", r["status"] == c["status"]),
        ("warned", Value::Bool(warned) == c["warned"]),
        ("hooks", raw_names == sorted_names),
        ("signals", r["signals"] == c["signals"]),
        ("logs", r["logs"] == c["logs"]),
        ("state", r["state"].is_null() == c["state"].is_null()),
    ];
    match checks.iter().find(|(_, good)| !good) {
        Some((field, _)) => Err(format!(
            "`{field}` differs:\n  raw: {raw}\n  comparable: {comparable}"
        )),
        None => Ok(()),
    }
}

#[test]
fn the_catalogue_lists_exactly_the_modelled_deviations() {
    let cat = catalogue();
    assert_eq!(cat.format, "kcontract-runtimes/1");
    let ids: Vec<&str> = cat.deviations.iter().map(|e| e.id.as_str()).collect();
    let expected: Vec<&str> = Deviation::VARIANTS.iter().map(|d| d.id()).collect();
    assert_eq!(ids, expected, "deviations (in the enum's order)");
    for &r in OciRuntime::VARIANTS {
        let m = cat
            .measured
            .runtimes
            .iter()
            .find(|m| m.name == r.as_str())
            .unwrap_or_else(|| panic!("measured.runtimes lacks {r}"));
        assert_eq!(m.version, r.measured_version());
        assert!(!m.source.is_empty() && !m.state_oci_version.is_empty());
    }
    assert!(!cat.measured.host.is_empty());
    for run in &cat.measured.differential {
        assert!(run.runtime.parse::<OciRuntime>().is_ok(), "{}", run.runtime);
        assert_eq!(
            run.unexplained, 0,
            "a recorded run with unexplained differences"
        );
        assert!(run.sequences > 0 && run.steps >= run.sequences && run.seconds > 0.0);
        assert!(!run.how.is_empty());
    }
    for e in &cat.deviations {
        let d: Deviation = e.id.parse().expect("known id");
        assert!(
            matches!(e.kind.as_str(), "spec" | "model-choice" | "later-spec"),
            "{}: kind {}",
            e.id,
            e.kind
        );
        assert_eq!(
            e.kind == "later-spec",
            !d.deviates_at(OciVersion::V1_3_0),
            "{}",
            e.id
        );
        assert_eq!(
            e.nondeterministic,
            d == Deviation::PoststartBeforeProgram,
            "{}",
            e.id
        );
        let names: Vec<&str> = e.runtimes.iter().map(|r| r.name.as_str()).collect();
        let want: Vec<&str> = d.runtimes().iter().map(|r| r.as_str()).collect();
        assert_eq!(names, want, "{}: runtimes", e.id);
        for r in &e.runtimes {
            let rt: OciRuntime = r.name.parse().expect("runtime name");
            assert_eq!(r.version, rt.measured_version(), "{}", e.id);
        }
        let versions: Vec<&str> = OciVersion::VARIANTS
            .iter()
            .filter(|v| d.deviates_at(**v))
            .map(|v| v.as_str())
            .collect();
        assert_eq!(e.spec.versions, versions, "{}: spec.versions", e.id);
        assert!(
            !e.spec.source.is_empty() && !e.spec.sentence.is_empty(),
            "{}",
            e.id
        );
        assert!(
            !e.title.is_empty() && !e.summary.trim().is_empty(),
            "{}",
            e.id
        );
        assert!(
            has_cjk(&e.title_zh) && has_cjk(&e.summary_zh),
            "{}: Chinese text",
            e.id
        );
        assert_eq!(
            e.note.is_some(),
            e.note_zh.is_some(),
            "{}: note in both languages",
            e.id
        );
        if let Some(zh) = &e.note_zh {
            assert!(has_cjk(zh), "{}", e.id);
        }
        let observed: Vec<&str> = e.observed.iter().map(|o| o.runtime.as_str()).collect();
        assert_eq!(observed, names, "{}: an observation per runtime", e.id);
    }
    assert!(has_cjk(&cat.hooks.summary_zh) && !cat.hooks.summary.is_empty());
}

/// The delete-on-created behaviour is catalogued for each runtime, with its minimal trace (the
/// issue's first finding).
#[test]
fn delete_on_created_is_documented_for_every_runtime() {
    let cat = catalogue();
    let e = cat
        .deviations
        .iter()
        .find(|e| e.id == "delete-created")
        .expect("delete-created");
    let names: BTreeSet<&str> = e.observed.iter().map(|o| o.runtime.as_str()).collect();
    assert_eq!(names, BTreeSet::from(["runc", "crun", "youki"]));
    let trace = trace_of(&e.trace);
    assert_eq!(trace.steps.len(), 2, "create, delete");
}

#[test]
fn every_minimal_trace_shows_its_deviation_on_the_model() {
    let cat = catalogue();
    for e in &cat.deviations {
        let d: Deviation = e.id.parse().expect("known id");
        let trace = trace_of(&e.trace);
        let version: OciVersion = e.expected.version.parse().expect("version");
        assert_eq!(trace.version, version, "{}", e.id);
        assert!(d.deviates_at(version), "{}: the trace's version", e.id);
        let spec = run_model(&trace, version, None);
        assert_eq!(
            to_json_lines(&spec).expect("JSON lines"),
            e.expected.lines,
            "{}: expected lines",
            e.id
        );
        assert_eq!(
            comparable_lines(&spec),
            e.expected.comparable,
            "{}: expected comparable lines",
            e.id
        );
        assert_eq!(
            first_violation(&trace, version, None, None),
            None,
            "{}: spec model",
            e.id
        );
        for o in &e.observed {
            let rt: OciRuntime = o.runtime.parse().expect("runtime");
            let profiled = run_model(&trace, version, Some(rt));
            assert_eq!(
                comparable_lines(&profiled),
                o.comparable,
                "{} on {rt}: the profile does not reproduce the observation",
                e.id
            );
            assert_ne!(
                o.comparable, e.expected.comparable,
                "{} on {rt}: the trace does not show a difference",
                e.id
            );
            assert_eq!(o.lines.len(), o.comparable.len(), "{} on {rt}", e.id);
            for (raw, c) in o.lines.iter().zip(&o.comparable) {
                raw_matches_comparable(raw, c).unwrap_or_else(|m| panic!("{} on {rt}: {m}", e.id));
            }
            let applied: BTreeSet<Deviation> = profiled
                .iter()
                .flat_map(|r| r.deviations.iter().copied())
                .collect();
            // The race is not something the model decides; the comparison notes it.
            if d != Deviation::PoststartBeforeProgram {
                assert!(
                    applied.contains(&d),
                    "{} on {rt}: applied {applied:?}",
                    e.id
                );
            }
            assert_eq!(
                first_violation(&trace, version, Some(rt), Some(d)),
                e.breaks,
                "{} on {rt}: the invariant the behaviour breaks",
                e.id
            );
        }
    }
}

/// `docs/runtimes.md` names every deviation (its table is the readable index of the catalogue).
#[test]
fn the_docs_name_every_deviation() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runtimes.md"))
            .expect("docs/runtimes.md");
    for &d in Deviation::VARIANTS {
        assert!(
            docs.contains(&format!("`{}`", d.id())),
            "docs/runtimes.md does not mention `{d}`"
        );
    }
}

#[test]
fn hook_observations_agree_with_the_models() {
    let cat = catalogue();
    assert!(cat.hooks.traces.len() >= 7, "order + one per hook kind");
    for h in &cat.hooks.traces {
        assert!(!h.id.is_empty() && !h.title.is_empty() && has_cjk(&h.title_zh));
        let trace = trace_of(&h.trace);
        let versions: Vec<&str> = h.expected.iter().map(|e| e.version.as_str()).collect();
        assert_eq!(versions, ["1.0.1", "1.3.0"], "{}", h.id);
        for e in &h.expected {
            let v: OciVersion = e.version.parse().expect("version");
            let spec = run_model(&trace, v, None);
            assert_eq!(comparable_lines(&spec), e.comparable, "{} at v{v}", h.id);
        }
        let names: Vec<&str> = h.observed.iter().map(|o| o.runtime.as_str()).collect();
        assert_eq!(names, ["runc", "crun", "youki"], "{}", h.id);
        for o in &h.observed {
            let rt: OciRuntime = o.runtime.parse().expect("runtime");
            for &v in OciVersion::VARIANTS {
                let profiled = run_model(&trace, v, Some(rt));
                assert_eq!(
                    comparable_lines(&profiled),
                    o.comparable,
                    "{} on {rt} at v{v}",
                    h.id
                );
            }
        }
    }
}

/// Every catalogued observation, run again on the real runtime where it is installed.
fn observations_hold(runtime: OciRuntime) {
    let mut session = crate::common::runtimes::session(runtime);
    let cat = catalogue();
    let runs = cat
        .deviations
        .iter()
        .flat_map(|e| e.observed.iter().map(move |o| (e.id.as_str(), &e.trace, o)))
        .chain(
            cat.hooks
                .traces
                .iter()
                .flat_map(|h| h.observed.iter().map(move |o| (h.id.as_str(), &h.trace, o))),
        )
        .filter(|(_, _, o)| o.runtime == runtime.as_str());
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/replay-line.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let line_schema = jsonschema::draft202012::new(&schema).unwrap();
    let mut checked = 0;
    for (id, trace, o) in runs {
        let trace = trace_of(trace);
        let observed = session
            .run(&trace.steps)
            .unwrap_or_else(|e| panic!("{id} on {runtime}: {e}"));
        // What the harness prints for the runtime (`conformance run`) is a valid replay line.
        for (i, step) in observed.iter().enumerate() {
            let line = serde_json::to_value(step.to_line(i)).unwrap();
            let problems: Vec<String> = line_schema
                .iter_errors(&line)
                .map(|e| e.to_string())
                .collect();
            assert!(
                problems.is_empty(),
                "{id} on {runtime}: {line}\n{problems:?}"
            );
        }
        let fresh: Vec<String> = observed
            .iter()
            .map(|o| from_observed(o, runtime).0)
            .map(|c: Comparable| c.to_string())
            .collect();
        assert_eq!(
            fresh, o.comparable,
            "{id} on {runtime}: the runtime no longer behaves as recorded"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} observations for {runtime}");
}

/// Every finding names runtimes that were measured, has an observation for each runtime that shows
/// it and for another that does not, its facts are summary keys, and its config is whole.
#[test]
fn platform_findings_are_well_formed_and_show_a_difference() {
    let cat = catalogue();
    let measured: BTreeSet<&str> = cat
        .measured
        .runtimes
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    let mut ids = BTreeSet::new();
    assert!(cat.platform_findings.len() >= 3);
    for f in &cat.platform_findings {
        assert!(ids.insert(f.id.as_str()), "{}: listed twice", f.id);
        assert!(
            has_cjk(&f.title_zh) && has_cjk(&f.summary_zh),
            "{}: Chinese text",
            f.id
        );
        assert_eq!(f.config["root"]["path"], "$ROOTFS", "{}", f.id);
        assert!(
            f.config["process"]["args"][0] == "/kcontract-probe",
            "{}",
            f.id
        );
        let observed: BTreeSet<&str> = f.observed.iter().map(|o| o.runtime.as_str()).collect();
        for r in &f.runtimes {
            assert!(
                observed.contains(r.name.as_str()),
                "{}: no observation of {}",
                f.id,
                r.name
            );
        }
        assert!(
            observed
                .iter()
                .any(|o| !f.runtimes.iter().any(|r| r.name == *o)),
            "{}: no runtime to compare with",
            f.id
        );
        for o in &f.observed {
            assert!(
                measured.contains(o.runtime.as_str()),
                "{}: {}",
                f.id,
                o.runtime
            );
            for key in o.facts.keys() {
                let what = key.rsplit_once(' ').map(|(_, w)| w);
                assert!(
                    matches!(
                        what,
                        Some("mode" | "write" | "writable" | "propagation" | "options")
                    ),
                    "{}: `{key}` is not a summary key",
                    f.id
                );
            }
        }
        let distinct: BTreeSet<_> = f.observed.iter().map(|o| &o.facts).collect();
        assert!(distinct.len() > 1, "{}: every runtime did the same", f.id);
    }
}

/// Every platform finding's config, run again on `runtime`, gives the recorded facts.
fn platform_findings_hold(runtime: OciRuntime) {
    let session = crate::common::runtimes::bare_session(runtime);
    let probe = crate::common::probe::static_probe();
    let mut checked = 0;
    for (n, f) in catalogue().platform_findings.iter().enumerate() {
        let Some(o) = f.observed.iter().find(|o| o.runtime == runtime.as_str()) else {
            continue;
        };
        let modes: Vec<(String, u32)> = f
            .modes
            .iter()
            .map(|(d, m)| (d.clone(), u32::from_str_radix(m, 8).expect("octal mode")))
            .collect();
        let facts = kcontract_platform::harness::run_config(
            session.cli(),
            &session.work_dir().join(format!("finding-{n}")),
            &format!("{}-f{n}", session.id_prefix()),
            &probe,
            &f.config,
            &modes,
        )
        .unwrap_or_else(|e| panic!("{} on {runtime}: {e}", f.id));
        let fresh: std::collections::BTreeMap<String, String> = o
            .facts
            .keys()
            .map(|k| {
                let v = kcontract_platform::observed::fact_summary(&facts, k)
                    .unwrap_or_else(|| "(no such fact)".into());
                (k.clone(), v)
            })
            .collect();
        assert_eq!(
            fresh, o.facts,
            "{} on {runtime}: the runtime no longer behaves as recorded",
            f.id
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} findings for {runtime}");
    assert_eq!(session.listed_containers().unwrap(), Vec::<String>::new());
}

use crate::common::runtimes::runtime_test;
use strum::VariantArray;

runtime_test!(runc, platform_findings_hold_on_runc, platform_findings_hold);
runtime_test!(crun, platform_findings_hold_on_crun, platform_findings_hold);
runtime_test!(runc, observations_hold_on_runc, observations_hold);
runtime_test!(crun, observations_hold_on_crun, observations_hold);
runtime_test!(youki, observations_hold_on_youki, observations_hold);
