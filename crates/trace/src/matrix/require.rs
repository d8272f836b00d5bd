//! The `--require SELECTOR=STATUS` gate: which clauses fall short of a minimum status, in the
//! clause's status (its tests here, and the platforms' failures folded in) or in the platform
//! columns (`platform:NAME=pass`).
//!
//! ```text
//! requirement := selector '=' STATUS                     the clause's status (docs/ci-gates.md)
//!              | [selector ','] 'platform:' (NAME | '*') '=' ('pass' | 'not-run')
//! ```
//!
//! A `platform:` term names the column (the run report's platform, `*` every column) the rest of
//! the selector's clauses are gated in; it is written once (in each alternative, the same, when
//! the selector has several). In a column, `fail` meets nothing; a clause the report lacks, one it
//! judged against an older text (`stale`) and an `error` meet nothing either; `not-run` meets
//! `not-run`; `pass` meets both; `n/a` (the check says the clause does not apply to that platform),
//! a waived and an exempt clause meet every one. A documentation clause is `pass` when a person
//! reviewed its link (`documented`), below `not-run` otherwise.

use std::str::FromStr;

use super::{Matrix, PlatformCell, PlatformStatus, ReportStatus, Row, Status};
use crate::selector::{Selector, SelectorError};
use kcontract_spec::Clause;

/// `SELECTOR=STATUS`: every clause the selector picks must have at least STATUS, in its status or
/// in a platform column (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The requirement as given on the command line, for messages.
    pub text: String,
    /// Which clauses it is about (without its `platform:` term).
    pub selector: Selector,
    /// What they must have.
    pub want: Want,
}

/// What a requirement asks of each clause it selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// At least this status (in the order of [`Status`]: untested < stub < external < suspect <
    /// implemented < passing; `failing` meets nothing; `waived` and `exempt` meet everything).
    /// Never `failing`, `waived` or `exempt`.
    Status(Status),
    /// At least this in the platform columns named.
    Platform {
        /// Which columns.
        column: Column,
        /// The minimum there.
        status: PlatformWant,
    },
}

/// The platform columns a requirement is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// `platform:*`: every column given.
    All,
    /// `platform:NAME`: the column of that name.
    Named(String),
}

/// The minimum of a platform requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum PlatformWant {
    /// Nothing failed, errored, is stale or missing: the check ran, or says why not.
    NotRun,
    /// The check passed.
    Pass,
}

impl PlatformWant {
    /// `not-run` or `pass`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a `--require` value is not a requirement; its text is clap's message for the option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequirementError {
    /// No `=` between a selector and a status.
    #[error(
        "`{0}` has no `=`: write SELECTOR=STATUS, e.g. `MUST=implemented` or `verify:model=passing`"
    )]
    NoEquals(String),
    /// A status that is not a minimum (`failing`, `waived`, `exempt`), or no status at all.
    #[error(
        "`{0}` cannot be required: use untested, stub, external, suspect, implemented or passing (a minimum, in that order)"
    )]
    NotAMinimum(String),
    /// A status a platform column does not have as a minimum.
    #[error(
        "`{0}` cannot be required of a platform column: use not-run or pass (`platform:NAME=pass`)"
    )]
    NotAPlatformMinimum(String),
    /// A `platform:` term negated, empty, written twice or only in some alternatives.
    #[error(
        "`{0}`: write one `platform:NAME` (or `platform:*`) term, not negated, and the same one in every alternative (e.g. `MUST,platform:runc=pass`)"
    )]
    PlatformTerm(String),
    /// The selector before the `=` does not parse.
    #[error(transparent)]
    Selector(#[from] SelectorError),
}

/// The selector's text with its `platform:` terms taken out, and the column they name (`None`
/// when there is none). Each alternative must name the same column once.
fn split_platform(sel: &str) -> Result<(String, Option<Column>), RequirementError> {
    let bad = || RequirementError::PlatformTerm(sel.trim().to_string());
    let mut column: Option<Option<Column>> = None;
    let mut alternatives = Vec::new();
    for alt in sel.split('|') {
        let mut named = None;
        let mut rest = Vec::new();
        for term in alt.split(',') {
            let t = term.trim();
            let body = t.strip_prefix('!').map_or(t, str::trim_start);
            match body.split_once(':') {
                Some((k, v)) if k.trim() == "platform" => {
                    let v = v.trim();
                    if t.starts_with('!') || v.is_empty() || named.is_some() {
                        return Err(bad());
                    }
                    named = Some(if v == "*" {
                        Column::All
                    } else {
                        Column::Named(v.to_string())
                    });
                }
                _ => rest.push(t),
            }
        }
        match &column {
            None => column = Some(named),
            Some(c) if *c == named => {}
            Some(_) => return Err(bad()),
        }
        alternatives.push(if rest.is_empty() {
            "*".to_string()
        } else {
            rest.join(",")
        });
    }
    Ok((alternatives.join("|"), column.flatten()))
}

impl FromStr for Requirement {
    type Err = RequirementError;
    fn from_str(s: &str) -> Result<Self, RequirementError> {
        let (sel, status) = s
            .rsplit_once('=')
            .ok_or_else(|| RequirementError::NoEquals(s.to_string()))?;
        let status = status.trim();
        let (sel, column) = split_platform(sel)?;
        let want = match column {
            Some(column) => Want::Platform {
                column,
                status: match status {
                    "pass" => PlatformWant::Pass,
                    "not-run" => PlatformWant::NotRun,
                    _ => return Err(RequirementError::NotAPlatformMinimum(status.to_string())),
                },
            },
            None => match status.parse::<Status>() {
                Ok(st) if !matches!(st, Status::Failing | Status::Waived | Status::Exempt) => {
                    Want::Status(st)
                }
                _ => return Err(RequirementError::NotAMinimum(status.to_string())),
            },
        };
        Ok(Requirement {
            text: s.to_string(),
            selector: sel.parse()?,
            want,
        })
    }
}

impl Requirement {
    /// Does the selector pick clause `c`?
    pub fn selects(&self, c: &Clause) -> bool {
        self.selector.selects(c)
    }

    /// The column this requirement names that `m` does not have (`platform:NAME`, or
    /// `platform:*` without any column), for the usage error: a gate on a column that is not
    /// there would check nothing.
    pub fn missing_column(&self, columns: &[&str]) -> Option<String> {
        match &self.want {
            Want::Status(_) => None,
            Want::Platform {
                column: Column::All,
                ..
            } => columns.is_empty().then(|| "*".to_string()),
            Want::Platform {
                column: Column::Named(n),
                ..
            } => (!columns.contains(&n.as_str())).then(|| n.clone()),
        }
    }

    /// The minimum, as the gate's message names it, with the order it is in.
    pub fn explain(&self) -> String {
        match &self.want {
            Want::Status(s) => format!(
                "each needs at least `{s}` (untested < stub < external < suspect < implemented < passing; failing, a test or a platform check that failed, meets nothing; waived and exempt meet everything)"
            ),
            Want::Platform { status, .. } => format!(
                "each needs at least `{}` in the platform's column (absent, stale, error < not-run < pass; fail meets nothing; n/a, waived and exempt meet everything)",
                status.as_str()
            ),
        }
    }

    /// Does a clause with status `s` meet a status requirement (`waived` and `exempt` always,
    /// `failing` never)?
    pub(crate) fn met_by(&self, s: Status) -> bool {
        match &self.want {
            Want::Status(min) => {
                matches!(s, Status::Waived | Status::Exempt) || (s != Status::Failing && s >= *min)
            }
            Want::Platform { .. } => matches!(s, Status::Waived | Status::Exempt),
        }
    }
}

/// A clause that does not meet a requirement: the requirement, the row, and what it has instead
/// (its status, or the column's name and cell).
pub struct Offence<'m, 'a> {
    /// The requirement not met.
    pub requirement: &'m Requirement,
    /// The clause's row.
    pub row: &'m Row<'a>,
    /// What the clause has: its status (`stub`), or `NAME: CELL` (`runc: fail`, `runc: -`).
    pub has: String,
}

/// A cell's worth for a platform requirement: `None` when it meets every minimum (`n/a`), else
/// the minimum it meets (`None` inside: none).
fn cell_meets(cell: &PlatformCell) -> Option<Option<PlatformWant>> {
    if let Some(d) = &cell.documentation {
        use kcontract_platform::docs::DocStatus;
        return match d.status {
            DocStatus::NotApplicable => None,
            DocStatus::Documented => Some(Some(PlatformWant::Pass)),
            DocStatus::Undocumented => Some(None),
        };
    }
    match cell.status {
        Some(PlatformStatus::Reported(ReportStatus::NotApplicable)) => None,
        Some(PlatformStatus::Reported(ReportStatus::Pass)) => Some(Some(PlatformWant::Pass)),
        Some(PlatformStatus::Reported(ReportStatus::NotRun)) => Some(Some(PlatformWant::NotRun)),
        _ => Some(None),
    }
}

/// The clauses that do not meet a requirement, requirement by requirement, each with what it has.
pub fn offenders<'m, 'a>(m: &'m Matrix<'a>, reqs: &'m [Requirement]) -> Vec<Offence<'m, 'a>> {
    let mut out = Vec::new();
    for q in reqs {
        for r in m.rows.iter().filter(|r| q.selects(r.clause)) {
            if q.met_by(r.status) {
                continue;
            }
            match &q.want {
                Want::Status(_) => out.push(Offence {
                    requirement: q,
                    row: r,
                    has: r.status.to_string(),
                }),
                Want::Platform { column, status } => {
                    let short: Vec<String> = r
                        .platforms
                        .iter()
                        .filter(|c| match column {
                            Column::All => true,
                            Column::Named(n) => c.platform == *n,
                        })
                        .filter(|c| cell_meets(c).is_some_and(|met| met < Some(*status)))
                        .map(|c| match c.shown() {
                            "" => format!("{}: -", c.platform),
                            s => format!("{}: {s}", c.platform),
                        })
                        .collect();
                    if !short.is_empty() {
                        out.push(Offence {
                            requirement: q,
                            row: r,
                            has: short.join(", "),
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(r: &Requirement) -> Status {
        match r.want {
            Want::Status(s) => s,
            Want::Platform { .. } => panic!("{r:?}"),
        }
    }

    #[test]
    fn requirement_syntax() {
        let r: Requirement = "verify:model=passing".parse().unwrap();
        assert_eq!(status(&r), Status::Passing);
        assert_eq!(r.selector.text, "verify:model");
        assert_eq!(
            status(&"*=suspect".parse::<Requirement>().unwrap()),
            Status::Suspect
        );
        for bad in [
            "MUST",
            "MUST=waived",
            "MUST=exempt",
            "MUST=failing",
            "MUST=done",
            "verify:model,=stub",
            "=stub",
            "chapter:=stub",
            "platform:runc=passing",
            "platform:runc=fail",
            "!platform:runc=pass",
            "platform:=pass",
            "platform:runc,platform:crun=pass",
            "MUST,platform:runc|MAY=pass",
            "MUST,platform:runc|MAY,platform:crun=pass",
        ] {
            assert!(bad.parse::<Requirement>().is_err(), "{bad}");
        }
    }

    #[test]
    fn platform_terms_name_a_column() {
        let r: Requirement = "platform:runc=pass".parse().unwrap();
        assert_eq!(r.selector.text, "*");
        assert_eq!(
            r.want,
            Want::Platform {
                column: Column::Named("runc".into()),
                status: PlatformWant::Pass
            }
        );
        let r: Requirement = "MUST, platform:* |id:a.*,platform:*=not-run"
            .parse()
            .unwrap();
        assert_eq!(r.selector.text, "MUST|id:a.*");
        assert_eq!(
            r.want,
            Want::Platform {
                column: Column::All,
                status: PlatformWant::NotRun
            }
        );
        assert_eq!(r.missing_column(&[]), Some("*".into()));
        assert_eq!(r.missing_column(&["runc"]), None);
        let r: Requirement = "platform:crun=pass".parse().unwrap();
        assert_eq!(r.missing_column(&["runc"]), Some("crun".into()));
    }

    #[test]
    fn requirement_order() {
        let r: Requirement = "*=implemented".parse().unwrap();
        let met: Vec<Status> = Status::ALL.into_iter().filter(|s| r.met_by(*s)).collect();
        assert_eq!(met, [Status::Implemented, Status::Passing, Status::Waived]);
        let r: Requirement = "*=stub".parse().unwrap();
        let met: Vec<Status> = Status::ALL.into_iter().filter(|s| r.met_by(*s)).collect();
        assert_eq!(
            met,
            [
                Status::Stub,
                Status::Implemented,
                Status::Passing,
                Status::Suspect,
                Status::External,
                Status::Waived
            ]
        );
        // A real test reviewed against an older text outranks a stub with upstream tests
        // (issue #36: `external` used to outrank `suspect`).
        let r: Requirement = "*=suspect".parse().unwrap();
        assert!(r.met_by(Status::Suspect) && !r.met_by(Status::External));
        assert_eq!(Status::REPORTED.iter().filter(|s| r.met_by(**s)).count(), 5);
        assert!(r.met_by(Status::Exempt));
    }
}
