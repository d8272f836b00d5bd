//! Coverage per level, per actor and overall: the `summary` of the JSON and the coverage table.

use serde::Serialize;

use super::{Matrix, Row, Status};
use kcontract_spec::Level;

/// Clause counts per status, in the documented order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    /// Clauses with status `untested`.
    pub untested: usize,
    /// Clauses with status `stub`.
    pub stub: usize,
    /// Clauses with status `implemented`.
    pub implemented: usize,
    /// Clauses with status `passing`.
    pub passing: usize,
    /// Clauses with status `failing`.
    pub failing: usize,
    /// Clauses with status `suspect`.
    pub suspect: usize,
    /// Clauses with status `external`.
    pub external: usize,
    /// Clauses with status `waived`.
    pub waived: usize,
    /// Clauses with status `exempt` (a crate's own waiver; added to `kcontract-matrix/1`, and
    /// only written when not 0, so the matrix of a crate without exemptions is as before).
    #[serde(skip_serializing_if = "is_zero")]
    pub exempt: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl StatusCounts {
    fn add(&mut self, s: Status) {
        *self.get_mut(s) += 1;
    }
    fn get_mut(&mut self, s: Status) -> &mut usize {
        match s {
            Status::Untested => &mut self.untested,
            Status::Stub => &mut self.stub,
            Status::Implemented => &mut self.implemented,
            Status::Passing => &mut self.passing,
            Status::Failing => &mut self.failing,
            Status::Suspect => &mut self.suspect,
            Status::External => &mut self.external,
            Status::Waived => &mut self.waived,
            Status::Exempt => &mut self.exempt,
        }
    }
    /// The count for status `s`.
    pub fn get(&self, s: Status) -> usize {
        let mut c = *self;
        *c.get_mut(s)
    }
}

/// Coverage of one group of clauses (a level, an actor, or all).
#[derive(Clone, Debug, Serialize)]
pub struct Coverage {
    /// The level or actor (`all` for the total).
    pub group: String,
    /// Clauses in the group, waived ones included.
    pub clauses: usize,
    /// Clauses that are not waived.
    pub testable: usize,
    /// Testable clauses that are not failing, with at least one real test here (implemented,
    /// passing or suspect) or an executed platform check ([`Self::executed`]). A failing clause
    /// (a test or a platform check failed) is never covered.
    pub covered: usize,
    /// Testable clauses (not waived, not exempt) that a platform check decided — `pass` or `fail`
    /// in a run report judged against their current text; null without `--platform` (added to
    /// `kcontract-matrix/1`, and only written with reports, so the matrix without them is as
    /// before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed: Option<usize>,
    /// The group's clauses counted per status.
    pub status: StatusCounts,
}

impl Coverage {
    /// `platforms`: run reports were given (so `executed` is counted).
    fn of<'r>(group: String, rows: impl Iterator<Item = &'r Row<'r>>, platforms: bool) -> Self {
        let mut status = StatusCounts::default();
        let mut clauses = 0;
        let mut covered = 0;
        let mut executed = 0;
        for r in rows {
            clauses += 1;
            status.add(r.status);
            let counted = !matches!(r.status, Status::Waived | Status::Exempt);
            // A failing clause is never covered: a failed test or platform check says the
            // clause does not hold, not that it is looked after.
            let tested = matches!(
                r.status,
                Status::Implemented | Status::Passing | Status::Suspect
            );
            let ran = counted && r.executed();
            executed += usize::from(ran);
            covered += usize::from(r.status != Status::Failing && (tested || ran));
        }
        Coverage {
            group,
            clauses,
            testable: clauses - status.waived,
            covered,
            executed: platforms.then_some(executed),
            status,
        }
    }

    /// `covered/testable (pct%)`, percent rounded down; `-` when nothing is testable.
    pub fn ratio(&self) -> String {
        if self.testable == 0 {
            "-".to_string()
        } else {
            format!(
                "{}/{} ({}%)",
                self.covered,
                self.testable,
                self.covered * 100 / self.testable
            )
        }
    }
}

/// Coverage overall, per level and per actor (the `summary` of the JSON and the text output).
#[derive(Serialize)]
pub struct Summary {
    /// All clauses (group `all`).
    pub total: Coverage,
    /// One entry per level, in [`Level::ALL`] order.
    pub by_level: Vec<Coverage>,
    /// One entry per actor of the contract, in its order.
    pub by_actor: Vec<Coverage>,
}

impl Matrix<'_> {
    /// Coverage of all rows, then per level and per actor.
    pub fn summary(&self) -> Summary {
        let platforms = !self.platforms.is_empty();
        Summary {
            total: Coverage::of("all".into(), self.rows.iter(), platforms),
            by_level: Level::ALL
                .iter()
                .map(|l| {
                    Coverage::of(
                        l.to_string(),
                        self.rows.iter().filter(|r| r.clause.level == *l),
                        platforms,
                    )
                })
                .collect(),
            by_actor: (self.spec.contract.actor_list())
                .map(|a| {
                    Coverage::of(
                        a.to_string(),
                        self.rows.iter().filter(|r| r.clause.actor == a),
                        platforms,
                    )
                })
                .collect(),
        }
    }
}
