//! The platforms page's context (`platforms.html`): every testable clause × the run reports given
//! to `build --platform` (local runtimes, vendor logs, verified URLs), each cell with its evidence
//! (the report's checks and messages), the routes that execute each clause
//! ([`kcontract_platform::routes`]), and per column how many MUST and MUST NOT clauses pass. Without
//! reports the page still lists the routes and how to make a column. The same in every language:
//! the template gives the words.

use serde::Serialize;

use super::context::{CellKey, ColumnCtx};
use kcontract_platform::routes::{self, Reason, Route};
use kcontract_spec::keywords::Level;
use kcontract_trace::matrix::{Matrix, PlatformStatus, ReportStatus};
use strum::VariantArray;

/// The page's values.
#[derive(Serialize)]
pub(super) struct PlatformsPage<'a> {
    /// One per report, in the order given.
    columns: Vec<Column<'a>>,
    /// Every route with how many clauses it executes.
    routes: Vec<Count>,
    /// Every reason a clause has no route, with how many clauses give it (only those that occur).
    reasons: Vec<Count>,
    /// The testable clauses, in spec order.
    rows: Vec<Row<'a>>,
    /// How many of `rows` are MUST or MUST NOT.
    must_total: usize,
    /// Every cell key, in the order of the status filter.
    cell_keys: &'static [CellKey],
}

/// A column: a run report.
#[derive(Serialize)]
struct Column<'a> {
    #[serde(flatten)]
    report: ColumnCtx<'a>,
    /// MUST and MUST NOT clauses the report passes.
    must_pass: usize,
}

/// A route or reason and how many clauses it applies to.
#[derive(Serialize)]
struct Count {
    name: &'static str,
    /// The command that executes the route (empty for a reason).
    command: &'static str,
    /// The command writes a run report (a column).
    column: bool,
    clauses: usize,
}

/// A testable clause.
#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    chapter: &'a str,
    level: Level,
    level_class: &'static str,
    keyword: &'a str,
    routes: Vec<&'static str>,
    reason: Option<&'static str>,
    /// Its cells' keys, space-separated, for the status filter.
    keys: String,
    cells: Vec<Cell<'a>>,
}

/// A clause in one report.
#[derive(Serialize)]
struct Cell<'a> {
    platform: &'a str,
    /// As on the matrix page ([`CellKey::of`]).
    key: CellKey,
    /// The stamp a stale report judged.
    stale_stamp: Option<&'a str>,
    /// The report's entries: what each check found, or why it did not run.
    checks: Vec<Evidence<'a>>,
    /// A documentation clause's evidence: the link and its review, or why it is undocumented.
    doc: Option<DocEvidence<'a>>,
}

/// A documentation clause on one platform ([`kcontract_platform::docs`]).
#[derive(Serialize)]
struct DocEvidence<'a> {
    /// The profile's link.
    url: Option<&'a str>,
    /// Who reviewed it and when, when a review is recorded (current or stale).
    by: Option<&'a str>,
    date: Option<&'a str>,
    /// Why it is undocumented, the end of the interface key `doc_<why>`: `no_link`,
    /// `not_reviewed`, `stale_review`.
    why: Option<&'static str>,
    message: &'a str,
}

/// One check's evidence.
#[derive(Serialize)]
struct Evidence<'a> {
    check: Option<&'a str>,
    status: &'static str,
    message: &'a str,
}

/// The page of `m`'s testable clauses and report columns.
pub(super) fn context<'a>(m: &'a Matrix) -> PlatformsPage<'a> {
    let is_must = |l: Level| matches!(l, Level::Must | Level::MustNot);
    let mut route_counts = [0usize; Route::ALL.len()];
    let mut reasons: Vec<Count> = Vec::new();
    let mut rows = Vec::new();
    let mut must_pass = vec![0usize; m.platforms.len()];
    let mut must_total = 0;
    for r in &m.rows {
        let c = r.clause;
        if c.verify.is_untestable() {
            continue;
        }
        let of = routes::of(c);
        for route in &of.routes {
            route_counts[*route as usize] += 1;
        }
        if let Some(reason) = of.reason {
            count_reason(&mut reasons, reason);
        }
        if is_must(c.level) {
            must_total += 1;
            for (i, p) in r.platforms.iter().enumerate() {
                if p.status == Some(PlatformStatus::Reported(ReportStatus::Pass)) {
                    must_pass[i] += 1;
                }
            }
        }
        let cells: Vec<Cell> = r
            .platforms
            .iter()
            .map(|p| Cell {
                platform: &p.platform,
                key: CellKey::of(p),
                stale_stamp: p.stale_stamp.as_deref(),
                checks: p
                    .checks
                    .iter()
                    .map(|x| Evidence {
                        check: x.check.as_deref(),
                        status: x.status.as_str(),
                        message: &x.message,
                    })
                    .collect(),
                doc: p.documentation.as_ref().map(|d| {
                    use kcontract_platform::docs::Undocumented as U;
                    DocEvidence {
                        // Inert even if a reader let a script URL through.
                        url: d.url.as_deref().map(kcontract_spec::url::inert),
                        by: d.review.as_ref().map(|r| r.by.as_str()),
                        date: d.review.as_ref().map(|r| r.date.as_str()),
                        why: d.undocumented.map(|u| match u {
                            U::NoLink => "no_link",
                            U::NotReviewed => "not_reviewed",
                            U::StaleReview => "stale_review",
                        }),
                        message: &d.message,
                    }
                }),
            })
            .collect();
        rows.push(Row {
            id: &c.id,
            chapter: &c.chapter,
            level: c.level,
            level_class: super::markdown::level_class(c.level),
            keyword: &c.keyword,
            routes: of.routes.iter().map(|r| r.as_str()).collect(),
            reason: of.reason.map(Reason::as_str),
            keys: cells
                .iter()
                .map(|c| c.key.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            cells,
        });
    }
    PlatformsPage {
        columns: ColumnCtx::of(m)
            .into_iter()
            .zip(must_pass)
            .map(|(report, must_pass)| Column { report, must_pass })
            .collect(),
        routes: Route::ALL
            .iter()
            .zip(route_counts)
            .map(|(r, clauses)| Count {
                name: r.as_str(),
                command: r.command(),
                column: r.makes_column(),
                clauses,
            })
            .collect(),
        reasons,
        rows,
        must_total,
        cell_keys: CellKey::VARIANTS,
    }
}

/// One more clause with `reason`.
fn count_reason(reasons: &mut Vec<Count>, reason: Reason) {
    match reasons.iter_mut().find(|c| c.name == reason.as_str()) {
        Some(c) => c.clauses += 1,
        None => reasons.push(Count {
            name: reason.as_str(),
            command: "",
            column: false,
            clauses: 1,
        }),
    }
}
