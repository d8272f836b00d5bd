//! The reference profile's platform run (`kcontract platform run`'s, in-process), made once per
//! test binary on runc and on crun, for the contract tests that a local check decides: each asserts
//! that its clause's checks pass on both runtimes. `tests/suite/platform_controls.rs` shows the same
//! checks fail under their negative controls.
//!
//! Asking for them: `cargo test --features runtimes` (root, runc, crun; the static probe is built
//! into `target/probe` or taken from `$KCONTRACT_PROBE`); without the feature they are listed as
//! ignored with that reason.

#[path = "../suite/common/mod.rs"]
mod common;

use std::sync::OnceLock;

use kcontract_oci::model::OciRuntime;
use kcontract_platform::checks::Status;
use kcontract_platform::local::{Judged, RunPlan, run_all};
use kcontract_platform::{profile, service};
use kcontract_spec::diagnostic::SourceMap;

static RUNS: OnceLock<Vec<(OciRuntime, Result<Judged, String>)>> = OnceLock::new();

fn run_on(runtime: OciRuntime) -> Result<Judged, String> {
    let session = common::runtimes::bare_session(runtime);
    let probe = common::probe::static_probe();
    let mut sources = SourceMap::default();
    let profile = profile::load(
        &common::cli::root().join("platforms/knative-reference.yaml"),
        &mut sources,
    )
    .map_err(|d| format!("{d:?}"))?;
    let id = sources.add(
        service::CONFORMANCE_SERVICE_PATH.into(),
        service::CONFORMANCE_SERVICE.into(),
    );
    let service = service::parse(id, &sources)
        .map_err(|d| format!("{d:?}"))?
        .service;
    let plan = RunPlan {
        session: &session,
        probe: &probe,
        profile: &profile,
        service: &service,
        runs: &[None],
        jobs: 1,
    };
    run_all(&plan, &|_| {})
        .pop()
        .ok_or("no run")?
        .map_err(|e| e.to_string())
}

/// Asserts that every check of `clause` passed on runc and on crun.
pub(crate) fn passes(clause: &str) {
    let runs = RUNS.get_or_init(|| {
        std::thread::scope(|s| {
            let handles: Vec<_> = [OciRuntime::Runc, OciRuntime::Crun]
                .into_iter()
                .map(|rt| (rt, s.spawn(move || run_on(rt))))
                .collect();
            handles
                .into_iter()
                .map(|(rt, h)| {
                    (
                        rt,
                        h.join().unwrap_or_else(|_| Err("the run panicked".into())),
                    )
                })
                .collect()
        })
    });
    for (runtime, judged) in runs {
        let judged = judged
            .as_ref()
            .unwrap_or_else(|e| panic!("the run on {runtime} failed: {e}"));
        let verdicts: Vec<_> = judged
            .verdicts
            .iter()
            .filter(|((c, _), _)| c == clause)
            .collect();
        assert!(!verdicts.is_empty(), "no local check decides {clause}");
        for ((_, check), v) in verdicts {
            assert_eq!(
                v.status,
                Status::Pass,
                "{clause} ({check}) on {runtime}: {}\nevidence: {}",
                v.message,
                v.evidence
            );
        }
    }
}
