//! Local runs, judged: the harness's runs on a session's runtime (several at once, for the negative
//! controls), each judged by every check of the table.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use kcontract_oci::conformance::HarnessError;
use kcontract_oci::conformance::Session;

use super::checks::{Input, Verdict};
use super::controls::Control;
use super::harness::Harness;
use super::observed::Observed;
use super::profile::Profile;
use super::service::Service;

/// A run and its verdicts, keyed by (clause, check name).
#[derive(Debug, Clone)]
pub struct Judged {
    /// The control the run applied.
    pub control: Option<Control>,
    /// What it observed.
    pub observed: Observed,
    /// Every check's verdict.
    pub verdicts: BTreeMap<(String, String), Verdict>,
}

impl Judged {
    /// `done: N pass, failing: …` for progress lines.
    pub(crate) fn outcome_line(&self) -> String {
        let count =
            |s: super::checks::Status| self.verdicts.values().filter(|v| v.status == s).count();
        let mut line = format!(
            "done: {} pass, {} fail, {} n/a, {} error",
            count(super::checks::Status::Pass),
            count(super::checks::Status::Fail),
            count(super::checks::Status::NotApplicable),
            count(super::checks::Status::Error)
        );
        if !self.failing().is_empty() {
            line.push_str(&format!(" (failing: {})", self.failing().join(", ")));
        }
        line
    }

    /// The clauses whose verdict is `fail`, sorted.
    pub fn failing(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .verdicts
            .iter()
            .filter(|(_, v)| v.status == super::checks::Status::Fail)
            .map(|((c, _), _)| c.as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The verdict of every check of the simulated route on `observed`.
pub(crate) fn judge(profile: &Profile, observed: &Observed) -> BTreeMap<(String, String), Verdict> {
    let input = Input { profile, observed };
    super::checks::on(super::routes::Route::Simulated)
        .map(|c| ((c.clause.to_owned(), c.name.to_owned()), (c.judge)(&input)))
        .collect()
}

/// What [`run_all`] runs: on `session`'s runtime, the probe as `profile`'s platform would run
/// `service`, once per entry of `runs`, `jobs` at a time.
pub struct RunPlan<'a> {
    /// The session whose runtime, folders and container ids the runs use.
    pub session: &'a Session,
    /// The static probe.
    pub probe: &'a Path,
    /// The platform profile.
    pub profile: &'a Profile,
    /// The Knative Service deployed.
    pub service: &'a Service,
    /// Each run: `None` for the profile's own run, else the negative control it applies.
    pub runs: &'a [Option<Control>],
    /// How many runs at a time (at least one).
    pub jobs: usize,
}

/// Runs the plan's runs and judges each; `progress` is told when each starts and ends. The results
/// are in the order of `plan.runs`.
pub fn run_all(
    plan: &RunPlan<'_>,
    progress: &(dyn Fn(&str) + Sync),
) -> Vec<Result<Judged, HarnessError>> {
    let session = plan.session;
    let harness = Harness::new(
        session.cli(),
        session.work_dir(),
        session.id_prefix(),
        plan.probe,
        plan.profile,
        plan.service,
    );
    let runs = plan.runs;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Judged, HarnessError>>>> =
        Mutex::new(runs.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..plan.jobs.clamp(1, runs.len().max(1)) {
            s.spawn(|| {
                while let Some((i, control)) = claim(&next, runs) {
                    let result = run_one(&harness, plan.profile, control, |what: &str| {
                        let name = control.map_or("the profile's run", Control::name);
                        progress(&format!("[{}/{}] {name}: {what}", i + 1, runs.len()));
                    });
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(result);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| Err(HarnessError::Unexpected("the run did not finish".into())))
        })
        .collect()
}

/// The next run no thread has taken: its index and control.
fn claim(next: &AtomicUsize, runs: &[Option<Control>]) -> Option<(usize, Option<Control>)> {
    let i = next.fetch_add(1, Ordering::Relaxed);
    runs.get(i).map(|&control| (i, control))
}

/// One run, judged; `say` is told `running`, then how it ended.
fn run_one(
    harness: &Harness<'_>,
    profile: &Profile,
    control: Option<Control>,
    say: impl Fn(&str),
) -> Result<Judged, HarnessError> {
    say("running");
    let result = harness.run(control).map(|observed| Judged {
        control,
        verdicts: judge(profile, &observed),
        observed,
    });
    say(&match &result {
        Ok(j) => j.outcome_line(),
        Err(e) => format!("harness error: {e}"),
    });
    result
}
