//! Test results: what a test run said about each test.
//!
//! Two inputs are read, told apart by their first non-blank character (`<` is XML):
//!
//! - **JUnit XML** as cargo-nextest writes it (`[profile.ci.junit]`): one `<testcase name=…
//!   classname=…>` per test, `classname` being nextest's binary id (`kcontract::model_props`, or
//!   `kcontract` for the library); a `<failure>` or `<error>` child means failed, `<skipped>`
//!   means skipped, none means passed (a test that passed on retry, with only `<flakyFailure>`
//!   children, passed). When `classname` is missing, the enclosing `<testsuite name>` is used.
//! - **libtest's plain output** (`cargo test 2>&1 | tee results.txt`, the default "pretty" format
//!   with output captured): each `Running tests/x.rs (…)` / `Running unittests src/lib.rs (…)`
//!   line opens a binary, each `test NAME ... ok|FAILED|ignored` line is a result. The package is
//!   not printed there, so these results match tests by binary and name only. `failures:`
//!   sections (captured output) and doc-tests are skipped.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use crate::annotations::{Lang, Target, target_of};
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use kcontract_spec::read_source;

/// What a test run said about one test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Outcome {
    /// Ran and passed (in JUnit, also a test that passed on retry).
    Passed,
    /// Did not run: `<skipped>` in JUnit, `ignored` in libtest output.
    Skipped,
    /// Failed (in JUnit, a `<failure>` or `<error>`).
    Failed,
}

impl Outcome {
    /// The lowercase name used in JSON and on the site (`passed`).
    pub(crate) fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One test's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    /// `None` when the input does not say (libtest output).
    pub package: Option<String>,
    /// The test binary (cargo target) the test is in.
    pub target: Target,
    /// Module path and function name, `::`-joined.
    pub name: String,
    /// What the run said.
    pub outcome: Outcome,
    /// Why it failed: JUnit's `<failure message>`/`<error message>`, the element's text and the
    /// test's `<system-out>`/`<system-err>`; libtest's `---- name stdout ----` section. Capped at
    /// [`MESSAGE_MAX`] bytes. `None` for a test that did not fail.
    pub message: Option<String>,
    /// The test's name and its qualifier as another language's runner reports them (a JUnit
    /// `name` and `classname`; a Go log's `TestX/sub` and nothing): how annotated tests of other
    /// languages find their results ([`foreign_keys`]). `None` in libtest output.
    pub named: Option<(String, String)>,
}

/// The most of a failure message kept (the start, cut at a character boundary, with a note).
pub(crate) const MESSAGE_MAX: usize = 4000;

/// `text` cut to [`MESSAGE_MAX`] bytes, trimmed; `None` when empty.
fn capped(text: &str) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if t.len() <= MESSAGE_MAX {
        return Some(t.to_string());
    }
    let mut end = MESSAGE_MAX;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!(
        "{}\n… ({} more bytes in the results file)",
        &t[..end],
        t.len() - end
    ))
}

/// A failure's text as a reader wants it: what the test said, once. Each part is (text, whether
/// it is the test harness's whole output, as JUnit's system-out is): of such a part libtest's own
/// lines (`running 1 test`, `test x ... FAILED`, `failures:` and the list under it, `test result:
/// …`) are dropped; of every part the backtrace hint and any backtrace are dropped, and `thread 'x' (pid)
/// panicked at` is shortened to `panicked at` (the test's name is shown beside it); then a part
/// whose text another part already holds (JUnit's message is the first line of the failure's
/// text, which system-err repeats) is left out. Capped at [`MESSAGE_MAX`] bytes.
pub(crate) fn clean_message(parts: &[(&str, bool)]) -> Option<String> {
    let mut kept: Vec<String> = Vec::new();
    for (part, harness) in parts {
        let c = clean_part(part, *harness);
        if c.is_empty() {
            continue;
        }
        if kept.iter().any(|k| k.contains(c.as_str())) {
            continue;
        }
        kept.retain(|k| !c.contains(k.as_str()));
        kept.push(c);
    }
    capped(&kept.join("\n"))
}

fn clean_part(text: &str, harness: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_list = false;
    let mut in_backtrace = false;
    for line in text.lines() {
        let l = line.trim_end();
        let t = l.trim_start();
        if in_backtrace {
            let frame = t
                .split_once(": ")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()))
                || t.starts_with("at ");
            if frame {
                continue;
            }
            in_backtrace = false;
        }
        if in_list {
            if l.starts_with("    ") && !t.contains(' ') && !t.is_empty() {
                continue;
            }
            in_list = false;
        }
        if harness && l == "failures:" {
            in_list = true;
            continue;
        }
        if t == "stack backtrace:" {
            in_backtrace = true;
            continue;
        }
        let harness_line = harness
            && ((t.starts_with("running ") && (t.ends_with(" test") || t.ends_with(" tests")))
                || (t.starts_with("test ")
                    && (t.ends_with(" ... FAILED") || t.ends_with(" ... ok")))
                || t.starts_with("test result: "));
        let boilerplate = harness_line
            || t.starts_with("note: run with `RUST_BACKTRACE=")
            || t.starts_with("note: Some details are omitted");
        if boilerplate {
            continue;
        }
        let l = match l
            .strip_prefix("thread '")
            .and_then(|r| r.split_once(" panicked at "))
        {
            Some((_, at)) => format!("panicked at {at}"),
            None => l.to_string(),
        };
        out.push(l);
    }
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    // The message attribute is the panic line without its final colon.
    out.join("\n")
}

/// Every report of one test: (package, if known; outcome; failure message).
type Reports = Vec<(Option<String>, Outcome, Option<String>)>;

/// All results read, keyed by (target, name). A test reported more than once (two result files,
/// or the same name in two packages) keeps every report; the worst outcome wins.
#[derive(Clone, Debug, Default)]
pub struct Results {
    /// The results files read, in order, `/`-separated as given.
    pub files: Vec<String>,
    by_test: BTreeMap<(Target, String), Reports>,
    /// Every report by the test's name as a runner of another language gives it (a JUnit
    /// `<testcase name>`, a Go log's `TestX/sub`), each with its qualifier (the JUnit `classname`,
    /// empty when the report has none): how tests of other languages find theirs
    /// ([`foreign_keys`]).
    by_name: BTreeMap<String, Reports>,
}

impl Results {
    /// Record one report (kept beside any earlier report of the same test).
    pub(crate) fn add(&mut self, r: TestResult) {
        if let Some((name, qualifier)) = &r.named {
            self.add_named(name, qualifier, r.outcome, r.message.clone());
        }
        if matches!(r.target, Target::Foreign(_)) {
            return;
        }
        self.by_test
            .entry((r.target, r.name))
            .or_default()
            .push((r.package, r.outcome, r.message));
    }

    /// Record one report under a name of another language's runner, with its qualifier.
    pub(crate) fn add_named(
        &mut self,
        name: &str,
        qualifier: &str,
        outcome: Outcome,
        message: Option<String>,
    ) {
        self.by_name.entry(name.to_string()).or_default().push((
            Some(qualifier.to_string()),
            outcome,
            message,
        ));
    }

    /// The reports of a test of another language (`lang`, named `name` as the scan names it).
    fn foreign(&self, lang: Lang, name: &str) -> Vec<&(Option<String>, Outcome, Option<String>)> {
        let mut out = Vec::new();
        for (leaf, qualifier) in foreign_keys(lang, name) {
            let Some(reports) = self.by_name.get(&leaf) else {
                continue;
            };
            out.extend(reports.iter().filter(|(q, _, _)| {
                let q = q.as_deref().unwrap_or("");
                qualifier.is_empty()
                    || q.is_empty()
                    || dotted_suffix(q, &qualifier)
                    || dotted_suffix(&qualifier, q)
            }));
        }
        out
    }

    /// Every test reported, as `binary name` (just the name when the package is not known),
    /// in order.
    pub fn names(&self) -> Vec<String> {
        self.by_test
            .iter()
            .map(
                |((t, n), reports)| match reports.first().and_then(|r| r.0.as_deref()) {
                    Some(p) => format!("{} {n}", t.binary_id(p)),
                    None => n.clone(),
                },
            )
            // A Go log's tests are only in `by_name`.
            .chain(
                self.by_name
                    .iter()
                    .filter(|(_, reports)| reports.iter().all(|(q, _, _)| q.as_deref() == Some("")))
                    .map(|(n, _)| n.clone()),
            )
            .collect()
    }

    /// No report recorded.
    pub fn is_empty(&self) -> bool {
        self.by_test.is_empty() && self.by_name.is_empty()
    }

    /// Do these results name test `t` (in its package, when both say one)? What K0606 asks of
    /// every annotated test of the crate, and the staleness gate of the tests' files.
    pub fn reports_on(&self, t: &crate::annotations::TestFn) -> bool {
        t.target.as_ref().is_some_and(|target| {
            self.outcome(t.package.as_deref(), target, &t.path)
                .is_some()
        })
    }

    /// The outcome of a test: results naming another package do not count.
    pub(crate) fn outcome(
        &self,
        package: Option<&str>,
        target: &Target,
        name: &str,
    ) -> Option<Outcome> {
        if let Target::Foreign(lang) = target {
            return self.foreign(*lang, name).iter().map(|(_, o, _)| *o).max();
        }
        self.by_test
            .get(&(target.clone(), name.to_string()))?
            .iter()
            .filter(|(p, _, _)| p.is_none() || package.is_none() || p.as_deref() == package)
            .map(|(_, o, _)| *o)
            .max()
    }

    /// Why a test failed: the message of its first failed report (see [`Self::outcome`] for
    /// which reports count), or `None`.
    pub(crate) fn message(
        &self,
        package: Option<&str>,
        target: &Target,
        name: &str,
    ) -> Option<String> {
        if let Target::Foreign(lang) = target {
            return self
                .foreign(*lang, name)
                .into_iter()
                .find(|(_, o, m)| *o == Outcome::Failed && m.is_some())
                .and_then(|(_, _, m)| m.clone());
        }
        self.by_test
            .get(&(target.clone(), name.to_string()))?
            .iter()
            .filter(|(p, _, _)| p.is_none() || package.is_none() || p.as_deref() == package)
            .find(|(_, o, m)| *o == Outcome::Failed && m.is_some())
            .and_then(|(_, _, m)| m.clone())
    }
}

/// The names a test of another language may have in a report, each with the qualifier a report's
/// `classname` must agree with (empty: any). `name` is the scan's name of the test:
///
/// - Go, `TestX/sub`: the same in `go test -v`/`-json` logs and gotestsum's JUnit (whose
///   `classname`, the package's import path, is not checked: the scan does not know it).
/// - Python, pytest's node id `dir/test_x.py::TestC::test_y`: pytest's JUnit names it
///   `test_y` with `classname="dir.test_x.TestC"`; the folders above pytest's root directory
///   are not in it, so either qualifier may be a `.`-suffix of the other.
/// - JavaScript, `group > test`: Vitest's JUnit `name`; Jest's (jest-junit) and Mocha's
///   (mocha-junit-reporter) `group test`.
/// - C and C++, `Suite.Name`: GoogleTest's XML `name="Name"` with `classname="Suite"`.
///   Criterion's XML has no `classname`: its `<testsuite name>` is taken instead.
pub(crate) fn foreign_keys(lang: Lang, name: &str) -> Vec<(String, String)> {
    match lang {
        Lang::Python => {
            let mut parts: Vec<&str> = name.split("::").collect();
            let leaf = parts.pop().unwrap_or_default().to_string();
            let mut q: Vec<String> = Vec::new();
            if let Some((file, classes)) = parts.split_first() {
                let module = file.strip_suffix(".py").unwrap_or(file);
                q.push(module.replace(['/', '\\'], "."));
                q.extend(classes.iter().map(|c| c.to_string()));
            }
            vec![(leaf, q.join("."))]
        }
        Lang::JavaScript => {
            let spaced = name.split(" > ").collect::<Vec<_>>().join(" ");
            let mut keys = vec![(name.to_string(), String::new())];
            if spaced != name {
                keys.push((spaced, String::new()));
            }
            keys
        }
        // GoogleTest's XML: `classname="Suite" name="Name"`; Criterion's: the suite's name.
        Lang::C => match name.split_once('.') {
            Some((suite, test)) => vec![(test.to_string(), suite.to_string())],
            None => vec![(name.to_string(), String::new())],
        },
        // Maven's and Gradle's XML: `classname="com.example.PortsTest"`, `name="env"` (Gradle
        // with JUnit 5: `name="env()"`).
        Lang::Java => match name.rsplit_once('.') {
            Some((class, method)) => vec![
                (method.to_string(), class.to_string()),
                (format!("{method}()"), class.to_string()),
            ],
            None => vec![(name.to_string(), String::new())],
        },
        Lang::Go | Lang::Rust => vec![(name.to_string(), String::new())],
    }
}

/// `short` is `long`, or its end after a `.`.
fn dotted_suffix(long: &str, short: &str) -> bool {
    long == short
        || long
            .strip_suffix(short)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The crates a libtest output names, with where: the library's unit tests are run from an
/// executable named after the crate (`Running unittests src/lib.rs (target/debug/deps/NAME-hash)`)
/// and its doc-tests under its name (`Doc-tests NAME`). Names as rustc spells them (`-` as `_`).
pub(crate) fn libtest_crates(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let start = at + (line.len() - line.trim_start().len());
        let range = start..start + t.len();
        at += line.len();
        let name = if let Some(rest) = t.strip_prefix("Running unittests src/lib.rs (") {
            Path::new(rest.trim_end_matches(')'))
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.rsplit_once('-'))
                .map(|(n, _)| n.to_string())
        } else {
            t.strip_prefix("Doc-tests ").map(str::to_string)
        };
        if let Some(n) = name.map(|n| n.replace('-', "_"))
            && !n.is_empty()
            && !out.iter().any(|(m, _)| *m == n)
        {
            out.push((n, range));
        }
    }
    out
}

/// Read one results file into `results`. Problems are error diagnostics; `false` means the file
/// could not be used. `packages` are the packages of the annotated tests (when known): a libtest
/// output naming only other crates is of another project (its `contract` binary has the same
/// test names when both crates were scaffolded from one contract), an error (K0607).
pub fn read(
    path: &Path,
    results: &mut Results,
    sources: &mut SourceMap,
    diags: &mut Vec<Diagnostic>,
    packages: &std::collections::BTreeSet<String>,
) -> bool {
    let Some(fid) = read_source(path, sources, diags) else {
        return false;
    };
    let text = &sources.get(fid).text;
    // A byte order mark (Windows tools write one) is not text: XML may follow it.
    let parsed = if text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
    {
        parse_junit(text, fid)
    } else if let Some(go) = go_log(text) {
        Ok(go)
    } else {
        let ours: std::collections::BTreeSet<String> =
            packages.iter().map(|p| p.replace('-', "_")).collect();
        let named = libtest_crates(text);
        if !ours.is_empty() && !named.is_empty() && !named.iter().any(|(n, _)| ours.contains(n)) {
            let (first, range) = &named[0];
            let list = |v: Vec<&str>| {
                v.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            diags.push(
                Diagnostic::error(
                    "K0607",
                    format!("these results are of another crate: {}", list(named.iter().map(|(n, _)| n.as_str()).collect())),
                )
                .at(Span::new(fid, range.clone()), format!("the crate `{first}` was run here"))
                .help(format!(
                    "the annotated tests here are of {}; run `cargo test` in that crate (or pass its --manifest-path) and give its output",
                    list(ours.iter().map(String::as_str).collect())
                )),
            );
            return false;
        }
        parse_libtest(text, fid)
    };
    match parsed {
        Ok(list) => {
            for r in list {
                results.add(r);
            }
            results
                .files
                .push(path.to_string_lossy().replace('\\', "/"));
            true
        }
        Err(d) => {
            diags.push(d);
            false
        }
    }
}

/// The most attributes one element of a results file may have. JUnit's elements have a handful;
/// roxmltree compares each attribute with the element's earlier ones, so one test case with
/// 100,000 attributes took 39 s to read. Past this, the file is not a test report.
const MAX_ATTRIBUTES: usize = 256;

/// Where the first start tag with more than [`MAX_ATTRIBUTES`] attributes begins, if one does: one
/// pass over the text, skipping comments, CDATA, processing instructions, declarations, end tags
/// and quoted values.
fn crowded_element(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let skip_to = |from: usize, end: &str| {
        text[from..]
            .find(end)
            .map_or(b.len(), |i| from + i + end.len())
    };
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let lt = i + off;
        let rest = &text[lt..];
        if rest.starts_with("<!--") {
            i = skip_to(lt + 4, "-->");
        } else if rest.starts_with("<![CDATA[") {
            i = skip_to(lt + 9, "]]>");
        } else if rest.starts_with("<?") {
            i = skip_to(lt + 2, "?>");
        } else if rest.starts_with("<!") || rest.starts_with("</") {
            i = skip_to(lt + 2, ">");
        } else {
            let (mut j, mut count, mut quote) = (lt + 1, 0, None);
            while j < b.len() {
                match (quote, b[j]) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, c @ (b'"' | b'\'')) => quote = Some(c),
                    (None, b'=') => count += 1,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if count > MAX_ATTRIBUTES {
                return Some(lt);
            }
            i = j;
        }
    }
    None
}

/// JUnit XML (cargo-nextest's shape; see the module documentation).
pub fn parse_junit(text: &str, fid: FileId) -> Result<Vec<TestResult>, Diagnostic> {
    if let Some(at) = crowded_element(text) {
        return Err(Diagnostic::error(
            "K0602",
            format!("an element with more than {MAX_ATTRIBUTES} attributes is not part of a JUnit report"),
        )
        .at(Span::new(fid, at..char_end(text, line_end(text, at).min(at + 80))), "this element")
        .help("pass the JUnit XML that cargo-nextest wrote (e.g. target/nextest/ci/junit.xml)"));
    }
    let opts = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, opts).map_err(|e| {
        let pos = e.pos();
        let off = offset_of(text, pos.row as usize, pos.col as usize);
        Diagnostic::error("K0601", "the results file is not well-formed XML")
            .at(Span::new(fid, off..line_end(text, off).max(off)), e.to_string())
            .help("pass the JUnit XML that cargo-nextest wrote (e.g. target/nextest/ci/junit.xml), or libtest's plain `cargo test` output")
    })?;
    let root = doc.root_element();
    let span_of = |n: roxmltree::Node| {
        let r = n.range();
        Span::new(fid, r.start..line_end(text, r.start).min(r.end))
    };
    if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
        return Err(Diagnostic::error(
            "K0602",
            format!(
                "`<{}>` is not a JUnit report: expected `<testsuites>` or `<testsuite>`",
                root.tag_name().name()
            ),
        )
        .at(span_of(root), "the root element")
        .help("pass the JUnit XML that cargo-nextest wrote (e.g. target/nextest/ci/junit.xml)"));
    }
    let mut out = Vec::new();
    for case in root
        .descendants()
        .filter(|n| n.is_element() && n.has_tag_name("testcase"))
    {
        let Some(name) = case.attribute("name").filter(|n| !n.is_empty()) else {
            return Err(Diagnostic::error("K0603", "a `<testcase>` has no `name`")
                .at(span_of(case), "this test case")
                .help("every JUnit test case needs a name; was the file edited or truncated?"));
        };
        let class = case.attribute("classname").or_else(|| {
            case.ancestors()
                .find(|a| a.has_tag_name("testsuite"))
                .and_then(|s| s.attribute("name"))
        });
        let Some(class) = class.filter(|c| !c.is_empty()) else {
            return Err(Diagnostic::error(
                "K0603",
                format!("the `<testcase>` `{name}` names no test binary"),
            )
            .at(
                span_of(case),
                "no `classname`, and no enclosing `<testsuite name>`",
            )
            .help(
                "cargo-nextest writes the binary id (e.g. `kcontract::model_props`) as classname",
            ));
        };
        let (package, target) = Target::parse_binary_id(class);
        let child = |tag: &str| case.children().any(|c| c.has_tag_name(tag));
        let outcome = if child("failure") || child("error") {
            Outcome::Failed
        } else if child("skipped")
            || matches!(case.attribute("status"), Some("notrun" | "skipped"))
            || case.attribute("result") == Some("skipped")
        {
            // GoogleTest writes a disabled test as `status="notrun"` with no child.
            Outcome::Skipped
        } else {
            Outcome::Passed
        };
        let message = if outcome == Outcome::Failed {
            let mut parts: Vec<(String, bool)> = Vec::new();
            for c in case.children().filter(|c| c.is_element()) {
                let tag = c.tag_name().name();
                if matches!(tag, "failure" | "error") {
                    parts.extend(c.attribute("message").map(|m| (m.to_string(), false)));
                }
                if matches!(tag, "failure" | "error" | "system-out" | "system-err")
                    && let Some(t) = c.text()
                {
                    parts.push((t.to_string(), tag == "system-out"));
                }
            }
            let parts: Vec<(&str, bool)> = parts.iter().map(|(t, h)| (t.as_str(), *h)).collect();
            clean_message(&parts)
        } else {
            None
        };
        out.push(TestResult {
            package: Some(package),
            target,
            name: name.to_string(),
            outcome,
            message,
            named: Some((name.to_string(), class.to_string())),
        });
    }
    Ok(out)
}

/// A Go test log (`go test -json` events, or `go test -v` text with its `=== RUN` and `--- PASS:`
/// lines), read by the reader of vendor logs (`kcontract_platform::import_log`), each test by its
/// name (`TestX/sub`); `None` when the text is neither. A test that started and has no result (the
/// run was killed) failed.
fn go_log(text: &str) -> Option<Vec<TestResult>> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    let go_lines = text.lines().map(str::trim_start).any(|l| {
        l.starts_with("=== RUN")
            || l.starts_with("--- PASS:")
            || l.starts_with("--- FAIL:")
            || l.starts_with("--- SKIP:")
    });
    if !start.starts_with('{') && !go_lines {
        return None;
    }
    let (_, log) = kcontract_platform::import_log::read(text).ok()?;
    use kcontract_platform::import_log::Outcome as Go;
    Some(
        log.results
            .into_iter()
            .map(|(name, o)| {
                let (outcome, message) = match o {
                    Go::Pass => (Outcome::Passed, None),
                    Go::Skip => (Outcome::Skipped, None),
                    Go::Fail => (Outcome::Failed, None),
                    Go::Unfinished => (
                        Outcome::Failed,
                        Some(
                            "started and never finished: the log ends before its result"
                                .to_string(),
                        ),
                    ),
                };
                TestResult {
                    package: None,
                    target: Target::Foreign(Lang::Go),
                    named: Some((name.clone(), String::new())),
                    name,
                    outcome,
                    message,
                }
            })
            .collect(),
    )
}

/// libtest's plain output (see the module documentation).
pub fn parse_libtest(text: &str, fid: FileId) -> Result<Vec<TestResult>, Diagnostic> {
    let mut out: Vec<TestResult> = Vec::new();
    let mut current: Option<Target> = None;
    let mut in_failures = false;
    let mut saw_binary = false;
    // In the `failures:` section: the test whose `---- name stdout ----` text is being read, and
    // the index in `out` where this binary's results start.
    let mut section: Option<(String, String)> = None;
    // The index in `out` of each failed test of the current binary, by name (the first of a name),
    // so that each `---- name stdout ----` section finds its test at once, not by a search through
    // the binary's results (quadratic with many failures).
    let mut failed: HashMap<String, usize> = HashMap::new();
    let flush = |section: &mut Option<(String, String)>,
                 out: &mut Vec<TestResult>,
                 failed: &HashMap<String, usize>| {
        if let Some((name, text)) = section.take()
            && let Some(&i) = failed.get(&name)
        {
            out[i].message = clean_message(&[(&text, false)]);
        }
    };
    for line in text.lines() {
        let l = line.trim_end_matches('\r');
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("Running ") {
            flush(&mut section, &mut out, &failed);
            current = running_target(rest);
            failed.clear();
            saw_binary = true;
            in_failures = false;
            continue;
        }
        if t.starts_with("Doc-tests ") {
            current = None;
            continue;
        }
        if l == "failures:" {
            flush(&mut section, &mut out, &failed);
            in_failures = true;
            continue;
        }
        if l.starts_with("test result: ") {
            flush(&mut section, &mut out, &failed);
            in_failures = false;
            continue;
        }
        if in_failures {
            if let Some(name) = l.strip_prefix("---- ").and_then(|r| {
                r.strip_suffix(" stdout ----")
                    .or(r.strip_suffix(" stderr ----"))
            }) {
                flush(&mut section, &mut out, &failed);
                section = Some((name.to_string(), String::new()));
            } else if let Some((_, text)) = &mut section {
                text.push_str(l);
                text.push('\n');
            }
            continue;
        }
        let Some(rest) = l.strip_prefix("test ") else {
            continue;
        };
        let Some((name, result)) = rest.split_once(" ... ") else {
            continue;
        };
        let outcome = match result.trim_end() {
            "ok" => Outcome::Passed,
            "FAILED" => Outcome::Failed,
            r if r == "ignored" || r.starts_with("ignored, ") => Outcome::Skipped,
            _ => continue,
        };
        if let Some(target) = &current {
            if outcome == Outcome::Failed {
                failed.entry(name.trim().to_string()).or_insert(out.len());
            }
            out.push(TestResult {
                package: None,
                target: target.clone(),
                name: name.trim().to_string(),
                outcome,
                message: None,
                named: None,
            });
        }
    }
    flush(&mut section, &mut out, &failed);
    if !saw_binary {
        let first = text.len() - text.trim_start().len();
        return Err(Diagnostic::error(
            "K0604",
            "the results file is neither JUnit XML nor libtest output",
        )
        .at(
            Span::new(fid, first..line_end(text, first)),
            "no `Running …` line found",
        )
        .help("pass cargo-nextest's JUnit XML, or the full output of `cargo test` (stdout and stderr: `cargo test 2>&1 | tee FILE`)"));
    }
    Ok(out)
}

/// `tests/x.rs (target/debug/deps/x-…)` or `unittests src/lib.rs (…)` → the binary.
fn running_target(rest: &str) -> Option<Target> {
    let rest = rest.strip_prefix("unittests ").unwrap_or(rest);
    let (src, exe) = match rest.rsplit_once(" (") {
        Some((s, e)) => (s.trim(), e.trim_end_matches(')')),
        None => (rest.trim(), ""),
    };
    let parts: Vec<String> = src
        .replace('\\', "/")
        .split('/')
        .map(str::to_string)
        .collect();
    // For src/main.rs the binary's name is the executable's, minus Cargo's `-hash` suffix.
    let exe_name = Path::new(exe)
        .file_stem()
        .and_then(|s| s.to_str())
        .map(|s| s.rsplit_once('-').map_or(s, |(n, _)| n).to_string());
    let has_lib = src.ends_with("lib.rs");
    target_of(&parts, has_lib, exe_name.as_deref()).0
}

fn offset_of(text: &str, row: usize, col: usize) -> usize {
    let start = text
        .split_inclusive('\n')
        .take(row.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let line = &text[start..line_end(text, start)];
    start
        + line
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i)
}

/// `at`, or the end of the character it falls inside (a span must not cut a character).
fn char_end(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn line_end(text: &str, from: usize) -> usize {
    let from = from.min(text.len());
    text[from..].find('\n').map_or(text.len(), |i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fid() -> FileId {
        FileId(0)
    }

    #[test]
    fn nextest_junit() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="4">
  <testsuite name="pkg::model_props" tests="2">
    <testcase name="a" classname="pkg::model_props" time="0.1"/>
    <testcase name="m::b" classname="pkg::model_props"><failure message="boom">x</failure></testcase>
  </testsuite>
  <testsuite name="pkg">
    <testcase name="spec::tests::c" classname="pkg"><flakyFailure/></testcase>
    <testcase name="d"><skipped/></testcase>
  </testsuite>
</testsuites>"#;
        let r = parse_junit(xml, fid()).unwrap();
        let got: Vec<(Option<&str>, &Target, &str, Outcome)> = r
            .iter()
            .map(|t| (t.package.as_deref(), &t.target, t.name.as_str(), t.outcome))
            .collect();
        let test = Target::Test("model_props".into());
        assert_eq!(
            got,
            [
                (Some("pkg"), &test, "a", Outcome::Passed),
                (Some("pkg"), &test, "m::b", Outcome::Failed),
                (Some("pkg"), &Target::Lib, "spec::tests::c", Outcome::Passed),
                (Some("pkg"), &Target::Lib, "d", Outcome::Skipped),
            ]
        );
        assert_eq!(r[1].message.as_deref(), Some("boom\nx"));
        // What cargo-nextest writes for a panic: the panic once, without libtest's lines.
        let panic = "thread 'fails' (2366) panicked at tests/checks.rs:14:5:\nassertion failed: on purpose\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace";
        let out = "\nrunning 1 test\ntest fails ... FAILED\n\nfailures:\n\nfailures:\n    fails\n\ntest result: FAILED. 0 passed; 1 failed\n";
        let bt = "thread 'fails' panicked at tests/checks.rs:14:5:\nassertion failed: on purpose\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/x/panicking.rs:1:2\n   1: checks::fails\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.";
        assert_eq!(
            clean_message(&[
                (
                    "thread 'fails' (2366) panicked at tests/checks.rs:14:5",
                    false
                ),
                (panic, false),
                (out, true),
                (panic, false),
                (bt, false)
            ])
            .as_deref(),
            Some("panicked at tests/checks.rs:14:5:\nassertion failed: on purpose")
        );
        assert_eq!(r[0].message, None);
    }

    #[test]
    fn libtest_output() {
        let text = "   Compiling x v0.1.0\n     Running unittests src/lib.rs (target/debug/deps/pkg-0123abcd)\n\nrunning 2 tests\ntest spec::tests::a ... ok\ntest spec::tests::b ... ignored, slow\n\ntest result: ok. 1 passed\n\n     Running unittests src/main.rs (target/debug/deps/tool-99)\ntest main_test ... ok\n     Running tests/cli.rs (target/debug/deps/cli-deadbeef)\n\nrunning 2 tests\ntest c ... FAILED\ntest d has been running for over 60 seconds\ntest d ... ok\n\nfailures:\n\n---- c stdout ----\ntest fake ... ok\n\nfailures:\n    c\n\ntest result: FAILED. 1 passed; 1 failed\n   Doc-tests pkg\ntest src/lib.rs - x (line 3) ... ok\n";
        let r = parse_libtest(text, fid()).unwrap();
        let got: Vec<(&Target, &str, Outcome)> = r
            .iter()
            .map(|t| (&t.target, t.name.as_str(), t.outcome))
            .collect();
        let cli = Target::Test("cli".into());
        assert_eq!(
            r.iter()
                .filter_map(|t| t.message.as_deref())
                .collect::<Vec<_>>(),
            ["test fake ... ok"],
            "the failure's captured output, and only the failed test's"
        );
        assert_eq!(
            got,
            [
                (&Target::Lib, "spec::tests::a", Outcome::Passed),
                (&Target::Lib, "spec::tests::b", Outcome::Skipped),
                (&Target::Bin("tool".into()), "main_test", Outcome::Passed),
                (&cli, "c", Outcome::Failed),
                (&cli, "d", Outcome::Passed),
            ]
        );
    }

    #[test]
    fn bad_inputs_are_diagnosed() {
        let e = parse_junit("<testsuites><testcase name='a'></testsuites>", fid()).unwrap_err();
        assert_eq!(e.code, "K0601");
        let e = parse_junit("<html/>", fid()).unwrap_err();
        assert_eq!(e.code, "K0602");
        let e =
            parse_junit("<testsuites><testcase classname='p'/></testsuites>", fid()).unwrap_err();
        assert_eq!(e.code, "K0603");
        let e = parse_libtest("hello\nworld\n", fid()).unwrap_err();
        assert_eq!(e.code, "K0604");
    }

    /// Linear time: a test case with 100,000 attributes is refused at once (roxmltree took 39 s),
    /// and 20,000 failed tests with their output sections are read in well under a second.
    #[test]
    fn large_inputs_take_linear_time() {
        let mut xml = String::from("<testsuites><testcase name=\"a\" classname=\"p::t\"");
        for i in 0..100_000 {
            xml.push_str(&format!(" a{i}=\"x\""));
        }
        xml.push_str("/></testsuites>");
        let start = std::time::Instant::now();
        let e = parse_junit(&xml, fid()).unwrap_err();
        assert_eq!(e.code, "K0602");
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        // Found by fuzzing: the span of the element must not end inside a character.
        let wide = format!("<t{}>", "容=".repeat(300));
        let e = parse_junit(&wide, fid()).unwrap_err();
        assert!(wide.is_char_boundary(e.span.unwrap().range.end));
        // Attributes in comments, CDATA and quoted values are not counted.
        let quiet = format!(
            "<testsuites><!-- {} --><testcase name=\"a{}\" classname=\"p::t\"/></testsuites>",
            "a=1 ".repeat(1000),
            "=".repeat(1000)
        );
        assert_eq!(parse_junit(&quiet, fid()).unwrap().len(), 1);

        let mut text = String::from("     Running tests/t.rs (target/debug/deps/t-00)\n");
        for i in 0..20_000 {
            text.push_str(&format!("test t{i} ... FAILED\n"));
        }
        text.push_str("\nfailures:\n\n");
        for i in 0..20_000 {
            text.push_str(&format!("---- t{i} stdout ----\nboom {i}\n\n"));
        }
        text.push_str("test result: FAILED. 0 passed; 20000 failed\n");
        let start = std::time::Instant::now();
        let r = parse_libtest(&text, fid()).unwrap();
        assert_eq!(r.len(), 20_000);
        assert_eq!(r[19_999].message.as_deref(), Some("boom 19999"));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn a_byte_order_mark_before_junit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.xml");
        std::fs::write(
            &p,
            "\u{feff}<?xml version=\"1.0\"?>\n<testsuites><testcase name=\"a\" classname=\"p::t\"/></testsuites>\n",
        )
        .unwrap();
        let (mut results, mut sources, mut diags) =
            (Results::default(), SourceMap::default(), Vec::new());
        assert!(
            read(
                &p,
                &mut results,
                &mut sources,
                &mut diags,
                &Default::default()
            ),
            "{diags:?}"
        );
        assert_eq!(results.by_test.len(), 1);
    }

    fn read_text(text: &str) -> Results {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r");
        std::fs::write(&p, text).unwrap();
        let (mut results, mut sources, mut diags) =
            (Results::default(), SourceMap::default(), Vec::new());
        assert!(
            read(
                &p,
                &mut results,
                &mut sources,
                &mut diags,
                &Default::default()
            ),
            "{diags:?}"
        );
        results
    }

    /// Each runner's report attaches to the test of its language as the scan names it; a name in
    /// another module or class does not.
    #[test]
    fn other_languages_runners() {
        let go = Target::Foreign(Lang::Go);
        let py = Target::Foreign(Lang::Python);
        let js = Target::Foreign(Lang::JavaScript);
        // go test -json, go test -v, gotestsum's JUnit: the same outcomes.
        let json = "{\"Action\":\"run\",\"Package\":\"m/x\",\"Test\":\"TestA\"}\n{\"Action\":\"run\",\"Test\":\"TestA/sub_one\"}\n{\"Action\":\"fail\",\"Test\":\"TestA/sub_one\"}\n{\"Action\":\"fail\",\"Test\":\"TestA\"}\n{\"Action\":\"skip\",\"Test\":\"TestB\"}\n{\"Action\":\"run\",\"Test\":\"TestC\"}\n";
        let verbose = "=== RUN   TestA\n=== RUN   TestA/sub_one\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/sub_one (0.00s)\n--- SKIP: TestB (0.00s)\n=== RUN   TestC\n";
        let xml = "<testsuites><testsuite name=\"m/x\"><testcase classname=\"m/x\" name=\"TestA\"><failure/></testcase><testcase classname=\"m/x\" name=\"TestA/sub_one\"><failure/></testcase><testcase classname=\"m/x\" name=\"TestB\"><skipped/></testcase><testcase classname=\"m/x\" name=\"TestC\"><error/></testcase></testsuite></testsuites>";
        for text in [json, verbose, xml] {
            let r = read_text(text);
            assert_eq!(
                r.outcome(None, &go, "TestA"),
                Some(Outcome::Failed),
                "{text}"
            );
            assert_eq!(r.outcome(None, &go, "TestA/sub_one"), Some(Outcome::Failed));
            assert_eq!(r.outcome(None, &go, "TestB"), Some(Outcome::Skipped));
            assert_eq!(
                r.outcome(None, &go, "TestC"),
                Some(Outcome::Failed),
                "unfinished"
            );
            assert_eq!(r.outcome(None, &go, "TestD"), None);
            assert!(!r.is_empty());
        }
        // pytest's JUnit: classname is the module (and class) from pytest's root.
        let pytest = "<testsuites><testsuite name=\"pytest\"><testcase classname=\"tests.test_x.TestC\" name=\"test_y\"><failure message=\"assert 0\">boom</failure></testcase><testcase classname=\"tests.test_x\" name=\"test_z\"><skipped type=\"pytest.skip\" message=\"later\"/></testcase></testsuite></testsuites>";
        let r = read_text(pytest);
        assert_eq!(
            r.outcome(None, &py, "f/tests/test_x.py::TestC::test_y"),
            Some(Outcome::Failed)
        );
        assert_eq!(
            r.message(None, &py, "f/tests/test_x.py::TestC::test_y")
                .as_deref(),
            Some("assert 0\nboom")
        );
        assert_eq!(
            r.outcome(None, &py, "tests/test_x.py::test_z"),
            Some(Outcome::Skipped)
        );
        assert_eq!(
            r.outcome(None, &py, "test_x.py::test_z"),
            Some(Outcome::Skipped),
            "run from tests/"
        );
        assert_eq!(
            r.outcome(None, &py, "tests/test_x.py::test_y"),
            None,
            "another class"
        );
        assert_eq!(
            r.outcome(None, &py, "tests/best_x.py::TestC::test_y"),
            None,
            "another module"
        );
        // Vitest names `group > test`; jest-junit and mocha `group test`.
        let vitest = "<testsuites name=\"vitest tests\"><testsuite name=\"x.test.ts\"><testcase classname=\"x.test.ts\" name=\"group &gt; does it\"/></testsuite></testsuites>";
        let jest = "<testsuites name=\"jest tests\"><testsuite name=\"group\"><testcase classname=\"group does it\" name=\"group does it\"><failure>no</failure></testcase></testsuite></testsuites>";
        assert_eq!(
            read_text(vitest).outcome(None, &js, "group > does it"),
            Some(Outcome::Passed)
        );
        assert_eq!(
            read_text(jest).outcome(None, &js, "group > does it"),
            Some(Outcome::Failed)
        );
        assert_eq!(read_text(jest).outcome(None, &js, "group > other"), None);
        // GoogleTest's XML: a disabled test is `status="notrun"` without a child, skipped.
        let c = Target::Foreign(Lang::C);
        let gtest = "<testsuites><testsuite name=\"Ports\"><testcase name=\"Default\" status=\"run\" result=\"completed\" classname=\"Ports\"/><testcase name=\"DISABLED_Slow\" status=\"notrun\" result=\"suppressed\" classname=\"Ports\"/><testcase name=\"Env\" status=\"run\" result=\"skipped\" classname=\"PortFixture\"><skipped message=\"not yet\"/></testcase></testsuite></testsuites>";
        let r = read_text(gtest);
        assert_eq!(r.outcome(None, &c, "Ports.Default"), Some(Outcome::Passed));
        assert_eq!(
            r.outcome(None, &c, "Ports.DISABLED_Slow"),
            Some(Outcome::Skipped)
        );
        assert_eq!(
            r.outcome(None, &c, "PortFixture.Env"),
            Some(Outcome::Skipped)
        );
        assert_eq!(r.outcome(None, &c, "Other.Default"), None);
        // Maven Surefire and Gradle: the class's qualified name, the method (Gradle: `env()`).
        let java = Target::Foreign(Lang::Java);
        let surefire = "<testsuite name=\"com.example.PortsTest\"><testcase name=\"env\" classname=\"com.example.PortsTest\"><failure message=\"no\"/></testcase><testcase name=\"deep()\" classname=\"com.example.PortsTest$Inner\"/></testsuite>";
        let r = read_text(surefire);
        assert_eq!(
            r.outcome(None, &java, "com.example.PortsTest.env"),
            Some(Outcome::Failed)
        );
        assert_eq!(
            r.outcome(None, &java, "com.example.PortsTest$Inner.deep"),
            Some(Outcome::Passed)
        );
        assert_eq!(r.outcome(None, &java, "com.example.OtherTest.env"), None);
    }

    #[test]
    fn worst_outcome_wins_and_packages_are_respected() {
        let mut r = Results::default();
        let t = Target::Test("x".into());
        for (p, o) in [(Some("a"), Outcome::Passed), (Some("b"), Outcome::Failed)] {
            r.add(TestResult {
                package: p.map(String::from),
                target: t.clone(),
                name: "n".into(),
                outcome: o,
                message: None,
                named: None,
            });
        }
        assert_eq!(r.outcome(Some("a"), &t, "n"), Some(Outcome::Passed));
        assert_eq!(r.outcome(Some("b"), &t, "n"), Some(Outcome::Failed));
        assert_eq!(r.outcome(None, &t, "n"), Some(Outcome::Failed));
        assert_eq!(r.outcome(Some("c"), &t, "n"), None);
        assert_eq!(r.outcome(Some("a"), &t, "other"), None);
    }
}
