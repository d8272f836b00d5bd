//! The contract's history as data: each earlier version named by `history:` in `contract.yaml`
//! loaded like the current one, and every version step compared by [`compare`](super::compare),
//! the comparison `kcontract diff` prints. The site's Changes page is rendered from these
//! [`Diff`]s, so the page and the command cannot disagree about what changed or what kind of
//! change it was.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Diff, unreadable_ids};
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::diagnostic::plural;
use kcontract_spec::{Contract, EarlierVersion, Spec};
use kcontract_spec::{LoadOptions, Loaded};

/// What changed from each earlier version of the contract to the next, oldest first; empty for a
/// contract without `history:`, whose site then has no Changes page.
#[derive(Debug, Default)]
pub struct History {
    /// The version steps, oldest first; the last one ends at the current version.
    pub steps: Vec<Step>,
}

impl History {
    /// No earlier version: nothing to show.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// One version step: an earlier version, the one after it, and what changed between them.
#[derive(Debug)]
pub struct Step {
    /// The earlier version.
    pub old: EarlierVersion,
    /// The version after it: a later earlier version, or `None` for the current one.
    pub new: Option<EarlierVersion>,
    /// What changed, as `kcontract diff <old> <new>` reports it.
    pub diff: Diff,
}

/// An earlier version and its load.
pub struct Version {
    /// Its entry in `history:`.
    pub(crate) entry: EarlierVersion,
    /// Its folder, as loaded (`path:` relative to the current spec folder).
    pub(crate) dir: PathBuf,
    /// Its folder loaded with the same loader as the current spec.
    pub loaded: Loaded,
}

impl Version {
    /// The errors of its load (its warnings, a stale translation in a version no one edits any
    /// more, are not the current build's business).
    pub fn errors(&self) -> Vec<Diagnostic> {
        self.loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    }
}

/// Every earlier version of `contract` (whose folder is `spec_dir`) loaded, in parallel, in date
/// order (the order listed among versions of the same date).
pub fn load(spec_dir: &Path, contract: &Contract) -> Vec<Version> {
    let mut entries: Vec<&EarlierVersion> = contract.history.iter().collect();
    // `date` is checked to be `YYYY-MM-DD` (K0015): as text it sorts as a date.
    entries.sort_by(|a, b| a.date.cmp(&b.date));
    entries
        .into_par_iter()
        .map(|entry| {
            let dir = entry.dir(spec_dir);
            Version {
                entry: entry.clone(),
                loaded: kcontract_spec::load_with(&dir, LoadOptions::default()),
                dir,
            }
        })
        .collect()
}

/// K0016 for each version whose load had errors (those are printed with the version's own files;
/// this one points at its `path:` in the current `contract.yaml`). Empty when all loaded.
pub fn broken(versions: &[Version], spec_dir: &Path) -> Vec<Diagnostic> {
    versions
        .iter()
        .filter_map(|v| {
            let n = v.loaded.error_count();
            (n > 0).then(|| {
                Diagnostic::error(
                    "K0016",
                    format!(
                        "the earlier version `{}` has {n} error{} (above); its changes cannot be shown",
                        v.entry.name,
                        plural(n)
                    ),
                )
                .at(
                    v.entry.span.clone(),
                    format!("`{}` does not load", v.entry.dir(spec_dir).display()),
                )
                .help(format!(
                    "an earlier version is kept as it was; fix what broke it (`kcontract check --spec {}` lists the errors) or correct `path`",
                    v.entry.dir(spec_dir).display()
                ))
            })
        })
        .collect()
}

/// Each version step of `versions` (as [`load`] returns them) and then `current` compared, oldest
/// first.
pub fn compare(versions: &[Version], current: &Spec) -> History {
    let steps = versions
        .par_iter()
        .enumerate()
        .map(|(i, v)| {
            let next = versions.get(i + 1);
            let new_spec = next.map_or(current, |n| &n.loaded.spec);
            let mut unreadable: BTreeSet<String> = unreadable_ids(&v.loaded, &v.dir);
            if let Some(n) = next {
                unreadable.extend(unreadable_ids(&n.loaded, &n.dir));
            }
            Step {
                old: v.entry.clone(),
                new: next.map(|n| n.entry.clone()),
                diff: super::compare(&v.loaded.spec, new_spec, &unreadable, None),
            }
        })
        .collect();
    History { steps }
}
