//! The platform run on real runtimes: the reference profile's run passes every local check, and
//! each negative control (`kcontract_platform::controls`) fails exactly the checks that name it —
//! on runc and on crun. A probe or a judge that always says "pass" fails here, and so does a control
//! that breaks more than its clause.
//!
//! Asking for them: `cargo test --features runtimes` (root, runc, crun; the static probe is built
//! into `target/probe`, or taken from `$KCONTRACT_PROBE`). Without the feature they are listed as
//! ignored with that reason. `KCONTRACT_PLATFORM_JOBS` (default 4): runs at a time; each run waits
//! out the conformance Service's two-second grace period, so they overlap.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::common::cli::root;
use crate::common::runtimes::runtime_test;
use kcontract_oci::model::OciRuntime;
use kcontract_platform::checks::{Status, clauses_failed_by, on};
use kcontract_platform::controls::Control;
use kcontract_platform::local::{RunPlan, run_all};
use kcontract_platform::profile;
use kcontract_platform::routes::Route;
use kcontract_platform::service::{self, CONFORMANCE_SERVICE};
use kcontract_spec::diagnostic::SourceMap;
use strum::VariantArray;

fn controls(runtime: OciRuntime) {
    let session = crate::common::runtimes::bare_session(runtime);
    let probe = crate::common::probe::static_probe();
    let mut sources = SourceMap::default();
    let profile = profile::load(
        &root().join("platforms/knative-reference.yaml"),
        &mut sources,
    )
    .unwrap();
    let id = sources.add("conformance.yaml".into(), CONFORMANCE_SERVICE.into());
    let service = service::parse(id, &sources).unwrap().service;
    let jobs = std::env::var("KCONTRACT_PLATFORM_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(4);
    let mut runs = vec![None];
    runs.extend(Control::VARIANTS.iter().copied().map(Some));
    let start = Instant::now();
    let plan = RunPlan {
        session: &session,
        probe: &probe,
        profile: &profile,
        service: &service,
        runs: &runs,
        jobs,
    };
    let results = run_all(&plan, &|line| eprintln!("{runtime}: {line}"));
    let elapsed = start.elapsed();
    let mut problems = Vec::new();
    let mut table = String::new();
    for (run, result) in runs.iter().zip(&results) {
        let name = run.map_or("(reference)", Control::name);
        let judged = match result {
            Ok(j) => j,
            Err(e) => {
                problems.push(format!("{name}: the harness failed: {e}"));
                continue;
            }
        };
        let errors: Vec<String> = judged
            .verdicts
            .iter()
            .filter(|(_, v)| v.status == Status::Error)
            .map(|((c, _), v)| format!("{c}: {}", v.message))
            .collect();
        if !errors.is_empty() {
            problems.push(format!("{name}: checks could not be made: {errors:?}"));
        }
        let failing: BTreeSet<&str> = judged.failing().into_iter().collect();
        let expected: BTreeSet<&str> = run
            .map(clauses_failed_by)
            .unwrap_or_default()
            .into_iter()
            .collect();
        table.push_str(&format!("{name:<24} fails {failing:?}\n"));
        if failing != expected {
            let messages: Vec<String> = judged
                .verdicts
                .iter()
                .filter(|(_, v)| v.status == Status::Fail)
                .map(|((c, _), v)| format!("{c}: {}", v.message))
                .collect();
            problems.push(format!(
                "{name}: fails {failing:?}, should fail exactly {expected:?}; {messages:?}"
            ));
        }
        if run.is_none() {
            let passing = judged
                .verdicts
                .values()
                .filter(|v| v.status == Status::Pass)
                .count();
            assert_eq!(
                passing,
                on(Route::Simulated).count(),
                "the reference passes every check of the simulated route"
            );
        }
    }
    eprintln!(
        "{runtime} {}: the reference and {} negative controls in {:.1} s ({jobs} at a time)\n{table}",
        session.cli().version(),
        Control::VARIANTS.len(),
        elapsed.as_secs_f64()
    );
    assert!(problems.is_empty(), "{runtime}:\n{}", problems.join("\n"));
    assert_eq!(session.listed_containers().unwrap(), Vec::<String>::new());
    assert_eq!(session.leftover_cgroups(), Vec::<std::path::PathBuf>::new());
}

runtime_test!(runc, controls_on_runc, controls);
runtime_test!(crun, controls_on_crun, controls);
