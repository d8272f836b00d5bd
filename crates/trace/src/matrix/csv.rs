//! `matrix --format csv` and `site/matrix.csv`: RFC 4180, one row per clause, safe to open in a
//! spreadsheet.

use std::fmt::Write as _;

use super::{Matrix, TestView};

/// RFC 4180 CSV, one row per clause; `tests` lists the claiming tests as `binary name [outcome]`,
/// `; `-separated. With run reports, a column `platform:<name>` per platform after `messages`,
/// holding the clause's status there and the routes it was decided on (`pass (deployed)`; empty:
/// not in the report).
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
            .chain(
                r.platforms
                    .iter()
                    .map(|p| csv_field(&format!("{}{}", p.shown(), p.routes_suffix()))),
            )
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

#[cfg(test)]
mod tests {
    use super::*;

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
