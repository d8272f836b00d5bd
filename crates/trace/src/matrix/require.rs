//! The `--require SELECTOR=STATUS` gate: which clauses fall short of a minimum status.

use std::str::FromStr;

use super::{Matrix, Row, Status};
use crate::selector::{Selector, SelectorError};
use kcontract_spec::Clause;

/// `SELECTOR=STATUS`: every clause the selector picks must have at least STATUS (in the order
/// of [`Status`]: untested < stub < external < suspect < implemented < passing; `failing` meets
/// nothing; `waived` and `exempt` meet everything). The selector is `crate::selector`'s grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The requirement as given on the command line, for messages.
    pub text: String,
    /// Which clauses it is about.
    pub selector: Selector,
    /// The minimum status (never `failing`, `waived` or `exempt`).
    pub status: Status,
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
    /// The selector before the `=` does not parse.
    #[error(transparent)]
    Selector(#[from] SelectorError),
}

impl FromStr for Requirement {
    type Err = RequirementError;
    fn from_str(s: &str) -> Result<Self, RequirementError> {
        let (sel, status) = s
            .rsplit_once('=')
            .ok_or_else(|| RequirementError::NoEquals(s.to_string()))?;
        let status = match status.trim().parse::<Status>() {
            Ok(st) if !matches!(st, Status::Failing | Status::Waived | Status::Exempt) => st,
            _ => return Err(RequirementError::NotAMinimum(status.trim().to_string())),
        };
        Ok(Requirement {
            text: s.to_string(),
            selector: sel.parse()?,
            status,
        })
    }
}

impl Requirement {
    /// Does the selector pick clause `c`?
    pub fn selects(&self, c: &Clause) -> bool {
        self.selector.selects(c)
    }
    /// Does a clause with status `s` meet the requirement (`waived` and `exempt` always,
    /// `failing` never)?
    pub(crate) fn met_by(&self, s: Status) -> bool {
        matches!(s, Status::Waived | Status::Exempt) || (s != Status::Failing && s >= self.status)
    }
}

/// The clauses that do not meet a requirement, with the requirement.
pub fn offenders<'m, 'a>(
    m: &'m Matrix<'a>,
    reqs: &'m [Requirement],
) -> Vec<(&'m Requirement, &'m Row<'a>)> {
    let mut out = Vec::new();
    for q in reqs {
        for r in &m.rows {
            if q.selects(r.clause) && !q.met_by(r.status) {
                out.push((q, r));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_syntax() {
        let r: Requirement = "verify:model=passing".parse().unwrap();
        assert_eq!(r.status, Status::Passing);
        assert_eq!(r.selector.text, "verify:model");
        assert_eq!(
            "*=suspect".parse::<Requirement>().unwrap().status,
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
        ] {
            assert!(bad.parse::<Requirement>().is_err(), "{bad}");
        }
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
