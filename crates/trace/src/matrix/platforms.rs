//! The platform columns: each run report given (`--platform`) folded into the rows, a clause's
//! cell being the report's status for it (`stale` when the report judged an older text).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::{Matrix, Row};
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

/// A platform whose run report was given: a column of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct PlatformColumn {
    /// The column's name ([`kcontract_platform::report::Platform::column_name`]: `runc`,
    /// `google-cloud-run`), unique among the columns.
    pub name: String,
    /// The report file, as given.
    pub file: String,
    /// The runtime's version the report names.
    pub runtime_version: String,
    /// The profile judged against (its name).
    pub profile: String,
    /// The day of the run.
    pub date: String,
    /// What the report is of (`platform.kind`: `local`, `conformance-log`, `verify`): the route
    /// its results were decided by, which the site names.
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
    /// The report's entries for the clause, one per check.
    pub checks: Vec<CheckView>,
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
    }
}

/// A run report to fold into the matrix: its file as given and its content.
#[derive(Clone, Debug)]
pub struct PlatformRun {
    /// The file, as given on the command line.
    pub file: String,
    /// The report.
    pub report: kcontract_platform::report::Report,
}

impl PlatformRun {
    /// The column's name: the platform's runtime (`runc`), or a vendor log's platform name.
    pub fn name(&self) -> &str {
        self.report.platform.column_name()
    }
}

impl Matrix<'_> {
    /// Adds a column per run report (`--platform`), each named by its platform's runtime: the
    /// names must differ (the pipeline refuses two reports of one name, K0613). Entries for ids
    /// the contract lacks are left out (the pipeline warns of them, K0612).
    pub fn add_platforms(&mut self, runs: &[PlatformRun]) {
        for run in runs {
            let p = &run.report.platform;
            self.platforms.push(PlatformColumn {
                name: run.name().to_string(),
                file: run.file.clone(),
                runtime_version: p.runtime_version.clone(),
                profile: p.profile.name.clone(),
                date: p.date.clone(),
                kind: p.kind.clone(),
                host: p.host.clone(),
            });
            let mut by_id: BTreeMap<&str, Vec<&kcontract_platform::report::ClauseResult>> =
                BTreeMap::new();
            for c in &run.report.clauses {
                by_id.entry(c.id.as_str()).or_default().push(c);
            }
            for row in &mut self.rows {
                let entries = by_id.get(row.clause.id.as_str()).map_or(&[][..], |v| v);
                let mut cell = PlatformCell {
                    platform: run.name().to_string(),
                    status: None,
                    stale_stamp: None,
                    checks: entries
                        .iter()
                        .map(|e| CheckView {
                            check: e.check.clone(),
                            status: e.status,
                            message: e.message.clone(),
                        })
                        .collect(),
                    documentation: documentation(row.clause, &run.report),
                };
                let stamps: Vec<&str> = entries.iter().map(|e| e.stamp.as_str()).collect();
                cell.decide(&row.clause.stamp, &stamps);
                row.platforms.push(cell);
            }
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
