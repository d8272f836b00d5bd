//! The platform columns: each run report given (`--platform`) folded into the rows, a clause's
//! cell being the report's status for it (`stale` when the report judged an older text). Several
//! reports given with one name (`--platform NAME=FILE`) are one column: an http and an https
//! verify of one platform, or a verify and a vendor's log. Each of a cell's checks keeps the route
//! it was decided on (`deployed`, `simulated`, `vendor-log`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::{Matrix, Row};
use kcontract_platform::report::{ClauseResult, Report};
use kcontract_platform::routes::Route;
use kcontract_spec::Clause;

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

/// A platform whose run reports were given: a column of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct PlatformColumn {
    /// The column's name: the one given (`--platform NAME=FILE`), else the report's
    /// ([`kcontract_platform::report::Platform::column_name`]: `runc`, `google-cloud-run`),
    /// unique among the columns.
    pub name: String,
    /// The report file, as given; of a column merging several reports, their files joined by
    /// `, ` (each is in `files`).
    pub file: String,
    /// Added to `kcontract-matrix/1`: every report file of the column, in the order given.
    pub files: Vec<String>,
    /// Added to `kcontract-matrix/1`: the routes the column's reports decided clauses on, in the
    /// routes' order.
    pub routes: Vec<Route>,
    /// The runtime's version the report names.
    pub runtime_version: String,
    /// The profile judged against (its name).
    pub profile: String,
    /// The day of the run.
    pub date: String,
    /// What the first report of the column is of (`platform.kind`: `local`, `conformance-log`,
    /// `verify`); the routes its results were decided by are `routes`.
    pub kind: String,
    /// The host the report names (a local run's system, a vendor's platform).
    pub host: String,
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
    /// Added to `kcontract-matrix/1`: where it was decided (`deployed`, `simulated`,
    /// `vendor-log`): the report entry's `route`; for a report written before entries carried
    /// one, the route its `platform.kind` implies (then `route_derived` is true); null when
    /// neither says.
    pub route: Option<Route>,
    /// Whether `route` was derived from the report's `platform.kind`, not read from the entry.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub route_derived: bool,
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
    /// The report's entries for the clause, one per check (of every report of the column).
    pub checks: Vec<CheckView>,
    /// Added to `kcontract-matrix/1`: the routes of the checks that decided the shown status
    /// (those with that status), in the routes' order: where the cell was decided.
    pub routes: Vec<Route>,
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
        let mut routes: Vec<Route> = self
            .checks
            .iter()
            .filter(|c| self.status == Some(PlatformStatus::Reported(c.status)))
            .filter_map(|c| c.route)
            .collect();
        routes.sort_unstable();
        routes.dedup();
        self.routes = routes;
    }

    /// The cell's routes as the table and the CSV show them after its status: ` (deployed)`,
    /// ` (deployed, vendor-log)`; empty when none is known or the cell shows a documentation
    /// clause's review (no route decides those).
    pub(crate) fn routes_suffix(&self) -> String {
        if self.routes.is_empty() || self.documentation.is_some() {
            return String::new();
        }
        let names: Vec<&str> = self.routes.iter().map(|r| r.as_str()).collect();
        format!(" ({})", names.join(", "))
    }
}

/// A run report to fold into the matrix: its file as given, the column's name when given, and
/// its content.
#[derive(Clone, Debug)]
pub struct PlatformRun {
    /// The file, as given on the command line.
    pub file: String,
    /// The column's name given with it (`--platform NAME=FILE`): reports given with one name are
    /// one column.
    pub given_name: Option<String>,
    /// The report.
    pub report: kcontract_platform::report::Report,
}

impl PlatformRun {
    /// The column's name: the one given, else the platform's runtime (`runc`), or a vendor log's
    /// platform name.
    pub fn name(&self) -> &str {
        self.given_name
            .as_deref()
            .unwrap_or_else(|| self.report.platform.column_name())
    }
}

impl Matrix<'_> {
    /// Adds a column per name (`--platform [NAME=]FILE`), in the order the names first come:
    /// reports of one name are one column, which the pipeline allows only when each was given
    /// that name (two reports of one platform without a name are K0613). Entries for ids the
    /// contract lacks are left out (the pipeline warns of them, K0612).
    pub fn add_platforms(&mut self, runs: &[PlatformRun]) {
        let mut names: Vec<&str> = Vec::new();
        for run in runs {
            if !names.contains(&run.name()) {
                names.push(run.name());
            }
        }
        for name in names {
            let group: Vec<&PlatformRun> = runs.iter().filter(|r| r.name() == name).collect();
            self.add_column(name, &group);
        }
    }

    /// One column named `name` of the reports `group` (at least one).
    fn add_column(&mut self, name: &str, group: &[&PlatformRun]) {
        let Some(first) = group.first() else {
            return;
        };
        let p = &first.report.platform;
        let files: Vec<String> = group.iter().map(|r| r.file.clone()).collect();
        let mut routes: Vec<Route> = group
            .iter()
            .flat_map(|r| {
                r.report
                    .clauses
                    .iter()
                    .filter_map(|c| route_of(c, &r.report).0)
            })
            .collect();
        routes.sort_unstable();
        routes.dedup();
        self.platforms.push(PlatformColumn {
            name: name.to_owned(),
            file: files.join(", "),
            files,
            routes,
            runtime_version: p.runtime_version.clone(),
            profile: p.profile.name.clone(),
            date: p.date.clone(),
            kind: p.kind.clone(),
            host: p.host.clone(),
        });
        let mut by_id: BTreeMap<&str, Vec<(&ClauseResult, &Report)>> = BTreeMap::new();
        for run in group {
            for c in &run.report.clauses {
                by_id
                    .entry(c.id.as_str())
                    .or_default()
                    .push((c, &run.report));
            }
        }
        for row in &mut self.rows {
            let entries = by_id.get(row.clause.id.as_str()).map_or(&[][..], |v| v);
            let mut cell = PlatformCell {
                platform: name.to_owned(),
                status: None,
                stale_stamp: None,
                checks: entries
                    .iter()
                    .map(|(e, report)| {
                        let (route, route_derived) = route_of(e, report);
                        CheckView {
                            check: e.check.clone(),
                            status: e.status,
                            message: e.message.clone(),
                            route,
                            route_derived,
                        }
                    })
                    .collect(),
                routes: Vec::new(),
                documentation: group
                    .iter()
                    .filter_map(|r| documentation(row.clause, &r.report))
                    .min_by_key(|d| d.status != kcontract_platform::docs::DocStatus::Documented),
            };
            let stamps: Vec<&str> = entries.iter().map(|(e, _)| e.stamp.as_str()).collect();
            cell.decide(&row.clause.stamp, &stamps);
            row.platforms.push(cell);
        }
    }
}

/// The route `entry` of `report` was decided on, and whether it was derived from the report's
/// `platform.kind` (a report written before entries carried their route).
fn route_of(entry: &ClauseResult, report: &Report) -> (Option<Route>, bool) {
    match entry.route {
        Some(r) => (Some(r), false),
        None => {
            let r = report.platform.route();
            (r, r.is_some())
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
