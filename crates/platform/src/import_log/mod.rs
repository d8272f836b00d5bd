//! A vendor's results as a column: the `go test -v` output of Knative's conformance suites (or the
//! same run as `go test -json` or JUnit XML: `forms`), read test by test and mapped to the
//! contract's clauses through their `upstream-tests:` entries and the table of the suite's other
//! tests (`suite`), into the same `kcontract-run/1` report a local run writes (`kcontract platform
//! import-log`). A result that decides no clause is named ([`unmapped`]), never dropped silently.
//!
//! The log is read only from its result lines (`--- PASS|FAIL|SKIP: Name (…)`, indented for
//! subtests) and its `=== RUN` lines (a test that started and has no result line did not finish).
//! Parallel tests interleave their lines freely, and `=== PAUSE`/`=== CONT` say nothing about a
//! result, so the reading depends on which lines there are, never on their order: a name with two
//! result lines (a log of `-count=2`) keeps the worse one, and a skip counts as worse than a pass.
//!
//! The judgement is conservative, because a column that says `pass` is read as "the platform does
//! this": a skipped test is `not-run`, never a pass; an entry naming a test function covers its
//! subtests (a function that passed with every subtest skipped did not check anything); a clause
//! several tests cover passes only when every one ran and passed, and fails when any failed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use kcontract_spec::Spec;

use super::checks::Status;
use super::report::ClauseResult;

mod forms;
pub mod suite;

pub use forms::{Form, FormError, parse_json, parse_junit, read};

/// The result of one test (or subtest) in a log, worst last: merging two results of one name keeps
/// the later variant. Its words (`pass`, `skip`, `unfinished`, `fail`) come from this declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Outcome {
    /// `--- PASS`.
    Pass,
    /// `--- SKIP`.
    Skip,
    /// `=== RUN` and no result line: the log ends (or the run was killed) before it finished.
    Unfinished,
    /// `--- FAIL`.
    Fail,
}

impl Outcome {
    /// `pass`, `skip`, `unfinished`, `fail`: the words of a report's evidence.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What a `go test -v` log says: per test name (`TestX`, `TestX/sub`) its outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoTestLog {
    /// Every name with a result line or a `=== RUN` line.
    pub results: BTreeMap<String, Outcome>,
}

impl GoTestLog {
    /// Every test name the log shows (started or with a result).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.results.keys().map(String::as_str)
    }

    /// The outcome of `test` with its subtests (`test/…`): the worst of them, except that a test
    /// whose every subtest was skipped is skipped even when the function itself passed. `None`
    /// when the log does not name it.
    pub(crate) fn outcome(&self, test: &str) -> Option<Outcome> {
        let own = *self.results.get(test)?;
        let prefix = format!("{test}/");
        let subs: Vec<Outcome> = self
            .results
            .range(prefix.clone()..)
            .take_while(|(n, _)| n.starts_with(&prefix))
            .map(|(_, o)| *o)
            .collect();
        Some(subs.iter().copied().fold(own, Outcome::max))
    }
}

/// Reads a `go test -v` log (see the module's documentation for what is read).
pub fn parse(log: &str) -> GoTestLog {
    let mut finished: BTreeMap<String, Outcome> = BTreeMap::new();
    let mut started: BTreeSet<String> = BTreeSet::new();
    for line in log.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("=== RUN") {
            if let Some(name) = rest.split_whitespace().next() {
                started.insert(name.to_owned());
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("--- ") else {
            continue;
        };
        let (outcome, rest) = if let Some(r) = rest.strip_prefix("PASS:") {
            (Outcome::Pass, r)
        } else if let Some(r) = rest.strip_prefix("FAIL:") {
            (Outcome::Fail, r)
        } else if let Some(r) = rest.strip_prefix("SKIP:") {
            (Outcome::Skip, r)
        } else {
            continue;
        };
        if let Some(name) = rest.split_whitespace().next() {
            finished
                .entry(name.to_owned())
                .and_modify(|o| *o = (*o).max(outcome))
                .or_insert(outcome);
        }
    }
    for name in started {
        finished.entry(name).or_insert(Outcome::Unfinished);
    }
    GoTestLog { results: finished }
}

/// The name of the check a log's entries are recorded under in a report.
pub(crate) const CHECK: &str = "knative-conformance";

/// The test name of an `upstream-tests:` entry (`path/file_test.go#TestX/sub` → `TestX/sub`).
pub(crate) fn test_name(entry: &str) -> &str {
    entry.split_once('#').map_or(entry, |(_, t)| t)
}

/// The tests that decide clause `c`: its `upstream-tests:` entries, then the suite's other tests
/// that decide it ([`suite::deciding`]), each with whether its failure decides it.
fn deciding(c: &kcontract_spec::Clause) -> Vec<(&str, bool)> {
    let mut tests: Vec<(&str, bool)> = c
        .upstream_tests
        .iter()
        .map(|e| (test_name(e), true))
        .collect();
    tests.extend(suite::deciding(&c.id).map(|(t, fail)| (t as &str, fail)));
    tests
}

/// The entries of the report for `spec`'s testable clauses (the clauses a local run reports, in
/// the same order), judged from `log`.
pub fn clause_results(spec: &Spec, log: &GoTestLog) -> Vec<ClauseResult> {
    spec.clauses
        .iter()
        .filter(|c| !c.verify.is_untestable())
        .map(|c| {
            let tests = deciding(c);
            let (status, evidence, message) = judge(&tests, log);
            ClauseResult {
                id: c.id.clone(),
                level: c.level.as_str().to_owned(),
                stamp: c.stamp.clone(),
                status,
                check: (!tests.is_empty()).then(|| CHECK.to_owned()),
                evidence,
                message,
                route: Some(super::routes::Route::VendorLog),
            }
        })
        .collect()
}

/// A result of the log that decides no clause: its name, its outcome, and why it decides none
/// when the suite's table says (`None`: a test kcontract does not know, from another suite or a
/// newer one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmapped {
    /// The test as the log names it.
    pub name: String,
    /// Its own result.
    pub outcome: Outcome,
    /// The table's reason ([`suite::SuiteTest::why`]), when it has the test.
    pub why: Option<&'static str>,
}

/// The results of `log` that decide no clause of `spec`, in name order. A result decides a clause
/// when it, a test it is a subtest of, or one of its subtests is among the clause's deciding
/// tests (a function's result is its subtests', and an entry for a function covers them).
pub fn unmapped(spec: &Spec, log: &GoTestLog) -> Vec<Unmapped> {
    let cited: Vec<&str> = spec
        .clauses
        .iter()
        .flat_map(|c| deciding(c).into_iter().map(|(t, _)| t))
        .collect();
    let related = |a: &str, b: &str| {
        a == b
            || a.strip_prefix(b).is_some_and(|r| r.starts_with('/'))
            || b.strip_prefix(a).is_some_and(|r| r.starts_with('/'))
    };
    log.results
        .iter()
        .filter(|(name, _)| !cited.iter().any(|t| related(name, t)))
        .map(|(name, outcome)| Unmapped {
            name: name.clone(),
            outcome: *outcome,
            why: suite::entry(name).map(|e| e.why),
        })
        .collect()
}

/// The tests of a required list (`--require-tests FILE`: one test a line, `go test`'s name or
/// `path/file_test.go#TestX/sub` as `upstream-tests:` write it; `#` starts a comment line) that
/// `log` does not name, in the list's order. A log that lacks a required test is not a complete
/// run of the suite, as the Kubernetes conformance program checks of a submission.
pub fn missing_required<'a>(list: &'a str, log: &GoTestLog) -> Vec<&'a str> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(test_name)
        .filter(|t| !log.results.contains_key(*t))
        .collect()
}

/// A clause's status from its deciding tests (name, and whether a failure decides it): the
/// evidence is each test's outcome (`absent` when the log does not name the test; `fail
/// (undecided)` for a failure that does not decide it).
fn judge(entries: &[(&str, bool)], log: &GoTestLog) -> (Status, Value, String) {
    if entries.is_empty() {
        return (
            Status::NotRun,
            Value::Null,
            "no test of Knative's conformance suite covers this clause (it has no upstream-tests)"
                .to_owned(),
        );
    }
    // A failure that does not decide the clause is taken as a test that did not decide it.
    let undecided: Vec<&str> = entries
        .iter()
        .filter(|(t, fail_decides)| !fail_decides && log.outcome(t) == Some(Outcome::Fail))
        .map(|(t, _)| *t)
        .collect();
    let outcomes: Vec<(&str, Option<Outcome>)> = entries
        .iter()
        .filter(|(t, _)| !undecided.contains(t))
        .map(|(t, _)| (*t, log.outcome(t)))
        .collect();
    let mut evidence: serde_json::Map<String, Value> = outcomes
        .iter()
        .map(|(t, o)| ((*t).to_owned(), json!(o.map_or("absent", Outcome::as_str))))
        .collect();
    for t in &undecided {
        evidence.insert((*t).to_owned(), json!("fail (undecided)"));
    }
    let with = |pick: &dyn Fn(Option<Outcome>) -> bool| -> String {
        outcomes
            .iter()
            .filter(|(_, o)| pick(*o))
            .map(|(t, _)| *t)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let any = |want: Outcome| outcomes.iter().any(|(_, o)| *o == Some(want));
    let (status, message) = match () {
        () if any(Outcome::Fail) => (
            Status::Fail,
            format!("failed: {}", with(&|o| o == Some(Outcome::Fail))),
        ),
        () if any(Outcome::Unfinished) => (
            Status::Error,
            format!(
                "started without a result in the log: {}",
                with(&|o| o == Some(Outcome::Unfinished))
            ),
        ),
        () if !outcomes.is_empty() && outcomes.iter().all(|(_, o)| *o == Some(Outcome::Pass)) => (
            Status::Pass,
            format!("passed: {}", with(&|o| o == Some(Outcome::Pass))),
        ),
        () => {
            let mut why = Vec::new();
            let skipped = with(&|o| o == Some(Outcome::Skip));
            if !skipped.is_empty() {
                why.push(format!("skipped (or every subtest skipped): {skipped}"));
            }
            let absent = with(&|o| o.is_none());
            if !absent.is_empty() {
                why.push(format!("not in the log: {absent}"));
            }
            if !undecided.is_empty() {
                why.push(format!(
                    "failed, which does not decide this clause: {}",
                    undecided.join(", ")
                ));
            }
            (Status::NotRun, why.join("; "))
        }
    };
    (status, Value::Object(evidence), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "=== RUN   TestA\n=== PAUSE TestA\n=== RUN   TestB\n=== CONT  TestA\n    x.go:3: --- PASS: TestNoise (0.00s)\n--- PASS: TestA (0.10s)\n    --- PASS: TestA/one (0.01s)\n    --- SKIP: TestA/two (0.00s)\n--- SKIP: TestB (0.00s)\n=== RUN   TestC\n    --- SKIP: TestC/x (0.00s)\n--- PASS: TestC (0.00s)\n=== RUN   TestD\n--- FAIL: TestE (1.00s)\nFAIL\n";

    #[test]
    fn results_and_started_tests_are_read() {
        let log = parse(LOG);
        let got: Vec<(&str, Outcome)> = log.results.iter().map(|(n, o)| (n.as_str(), *o)).collect();
        assert_eq!(
            got,
            [
                ("TestA", Outcome::Pass),
                ("TestA/one", Outcome::Pass),
                ("TestA/two", Outcome::Skip),
                ("TestB", Outcome::Skip),
                ("TestC", Outcome::Pass),
                ("TestC/x", Outcome::Skip),
                ("TestD", Outcome::Unfinished),
                ("TestE", Outcome::Fail),
            ]
        );
    }

    #[test]
    fn a_function_covers_its_subtests() {
        let log = parse(LOG);
        assert_eq!(log.outcome("TestA"), Some(Outcome::Skip));
        assert_eq!(log.outcome("TestA/one"), Some(Outcome::Pass));
        assert_eq!(log.outcome("TestC"), Some(Outcome::Skip));
        assert_eq!(log.outcome("TestNoise"), None);
        assert_eq!(log.outcome("TestD"), Some(Outcome::Unfinished));
    }

    #[test]
    fn a_clause_passes_only_when_every_test_passed() {
        let log = parse(LOG);
        let e = |v: &[&'static str]| v.iter().map(|s| (*s, true)).collect::<Vec<_>>();
        assert_eq!(judge(&e(&["TestA/one"]), &log).0, Status::Pass);
        assert_eq!(judge(&e(&["TestA/one", "TestB"]), &log).0, Status::NotRun);
        assert_eq!(judge(&e(&["TestA/one", "TestZ"]), &log).0, Status::NotRun);
        assert_eq!(judge(&e(&["TestB", "TestE"]), &log).0, Status::Fail);
        assert_eq!(judge(&e(&["TestA/one", "TestD"]), &log).0, Status::Error);
        assert_eq!(judge(&[], &log).0, Status::NotRun);
        let (_, evidence, message) = judge(&e(&["TestA/one", "TestB", "TestZ"]), &log);
        assert_eq!(
            evidence,
            json!({"TestA/one": "pass", "TestB": "skip", "TestZ": "absent"})
        );
        assert_eq!(
            message,
            "skipped (or every subtest skipped): TestB; not in the log: TestZ"
        );
        // A test whose failure does not decide the clause: its pass does, its failure leaves the
        // clause not run (never failed, never passed).
        assert_eq!(judge(&[("TestA/one", false)], &log).0, Status::Pass);
        let (status, evidence, message) = judge(&[("TestE", false)], &log);
        assert_eq!(status, Status::NotRun);
        assert_eq!(evidence, json!({"TestE": "fail (undecided)"}));
        assert!(message.contains("does not decide"), "{message}");
    }

    #[test]
    fn required_tests_are_looked_for() {
        let log = parse(LOG);
        let list = "# required\nTestA\n\nx/y_test.go#TestA/two\nTestZ\nf.go#TestY/sub\n";
        assert_eq!(missing_required(list, &log), ["TestZ", "TestY/sub"]);
    }
}
