//! A vendor's results as a column: the `go test -v` output of Knative's conformance suites, read
//! test by test and mapped to the contract's clauses through their `upstream-tests:` entries, into
//! the same `kcontract-run/1` report a local run writes (`kcontract platform import-log`).
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
    pub(crate) fn as_str(self) -> &'static str {
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

/// The entries of the report for `spec`'s testable clauses (the clauses a local run reports, in
/// the same order), judged from `log`.
pub fn clause_results(spec: &Spec, log: &GoTestLog) -> Vec<ClauseResult> {
    spec.clauses
        .iter()
        .filter(|c| !c.verify.is_untestable())
        .map(|c| {
            let (status, evidence, message) = judge(&c.upstream_tests, log);
            ClauseResult {
                id: c.id.clone(),
                level: c.level.as_str().to_owned(),
                stamp: c.stamp.clone(),
                status,
                check: (!c.upstream_tests.is_empty()).then(|| CHECK.to_owned()),
                evidence,
                message,
                route: Some(super::routes::Route::VendorLog),
            }
        })
        .collect()
}

/// A clause's status from its `upstream-tests:` entries: the evidence is each entry's outcome
/// (`absent` when the log does not name the test).
fn judge(entries: &[String], log: &GoTestLog) -> (Status, Value, String) {
    if entries.is_empty() {
        return (
            Status::NotRun,
            Value::Null,
            "no test of Knative's conformance suite covers this clause (it has no upstream-tests)"
                .to_owned(),
        );
    }
    let outcomes: Vec<(&str, Option<Outcome>)> = entries
        .iter()
        .map(|e| (test_name(e), log.outcome(test_name(e))))
        .collect();
    let evidence: serde_json::Map<String, Value> = outcomes
        .iter()
        .map(|(t, o)| ((*t).to_owned(), json!(o.map_or("absent", Outcome::as_str))))
        .collect();
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
        () if outcomes.iter().all(|(_, o)| *o == Some(Outcome::Pass)) => (
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
        let e = |v: &[&str]| {
            v.iter()
                .map(|s| format!("f_test.go#{s}"))
                .collect::<Vec<_>>()
        };
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
    }
}
