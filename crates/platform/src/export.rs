//! A run report as JUnit XML and as TAP version 13, for CI systems and test harnesses that read
//! those: one test case (one TAP line) per clause check; `n/a` and `not-run` are skipped, `error`
//! is a JUnit `<error>` and a TAP `not ok`.

use std::fmt::Write as _;

use super::checks::Status;
use super::report::Report;

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot hold.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn case_name(id: &str, check: Option<&str>) -> String {
    match check {
        Some(c) => format!("{id}/{c}"),
        None => id.to_owned(),
    }
}

/// The suite's name: `<runtime> <version> / <profile>` (and the control, for a control run).
fn suite_name(r: &Report) -> String {
    let p = &r.platform;
    let mut name = format!("{} {} / {}", p.runtime, p.runtime_version, p.profile.name);
    if let Some(c) = &p.control {
        name.push_str(&format!(" / control {c}"));
    }
    name
}

/// JUnit XML: one `<testsuite>` for the platform, one `<testcase>` per clause check.
pub fn junit(r: &Report) -> String {
    let count = |s: Status| r.clauses.iter().filter(|c| c.status == s).count();
    let skipped = count(Status::NotApplicable) + count(Status::NotRun);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let suite = xml_escape(&suite_name(r));
    let _ = writeln!(
        out,
        "<testsuites name=\"kcontract platform run\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{skipped}\">",
        r.clauses.len(),
        count(Status::Fail),
        count(Status::Error)
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{skipped}\">",
        r.clauses.len(),
        count(Status::Fail),
        count(Status::Error)
    );
    for c in &r.clauses {
        let name = xml_escape(&case_name(&c.id, c.check.as_deref()));
        let _ = write!(out, "    <testcase classname=\"{suite}\" name=\"{name}\"");
        let message = xml_escape(&c.message);
        let evidence = xml_escape(&serde_json::to_string_pretty(&c.evidence).unwrap_or_default());
        match c.status {
            Status::Pass => out.push_str("/>\n"),
            Status::Fail => {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{message}\" type=\"{}\">{evidence}</failure>\n    </testcase>",
                    xml_escape(&c.level)
                );
            }
            Status::Error => {
                let _ = writeln!(
                    out,
                    ">\n      <error message=\"{message}\">{evidence}</error>\n    </testcase>"
                );
            }
            Status::NotApplicable | Status::NotRun => {
                let _ = writeln!(
                    out,
                    ">\n      <skipped message=\"{}: {message}\"/>\n    </testcase>",
                    c.status
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// A TAP description may not hold `#` (it starts a directive) or a newline.
fn tap_text(s: &str) -> String {
    s.replace('#', "\\#").replace(['\n', '\r'], " ")
}

/// TAP version 13: `ok N - <id>/<check>`, `# SKIP` for `n/a` and `not-run`, YAML diagnostics
/// (level, status, message, evidence as JSON, which is YAML) under failures and errors.
pub fn tap(r: &Report) -> String {
    let mut out = String::from("TAP version 13\n");
    let _ = writeln!(out, "1..{}", r.clauses.len());
    let _ = writeln!(out, "# {}", tap_text(&suite_name(r)));
    for (i, c) in r.clauses.iter().enumerate() {
        let n = i + 1;
        let name = tap_text(&case_name(&c.id, c.check.as_deref()));
        match c.status {
            Status::Pass => {
                let _ = writeln!(out, "ok {n} - {name}");
            }
            Status::NotApplicable | Status::NotRun => {
                let _ = writeln!(
                    out,
                    "ok {n} - {name} # SKIP {}: {}",
                    c.status,
                    tap_text(&c.message)
                );
            }
            Status::Fail | Status::Error => {
                let _ = writeln!(out, "not ok {n} - {name}");
                out.push_str("  ---\n");
                let _ = writeln!(
                    out,
                    "  level: {}",
                    serde_json::to_string(&c.level).unwrap_or_default()
                );
                let _ = writeln!(out, "  status: {}", c.status.as_str());
                let _ = writeln!(
                    out,
                    "  message: {}",
                    serde_json::to_string(&c.message).unwrap_or_default()
                );
                let _ = writeln!(
                    out,
                    "  evidence: {}",
                    serde_json::to_string(&c.evidence).unwrap_or_default()
                );
                out.push_str("  ...\n");
            }
        }
    }
    out
}
