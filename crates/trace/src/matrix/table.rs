//! The terminal's table, made for CI logs: what needs someone first, then one row per clause,
//! then coverage per level and actor.

use std::fmt::Write as _;

use super::{Matrix, PlatformCell, PlatformStatus, ReportStatus, Row, Status, TestView};
use crate::results::Outcome;
use kcontract_spec::Clause;

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
    let shown: Vec<&Row> = m
        .rows
        .iter()
        .filter(|r| only.is_empty() || only.contains(&r.status))
        .collect();
    let mut out = String::new();
    failing(&mut out, &shown);
    suspect(&mut out, &shown);
    if only.is_empty() {
        stale(&mut out, m);
    }
    rows(&mut out, m, &shown);
    coverage(&mut out, m);
    footer(&mut out, m);
    out
}

/// A clause as the head of its entry in a section: id, level, actor, verify.
fn head(r: &Row) -> String {
    format!(
        "{}  {} · {} · verify: {}",
        r.clause.id, r.clause.level, r.clause.actor, r.clause.verify
    )
}

/// `FAILING (n)`: each failing clause with its failed real tests and their messages, and the
/// platforms whose check failed it with theirs.
fn failing(out: &mut String, shown: &[&Row]) {
    let failing: Vec<&Row> = shown
        .iter()
        .copied()
        .filter(|r| r.status == Status::Failing)
        .collect();
    if failing.is_empty() {
        return;
    }
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
                indented(out, msg, "      ");
            }
        }
        // The platforms that failed it, each failed check with its message.
        for p in r.platforms.iter().filter(|p| {
            p.documentation.is_none()
                && p.status == Some(PlatformStatus::Reported(ReportStatus::Fail))
        }) {
            for line in platform_lines(p, r.clause) {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    out.push('\n');
}

/// `SUSPECT`: each clause with a test reviewed against an older text, that test's stamp shown.
fn suspect(out: &mut String, shown: &[&Row]) {
    let suspect: Vec<&Row> = shown
        .iter()
        .copied()
        .filter(|r| r.tests.iter().any(|t| t.suspect))
        .collect();
    if suspect.is_empty() {
        return;
    }
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

/// `STALE CLAIMS`: claims of ids the contract no longer has, with where a renamed clause went.
fn stale(out: &mut String, m: &Matrix) {
    if m.stale.is_empty() {
        return;
    }
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

/// One row per clause shown (a column per platform), each with its real tests, the platforms'
/// findings and a local exemption's reason under it.
fn rows(out: &mut String, m: &Matrix, shown: &[&Row]) {
    let mut head_row = ["ID", "LEVEL", "ACTOR", "VERIFY", "STATUS", "TESTS", "STUBS"]
        .map(String::from)
        .to_vec();
    head_row.extend(m.platforms.iter().map(|p| p.name.clone()));
    let mut rows = vec![head_row];
    // Row index → the lines under it (its real tests; a local exemption's reason).
    let mut under: Vec<Vec<String>> = vec![Vec::new()];
    for r in shown {
        rows.push(cells(r));
        under.push(lines_under(r));
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
}

/// A clause's cells: id, level, actor, verify, status, real tests, stubs, then its status in
/// each platform (`-` when the report lacks it).
fn cells(r: &Row) -> Vec<String> {
    let real = r.tests.iter().filter(|t| !t.stub).count();
    let mut cells = vec![
        r.clause.id.clone(),
        r.clause.level.to_string(),
        r.clause.actor.to_string(),
        r.clause.verify.to_string(),
        r.status.to_string(),
        real.to_string(),
        (r.tests.len() - real).to_string(),
    ];
    cells.extend(r.platforms.iter().map(|p| match p.shown() {
        "" => "-".to_string(),
        s => format!("{s}{}", p.routes_suffix()),
    }));
    cells
}

/// The lines under a clause's row: its real tests, what the platforms found that needs someone,
/// and why the crate exempts it.
fn lines_under(r: &Row) -> Vec<String> {
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
    lines
}

/// The coverage table: per level, per actor and overall, a column per status (`exempt` only
/// when a crate exempts something), `EXECUTED` with run reports, and the covered ratio.
fn coverage(out: &mut String, m: &Matrix) {
    let s = m.summary();
    // The exempt column only when a crate exempts something: the common table stays as it was.
    let statuses: Vec<Status> = Status::REPORTED
        .iter()
        .copied()
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
}

/// What the matrix is of: the selection, the results files, each platform's report.
fn footer(out: &mut String, m: &Matrix) {
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
        let routes: Vec<&str> = p.routes.iter().map(|r| r.as_str()).collect();
        let _ = writeln!(
            out,
            "platform {}: {} ({runtime}profile {}, run {}; route {})",
            p.name,
            p.file,
            p.profile,
            p.date,
            routes.join(", ")
        );
    }
    if !m.platforms.is_empty() {
        out.push_str(
            "executed: a platform check passed or failed on the clause's current text (stale: an older text); it counts as covered\n",
        );
    }
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
