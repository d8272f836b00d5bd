//! The rows of the matrix: each clause's claiming tests and its status (the table in the module's
//! documentation), within a crate's scope.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{PlatformCell, PlatformColumn, Status};
use crate::annotations::{TestFn, TestKind};
use crate::results::{Outcome, Results};
use crate::selector::Selector;
use kcontract_spec::{Clause, Spec};

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
        match &self.binary {
            Some(b) => format!("{b} {}", self.name),
            // A pytest node id starts with its file already.
            None if self.name.starts_with(&format!("{}::", self.file)) => self.name.clone(),
            None => format!("{} {}", self.file, self.name),
        }
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
            let exempt = scope.exempt.get(&c.id).cloned();
            let status = status_of(c, &views, exempt.is_some());
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

impl Matrix<'_> {
    /// Folds the platform columns into the statuses: a clause whose check failed on its current
    /// text in some run report ([`Row::platform_failed`]) is `failing`, as when a test of it
    /// failed, unless it is waived or exempt here. A platform team gates its CI on its columns
    /// with this: `--require` and the failing-first section read the status, so a failed check
    /// can never pass a gate or count as covered. Call it once the columns are added.
    pub fn fold_platform_failures(&mut self) {
        for row in &mut self.rows {
            if !matches!(row.status, Status::Waived | Status::Exempt) && row.platform_failed() {
                row.status = Status::Failing;
            }
        }
    }
}

impl Row<'_> {
    /// A platform check failed on the clause's current text (`fail` in a report; not `stale`,
    /// whose verdict is of another text, nor a documentation clause, whose cell says whether a
    /// person reviewed a link).
    pub fn platform_failed(&self) -> bool {
        self.platforms.iter().any(|p| {
            p.documentation.is_none()
                && p.status == Some(super::PlatformStatus::Reported(super::ReportStatus::Fail))
        })
    }
}

/// A clause's status from its claiming tests (`views`) and whether the crate exempts it: the
/// table of the module's documentation, in its order.
fn status_of(c: &Clause, views: &[TestView], exempt: bool) -> Status {
    let real: Vec<&TestView> = views.iter().filter(|v| !v.stub).collect();
    if c.verify.is_untestable() {
        Status::Waived
    } else if exempt && real.is_empty() {
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
    }
}
