//! The traceability matrix: for each clause, the tests that claim it and a status.
//!
//! Statuses, decided in this order:
//!
//! | status | when |
//! | --- | --- |
//! | `waived` | the clause is `verify: untestable` (its `reason` says why), whatever claims it |
//! | `failing` | results were given and a real test claiming it failed |
//! | `suspect` | a real test claims it, reviewed against an older text of the clause (its stamp differs) |
//! | `passing` | results were given, a real test claiming it passed and none failed |
//! | `implemented` | a real test claims it (no results given, or none of its tests ran) |
//! | `external` | no real test here, but the clause lists upstream Knative conformance tests |
//! | `stub` | only generated stubs claim it |
//! | `untested` | nothing claims it |
//!
//! A *real* test is any claiming test that is not a stub (see `crate::annotations`); stubs never
//! make a clause pass or fail, even when run with `--run-ignored`.
//!
//! The JSON (`kcontract-matrix/1`, README "Matrix JSON") is a stable interface like the clause list:
//! fields are only added; an incompatible change changes `format`.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::str::FromStr;

use serde::Serialize;

use crate::annotations::{TestFn, TestKind};
use crate::results::{Outcome, Results};
use crate::selector::Selector;
use kcontract_spec::list::ContractInfo;
use kcontract_spec::{Actor, Clause, Level, Spec, Verify};

/// Identifies the JSON shape; bumped only on an incompatible change.
pub(crate) const MATRIX_FORMAT: &str = "kcontract-matrix/1";

/// A clause's status. The derived order is the order of `--require`: each status satisfies a
/// requirement for itself and every status before it (`failing` satisfies none; `waived` and
/// `exempt` are handled apart: they always satisfy).
///
/// The order is what the clause's tests are worth here: a local stub or a list of upstream tests
/// (`external`) is worth less than a real test of this project, even one reviewed against an older
/// text of the clause (`suspect`), which is worth less than one that is current.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A real (non-stub) claiming test failed in the given results.
    Failing,
    /// No test claims the clause and no upstream test is listed.
    Untested,
    /// Only stubs (tests whose body is `todo!()`) claim the clause.
    Stub,
    /// No real test here, but upstream Knative conformance tests are listed (`upstream-tests`).
    External,
    /// A real test claims the clause, but its `Clause: <id> @ <stamp>` line records an older text
    /// of the clause: the clause changed since the test was reviewed (`kcontract review`). Meets
    /// `suspect` and nothing above it, whatever the results say.
    Suspect,
    /// A real test claims the clause; the given results say nothing about it.
    Implemented,
    /// A real test passed in the given results and none failed.
    Passing,
    /// The clause is `verify: untestable` (its `reason` is shown); meets every requirement.
    Waived,
    /// The tested crate says the clause does not apply to it, with a reason (`[exempt]` in its
    /// `kcontract.toml`): meets every requirement, and is never counted as covered.
    Exempt,
}

impl Status {
    /// Every status, in display order (the issue's list), `exempt` last: the columns of the
    /// terminal's coverage table, and the names `--require` and the ratchet accept.
    pub const REPORTED: [Status; 9] = [
        Status::Untested,
        Status::Stub,
        Status::Implemented,
        Status::Passing,
        Status::Failing,
        Status::Suspect,
        Status::External,
        Status::Waived,
        Status::Exempt,
    ];

    /// [`Self::REPORTED`] without `exempt`, which only a crate's own `kcontract.toml` gives: the
    /// statuses of the site's summaries and columns (the site, built from the spec's repository,
    /// has none).
    pub const ALL: [Status; 8] = *Self::REPORTED.first_chunk().unwrap();

    /// The status of lowercase name `s` (`--require`'s, a ratchet file's), if any.
    pub fn named(s: &str) -> Option<Status> {
        Self::REPORTED.into_iter().find(|st| st.as_str() == s)
    }

    /// The lowercase name used in the CLI, JSON and the site (`implemented`).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Untested => "untested",
            Status::Stub => "stub",
            Status::Implemented => "implemented",
            Status::Passing => "passing",
            Status::Failing => "failing",
            Status::Suspect => "suspect",
            Status::External => "external",
            Status::Waived => "waived",
            Status::Exempt => "exempt",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A claiming test as the matrix shows it.
#[derive(Clone, Debug, Serialize)]
pub struct TestView {
    /// cargo-nextest's binary id (`kcontract::model_props`), or null when it cannot be told.
    pub binary: Option<String>,
    /// Module path and function name inside the binary.
    pub name: String,
    /// The test's source file, `/`-separated from the project root (`tests/model_props.rs`).
    pub file: String,
    /// 1-based line of the test function's name.
    pub line: usize,
    /// A stub (its body is `todo!()`, whatever its `#[ignore]` says), not a real test.
    pub stub: bool,
    /// Marked `#[ignore]` (stubs always are).
    pub ignored: bool,
    /// From the results, or null (no results given, or the test is not in them).
    pub outcome: Option<Outcome>,
    /// Why it failed, from the results (JUnit `<failure message>` and its text, system-out;
    /// libtest's captured output), or null.
    pub message: Option<String>,
    /// The clause's stamp recorded on the test's `Clause:` line, or null (no stamp).
    pub stamp: Option<String>,
    /// A real test whose recorded stamp is not the clause's current one (see `Status::Suspect`).
    pub suspect: bool,
}

impl TestView {
    /// `binary name`, as cargo-nextest prints a test (or `file name` when the binary is unknown).
    pub(crate) fn display(&self) -> String {
        format!(
            "{} {}",
            self.binary.as_deref().unwrap_or(&self.file),
            self.name
        )
    }
}

/// One clause of the matrix with its status and claiming tests.
pub struct Row<'a> {
    /// The clause, borrowed from the [`Spec`].
    pub clause: &'a Clause,
    /// Why the tested crate says the clause does not apply to it (`[exempt]` in its
    /// `kcontract.toml`), when it does.
    pub exempt: Option<String>,
    /// Derived from the claiming tests, the results and the clause's `verify`/`upstream-tests`.
    pub status: Status,
    /// The tests that claim the clause, stubs included.
    pub tests: Vec<TestView>,
    /// The clause in each run report given (`--platform`), in the order of [`Matrix::platforms`]
    /// (empty without reports).
    pub platforms: Vec<PlatformCell>,
}

/// The traceability matrix: every clause of a spec, in spec order, with its tests and status.
pub struct Matrix<'a> {
    /// The contract the rows are of.
    pub spec: &'a Spec,
    /// One row per clause, in the order of [`Spec::clauses`].
    pub rows: Vec<Row<'a>>,
    /// The results files read, in the order given (empty: no results).
    pub results: Vec<String>,
    /// Real, not `#[ignore]`d claiming tests that the given results do not mention (nextest
    /// leaves ignored tests out of its JUnit report, so their absence says nothing).
    pub not_run: Vec<&'a TestFn>,
    /// The tested crate's selection (`select` in its `kcontract.toml`), when it has one: the rows
    /// are the clauses it picks.
    pub selection: Option<String>,
    /// Claims of ids the contract does not have (a clause removed or renamed), in test order.
    pub stale: Vec<Stale<'a>>,
    /// The platforms whose run reports were given (`--platform`), one column each, in the order
    /// given.
    pub platforms: Vec<PlatformColumn>,
}

/// A claim of an id the contract does not have (K0501).
pub struct Stale<'a> {
    /// The claiming test.
    pub test: &'a TestFn,
    /// The id it claims.
    pub id: String,
    /// The clause whose stamp is the one on the claim: where a renamed clause went.
    pub renamed_to: Option<String>,
}

/// What a tested crate says of its scope (its `kcontract.toml`): which clauses it answers for,
/// and which of those do not apply to it, each with a reason (duvet's `exception`).
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Only these clauses are the crate's (`select`); `None`: every clause.
    pub select: Option<Selector>,
    /// Clause id → why it does not apply here (`[exempt]`).
    pub exempt: BTreeMap<String, String>,
}

/// Build the matrix of every clause. `results` is `None` when no results file was given.
pub fn compute<'a>(spec: &'a Spec, tests: &'a [TestFn], results: Option<&Results>) -> Matrix<'a> {
    compute_in(spec, tests, results, &Scope::default())
}

/// Build the matrix of the clauses `scope` selects, its exemptions applied.
pub fn compute_in<'a>(
    spec: &'a Spec,
    tests: &'a [TestFn],
    results: Option<&Results>,
    scope: &Scope,
) -> Matrix<'a> {
    let mut not_run: Vec<&TestFn> = Vec::new();
    let outcome_of = |t: &TestFn| {
        let r = results?;
        r.outcome(t.package.as_deref(), t.target.as_ref()?, &t.path)
    };
    let message_of = |t: &TestFn| {
        let r = results?;
        r.message(t.package.as_deref(), t.target.as_ref()?, &t.path)
    };
    if results.is_some() {
        not_run = tests
            .iter()
            .filter(|t| t.kind == TestKind::Real && !t.ignored && outcome_of(t).is_none())
            .collect();
    }
    // Clause id → the tests claiming it, in test order, each once (one pass over the tests, not one
    // per clause: a scaffolded large spec has as many stubs as clauses).
    let mut by_clause: BTreeMap<&str, Vec<&TestFn>> = BTreeMap::new();
    for t in tests {
        for k in &t.claims {
            let list = by_clause.entry(k.id.as_str()).or_default();
            if !list.last().is_some_and(|last| std::ptr::eq(*last, t)) {
                list.push(t);
            }
        }
    }
    let rows = spec
        .clauses
        .iter()
        .filter(|c| scope.select.as_ref().is_none_or(|s| s.selects(c)))
        .map(|c| {
            let claiming: &[&TestFn] = by_clause.get(c.id.as_str()).map_or(&[], |v| v.as_slice());
            let views: Vec<TestView> = claiming
                .iter()
                .map(|t| {
                    let claim = t.claims.iter().find(|k| k.id == c.id);
                    TestView {
                        binary: t.binary_id(),
                        name: t.path.clone(),
                        file: t.file.clone(),
                        line: t.line,
                        stub: t.kind == TestKind::Stub,
                        ignored: t.ignored,
                        outcome: outcome_of(t),
                        message: message_of(t),
                        stamp: claim.and_then(|k| k.stamp.clone()),
                        suspect: t.kind == TestKind::Real && claim.is_some_and(|k| k.suspect(spec)),
                    }
                })
                .collect();
            let real: Vec<&TestView> = views.iter().filter(|v| !v.stub).collect();
            let exempt = scope.exempt.get(&c.id).cloned();
            let status = if c.verify.is_untestable() {
                Status::Waived
            } else if exempt.is_some() && real.is_empty() {
                Status::Exempt
            } else if !real.is_empty() {
                let outcomes: Vec<Outcome> = real.iter().filter_map(|v| v.outcome).collect();
                if outcomes.contains(&Outcome::Failed) {
                    Status::Failing
                } else if real.iter().any(|v| v.suspect) {
                    Status::Suspect
                } else if outcomes.contains(&Outcome::Passed) {
                    Status::Passing
                } else {
                    Status::Implemented
                }
            } else if !c.upstream_tests.is_empty() {
                Status::External
            } else if views.iter().any(|v| v.stub) {
                Status::Stub
            } else {
                Status::Untested
            };
            Row {
                clause: c,
                exempt,
                status,
                tests: views,
                platforms: Vec::new(),
            }
        })
        .collect();
    Matrix {
        spec,
        rows,
        results: results.map(|r| r.files.clone()).unwrap_or_default(),
        not_run,
        selection: scope.select.as_ref().map(|s| s.text.clone()),
        stale: tests
            .iter()
            .flat_map(|t| {
                t.unknown.iter().map(move |k| Stale {
                    test: t,
                    id: k.id.clone(),
                    renamed_to: crate::annotations::renamed_to(spec, k.stamp.as_deref())
                        .map(str::to_string),
                })
            })
            .collect(),
        platforms: Vec::new(),
    }
}

// -------------------------------------------------------------------------------------------------
// Platform columns

/// A clause's status in one platform's run report (`kcontract matrix --platform REPORT`): the
/// report's own status, or `stale` when the report judged an older text of the clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlatformStatus {
    /// The report's status (of several checks, the worst: see [`PlatformCell`]).
    Reported(ReportStatus),
    /// The report's stamp for the clause is not the clause's current one: it judged another text,
    /// so whatever it says is not shown as a result (never `pass`).
    Stale,
}

pub use kcontract_platform::checks::Status as ReportStatus;

impl PlatformStatus {
    /// The name in the table, the JSON, the CSV and the site: the report's (`pass`, `fail`,
    /// `n/a`, `not-run`, `error`), or `stale`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PlatformStatus::Reported(s) => s.as_str(),
            PlatformStatus::Stale => "stale",
        }
    }

    /// A check of the platform ran and decided the clause: what makes a clause covered
    /// ("executed", [`Coverage::executed`]).
    pub(crate) fn executed(self) -> bool {
        matches!(
            self,
            PlatformStatus::Reported(ReportStatus::Pass | ReportStatus::Fail)
        )
    }
}

impl Serialize for PlatformStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl fmt::Display for PlatformStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A platform whose run report was given: a column of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct PlatformColumn {
    /// The column's name ([`kcontract_platform::report::Platform::column_name`]: `runc`,
    /// `google-cloud-run`), unique among the columns.
    pub name: String,
    /// The report file, as given.
    pub file: String,
    /// The runtime's version the report names.
    pub runtime_version: String,
    /// The profile judged against (its name).
    pub profile: String,
    /// The day of the run.
    pub date: String,
}

/// One check of a clause in a run report.
#[derive(Clone, Debug, Serialize)]
pub struct CheckView {
    /// The check's name, or null (no check of the run decides the clause).
    pub check: Option<String>,
    /// The report's status for it.
    pub status: ReportStatus,
    /// What was found, or why it was not run.
    pub message: String,
}

/// A clause in one platform's report.
#[derive(Clone, Debug, Serialize)]
pub struct PlatformCell {
    /// The column's name.
    pub platform: String,
    /// The clause's status there; null when the report has no entry for it (a clause that is
    /// not testable, or newer than the report).
    pub status: Option<PlatformStatus>,
    /// The stamp the report judged, when it is not the clause's current one (`stale`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_stamp: Option<String>,
    /// The report's entries for the clause, one per check.
    pub checks: Vec<CheckView>,
    /// For a documentation clause ([`kcontract_platform::docs`]): `documented` (a link a person
    /// reviewed), `undocumented` (saying why) or `n/a`, from the report's `documentation`; what
    /// the cell shows then. Absent for other clauses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<kcontract_platform::docs::DocResult>,
}

impl PlatformCell {
    /// What the cell shows: the documentation status of a documentation clause, else the status
    /// (empty when the report lacks the clause).
    pub(crate) fn shown(&self) -> &'static str {
        match &self.documentation {
            Some(d) => d.status.as_str(),
            None => self.status.map_or("", PlatformStatus::as_str),
        }
    }

    /// `stale` when an entry's stamp is not `current`; otherwise the worst of the checks: `fail`,
    /// `error`, then `pass` when any passed, `n/a` when all are, `not-run`.
    fn decide(&mut self, current: &str, stamps: &[&str]) {
        let statuses: Vec<ReportStatus> = self.checks.iter().map(|c| c.status).collect();
        self.stale_stamp = stamps
            .iter()
            .find(|s| **s != current)
            .map(|s| s.to_string());
        self.status = if statuses.is_empty() {
            None
        } else if self.stale_stamp.is_some() {
            Some(PlatformStatus::Stale)
        } else {
            let worst = [ReportStatus::Fail, ReportStatus::Error, ReportStatus::Pass]
                .into_iter()
                .find(|s| statuses.contains(s))
                .unwrap_or(
                    if statuses.iter().all(|s| *s == ReportStatus::NotApplicable) {
                        ReportStatus::NotApplicable
                    } else {
                        ReportStatus::NotRun
                    },
                );
            Some(PlatformStatus::Reported(worst))
        };
    }
}

/// A run report to fold into the matrix: its file as given and its content.
#[derive(Clone, Debug)]
pub struct PlatformRun {
    /// The file, as given on the command line.
    pub file: String,
    /// The report.
    pub report: kcontract_platform::report::Report,
}

impl PlatformRun {
    /// The column's name: the platform's runtime (`runc`), or a vendor log's platform name.
    pub fn name(&self) -> &str {
        self.report.platform.column_name()
    }
}

impl Matrix<'_> {
    /// Adds a column per run report (`--platform`), each named by its platform's runtime: the
    /// names must differ (the pipeline refuses two reports of one name, K0613). Entries for ids
    /// the contract lacks are left out (the pipeline warns of them, K0612).
    pub fn add_platforms(&mut self, runs: &[PlatformRun]) {
        for run in runs {
            let p = &run.report.platform;
            self.platforms.push(PlatformColumn {
                name: run.name().to_string(),
                file: run.file.clone(),
                runtime_version: p.runtime_version.clone(),
                profile: p.profile.name.clone(),
                date: p.date.clone(),
            });
            let mut by_id: BTreeMap<&str, Vec<&kcontract_platform::report::ClauseResult>> =
                BTreeMap::new();
            for c in &run.report.clauses {
                by_id.entry(c.id.as_str()).or_default().push(c);
            }
            for row in &mut self.rows {
                let entries = by_id.get(row.clause.id.as_str()).map_or(&[][..], |v| v);
                let mut cell = PlatformCell {
                    platform: run.name().to_string(),
                    status: None,
                    stale_stamp: None,
                    checks: entries
                        .iter()
                        .map(|e| CheckView {
                            check: e.check.clone(),
                            status: e.status,
                            message: e.message.clone(),
                        })
                        .collect(),
                    documentation: documentation(row.clause, &run.report),
                };
                let stamps: Vec<&str> = entries.iter().map(|e| e.stamp.as_str()).collect();
                cell.decide(&row.clause.stamp, &stamps);
                row.platforms.push(cell);
            }
        }
    }
}

/// A documentation clause in `report`: its entry when it judged the clause's current text;
/// `undocumented` when it judged an older one (a review is of a text) or has none (a report
/// without a profile's links: an imported log). `None` for other clauses.
fn documentation(
    clause: &Clause,
    report: &kcontract_platform::report::Report,
) -> Option<kcontract_platform::docs::DocResult> {
    use kcontract_platform::docs::{self, DocStatus, Undocumented};
    if !docs::is_documentation(clause) {
        return None;
    }
    let entry = report.documentation.iter().find(|d| d.id == clause.id);
    Some(match entry {
        Some(d) if d.stamp == clause.stamp => d.clone(),
        Some(d) => docs::DocResult {
            stamp: d.stamp.clone(),
            status: DocStatus::Undocumented,
            undocumented: Some(Undocumented::StaleReview),
            message: format!(
                "the report judged an older text of the clause ({}, now {}): run the platform \
                 again with the profile's docs reviewed for this text",
                d.stamp, clause.stamp
            ),
            ..d.clone()
        },
        None => {
            let mut d = docs::judge(clause, None);
            if report.documentation.is_empty() {
                d.message = "no link: the report carries no profile docs (an imported log, or a \
                             report from before them)"
                    .to_owned();
            }
            d
        }
    })
}

impl Row<'_> {
    /// A platform check ran and decided the clause (`pass` or `fail`) in a report judged against
    /// its current text: it counts as covered ([`Coverage::executed`]).
    pub(crate) fn executed(&self) -> bool {
        self.platforms
            .iter()
            .any(|p| p.status.is_some_and(PlatformStatus::executed))
    }
}

// -------------------------------------------------------------------------------------------------
// Summaries

/// Clause counts per status, in the documented order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    /// Clauses with status `untested`.
    pub untested: usize,
    /// Clauses with status `stub`.
    pub stub: usize,
    /// Clauses with status `implemented`.
    pub implemented: usize,
    /// Clauses with status `passing`.
    pub passing: usize,
    /// Clauses with status `failing`.
    pub failing: usize,
    /// Clauses with status `suspect`.
    pub suspect: usize,
    /// Clauses with status `external`.
    pub external: usize,
    /// Clauses with status `waived`.
    pub waived: usize,
    /// Clauses with status `exempt` (a crate's own waiver; added to `kcontract-matrix/1`, and
    /// only written when not 0, so the matrix of a crate without exemptions is as before).
    #[serde(skip_serializing_if = "is_zero")]
    pub exempt: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl StatusCounts {
    fn add(&mut self, s: Status) {
        *self.get_mut(s) += 1;
    }
    fn get_mut(&mut self, s: Status) -> &mut usize {
        match s {
            Status::Untested => &mut self.untested,
            Status::Stub => &mut self.stub,
            Status::Implemented => &mut self.implemented,
            Status::Passing => &mut self.passing,
            Status::Failing => &mut self.failing,
            Status::Suspect => &mut self.suspect,
            Status::External => &mut self.external,
            Status::Waived => &mut self.waived,
            Status::Exempt => &mut self.exempt,
        }
    }
    /// The count for status `s`.
    pub fn get(&self, s: Status) -> usize {
        let mut c = *self;
        *c.get_mut(s)
    }
}

/// Coverage of one group of clauses (a level, an actor, or all).
#[derive(Clone, Debug, Serialize)]
pub struct Coverage {
    /// The level or actor (`all` for the total).
    pub group: String,
    /// Clauses in the group, waived ones included.
    pub clauses: usize,
    /// Clauses that are not waived.
    pub testable: usize,
    /// Testable clauses with at least one real test here (implemented, passing, failing or
    /// suspect) or an executed platform check ([`Self::executed`]).
    pub covered: usize,
    /// Testable clauses (not waived, not exempt) that a platform check decided — `pass` or `fail`
    /// in a run report judged against their current text; null without `--platform` (added to
    /// `kcontract-matrix/1`, and only written with reports, so the matrix without them is as
    /// before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed: Option<usize>,
    /// The group's clauses counted per status.
    pub status: StatusCounts,
}

impl Coverage {
    /// `platforms`: run reports were given (so `executed` is counted).
    fn of<'r>(group: String, rows: impl Iterator<Item = &'r Row<'r>>, platforms: bool) -> Self {
        let mut status = StatusCounts::default();
        let mut clauses = 0;
        let mut covered = 0;
        let mut executed = 0;
        for r in rows {
            clauses += 1;
            status.add(r.status);
            let counted = !matches!(r.status, Status::Waived | Status::Exempt);
            let tested = matches!(
                r.status,
                Status::Implemented | Status::Passing | Status::Failing | Status::Suspect
            );
            let ran = counted && r.executed();
            executed += usize::from(ran);
            covered += usize::from(tested || ran);
        }
        Coverage {
            group,
            clauses,
            testable: clauses - status.waived,
            covered,
            executed: platforms.then_some(executed),
            status,
        }
    }

    /// `covered/testable (pct%)`, percent rounded down; `-` when nothing is testable.
    pub fn ratio(&self) -> String {
        if self.testable == 0 {
            "-".to_string()
        } else {
            format!(
                "{}/{} ({}%)",
                self.covered,
                self.testable,
                self.covered * 100 / self.testable
            )
        }
    }
}

/// Coverage overall, per level and per actor (the `summary` of the JSON and the text output).
#[derive(Serialize)]
pub struct Summary {
    /// All clauses (group `all`).
    pub total: Coverage,
    /// One entry per level, in [`Level::ALL`] order.
    pub by_level: Vec<Coverage>,
    /// One entry per actor of the contract, in its order.
    pub by_actor: Vec<Coverage>,
}

impl Matrix<'_> {
    /// Coverage of all rows, then per level and per actor.
    pub fn summary(&self) -> Summary {
        let platforms = !self.platforms.is_empty();
        Summary {
            total: Coverage::of("all".into(), self.rows.iter(), platforms),
            by_level: Level::ALL
                .iter()
                .map(|l| {
                    Coverage::of(
                        l.to_string(),
                        self.rows.iter().filter(|r| r.clause.level == *l),
                        platforms,
                    )
                })
                .collect(),
            by_actor: (self.spec.contract.actor_list())
                .map(|a| {
                    Coverage::of(
                        a.to_string(),
                        self.rows.iter().filter(|r| r.clause.actor == a),
                        platforms,
                    )
                })
                .collect(),
        }
    }
}

// -------------------------------------------------------------------------------------------------
// Outputs

#[derive(Serialize)]
struct RowView<'a> {
    id: &'a str,
    level: Level,
    actor: Actor,
    verify: Verify,
    chapter: &'a str,
    status: Status,
    reason: Option<&'a str>,
    /// Added to `kcontract-matrix/1`: the crate's reason for `exempt`, only when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    exempt: Option<&'a str>,
    upstream_tests: &'a [String],
    /// Added to `kcontract-matrix/1`: how the clause can be executed ([`kcontract_platform::routes`]);
    /// empty for an untestable clause or one a person judges.
    routes: Vec<kcontract_platform::routes::Route>,
    /// Added to `kcontract-matrix/1`: why a testable clause has no route (`documentation`,
    /// `manual`), only then.
    #[serde(skip_serializing_if = "Option::is_none")]
    route_reason: Option<kcontract_platform::routes::Reason>,
    tests: &'a [TestView],
    /// Added to `kcontract-matrix/1`: the clause in each run report, only with `--platform`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    platforms: &'a [PlatformCell],
}

#[derive(Serialize)]
struct MatrixJson<'a> {
    format: &'static str,
    contract: ContractInfo<'a>,
    results: &'a [String],
    /// Added to `kcontract-matrix/1`: the run reports' platforms, only with `--platform`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    platforms: &'a [PlatformColumn],
    /// Added to `kcontract-matrix/1`: the crate's selection, only when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    selection: Option<&'a str>,
    summary: Summary,
    clauses: Vec<RowView<'a>>,
    /// Added to `kcontract-matrix/1`: claims of ids the contract lacks, only when there are some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stale_claims: Vec<StaleView<'a>>,
}

#[derive(Serialize)]
struct StaleView<'a> {
    id: &'a str,
    renamed_to: Option<&'a str>,
    binary: Option<String>,
    name: &'a str,
    file: &'a str,
    line: usize,
}

/// `matrix --format json` and `site/matrix.json`, pretty-printed, with a final newline.
pub fn json(m: &Matrix) -> Result<String, serde_json::Error> {
    let v = MatrixJson {
        format: MATRIX_FORMAT,
        contract: ContractInfo {
            title: &m.spec.contract.title,
            version: &m.spec.contract.version,
            languages: &m.spec.contract.languages,
        },
        results: &m.results,
        platforms: &m.platforms,
        selection: m.selection.as_deref(),
        summary: m.summary(),
        clauses: m
            .rows
            .iter()
            .map(|r| {
                let routes = kcontract_platform::routes::of(r.clause);
                RowView {
                    id: &r.clause.id,
                    level: r.clause.level,
                    actor: r.clause.actor,
                    verify: r.clause.verify,
                    chapter: &r.clause.chapter,
                    status: r.status,
                    reason: r.clause.reason.as_deref(),
                    exempt: r.exempt.as_deref(),
                    upstream_tests: &r.clause.upstream_tests,
                    routes: routes.routes,
                    route_reason: routes.reason,
                    tests: &r.tests,
                    platforms: &r.platforms,
                }
            })
            .collect(),
        stale_claims: m
            .stale
            .iter()
            .map(|st| StaleView {
                id: &st.id,
                renamed_to: st.renamed_to.as_deref(),
                binary: st.test.binary_id(),
                name: &st.test.path,
                file: &st.test.file,
                line: st.test.line,
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&v)?;
    s.push('\n');
    Ok(s)
}

/// RFC 4180 CSV, one row per clause; `tests` lists the claiming tests as `binary name [outcome]`,
/// `; `-separated. With run reports, a column `platform:<name>` per platform after `messages`,
/// holding the clause's status there (empty: not in the report).
pub fn csv(m: &Matrix) -> String {
    let mut out = String::from(
        "id,level,actor,verify,chapter,status,real_tests,stubs,tests,upstream_tests,reason,messages",
    );
    for p in &m.platforms {
        out.push(',');
        out.push_str(&csv_field(&format!("platform:{}", p.name)));
    }
    out.push_str("\r\n");
    for r in &m.rows {
        let c = r.clause;
        let tests: Vec<String> = r
            .tests
            .iter()
            .map(|t| {
                let mut s = t.display();
                if t.stub {
                    s.push_str(" [stub]");
                }
                if t.suspect {
                    s.push_str(" [suspect]");
                }
                if let Some(o) = t.outcome {
                    let _ = write!(s, " [{}]", o.as_str());
                }
                s
            })
            .collect();
        let real = r.tests.iter().filter(|t| !t.stub).count();
        let fields = [
            c.id.clone(),
            c.level.to_string(),
            c.actor.to_string(),
            c.verify.to_string(),
            c.chapter.clone(),
            r.status.to_string(),
            real.to_string(),
            (r.tests.len() - real).to_string(),
            tests.join("; "),
            c.upstream_tests.join("; "),
            c.reason.clone().unwrap_or_default(),
            messages(&r.tests),
        ];
        let line: Vec<String> = fields
            .iter()
            .map(|f| csv_field(f))
            .chain(r.platforms.iter().map(|p| csv_field(cell_text(p))))
            .collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The failure messages of a row's tests, `name: message`, one test per line.
fn messages(tests: &[TestView]) -> String {
    tests
        .iter()
        .filter_map(|t| Some(format!("{}: {}", t.display(), t.message.as_deref()?)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One CSV cell. A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula
/// to a spreadsheet, quoted or not (a `reason` of `=HYPERLINK(…)` ran when the matrix was
/// opened): such a cell gets a leading `'`, which spreadsheets show as text (OWASP's advice for
/// CSV injection). None of kcontract's own values start so; free text (a reason, a message) may.
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// Left-aligned columns; the last column is not padded.
fn columns(rows: &[Vec<String>], right: &[usize]) -> String {
    let n = rows.first().map_or(0, Vec::len);
    let mut widths = vec![0; n];
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(&widths).enumerate() {
            let pad = w - cell.chars().count();
            if right.contains(&i) {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                if i + 1 < n {
                    line.push_str(&" ".repeat(pad));
                }
            }
            if i + 1 < n {
                line.push_str("  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `message` indented under a test, at most `MAX` lines (a CI log is read from the top).
fn indented(out: &mut String, message: &str, pad: &str) {
    const MAX: usize = 12;
    let lines: Vec<&str> = message.lines().collect();
    for l in lines.iter().take(MAX) {
        let _ = writeln!(out, "{pad}{}", l.trim_end());
    }
    if lines.len() > MAX {
        let _ = writeln!(
            out,
            "{pad}… ({} more lines: `--format json` has the whole message)",
            lines.len() - MAX
        );
    }
}

/// One test as a line of the terminal output: outcome, `binary name`, `file:line`.
fn test_line(t: &TestView) -> String {
    let what = match t.outcome {
        Some(o) => o.as_str(),
        None if t.ignored => "ignored",
        None => "no result",
    };
    let mut s = format!("{what:<9} {}  {}:{}", t.display(), t.file, t.line);
    if t.suspect {
        let _ = write!(
            s,
            "  (reviewed against {})",
            t.stamp.as_deref().unwrap_or("?")
        );
    }
    s
}

/// The terminal output, made for CI logs: what needs someone first — failing clauses with their
/// tests' messages, suspect clauses with the stamps their tests were reviewed against, stale
/// claims (ids the contract no longer has) — then one row per clause with its real tests under
/// it, then coverage per level and per actor. `only`, when not empty, keeps the clauses of those
/// statuses in the sections and the rows (the coverage is always of every clause shown).
pub fn table(m: &Matrix, only: &[Status]) -> String {
    let shown = |r: &&Row| only.is_empty() || only.contains(&r.status);
    let mut out = String::new();
    let head = |r: &Row| {
        format!(
            "{}  {} · {} · verify: {}",
            r.clause.id, r.clause.level, r.clause.actor, r.clause.verify
        )
    };
    let failing: Vec<&Row> = m
        .rows
        .iter()
        .filter(shown)
        .filter(|r| r.status == Status::Failing)
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "FAILING ({})", failing.len());
        for r in failing {
            let _ = writeln!(out, "  {}", head(r));
            for t in r
                .tests
                .iter()
                .filter(|t| t.outcome == Some(Outcome::Failed) && !t.stub)
            {
                let _ = writeln!(out, "    {}", test_line(t));
                if let Some(msg) = &t.message {
                    indented(&mut out, msg, "      ");
                }
            }
        }
        out.push('\n');
    }
    let suspect: Vec<&Row> = m
        .rows
        .iter()
        .filter(shown)
        .filter(|r| r.tests.iter().any(|t| t.suspect))
        .collect();
    if !suspect.is_empty() {
        let _ = writeln!(
            out,
            "SUSPECT: the clause changed since these tests were reviewed ({})",
            suspect.len()
        );
        for r in suspect {
            let _ = writeln!(out, "  {}  now {}", head(r), r.clause.stamp);
            for t in r.tests.iter().filter(|t| t.suspect) {
                let _ = writeln!(out, "    {}", test_line(t));
            }
        }
        out.push('\n');
    }
    if !m.stale.is_empty() && only.is_empty() {
        let _ = writeln!(
            out,
            "STALE CLAIMS: ids the contract no longer has ({})",
            m.stale.len()
        );
        for st in &m.stale {
            let t = st.test;
            let binary = t.binary_id().unwrap_or_else(|| t.file.clone());
            let _ = write!(
                out,
                "  {}  claimed by {binary} {}  {}:{}",
                st.id, t.path, t.file, t.line
            );
            match &st.renamed_to {
                Some(n) => {
                    let _ = writeln!(out, "  (renamed to {n}: same stamp)");
                }
                None => out.push('\n'),
            }
        }
        out.push('\n');
    }
    let mut head_row = ["ID", "LEVEL", "ACTOR", "VERIFY", "STATUS", "TESTS", "STUBS"]
        .map(String::from)
        .to_vec();
    head_row.extend(m.platforms.iter().map(|p| p.name.clone()));
    let mut rows = vec![head_row];
    // Row index → the lines under it (its real tests; a local exemption's reason).
    let mut under: Vec<Vec<String>> = vec![Vec::new()];
    for r in m.rows.iter().filter(shown) {
        let real = r.tests.iter().filter(|t| !t.stub).count();
        rows.push(vec![
            r.clause.id.clone(),
            r.clause.level.to_string(),
            r.clause.actor.to_string(),
            r.clause.verify.to_string(),
            r.status.to_string(),
            real.to_string(),
            (r.tests.len() - real).to_string(),
        ]);
        if let Some(last) = rows.last_mut() {
            last.extend(r.platforms.iter().map(|p| match cell_text(p) {
                "" => "-".to_string(),
                s => s.to_string(),
            }));
        }
        let mut lines: Vec<String> = r
            .tests
            .iter()
            .filter(|t| !t.stub)
            .map(|t| format!("    {}", test_line(t)))
            .collect();
        lines.extend(r.platforms.iter().flat_map(|p| platform_lines(p, r.clause)));
        if let Some(why) = &r.exempt {
            lines.push(format!("    exempt here: {why}"));
        }
        under.push(lines);
    }
    let table = columns(&rows, &[5, 6]);
    for (line, extra) in table.lines().zip(&under) {
        out.push_str(line);
        out.push('\n');
        for e in extra {
            out.push_str(e);
            out.push('\n');
        }
    }
    out.push('\n');
    let s = m.summary();
    // The exempt column only when a crate exempts something: the common table stays as it was.
    let statuses: Vec<Status> = Status::REPORTED
        .into_iter()
        .filter(|st| *st != Status::Exempt || s.total.status.exempt > 0)
        .collect();
    let platforms = !m.platforms.is_empty();
    let mut cov = vec![{
        let mut h = vec!["COVERAGE".to_string(), "CLAUSES".to_string()];
        h.extend(statuses.iter().map(|s| s.as_str().to_uppercase()));
        if platforms {
            h.push("EXECUTED".to_string());
        }
        h.push("COVERED".to_string());
        h
    }];
    for g in s
        .by_level
        .iter()
        .chain(&s.by_actor)
        .chain(std::iter::once(&s.total))
    {
        let mut r = vec![g.group.clone(), g.clauses.to_string()];
        r.extend(statuses.iter().map(|st| g.status.get(*st).to_string()));
        r.extend(g.executed.map(|n| n.to_string()));
        r.push(g.ratio());
        cov.push(r);
    }
    out.push_str(&columns(
        &cov,
        &(1..=statuses.len() + 1 + usize::from(platforms)).collect::<Vec<_>>(),
    ));
    if let Some(sel) = &m.selection {
        let _ = writeln!(
            out,
            "selection: {sel} ({} of {} clauses)",
            m.rows.len(),
            m.spec.clauses.len()
        );
    }
    if m.results.is_empty() {
        out.push_str("no results given: real tests show as implemented (pass --results FILE)\n");
    } else {
        let _ = writeln!(out, "results: {}", m.results.join(", "));
    }
    for p in &m.platforms {
        // A vendor's log names no runtime version: only what the report has is said.
        let runtime = if p.runtime_version.is_empty() {
            String::new()
        } else {
            format!("runtime {}, ", p.runtime_version)
        };
        let _ = writeln!(
            out,
            "platform {}: {} ({runtime}profile {}, run {})",
            p.name, p.file, p.profile, p.date
        );
    }
    if !m.platforms.is_empty() {
        out.push_str(
            "executed: a platform check passed or failed on the clause's current text (stale: an older text); it counts as covered\n",
        );
    }
    out
}

/// A clause's status in one report as a cell: the status (a documentation clause's
/// documentation status), or empty when the report lacks it.
fn cell_text(p: &PlatformCell) -> &'static str {
    p.shown()
}

/// The lines under a clause's row for one platform, when it needs someone: each failed or
/// unmade check with its message, or the stamp a stale report judged.
fn platform_lines(p: &PlatformCell, clause: &Clause) -> Vec<String> {
    use kcontract_platform::docs::Undocumented;
    if let Some(d) = &p.documentation {
        // A link waiting for a person; a missing link is the cell itself.
        return match d.undocumented {
            Some(Undocumented::NotReviewed | Undocumented::StaleReview) => {
                vec![format!("    {} undocumented: {}", p.platform, d.message)]
            }
            _ => Vec::new(),
        };
    }
    match p.status {
        Some(PlatformStatus::Stale) => vec![format!(
            "    {} stale: the report judged {}, the clause is now {}",
            p.platform,
            p.stale_stamp.as_deref().unwrap_or("?"),
            clause.stamp
        )],
        Some(PlatformStatus::Reported(ReportStatus::Fail | ReportStatus::Error)) => p
            .checks
            .iter()
            .filter(|c| matches!(c.status, ReportStatus::Fail | ReportStatus::Error))
            .map(|c| {
                format!(
                    "    {} {} {}: {}",
                    p.platform,
                    c.status,
                    c.check.as_deref().unwrap_or("-"),
                    c.message.lines().next().unwrap_or_default()
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

// -------------------------------------------------------------------------------------------------
// --require

/// `SELECTOR=STATUS`: every clause the selector picks must have at least STATUS (in the order
/// of [`Status`]: untested < stub < external < suspect < implemented < passing; `failing` meets
/// nothing; `waived` and `exempt` meet everything). The selector is `crate::selector`'s grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The requirement as given on the command line, for messages.
    pub text: String,
    /// Which clauses it is about.
    pub selector: Selector,
    /// The minimum status (never `failing`, `waived` or `exempt`).
    pub status: Status,
}

impl FromStr for Requirement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (sel, status) = s.rsplit_once('=').ok_or_else(|| {
            format!("`{s}` has no `=`: write SELECTOR=STATUS, e.g. `MUST=implemented` or `verify:model=passing`")
        })?;
        let status = match status.trim() {
            "untested" => Status::Untested,
            "stub" => Status::Stub,
            "external" => Status::External,
            "suspect" => Status::Suspect,
            "implemented" => Status::Implemented,
            "passing" => Status::Passing,
            other => {
                return Err(format!(
                    "`{other}` cannot be required: use untested, stub, external, suspect, implemented or passing (a minimum, in that order)"
                ));
            }
        };
        Ok(Requirement {
            text: s.to_string(),
            selector: sel.parse()?,
            status,
        })
    }
}

impl Requirement {
    /// Does the selector pick clause `c`?
    pub fn selects(&self, c: &Clause) -> bool {
        self.selector.selects(c)
    }
    /// Does a clause with status `s` meet the requirement (`waived` and `exempt` always,
    /// `failing` never)?
    pub(crate) fn met_by(&self, s: Status) -> bool {
        matches!(s, Status::Waived | Status::Exempt) || (s != Status::Failing && s >= self.status)
    }
}

/// The clauses that do not meet a requirement, with the requirement.
pub fn offenders<'m, 'a>(
    m: &'m Matrix<'a>,
    reqs: &'m [Requirement],
) -> Vec<(&'m Requirement, &'m Row<'a>)> {
    let mut out = Vec::new();
    for q in reqs {
        for r in &m.rows {
            if q.selects(r.clause) && !q.met_by(r.status) {
                out.push((q, r));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_syntax() {
        let r: Requirement = "verify:model=passing".parse().unwrap();
        assert_eq!(r.status, Status::Passing);
        assert_eq!(r.selector.text, "verify:model");
        assert_eq!(
            "*=suspect".parse::<Requirement>().unwrap().status,
            Status::Suspect
        );
        for bad in [
            "MUST",
            "MUST=waived",
            "MUST=exempt",
            "MUST=failing",
            "MUST=done",
            "verify:model,=stub",
            "=stub",
            "chapter:=stub",
        ] {
            assert!(bad.parse::<Requirement>().is_err(), "{bad}");
        }
    }

    #[test]
    fn requirement_order() {
        let r: Requirement = "*=implemented".parse().unwrap();
        let met: Vec<Status> = Status::ALL.into_iter().filter(|s| r.met_by(*s)).collect();
        assert_eq!(met, [Status::Implemented, Status::Passing, Status::Waived]);
        let r: Requirement = "*=stub".parse().unwrap();
        let met: Vec<Status> = Status::ALL.into_iter().filter(|s| r.met_by(*s)).collect();
        assert_eq!(
            met,
            [
                Status::Stub,
                Status::Implemented,
                Status::Passing,
                Status::Suspect,
                Status::External,
                Status::Waived
            ]
        );
        // A real test reviewed against an older text outranks a stub with upstream tests
        // (issue #36: `external` used to outrank `suspect`).
        let r: Requirement = "*=suspect".parse().unwrap();
        assert!(r.met_by(Status::Suspect) && !r.met_by(Status::External));
        assert_eq!(Status::REPORTED.iter().filter(|s| r.met_by(**s)).count(), 5);
        assert!(r.met_by(Status::Exempt));
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a, b"), "\"a, b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=1+1"), "'=1+1");
        assert_eq!(
            csv_field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        for lead in ["+", "-", "@", "\t", "\r"] {
            assert!(
                csv_field(&format!("{lead}cmd"))
                    .trim_start_matches('"')
                    .starts_with('\'')
            );
        }
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
    }
}
