//! `kcontract platform run --control A --control B …` (or `--control all`): the profile's own run
//! and each control's run on one session, `--jobs` at a time (each run is its own containers,
//! folders and network namespace, so they cannot interfere; most of a run is waiting out its grace
//! period). The report is the profile's own run; each control must fail exactly the clauses whose
//! checks name it (beyond what the profile's own run fails), else the command exits 1 and says
//! which control did not.

use std::collections::BTreeSet;

use super::run::{RunArgs, announce, environment, inputs, report_of_run, write_all};
use super::shared::{fail, load_contract, results_text, verdict};
use crate::terminal::{Ctx, Failure, Outcome, print};
use kcontract_oci::conformance::OciRuntime;
use kcontract_platform::checks::clauses_failed_by;
use kcontract_platform::controls::Control;
use kcontract_platform::local::{Judged, RunPlan, run_all};

/// The command's steps with several controls: the runs, each control's verdict, the report.
pub(super) fn run(ctx: &Ctx, args: &RunArgs, runtime: OciRuntime, controls: &[Control]) -> Outcome {
    let (loaded, source) = load_contract(ctx)?;
    let spec = &loaded.spec;
    let inputs = inputs(ctx, spec, &source, args)?;
    let env = environment(args.probe.as_deref(), runtime).map_err(|d| fail(ctx, d))?;
    let grace = announce(args, runtime, &inputs, &env, None);
    eprintln!(
        "and {} negative controls, {} runs at a time",
        controls.len(),
        args.jobs
    );
    let mut runs = vec![None];
    runs.extend(controls.iter().copied().map(Some));
    let plan = RunPlan {
        session: &env.session,
        probe: &env.probe,
        profile: &inputs.profile,
        service: &inputs.service,
        runs: &runs,
        jobs: args.jobs,
    };
    let mut results = run_all(&plan, &|line: &str| eprintln!("  {line}")).into_iter();
    let own = match results.next() {
        Some(Ok(j)) => j,
        Some(Err(e)) => return Err(fail(ctx, e.diagnostic())),
        None => return Err(Failure::Input),
    };
    let mut wrong = Vec::new();
    for (control, result) in controls.iter().zip(results) {
        match result {
            Ok(j) => wrong.extend(control_problem(&own, *control, &j)),
            Err(e) => wrong.push(format!("{}: the run failed: {e}", control.name())),
        }
    }
    let report = report_of_run(spec, runtime, inputs, env, (&own, grace));
    write_all(ctx, args, &report)?;
    print(&results_text(&report))?;
    if !wrong.is_empty() {
        for w in &wrong {
            eprintln!("error: negative control {w}");
        }
        return Err(Failure::Input);
    }
    eprintln!(
        "every negative control failed exactly its clauses ({})",
        controls.len()
    );
    verdict(&report)
}

/// Why `control`'s run `j` is not what its checks say (it must fail exactly their clauses, and
/// what the profile's own run `own` fails), or `None`.
fn control_problem(own: &Judged, control: Control, j: &Judged) -> Option<String> {
    let failing: BTreeSet<&str> = j.failing().into_iter().collect();
    let mut expected: BTreeSet<&str> = clauses_failed_by(control).into_iter().collect();
    expected.extend(own.failing());
    (failing != expected).then(|| {
        format!(
            "`{}` fails {:?}, should fail exactly {:?}",
            control.name(),
            failing,
            expected
        )
    })
}
