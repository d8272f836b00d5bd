//! The contract the platform commands judge against. Their checks are judgements against the
//! Knative Runtime Contract's clauses, so the binary carries that contract: `spec/`'s
//! `contract.yaml` and chapters as they were when it was built (the binary's `src/embedded.rs`), loaded from memory.
//! A platform team runs `platform lint` or `platform verify` from its own repository, where there
//! is no `spec/` of this contract (or a `spec/` of something else); `--spec DIR` is only for
//! judging against another copy of the contract (a newer checkout).
//!
//! A check whose clause the contract lacks is never skipped. When the built-in contract lacks it,
//! the binary's tables and its `spec/` disagree: K1106 per row, for kcontract's developers (the
//! repository's tests catch it before a binary ships). When a `--spec` folder lacks clauses, the
//! folder is another contract or another version of it: one K1108 for the user, saying so.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kcontract_spec::Spec;
use kcontract_spec::diagnostic::Diagnostic;

/// Where a platform command's contract came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The contract built into the binary.
    BuiltIn,
    /// The folder `--spec` named.
    Given(PathBuf),
}

/// A platform command's table of checks, for [`missing`].
#[derive(Debug)]
pub struct Table {
    /// The command (`platform lint`).
    pub command: &'static str,
    /// Where the table is, for kcontract's developers (`src/platform/lint.rs (LINT_CHECKS)`).
    pub place: &'static str,
    /// Each row's check and clause.
    pub rows: Vec<(&'static str, &'static str)>,
}

/// How many missing clauses K1108 names before "and N more".
const NAMED: usize = 4;

/// The rows of `table` whose clause `spec` does not have, as diagnostics: K1106 per row for the
/// built-in contract (the binary disagrees with itself), one K1108 for a `--spec` folder.
pub fn missing(spec: &Spec, source: &Source, table: &Table) -> Vec<Diagnostic> {
    let gone: Vec<(&str, &str)> = table
        .rows
        .iter()
        .copied()
        .filter(|(_, clause)| spec.clause(clause).is_none())
        .collect();
    if gone.is_empty() {
        return Vec::new();
    }
    let Source::Given(dir) = source else {
        return gone
            .into_iter()
            .map(|(check, clause)| {
                Diagnostic::error(
                    "K1106",
                    format!(
                        "`{}` check `{check}` names clause `{clause}`, which the built-in contract does not have",
                        table.command
                    ),
                )
                .help(format!(
                    "the clause was renamed or removed in spec/: change its row in {}, or remove the row",
                    table.place
                ))
            })
            .collect();
    };
    let clauses = unique(&table.rows);
    let missing = unique(&gone);
    let named = |ids: &[&str]| {
        let mut s = ids
            .iter()
            .take(NAMED)
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        if ids.len() > NAMED {
            s.push_str(&format!(" and {} more", ids.len() - NAMED));
        }
        s
    };
    let what = format!(
        "`{}` ({} {})",
        dir.display(),
        spec.contract.title,
        spec.contract.version
    );
    let message = if missing.len() == clauses.len() {
        format!(
            "{what} is not the Knative Runtime Contract: it has none of the {} clauses `{}` judges",
            clauses.len(),
            table.command
        )
    } else {
        format!(
            "{what} lacks {} of the {} clauses `{}` judges: {}",
            missing.len(),
            clauses.len(),
            table.command,
            named(&missing)
        )
    };
    vec![Diagnostic::error("K1108", message).help(format!(
        "`{}` judges against the Knative Runtime Contract's clauses ({}); leave out --spec to use \
         the contract built into kcontract {}, or give --spec a folder of that contract \
         (kcontract's spec/ of the same version)",
        table.command,
        named(&clauses),
        env!("CARGO_PKG_VERSION")
    ))]
}

/// The clauses of `rows`, each once, in their order.
fn unique<'a>(rows: &[(&'a str, &'a str)]) -> Vec<&'a str> {
    let mut seen = BTreeSet::new();
    rows.iter()
        .map(|(_, c)| *c)
        .filter(|c| seen.insert(*c))
        .collect()
}
