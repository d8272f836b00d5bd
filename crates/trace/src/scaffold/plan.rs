//! The plan of a regeneration of the folder: every file's new text, what happened to each, the
//! orphans, and the folder's new record. Pure.

use std::collections::{BTreeMap, BTreeSet};

use super::Stubs;
use super::merge::{merge_file_in, merge_main, wanted};
use super::stub::{chapter_header, main_header};
use super::stubs::untouched_stub_for;
use super::{Plan, Unreadable, module_name};
use crate::annotations::parse_in;
use crate::matrix::Scope;
use kcontract_spec::Spec;

/// Plan a regeneration of the folder. Pure: `existing` maps the folder's `.rs` file names to
/// their text; `real_tests` are the clause ids that a real test in the scanned project claims.
pub fn plan(
    spec: &Spec,
    existing: &BTreeMap<String, String>,
    real_tests: &BTreeSet<String>,
) -> Result<Plan, Unreadable> {
    plan_in(
        spec,
        existing,
        real_tests,
        &Scope::default(),
        &BTreeSet::new(),
        &Stubs::Rust,
    )
}

/// [`plan`] for a crate's scope (its selection and exemptions), with the folder's record of the
/// clauses that have had a stub (`recorded`; see [`RECORD`]).
/// [`plan`] for stubs in the language of `stubs` (what `scaffold --lang go` plans).
pub fn plan_for(
    spec: &Spec,
    existing: &BTreeMap<String, String>,
    real_tests: &BTreeSet<String>,
    stubs: &Stubs,
) -> Result<Plan, Unreadable> {
    plan_in(
        spec,
        existing,
        real_tests,
        &Scope::default(),
        &BTreeSet::new(),
        stubs,
    )
}

pub(super) fn plan_in(
    spec: &Spec,
    existing: &BTreeMap<String, String>,
    real_tests: &BTreeSet<String>,
    scope: &Scope,
    recorded: &BTreeSet<String>,
    stubs: &Stubs,
) -> Result<Plan, Unreadable> {
    let mut plan = Plan::default();
    // Every clause claimed by any test in the folder already has its test; so has the new id of
    // a renamed clause whose old id a written test claims (K0510 says to re-point it): a second
    // test for it would be a stub beside the author's work.
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    // The new ids of those renamed clauses: no stub while the old claim is there, but not
    // recorded either (no test of theirs was ever in the folder), so that once the author deletes
    // the old test the next run writes the stub, instead of taking it for one deleted by hand.
    let mut renamed: BTreeSet<String> = BTreeSet::new();
    for (file, text) in existing {
        let syntax = parse_in(stubs.lang(), text).map_err(|failure| Unreadable {
            file: file.clone(),
            failure,
        })?;
        for f in syntax.fns.iter().filter(|f| f.is_test()) {
            let written = untouched_stub_for(stubs, text, &syntax, f, spec).is_none();
            for s in syntax.claims_of(f) {
                claimed.insert(s.id.clone());
                if written
                    && spec.clause(&s.id).is_none()
                    && let Some(new) = crate::annotations::renamed_to(spec, s.stamp.as_deref())
                {
                    renamed.insert(new.to_string());
                }
            }
        }
    }
    let mut by_file: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, c) in spec.clauses.iter().enumerate() {
        if !wanted(spec, scope, &c.id) || claimed.contains(&c.id) || renamed.contains(&c.id) {
            continue;
        }
        if real_tests.contains(&c.id) {
            plan.elsewhere.push(c.id.clone());
            continue;
        }
        if recorded.contains(&c.id) {
            plan.deleted.push(c.id.clone());
            continue;
        }
        by_file
            .entry(stubs.file_name(&module_name(&c.chapter)))
            .or_default()
            .push(i);
    }
    let mut modules: BTreeSet<String> = BTreeSet::new();
    let mut names: BTreeSet<String> = existing
        .keys()
        .filter(|f| *f != "main.rs")
        .cloned()
        .collect();
    names.extend(by_file.keys().cloned());
    for file in names {
        let add = by_file.get(&file).map_or(&[][..], Vec::as_slice);
        let header;
        let old = match existing.get(&file) {
            Some(t) => t.as_str(),
            None => {
                let chapter = &spec.clauses[add[0]].chapter;
                header = match stubs {
                    Stubs::Rust => chapter_header(spec, chapter),
                    Stubs::Go { package } => super::go::header(spec, chapter, package),
                    Stubs::Python => super::python::header(spec, chapter),
                };
                header.as_str()
            }
        };
        let (text, report, orphans) = merge_file_in(&file, old, add, spec, (scope, stubs))
            .map_err(|failure| Unreadable {
                file: file.clone(),
                failure,
            })?;
        modules.insert(file.trim_end_matches(".rs").to_string());
        plan.files.insert(file, text);
        plan.reports.push(report);
        plan.orphans.extend(orphans);
    }
    plan.record = recorded
        .iter()
        .chain(&claimed)
        .chain(plan.reports.iter().flat_map(|r| &r.added))
        .filter(|id| wanted(spec, scope, id))
        .cloned()
        .collect();
    if *stubs != Stubs::Rust {
        // A Go package or a pytest folder needs no file listing the others.
        return Ok(plan);
    }
    let main_old = existing
        .get("main.rs")
        .cloned()
        .unwrap_or_else(|| main_header(spec));
    let main = merge_main(&main_old, &modules).map_err(|failure| Unreadable {
        file: "main.rs".into(),
        failure,
    })?;
    plan.files.insert("main.rs".into(), main);
    Ok(plan)
}
