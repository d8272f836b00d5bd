//! The three forms a run of the suite is published in, read into one [`GoTestLog`]: `go test -v`
//! text (what the vendors publish), `go test -json` (test2json's events, one JSON object a line)
//! and JUnit XML (gotestsum's `--junitfile`, sonobuoy's results). The same run in any of them
//! reads the same, so its report is the same.

use std::collections::{BTreeMap, BTreeSet};

use super::{GoTestLog, Outcome, parse};

/// Which form a log is in, told from its first character that is not blank (`{`: JSON events,
/// `<`: XML, else text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
pub enum Form {
    /// `go test -v` output.
    #[strum(serialize = "go test -v")]
    Verbose,
    /// `go test -json` output.
    #[strum(serialize = "go test -json")]
    Json,
    /// A JUnit XML report.
    #[strum(serialize = "JUnit XML")]
    Junit,
}

impl Form {
    /// What the command says the log was read as.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a log could not be read in the form it is in; the text is the diagnostic's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    /// XML that does not parse.
    #[error("not well-formed XML: {0}")]
    Xml(String),
    /// XML without a `<testcase name=…>`.
    #[error("a JUnit report with no `<testcase name=\"…\">`")]
    NoTestcase,
    /// JSON lines without a test's event.
    #[error("no `go test -json` event of a test (`{{\"Action\":\"pass\",\"Test\":…}}`)")]
    NoEvent,
    /// Text without a `=== RUN` or result line.
    #[error("no `=== RUN` or `--- PASS/FAIL/SKIP:` line")]
    NoResultLine,
}

/// Reads a log in whichever of the three forms it is.
pub fn read(text: &str) -> Result<(Form, GoTestLog), FormError> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    let (form, log) = if start.starts_with('<') {
        (Form::Junit, parse_junit(text)?)
    } else if start.starts_with('{') {
        (Form::Json, parse_json(text))
    } else {
        (Form::Verbose, parse(text))
    };
    if log.results.is_empty() {
        return Err(match form {
            Form::Junit => FormError::NoTestcase,
            Form::Json => FormError::NoEvent,
            Form::Verbose => FormError::NoResultLine,
        });
    }
    Ok((form, log))
}

/// One event of test2json, the fields read.
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Test")]
    test: Option<String>,
}

/// `go test -json`: a test's `run` event starts it, its `pass`, `fail` or `skip` event is its
/// result (the worse of two, as in the text); events without `Test` are the package's, and lines
/// that are not JSON (a build's output) say nothing about a test.
pub fn parse_json(text: &str) -> GoTestLog {
    let mut finished: BTreeMap<String, Outcome> = BTreeMap::new();
    let mut started: BTreeSet<String> = BTreeSet::new();
    for line in text.lines() {
        let Ok(e) = serde_json::from_str::<Event>(line.trim()) else {
            continue;
        };
        let Some(test) = e.test else { continue };
        let outcome = match e.action.as_str() {
            "run" => {
                started.insert(test);
                continue;
            }
            "pass" => Outcome::Pass,
            "skip" => Outcome::Skip,
            "fail" => Outcome::Fail,
            _ => continue,
        };
        finished
            .entry(test)
            .and_modify(|o| *o = (*o).max(outcome))
            .or_insert(outcome);
    }
    for name in started {
        finished.entry(name).or_insert(Outcome::Unfinished);
    }
    GoTestLog { results: finished }
}

/// JUnit XML: each `<testcase name=…>` is a result, failed with a `<failure>` or `<error>` child,
/// skipped with a `<skipped>` one, else passed (the worse of two of one name). gotestsum names a
/// subtest `TestX/sub`, as `go test` does.
pub fn parse_junit(text: &str) -> Result<GoTestLog, FormError> {
    let doc = roxmltree::Document::parse(text.trim_start_matches('\u{feff}'))
        .map_err(|e| FormError::Xml(e.to_string()))?;
    let mut results: BTreeMap<String, Outcome> = BTreeMap::new();
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let Some(name) = case.attribute("name").filter(|n| !n.is_empty()) else {
            continue;
        };
        let child = |tag: &str| case.children().any(|c| c.has_tag_name(tag));
        let outcome = if child("failure") || child("error") {
            Outcome::Fail
        } else if child("skipped") {
            Outcome::Skip
        } else {
            Outcome::Pass
        };
        results
            .entry(name.to_owned())
            .and_modify(|o| *o = (*o).max(outcome))
            .or_insert(outcome);
    }
    Ok(GoTestLog { results })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_told_and_read() {
        let v = "=== RUN   TestA\n--- PASS: TestA (0.10s)\n    --- SKIP: TestA/one (0.00s)\n=== RUN   TestB\n";
        let json = "{\"Action\":\"run\",\"Test\":\"TestA\"}\n{\"Action\":\"skip\",\"Test\":\"TestA/one\"}\nnot json\n{\"Action\":\"pass\",\"Test\":\"TestA\",\"Elapsed\":0.1}\n{\"Action\":\"run\",\"Test\":\"TestB\"}\n{\"Action\":\"output\",\"Test\":\"TestB\",\"Output\":\"--- FAIL: TestB\\n\"}\n{\"Action\":\"pass\"}\n";
        let (form, from_v) = read(v).unwrap();
        assert_eq!(form, Form::Verbose);
        let (form, from_json) = read(json).unwrap();
        assert_eq!(form, Form::Json);
        assert_eq!(from_v, from_json);
        let xml = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"p\"><testcase classname=\"p\" name=\"TestA\"/><testcase classname=\"p\" name=\"TestA/one\"><skipped message=\"x\"/></testcase><testcase name=\"TestB\"><failure message=\"Failed\">out</failure></testcase><testcase name=\"TestC\"><error/></testcase></testsuite></testsuites>\n";
        let (form, from_xml) = read(xml).unwrap();
        assert_eq!(form, Form::Junit);
        let got: Vec<(&str, Outcome)> = from_xml
            .results
            .iter()
            .map(|(n, o)| (n.as_str(), *o))
            .collect();
        assert_eq!(
            got,
            [
                ("TestA", Outcome::Pass),
                ("TestA/one", Outcome::Skip),
                ("TestB", Outcome::Fail),
                ("TestC", Outcome::Fail)
            ]
        );
        assert_eq!(read("hello\n"), Err(FormError::NoResultLine));
        assert_eq!(read("{\"Action\":\"pass\"}\n"), Err(FormError::NoEvent));
        assert_eq!(read("<testsuites/>"), Err(FormError::NoTestcase));
        assert!(matches!(read("<a>"), Err(FormError::Xml(_))));
    }
}
