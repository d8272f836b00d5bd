//! `matrix --ci FILE`: a coverage ratchet. FILE, committed beside the tests, holds each clause's
//! status when it was last accepted; a run whose matrix has a clause below its status there
//! fails, listing them, and says how to accept the change (`--accept` writes the file anew, and the
//! change is then reviewed in the commit, as duvet's `report --ci` snapshot is). A clause that rose
//! is a note, not a failure: accepting it raises the ratchet.
//!
//! Statuses compare in the gate's order (`crate::matrix::Status`) with two adjustments: `exempt`
//! counts as `untested` (a new exemption of a tested clause is a drop someone must accept), and a
//! `waived` clause (the spec made it untestable) is not compared. Without `--results`, `passing`
//! and `failing` in the snapshot count as `implemented`: what the run cannot know is not a drop.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::matrix::{Matrix, Status};

/// Identifies the file's shape.
pub const FORMAT: &str = "kcontract-coverage/1";

/// The committed file.
#[derive(Serialize, Deserialize, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// [`FORMAT`].
    pub format: String,
    /// The crate's selection when the snapshot was taken, or null.
    pub selection: Option<String>,
    /// Covered clauses / testable clauses then (for the reader; not compared).
    pub covered: String,
    /// Clause id → status.
    pub clauses: BTreeMap<String, String>,
}

/// The snapshot of a matrix.
pub fn snapshot(m: &Matrix) -> Snapshot {
    Snapshot {
        format: FORMAT.into(),
        selection: m.selection.clone(),
        covered: m.summary().total.ratio(),
        clauses: m
            .rows
            .iter()
            .map(|r| (r.clause.id.clone(), r.status.as_str().to_string()))
            .collect(),
    }
}

/// The file's text: pretty JSON, keys in order, a final newline (byte-identical for the same
/// matrix, so an accepted file changes only where a status did).
pub fn to_text(s: &Snapshot) -> String {
    let mut t = serde_json::to_string_pretty(s).unwrap_or_default();
    t.push('\n');
    t
}

/// What comparing a matrix with a snapshot found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// (id, status in the snapshot, status now), clauses that dropped.
    pub dropped: Vec<(String, String, String)>,
    /// Clauses that rose, likewise.
    pub rose: Vec<(String, String, String)>,
}

/// Compare the matrix with the snapshot; `results` tells whether the run had results.
pub fn compare(old: &Snapshot, m: &Matrix, results: bool) -> Comparison {
    let rank = |s: Status, results_known: bool| -> Option<Status> {
        match s {
            Status::Waived => None,
            Status::Exempt => Some(Status::Untested),
            Status::Passing | Status::Failing if !results_known => Some(Status::Implemented),
            s => Some(s),
        }
    };
    let mut out = Comparison::default();
    for r in &m.rows {
        let Some(before) = old.clauses.get(&r.clause.id) else {
            continue;
        };
        let Some(b) = Status::named(before) else {
            continue;
        };
        let (Some(was), Some(now)) = (rank(b, results), rank(r.status, results)) else {
            continue;
        };
        let entry = (
            r.clause.id.clone(),
            before.clone(),
            r.status.as_str().to_string(),
        );
        if now < was {
            out.dropped.push(entry);
        } else if now > was {
            out.rose.push(entry);
        }
    }
    out
}
